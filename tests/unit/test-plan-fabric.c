/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/plan-fabric.c, with the request it plans from (needs-fabric.c) and the nodes it
 * checks (gather-fabric.c), on the nvidia-fabric-imex-rdma fixture host: each fabric set selected
 * by its variable or a profile, exactly its nodes checked with their /proc/devices majors, a
 * channel that does not exist, bad values, nodes that are not their driver's, a channel whose
 * minor is not its id, and directories of thousands of nodes (the lowest kept, the rest warned of;
 * past the visit bound, the rest unread and warned of). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "plan-fx.h"

#define HOST "nvidia-fabric-imex-rdma"

static struct fx f;
static char err[1024];

static void setup(void) {
        fx_open(&f, HOST, NULL, NULL);
}

static void teardown(void) {
        fx_close(&f);
}

/* The plan for PR (NULL: the one a start picks) with the environment ENV..., NULL-ended. */
static int plan_env(const struct xpu_profile *pr, struct xpu_plan **p, ...) {
        static char *env[16];
        size_t n = 0;
        env[n++] = (char *)"PATH=/usr/bin:/bin";
        va_list ap;
        va_start(ap, p);
        for (char *e; n < 15 && (e = va_arg(ap, char *));)
                env[n++] = e;
        va_end(ap);
        env[n] = NULL;
        struct xpu_plan_options o = fx_options(&f, XPU_INJECT_NONE, NULL, workload);
        o.envp = env;
        err[0] = '\0';
        *p = NULL;
        return xpu_test_plan(f.inv, f.sel, pr ? pr : fx_profile(&f), &o, p, err, sizeof err);
}

/* The fabric nodes among P's device checks (paths not under the GPUs' own), space-separated. */
static const char *fabric_checks(const struct xpu_plan *p) {
        static char buf[2048];
        buf[0] = '\0';
        for (size_t i = 0; i < p->n_ops; i++) {
                const struct xpu_op *op = &p->ops[i];
                const bool gpu_node = strcmp(op->path, "/dev/nvidiactl") == 0 ||
                                      strcmp(op->path, "/dev/nvidia-modeset") == 0 ||
                                      strncmp(op->path, "/dev/nvidia-uvm", 15) == 0 ||
                                      (strncmp(op->path, "/dev/nvidia", 11) == 0 && op->path[11] >= '0' &&
                                       op->path[11] <= '9');
                if (op->type != XPU_OP_CHECK_DEVNODE || gpu_node)
                        continue;
                snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? " " : "", op->path);
        }
        return buf;
}

/* The device check of PATH in P; the test ends when there is none. */
static const struct xpu_op *check_of(const struct xpu_plan *p, const char *path) {
        const struct xpu_op *op = find_op(p, XPU_OP_CHECK_DEVNODE, path);
        if (!op) {
                fprintf(stderr, "no device check of %s\n", path);
                abort();
        }
        return op;
}

static bool has_note(const struct xpu_plan *p, const char *needle) {
        for (size_t i = 0; i < p->n_notes; i++)
                if (strstr(p->notes[i], needle))
                        return true;
        return false;
}

START_TEST(test_none_asked) {
        struct xpu_plan *p;
        ck_assert_int_eq(plan_env(NULL, &p, NULL), 0);
        ck_assert_str_eq(fabric_checks(p), "");
        xpu_plan_free(p);
        /* "none", "disabled" and empty values ask for nothing */
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=none", "XPU_RDMA=disabled", "NVIDIA_GDS=", NULL), 0);
        ck_assert_str_eq(fabric_checks(p), "");
        xpu_plan_free(p);
}
END_TEST

