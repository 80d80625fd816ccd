#!/bin/sh
# Run every test program and script, count TAP results, print "N passed, N failed".
#   tests/run-tests.sh BUILD_DIR [FILTER]                  the tests of one build
#   tests/run-tests.sh --sanitized ASAN_BUILD [FILTER]     the same for an ASan + UBSan build
#   tests/run-tests.sh --asan ASAN_BUILD BUILD_DIR [FILTER]
#                                                          both: BUILD_DIR, then ASAN_BUILD (make check)
#                                                          and, with XPU_ARM64_BUILD set, that arm64
#                                                          build under XPU_ARM64_EXEC (make check's
#                                                          third pass, as make check-arm64)
# Unit tests (Check, $BUILD/tests/test-*, fuzz corpus replays included) write TAP to stdout through
# CK_TAP_LOG_FILE_NAME=-; shell suites (tests/e2e/*.sh, tests/attack/*.sh) print TAP themselves.
# tests/k8s/*.sh (manifests), tests/grafana/*.sh (the dashboard) and tests/deb/*.sh (packages, images)
# check what is shipped, not how the code behaves, so they run in the plain pass only.
# FILTER keeps the tests whose name ("unit/test-x", "e2e/pid1", "attack/...") contains it.
# XPU_TEST_EXEC (make check-arm64): a command that runs the build's programs, such as
# "qemu-aarch64 -L /" for an arm64 build on an x86-64 machine. It prefixes every unit test, and the
# shell suites that read it start xpuinit through it; set, only the unit tests and the suites in
# XPU_TEST_SUITES (names as FILTER matches them: "e2e/probe-plan e2e/seccomp-builtin") run, since
# the others run the programs inside containers, which an emulator named on the command line cannot
# follow, and the tests listed in tests/qemu-excluded.txt are not run: each is printed with its
# reason (docs/architecture.md, "arm64").
# A program that exits non-zero without reporting a failure counts as one failure, so a crash
# cannot pass silently.
#
# Sanitized runs (docs/fuzzing.md, "make check-asan"): every report of AddressSanitizer
# (LeakSanitizer included) goes to a file in a scratch directory (log_path;
# the directory is world-writable and sticky, as xpud writes there after dropping to its own user)
# and each report written while a test ran is one failure of that test, with the report shown,
# even when the program that hit it was a child whose exit status nobody checked. Leak checking
# is on for unit tests and off for the shell suites (detect_leaks=0): their programs run as PID 1
# in runc containers, under seccomp, without capabilities, or after changing uid, where
# LeakSanitizer cannot stop the world. Inside a container the rootfs has the sanitizer runtimes
# (tests/e2e/lib.sh copies what ldd lists) but no scratch directory: a report there goes to the
# program's stderr and ends it with status 1, which the script's checks see. UBSan linked
# together with ASan (gcc) ignores log_path and prints to stderr: a "runtime error:" line in a
# test's output is a failure too, and every UBSan finding ends its program with status 1
# (-fno-sanitize-recover=all).
set -u
asan_build=
sanitized=0
while [ $# -gt 0 ]; do
        case $1 in
        --asan)
                asan_build=$2
                shift 2
                ;;
        --sanitized)
                sanitized=1
                shift
                ;;
        *) break ;;
        esac
done
BUILD=${1:-build}
FILTER=${2:-}
XPU_TEST_EXEC=${XPU_TEST_EXEC:-}
XPU_TEST_SUITES=${XPU_TEST_SUITES:-}
export XPU_TEST_EXEC
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
export XPU_SRCDIR="$top"
for b in "$BUILD" ${asan_build:+"$asan_build"}; do
        if [ ! -d "$b/tests" ]; then
                echo "tests/run-tests.sh: \"$b\" is not a build directory (no $b/tests: run make build-tests);" \
                        "usage: tests/run-tests.sh BUILD_DIR [FILTER], e.g. tests/run-tests.sh build e2e/pid1" >&2
                exit 2
        fi
done

