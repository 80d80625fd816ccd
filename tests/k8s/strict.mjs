// Pass 2: unknown and misspelled fields. Each document becomes a typed constant,
//   export const d: IDeployment = {...};
// so TypeScript's excess-property check rejects any field the API does not have, and string
// literal types reject enum typos. All files are checked by one `tsc --noEmit` run.
// node strict.mjs WORKDIR FILE...   writes WORKDIR/check/N.ts and WORKDIR/tsconfig.json, runs
// tsc there, prints one verdict line per FILE (lib.mjs), exits 0 (1 when tsc could not run).
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { modulePath, documents, verdict } from "./lib.mjs";

const [workdir, ...files] = process.argv.slice(2);
const checkdir = path.join(workdir, "check");
fs.mkdirSync(checkdir, { recursive: true });
const problems = new Map(files.map((f) => [f, []]));
const owner = new Map(); // check/N.ts -> FILE
files.forEach((file, n) => {
  let docs;
  try {
    docs = documents(file);
  } catch (e) {
    problems.get(file).push(`YAML: ${e.message}`);
    return;
  }
  const out = [];
  docs.forEach(({ doc }, i) => {
    let mod;
    try {
      mod = modulePath(doc);
    } catch (e) {
      problems.get(file).push(`document ${i + 1}: ${e.message}`);
      return;
    }
    // One document per line: a tsc error's line number names the document.
    out[i] = `import type { I${doc.kind} as T${i} } from "${mod}"; export const d${i}: T${i} = ${JSON.stringify(doc)};`;
  });
  const name = `check/${n}.ts`;
  owner.set(name, file);
  fs.writeFileSync(path.join(workdir, name), out.map((l) => l ?? "").join("\n") + "\nexport {};\n");
});
fs.writeFileSync(
  path.join(workdir, "tsconfig.json"),
  JSON.stringify({
    compilerOptions: {
      strict: true,
      noEmit: true,
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2022",
      skipLibCheck: true,
      types: [],
    },
    include: ["check/*.ts"],
  }),
);
// Resolve tsc and the models from this directory's node_modules, wherever WORKDIR is.
const here = path.dirname(new URL(import.meta.url).pathname);
fs.writeFileSync(path.join(workdir, "package.json"), '{"type": "module"}\n');
if (path.resolve(workdir) !== here && !fs.existsSync(path.join(workdir, "node_modules")))
  fs.symlinkSync(path.join(here, "node_modules"), path.join(workdir, "node_modules"));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
let output = "";
try {
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false"], {
    cwd: workdir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
} catch (e) {
  if (typeof e.status !== "number") {
    console.error(`tsc did not run: ${e.message}`);
    process.exit(1);
  }
  output = `${e.stdout ?? ""}${e.stderr ?? ""}`;
}
// "check/3.ts(2,41): error TS2353: Object literal may only specify known properties, ..."
let orphan = 0;
for (const line of output.split("\n")) {
  const m = /^(check\/\d+\.ts)\((\d+),\d+\): (error .*)$/.exec(line);
  if (m && owner.has(m[1])) problems.get(owner.get(m[1])).push(`document ${m[2]}: ${m[3]}`);
  else if (/error TS/.test(line)) {
    console.error(`tsc: ${line}`);
    orphan++;
  }
}
for (const file of files) verdict(file, problems.get(file));
process.exit(orphan ? 1 : 0);
