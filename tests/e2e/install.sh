#!/bin/sh
# `make install` and `make uninstall` into a scratch DESTDIR:
#   - PREFIX=/usr/local installs exactly the programs (xpuinit-static too when it was built),
#     units, sysusers file, man pages and documents, under /usr/local;
#   - the installed units start /usr/local/bin/xpud and point Documentation= at installed files;
#     with the default PREFIX=/usr they are packaging/systemd's files unchanged;
#   - the installed programs are stripped (no .symtab, no .debug_* section) and still run;
#   - the installed man pages are docs/man's;
#   - `make uninstall` with the same PREFIX and DESTDIR leaves no file behind.
# Needs make, readelf (binutils) and a build. Prints TAP.
. "$(dirname "$0")/lib.sh"

SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${XPU_BUILD:-$SRC/build}
for tool in make readelf cmp; do
        command -v "$tool" >/dev/null 2>&1 || bail "$tool is missing (make deps)"
done
for b in xpuinit xpud; do
        [ -x "$BUILD/$b" ] || bail "$BUILD/$b is not built (make build-tests)"
done

T=$(mktemp -d) || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT

# sections FILE: the names of FILE's ELF sections, one per line.
sections() {
        readelf -S -W "$1" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p'
}
# has_symbols FILE: true when FILE has a symbol table or debug information.
has_symbols() {
        sections "$1" | grep -q -e '^\.symtab$' -e '^\.debug_'
}

# A stand-in for build/xpuinit-static (`make static` needs the network): an unstripped copy.
cp "$BUILD/xpuinit" "$T/xpuinit-static"
if has_symbols "$T/xpuinit-static" && has_symbols "$BUILD/xpud"; then
        ok "the built programs carry symbols (so stripping can be seen)"
else
        not_ok "the built programs carry symbols (so stripping can be seen)"
fi

D=$T/dest
# -o all: install what the test run built; never rebuild it here, where this make would not have
# the sanitizer flags of an ASan pass's build directory.
make -C "$SRC" -o all install BUILD="$BUILD" DESTDIR="$D" PREFIX=/usr/local XPUINIT_STATIC="$T/xpuinit-static" \
        >"$T/install.log" 2>&1
rc=$?
is "$rc" 0 "make install DESTDIR=<scratch> PREFIX=/usr/local"
[ "$rc" -eq 0 ] || diag_file "$T/install.log"

want=$(
        for f in bin/xpuinit bin/xpuinit-static bin/xpud lib/systemd/system/xpud.service \
                lib/systemd/system/xpud.socket lib/sysusers.d/xpud.conf share/man/man1/xpuinit.1 \
                share/man/man5/xpuinit-profile.5 share/man/man8/xpud.8; do
                echo "/usr/local/$f"
        done
        for d in "$SRC"/docs/*.md; do echo "/usr/local/share/doc/xpuinit/$(basename "$d")"; done
)
got=$(cd "$D" && find . ! -type d | sed 's|^\.||')
is "$(echo "$got" | sort)" "$(echo "$want" | sort)" "... installs exactly the programs, units, man pages and documents under /usr/local"

# ---- units ------------------------------------------------------------------------------------
U=$D/usr/local/lib/systemd/system
is "$(sed -n 's/^ExecStart=//p' "$U/xpud.service")" "/usr/local/bin/xpud --allow-gid xpud" \
        "xpud.service's ExecStart= is /usr/local/bin/xpud"
unlike "$U/xpud.service" '/usr/bin/|/usr/share/' "xpud.service names no path under /usr/bin or /usr/share"
unlike "$U/xpud.socket" '/usr/bin/|/usr/share/' "xpud.socket names no path under /usr/bin or /usr/share"
missing=
docs=$(sed -n 's/^Documentation=//p' "$U/xpud.service" "$U/xpud.socket" | tr ' ' '\n' | sed '/^$/d')
while read -r doc; do
        [ -f "$D${doc#file:}" ] || missing="$missing $doc"
done <<EOF
$docs
EOF
is "$missing" "" "every Documentation= of the installed units is an installed file"

make -C "$SRC" -o all install BUILD="$BUILD" DESTDIR="$T/usr" >"$T/install-usr.log" 2>&1
is "$?" 0 "make install DESTDIR=<scratch> (default PREFIX=/usr)"
same=yes
for u in xpud.service xpud.socket; do
        cmp -s "$SRC/packaging/systemd/$u" "$T/usr/usr/lib/systemd/system/$u" || same=no
done
is "$same" yes "... installs packaging/systemd's units unchanged"

# ---- programs -----------------------------------------------------------------------------------
B=$D/usr/local/bin
for b in xpuinit xpuinit-static xpud; do
        if [ -f "$B/$b" ] && ! has_symbols "$B/$b"; then
                ok "$b is installed stripped"
        else
                not_ok "$b is installed stripped"
                diag "$(sections "$B/$b" | tr '\n' ' ')"
        fi
done
is "$("$B/xpuinit" version 2>&1 | head -n 1)" "$("$BUILD/xpuinit" version 2>&1 | head -n 1)" \
        "the stripped xpuinit runs"
is "$("$B/xpud" --version 2>&1 | head -n 1)" "$("$BUILD/xpud" --version 2>&1 | head -n 1)" \
        "the stripped xpud runs"

# ---- man pages ----------------------------------------------------------------------------------
same=yes
for m in xpuinit.1 xpuinit-profile.5 xpud.8; do
        cmp -s "$SRC/docs/man/$m" "$D/usr/local/share/man/man${m##*.}/$m" || same=no
done
is "$same" yes "the installed man pages are docs/man's"

# ---- uninstall ----------------------------------------------------------------------------------
make -C "$SRC" uninstall BUILD="$BUILD" DESTDIR="$D" PREFIX=/usr/local >"$T/uninstall.log" 2>&1
is "$?" 0 "make uninstall DESTDIR=<scratch> PREFIX=/usr/local"
is "$(cd "$D" && find . ! -type d | sed 's|^\.||' | tr '\n' ' ')" "" "... leaves no file behind"
if [ -e "$D/usr/local/share/doc/xpuinit" ]; then
        not_ok "... and removes the documents' directory"
else
        ok "... and removes the documents' directory"
fi

e2e_done
