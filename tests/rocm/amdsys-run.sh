#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# amdsys-run.sh: run a command with a fake sysfs tree (tests/rocm/mkamdsys.sh) as /sys, inside a
# private mount namespace, so that programs reading the real /sys (librocm_smi, xpuinit without
# --sys-root) see the fake GPUs.
#
# usage: amdsys-run.sh [--pci-ids FILE] DIR -- COMMAND [ARG]...
#
# As root: `unshare -m`, then mount propagation of / made private (nothing leaks to the host), DIR/sys
# bound read-only over /sys, and a private tmpfs on /dev/shm (librocm_smi keeps a cross-process
# mutex per card there, /dev/shm/rocm_smi_cardN; a crashed holder must not wedge later runs or the
# host's own ROCm). The mounts vanish with the namespace when COMMAND exits; the exit status is
# COMMAND's. Only programs that read sysfs are fooled: /dev, /proc and everything else stay the
# host's. Limit: a host with real GPUs still has them in /dev and /proc.
#
# The PCI id database: librocm_smi names a GPU whose sysfs has no product_name from the first
# pci.ids it finds (/usr/share/misc/pci.ids, /usr/share/hwdata/pci.ids, /usr/share/pci.ids,
# /var/lib/pciutils/pci.ids: the paths in the library), and Debian's pci.ids package (pulled in by
# pciutils) puts one there. So that a run gives the same names on every machine, each of these
# files that exists is covered: by /dev/null (no database) by default, or by FILE with
# --pci-ids; with --pci-ids and no /usr/share/misc/pci.ids on the host, a private tmpfs on
# /usr/share/misc holds a copy of FILE.
set -eu

PCI_IDS=/dev/null
if [ "${1:-}" = --pci-ids ]; then
        [ $# -ge 2 ] || { echo "usage: amdsys-run.sh [--pci-ids FILE] DIR -- COMMAND [ARG]..." >&2; exit 2; }
        if [ ! -f "$2" ] || [ ! -r "$2" ]; then
                echo "amdsys-run: --pci-ids $2 is not a readable file" >&2
                exit 2
        fi
        PCI_IDS=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
        shift 2
fi
if [ $# -lt 3 ] || [ "$2" != "--" ]; then
        echo "usage: amdsys-run.sh [--pci-ids FILE] DIR -- COMMAND [ARG]..." >&2
        exit 2
fi
DIR=$(cd "$1" && pwd)
shift 2
[ -d "$DIR/sys/class/drm" ] || { echo "amdsys-run: $DIR/sys is no tree of mkamdsys.sh" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "amdsys-run: needs root (mount namespace)" >&2; exit 2; }
if [ "$PCI_IDS" != /dev/null ] && [ ! -e /usr/share/misc/pci.ids ] && [ ! -d /usr/share/misc ]; then
        echo "amdsys-run: --pci-ids needs the directory /usr/share/misc (base-files makes it)" >&2
        exit 2
fi

export AMDSYS_DIR="$DIR" AMDSYS_PCI_IDS="$PCI_IDS"
# shellcheck disable=SC2016 # the inner script expands its own variables
exec unshare --mount --propagation private -- sh -c '
        set -e
        mount --make-rprivate /
        mount --bind "$AMDSYS_DIR/sys" /sys
        mount -o remount,bind,ro /sys
        mount -t tmpfs -o mode=1777,size=16m,nosuid,nodev amdsys-shm /dev/shm
        for f in /usr/share/misc/pci.ids /usr/share/hwdata/pci.ids /usr/share/pci.ids \
                /var/lib/pciutils/pci.ids; do
                if [ -e "$f" ]; then mount --bind "$AMDSYS_PCI_IDS" "$f"; fi
        done
        if [ "$AMDSYS_PCI_IDS" != /dev/null ] && [ ! -e /usr/share/misc/pci.ids ]; then
                mount -t tmpfs -o mode=0755,size=4m,nosuid,nodev amdsys-misc /usr/share/misc
                cp "$AMDSYS_PCI_IDS" /usr/share/misc/pci.ids
                chmod 0644 /usr/share/misc/pci.ids
        fi
        unset AMDSYS_DIR AMDSYS_PCI_IDS
        exec "$@"' amdsys-run "$@"
