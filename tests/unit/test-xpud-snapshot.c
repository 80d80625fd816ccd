/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/snapshot.c: names of the readings' enums, reference counting, the body cache rendering
 * once when many threads ask at once (with the server's renderers, and with a renderer of the
 * test's own: failures are not cached), the holder's object made once with the body and released
 * with the snapshot, the store's publish/acquire under concurrency (run under `make asan`, or a
 * -fsanitize=thread build, to check the counting), and the lookup of /v1/devices/{key} in every
 * spelling. The JSON bodies' values are test-xpud-render-json.c's. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render-json.h"
#include "render-prom.h"
#include "server.h"
#include "testlib.h"
#include "xpud-fixture.h"

START_TEST(test_readings_strings) {
        ck_assert_str_eq(xpu_temp_sensor_to_string(XPU_TEMP_GPU), "gpu");
        ck_assert_str_eq(xpu_temp_sensor_to_string(XPU_TEMP_EDGE), "edge");
        ck_assert_str_eq(xpu_temp_sensor_to_string(XPU_TEMP_JUNCTION), "junction");
        ck_assert_str_eq(xpu_temp_sensor_to_string(XPU_TEMP_MEMORY), "memory");
        ck_assert_ptr_null(xpu_temp_sensor_to_string(_XPU_TEMP_MAX));
        ck_assert_ptr_null(xpu_temp_sensor_to_string((enum xpu_temp_sensor)-1));
        ck_assert_str_eq(xpu_clock_to_string(XPU_CLOCK_GRAPHICS), "graphics");
        ck_assert_str_eq(xpu_clock_to_string(XPU_CLOCK_MEMORY), "memory");
        ck_assert_str_eq(xpu_clock_to_string(XPU_CLOCK_SOC), "soc");
        ck_assert_ptr_null(xpu_clock_to_string(_XPU_CLOCK_MAX));
        ck_assert_str_eq(xpu_throttle_to_string(XPU_THROTTLE_POWER), "power");
        ck_assert_str_eq(xpu_throttle_to_string(XPU_THROTTLE_THERMAL), "thermal");
        ck_assert_str_eq(xpu_throttle_to_string(XPU_THROTTLE_HW_SLOWDOWN), "hw_slowdown");
        ck_assert_str_eq(xpu_throttle_to_string(XPU_THROTTLE_SYNC_BOOST), "sync_boost");
        ck_assert_ptr_null(xpu_throttle_to_string(_XPU_THROTTLE_MAX));
        ck_assert_str_eq(xpud_health_to_string(XPUD_HEALTH_UNKNOWN), "unknown");
        ck_assert_str_eq(xpud_health_to_string(XPUD_HEALTH_HEALTHY), "healthy");
        ck_assert_str_eq(xpud_health_to_string(XPUD_HEALTH_DEGRADED), "degraded");
        ck_assert_str_eq(xpud_health_to_string(XPUD_HEALTH_UNHEALTHY), "unhealthy");
        ck_assert_ptr_null(xpud_health_to_string(_XPUD_HEALTH_MAX));
}
END_TEST

START_TEST(test_refcount) {
        struct xpud_snapshot *s = xpud_snapshot_new();
        ck_assert_ptr_nonnull(s);
        ck_assert_uint_eq(atomic_load(&s->refs), 1);
        ck_assert_ptr_eq(xpud_snapshot_ref(s), s);
        ck_assert_uint_eq(atomic_load(&s->refs), 2);
        ck_assert_ptr_null(xpud_snapshot_unref(s));
        ck_assert_uint_eq(atomic_load(&s->refs), 1);
        ck_assert_ptr_null(xpud_snapshot_unref(NULL));
        ck_assert_ptr_null(xpud_snapshot_ref(NULL));
        /* the last reference frees everything it owns (ASan reports a leak or a double free) */
        struct xpud_snapshot *f = fx_snapshot();
        struct xpud_body b;
        ck_assert_int_eq(xpud_route_body(f, XPUD_ROUTE_METRICS, &b), 0);
        ck_assert_ptr_null(xpud_snapshot_unref(f));
        ck_assert_ptr_null(xpud_snapshot_unref(s));
}
END_TEST

#define THREADS 16

