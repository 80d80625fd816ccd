#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# mkamdsys.sh: write a fake amdgpu + KFD sysfs tree with N GPUs and chosen values, laid out as on
# a real host (relative links as the kernel makes them), for two readers at once:
#   - xpuinit's sysfs fast path, through --sys-root DIR (the tree is DIR/sys);
#   - the real ROCm SMI library (Debian librocm-smi64-1 5.2.3), when DIR/sys is bound over /sys in
#     a private mount namespace (tests/rocm/amdsys-run.sh).
#
# usage: mkamdsys.sh -o DIR [-n N] [OPTION VALUE-LIST]... [--kfd-reverse] [--break KIND]
#   -o DIR             output directory (created; must not exist or be empty)
#   -n N               GPUs, 1..8 (default 1)
# Per-GPU values are comma lists; element i belongs to GPU i (card i), the last one repeats:
#   --bus HEX          PCI bus number of GPU i, domain 0000, device 00, function 0
#                      (default 0c,1c,2c,...: 0c + 0x10 * i)
#   --name TEXT        device/product_name ("" writes no product_name file); no commas inside
#                      (default "AMD Instinct MI210")
#   --device-id HEX    PCI device id, 4 hex digits (default 740f)
#   --unique-id HEX    device/unique_id, 16 hex digits; the KFD node gets it in decimal
#                      (default 5a1e0000c0ffee0<i>)
#   --vram-total B     mem_info_vram_total and the KFD frame-buffer bank, bytes (default 68702699520)
#   --vram-used B      mem_info_vram_used, bytes (default 1073741824)
#   --busy P           gpu_busy_percent, percent (default 0,25,50,75)
#   --temp-edge MC     hwmon temp1_input "edge", millidegrees Celsius (default 41000)
#   --temp-junction MC hwmon temp2_input "junction", millidegrees Celsius (default 44000)
#   --temp-mem MC      hwmon temp3_input "mem", millidegrees Celsius (default 40000)
#   --junction-crit MC hwmon temp2_crit, the junction's slowdown limit, millidegrees Celsius
#                      (default, or an empty element: no file, as on an ASIC without it)
#   --junction-emergency MC  hwmon temp2_emergency, its shutdown limit (default: no file)
#   --power UW         hwmon power1_average, microwatts (default 95000000)
#   --kfd-reverse      number the KFD GPU nodes in reverse card order (node 1 = the last card), as
#                      on hosts where HIP's order is not the DRM order
#   --break KIND       a tree librocm_smi 5.2.3 aborts on (SIGABRT, Debian keeps its assert()s):
#                        no-io-links   KFD GPU node 1 lacks io_links/: rsmi_init aborts
#                        no-hwmon      GPU 0 has no hwmon/: the temperature getter aborts
#                      The fast path reads such a tree fine.
# Layout (what 5.2.3 needs, found by running it against such trees): class/drm/cardN links whose
# text ends in the PCI address; device/vendor 0x1002 and device/vbios_version (else not AMD);
# hwmon/hwmonN/name "amdgpu" with in0_label; KFD node properties with location_id, domain, hive_id,
# simd_arrays_per_engine, array_count, cu_per_simd_array; io_links/ in every KFD node; card numbers
# without gaps. The tree is world-readable (the vendor helper runs as nobody).
set -eu

usage() {
        sed -n '3,/^set -eu/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
        exit 2
}

N=1 OUT='' BUS='' NAME="AMD Instinct MI210" DEVID=740f UID_HEX='' VRAMT=68702699520 VRAMU=1073741824
BUSY=0,25,50,75 TEDGE=41000 TJUNC=44000 TMEM=40000 POWER=95000000 REVERSE=0 BREAK='' JCRIT='' JEMERG=''
while [ $# -gt 0 ]; do
        case "$1" in
        -o) OUT=${2?}; shift 2 ;;
        -n) N=${2?}; shift 2 ;;
        --bus) BUS=${2?}; shift 2 ;;
        --name) NAME=${2?}; shift 2 ;;
        --device-id) DEVID=${2?}; shift 2 ;;
        --unique-id) UID_HEX=${2?}; shift 2 ;;
        --vram-total) VRAMT=${2?}; shift 2 ;;
        --vram-used) VRAMU=${2?}; shift 2 ;;
        --busy) BUSY=${2?}; shift 2 ;;
        --temp-edge) TEDGE=${2?}; shift 2 ;;
        --temp-junction) TJUNC=${2?}; shift 2 ;;
        --temp-mem) TMEM=${2?}; shift 2 ;;
        --junction-crit) JCRIT=${2?}; shift 2 ;;
        --junction-emergency) JEMERG=${2?}; shift 2 ;;
        --power) POWER=${2?}; shift 2 ;;
        --kfd-reverse) REVERSE=1; shift ;;
        --break) BREAK=${2?}; shift 2 ;;
        -h | --help) usage ;;
        *) echo "mkamdsys: unknown option $1" >&2; usage ;;
        esac
