#!/bin/sh
# Offline checks of the Kubernetes manifests in examples/kubernetes (make check-manifests; make
# check runs it too, through tests/run-tests.sh). No cluster and no API server: every YAML
# document goes through three passes,
#   1. its kubernetes-models model's validate(): types, enums, required fields (validate.mjs);
#   2. TypeScript's excess-property check (tsc --noEmit on generated .ts files): unknown and
#      misspelled fields, which pass 1 lets through (strict.mjs);
#   3. every CEL expression parsed by @marcbachmann/cel-js (cel.mjs);
# a broken copy of each file (mutate.mjs: a misspelled field, a wrong enum, a broken CEL
# expression where the file has CEL) must be rejected by the pass that catches that mistake;
# and facts.mjs checks what users rely on (no host / mounted, the socket shared as a directory,
# one image for every workload, the DeviceClass guarding each clause with device.driver), each
# fact check shown to fail on a copy that breaks it.
#
# The validators are the versions pinned in package-lock.json, installed by `npm ci` into a
# scratch copy of this directory with a scratch npm cache (XPU_NPM_CACHE names a cache to keep
# instead): nothing is written into the source tree or a shared path. Needs node (20.19 or
# later) and npm with the npm registry reachable; without them every run fails, loudly.
# Prints TAP; exits 1 on any failure.
set -u
SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
EX=$SRC/examples/kubernetes
TAB=$(printf '\t')

N=0
FAILED=0
ok() {
        N=$((N + 1))
        printf 'ok %d - %s\n' "$N" "$1"
}
not_ok() {
        N=$((N + 1))
        FAILED=$((FAILED + 1))
        printf 'not ok %d - %s\n' "$N" "$1"
}
diag() {
        printf '%s\n' "$@" | sed 's/^/# /'
}
diag_file() {
        sed -n '1,40s/^/# /p' "$1"
}
finish() {
        printf '1..%d\n' "$N"
        [ "$FAILED" -eq 0 ] || exit 1
        exit 0
}

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- the validators -------------------------------------------------------------------------------
for tool in node npm; do
        if ! command -v "$tool" >/dev/null 2>&1; then
                not_ok "$tool is on PATH (the manifest checks need Node.js 20.19+ and npm)"
                finish
        fi
done
cp -R "$SRC/tests/k8s" "$T/k8s" || exit 1
rm -rf "$T/k8s/node_modules"
npm_config_cache=${XPU_NPM_CACHE:-$T/npm-cache}
export npm_config_cache
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
if (cd "$T/k8s" && npm ci --no-audit --no-fund) >"$T/npm.log" 2>&1; then
        ok "npm ci installs the pinned validators (node $(node --version))"
else
        not_ok "npm ci installs the pinned validators (tests/k8s/package-lock.json)"
        # The packages' engine warnings (they ask for node 22 and run on 20) are not the reason.
        grep -v 'EBADENGINE' "$T/npm.log" | head -n 30 | sed 's/^/# /'
        finish
fi
K=$T/k8s

