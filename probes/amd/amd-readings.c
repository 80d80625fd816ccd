/* SPDX-License-Identifier: Apache-2.0 */
/* AMD live readings from amdgpu sysfs and hwmon: see amd-readings.h for the files and units. */
#include "amd/amd-readings.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/root-file.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/str.h"
#include "readings-range.h"
#include "vendor.h"

#define CARD_DIR "/sys/class/drm/card%u/device"

/* Attributes one card's cache keeps (about 25 are looked for per card). */
#define CACHE_ATTRS_MAX 48
/* Samples between looks for the attributes a card did not have (a driver reload can add some). */
#define CACHE_RECHECK_SAMPLES 60
/* Directories of kept files watched on a tree that is not sysfs: the card's, hwmon's, ras/. */
#define CACHE_DIRS_MAX 4
/* A watched directory changed less than this long ago (seconds) is not trusted to show the
 * next change in its mtime. */
#define CACHE_DIR_SETTLE_S 2

/* What one card's reads learned, for the next sample: each attribute's open descriptor (read
 * again with pread at offset 0, which makes sysfs run the attribute's show() anew) or that it is
 * absent, and the hwmon directory. Valid while the card's directory is the same (st_dev, st_ino):
 * another card at that number, an unbound driver or a swapped tree gives a new directory and the
 * cache starts over. */
struct card_cache {
        bool used;
        unsigned card;
        dev_t dev;
        ino_t ino;
        unsigned age;     /* samples since the absent attributes were looked for */
        bool stale;       /* a kept attribute failed or was replaced: start over at the next read */
        bool hwmon_known; /* hwmon below was looked for */
        char hwmon[128];
        struct {
                char path[160];
                int fd;      /* -1: absent (ENOENT, ENODATA, EOPNOTSUPP) */
                bool sysfs;  /* on sysfs: its files are never replaced (a gone device answers ENODEV) */
        } attrs[CACHE_ATTRS_MAX];
        size_t n;
        size_t next; /* where the attribute after the last one read usually is: a sample reads
                      * them in the same order, so the lookup is one comparison */
        /* Not sysfs (a fixture, a copy): its files can be replaced by a rename, which a kept
         * descriptor does not see. Such a change also changes the directory's mtime, so the
         * directories of the kept files are watched and each file's link count is looked at
         * only when one changed (or changed so recently that a second change within the same
         * timestamp tick could hide). */
        bool fake;
        bool check_links; /* this sample: fstat each kept file for st_nlink 0 */
        bool dirs_full;   /* a kept file's directory did not fit: check every sample */
        struct {
                int fd; /* O_PATH */
                struct timespec mtime;
        } dirs[CACHE_DIRS_MAX];
        size_t n_dirs;
};

struct xpu_amd_cache {
        struct card_cache cards[XPU_AMD_CACHE_CARDS_MAX];
};

/* One card being read: where, and where its warnings go. */
struct card_read {
        int fd;                  /* sys root */
        char dir[96];            /* "/sys/class/drm/card0/device" */
        char hwmon[128];         /* dir + "/hwmon/hwmonM", "" when none */
        struct xpu_inventory *inv;
        int oom;                 /* -ENOMEM once a warning could not be stored */
        struct card_cache *cache; /* NULL: every attribute opened and closed */
};

static void cache_flush(struct card_cache *cc) {
        for (size_t i = 0; i < cc->n; i++)
                if (cc->attrs[i].fd >= 0)
                        close(cc->attrs[i].fd);
        for (size_t i = 0; i < cc->n_dirs; i++)
                close(cc->dirs[i].fd);
        cc->n_dirs = 0;
        cc->fake = cc->dirs_full = false;
        cc->n = 0;
        cc->hwmon_known = false;
        cc->hwmon[0] = '\0';
        cc->age = 0;
}

struct xpu_amd_cache *xpu_amd_cache_new(void) {
        return calloc(1, sizeof(struct xpu_amd_cache));
}

struct xpu_amd_cache *xpu_amd_cache_free(struct xpu_amd_cache *cache) {
        for (size_t i = 0; cache && i < XPU_AMD_CACHE_CARDS_MAX; i++)
                cache_flush(&cache->cards[i]);
        free(cache);
        return NULL;
}

