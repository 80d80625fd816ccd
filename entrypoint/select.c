/* SPDX-License-Identifier: Apache-2.0 */
/* Device selection: XPU_VISIBLE_DEVICES, else each vendor's own variable with the vendor tools'
 * meanings, and the vendors' CDI marks (select.h). The vendor rules and their sources are in each
 * vendor's descriptor (xpu_vendor_ops.visibility, probes/<vendor>/).
 *
 * Selection narrows what the container runtime gave: "all" and the default take only devices
 * whose nodes are present (xpu_device_available()); an explicit entry that names a device the
 * runtime did not give is an error, never a silent widening. Nothing here logs. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/str.h"
#include "select-entries.h"
#include "select-mig.h"
#include "select.h"
#include "vendor.h"

static const struct var_rules xpu_rules = {
        .name = "XPU_VISIBLE_DEVICES",
        .vendor = -1,
        .global_index = true,
        .vendor_prefix = true,
        .unique_id = true,
};

/* The vendor's own variable, used when XPU_VISIBLE_DEVICES is unset: its rules are the vendor's
 * (xpu_vendor_ops.visibility). */
static struct var_rules vendor_rules(enum xpu_vendor v) {
        const struct xpu_vendor_visibility *vis = &xpu_vendors[v]->visibility;
        return (struct var_rules){
                .name = vis->variable, .vendor = (int)v, .ranges = vis->ranges, .unique_id = vis->unique_id != NULL
        };
}

/* Fully qualified CDI device names ("nvidia.com/gpu=0": kind, '=', device name) that a list entry
 * may be, the form the NVIDIA Container Toolkit's CDI mode and the DRA drivers pass in
 * NVIDIA_VISIBLE_DEVICES. The device name is read as that spec generator names devices: its vendor
 * index, UUID or PCI bus id (nvidia-ctk, amd-ctk), or xpuinit's index for xpuinit's own kind
 * (`xpuinit cdi generate`), and "all". Each variable takes the kinds of its vendor only. Kind K
 * is xpuinit's for K = _XPU_VENDOR_MAX, else vendor K's (xpu_vendor_visibility.cdi_kind). */
struct cdi_kind {
        const char *kind;
        int vendor;        /* -1: every vendor */
        bool global_index; /* the name's number is an xpuinit index */
};

static struct cdi_kind cdi_kind_at(size_t k) {
        if (k >= _XPU_VENDOR_MAX)
                return (struct cdi_kind){ "xpuinit.dev/gpu", -1, true };
        return (struct cdi_kind){ xpu_vendors[k]->visibility.cdi_kind, (int)k, false };
}

/* Whole-value keywords (case-insensitive). "" is VOID as well. */
static const struct {
        const char *word;
        enum xpu_request request;
} keywords[] = {
        { "all", XPU_REQUEST_ALL },
        { "none", XPU_REQUEST_NONE },
        { "void", XPU_REQUEST_VOID },
};

struct xpu_selection *xpu_selection_free(struct xpu_selection *s) {
        if (!s)
                return NULL;
        free(s->selected);
        free(s->mig);
        for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                free(s->cdi_libdir[v]);
                free(s->workload_env[v]);
        }
        free(s);
        return NULL;
}

static void xpu_selection_freep(struct xpu_selection **s) {
        xpu_selection_free(*s);
}


static bool index_exists(const struct xpu_inventory *inv, int vendor, bool global, uint64_t idx) {
        for (size_t i = 0; i < inv->n_devices; i++) {
                const struct xpu_device *d = &inv->devices[i];
                if ((vendor < 0 || (int)d->vendor == vendor) &&
                    (global ? d->index : d->vendor_index) == idx)
                        return true;
        }
        return false;
}

/* Mark in HIT every in-scope device that ENTRY names. *BY_INDEX is set for index entries (plain,
 * vendor:index, ranges), where every device named must be available; an id (UUID, unique id,
 * bus id) may name several partitions of which only some were given. A range names every index
 * in it: when one has no device, *RET_MISSING gets the first such index and -ERANGE is returned
 * ("0-9" on a host of 8 devices is an error, never a silent "0-7"). Returns 0 (possibly with no
 * hit), -ERANGE, or -EINVAL when the entry's form is not accepted by R (then nothing matches
 * either). */
