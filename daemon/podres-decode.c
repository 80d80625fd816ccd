/* SPDX-License-Identifier: Apache-2.0 */
/* The pod-resources reply (podres.h): ListPodResourcesResponse bytes to struct xpud_podres_list.
 * protobuf-c unpacks the message (daemon/podresources.proto, generated at build time); a walk over
 * the same bytes checks every string first, because protobuf-c hands strings on as C strings and
 * would cut one at an embedded NUL without a word. */
#include "podres.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "podresources.pb-c.h"

static void set_err(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t err_size, const char *fmt, ...) {
        if (!err || err_size == 0)
                return;
        int n = snprintf(err, err_size, "pod-resources reply: ");
        if (n < 0 || (size_t)n >= err_size)
                return;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, err_size - (size_t)n, fmt, ap);
        va_end(ap);
}

/* ---- the wire walk: strings ------------------------------------------------------------------ */

/* Message nesting in podresources.proto is 6 deep (reply, pod, container, devices, topology, NUMA
 * node); the walk follows the schema only, so this bound is never reached by a valid reply. */
#define WALK_DEPTH_MAX 8

/* A varint at *P (before END) into *V; false when it is cut or longer than 10 bytes. */
static bool read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
        uint64_t x = 0;
        for (unsigned shift = 0; shift < 70 && *p < end; shift += 7) {
                uint8_t b = *(*p)++;
                x |= (uint64_t)(b & 0x7f) << shift;
                if (!(b & 0x80)) {
                        *v = x;
                        return true;
                }
        }
        return false;
}

/* Whether S (LEN bytes) is UTF-8 without C0 or C1 control characters, DEL, surrogates or overlong
 * forms: the strings end up in Prometheus labels and JSON. *AT is the offending byte's offset. */
static bool string_ok(const uint8_t *s, size_t len, size_t *at) {
        for (size_t i = 0; i < len;) {
                uint8_t c = s[i];
                *at = i;
                if (c < 0x80) {
                        if (c < 0x20 || c == 0x7f)
                                return false;
                        i++;
                        continue;
                }
                size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
                if (c < 0xc2 || c > 0xf4 || len - i < n)
                        return false;
                for (size_t k = 1; k < n; k++)
                        if ((s[i + k] & 0xc0) != 0x80)
                                return false;
                uint8_t c1 = s[i + 1];
                if ((c == 0xc2 && c1 < 0xa0) ||                 /* C1 controls U+0080..U+009F */
                    (c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0) || /* overlong, surrogates */
                    (c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 >= 0x90))   /* overlong, > U+10FFFF */
                        return false;
                i += n;
        }
        return true;
}

/* Check every string field of the message D at [P, END) and, through the schema, of the messages
 * in it: at most XPUD_PODRES_STRING_MAX bytes, UTF-8, no control characters. Unknown fields are
 * skipped. Returns 0, -EPROTO or -EMSGSIZE with ERR set. Linear in the bytes. */
static int walk_strings(const uint8_t *p, const uint8_t *end, const ProtobufCMessageDescriptor *d, unsigned depth,
                        char *err, size_t err_size) {
        if (depth > WALK_DEPTH_MAX) {
                set_err(err, err_size, "messages nested too deep");
                return -EPROTO;
        }
        while (p < end) {
                uint64_t key, n;
                if (!read_varint(&p, end, &key))
                        goto cut;
                const ProtobufCFieldDescriptor *f =
                        key >> 3 <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(d, (unsigned)(key >> 3))
                                               : NULL;
                switch (key & 7) {
                case 0: /* varint */
                        if (!read_varint(&p, end, &n))
                                goto cut;
                        break;
                case 1: /* 64-bit */
                        if (end - p < 8)
                                goto cut;
                        p += 8;
                        break;
                case 5: /* 32-bit */
                        if (end - p < 4)
                                goto cut;
                        p += 4;
                        break;
                case 2: { /* length-delimited */
                        if (!read_varint(&p, end, &n) || n > (uint64_t)(end - p))
                                goto cut;
                        const uint8_t *v = p;
                        p += n;
                        if (!f)
                                break;
                        if (f->type == PROTOBUF_C_TYPE_STRING) {
                                size_t at;
                                if (n > XPUD_PODRES_STRING_MAX) {
                                        set_err(err, err_size, "%s.%s: %llu bytes, more than the limit of %u",
                                                d->short_name, f->name, (unsigned long long)n,
                                                XPUD_PODRES_STRING_MAX);
                                        return -EMSGSIZE;
                                }
                                if (!string_ok(v, (size_t)n, &at)) {
                                        set_err(err, err_size,
                                                "%s.%s: byte 0x%02x at offset %zu is a control character or not "
                                                "UTF-8",
                                                d->short_name, f->name, v[at], at);
                                        return -EPROTO;
                                }
                        } else if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
                                int r = walk_strings(v, p, f->descriptor, depth + 1, err, err_size);
                                if (r < 0)
                                        return r;
                        }
                        break;
                }
                default: /* groups (3, 4) are not proto3; 6 and 7 do not exist */
                        set_err(err, err_size, "%s: wire type %u is not valid here", d->short_name,
                                (unsigned)(key & 7));
                        return -EPROTO;
                }
        }
        return 0;
