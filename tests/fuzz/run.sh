#!/bin/sh
# Run libFuzzer targets for a while each and report executions and crashes (make fuzz).
#   tests/fuzz/run.sh FUZZ_BUILD SECONDS TARGET...
# FUZZ_BUILD/fuzz-TARGET must be built (make fuzz-build). Each target starts from its seed corpus
# tests/fuzz/corpus/TARGET/ (read only); inputs it finds go to FUZZ_BUILD/corpus/TARGET/ (kept
# between runs, never in git), crashing inputs to FUZZ_BUILD/crashes/TARGET/, the log to
# FUZZ_BUILD/logs/TARGET.log. Exits 1 when any target crashed, leaked, timed out or failed to run.
set -u
build=$1
seconds=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

failed=0
total=0
for t in "$@"; do
        bin=$build/fuzz-$t
        scratch=$build/corpus/$t
        crashes=$build/crashes/$t
        log=$build/logs/$t.log
        mkdir -p "$scratch" "$crashes" "$build/logs"
        if [ ! -x "$bin" ]; then
                echo "fuzz-$t: $bin missing (make fuzz-build)"
                failed=1
                continue
        fi
        before=$(find "$crashes" -type f | wc -l)
        stamp=$build/logs/$t.start
        touch "$stamp"
        echo "fuzz-$t: running for ${seconds}s (log $log)"
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
                "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
                -artifact_prefix="$crashes/" "$scratch" "tests/fuzz/corpus/$t" >"$log" 2>&1
        rc=$?
        # Executions: the final stats line, else the last status line ("#12345 ...").
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
        [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9][0-9]*\)[[:space:]].*/\1/p' "$log" | tail -n 1)
        [ -n "$execs" ] || execs=0
        total=$((total + execs))
        corpus=$(find "$scratch" -type f | wc -l)
        after=$(find "$crashes" -type f | wc -l)
        if [ "$rc" -eq 0 ] && [ "$after" -eq "$before" ]; then
                echo "fuzz-$t: $execs executions, no crash ($corpus inputs in $scratch)"
                continue
        fi
        failed=1
        echo "fuzz-$t: FAILED after $execs executions (exit status $rc); from $log:"
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|    #[0-9] )' "$log" | head -n 20 | sed 's/^/    /'
        find "$crashes" -type f -newer "$stamp" | while read -r f; do
                echo "    reproducer: $f (replay: build/tests/test-fuzz-$t $f)"
        done
done
echo "fuzz: $total executions in all; $([ "$failed" -eq 0 ] && echo "no crash" || echo "FAILURES above")"
exit "$failed"
