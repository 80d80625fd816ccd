// What users of examples/kubernetes rely on, beyond the schemas: no host / mounted, the socket
// shared as a directory, one image for every workload (with xpuinit left as its entrypoint),
// a DeviceClass that admits both vendors' drivers with each clause guarded by device.driver,
// node affinities on labels xpud writes, and a Node Problem Detector configuration NPD accepts
// whose rules reach xpud (npd-xpu.json, the same text in npd-xpu.yaml's ConfigMap).
// node facts.mjs DIR   prints one line per fact: ok|fail <tab> FACT <tab> what is wrong.
import fs from "node:fs";
import path from "node:path";
import { parse } from "@marcbachmann/cel-js";
import { documents, celExpressions } from "./lib.mjs";

const dir = process.argv[2];
const all = []; // {file, doc}
for (const file of fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort())
  for (const { doc } of documents(path.join(dir, file))) all.push({ file, doc });

function fact(description, problems) {
  const detail = problems.join("; ").replace(/[\t\n]+/g, " ");
  process.stdout.write(`${problems.length ? "fail" : "ok"}\t${description}\t${detail}\n`);
}
const label = ({ file, doc }) => `${file}: ${doc.kind} ${doc.metadata?.name}`;

// The pod spec of a workload object, or undefined.
function podSpec(doc) {
  switch (doc?.kind) {
    case "Pod":
      return doc.spec;
    case "CronJob":
      return doc.spec?.jobTemplate?.spec?.template?.spec;
    case "Deployment":
    case "DaemonSet":
    case "StatefulSet":
    case "ReplicaSet":
    case "Job":
      return doc.spec?.template?.spec;
    default:
      return undefined;
  }
}
const containersOf = (spec) => [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])];
const volumeOf = (spec, name) => (spec?.volumes ?? []).find((v) => v.name === name);
const normal = (p) => (typeof p === "string" ? path.posix.normalize(p).replace(/(.)\/+$/, "$1") : p);
// The value of --NAME=V or --NAME V in ARGS.
function option(args, name) {
  for (let i = 0; i < (args ?? []).length; i++) {
    if (args[i] === `--${name}`) return args[i + 1];
    if (typeof args[i] === "string" && args[i].startsWith(`--${name}=`)) return args[i].slice(name.length + 3);
  }
  return undefined;
}
// The volume mounted at exactly MOUNTPATH in container C, as {mount, volume}.
function mountAt(spec, c, mountPath) {
  const mount = (c.volumeMounts ?? []).find((m) => normal(m.mountPath) === normal(mountPath));
  return mount ? { mount, volume: volumeOf(spec, mount.name) } : undefined;
}
function* hostPaths(node) {
  if (Array.isArray(node)) for (const v of node) yield* hostPaths(v);
  else if (node && typeof node === "object")
    for (const [k, v] of Object.entries(node)) {
      if (k === "hostPath" && v && typeof v === "object") yield v;
      else yield* hostPaths(v);
    }
}
function* nodeSelectorTerms(spec) {
  yield* spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
}

// ---- hostPath -----------------------------------------------------------------------------------
{
  const problems = [];
  let n = 0;
  for (const o of all)
    for (const hp of hostPaths(o.doc)) {
      n++;
      if (normal(hp.path) === "/") problems.push(`${label(o)} mounts hostPath ${hp.path}`);
    }
  if (!n) problems.push("no hostPath volume at all: is the DaemonSet there?");
  fact("no document mounts the host's / as a hostPath volume", problems);
}