/* The cache of card CARD whose directory is ST: kept when it is the same directory, started over
 * when not; NULL when every slot holds another card (then that card is read uncached). */
static struct card_cache *cache_card(struct xpu_amd_cache *cache, unsigned card, const struct stat *st) {
        struct card_cache *free_slot = NULL;
        for (size_t i = 0; cache && i < XPU_AMD_CACHE_CARDS_MAX; i++) {
                struct card_cache *cc = &cache->cards[i];
                if (!cc->used) {
                        free_slot = free_slot ? free_slot : cc;
                        continue;
                }
                if (cc->card != card)
                        continue;
                if (cc->dev != st->st_dev || cc->ino != st->st_ino || cc->stale) {
                        cache_flush(cc);
                        cc->stale = false;
                }
                else if (++cc->age >= CACHE_RECHECK_SAMPLES) {
                        /* look again for what was absent, and for the hwmon directory */
                        size_t k = 0;
                        for (size_t j = 0; j < cc->n; j++)
                                if (cc->attrs[j].fd >= 0)
                                        cc->attrs[k++] = cc->attrs[j];
                        cc->n = k;
                        cc->age = 0;
                        cc->hwmon_known = false;
                }
                cc->dev = st->st_dev;
                cc->ino = st->st_ino;
                cc->next = 0;
                return cc;
        }
        if (!free_slot)
                return NULL;
        *free_slot = (struct card_cache){ .used = true, .card = card, .dev = st->st_dev, .ino = st->st_ino };
        return free_slot;
}

/* A file of a tree that is not sysfs was kept open: watch its directory (PATH up to its last
 * '/'), once per directory. */
static void watch_dir(struct card_read *c, const char *path) {
        struct card_cache *cc = c->cache;
        char dir[sizeof cc->attrs[0].path];
        const char *slash = strrchr(path, '/');
        size_t len = slash ? (size_t)(slash - path) : 0;
        cc->fake = true;
        if (len == 0 || len >= sizeof dir) {
                cc->dirs_full = true;
                return;
        }
        memcpy(dir, path, len);
        dir[len] = '\0';
        int fd = xpu_open_in_root(c->fd, dir, O_PATH | O_DIRECTORY, 0);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
                if (fd >= 0)
                        close(fd);
                cc->dirs_full = true;
                return;
        }
        for (size_t i = 0; i < cc->n_dirs; i++) {
                struct stat known;
                if (fstat(cc->dirs[i].fd, &known) == 0 && known.st_dev == st.st_dev && known.st_ino == st.st_ino) {
                        close(fd);
                        return;
                }
        }
        if (cc->n_dirs == CACHE_DIRS_MAX) {
                close(fd);
                cc->dirs_full = true;
                return;
        }
        cc->dirs[cc->n_dirs].fd = fd;
        cc->dirs[cc->n_dirs].mtime = st.st_mtim;
        cc->n_dirs++;
}

/* At the start of a sample of a tree that is not sysfs: is a kept file's link count to be looked
 * at? Yes when a watched directory's mtime moved since the last sample, or is less than
 * CACHE_DIR_SETTLE_S old, or a directory could not be watched. */
static bool links_need_check(struct card_cache *cc) {
        if (!cc->fake)
                return false;
        bool check = cc->dirs_full;
        struct timespec now;
        if (clock_gettime(CLOCK_REALTIME, &now) < 0)
                check = true;
        for (size_t i = 0; i < cc->n_dirs; i++) {
                struct stat st;
                if (fstat(cc->dirs[i].fd, &st) < 0) {
                        check = true;
                        continue;
                }
                if (st.st_mtim.tv_sec != cc->dirs[i].mtime.tv_sec || st.st_mtim.tv_nsec != cc->dirs[i].mtime.tv_nsec ||
                    now.tv_sec - st.st_mtim.tv_sec < CACHE_DIR_SETTLE_S)
                        check = true;
                cc->dirs[i].mtime = st.st_mtim;
        }
        return check;
}

