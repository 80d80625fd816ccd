/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/audit.c's summary and audit-render.c's report, on hand-built objects: each object
 * counts once in the layer table (rows add up to the totals, percentages of the image's bytes),
 * the needs view keeps every layer an object needs, and the text shows both, labelled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit-render.h"
#include "audit-summary.h"
#include "base/strv.h"
#include "devcode/object-json.h"
#include "testlib.h"

static struct xpu_object from_json(const char *json) {
        cJSON *j = cJSON_Parse(json);
        ck_assert_ptr_nonnull(j);
        struct xpu_object o;
        char err[256];
        if (xpu_object_from_json(j, &o, err, sizeof err) < 0)
                ck_abort_msg("%s: %s", json, err);
        cJSON_Delete(j);
        return o;
}

static void audit_clear(struct xpu_audit *a) {
        for (size_t i = 0; i < a->n_objects; i++)
                xpu_object_clear(&a->objects[i]);
        xpu_strv_free(a->nv_sass);
        xpu_strv_free(a->nv_ptx);
        xpu_strv_free(a->amd_gfx);
}

/* The text report of A, or its JSON when JSON (both as one string to free). */
static char *render(const struct xpu_audit *a, bool json) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(json ? xpu_audit_render_json(a, f) : xpu_audit_render_text(a, f), 0);
        fclose(f);
        return text;
}

static double cell(const cJSON *summary, const char *table, const char *row, const char *class, const char *key) {
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(summary, table), row);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, class), key);
        if (!cJSON_IsNumber(v))
                ck_abort_msg("summary.%s.%s.%s.%s is not a number", table, row, class, key);
        return v->valuedouble;
}

static void assert_line(const char *text, const char *line) {
        char want[256];
        snprintf(want, sizeof want, "\n%s\n", line);
        if (!strstr(text, want))
                ck_abort_msg("the report lacks the line\n%s\nit is:\n%s", line, text);
}

/* An AMD image of 1000 bytes: HIP's runtime (100), rocSPARSE (600, needs HIP), a program with no
 * code of its own that needs HIP, rocTX and rocBLAS in that DT_NEEDED order (200), and a
 * vendor-neutral libc (100). */
