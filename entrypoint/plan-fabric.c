/* SPDX-License-Identifier: Apache-2.0 */
/* The plan's fabric device sets: the nodes gathered for each set asked for, checked and their
 * groups added (plan-fabric.h). Reads nothing. */
#include "plan-fabric.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/str.h"
#include "plan-devices.h"
#include "vendor.h"

/* The found node of PATH, NULL when the container lacks it. */
static const struct xpu_fabric_found *found_node(const struct xpu_plan_facts *f, const char *path) {
        for (size_t i = 0; i < f->n_fabric; i++)
                if (strcmp(f->fabric[i].path, path) == 0)
                        return &f->fabric[i];
        return NULL;
}

/* The channels of set S the container has, for a message: "channel0, channel1" or "none". */
static void list_found(const struct xpu_plan_facts *f, size_t s, char *buf, size_t size) {
        size_t used = 0, n = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < f->n_fabric && used + 1 < size; i++) {
                if (f->fabric[i].set != s)
                        continue;
                const char *name = strrchr(f->fabric[i].path, '/') + 1;
                int k = snprintf(buf + used, size - used, "%s%s", n++ ? ", " : "", name);
                if (k < 0 || (size_t)k >= size - used) {
                        snprintf(buf + (size > 4 ? size - 4 : 0), size > 4 ? 4 : size, "...");
                        return;
                }
                used += (size_t)k;
        }
        if (n == 0)
                snprintf(buf, size, "none");
}

/* The node X of set SET: a character device whose major is its driver's (and, for a channel, whose
 * minor is its id), then checked and its group added like every other node. */
static int plan_node(struct xpu_plan *p, const struct xpu_plan_facts *f, const struct xpu_fabric_set *set,
                     const struct xpu_fabric_found *x, const char *source, char *err, size_t err_size) {
        if (!x->chr) {
                xpu_format_error(err, err_size, "%s: %s is in the container but is not a character device: it is not "
                                 "a device node of that driver; fix the container's /dev or unset the variable",
                                 source, x->path);
                return -ENODEV;
        }
        if (x->major_name && x->want_major >= 0 && x->major != (uint32_t)x->want_major) {
                xpu_format_error(err, err_size, "%s: %s is %u:%u, but /proc/devices gives %s the major %d: it is not "
                                 "that driver's node; give the container the host's own node",
                                 source, x->path, x->major, x->minor, x->major_name, x->want_major);
                return -ENODEV;
        }
        /* The driver makes channel N with minor N: another minor is another channel's node. */
        uint32_t id;
        if (set->channels && xpu_fabric_channel_id(set, x->path, &id) < 0) {
                xpu_format_error(err, err_size, "%s: %s does not name a channel of the %s set (%s with a channel id "
                                 "from 0 to %u, no leading zero, for the '*'): it is not a node the driver makes; "
                                 "remove it from the container's /dev or name the channels in %s",
                                 source, x->path, set->name, set->nodes[0].glob, XPU_FABRIC_CHANNEL_MAX, set->variable);
                return -ENODEV;
        }
        if (set->channels && x->minor != id) {
                xpu_format_error(err, err_size, "%s: %s is %u:%u, but %s %u has the minor %u (the driver makes channel "
                                 "N with minor N): the workload would get another channel's node; make the node again "
                                 "with minor %u (mknod %s c %u %u) or give the container the host's own",
                                 source, x->path, x->major, x->minor, set->what, id, id, id, x->path, x->major, id);
                return -ENODEV;
        }
        struct xpu_devnode node = {
                .major = x->major_name ? (uint32_t)(x->want_major >= 0 ? x->want_major : 0) : x->major,
                .minor = x->minor,
                .have_major = !x->major_name || x->want_major >= 0, /* a misc node has no major of its own */
                .present = true,
        };
        xpu_strlcpy(node.path, x->path, sizeof node.path);
        return xpu_plan_node_check(p, &node, f);
}