// ---- the xpud DaemonSets ------------------------------------------------------------------------
// Those that run xpud (a container named xpud); Node Problem Detector's has its own facts below.
const daemonsets = all.filter(({ doc }) => doc.kind === "DaemonSet" && containersOf(podSpec(doc)).some((c) => c.name === "xpud"));
fact("examples/kubernetes holds an xpud DaemonSet", daemonsets.length ? [] : ["none"]);
const hostDir = (volume) => volume?.hostPath && ["Directory", "DirectoryOrCreate"].includes(volume.hostPath.type);
for (const o of daemonsets) {
  const spec = podSpec(o.doc);
  const c = containersOf(spec).find((x) => x.name === "xpud") ?? containersOf(spec)[0] ?? {};
  const args = c.args ?? [];
  const name = label(o);

  // The socket: its directory from the host, never the socket file.
  {
    const problems = [];
    const sock = option(args, "socket");
    if (!sock) problems.push("no --socket argument");
    else {
      const m = mountAt(spec, c, path.posix.dirname(sock));
      if (!m) problems.push(`nothing mounted at ${path.posix.dirname(sock)}`);
      else if (!hostDir(m.volume)) problems.push(`${m.mount.name} is not a hostPath of type Directory or DirectoryOrCreate`);
      for (const mt of c.volumeMounts ?? [])
        if (normal(mt.mountPath) === normal(sock) || /\.sock$/.test(mt.mountPath)) problems.push(`mounts the socket file at ${mt.mountPath}`);
      for (const hp of hostPaths(spec?.volumes))
        if (hp.type === "Socket" || /\.sock$/.test(hp.path)) problems.push(`hostPath ${hp.path} is a socket file`);
    }
    fact(`${name}: mounts the socket's directory from the host, not the socket file`, problems);
  }
  // NFD's features.d and the CDI directory: directories of the host.
  for (const [opt, want, what] of [
    ["nfd-file", "/etc/kubernetes/node-feature-discovery/features.d", "--nfd-file is a file in the host's NFD features.d directory"],
    ["cdi-dir", "/var/run/cdi", "--cdi-dir is the host's /var/run/cdi"],
  ]) {
    const problems = [];
    const v = option(args, opt);
    const at = opt === "nfd-file" ? v && path.posix.dirname(v) : v;
    const m = at && mountAt(spec, c, at);
    if (!v) problems.push(`no --${opt}`);
    else if (!m) problems.push(`nothing mounted at ${at}`);
    else if (!hostDir(m.volume) || normal(m.volume.hostPath.path) !== want || m.mount.readOnly)
      problems.push(`${at} is not a writable hostPath directory ${want}`);
    fact(`${name}: ${what}`, problems);
  }
  // Probes: xpud's own client; liveness must not follow the GPUs' health.
  {
    const problems = [];
    const cmd = (p) => c[p]?.exec?.command ?? [];
    for (const p of ["livenessProbe", "readinessProbe"])
      if (cmd(p)[0] !== "xpud" || cmd(p)[1] !== "query") problems.push(`${p} is not exec xpud query`);
    if (cmd("readinessProbe")[2] !== "/readyz") problems.push("readinessProbe does not ask /readyz");
    if (cmd("livenessProbe")[2] !== "/healthz") problems.push("livenessProbe does not ask /healthz (an unhealthy GPU must not restart xpud)");
    fact(`${name}: probes exec xpud query: /healthz for liveness, /readyz for readiness`, problems);
  }
  // Pod settings.
  {
    const problems = [];
    if (spec?.priorityClassName !== "system-node-critical") problems.push("priorityClassName is not system-node-critical");
    if (spec?.automountServiceAccountToken !== false) problems.push("the service account token is mounted");
    for (const x of containersOf(spec))
      if (x.securityContext?.readOnlyRootFilesystem !== true) problems.push(`${x.name}: root filesystem not read-only`);
    fact(`${name}: system-node-critical, no service account token, read-only root filesystem`, problems);
  }
  // Placement, taints and privilege follow the vendors the DaemonSet is placed for.
  {
    const keys = [...nodeSelectorTerms(spec)].flatMap((t) => (t.matchExpressions ?? []).map((e) => e.key));
    const nvidia = keys.some((k) => /pci-(0300_|0302_)?10de\.present$/.test(k));
    const amd = keys.some((k) => /pci-(0300_|0380_|1200_)?1002\.present$/.test(k));
    const tolerated = new Set((spec?.tolerations ?? []).filter((t) => t.operator === "Exists").map((t) => t.key));
    const problems = [];
    if (!nvidia && !amd) problems.push("placed on neither NVIDIA nor AMD nodes");
    if (nvidia && !tolerated.has("nvidia.com/gpu")) problems.push("placed on NVIDIA nodes without tolerating nvidia.com/gpu");
    if (amd && !tolerated.has("amd.com/gpu")) problems.push("placed on AMD nodes without tolerating amd.com/gpu");
    fact(`${name}: placed on ${[nvidia && "NVIDIA", amd && "AMD"].filter(Boolean).join(" and ")} GPU nodes, tolerating their taints`, problems);
    const privileged = c.securityContext?.privileged === true;
    fact(
      `${name}: privileged exactly when placed on NVIDIA nodes (NVML needs their device nodes)`,
      privileged === nvidia ? [] : [privileged ? "privileged on AMD nodes only" : "not privileged but placed on NVIDIA nodes"],
    );
  }
}