static int match_entry(const struct var_rules *r, const struct xpu_inventory *inv, const char *e,
                       bool *hit, bool *by_index, uint64_t *ret_missing) {
        uint64_t a = 0, b = 0;
        int vendor = r->vendor;
        const char *num = e;

        /* "vendor:index" */
        const char *colon = strchr(e, ':');
        if (r->vendor_prefix && colon && colon > e && colon - e < 16) {
                char prefix[16];
                memcpy(prefix, e, (size_t)(colon - e));
                prefix[colon - e] = '\0';
                int v = xpu_vendor_from_string(prefix);
                if (v >= 0) {
                        if (!xpu_sel_all_digits(colon + 1, strlen(colon + 1)))
                                return -EINVAL;
                        vendor = v;
                        num = colon + 1;
                }
        }

        /* Plain index, vendor:index, or a range "a-b". */
        const char *dash = r->ranges && num == e ? strchr(e, '-') : NULL;
        if (xpu_sel_all_digits(num, strlen(num)) ||
            (dash && xpu_sel_all_digits(e, (size_t)(dash - e)) && xpu_sel_all_digits(dash + 1, strlen(dash + 1)))) {
                if (dash) {
                        char first[24];
                        if ((size_t)(dash - e) >= sizeof first)
                                return -EINVAL;
                        memcpy(first, e, (size_t)(dash - e));
                        first[dash - e] = '\0';
                        if (xpu_parse_u64(first, 10, &a) < 0 || xpu_parse_u64(dash + 1, 10, &b) < 0 ||
                            a > b)
                                return -EINVAL;
                } else {
                        if (xpu_parse_u64(num, 10, &a) < 0)
                                return -EINVAL;
                        b = a;
                }
                bool global = r->global_index && num == e;
                *by_index = true;
                /* Each index found is another device, so this ends within n_devices + 1 steps
                 * even for "0-18446744073709551615". */
                for (uint64_t idx = a; dash; idx++) {
                        if (!index_exists(inv, vendor, global, idx)) {
                                *ret_missing = idx;
                                return -ERANGE;
                        }
                        if (idx == b)
                                break;
                }
                for (size_t i = 0; i < inv->n_devices; i++) {
                        const struct xpu_device *d = &inv->devices[i];
                        if (vendor >= 0 && (int)d->vendor != vendor)
                                continue;
                        uint64_t idx = global ? d->index : d->vendor_index;
                        if (idx >= a && idx <= b)
                                hit[i] = true;
                }
                return 0;
        }
        if (num != e)
                return -EINVAL;

        /* UUID ("GPU-..."), any case. A GPU-level id names every partition of that GPU. */
        if (strncasecmp(e, "GPU-", 4) == 0) {
                for (size_t i = 0; i < inv->n_devices; i++)
                        if (xpu_sel_in_scope(r, &inv->devices[i]) &&
                            strcasecmp(inv->devices[i].uuid, e) == 0)
                                hit[i] = true;
                return 0;
        }

        /* A vendor's unique id "0x<hex>" (AMD's KFD unique_id), compared as a number. */
        if (r->unique_id && (e[0] == '0' && (e[1] == 'x' || e[1] == 'X'))) {
                if (xpu_parse_u64(e, 16, &a) < 0)
                        return -EINVAL;
                for (size_t i = 0; i < inv->n_devices; i++) {
                        const struct xpu_device *d = &inv->devices[i];
                        const struct xpu_vendor_ops *ops = xpu_vendor(d->vendor);
                        const char *id = ops && ops->visibility.unique_id ? ops->visibility.unique_id(d) : "";
                        if (xpu_sel_in_scope(r, d) && id[0] && xpu_parse_u64(id, 16, &b) == 0 && a == b)
                                hit[i] = true;
                }
                return 0;
        }

        /* PCI bus id, any spelling ("00000000:1A:00.0", "1a:00.0"), compared as numbers; a
         * partition by its number as the function, as ROCm SMI names it ("0000:05:00.2"). */
        struct xpu_pci_bus_id bus, have;
        if (xpu_pci_bus_id_parse(e, &bus) < 0)
                return -EINVAL;
        for (size_t i = 0; i < inv->n_devices; i++) {
                char named[XPU_PCI_BUS_ID_MAX];
                if (xpu_sel_in_scope(r, &inv->devices[i]) && xpu_device_named_bus_id(&inv->devices[i], named) &&
                    xpu_pci_bus_id_parse(named, &have) == 0 && xpu_pci_bus_id_compare(&have, &bus) == 0)
                        hit[i] = true;
        }
        return 0;
}

