#!/bin/sh
# xpuinit's own commands run on a built image whose entrypoint is xpuinit, as the documentation
# says: docs/kubernetes.md's line that prints the image's node affinity,
#   docker run --rm --entrypoint /usr/bin/xpuinit IMAGE audit --k8s-affinity /
# run word for word with podman in place of docker (the same options), and the same recipe in
# examples/kubernetes/workload-affinity.yaml, README.md, docs/xpuinit.md and docs/audit.md.
#   - the image: the e2e rootfs (busybox, xpuinit and its libraries) with two objects of device
#     code (sm_80 SASS + compute_90 PTX; gfx90a + gfx1030 in a zstd-compressed bundle, read with
#     the host's libzstd.so.1 copied in), committed by buildah with
#     ENTRYPOINT ["/usr/bin/xpuinit", "--"], as README.md's Dockerfile lines;
#   - without --entrypoint, `podman run --rm IMAGE audit ...` runs a program named audit: exit 127
#     and xpuinit's "cannot run" line (what the recipe used to say);
#   - the recipe exits 0 and prints the node affinity that xpuinit audit --k8s-affinity prints for
#     the same files from outside.
# A real image rather than podman's --rootfs: only an image has an ENTRYPOINT for --entrypoint to
# replace. Hermetic: buildah's and podman's storage (vfs: no mounts), run and temporary
# directories below $E2E_TMP, each run in a private mount namespace (unshare -m), runc,
# cgroupfs, no events, --network none, explicit ulimits. Needs root, buildah, podman, unshare,
# jq and a build; a missing one is a failure. Prints TAP.
. "$(dirname "$0")/lib.sh"
e2e_init
need_tools buildah podman unshare

SRC=$XPU_SRCDIR
IMAGE=localhost/xpu-app:e2e
S=$E2E_TMP/storage
mkdir -p "$S/root" "$S/run" "$S/tmp" || bail "cannot create $S"
# bh ARGS / pm ARGS: buildah / podman on the private storage.
bh() {
        TMPDIR=$S/tmp timeout "$E2E_TIMEOUT" unshare -m --propagation private \
                buildah --root "$S/root" --runroot "$S/run" --storage-driver vfs "$@"
}
pm() {
        TMPDIR=$S/tmp timeout "$E2E_TIMEOUT" unshare -m --propagation private \
                podman --root "$S/root" --runroot "$S/run" --tmpdir "$S/tmp" --storage-driver vfs \
                --runtime runc --cgroup-manager cgroupfs --events-backend none "$@"
}
# pm_run NAME ARGS...: podman run ARGS (options, image, command) with the hermetic options first;
# E2E_RC, E2E_OUT, E2E_ERR as e2e_run sets them. A sanitized pass: no leak checking inside.
pm_run() {
        name=$1
        shift
        if [ -n "${ASAN_OPTIONS:-}" ]; then
                set -- -e ASAN_OPTIONS=detect_leaks=0 "$@"
        fi
        E2E_OUT="$E2E_TMP/$name.out"
        E2E_ERR="$E2E_TMP/$name.err"
        pm run --network none --ulimit nofile=20000:20000 --ulimit nproc=1024:1024 "$@" \
                </dev/null >"$E2E_OUT" 2>"$E2E_ERR"
        E2E_RC=$?
}

# ---- the image ---------------------------------------------------------------------------------
e2e_rootfs_template
R=$E2E_TMP/image-root
cp -a "$E2E_TMP/rootfs.template" "$R" || bail "cannot copy the rootfs"
mkdir -p "$R/usr/lib" || bail "cannot create $R/usr/lib"
cp "$SRC/tests/fixtures/devcode/nvidia/libkernel.so" "$SRC/tests/fixtures/devcode/amd/libhip.so" "$R/usr/lib/" ||
        bail "cannot copy the device-code fixtures"