struct race {
        struct xpud_snapshot *s;
        pthread_barrier_t *barrier;
        enum xpud_route route;
        struct xpud_body body;
        int r;
};

static void *ask_body(void *p) {
        struct race *r = p;
        pthread_barrier_wait(r->barrier);
        r->r = xpud_route_body(r->s, r->route, &r->body);
        return NULL;
}

/* THREADS requests at once for each cached route: one render each, every caller gets those bytes. */
START_TEST(test_body_once) {
        struct xpud_snapshot *s = fx_snapshot();
        for (int route = 0; route < _XPUD_ROUTE_CACHED_MAX; route++) {
                pthread_barrier_t barrier;
                ck_assert_int_eq(pthread_barrier_init(&barrier, NULL, THREADS), 0);
                struct race races[THREADS];
                pthread_t th[THREADS];
                uint64_t before = xpud_snapshot_render_count();
                for (int i = 0; i < THREADS; i++) {
                        races[i] = (struct race){ .s = s, .barrier = &barrier, .route = (enum xpud_route)route, .r = -1 };
                        ck_assert_int_eq(pthread_create(&th[i], NULL, ask_body, &races[i]), 0);
                }
                for (int i = 0; i < THREADS; i++)
                        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
                pthread_barrier_destroy(&barrier);
                ck_assert_uint_eq(xpud_snapshot_render_count() - before, 1);
                for (int i = 0; i < THREADS; i++) {
                        ck_assert_int_eq(races[i].r, 0);
                        ck_assert_ptr_eq(races[i].body.data, races[0].body.data);
                        ck_assert_uint_eq(races[i].body.len, races[0].body.len);
                        ck_assert_str_eq(races[i].body.content_type, route == XPUD_ROUTE_METRICS
                                                                             ? "text/plain; version=0.0.4; charset=utf-8"
                                                                             : "application/json");
                }
                ck_assert_uint_gt(races[0].body.len, 10);
                ck_assert_uint_eq(strlen(races[0].body.data), races[0].body.len);
                /* asked again later: still the cached bytes */
                struct xpud_body again;
                ck_assert_int_eq(xpud_route_body(s, (enum xpud_route)route, &again), 0);
                ck_assert_ptr_eq(again.data, races[0].body.data);
                ck_assert_uint_eq(xpud_snapshot_render_count() - before, 1);
        }
        struct xpud_body b;
        ck_assert_int_eq(xpud_route_body(s, XPUD_ROUTE_DEVICE, &b), -EINVAL);
        xpud_snapshot_unref(s);
}
END_TEST

/* A renderer of the test's own: the snapshot's cache knows no format, only what it is handed. */
static int stub_calls;
static int stub_fail; /* the next STUB_FAIL renders fail with -ENOMEM */

static int stub_render(const struct xpud_snapshot *s, enum xpud_route route, char **ret, size_t *ret_len) {
        stub_calls++;
        if (stub_fail > 0) {
                stub_fail--;
                return -ENOMEM;
        }
        char *b = strdup(route == XPUD_ROUTE_HEALTH ? "health body" : "other body");
        if (!b)
                return -ENOMEM;
        *ret = b;
        *ret_len = strlen(b);
        return 0;
}

START_TEST(test_body_renderer) {
        static const struct xpud_renderer stub = { stub_render, "text/x-stub" };
        static const struct xpud_renderer none = { NULL, "text/x-stub" };
        struct xpud_snapshot *s = xpud_snapshot_new();
        ck_assert_ptr_nonnull(s);
        struct xpud_body b = { 0 };
        stub_calls = 0;
        stub_fail = 1;
        /* a failed render caches nothing and writes nothing */
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_HEALTH, &stub, NULL, &b), -ENOMEM);
        ck_assert_ptr_null(b.data);
        ck_assert_int_eq(stub_calls, 1);
        /* the next request renders again, then the body is the snapshot's */
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_HEALTH, &stub, NULL, &b), 0);
        ck_assert_str_eq(b.data, "health body");
        ck_assert_uint_eq(b.len, strlen("health body"));
        ck_assert_str_eq(b.content_type, "text/x-stub");
        const char *first = b.data;
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_HEALTH, &stub, NULL, &b), 0);
        ck_assert_ptr_eq(b.data, first);
        ck_assert_int_eq(stub_calls, 2);
        /* each route has its own entry */
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_EVENTS, &stub, NULL, &b), 0);
        ck_assert_str_eq(b.data, "other body");
        ck_assert_int_eq(stub_calls, 3);
        /* no renderer, or a route that is not cached */
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_VERSION, NULL, NULL, &b), -EINVAL);
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_VERSION, &none, NULL, &b), -EINVAL);
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_DEVICE, &stub, NULL, &b), -EINVAL);
        ck_assert_int_eq(stub_calls, 3);
        xpud_snapshot_unref(s); /* frees the cached bodies (ASan: no leak) */
}
END_TEST

