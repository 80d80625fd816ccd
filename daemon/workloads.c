/* SPDX-License-Identifier: Apache-2.0 */
/* Which pod uses which GPU (workloads.h): the kubelet's answers, their mapping onto a sample's
 * devices, and the client thread. */
#include "workloads.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macro.h"
#include "vendor.h"

/* ---- answers ------------------------------------------------------------------------------------ */

struct xpud_podres_answer {
        atomic_uint refs;
        struct xpud_podres_list list;
        void (*free_list)(struct xpud_podres_list *l);
        double time;
        /* DRA: the node numbers of id j of allocation i are nodes[first[base[i] + j] ..
         * first[base[i] + j + 1]); device-plugin ids have none. */
        size_t *base;  /* per allocation */
        size_t *first; /* per id, all allocations together, plus one */
        dev_t *nodes;
};

static void answer_free(struct xpud_podres_answer *a) {
        if (a->free_list)
                a->free_list(&a->list);
        else
                xpud_podres_list_free(&a->list);
        free(a->base);
        free(a->first);
        free(a->nodes);
        free(a);
}

int xpud_workloads_cdi_resolve(const void *ctx, const char *name, dev_t *nodes, size_t max, size_t *n) {
        *n = 0;
        return ctx ? xpud_cdi_devices_lookup(ctx, name, nodes, max, n) : -ENOENT;
}

struct xpud_podres_answer *xpud_podres_answer_new(struct xpud_podres_list *list, double time,
                                                  xpud_cdi_resolve_fn resolve, const void *ctx,
                                                  void (*free_list)(struct xpud_podres_list *l)) {
        struct xpud_podres_answer *a = calloc(1, sizeof *a);
        if (!a) {
                free_list ? free_list(list) : xpud_podres_list_free(list);
                return NULL;
        }
        atomic_init(&a->refs, 1);
        a->list = *list;
        memset(list, 0, sizeof *list);
        a->free_list = free_list;
        a->time = time;
        size_t n_ids = 0, n_nodes = 0, cap = 0;
        for (size_t i = 0; i < a->list.n_allocs; i++)
                n_ids += a->list.allocs[i].n_ids;
        a->base = calloc(a->list.n_allocs + 1, sizeof *a->base);
        a->first = calloc(n_ids + 1, sizeof *a->first);
        if (!a->base || !a->first) {
                answer_free(a);
                return NULL;
        }
        size_t g = 0;
        for (size_t i = 0; i < a->list.n_allocs; i++) {
                const struct xpud_podres_alloc *al = &a->list.allocs[i];
                a->base[i] = g;
                for (size_t j = 0; j < al->n_ids; j++, g++) {
                        a->first[g] = n_nodes;
                        dev_t nodes[XPUD_CDI_DEVICE_NODES_MAX];
                        size_t n = 0;
                        if (!al->claim || !resolve || resolve(ctx, al->ids[j], nodes, ELEMENTSOF(nodes), &n) < 0 ||
                            n > ELEMENTSOF(nodes))
                                continue;
                        if (n_nodes + n > cap) {
                                size_t c = cap * 2 > n_nodes + n + 16 ? cap * 2 : n_nodes + n + 16;
                                dev_t *grown = realloc(a->nodes, c * sizeof *grown);
                                if (!grown) {
                                        answer_free(a);
                                        return NULL;
                                }
                                a->nodes = grown;
                                cap = c;
                        }
                        memcpy(a->nodes + n_nodes, nodes, n * sizeof *nodes);
                        n_nodes += n;
                }
        }
        a->first[g] = n_nodes;
        return a;
}

struct xpud_podres_answer *xpud_podres_answer_ref(struct xpud_podres_answer *a) {
        if (a)
                atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed);
        return a;
}

void xpud_podres_answer_unref(void *p) {
        struct xpud_podres_answer *a = p;
        if (a && atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1)
                answer_free(a);
}

double xpud_podres_answer_time(const struct xpud_podres_answer *a) {
        return a ? a->time : 0;
}

/* ---- mapping ------------------------------------------------------------------------------------ */

/* Does the resource name NAME match PATTERN ("nvidia.com/gpu", or a prefix ending in '*')? */
static bool resource_matches(const char *pattern, const char *name) {
        size_t n = strlen(pattern);
        if (n > 0 && pattern[n - 1] == '*')
                return strncmp(pattern, name, n - 1) == 0;
        return strcmp(pattern, name) == 0;
}

