#!/bin/sh
# shellcheck disable=SC2016
# The source tree's layout rules (docs/architecture.md, "Source tree"), checked over the files git
# tracks (plus new ones it does not ignore; outside a git work tree, every file under the root):
#   size     no .c file over 800 lines counted together with its same-named .h, and no .h without
#            a .c over 800 (tests/ included; the fixtures and the fuzz corpora are data);
#   layers   no upward include among the programs' sources: probes/base < probes/sandbox,
#            probes/devcode < probes/ (its own files) < probes/<vendor>/ < entrypoint/, daemon/. A
#            file includes its own layer and lower ones; vendor folders do not include each other,
#            entrypoint/ and daemon/ neither. packaging/ and tests/ may include anything. An include
#            is resolved as the compiler does: the including file's directory, then -Iprobes, -I.,
#            then -Ientrypoint / -Idaemon; one that resolves to no file (generated) is skipped. A
#            vendor is any folder of probes/ but base, sandbox and devcode (no vendor is listed here);
#   circles  no include circle between the programs' files: in the graph "A includes B" (a .c and
#            its same-named .h one file), no path leads back;
#   vendors  a vendor is named in code (comments are not code) only in probes/<vendor>/,
#            probes/vendor.c and probes/vendor-id.h (the list and the enum), tests/ and the files of
#            ALLOWED below: an identifier, or a
#            string literal without a blank, holding a vendor folder's name not after a letter or
#            digit (XPU_VENDOR_AMD, "NVIDIA_VISIBLE_DEVICES", "amdgpu"); the rest of the code goes
#            through the vendor descriptors (struct xpu_vendor_ops).
# Each rule prints one "not ok" line per violation, or one "ok" line. The rules first run on a
# small tree made here with one violation of each kind (and near misses): a rule that could not
# fail would fail there. SC2016: the awk programs are single-quoted on purpose. Needs git (else
# find), awk, wc. Prints TAP.
. "$(dirname "$0")/lib.sh"

export LC_ALL=C
SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}

# Files that may name a vendor in code although they are vendor-neutral, one per line: "PATH
# reason"; a PATH ending in / is a folder.
ALLOWED='
probes/devcode/             reads the vendors code formats (CUDA fatbins, AMD code objects), a layer below the descriptors
entrypoint/audit.c          the device-code audit: its report names the code formats of probes/devcode
entrypoint/audit-render.c   likewise
entrypoint/audit-summary.h  likewise
entrypoint/audit-summary.c  likewise
probes/base/ldcache.c       Debian nvidia-driver library directory among those ld.so reads, below the descriptors
probes/libs.h               /run/nvidia/driver, the GPU Operator driver-container root: the first default driver root, a path convention for every vendor
entrypoint/profile-json.c   an example in an error message

'

MAX_LINES=800

T=$(mktemp -d) || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT

# list_files ROOT: the C sources and headers under ROOT, relative, one per line, sorted.
list_files() {
        top=$(git -C "$1" rev-parse --show-toplevel 2>/dev/null)
        if [ -n "$top" ] && [ "$top" = "$(cd "$1" && pwd -P)" ]; then
                git -C "$1" ls-files --cached --others --exclude-standard
        else
                (cd "$1" && find . \( -name .git -o -path './build*' \) -prune -o -type f -print | sed 's|^\./||')
        fi | grep -E '\.[ch]$' | while read -r f; do
                [ -f "$1/$f" ] && printf '%s\n' "$f"
        done | sort -u
}

# size_violations ROOT LIST: "PATH: N lines" for every .c (with its .h: "PATH + .h: N lines") and
# every .h without a .c over MAX_LINES.
size_violations() {
        grep -vE '^tests/fixtures/|^tests/fuzz/corpus/' "$2" >"$T/size.list"
        [ -s "$T/size.list" ] || return 0
        (cd "$1" && xargs wc -l <"$T/size.list") | awk -v max="$MAX_LINES" '
                $2 == "total" && NF == 2 { next }
                { n[$2] = $1 }
                END {
                        for (p in n) {
                                base = substr(p, 1, length(p) - 2)
                                if (p ~ /\.c$/) {
                                        total = n[p] + ((base ".h") in n ? n[base ".h"] : 0)
                                        if (total > max)
                                                printf "%s%s: %d lines\n", p, ((base ".h") in n ? " + .h" : ""), total
                                } else if (!((base ".c") in n) && n[p] > max)
                                        printf "%s: %d lines\n", p, n[p]
                        }
                }' | sort
}

