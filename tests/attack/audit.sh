#!/bin/sh
# The audit's attack suite (docs/audit.md, "Limits"): files an image can hold to stall
# `xpuinit audit` or the start-time device-code check, each of which took minutes to hours before
# the reader had a work budget, built by mkhostile.py in a scratch directory:
#   - a .hip_fatbin of 500 version-1 CCOBs, each inflating to a 2 MiB bundle table;
#   - 65,276 section headers naming one .nv_fatbin region;
#   - a device-code index of 700,000 empty "gfx" names, one of 80,000 small objects,
#     and one whose list is longer than the audit writes;
#   - a FIFO with a blocked writer given as the root, and found by a walk on a filesystem that
#     reports no file types (DT_UNKNOWN, preloaded): it must never be opened.
# Each must end with the object marked malformed (naming the bound) or the index refused (naming
# why), well inside the generous timeout here: this suite proves the work is bounded; how long
# it takes is measured by `make bench`. Elapsed times are printed as comments. Prints TAP.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init
need_tools jq mkfifo timeout /usr/bin/python3

x=$XPU_BUILD/xpuinit
t=$E2E_TMP
dtu=$XPU_BUILD/tests/attack/dt-unknown.so
[ -f "$dtu" ] || bail "$dtu is missing (make build-tests)"
/usr/bin/python3 "$XPU_SRCDIR/tests/attack/mkhostile.py" "$t" || bail "mkhostile.py failed"

# timed OUT CMD...: CMD (at most 60 s) with stdout in OUT and stderr in OUT.err; RC its status,
# and a comment with the seconds it took.
timed() {
        out=$1
        shift
        s=$(date +%s%N)
        timeout -k 5 60 "$@" >"$out" 2>"$out.err"
        RC=$?
        e=$(date +%s%N)
        diag "$(basename "$out"): $(((e - s) / 1000000)) ms"
}

# ---- compressed code objects: a budget of decompressions and unpacked bytes ---------------------
timed "$t/flood.json" "$x" audit --json --for gfx90a "$t/ccob-flood.so"
is "$RC" 0 "CCOB flood: the audit finishes"
is "$(jq -r '.objects[0].malformed | test("^\\.hip_fatbin: reading it would take more than one object.s work budget \\(.*64 MiB of bundle entry IDs\\): not read further")' \
        "$t/flood.json")" "true" "CCOB flood: the object is malformed, naming the budget"
is "$(jq -r '.targets[0].verdict' "$t/flood.json")" "cannot-run" "CCOB flood: unreadable AMD code cannot be said to run"
timed "$t/flood.txt" "$x" audit --for gfx90a --fail-on cannot-run "$t/ccob-flood.so"
is "$RC" 1 "CCOB flood: --fail-on cannot-run fails"

# ---- overlapping sections: each byte range read once --------------------------------------------
timed "$t/overlap.json" "$x" audit --json --for sm_80 "$t/overlap.so"
is "$RC" 0 "overlapping sections: the audit finishes"
is "$(jq -r '.objects[0].malformed' "$t/overlap.json")" \
        "sections .nv_fatbin and .nv_fatbin overlap in the file: each byte is read once, for the first" \
        "overlapping sections: malformed, naming them"
is "$(jq -r '.objects[0].nvidia.sass | join(",")' "$t/overlap.json")" "sm_80" \
        "overlapping sections: the region is still read (once)"

# ---- the start-time index -----------------------------------------------------------------------
e2e_fixture amd-mi210x8
amd=$E2E_FIXTURE
e2e_dev_root "$amd" "$t/devroot"
# start INDEX NAME: a start on the AMD fixture host with INDEX as the device-code index.
start() {
        timed "$t/$2" env XPUINIT_DEVICE_CODE_INDEX="$1" "$x" --sys-root "$amd" --dev-root "$t/devroot" \
                --driver-root "$amd" --inject none -- /bin/true
}
start "$t/index-gfx.json" start-gfx
is "$RC" 125 "index of 700,000 names: the start is refused"
like "$t/start-gfx.err" 'index-gfx.json: more than 131072 JSON values, more than an index of any real image holds; it is not read; write it again with `xpuinit audit --write-index' \
        "index of 700,000 names: the error names the index, the bound and the fix"
start "$t/many-values.json" start-many
is "$RC" 125 "index of 80,000 small objects: refused"
like "$t/start-many.err" 'many-values.json: more than 131072 JSON values' "index of 80,000 small objects: the bound named"
start "$t/index-300.json" start-300
is "$RC" 125 "index with a 300-name list: refused"
like "$t/start-300.err" 'object "usr/lib/libx.so": "gfx" holds more than 256 names, more than the audit writes' \
        "index with a 300-name list: the object and the field named"
head -c $((2 * 1048576 + 1)) /dev/zero >"$t/index-big.json"
start "$t/index-big.json" start-big
is "$RC" 125 "index over 2 MiB: refused unread"
like "$t/start-big.err" 'index-big.json is not a regular file of at most 2 MiB' "index over 2 MiB: the size named"

# ---- a FIFO is never opened ---------------------------------------------------------------------
# writer FIFO MARK: a writer blocked opening FIFO, which writes MARK once something opens the FIFO
# for reading (the open of a FIFO, even O_NONBLOCK, wakes it). WRITER is its pid.
writer() {
        (exec 3>"$1" && echo woken >"$2") &
        WRITER=$!
        sleep 0.2
}
# stop_writer: end the writer whatever it waits on.
stop_writer() {
        kill "$WRITER" 2>/dev/null
        wait "$WRITER" 2>/dev/null
}
mkfifo "$t/fifo" || bail "mkfifo"
writer "$t/fifo" "$t/woken-root"
timed "$t/fifo-root.txt" "$x" audit "$t/fifo"
is "$RC" 2 "a FIFO as the root: refused as neither a directory nor a regular file"
if [ -e "$t/woken-root" ]; then not_ok "a FIFO as the root: never opened (its writer still waits)"; else
        ok "a FIFO as the root: never opened (its writer still waits)"
fi
stop_writer

mkdir -p "$t/unknown/usr/lib" || bail "mkdir"
cp "$XPU_SRCDIR/tests/fixtures/devcode/nvidia/libkernel.so" "$t/unknown/usr/lib/" || bail "cp"
mkfifo "$t/unknown/usr/lib/libfifo.so" || bail "mkfifo"
writer "$t/unknown/usr/lib/libfifo.so" "$t/woken-walk"
# An ASan build needs its runtime first in the list of libraries; the preload comes before it.
timed "$t/unknown.json" env LD_PRELOAD="$dtu" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
        "$x" audit --json --for sm_75 "$t/unknown"
is "$RC" 0 "DT_UNKNOWN walk: the audit finishes"
if [ -e "$t/woken-walk" ]; then not_ok "DT_UNKNOWN walk: the FIFO is never opened"; else
        ok "DT_UNKNOWN walk: the FIFO is never opened"
fi
is "$(jq -r '[.objects[].path] | join(" ")' "$t/unknown.json")" "usr/lib/libkernel.so" \
        "DT_UNKNOWN walk: the library is read, the FIFO is not an object"
is "$(jq -r '.summary.walk.special' "$t/unknown.json")" "1" "DT_UNKNOWN walk: the FIFO counted as special"
stop_writer

e2e_done
