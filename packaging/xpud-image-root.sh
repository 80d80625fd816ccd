#!/bin/sh
# Prepare the build context of the xpud image (examples/kubernetes/xpud.Containerfile) from the
# xpud Debian package (make deb):
#   sh packaging/xpud-image-root.sh build/deb/xpud_<VERSION>_<arch>.deb CONTEXT
#   podman build --format docker -f examples/kubernetes/xpud.Containerfile CONTEXT
# CONTEXT/rootfs becomes the image's whole file system (FROM scratch): no shell, no package
# manager, no curl. It holds
#   - /usr/bin/xpud and its copyright file, taken from the package (dpkg-deb -x), so the image runs
#     the program that was packaged and tested;
#   - the shared libraries ldd lists for it and the loader, copied from this host (Debian 12 with
#     the package's Depends installed: what ldd resolves here is what the package was linked
#     against), each with the copyright file of the Debian package that ships it;
#   - glibc's libdl, libpthread, librt and libm, which ldd of xpud does not list: xpud dlopens the
#     host driver's libnvidia-ml.so.1 (from --driver-root) and that library links them;
#   - /etc/passwd and /etc/group with root and the user and group "xpud" (XPUD_UID and XPUD_GID,
#     default 65532: a fixed number, so that a host can give its clients the socket's group) and
#     an nsswitch.conf that reads only those files;
#   - empty /run, /tmp, /proc, /sys and /dev for the runtime to mount over.
# ROCm SMI (librocm-smi64-1) is not in the image: AMD readings come from amdgpu sysfs.
# Needs dpkg-deb, dpkg-query and ldd. CONTEXT/rootfs is replaced if it exists.
set -eu

if [ $# -ne 2 ]; then
        echo "usage: $0 XPUD_DEB CONTEXT" >&2
        exit 2
fi
deb=$1
ctx=$2
uid=${XPUD_UID:-65532}
gid=${XPUD_GID:-65532}
case "$uid$gid" in
"" | *[!0-9]*)
        echo "xpud-image-root: XPUD_UID and XPUD_GID must be numbers" >&2
        exit 2
        ;;
*) ;;
esac
[ -f "$deb" ] || {
        echo "xpud-image-root: $deb not found (make deb)" >&2
        exit 1
}
for tool in dpkg-deb dpkg-query ldd; do
        command -v "$tool" >/dev/null 2>&1 || {
                echo "xpud-image-root: $tool is missing" >&2
                exit 1
        }
done
[ "$(dpkg-deb -f "$deb" Package)" = xpud ] || {
        echo "xpud-image-root: $deb is not the xpud package" >&2
        exit 1
}

mkdir -p "$ctx"
root=$ctx/rootfs
unpacked=$ctx/xpud-deb
rm -rf "$root" "$unpacked"
dpkg-deb -x "$deb" "$unpacked"
mkdir -p "$root/usr/bin" "$root/etc" "$root/run" "$root/tmp" "$root/proc" "$root/sys" "$root/dev" \
        "$root/usr/share/doc/xpud"
chmod 1777 "$root/tmp"
cp "$unpacked/usr/bin/xpud" "$root/usr/bin/xpud"
cp "$unpacked/usr/share/doc/xpud/copyright" "$root/usr/share/doc/xpud/copyright"

# add_lib PATH: copy PATH (symlinks resolved) to the same path in the root, and the copyright
# file of the Debian package it belongs to (looked up by that path, else by its real path).
add_lib() {
        [ -e "$root$1" ] && return 0
        mkdir -p "$root$(dirname "$1")"
        cp -L "$1" "$root$1"
        pkg=$(dpkg-query -S "$1" 2>/dev/null || dpkg-query -S "$(readlink -f "$1")" 2>/dev/null) || {
                echo "xpud-image-root: $1 belongs to no Debian package; its license is unknown" >&2
                return 1
        }
        pkg=${pkg%%:*}
        if [ -f "/usr/share/doc/$pkg/copyright" ] && [ ! -f "$root/usr/share/doc/$pkg/copyright" ]; then
                mkdir -p "$root/usr/share/doc/$pkg"
                cp "/usr/share/doc/$pkg/copyright" "$root/usr/share/doc/$pkg/copyright"
        fi
}

# ldd's lines: "libx.so.1 => /path (addr)" and the loader "/lib64/ld-linux-x86-64.so.2 (addr)".
# The vdso has no path and is skipped.
libs=$(ldd "$root/usr/bin/xpud" | sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) .*/\1/p')
[ -n "$libs" ] || {
        echo "xpud-image-root: ldd lists no library for xpud" >&2
        exit 1
}
for so in $libs; do
        add_lib "$so"
done
libc=$(printf '%s\n' "$libs" | grep '/libc\.so\.6$') || {
        echo "xpud-image-root: ldd lists no libc.so.6 for xpud" >&2
        exit 1
}
libdir=$(dirname "$libc")
for so in libdl.so.2 libpthread.so.0 librt.so.1 libm.so.6; do
        add_lib "$libdir/$so"
done

cat >"$root/etc/passwd" <<EOF
root:x:0:0:root:/root:/sbin/nologin
xpud:x:$uid:$gid:xpud accelerator node daemon:/nonexistent:/sbin/nologin
EOF
cat >"$root/etc/group" <<EOF
root:x:0:
xpud:x:$gid:
EOF
printf 'passwd: files\ngroup: files\n' >"$root/etc/nsswitch.conf"
rm -rf "$unpacked"
echo "xpud-image-root: $root ($(find "$root" -type f | wc -l | tr -d ' ') files, user xpud $uid:$gid)"
