#!/bin/sh
# The Debian packages and the xpud image, as users get them:
#   - `make deb` builds xpuinit_<VERSION>_<arch>.deb and xpud_<VERSION>_<arch>.deb, at VERSION,
#     with Depends computed from the programs' libraries and Built-Using for xpuinit-static;
#   - lintian (pedantic and info tags included) reports nothing but the two explained overrides;
#   - each package holds its programs, units, sysusers file, man pages and documents, every
#     docs/*.md is in exactly one of them, and the units' Documentation= files are in xpud;
#   - both install with dpkg, maintainer scripts included, into an empty root: the xpud user and
#     group exist there, xpud.socket is enabled and xpud.service is not, dpkg --verify is clean,
#     and the installed programs report VERSION;
#   - the xpud image (examples/kubernetes/xpud.Containerfile, packaging/xpud-image-root.sh) builds
#     with buildah, has no shell, runs xpud against the amd-mi210x8 fixture host under podman, and
#     `xpud query` inside it and curl on the socket outside it list the fixture's GPUs.
#
# Speed: make deb packages what $XPU_BUILD already holds (packaging/deb.mk copies the build with
# its times, so nothing is compiled again; only xpuinit-static is linked, by make static, under
# the lock the attack suite takes for the same build). The packages go to a scratch directory.
#
# The empty root: dpkg --root with --force-script-chrootless runs the maintainer scripts from
# this host with DPKG_ROOT set to the root. An empty root has no shell to chroot into, and a
# debootstrap'ed one would take minutes and the network for each run; debhelper's snippets for
# sysusers and systemd act on DPKG_ROOT, which the test checks before it trusts them with the
# host. --force-depends: the root has no libc6 and no libraries; the programs then run with this
# host's, which are the packages' Depends.
#
# Hermetic podman and buildah: storage, run and temporary directories below the scratch
# directory, runc, cgroupfs, no events, --network none, explicit ulimits (no CAP_SYS_RESOURCE
# here). Needs root, make, git, dpkg-buildpackage, debhelper, lintian, buildah, podman, jq, curl,
# flock, systemd-sysusers and a build (XPU_BUILD, XPU_SRCDIR set by tests/run-tests.sh); a
# missing one is a failure, never a skip. Prints TAP.

SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=SCRIPTDIR/../e2e/lib.sh
. "$SRC/tests/e2e/lib.sh"

BUILD=${XPU_BUILD:-$SRC/build}
FIXTURE=$SRC/tests/fixtures/hosts/amd-mi210x8
T=
CTR=
IMAGE=localhost/xpud-deb-test:latest

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
        if [ -n "$CTR" ]; then
                pm rm -f "$CTR" >/dev/null 2>&1
        fi
        if [ -n "$T" ] && [ -d "$T" ]; then
                e2e_umount_below "$T"
                if grep -q " $T/" /proc/self/mountinfo; then
                        printf '# %s still has mounts; left in place\n' "$T"
                else
                        rm -rf --one-file-system "$T"
                fi
        fi
}

[ "$(id -u)" -eq 0 ] || bail "tests/deb must run as root (dpkg --root, podman)"
need_tools make git tar flock dpkg dpkg-deb dpkg-query dpkg-buildpackage dh lintian buildah podman \
        jq curl ldd timeout systemd-sysusers
for b in xpuinit xpud; do
        [ -x "$BUILD/$b" ] || bail "$BUILD/$b is not built (make build-tests)"
done
[ -d "$FIXTURE" ] || bail "fixture host $FIXTURE is missing"
VER=$(cat "$SRC/VERSION") || bail "no VERSION file"
ARCH=$(dpkg --print-architecture) || bail "dpkg --print-architecture failed"
T=$(mktemp -d /tmp/xpu-deb.XXXXXX) || bail "mktemp failed"
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 0755 "$T"

# The make of `make check` may have left its jobserver and variables in the environment.
mk() {
        timeout 300 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$SRC" "$@"
}

# ---- make deb ---------------------------------------------------------------------------------
# -o all: package what the test run built (and never rebuild it here).
flock "$BUILD/.attack-static.lock" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
        timeout 300 make -C "$SRC" -o all BUILD="$BUILD" static >"$T/static.log" 2>&1 ||
        { diag_file "$T/static.log"; bail "make static failed (it needs Debian's cJSON source once)"; }
