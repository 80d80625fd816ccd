# Benchmark programs (tests/bench/, run by `make bench` through tests/bench/run.sh, never by
# `make check`). Two small C files, so they are built with the tests and cannot rot.
#   startbench: whole-process start-up of commands in exact alternation (fork + execve + waitpid)
#   probebench: in-process time of the fast-path probe of a host tree (links libxpuprobe.a)
#   seccompbench: what a seccomp filter (none, one instruction, each built-in) adds to a whole
#                 start: fork + filter + exec of true + waitpid, alternating
BENCH_DIR := $(BUILD)/tests/bench
BENCH_TARGETS := $(BENCH_DIR)/startbench $(BENCH_DIR)/probebench $(BENCH_DIR)/seccompbench

$(BENCH_DIR)/startbench: $(BENCH_DIR)/startbench.o
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^

$(BENCH_DIR)/probebench: $(BENCH_DIR)/probebench.o $(LIBPROBE)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(ENTRY_LIBS)

$(BENCH_DIR)/seccompbench: $(BENCH_DIR)/seccompbench.o $(LIBPROBE)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(ENTRY_LIBS)

TEST_EXTRA_TARGETS += $(BENCH_TARGETS)
