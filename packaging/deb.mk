# `make deb [DEB_OUT=dir] [DEB_NOSTATIC=1]`: the Debian packages xpuinit_<VERSION>_<arch>.deb and
# xpud_<VERSION>_<arch>.deb (and their -dbgsym packages) in DEB_OUT (default $(BUILD)/deb), built
# by debhelper from packaging/debian (docs/xpud-install.md, "Debian packages").
#
# dpkg-buildpackage wants debian/ at the top of a source tree, and a package build must not write
# into the developer's tree: the recipe copies the source tree (tracked files and new ones git
# does not ignore, with their times) to DEB_OUT/xpuinit-<VERSION>/, puts packaging/debian there as
# debian/, and copies what `make all` and `make static` built in $(BUILD) beside it, times kept, so
# the package's own make finds every object up to date: the packages hold the very programs
# `make check` tested, and nothing is compiled twice. Any source newer than its object is compiled
# again in the copy, never in $(BUILD).
#
# xpuinit-static comes from `make static`, which downloads Debian's cJSON source the first time.
# Without the network it fails and so does make deb; DEB_NOSTATIC=1 builds the packages without
# xpuinit-static instead (the build profile pkg.xpuinit.nostatic), and says so.
DEB_VERSION := $(shell cat VERSION 2>/dev/null)
DEB_OUT ?= $(BUILD)/deb
DEB_SRC = $(DEB_OUT)/xpuinit-$(DEB_VERSION)
# DEB_OUT inside $(BUILD) is not copied into the package's tree (relative to $(BUILD), or an
# absolute path that matches nothing).
DEB_OUT_IN_BUILD = ./$(patsubst $(abspath $(BUILD))/%,%,$(abspath $(DEB_OUT)))
DEB_NOSTATIC ?=
DEB_PROFILES = $(if $(DEB_NOSTATIC),-Ppkg.xpuinit.nostatic)

.PHONY: deb
deb: $(if $(DEB_NOSTATIC),all,static)
	@if [ -n "$(DEB_NOSTATIC)" ]; then \
		echo "deb: DEB_NOSTATIC=1: the xpuinit package is built WITHOUT /usr/bin/xpuinit-static"; fi
	@test -n "$(DEB_VERSION)" || { echo "deb: no VERSION file" >&2; exit 1; }
	@cl=$$(dpkg-parsechangelog -l packaging/debian/changelog -S Version) && \
		if [ "$$cl" != "$(DEB_VERSION)" ]; then \
		echo "deb: packaging/debian/changelog is at $$cl, VERSION at $(DEB_VERSION): add an entry" >&2; \
		exit 1; fi
	@git rev-parse --is-inside-work-tree >/dev/null 2>&1 || \
		{ echo "deb: needs a git checkout (the package's tree is what git lists)" >&2; exit 1; }
	rm -rf $(DEB_SRC)
	rm -f $(DEB_OUT)/xpuinit_$(DEB_VERSION)_* $(DEB_OUT)/xpud_$(DEB_VERSION)_* \
		$(DEB_OUT)/xpuinit-dbgsym_$(DEB_VERSION)_* $(DEB_OUT)/xpud-dbgsym_$(DEB_VERSION)_*
	mkdir -p $(DEB_SRC)/build
	git ls-files -z --cached --others --exclude-standard | \
		tar --null --ignore-failed-read --no-recursion -T - -cf - | tar -C $(DEB_SRC) -xf -
	rm -rf $(DEB_SRC)/debian
	cp -a packaging/debian $(DEB_SRC)/debian
	chmod 0755 $(DEB_SRC)/debian/rules
	tar -C $(BUILD) --exclude=./tests --exclude=./static/apt --exclude=./static/dl \
		--exclude='$(DEB_OUT_IN_BUILD)' -cf - . | tar -C $(DEB_SRC)/build -xf -
	@# No make variable of this make (BUILD=..., DEB_OUT=...) may reach the package's make.
	cd $(DEB_SRC) && env -u MAKEFLAGS -u MFLAGS -u MAKEOVERRIDES -u MAKELEVEL -u BUILD -u DEB_OUT \
		dpkg-buildpackage -b -us -uc -nc -Jauto $(DEB_PROFILES)
	rm -rf $(DEB_SRC)
	@ls -1 $(DEB_OUT)/*_$(DEB_VERSION)_*.deb
