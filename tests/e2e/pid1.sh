#!/bin/sh
# xpuinit as PID 1 of a new pid namespace (docs/supervision.md): exit statuses, zombie reaping,
# signals sent from outside the namespace, grace period, group mode, job control in an orphaned
# group, termination signals during set-up (while probing, while a vendor library hangs), what
# the workload leaves behind (as PID 1 and not), --exec, and parent death outside a namespace.
# Prints TAP. Needs root and unshare(1): fails (never skips) without.
#   XPU_BUILD=build-dir sh tests/e2e/pid1.sh      (set by tests/run-tests.sh)
#   XPU_PID1_BIN=/path/to/binary                  (test another binary with xpuinit's CLI)
# Single quotes around $ are on purpose throughout: the workload's shell expands them.
# shellcheck disable=SC2016
set -u
XPUINIT=${XPU_PID1_BIN:-${XPU_BUILD:-build}/xpuinit}
XPUINIT=$(realpath "$XPUINIT" 2>/dev/null || echo "$XPUINIT")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
# check DESCRIPTION WANTED ACTUAL [diagnostic lines...]
check() {
        d=$1 want=$2 got=$3
        shift 3
        if [ "$want" = "$got" ]; then ok "$d"; else not_ok "$d" "wanted: $want" "got:    $got" "$@"; fi
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# in_ns ARGS... : run xpuinit ARGS as PID 1 of a new pid namespace (own /proc)
in_ns() { unshare --pid --fork --mount-proc "$XPUINIT" "$@"; }
# wait_file FILE: up to 5 s for FILE to exist
wait_file() {
        i=0
        while [ ! -e "$1" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
        [ -e "$1" ]
}

if [ ! -x "$XPUINIT" ]; then
        echo "not ok 1 - $XPUINIT is not built"
        echo "1..1"
        exit 1
fi
if ! unshare --pid --fork --mount-proc true 2>"$T/err"; then
        echo "not ok 1 - unshare --pid --fork --mount-proc works (needs root and util-linux)"
        sed 's/^/# /' "$T/err"
        echo "1..1"
        exit 1
fi

# ---- PID 1 and exit statuses -----------------------------------------------------------------
# (argv[0] from /proc/1/cmdline: /proc/1/exe needs ptrace access, which the non-dumpable
# supervisor denies its workload, docs/privileges.md)
got=$(in_ns -- sh -c 'tr "\000" "\n" </proc/1/cmdline | head -n 1; echo $$' 2>&1 | tr '\n' ' ')
check "xpuinit is PID 1 and the workload its child (pid 2)" "$XPUINIT 2 " "$got"

for c in "exit 0:0" "exit 3:3" "exit 255:255" 'kill -KILL $$:137' 'kill -TERM $$:143' 'kill -USR1 $$:138'; do
        in_ns -- sh -c "${c%:*}" 2>"$T/err"
        check "exit status of '${c%:*}' as PID 1" "${c##*:}" "$?" "$(cat "$T/err")"
done

in_ns -- xpu-no-such-command 2>"$T/err"
check "missing command: 127" 127 "$?"
if grep -q 'error: cannot run "xpu-no-such-command": not found in PATH (.*); check the command name' "$T/err"; then
        ok "missing command: one error line naming the command and PATH"
else
        not_ok "missing command: one error line naming the command and PATH" "$(cat "$T/err")"
fi
printf 'exit 0\n' >"$T/noexec.sh"
in_ns -- "$T/noexec.sh" 2>"$T/err"
check "file without x bit: 126" 126 "$?" "$(cat "$T/err")"
in_ns -- "$T" 2>"$T/err"
check "directory: 126" 126 "$?" "$(cat "$T/err")"

# ---- zombies ---------------------------------------------------------------------------------
# Orphans (grandchildren whose parent exited) are reparented to PID 1, exit, and must be reaped:
# a zombie keeps its /proc entry, so an orphan that is gone was reaped.
cat >"$T/zombie.sh" <<'EOF'
T=$1
for i in 1 2 3 4 5 6 7 8; do
        sh -c 'sleep 0.1 & echo $! >> "$1"' sh "$T/orphans"
done
sleep 1
[ "$(wc -l < "$T/orphans")" -eq 8 ] || { echo "orphans: $(cat "$T/orphans")"; exit 10; }
for o in $(cat "$T/orphans"); do
        [ -e /proc/$o ] && { echo "orphan $o not reaped: $(cat /proc/$o/stat)"; exit 11; }
done
z=$(ps -eo stat=,pid=,args= | awk '$1 ~ /^Z/')
[ -z "$z" ] || { echo "zombies: $z"; exit 12; }
exit 0
EOF
out=$(in_ns -- sh "$T/zombie.sh" "$T" 2>&1)
check "PID 1 reaps 8 orphaned grandchildren; ps shows no <defunct>" 0 "$?" "$out"

# ---- signals from outside the namespace ------------------------------------------------------
# The workload traps SIG, says it is ready, and exits CODE when the signal arrives (else 1 after
# 5 s). The signal goes to xpuinit's pid as seen from outside (the child of unshare).
cat >"$T/trap.sh" <<'EOF'
trap 'kill $! 2>/dev/null; exit '"$2" "$1"
: >"$3"
sleep 5 & wait
exit 1
EOF
# send_outside XPUINIT_ARGS... : starts in_ns in the background, waits for $T/ready, sends
# $SIG to xpuinit, prints the status and the time taken in ms.
send_outside() {
        rm -f "$T/ready"
        unshare --pid --fork --mount-proc "$XPUINIT" "$@" 2>"$T/err" & # not in_ns: $! = unshare
        upid=$!
        if wait_file "$T/ready"; then
                xpid=$(ps -o pid= --ppid "$upid" | tr -d ' ')
                t0=$(now_ms)
                kill -"$SIG" "$xpid"
        else
                t0=$(now_ms)
        fi
        wait "$upid"
        rc=$?
        echo "$rc $(($(now_ms) - t0))"
}
code=100
for SIG in TERM INT HUP USR1 USR2 QUIT WINCH CONT TSTP; do
        code=$((code + 1))
        r=$(send_outside -- sh "$T/trap.sh" "$SIG" "$code" "$T/ready")
        check "SIG$SIG sent to PID 1 from outside reaches the workload" "$code" "${r% *}" "$(cat "$T/err")"
done

# Grace: the workload ignores TERM; xpuinit SIGKILLs it 1 s later.
cat >"$T/ignore.sh" <<'EOF'
trap '' TERM
: >"$1"
exec sleep 10
EOF
SIG=TERM
r=$(send_outside --grace 1 -- sh "$T/ignore.sh" "$T/ready")
check "SIGTERM ignored by the workload: SIGKILL after --grace 1 (128+9)" 137 "${r% *}" "$(cat "$T/err")"
ms=${r#* }
if [ "$ms" -ge 900 ] && [ "$ms" -lt 5000 ]; then ok "grace period took about 1 s ($ms ms)"; else not_ok "grace period took about 1 s" "took $ms ms"; fi

# Group mode: the main process ignores USR1 and waits for a subshell that exits 7 on USR1.
cat >"$T/group.sh" <<'EOF'
trap '' USR1
( trap 'exit 7' USR1; : >"$1"; sleep 3 & wait; exit 1 ) &
wait $!
EOF
SIG=USR1
r=$(send_outside -g -- sh "$T/group.sh" "$T/ready")
check "-g: a signal to PID 1 reaches the workload's whole process group" 7 "${r% *}" "$(cat "$T/err")"
r=$(send_outside -- sh "$T/group.sh" "$T/ready")
check "without -g only the main process gets it" 1 "${r% *}" "$(cat "$T/err")"

# ---- job control in an orphaned process group ------------------------------------------------
# setsid: the group of unshare, xpuinit and the workload is orphaned (its leader's parent is in
# another session), as a container's is; the kernel discards a plain forwarded SIGTSTP there.
cat >"$T/jobs.sh" <<'EOF'
: >"$1"
i=0
while [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
exit 9
EOF
# state PID: field 3 of /proc/PID/stat ("T" = stopped)
state() { sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null; }
# wait_state PID STATE|!STATE: up to 2 s for PID to be (or, with !, to leave) STATE
wait_state() {
        i=0
        while [ $i -lt 200 ]; do
                s=$(state "$1")
                case $2 in
                !*) [ "$s" != "${2#!}" ] && break ;;
                *) [ "$s" = "$2" ] && break ;;
                esac
                sleep 0.01
                i=$((i + 1))
        done
        state "$1"
}
for SIG in TSTP TTIN TTOU; do
        rm -f "$T/ready"
        setsid unshare --pid --fork --mount-proc "$XPUINIT" -- sh "$T/jobs.sh" "$T/ready" 2>"$T/err" &
        upid=$!
        if wait_file "$T/ready"; then
                xpid=$(ps -o pid= --ppid "$upid" | tr -d ' ')
                wpid=$(ps -o pid= --ppid "$xpid" | tr -d ' ')
                kill -"$SIG" "$xpid"
                check "SIG$SIG to PID 1 stops the workload of an orphaned group (state T)" T "$(wait_state "$wpid" T)"
                sleep 0.3
                kill -CONT "$xpid"
                st=$(wait_state "$wpid" '!T')
                check "SIGCONT resumes it" yes "$([ "$st" != T ] && echo yes)" "state $st"
        else
                not_ok "SIG$SIG to PID 1 stops the workload of an orphaned group" "workload did not start" "$(cat "$T/err")"
                not_ok "SIGCONT resumes it"
        fi
        wait "$upid"
        check "its exit status is unchanged after SIG$SIG and SIGCONT" 9 "$?" "$(cat "$T/err")"
done

# ---- termination signals during set-up -------------------------------------------------------
# While xpuinit probes: its stderr is a pipe that is already full, so its first log line blocks
# it there; SIGTERM comes meanwhile, then the pipe is drained. As PID 1 a signal at its default
# disposition would be dropped: blocked from main's first line, it ends the start with 143.
rm -f "$T/ran" "$T/fifo"
mkfifo "$T/fifo"
exec 3<>"$T/fifo"
head -c 65536 /dev/zero >&3 # a pipe holds 64 KiB: full
unshare --pid --fork --mount-proc "$XPUINIT" --log-level debug -- sh -c ': >"$1"' sh "$T/ran" 2>&3 &
upid=$!
xpid=
i=0
while [ -z "$xpid" ] && [ $i -lt 500 ]; do
        xpid=$(ps -o pid= --ppid "$upid" | tr -d ' ')
        sleep 0.01
        i=$((i + 1))
done
blocked=no
i=0
while [ -n "$xpid" ] && [ $i -lt 500 ]; do
        case $(cat "/proc/$xpid/wchan" 2>/dev/null) in
        *pipe_write*)
                blocked=yes
                break
                ;;
        *) ;;
        esac
        sleep 0.01
        i=$((i + 1))