/* Read the attribute PATH into BUF (SIZE bytes) with the semantics of xpu_read_value_in_root(),
 * through C's cache: the descriptor of an earlier sample is read again at offset 0. Returns the
 * length, or -errno (-ENOENT for an attribute known to be absent). */
static ssize_t cached_read(struct card_read *c, const char *path, char *buf, size_t size) {
        struct card_cache *cc = c->cache;
        size_t i = cc->next;
        if (i >= cc->n || strcmp(cc->attrs[i].path, path) != 0)
                for (i = 0; i < cc->n && strcmp(cc->attrs[i].path, path) != 0;)
                        i++;
        cc->next = i + 1;
        if (i == cc->n) {
                if (cc->n == CACHE_ATTRS_MAX || strlen(path) >= sizeof cc->attrs[0].path)
                        return xpu_read_value_in_root(c->fd, path, buf, size);
                int fd = xpu_open_file_in_root(c->fd, path, NULL);
                if (fd < 0 && fd != -ENOENT && fd != -ENODATA && fd != -EOPNOTSUPP)
                        return fd; /* not remembered: looked at again next time */
                memcpy(cc->attrs[i].path, path, strlen(path) + 1); /* fits: checked above */
                cc->attrs[i].fd = fd < 0 ? -1 : fd;
                struct statfs sfs;
                cc->attrs[i].sysfs = fd >= 0 && fstatfs(fd, &sfs) == 0 && sfs.f_type == SYSFS_MAGIC;
                cc->n++;
                if (fd >= 0 && !cc->attrs[i].sysfs)
                        watch_dir(c, path);
        }
        if (cc->attrs[i].fd < 0)
                return -ENOENT;
        /* A file deleted or replaced by a rename (a tree that is not sysfs: a fixture, a copy;
         * sysfs attributes stay and answer ENODEV when their device goes) has no link left: read
         * the path again, and the whole card at the next sample, its hwmon directory included. */
        struct stat fst;
        if (cc->check_links && !cc->attrs[i].sysfs && fstat(cc->attrs[i].fd, &fst) == 0 && fst.st_nlink == 0) {
                close(cc->attrs[i].fd);
                cc->attrs[i] = cc->attrs[--cc->n];
                cc->stale = true;
                return xpu_read_value_in_root(c->fd, path, buf, size);
        }
        ssize_t n = xpu_pread_value(cc->attrs[i].fd, buf, size);
        if (n < 0 && n != -EINVAL) {
                /* unsupported now: absent until the recheck; gone (ENODEV: the driver unbound,
                 * hwmon renumbered) or failing: the card starts over at the next sample */
                close(cc->attrs[i].fd);
                cc->attrs[i].fd = -1;
                if (n != -ENODATA && n != -EOPNOTSUPP) {
                        cc->attrs[i] = cc->attrs[--cc->n];
                        cc->stale = true;
                }
        }
        return n;
}