/* Is E a qualified CDI device name ("vendor.tld/class=name": a '/' before the first '=')? */
static bool is_cdi_name(const char *e) {
        const char *eq = strchr(e, '='), *slash = strchr(e, '/');
        return eq && slash && slash < eq;
}

/* Read the qualified CDI name E for variable R: *CR = the rules its device name is read by, *NAME
 * = the device name. Returns 0, or -EINVAL with ERR naming why (a kind R does not take). */
static int cdi_entry(const struct var_rules *r, const char *e, struct var_rules *cr, const char **name, char *err,
                     size_t err_size) {
        const char *eq = strchr(e, '=');
        size_t klen = (size_t)(eq - e);
        for (size_t k = 0; k <= _XPU_VENDOR_MAX; k++) {
                struct cdi_kind ck = cdi_kind_at(k == 0 ? _XPU_VENDOR_MAX : k - 1); /* xpuinit's first */
                if (!ck.kind || strlen(ck.kind) != klen || strncmp(e, ck.kind, klen) != 0)
                        continue;
                if (r->vendor >= 0 && ck.vendor != r->vendor)
                        break;
                *cr = (struct var_rules){ .name = r->name,
                                          .vendor = ck.vendor,
                                          .global_index = ck.global_index,
                                          .unique_id = r->unique_id };
                *name = eq + 1;
                return 0;
        }
        char kinds[160] = "";
        size_t used = 0;
        for (size_t k = 0; k <= _XPU_VENDOR_MAX; k++) {
                struct cdi_kind ck = cdi_kind_at(k == 0 ? _XPU_VENDOR_MAX : k - 1);
                if (ck.kind && (r->vendor < 0 || ck.vendor == r->vendor))
                        used += (size_t)snprintf(kinds + used, used < sizeof kinds ? sizeof kinds - used : 0, "%s%s=NAME",
                                                 used ? ", " : "", ck.kind);
        }
        return xpu_sel_fail(err, err_size, r, NULL,
                        "\"%s\": the CDI kind \"%.*s\" is not one %s takes (it takes %s, NAME an index, UUID, PCI "
                        "bus id, MIG device or all)",
                        e, (int)klen, e, r->name, kinds);
}

/* Device I as the container runtime gave it: its MIG devices that were given, when it has any,
 * else the whole device. */
static void select_given(struct sel_out *out, const struct xpu_inventory *inv, size_t i) {
        const struct xpu_device *d = &inv->devices[i];
        uint32_t mask = 0;
        const size_t n_mig = xpu_mig_count(d);
        for (size_t m = 0; m < n_mig; m++)
                if (xpu_mig_available(d, m))
                        mask |= 1u << m;
        if (mask)
                out->mig[i] |= mask;
        else
                out->whole[i] = true;
}

