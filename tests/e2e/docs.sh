#!/bin/sh
# shellcheck disable=SC2016
# The documentation as users read it:
#   - docs/profiles.md's example profile (its first ```json block) is accepted by xpuinit and,
#     against the NVIDIA fixture host with a driver root holding every library of the built-in
#     nvidia-cuda profile, injects only utility and compute libraries: none of the graphics, video,
#     display or ngx lists (a glob such as libnvidia-*.so would take them);
#   - the man pages docs/man/xpuinit.1, xpud.8 and xpuinit-profile.5 format without a warning
#     (man --warnings, as lintian runs it) and lexgrog reads their NAME lines;
#   - README.md, docs/*.md and the man pages speak to users: no development history ("issue N",
#     "design §N", notes kept outside the repository, lent machines);
#   - docs/architecture.md's source tree names only paths that exist, every directory of the
#     source and every C file of the programs.
# SC2016: jq programs are single-quoted on purpose. Needs jq and a build. Prints TAP.
. "$(dirname "$0")/lib.sh"

SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${XPU_BUILD:-$SRC/build}
XPU=$BUILD/xpuinit
[ -x "$XPU" ] || bail "$XPU is not built (make build-tests)"
need_tools jq man lexgrog
[ "$(id -u)" -eq 0 ] || bail "docs.sh must run as root (mknod for the fixture's device nodes)"

T=$(mktemp -d) || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT
# The vendor helper runs as nobody; it must reach the driver root.
chmod 0755 "$T"

# ---- docs/profiles.md's example -----------------------------------------------------------------
FX=$SRC/tests/fixtures/hosts/nvidia-rtx2080ti-x8
BUILTIN=$SRC/profiles/nvidia-cuda.json
mkdir -p "$T/profiles"
awk '/^## Format/ { on = 1 } on && /^```json$/ { inblock = 1; next } inblock && /^```$/ { exit }
        inblock { print }' "$SRC/docs/profiles.md" >"$T/profiles/example.json"
is "$(jq -r .name "$T/profiles/example.json" 2>/dev/null)" nvidia-cuda \
        "docs/profiles.md's example is JSON and replaces the built-in nvidia-cuda"

sh "$SRC/tests/fixtures/mkdriverroot.sh" "$FX" "$T/drv" "$BUILD" >/dev/null 2>&1 || bail "mkdriverroot.sh failed"
sh "$SRC/tests/fixtures/mkdevroot.sh" "$FX" "$T/devroot" >/dev/null 2>&1 || bail "mkdevroot.sh failed"
ver=$(e2e_nvidia_version "$FX") || bail "no driver version in $FX"
libdir=$T/drv/$(e2e_nvidia_libdir "$FX")
# Every library the built-in profile knows, of any capability, under the running version.
for base in $(jq -r '.libraries[][]' "$BUILTIN"); do
        [ -e "$libdir/$base.$ver" ] || : >"$libdir/$base.$ver"
done
"$XPU" plan --json --sys-root "$FX" --dev-root "$T/devroot" --driver-root "$T/drv" \
        --profile-dir "$T/profiles" -- /bin/true >"$T/plan.json" 2>"$T/plan.err"
rc=$?
is "$rc" 0 "xpuinit plan accepts docs/profiles.md's example"
[ "$rc" -eq 0 ] || diag_file "$T/plan.err"
is "$(jq -r .profile "$T/plan.json")" nvidia-cuda "... and chooses it on the NVIDIA fixture host"
# Base names ("libx.so") of the libraries the plan injects.
jq -r '.operations[] | select(.op == "bind" or .op == "symlink") | (.source // empty)' "$T/plan.json" |
        sed -n 's|.*/\(lib[^/]*\.so\)\.[0-9.]*$|\1|p' | sort -u >"$T/injected"
jq -r '(.libraries.utility // []) + (.libraries.compute // []) | .[]' "$BUILTIN" | sort -u >"$T/compute"
jq -r '[.libraries | to_entries[] | select(.key != "utility" and .key != "compute") | .value[]] | .[]' \
        "$BUILTIN" | sort -u >"$T/graphics"
is "$(comm -12 "$T/injected" "$T/graphics" | tr '\n' ' ')" "" \
        "... which injects no graphics, video, display or ngx library"
is "$(comm -23 "$T/injected" "$T/compute" | tr '\n' ' ')" "" \
        "... and only libraries of the built-in's utility and compute lists"
is "$(grep -c -e '^libnvidia-pkcs11\.so$' -e '^libnvidia-pkcs11-openssl3\.so$' -e '^libcuda\.so$' "$T/injected")" 3 \
        "... among them libcuda and both libraries its glob names (libnvidia-pkcs11*.so)"

# ---- man pages ----------------------------------------------------------------------------------
for m in xpuinit.1 xpud.8 xpuinit-profile.5; do
        f=$SRC/docs/man/$m
        if [ ! -f "$f" ]; then
                not_ok "docs/man/$m exists"
                continue
        fi
        LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$f" >"$T/man.out" 2>"$T/man.err"
        is "$?:$(cat "$T/man.err")" "0:" "docs/man/$m formats without a warning (man --warnings)"
        is "$(lexgrog "$f" 2>&1 | sed 's/^[^:]*: "\([^ ]*\) - .*/\1/')" "${m%.*}" "lexgrog reads $m's NAME line"
done

# ---- no development history in what users read ------------------------------------------------
HISTORY='\b[Ii]ssue [0-9]+|design( \.md)? ?§|design\.md|\.\./shared|shared/research|research/[a-z-]+\.md|\blent\b|\bnot drawn\b'
found=$(cd "$SRC" && grep -nE "$HISTORY" README.md docs/*.md docs/man/* 2>/dev/null)
is "$found" "" "README.md, docs/ and the man pages name no development history"

# ---- docs/architecture.md's source tree -----------------------------------------------------------
# The paths at the start of the lines of its "Source tree" block.
awk '/^## Source tree/ { on = 1 } on && /^```$/ { if (inblock) exit; inblock = 1; next }
        inblock && /^[a-zA-Z]/ { print $1 }' "$SRC/docs/architecture.md" >"$T/tree"
if [ -s "$T/tree" ]; then ok "docs/architecture.md has a source tree block"; else not_ok "docs/architecture.md has a source tree block"; fi
missing=
while read -r p; do
        [ -e "$SRC/$p" ] || missing="$missing $p"
done <"$T/tree"
is "$missing" "" "every path docs/architecture.md's source tree names exists"
unlisted=
# The folders of probes/ (base, sandbox, devcode and every vendor's) by wildcard: a new vendor's
# folder is checked without naming it here.
for d in probes/ "$SRC"/probes/*/ entrypoint/ daemon/ profiles/ packaging/ tests/ examples/ docs/; do
        d=${d#"$SRC"/}
        grep -qx "$d" "$T/tree" || unlisted="$unlisted $d"
done
is "$unlisted" "" "docs/architecture.md's source tree lists every directory of the source"
for f in "$SRC"/entrypoint/*.c "$SRC"/daemon/*.c "$SRC"/probes/*.c "$SRC"/probes/*/*.c "$SRC"/packaging/*.c; do
        rel=${f#"$SRC"/}
        grep -qx "$rel" "$T/tree" || unlisted="$unlisted $rel"
done
is "$unlisted" "" "docs/architecture.md's source tree names every C source file of the programs"

e2e_done
