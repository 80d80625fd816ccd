#!/bin/sh
# xpud's packaging on a stock Debian 12 (docs/xpud-install.md):
#   - every group the units name exists there: in base-passwd's static list
#     (/usr/share/base-passwd/group.master) or made by xpud.sysusers; systemd fails a start with
#     216/GROUP on a missing one (SupplementaryGroups=render did, where udev made no "render");
#   - systemd-sysusers makes the user and group xpud from xpud.sysusers (in a scratch root);
#   - every Documentation= file of the units is installed by `make install` (into a scratch DESTDIR);
#   - README's "Try it on a fixture host" block runs as written under /bin/sh (no job control),
#     prints one xpu_power_watts line per fake GPU and leaves nothing behind.
# Needs systemd-sysusers (package systemd), curl, make. Missing ones fail loudly. Prints TAP.
. "$(dirname "$0")/lib.sh"

SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${XPU_BUILD:-$SRC/build}
UNITS="$SRC/packaging/systemd"
for tool in systemd-sysusers curl make; do
        command -v "$tool" >/dev/null 2>&1 || bail "$tool is missing (make deps)"
done
[ -x "$BUILD/xpud" ] || bail "$BUILD/xpud is not built (make build-tests)"
[ -r /usr/share/base-passwd/group.master ] || bail "/usr/share/base-passwd/group.master is missing (base-passwd)"

T=$(mktemp -d /tmp/xpud-units.XXXXXX) || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT

# ---- groups -----------------------------------------------------------------------------------
# The groups sysusers makes: "g NAME ..." lines.
sysusers_groups=$(awk '$1 == "g" { print $2 }' "$UNITS/xpud.sysusers")
is "$sysusers_groups" "xpud" "xpud.sysusers makes the group xpud"
groups=$(sed -n -e 's/^SupplementaryGroups=//p' -e 's/^Group=//p' -e 's/^SocketGroup=//p' \
        "$UNITS/xpud.service" "$UNITS/xpud.socket" | tr ' ' '\n' | sed '/^$/d' | sort -u)
missing=
for g in $groups; do
        if grep -q "^$g:" /usr/share/base-passwd/group.master; then continue; fi
        if [ "$g" = "$sysusers_groups" ]; then continue; fi
        missing="$missing $g"
done
is "$missing" "" "every group the units name ($(echo "$groups" | tr '\n' ' ' | sed 's/ $//')) exists on a stock Debian 12"
if grep -q '^SupplementaryGroups=' "$UNITS/xpud.service"; then
        not_ok "xpud.service sets no SupplementaryGroups= (a missing group fails the start with 216/GROUP)"
else
        ok "xpud.service sets no SupplementaryGroups= (a missing group fails the start with 216/GROUP)"
fi

# ---- sysusers ---------------------------------------------------------------------------------
mkdir -p "$T/root/etc"
systemd-sysusers --root="$T/root" - <"$UNITS/xpud.sysusers" >"$T/sysusers.log" 2>&1
is "$?" 0 "systemd-sysusers accepts xpud.sysusers"
like "$T/root/etc/group" '^xpud:x:[0-9]+:$' "... and makes the group xpud"
like "$T/root/etc/passwd" '^xpud:x:[0-9]+:[0-9]+:xpud accelerator node daemon:/nonexistent:/usr/sbin/nologin$' \
        "... and the user xpud (no home, no login)"
uid=$(awk -F: '$1 == "xpud" { print $3 }' "$T/root/etc/passwd")
gid=$(awk -F: '$1 == "xpud" { print $3 }' "$T/root/etc/group")
is "$(awk -F: '$1 == "xpud" { print $4 }' "$T/root/etc/passwd")" "$gid" "... whose primary group is xpud"
if [ -n "$uid" ] && [ "$uid" -lt 1000 ]; then ok "... a system uid ($uid)"; else not_ok "... a system uid (got '$uid')"; fi

# ---- Documentation= ---------------------------------------------------------------------------
# -o all: the binaries as built, never rebuilt (without an ASan pass's flags) by this make
make -C "$SRC" -o all install BUILD="$BUILD" DESTDIR="$T/dest" PREFIX=/usr >"$T/install.txt" 2>&1
is "$?" 0 "make install DESTDIR=<scratch>"
docs=$(sed -n 's/^Documentation=//p' "$UNITS/xpud.service" "$UNITS/xpud.socket" | tr ' ' '\n' | sed '/^$/d' | sort -u)
for d in $docs; do
        case "$d" in
        file:/*)
                path=${d#file:}
                if [ -f "$T/dest$path" ]; then
                        ok "Documentation=$d is installed by make install"
                else
                        not_ok "Documentation=$d is installed by make install"
                fi
                # the file it comes from: docs/<name>
                if [ -f "$SRC/docs/$(basename "$path")" ]; then
                        ok "... from docs/$(basename "$path")"
                else
                        not_ok "... from docs/$(basename "$path")"
                fi
                ;;
        *) not_ok "Documentation=$d is a file: URL (nothing else can be checked offline)" ;;
        esac
done

# ---- README's fixture example ----------------------------------------------------------------------
# The first ```sh block after "Try it on a fixture host", run verbatim under /bin/sh -e from a
# directory laid out like the source tree (tests/ and build/ link to this run's), with TMPDIR
# pointing at a scratch directory so that what the block's mktemp -d makes can be checked.
awk '/^Try it on a fixture host/ { on = 1; next } on && /^```sh$/ { inblock = 1; next }
        inblock && /^```$/ { exit } inblock { print } on && /^## / { exit }' "$SRC/README.md" >"$T/readme.sh"
like "$T/readme.sh" '& pid=\$!' "README's example starts xpud with & pid=\$! (no job control in /bin/sh)"
like "$T/readme.sh" 'mktemp -d' "README's example makes its own directory with mktemp -d"
unlike "$T/readme.sh" '/tmp/' "README's example names no fixed path under /tmp"
mkdir -p "$T/tree" "$T/tmp"
ln -s "$SRC/tests" "$T/tree/tests"
ln -s "$BUILD" "$T/tree/build"
(cd "$T/tree" && TMPDIR="$T/tmp" sh -e "$T/readme.sh") >"$T/readme.out" 2>"$T/readme.err"
rc=$?
is "$rc" 0 "README's fixture example runs as written under /bin/sh -e"
[ "$rc" -eq 0 ] || diag_file "$T/readme.err"
is "$(grep -c '^xpu_power_watts{vendor="amd",gpu="[0-3]",' "$T/readme.out")" 4 \
        "... and prints xpu_power_watts for each of the 4 fake GPUs"
is "$(find "$T/tmp" -mindepth 1 | wc -l)" 0 "... and leaves nothing behind (xpud stopped, its directory removed)"

e2e_done
