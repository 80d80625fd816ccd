/* SPDX-License-Identifier: Apache-2.0 */
/* A sampler on a fixture host and checks of its bodies, for the sampler suites
 * (test-xpud-sampler.c, test-xpud-sampler.intel.c). Include after sampler.h, shim-root.h and testlib.h. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/str.h"
#include "sampler.h"
#include "server.h"
#include "shim-root.h"

struct fixture {
        char *root;
        char calls[PATH_MAX];
        struct xpud_store store;
        struct xpud_sampler *smp;
};

/* ---- helpers ------------------------------------------------------------------------------------- */

static inline struct xpud_sampler *sampler_new(struct fixture *f, unsigned interval_s, unsigned timeout_s, const char *nfd) {
        struct xpud_sampler_options o = {
                .sys_root = f->root,
                .dev_root = f->root,
                .driver_root = f->root,
                .interval_s = interval_s,
                .vendor_timeout_s = timeout_s,
                .nfd_file = nfd,
        };
        xpud_store_init(&f->store);
        ck_assert_int_eq(xpud_sampler_new(&o, &f->store, NULL, NULL, &f->smp), 0);
        return f->smp;
}

static inline void fixture_done(struct fixture *f) {
        f->smp = xpud_sampler_free(f->smp);
        xpud_store_done(&f->store);
        shim_drop_root(f->root);
}

/* Take a sample and return the current snapshot (a reference: xpud_snapshot_unref()). */
static inline struct xpud_snapshot *sample(struct fixture *f) {
        ck_assert_int_eq(xpud_sampler_sample(f->smp), 0);
        struct xpud_snapshot *s = xpud_store_acquire(&f->store);
        ck_assert_ptr_nonnull(s);
        return s;
}

static inline const char *body(struct xpud_snapshot *s, enum xpud_route route) {
        struct xpud_body b;
        ck_assert_int_eq(xpud_route_body(s, route, &b), 0);
        return b.data;
}

/* METRICS has the line PREFIX... VALUE (the whole line starts with PREFIX and ends in " VALUE"). */
static inline bool has_sample(const char *metrics, const char *prefix, const char *value) {
        for (const char *p = metrics; p && *p;) {
                const char *nl = strchr(p, '\n');
                size_t len = nl ? (size_t)(nl - p) : strlen(p);
                char line[1024];
                snprintf(line, sizeof line, "%.*s", (int)len, p);
                if (xpu_startswith(line, prefix)) {
                        size_t vl = strlen(value), ll = strlen(line);
                        if (ll > vl && line[ll - vl - 1] == ' ' && strcmp(line + ll - vl, value) == 0)
                                return true;
                }
                p = nl ? nl + 1 : NULL;
        }
        return false;
}

#define ASSERT_SAMPLE(m, prefix, value) ck_assert_msg(has_sample(m, prefix, value), "no %s... %s in:\n%s", prefix, value, m)
#define ASSERT_NO_SERIES(m, prefix) ck_assert_msg(!has_prefix_line(m, prefix), "%s... present in:\n%s", prefix, m)

static inline bool has_prefix_line(const char *metrics, const char *prefix) {
        for (const char *p = metrics; p && *p;) {
                if (xpu_startswith(p, prefix))
                        return true;
                p = strchr(p, '\n');
                p = p ? p + 1 : NULL;
        }
        return false;
}