START_TEST(test_summary_counts_each_object_once) {
        struct xpu_object o[4];
        o[0] = from_json("{\"path\":\"opt/rocm/lib/libamdhip64.so.5\",\"soname\":\"libamdhip64.so.5\",\"size_bytes\":100,"
                         "\"kind\":\"elf\",\"vendor\":\"amd\",\"library\":\"libamdhip64\",\"layers\":[\"runtime\"],"
                         "\"needed\":[\"libhsa-runtime64.so.1\"]}");
        o[1] = from_json("{\"path\":\"opt/rocm/lib/librocsparse.so.0\",\"soname\":\"librocsparse.so.0\",\"size_bytes\":600,"
                         "\"kind\":\"elf\",\"vendor\":\"amd\",\"library\":\"librocsparse\",\"layers\":[\"runtime\",\"sparse\","
                         "\"parallel-algorithms\"],\"needed\":[\"libamdhip64.so.5\"],\"amd\":{\"gfx\":[\"gfx90a\"]}}");
        o[2] = from_json("{\"path\":\"usr/bin/app\",\"size_bytes\":200,\"kind\":\"elf\",\"vendor\":\"amd\",\"layers\":"
                         "[\"runtime\",\"blas\",\"other\"],\"needed\":[\"libamdhip64.so.5\",\"libroctx64.so.4\",\"librocblas.so.3\"]}");
        o[3] = from_json("{\"path\":\"usr/lib/libc.so.6\",\"size_bytes\":100,\"kind\":\"elf\",\"vendor\":null}");
        struct xpu_audit a = { .root = "/img", .objects = o, .n_objects = 4 };
        ck_assert_int_eq(xpu_audit_summarize(&a), 0);

        /* Each in one row: the library it is, else the most specific layer it needs. */
        ck_assert_uint_eq(a.by_row[XPU_LAYER_RUNTIME][XPU_AUDIT_AMD].objects, 1);
        ck_assert_uint_eq(a.by_row[XPU_LAYER_RUNTIME][XPU_AUDIT_AMD].bytes, 100); /* libamdhip64 alone */
        ck_assert_uint_eq(a.by_row[XPU_LAYER_SPARSE][XPU_AUDIT_AMD].bytes, 600);
        ck_assert_uint_eq(a.by_row[XPU_LAYER_BLAS][XPU_AUDIT_AMD].bytes, 200);
        ck_assert_uint_eq(a.by_row[XPU_LAYER_PARALLEL_ALGORITHMS][XPU_AUDIT_AMD].objects, 0);
        ck_assert_uint_eq(a.by_row[XPU_AUDIT_ROW_NEUTRAL][XPU_AUDIT_NEUTRAL].bytes, 100);
        /* The rows add up to the totals, per class and over all. */
        struct xpu_audit_tally sum = { 0 };
        for (unsigned c = 0; c < _XPU_AUDIT_CLASS_MAX; c++) {
                struct xpu_audit_tally col = { 0 };
                for (unsigned row = 0; row < _XPU_AUDIT_ROW_MAX; row++) {
                        col.objects += a.by_row[row][c].objects;
                        col.bytes += a.by_row[row][c].bytes;
                }
                ck_assert_uint_eq(col.objects, a.by_class[c].objects);
                ck_assert_uint_eq(col.bytes, a.by_class[c].bytes);
                sum.objects += col.objects;
                sum.bytes += col.bytes;
        }
        ck_assert_uint_eq(sum.objects, 4);
        ck_assert_uint_eq(sum.bytes, 1000);
        ck_assert_uint_eq(a.total.bytes, 1000);
        /* The needs view: everything of AMD's needs the runtime. */
        ck_assert_uint_eq(a.needs[XPU_LAYER_RUNTIME][XPU_AUDIT_AMD].objects, 3);
        ck_assert_uint_eq(a.needs[XPU_LAYER_RUNTIME][XPU_AUDIT_AMD].bytes, 900);

        char *json = render(&a, true);
        cJSON *j = cJSON_Parse(json);
        ck_assert_ptr_nonnull(j);
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "summary");
        ck_assert(cell(s, "layers", "runtime", "amd", "bytes_percent") == 10.0);
        ck_assert(cell(s, "layers", "sparse", "amd", "bytes_percent") == 60.0);
        ck_assert(cell(s, "layers", "blas", "amd", "bytes_percent") == 20.0);
        ck_assert(cell(s, "layers", "vendor-neutral", "vendor-neutral", "bytes") == 100.0);
        ck_assert(cell(s, "layers", "vendor-neutral", "vendor-neutral", "bytes_percent") == 10.0);
        ck_assert(cell(s, "layers", "runtime", "vendor-neutral", "objects") == 0.0);
        ck_assert(cell(s, "layers", "runtime", "nvidia+amd", "bytes_percent") == 0.0);
        const cJSON *amd = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "vendors"), "amd");
        ck_assert(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(amd, "bytes_percent")) == 90.0); /* the total row */
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "layers")), _XPU_LAYER_MAX + 1);
        ck_assert(cell(s, "needs", "runtime", "amd", "objects") == 3.0);
        ck_assert(cell(s, "needs", "runtime", "amd", "bytes") == 900.0);
        ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "needs"), "vendor-neutral"));
        cJSON_Delete(j);
        free(json);

        char *text = render(&a, false);
        assert_line(text, "runtime                     -                          -                          1      100 B  10.0%");
        assert_line(text, "sparse                      -                          -                          1      600 B  60.0%");
        assert_line(text, "vendor-neutral              1      100 B  10.0%        -                          -");
        assert_line(text, "total                       1      100 B  10.0%        -                          3      900 B  90.0%");
        ck_assert_ptr_nonnull(strstr(text, "\nWhat the objects need"));
        ck_assert_ptr_null(strstr(text, "NVIDIA+AMD")); /* no object of both: no column */
        free(text);
        audit_clear(&a);
}
END_TEST