mk -o all -o static BUILD="$BUILD" DEB_OUT="$T/deb" deb >"$T/deb.log" 2>&1
rc=$?
is "$rc" 0 "make deb"
[ "$rc" -eq 0 ] || tail -n 40 "$T/deb.log" | sed 's/^/# /'
# Only cJSON.c, which make static of the package's copy builds from the source it fetched.
is "$(sed -n 's/^  CC  *//p' "$T/deb.log" | grep -vE '(^|/)cJSON\.c( |$)' | tr '\n' ' ')" "" \
        "... compiles nothing of the project again (only cJSON.c for xpuinit-static)"

XI=$T/deb/xpuinit_${VER}_$ARCH.deb
XD=$T/deb/xpud_${VER}_$ARCH.deb
for d in "$XI" "$XD"; do
        if [ -f "$d" ]; then ok "$(basename "$d") exists"; else not_ok "$(basename "$d") exists"; fi
done
if [ ! -f "$XI" ] || [ ! -f "$XD" ]; then
        bail "make deb made no packages to check (its output is above)"
fi

field() {
        dpkg-deb -f "$1" "$2"
}
is "$(field "$XI" Version) $(field "$XD" Version)" "$VER $VER" "both packages are at VERSION ($VER)"
is "$(field "$XI" Architecture) $(field "$XD" Architecture)" "$ARCH $ARCH" "both are $ARCH"
deps=$(field "$XD" Depends)
case "$deps" in
*"libc6 (>="*libmicrohttpd12*libsystemd0*) ok "xpud's Depends come from its libraries (shlibs: libc6, libmicrohttpd12, libsystemd0)" ;;
*)
        not_ok "xpud's Depends come from its libraries (shlibs: libc6, libmicrohttpd12, libsystemd0)"
        diag "Depends: $deps"
        ;;
esac
case "$deps" in
*systemd-sysusers*) ok "... and name systemd-sysusers, which its postinst runs" ;;
*) not_ok "... and name systemd-sysusers, which its postinst runs" ;;
esac
xdeps=$(field "$XI" Depends)
case "$xdeps" in
*libcap2*libcjson1*libseccomp2*libyaml-0-2*) ok "xpuinit's Depends come from its libraries (libcap2, libcjson1, libseccomp2, libyaml-0-2)" ;;
*)
        not_ok "xpuinit's Depends come from its libraries (libcap2, libcjson1, libseccomp2, libyaml-0-2)"
        diag "Depends: $xdeps"
        ;;
esac
bu=$(field "$XI" Built-Using)
case "$bu" in
*"cjson (= "*"glibc (= "*"libcap2 (= "*"libseccomp (= "*"libyaml (= "*) ok "xpuinit's Built-Using names what xpuinit-static carries" ;;
*)
        not_ok "xpuinit's Built-Using names what xpuinit-static carries"
        diag "Built-Using: $bu"
        ;;
esac

# ---- lintian -----------------------------------------------------------------------------------
timeout 300 lintian --display-info --pedantic --show-overrides "$XI" "$XD" >"$T/lintian.out" 2>"$T/lintian.err"
rc=$?
is "$rc" 0 "lintian exits 0"
[ "$rc" -eq 0 ] || diag_file "$T/lintian.err"
unlike "$T/lintian.out" '^[EWIPX]: ' "lintian: no error, warning, info, pedantic or experimental tag"
is "$(sed -n 's/^O: //p' "$T/lintian.out" | sort | tr '\n' ';')" \
        "xpud: package-supports-alternative-init-but-no-init.d-script [lib/systemd/system/xpud.service];xpuinit: shared-library-lacks-prerequisites [usr/bin/xpuinit-static];" \
        "lintian: only the two overrides that packaging/debian explains"

# ---- contents ------------------------------------------------------------------------------------
# files DEB: the paths in DEB, without the leading "." (symlinks as "path -> target").
files() {
        dpkg-deb -c "$1" | awk '{ p = $6; for (i = 7; i <= NF; i++) p = p " " $i; sub(/^\./, "", p); print p }'
}
files "$XI" >"$T/xpuinit.files"
files "$XD" >"$T/xpud.files"
for f in /usr/bin/xpuinit /usr/bin/xpuinit-static /usr/share/man/man1/xpuinit.1.gz \
        /usr/share/man/man5/xpuinit-profile.5.gz '/usr/share/man/man1/xpuinit-static.1.gz -> xpuinit.1.gz' \
        /usr/share/doc/xpuinit/copyright /usr/share/doc/xpuinit/xpuinit.md /usr/share/doc/xpuinit/profiles.md; do
        if grep -qxF "$f" "$T/xpuinit.files"; then ok "xpuinit holds $f"; else not_ok "xpuinit holds $f"; fi