/* The vendor whose device plugin serves RESOURCE, or NULL (not a GPU resource: CPUs, NICs). */
static const struct xpu_vendor_ops *vendor_of_resource(const char *resource) {
        for (size_t v = 0; resource && v < _XPU_VENDOR_MAX; v++) {
                const struct xpu_vendor_k8s *k = xpu_vendors[v]->k8s;
                for (const char *const *p = k ? k->resources : NULL; p && *p; p++)
                        if (resource_matches(*p, resource))
                                return xpu_vendors[v];
        }
        return NULL;
}

static bool key_matches(const struct xpu_device *d, const struct xpu_device_key *k) {
        switch (k->kind) {
        case XPU_DEVICE_KEY_UUID: {
                if (strcasecmp(d->uuid, k->text) == 0)
                        return true;
                size_t n;
                const struct xpu_mig_device *migs = xpu_mig_devices(d, &n);
                for (size_t m = 0; m < n; m++)
                        if (migs[m].uuid[0] && strcasecmp(migs[m].uuid, k->text) == 0)
                                return true;
                return false;
        }
        case XPU_DEVICE_KEY_PCI_BUS_ID:
                return (!(d->have & XPU_HAVE_PARTITION) || d->partition == 0) &&
                       xpu_pci_bus_id_equal(d->pci_bus_id, k->text);
        case XPU_DEVICE_KEY_RENDER_MINOR:
                return (d->have & XPU_HAVE_RENDER_MINOR) && d->render_minor == k->number;
        case XPU_DEVICE_KEY_CARD:
                return (d->have & XPU_HAVE_CARD) && d->card == k->number;
        default:
                return false;
        }
}

/* Does one of D's per-device nodes have one of the numbers NODES[0..N)? */
static bool nodes_match(const struct xpu_device *d, const dev_t *nodes, size_t n) {
        for (size_t i = 0; i < d->n_nodes && i < XPU_DEVICE_NODES_MAX; i++)
                for (size_t k = 0; d->nodes[i].have_major && k < n; k++)
                        if (makedev(d->nodes[i].major, d->nodes[i].minor) == nodes[k])
                                return true;
        return false;
}

struct found {
        size_t device; /* position in the snapshot */
        struct xpud_workload w;
};

struct found_list {
        struct found *v;
        size_t n, cap;
};

static int found_add(struct found_list *l, size_t device, const struct xpud_podres_alloc *al) {
        if (l->n == l->cap) {
                size_t c = l->cap ? l->cap * 2 : 16;
                struct found *grown = realloc(l->v, c * sizeof *grown);
                if (!grown)
                        return -ENOMEM;
                l->v = grown;
                l->cap = c;
        }
        l->v[l->n++] = (struct found){ device,
                                       { al->pod_namespace ? al->pod_namespace : "", al->pod ? al->pod : "",
                                         al->container ? al->container : "", al->resource ? al->resource : "",
                                         al->claim } };
        return 0;
}

static int cmp_str(const char *a, const char *b) {
        return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL); /* a NULL claim (device plugin) first */
}

static int cmp_found(const void *x, const void *y) {
        const struct found *a = x, *b = y;
        if (a->device != b->device)
                return (a->device > b->device) - (a->device < b->device);
        int c = strcmp(a->w.pod_namespace, b->w.pod_namespace);
        c = c ? c : strcmp(a->w.pod, b->w.pod);
        c = c ? c : strcmp(a->w.container, b->w.container);
        c = c ? c : strcmp(a->w.resource, b->w.resource);
        return c ? c : cmp_str(a->w.claim, b->w.claim);
}

static void note_unmatched(uint64_t *count, char *buf, size_t size, const char *what, const char *id) {
        if (buf && size && *count == 0)
                snprintf(buf, size, "%s id %s", what, id);
        (*count)++;
}

