#!/bin/sh
# End to end, no GPU: xpuinit is the process of a runc container whose sys root is an empty
# directory. The workload runs with the cpu profile and nothing injected; exit statuses pass
# through (workload's code, 128+signal, 126, 127); argv and env reach the workload intact; a bad
# image profile stops the container with 125 and names the file; a usage error is 2.
. "$(dirname "$0")/lib.sh"
e2e_init

mkdir -p "$E2E_TMP/empty"

# cpu_bundle NAME [XPUINIT OPTION...] -- COMMAND...
cpu_bundle() {
        name=$1
        shift
        e2e_bundle "$name"
        e2e_mount_ro "$E2E_BUNDLE" "$E2E_TMP/empty" /xpu/host
        e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/host "$@"
}

# ---- no accelerator: the workload runs unchanged ---------------------------------------------------
cpu_bundle plain -- /workload --expect-no-cuda --expect-unset CUDA_VISIBLE_DEVICES \
        --expect-unset ROCR_VISIBLE_DEVICES --expect-unset LD_LIBRARY_PATH \
        --print-env XPU_E2E_MARK --list-dir '/no such dir' --list-dir /run/xpuinit/lib
e2e_env "$E2E_BUNDLE" 'XPU_E2E_MARK=a b  c=d'
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "plain: the workload ran with no GPU and its checks passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact ppid)" 1 "plain: the workload is a child of xpuinit, PID 1"
is "$(e2e_fact env.XPU_E2E_MARK)" "a b  c=d" "plain: environment reaches the workload intact"
is "$(e2e_fact argv.0)" /workload "plain: argv[0] intact"
is "$(e2e_fact argv.11)" "/no such dir" "plain: an argument with spaces intact"
is "$(e2e_fact dir./run/xpuinit/lib)" missing "plain: nothing injected (/run/xpuinit/lib absent)"
is "$(e2e_fact sig.blocked)" 0000000000000000 "plain: the workload starts with no blocked signal"
is "$(e2e_fact sig.ignored)" 0000000000000000 "plain: the workload starts with no ignored signal"

# ---- the plan on this host names the cpu profile ---------------------------------------------------
cpu_bundle plan plan --json -- /workload
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "plan: xpuinit plan --json exits 0"
profile=$(jq -r '.profile | if type == "object" then .name else . end' "$E2E_OUT" 2>/dev/null)
is "$profile" cpu "plan: the chosen profile is cpu"
[ "$profile" = cpu ] || e2e_show

# ---- exit statuses ------------------------------------------------------------------------------
cpu_bundle exit7 -- sh -c 'exit 7'
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 7 "exit7: the workload's exit status 7 passes through runc"

# shellcheck disable=SC2016 # $$ is the container shell's
cpu_bundle signal -- sh -c 'kill -TERM $$; sleep 5'
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 143 "signal: a workload killed by SIGTERM gives 128+15"

cpu_bundle path -- true
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "path: a bare command name is found through PATH"

cpu_bundle missing -- /no/such/command
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 127 "missing: a command that does not exist gives 127"
like "$E2E_ERR" '/no/such/command' "missing: stderr names the command"

cpu_bundle noexec -- /etc/passwd
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 126 "noexec: a command that is not executable gives 126"

cpu_bundle usage --no-such-option -- /workload
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 2 "usage: an unknown option gives 2"
unlike "$E2E_OUT" '^pid=' "usage: the workload never started"

cpu_bundle exec --exec -- /workload
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "exec: --exec runs the workload"
is "$(e2e_fact pid)" 1 "exec: with --exec the workload replaces xpuinit as PID 1"

# ---- bad image profiles: 125 before the workload, the file named ----------------------------------
mkdir -p "$E2E_TMP/profiles-syntax" "$E2E_TMP/profiles-key"
printf '{ "name": "broken", "priority": 5, \n' >"$E2E_TMP/profiles-syntax/broken.json"
cat >"$E2E_TMP/profiles-key/typo.json" <<'EOF'
{ "name": "typo", "description": "unknown key", "priority": 5, "colour": "blue" }
EOF

cpu_bundle badsyntax -- /workload
e2e_mount_ro "$E2E_BUNDLE" "$E2E_TMP/profiles-syntax" /etc/xpuinit/profiles.d
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "badsyntax: a malformed profile in /etc/xpuinit/profiles.d gives 125"
like "$E2E_ERR" 'broken\.json' "badsyntax: stderr names broken.json"
unlike "$E2E_OUT" '^pid=' "badsyntax: the workload never started"

cpu_bundle badkey --profile-dir /profiles -- /workload
e2e_mount_ro "$E2E_BUNDLE" "$E2E_TMP/profiles-key" /profiles
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "badkey: a profile with an unknown key (--profile-dir) gives 125"
like "$E2E_ERR" 'typo\.json' "badkey: stderr names typo.json"
like "$E2E_ERR" 'colour' "badkey: stderr names the key"

# ---- values from the environment in messages: escaped, one message stays one line ---------------
# one_line NAME VAR VALUE [XPUINIT ARG...]: xpuinit plan with VAR=VALUE (no container: the same
# code logs); stderr must be one line, with no control byte, and show the escapes.
one_line() {
        n=$1 var=$2 val=$3
        shift 3
        env "$var=$val" "$XPU_BUILD/xpuinit" --sys-root "$E2E_TMP/empty" --driver-root "$E2E_TMP/empty" "$@" \
                plan -- /bin/true >/dev/null 2>"$E2E_TMP/$n.err"
        is "$(wc -l <"$E2E_TMP/$n.err")" 1 "$n: the message is one line"
        if LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$E2E_TMP/$n.err"; then
                not_ok "$n: no raw control byte reaches stderr"
                diag_file "$E2E_TMP/$n.err"
        else
                ok "$n: no raw control byte reaches stderr"
        fi
        like "$E2E_TMP/$n.err" '\\x0a\\x1b' "$n: the newline and ESC are shown as \\x0a\\x1b"
}
one_line esc-select XPU_VISIBLE_DEVICES "$(printf 'gpu9\n\033[2Jx')"
one_line esc-profile XPUINIT_PROFILE "$(printf 'nope\n\033]0;title\007')"
one_line esc-profile-dir XPUINIT_PROFILE_DIR "$(printf '/nonexistent\n\033[31mred')"
like "$E2E_TMP/esc-profile.err" 'profile "nope\\x0a\\x1b\]0;title\\x07"' "esc-profile: the whole value, escaped"

# inject --rootfs of a directory that does not exist: that is what is reported, before anything
# about mount namespaces.
"$XPU_BUILD/xpuinit" --sys-root "$E2E_TMP/empty" inject --rootfs "$E2E_TMP/no-such-rootfs" 2>"$E2E_TMP/inject-missing.err"
is "$?" 125 "inject-missing: exit 125"
like "$E2E_TMP/inject-missing.err" "inject --rootfs $E2E_TMP/no-such-rootfs: cannot open the container root: No such file or directory" \
        "inject-missing: the message names the missing root"

e2e_done
