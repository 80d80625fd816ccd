# xpuinit / xpud — non-recursive GNU Make build (docs/architecture.md).
# Targets: all, check, check-asan (alias asan), check-arm64, check-real, demo, install, uninstall, static, fuzz, bench, lint,
# deps, clean.
#
#   make check        build (build/) and run every test, and the same tests built with ASan +
#                     UBSan (build-asan/, as check-asan) at the same time; the last line is
#                     "N passed, N failed" for both passes together (each pass has its own line
#                     before it).
#   make check-asan   only the ASan + UBSan pass: unit, fuzz-replay and end-to-end tests built in
#                     build-asan/ with -fsanitize=address,undefined -fno-sanitize-recover=all.
#                     With BUILD=dir the sanitizer build is dir-asan/ (ASAN_BUILD=dir2 to change).
#   make fuzz [FUZZ_SECONDS=N] [FUZZ_TARGETS="select xpud-route"]
#                     build the libFuzzer targets (tests/fuzz/, clang) in build-fuzz/ and run each
#                     for N seconds (default 60); docs/fuzzing.md.
#   BUILD=dir         another build directory (each helper builds in its own).
#   make ARCH=arm64   cross-build for aarch64 (Grace, Jetson) into build/arm64/ with Debian's
#                     aarch64-linux-gnu-gcc and the :arm64 -dev packages (sh packaging/install-deps.sh
#                     arm64); the generators run on the build machine (build/arm64/host/).
#   make check-arm64  that build's unit tests and probe/plan end-to-end tests under qemu-aarch64
#                     (tests/run-tests.sh with XPU_TEST_EXEC; docs/architecture.md, "arm64").

# The architecture built for: the build machine's unless ARCH is given on the command line (an ARCH
# in the environment, as some CI systems set for their own use, is ignored). arm64 and aarch64 are
# the same target.
HOST_ARCH := $(shell uname -m)
ifneq ($(origin ARCH),command line)
ARCH := $(HOST_ARCH)
endif
ifeq ($(ARCH),arm64)
override ARCH := aarch64
endif
# A cross build: the target's compiler, binutils and pkg-config (Debian's triplet-prefixed tools;
# pkg-config then reads /usr/lib/<triplet>/pkgconfig), its own build directory, and the generators
# built for the build machine in $(BUILD)/host with its compiler (HOST_CC).
CROSS :=
ifneq ($(ARCH),$(HOST_ARCH))
ifeq ($(ARCH),aarch64)
CROSS := aarch64-linux-gnu-
else
$(error ARCH=$(ARCH): no cross build for it; use ARCH=arm64 or no ARCH (this machine's $(HOST_ARCH)))
endif
ifneq ($(origin CC),command line)
CC := $(CROSS)gcc
endif
ifneq ($(origin AR),command line)
AR := $(CROSS)ar
endif
ifneq ($(origin STRIP),command line)
STRIP := $(CROSS)strip
endif
ifneq ($(origin PKG_CONFIG),command line)
PKG_CONFIG := $(CROSS)pkg-config
endif
ifneq ($(origin BUILD),command line)
BUILD := build/arm64
endif
endif
HOST_CC ?= gcc
HOST_BUILD := $(BUILD)/host

CC ?= gcc
PKG_CONFIG ?= pkg-config
# No built-in rules: with them, make "remakes" each included .d file by linking a .d.o it first
# compiles through the pattern rules below (and ignores the failure).
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
BUILD ?= build
PREFIX ?= /usr
DESTDIR ?=

HARDEN := -D_FORTIFY_SOURCE=3 -fstack-protector-strong -fstack-clash-protection -fPIE -fno-common
# Control-flow protection: CET on x86-64, its aarch64 counterpart (BTI and return-address signing,
# hint instructions that older CPUs run as no-ops) on arm64.
ifeq ($(ARCH),x86_64)
HARDEN += -fcf-protection=full
endif
ifeq ($(ARCH),aarch64)
HARDEN += -mbranch-protection=standard
endif
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wmissing-declarations -Wold-style-definition -Wpointer-arith -Wwrite-strings -Wformat=2 \
	-Werror=format-security -Wimplicit-fallthrough=5 -Wundef -Wlogical-op -Wduplicated-cond \
	-Wduplicated-branches -Wnull-dereference -Wswitch-default -Wvla -Wcast-align \
	-Wno-missing-field-initializers -Wno-unused-parameter
OPT ?= -O2 -g
CFLAGS_COMMON := -std=gnu17 -D_GNU_SOURCE $(OPT) $(HARDEN) $(WARN) -MMD -MP -Iprobes -I. \
	-DXPU_VERSION=\"$(shell cat VERSION 2>/dev/null || echo 0.0.0)\"
LDFLAGS_COMMON := -pie -Wl,-z,relro,-z,now,-z,noexecstack -Wl,--as-needed

# Libraries through pkg-config (names of Debian 12's .pc files).
PC_CJSON := libcjson
CJSON_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PC_CJSON) 2>/dev/null)
CJSON_LIBS = $(shell $(PKG_CONFIG) --libs $(PC_CJSON) 2>/dev/null)
# Capabilities and the seccomp filter: libcap and libseccomp, both programs.
PC_SECURITY := libseccomp libcap
SECURITY_LIBS = $(shell $(PKG_CONFIG) --libs $(PC_SECURITY) 2>/dev/null)
# YAML: libyaml's emitter for `xpuinit cdi generate`, its parser for xpud's reading of the node's CDI
# specs (daemon/yaml-json.c).
PC_YAML := yaml-0.1
YAML_LIBS = $(shell $(PKG_CONFIG) --libs $(PC_YAML) 2>/dev/null)
CHECK_CFLAGS = $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS = $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

