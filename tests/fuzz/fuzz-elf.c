/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the ELF reader of probes/devcode/elf.h (xpu_elf_read) on a memfd holding the
 * input. Checks that every section it reports (except SHT_NOBITS) lies inside the file, that each
 * name is terminated, that a refusal is -ENOEXEC or carries a reason, and that xpu_elf_clear
 * leaves nothing behind (leaks are findings under ASan). Nothing is written to the file system.
 * Corpus: tests/fuzz/corpus/elf/ (an nvcc library, an AMDGPU code object, damaged headers). */
#include <elf.h>
#include <errno.h>

#include "devcode/elf.h"
#include "fuzz.h"

static int fd = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (fuzz_memfd_fill(&fd, data, size) < 0)
                return 0;
        struct xpu_elf e;
        const char *err = NULL;
        int r = xpu_elf_read(fd, &e, &err);
        if ((r == -EBADMSG || r == -EPROTONOSUPPORT) && !err)
                abort();
        if (r == 0) {
                for (size_t i = 0; i < e.n_sections; i++) {
                        const struct xpu_elf_section *s = &e.sections[i];
                        if (strlen(s->name) >= sizeof s->name)
                                abort();
                        if (s->type != SHT_NOBITS && s->type != SHT_NULL &&
                            (s->offset > size || s->size > size - s->offset))
                                abort();
                }
                for (size_t i = 0; i < e.n_needed; i++)
                        if (!e.needed[i])
                                abort();
                (void)xpu_elf_find(&e, ".nv_fatbin");
                xpu_elf_clear(&e);
        }
        return 0;
}