done
check "PID 1 is blocked writing its first log line while probing" yes "$blocked"
[ -n "$xpid" ] && kill -TERM "$xpid"
sleep 0.2
# A reader of its own (not fd 3, which also writes) sees EOF once xpuinit
# and unshare have exited, so it has read every line they wrote.
timeout 20 cat "$T/fifo" >"$T/setup.log" &
catpid=$!
exec 3>&-
wait "$upid"
rc=$?
wait "$catpid"
tr -d '\000' <"$T/setup.log" >"$T/setup.txt"
check "SIGTERM while PID 1 probes: exit 143" 143 "$rc" "$(tail -n 5 "$T/setup.txt")"
check "... and the workload never ran" no "$([ -e "$T/ran" ] && echo yes || echo no)"
if grep -q 'SIGTERM arrived before the workload started: not starting it' "$T/setup.txt"; then
        ok "... and xpuinit says why"
else
        not_ok "... and xpuinit says why" "$(tail -n 5 "$T/setup.txt")"
fi

# While a vendor library hangs: a CUDA image's NVIDIA_REQUIRE_CUDA makes xpuinit ask NVML, whose
# fake here never returns from nvmlInit_v2. SIGTERM must end the start at once, not after
# --vendor-timeout, and kill the helper.
fx="$XPU_SRCDIR/tests/fixtures/hosts/nvidia-rtx2080ti-x8"
chmod 755 "$T" # the helper runs as nobody and must reach the driver root
if sh "$XPU_SRCDIR/tests/fixtures/mkdriverroot.sh" "$fx" "$T/host" "$XPU_BUILD" >"$T/err" 2>&1; then
        sed -i '1i hang.nvmlInit_v2 1\nhang.cuInit 1' "$T/host/xpu-fake-state"
        rm -f "$T/ran"
        NVIDIA_REQUIRE_CUDA="cuda>=11.0" unshare --pid --fork --mount-proc "$XPUINIT" --vendor-timeout 10 \
                --sys-root "$T/host" --driver-root "$T/host" -- sh -c ': >"$1"' sh "$T/ran" 2>"$T/err" &
        upid=$!
        xpid=
        hpid=
        i=0
        while [ -z "$hpid" ] && [ $i -lt 500 ]; do
                [ -n "$xpid" ] || xpid=$(ps -o pid= --ppid "$upid" | tr -d ' ')
                [ -n "$xpid" ] && hpid=$(ps -o pid= --ppid "$xpid" | tr -d ' ')
                sleep 0.01
                i=$((i + 1))
        done
        check "the NVML helper runs (a child of xpuinit)" yes "$([ -n "$hpid" ] && echo yes)" "$(cat "$T/err")"
        sleep 0.3
        t0=$(now_ms)
        [ -n "$xpid" ] && kill -TERM "$xpid"
        wait "$upid"
        rc=$?
        ms=$(($(now_ms) - t0))
        check "SIGTERM while the NVML helper hangs, as PID 1: exit 143" 143 "$rc" "$(cat "$T/err")"
        if [ "$ms" -lt 3000 ]; then ok "... at once ($ms ms; --vendor-timeout 10)"; else not_ok "... at once" "took $ms ms"; fi
        check "... the helper is gone" no "$([ -n "$hpid" ] && [ -e "/proc/$hpid" ] && echo yes || echo no)"
        check "... and the workload never ran" no "$([ -e "$T/ran" ] && echo yes || echo no)"
