#!/bin/sh
# shellcheck disable=SC2016
# End to end, ROCm SMI: the real Debian librocm-smi64 (5.2.3) reads fake amdgpu/KFD sysfs trees
# (tests/rocm/mkamdsys.sh) bound over /sys in a private mount namespace (tests/rocm/amdsys-run.sh).
# For 1, 4 and 8 GPUs, xpuinit's sysfs reader (`probe --json`) and the
# library (`probe --source rocm_smi --json`) must list the same devices with the same values, and
# those values must be what the builder wrote; merging both (`--source all`) must find nothing to
# disagree about. Trees that make 5.2.3 abort give a backend error naming the signal, exit 0 and
# the fast-path devices. The library names a GPU without product_name from a pci.ids file when the
# machine has one (Debian's pci.ids, which pciutils pulls in): amdsys-run.sh covers the machine's
# database in every run, so the names are the same everywhere, and one case gives the library the
# test's own database and checks the names it takes from it. SC2016: jq programs are single-quoted on purpose.
#
# Needs root (mount namespaces), jq, and librocm-smi64-1: installed with apt-get when missing;
# failing that is a failure (Bail out), never a skip.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || bail "rocm-smi.sh must run as root (mount namespace, apt-get)"
SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
XPU=${XPU_BUILD:-$SRC/build}/xpuinit
[ -x "$XPU" ] || bail "$XPU is not built (make build-tests)"
MK="$SRC/tests/rocm/mkamdsys.sh"
RUN="$SRC/tests/rocm/amdsys-run.sh"

need_pkgs jq util-linux librocm-smi64-1
is "$(dpkg-query -W -f='${Status}' librocm-smi64-1)" "install ok installed" "librocm-smi64-1 is installed"
diag "librocm-smi64-1 $(dpkg-query -W -f='${Version}' librocm-smi64-1)"

TMP=$(mktemp -d /tmp/xpu-rocm-smi.XXXXXX) || bail "mktemp failed"
trap 'rm -rf --one-file-system "$TMP"' EXIT
sys_mounts() { awk '$5 == "/sys"' /proc/self/mountinfo | wc -l; }
shm_files() { find /dev/shm -maxdepth 1 -name 'rocm_smi*' 2>/dev/null | wc -l; }
mounts_before=$(sys_mounts)
shm_before=$(shm_files)

# nth LIST I: element I (0-based) of comma list LIST.
nth() { printf '%s\n' "$1" | awk -F, -v i="$2" '{ print $(i + 1) }'; }

# Projections of the two JSON views, one sorted line per device, fields joined by '|'.
FACTS='.devices[] | [.pci_bus_id, .unique_id, (.memory_total_bytes | tostring), .pci_vendor_id, .pci_device_id,
       (.name // "")] | join("|")'
LIVE='.devices[] | [.pci_bus_id, (.memory_used_bytes | tostring), (.busy_percent | tostring),
      (.temperatures_celsius.edge | tostring), (.temperatures_celsius.junction | tostring),
      (.temperatures_celsius.memory | tostring), (.power_watts | tostring)] | join("|")'
view() { jq -r "$2" "$1" | sort; }

