#!/bin/sh
# End to end, no GPU (docs/privileges.md): xpuinit is PID 1 of a runc container with
# Docker's default capabilities; for each profile setting (no keep_capabilities; []; a list with
# a capability the container lacks, then has; seccomp default, strict, a JSON list file; --user
# and XPUINIT_USER) the workload, busybox sh, prints its /proc/self/status lines and tries a call
# the setting denies (unshare of a user namespace, mount); the values are compared exactly.
. "$(dirname "$0")/lib.sh"
e2e_init

mkdir -p "$E2E_TMP/empty"

# Docker's default set (E2E_DEFAULT_CAPS) as /proc shows it, and without CAP_SETPCAP.
DOCKER=00000000a80425fb
ROOT_DEFAULT=00000000a80424fb
NONE=0000000000000000

# The workload: its status lines as key=value facts, then the denied calls' outcomes.
# One line: e2e_args passes each argument as one line of text.
STATUS_SCRIPT='grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp|Seccomp_filters|Uid|Gid|Groups):" /proc/self/status | sed -e "s/:[[:space:]]*/=/" -e "s/[[:space:]]*$//" -e "s/[[:space:]]\{1,\}/ /g"; unshare -U true 2>/dev/null; echo "unshare=$?"; unshare -U true 2>&1 | grep -q "Operation not permitted" && echo "unshare.eperm=yes"; mkdir -p /tmp/m && mount -t tmpfs none /tmp/m 2>/dev/null; echo "mount=$?"; sed -n -e "s/^CapEff:[[:space:]]*/pid1.CapEff=/p" -e "s/^CapBnd:[[:space:]]*/pid1.CapBnd=/p" -e "s/^NoNewPrivs:[[:space:]]*/pid1.NoNewPrivs=/p" -e "s/^Seccomp:[[:space:]]*/pid1.Seccomp=/p" -e "s/^Seccomp_filters:[[:space:]]*/pid1.Seccomp_filters=/p" /proc/1/status; (exec 3<>/proc/1/mem) 2>/dev/null; echo "pid1.mem=$?"'

# priv_bundle NAME PROFILE_JSON|- [XPUINIT OPTION...]: a bundle whose image holds the profile
# "priv" (when not -) in /etc/xpuinit/profiles.d and whose workload is the status script.
priv_bundle() {
        name=$1
        profile=$2
        shift 2
        e2e_bundle "$name"
        for applet in unshare mount mkdir sed; do
                ln -sf busybox "$E2E_BUNDLE/rootfs/bin/$applet"
        done
        mkdir -p "$E2E_BUNDLE/rootfs/etc/xpuinit/profiles.d"
        if [ "$profile" != - ]; then
                printf '%s\n' "$profile" >"$E2E_BUNDLE/rootfs/etc/xpuinit/profiles.d/priv.json"
                set -- --profile priv "$@"
        fi
        e2e_mount_ro "$E2E_BUNDLE" "$E2E_TMP/empty" /xpu/host
        e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/host "$@" \
                -- /bin/sh -c "$STATUS_SCRIPT"
}

# expect NAME CAPINH CAPPRM CAPEFF CAPBND CAPAMB SECCOMP UID: the facts of the last run.
expect() {
        n=$1
        is "$E2E_RC" 0 "$n: the workload ran"
        [ "$E2E_RC" -eq 0 ] || e2e_show
        is "$(e2e_fact CapInh)" "$2" "$n: CapInh"
        is "$(e2e_fact CapPrm)" "$3" "$n: CapPrm"
        is "$(e2e_fact CapEff)" "$4" "$n: CapEff"
        is "$(e2e_fact CapBnd)" "$5" "$n: CapBnd"
        is "$(e2e_fact CapAmb)" "$6" "$n: CapAmb"
        is "$(e2e_fact NoNewPrivs)" 1 "$n: NoNewPrivs"
        is "$(e2e_fact Seccomp)" "$7" "$n: Seccomp (2 = filter)"
        is "$(e2e_fact Uid)" "$8 $8 $8 $8" "$n: uid"
        is "$(e2e_fact mount)" 1 "$n: mount fails (no CAP_SYS_ADMIN)"
}

