/* SPDX-License-Identifier: Apache-2.0 */
/* probes/fabric.c: the list of fabric device sets (the vendor-neutral RDMA set first, then
 * NVIDIA's from its descriptor), the profile's set names, and the parsers of the sets' variables:
 * NVIDIA_IMEX_CHANNELS's channel list (hostile values included) and the "enabled" switches; the
 * channel id a node's name gives, and xpud's count of the channels under a dev root (only channel
 * nodes of the driver's major whose minor is their id; the visit bound said). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fabric.h"
#include "testlib.h"
#include "vendor.h"

START_TEST(test_sets) {
        const struct xpu_fabric_set *sets[XPU_FABRIC_SETS_MAX];
        enum xpu_vendor vendor[XPU_FABRIC_SETS_MAX];
        size_t n = xpu_fabric_sets(sets, vendor);
        ck_assert_uint_eq(n, 5);
        const char *names[] = { "rdma", "imex", "gdrcopy", "gds", "nvswitch" };
        const char *vars[] = { "XPU_RDMA", "NVIDIA_IMEX_CHANNELS", "NVIDIA_GDRCOPY", "NVIDIA_GDS", "NVIDIA_NVSWITCH" };
        for (size_t i = 0; i < n; i++) {
                ck_assert_str_eq(sets[i]->name, names[i]);
                ck_assert_str_eq(sets[i]->variable, vars[i]);
                ck_assert_int_eq(vendor[i], i == 0 ? _XPU_VENDOR_MAX : XPU_VENDOR_NVIDIA);
                ck_assert_ptr_nonnull(sets[i]->nodes[0].glob);
                ck_assert_ptr_null(xpu_fabric_name_invalid(names[i]));
                ck_assert(sets[i]->channels == (i == 1));
        }
        ck_assert_str_eq(sets[0]->nodes[0].major, "infiniband_verbs");
        ck_assert_ptr_null(sets[0]->nodes[1].major); /* rdma_cm: a misc device */
        ck_assert_str_eq(sets[1]->nodes[0].major, "nvidia-caps-imex-channels");
        ck_assert_ptr_nonnull(xpu_fabric_name_invalid("mofed"));
        ck_assert_ptr_nonnull(xpu_fabric_name_invalid(""));
        ck_assert_ptr_nonnull(xpu_fabric_name_invalid("RDMA"));
        /* NVIDIA's toolkit name of the RDMA set */
        const struct xpu_fabric_alias *a = xpu_vendors[XPU_VENDOR_NVIDIA]->fabric_aliases;
        ck_assert_str_eq(a[0].set, "rdma");
        ck_assert_str_eq(a[0].variable, "NVIDIA_MOFED");
        ck_assert_ptr_null(a[1].set);
        ck_assert_ptr_null(xpu_vendors[XPU_VENDOR_AMD]->fabric);
        char path[64];
        ck_assert_int_eq(xpu_fabric_channel_path(sets[1], 2047, path, sizeof path), 0);
        ck_assert_str_eq(path, "/dev/nvidia-caps-imex-channels/channel2047");
        ck_assert_int_eq(xpu_fabric_channel_path(sets[1], 1, path, 20), -ENAMETOOLONG);
}
END_TEST

START_TEST(test_enabled) {
        ck_assert_int_eq(xpu_fabric_parse_enabled("enabled"), 1);
        ck_assert_int_eq(xpu_fabric_parse_enabled("disabled"), 0);
        ck_assert_int_eq(xpu_fabric_parse_enabled(""), 0);
        ck_assert_int_eq(xpu_fabric_parse_enabled(NULL), 0);
        ck_assert_int_eq(xpu_fabric_parse_enabled("true"), -EINVAL);
        ck_assert_int_eq(xpu_fabric_parse_enabled("Enabled"), -EINVAL);
        ck_assert_int_eq(xpu_fabric_parse_enabled("enabled "), -EINVAL);
}
END_TEST

static int parse(const char *v, struct xpu_fabric_request *r, char *err) {
        memset(r, 0, sizeof *r);
        err[0] = '\0';
        return xpu_fabric_parse_channels(v, r, err, 256);
}