# gpu_case NAME N BUSES NAMES DEVIDS UIDS VRAM_TOTALS VRAM_USED BUSY EDGE JUNCTION MEM POWER [BUILDER OPTION]...
# Every list has N elements; temperatures in millidegrees Celsius, power in microwatts.
gpu_case() {
        name=$1 n=$2 buses=$3 names=$4 devids=$5 uids=$6 vt=$7 vu=$8 busy=$9
        shift 9
        edge=$1 junc=$2 tmem=$3 power=$4
        shift 4
        tree=$TMP/$name
        if ! sh "$MK" -o "$tree" -n "$n" --bus "$buses" --name "$names" --device-id "$devids" --unique-id "$uids" \
                --vram-total "$vt" --vram-used "$vu" --busy "$busy" --temp-edge "$edge" --temp-junction "$junc" \
                --temp-mem "$tmem" --power "$power" "$@" >"$TMP/$name.mk" 2>&1; then
                not_ok "$name: mkamdsys.sh builds the tree"
                diag_file "$TMP/$name.mk"
                return
        fi
        # What the builder wrote, in the projections' form.
        want_facts='' want_live=''
        i=0
        while [ "$i" -lt "$n" ]; do
                bus=0000:$(nth "$buses" "$i"):00.0
                want_facts="$want_facts$bus|$(nth "$uids" "$i")|$(nth "$vt" "$i")|0x1002|0x$(nth "$devids" "$i")|$(nth "$names" "$i")
"
                want_live="$want_live$bus|$(nth "$vu" "$i")|$(nth "$busy" "$i")|$(awk -v e="$(nth "$edge" "$i")" \
                        -v j="$(nth "$junc" "$i")" -v m="$(nth "$tmem" "$i")" -v p="$(nth "$power" "$i")" \
                        'BEGIN { printf "%g|%g|%g|%g", e / 1000, j / 1000, m / 1000, p / 1e6 }')
"
                i=$((i + 1))
        done
        want_facts=$(printf '%s' "$want_facts" | sort)
        want_live=$(printf '%s' "$want_live" | sort)

        sh "$RUN" "$tree" -- "$XPU" --driver-root / probe --json >"$TMP/$name.fast.json" 2>"$TMP/$name.fast.err"
        is "$?" 0 "$name: probe --json (sysfs) exits 0 in the namespace"
        sh "$RUN" "$tree" -- "$XPU" --driver-root / probe --source rocm_smi --json >"$TMP/$name.rsmi.json" \
                2>"$TMP/$name.rsmi.err"
        rc=$?
        is "$rc" 0 "$name: probe --source rocm_smi --json exits 0"
        [ "$rc" -eq 0 ] || diag_file "$TMP/$name.rsmi.err"
        is "$(jq -r '.source + " " + (.library | test("^/.*librocm_smi64[.]so[.]") | tostring)' "$TMP/$name.rsmi.json")" \
                "rocm_smi true" "$name: the view names its source and the library file loaded"
        is "$(jq '.devices | length' "$TMP/$name.fast.json")" "$n" "$name: sysfs lists $n GPU(s)"
        is "$(jq '.devices | length' "$TMP/$name.rsmi.json")" "$n" "$name: ROCm SMI lists $n GPU(s)"
        is "$(view "$TMP/$name.fast.json" "$FACTS")" "$want_facts" \
                "$name: sysfs bus ids, unique ids, VRAM total, PCI ids, names are the builder's"
        is "$(view "$TMP/$name.rsmi.json" "$FACTS")" "$want_facts" \
                "$name: ROCm SMI bus ids, unique ids, VRAM total, PCI ids, names are the builder's"
        is "$(view "$TMP/$name.rsmi.json" "$FACTS")" "$(view "$TMP/$name.fast.json" "$FACTS")" \
                "$name: both readers agree device by device"
        is "$(view "$TMP/$name.rsmi.json" "$LIVE")" "$want_live" \
                "$name: ROCm SMI VRAM used, busy %, edge/junction/memory C, power W are the builder's"
        is "$(jq -r '[.devices[].memory_used_bytes | tostring] | sort | join(",")' "$TMP/$name.fast.json")" \
                "$(printf '%s' "$vu" | tr ',' '\n' | sort | paste -sd, -)" "$name: sysfs VRAM used is the builder's"

        # Merged: the library runs beside the fast path and finds nothing to disagree about.
        sh "$RUN" "$tree" -- "$XPU" --driver-root / probe --source all --json >"$TMP/$name.all.json" 2>/dev/null
        is "$?" 0 "$name: probe --source all --json exits 0"
        is "$(jq -r '.backends.rocm_smi.status + " " + (.backends.rocm_smi.devices | tostring)' "$TMP/$name.all.json")" \
                "ok $n" "$name: the rocm_smi backend matched $n device(s)"
        is "$(jq -r '.warnings // [] | length' "$TMP/$name.all.json")" 0 "$name: merging gives no warning"
        is "$(view "$TMP/$name.all.json" "$FACTS")" "$want_facts" "$name: the merged inventory keeps the values"

        # The same tree through --sys-root: the fast path reads it alike; ROCm SMI refuses. (The
        # driver root is an empty directory: this machine's own pci.ids, outside the namespace,
        # would name the GPUs without a product_name.)
        mkdir -p "$TMP/no-pci-ids"
        "$XPU" --sys-root "$tree" --driver-root "$TMP/no-pci-ids" probe --json >"$TMP/$name.root.json" 2>/dev/null
        is "$(view "$TMP/$name.root.json" "$FACTS")" "$want_facts" "$name: --sys-root TREE gives the same sysfs view"
        "$XPU" --sys-root "$tree" --driver-root / probe --source all --json >"$TMP/$name.root-all.json" 2>/dev/null
        like "$TMP/$name.root-all.json" 'cannot follow --sys-root .*; run it in a mount namespace with the tree bound on /sys' \
                "$name: ROCm SMI refuses --sys-root with the reason"
}