static void warn(struct card_read *c, const char *fmt, ...) _printf_(2, 3);
static void warn(struct card_read *c, const char *fmt, ...) {
        char line[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        if (xpu_inventory_warn(c->inv, "%s", line) < 0)
                c->oom = -ENOMEM;
}

/* Printable ASCII lines (pp_dpm_* and ras files have several). */
static bool text_is_printable(const char *s) {
        for (; *s; s++)
                if ((*s < 0x20 || *s > 0x7e) && *s != '\n' && *s != '\t')
                        return false;
        return true;
}

/* Read the file DIR/NAME (DIR is c->dir or c->hwmon) into BUF. Returns the length; 0 quietly
 * when absent or not supported by this ASIC (ENOENT, ENODATA, EOPNOTSUPP: the driver's answer
 * for an attribute it cannot give); 0 with a warning for any other failure. The text is
 * stripped and NUL-terminated. */
static ssize_t read_attr(struct card_read *c, const char *dir, const char *name, char *buf, size_t size) {
        char path[192];
        size_t dl = strlen(dir), nl = strlen(name);
        if (dl + 1 + nl >= sizeof path)
                return 0; /* longer than any amdgpu attribute path */
        memcpy(path, dir, dl);
        path[dl] = '/';
        memcpy(path + dl + 1, name, nl + 1);
        ssize_t n = c->cache ? cached_read(c, path, buf, size) : xpu_read_value_in_root(c->fd, path, buf, size);
        if (n > 0 && !text_is_printable(buf)) {
                warn(c, "%s: not printable text; left out", path);
                return 0;
        }
        if (n >= 0)
                return n;
        if (n != -ENOENT && n != -ENODATA && n != -EOPNOTSUPP)
                warn(c, "%s: cannot read: %s; left out", path, strerror((int)-n));
        return 0;
}

/* DIR/NAME as an unsigned decimal number. Returns 1 with *RET, 0 when absent or odd (warned). */
static int read_u64(struct card_read *c, const char *dir, const char *name, uint64_t *ret) {
        char buf[64];
        if (read_attr(c, dir, name, buf, sizeof buf) <= 0)
                return 0;
        if (xpu_parse_u64(buf, 10, ret) < 0) {
                warn(c, "%s/%s: \"%s\" is not a number; left out", dir, name, buf);
                return 0;
        }
        return 1;
}

/* Is RAW (DIR/NAME's number in RAW_UNIT), V in its base unit, a reading of KIND (readings-range.h)?
 * When not, warn once naming the file. */
static bool plausible(struct card_read *c, const char *dir, const char *name, enum xpu_reading_kind kind, uint64_t raw,
                      const char *raw_unit, double v) {
        const char *why = xpu_reading_implausible(kind, raw, v);
        if (why)
                warn(c, "%s/%s: %" PRIu64 " %s: %s; left out", dir, name, raw, raw_unit, why);
        return !why;
}

/* DIR/NAME as an unsigned number of RAW_UNIT that, times SCALE, is a plausible reading of KIND.
 * Returns 1 with *RET (the raw number), 0 when absent, odd or implausible (warned). */
static int read_reading(struct card_read *c, const char *dir, const char *name, enum xpu_reading_kind kind,
                        const char *raw_unit, double scale, uint64_t *ret) {
        uint64_t v;
        if (!read_u64(c, dir, name, &v) || !plausible(c, dir, name, kind, v, raw_unit, (double)v * scale))
                return 0;
        *ret = v;
        return 1;
}

/* DIR/NAME as a percentage 0..100 turned into a ratio. Returns 1 with *RET, else 0. */
static int read_percent(struct card_read *c, const char *name, double *ret) {
        char buf[64];
        uint64_t v;
        if (read_attr(c, c->dir, name, buf, sizeof buf) <= 0)
                return 0;
        if (xpu_parse_u64(buf, 10, &v) < 0 || v > 100) {
                warn(c, "%s/%s: \"%s\" is not a percentage; left out", c->dir, name, buf);
                return 0;
        }
        *ret = (double)v / 100.0;
        return 1;
}

/* ---- hwmon ----------------------------------------------------------------------------------- */

/* Choose the card's hwmon directory: the lowest-numbered hwmonM whose name is "amdgpu", else the
 * lowest-numbered one when no directory has a name file. c->hwmon stays "" when there is none. */
static void find_hwmon(struct card_read *c) {
        char path[160];
        snprintf(path, sizeof path, "%s/hwmon", c->dir);
        int fd = xpu_open_in_root(c->fd, path, O_RDONLY | O_DIRECTORY, 0);
        if (fd < 0)
                return;
        _cleanup_closedir_ DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return;
        }
        uint64_t nums[XPU_AMD_HWMON_MAX];
        size_t n = 0;
        for (struct dirent *de; (de = readdir(d)) && n < ELEMENTSOF(nums);) {
                uint64_t v;
                if (xpu_startswith(de->d_name, "hwmon") && de->d_name[5] >= '0' && de->d_name[5] <= '9' &&
                    xpu_parse_u64(de->d_name + 5, 10, &v) == 0 && v < 100000)
                        nums[n++] = v;
        }
        /* ascending (at most XPU_AMD_HWMON_MAX entries) */
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && nums[j - 1] > nums[j]; j--) {
                        uint64_t t = nums[j];
                        nums[j] = nums[j - 1];
                        nums[j - 1] = t;
                }
        bool any_name = false;
        for (size_t i = 0; i < n; i++) {
                char dir[128], name[64];
                snprintf(dir, sizeof dir, "%s/hwmon/hwmon%llu", c->dir, (unsigned long long)nums[i]);
                snprintf(path, sizeof path, "%s/name", dir);
                if (xpu_read_value_in_root(c->fd, path, name, sizeof name) < 0)
                        continue;
                any_name = true;
                if (strcmp(name, "amdgpu") == 0) {
                        snprintf(c->hwmon, sizeof c->hwmon, "%s", dir);
                        return;
                }
        }
        if (n > 0 && !any_name)
                snprintf(c->hwmon, sizeof c->hwmon, "%s/hwmon/hwmon%llu", c->dir, (unsigned long long)nums[0]);
}