/* Select the devices of one list VALUE into OUT. */
static int parse_list(const struct var_rules *r, const struct xpu_inventory *inv, const char *value,
                      struct sel_out *out, char *err, size_t err_size) {
        _cleanup_free_ char *copy = strdup(value);
        _cleanup_free_ bool *hit = calloc(inv->n_devices + 1, sizeof *hit);
        if (!copy || !hit)
                return -ENOMEM;
        char *p = copy;
        for (;;) {
                char *comma = strchr(p, ',');
                if (comma)
                        *comma = '\0';
                char *e = xpu_strstrip(p);
                if (!*e)
                        return xpu_sel_fail(err, err_size, r, NULL, "empty entry in \"%s\"", value);
                /* A qualified CDI name: its device name, read by its kind's rules (ER). */
                const struct var_rules *er = r;
                struct var_rules cdi_rules;
                const char *entry = e;
                if (is_cdi_name(e)) {
                        int c = cdi_entry(r, entry, &cdi_rules, (const char **)&e, err, err_size);
                        if (c < 0)
                                return c;
                        er = &cdi_rules;
                        if (strcasecmp(e, "all") == 0) {
                                for (size_t i = 0; i < inv->n_devices; i++)
                                        if (xpu_sel_in_scope(er, &inv->devices[i]) && xpu_device_available(&inv->devices[i]))
                                                select_given(out, inv, i);
                                if (!comma)
                                        break;
                                p = comma + 1;
                                continue;
                        }
                        if (!*e)
                                return xpu_sel_fail(err, err_size, r, NULL, "\"%s\": no device name after '='", entry);
                }
                for (size_t k = 0; er == r && k < ELEMENTSOF(keywords); k++)
                        if (strcasecmp(e, keywords[k].word) == 0)
                                return xpu_sel_fail(err, err_size, r, NULL,
                                                "\"%s\" must be the whole value, not one entry of "
                                                "a list (\"%s\")",
                                                e, value);
                size_t mig_dev = 0, mig = 0;
                int mk = xpu_sel_match_mig(er, inv, e, entry, &mig_dev, &mig, err, err_size);
                if (mk < 0)
                        return mk;
                if (mk > 0) {
                        out->mig[mig_dev] |= 1u << mig;
                        if (!comma)
                                break;
                        p = comma + 1;
                        continue;
                }
                memset(hit, 0, inv->n_devices * sizeof *hit);
                bool by_index = false;
                uint64_t missing_index = 0;
                int k = match_entry(er, inv, e, hit, &by_index, &missing_index);
                if (k == -ERANGE)
                        return xpu_sel_fail(err, err_size, er, inv, "no %s%sdevice %" PRIu64 " in range \"%s\"",
                                        er->vendor >= 0 ? xpu_vendor_to_string((enum xpu_vendor)er->vendor)
                                                        : "",
                                        er->vendor >= 0 ? " " : "", missing_index, entry);
                size_t n_hit = 0, n_avail = 0;
                const struct xpu_device *missing = NULL;
                for (size_t i = 0; i < inv->n_devices; i++) {
                        if (!hit[i])
                                continue;
                        n_hit++;
                        if (xpu_device_available(&inv->devices[i]))
                                n_avail++;
                        else if (!missing)
                                missing = &inv->devices[i];
                }
                if (k < 0 || n_hit == 0)
                        return xpu_sel_fail(err, err_size, er, inv, "no %s%sdevice \"%s\"",
                                        er->vendor >= 0 ? xpu_vendor_to_string((enum xpu_vendor)er->vendor)
                                                        : "",
                                        er->vendor >= 0 ? " " : "", entry);
                if (missing && (by_index || n_avail == 0)) {
                        struct out o = { .buf = err, .size = err_size };
                        if (err && err_size) {
                                err[0] = '\0';
                                xpu_sel_out_add(&o, "%s: \"%s\" names ", r->name, entry);
                                xpu_sel_describe_device(&o, er, missing, false);
                                xpu_sel_out_add(&o, ", which the container runtime did not give to this "
                                            "container (%s is missing); ask the runtime for it or "
                                            "leave it out",
                                        xpu_sel_missing_node(missing));
                        }
                        return -EINVAL;
                }
                /* Duplicates are fine; partitions the runtime did not give are left out. */
                for (size_t i = 0; i < inv->n_devices; i++)
                        if (hit[i] && xpu_device_available(&inv->devices[i]))
                                out->whole[i] = true;
                if (!comma)
                        break;
                p = comma + 1;
        }
        return 0;
}