# ---- the manifests and their broken copies --------------------------------------------------------
set --
for f in "$EX"/*.yaml "$EX"/*.yml; do
        [ -f "$f" ] && set -- "$@" "$f"
done
if [ $# -ge 6 ]; then
        ok "examples/kubernetes holds the manifests ($# files)"
else
        not_ok "examples/kubernetes holds the manifests (found $#, want at least 6)"
fi
pristine=$#
if ! node "$K/mutate.mjs" "$EX" "$T/broken" >"$T/coverage.tsv" 2>"$T/mutate.err"; then
        not_ok "mutate.mjs makes the broken copies"
        diag_file "$T/mutate.err"
        finish
fi
while IFS=$TAB read -r copy file _ pass what; do
        [ "$copy" = - ] || set -- "$@" "$copy"
done <"$T/broken/index.tsv"

# One run of each pass over every file, pristine and broken.
for p in 1 2 3; do
        case $p in
        1) node "$K/validate.mjs" "$@" ;;
        2) node "$K/strict.mjs" "$T/ts" "$@" ;;
        3) node "$K/cel.mjs" "$@" ;;
        esac >"$T/pass$p.tsv" 2>"$T/pass$p.err"
        rc=$?
        if [ "$rc" -ne 0 ] || [ -s "$T/pass$p.err" ]; then
                not_ok "pass $p runs (exit status $rc)"
                diag_file "$T/pass$p.err"
        fi
done

pass_name() {
        case $1 in
        1) echo "schema (kubernetes-models validate())" ;;
        2) echo "no unknown field (tsc excess-property check)" ;;
        3) echo "CEL syntax (cel-js)" ;;
        esac
}

# verdict PASS FILE: sets V (ok, fail, or missing) and VD (the detail) from pass PASS's line for FILE.
verdict() {
        line=$(F=$2 awk -F '\t' '$1 == ENVIRON["F"] { print $2 "\t" $3; exit }' "$T/pass$1.tsv")
        if [ -z "$line" ]; then
                V=missing
                VD="pass $1 printed no verdict for $2"
                return
        fi
        V=${line%%"$TAB"*}
        VD=${line#*"$TAB"}
}

# Every pristine file passes every pass.
i=0
for f in "$@"; do
        i=$((i + 1))
        [ "$i" -le "$pristine" ] || break
        name=${f#"$SRC"/}
        for p in 1 2 3; do
                verdict "$p" "$f"
                if [ "$V" = ok ]; then
                        ok "$name: $(pass_name "$p")${VD:+ ($VD)}"
                else
                        not_ok "$name: $(pass_name "$p")"
                        diag "$VD"
                fi
        done
done

# Every manifest has a broken copy of each kind it needs.
while IFS=$TAB read -r file status detail; do
        if [ "$status" = ok ]; then
                ok "$file has broken copies of each kind it needs ($detail)"
        else
                not_ok "$file has broken copies of each kind it needs"
                diag "$detail"
        fi
done <"$T/coverage.tsv"

# Every broken copy is rejected by the pass that catches its mistake.
while IFS=$TAB read -r copy file _ pass what; do
        if [ "$copy" = - ]; then
                not_ok "$file, broken: $what"
                continue
        fi
        verdict "$pass" "$copy"
        if [ "$V" = fail ]; then
                ok "$file, broken ($what): rejected by pass $pass, $(pass_name "$pass")"
                diag "$VD" | cut -c1-200
        else
                not_ok "$file, broken ($what): rejected by pass $pass, $(pass_name "$pass")"
                diag "got: $V${VD:+ ($VD)}"
        fi
done <"$T/broken/index.tsv"

# ---- facts users rely on --------------------------------------------------------------------------
# fact_lines FILE: each "ok|fail <tab> FACT <tab> DETAIL" line of FILE as a test.
fact_lines() {
        while IFS=$TAB read -r status fact detail; do
                if [ "$status" = ok ]; then
                        ok "$fact"
                else
                        not_ok "$fact"
                        diag "$detail"
                fi
        done <"$1"
}
if node "$K/facts.mjs" "$EX" >"$T/facts.out" 2>"$T/facts.err" && [ -s "$T/facts.out" ]; then
        fact_lines "$T/facts.out"
else
        not_ok "facts.mjs runs"
        diag_file "$T/facts.err"
fi
# Each fact check fails on a copy of the manifests that breaks its fact.
while IFS=$TAB read -r dir fact what; do
        if [ "$dir" = - ]; then
                not_ok "fact check \"$fact\" catches a copy that breaks it: $what"
                continue
        fi
        node "$K/facts.mjs" "$dir" >"$T/fact.out" 2>"$T/fact.err"
        status=$(F=$fact awk -F '\t' 'index($2, ENVIRON["F"]) { print $1; exit }' "$T/fact.out")
        if [ "$status" = fail ]; then
                ok "fact check \"$fact\" catches $what"
        else
                not_ok "fact check \"$fact\" catches $what"
                diag "got: ${status:-no such fact}"
                diag_file "$T/fact.err"
        fi
done <"$T/broken/facts.tsv"

# ---- the nodeAffinity pasted from xpuinit audit --k8s-affinity -------------------------------------
# workload-affinity.yaml says how its first term was made (its test image: two device-code
# fixtures); make it again and compare the xpu.arch values, also those split between the two
# device-plugin Deployments.
x=${XPU_BUILD:-$SRC/build}/xpuinit
if [ -x "$x" ]; then
        mkdir -p "$T/img/usr/lib"
        cp "$SRC/tests/fixtures/devcode/nvidia/libkernel.so" "$SRC/tests/fixtures/devcode/amd/libhip.so" "$T/img/usr/lib/"
        "$x" audit --k8s-affinity "$T/img" >"$T/affinity.yaml" 2>&1
        want=$(sed -n 's/^ *- "\(.*\)"$/\1/p' "$T/affinity.yaml" | tr '\n' ' ')
        got=$(sed -n 's/^ *- "\(.*\)"$/\1/p' "$EX/workload-affinity.yaml" | tr '\n' ' ')
        if [ -n "$want" ] && [ "$got" = "$want" ]; then
                ok "workload-affinity.yaml: the xpu.arch values are what xpuinit audit --k8s-affinity prints for its test image"
        else
                not_ok "workload-affinity.yaml: the xpu.arch values are what xpuinit audit --k8s-affinity prints for its test image"
                diag "got:  $got" "want: $want"
                diag_file "$T/affinity.yaml"
        fi
        got=$(sed -n 's/^ *values: \[\(.*\)\]$/\1/p' "$EX/workload-device-plugin.yaml" | tr -d ',' | tr '\n' ' ')
        if [ -n "$want" ] && [ "$got" = "$want" ]; then
                ok "workload-device-plugin.yaml: the two Deployments split the same xpu.arch values by vendor"
        else
                not_ok "workload-device-plugin.yaml: the two Deployments split the same xpu.arch values by vendor"
                diag "got:  $got" "want: $want"
        fi
else
        ok "workload-affinity.yaml: the xpu.arch values are what xpuinit audit --k8s-affinity prints # SKIP no $x (run make)"
        ok "workload-device-plugin.yaml: the same xpu.arch values split by vendor # SKIP no $x (run make)"
fi

finish
