// Broken copies of the manifests: each mutation below changes one thing a user could get wrong
// in one file (a misspelled field, a value outside an enum, a CEL expression that does not
// parse, a wrong type, an API version that does not exist) and names the pass that must reject
// it: 1 schema (validate.mjs), 2 unknown fields (strict.mjs), 3 CEL (cel.mjs).
//
// node mutate.mjs SRCDIR OUTDIR
//   writes OUTDIR/<file>~<n>.yaml and OUTDIR/index.tsv, one line per broken copy:
//     COPY <tab> FILE <tab> KIND <tab> PASS <tab> DESCRIPTION
//   (PASS 0 and COPY "-" when the mutation could not be applied: its target is gone);
//   OUTDIR/facts-<n>/ and OUTDIR/facts.tsv for the fact checks (factMutations below):
//     DIR <tab> FACT <tab> DESCRIPTION   (DIR "-" when it could not be applied); and prints
//   one verdict line (lib.mjs) per manifest of SRCDIR: does it have a broken copy of each
//   kind it needs (an unknown field and a wrong enum for every file; broken CEL where the file
//   has CEL)?
import fs from "node:fs";
import path from "node:path";
import * as yaml from "js-yaml";
import { documents, verdict, celExpressions } from "./lib.mjs";

const UNKNOWN = "unknown field";
const ENUM = "wrong enum";
const CEL = "broken CEL";
const TYPE = "wrong type";
const VERSION = "no such API version";