// ---- Service and NetworkPolicy for the TCP listener ----------------------------------------------
{
  const svc = all.filter(({ doc }) => doc.kind === "Service" && doc.metadata?.namespace === "xpu-system");
  const problems = svc.length ? [] : ["no Service in xpu-system"];
  for (const o of svc) if (o.doc.spec?.internalTrafficPolicy !== "Local") problems.push(`${label(o)}: internalTrafficPolicy is not Local`);
  fact("the xpud Service keeps traffic on the node (internalTrafficPolicy: Local)", problems);
  const np = all.filter(({ doc }) => doc.kind === "NetworkPolicy");
  const np_problems = np.length ? [] : ["no NetworkPolicy"];
  for (const o of np) {
    const s = o.doc.spec ?? {};
    if (s.podSelector?.matchLabels?.["app.kubernetes.io/name"] !== "xpud") np_problems.push(`${label(o)}: does not select the xpud pods`);
    if (!(s.policyTypes ?? []).includes("Ingress")) np_problems.push(`${label(o)}: no Ingress policy`);
    for (const r of s.ingress ?? [])
      if (!(r.from ?? []).length) np_problems.push(`${label(o)}: an ingress rule admits every source`);
  }
  fact("a NetworkPolicy admits only chosen sources to the unauthenticated /metrics listener", np_problems);
}

// ---- workloads ------------------------------------------------------------------------------------
const workloads = all.filter(({ doc }) => podSpec(doc) && doc.kind !== "DaemonSet");
{
  const images = new Map();
  const problems = [];
  for (const o of workloads)
    for (const c of containersOf(podSpec(o.doc))) {
      if (!images.has(c.image)) images.set(c.image, []);
      images.get(c.image).push(label(o));
      if (c.command !== undefined) problems.push(`${label(o)}: ${c.name} sets command, which replaces xpuinit (the entrypoint); give args`);
    }
  const files = new Set(workloads.map((o) => o.file));
  fact(
    `every workload runs the same image (${workloads.length} workloads in ${files.size} files)`,
    images.size === 1 && workloads.length >= 4 && files.size >= 3
      ? []
      : [`${images.size} images: ${[...images].map(([i, w]) => `${i} (${w.join(", ")})`).join("; ")}`],
  );
  fact("no workload sets command: xpuinit stays the entrypoint", problems);
  const gpu = [];
  for (const o of workloads) {
    const spec = podSpec(o.doc);
    for (const c of spec.containers ?? []) {
      const vendors = Object.keys(c.resources?.limits ?? {}).filter((k) => /^(nvidia|amd)\.com\/gpu$/.test(k));
      const claims = (c.resources?.claims ?? []).filter((cl) => (spec.resourceClaims ?? []).some((r) => r.name === cl.name));
      if (vendors.length + claims.length !== 1) gpu.push(`${label(o)}: ${c.name}: ${vendors.length} vendor resources and ${claims.length} claims`);
    }
    for (const v of spec.volumes ?? []) if (v.hostPath) gpu.push(`${label(o)}: a hostPath volume (${v.hostPath.path})`);
    for (const c of containersOf(spec)) if (c.securityContext?.privileged) gpu.push(`${label(o)}: ${c.name} is privileged`);
  }
  fact("every workload container asks for one GPU (a DRA claim or one vendor's resource), with no hostPath and no privilege", gpu);
}