/* A holder of the test's own, an object that owns the body as the server's response does. */
struct stub_held {
        char *data;
        size_t len;
        const char *type;
};
static atomic_int holds, releases;
static int hold_fail; /* the next HOLD_FAIL holds fail (the body freed, as the contract says) */

static void *stub_hold(char *data, size_t len, const char *type) {
        atomic_fetch_add(&holds, 1);
        struct stub_held *h = hold_fail > 0 ? NULL : malloc(sizeof *h);
        if (!h) {
                if (hold_fail > 0)
                        hold_fail--;
                free(data);
                return NULL;
        }
        *h = (struct stub_held){ .data = data, .len = len, .type = type };
        return h;
}

static void stub_release(void *p) {
        struct stub_held *h = p;
        atomic_fetch_add(&releases, 1);
        free(h->data);
        free(h);
}

struct held_race {
        struct xpud_snapshot *s;
        const struct xpud_body_holder *holder;
        pthread_barrier_t *barrier;
        struct xpud_body body;
        int r;
};

static void *ask_held(void *p) {
        struct held_race *r = p;
        pthread_barrier_wait(r->barrier);
        r->r = xpud_route_body_held(r->s, XPUD_ROUTE_METRICS, r->holder, &r->body);
        return NULL;
}

/* The body and the holder's object over it are made once and kept with the snapshot: a failed
 * hold caches nothing, a body rendered without a holder is held later without a new render,
 * another holder is refused, and the snapshot releases each object once when it is freed. */