// doc: KIND or KIND/NAME (the first such document); at: the field, '/'-separated (numbers index
// lists). rename: the field's new name; set: its new value; replace: [FROM, TO] in its string;
// add: a value for a field that is not there; remove: true drops the field.
const mutations = [
  // xpud.yaml
  { file: "xpud.yaml", doc: "DaemonSet", at: "spec/template/spec/priorityClassName", rename: "priorityClassNme", kind: UNKNOWN, pass: 2 },
  { file: "xpud.yaml", doc: "DaemonSet", at: "spec/template/spec/containers/0/securityContext/readOnlyRootFilesystem", rename: "readOnlyRootFileSystem", kind: UNKNOWN, pass: 2 },
  { file: "xpud.yaml", doc: "DaemonSet", at: "spec/template/spec/volumes/0/hostPath/type", set: "DirectoryOrCreat", kind: ENUM, pass: 1 },
  { file: "xpud.yaml", doc: "DaemonSet", at: "spec/template/spec/containers/0/ports/0/containerPort", set: "9400x", kind: TYPE, pass: 1 },
  { file: "xpud.yaml", doc: "Service", at: "spec/internalTrafficPolicy", set: "Locale", kind: ENUM, pass: 1 },
  { file: "xpud.yaml", doc: "NetworkPolicy", at: "spec/ingress/0/from", rename: "form", kind: UNKNOWN, pass: 2 },
  { file: "xpud.yaml", doc: "NetworkPolicy", at: "spec/policyTypes/0", set: "Ingres", kind: ENUM, pass: 1 },
  // xpud-servicemonitor.yaml
  { file: "xpud-servicemonitor.yaml", doc: "ServiceMonitor", at: "spec/endpoints/0/interval", rename: "intervall", kind: UNKNOWN, pass: 2 },
  { file: "xpud-servicemonitor.yaml", doc: "ServiceMonitor", at: "spec/endpoints/0/relabelings/0/action", set: "rename", kind: ENUM, pass: 1 },
  { file: "xpud-servicemonitor.yaml", doc: "ServiceMonitor", at: "spec/endpoints/0/scheme", set: "htp", kind: ENUM, pass: 1 },
  // xpu-prometheusrule.yaml (partial_response_strategy: a pattern of two values, abort|warn)
  { file: "xpu-prometheusrule.yaml", doc: "PrometheusRule", at: "spec/groups/0/rules/0/annotations", rename: "annotation", kind: UNKNOWN, pass: 2 },
  { file: "xpu-prometheusrule.yaml", doc: "PrometheusRule", at: "spec/groups/0/partial_response_strategy", add: "abrot", kind: ENUM, pass: 1 },
  { file: "xpu-prometheusrule.yaml", doc: "PrometheusRule", at: "spec/groups/0/rules/0/for", set: "1 minute", kind: TYPE, pass: 1 },
  // xpud-amd-only.yaml
  { file: "xpud-amd-only.yaml", doc: "DaemonSet", at: "spec/template/spec/containers/0/securityContext/capabilities", rename: "capabilites", kind: UNKNOWN, pass: 2 },
  { file: "xpud-amd-only.yaml", doc: "DaemonSet", at: "spec/template/spec/containers/0/securityContext/seccompProfile/type", set: "RuntimeDefualt", kind: ENUM, pass: 1 },
  { file: "xpud-amd-only.yaml", doc: "DaemonSet", at: "spec/template/spec/containers/0/securityContext/allowPrivilegeEscalation", set: "no", kind: TYPE, pass: 1 },
  // npd-xpu.yaml
  { file: "npd-xpu.yaml", doc: "DaemonSet", at: "spec/template/spec/serviceAccountName", rename: "serviceAcountName", kind: UNKNOWN, pass: 2 },
  { file: "npd-xpu.yaml", doc: "ClusterRoleBinding", at: "subjects/0/namespace", rename: "namespac", kind: UNKNOWN, pass: 2 },
  { file: "npd-xpu.yaml", doc: "DaemonSet", at: "spec/template/spec/volumes/1/hostPath/type", set: "Directroy", kind: ENUM, pass: 1 },
  { file: "npd-xpu.yaml", doc: "DaemonSet", at: "spec/template/spec/containers/0/securityContext/seccompProfile/type", set: "RuntimeDefualt", kind: ENUM, pass: 1 },
  // workload-dra.yaml
  { file: "workload-dra.yaml", doc: "DeviceClass", at: "spec/selectors/0/cel/expression", replace: ["device.driver == 'gpu.amd.com'", "device.driver = 'gpu.amd.com'"], kind: CEL, pass: 3 },
  { file: "workload-dra.yaml", doc: "DeviceClass", at: "spec/selectors/0/cel/expression", rename: "expresion", kind: UNKNOWN, pass: 2 },
  { file: "workload-dra.yaml", doc: "DeviceClass", at: "apiVersion", set: "resource.k8s.io/v1beta3", kind: VERSION, pass: 1 },
  { file: "workload-dra.yaml", doc: "ResourceClaimTemplate", at: "spec/spec/devices/requests/0/exactly/selectors/0/cel/expression", replace: [">= 0", ">= 0)"], kind: CEL, pass: 3 },
  { file: "workload-dra.yaml", doc: "ResourceClaimTemplate", at: "spec/spec/devices/requests/0/exactly/allocationMode", set: "Exact", kind: ENUM, pass: 1 },
  { file: "workload-dra.yaml", doc: "Deployment", at: "spec/template/spec/resourceClaims/0/resourceClaimTemplateName", rename: "resourceClaimTemplate", kind: UNKNOWN, pass: 2 },
  { file: "workload-dra.yaml", doc: "Deployment", at: "spec/template/spec/containers/0/resources/claims", rename: "claim", kind: UNKNOWN, pass: 2 },
  // workload-device-plugin.yaml
  { file: "workload-device-plugin.yaml", doc: "Deployment/xpu-app-nvidia", at: "spec/template/spec/containers/0/resources/limits", rename: "limit", kind: UNKNOWN, pass: 2 },
  { file: "workload-device-plugin.yaml", doc: "Deployment/xpu-app-amd", at: "spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/0/operator", set: "Inn", kind: ENUM, pass: 1 },
  { file: "workload-device-plugin.yaml", doc: "Deployment/xpu-app-amd", at: "spec/template/spec/tolerations/0/effect", set: "NoSchedul", kind: ENUM, pass: 1 },
  // workload-affinity.yaml
  { file: "workload-affinity.yaml", doc: "ResourceClaimTemplate", at: "spec/spec/devices/requests/0/firstAvailable/0/deviceClassName", rename: "deviceClass", kind: UNKNOWN, pass: 2 },
  { file: "workload-affinity.yaml", doc: "ResourceClaimTemplate", at: "spec/spec/devices/requests/0/firstAvailable/0/selectors/0/cel/expression", replace: ["compareTo(semver('8.0.0'))", "compareTo(semver('8.0.0')"], kind: CEL, pass: 3 },
  { file: "workload-affinity.yaml", doc: "Deployment", at: "spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/1/operator", set: "Greater", kind: ENUM, pass: 1 },
  { file: "workload-affinity.yaml", doc: "Deployment", at: "spec/template/spec/containers/0/imagePullPolicy", set: "Sometimes", kind: ENUM, pass: 1 },
];