int xpud_workloads_map(struct xpud_podres_answer *a, const struct xpu_roots *roots, struct xpud_snapshot *s,
                       char *unmatched, size_t unmatched_size) {
        struct found_list l = { 0 };
        uint64_t n_unmatched = 0;
        if (unmatched && unmatched_size)
                unmatched[0] = '\0';
        for (size_t i = 0; a && i < a->list.n_allocs; i++) {
                const struct xpud_podres_alloc *al = &a->list.allocs[i];
                const struct xpu_vendor_ops *vo = al->claim ? NULL : vendor_of_resource(al->resource);
                if (!al->claim && !vo)
                        continue; /* not a GPU resource */
                for (size_t j = 0; j < al->n_ids; j++) {
                        bool matched = false;
                        struct xpu_device_key key;
                        const dev_t *nodes = a->nodes ? a->nodes + a->first[a->base[i] + j] : NULL;
                        size_t n_nodes = a->first[a->base[i] + j + 1] - a->first[a->base[i] + j];
                        bool have_key = vo && vo->k8s->device_key(roots, al->resource, al->ids[j], &key) >= 0;
                        for (size_t d = 0; d < s->n_devices && (have_key || n_nodes); d++) {
                                const struct xpu_device *dev = &s->devices[d].dev;
                                bool hit = al->claim ? nodes_match(dev, nodes, n_nodes)
                                                     : dev->vendor == vo->vendor && key_matches(dev, &key);
                                if (hit && found_add(&l, d, al) < 0) {
                                        free(l.v);
                                        return -ENOMEM;
                                }
                                matched = matched || hit;
                        }
                        if (!matched)
                                note_unmatched(&n_unmatched, unmatched, unmatched_size,
                                               al->claim ? "CDI device" : al->resource, al->ids[j]);
                }
        }
        /* One entry per device and container: several ids (MIG devices of one GPU, shares of a
         * time-sliced one) name the same GPU. */
        if (l.n > 1)
                qsort(l.v, l.n, sizeof *l.v, cmp_found);
        struct xpud_workload *w = l.n ? calloc(l.n, sizeof *w) : NULL;
        if (l.n && !w) {
                free(l.v);
                return -ENOMEM;
        }
        size_t n = 0;
        for (size_t k = 0; k < s->n_devices; k++) {
                s->devices[k].workloads = NULL;
                s->devices[k].n_workloads = 0;
        }
        for (size_t k = 0; k < l.n; k++) {
                if (k > 0 && cmp_found(&l.v[k - 1], &l.v[k]) == 0)
                        continue;
                struct xpud_device *d = &s->devices[l.v[k].device];
                if (!d->workloads)
                        d->workloads = &w[n];
                d->n_workloads++;
                w[n++] = l.v[k].w;
        }
        free(l.v);
        free(s->workloads);
        if (s->workloads_unref)
                s->workloads_unref(s->workloads_ref);
        s->workloads = w;
        s->n_workloads = n;
        s->workloads_ref = xpud_podres_answer_ref(a);
        s->workloads_unref = xpud_podres_answer_unref;
        s->podres.unmatched_ids = n_unmatched;
        return 0;
}

/* ---- the client thread ------------------------------------------------------------------------ */

struct xpud_workloads {
        char *socket_path;
        unsigned timeout_ms;
        bool labels;
        char *dirs_text;                           /* --cdi-spec-dirs, split in place */
        const char *dirs[XPUD_CDI_SPEC_DIRS_MAX];
        size_t n_dirs;
        char *dev_root;

        /* The client thread's own. */
        struct xpud_cdi_devices *cdi;
        struct timespec dirs_mtime[XPUD_CDI_SPEC_DIRS_MAX]; /* of the last load; 0 when missing */
        uint64_t unknown_hash;                     /* CDI names not found after the last load */
        bool cdi_loaded;
        int cdi_error;                             /* last load's error, logged once per change */
        char last_error[320];                      /* last List error, logged once per change */

        /* The sampler's own. */
        uint64_t last_unmatched;

        pthread_mutex_t lock; /* below */
        pthread_cond_t wake;
        pthread_t thread;
        bool started, stop, kick;
        struct xpud_podres_answer *answer; /* the last good answer, NULL before the first */
        bool up;
        uint64_t errors_total, calls;
};

static double realtime_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* FNV-1a over the DRA names of LIST that CDI does not know. 0: none. */
static uint64_t unknown_names(const struct xpud_cdi_devices *cdi, const struct xpud_podres_list *list) {
        uint64_t h = 0;
        for (size_t i = 0; i < list->n_allocs; i++)
                for (size_t j = 0; list->allocs[i].claim && j < list->allocs[i].n_ids; j++) {
                        dev_t nodes[1];
                        size_t n;
                        int r = cdi ? xpud_cdi_devices_lookup(cdi, list->allocs[i].ids[j], nodes, 0, &n) : -ENOENT;
                        if (r != -ENOENT)
                                continue;
                        if (!h)
                                h = 1469598103934665603ull;
                        for (const char *p = list->allocs[i].ids[j]; *p; p++)
                                h = (h ^ (uint8_t)*p) * 1099511628211ull;
                        h = (h ^ 0xff) * 1099511628211ull;
                }
        return h;
}

/* Read the CDI specs again when a directory changed since the last load, or the answer names a
 * CDI device that the last load did not know and that was not unknown then already: at most once
 * per List, and never again for the same unknown names. */
