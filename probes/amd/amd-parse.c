/* SPDX-License-Identifier: Apache-2.0 */
/* AMD parsers, silent and pure: KFD node properties, gfx target names, location ids, "MAJ:MIN"
 * and unique ids (amd.h), kept apart from the sysfs walk of amd.c so that the fuzz target
 * tests/fuzz/fuzz-amd-properties.c can feed them arbitrary bytes; and the texts of the live
 * readings, pp_dpm_* and ras counts (amd-readings.h; fuzz-amd-readings.c). */
#include "amd/amd.h"
#include "amd/amd-readings.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/str.h"
#include "probe.h"

/* ---- parsers (silent) ------------------------------------------------------------------- */

static const char *const prop_names[_XPU_AMD_PROP_MAX] = {
        [XPU_AMD_PROP_CPU_CORES_COUNT] = "cpu_cores_count",
        [XPU_AMD_PROP_SIMD_COUNT] = "simd_count",
        [XPU_AMD_PROP_SIMD_PER_CU] = "simd_per_cu",
        [XPU_AMD_PROP_GFX_TARGET_VERSION] = "gfx_target_version",
        [XPU_AMD_PROP_VENDOR_ID] = "vendor_id",
        [XPU_AMD_PROP_DEVICE_ID] = "device_id",
        [XPU_AMD_PROP_LOCATION_ID] = "location_id",
        [XPU_AMD_PROP_DOMAIN] = "domain",
        [XPU_AMD_PROP_DRM_RENDER_MINOR] = "drm_render_minor",
        [XPU_AMD_PROP_HIVE_ID] = "hive_id",
        [XPU_AMD_PROP_LOCAL_MEM_SIZE] = "local_mem_size",
        [XPU_AMD_PROP_UNIQUE_ID] = "unique_id",
        [XPU_AMD_PROP_NUM_XCC] = "num_xcc",
        [XPU_AMD_PROP_HEAP_TYPE] = "heap_type",
        [XPU_AMD_PROP_SIZE_IN_BYTES] = "size_in_bytes",
};

const char *xpu_amd_prop_name(enum xpu_amd_prop prop) {
        return (unsigned)prop < _XPU_AMD_PROP_MAX ? prop_names[prop] : NULL;
}

static bool is_key(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
                        return false;
        return true;
}

/* One line of LEN bytes (no newline). */
static void parse_property_line(const char *line, size_t len, struct xpu_amd_properties *p) {
        char buf[XPU_AMD_LINE_MAX];
        if (len >= sizeof buf) {
                p->n_malformed++;
                return;
        }
        memcpy(buf, line, len);
        buf[len] = '\0';
        char *s = xpu_strstrip(buf);
        if (!*s)
                return;
        char *sep = strpbrk(s, " \t");
        if (!sep) {
                p->n_malformed++;
                return;
        }
        *sep = '\0';
        const char *val = xpu_strstrip(sep + 1);
        uint64_t v;
        if (!is_key(s) || !isdigit((unsigned char)*val) || xpu_parse_u64(val, 10, &v) < 0) {
                p->n_malformed++;
                return;
        }
        for (unsigned k = 0; k < _XPU_AMD_PROP_MAX; k++) {
                if (strcmp(s, prop_names[k]) != 0)
                        continue;
                if (p->have & (1u << k)) {
                        p->n_malformed++; /* repeated key: the first one stands */
                        return;
                }
                p->value[k] = v;
                p->have |= 1u << k;
                return;
        }
}

int xpu_amd_parse_properties(const char *text, struct xpu_amd_properties *ret) {
        if (!text || !ret)
                return -EINVAL;
        struct xpu_amd_properties p = { 0 };
        for (const char *line = text; *line;) {
                const char *end = strchrnul(line, '\n');
                parse_property_line(line, (size_t)(end - line), &p);
                line = *end ? end + 1 : end;
        }
        *ret = p;
        return 0;
}

bool xpu_amd_prop_get(const struct xpu_amd_properties *props, enum xpu_amd_prop key, uint64_t *ret) {
        if ((unsigned)key >= _XPU_AMD_PROP_MAX || !(props->have & (1u << key)))
                return false;
        if (ret)
                *ret = props->value[key];
        return true;
}

int xpu_amd_gfx_target(uint32_t version, char *buf, size_t size) {
        uint32_t major = version / 10000, minor = version / 100 % 100, stepping = version % 100;
        if (major == 0 || major > 99 || minor > 0xf || stepping > 0xf)
                return -EINVAL;
        int n = snprintf(buf, size, "gfx%u%x%x", major, minor, stepping);
        if (n < 0 || (size_t)n >= size)
                return -ENOBUFS;
        return n;
}

