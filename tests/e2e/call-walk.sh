#!/bin/sh
# shellcheck disable=SC2016
# A start reads in one direction (docs/architecture.md, "A start, step by step"), checked on the
# build's objects ($XPU_BUILD/entrypoint/*.o): a call walk from run() in entrypoint/main.c never
# returns into an earlier step's files (nor reaches into a later one's: steps meet in main.c and
# in the data they hand on).
#   ranks     the table of "A start, step by step" gives each entrypoint/ file it names a rank,
#             the number of the first row naming it (`entrypoint/x.c`, or a bare `x.c` in the
#             same cell, which is entrypoint/x.c); the paragraph starting "Libraries no step owns"
#             names the files of rank 0, libraries. main.c is the list of the steps: it calls
#             them all and is not checked. Other files (other subcommands, output) are unranked.
#   rule      for every symbol an object uses (nm: undefined there) and another object defines:
#             a file of a step uses none of another step's file (an earlier one's: a return; a
#             later one's: a call ahead); a library uses none of a step's file; a ranked file or a
#             library uses none of an unranked file (which could otherwise carry a call back). A
#             file the table names must have an object.
# The rule first runs on a small tree compiled here with one violation of each kind (and calls
# that are allowed): a rule that could not fail would fail there. Needs nm, cc, awk. Prints TAP.
. "$(dirname "$0")/lib.sh"

export LC_ALL=C
SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
[ -n "${XPU_BUILD:-}" ] || bail "XPU_BUILD must be set (run through tests/run-tests.sh)"
need_tools nm cc awk

T=$(mktemp -d) || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT

# step_ranks DOC: "FILE RANK" for each file the step table and the libraries paragraph of DOC name.
step_ranks() {
        awk '
                function name(tok, path) {
                        if (tok ~ /^entrypoint\/[A-Za-z0-9_-]+\.c$/) return tok
                        if (tok ~ /^[A-Za-z0-9_-]+\.c$/) return "entrypoint/" tok
                        return ""
                }
                # Every `...` token of TEXT that names an entrypoint/ source, at RANK unless ranked.
                function take(text, rank,   t, f) {
                        while (match(text, /`[^`]*`/)) {
                                t = substr(text, RSTART + 1, RLENGTH - 2)
                                text = substr(text, RSTART + RLENGTH)
                                f = name(t)
                                if (f != "" && !(f in seen)) { seen[f] = 1; print f, rank }
                        }
                }
                /^### A start, step by step/ { section = 1; next }
                section && /^##/ { section = 0 }
                !section { next }
                lib && /^[[:space:]]*$/ { lib = 0 }
                /^Libraries no step owns/ { lib = 1 }
                lib { take($0, 0); next }
                /^\|[-| ]+\|[[:space:]]*$/ { next }          # the separator row
                /^\| *step *\|/ { next }                     # the header row
                /^\|/ {
                        row++
                        n = split($0, col, "|")
                        take(col[n - 1], row)                # the last cell: the files
                }' "$1"
}

# symbols DIR: "FILE D|U SYMBOL" for every DIR/*.o (FILE entrypoint/<name>.c): its global
# definitions and the symbols it uses undefined.
symbols() {
        for o in "$1"/*.o; do
                [ -f "$o" ] || continue
                f="entrypoint/$(basename "$o" .o).c"
                nm -P -g "$o" | awk -v f="$f" '
                        $2 == "U" { print f, "U", $1; next }
                        $2 ~ /^[A-TV-Z]$/ { print f, "D", $1 }'
        done
}

# walk_violations RANKS SYMBOLS: one line per use that breaks the rule, and per ranked file
# without an object.
walk_violations() {
        awk '
                FNR == NR { rank[$1] = $2; next }
                $2 == "D" { def[$3] = $1; has[$1] = 1; next }
                { use[++n] = $1 SUBSEP $3 }
                END {
                        for (i = 1; i <= n; i++) {
                                split(use[i], u, SUBSEP)
                                caller = u[1]; sym = u[2]
                                if (!(sym in def) || def[sym] == caller || caller == "entrypoint/main.c")
                                        continue
                                callee = def[sym]
                                if (!(caller in rank))
                                        continue
                                if (!(callee in rank))
                                        printf "%s uses %s of %s, a file the step table does not name\n",
                                               caller, sym, callee
                                else if (rank[caller] == 0 && rank[callee] > 0)
                                        printf "%s (a library) uses %s of %s (step %d)\n",
                                               caller, sym, callee, rank[callee]
                                else if (rank[callee] > 0 && rank[callee] < rank[caller])
                                        printf "%s (step %d) uses %s of %s (step %d): a return into an earlier step\n",
                                               caller, rank[caller], sym, callee, rank[callee]
                                else if (rank[callee] > rank[caller] && rank[caller] > 0)
                                        printf "%s (step %d) uses %s of %s (step %d): a call into a later step\n",
                                               caller, rank[caller], sym, callee, rank[callee]
                        }
                        for (f in rank)
                                if (!(f in has) && f != "entrypoint/main.c")
                                        printf "%s is named by the step table but has no object\n", f
                }' "$1" "$2" | sort -u
}

report() {
        if [ -s "$2" ]; then
                while IFS= read -r v; do
                        not_ok "$1: $v"
                done <"$2"
        else
                ok "$1"
        fi
}

# ---- the rule must be able to fail: a small tree with one violation of each kind ----------------
S=$T/self
mkdir -p "$S/o"
cat >"$S/doc.md" <<'EOF'
## Other
| step | what | file |
|------|------|------|
| zero | not this section | `entrypoint/stray.c` |

### A start, step by step

| step | what it does | file |
|------|--------------|------|
| one | first | `entrypoint/one.c`, `probes/ignored.c` |
| two | second | `entrypoint/two.c` (`two-x.c`, `xpu_two_f`) -> `entrypoint/two.h`; `entrypoint/one.c` again |
| three | third | `entrypoint/three.c` |

Libraries no step owns (any step calls down into them):
`entrypoint/lib.c`.

## After
`entrypoint/late.c`
EOF
src() { printf '%s\n' "$2" >"$S/$1.c"; cc -c -o "$S/o/$1.o" "$S/$1.c" || bail "self-test: cc failed on $1.c"; }
src one 'void two_f(void); void lib_f(void); void one_f(void) { two_f(); lib_f(); }'
src two 'void lib_f(void); void stray_f(void); void two_x_f(void); void two_f(void) { lib_f(); stray_f(); two_x_f(); }'
src two-x 'void one_f(void); void two_x_f(void) { one_f(); }'
src three 'void lib_f(void); void printf_like(void); void three_f(void) { lib_f(); printf_like(); }'
src lib 'void one_f(void); void lib_f(void) { one_f(); }'
src stray 'void stray_f(void) {}'
src main 'void one_f(void); void two_f(void); void three_f(void); void stray_f(void);
int main(void) { one_f(); two_f(); three_f(); stray_f(); return 0; }'
step_ranks "$S/doc.md" >"$S/ranks"
is "$(cat "$S/ranks")" "entrypoint/one.c 1
entrypoint/two.c 2
entrypoint/two-x.c 2
entrypoint/three.c 3
entrypoint/lib.c 0" "self-test: the ranks come from the step table's file cells and the libraries paragraph only"
symbols "$S/o" >"$S/symbols"
walk_violations "$S/ranks" "$S/symbols" >"$S/got"
is "$(cat "$S/got")" "entrypoint/lib.c (a library) uses one_f of entrypoint/one.c (step 1)
entrypoint/one.c (step 1) uses two_f of entrypoint/two.c (step 2): a call into a later step
entrypoint/two-x.c (step 2) uses one_f of entrypoint/one.c (step 1): a return into an earlier step
entrypoint/two.c uses stray_f of entrypoint/stray.c, a file the step table does not name" \
        "self-test: a return, a call ahead, a library calling a step, an unranked callee fail; the rest not"
printf 'entrypoint/gone.c 1\n' >>"$S/ranks"
walk_violations "$S/ranks" "$S/symbols" | grep gone >"$S/got"
is "$(cat "$S/got")" "entrypoint/gone.c is named by the step table but has no object" \
        "self-test: a file the table names without an object is reported"

# ---- the tree -----------------------------------------------------------------------------------
[ -f "$XPU_BUILD/entrypoint/main.o" ] || bail "$XPU_BUILD/entrypoint/main.o is missing (make)"
step_ranks "$SRC/docs/architecture.md" >"$T/ranks"
[ -s "$T/ranks" ] || bail "docs/architecture.md: no step table under \"### A start, step by step\""
symbols "$XPU_BUILD/entrypoint" >"$T/symbols"
walk_violations "$T/ranks" "$T/symbols" >"$T/walk"
report "a start's step files call no other step's file, libraries no step's (docs/architecture.md)" "$T/walk"

e2e_done