done
for f in /usr/bin/xpud /lib/systemd/system/xpud.service /lib/systemd/system/xpud.socket \
        /usr/lib/sysusers.d/xpud.conf /usr/share/man/man8/xpud.8.gz /usr/share/doc/xpud/copyright \
        /usr/share/doc/xpud/xpud.md /usr/share/doc/xpud/xpud-install.md; do
        if grep -qxF "$f" "$T/xpud.files"; then ok "xpud holds $f"; else not_ok "xpud holds $f"; fi
done
# Every document in exactly one package.
for d in "$SRC"/docs/*.md; do basename "$d"; done | sort >"$T/docs.want"
sed -n 's|^/usr/share/doc/xpu[a-z]*/\([^/]*\.md\)$|\1|p' "$T/xpuinit.files" "$T/xpud.files" | sort >"$T/docs.got"
is "$(tr '\n' ' ' <"$T/docs.got")" "$(tr '\n' ' ' <"$T/docs.want")" "every docs/*.md is in exactly one package"
unlike "$T/xpuinit.files" '^/usr/share/doc/xpuinit/xpud' "... the daemon's documents are not in xpuinit"

mkdir -p "$T/x/xpuinit" "$T/x/xpud"
dpkg-deb -x "$XI" "$T/x/xpuinit" || bail "dpkg-deb -x $XI failed"
dpkg-deb -x "$XD" "$T/x/xpud" || bail "dpkg-deb -x $XD failed"
if e2e_is_static "$T/x/xpuinit/usr/bin/xpuinit-static"; then
        ok "xpuinit-static in the package needs no shared library"
else
        not_ok "xpuinit-static in the package needs no shared library"
fi
docs=$(sed -n 's|^Documentation=||p' "$T/x/xpud/lib/systemd/system/xpud.service" "$T/x/xpud/lib/systemd/system/xpud.socket" |
        tr ' ' '\n' | sed -n 's|^file:||p' | sort -u)
missing=
for d in $docs; do
        grep -qxF "$d" "$T/xpud.files" || missing="$missing $d"
done
is "$(echo "$docs" | grep -c .):$missing" "2:" "the units' Documentation= name files the xpud package holds"
[ -z "$missing" ] || diag "Documentation= files not in xpud:$missing"

# ---- installed into an empty root ---------------------------------------------------------------
# The scripts run on this host (chrootless): every systemd action in them must stay off the
# running system when DPKG_ROOT is set.
mkdir -p "$T/ctl"
dpkg-deb -e "$XD" "$T/ctl" || bail "dpkg-deb -e failed"
unguarded=$(cat "$T/ctl/preinst" "$T/ctl/postinst" | grep -e '/run/systemd/system' | grep -v 'DPKG_ROOT')
is "$unguarded" "" "xpud's preinst and postinst touch the running systemd only without DPKG_ROOT"
R=$T/root
mkdir -p "$R/etc" "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" || bail "cannot make the empty root"
: >"$R/var/lib/dpkg/status" || bail "cannot make the empty root's dpkg status"
if [ -z "$unguarded" ]; then
        timeout 120 dpkg --root="$R" --force-script-chrootless --force-depends -i "$XI" "$XD" >"$T/dpkg.log" 2>&1
        rc=$?
else
        rc=skipped-unsafe
fi
is "$rc" 0 "dpkg --root installs both packages into an empty root, maintainer scripts included"
[ "$rc" = 0 ] || diag_file "$T/dpkg.log"
is "$(for p in xpuinit xpud; do dpkg-query --admindir="$R/var/lib/dpkg" -W -f '${Package}=${Status} ' "$p" 2>&1; done)" \
        "xpuinit=install ok installed xpud=install ok installed " "... both are installed and configured"