/* temp<K>_label → sensor; the kernel's fixed channel order without a label. */
static const struct {
        const char *label;
        enum xpu_temp_sensor sensor;
} temp_labels[] = {
        { "edge", XPU_TEMP_EDGE },         /* channel 0: temp1 */
        { "junction", XPU_TEMP_JUNCTION }, /* channel 1: temp2 (hotspot) */
        { "mem", XPU_TEMP_MEMORY },        /* channel 2: temp3 (HBM/VRAM) */
};

_Static_assert(XPU_AMD_TEMP_CHANNELS_MAX <= 9, "temperature channel names are built with one digit");

/* hwmon's limit attributes of a channel (Documentation/hwmon/sysfs-interface.rst; amdgpu's
 * thermal.html: temp*_crit "critical max", temp*_emergency "emergency max (ASIC shutdown)"). */
static const struct {
        const char *suffix;
        enum xpu_temp_limit limit;
} temp_limit_files[] = {
        { "crit", XPU_TEMP_LIMIT_SLOWDOWN },
        { "emergency", XPU_TEMP_LIMIT_SHUTDOWN },
};

/* temp<K>_<SUFFIX> in degrees Celsius: true with *RET when there, in millidegrees and plausible
 * (-50..200 °C), else false (warned when there but odd). */
static bool read_celsius(struct card_read *c, unsigned k, const char *suffix, double *ret) {
        char name[32], buf[64];
        int64_t mc;
        snprintf(name, sizeof name, "temp%u_%s", k, suffix);
        if (read_attr(c, c->hwmon, name, buf, sizeof buf) <= 0)
                return false;
        if (xpu_parse_i64(buf, 10, &mc) < 0) {
                warn(c, "%s/%s: \"%s\" is not a temperature in millidegrees; left out", c->hwmon, name, buf);
                return false;
        }
        const char *why = xpu_reading_out_of_range(XPU_READING_CELSIUS, (double)mc / 1000.0);
        if (why) {
                warn(c, "%s/%s: %" PRId64 " millidegrees Celsius: %s; left out", c->hwmon, name, mc, why);
                return false;
        }
        *ret = (double)mc / 1000.0;
        return true;
}

static void read_temperatures(struct card_read *c, struct xpu_readings *r) {
        for (unsigned k = 1; k <= XPU_AMD_TEMP_CHANNELS_MAX; k++) {
                char name[32], label[64];
                int sensor = -1;
                double v;
                /* "temp<k>_label": k is one digit (XPU_AMD_TEMP_CHANNELS_MAX) */
                memcpy(name, "tempK_label", sizeof "tempK_label");
                name[4] = (char)('0' + k);
                if (read_attr(c, c->hwmon, name, label, sizeof label) > 0) {
                        for (size_t i = 0; i < ELEMENTSOF(temp_labels); i++)
                                if (strcmp(label, temp_labels[i].label) == 0)
                                        sensor = (int)temp_labels[i].sensor;
                } else if (k <= ELEMENTSOF(temp_labels))
                        sensor = (int)temp_labels[k - 1].sensor;
                if (sensor < 0 || (r->have_temperature & (1u << sensor)))
                        continue; /* a sensor we do not name, or named twice: the first wins */
                for (size_t i = 0; i < ELEMENTSOF(temp_limit_files); i++)
                        if (read_celsius(c, k, temp_limit_files[i].suffix, &v)) {
                                r->temperature_limit_celsius[sensor][temp_limit_files[i].limit] = v;
                                r->have_temperature_limit |= XPU_TEMP_LIMIT_BIT(sensor, temp_limit_files[i].limit);
                        }
                if (read_celsius(c, k, "input", &v)) {
                        r->temperature_celsius[sensor] = v;
                        r->have_temperature |= 1u << sensor;
                }
        }
}