# expect_denied NAME: unshare of a user namespace failed with EPERM (the filter).
expect_denied() {
        is "$(e2e_fact unshare)" 1 "$1: unshare -U fails"
        is "$(e2e_fact unshare.eperm)" yes "$1: ... with EPERM"
}

profile() { # profile JSON_FRAGMENT: the "priv" profile with these keys
        printf '{ "name": "priv", "description": "e2e", "priority": 0, %s }' "$1"
}

# ---- no keep_capabilities key, built-in cpu profile (seccomp default) ----------------------------
priv_bundle nokey -
e2e_run "$E2E_BUNDLE"
expect nokey "$NONE" "$ROOT_DEFAULT" "$ROOT_DEFAULT" "$ROOT_DEFAULT" "$NONE" 2 0
expect_denied nokey
# the supervising xpuinit (PID 1) keeps CAP_KILL only, and no_new_privs
is "$(e2e_fact pid1.CapEff)" 0000000000000020 "nokey: xpuinit (PID 1) keeps CAP_KILL only"
is "$(e2e_fact pid1.CapBnd)" 0000000000000020 "nokey: ... in its bounding set too"
is "$(e2e_fact pid1.NoNewPrivs)" 1 "nokey: ... with no_new_privs"
# ... and a seccomp filter of its own ("default"): code a workload with CAP_SYS_PTRACE might still
# run in it through /proc/1/mem meets a filter there too
is "$(e2e_fact pid1.Seccomp)" 2 "nokey: ... and the default seccomp filter"
# one filter, loaded once by xpuinit before the start and inherited: the workload has exactly it
is "$(e2e_fact pid1.Seccomp_filters)" 1 "nokey: xpuinit has one filter"
is "$(e2e_fact Seccomp_filters)" 1 "nokey: the workload has one filter, the same (inherited, not stacked)"
# ... and is not dumpable: the root workload, whose capabilities are a superset of CAP_KILL, must
# not open its memory for writing (an unfiltered process to run code in)
is "$(e2e_fact pid1.mem)" 1 "nokey: the workload cannot open xpuinit's /proc/1/mem for writing"

# --exec: the same sequence, xpuinit replaced by the workload (PID 1 is the workload itself)
priv_bundle exec - --exec
e2e_run "$E2E_BUNDLE"
expect exec "$NONE" "$ROOT_DEFAULT" "$ROOT_DEFAULT" "$ROOT_DEFAULT" "$NONE" 2 0
expect_denied exec
is "$(e2e_fact pid1.CapEff)" "$ROOT_DEFAULT" "exec: PID 1 is the workload"
is "$(e2e_fact pid1.Seccomp)" 2 "exec: ... under the workload's filter"
is "$(e2e_fact pid1.mem)" 0 "exec: ... whose own /proc/1/mem opens (the probe of nokey works)"

priv_bundle execuser "$(profile '"keep_capabilities": ["CAP_NET_BIND_SERVICE"]')" --exec --user 1000:1000
e2e_run "$E2E_BUNDLE"
expect execuser 0000000000000400 0000000000000400 0000000000000400 0000000000000400 \
        0000000000000400 2 1000

# ---- keep_capabilities: [] -----------------------------------------------------------------------
priv_bundle keepnone "$(profile '"keep_capabilities": []')"
e2e_run "$E2E_BUNDLE"
expect keepnone "$NONE" "$NONE" "$NONE" "$NONE" "$NONE" 2 0
expect_denied keepnone

