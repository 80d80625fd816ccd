# The fake ROCm SMI library (tests/shims/fake-rocm-smi.c) for the unit tests of the ROCm SMI
# helper (tests/unit/test-amd-rocm-smi.c); flags and the common state reader as in shims.mk (its
# variables are used in the recipe only, so the include order does not matter).
$(BUILD)/tests/shims/librocm_smi64.so.shim: tests/shims/fake-rocm-smi.c tests/shims/state.c tests/shims/state.h
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(SHIM_CFLAGS) $(SHIM_LDFLAGS) -Wl,-soname,librocm_smi64.so.1 -o $@ \
		tests/shims/fake-rocm-smi.c tests/shims/state.c

TEST_EXTRA_TARGETS += $(BUILD)/tests/shims/librocm_smi64.so.shim