# V=1 shows the full commands.
ifeq ($(V),1)
Q :=
else
Q := @
endif

ALL_CFLAGS = $(CFLAGS_COMMON) $(CJSON_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(LDFLAGS_COMMON) $(LDFLAGS)

# ---- probes/: libxpuprobe.a, linked by both programs --------------------------------------
# Every folder of probes/ is compiled: base, sandbox, devcode and each vendor's (a new vendor's folder
# needs no line here).
PROBE_SRCS := $(sort $(wildcard probes/*.c probes/*/*.c))
PROBE_OBJS := $(PROBE_SRCS:%.c=$(BUILD)/%.o)
LIBPROBE := $(BUILD)/libxpuprobe.a

# ---- entrypoint/: xpuinit ------------------------------------------------------------------
ENTRY_SRCS := $(sort $(wildcard entrypoint/*.c))
ENTRY_OBJS := $(ENTRY_SRCS:%.c=$(BUILD)/%.o)
ENTRY_LIB_OBJS := $(filter-out $(BUILD)/entrypoint/main.o,$(ENTRY_OBJS))
PROFILE_JSON := $(sort $(wildcard profiles/*.json))
PROFILES_GEN := $(BUILD)/gen/builtin-profiles.c
PROFILES_OBJ := $(BUILD)/gen/builtin-profiles.o
XPUINIT := $(BUILD)/xpuinit
ENTRY_LIBS = $(CJSON_LIBS) $(SECURITY_LIBS) $(YAML_LIBS)

# ---- daemon/: xpud ----------------------------------------------------------------------------
DAEMON_SRCS := $(sort $(wildcard daemon/*.c))
DAEMON_OBJS := $(DAEMON_SRCS:%.c=$(BUILD)/%.o)
# The kubelet's pod-resources API (daemon/podres.h): protoc-c turns daemon/podresources.proto into
# C at build time, in $(BUILD)/gen/, compiled into the daemon's archive.
PODRES_PROTO := daemon/podresources.proto
PODRES_GEN_C := $(BUILD)/gen/podresources.pb-c.c
PODRES_GEN_H := $(BUILD)/gen/podresources.pb-c.h
PODRES_GEN_OBJ := $(BUILD)/gen/podresources.pb-c.o
PROTOC_C ?= protoc-c
DAEMON_LIB_OBJS := $(filter-out $(BUILD)/daemon/main.o,$(DAEMON_OBJS)) $(PODRES_GEN_OBJ)
LIBDAEMON := $(BUILD)/libxpud.a
XPUD := $(BUILD)/xpud
# libprotobuf-c and libnghttp2: the pod-resources client (gRPC over HTTP/2), xpud only.
PC_DAEMON := libmicrohttpd libsystemd libprotobuf-c libnghttp2
DAEMON_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PC_DAEMON) 2>/dev/null)
# -lm: the number formatter calls trunc(), a libm call unless the optimizer inlines it (-O0 builds).
DAEMON_LIBS = $(shell $(PKG_CONFIG) --libs $(PC_DAEMON) 2>/dev/null) -lpthread -lm $(CJSON_LIBS) $(SECURITY_LIBS) $(YAML_LIBS)

BINARIES := $(XPUINIT)
ifneq ($(wildcard daemon/main.c),)
BINARIES += $(XPUD)
endif

.PHONY: all
all: $(BINARIES)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIBPROBE): $(PROBE_OBJS)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

# Built-in profiles (docs/profiles.md) are compiled at build time: profile-cgen parses profiles/*.json
# with xpuinit's own parser (a bad built-in fails the build) and writes them as static C data, their
# requirement expressions parsed (require-parse.o).
# In a cross build (ARCH=arm64) both generators are programs of the build machine, in $(HOST_BUILD)
# (below).
ifeq ($(CROSS),)
PROFILE_CGEN := $(BUILD)/gen/profile-cgen
PROFILE_CGEN_OBJS := $(BUILD)/entrypoint/profile.o $(BUILD)/entrypoint/profile-parse.o $(BUILD)/entrypoint/profile-json.o $(BUILD)/entrypoint/require-parse.o $(BUILD)/entrypoint/version.o
$(PROFILE_CGEN): packaging/profile-cgen.c $(PROFILE_CGEN_OBJS) $(LIBPROBE)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -Ientrypoint $(ALL_LDFLAGS) -o $@ $< $(PROFILE_CGEN_OBJS) $(LIBPROBE) $(CJSON_LIBS) $(SECURITY_LIBS)
else
PROFILE_CGEN := $(HOST_BUILD)/gen/profile-cgen
endif

$(PROFILES_GEN): $(PROFILE_JSON) $(PROFILE_CGEN)
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	$(Q)$(PROFILE_CGEN) $(PROFILE_JSON) > $@.tmp && mv $@.tmp $@

$(PROFILES_OBJ): $(PROFILES_GEN)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -Ientrypoint -c -o $@ $<

# Built-in seccomp filters (docs/seccomp.md) are compiled at build time: seccomp-cgen runs the
# run-time compiler (seccomp.c built without them) on seccomp-groups.c's tables with libseccomp and
# writes the BPF as static data, which seccomp.o includes (-DXPU_SECCOMP_BUILTIN).
# A cross build runs the build machine's seccomp-cgen with the target's name (libseccomp's: aarch64),
# which compiles for the target's call numbers (and without x32, which only x86-64 has).
SECCOMP_GEN := $(BUILD)/gen/builtin-seccomp.inc
ifeq ($(CROSS),)
SECCOMP_CGEN := $(BUILD)/gen/seccomp-cgen
SECCOMP_CGEN_ARCH :=
$(BUILD)/gen/seccomp-compile.o: probes/sandbox/seccomp.c
	@mkdir -p $(@D)
	@echo "  CC      $< (no built-in filters)"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

SECCOMP_CGEN_OBJS := $(BUILD)/gen/seccomp-compile.o $(filter-out $(BUILD)/probes/sandbox/seccomp.o,$(PROBE_OBJS))
$(SECCOMP_CGEN): packaging/seccomp-cgen.c $(SECCOMP_CGEN_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(SECCOMP_CGEN_OBJS) $(CJSON_LIBS) $(SECURITY_LIBS)
else
SECCOMP_CGEN := $(HOST_BUILD)/gen/seccomp-cgen
SECCOMP_CGEN_ARCH := $(ARCH)
# The generators of a cross build: this Makefile run for the build machine into $(HOST_BUILD)
# (HOST_CC, its pkg-config). FORCE lets that make decide what is out of date; a generator it leaves
# alone keeps its time, so what it generated is not made again. One such make at a time (they
# share $(HOST_BUILD)'s objects): seccomp-cgen's waits for profile-cgen's.
HOST_MAKE = $(MAKE) --no-print-directory ARCH=$(HOST_ARCH) BUILD=$(HOST_BUILD) CC=$(HOST_CC) AR=ar STRIP=strip \
	PKG_CONFIG=pkg-config HOST_TOOL=$@ host-tool
$(PROFILE_CGEN): FORCE
	+$(Q)$(HOST_MAKE)
$(SECCOMP_CGEN): FORCE | $(PROFILE_CGEN)
	+$(Q)$(HOST_MAKE)
.PHONY: FORCE
FORCE:
endif
# The goal of that make: the one generator (a recipe, so that make prints nothing when it is current).
.PHONY: host-tool
host-tool: $(HOST_TOOL)
	@:

$(SECCOMP_GEN): $(SECCOMP_CGEN)
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	$(Q)$(SECCOMP_CGEN) $(SECCOMP_CGEN_ARCH) > $@.tmp && mv $@.tmp $@

$(BUILD)/probes/sandbox/seccomp.o: probes/sandbox/seccomp.c $(SECCOMP_GEN)
	@echo "  CC      $< (built-in filters)"
	$(Q)$(CC) $(ALL_CFLAGS) -I$(BUILD)/gen -DXPU_SECCOMP_BUILTIN -c -o $@ $<

# Entry-point objects other than main.o, as an archive: a unit test pulls in only what it uses.
LIBENTRY := $(BUILD)/libxpuentry.a
$(LIBENTRY): $(ENTRY_LIB_OBJS)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

$(XPUINIT): $(ENTRY_OBJS) $(PROFILES_OBJ) $(LIBPROBE)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(ENTRY_OBJS) $(PROFILES_OBJ) $(LIBPROBE) $(ENTRY_LIBS)

$(BUILD)/daemon/%.o: ALL_CFLAGS += $(DAEMON_CFLAGS) -Idaemon -I$(BUILD)/gen

# Both files from one protoc-c run (a grouped target: GNU Make 4.3).
$(PODRES_GEN_C) $(PODRES_GEN_H) &: $(PODRES_PROTO)
	@mkdir -p $(@D)
	@echo "  GEN     $(PODRES_GEN_C)"
	$(Q)$(PROTOC_C) --proto_path=daemon --c_out=$(@D) $(notdir $<)
$(PODRES_GEN_OBJ): $(PODRES_GEN_C)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) $(DAEMON_CFLAGS) -c -o $@ $<
# The users of the generated header (their .d files name it only after the first build).
$(BUILD)/daemon/podres-decode.o $(BUILD)/tests/unit/test-xpud-podres.o: $(PODRES_GEN_H)

# Daemon objects other than main.o, as an archive for xpud and the unit tests.
$(LIBDAEMON): $(DAEMON_LIB_OBJS)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

$(XPUD): $(BUILD)/daemon/main.o $(LIBDAEMON) $(LIBPROBE)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(DAEMON_LIBS)

# ---- tests ---------------------------------------------------------------------------------
UNIT_SRCS := $(sort $(wildcard tests/unit/test-*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TESTLIB_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/unit/testlib.c))

# Objects a pattern chain builds (a unit test's .o) are kept, not deleted as intermediates: no
# "rm ..." line after every build, and no recompiling them the next time.
.SECONDARY:

$(BUILD)/tests/unit/%.o: ALL_CFLAGS += -Wno-format-truncation $(CHECK_CFLAGS) -Ientrypoint -Idaemon -I$(BUILD)/gen $(DAEMON_CFLAGS) \
	-DXPU_SRCDIR=\"$(CURDIR)\"
# Unit tests of the daemon (tests/unit/test-xpud-*.c) link its archive as well.
TEST_DAEMON_DEPS = $(if $(findstring test-xpud-,$@),$(LIBDAEMON))
TEST_DAEMON_LIBS = $(if $(findstring test-xpud-,$@),$(DAEMON_LIBS))
.SECONDEXPANSION:
$(BUILD)/tests/test-%: $(BUILD)/tests/unit/test-%.o $(TESTLIB_OBJS) $(LIBENTRY) $(PROFILES_OBJ) $$(TEST_DAEMON_DEPS) $(LIBPROBE)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(ENTRY_LIBS) $(TEST_DAEMON_LIBS) $(CHECK_LIBS)

# Fragments for test programs that are not plain unit tests (shims, e2e workloads), and
# packaging/*.mk (make deb).
-include $(sort $(wildcard tests/*/*.mk packaging/*.mk))

.PHONY: build-tests
build-tests: all $(UNIT_BINS) $(TEST_EXTRA_TARGETS)

.PHONY: deps
deps:
	sh packaging/install-deps.sh check

# `make check`: install what is missing, build, run every test, and run them all again built with
# ASan + UBSan (check-asan), both passes at once (tests/run-tests.sh --asan); the last line
# "N passed, N failed" counts both passes. The builds use CHECK_JOBS jobs (2: the CI machine's CPUs).
CHECK_JOBS ?= 2
.PHONY: check
# A third pass is make check-arm64's (below), after the two: its line is "# build/arm64 (arm64 under
# qemu-aarch64 -L /): ..." and the last line counts all three (about two minutes on the 2-CPU CI
# machine, its build from scratch included). CHECK_ARM64=no leaves it out (on an arm64 machine the first two are native).
CHECK_ARM64 ?= $(if $(filter x86_64,$(HOST_ARCH)),yes,no)
check: deps
	$(if $(filter yes,$(CHECK_ARM64)),sh packaging/install-deps.sh arm64)
	$(MAKE) -j$(CHECK_JOBS) build-tests
	$(MAKE) -j$(CHECK_JOBS) asan-build
	$(if $(filter yes,$(CHECK_ARM64)),$(MAKE) -j$(CHECK_JOBS) ARCH=arm64 BUILD=$(ARM64_BUILD) build-tests)
	$(if $(filter yes,$(CHECK_ARM64)),XPU_ARM64_BUILD=$(ARM64_BUILD) XPU_ARM64_EXEC="$(QEMU_AARCH64)" \
		XPU_ARM64_SUITES="$(ARM64_SUITES)") sh tests/run-tests.sh --asan $(ASAN_BUILD) $(BUILD)

# `make check-arm64`: the arm64 cross build (ARCH=arm64, build/arm64/) and its tests on this
# machine under qemu-aarch64 (QEMU_AARCH64; -L /: the arm64 loader and libraries that the :arm64
# packages install), named on the command line, so no binfmt_misc registration is needed: every unit
# test but those tests/qemu-excluded.txt lists with their reasons, and the end-to-end tests of
# ARM64_SUITES, which run the programs outside containers (docs/architecture.md, "arm64"). On an
# arm64 machine, plain `make check` runs everything natively instead.
QEMU_AARCH64 ?= qemu-aarch64 -L /
ARM64_SUITES := e2e/probe-plan e2e/seccomp-builtin
# The arm64 build of check and check-arm64 (BUILD/arm64: a helper's BUILD=dir gets its own).
ARM64_BUILD := $(if $(CROSS),$(BUILD),$(BUILD)/arm64)
.PHONY: check-arm64
check-arm64:
	sh packaging/install-deps.sh arm64
	$(MAKE) -j$(CHECK_JOBS) ARCH=arm64 BUILD=$(ARM64_BUILD) build-tests
	XPU_TEST_EXEC="$(QEMU_AARCH64)" XPU_TEST_SUITES="$(ARM64_SUITES)" sh tests/run-tests.sh $(ARM64_BUILD)

# `make demo`: only what the demo needs (build packages, runc, busybox-static, jq; no test
# services), built with CHECK_JOBS jobs: the programs, the e2e workload and the fake NVIDIA
# libraries of the bundled example host.
.PHONY: demo demo-build
demo:
	sh packaging/install-deps.sh demo
	$(MAKE) -j$(CHECK_JOBS) demo-build
	sh examples/demo.sh $(BUILD)
demo-build: all $(E2E_WORKLOAD) $(SHIM_DIR)/libcuda.so.shim $(SHIM_DIR)/libnvidia-ml.so.shim

# `make static`: a statically linked xpuinit (static-pie) that can be copied into any image.
# Debian 12 ships no static libcjson, so cJSON is built from Debian's own source package of the
# installed version (packaging/fetch-cjson-source.sh; needs dpkg-dev and the network to Debian).
STATIC_DIR := $(BUILD)/static
XPUINIT_STATIC := $(BUILD)/xpuinit-static
.PHONY: static
static: all
	XPU_EXTRA_PKGS="dpkg-dev" sh packaging/install-deps.sh build
	sh packaging/fetch-cjson-source.sh $(STATIC_DIR)
	@echo "  CC      cJSON.c (Debian source, static)"
	$(Q)$(CC) -std=gnu17 -O2 -fPIE -fstack-protector-strong -D_FORTIFY_SOURCE=3 -c -o $(STATIC_DIR)/cJSON.o $(STATIC_DIR)/src/cJSON.c
	@echo "  LD      $(XPUINIT_STATIC)"
	$(Q)$(CC) $(ALL_CFLAGS) -static-pie -Wl,-z,relro,-z,now,-z,noexecstack -o $(XPUINIT_STATIC) \
		$(ENTRY_OBJS) $(PROFILES_OBJ) $(LIBPROBE) $(STATIC_DIR)/cJSON.o -l:libseccomp.a -l:libcap.a -l:libyaml.a

# `make check-real`: the audit against NVIDIA's real CUDA 13 libraries (CUDA_LIB, default
# /usr/local/cuda/lib64; NVIDIA's toolkit, not a Debian package, so not part of check).
.PHONY: check-real
check-real: all
	sh tests/real/cuda-audit.sh $(BUILD)

# `make bench`: start-up and probe benchmarks (not part of check); results in docs/performance.md.
.PHONY: bench
bench:
	XPU_EXTRA_PKGS="tini hyperfine nginx-light rocm-smi" sh packaging/install-deps.sh
	$(MAKE) build-tests
	$(MAKE) static || echo "bench: no static xpuinit (see above); its budget is not measured"
	sh tests/bench/run.sh $(BUILD)

# `make check-asan` (alias `asan`): every test tests/run-tests.sh runs (unit, fuzz replays,
# end-to-end, and whatever tests/*/*.mk add to build-tests) built with ASan + UBSan in
# $(ASAN_BUILD)/ and run with the sanitizer options of tests/run-tests.sh --sanitized (leak
# checking on for unit tests; off for the end-to-end scripts, whose programs exec, change uid and
# run as PID 1 under seccomp, where LeakSanitizer cannot stop the world). Any report fails the test.
ASAN_BUILD ?= $(BUILD)-asan
ASAN_OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
.PHONY: asan-build check-asan asan
asan-build:
	$(MAKE) BUILD=$(ASAN_BUILD) OPT="$(ASAN_OPT)" HARDEN="-fPIE -fno-common" build-tests
check-asan: deps
	$(MAKE) -j$(CHECK_JOBS) asan-build
	sh tests/run-tests.sh --sanitized $(ASAN_BUILD)
asan: check-asan

# `make fuzz`: every libFuzzer target (tests/fuzz/, docs/fuzzing.md) built with clang and
# ASan + UBSan into $(FUZZ_BUILD)/ and run for FUZZ_SECONDS seconds each from its seed corpus;
# new inputs stay in $(FUZZ_BUILD)/corpus/, crashes are listed with their reproducer files.
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz:
	XPU_EXTRA_PKGS="clang libclang-rt-14-dev" sh packaging/install-deps.sh
	$(MAKE) fuzz-build
	sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# `make lint`: banned calls and shellcheck.
BANNED := \b(sprintf|vsprintf|strcpy|strcat|gets|atoi|atol|system)[[:space:]]*\(
.PHONY: lint
lint:
	@! git ls-files '*.c' '*.h' | grep -v '^tests/shims/' | xargs grep -nE '$(BANNED)' || \
		{ echo "lint: banned calls above (use snprintf, xpu_strlcpy, strtol-family with checks, execve)"; exit 1; }
	shellcheck -x -P SCRIPTDIR -s sh $$(git ls-files '*.sh') .ci/run

# `make install [PREFIX=/usr] [DESTDIR=stage]`: the programs (stripped; xpuinit-static too when
# `make static` built it), the systemd units with their paths under PREFIX, the sysusers file, the
# man pages and the documents. `make uninstall` with the same PREFIX and DESTDIR removes exactly
# what install put there. The units in packaging/systemd/ name /usr (PREFIX=/usr as a
# distribution installs them); install rewrites /usr/bin/xpud and the documents' directory for
# another PREFIX, since systemd reads units from PREFIX/lib/systemd/system (/usr/local too).
BINDIR = $(PREFIX)/bin
UNITDIR = $(PREFIX)/lib/systemd/system
SYSUSERSDIR = $(PREFIX)/lib/sysusers.d
MANDIR = $(PREFIX)/share/man
DOCDIR = $(PREFIX)/share/doc/xpuinit
STRIP ?= strip
INSTALL ?= install
UNITS := xpud.service xpud.socket
MANPAGES := docs/man/xpuinit.1 docs/man/xpud.8 docs/man/xpuinit-profile.5
DOCS := $(sort $(wildcard docs/*.md))
UNIT_SED = -e 's|/usr/bin/xpud|$(BINDIR)/xpud|g' -e 's|file:/usr/share/doc/xpuinit/|file:$(DOCDIR)/|g'

.PHONY: install
install: all
	$(INSTALL) -D -m 0755 -s --strip-program=$(STRIP) $(XPUINIT) $(DESTDIR)$(BINDIR)/xpuinit
	if [ -f $(XPUINIT_STATIC) ]; then \
		$(INSTALL) -D -m 0755 -s --strip-program=$(STRIP) $(XPUINIT_STATIC) $(DESTDIR)$(BINDIR)/xpuinit-static; fi
	$(INSTALL) -D -m 0755 -s --strip-program=$(STRIP) $(XPUD) $(DESTDIR)$(BINDIR)/xpud
	@mkdir -p $(BUILD)/packaging
	for u in $(UNITS); do \
		sed $(UNIT_SED) packaging/systemd/$$u >$(BUILD)/packaging/$$u && \
		$(INSTALL) -D -m 0644 $(BUILD)/packaging/$$u $(DESTDIR)$(UNITDIR)/$$u || exit 1; done
	$(INSTALL) -D -m 0644 packaging/systemd/xpud.sysusers $(DESTDIR)$(SYSUSERSDIR)/xpud.conf
	for m in $(MANPAGES); do \
		$(INSTALL) -D -m 0644 $$m $(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/} || exit 1; done
	for d in $(DOCS); do \
		$(INSTALL) -D -m 0644 $$d $(DESTDIR)$(DOCDIR)/$${d##*/} || exit 1; done

.PHONY: uninstall
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/xpuinit $(DESTDIR)$(BINDIR)/xpuinit-static $(DESTDIR)$(BINDIR)/xpud
	rm -f $(addprefix $(DESTDIR)$(UNITDIR)/,$(UNITS)) $(DESTDIR)$(SYSUSERSDIR)/xpud.conf
	for m in $(MANPAGES); do rm -f $(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/}; done
	for d in $(DOCS); do rm -f $(DESTDIR)$(DOCDIR)/$${d##*/}; done
	if [ -d $(DESTDIR)$(DOCDIR) ]; then rmdir $(DESTDIR)$(DOCDIR); fi

.PHONY: clean
clean:
	rm -rf $(BUILD)

# Not those of the builds below $(BUILD) (a cross build's build/arm64/, its generators' host/).
-include $(shell find $(BUILD) \( -path '$(BUILD)/arm64' -o -path '$(HOST_BUILD)' \) -prune -o -name '*.d' -print 2>/dev/null)