/* Which row an object counts in, rule by rule. */
START_TEST(test_row_rules) {
        static const struct {
                const char *json;
                unsigned row;
        } cases[] = {
                /* The library it is wins over its own code and its needs. */
                { "{\"path\":\"l/librocblas.so.3\",\"soname\":\"librocblas.so.3\",\"kind\":\"elf\",\"vendor\":\"amd\","
                  "\"library\":\"librocblas\",\"layers\":[\"runtime\",\"blas\"],\"amd\":{\"gfx\":[\"gfx90a\"]}}",
                  XPU_LAYER_BLAS },
                /* Its own device code: runtime, whatever it needs. */
                { "{\"path\":\"l/libmine.so\",\"kind\":\"elf\",\"vendor\":\"amd\",\"layers\":[\"runtime\",\"collectives\"],"
                  "\"needed\":[\"librccl.so.1\"],\"amd\":{\"gfx\":[\"gfx90a\"]}}",
                  XPU_LAYER_RUNTIME },
                { "{\"path\":\"k/a.hsaco\",\"kind\":\"code-object\",\"vendor\":\"amd\",\"layers\":[\"runtime\"],"
                  "\"amd\":{\"gfx\":[\"gfx90a\"]}}",
                  XPU_LAYER_RUNTIME },
                /* Needs only: the most specific layer, whatever the DT_NEEDED order. */
                { "{\"path\":\"l/libnet.so\",\"kind\":\"elf\",\"vendor\":\"nvidia\",\"layers\":[\"runtime\",\"dnn\",\"blas\"],"
                  "\"needed\":[\"libcudart.so.13\",\"libcublas.so.13\",\"libcudnn.so.9\"]}",
                  XPU_LAYER_DNN },
                { "{\"path\":\"l/libjit.so\",\"kind\":\"elf\",\"vendor\":\"nvidia\",\"layers\":[\"runtime\",\"jit\",\"other\"],"
                  "\"needed\":[\"libnvToolsExt.so.1\",\"libnvrtc.so.13\",\"libcudart.so.13\"]}",
                  XPU_LAYER_JIT },
                { "{\"path\":\"l/libprof.so\",\"kind\":\"elf\",\"vendor\":\"nvidia\",\"layers\":[\"runtime\",\"other\"],"
                  "\"needed\":[\"libcudart.so.13\",\"libcupti.so.13\"]}",
                  XPU_LAYER_OTHER },
                { "{\"path\":\"l/libhost.so\",\"kind\":\"elf\",\"vendor\":\"nvidia\",\"layers\":[\"runtime\"],"
                  "\"needed\":[\"libcudart.so.13\"]}",
                  XPU_LAYER_RUNTIME },
                { "{\"path\":\"l/libc.so.6\",\"kind\":\"elf\",\"vendor\":null}", XPU_AUDIT_ROW_NEUTRAL },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct xpu_object o = from_json(cases[i].json);
                if (xpu_audit_row(&o) != cases[i].row)
                        ck_abort_msg("%s: row %s, want %s", o.path, xpu_audit_row_name(xpu_audit_row(&o)),
                                     xpu_audit_row_name(cases[i].row));
                xpu_object_clear(&o);
        }
        ck_assert_str_eq(xpu_audit_row_name(XPU_AUDIT_ROW_NEUTRAL), "vendor-neutral");
        ck_assert_str_eq(xpu_audit_row_name(XPU_LAYER_FFT_RAND_SOLVER), "fft-rand-solver");
}
END_TEST

/* An object tied to both vendors: the NVIDIA+AMD column appears, and its row still adds up. */
START_TEST(test_both_vendors_column) {
        struct xpu_object o[2];
        o[0] = from_json("{\"path\":\"l/libboth.so\",\"size_bytes\":300,\"kind\":\"elf\",\"vendor\":\"nvidia+amd\","
                         "\"layers\":[\"runtime\",\"collectives\"],\"needed\":[\"libnccl.so.2\",\"librccl.so.1\"]}");
        o[1] = from_json("{\"path\":\"l/libc.so.6\",\"size_bytes\":100,\"kind\":\"elf\",\"vendor\":null}");
        struct xpu_audit a = { .root = "/img", .objects = o, .n_objects = 2 };
        ck_assert_int_eq(xpu_audit_summarize(&a), 0);
        ck_assert_uint_eq(a.by_row[XPU_LAYER_COLLECTIVES][XPU_AUDIT_BOTH].bytes, 300);
        char *text = render(&a, false);
        assert_line(text, "collectives                 -                          -                          -"
                          "                          1      300 B  75.0%");
        ck_assert_ptr_nonnull(strstr(text, "NVIDIA+AMD"));
        free(text);
        audit_clear(&a);
}
END_TEST

static Suite *report_suite(void) {
        Suite *s = suite_create("audit-render");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_summary_counts_each_object_once);
        tcase_add_test(tc, test_row_rules);
        tcase_add_test(tc, test_both_vendors_column);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(report_suite());
}
