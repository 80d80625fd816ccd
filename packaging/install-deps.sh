#!/bin/sh
# Install the Debian 12 packages a make target needs; do nothing when all are present. Run as
# root (make demo and make check call it first).
#   sh packaging/install-deps.sh [build|demo|check|arm64]     (default: check)
# XPU_EXTRA_PKGS="PKG ..." adds packages a target asks for (make bench, static, fuzz).
#
# Daemons: some test packages ship a service that Debian starts and enables on installation
# (prometheus: prometheus.service on port 9090; nginx-light, for make bench: nginx on port 80;
# podman: podman.socket, podman.service and two more units). The tests run their own instance
# on a private configuration and port (podman: no service at all), so the packages are
# installed with a policy-rc.d(8) that exits 101 (no service is started; the file is removed
# again when this script made it) and every unit of DAEMONS that the installation enabled is
# disabled again (systemctl disable, which also handles the init script; update-rc.d without
# systemctl) and stopped where systemd runs. Nothing is left running or enabled at boot.
set -eu

TARGET=${1:-check}

# Build: compiler, make, pkg-config and the libraries' -dev packages; libnghttp2-dev,
# libprotobuf-c-dev and protobuf-c-compiler (protoc-c) for xpud's client of the kubelet's
# pod-resources gRPC API (daemon/podres.h, daemon/podresources.proto).
BUILD_PKGS="gcc make pkg-config libc6-dev libseccomp-dev libcap-dev libcjson-dev libsystemd-dev libmicrohttpd-dev libzstd-dev zlib1g-dev libyaml-dev libnghttp2-dev libprotobuf-c-dev protobuf-c-compiler"
# make demo: runc + busybox-static (the containers), jq (their OCI specs).
DEMO_PKGS="runc busybox-static jq"
# make check: Check (unit tests), runc + busybox-static (end-to-end containers), jq (JSON asserts),
# util-linux (unshare, setpriv), procps (ps), curl, librocm-smi64-1 (the real ROCm SMI read by
# tests/e2e/rocm-smi.sh against a fake sysfs tree), podman (tests/e2e/container-cdi.sh: a real CDI
# consumer; Debian 12's 4.3 reads CDI specs up to cdiVersion 0.5.0; its socket, service and timers
# are kept off, above), prometheus (promtool and a Prometheus server in tests/e2e/xpud-prom*.sh;
# its service is kept off, above), python3, systemd
# (systemd-socket-activate, systemd-sysusers), man-db + groff-base (man --warnings on the man
# pages), binutils (readelf), dpkg-dev (the attack suite builds the static xpuinit from Debian's
# cJSON source: installed here, never while tests run, since an install rewrites
# /etc/ld.so.cache, which the attack suite watches), debhelper + lintian + fakeroot (make deb and
# tests/deb/), buildah (tests/deb/ builds the xpud image), and Node.js with npm (tests/k8s/: the
# Kubernetes schema validators come from the npm registry) unless an npm is already on PATH,
# python3-yaml (tests/e2e/container-cdi-generate.sh reads the YAML CDI spec with PyYAML),
# python3-grpcio + python3-grpc-tools + python3-protobuf (tests/e2e/fake-kubelet.py: a real gRPC
# server of the kubelet's pod-resources API, its messages generated from the .proto at start).
TEST_PKGS="check runc busybox-static jq util-linux procps curl librocm-smi64-1 podman prometheus python3 systemd man-db groff-base binutils dpkg-dev debhelper lintian fakeroot buildah python3-yaml python3-grpcio python3-grpc-tools python3-protobuf"
if ! command -v npm >/dev/null 2>&1; then
        TEST_PKGS="$TEST_PKGS nodejs npm"
