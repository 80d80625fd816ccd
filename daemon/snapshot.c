/* SPDX-License-Identifier: Apache-2.0 */
/* Immutable ref-counted snapshots, their once-per-snapshot body cache, and the store the sampler
 * publishes to (snapshot.h).
 *
 * Reference counting: the count is atomic; a reference is dropped with acquire-release order, so
 * everything other threads did with the snapshot happens before the free by the thread that drops
 * the last one (a release decrement plus an acquire fence would do as well, but ThreadSanitizer
 * does not model fences). The store hands out references under
 * its mutex, so a snapshot being replaced cannot be freed between reading the pointer and taking
 * the reference. */
#include "snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/macro.h"
#include "base/str.h"

static atomic_uint_fast64_t render_count;

uint64_t xpud_snapshot_render_count(void) {
        return atomic_load(&render_count);
}

struct xpud_snapshot *xpud_snapshot_new(void) {
        struct xpud_snapshot *s = calloc(1, sizeof *s);
        if (!s)
                return NULL;
        if (pthread_mutex_init(&s->lock, NULL) != 0) {
                free(s);
                return NULL;
        }
        atomic_init(&s->refs, 1);
        for (size_t i = 0; i < XPU_FABRIC_SETS_MAX; i++)
                s->fabric_channels[i] = -1; /* not counted */
        return s;
}

struct xpud_snapshot *xpud_snapshot_ref(struct xpud_snapshot *s) {
        if (s)
                atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
        return s;
}

static void snapshot_free(struct xpud_snapshot *s) {
        for (size_t i = 0; i < ELEMENTSOF(s->cache); i++)
                if (s->cache[i].held)
                        s->cache[i].holder->release(s->cache[i].held); /* frees data after its last user */
                else
                        free(s->cache[i].data);
        pthread_mutex_destroy(&s->lock);
        xpu_inventory_free(s->inv);
        free(s->devices);
        free(s->backends);
        free(s->events);
        free(s->workloads);
        if (s->workloads_unref)
                s->workloads_unref(s->workloads_ref);
        free(s);
}

struct xpud_snapshot *xpud_snapshot_unref(struct xpud_snapshot *s) {
        if (!s)
                return NULL;
        if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
                snapshot_free(s);
        return NULL;
}

/* Hand the body of C to HOLDER. Under the snapshot's lock. Returns 0, or -ENOMEM when the hold
 * failed and took the body with it: C is empty again. */
static int hold_body(struct xpud_body_cache *c, const struct xpud_body_holder *holder, const char *content_type) {
        void *held = holder->hold(c->data, c->len, content_type);
        if (!held) {
                *c = (struct xpud_body_cache){ 0 };
                return -ENOMEM;
        }
        c->holder = holder;
        c->held = held;
        return 0;
}

int xpud_snapshot_body(struct xpud_snapshot *s, enum xpud_route route, const struct xpud_renderer *r,
                       const struct xpud_body_holder *holder, struct xpud_body *out) {
        if ((unsigned)route >= _XPUD_ROUTE_CACHED_MAX || !r || !r->render ||
            (holder && (!holder->hold || !holder->release)))
                return -EINVAL;
        struct xpud_body_cache *c = &s->cache[route];
        int e = 0;
        /* Held while rendering: requests that arrive meanwhile wait for this one body instead of
         * rendering their own. A failed render or hold leaves the entry empty for the next request. */
        pthread_mutex_lock(&s->lock);
        if (holder && c->held && c->holder != holder) {
                e = -EINVAL;
        } else if (!c->done) {
                e = r->render(s, route, &c->data, &c->len);
                if (e >= 0 && holder)
                        e = hold_body(c, holder, r->content_type);
                if (e >= 0) {
                        c->done = true;
                        atomic_fetch_add(&render_count, 1);
                }
        } else if (holder && !c->held) {
                /* Rendered before for a caller without a holder (a test): held now. */
                e = hold_body(c, holder, r->content_type);
        }
        if (e >= 0)
                *out = (struct xpud_body){
                        .data = c->data, .len = c->len, .content_type = r->content_type,
                        .held = holder ? c->held : NULL,
                };
        pthread_mutex_unlock(&s->lock);
        return e < 0 ? e : 0;
}

/* KEY as a decimal index: 0 and *RET, or -EINVAL when KEY is not all digits. */
static int parse_index(const char *key, unsigned *ret) {
        if (!key[0] || strlen(key) > 9 || strspn(key, "0123456789") != strlen(key))
                return -EINVAL;
        uint64_t v;
        if (xpu_parse_u64(key, 10, &v) < 0)
                return -EINVAL;
        *ret = (unsigned)v;
        return 0;
}

const struct xpud_device *xpud_snapshot_find_device(const struct xpud_snapshot *s, const char *key) {
        if (!s || !key || !key[0])
                return NULL;
        unsigned index;
        if (parse_index(key, &index) == 0) {
                for (size_t i = 0; i < s->n_devices; i++)
                        if (s->devices[i].dev.index == index)
                                return &s->devices[i];
                return NULL;
        }
        for (size_t i = 0; i < s->n_devices; i++)
                if (s->devices[i].dev.uuid[0] && strcasecmp(s->devices[i].dev.uuid, key) == 0)
                        return &s->devices[i];
        char bus[XPU_PCI_BUS_ID_MAX];
        if (xpu_pci_bus_id_normalize(key, bus) < 0)
                return NULL;
        /* A partition by its own name (its number as the function, as ROCm SMI spells it). */
        for (size_t i = 0; i < s->n_devices; i++) {
                char named[XPU_PCI_BUS_ID_MAX];
                if (xpu_device_named_bus_id(&s->devices[i].dev, named) && strcmp(named, bus) == 0)
                        return &s->devices[i];
        }
        return NULL;
}

void xpud_store_init(struct xpud_store *st) {
        pthread_mutex_init(&st->lock, NULL);
        st->current = NULL;
}

void xpud_store_publish(struct xpud_store *st, struct xpud_snapshot *s) {
        pthread_mutex_lock(&st->lock);
        struct xpud_snapshot *old = st->current;
        st->current = s;
        pthread_mutex_unlock(&st->lock);
        xpud_snapshot_unref(old); /* outside the lock: freeing may take a while */
}

struct xpud_snapshot *xpud_store_acquire(struct xpud_store *st) {
        pthread_mutex_lock(&st->lock);
        struct xpud_snapshot *s = xpud_snapshot_ref(st->current);
        pthread_mutex_unlock(&st->lock);
        return s;
}

void xpud_store_done(struct xpud_store *st) {
        pthread_mutex_lock(&st->lock);
        struct xpud_snapshot *s = st->current;
        st->current = NULL;
        pthread_mutex_unlock(&st->lock);
        xpud_snapshot_unref(s);
        pthread_mutex_destroy(&st->lock);
}
