# Fuzz targets (tests/fuzz/fuzz-<target>.c; docs/fuzzing.md). Two builds of each target:
#  - `make check`: $(BUILD)/tests/test-fuzz-<target>, the target linked with replay.c (gcc, the
#    normal flags, no libFuzzer), replays tests/fuzz/corpus/<target>/ and prints TAP;
#  - `make fuzz`: $(FUZZ_BUILD)/fuzz-<target>, clang with -fsanitize=fuzzer,address,undefined, the
#    parsers compiled again from source with the same sanitizers (no gcc object is reused).
# Targets named fuzz-xpud-<x> test the daemon: they link the daemon's objects (libxpud.a, or its
# clang build) and libmicrohttpd/libsystemd as xpud does.
FUZZ_TARGETS ?= $(sort $(patsubst tests/fuzz/fuzz-%.c,%,$(wildcard tests/fuzz/fuzz-*.c)))
# fuzz-require needs entrypoint/require.c; without it the target is left out.
ifeq ($(wildcard entrypoint/require.c),)
FUZZ_TARGETS := $(filter-out require,$(FUZZ_TARGETS))
endif

# ---- replay in make check ------------------------------------------------------------------
FUZZ_REPLAY_BINS := $(FUZZ_TARGETS:%=$(BUILD)/tests/test-fuzz-%)

$(BUILD)/tests/fuzz/%.o: ALL_CFLAGS += -Ientrypoint -Idaemon -I$(BUILD)/gen -Itests/fuzz -Itests/unit $(DAEMON_CFLAGS)
# The pod-resources target includes the header protoc-c generates (Makefile).
$(BUILD)/tests/fuzz/fuzz-xpud-podres.o: $(PODRES_GEN_H)

# One replay driver per target: it knows its target's name and corpus directory.
$(BUILD)/tests/fuzz/replay-%.o: tests/fuzz/replay.c tests/fuzz/fuzz.h
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -DFUZZ_TARGET=\"$*\" -DCORPUS_DIR=\"$(CURDIR)/tests/fuzz/corpus/$*\" -c -o $@ $<

# The daemon's targets (fuzz-xpud-*) link its archive and libraries too (.SECONDEXPANSION is on).
FUZZ_DAEMON_DEPS = $(if $(findstring test-fuzz-xpud-,$@),$(LIBDAEMON))
FUZZ_DAEMON_LIBS = $(if $(findstring test-fuzz-xpud-,$@),$(DAEMON_LIBS))
$(FUZZ_REPLAY_BINS): $(BUILD)/tests/test-fuzz-%: $(BUILD)/tests/fuzz/fuzz-%.o $(BUILD)/tests/fuzz/replay-%.o \
		$(LIBENTRY) $(PROFILES_OBJ) $$(FUZZ_DAEMON_DEPS) $(LIBPROBE)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(ENTRY_LIBS) $(FUZZ_DAEMON_LIBS)

TEST_EXTRA_TARGETS += $(FUZZ_REPLAY_BINS)

# ---- libFuzzer build for make fuzz -----------------------------------------------------------
# Its own directory (default build-fuzz/, whatever BUILD is), objects under libfuzzer/.
FUZZ_BUILD ?= build-fuzz
FUZZ_CC ?= clang
FUZZ_OBJDIR := $(FUZZ_BUILD)/libfuzzer
# Not -Werror: clang warns about things gcc does not, and a fuzz run should not stop for them.
FUZZ_CFLAGS := -std=gnu17 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -Wall -Wextra \
	-Wno-unused-parameter -Wno-missing-field-initializers -MMD -MP -Iprobes -I. -Ientrypoint -Idaemon \
	-I$(BUILD)/gen -Itests/fuzz -Itests/unit \
	-DXPU_VERSION=\"$(shell cat VERSION 2>/dev/null || echo 0.0.0)\"
FUZZ_SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_LIB_SRCS := $(filter-out entrypoint/main.c,$(PROBE_SRCS) $(ENTRY_SRCS))
FUZZ_LIB := $(FUZZ_OBJDIR)/libxpufuzz.a

# The daemon's objects (xpud's, less main.c), for the fuzz-xpud-* targets only.
FUZZ_DAEMON_LIB := $(FUZZ_OBJDIR)/libxpudfuzz.a

$(FUZZ_OBJDIR)/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CLANG   $<"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(CJSON_CFLAGS) $(DAEMON_CFLAGS) $(FUZZ_SANITIZE) -fsanitize=fuzzer-no-link -c -o $@ $<

# The code protoc-c generates (Makefile) is not in the source tree: compiled from $(BUILD)/gen/.
$(FUZZ_OBJDIR)/gen/podresources.pb-c.o: $(PODRES_GEN_C)
	@mkdir -p $(@D)
	@echo "  CLANG   $<"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(DAEMON_CFLAGS) $(FUZZ_SANITIZE) -fsanitize=fuzzer-no-link -c -o $@ $<
$(FUZZ_OBJDIR)/daemon/podres-decode.o $(FUZZ_OBJDIR)/tests/fuzz/fuzz-xpud-podres.o: $(PODRES_GEN_H)

$(FUZZ_LIB): $(FUZZ_LIB_SRCS:%.c=$(FUZZ_OBJDIR)/%.o)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

$(FUZZ_DAEMON_LIB): $(DAEMON_LIB_OBJS:$(BUILD)/%=$(FUZZ_OBJDIR)/%)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz-%)
FUZZ_BIN_DAEMON_DEPS = $(if $(findstring fuzz-xpud-,$@),$(FUZZ_DAEMON_LIB))
FUZZ_BIN_DAEMON_LIBS = $(if $(findstring fuzz-xpud-,$@),$(DAEMON_LIBS))
$(FUZZ_BINS): $(FUZZ_BUILD)/fuzz-%: $(FUZZ_OBJDIR)/tests/fuzz/fuzz-%.o $$(FUZZ_BIN_DAEMON_DEPS) $(FUZZ_LIB)
	@echo "  LD      $@ (libFuzzer)"
	$(Q)$(FUZZ_CC) $(FUZZ_SANITIZE) -fsanitize=fuzzer -o $@ $^ $(CJSON_LIBS) $(SECURITY_LIBS) $(FUZZ_BIN_DAEMON_LIBS)

.PHONY: fuzz-build
fuzz-build: $(FUZZ_BINS)

-include $(shell find $(FUZZ_OBJDIR) -name '*.d' 2>/dev/null)