START_TEST(test_channels) {
        struct xpu_plan *p;
        ck_assert_msg(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=1", NULL) == 0, "%s", err);
        ck_assert_str_eq(fabric_checks(p), "/dev/nvidia-caps-imex-channels/channel1");
        const struct xpu_op *op = check_of(p, "/dev/nvidia-caps-imex-channels/channel1");
        ck_assert(op->have_major);
        ck_assert_uint_eq(op->major, 234); /* /proc/devices: nvidia-caps-imex-channels */
        ck_assert_uint_eq(op->minor, 1);
        ck_assert(!op->optional);
        ck_assert(has_note(p, "fabric set imex (NVIDIA_IMEX_CHANNELS=1): 1 IMEX channel node(s) given"));
        xpu_plan_free(p);
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=all", NULL), 0);
        ck_assert_str_eq(fabric_checks(p),
                         "/dev/nvidia-caps-imex-channels/channel0 /dev/nvidia-caps-imex-channels/channel1");
        xpu_plan_free(p);
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=1,0", NULL), 0);
        ck_assert_str_eq(fabric_checks(p),
                         "/dev/nvidia-caps-imex-channels/channel0 /dev/nvidia-caps-imex-channels/channel1");
        xpu_plan_free(p);
}
END_TEST

START_TEST(test_channel_missing) {
        struct xpu_plan *p;
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=0,5", NULL), -ENOENT);
        ck_assert_ptr_null(p);
        ck_assert_msg(strstr(err, "NVIDIA_IMEX_CHANNELS=0,5 asks for IMEX channel 5, but "
                                  "/dev/nvidia-caps-imex-channels/channel5 is not in the container "
                                  "(it has: channel0, channel1)"), "%s", err);
        /* a host with no channel at all */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/dev/nvidia-caps-imex-channels", f.root);
        xpu_test_rm_rf(dir);
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=0", NULL), -ENOENT);
        ck_assert_msg(strstr(err, "(it has: none)"), "%s", err);
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=all", NULL), -ENOENT);
        ck_assert_msg(strstr(err, "NVIDIA_IMEX_CHANNELS=all asks for the IMEX channel nodes, but the container "
                                  "has none (/dev/nvidia-caps-imex-channels/channel*)"), "%s", err);
}
END_TEST

START_TEST(test_bad_values) {
        struct xpu_plan *p;
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=0,x", NULL), -EINVAL);
        ck_assert_msg(strstr(err, "NVIDIA_IMEX_CHANNELS=\"0,x\": entry \"x\" is not a channel id"), "%s", err);
        ck_assert_int_eq(plan_env(NULL, &p, "XPU_RDMA=yes", NULL), -EINVAL);
        ck_assert_msg(strstr(err, "XPU_RDMA=\"yes\": expected \"enabled\" or \"disabled\""), "%s", err);
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_GDRCOPY=1", NULL), -EINVAL);
        ck_assert_msg(strstr(err, "NVIDIA_GDRCOPY=\"1\""), "%s", err);
}
END_TEST

START_TEST(test_rdma) {
        static const char *const rdma =
                "/dev/infiniband/uverbs0 /dev/infiniband/uverbs1 /dev/infiniband/rdma_cm /dev/infiniband/umad0 "
                "/dev/infiniband/umad1";
        struct xpu_plan *p;
        ck_assert_msg(plan_env(NULL, &p, "XPU_RDMA=enabled", NULL) == 0, "%s", err);
        ck_assert_str_eq(fabric_checks(p), rdma); /* issm0 is in no set */
        const struct xpu_op *op = check_of(p, "/dev/infiniband/uverbs1");
        ck_assert(op->have_major);
        ck_assert_uint_eq(op->major, 231);
        ck_assert_uint_eq(op->minor, 193);
        op = check_of(p, "/dev/infiniband/rdma_cm");
        ck_assert(op->have_major);
        ck_assert_uint_eq(op->major, 10);
        ck_assert_uint_eq(op->minor, 56);
        xpu_plan_free(p);
        /* the toolkit's name for it */
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_MOFED=enabled", NULL), 0);
        ck_assert_str_eq(fabric_checks(p), rdma);
        ck_assert(has_note(p, "fabric set rdma (NVIDIA_MOFED=enabled)"));
        xpu_plan_free(p);
        /* XPU_RDMA decides when both are set */
        ck_assert_int_eq(plan_env(NULL, &p, "XPU_RDMA=disabled", "NVIDIA_MOFED=enabled", NULL), 0);
        ck_assert_str_eq(fabric_checks(p), "");
        xpu_plan_free(p);
        /* on the cpu profile RDMA is asked for alike; NVIDIA's sets and names are not read */
        const struct xpu_profile *cpu = xpu_profile_set_find(f.profiles, "cpu");
        ck_assert_ptr_nonnull(cpu);
        ck_assert_int_eq(plan_env(cpu, &p, "XPU_RDMA=enabled", "NVIDIA_GDRCOPY=enabled", NULL), 0);
        ck_assert_str_eq(fabric_checks(p), rdma);
        ck_assert(has_note(p, "NVIDIA_GDRCOPY is set, but profile cpu is not for NVIDIA's GPUs: the GDRCopy nodes are "
                              "not given"));
        xpu_plan_free(p);
        ck_assert_int_eq(plan_env(cpu, &p, "NVIDIA_MOFED=enabled", NULL), 0);
        ck_assert_str_eq(fabric_checks(p), "");
        xpu_plan_free(p);
}
END_TEST

START_TEST(test_gdrcopy_gds_nvswitch) {
        struct xpu_plan *p;
        ck_assert_msg(plan_env(NULL, &p, "NVIDIA_GDRCOPY=enabled", NULL) == 0, "%s", err);
        ck_assert_str_eq(fabric_checks(p), "/dev/gdrdrv");
        ck_assert_uint_eq(check_of(p, "/dev/gdrdrv")->major, 508);
        xpu_plan_free(p);
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_GDS=enabled", NULL), 0);
        ck_assert_str_eq(fabric_checks(p), "/dev/nvidia-fs0 /dev/nvidia-fs1");
        xpu_plan_free(p);
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_NVSWITCH=enabled", NULL), 0);
        ck_assert_str_eq(fabric_checks(p), "/dev/nvidia-nvswitchctl /dev/nvidia-nvswitch0 /dev/nvidia-nvswitch1");
        ck_assert_uint_eq(check_of(p, "/dev/nvidia-nvswitchctl")->minor, 255);
        xpu_plan_free(p);
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=0", "XPU_RDMA=enabled", "NVIDIA_GDRCOPY=enabled",
                                  "NVIDIA_GDS=enabled", "NVIDIA_NVSWITCH=enabled", NULL), 0);
        ck_assert_str_eq(fabric_checks(p),
                         "/dev/infiniband/uverbs0 /dev/infiniband/uverbs1 /dev/infiniband/rdma_cm "
                         "/dev/infiniband/umad0 /dev/infiniband/umad1 /dev/nvidia-caps-imex-channels/channel0 "
                         "/dev/gdrdrv /dev/nvidia-fs0 /dev/nvidia-fs1 /dev/nvidia-nvswitchctl "
                         "/dev/nvidia-nvswitch0 /dev/nvidia-nvswitch1");
        xpu_plan_free(p);
}
END_TEST