START_TEST(test_channels) {
        struct xpu_fabric_request r;
        char err[256];
        ck_assert_int_eq(parse("all", &r, err), 0);
        ck_assert(r.wanted && r.all);
        ck_assert_int_eq(parse(" all ", &r, err), 0);
        ck_assert(r.wanted && r.all);
        ck_assert_int_eq(parse("none", &r, err), 0);
        ck_assert(!r.wanted);
        ck_assert_int_eq(parse("", &r, err), 0);
        ck_assert(!r.wanted);
        ck_assert_int_eq(parse(NULL, &r, err), 0);
        ck_assert(!r.wanted);
        /* ascending, once each, spaces around ids allowed */
        ck_assert_int_eq(parse("3, 0,1,3,1048575", &r, err), 0);
        ck_assert(r.wanted && !r.all);
        ck_assert_uint_eq(r.n_channels, 4);
        ck_assert_uint_eq(r.channels[0], 0);
        ck_assert_uint_eq(r.channels[1], 1);
        ck_assert_uint_eq(r.channels[2], 3);
        ck_assert_uint_eq(r.channels[3], 1048575);
        ck_assert_int_eq(parse("0", &r, err), 0);
        ck_assert_uint_eq(r.n_channels, 1);
}
END_TEST

START_TEST(test_channels_hostile) {
        static const char *const bad[] = {
                "1048576",        /* past MINORBITS */
                "99999999999999999999999", /* overflows 64 bits */
                "-1", "+1", "0x1", "1e3", "1.0", "one",
                "0,,1", ",0", "0,", ",", " , ",
                "all,0", "none,1", "ALL", "0 1", "0\n", "0\t", "\x01", "channel0",
                "01234567890123456789",
        };
        struct xpu_fabric_request r;
        char err[256];
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
                ck_assert_msg(parse(bad[i], &r, err) == -EINVAL, "\"%s\" accepted", bad[i]);
                ck_assert_msg(strstr(err, "is not a channel id"), "\"%s\": %s", bad[i], err);
                ck_assert(!r.wanted);
        }
        /* one over the bound */
        char many[8 * (XPU_FABRIC_CHANNELS_MAX + 2)] = "";
        size_t used = 0;
        for (int i = 0; i <= XPU_FABRIC_CHANNELS_MAX; i++)
                used += (size_t)snprintf(many + used, sizeof many - used, "%s%d", i ? "," : "", i);
        ck_assert_int_eq(parse(many, &r, err), -E2BIG);
        ck_assert(!r.wanted);
        /* the same id many times is one id */
        used = 0;
        for (int i = 0; i <= 2 * XPU_FABRIC_CHANNELS_MAX; i++)
                used += (size_t)snprintf(many + used, sizeof many - used, "%s7", i ? "," : "");
        ck_assert_int_eq(parse(many, &r, err), 0);
        ck_assert_uint_eq(r.n_channels, 1);
        /* a long hostile value: bounded, and the message quotes at most 32 bytes of an entry */
        static char huge[1 << 16];
        memset(huge, '9', sizeof huge - 1);
        ck_assert_int_eq(parse(huge, &r, err), -EINVAL);
        ck_assert_uint_lt(strlen(err), 120);
}
END_TEST

START_TEST(test_channel_id) {
        const struct xpu_fabric_set *sets[XPU_FABRIC_SETS_MAX];
        enum xpu_vendor vendor[XPU_FABRIC_SETS_MAX];
        ck_assert_uint_ge(xpu_fabric_sets(sets, vendor), 2);
        const struct xpu_fabric_set *imex = sets[1];
        uint32_t id = 99;
        ck_assert_int_eq(xpu_fabric_channel_id(imex, "/dev/nvidia-caps-imex-channels/channel0", &id), 0);
        ck_assert_uint_eq(id, 0);
        ck_assert_int_eq(xpu_fabric_channel_id(imex, "/dev/nvidia-caps-imex-channels/channel2047", &id), 0);
        ck_assert_uint_eq(id, 2047);
        ck_assert_int_eq(xpu_fabric_channel_id(imex, "/dev/nvidia-caps-imex-channels/channel1048575", &id), 0);
        ck_assert_uint_eq(id, XPU_FABRIC_CHANNEL_MAX);
        static const char *const bad[] = {
                "/dev/nvidia-caps-imex-channels/channel", "/dev/nvidia-caps-imex-channels/channel01",
                "/dev/nvidia-caps-imex-channels/channel00", "/dev/nvidia-caps-imex-channels/channel1048576",
                "/dev/nvidia-caps-imex-channels/channel99999999999", "/dev/nvidia-caps-imex-channels/channel-1",
                "/dev/nvidia-caps-imex-channels/channel+1", "/dev/nvidia-caps-imex-channels/channel1x",
                "/dev/nvidia-caps-imex-channels/channel 1", "/dev/nvidia-caps-imex-channels/chan1",
                "/dev/other/channel1", "channel1", "",
        };
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
                id = 99;
                ck_assert_msg(xpu_fabric_channel_id(imex, bad[i], &id) == -EINVAL, "\"%s\" accepted", bad[i]);
                ck_assert_uint_eq(id, 99);
        }
}
END_TEST