# include_edges ROOT LIST: "PATH LINE NAME RESOLVED" for every #include "NAME" of the programs'
# sources that resolves to a file of the tree.
include_edges() {
        grep -E '^(probes|entrypoint|daemon)/' "$2" >"$T/inc.list"
        [ -s "$T/inc.list" ] || return 0
        (cd "$1" && xargs awk -v list="$2" '
                BEGIN { while ((getline l < list) > 0) have[l] = 1 }
                # NAME as the compiler finds it from FILE; "" when it is no file of the tree.
                function resolve(file, name,   dir, c, i, cands) {
                        dir = file; sub(/\/[^\/]*$/, "", dir)
                        cands[1] = dir "/" name; cands[2] = "probes/" name; cands[3] = name
                        cands[4] = "entrypoint/" name; cands[5] = "daemon/" name
                        for (i = 1; i <= 5; i++) {
                                c = cands[i]
                                while (c ~ /(^|\/)[^\/]+\/\.\.\//) sub(/[^\/]+\/\.\.\//, "", c)
                                if (i == 4 && file !~ /^entrypoint\//) continue
                                if (i == 5 && file !~ /^daemon\//) continue
                                if (c in have) return c
                        }
                        return ""
                }
                /^[ \t]*#[ \t]*include[ \t]*"/ {
                        name = $0; sub(/^[^"]*"/, "", name); sub(/".*$/, "", name)
                        target = resolve(FILENAME, name)
                        if (target != "")
                                printf "%s %d %s %s\n", FILENAME, FNR, name, target
                }' <"$T/inc.list") | sort -k1,1 -k2,2n
}

# include_violations EDGES: "PATH:LINE includes NAME (RESOLVED): LAYER may not include TARGET".
include_violations() {
        awk '
                # The layer of a path, and its rank: a file may include its own layer or one of lower rank.
                # A vendor is any folder of probes/ but base, sandbox and devcode.
                function layer(p,   a) {
                        if (p ~ /^probes\/(base|sandbox|devcode)\//) { split(p, a, "/"); return a[2] }
                        if (p ~ /^probes\/[^\/]+$/) return "probes"
                        if (p ~ /^probes\//) { split(p, a, "/"); return "vendor " a[2] }
                        if (p ~ /^(entrypoint|daemon)\//) { split(p, a, "/"); return a[1] }
                        return "other"
                }
                function rank(l) {
                        if (l == "base") return 0
                        if (l == "sandbox" || l == "devcode") return 1
                        if (l == "probes") return 2
                        if (l ~ /^vendor /) return 3
                        if (l == "entrypoint" || l == "daemon") return 4
                        return 99
                }
                {
                        from = layer($1); to = layer($4)
                        if (from != to && rank(to) >= rank(from))
                                printf "%s:%d includes \"%s\" (%s): %s may not include %s\n", $1, $2, $3, $4, from, to
                }' "$1" | sort -t: -k1,1 -k2,2n
}

# include_circles EDGES: "A -> B -> A" for every circle of includes between files, a .c and its
# same-named .h counted as one file (A: the path without .c/.h). One line per include that closes a
# circle, found by a depth-first walk in sorted order.
include_circles() {
        awk '
                function node(p) { sub(/\.[ch]$/, "", p); return p }
                {
                        a = node($1); b = node($4)
                        if (a == b || ((a, b) in seen)) next
                        seen[a, b] = 1; adj[a] = adj[a] " " b; nodes[a] = 1; nodes[b] = 1
                }
                function walk(u,   i, k, n, v, path) {
                        color[u] = 1; stack[++sp] = u
                        n = split(adj[u], tmp, " ")
                        for (i = 1; i <= n; i++) out[sp, i] = tmp[i]
                        for (i = 1; i <= n; i++) {
                                v = out[sp, i]
                                if (color[v] == 1) {
                                        for (k = sp; stack[k] != v; k--) ;
                                        path = ""
                                        for (; k <= sp; k++) path = path stack[k] " -> "
                                        print path v
                                } else if (!color[v])
                                        walk(v)
                        }
                        sp--; color[u] = 2
                }
                END {
                        for (u in nodes) order[++m] = u
                        # insertion sort: the walk, and so its report, does not depend on awk hash order
                        for (i = 2; i <= m; i++) {
                                x = order[i]
                                for (j = i - 1; j >= 1 && order[j] > x; j--) order[j + 1] = order[j]
                                order[j + 1] = x
                        }
                        for (i = 1; i <= m; i++) {
                                n = split(adj[order[i]], tmp, " ")
                                for (j = 2; j <= n; j++) {
                                        x = tmp[j]
                                        for (k = j - 1; k >= 1 && tmp[k] > x; k--) tmp[k + 1] = tmp[k]
                                        tmp[k + 1] = x
                                }
                                s = ""
                                for (j = 1; j <= n; j++) s = s " " tmp[j]
                                adj[order[i]] = s
                        }
                        for (i = 1; i <= m; i++)
                                if (!color[order[i]])
                                        walk(order[i])
                }' "$1"
}

# vendor_violations ROOT LIST ALLOWED: "PATH:LINE: TOKEN..." for every name of a vendor in code
# outside its folder, probes/vendor.c and probes/vendor-id.h (the list), tests/ and the files of
# ALLOWED (as ALLOWED above). The vendors are the folders of
# probes/ but base, sandbox and devcode; a name of a vendor is an identifier, or a string literal
# without a blank (a variable, a path, a label, a kind: "NVIDIA_VISIBLE_DEVICES", "amdgpu"), that holds
# a vendor's folder name in any case, not after a letter or digit (XPU_VENDOR_AMD, xpu_k8s_nvidia,
# "nvidia.com/gpu"; not "command"). Prose in a message (a literal with a blank) and comments are free.
vendor_violations() {
        vendors=$(sed -n 's|^probes/\([^/]*\)/.*|\1|p' "$2" | grep -vxE 'base|sandbox|devcode' | sort -u |
                tr '\n' '|' | sed 's/|$//')
        [ -n "$vendors" ] || return 0
        grep -vE "^tests/|^probes/($vendors)/|^probes/vendor(\\.c|-id\\.h)\$" "$2" >"$T/ven.list"
        printf '%s\n' "$3" | awk 'NF { print $1 }' >"$T/allowed"
        # An allowed PATH ending in / is a folder: every file below it.
        awk 'FILENAME == ARGV[1] { if ($0 ~ /\/$/) dir[$0] = 1; else file[$0] = 1; next }
             { for (d in dir) if (index($0, d) == 1) next } !($0 in file)' "$T/allowed" "$T/ven.list" >"$T/ven2.list"
        [ -s "$T/ven2.list" ] || return 0
        (cd "$1" && xargs awk -v re="(^|[^a-z0-9])($vendors)" '
                FNR == 1 { incomment = 0 }
                {
                        # The line without its comments (a string holding "/*" or "//" is cut short:
                        # a miss, never a false report).
                        line = $0; code = ""
                        while (line != "") {
                                if (incomment) {
                                        i = index(line, "*/")
                                        if (!i) break
                                        line = substr(line, i + 2); incomment = 0
                                        continue
                                }
                                i = index(line, "/*"); j = index(line, "//")
                                if (j && (!i || j < i)) { code = code substr(line, 1, j - 1); break }
                                if (!i) { code = code line; break }
                                code = code substr(line, 1, i - 1); line = substr(line, i + 2); incomment = 1
                        }
                        rest = code; hit = ""
                        while (match(rest, /"([^"\\]|\\.)*"/)) {
                                lit = substr(rest, RSTART, RLENGTH)
                                if (lit !~ /[ \t]/ && tolower(lit) ~ re)
                                        hit = hit " " lit
                                rest = substr(rest, 1, RSTART - 1) " " substr(rest, RSTART + RLENGTH)
                        }
                        while (match(rest, /[A-Za-z_][A-Za-z0-9_]*/)) {
                                id = substr(rest, RSTART, RLENGTH)
                                if (tolower(id) ~ re)
                                        hit = hit " " id
                                rest = substr(rest, RSTART + RLENGTH)
                        }
                        if (hit != "")
                                printf "%s:%d:%s\n", FILENAME, FNR, hit
                }' <"$T/ven2.list") | sort -t: -k1,1 -k2,2n
}

# report DESC FILE: one "ok" line, or one "not ok" line per line of FILE.
report() {
        if [ -s "$2" ]; then
                while IFS= read -r v; do
                        not_ok "$1: $v"
                done <"$2"
        else
                ok "$1"
        fi
}

# ---- the rules must be able to fail: a small tree with one violation of each kind ----------------
S=$T/tree
mkdir -p "$S/probes/base" "$S/probes/nvidia" "$S/probes/amd" "$S/daemon" "$S/entrypoint" "$S/tests/fixtures" \
        "$S/tests/unit"
lines() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) print "int x;" }'; }
lines 790 >"$S/probes/base/big.c"
lines 11 >"$S/probes/base/big.h"  # 801 together
lines 790 >"$S/probes/base/fit.c"
lines 10 >"$S/probes/base/fit.h"  # 800 together: fits
lines 801 >"$S/tests/unit/lone.h" # a header without its .c
lines 900 >"$S/tests/fixtures/data.c"
printf '#include "probe.h"\n#include "base/big.h"\n#include "gen.inc"\n' >"$S/probes/base/up.c"
printf '#include "../probe.h"\n' >"$S/probes/base/dotdot.c"
printf '#include "amd/amd.h"\n#include "nvidia/nvidia.h"\n#include "probe.h"\n' >"$S/probes/nvidia/nvidia.c"
printf '/* the enum */\n' >"$S/probes/nvidia/nvidia.h"
printf '/* the enum */\n' >"$S/probes/amd/amd.h"
printf '#include "nvidia/nvidia.h"\nint v = XPU_VENDOR_NVIDIA;\n' >"$S/probes/vendor.c"
printf 'enum xpu_vendor { XPU_VENDOR_NVIDIA, XPU_VENDOR_AMD };\n' >"$S/probes/vendor-id.h"
printf 'int w = XPU_VENDOR_AMD;\n' >"$S/probes/vendor-id.c" # only the header is the list
printf '#include "base/big.h"\n#include "probe.h"\n#include "nvidia/nvidia.h"\n' >"$S/daemon/d.c"
printf '#include "d.h"\n' >"$S/entrypoint/e.c"
printf '/* only a comment */\n' >"$S/daemon/d.h"
printf 'enum xpu_vendor {\n        XPU_VENDOR_NVIDIA = 0,\n};\n#define FIRST XPU_VENDOR_AMD\n' >"$S/probes/probe.h"
# The vendors of this tree are nvidia and amd (its folders): XPU_VENDOR_INTEL names none of them.
cat >"$S/entrypoint/v.c" <<'EOF'
/* XPU_VENDOR_NVIDIA in a comment is no code */
int a = 1; // XPU_VENDOR_AMD after a line comment neither
/* a comment over
   two lines: XPU_VENDOR_AMD */ int b = XPU_VENDOR_NVIDIA;
int c = command + pyramid + xnvidia + XPU_VENDOR_INTEL;
if (v == XPU_VENDOR_AMD) {}
log("no AMD GPU: %s", "amd.com/gpu");
const char *s = "a \"nvidia\" word", *t = "\"";
setenv("NVIDIA_VISIBLE_DEVICES", judge_nvidia(v));
EOF
printf 'int t = XPU_VENDOR_NVIDIA;\n' >"$S/tests/unit/t.c"
printf 'int x = XPU_VENDOR_NVIDIA;\n' >"$S/entrypoint/allowed.c"
mkdir -p "$S/daemon/old"
printf 'const char *k = "amdgpu";\n' >"$S/daemon/old/k.c"
printf 'const char *d = "/usr/lib/nvidia/current";\n' >"$S/probes/base/dirs.c"
# Include circles: two files, three files; a .c with its own .h and a diamond are none.
printf '#include "y.h"\n' >"$S/probes/x.c"
printf '#include "x.h"\n' >"$S/probes/y.h"
printf '/* x */\n' >"$S/probes/x.h"
printf '#include "q.h"\n' >"$S/daemon/p.c"
printf '/* p */\n' >"$S/daemon/p.h"
printf '#include "r.h"\n#include "q.h"\n' >"$S/daemon/q.c"
printf '/* q */\n' >"$S/daemon/q.h"
printf '#include "p.h"\n' >"$S/daemon/r.h"
printf '#include "own.h"\n#include "b.h"\n#include "c.h"\n' >"$S/entrypoint/own.c"
printf '/* own */\n' >"$S/entrypoint/own.h"
printf '#include "c.h"\n' >"$S/entrypoint/b.h"
printf '/* c */\n' >"$S/entrypoint/c.h"
list_files "$S" >"$T/self.list"

size_violations "$S" "$T/self.list" >"$T/got"
is "$(cat "$T/got")" "probes/base/big.c + .h: 801 lines
tests/unit/lone.h: 801 lines" "self-test: the size rule reports a .c with its .h over $MAX_LINES and a lone .h, not 800 lines or a fixture"

include_edges "$S" "$T/self.list" >"$T/self.edges"
include_violations "$T/self.edges" >"$T/got"
is "$(cat "$T/got")" "probes/base/dotdot.c:1 includes \"../probe.h\" (probes/probe.h): base may not include probes
probes/base/up.c:1 includes \"probe.h\" (probes/probe.h): base may not include probes
probes/nvidia/nvidia.c:1 includes \"amd/amd.h\" (probes/amd/amd.h): vendor nvidia may not include vendor amd
probes/vendor.c:1 includes \"nvidia/nvidia.h\" (probes/nvidia/nvidia.h): probes may not include vendor nvidia" \
        "self-test: the layer rule reports upward and cross-vendor includes, resolved as the compiler does"
# entrypoint/e.c includes "d.h": daemon/d.h is not on entrypoint's include path, so it is no include of daemon/.

include_circles "$T/self.edges" >"$T/got"
is "$(cat "$T/got")" "daemon/p -> daemon/q -> daemon/r -> daemon/p
probes/x -> probes/y -> probes/x" \
        "self-test: the circle rule reports circles of two and three files, not a .c with its .h or a diamond"

vendor_violations "$S" "$T/self.list" "entrypoint/allowed.c  a file
daemon/old/  a folder" >"$T/got"
is "$(cat "$T/got")" "daemon/d.c:3: \"nvidia/nvidia.h\"
entrypoint/v.c:4: XPU_VENDOR_NVIDIA
entrypoint/v.c:6: XPU_VENDOR_AMD
entrypoint/v.c:7: \"amd.com/gpu\"
entrypoint/v.c:9: \"NVIDIA_VISIBLE_DEVICES\" judge_nvidia
probes/base/dirs.c:1: \"/usr/lib/nvidia/current\"
probes/probe.h:2: XPU_VENDOR_NVIDIA
probes/probe.h:4: XPU_VENDOR_AMD
probes/vendor-id.c:1: XPU_VENDOR_AMD" \
        "self-test: the vendor rule reports names and strings of the tree's vendors outside their folders and ALLOWED"

# ---- the tree ------------------------------------------------------------------------------------
list_files "$SRC" >"$T/src.list"
if [ -s "$T/src.list" ]; then ok "the tree's C files are listed ($(wc -l <"$T/src.list") files)"; else not_ok "the tree's C files are listed"; fi

size_violations "$SRC" "$T/src.list" >"$T/size"
report "no .c with its .h, and no lone .h, over $MAX_LINES lines" "$T/size"

include_edges "$SRC" "$T/src.list" >"$T/edges"
include_violations "$T/edges" >"$T/inc"
report "no upward include (probes/base < sandbox, devcode < probes/ < vendors < entrypoint, daemon)" "$T/inc"

include_circles "$T/edges" >"$T/circ"
report "no include circle between files (a .c with its .h one file)" "$T/circ"

vendor_violations "$SRC" "$T/src.list" "$ALLOWED" >"$T/ven"
report "a vendor is named in code only in probes/<vendor>/, probes/vendor.c, probes/vendor-id.h, tests/ and ALLOWED" "$T/ven"

# ---- unit tests named by subject (docs/architecture.md, "Tests") ---------------------------------
# Every tests/unit/test-*.c is named after the module it covers, so a behaviour's test is found by
# its file name: test-<m>.c for entrypoint/<m>.c, probes/<m>.c, probes/base|sandbox|<vendor>/<m>.c;
# test-devcode-<m>.c for probes/devcode/<m>.c; test-xpud-<m>.c for daemon/<m>.c (daemon/xpud-<m>.c:
# test-xpud-<m>.c too). A second file of one module adds ".<aspect>" (test-nvidia.edge.c).

# unit_test_violations LIST: "PATH: names no module" for every tests/unit/test-*.c of LIST whose
# name (aspect cut off) is the test name of no .c under entrypoint/, daemon/ or probes/ in LIST.
unit_test_violations() {
        awk '
                function stem(p) { sub(/^.*\//, "", p); sub(/\.c$/, "", p); return p }
                /^(entrypoint|daemon|probes)\/[^\/]+\.c$/ || /^probes\/[^\/]+\/[^\/]+\.c$/ {
                        m = stem($0)
                        if ($0 ~ /^daemon\//) { sub(/^xpud-/, "", m); m = "xpud-" m }
                        else if ($0 ~ /^probes\/devcode\//) m = "devcode-" m
                        module[m] = 1
                        next
                }
                /^tests\/unit\/test-[^\/]+\.c$/ { tests[$0] = 1 }
                END {
                        for (t in tests) {
                                s = stem(t); sub(/^test-/, "", s); sub(/\..*$/, "", s)
                                if (!(s in module))
                                        printf "%s: names no module (test-%s: no %s.c)\n", t, s, s
                        }
                }' "$1" | sort
}

U=$T/unit-tree
mkdir -p "$U/entrypoint" "$U/daemon" "$U/probes/base" "$U/probes/devcode" "$U/probes/nvidia" "$U/tests/unit"
for f in entrypoint/plan.c daemon/server.c daemon/xpud-options.c probes/probe.c probes/base/path.c \
        probes/devcode/judge.c probes/nvidia/nvidia-nvml.c tests/unit/testlib.c tests/unit/test-plan.c \
        tests/unit/test-xpud-server.c tests/unit/test-xpud-options.c tests/unit/test-probe.c \
        tests/unit/test-path.c tests/unit/test-devcode-judge.c tests/unit/test-nvidia-nvml.c \
        tests/unit/test-nvidia-nvml.fixtures.c tests/unit/test-plan-gather.c tests/unit/test-server.c \
        tests/unit/test-judge.c tests/unit/test-nvml.c tests/unit/test-xpud-xpud-options.c; do
        printf 'int x;\n' >"$U/$f"
done
list_files "$U" >"$T/unit.list"
unit_test_violations "$T/unit.list" >"$T/got"
is "$(cat "$T/got")" "tests/unit/test-judge.c: names no module (test-judge: no judge.c)
tests/unit/test-nvml.c: names no module (test-nvml: no nvml.c)
tests/unit/test-plan-gather.c: names no module (test-plan-gather: no plan-gather.c)
tests/unit/test-server.c: names no module (test-server: no server.c)
tests/unit/test-xpud-xpud-options.c: names no module (test-xpud-xpud-options: no xpud-xpud-options.c)" \
        "self-test: the test-name rule reports unit tests named after no module, not test-<m>[.<aspect>].c"

unit_test_violations "$T/src.list" >"$T/unit"
report "every tests/unit/test-*.c is named after the module it covers" "$T/unit"

e2e_done