static void cdi_refresh(struct xpud_workloads *w, const struct xpud_podres_list *list) {
        bool any_dra = false;
        for (size_t i = 0; i < list->n_allocs && !any_dra; i++)
                any_dra = list->allocs[i].claim != NULL;
        if (!any_dra)
                return; /* no claim: nothing to read the specs for */
        struct timespec now[XPUD_CDI_SPEC_DIRS_MAX] = { 0 };
        bool changed = !w->cdi_loaded;
        for (size_t i = 0; i < w->n_dirs; i++) {
                struct stat st;
                if (stat(w->dirs[i], &st) == 0)
                        now[i] = st.st_mtim;
                changed = changed || now[i].tv_sec != w->dirs_mtime[i].tv_sec || now[i].tv_nsec != w->dirs_mtime[i].tv_nsec;
        }
        uint64_t unknown = unknown_names(w->cdi, list);
        if (!changed && (unknown == 0 || unknown == w->unknown_hash))
                return;
        struct xpud_cdi_devices *c = NULL;
        char err[256] = "";
        int r = xpud_cdi_devices_load(w->dirs, w->n_dirs, NULL, w->dev_root, &c, err, sizeof err);
        if (r < 0 && r != w->cdi_error)
                log_warning("--cdi-spec-dirs: %s; DRA claims are not attributed to GPUs until the specs can be "
                            "read", err[0] ? err : strerror(-r));
        else if (r >= 0 && w->cdi_error < 0)
                log_info("--cdi-spec-dirs: specs read again (%zu files)", xpud_cdi_devices_n_files(c));
        w->cdi_error = r < 0 ? r : 0;
        if (r < 0)
                c = NULL;
        xpud_cdi_devices_free(w->cdi);
        w->cdi = c;
        w->cdi_loaded = true;
        memcpy(w->dirs_mtime, now, sizeof now);
        w->unknown_hash = unknown_names(w->cdi, list);
}

/* One List call, outside the lock; its answer replaces the last one, or the last one stays. */
static void call_once(struct xpud_workloads *w) {
        struct xpud_podres_list list = { 0 };
        char err[320] = "";
        int r = xpud_podres_call(w->socket_path, w->timeout_ms, &list, err, sizeof err);
        struct xpud_podres_answer *a = NULL;
        if (r >= 0) {
                cdi_refresh(w, &list);
                a = xpud_podres_answer_new(&list, realtime_s(), xpud_workloads_cdi_resolve, w->cdi, NULL);
                if (!a)
                        r = -ENOMEM;
        } else
                xpud_podres_list_free(&list);
        if (r < 0) {
                if (!err[0])
                        snprintf(err, sizeof err, "%s: %s", w->socket_path, strerror(-r));
                if (strcmp(err, w->last_error) != 0)
                        log_warning("pod-resources: %s; keeping the last answer (its age is "
                                    "xpud_pod_resources_age_seconds), trying again at the next sample", err);
                snprintf(w->last_error, sizeof w->last_error, "%s", err);
        } else if (w->last_error[0]) {
                log_info("pod-resources: %s answers again", w->socket_path);
                w->last_error[0] = '\0';
        }
        pthread_mutex_lock(&w->lock);
        w->calls++;
        w->up = r >= 0;
        if (r < 0)
                w->errors_total++;
        struct xpud_podres_answer *old = NULL;
        if (a) {
                old = w->answer;
                w->answer = a;
        }
        pthread_mutex_unlock(&w->lock);
        xpud_podres_answer_unref(old); /* outside the lock: freeing may take a while */
}

static void *workloads_main(void *arg) {
        struct xpud_workloads *w = arg;
        pthread_mutex_lock(&w->lock);
        for (;;) {
                while (!w->stop && !w->kick)
                        pthread_cond_wait(&w->wake, &w->lock);
                if (w->stop)
                        break;
                w->kick = false;
                pthread_mutex_unlock(&w->lock);
                call_once(w);
                pthread_mutex_lock(&w->lock);
        }
        pthread_mutex_unlock(&w->lock);
        return NULL;
}