fi
# make ARCH=arm64 and make check-arm64 (docs/architecture.md, "arm64"): the cross compiler
# (gcc-aarch64-linux-gnu with libc6-dev-arm64-cross), the arm64 multiarch -dev packages of every
# library the build links plus check:arm64 for the unit tests (Debian's multiarch: the same version
# co-installs with the amd64 one; their .pc files are in /usr/lib/aarch64-linux-gnu/pkgconfig), and
# qemu-user, whose qemu-aarch64 runs the arm64 programs with the arm64 loader and libraries that
# libc6:arm64 and the :arm64 packages put under / (qemu-aarch64 -L /), named explicitly: no binfmt_misc
# registration is needed, which containers and CI runners often lack.
ARM64_PKGS="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libc6-dev:arm64 libseccomp-dev:arm64 libcap-dev:arm64 libcjson-dev:arm64 libsystemd-dev:arm64 libmicrohttpd-dev:arm64 libzstd-dev:arm64 zlib1g-dev:arm64 libyaml-dev:arm64 libnghttp2-dev:arm64 libprotobuf-c-dev:arm64 check:arm64"
# Units the packages above or XPU_EXTRA_PKGS enable on installation (podman: its API socket and
# service, the auto-update timer and service, the restart service).
DAEMONS="prometheus.service nginx.service podman.socket podman.service podman-auto-update.timer podman-auto-update.service podman-restart.service"
EXTRA_PKGS="${XPU_EXTRA_PKGS:-}"

case "$TARGET" in
build) PKGS="$BUILD_PKGS" ;;
demo) PKGS="$BUILD_PKGS $DEMO_PKGS" ;;
check) PKGS="$BUILD_PKGS $TEST_PKGS" ;;
arm64) PKGS="$BUILD_PKGS $ARM64_PKGS" ;;
*)
        echo "install-deps: unknown target \"$TARGET\"; use build, demo, check or arm64" >&2
        exit 2
        ;;
esac

missing=""
for p in $PKGS $EXTRA_PKGS; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
                missing="$missing $p"
        fi
done

if [ -z "$missing" ]; then
        exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
        echo "install-deps: missing Debian packages:$missing" >&2
        echo "install-deps: run as root (or: apt-get install$missing)" >&2
        exit 1
fi

# enabled UNIT: true when UNIT starts at boot (a systemd wants/ link or, for a service, a SysV
# start link of its name).
enabled() {
        for l in /etc/systemd/system/*.wants/"$1" /etc/rc[2-5].d/S[0-9][0-9]"${1%.service}"; do
                if [ -e "$l" ] || [ -L "$l" ]; then return 0; fi
        done
        return 1
}

was_enabled=""
for u in $DAEMONS; do
        if enabled "$u"; then was_enabled="$was_enabled $u "; fi
done

policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\n# packaging/install-deps.sh: no service starts while it installs packages.\nexit 101\n' >"$policy"
        chmod 0755 "$policy"
        made_policy=1
        trap 'rm -f "$policy"' EXIT
fi

echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# The :arm64 packages come from the same mirror once dpkg knows the foreign architecture.
case "$missing" in
*:arm64*)
        if ! dpkg --print-foreign-architectures | grep -qx arm64; then
                dpkg --add-architecture arm64
        fi
        ;;
*) ;;
esac
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing

for u in $DAEMONS; do
        case "$was_enabled" in *" $u "*) continue ;; *) ;; esac
        enabled "$u" || continue
        echo "install-deps: $u was enabled by its package; disabling it (the tests start their own, if any)"
        if command -v systemctl >/dev/null 2>&1; then
                systemctl disable "$u" >/dev/null 2>&1 || true
                if [ -d /run/systemd/system ]; then systemctl stop "$u" >/dev/null 2>&1 || true; fi
        fi
        sysv=${u%.service}
        if enabled "$u" && command -v update-rc.d >/dev/null 2>&1 && [ -e "/etc/init.d/$sysv" ]; then
                update-rc.d "$sysv" disable >/dev/null 2>&1 || true
        fi
        if enabled "$u"; then
                echo "install-deps: cannot disable $u; disable it by hand: systemctl disable --now $u" >&2
                exit 1
        fi
done
if [ "$made_policy" -eq 1 ]; then
        rm -f "$policy"
        trap - EXIT
fi
