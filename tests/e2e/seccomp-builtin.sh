#!/bin/sh
# The built-in seccomp filters ($XPU_BUILD/gen/builtin-seccomp.inc, written at build time by
# packaging/seccomp-cgen) against the same generator built for the programs' own architecture and
# run there ($XPU_BUILD/tests/seccomp-native, tests/e2e/seccomp-native.c): byte for byte the same.
# In a native build both ran on this machine; in a cross build (make ARCH=arm64) the first ran on
# the build machine with the target's name and the second runs under XPU_TEST_EXEC (qemu-aarch64,
# make check-arm64), so the filters xpuinit and xpud load on arm64 are those a native arm64 build
# would have compiled, with aarch64's call numbers. Prints TAP.

# shellcheck source=tests/e2e/lib.sh
. "${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"

NATIVE="${XPU_BUILD:-}/tests/seccomp-native"
INC="${XPU_BUILD:-}/gen/builtin-seccomp.inc"
[ -x "$NATIVE" ] || bail "$NATIVE is missing (make build-tests)"
[ -f "$INC" ] || bail "$INC is missing (make)"
T=$(mktemp -d) || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT

# shellcheck disable=SC2086 # XPU_TEST_EXEC is a command with its arguments
timeout -k 5 120 ${XPU_TEST_EXEC:-} "$NATIVE" >"$T/native.inc" 2>"$T/err"
rc=$?
is "$rc" 0 "seccomp-cgen runs on the programs' architecture${XPU_TEST_EXEC:+ (under $XPU_TEST_EXEC)}"
[ "$rc" -eq 0 ] || diag_file "$T/err"
for f in default strict xpud; do
        like "$T/native.inc" "^/\\* \"$f\": [0-9]+ instructions\\. \\*/$" "the native generator compiled \"$f\""
done
if cmp -s "$T/native.inc" "$INC"; then
        ok "the built-in filters equal the native compilation byte for byte"
else
        not_ok "the built-in filters equal the native compilation byte for byte"
        diff "$T/native.inc" "$INC" | head -n 20 | sed 's/^/# /'
fi
e2e_done
