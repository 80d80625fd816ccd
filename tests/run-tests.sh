#!/bin/sh
# Run every test program and script, count TAP results, print "N passed, N failed".
#   tests/run-tests.sh BUILD_DIR [FILTER]
# Unit tests (Check) write TAP to stdout through CK_TAP_LOG_FILE_NAME=-; end-to-end scripts in
# tests/e2e/*.sh print TAP themselves. A program that exits non-zero without reporting a
# failure counts as one failure, so a crash cannot pass silently.
set -u
BUILD=${1:-build}
FILTER=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
export XPU_BUILD="$top/$BUILD" XPU_SRCDIR="$top"

passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run_one() {
        name=$1
        shift
        case "$name" in *"$FILTER"*) ;; *) return ;; esac
        printf '# %s\n' "$name"
        "$@" >"$log" 2>&1
        rc=$?
        ok=$(grep -c '^ok ' "$log")
        nok=$(grep -c '^not ok ' "$log")
        grep -E '^(not ok|ok|#|Bail out)' "$log" | sed 's/^/  /'
        if [ "$nok" -gt 0 ] || [ "$rc" -ne 0 ]; then
                # Show what the program printed besides TAP, to explain the failure.
                grep -vE '^(ok|#)' "$log" | tail -n 40 | sed 's/^/  | /'
        fi
        if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then
                printf '  not ok - %s exited with status %s\n' "$name" "$rc"
                nok=1
        fi
        if [ "$ok" -eq 0 ] && [ "$nok" -eq 0 ]; then
                printf '  not ok - %s ran no test\n' "$name"
                nok=1
        fi
        passed=$((passed + ok))
        failed=$((failed + nok))
}

for t in "$BUILD"/tests/test-*; do
        [ -x "$t" ] || continue
        run_one "unit/$(basename "$t")" env CK_TAP_LOG_FILE_NAME=- CK_VERBOSITY=silent "$t"
done
for t in tests/e2e/*.sh; do
        [ -f "$t" ] || continue
        run_one "e2e/$(basename "$t" .sh)" sh "$t"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
