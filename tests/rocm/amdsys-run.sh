#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# amdsys-run.sh: run a command with a fake sysfs tree (tests/rocm/mkamdsys.sh) as /sys, inside a
# private mount namespace, so that programs reading the real /sys (librocm_smi, xpuinit without
# --sys-root) see the fake GPUs.
#
# usage: amdsys-run.sh DIR -- COMMAND [ARG]...
#
# As root: `unshare -m`, then mount propagation of / made private (nothing leaks to the host), DIR/sys
# bound read-only over /sys, and a private tmpfs on /dev/shm (librocm_smi keeps a cross-process
# mutex per card there, /dev/shm/rocm_smi_cardN; a crashed holder must not wedge later runs or the
# host's own ROCm). The mounts vanish with the namespace when COMMAND exits; the exit status is
# COMMAND's. Only programs that read sysfs are fooled: /dev, /proc and everything else stay the
# host's. Limit: a host with real GPUs still has them in /dev and /proc.
set -eu

if [ $# -lt 3 ] || [ "$2" != "--" ]; then
        echo "usage: amdsys-run.sh DIR -- COMMAND [ARG]..." >&2
        exit 2
fi
DIR=$(cd "$1" && pwd)
shift 2
[ -d "$DIR/sys/class/drm" ] || { echo "amdsys-run: $DIR/sys is no tree of mkamdsys.sh" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "amdsys-run: needs root (mount namespace)" >&2; exit 2; }

export AMDSYS_DIR="$DIR"
# shellcheck disable=SC2016 # the inner script expands its own variables
exec unshare --mount --propagation private -- sh -c '
        set -e
        mount --make-rprivate /
        mount --bind "$AMDSYS_DIR/sys" /sys
        mount -o remount,bind,ro /sys
        mount -t tmpfs -o mode=1777,size=16m,nosuid,nodev amdsys-shm /dev/shm
        unset AMDSYS_DIR
        exec "$@"' amdsys-run "$@"