static void read_hwmon(struct card_read *c, struct xpu_readings *r) {
        uint64_t v;
        if (c->cache && c->cache->hwmon_known) {
                snprintf(c->hwmon, sizeof c->hwmon, "%s", c->cache->hwmon);
        } else {
                find_hwmon(c);
                if (c->cache) {
                        snprintf(c->cache->hwmon, sizeof c->cache->hwmon, "%s", c->hwmon);
                        c->cache->hwmon_known = true;
                }
        }
        if (!c->hwmon[0])
                return;
        read_temperatures(c, r);
        /* power1_average: average socket power; newer ASICs (kernel 6.6+) may expose only
         * power1_input (current socket power). */
        if (read_reading(c, c->hwmon, "power1_average", XPU_READING_WATTS, "microwatts", 1e-6, &v) ||
            read_reading(c, c->hwmon, "power1_input", XPU_READING_WATTS, "microwatts", 1e-6, &v)) {
                r->power_watts = (double)v / 1e6;
                r->have |= XPU_READ_POWER;
        }
        if (read_reading(c, c->hwmon, "power1_cap", XPU_READING_WATTS, "microwatts", 1e-6, &v)) {
                r->power_limit_watts = (double)v / 1e6;
                r->have |= XPU_READ_POWER_LIMIT;
        }
        if (read_reading(c, c->hwmon, "energy1_input", XPU_READING_COUNT, "microjoules", 1e-6, &v)) {
                r->energy_joules = (double)v / 1e6;
                r->have |= XPU_READ_ENERGY;
        }
}

/* ---- the card -------------------------------------------------------------------------------- */

static const struct {
        const char *file;
        enum xpu_clock clock;
} dpm_files[] = {
        { "pp_dpm_sclk", XPU_CLOCK_GRAPHICS },
        { "pp_dpm_mclk", XPU_CLOCK_MEMORY },
        { "pp_dpm_socclk", XPU_CLOCK_SOC },
};

static void read_clocks(struct card_read *c, struct xpu_readings *r) {
        for (size_t i = 0; i < ELEMENTSOF(dpm_files); i++) {
                char buf[1024];
                uint64_t hz;
                if (read_attr(c, c->dir, dpm_files[i].file, buf, sizeof buf) <= 0)
                        continue;
                int e = xpu_amd_parse_dpm_current(buf, &hz);
                if (e < 0) {
                        warn(c, "%s/%s: %s; left out", c->dir, dpm_files[i].file,
                             e == -ENODATA ? "no level marked current ('*')" : "not a list of \"N: <clock>Mhz\" lines");
                        continue;
                }
                if (!plausible(c, c->dir, dpm_files[i].file, XPU_READING_HERTZ, hz, "Hz (current level)", (double)hz))
                        continue;
                r->clock_hertz[dpm_files[i].clock] = hz;
                r->have_clock |= 1u << dpm_files[i].clock;
        }
}

static void read_ras(struct card_read *c, struct xpu_readings *r) {
        char buf[256];
        uint64_t ue, ce;
        if (read_attr(c, c->dir, "ras/umc_err_count", buf, sizeof buf) <= 0)
                return;
        if (xpu_amd_parse_ras_count(buf, &ue, &ce) < 0) {
                warn(c, "%s/ras/umc_err_count: not \"ue: N\" and \"ce: N\" lines; left out", c->dir);
                return;
        }
        /* both checked (and warned about) before either is dropped: one alone would read as 0 */
        bool ue_ok = plausible(c, c->dir, "ras/umc_err_count", XPU_READING_COUNT, ue, "uncorrected errors", (double)ue);
        bool ce_ok = plausible(c, c->dir, "ras/umc_err_count", XPU_READING_COUNT, ce, "corrected errors", (double)ce);
        if (!ue_ok || !ce_ok)
                return;
        r->ecc_uncorrected = ue;
        r->ecc_corrected = ce;
        r->have |= XPU_READ_ECC;
}

