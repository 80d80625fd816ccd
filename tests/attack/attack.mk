# The attack suite (tests/attack/attack.sh, docs/safe-paths.md): a preloadable shared object whose
# constructor writes a marker file, for the LD_PRELOAD=/proc/self/cwd/x.so case (CVE-2025-23266);
# and for tests/attack/audit.sh one that makes readdir(3) report DT_UNKNOWN for every entry.
# The static build the suite runs (make static) is built by the script. Never sanitized: an
# ASan-instrumented library preloaded into an uninstrumented program would not load at all.
ATTACK_PRELOAD := $(BUILD)/tests/attack/preload.so
ATTACK_DT_UNKNOWN := $(BUILD)/tests/attack/dt-unknown.so

$(ATTACK_PRELOAD): tests/attack/preload.c
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(filter-out -MMD -MP -fPIE -fsanitize=% -fno-sanitize%,$(ALL_CFLAGS)) -fPIC -shared -o $@ $<

$(ATTACK_DT_UNKNOWN): tests/attack/dt-unknown.c
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(filter-out -MMD -MP -fPIE -fsanitize=% -fno-sanitize%,$(ALL_CFLAGS)) -fPIC -shared -o $@ $< -ldl

TEST_EXTRA_TARGETS += $(ATTACK_PRELOAD) $(ATTACK_DT_UNKNOWN)