START_TEST(test_body_holder) {
        static const struct xpud_renderer stub = { stub_render, "text/x-stub" };
        static const struct xpud_body_holder holder = { stub_hold, stub_release };
        static const struct xpud_body_holder other = { stub_hold, stub_release };
        static const struct xpud_body_holder broken = { NULL, stub_release };
        struct xpud_snapshot *s = xpud_snapshot_new();
        ck_assert_ptr_nonnull(s);
        struct xpud_body b = { 0 };
        stub_calls = 0;
        stub_fail = 0;
        atomic_store(&holds, 0);
        atomic_store(&releases, 0);
        uint64_t before = xpud_snapshot_render_count();
        /* a failed hold: rendered, then nothing cached nor counted, nothing written */
        hold_fail = 1;
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_HEALTH, &stub, &holder, &b), -ENOMEM);
        ck_assert_ptr_null(b.data);
        ck_assert_int_eq(stub_calls, 1);
        ck_assert_int_eq(atomic_load(&holds), 1);
        ck_assert_uint_eq(xpud_snapshot_render_count(), before);
        ck_assert(!s->cache[XPUD_ROUTE_HEALTH].done);
        ck_assert_ptr_null(s->cache[XPUD_ROUTE_HEALTH].data);
        /* the next request renders and holds again: the object owns the snapshot's bytes */
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_HEALTH, &stub, &holder, &b), 0);
        ck_assert_int_eq(stub_calls, 2);
        ck_assert_int_eq(atomic_load(&holds), 2);
        ck_assert_uint_eq(xpud_snapshot_render_count(), before + 1);
        ck_assert_str_eq(b.data, "health body");
        struct stub_held *h = b.held;
        ck_assert_ptr_nonnull(h);
        ck_assert_ptr_eq(h->data, b.data);
        ck_assert_uint_eq(h->len, b.len);
        ck_assert_str_eq(h->type, "text/x-stub");
        /* asked again: the same object, nothing made */
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_HEALTH, &stub, &holder, &b), 0);
        ck_assert_ptr_eq(b.held, h);
        ck_assert_int_eq(stub_calls, 2);
        ck_assert_int_eq(atomic_load(&holds), 2);
        /* without a holder: the same bytes, no object */
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_HEALTH, &stub, NULL, &b), 0);
        ck_assert_ptr_eq(b.data, h->data);
        ck_assert_ptr_null(b.held);
        /* another holder, or one without a hold function: refused */
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_HEALTH, &stub, &other, &b), -EINVAL);
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_EVENTS, &stub, &broken, &b), -EINVAL);
        ck_assert_int_eq(atomic_load(&holds), 2);
        /* rendered without a holder, held at the first request with one: no second render */
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_EVENTS, &stub, NULL, &b), 0);
        const char *events = b.data;
        ck_assert_int_eq(stub_calls, 3);
        ck_assert_int_eq(xpud_snapshot_body(s, XPUD_ROUTE_EVENTS, &stub, &holder, &b), 0);
        ck_assert_ptr_eq(b.data, events);
        ck_assert_ptr_eq(((struct stub_held *)b.held)->data, events);
        ck_assert_int_eq(stub_calls, 3);
        ck_assert_int_eq(atomic_load(&holds), 3);
        ck_assert_uint_eq(xpud_snapshot_render_count(), before + 2);
        /* freed: each object released once, and it frees the bytes (ASan: no leak, no double free) */
        ck_assert_int_eq(atomic_load(&releases), 0);
        xpud_snapshot_unref(s);
        ck_assert_int_eq(atomic_load(&releases), 2);

        /* THREADS first requests at once with the server's renderer: one render, one hold, every
         * caller gets the same object. */
        s = fx_snapshot();
        pthread_barrier_t barrier;
        ck_assert_int_eq(pthread_barrier_init(&barrier, NULL, THREADS), 0);
        struct held_race races[THREADS];
        pthread_t th[THREADS];
        atomic_store(&holds, 0);
        before = xpud_snapshot_render_count();
        for (int i = 0; i < THREADS; i++) {
                races[i] = (struct held_race){ .s = s, .holder = &holder, .barrier = &barrier, .r = -1 };
                ck_assert_int_eq(pthread_create(&th[i], NULL, ask_held, &races[i]), 0);
        }
        for (int i = 0; i < THREADS; i++)
                ck_assert_int_eq(pthread_join(th[i], NULL), 0);
        pthread_barrier_destroy(&barrier);
        ck_assert_uint_eq(xpud_snapshot_render_count() - before, 1);
        ck_assert_int_eq(atomic_load(&holds), 1);
        for (int i = 0; i < THREADS; i++) {
                ck_assert_int_eq(races[i].r, 0);
                ck_assert_ptr_nonnull(races[i].body.held);
                ck_assert_ptr_eq(races[i].body.held, races[0].body.held);
                ck_assert_ptr_eq(races[i].body.data, races[0].body.data);
        }
        ck_assert(strstr(races[0].body.data, "xpu_up{") != NULL);
        atomic_store(&releases, 0);
        xpud_snapshot_unref(s);
        ck_assert_int_eq(atomic_load(&releases), 1);
}
END_TEST

#define PUBLISHES 2000
#define READERS 8

struct store_test {
        struct xpud_store store;
        atomic_bool stop;
};

static void *reader(void *p) {
        struct store_test *t = p;
        uint64_t last = 0, seen = 0;
        /* At least one snapshot each, even when the publisher was done before this thread ran
         * (a loaded machine, an ASan build): the store keeps the last one. */
        while (seen == 0 || !atomic_load(&t->stop)) {
                struct xpud_snapshot *s = xpud_store_acquire(&t->store);
                if (!s)
                        continue;
                ck_assert_uint_ge(s->seq, last); /* never goes back */
                last = s->seq;
                struct xpud_body b;
                ck_assert_int_eq(xpud_route_body(s, (enum xpud_route)(seen % _XPUD_ROUTE_CACHED_MAX), &b), 0);
                ck_assert_uint_gt(b.len, 0);
                xpud_snapshot_unref(s);
                seen++;
        }
        return (void *)(uintptr_t)seen;
}

/* Readers acquire, render and release while the publisher replaces the snapshot; every snapshot
 * is freed exactly once (ASan/TSan builds check it), readers never see an older one. */