passed=0
failed=0
excluded=0
matched=0
log=$(mktemp)
sanlogs=$(mktemp -d)
chmod 1777 "$sanlogs"
trap 'rm -rf "$log" "$sanlogs"' EXIT

# Sanitizer options of a sanitized run; LEAKS is 1 or 0.
sanitizer_env() {
        export ASAN_OPTIONS="detect_leaks=$1:abort_on_error=0:log_path=$sanlogs/asan:log_exe_name=1"
        export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$sanlogs/ubsan:log_exe_name=1"
}

run_one() {
        name=$1
        shift
        case "$name" in *"$FILTER"*) ;; *) return ;; esac
        matched=$((matched + 1))
        if [ -n "$XPU_TEST_EXEC" ]; then
                case "$name" in
                unit/*) ;;
                *) case " $XPU_TEST_SUITES " in *" $name "*) ;; *) return ;; esac ;;
                esac
                why=$(awk -v n="$name" '$1 == n { $1 = ""; sub(/^ +/, ""); print; exit }' "$top/tests/qemu-excluded.txt")
                if [ -n "$why" ]; then
                        printf '# %s: not run under %s: %s\n' "$name" "$XPU_TEST_EXEC" "$why"
                        excluded=$((excluded + 1))
                        return
                fi
        fi
        printf '# %s\n' "$name"
        rm -f "$sanlogs"/*
        start=$(date +%s)
        "$@" >"$log" 2>&1
        rc=$?
        printf '  # %s s\n' "$(($(date +%s) - start))"
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
        for report in "$sanlogs"/*; do
                [ -f "$report" ] || continue
                printf '  not ok - %s: sanitizer report %s\n' "$name" "$(basename "$report")"
                head -n 40 "$report" | sed 's/^/  | /'
                nok=$((nok + 1))
        done
        # UBSan linked with ASan (gcc) ignores log_path and prints to stderr.
        if [ "$sanitizing" -eq 1 ] && grep -q 'runtime error:' "$log"; then
                printf '  not ok - %s: UndefinedBehaviorSanitizer report in its output\n' "$name"
                grep -A 12 'runtime error:' "$log" | head -n 40 | sed 's/^/  | /'
                nok=$((nok + 1))
        fi
        passed=$((passed + ok))
        failed=$((failed + nok))
}

# run_suite BUILD SANITIZED: every test of BUILD; SANITIZED 1 sets the sanitizer options.
run_suite() {
        export XPU_BUILD="$top/$1"
        sanitizing=$2
        [ "$2" -eq 1 ] && sanitizer_env 1
        for t in "$1"/tests/test-*; do
                [ -x "$t" ] || continue
                # A program whose source is gone (a renamed test) is a stale build product, not a test.
                n=$(basename "$t")
                if [ ! -f "tests/unit/$n.c" ] && [ ! -f "tests/fuzz/${n#test-}.c" ]; then
                        case "unit/$n" in *"$FILTER"*) printf '# unit/%s: not run, no tests/unit/%s.c (a stale build product)\n' "$n" "$n" ;; esac
                        continue
                fi
                # shellcheck disable=SC2086 # XPU_TEST_EXEC is a command with its arguments
                run_one "unit/$(basename "$t")" env CK_TAP_LOG_FILE_NAME=- CK_VERBOSITY=silent $XPU_TEST_EXEC "$t"
        done
        [ "$2" -eq 1 ] && sanitizer_env 0
        for t in tests/e2e/*.sh tests/attack/*.sh; do
                [ -f "$t" ] || continue
                run_one "$(basename "$(dirname "$t")")/$(basename "$t" .sh)" sh "$t"
        done
        if [ "$2" -eq 0 ]; then
                for t in tests/k8s/*.sh tests/grafana/*.sh tests/deb/*.sh; do
                        [ -f "$t" ] || continue
                        run_one "$(basename "$(dirname "$t")")/$(basename "$t" .sh)" sh "$t"
                done
        fi
        unset ASAN_OPTIONS UBSAN_OPTIONS
}

if [ -z "$asan_build" ]; then
        run_suite "$BUILD" "$sanitized"
        [ "$excluded" -eq 0 ] || echo "# $excluded test programs not run under $XPU_TEST_EXEC (tests/qemu-excluded.txt)"
        # A name in the list that no test has any more (a renamed test) would hide nothing and say
        # nothing: it fails the run, naming the entry.
        if [ -n "$XPU_TEST_EXEC" ] && [ -z "$FILTER" ]; then
                stale=$(awk '!/^#/ && NF { print $1 }' "$top/tests/qemu-excluded.txt" | while read -r n; do
                        [ -f "$top/tests/${n%%/*}/${n#*/}.c" ] || [ -f "$top/tests/${n%%/*}/${n#*/}.sh" ] || echo "$n"
                done)
                for n in $stale; do
                        echo "not ok - tests/qemu-excluded.txt names $n, which is no test: remove or rename the line"
                        failed=$((failed + 1))
                done
        fi
        if [ -n "$FILTER" ] && [ "$matched" -eq 0 ]; then
                echo "not ok - no test's name contains \"$FILTER\" (names: unit/test-..., e2e/..., attack/...)"
                failed=$((failed + 1))
        fi
        echo "$passed passed, $failed failed"
        [ "$failed" -eq 0 ]
        exit