int xpu_amd_readings_read(const struct xpu_roots *roots, const struct xpu_device *dev, struct xpu_inventory *inv,
                          struct xpu_readings *ret, char *err, size_t err_size) {
        return xpu_amd_readings_read_cached(roots, dev, NULL, inv, ret, err, err_size);
}

int xpu_amd_readings_read_cached(const struct xpu_roots *roots, const struct xpu_device *dev,
                                 struct xpu_amd_cache *cache, struct xpu_inventory *inv, struct xpu_readings *ret,
                                 char *err, size_t err_size) {
        char dummy[1];
        if (!err) {
                err = dummy;
                err_size = sizeof dummy;
        }
        if (!roots || !dev || !inv || !ret)
                return -EINVAL;
        *ret = (struct xpu_readings){ 0 };
        if (dev->vendor != XPU_VENDOR_AMD || !(dev->have & XPU_HAVE_CARD)) {
                snprintf(err, err_size, "gpu %u: no amdgpu card in sysfs", dev->index);
                return -ENODEV;
        }
        struct card_read c = { .fd = roots->sys_fd, .inv = inv };
        snprintf(c.dir, sizeof c.dir, CARD_DIR, dev->card);
        struct stat st;
        int e = xpu_stat_in_root(c.fd, c.dir, false, &st);
        if (e < 0 || !S_ISDIR(st.st_mode)) {
                snprintf(err, err_size, "%s: %s", c.dir, strerror(e < 0 ? -e : ENOTDIR));
                return -ENODEV;
        }
        c.cache = cache_card(cache, dev->card, &st);
        if (c.cache)
                c.cache->check_links = links_need_check(c.cache);

        struct xpu_readings *r = ret;
        if (read_percent(&c, "gpu_busy_percent", &r->utilization_ratio))
                r->have |= XPU_READ_UTILIZATION;
        if (read_percent(&c, "mem_busy_percent", &r->memory_bandwidth_utilization_ratio))
                r->have |= XPU_READ_MEMORY_UTILIZATION;
        /* VRAM is the whole GPU's: a partition's share is not in these files. */
        if (!(dev->have & XPU_HAVE_PARTITION)) {
                if (read_reading(&c, c.dir, "mem_info_vram_used", XPU_READING_BYTES, "bytes", 1, &r->memory_used_bytes))
                        r->have |= XPU_READ_MEMORY_USED;
                if (read_reading(&c, c.dir, "mem_info_vram_total", XPU_READING_BYTES, "bytes", 1, &r->memory_total_bytes))
                        r->have |= XPU_READ_MEMORY_TOTAL;
        }
        read_clocks(&c, r);
        read_ras(&c, r);
        read_hwmon(&c, r);
        return c.oom;
}

/* ---- xpud's backend "amdgpu_sysfs" (xpu_readings_ops of vendor.h) ------------------------------- */

static int amdgpu_open(void **ret) {
        return (*ret = xpu_amd_cache_new()) ? 0 : -ENOMEM;
}

static int amdgpu_collect(void *state, const struct xpu_roots *roots, unsigned timeout_ms, struct xpu_inventory *inv,
                          struct xpu_readings *r, bool *fresh, char *err, size_t err_size) {
        int ret = 0;
        for (size_t i = 0; i < inv->n_devices; i++) {
                if (inv->devices[i].vendor != XPU_VENDOR_AMD)
                        continue;
                char e[256];
                int k = xpu_amd_readings_read_cached(roots, &inv->devices[i], state, inv, &r[i], e, sizeof e);
                if (k == -ENOMEM)
                        return k;
                if (k < 0) {
                        if (ret == 0) /* the first device that failed names the error */
                                snprintf(err, err_size, "%s", e);
                        ret = k;
                        continue;
                }
                fresh[i] = true;
        }
        return ret;
}

static void amdgpu_close(void *state) {
        xpu_amd_cache_free(state);
}

const struct xpu_readings_ops xpu_readings_amdgpu = {
        .name = "amdgpu_sysfs",
        .open = amdgpu_open,
        .collect = amdgpu_collect,
        .close = amdgpu_close,
};