cut:
        set_err(err, err_size, "%s: a field is cut short", d->short_name);
        return -EPROTO;
}

/* ---- unpack ----------------------------------------------------------------------------------- */

/* protobuf-c returns NULL both for bytes that are not the message and when out of memory: this
 * allocator tells them apart. */
static void *pb_alloc(void *data, size_t size) {
        void *p = malloc(size);
        if (!p)
                *(bool *)data = true;
        return p;
}

static void pb_free(void *data, void *p) {
        free(p);
}

/* ---- the arena -------------------------------------------------------------------------------- */

struct arena {
        char *next, *end;
};

static const char *arena_str(struct arena *a, const char *s) {
        size_t n = strlen(s) + 1;
        char *d = a->next;
        /* Sized exactly by the counting pass; the check guards against a mismatch. */
        if (n > (size_t)(a->end - a->next))
                abort();
        memcpy(d, s, n);
        a->next += n;
        return d;
}

static const char *arena_claim(struct arena *a, const V1__DynamicResource *dr) {
        size_t ns = strlen(dr->claim_namespace), nm = strlen(dr->claim_name);
        char *d = a->next;
        if (ns + nm + 2 > (size_t)(a->end - a->next))
                abort();
        memcpy(d, dr->claim_namespace, ns);
        d[ns] = '/';
        memcpy(d + ns + 1, dr->claim_name, nm + 1);
        a->next += ns + nm + 2;
        return d;
}

/* What the arena must hold, and the limits on it. */
struct tally {
        size_t allocs, ids, bytes;
};

static int tally_reply(const V1__ListPodResourcesResponse *r, struct tally *t, char *err, size_t err_size) {
        *t = (struct tally){ 0 };
        for (size_t i = 0; i < r->n_pod_resources; i++) {
                const V1__PodResources *pod = r->pod_resources[i];
                t->bytes += strlen(pod->name) + strlen(pod->namespace_) + 2;
                for (size_t j = 0; j < pod->n_containers; j++) {
                        const V1__ContainerResources *c = pod->containers[j];
                        t->bytes += strlen(c->name) + 1;
                        for (size_t k = 0; k < c->n_devices; k++) {
                                const V1__ContainerDevices *dev = c->devices[k];
                                t->allocs++;
                                t->ids += dev->n_device_ids;
                                t->bytes += strlen(dev->resource_name) + 1;
                                for (size_t m = 0; m < dev->n_device_ids; m++)
                                        t->bytes += strlen(dev->device_ids[m]) + 1;
                        }
                        for (size_t k = 0; k < c->n_dynamic_resources; k++) {
                                const V1__DynamicResource *dr = c->dynamic_resources[k];
                                t->bytes += strlen(dr->claim_namespace) + strlen(dr->claim_name) + 2;
                                for (size_t m = 0; m < dr->n_claim_resources; m++) {
                                        const V1__ClaimResource *cr = dr->claim_resources[m];
                                        t->allocs++;
                                        t->ids += cr->n_cdi_devices;
                                        t->bytes += strlen(cr->driver_name) + 1;
                                        for (size_t q = 0; q < cr->n_cdi_devices; q++)
                                                t->bytes += strlen(cr->cdi_devices[q]->name) + 1;
                                }
                        }
                }
        }
        /* The counts are bounded by the reply's size (every element costs bytes on the wire), so
         * they cannot overflow before these checks. */
        if (t->allocs > XPUD_PODRES_ALLOCS_MAX) {
                set_err(err, err_size, "%zu allocations, more than the limit of %u", t->allocs,
                        XPUD_PODRES_ALLOCS_MAX);
                return -EMSGSIZE;
        }
        if (t->ids > XPUD_PODRES_IDS_MAX) {
                set_err(err, err_size, "%zu device ids and CDI names, more than the limit of %u", t->ids,
                        XPUD_PODRES_IDS_MAX);
                return -EMSGSIZE;
        }
        return 0;
}

