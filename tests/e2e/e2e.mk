# The end-to-end tests' workload: a small C program linked dynamically against glibc, copied into
# the container rootfs together with the libraries ldd lists (tests/e2e/lib.sh).
E2E_WORKLOAD := $(BUILD)/tests/e2e/workload

$(E2E_WORKLOAD): tests/e2e/workload.c
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(filter-out -MMD -MP,$(ALL_CFLAGS)) $(ALL_LDFLAGS) -o $@ $<

TEST_EXTRA_TARGETS += $(E2E_WORKLOAD)