// Device-plugin workloads: one per vendor, each held to the GPU kinds by xpu.arch.
{
  const problems = [];
  const vendors = new Set();
  for (const o of workloads) {
    const spec = podSpec(o.doc);
    const v = (spec.containers ?? []).flatMap((c) => Object.keys(c.resources?.limits ?? {})).find((k) => /^(nvidia|amd)\.com\/gpu$/.test(k));
    if (!v) continue;
    vendors.add(v);
    const terms = [...nodeSelectorTerms(spec)];
    if (!terms.length || !terms.every((t) => (t.matchExpressions ?? []).some((e) => e.key === "feature.node.kubernetes.io/xpu.arch" && e.operator === "In")))
      problems.push(`${label(o)}: asks for ${v} without a nodeAffinity on feature.node.kubernetes.io/xpu.arch in every term`);
  }
  for (const v of ["nvidia.com/gpu", "amd.com/gpu"]) if (!vendors.has(v)) problems.push(`no workload asks for ${v}`);
  fact("device-plugin workloads: one per vendor resource, each with a nodeAffinity on xpu.arch", problems);
}

// Node affinities name only labels xpud writes; Gt and Lt take one integer.
{
  const known =
    /^feature\.node\.kubernetes\.io\/xpu\.(present|count|healthy|vendor|arch|arch\.[A-Za-z0-9_]+|memory\.mib|partition|nvidia\.cc|nvidia\.cuda|amd\.generic|(nvidia|amd|intel)\.(count|healthy|product|driver))$/;
  const problems = [];
  for (const o of workloads)
    for (const t of nodeSelectorTerms(podSpec(o.doc)))
      for (const e of t.matchExpressions ?? []) {
        if (e.key.startsWith("feature.node.kubernetes.io/xpu.") && !known.test(e.key)) problems.push(`${label(o)}: ${e.key} is no label of xpud`);
        if (["Gt", "Lt"].includes(e.operator) && !(e.values?.length === 1 && /^-?[0-9]+$/.test(e.values[0])))
          problems.push(`${label(o)}: ${e.key} ${e.operator} needs one integer value`);
        if (e.key === "feature.node.kubernetes.io/xpu.vendor")
          for (const v of e.values ?? []) if (!["nvidia", "amd", "intel", "mixed"].includes(v)) problems.push(`${label(o)}: xpu.vendor ${v}`);
      }
  fact("workload node affinities use xpud's xpu.* labels, Gt/Lt with one integer", problems);
}

// ---- the DeviceClass that admits both vendors ----------------------------------------------------
{
  const classes = all.filter(({ doc }) => doc.kind === "DeviceClass");
  const problems = classes.length ? [] : ["no DeviceClass"];
  const orClauses = (a) => (a?.op === "||" ? [...orClauses(a.args[0]), ...orClauses(a.args[1])] : [a]);
  const leftmost = (a) => (a?.op === "&&" ? leftmost(a.args[0]) : a);
  const driverTest = (a) =>
    a?.op === "==" &&
    a.args[0]?.op === "." &&
    a.args[0].args[0]?.op === "id" &&
    a.args[0].args[0].args === "device" &&
    a.args[0].args[1] === "driver" &&
    a.args[1]?.op === "value" &&
    typeof a.args[1].args === "string"
      ? a.args[1].args
      : undefined;
  // Devices shaped like those the two DRA drivers publish, and whether the class must admit them.
  const dev = (driver, type) => ({ device: { driver, attributes: { [driver]: { type, productName: "x" } }, capacity: { [driver]: {} } } });
  const samples = [
    ["an NVIDIA GPU", dev("gpu.nvidia.com", "gpu"), true],
    ["an AMD GPU", dev("gpu.amd.com", "amdgpu"), true],
    ["an NVIDIA MIG device", dev("gpu.nvidia.com", "mig"), false],
    ["an AMD partition", dev("gpu.amd.com", "amdgpu-partition"), false],
    ["another driver's device", dev("gpu.example.com", "gpu"), false],
  ];
  for (const o of classes) {
    const exprs = celExpressions(o.doc.spec?.selectors ?? []);
    if (!exprs.length) problems.push(`${label(o)}: no CEL selector`);
    const drivers = new Set();
    for (const [, expr] of exprs) {
      let fn;
      try {
        fn = parse(expr);
      } catch (e) {
        problems.push(`${label(o)}: ${e.message.split("\n")[0]}`);
        continue;
      }
      orClauses(fn.ast).forEach((clause, i) => {
        const d = driverTest(leftmost(clause));
        if (d === undefined) problems.push(`${label(o)}: clause ${i + 1} does not begin with device.driver == '...'`);
        else drivers.add(d);
      });
      for (const [what, ctx, want] of samples) {
        let got;
        try {
          got = fn(ctx);
        } catch (e) {
          got = `an error (${e.message.split("\n")[0]})`;
        }
        if (got !== want) problems.push(`${label(o)}: ${what} gives ${got}, not ${want}`);
      }
    }
    for (const d of ["gpu.nvidia.com", "gpu.amd.com"]) if (!drivers.has(d)) problems.push(`${label(o)}: no clause for ${d}`);
  }
  fact("the DeviceClass admits gpu.nvidia.com and gpu.amd.com GPUs, each clause testing device.driver first", problems);
}

