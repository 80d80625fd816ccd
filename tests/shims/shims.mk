# Fake vendor libraries for tests (tests/shims/): built once, unversioned; tests/e2e/lib.sh copies
# them into each fixture driver root under the real versioned names and symlink layout.
SHIM_DIR := $(BUILD)/tests/shims
SHIM_CFLAGS = $(filter-out -MMD -MP -fPIE,$(CFLAGS_COMMON)) -fPIC -fvisibility=hidden $(CFLAGS)
SHIM_LDFLAGS = -shared -Wl,-z,relro,-z,now,-z,noexecstack -Wl,--as-needed $(LDFLAGS)
SHIM_COMMON := tests/shims/state.c tests/shims/state.h

$(SHIM_DIR)/libcuda.so.shim: tests/shims/fake-cuda.c $(SHIM_COMMON)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(SHIM_CFLAGS) $(SHIM_LDFLAGS) -Wl,-soname,libcuda.so.1 -o $@ \
		tests/shims/fake-cuda.c tests/shims/state.c

# The fake NVML is two files: the library's state, checks, init and handles, and the per-device
# queries (fake-nvml.h).
FAKE_NVML_SRCS := tests/shims/fake-nvml.c tests/shims/fake-nvml-device.c

$(SHIM_DIR)/libnvidia-ml.so.shim: $(FAKE_NVML_SRCS) tests/shims/fake-nvml.h $(SHIM_COMMON)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(SHIM_CFLAGS) $(SHIM_LDFLAGS) -Wl,-soname,libnvidia-ml.so.1 -o $@ \
		$(FAKE_NVML_SRCS) tests/shims/state.c

TEST_EXTRA_TARGETS += $(SHIM_DIR)/libcuda.so.shim $(SHIM_DIR)/libnvidia-ml.so.shim
