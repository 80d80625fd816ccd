// Pass 1: each document through its kubernetes-models model's validate() (JSON Schema: types,
// enums, required fields, formats). Unknown fields pass here; pass 2 catches them.
// node validate.mjs FILE...   prints one verdict line per FILE (lib.mjs), exits 0.
import { modulePath, documents, verdict } from "./lib.mjs";

for (const file of process.argv.slice(2)) {
  const problems = [];
  let docs = [];
  try {
    docs = documents(file);
  } catch (e) {
    problems.push(`YAML: ${e.message}`);
  }
  if (!problems.length && !docs.length) problems.push("no YAML document");
  for (const { doc, index } of docs) {
    const where = `document ${index + 1} (${doc?.kind} ${doc?.metadata?.name})`;
    let Model;
    try {
      Model = (await import(modulePath(doc)))[doc.kind];
      if (typeof Model !== "function") throw new Error("no such export");
    } catch (e) {
      problems.push(`${where}: no model for ${doc?.apiVersion} ${doc?.kind}`);
      continue;
    }
    try {
      new Model(doc).validate();
    } catch (e) {
      problems.push(`${where}: ${e.message}`);
    }
  }
  verdict(file, problems);
}