// Changes the schemas accept but users must not get: each must make the fact of facts.mjs whose
// description contains FACT fail (the fact checks are tested too).
const factMutations = [
  { file: "xpud.yaml", doc: "DaemonSet", at: "spec/template/spec/volumes/3/hostPath/path", set: "/", fact: "mounts the host's /" },
  { file: "xpud.yaml", doc: "DaemonSet", at: "spec/template/spec/containers/0/volumeMounts/0/mountPath", set: "/run/xpud/xpud.sock", fact: "xpud.yaml: DaemonSet xpud: mounts the socket's directory" },
  { file: "xpud.yaml", doc: "DaemonSet", at: "spec/template/spec/containers/0/livenessProbe/exec/command", set: ["xpud", "query"], fact: "xpud.yaml: DaemonSet xpud: probes" },
  { file: "xpud.yaml", doc: "DaemonSet", at: "spec/template/spec/tolerations/1/key", set: "amd.com/gpuu", fact: "xpud.yaml: DaemonSet xpud: placed on" },
  { file: "xpud-amd-only.yaml", doc: "DaemonSet", at: "spec/template/spec/containers/0/securityContext/readOnlyRootFilesystem", set: false, fact: "xpud-amd-only.yaml: DaemonSet xpud: system-node-critical" },
  { file: "workload-device-plugin.yaml", doc: "Deployment/xpu-app-amd", at: "spec/template/spec/containers/0/image", set: "registry.example/xpu-app-rocm:1.0", fact: "every workload runs the same image" },
  { file: "workload-affinity.yaml", doc: "Deployment", at: "spec/template/spec/containers/0/command", add: ["python3"], fact: "no workload sets command" },
  { file: "npd-xpu.yaml", doc: "ConfigMap", at: "data/npd-xpu.json", replace: ['"max_output_length": 80', '"max_output_length": 200'], fact: "the NPD ConfigMap holds npd-xpu.json" },
  { file: "npd-xpu.yaml", doc: "ConfigMap", at: "data/npd-xpu.json", replace: ['"--npd=degraded"', '"--npd"'], fact: "the NPD ConfigMap holds npd-xpu.json" },
  { file: "npd-xpu.yaml", doc: "DaemonSet", at: "spec/template/spec/volumes/1/hostPath/path", set: "/run/xpud/xpud.sock", fact: "NPD reaches xpud's socket directory" },
  { file: "npd-xpu.yaml", doc: "DaemonSet", at: "spec/template/spec/containers/0/volumeMounts/2/readOnly", set: false, fact: "NPD reaches xpud's socket directory" },
  { file: "workload-affinity.yaml", doc: "Deployment", at: "spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/1/key", set: "feature.node.kubernetes.io/xpu.memory.mb", fact: "use xpud's xpu.* labels" },
  { file: "workload-device-plugin.yaml", doc: "Deployment/xpu-app-amd", at: "spec/template/spec/affinity", remove: true, fact: "device-plugin workloads" },
  {
    file: "workload-dra.yaml",
    doc: "DeviceClass",
    at: "spec/selectors/0/cel/expression",
    replace: ["(device.driver == 'gpu.amd.com' && device.attributes['gpu.amd.com'].type == 'amdgpu')", "(device.attributes['gpu.amd.com'].type == 'amdgpu' && device.driver == 'gpu.amd.com')"],
    fact: "the DeviceClass admits",
  },
];

function describe(m) {
  if (m.rename) return `${m.kind}: ${m.doc} ${m.at} spelled ${m.rename}`;
  if (m.replace) return `${m.kind ? `${m.kind}: ` : ""}${m.doc} ${m.at} with ${JSON.stringify(m.replace[0])} made ${JSON.stringify(m.replace[1])}`;
  if (m.add) return `${m.doc} ${m.at} added: ${JSON.stringify(m.add)}`;
  if (m.remove) return `${m.doc} ${m.at} removed`;
  return `${m.kind ? `${m.kind}: ` : ""}${m.doc} ${m.at}: ${JSON.stringify(m.set)}`;
}