fi

# Both passes at once (most of their time is spent waiting for containers and daemons, not on the
# CPU): the plain one prints as it goes, the sanitized one into a file shown afterwards (its test
# names prefixed "asan: "); one line each, the total last. A pass that printed no summary line
# counts as one failure.
plain_out=$(mktemp)
asan_out=$(mktemp)
trap 'rm -rf "$log" "$sanlogs" "$plain_out" "$asan_out"' EXIT
sh "$top/tests/run-tests.sh" --sanitized "$asan_build" "$FILTER" >"$asan_out" 2>&1 &
asan_pid=$!
sh "$top/tests/run-tests.sh" "$BUILD" "$FILTER" | tee "$plain_out"
wait "$asan_pid"
sed -e '$d' -e 's/^# /# asan: /' "$asan_out"
# make check's third pass: the arm64 cross build (XPU_ARM64_BUILD) under XPU_ARM64_EXEC, after the
# two (its emulated unit tests keep the CPUs busy), its lines prefixed "arm64: ".
arm64_out=
if [ -n "${XPU_ARM64_BUILD:-}" ]; then
        arm64_out=$(mktemp)
        trap 'rm -rf "$log" "$sanlogs" "$plain_out" "$asan_out" "$arm64_out"' EXIT
        XPU_TEST_EXEC=${XPU_ARM64_EXEC:-qemu-aarch64 -L /} XPU_TEST_SUITES=${XPU_ARM64_SUITES:-} \
                sh "$top/tests/run-tests.sh" "$XPU_ARM64_BUILD" "$FILTER" >"$arm64_out" 2>&1
        sed -e '$d' -e 's/^# /# arm64: /' "$arm64_out"
fi

# counts FILE: sets p and f from FILE's last line "N passed, N failed" (0 and 1 when missing).
counts() {
        line=$(tail -n 1 "$1")
        p=${line%% passed, *}
        f=${line#* passed, }
        f=${f% failed}
        case "$p$f" in
        '' | *[!0-9]*) p=0 f=1 ;;
        esac
}
counts "$plain_out"
plain_p=$p plain_f=$f
counts "$asan_out"
echo "# $BUILD: $plain_p passed, $plain_f failed"
echo "# $asan_build (ASan + UBSan): $p passed, $f failed"
p=$((plain_p + p)) f=$((plain_f + f))
if [ -n "$arm64_out" ]; then
        arm_p=$p arm_f=$f
        counts "$arm64_out"
        echo "# $XPU_ARM64_BUILD (arm64 under ${XPU_ARM64_EXEC:-qemu-aarch64 -L /}): $p passed, $f failed"
        p=$((arm_p + p)) f=$((arm_f + f))
fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
