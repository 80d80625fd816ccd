/* SPDX-License-Identifier: Apache-2.0 */
/* One byte range of a file scanned for device code (fatbin sections through a window of preads,
 * bundles mapped and SIGBUS-guarded), within the object's work budget (object-scan.h has the
 * contract). */
#include "devcode/object-scan.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "base/str.h"
#include "devcode/bundle.h"
#include "devcode/ccob.h"
#include "devcode/compat.h"
#include "devcode/fatbin.h"
#include "devcode/find.h"

/* The largest section scanned (the largest real .nv_fatbin, cuBLASLt 13's, is 140 MB): a bound on
 * the time one crafted or sparse file can take. */
#define SECTION_SCAN_MAX (4ull << 30)

/* A file that shrinks while it is mapped raises SIGBUS on the next access past its new end; the
 * scan is abandoned and the object reported as changed, instead of the program dying. */
static __thread sigjmp_buf *bus_jump;

static void on_sigbus(int sig) {
        if (bus_jump)
                siglongjmp(*bus_jump, 1);
        signal(sig, SIG_DFL); /* not ours: the access repeats and kills as it would have */
}

struct scan {
        struct xpu_object *o;
        struct xpu_object_work *work;
        const char *section;
        enum xpu_scan_what what;
        const uint8_t *buf;
        size_t len;
        size_t found;
        bool *marks;     /* look for the parallel-algorithm marks where *MARKS is false */
        bool budget_said; /* spend() marked the object: a work budget ran out */
        uint8_t tail[16]; /* the last bytes searched for them, up to offset TAIL_END */
        size_t tail_len, tail_end;
};

/* Mangled-name prefixes of template instantiations from the parallel-algorithm libraries (Thrust,
 * CUB, rocPRIM, hipCUB), by their first four bytes (found with xpu_find4, at memory speed). */
static bool has_marks(const uint8_t *p, size_t len) {
        static const struct {
                char head[5];
                const char *mark;
        } marks[] = {
                { "_ZN6", "_ZN6thrust" }, { "_ZN6", "_ZN6hipcub" }, { "_ZNK", "_ZNK6thrust" },
                { "_ZN3", "_ZN3cub" },    { "_ZN7", "_ZN7rocprim" },
        };
        for (size_t i = 0; i < ELEMENTSOF(marks); i++) {
                size_t n = strlen(marks[i].mark);
                for (const uint8_t *q = p, *end = p + len; (size_t)(end - q) >= n;) {
                        const uint8_t *z = xpu_find4(q, (size_t)(end - q), (const uint8_t *)marks[i].head);
                        if (!z || (size_t)(end - z) < n)
                                break;
                        if (memcmp(z, marks[i].mark, n) == 0)
                                return true;
                        q = z + 1;
                }
        }
        return false;
}

/* The longest mark, "_ZNK6thrust": a mark split between two runs of bytes is found by joining the
 * end of one to the start of the next. */
#define MARK_MAX 11u

/* The marks in the run of bytes P[0..N) at offset OFF of the range (a device-code scan hands over
 * the bytes its search for the magic read, between the containers it skips: no byte is read
 * twice; a run may continue or overlap the one before). */
static void search_marks(size_t off, const uint8_t *p, size_t n, void *userdata) {
        struct scan *s = userdata;
        if (!s->marks || *s->marks || n == 0)
                return;
        if (s->tail_len && off <= s->tail_end && off + n > s->tail_end) {
                uint8_t joint[2 * MARK_MAX];
                size_t skip = s->tail_end - off, more = n - skip < MARK_MAX ? n - skip : MARK_MAX;
                memcpy(joint, s->tail, s->tail_len);
                memcpy(joint + s->tail_len, p + skip, more);
                *s->marks = has_marks(joint, s->tail_len + more);
        }
        if (!*s->marks)
                *s->marks = has_marks(p, n);
        s->tail_len = n < MARK_MAX - 1 ? n : MARK_MAX - 1;
        memcpy(s->tail, p + n - s->tail_len, s->tail_len);
        s->tail_end = off + n;
}

/* Count ENTRIES (entry headers and the like) and ID_BYTES against the object's budget. Returns 0,
 * or -ECANCELED with the object marked when a bound is passed. */
