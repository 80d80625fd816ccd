// Pass 3: the syntax of every CEL expression (a `cel: {expression: ...}` anywhere in a
// document: DeviceClass selectors, ResourceClaim(Template) requests and subrequests).
// Kubernetes' own CEL functions (semver(), quantity(), compareTo()) are calls like any other:
// syntax only, not whether a function exists.
// node cel.mjs FILE...   prints one verdict line per FILE (lib.mjs), "N expressions" as the
// detail of a file that passes, exits 0.
import { parse } from "@marcbachmann/cel-js";
import { documents, verdict, celExpressions } from "./lib.mjs";

for (const file of process.argv.slice(2)) {
  const problems = [];
  let n = 0;
  try {
    for (const { doc, index } of documents(file))
      for (const [where, expr] of celExpressions(doc)) {
        n++;
        try {
          if (typeof expr !== "string") throw new Error("not a string");
          parse(expr);
        } catch (e) {
          problems.push(`document ${index + 1} ${where}: ${e.message.split("\n")[0]}`);
        }
      }
  } catch (e) {
    problems.push(`YAML: ${e.message}`);
  }
  verdict(file, problems, `${n} CEL expression${n === 1 ? "" : "s"}`);
}