/* Split --cdi-spec-dirs (TEXT, modified) into DIRS. Returns 0 or -EINVAL (logged). */
static int split_dirs(char *text, const char **dirs, size_t *n) {
        *n = 0;
        for (char *save = NULL, *t = strtok_r(text, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (t[0] != '/' || *n == XPUD_CDI_SPEC_DIRS_MAX) {
                        log_error("--cdi-spec-dirs: \"%s\" %s", t,
                                  t[0] != '/' ? "is not an absolute directory (give e.g. /etc/cdi,/var/run/cdi)"
                                              : "is one directory too many (8 at most)");
                        return -EINVAL;
                }
                dirs[(*n)++] = t;
        }
        return 0;
}

int xpud_workloads_new(const struct xpud_workloads_options *o, struct xpud_workloads **ret) {
        *ret = NULL;
        const char *path = o->socket_path ? o->socket_path : XPUD_POD_RESOURCES_DEFAULT;
        if (strcmp(path, "none") == 0)
                return 0;
        struct stat st;
        int missing = stat(path, &st) < 0 ? errno : 0;
        if (missing && !o->socket_given) {
                log_info("no kubelet pod-resources socket at %s: GPUs are not attributed to pods "
                         "(--pod-resources PATH names another, --pod-resources none silences this)", path);
                return 0;
        }
        struct xpud_workloads *w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        pthread_mutex_init(&w->lock, NULL);
        pthread_cond_init(&w->wake, NULL);
        w->socket_path = strdup(path);
        w->dirs_text = strdup(o->cdi_spec_dirs ? o->cdi_spec_dirs : XPUD_CDI_SPEC_DIRS_DEFAULT);
        w->dev_root = o->dev_root ? strdup(o->dev_root) : NULL;
        if (!w->socket_path || !w->dirs_text || (o->dev_root && !w->dev_root)) {
                xpud_workloads_free(w);
                return -ENOMEM;
        }
        if (split_dirs(w->dirs_text, w->dirs, &w->n_dirs) < 0) {
                xpud_workloads_free(w);
                return -EINVAL;
        }
        if (missing)
                log_warning("--pod-resources %s: %s; trying again at every sample", path, strerror(missing));
        /* The deadline: within the interval, and never above the client's default. */
        unsigned interval_ms = (o->interval_s ? o->interval_s : 1) * 1000u;
        w->timeout_ms = interval_ms < XPUD_PODRES_TIMEOUT_MS ? interval_ms : XPUD_PODRES_TIMEOUT_MS;
        w->labels = o->labels;
        log_info("pod-resources: asking %s once per sample (deadline %u ms)%s", path, w->timeout_ms,
                 o->labels ? "; namespace, pod and container on every device series" : "");
        *ret = w;
        return 0;
}

int xpud_workloads_start(struct xpud_workloads *w) {
        if (!w)
                return 0;
        pthread_mutex_lock(&w->lock);
        int r = w->started ? -EALREADY : -pthread_create(&w->thread, NULL, workloads_main, w);
        if (r == 0)
                w->started = true;
        pthread_mutex_unlock(&w->lock);
        return r;
}

int xpud_workloads_attach(struct xpud_workloads *w, const struct xpu_roots *roots, struct xpud_snapshot *s) {
        if (!w)
                return 0;
        pthread_mutex_lock(&w->lock);
        struct xpud_podres_answer *a = xpud_podres_answer_ref(w->answer);
        s->podres = (struct xpud_pod_resources){ .on = true, .up = w->up, .errors_total = w->errors_total };
        w->kick = true; /* the next List, for the next sample */
        pthread_cond_signal(&w->wake);
        pthread_mutex_unlock(&w->lock);
        s->workload_labels = w->labels;
        int r = 0;
        if (a) {
                char first[192];
                s->podres.have_answer = true;
                double now = realtime_s();
                s->podres.age_seconds = now > a->time ? now - a->time : 0; /* a clock step back: 0 */
                r = xpud_workloads_map(a, roots, s, first, sizeof first);
                if (r >= 0 && s->podres.unmatched_ids != w->last_unmatched && s->podres.unmatched_ids > 0)
                        log_warning("pod-resources: %" PRIu64 " device id(s) name no GPU of this node (first: %s); "
                                    "they are counted in xpud_workload_unmatched_ids", s->podres.unmatched_ids, first);
                if (r >= 0)
                        w->last_unmatched = s->podres.unmatched_ids;
        }
        xpud_podres_answer_unref(a);
        return r;
}

uint64_t xpud_workloads_calls(struct xpud_workloads *w) {
        if (!w)
                return 0;
        pthread_mutex_lock(&w->lock);
        uint64_t n = w->calls;
        pthread_mutex_unlock(&w->lock);
        return n;
}

struct xpud_workloads *xpud_workloads_free(struct xpud_workloads *w) {
        if (!w)
                return NULL;
        pthread_mutex_lock(&w->lock);
        bool started = w->started;
        w->stop = true;
        pthread_cond_signal(&w->wake);
        pthread_mutex_unlock(&w->lock);
        if (started)
                pthread_join(w->thread, NULL);
        xpud_podres_answer_unref(w->answer);
        xpud_cdi_devices_free(w->cdi);
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        free(w->socket_path);
        free(w->dirs_text);
        free(w->dev_root);
        free(w);
        return NULL;
}