# ---- keep_capabilities: ["CAP_NET_ADMIN"], which Docker's default set lacks -----------------------
priv_bundle netadmin-missing "$(profile '"keep_capabilities": ["CAP_NET_ADMIN"]')"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "netadmin-missing: a capability xpuinit does not have gives 125"
like "$E2E_ERR" 'keep_capabilities asks for CAP_NET_ADMIN, which xpuinit does not have' \
        "netadmin-missing: stderr names the capability"
like "$E2E_ERR" 'cap-add' "netadmin-missing: stderr says how to fix it"
unlike "$E2E_OUT" '^CapEff=' "netadmin-missing: the workload never started"

priv_bundle netadmin "$(profile '"keep_capabilities": ["CAP_NET_ADMIN"]')"
e2e_caps_add "$E2E_BUNDLE" CAP_NET_ADMIN
e2e_run "$E2E_BUNDLE"
expect netadmin "$NONE" 0000000000001000 0000000000001000 0000000000001000 "$NONE" 2 0

# ---- seccomp -------------------------------------------------------------------------------------
priv_bundle strict "$(profile '"seccomp": "strict"')"
e2e_run "$E2E_BUNDLE"
expect strict "$NONE" "$ROOT_DEFAULT" "$ROOT_DEFAULT" "$ROOT_DEFAULT" "$NONE" 2 0
expect_denied strict
# another filter than the supervisor's: the workload loads its own, not stacked on "default"
# (which would narrow a list that allows more); xpuinit loads "default" after the start
is "$(e2e_fact Seccomp_filters)" 1 "strict: the workload has its own filter only"
is "$(e2e_fact pid1.Seccomp)" 2 "strict: xpuinit (PID 1) has its default filter"

priv_bundle jsonlist "$(profile '"seccomp": "/etc/xpuinit/seccomp.json"')"
printf '["@strict"]\n' >"$E2E_BUNDLE/rootfs/etc/xpuinit/seccomp.json"
e2e_run "$E2E_BUNDLE"
expect jsonlist "$NONE" "$ROOT_DEFAULT" "$ROOT_DEFAULT" "$ROOT_DEFAULT" "$NONE" 2 0
expect_denied jsonlist

# A list that names no system call xpuinit knows: 125 before the workload, the file named.
priv_bundle jsonbad "$(profile '"seccomp": "/etc/xpuinit/seccomp.json"')"
printf '["no_such_syscall_xyz"]\n' >"$E2E_BUNDLE/rootfs/etc/xpuinit/seccomp.json"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "jsonbad: an unknown system call in the list gives 125"
like "$E2E_ERR" 'seccomp.json' "jsonbad: stderr names the file"
unlike "$E2E_OUT" '^CapEff=' "jsonbad: the workload never started"

# A list that does not allow execve: refused before the workload (the exec would fail), the fix named.
priv_bundle jsonnoexec "$(profile '"seccomp": "/etc/xpuinit/seccomp.json"')"
printf '["@basic-io", "@memory"]\n' >"$E2E_BUNDLE/rootfs/etc/xpuinit/seccomp.json"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "jsonnoexec: a list without execve gives 125"
like "$E2E_ERR" 'seccomp list /etc/xpuinit/seccomp.json: does not allow execve.*add "execve" or "@process"' \
        "jsonnoexec: stderr names the file and the fix"
unlike "$E2E_OUT" '^CapEff=' "jsonnoexec: the workload never started"