else
        not_ok "a driver root with the fake NVML (tests/fixtures/mkdriverroot.sh; make build-tests)" "$(cat "$T/err")"
fi

# ---- what the workload leaves behind ---------------------------------------------------------
# As PID 1 the kernel kills the namespace when xpuinit exits; the leftovers get SIGTERM first.
cat >"$T/left.sh" <<'EOF'
trap 'echo term >"$1"; exit 0' TERM
: >"$2"
while :; do sleep 0.1; done
EOF
rm -f "$T/left" "$T/ready"
in_ns -- sh -c 'sh "$1" "$2" "$3" & while [ ! -e "$3" ]; do sleep 0.01; done; exit 5' \
        sh "$T/left.sh" "$T/left" "$T/ready" 2>"$T/err"
check "PID 1: the workload's exit status (5) with a child left behind" 5 "$?" "$(cat "$T/err")"
check "... and that child got SIGTERM before the namespace ended" term "$(cat "$T/left" 2>/dev/null)"

# Not PID 1: a background job in the workload's group, one that left the group with setsid()
# from a subshell (an orphan the subreaper got back), and one whose parent ends only with the
# SIGTERM: nothing may be running 1 s after xpuinit exits.
cat >"$T/leave.sh" <<'EOF'
sleep 1000 &
echo $! >>"$1"
(setsid sleep 1000 & echo $! >>"$1")
sh -c 'sleep 1000 & echo $! >>"$1"; wait' sh "$1" &
echo $! >>"$1"
sleep 0.3
exit 6
EOF
rm -f "$T/pids"
"$XPUINIT" -- sh "$T/leave.sh" "$T/pids" 2>"$T/err"
check "not PID 1: the workload's exit status (6) with processes left behind" 6 "$?" "$(cat "$T/err")"
sleep 1
alive=
while read -r p; do
        if kill -0 "$p" 2>/dev/null; then
                alive="$alive $p"
                kill -KILL "$p"
        fi