/* The warning of what set S's globs left out (facts->fabric_cut[S]): how many nodes and why. */
static int warn_cut(struct xpu_plan *p, const struct xpu_plan_facts *facts, size_t s) {
        const struct xpu_fabric_cut *cut = &facts->fabric_cut[s];
        const struct xpu_fabric_set *set = facts->needs.fabric.sets[s];
        const char *source = facts->needs.fabric.req[s].source;
        char hint[160] = "";
        if (set->channels)
                snprintf(hint, sizeof hint, "; to give other channels, list their ids in %s (each is looked up by "
                         "its own path)", set->variable);
        if (cut->left_out &&
            xpu_plan_warning(p, "%s: the container has %zu nodes of %s; %zu are left out and only the lowest %d in "
                             "version order (up to %s) are checked and given: at most %d nodes of one name pattern "
                             "are (a bound on a hostile /dev)%s",
                             source, cut->matched, cut->glob, cut->left_out, XPU_FABRIC_NODES_MAX,
                             strrchr(cut->highest, '/') ? strrchr(cut->highest, '/') + 1 : cut->highest,
                             XPU_FABRIC_NODES_MAX, hint) < 0)
                return -ENOMEM;
        if (cut->unread &&
            xpu_plan_warning(p, "%s: the directory of %s has more than %d entries; only the first %d were read (a "
                             "bound on a hostile /dev), so %s nodes past them are not given; remove what is not a device "
                             "node from it%s",
                             source, cut->glob, XPU_FABRIC_VISIT_MAX, XPU_FABRIC_VISIT_MAX, set->what, hint) < 0)
                return -ENOMEM;
        return 0;
}

int xpu_plan_fabric(struct xpu_plan *p, const struct xpu_plan_facts *facts, char *err, size_t err_size) {
        const struct xpu_fabric_needs *fn = &facts->needs.fabric;
        if (fn->error) {
                xpu_format_error(err, err_size, "%s", fn->error_text);
                return -EINVAL;
        }
        for (size_t s = 0; s < fn->n; s++) {
                const struct xpu_fabric_request *r = &fn->req[s];
                const struct xpu_fabric_set *set = fn->sets[s];
                int k;
                if (fn->ignored[s] &&
                    xpu_plan_note(p, "%s is set, but profile %s is not for %s's GPUs: the %s nodes are not given",
                                  fn->ignored[s], p->profile->name, xpu_vendor_display_name(fn->vendor[s]),
                                  set->what) < 0)
                        return -ENOMEM;
                if (!r->wanted)
                        continue;
                if ((k = warn_cut(p, facts, s)) < 0)
                        return k;
                size_t given = 0;
                if (set->channels && !r->all) {
                        for (size_t c = 0; c < r->n_channels; c++) {
                                char path[sizeof(((struct xpu_devnode *)0)->path)];
                                if (xpu_fabric_channel_path(set, r->channels[c], path, sizeof path) < 0)
                                        return -ENAMETOOLONG;
                                const struct xpu_fabric_found *x = found_node(facts, path);
                                if (!x) {
                                        char have[256];
                                        list_found(facts, s, have, sizeof have);
                                        xpu_format_error(err, err_size,
                                                "%s asks for %s %u, but %s is not in the container (it has: %s); "
                                                "ask only for channels it has, or: %s",
                                                r->source, set->what, r->channels[c], path, have, set->fix);
                                        return -ENOENT;
                                }
                                if ((k = plan_node(p, facts, set, x, r->source, err, err_size)) < 0)
                                        return k;
                                given++;
                        }
                } else {
                        for (size_t i = 0; i < facts->n_fabric; i++) {
                                if (facts->fabric[i].set != s)
                                        continue;
                                if ((k = plan_node(p, facts, set, &facts->fabric[i], r->source, err, err_size)) < 0)
                                        return k;
                                given++;
                        }
                }
                if (given == 0 && r->required) {
                        char globs[256] = "";
                        size_t used = 0;
                        for (const struct xpu_fabric_node *n = set->nodes; n->glob && used + 1 < sizeof globs; n++) {
                                int w = snprintf(globs + used, sizeof globs - used, "%s%s", used ? ", " : "", n->glob);
                                if (w < 0)
                                        break;
                                used += (size_t)w < sizeof globs - used ? (size_t)w : sizeof globs - used - 1;
                        }
                        xpu_format_error(err, err_size, "%s asks for the %s nodes, but the container has none (%s); %s",
                                         r->source, set->what, globs, set->fix);
                        return -ENOENT;
                }
                if (given == 0) {
                        if (xpu_plan_note(p, "%s asks for the %s nodes; the container has none: not given", r->source,
                                          set->what) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (xpu_plan_note(p, "fabric set %s (%s): %zu %s node(s) given", set->name, r->source, given,
                                  set->what) < 0)
                        return -ENOMEM;
        }
        return 0;
}