is "$(timeout 60 dpkg --root="$R" --verify xpuinit xpud 2>&1)" "" "... dpkg --verify finds every file as packaged"
like "$R/etc/passwd" '^xpud:x:[0-9]+:[0-9]+:[^:]*:/nonexistent:/usr/sbin/nologin$' \
        "... the postinst made the system user xpud (systemd-sysusers --root)"
like "$R/etc/group" '^xpud:x:[0-9]+:' "... and the group xpud"
if [ -L "$R/etc/systemd/system/sockets.target.wants/xpud.socket" ]; then
        ok "... xpud.socket is enabled (sockets.target.wants)"
else
        not_ok "... xpud.socket is enabled (sockets.target.wants)"
fi
is "$(find "$R/etc/systemd" -name xpud.service 2>/dev/null)" "" "... xpud.service is not enabled (the socket starts it)"
is "$("$R/usr/bin/xpuinit" version 2>&1)" "xpuinit $VER" "installed xpuinit version says $VER"
is "$("$R/usr/bin/xpuinit-static" version 2>&1)" "xpuinit $VER" "installed xpuinit-static version says $VER"
is "$("$R/usr/bin/xpud" --version 2>&1)" "xpud $VER" "installed xpud --version says $VER"
"$R/usr/bin/xpud" --help >"$T/help.out" 2>&1
is "$?:$(sed -n 1p "$T/help.out")" "0:Usage: xpud [OPTIONS]" "installed xpud --help exits 0 with its usage"

# ---- the xpud image ----------------------------------------------------------------------------
S=$T/storage
mkdir -p "$S/root" "$S/run" "$S/tmp" || bail "cannot create $S"
bh() {
        TMPDIR=$S/tmp timeout 120 buildah --root "$S/root" --runroot "$S/run" --storage-driver overlay "$@"
}
pm() {
        TMPDIR=$S/tmp timeout 60 podman --root "$S/root" --runroot "$S/run" --tmpdir "$S/tmp" \
                --storage-driver overlay --runtime runc --cgroup-manager cgroupfs --events-backend none "$@"
}
CTX=$T/context
sh "$SRC/packaging/xpud-image-root.sh" "$XD" "$CTX" >"$T/context.log" 2>&1
rc=$?
is "$rc" 0 "packaging/xpud-image-root.sh makes the build context from the xpud package"
[ "$rc" -eq 0 ] || diag_file "$T/context.log"
cmp -s "$CTX/rootfs/usr/bin/xpud" "$T/x/xpud/usr/bin/xpud"
is "$?" 0 "... with the packaged /usr/bin/xpud"
is "$(find "$CTX/rootfs" \( -name sh -o -name bash -o -name dash -o -name busybox -o -name curl \) -print)" "" \
        "... and no shell or curl"
bh bud --format docker --build-arg "VERSION=$VER" -f "$SRC/examples/kubernetes/xpud.Containerfile" \
        -t "$IMAGE" "$CTX" >"$T/bud.log" 2>&1
rc=$?
is "$rc" 0 "buildah bud builds examples/kubernetes/xpud.Containerfile"
[ "$rc" -eq 0 ] || diag_file "$T/bud.log"
is "$(pm image inspect "$IMAGE" --format '{{json .Config.Entrypoint}} {{json .Config.Healthcheck.Test}} {{index .Labels "org.opencontainers.image.version"}}' 2>&1)" \
        "[\"/usr/bin/xpud\"] [\"CMD\",\"/usr/bin/xpud\",\"query\",\"/readyz\"] $VER" \
        "the image's entrypoint is xpud, its healthcheck xpud query /readyz, its version label $VER"
# (stderr apart: podman says there that it cannot reach systemd to schedule the healthcheck.)
is "$(pm run --rm --network none --ulimit nofile=20000:20000 --ulimit nproc=1024:1024 "$IMAGE" --version 2>"$T/version.err")" \
        "xpud $VER" "the image runs xpud --version"