done <"$T/pids"
check "... 4 processes were left behind" 4 "$(wc -l <"$T/pids" | tr -d ' ')"
check "... and none of them runs 1 s after xpuinit exited" "" "$alive"

cat >"$T/stubborn.sh" <<'EOF'
trap '' TERM
echo $$ >>"$1"
while :; do sleep 0.1; done
EOF
rm -f "$T/pids"
t0=$(now_ms)
"$XPUINIT" --grace 1 -- sh -c 'sh "$1" "$2" & sleep 0.3; exit 0' sh "$T/stubborn.sh" "$T/pids" 2>"$T/err"
rc=$?
ms=$(($(now_ms) - t0))
p=$(cat "$T/pids" 2>/dev/null)
check "not PID 1: a leftover that ignores SIGTERM, exit status 0" 0 "$rc" "$(cat "$T/err")"
if [ "$ms" -ge 1200 ] && [ "$ms" -lt 5000 ]; then
        ok "... SIGKILLed after --grace 1 ($ms ms)"
else
        not_ok "... SIGKILLed after --grace 1" "took $ms ms"
fi
if [ -z "$p" ]; then
        not_ok "... and gone when xpuinit exits" "it never wrote its pid"
elif kill -0 "$p" 2>/dev/null; then
        kill -KILL "$p"
        not_ok "... and gone when xpuinit exits" "pid $p alive"
