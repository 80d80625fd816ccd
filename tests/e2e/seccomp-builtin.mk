# seccomp-cgen for the programs' own architecture (tests/e2e/seccomp-native.c, seccomp-builtin.sh):
# the generator's main() renamed, linked with seccomp.c built without the built-in filters.
SECCOMP_NATIVE := $(BUILD)/tests/seccomp-native
SECCOMP_NATIVE_OBJS := $(BUILD)/tests/e2e/seccomp-cgen.o $(BUILD)/tests/e2e/seccomp-compile.o
$(BUILD)/tests/e2e/seccomp-cgen.o: packaging/seccomp-cgen.c
	@mkdir -p $(@D)
	@echo "  CC      $< (main renamed)"
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -Wno-missing-declarations -Dmain=xpu_seccomp_cgen_main -c -o $@ $<
$(BUILD)/tests/e2e/seccomp-compile.o: probes/sandbox/seccomp.c
	@mkdir -p $(@D)
	@echo "  CC      $< (no built-in filters)"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(SECCOMP_NATIVE): $(BUILD)/tests/e2e/seccomp-native.o $(SECCOMP_NATIVE_OBJS) $(LIBPROBE)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(SECCOMP_NATIVE_OBJS) \
		$(filter-out $(BUILD)/probes/sandbox/seccomp.o,$(PROBE_OBJS)) $(CJSON_LIBS) $(SECURITY_LIBS)

TEST_EXTRA_TARGETS += $(SECCOMP_NATIVE)