# xpud on the fixture host, its socket directory shared with this host. The directory belongs to
# the image's xpud user (65532), as docs/xpud.md advises for --user, so that xpud, which binds as
# root and then runs as that user, removes the socket at exit.
SOCKDIR=$T/run-xpud
mkdir -p "$SOCKDIR" || bail "cannot make $SOCKDIR"
chown 65532:65532 "$SOCKDIR" || bail "cannot give $SOCKDIR to 65532"
chmod 0755 "$SOCKDIR" || bail "cannot chmod $SOCKDIR"
# run_xpud NAME: start the image against the fixture host; 0 once /readyz answers 200 on the host.
run_xpud() {
        CTR=$1
        pm run -d --name "$CTR" --network none --ulimit nofile=20000:20000 --ulimit nproc=1024:1024 \
                -v "$FIXTURE:/fixture:ro" -v "$SOCKDIR:/run/xpud" "$IMAGE" \
                --user xpud --socket /run/xpud/xpud.sock --sys-root /fixture --interval 1 >"$T/run.log" 2>&1 ||
                { diag_file "$T/run.log"; return 1; }
        i=0
        while [ $i -lt 100 ]; do
                code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --unix-socket "$SOCKDIR/xpud.sock" http://xpud/readyz)
                [ "$code" = 200 ] && return 0
                i=$((i + 1))
                sleep 0.2
        done
        diag "/readyz answered $code" "$(pm logs "$CTR" 2>&1)"
        return 1
}
run_xpud "xpu-deb-$$"
is "$?" 0 "podman runs the image against the amd-mi210x8 fixture host; the host reaches it through the shared socket directory (/readyz 200)"

jq -r '.amd.devices[].pci_bus_id' "$FIXTURE/expected.json" | sort >"$T/want.bus"
jq -r '.amd.devices[].unique_id' "$FIXTURE/expected.json" | sort >"$T/want.uid"
pm exec "$CTR" /usr/bin/xpud query /v1/devices >"$T/query.json" 2>"$T/query.err"
rc=$?
is "$rc" 0 "xpud query /v1/devices inside the container exits 0"
[ "$rc" -eq 0 ] || diag_file "$T/query.err"
is "$(jq -r '.devices[] | select(.vendor == "amd") | .pci_bus_id' "$T/query.json" 2>&1 | sort | tr '\n' ' ')" \
        "$(tr '\n' ' ' <"$T/want.bus")" "... and lists the fixture's 8 GPUs by PCI bus id (expected.json)"
is "$(jq -r '.devices[] | .unique_id' "$T/query.json" 2>&1 | sort | tr '\n' ' ')" \
        "$(tr '\n' ' ' <"$T/want.uid")" "... with their unique ids"
curl -s --max-time 10 --unix-socket "$SOCKDIR/xpud.sock" http://xpud/v1/devices >"$T/curl.json"
is "$(jq -r '[.devices[].pci_bus_id] | sort | join(" ")' "$T/curl.json" 2>&1)" \
        "$(tr '\n' ' ' <"$T/want.bus" | sed 's/ $//')" "curl on the host gets the same devices"
is "$(stat -c '%a %g' "$SOCKDIR/xpud.sock" 2>&1)" "660 65532" "the socket is mode 0660, group xpud of the image (65532)"
# podman logs errors here that it cannot reach systemd to schedule the check; the check itself runs.
pm healthcheck run "$CTR" >"$T/health.out" 2>"$T/health.err"
is "$?" 0 "the image's HEALTHCHECK (xpud query /readyz) passes"
pm stop -t 10 "$CTR" >/dev/null 2>&1
is "$(pm inspect "$CTR" --format '{{.State.ExitCode}}' 2>&1)" 0 "xpud exits 0 at podman stop (SIGTERM)"
if [ -e "$SOCKDIR/xpud.sock" ]; then not_ok "... and removes its socket"; else ok "... and removes its socket"; fi
pm logs "$CTR" >"$T/xpud.log" 2>&1
unlike "$T/xpud.log" '^xpud: error' "... with no error in its log"
unlike "$T/xpud.log" '^xpud: warning: --user|socket' "... and no warning about its user or socket directory"
pm rm -f "$CTR" >/dev/null 2>&1

# A restarted pod: a new container on the same host directory serves a new socket there.
run_xpud "xpu-deb2-$$"
is "$?" 0 "a second container on the same socket directory serves again (/readyz 200)"
is "$(pm exec "$CTR" /usr/bin/xpud query /readyz >/dev/null 2>&1; echo $?)" 0 "... and xpud query /readyz in it exits 0"
pm stop -t 10 "$CTR" >/dev/null 2>&1
is "$(pm inspect "$CTR" --format '{{.State.ExitCode}}' 2>&1)" 0 "... and it exits 0 at podman stop"

e2e_done