else
        ok "... and gone when xpuinit exits"
fi

# ---- a reused process group number is not signalled (not PID 1, -g) ---------------------------
# The workload leads its group, leaves a TERM-ignoring setsid orphan and exits: its group is empty
# at once. An unrelated process then gets the group's number (ns_last_pid steers the next pid);
# the SIGKILL at the end of the grace period goes to the orphan, not to that group.
cat >"$T/reuse.sh" <<'EOF2'
echo 999 >/proc/sys/kernel/ns_last_pid
"$1" -g --grace 2 -- sh -c 'echo $$ >"$1"; setsid sh -c "trap \"\" TERM; exec sleep 20" </dev/null >/dev/null 2>&1 &
        sleep 0.2; exit 0' sh "$2/main" 2>"$2/reuse.err" &
x=$!
i=0
while [ ! -s "$2/main" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
sleep 0.5
m=$(cat "$2/main")
echo $((m - 1)) >/proc/sys/kernel/ns_last_pid
setsid sleep 60 &
v=$!
wait "$x"
echo "xpuinit=$? other=$v main=$m"
if kill -0 "$v" 2>/dev/null; then echo "other alive"; kill "$v"; else echo "other killed"; fi
EOF2
reuse_out=$(unshare --pid --fork --mount-proc sh "$T/reuse.sh" "$XPUINIT" "$T" 2>&1)
case "$reuse_out" in
*"other=$(echo "$reuse_out" | sed -n 's/.*main=\([0-9]*\).*/\1/p') "*) reused=yes ;;
*) reused=no ;;
esac
check "the unrelated process got the workload's old group number (pid reuse set up)" yes "$reused" "$reuse_out"
case "$reuse_out" in
*"other alive"*) ok "a process group that reuses the workload's number is not signalled" ;;
*) not_ok "a process group that reuses the workload's number is not signalled" "$reuse_out" "$(cat "$T/reuse.err" 2>/dev/null)" ;;
esac
case "$reuse_out" in
*"xpuinit=0 "*) ok "... and xpuinit exits 0 after killing the orphan" ;;
*) not_ok "... and xpuinit exits 0 after killing the orphan" "$reuse_out" ;;
esac

# ---- --exec ----------------------------------------------------------------------------------
got=$(in_ns --exec -- sh -c 'echo $$; exit 5' 2>&1)
check "--exec: the workload replaces xpuinit as PID 1, status passed through" "1 5" "$got $?"

# ---- parent death (not PID 1) ----------------------------------------------------------------
"$XPUINIT" -- sh -c 'echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 30' sh "$T/wpid" 2>"$T/err" &
xpid=$!
if wait_file "$T/wpid"; then
        w=$(cat "$T/wpid")
        kill -KILL "$xpid"
        wait "$xpid" 2>/dev/null
        i=0
        while kill -0 "$w" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.01; i=$((i + 1)); done
        if kill -0 "$w" 2>/dev/null; then
                not_ok "SIGKILL of xpuinit kills the workload (PDEATHSIG)" "workload $w still alive"
                kill -KILL "$w"
        else
                ok "SIGKILL of xpuinit kills the workload (PDEATHSIG)"
        fi
else
        not_ok "SIGKILL of xpuinit kills the workload (PDEATHSIG)" "workload did not start" "$(cat "$T/err")"
        kill -KILL "$xpid"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