# The audit reads AMD's zstd-compressed bundles with the image's libzstd.so.1 (a ROCm image has it).
libc=$(ldd "$XPU_BUILD/xpuinit" | sed -n 's/.*libc\.so\.6 => \(\/[^ ]*\) .*/\1/p')
zstd=$(dirname "${libc:-/lib/libc.so.6}")/libzstd.so.1
[ -f "$zstd" ] || bail "no $zstd on this host (libzstd1)"
mkdir -p "$R$(dirname "$zstd")" || bail "cannot create $R$(dirname "$zstd")"
cp -L "$zstd" "$R$zstd" || bail "cannot copy $zstd"
ctr=$(bh from scratch 2>"$E2E_TMP/buildah.err") || {
        diag_file "$E2E_TMP/buildah.err"
        bail "buildah from scratch failed"
}
bh copy "$ctr" "$R" / >/dev/null 2>>"$E2E_TMP/buildah.err" &&
        bh config --entrypoint '["/usr/bin/xpuinit", "--"]' --cmd '["/bin/true"]' "$ctr" 2>>"$E2E_TMP/buildah.err" &&
        bh commit -q "$ctr" "$IMAGE" >/dev/null 2>>"$E2E_TMP/buildah.err"
rc=$?
is "$rc" 0 "buildah commits an image of the e2e rootfs with the device-code fixtures"
[ "$rc" -eq 0 ] || diag_file "$E2E_TMP/buildah.err"
is "$(pm image inspect "$IMAGE" --format '{{json .Config.Entrypoint}} {{json .Config.Cmd}}' 2>&1)" \
        '["/usr/bin/xpuinit","--"] ["/bin/true"]' "... whose entrypoint is xpuinit -- (README.md's Dockerfile lines)"

# ---- the recipe as the documentation writes it ---------------------------------------------------
recipe=$(sed -n 's/^docker run \(.* audit --k8s-affinity \/\)$/docker run \1/p' "$SRC/docs/kubernetes.md")
is "$recipe" "docker run --rm --entrypoint /usr/bin/xpuinit IMAGE audit --k8s-affinity /" \
        "docs/kubernetes.md gives one docker run line for the node affinity, with --entrypoint"
like "$SRC/examples/kubernetes/workload-affinity.yaml" \
        "^#   docker run --rm --entrypoint /usr/bin/xpuinit registry\\.example/xpu-app:1\\.0 audit --k8s-affinity /\$" \
        "examples/kubernetes/workload-affinity.yaml gives the same line for its image"
for doc in README.md docs/xpuinit.md docs/audit.md; do
        found=$(tr '\n' ' ' <"$SRC/$doc" | grep -o 'docker run --rm --entrypoint /usr/bin/xpuinit IMAGE audit')
        is "$found" "docker run --rm --entrypoint /usr/bin/xpuinit IMAGE audit" "$doc gives the same form"
done
# What the old line did: the entrypoint runs "audit" as the workload.
pm_run plain --rm "$IMAGE" audit --k8s-affinity /
is "$E2E_RC" 127 "podman run --rm IMAGE audit --k8s-affinity /: exit 127 (a program named audit)"
like "$E2E_ERR" '^xpuinit: error: cannot run "audit": not found in PATH' "... xpuinit says it cannot run \"audit\""

# The recipe, word for word, podman for docker and this image for IMAGE.
set -f
# shellcheck disable=SC2086 # the recipe's words
set -- $recipe
set +f
[ "$1 $2" = "docker run" ] || bail "the recipe does not start with docker run: $recipe"
shift 2
args=
for w; do
        [ "$w" = IMAGE ] && w=$IMAGE
        args="$args $w"
done
# shellcheck disable=SC2086 # words without blanks
pm_run recipe $args
is "$E2E_RC" 0 "the recipe (podman run --rm --entrypoint /usr/bin/xpuinit IMAGE audit --k8s-affinity /): exit 0"
[ "$E2E_RC" -eq 0 ] || e2e_show
"$XPU_BUILD/xpuinit" audit --k8s-affinity "$R" >"$E2E_TMP/outside.out" 2>"$E2E_TMP/outside.err"
is "$(grep -v '^#' "$E2E_OUT")" "$(grep -v '^#' "$E2E_TMP/outside.out")" \
        "... and prints the node affinity xpuinit audit prints for the same files from outside"
like "$E2E_OUT" '^ *- "sm_80"$' "... admitting sm_80 (the SASS)"
like "$E2E_OUT" '^ *- "sm_90"$' "... sm_90 (the PTX)"
like "$E2E_OUT" '^ *- "gfx90a"$' "... gfx90a"
like "$E2E_OUT" '^ *- "gfx1030"$' "... and gfx1030"
unlike "$E2E_OUT" '"sm_75"' "... not sm_75 (older than the SASS and the PTX)"

e2e_done