done

die() {
        echo "mkamdsys: $*" >&2
        exit 2
}
[ -n "$OUT" ] || die "-o DIR is required"
case "$N" in [1-8]) ;; *) die "-n must be 1..8, not $N" ;; esac
case "$BREAK" in "" | no-io-links | no-hwmon) ;; *) die "--break must be no-io-links or no-hwmon" ;; esac
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT")" ]; then
        die "$OUT exists and is not empty"
fi

# Element $2 (0-based) of comma list $1; the last element repeats.
pick() {
        printf '%s\n' "$1" | awk -F, -v i="$2" '{ k = i + 1; if (k > NF) k = NF; print $k }'
}
# Check that $2 is $1 ("dec" = decimal digits, "int" = the same with an optional '-', "hex" = hex
# digits) of at most $3 digits.
want() {
        v=$2
        [ "$1" != int ] || v=${v#-}
        case "$v" in
        "" | *[!0-9a-fA-F]*) die "\"$2\" is not a number" ;;
        esac
        [ "$1" = hex ] || case "$v" in *[!0-9]*) die "\"$2\" is not a decimal number" ;; esac
        [ "${#v}" -le "$3" ] || die "\"$2\" has more than $3 digits"
}
# Decimal text of a hex number of up to 16 digits (64 bits; the shell's arithmetic is signed).
hex2dec() {
        printf '%s\n' "$1" | awk '{
                n = 1; d[1] = 0; s = tolower($0)
                for (i = 1; i <= length(s); i++) {
                        c = index("0123456789abcdef", substr(s, i, 1)) - 1
                        for (k = 1; k <= n; k++) { v = d[k] * 16 + c; d[k] = v % 10; c = int(v / 10) }
                        while (c > 0) { d[++n] = c % 10; c = int(c / 10) }
                }
                out = ""; for (k = n; k >= 1; k--) out = out d[k]; print out }'
}
# put FILE TEXT: one line, parents created.
put() {
        mkdir -p "$(dirname "$1")"
        printf '%s\n' "$2" >"$1"
}

umask 022
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
S=$OUT/sys
NODES=$S/devices/virtual/kfd/kfd/topology/nodes
mkdir -p "$S/class/drm" "$S/class/kfd" "$S/bus/pci/devices" "$S/bus/pci/drivers/amdgpu" \
        "$S/module/amdgpu/drivers" "$NODES"
ln -s ../../devices/virtual/kfd/kfd "$S/class/kfd/kfd"
ln -s ../../../bus/pci/drivers/amdgpu "$S/module/amdgpu/drivers/pci:amdgpu"
put "$S/module/amdgpu/version" "6.7.0"
put "$S/module/amdgpu/initstate" live
put "$S/devices/virtual/kfd/kfd/dev" "511:0"
put "$S/devices/virtual/kfd/kfd/topology/generation_id" 1
printf 'platform_oem 0\nplatform_id 0\nplatform_rev 0\n' >"$S/devices/virtual/kfd/kfd/topology/system_properties"

# KFD node properties: the keys libhsakmt and librocm_smi read; $1 file, then values.
node_properties() { # FILE SIMD GFX DEVID LOCATION RENDER UNIQUE_DEC CPU_CORES
        cat >"$1" <<EOF
cpu_cores_count $8
simd_count $2
mem_banks_count 1
caches_count 0
io_links_count 1
p2p_links_count 0
cpu_core_id_base 0
simd_id_base 0
max_waves_per_simd 8
lds_size_in_kb 64
gds_size_in_kb 0
num_gws 64
wave_front_size 64
array_count 8
simd_arrays_per_engine 1
cu_per_simd_array 13
simd_per_cu 4
max_slots_scratch_cu 32
gfx_target_version $3
vendor_id $( [ "$2" = 0 ] && echo 0 || echo 4098)
device_id $4
location_id $5
domain 0
drm_render_minor $6
hive_id 0
num_sdma_engines 2
num_sdma_xgmi_engines 0
num_sdma_queues_per_engine 8
num_cp_queues 24
max_engine_clk_fcompute 1700
local_mem_size 0
fw_version 78
capability 746840704
debug_prop 1495
sdma_fw_version 8
unique_id $7
num_xcc 1
max_engine_clk_ccompute 3000
EOF
}
io_link() { # NODE_DIR FROM TO
        mkdir -p "$1/io_links/0"
        printf 'type 2\nversion_major 0\nversion_minor 0\nnode_from %s\nnode_to %s\nweight 20\n' "$2" "$3" \
                >"$1/io_links/0/properties"
}

# Node 0: the CPU.
mkdir -p "$NODES/0/mem_banks" "$NODES/0/caches" "$NODES/0/p2p_links"
put "$NODES/0/gpu_id" 0
put "$NODES/0/name" ""
node_properties "$NODES/0/properties" 0 0 0 0 0 0 16
io_link "$NODES/0" 0 1

