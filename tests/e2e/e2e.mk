# The end-to-end tests' workload: a small C program linked dynamically against glibc, copied into
# the container rootfs together with the libraries ldd lists (tests/e2e/lib.sh).
E2E_WORKLOAD := $(BUILD)/tests/e2e/workload

$(E2E_WORKLOAD): tests/e2e/workload.c
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(filter-out -MMD -MP,$(ALL_CFLAGS)) $(ALL_LDFLAGS) -o $@ $<

TEST_EXTRA_TARGETS += $(E2E_WORKLOAD)

# The pod-resources client's driver (tests/e2e/podres-call.c): one xpud_podres_call() against a
# socket, its result as lines (tests/e2e/xpud-podres-client.sh and the fake kubelet's other users).
PODRES_CALL := $(BUILD)/tests/podres-call
$(BUILD)/tests/e2e/podres-call.o: ALL_CFLAGS += -Idaemon $(DAEMON_CFLAGS)
$(PODRES_CALL): $(BUILD)/tests/e2e/podres-call.o $(LIBDAEMON) $(LIBPROBE)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(DAEMON_LIBS)

TEST_EXTRA_TARGETS += $(PODRES_CALL)