/* Classify VALUE (non-NULL) and, for a list, select its devices. */
static int parse_value(const struct var_rules *r, const struct xpu_inventory *inv, const char *value,
                       enum xpu_request *ret, struct sel_out *out, char *err, size_t err_size) {
        _cleanup_free_ char *trimmed = strdup(value);
        if (!trimmed)
                return -ENOMEM;
        char *t = xpu_strstrip(trimmed);
        if (!*t) {
                *ret = XPU_REQUEST_VOID;
                return 0;
        }
        for (size_t k = 0; k < ELEMENTSOF(keywords); k++)
                if (strcasecmp(t, keywords[k].word) == 0) {
                        *ret = keywords[k].request;
                        return 0;
                }
        *ret = XPU_REQUEST_LIST;
        return parse_list(r, inv, t, out, err, err_size);
}

int xpu_selection_parse_env(const struct xpu_inventory *inv, const struct xpu_selection_env *env,
                            struct xpu_selection **ret, char *err, size_t err_size) {
        _cleanup_(xpu_selection_freep) struct xpu_selection *s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        s->n = inv->n_devices;
        s->selected = calloc(s->n + 1, sizeof *s->selected);
        s->mig = calloc(s->n + 1, sizeof *s->mig);
        _cleanup_free_ bool *whole = calloc(s->n + 1, sizeof *whole);
        if (!s->selected || !s->mig || !whole)
                return -ENOMEM;
        struct sel_out out = { .whole = whole, .mig = s->mig };
        for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                s->cdi_mark[v] = env->cdi_mark[v];
                const char *dir = env->cdi_mark[v] ? env->cdi_libdir[v] : NULL;
                if (dir && dir[0] == '/' && !(s->cdi_libdir[v] = strdup(dir)))
                        return -ENOMEM;
        }

        /* The toolkit takes "all" only for these (its docs: "Possible values: all"); the variables
         * are the MIG vendor's (xpu_mig_vendor()), read only when it has them. */
        const struct xpu_vendor_mig *mv = xpu_mig_vendor() ? &xpu_mig_vendor()->mig : NULL;
        const struct {
                const char *name, *what, *value;
                bool *out;
        } mig_caps[] = { { mv ? mv->config_variable : "", "config", env->mig_config, &s->mig_config },
                         { mv ? mv->monitor_variable : "", "monitor", env->mig_monitor, &s->mig_monitor } };
        for (size_t i = 0; i < ELEMENTSOF(mig_caps); i++) {
                const char *v = mig_caps[i].value;
                if (!v || !*v)
                        continue;
                if (strcmp(v, "all") != 0) {
                        xpu_format_error(err, err_size, "%s=\"%.64s\": only \"all\" is supported (the host-wide MIG "
                                         "%s capability, as the NVIDIA Container Toolkit has it); unset it to leave "
                                         "it out", mig_caps[i].name, v, mig_caps[i].what);
                        return -EINVAL;
                }
                *mig_caps[i].out = true;
        }

        if (env->xpu_visible) {
                enum xpu_request req;
                int r = parse_value(&xpu_rules, inv, env->xpu_visible, &req, &out, err, err_size);
                if (r < 0)
                        return r;
                for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                        s->request[v] = req;
                        s->source[v] = xpu_rules.name;
                }
        } else
                for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                        s->request[v] = XPU_REQUEST_DEFAULT;
                        s->source[v] = "default";
                        if (env->visible[v]) {
                                struct var_rules vr = vendor_rules((enum xpu_vendor)v);
                                _cleanup_free_ char *list = NULL;
                                int r = xpu_selection_translate(inv, (enum xpu_vendor)v, env->visible[v], &list, err,
                                                                err_size);
                                if (r < 0)
                                        return r;
                                r = parse_value(&vr, inv, list ? list : env->visible[v], &s->request[v], &out, err,
                                                err_size);
                                if (r < 0)
                                        return r;
                                s->source[v] = vr.name;
                        }
                        /* The vendor's CDI spec said "void" (or nothing) to keep the toolkit's hook
                         * out; the devices themselves came with the spec. */
                        if (s->cdi_mark[v] && (s->request[v] == XPU_REQUEST_VOID || s->request[v] == XPU_REQUEST_DEFAULT))
                                s->request[v] = XPU_REQUEST_CDI;
                }

        /* "all", the default and CDI: every device the runtime gave. A device named whole is
         * whole, even when one of its MIG devices was named too. */
        for (size_t i = 0; i < inv->n_devices; i++) {
                enum xpu_request req = s->request[inv->devices[i].vendor];
                if ((req == XPU_REQUEST_ALL || req == XPU_REQUEST_DEFAULT || req == XPU_REQUEST_CDI) &&
                    xpu_device_available(&inv->devices[i]))
                        select_given(&out, inv, i);
                if (whole[i])
                        s->mig[i] = 0;
                s->selected[i] = whole[i] || s->mig[i];
        }
        /* the vendor runtime's own mask says what XPU_VISIBLE_DEVICES chose, in its numbers */
        int r = env->xpu_visible ? xpu_selection_write_back(inv, s, env->visible, err, err_size) : 0;
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