START_TEST(test_profile_asks) {
        struct xpu_profile pr = *fx_profile(&f);
        char *sets[] = { (char *)"imex", (char *)"gdrcopy", NULL };
        pr.fabric = sets;
        pr.n_fabric = 2;
        struct xpu_plan *p;
        ck_assert_msg(plan_env(&pr, &p, NULL) == 0, "%s", err);
        ck_assert_str_eq(fabric_checks(p),
                         "/dev/nvidia-caps-imex-channels/channel0 /dev/nvidia-caps-imex-channels/channel1 /dev/gdrdrv");
        ck_assert(has_note(p, "fabric set gdrcopy (profile nvidia-cuda)"));
        xpu_plan_free(p);
        /* the variable decides over the profile */
        ck_assert_int_eq(plan_env(&pr, &p, "NVIDIA_IMEX_CHANNELS=none", NULL), 0);
        ck_assert_str_eq(fabric_checks(p), "/dev/gdrdrv");
        xpu_plan_free(p);
        /* a profile's set the host lacks is a note, not an error */
        char gdr[4096];
        snprintf(gdr, sizeof gdr, "%s/dev/gdrdrv", f.root);
        ck_assert_int_eq(unlink(gdr), 0);
        ck_assert_int_eq(plan_env(&pr, &p, NULL), 0);
        ck_assert(has_note(p, "profile nvidia-cuda asks for the GDRCopy nodes; the container has none: not given"));
        xpu_plan_free(p);
        ck_assert_int_eq(plan_env(&pr, &p, "NVIDIA_GDRCOPY=enabled", NULL), -ENOENT);
        ck_assert_msg(strstr(err, "NVIDIA_GDRCOPY=enabled asks for the GDRCopy nodes, but the container has none "
                                  "(/dev/gdrdrv); load the gdrdrv module"), "%s", err);
}
END_TEST

