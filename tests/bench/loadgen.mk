# xpud benchmark programs (tests/bench/xpud-bench.sh, run by `make bench` through
# tests/bench/run.sh, never by `make check`). Built with the tests so they cannot rot.
#   loadgen:     keep-alive HTTP/1.1 load over a UNIX socket (req/s, p50/p99 latency)
#   samplebench: in-process time of one xpud sample (xpud_sampler_sample), of the AMD sysfs
#                readings alone and of the /metrics render, on a fake amdgpu tree
#   rocmbench:   the same readings through the real librocm_smi64 (dlopen), run inside
#                tests/rocm/amdsys-run.sh
XPUD_BENCH_DIR := $(BUILD)/tests/bench
XPUD_BENCH_TARGETS := $(XPUD_BENCH_DIR)/loadgen $(XPUD_BENCH_DIR)/samplebench $(XPUD_BENCH_DIR)/rocmbench

$(XPUD_BENCH_DIR)/loadgen: $(XPUD_BENCH_DIR)/loadgen.o $(LIBPROBE)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ -lpthread

$(XPUD_BENCH_DIR)/samplebench.o: ALL_CFLAGS += -Idaemon $(DAEMON_CFLAGS)
$(XPUD_BENCH_DIR)/samplebench: $(XPUD_BENCH_DIR)/samplebench.o $(LIBDAEMON) $(LIBPROBE)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(DAEMON_LIBS)

$(XPUD_BENCH_DIR)/rocmbench: $(XPUD_BENCH_DIR)/rocmbench.o $(LIBPROBE)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ -ldl

TEST_EXTRA_TARGETS += $(XPUD_BENCH_TARGETS)
