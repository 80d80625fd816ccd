#!/bin/sh
# Product names in UTF-8, end to end: a fake AMD host (tests/rocm/mkamdsys.sh) whose GPU 0 is
# named "AMD Radeon™ Pro W7900" and whose GPU 1's product_name holds a byte that is not UTF-8 and
# an escape sequence. `xpuinit probe --json` and xpud's /v1/devices keep the UTF-8 name byte for
# byte and show each bad byte or control character as U+FFFD; so does the `name` label of
# xpu_info in /metrics, which `promtool check metrics` accepts; the NFD product label still
# follows the label rules. Needs root (xpud binds and hardens as root here), curl, jq and promtool
# (make deps); missing ones fail loudly. Prints TAP.

# shellcheck source=tests/e2e/lib.sh
. "${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"

XPUINIT="${XPU_BUILD:-}/xpuinit"
XPUD="${XPU_BUILD:-}/xpud"
W7900=$(printf 'AMD Radeon\342\204\242 Pro W7900') # ™ is E2 84 A2
FFFD=$(printf '\357\277\275')
# "Radeon<FF> Pro<ESC>[2J": the two bad characters, each one U+FFFD.
BAD_WANT="Radeon$FFFD Pro${FFFD}[2J"
T=
XPID=

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
        [ -n "$XPID" ] && kill -KILL "$XPID" 2>/dev/null
        [ -n "$T" ] && rm -rf "$T"
}

[ "$(id -u)" -eq 0 ] || bail "xpud end-to-end tests must run as root"
need_tools curl jq promtool
for b in "$XPUD" "$XPUINIT"; do
        [ -x "$b" ] || bail "$b is missing (make build-tests)"
done
T=$(mktemp -d /tmp/xpud-names.XXXXXX) || bail "mktemp failed"
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 0755 "$T"

sh "$XPU_SRCDIR/tests/rocm/mkamdsys.sh" -o "$T/host" -n 2 --name "$W7900" >/dev/null || bail "mkamdsys.sh failed"
printf 'Radeon\377 Pro\033[2J\n' >"$T/host/sys/devices/pci0000:00/0000:1c:00.0/product_name"

# ---- xpuinit probe --json -------------------------------------------------------------------------

"$XPUINIT" probe --json --sys-root "$T/host" --dev-root "$T/host" >"$T/probe.json" 2>"$T/probe.err"
is "$?" 0 "xpuinit probe --json on the host: exit 0"
is "$(jq -r '.devices[0].name' "$T/probe.json")" "$W7900" "probe --json: the UTF-8 name, byte for byte"
is "$(jq -r '.devices[1].name' "$T/probe.json")" "$BAD_WANT" "probe --json: bad bytes shown as U+FFFD"
like "$T/probe.err" '^xpuinit: warning: /sys/class/drm/card1/device/product_name: not UTF-8 text: 2 character\(s\) shown as U\+FFFD$' \
        "probe: one warning names the file and what was replaced"
if grep -q "$(printf '\033')" "$T/probe.json" "$T/probe.err"; then
        not_ok "no raw escape byte in the JSON or on stderr"
else
        ok "no raw escape byte in the JSON or on stderr"
fi
"$XPUINIT" probe --sys-root "$T/host" --dev-root "$T/host" >"$T/probe.txt" 2>/dev/null
like "$T/probe.txt" "0000:0c:00.0  $W7900  " "probe (text): the UTF-8 name"

# ---- xpud -----------------------------------------------------------------------------------------

SOCK="$T/xpud.sock"
"$XPUD" --socket "$SOCK" --sys-root "$T/host" --dev-root "$T/host" --driver-root "$T/host" --interval 60 \
        --nfd-file "$T/labels" 2>"$T/xpud.log" &
XPID=$!
i=0
until [ "$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" http://xpud/readyz)" = 200 ] || [ $i -ge 150 ]; do
        i=$((i + 1))
        sleep 0.1
done
curl -s --unix-socket "$SOCK" http://xpud/v1/devices >"$T/devices.json"
curl -s --unix-socket "$SOCK" http://xpud/v1/devices/0 >"$T/device0.json"
curl -s --unix-socket "$SOCK" http://xpud/metrics >"$T/metrics.prom"
is "$(jq -r '.devices[0].name' "$T/devices.json")" "$W7900" "/v1/devices: the UTF-8 name, byte for byte"
is "$(jq -r '.name' "$T/device0.json")" "$W7900" "/v1/devices/0: the same"
is "$(jq -r '.devices[1].name' "$T/devices.json")" "$BAD_WANT" "/v1/devices: bad bytes shown as U+FFFD"
like "$T/metrics.prom" "^xpu_info\{vendor=\"amd\",gpu=\"0\",.*name=\"$W7900\"" "/metrics: xpu_info's name label in UTF-8"
like "$T/metrics.prom" "^xpu_info\{vendor=\"amd\",gpu=\"1\",.*name=\"Radeon$FFFD Pro$FFFD\[2J\"" \
        "/metrics: bad bytes shown as U+FFFD in the label"
promtool check metrics <"$T/metrics.prom" >"$T/promtool.out" 2>&1
is "$?:$(cat "$T/promtool.out")" "0:" "promtool check metrics accepts the body, with no lint line"
like "$T/labels" '^feature\.node\.kubernetes\.io/xpu\.amd\.product=AMD-Radeon-Pro-W7900$' \
        "NFD: the product label keeps to [A-Za-z0-9._-]"
kill -TERM "$XPID"
wait "$XPID"
is "$?" 0 "xpud exits 0 on SIGTERM"
XPID=
e2e_done
