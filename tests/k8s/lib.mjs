// Helpers shared by the passes: which module holds a document's model, the documents of a file,
// the CEL expressions of a document, and the verdict line each pass prints per file.
import fs from "node:fs";
import * as yaml from "js-yaml";

// Core objects (apiVersion "v1") live in kubernetes-models/v1/KIND, grouped ones in
// kubernetes-models/GROUP/VERSION/KIND; the Prometheus Operator's CRDs come from their own package.
const packages = { "monitoring.coreos.com": "@kubernetes-models/prometheus-operator" };

export function modulePath(doc) {
  if (typeof doc?.apiVersion !== "string" || typeof doc?.kind !== "string")
    throw new Error("a document without apiVersion or kind");
  if (!/^[A-Za-z0-9.\/-]+$/.test(doc.apiVersion) || !/^[A-Za-z0-9]+$/.test(doc.kind))
    throw new Error(`not an apiVersion and kind: ${doc.apiVersion} ${doc.kind}`);
  const slash = doc.apiVersion.indexOf("/");
  if (slash < 0) return `kubernetes-models/${doc.apiVersion}/${doc.kind}`;
  const group = doc.apiVersion.slice(0, slash);
  return `${packages[group] ?? "kubernetes-models"}/${doc.apiVersion}/${doc.kind}`;
}

// Every YAML document of FILE (empty ones dropped), as [{doc, index}]; throws on a YAML error.
export function documents(file) {
  return yaml
    .loadAll(fs.readFileSync(file, "utf8"))
    .map((doc, index) => ({ doc, index }))
    .filter(({ doc }) => doc !== null && doc !== undefined);
}

// One verdict line: FILE <tab> ok|fail <tab> the problems, or NOTE when there are none (tabs and
// newlines flattened).
export function verdict(file, problems, note = "") {
  const detail = (problems.length ? problems.join("; ") : note).replace(/[\t\n]+/g, " ");
  process.stdout.write(`${file}\t${problems.length ? "fail" : "ok"}\t${detail}\n`);
}

// Every {cel: {expression}} below NODE, as [path, expression].
export function celExpressions(node, at = "") {
  const found = [];
  if (Array.isArray(node)) node.forEach((v, i) => found.push(...celExpressions(v, `${at}[${i}]`)));
  else if (node && typeof node === "object")
    for (const [k, v] of Object.entries(node)) {
      if (k === "cel" && v && typeof v === "object" && "expression" in v) found.push([`${at}.cel.expression`, v.expression]);
      else found.push(...celExpressions(v, `${at}.${k}`));
    }
  return found;
}