// Apply M to DOCS in place; throws when its target is not there.
function apply(m, docs) {
  const [kind, name] = m.doc.split("/");
  const doc = docs.find((d) => d?.kind === kind && (name === undefined || d?.metadata?.name === name));
  if (!doc) throw new Error(`no ${m.doc} document`);
  const keys = m.at.split("/");
  const last = keys.pop();
  let parent = doc;
  for (const k of keys) {
    parent = parent?.[k];
    if (parent === undefined || parent === null || typeof parent !== "object") throw new Error(`no ${m.at}`);
  }
  if (m.add !== undefined) {
    if (last in parent) throw new Error(`${m.at} is there already`);
    parent[last] = m.add;
    return;
  }
  if (!(last in parent)) throw new Error(`no ${m.at}`);
  if (m.remove) {
    delete parent[last];
  } else if (m.rename) {
    // Keep the key order: rebuild the object with the one key renamed.
    const entries = Object.entries(parent).map(([k, v]) => [k === last ? m.rename : k, v]);
    for (const k of Object.keys(parent)) delete parent[k];
    Object.assign(parent, Object.fromEntries(entries));
  } else if (m.replace) {
    if (typeof parent[last] !== "string" || !parent[last].includes(m.replace[0]))
      throw new Error(`${m.at} does not contain ${JSON.stringify(m.replace[0])}`);
    parent[last] = parent[last].replace(m.replace[0], m.replace[1]);
  } else {
    parent[last] = m.set;
  }
}

const [srcdir, outdir] = process.argv.slice(2);
fs.mkdirSync(outdir, { recursive: true });
const manifests = fs
  .readdirSync(srcdir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();
const index = [];
const made = new Map(manifests.map((f) => [f, new Set()]));
mutations.forEach((m, n) => {
  const src = path.join(srcdir, m.file);
  let copy = "-";
  let pass = m.pass;
  let what = describe(m);
  try {
    const docs = documents(src).map(({ doc }) => doc);
    apply(m, docs);
    copy = path.join(outdir, `${m.file.replace(/\.ya?ml$/, "")}~${n + 1}.yaml`);
    fs.writeFileSync(copy, docs.map((d) => yaml.dump(d, { lineWidth: -1, noRefs: true })).join("---\n"));
    made.get(m.file)?.add(m.kind);
  } catch (e) {
    pass = 0;
    what = `${what}: cannot apply: ${e.message}`;
  }
  index.push([copy, m.file, m.kind, pass, what].join("\t"));
});
fs.writeFileSync(path.join(outdir, "index.tsv"), index.join("\n") + "\n");

// Fact mutations: OUTDIR/facts-<n>/ is a copy of every manifest with one of them changed.
const factIndex = [];
factMutations.forEach((m, n) => {
  const copy = path.join(outdir, `facts-${n + 1}`);
  let what = `${m.file}: ${describe(m)}`;
  try {
    const docs = documents(path.join(srcdir, m.file)).map(({ doc }) => doc);
    apply(m, docs);
    fs.mkdirSync(copy);
    // every manifest and the JSON beside them (npd-xpu.json, which facts.mjs compares)
    for (const f of fs.readdirSync(srcdir).filter((x) => /\.(ya?ml|json)$/.test(x))) fs.copyFileSync(path.join(srcdir, f), path.join(copy, f));
    fs.writeFileSync(path.join(copy, m.file), docs.map((d) => yaml.dump(d, { lineWidth: -1, noRefs: true })).join("---\n"));
    factIndex.push([copy, m.fact, what].join("\t"));
  } catch (e) {
    factIndex.push(["-", m.fact, `${what}: cannot apply: ${e.message}`].join("\t"));
  }
});
fs.writeFileSync(path.join(outdir, "facts.tsv"), factIndex.join("\n") + "\n");

for (const f of manifests) {
  const problems = [];
  let hasCel = false;
  try {
    hasCel = documents(path.join(srcdir, f)).some(({ doc }) => celExpressions(doc).length > 0);
  } catch (e) {
    problems.push(`YAML: ${e.message}`);
  }
  const need = hasCel ? [UNKNOWN, ENUM, CEL] : [UNKNOWN, ENUM];
  for (const k of need) if (!made.get(f).has(k)) problems.push(`no broken copy with a ${k}`);
  verdict(f, problems, `broken copies: ${[...made.get(f)].join(", ")}`);
}