# One GPU, every value chosen.
gpu_case one 1 0c "AMD Instinct MI210" 740f fedcba9876543210 68702699520 123456789 42 51000 55500 48250 95500000

# Four GPUs: KFD order reversed against the DRM order, one without product_name (the library then
# has no name either), a unique id with the top bit set, a busy GPU, sub-zero memory temperature.
gpu_case four 4 0c,1c,2c,3c "AMD Instinct MI210,,AMD Instinct MI250X,AMD Instinct MI100" 740f,740f,740c,738c \
        0000000000000012,8000000000000001,5a1e0000c0ffee02,ffffffffffffffff \
        68702699520,68702699520,137438953472,34342961152 0,1,1073741824,34342961152 0,25,50,100 \
        30000,31000,32000,33000 40000,41500,42000,43000 -1000,0,35000,36000 1000000,2500000,300000000,0 --kfd-reverse

# Names from the PCI id database: the machine's is hidden (a nameless GPU stays nameless, whatever
# pci.ids the machine has); the test's own names the nameless GPU, and product_name still wins
# over it for the named one.
printf '%s\n' '# PCI ids of tests/e2e/rocm-smi.sh' '1002  Advanced Micro Devices, Inc. [AMD/ATI]' \
        '	738c  Fixture Instinct MI100' '	740f  Fixture Instinct MI210' >"$TMP/pci.ids"
tree=$TMP/named
if sh "$MK" -o "$tree" -n 2 --bus 0c,1c --name ",AMD Instinct MI100" --device-id 740f,738c >/dev/null 2>&1; then
        names() { jq -r '[.devices[] | .pci_bus_id + "=" + (.name // "")] | sort | join(",")' "$1"; }
        sh "$RUN" "$tree" -- "$XPU" --driver-root / probe --source rocm_smi --json >"$TMP/named.hidden.json" 2>/dev/null
        is "$(names "$TMP/named.hidden.json")" "0000:0c:00.0=,0000:1c:00.0=AMD Instinct MI100" \
                "named: without a database the library names only the GPU with a product_name"
        sh "$RUN" --pci-ids "$TMP/pci.ids" "$tree" -- "$XPU" --driver-root / probe --source rocm_smi --json \
                >"$TMP/named.ids.json" 2>/dev/null
        is "$(names "$TMP/named.ids.json")" "0000:0c:00.0=Fixture Instinct MI210,0000:1c:00.0=AMD Instinct MI100" \
                "named: with the test's pci.ids the library names the other from it (product_name first)"
        sh "$RUN" --pci-ids "$TMP/pci.ids" "$tree" -- "$XPU" --driver-root / probe --source all --json \
                >"$TMP/named.all.json" 2>/dev/null
        is "$(names "$TMP/named.all.json")" "0000:0c:00.0=Fixture Instinct MI210,0000:1c:00.0=AMD Instinct MI100" \
                "named: the merged inventory takes the library's name where sysfs has none"
        is "$(jq -r '.warnings // [] | length' "$TMP/named.all.json")" 0 "named: a filled name is no disagreement"