/* Replace PATH under the fixture with a node MAJ:MIN, or a regular file when MAJ < 0. */
static void replace_node(const char *path, int maj, int min) {
        char full[4096];
        snprintf(full, sizeof full, "%s%s", f.root, path);
        ck_assert_int_eq(unlink(full), 0);
        if (maj < 0) {
                int fd = open(full, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                ck_assert_int_ge(fd, 0);
                close(fd);
        } else {
                ck_assert_int_eq(mknod(full, S_IFCHR | 0666, makedev((unsigned)maj, (unsigned)min)), 0);
        }
}

START_TEST(test_not_the_drivers_node) {
        struct xpu_plan *p;
        replace_node("/dev/gdrdrv", 1, 3); /* /dev/null's numbers */
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_GDRCOPY=enabled", NULL), -ENODEV);
        ck_assert_msg(strstr(err, "/dev/gdrdrv is 1:3, but /proc/devices gives gdrdrv the major 508"), "%s", err);
        replace_node("/dev/infiniband/uverbs1", -1, 0);
        ck_assert_int_eq(plan_env(NULL, &p, "XPU_RDMA=enabled", NULL), -ENODEV);
        ck_assert_msg(strstr(err, "XPU_RDMA=enabled: /dev/infiniband/uverbs1 is in the container but is not a "
                                  "character device"), "%s", err);
}
END_TEST

START_TEST(test_group_of_nodes) {
        char full[4096];
        snprintf(full, sizeof full, "%s/dev/infiniband/uverbs0", f.root);
        ck_assert_int_eq(chown(full, 0, 4242), 0);
        struct xpu_plan *p;
        ck_assert_int_eq(plan_env(NULL, &p, "XPU_RDMA=enabled", NULL), 0);
        bool found = false;
        for (size_t i = 0; i < p->n_groups; i++)
                found |= p->groups[i] == 4242;
        ck_assert(found);
        xpu_plan_free(p);
}
END_TEST

static bool has_warning(const struct xpu_plan *p, const char *needle) {
        for (size_t i = 0; i < p->n_warnings; i++)
                if (strstr(p->warnings[i], needle))
                        return true;
        return false;
}

/* Channels FROM..TO (each c 234:id) beside the fixture's channel0 and channel1. */
static void make_channels(unsigned from, unsigned to) {
        char full[4096];
        for (unsigned i = from; i <= to; i++) {
                snprintf(full, sizeof full, "%s/dev/nvidia-caps-imex-channels/channel%u", f.root, i);
                ck_assert_int_eq(mknod(full, S_IFCHR | 0666, makedev(234, i)), 0);
        }
}

/* 5001 channels: one asked for is looked up by its own path, whatever the directory's size and
 * order; "all" gives the lowest 256 in version order and warns of the rest. */
START_TEST(test_many_channels) {
        make_channels(2, 5000);
        struct xpu_plan *p;
        static const char *const asks[][2] = {
                { "NVIDIA_IMEX_CHANNELS=0", "/dev/nvidia-caps-imex-channels/channel0" },
                { "NVIDIA_IMEX_CHANNELS=4999", "/dev/nvidia-caps-imex-channels/channel4999" },
                { "NVIDIA_IMEX_CHANNELS=300,0", "/dev/nvidia-caps-imex-channels/channel0 "
                                                "/dev/nvidia-caps-imex-channels/channel300" },
        };
        for (size_t i = 0; i < sizeof asks / sizeof *asks; i++) {
                ck_assert_msg(plan_env(NULL, &p, asks[i][0], NULL) == 0, "%s: %s", asks[i][0], err);
                ck_assert_str_eq(fabric_checks(p), asks[i][1]);
                ck_assert_uint_eq(p->n_warnings, 0);
                xpu_plan_free(p);
        }
        ck_assert_msg(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=all", NULL) == 0, "%s", err);
        size_t channels = 0;
        for (size_t i = 0; i < p->n_ops; i++)
                channels += p->ops[i].type == XPU_OP_CHECK_DEVNODE &&
                            strncmp(p->ops[i].path, "/dev/nvidia-caps-imex-channels/", 31) == 0;
        ck_assert_uint_eq(channels, 256);
        for (unsigned i = 0; i < 256; i++) {
                char path[64];
                snprintf(path, sizeof path, "/dev/nvidia-caps-imex-channels/channel%u", i);
                ck_assert_uint_eq(check_of(p, path)->minor, i);
        }
        ck_assert_uint_eq(check_of(p, "/dev/nvidia-caps-imex-channels/channel255")->minor, 255);
        ck_assert(has_note(p, "fabric set imex (NVIDIA_IMEX_CHANNELS=all): 256 IMEX channel node(s) given"));
        ck_assert(has_warning(p, "NVIDIA_IMEX_CHANNELS=all: the container has 5001 nodes of "
                                 "/dev/nvidia-caps-imex-channels/channel*; 4745 are left out and only the lowest 256 in "
                                 "version order (up to channel255) are checked and given"));
        ck_assert(has_warning(p, "list their ids in NVIDIA_IMEX_CHANNELS"));
        xpu_plan_free(p);
        /* a channel missing from a large directory: the message names the lowest it has, bounded */
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=0,6000", NULL), -ENOENT);
        ck_assert_msg(strstr(err, "channel6000 is not in the container (it has: channel0, channel1, channel2, "),
                      "%s", err);
        ck_assert_uint_lt(strlen(err), 800);
}
END_TEST

/* A channel node's minor is its id (the driver makes channelN with minor N). */
START_TEST(test_channel_minor) {
        struct xpu_plan *p;
        replace_node("/dev/nvidia-caps-imex-channels/channel0", 234, 7);
        static const char *const asks[] = { "NVIDIA_IMEX_CHANNELS=0", "NVIDIA_IMEX_CHANNELS=all" };
        for (size_t i = 0; i < 2; i++) {
                ck_assert_int_eq(plan_env(NULL, &p, asks[i], NULL), -ENODEV);
                ck_assert_ptr_null(p);
                ck_assert_msg(strstr(err, ": /dev/nvidia-caps-imex-channels/channel0 is 234:7, but IMEX channel 0 has "
                                          "the minor 0"), "%s", err);
                ck_assert_msg(strstr(err, "mknod /dev/nvidia-caps-imex-channels/channel0 c 234 0"), "%s", err);
        }
        /* channel 1 alone is still given */
        ck_assert_msg(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=1", NULL) == 0, "%s", err);
        xpu_plan_free(p);
        replace_node("/dev/nvidia-caps-imex-channels/channel0", 234, 0);
        /* a name that is no channel id: "all" refuses it rather than guess which channel it is */
        char full[4096];
        snprintf(full, sizeof full, "%s/dev/nvidia-caps-imex-channels/channel01", f.root);
        ck_assert_int_eq(mknod(full, S_IFCHR | 0666, makedev(234, 1)), 0);
        ck_assert_int_eq(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=all", NULL), -ENODEV);
        ck_assert_msg(strstr(err, "/dev/nvidia-caps-imex-channels/channel01 does not name a channel of the imex set"),
                      "%s", err);
        /* a list names the paths it reads: the odd name is not looked at */
        ck_assert_msg(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=0,1", NULL) == 0, "%s", err);
        ck_assert_str_eq(fabric_checks(p),
                         "/dev/nvidia-caps-imex-channels/channel0 /dev/nvidia-caps-imex-channels/channel1");
        xpu_plan_free(p);
}
END_TEST

/* More than 256 nodes of a glob set (RDMA verbs): the lowest 256 in version order, and a warning. */
START_TEST(test_many_rdma) {
        char full[4096];
        for (unsigned i = 2; i < 300; i++) {
                snprintf(full, sizeof full, "%s/dev/infiniband/uverbs%u", f.root, i);
                ck_assert_int_eq(mknod(full, S_IFCHR | 0666, makedev(231, 192 + i)), 0);
        }
        struct xpu_plan *p;
        ck_assert_msg(plan_env(NULL, &p, "XPU_RDMA=enabled", NULL) == 0, "%s", err);
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/infiniband/uverbs255"));
        ck_assert_ptr_null(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/infiniband/uverbs256"));
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/infiniband/umad1"));
        ck_assert(has_warning(p, "XPU_RDMA=enabled: the container has 300 nodes of /dev/infiniband/uverbs*; 44 are left "
                                 "out and only the lowest 256 in version order (up to uverbs255)"));
        ck_assert(!has_warning(p, "NVIDIA_IMEX_CHANNELS"));
        xpu_plan_free(p);
}
END_TEST

/* A channel directory past the visit bound (XPU_FABRIC_VISIT_MAX entries, on a tmpfs of this
 * test's own mount namespace): read no further, the rest warned of. Needs root (unshare, mount). */
START_TEST(test_visit_bound) {
        char dir[4096], path[4200];
        snprintf(dir, sizeof dir, "%s/dev/nvidia-caps-imex-channels", f.root);
        ck_assert_msg(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS): %s (needs root)", strerror(errno));
        ck_assert_int_eq(mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL), 0); /* named: valgrind checks them */
        ck_assert_msg(mount("xpu-test", dir, "tmpfs", 0, "mode=0755") == 0, "mount tmpfs: %s", strerror(errno));
        /* the dev root opened before unshare walks the old namespace's mounts: open it in this one */
        close(f.roots.dev_fd);
        f.roots.dev_fd = open(f.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(f.roots.dev_fd, 0);
        /* channel0 first and channel1 last: whichever order readdir gives, one is among the entries read */
        snprintf(path, sizeof path, "%s/channel0", dir);
        ck_assert_int_eq(mknod(path, S_IFCHR | 0666, makedev(234, 0)), 0);
        for (unsigned i = 0; i < XPU_FABRIC_VISIT_MAX; i++) {
                snprintf(path, sizeof path, "%s/x%u", dir, i);
                ck_assert_int_eq(mknod(path, S_IFREG | 0600, 0), 0);
        }
        snprintf(path, sizeof path, "%s/channel1", dir);
        ck_assert_int_eq(mknod(path, S_IFCHR | 0666, makedev(234, 1)), 0);
        struct xpu_plan *p;
        int k = plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=all", NULL);
        ck_assert_msg(k == 0, "%s", err);
        ck_assert(has_warning(p, "NVIDIA_IMEX_CHANNELS=all: the directory of /dev/nvidia-caps-imex-channels/channel* has "
                                 "more than 65536 entries; only the first 65536 were read"));
        ck_assert(has_note(p, "fabric set imex (NVIDIA_IMEX_CHANNELS=all): 1 IMEX channel node(s) given"));
        xpu_plan_free(p);
        /* a listed channel is found past the bound: looked up by its path */
        ck_assert_msg(plan_env(NULL, &p, "NVIDIA_IMEX_CHANNELS=0,1", NULL) == 0, "%s", err);
        ck_assert_uint_eq(p->n_warnings, 0);
        xpu_plan_free(p);
        ck_assert_int_eq(umount2(dir, MNT_DETACH), 0);
}
END_TEST

static Suite *plan_fabric_suite(void) {
        Suite *s = suite_create("plan-fabric");
        TCase *tc = tcase_create("fixture");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 30); /* thousands of nodes made on a shared machine's disk */
        tcase_add_test(tc, test_none_asked);
        tcase_add_test(tc, test_channels);
        tcase_add_test(tc, test_channel_missing);
        tcase_add_test(tc, test_bad_values);
        tcase_add_test(tc, test_rdma);
        tcase_add_test(tc, test_gdrcopy_gds_nvswitch);
        tcase_add_test(tc, test_profile_asks);
        tcase_add_test(tc, test_not_the_drivers_node);
        tcase_add_test(tc, test_group_of_nodes);
        tcase_add_test(tc, test_many_channels);
        tcase_add_test(tc, test_channel_minor);
        tcase_add_test(tc, test_many_rdma);
        tcase_add_test(tc, test_visit_bound);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(plan_fabric_suite());
}