static int spend(struct scan *s, uint64_t entries, uint64_t id_bytes) {
        struct xpu_object_work *w = s->work;
        w->entries += entries;
        w->id_bytes += id_bytes;
        if (w->entries <= XPU_OBJECT_WORK_ENTRIES_MAX && w->id_bytes <= XPU_OBJECT_WORK_ID_BYTES_MAX)
                return 0;
        xpu_object_set_malformed_budget(s->o,
                                        "%s: reading it would take more than one object's work budget (%u entry "
                                        "headers or KiB of stub cubins, %u MiB of bundle entry IDs): not read further",
                                        s->section, XPU_OBJECT_WORK_ENTRIES_MAX, XPU_OBJECT_WORK_ID_BYTES_MAX >> 20);
        s->budget_said = true;
        return -ECANCELED;
}

static int nv_container(const struct xpu_fatbin_container *c, void *userdata) {
        struct scan *s = userdata;
        struct xpu_object *o = s->o;
        bool rel = s->what == XPU_SCAN_RELFATBIN;
        char name[24];
        int r;
        s->found++;
        /* An entry costs one; one whose stored cubin was opened to tell a stub (up to 64 KiB read)
         * costs one more per KiB read, so a crafted file that has the same cubins checked again and
         * again runs out of budget as fast as one with many entries. */
        uint64_t cost = c->n_entries + 1;
        for (size_t i = 0; i < c->n_entries; i++)
                if (c->entries[i].kind == XPU_FATBIN_SASS && c->entries[i].compression == XPU_FATBIN_STORED &&
                    c->entries[i].payload_size <= XPU_FATBIN_STUB_MAX)
                        cost += c->entries[i].payload_size >> 10;
        if ((r = spend(s, cost, 0)) < 0)
                return r;
        if (c->malformed)
                xpu_object_set_malformed(o, "%s: the fatbin container at offset %llu is malformed: %s", s->section,
                                         (unsigned long long)c->offset, c->reason);
        if (!rel)
                o->nv_containers++;
        for (size_t i = 0; i < c->n_entries; i++) {
                const struct xpu_fatbin_entry *e = &c->entries[i];
                if (e->compression == XPU_FATBIN_LZ4)
                        o->nv_compression |= XPU_NV_LZ4;
                else if (e->compression == XPU_FATBIN_ZSTD)
                        o->nv_compression |= XPU_NV_ZSTD;
                if (e->sm == 0 || e->sm > XPU_OBJECT_SM_MAX) {
                        xpu_object_set_malformed(o, "%s: a fatbin entry names SM %u, which no GPU has", s->section, e->sm);
                        continue;
                }
                xpu_fatbin_entry_name(e, name, sizeof name);
                if (e->kind == XPU_FATBIN_LTO) {
                        r = xpu_object_add_name(&o->nv_lto, name);
                } else if (e->kind != XPU_FATBIN_SASS && e->kind != XPU_FATBIN_PTX) {
                        r = 0; /* a kind this reader does not know: nothing to judge */
                } else if (rel) {
                        r = xpu_object_add_name(e->kind == XPU_FATBIN_SASS ? &o->nv_rel_sass : &o->nv_rel_ptx, name);
                } else if (e->kind == XPU_FATBIN_SASS && !e->has_kernels) {
                        r = 0; /* a device-link stub: no kernel to run */
                } else {
                        const struct xpu_nv_code code = {
                                .kind = (uint8_t)e->kind,
                                .variant = (uint8_t)e->variant,
                                .sm = (uint16_t)(e->sm > UINT16_MAX ? UINT16_MAX : e->sm),
                                .ptx_major = (uint8_t)(e->ptx_major > 255 ? 255 : e->ptx_major),
                                .ptx_minor = (uint8_t)(e->ptx_minor > 255 ? 255 : e->ptx_minor),
                        };
                        r = xpu_object_add_name(e->kind == XPU_FATBIN_SASS ? &o->nv_sass : &o->nv_ptx, name);
                        if (r == 0)
                                r = xpu_object_add_nv_code(o, &code);
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A bundle's device entries give the targets ("hip"/"hipv4"/"hipv5" kinds on an amdgcn triple). */
static int amd_entries(struct scan *s, const struct xpu_bundle *b) {
        for (size_t i = 0; i < b->n_entries; i++) {
                const struct xpu_bundle_entry *e = &b->entries[i];
                if (!xpu_startswith(e->kind, "hip") || !xpu_startswith(e->triple, "amdgcn") || !e->target[0])
                        continue;
                if (!xpu_gfx_target_id_known(e->target)) {
                        xpu_object_set_malformed(s->o, "%s: an offload bundle entry has an invalid target ID", s->section);
                        continue;
                }
                int r = xpu_object_add_name(&s->o->amd_gfx, e->target);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The bundle table entries and ID bytes of B, against the object's budget. */
static int spend_bundle(struct scan *s, const struct xpu_bundle *b) {
        uint64_t id_bytes = 0;
        for (size_t i = 0; i < b->n_entries; i++)
                id_bytes += strlen(b->entries[i].id);
        return spend(s, b->n_entries + 1, id_bytes);
}

/* The plain bundle inside a CCOB. */
static int amd_inner(const struct xpu_bundle *b, void *userdata) {
        struct scan *s = userdata;
        int r = spend_bundle(s, b);
        if (r < 0)
                return r;
        if (b->malformed)
                xpu_object_set_malformed(s->o, "%s: the bundle inside a CCOB is malformed: %s", s->section, b->reason);
        return amd_entries(s, b);
}

static int amd_bundle(const struct xpu_bundle *b, void *userdata) {
        struct scan *s = userdata;
        struct xpu_object *o = s->o;
        s->found++;
        int r = spend_bundle(s, b);
        if (r < 0)
                return r;
        if (b->malformed) {
                xpu_object_set_malformed(o, "%s: the offload bundle at offset %llu is malformed: %s", s->section,
                              (unsigned long long)b->offset, b->reason);
                return amd_entries(s, b);
        }
        if (!b->compressed || b->n_entries > 0)
                return amd_entries(s, b); /* plain, or the inner bundle of a CCOB */
        static const char *const methods[] = { [XPU_CCOB_ZLIB] = "zlib", [XPU_CCOB_ZSTD] = "zstd" };
        char comp[32];
        snprintf(comp, sizeof comp, "ccob-v%u-%s", b->ccob_version,
                 b->ccob_method < ELEMENTSOF(methods) ? methods[b->ccob_method] : "unknown");
        r = xpu_object_add_name(&o->amd_compression, comp);
        if (r < 0)
                return r;
        struct xpu_object_work *w = s->work;
        char err[256];
        struct xpu_ccob_work cw = { 0 };
        r = w->decompressions < XPU_OBJECT_WORK_DECOMPRESSIONS_MAX && w->packed < XPU_OBJECT_WORK_PACKED_MAX
                    ? xpu_ccob_read(s->buf, s->len, b, XPU_OBJECT_WORK_UNPACKED_MAX - w->unpacked, amd_inner, s, &cw, err,
                                    sizeof err)
                    : -ECANCELED;
        w->decompressions++;
        w->unpacked += cw.out;
        w->packed += cw.in;
        if (r == -ECANCELED && !s->budget_said) /* the decompression budget, not the inner table's */
                xpu_object_set_malformed_budget(o,
                                                "%s: reading it would take more than one object's work budget (%u "
                                                "compressed bundles, %u MiB decompressed from %u MiB of their "
                                                "streams): not read further",
                                                s->section, XPU_OBJECT_WORK_DECOMPRESSIONS_MAX, XPU_OBJECT_WORK_UNPACKED_MAX >> 20,
                                                XPU_OBJECT_WORK_PACKED_MAX >> 20);
        /* A list of the object full (E2BIG) is said by the reader. */
        if (r == -ENOMEM || r == -ECANCELED || r == -E2BIG)
                return r;
        if (r < 0)
                xpu_object_set_malformed(o, "%s: the compressed offload bundle at offset %llu cannot be read: %s", s->section,
                              (unsigned long long)b->offset, err);
        return 0;
}

/* Map FD[OFFSET, OFFSET + LEN) read-only and run the bundle scan over it in place (a CCOB's stream
 * is decompressed from the mapping). Returns the scan's result, or 0 when the mapping failed or the
 * file shrank (recorded in the object). */
static int scan_mapped(int fd, uint64_t offset, uint64_t len, struct scan *s) {
        struct xpu_object *o = s->o;
        long page = sysconf(_SC_PAGESIZE);
        uint64_t start = offset & ~(uint64_t)(page - 1), delta = offset - start;
        if (len > SIZE_MAX - delta) {
                xpu_object_set_malformed(o, "%s: %llu bytes cannot be mapped", s->section, (unsigned long long)len);
                return 0;
        }
        size_t map_len = (size_t)(len + delta);
        uint8_t *map = mmap(NULL, map_len, PROT_READ, MAP_PRIVATE, fd, (off_t)start);
        if (map == MAP_FAILED) {
                if (errno == ENOMEM)
                        return -ENOMEM;
                xpu_object_set_malformed(o, "%s: cannot be mapped: %s", s->section, strerror(errno));
                return 0;
        }
        /* Headers are visited far apart: no readahead of the payloads between them. */
        (void)madvise(map, map_len, MADV_RANDOM);
        s->buf = map + delta;
        s->len = (size_t)len;
        struct sigaction sa = { .sa_handler = on_sigbus }, old;
        sigemptyset(&sa.sa_mask);
        sigjmp_buf jump;
        volatile int r = 0;
        (void)sigaction(SIGBUS, &sa, &old);
        if (sigsetjmp(jump, 1) == 0) {
                bus_jump = &jump;
                r = xpu_bundle_scan(s->buf, s->len, amd_bundle, s);
        } else {
                xpu_object_set_malformed(o,
                                         "%s: the file shrank while it was read; audit the image when nothing writes "
                                         "to it",
                                         s->section);
                r = 0;
        }
        bus_jump = NULL;
        (void)sigaction(SIGBUS, &old, NULL);
        munmap(map, map_len);
        return r;
}

/* Search FD[OFFSET, OFFSET + LEN) for the marks only, read in pieces, until they are found. Returns
 * 0, -ENODATA when the file shrank, -ENOMEM or pread's -errno. */
static int scan_marks(int fd, uint64_t offset, uint64_t len, struct scan *s) {
        enum { PIECE = 256u << 10 };
        _cleanup_free_ uint8_t *buf = malloc(PIECE);
        if (!buf)
                return -ENOMEM;
        for (uint64_t at = 0; at < len && s->marks && !*s->marks;) {
                size_t want = len - at < PIECE ? (size_t)(len - at) : PIECE;
                ssize_t n = xpu_pread_full(fd, buf, want, offset + at);
                if (n < 0)
                        return (int)n;
                if ((size_t)n < want)
                        return -ENODATA;
                search_marks((size_t)at, buf, want, s);
                at += want;
        }
        return 0;
}

int xpu_object_scan(int fd, uint64_t offset, uint64_t len, struct xpu_object *o, const char *section,
                    enum xpu_scan_what what, bool *marks) {
        if (len == 0)
                return 0;
        if (len > SECTION_SCAN_MAX) {
                xpu_object_set_malformed(o,
                                         "%s: %llu bytes, more device code than any real library has (at most %u GiB "
                                         "are read): not read",
                                         section, (unsigned long long)len, (unsigned)(SECTION_SCAN_MAX >> 30));
                return 0;
        }
        struct scan s = { .o = o, .work = &o->work, .section = section, .what = what, .marks = marks };
        int r = what == XPU_SCAN_BUNDLE  ? scan_mapped(fd, offset, len, &s)
                : what == XPU_SCAN_MARKS ? scan_marks(fd, offset, len, &s)
                                         : xpu_fatbin_scan_fd(fd, offset, len, nv_container, search_marks, &s);
        if (r == -ENODATA)
                xpu_object_set_malformed(o,
                                         "%s: the file shrank while it was read; audit the image when nothing writes "
                                         "to it",
                                         section);
        else if (r < 0 && r != -ENOMEM && r != -E2BIG && r != -ECANCELED)
                xpu_object_set_malformed(o, "%s: cannot be read: %s", section, strerror(-r));
        if (r == -ENOMEM || r == -ECANCELED)
                return r;
        if (r == -E2BIG)
                xpu_object_set_malformed_budget(o,
                                                "%s: more device code than any real library holds (over %u entries "
                                                "or %u architectures): not read further",
                                                section, XPU_FATBIN_SCAN_ENTRIES_MAX, XPU_OBJECT_NAMES_MAX);
        if (s.found > 0 && what != XPU_SCAN_MARKS) {
                int q = xpu_object_add_name(what == XPU_SCAN_BUNDLE ? &o->amd_sections : &o->nv_sections, section);
                if (q < 0)
                        return q;
        }
        return (int)s.found;
}