// ---- Node Problem Detector: npd-xpu.yaml and npd-xpu.json ------------------------------------------
{
  const npd = all.filter(({ doc }) => doc.kind === "DaemonSet" && containersOf(podSpec(doc)).some((c) => (c.command ?? [])[0] === "/node-problem-detector"));
  const seconds = (d) => (/^[0-9]+(\.[0-9]+)?(s|m)$/.test(d ?? "") ? parseFloat(d) * (d.endsWith("m") ? 60 : 1) : NaN);
  // What NPD checks when it loads a custom plugin monitor (pkg/custompluginmonitor/types/config.go),
  // and what xpud's two conditions need.
  function configProblems(cfg, where) {
    const p = [];
    const g = cfg?.pluginConfig ?? {};
    if (cfg?.plugin !== "custom") p.push(`${where}: plugin is not "custom"`);
    if (!cfg?.source) p.push(`${where}: no source`);
    if (g.max_output_length !== 80) p.push(`${where}: max_output_length is not 80 (xpud's line is at most 80 bytes)`);
    for (const k of ["invoke_interval", "timeout"]) if (Number.isNaN(seconds(g[k]))) p.push(`${where}: pluginConfig.${k} is no duration`);
    if (!Number.isInteger(g.concurrency) || g.concurrency < 1) p.push(`${where}: concurrency is not a positive integer`);
    if (typeof g.enable_message_change_based_condition_update !== "boolean") p.push(`${where}: enable_message_change_based_condition_update is not a boolean`);
    const conds = new Map((cfg?.conditions ?? []).map((c) => [c.type, c]));
    const want = { XPUUnhealthy: "--npd", XPUDegraded: "--npd=degraded" };
    for (const [type, flag] of Object.entries(want)) {
      const c = conds.get(type);
      if (!c?.reason || !c?.message) p.push(`${where}: condition ${type} without its OK reason and message`);
      const rules = (cfg?.rules ?? []).filter((r) => r.condition === type);
      if (rules.length !== 1) p.push(`${where}: ${rules.length} rules for ${type}, want one (two would reset each other)`);
      for (const r of rules) if (!(r.args ?? []).includes(flag)) p.push(`${where}: the ${type} rule does not run xpud query ${flag}`);
    }
    for (const r of cfg?.rules ?? []) {
      if (r.type !== "permanent") p.push(`${where}: rule ${r.reason}: type is not permanent`);
      if (!conds.has(r.condition)) p.push(`${where}: rule ${r.reason}: condition ${r.condition} has no preset default`);
      if (!r.reason || !r.path) p.push(`${where}: a rule without reason or path`);
      if (!(r.args ?? []).includes("query")) p.push(`${where}: rule ${r.reason}: not xpud query`);
      if (r.timeout !== undefined && !(seconds(r.timeout) <= seconds(g.timeout))) p.push(`${where}: rule ${r.reason}: timeout above the global one`);
      if (!(seconds(r.timeout ?? g.timeout) > 10)) p.push(`${where}: rule ${r.reason}: timeout not above xpud query's own 10 s`);
    }
    return p;
  }
  const file = path.join(dir, "npd-xpu.json");
  let fileCfg;
  const p1 = [];
  try {
    fileCfg = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    p1.push(`npd-xpu.json: ${e.message}`);
  }
  fact("npd-xpu.json: a custom plugin monitor NPD accepts, one permanent rule each for XPUUnhealthy (--npd) and XPUDegraded (--npd=degraded)", fileCfg ? configProblems(fileCfg, "npd-xpu.json") : p1);

  const p2 = npd.length ? [] : ["no DaemonSet runs /node-problem-detector"];
  const p3 = npd.length ? [] : ["no DaemonSet runs /node-problem-detector"];
  const xpudSockets = new Set(daemonsets.map((o) => path.posix.dirname(option(containersOf(podSpec(o.doc)).find((c) => c.name === "xpud")?.args, "socket") ?? "")));
  for (const o of npd) {
    const spec = podSpec(o.doc);
    const c = containersOf(spec).find((x) => (x.command ?? [])[0] === "/node-problem-detector");
    const cfgPath = option(c.command, "config.custom-plugin-monitor");
    const m = cfgPath && mountAt(spec, c, path.posix.dirname(cfgPath));
    const cm = m?.volume?.configMap && all.find(({ doc }) => doc.kind === "ConfigMap" && doc.metadata?.name === m.volume.configMap.name);
    const text = cm?.doc?.data?.[path.posix.basename(cfgPath ?? "")];
    let cfg;
    try {
      cfg = JSON.parse(text);
    } catch (e) {
      p2.push(`${label(o)}: --config.custom-plugin-monitor=${cfgPath} is no JSON of a mounted ConfigMap`);
    }
    if (cfg) {
      p2.push(...configProblems(cfg, `${label(o)}'s ConfigMap`));
      if (fileCfg && JSON.stringify(cfg) !== JSON.stringify(fileCfg)) p2.push(`${label(o)}: its ConfigMap's ${path.posix.basename(cfgPath)} differs from npd-xpu.json`);
      for (const r of cfg.rules ?? []) {
        // The rule's program and xpud's files: the xpud image, read-only.
        const img = (c.volumeMounts ?? []).find((mt) => typeof r.path === "string" && r.path.startsWith(normal(mt.mountPath) + "/"));
        if (!img || !volumeOf(spec, img.name)?.image?.reference || !img.readOnly) p3.push(`${label(o)}: rule ${r.reason}: ${r.path} is not in a read-only image volume`);
        else for (const a of r.args ?? []) if (typeof a === "string" && a.startsWith("/") && !a.startsWith(normal(img.mountPath) + "/")) p3.push(`${label(o)}: rule ${r.reason}: ${a} is outside the image volume`);
        // The socket: its directory, the host's, where xpud binds it.
        const sock = option(r.args, "socket");
        const sm = sock && mountAt(spec, c, path.posix.dirname(sock));
        if (!sock) p3.push(`${label(o)}: rule ${r.reason}: no --socket`);
        else if (!sm || !hostDir(sm.volume)) p3.push(`${label(o)}: rule ${r.reason}: ${path.posix.dirname(sock)} is not a hostPath directory`);
        else if (!xpudSockets.has(normal(sm.volume.hostPath.path))) p3.push(`${label(o)}: rule ${r.reason}: hostPath ${sm.volume.hostPath.path} is not where xpud binds its socket`);
      }
    }
    const env = (c.env ?? []).find((e) => e.name === "NODE_NAME");
    if (env?.valueFrom?.fieldRef?.fieldPath !== "spec.nodeName") p3.push(`${label(o)}: NODE_NAME is not the pod's spec.nodeName`);
  }
  fact("npd-xpu.yaml: the NPD ConfigMap holds npd-xpu.json as it is", p2);
  fact("npd-xpu.yaml: NPD reaches xpud's socket directory on the host and runs xpud from the read-only xpud image", p3);
}
