#!/bin/sh
# A Jetson's CSV host lists under load, xpuinit run as a program outside any container on a copy
# of the jetson-orin fixture: 4096 lines of one glob over a directory of 60000 files (read once:
# one note, well under a second), 4096 distinct globs there (stopped at the budget, exit 125,
# naming the line), 8000 listed files with NVIDIA_REQUIRE_JETPACK=csv-mounts=all (planned in bounded
# memory), globs over a directory past the entry limit (one note), and, in the plain build, the same under `ulimit -v` (the error names the lists and the
# fix; ASan's shadow memory needs an unlimited address space). Needs root (mknod for the dev root).
# Prints TAP.

# shellcheck source=tests/e2e/lib.sh
. "${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"

XPUINIT="${XPU_BUILD:-}/xpuinit"
[ "$(id -u)" -eq 0 ] || bail "jetson-lists needs root (device nodes for the dev root)"
need_tools seq xargs
[ -x "$XPUINIT" ] || bail "$XPUINIT is missing (make)"
T=$(mktemp -d) || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT
fx="$XPU_SRCDIR/tests/fixtures/hosts/jetson-orin"
drv="$T/driver"
if ! mkdir -p "$drv" || ! cp -a "$fx/." "$drv/"; then
        bail "cannot copy $fx"
fi
e2e_dev_root "$fx" "$T/devroot"
if ! mkdir -p "$drv/usr/lib/big" || ! (cd "$drv/usr/lib/big" && seq 1 60000 | sed 's/^/f/' | xargs touch); then
        bail "cannot make $drv/usr/lib/big"
fi
lists="$drv/etc/nvidia-container-runtime/host-files-for-container.d"

# plan OUT [ENV...]: xpuinit plan on the copy, its stderr into OUT.err; sets RC.
plan() {
        out=$1
        shift
        # shellcheck disable=SC2086 # XPU_TEST_EXEC is a command with its arguments
        env NVIDIA_VISIBLE_DEVICES=all "$@" timeout -k 5 60 ${XPU_TEST_EXEC:-} "$XPUINIT" plan --sys-root "$drv" \
                --dev-root "$T/devroot" --driver-root "$drv" -- /bin/true >"$out" 2>"$out.err"
        RC=$?
}

seq 1 4096 | sed 's|.*|lib, /usr/lib/big/zz*|' >"$lists/l4t.csv"
plan "$T/same"
# (the directory read once, not per line: read per line this took 2 minutes, past plan's 60 s guard;
# the time itself is for make bench, not for a test)
is "$RC" 0 "4096 repeated glob lines: planned"
is "$(grep -c 'name the same files' "$T/same")" 1 "one note for the repeated lines"
like "$T/same" "note: 4095 more line\(s\) of l4t.csv name the same files as an earlier line; each is read once" \
        "the note counts them"

seq 1 4096 | sed 's|.*|lib, /usr/lib/big/zz&*|' >"$lists/l4t.csv"
plan "$T/distinct"
is "$RC" 125 "4096 distinct glob lines over 60000 files: refused"
like "$T/distinct.err" "error: .*/l4t\.csv:17: the lines up to this one visit more than 1048576 directory entries" \
        "the error names the line and the bound"

seq 1 4000 | sed 's|.*|lib, /usr/lib/big/f&|' >"$lists/l4t.csv"
seq 4001 8000 | sed 's|.*|lib, /usr/lib/big/f&|' >"$lists/extra.csv"
plan "$T/many" NVIDIA_REQUIRE_JETPACK=csv-mounts=all
is "$RC" 0 "8000 listed files: planned"
like "$T/many" "the host lists what its containers get .*: [0-9]+ device node\(s\) and 8014 file\(s\) of it found" \
        "every listed file found"
is "$(grep -c '^  mkdir /usr/lib/big$' "$T/many")" 1 "one mkdir for the files' directory"
if [ -n "${ASAN_OPTIONS:-}" ]; then
        echo "# out of memory under ulimit -v: checked by the plain pass only (ASan reserves terabytes of address space)"
else
        # shellcheck disable=SC3045 # dash, busybox sh and bash all have ulimit -v
        (ulimit -v 12000 && plan "$T/small" NVIDIA_REQUIRE_JETPACK=csv-mounts=all && echo "$RC" >"$T/small.rc")
        is "$(cat "$T/small.rc")" 125 "ulimit -v 12000: refused"
        like "$T/small.err" "error: .*(host lists|host-files-for-container\.d).*out of memory.*give xpuinit more memory \(ulimit -v\) or shorten the lists" \
                "the out-of-memory error names the lists and the fix"
fi

# A directory over the entry limit: one note for it, not one per line naming it.
rm -f "$lists/extra.csv"
(cd "$drv/usr/lib/big" && seq 60001 65535 | sed 's/^/f/' | xargs touch) || bail "cannot grow $drv/usr/lib/big"
printf 'lib, /usr/lib/big/a*\nlib, /usr/lib/big/b*\nlib, /usr/lib/big/c*\n' >"$lists/l4t.csv"
plan "$T/huge"
is "$RC" 0 "globs over a directory of more than 65536 entries: planned without it"
is "$(grep -c 'skipped /usr/lib/big' "$T/huge")" 1 "one note for the directory, whatever the lines naming it"
like "$T/huge" "note: skipped /usr/lib/big \(l4t\.csv:1\): more than 65536 entries; none placed" \
        "the note names the first line and the bound"
e2e_done