int xpu_amd_location_decode(uint64_t domain, uint64_t location_id, struct xpu_amd_location *ret) {
        if (domain > UINT32_MAX || location_id > 0xffff)
                return -ERANGE;
        *ret = (struct xpu_amd_location){
                .domain = (uint32_t)domain,
                .bus = (uint8_t)(location_id >> 8),
                .dev = (uint8_t)((location_id & 0xff) >> 3),
                .fn = (uint8_t)(location_id & 7),
        };
        return 0;
}

int xpu_amd_parse_dev(const char *text, uint32_t *ret_major, uint32_t *ret_minor) {
        char buf[32];
        if (!text || xpu_strlcpy(buf, text, sizeof buf) < 0)
                return -EINVAL;
        char *colon = strchr(buf, ':');
        if (!colon)
                return -EINVAL;
        *colon = '\0';
        uint64_t maj, min;
        if (xpu_parse_u64(buf, 10, &maj) < 0 || xpu_parse_u64(colon + 1, 10, &min) < 0 ||
            maj >= XPU_AMD_MINOR_LIMIT || min >= XPU_AMD_MINOR_LIMIT)
                return -EINVAL;
        *ret_major = (uint32_t)maj;
        *ret_minor = (uint32_t)min;
        return 0;
}

int xpu_amd_parse_unique_id(const char *text, uint64_t *ret) {
        char buf[32];
        if (!text || xpu_strlcpy(buf, text, sizeof buf) < 0)
                return -EINVAL;
        const char *s = xpu_strstrip(buf);
        if (!*s || strcmp(s, "N/A") == 0)
                return -ENODATA;
        size_t len = strlen(s);
        if (len > 16 || strspn(s, "0123456789abcdefABCDEF") != len)
                return -EINVAL;
        return xpu_parse_u64(s, 16, ret);
}

/* ---- parsers of the live readings (amd-readings.h) ---------------------------------------- */

/* One pp_dpm line: "<level>: <n>Mhz[ *]". Returns 1 when current, 0 when not, -EINVAL. */
static int dpm_line(const char *line, uint64_t *ret_mhz) {
        const char *p = line;
        size_t lvl = strspn(p, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
        if (lvl == 0 || lvl > 8 || p[lvl] != ':')
                return -EINVAL;
        p += lvl + 1;
        p += strspn(p, " \t");
        size_t digits = strspn(p, "0123456789");
        if (digits == 0 || digits > 9)
                return -EINVAL;
        char num[16];
        memcpy(num, p, digits);
        num[digits] = '\0';
        p += digits;
        if (strncasecmp(p, "mhz", 3) != 0)
                return -EINVAL;
        p += 3;
        p += strspn(p, " \t");
        bool current = *p == '*';
        if (current)
                p++;
        p += strspn(p, " \t");
        if (*p)
                return -EINVAL;
        if (xpu_parse_u64(num, 10, ret_mhz) < 0)
                return -EINVAL;
        return current;
}

int xpu_amd_parse_dpm_current(const char *text, uint64_t *ret_hz) {
        if (!text || !ret_hz)
                return -EINVAL;
        bool found = false;
        uint64_t hz = 0;
        for (const char *line = text; *line;) {
                size_t len = strcspn(line, "\n");
                char buf[64];
                if (len >= sizeof buf)
                        return -EINVAL;
                memcpy(buf, line, len);
                buf[len] = '\0';
                line += len + (line[len] == '\n');
                if (!*xpu_strstrip(buf))
                        continue;
                uint64_t mhz;
                int r = dpm_line(buf, &mhz);
                if (r < 0)
                        return r;
                if (r == 1 && !found) {
                        found = true;
                        hz = mhz * 1000000u;
                }
        }
        if (!found)
                return -ENODATA;
        *ret_hz = hz;
        return 0;
}

int xpu_amd_parse_ras_count(const char *text, uint64_t *ret_ue, uint64_t *ret_ce) {
        if (!text || !ret_ue || !ret_ce)
                return -EINVAL;
        uint64_t v[2] = { 0, 0 };
        bool seen[2] = { false, false };
        for (const char *line = text; *line;) {
                size_t len = strcspn(line, "\n");
                char buf[64];
                if (len >= sizeof buf)
                        return -EINVAL;
                memcpy(buf, line, len);
                buf[len] = '\0';
                line += len + (line[len] == '\n');
                char *s = xpu_strstrip(buf);
                if (!*s)
                        continue;
                int k = xpu_startswith(s, "ue:") ? 0 : xpu_startswith(s, "ce:") ? 1 : -1;
                if (k < 0 || seen[k] || xpu_parse_u64(s + 3, 10, &v[k]) < 0)
                        return -EINVAL;
                seen[k] = true;
        }
        if (!seen[0] || !seen[1])
                return -EINVAL;
        *ret_ue = v[0];
        *ret_ce = v[1];
        return 0;
}
