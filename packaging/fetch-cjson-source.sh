#!/bin/sh
# Unpack Debian's source of cJSON, the same version as the installed libcjson1, with Debian's
# patches applied, into DEST/src (for `make static`: Debian 12 ships no static libcjson). Uses
# private apt state under DEST: the system's apt configuration is not changed.
#   packaging/fetch-cjson-source.sh DEST
set -eu
mkdir -p "$1"
dest=$(cd "$1" && pwd) # absolute: apt runs from another directory below
if [ -f "$dest/src/cJSON.c" ]; then
        exit 0
fi
# The first line: with the arm64 libraries installed (install-deps.sh arm64) dpkg lists libcjson1
# once per architecture, the same version (multiarch).
ver=$(dpkg-query -W -f='${Version}\n' libcjson1 2>/dev/null | head -n 1)
[ -n "$ver" ] || {
        echo "fetch-cjson-source: libcjson1 is not installed (make deps)" >&2
        exit 1
}
# shellcheck disable=SC1091 # the system's file, read at run time
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
mkdir -p "$dest/apt/lists/partial" "$dest/dl"
printf 'deb-src http://deb.debian.org/debian %s main\ndeb-src http://deb.debian.org/debian-security %s-security main\n' \
        "$codename" "$codename" >"$dest/apt/sources.list"
apt_private() {
        apt-get -q -o Dir::Etc::SourceList="$dest/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
                -o Dir::State::Lists="$dest/apt/lists" "$@"
}
apt_private update >/dev/null
(cd "$dest/dl" && apt_private source --download-only "cjson=$ver" >/dev/null 2>&1) || {
        echo "fetch-cjson-source: cannot download the source of cjson $ver from Debian" >&2
        exit 1
}
rm -rf "$dest/src"
# apt checked the files against the signed Sources index; without debian-keyring, dpkg-source
# can only say it has no key for the .dsc signature itself.
dpkg-source -q -x "$dest/dl"/cjson_*.dsc "$dest/src" >/dev/null 2>&1
test -f "$dest/src/cJSON.c"
echo "fetch-cjson-source: cJSON $ver in $dest/src"