i=0
while [ "$i" -lt "$N" ]; do
        if [ -n "$BUS" ]; then bus=$(pick "$BUS" "$i"); else bus=$(printf '%02x' $((0x0c + 16 * i))); fi
        want hex "$bus" 2
        bus=$(printf '%02x' $((0x$bus)))
        bdf=0000:$bus:00.0
        name=$(pick "$NAME" "$i")
        devid=$(pick "$DEVID" "$i")
        want hex "$devid" 4
        if [ -n "$UID_HEX" ]; then uid=$(pick "$UID_HEX" "$i"); else uid=5a1e0000c0ffee0$i; fi
        want hex "$uid" 16
        uid=$(printf '%s' "$uid" | tr 'A-F' 'a-f')
        vramt=$(pick "$VRAMT" "$i") vramu=$(pick "$VRAMU" "$i") busy=$(pick "$BUSY" "$i")
        tedge=$(pick "$TEDGE" "$i") tjunc=$(pick "$TJUNC" "$i") tmem=$(pick "$TMEM" "$i")
        power=$(pick "$POWER" "$i")
        for v in "$vramt" "$vramu" "$busy" "$power"; do want dec "$v" 19; done
        for v in "$tedge" "$tjunc" "$tmem"; do want int "$v" 9; done
        jcrit='' jemerg=''
        [ -z "$JCRIT" ] || jcrit=$(pick "$JCRIT" "$i")
        [ -z "$JEMERG" ] || jemerg=$(pick "$JEMERG" "$i")
        for v in $jcrit $jemerg; do want int "$v" 9; done

        D=$S/devices/pci0000:00/$bdf
        mkdir -p "$D"
        put "$D/vendor" 0x1002
        put "$D/device" "0x$devid"
        put "$D/subsystem_vendor" 0x1002
        put "$D/subsystem_device" 0x0c34
        put "$D/class" 0x038000
        put "$D/numa_node" 0
        put "$D/vbios_version" "113-D67301-063"
        [ -z "$name" ] || put "$D/product_name" "$name"
        put "$D/unique_id" "$(printf '%016s' "$uid" | tr ' ' 0)"
        put "$D/gpu_busy_percent" "$busy"
        put "$D/mem_info_vram_total" "$vramt"
        put "$D/mem_info_vram_used" "$vramu"
        put "$D/uevent" "PCI_SLOT_NAME=$bdf"
        ln -s ../../../bus/pci/drivers/amdgpu "$D/driver"
        ln -s "../../../devices/pci0000:00/$bdf" "$S/bus/pci/devices/$bdf"
        ln -s "../../../devices/pci0000:00/$bdf" "$S/bus/pci/drivers/amdgpu/$bdf"

        if [ "$BREAK" != no-hwmon ] || [ "$i" != 0 ]; then
                H=$D/hwmon/hwmon$i
                put "$H/name" amdgpu
                put "$H/temp1_label" edge
                put "$H/temp1_input" "$tedge"
                put "$H/temp2_label" junction
                put "$H/temp2_input" "$tjunc"
                [ -z "$jcrit" ] || put "$H/temp2_crit" "$jcrit"
                [ -z "$jemerg" ] || put "$H/temp2_emergency" "$jemerg"
                put "$H/temp3_label" mem
                put "$H/temp3_input" "$tmem"
                put "$H/power1_average" "$power"
                # 5.2.3 maps the voltage labels at init and throws without in0_label.
                put "$H/in0_label" vddgfx
                put "$H/in0_input" 806
        fi

        render=$((128 + i))
        put "$D/drm/card$i/dev" "226:$i"
        ln -s "../../../$bdf" "$D/drm/card$i/device"
        put "$D/drm/renderD$render/dev" "226:$render"
        ln -s "../../../$bdf" "$D/drm/renderD$render/device"
        ln -s "../../devices/pci0000:00/$bdf/drm/card$i" "$S/class/drm/card$i"
        ln -s "../../devices/pci0000:00/$bdf/drm/renderD$render" "$S/class/drm/renderD$render"

        node=$((i + 1))
        [ "$REVERSE" = 0 ] || node=$((N - i))
        K=$NODES/$node
        mkdir -p "$K/caches" "$K/p2p_links" "$K/mem_banks/0"
        put "$K/gpu_id" $((41000 + 1111 * node))
        put "$K/name" "ip discovery"
        node_properties "$K/properties" 416 90010 $((0x$devid)) $((0x$bus << 8)) "$render" "$(hex2dec "$uid")" 0
        printf 'heap_type 1\nsize_in_bytes %s\nflags 0\nwidth 4096\nmem_clk_max 1600\n' "$vramt" \
                >"$K/mem_banks/0/properties"
        if [ "$BREAK" != no-io-links ] || [ "$node" != 1 ]; then
                io_link "$K" "$node" 0
        fi
        i=$((i + 1))
done
echo "mkamdsys: $N GPU(s) in $OUT/sys"