else
        not_ok "named: mkamdsys.sh builds the tree"
fi

# Eight GPUs on the bus ids of a real 8 x MI210 host.
gpu_case eight 8 03,26,43,63,83,a3,c3,e3 \
        "AMD Instinct MI210,AMD Instinct MI210,AMD Instinct MI210,AMD Instinct MI210,AMD Instinct MI210,AMD Instinct MI210,AMD Instinct MI210,AMD Instinct MI210" \
        740f,740f,740f,740f,740f,740f,740f,740f \
        c31c435ca66bf59a,bddff1dde02f79ec,f5ef3e744628b12c,22e235479cc58a01,1c8c28d9414179fe,18a7fcf9b717fab7,4c5f675f14e7e4b8,188e1c17d8024bd0 \
        68702699520,68702699520,68702699520,68702699520,68702699520,68702699520,68702699520,68702699520 \
        1,2,3,4,5,6,7,8 10,20,30,40,50,60,70,80 41000,42000,43000,44000,45000,46000,47000,48000 \
        50000,51000,52000,53000,54000,55000,56000,57000 60000,61000,62000,63000,64000,65000,66000,67000 \
        90000000,91000000,92000000,93000000,94000000,95000000,96000000,97000000

# Trees 5.2.3 aborts on: a backend error naming the signal, exit 0, the fast path intact.
for kind in no-io-links no-hwmon; do
        tree=$TMP/abort-$kind
        sh "$MK" -o "$tree" -n 2 --bus 0c,1c --break "$kind" >/dev/null 2>&1 || not_ok "abort-$kind: mkamdsys.sh builds the tree"
        sh "$RUN" "$tree" -- "$XPU" --driver-root / probe --source all --json >"$TMP/abort.json" 2>"$TMP/abort.err"
        is "$?" 0 "abort-$kind: probe --source all --json exits 0"
        is "$(jq -r '.backends.rocm_smi.status' "$TMP/abort.json")" error "abort-$kind: the rocm_smi backend failed"
        is "$(jq -r '.backends.rocm_smi.error' "$TMP/abort.json")" "ROCm SMI helper killed by signal 6 (Aborted)" \
                "abort-$kind: its error names the signal"
        is "$(jq -r '[.devices[].pci_bus_id] | sort | join(",")' "$TMP/abort.json")" "0000:0c:00.0,0000:1c:00.0" \
                "abort-$kind: the fast-path devices are listed"
        like "$TMP/abort.json" 'rocm_smi: ROCm SMI helper killed by signal 6 \(Aborted\); keeping the fast-path inventory' \
                "abort-$kind: a warning says the fast-path inventory is kept"
        like "$TMP/abort.err" 'Assertion .* failed' "abort-$kind: the library's own assertion message reached stderr"
        sh "$RUN" "$tree" -- "$XPU" --driver-root / probe --source rocm_smi --json >"$TMP/abort1.json" 2>/dev/null
        is "$(jq -r '.status + ": " + .error' "$TMP/abort1.json")" "error: ROCm SMI helper killed by signal 6 (Aborted)" \
                "abort-$kind: probe --source rocm_smi reports the error"
done

is "$(sys_mounts)" "$mounts_before" "no mount on /sys is left behind"
is "$(shm_files)" "$shm_before" "no rocm_smi mutex file is left in the host's /dev/shm"
e2e_done