START_TEST(test_store_concurrency) {
        struct store_test t = { 0 };
        xpud_store_init(&t.store);
        ck_assert_ptr_null(xpud_store_acquire(&t.store)); /* before the first sample */
        pthread_t th[READERS];
        for (int i = 0; i < READERS; i++)
                ck_assert_int_eq(pthread_create(&th[i], NULL, reader, &t), 0);
        for (uint64_t seq = 1; seq <= PUBLISHES; seq++) {
                struct xpud_snapshot *s = xpud_snapshot_new();
                ck_assert_ptr_nonnull(s);
                s->seq = seq;
                xpud_store_publish(&t.store, s);
        }
        atomic_store(&t.stop, true);
        uint64_t total = 0;
        for (int i = 0; i < READERS; i++) {
                void *seen;
                ck_assert_int_eq(pthread_join(th[i], &seen), 0);
                total += (uintptr_t)seen;
        }
        ck_assert_uint_gt(total, 0);
        struct xpud_snapshot *s = xpud_store_acquire(&t.store);
        ck_assert_ptr_nonnull(s);
        ck_assert_uint_eq(s->seq, PUBLISHES);
        ck_assert_uint_eq(atomic_load(&s->refs), 2); /* the store's and ours */
        xpud_snapshot_unref(s);
        xpud_store_done(&t.store);
}
END_TEST

START_TEST(test_find_device) {
        struct xpud_snapshot *s = fx_snapshot();
        static const struct {
                const char *key;
                int index; /* -1: none */
        } cases[] = {
                { "0", 0 },
                { "3", 3 },
                { "4", -1 },
                { "00", 0 },
                { FX_UUID1, 1 },
                { "gpu-E28DB54C-AA74-5e20-7e8d-5db5f78f12fe", 1 },
                { "0000:1a:00.0", 0 },
                { "0000:1A:00.0", 0 },
                { "1a:00.0", 0 },
                { "00000000:c2:00.0", 3 },
                { "0000:c3:00.0", -1 },
                { "GPU-unknown", -1 },
                { "", -1 },
                { "-1", -1 },
                { "1x", -1 },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const struct xpud_device *d = xpud_snapshot_find_device(s, cases[i].key);
                if (cases[i].index < 0)
                        ck_assert_msg(d == NULL, "%s", cases[i].key);
                else {
                        ck_assert_msg(d != NULL, "%s", cases[i].key);
                        ck_assert_uint_eq(d->dev.index, (unsigned)cases[i].index);
                }
        }
        /* Device 3 as partition 2 of its GPU: named 0000:c2:00.2, no longer 0000:c2:00.0. */
        s->devices[3].dev.have |= XPU_HAVE_PARTITION;
        s->devices[3].dev.partition = 2;
        ck_assert_ptr_null(xpud_snapshot_find_device(s, "0000:c2:00.0"));
        const struct xpud_device *part = xpud_snapshot_find_device(s, "c2:00.2");
        ck_assert_ptr_nonnull(part);
        ck_assert_uint_eq(part->dev.index, 3);
        s->devices[3].dev.have &= ~(uint32_t)XPU_HAVE_PARTITION;
        char *json = NULL;
        size_t len = 0;
        ck_assert_int_eq(xpud_render_device_json(s, "nope", &json, &len), -ENOENT);
        ck_assert_int_eq(xpud_render_device_json(s, "0000:1b:00.0", &json, &len), 0);
        ck_assert_uint_eq(strlen(json), len);
        ck_assert_int_eq(json[len - 1], '\n');
        cJSON *o = cJSON_Parse(json);
        ck_assert_ptr_nonnull(o);
        ck_assert_str_eq(cJSON_GetObjectItem(o, "uuid")->valuestring, FX_UUID1);
        ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "health"), "state")->valuestring, "degraded");
        cJSON_Delete(o);
        free(json);
        xpud_snapshot_unref(s);
}
END_TEST

static Suite *model_suite(void) {
        Suite *s = suite_create("xpud-snapshot");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_readings_strings);
        tcase_add_test(tc, test_refcount);
        tcase_add_test(tc, test_body_once);
        tcase_add_test(tc, test_body_renderer);
        tcase_add_test(tc, test_body_holder);
        tcase_add_test(tc, test_store_concurrency);
        tcase_add_test(tc, test_find_device);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(model_suite());
}