/* Fill L's arena from R (the counting pass said how much it takes). */
static void fill_list(const V1__ListPodResourcesResponse *r, struct xpud_podres_list *l, const struct tally *t) {
        struct xpud_podres_alloc *allocs = l->arena;
        const char **ids = (const char **)(allocs + t->allocs);
        struct arena a = { .next = (char *)(ids + t->ids) };
        a.end = a.next + t->bytes;
        size_t na = 0;
        for (size_t i = 0; i < r->n_pod_resources; i++) {
                const V1__PodResources *pod = r->pod_resources[i];
                const char *ns = arena_str(&a, pod->namespace_), *name = arena_str(&a, pod->name);
                for (size_t j = 0; j < pod->n_containers; j++) {
                        const V1__ContainerResources *c = pod->containers[j];
                        const char *cname = arena_str(&a, c->name);
                        for (size_t k = 0; k < c->n_devices; k++) {
                                const V1__ContainerDevices *dev = c->devices[k];
                                struct xpud_podres_alloc *x = &allocs[na++];
                                *x = (struct xpud_podres_alloc){ .pod_namespace = ns, .pod = name, .container = cname,
                                                                 .resource = arena_str(&a, dev->resource_name),
                                                                 .ids = ids, .n_ids = dev->n_device_ids };
                                for (size_t m = 0; m < dev->n_device_ids; m++)
                                        *ids++ = arena_str(&a, dev->device_ids[m]);
                        }
                        for (size_t k = 0; k < c->n_dynamic_resources; k++) {
                                const V1__DynamicResource *dr = c->dynamic_resources[k];
                                const char *claim = arena_claim(&a, dr);
                                for (size_t m = 0; m < dr->n_claim_resources; m++) {
                                        const V1__ClaimResource *cr = dr->claim_resources[m];
                                        struct xpud_podres_alloc *x = &allocs[na++];
                                        *x = (struct xpud_podres_alloc){ .pod_namespace = ns, .pod = name,
                                                                         .container = cname,
                                                                         .resource = arena_str(&a, cr->driver_name),
                                                                         .claim = claim, .ids = ids,
                                                                         .n_ids = cr->n_cdi_devices };
                                        for (size_t q = 0; q < cr->n_cdi_devices; q++)
                                                *ids++ = arena_str(&a, cr->cdi_devices[q]->name);
                                }
                        }
                }
        }
        l->allocs = t->allocs ? allocs : NULL;
        l->n_allocs = na;
        l->n_pods = r->n_pod_resources;
}

int xpud_podres_decode(const uint8_t *msg, size_t len, struct xpud_podres_list *out, char *err,
                       size_t err_size) {
        *out = (struct xpud_podres_list){ 0 };
        if (err && err_size)
                err[0] = '\0';
        if (len > XPUD_PODRES_REPLY_MAX) {
                set_err(err, err_size, "%zu bytes, more than the limit of %u", len, XPUD_PODRES_REPLY_MAX);
                return -EMSGSIZE;
        }
        static const uint8_t empty[1];
        if (!msg)
                msg = empty; /* a zero-length message: the empty reply */
        int r = walk_strings(msg, msg + len, &v1__list_pod_resources_response__descriptor, 0, err, err_size);
        if (r < 0)
                return r;

        bool oom = false;
        ProtobufCAllocator pa = { .alloc = pb_alloc, .free = pb_free, .allocator_data = &oom };
        V1__ListPodResourcesResponse *reply = v1__list_pod_resources_response__unpack(&pa, len, msg);
        if (!reply) {
                if (oom) {
                        set_err(err, err_size, "out of memory");
                        return -ENOMEM;
                }
                set_err(err, err_size, "%zu bytes that are not a ListPodResourcesResponse", len);
                return -EPROTO;
        }
        struct tally t;
        r = tally_reply(reply, &t, err, err_size);
        if (r >= 0) {
                size_t size = t.allocs * sizeof(struct xpud_podres_alloc) + t.ids * sizeof(char *) + t.bytes;
                out->arena = malloc(size ? size : 1);
                if (out->arena)
                        fill_list(reply, out, &t);
                else
                        r = -ENOMEM;
        }
        v1__list_pod_resources_response__free_unpacked(reply, &pa);
        if (r == -ENOMEM)
                set_err(err, err_size, "out of memory");
        return r;
}

void xpud_podres_list_free(struct xpud_podres_list *l) {
        if (!l)
                return;
        free(l->arena);
        *l = (struct xpud_podres_list){ 0 };
}