/* A dev root whose IMEX directory holds, besides channels 0..N-1 (c 234:id), what must not be
 * counted: a FIFO, a directory, a regular file, a symlink to a channel, a node of another major, a
 * node whose minor is not its id and a name that is not a channel id. */
static char *count_root(unsigned n) {
        char *root = xpu_test_mkdtemp();
        xpu_test_write(root, "proc/devices", "Character devices:\n  1 mem\n234 nvidia-caps-imex-channels\n\n"
                                             "Block devices:\n  8 sd\n");
        xpu_test_write(root, "dev/nvidia-caps-imex-channels/channel900", "not a node\n");
        char dir[4096], path[4200];
        snprintf(dir, sizeof dir, "%s/dev/nvidia-caps-imex-channels", root);
        for (unsigned i = 0; i < n; i++) {
                snprintf(path, sizeof path, "%s/channel%u", dir, i);
                ck_assert_int_eq(mknod(path, S_IFCHR | 0666, makedev(234, i)), 0);
        }
        static const struct { const char *name; mode_t mode; unsigned maj, min; } odd[] = {
                { "channel901", S_IFIFO, 0, 0 },
                { "channel902", S_IFCHR, 1, 902 },   /* another driver's major */
                { "channel903", S_IFCHR, 234, 7 },   /* another channel's minor */
                { "channel0904", S_IFCHR, 234, 904 }, /* a leading zero: not a name the driver makes */
                { "channelx", S_IFCHR, 234, 0 },
        };
        for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
                snprintf(path, sizeof path, "%s/%s", dir, odd[i].name);
                ck_assert_int_eq(mknod(path, odd[i].mode | 0666, makedev(odd[i].maj, odd[i].min)), 0);
        }
        snprintf(path, sizeof path, "%s/channel905", dir);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        xpu_test_symlink(root, "dev/nvidia-caps-imex-channels/channel906", "channel0");
        return root;
}

START_TEST(test_count_nodes) {
        const struct xpu_fabric_set *sets[XPU_FABRIC_SETS_MAX];
        enum xpu_vendor vendor[XPU_FABRIC_SETS_MAX];
        ck_assert_uint_ge(xpu_fabric_sets(sets, vendor), 2);
        const struct xpu_fabric_set *imex = sets[1];
        char *root = count_root(3);
        int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        bool cut = true;
        ck_assert_int_eq(xpu_fabric_count_nodes(fd, fd, imex, XPU_FABRIC_VISIT_MAX, &cut), 3);
        ck_assert(!cut);
        /* /proc/devices unread: any major is counted (channel902 too), never the rest */
        ck_assert_int_eq(xpu_fabric_count_nodes(fd, -1, imex, XPU_FABRIC_VISIT_MAX, &cut), 4);
        /* the visit bound: 13 entries with "." and "..", at most 5 read: the count a lower bound, and said to be */
        int k = xpu_fabric_count_nodes(fd, fd, imex, 5, &cut);
        ck_assert_int_ge(k, 0);
        ck_assert_int_le(k, 3);
        ck_assert(cut);
        ck_assert_int_eq(xpu_fabric_count_nodes(fd, fd, imex, 13, &cut), 3);
        ck_assert(!cut);
        ck_assert_int_eq(xpu_fabric_count_nodes(fd, fd, imex, 12, &cut) >= 0, 1);
        ck_assert(cut);
        /* no directory */
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/dev/nvidia-caps-imex-channels", root);
        xpu_test_rm_rf(dir);
        ck_assert_int_eq(xpu_fabric_count_nodes(fd, fd, imex, XPU_FABRIC_VISIT_MAX, &cut), -ENOENT);
        close(fd);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

static Suite *fabric_suite(void) {
        Suite *s = suite_create("fabric");
        TCase *tc = tcase_create("fabric");
        tcase_add_test(tc, test_sets);
        tcase_add_test(tc, test_enabled);
        tcase_add_test(tc, test_channels);
        tcase_add_test(tc, test_channels_hostile);
        tcase_add_test(tc, test_channel_id);
        tcase_add_test(tc, test_count_nodes);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(fabric_suite());
}