# list_exec_case NAME MODE LIST: the image's seccomp list is LIST and the command does not
# exist; MODE is supervise or exec (--exec). Runs it (E2E_RC, E2E_ERR).
list_exec_case() {
        priv_bundle "$1-$2" "$(profile '"seccomp": "/etc/xpuinit/seccomp.json"')"
        printf '%s\n' "$3" >"$E2E_BUNDLE/rootfs/etc/xpuinit/seccomp.json"
        flag=
        [ "$2" = exec ] && flag=--exec
        # shellcheck disable=SC2086 # $flag is one word or none
        e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/host --profile priv $flag \
                -- /no/such/workload
        e2e_run "$E2E_BUNDLE"
}
for mode in supervise exec; do
        # A list that allows execve but not write/exit/exit_group: a failed exec of the workload
        # could not be reported (the child crashed: 139, no message; with --exec, xpuinit itself):
        # refused at plan time, the missing calls named.
        list_exec_case jsonnoexit "$mode" '["execve", "@memory"]'
        is "$E2E_RC" 125 "jsonnoexit-$mode: a list without write and exit gives 125, not a crash"
        like "$E2E_ERR" 'seccomp list /etc/xpuinit/seccomp.json: does not allow write, exit, exit_group, which xpuinit needs' \
                "jsonnoexit-$mode: stderr names the file and the missing calls"
        # The smallest list that passes: a failed exec is still reported, with --exec by xpuinit
        # itself under that filter (one write(2), no stdio calls).
        list_exec_case jsonmin "$mode" '["execve", "write", "exit", "exit_group"]'
        is "$E2E_RC" 127 "jsonmin-$mode: the missing command gives 127"
        like "$E2E_ERR" 'cannot run "/no/such/workload": No such file or directory' \
                "jsonmin-$mode: the error line reaches stderr under the filter"
done

# A kept capability whose calls the filter denies: a warning naming both and the fix.
priv_bundle ptracewarn "$(profile '"keep_capabilities": ["CAP_SYS_PTRACE"]')"
e2e_caps_add "$E2E_BUNDLE" CAP_SYS_PTRACE
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "ptracewarn: the workload ran"
like "$E2E_ERR" 'keep_capabilities CAP_SYS_PTRACE: the seccomp filter "default" denies ptrace, process_vm_readv, process_vm_writev.*JSON allow list' \
        "ptracewarn: the start logs the warning"

# A list file that is a symlink out of the container root is resolved inside it: missing there.
priv_bundle jsonlink "$(profile '"seccomp": "/etc/xpuinit/seccomp.json"')"
ln -s /../../../../../../etc/passwd "$E2E_BUNDLE/rootfs/etc/xpuinit/seccomp.json"
rm -f "$E2E_BUNDLE/rootfs/etc/passwd"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "jsonlink: a list file linking outside the root is not read from the host"
like "$E2E_ERR" 'seccomp' "jsonlink: stderr names the seccomp setting"

# ---- --user and XPUINIT_USER -----------------------------------------------------------------------
priv_bundle user - --user 1000:1000
e2e_run "$E2E_BUNDLE"
expect user "$NONE" "$NONE" "$NONE" "$DOCKER" "$NONE" 2 1000
expect_denied user
is "$(e2e_fact Gid)" "1000 1000 1000 1000" "user: gid"
is "$(e2e_fact Groups)" "" "user: no supplementary groups (no device nodes)"

priv_bundle userenv - 
e2e_env "$E2E_BUNDLE" XPUINIT_USER=1000:44
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "userenv: the workload ran"
is "$(e2e_fact Uid)" "1000 1000 1000 1000" "userenv: XPUINIT_USER sets the uid"
is "$(e2e_fact Gid)" "44 44 44 44" "userenv: ... and the gid"

priv_bundle userambient "$(profile '"keep_capabilities": ["CAP_NET_BIND_SERVICE"]')" --user 1000
e2e_run "$E2E_BUNDLE"
expect userambient 0000000000000400 0000000000000400 0000000000000400 0000000000000400 \
        0000000000000400 2 1000

priv_bundle userbad - --user nobody
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 2 "userbad: a user name is a usage error"
like "$E2E_ERR" '--user: "nobody" is not UID or UID:GID' "userbad: stderr names the value"

