#!/bin/sh
# Install the Debian 12 packages needed to build and test xpuinit/xpud; do nothing when all are
# present. Run as root (make demo / make check call it first).
set -eu

# Build: compiler, make, pkg-config and the libraries' -dev packages.
BUILD_PKGS="gcc make pkg-config libc6-dev libseccomp-dev libcap-dev libcjson-dev libsystemd-dev libmicrohttpd-dev"
# Test: Check (unit tests), runc + busybox-static (end-to-end containers), jq (JSON asserts),
# util-linux (unshare, setpriv), procps (ps), curl, librocm-smi64-1 (the real ROCm SMI read by
# tests/e2e/rocm-smi.sh against a fake sysfs tree), podman (tests/e2e/container-cdi.sh: a real CDI
# consumer; Debian 12's 4.3 reads CDI specs up to cdiVersion 0.5.0), dpkg-dev (the attack suite builds the static
# xpuinit from Debian's cJSON source: installed here, never while tests run, since an install
# rewrites /etc/ld.so.cache, which the attack suite watches).
TEST_PKGS="check runc busybox-static jq util-linux procps curl librocm-smi64-1 podman prometheus python3 systemd dpkg-dev"
# Extra packages a target asks for (e.g. bench: tini hyperfine).
EXTRA_PKGS="${XPU_EXTRA_PKGS:-}"

missing=""
for p in $BUILD_PKGS $TEST_PKGS $EXTRA_PKGS; do
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

echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