int xpu_selection_parse(const struct xpu_inventory *inv, const char *xpu_visible,
                        const char *const visible[_XPU_VENDOR_MAX], struct xpu_selection **ret, char *err,
                        size_t err_size) {
        struct xpu_selection_env env = { .xpu_visible = xpu_visible };
        for (int v = 0; visible && v < _XPU_VENDOR_MAX; v++)
                env.visible[v] = visible[v];
        return xpu_selection_parse_env(inv, &env, ret, err, err_size);
}


/* How many of the missing device nodes xpu_selection_warn_not_given() names before "and N more". */
#define NOT_GIVEN_NODES_NAMED 3

/* Is node K of device I of INV's path one of an earlier node (GPUs share some: /dev/kfd)? */
static bool node_named_before(const struct xpu_inventory *inv, size_t i, size_t k) {
        for (size_t j = 0; j <= i; j++)
                for (size_t m = 0; m < (j == i ? k : inv->devices[j].n_nodes); m++)
                        if (strcmp(inv->devices[j].nodes[m].path, inv->devices[i].nodes[k].path) == 0)
                                return true;
        return false;
}

void xpu_selection_warn_not_given(const struct xpu_inventory *inv, const struct xpu_selection *sel,
                                  const char *dev_root) {
        for (size_t i = 0; i < inv->n_devices; i++)
                if (sel->selected[i])
                        return;
        bool elsewhere = strcmp(dev_root, "/") != 0;
        for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                if (sel->request[v] == XPU_REQUEST_NONE || sel->request[v] == XPU_REQUEST_VOID)
                        continue;
                size_t found = 0, given = 0, missing = 0, used = 0;
                char nodes[4 * sizeof inv->devices[0].nodes[0].path] = "";
                for (size_t i = 0; i < inv->n_devices; i++) {
                        const struct xpu_device *d = &inv->devices[i];
                        if (d->vendor != (enum xpu_vendor)v)
                                continue;
                        found++;
                        given += xpu_device_available(d);
                        for (size_t k = 0; k < d->n_nodes; k++) {
                                if (d->nodes[k].optional || d->nodes[k].present || node_named_before(inv, i, k) ||
                                    missing++ >= NOT_GIVEN_NODES_NAMED || used >= sizeof nodes)
                                        continue;
                                int w = snprintf(nodes + used, sizeof nodes - used, "%s%s", used ? ", " : "",
                                                 d->nodes[k].path);
                                used += w > 0 ? (size_t)w : 0;
                        }
                }
                if (found == 0 || given > 0)
                        continue;
                char more[48] = "", where[sizeof nodes + sizeof more + PATH_MAX + 128] = "";
                if (missing > NOT_GIVEN_NODES_NAMED)
                        snprintf(more, sizeof more, " and %zu more", missing - NOT_GIVEN_NODES_NAMED);
                if (missing > 0 && elsewhere)
                        snprintf(where, sizeof where,
                                 "; looked for %s%s under the dev root %s: not found (the dev root is the directory "
                                 "that holds dev/)",
                                 nodes, more, dev_root);
                else if (missing > 0)
                        snprintf(where, sizeof where, "; looked for %s%s: not found", nodes, more);
                log_warning("found %zu %s GPU%s, 0 given to this container: request them (--gpus/--device, "
                            "a Kubernetes resource or a CDI device)%s",
                            found, xpu_vendor_display_name(v), found == 1 ? "" : "s", where);
        }
}