# xpuinit itself runs as uid 1000 without capabilities (a non-root container): --user with its
# own ids changes nothing and is no error; another uid fails before the workload starts.
priv_bundle userself - --user 1000
e2e_jq "$E2E_BUNDLE" '.process.user = {uid: 1000, gid: 1000} | .process.capabilities.effective = []
        | .process.capabilities.permitted = []'
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "userself: --user with xpuinit's own ids runs the workload"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact Uid)" "1000 1000 1000 1000" "userself: uid"
is "$(e2e_fact Gid)" "1000 1000 1000 1000" "userself: gid"
priv_bundle userother - --user 2000
e2e_jq "$E2E_BUNDLE" '.process.user = {uid: 1000, gid: 1000} | .process.capabilities.effective = []
        | .process.capabilities.permitted = []'
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "userother: another uid without CAP_SETUID/CAP_SETGID gives 125"
like "$E2E_ERR" '--user needs CAP_SETUID and CAP_SETGID: start xpuinit as root or drop --user' \
        "userother: stderr says why and the fix"
unlike "$E2E_OUT" '^CapEff=' "userother: the workload never started"

# ---- --user on an AMD host: the device nodes' groups are the workload's only supplementary groups --
e2e_fixture amd-mi210x8
e2e_bundle amduser
e2e_mount_ro "$E2E_BUNDLE" "$E2E_FIXTURE" /xpu/host
e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/host --user 1000:1000 -- \
        /workload --expect-uid 1000 --expect-group 105 --expect-group 44 --expect-node /dev/kfd=510:0
e2e_devices "$E2E_BUNDLE" "$E2E_FIXTURE" "/dev/kfd=105 /dev/dri/*=44"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "amduser: uid 1000 with the render (105) and video (44) groups, /dev/kfd present"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact uid)" 1000 "amduser: uid"
is "$(e2e_fact gid)" 1000 "amduser: gid"
groups=$(e2e_fact groups | tr ',' '\n' | sort -n | tr '\n' ',')
is "$groups" "44,105," "amduser: supplementary groups are exactly the nodes' groups"

# ---- plan shows it -------------------------------------------------------------------------------
e2e_bundle plan
mkdir -p "$E2E_BUNDLE/rootfs/etc/xpuinit/profiles.d"
profile '"keep_capabilities": ["CAP_NET_BIND_SERVICE", "cap_kill"], "seccomp": "strict"' \
        >"$E2E_BUNDLE/rootfs/etc/xpuinit/profiles.d/priv.json"
e2e_mount_ro "$E2E_BUNDLE" "$E2E_TMP/empty" /xpu/host
e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/host plan --json \
        --profile priv --user 1000:1000 -- /workload
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "plan: exits 0"
is "$(jq -c .keep_capabilities "$E2E_OUT")" '["CAP_KILL","CAP_NET_BIND_SERVICE"]' "plan: keep_capabilities"
is "$(jq -r .keep_capabilities_from "$E2E_OUT")" profile "plan: keep_capabilities_from"
is "$(jq -c .bounding_capabilities "$E2E_OUT")" '["CAP_KILL","CAP_NET_BIND_SERVICE"]' "plan: bounding"
is "$(jq -r .ambient "$E2E_OUT")" true "plan: ambient for a non-root workload"
is "$(jq -r .seccomp "$E2E_OUT")" strict "plan: seccomp"
is "$(jq -c .user "$E2E_OUT")" '{"uid":1000,"gid":1000,"from":"--user"}' "plan: user"

e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/host plan --profile cpu -- /workload
e2e_run "$E2E_BUNDLE"
like "$E2E_OUT" "^  keep_capabilities CAP_CHOWN,CAP_DAC_OVERRIDE,CAP_FOWNER,CAP_FSETID,CAP_KILL,CAP_SETGID,CAP_SETUID,CAP_NET_BIND_SERVICE,CAP_NET_RAW,CAP_SYS_CHROOT,CAP_MKNOD,CAP_AUDIT_WRITE,CAP_SETFCAP \\(default\\)$" \
        "plan text: the root default set"
like "$E2E_OUT" '^  seccomp default$' "plan text: seccomp default"

e2e_done
