/* SPDX-License-Identifier: Apache-2.0 */
/* The plan's capabilities (which driver files the image asks for) and its environment (the
 * profile's edits with the placeholders expanded): plan-internal.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/str.h"
#include "base/strv.h"
#include "plan-internal.h"
#include "plan.h"

/* The profile's per-capability lists: libraries, binaries, files (K = 0, 1, 2; NULL after). */
const struct xpu_capability_files *xpu_plan_capability_list(const struct xpu_profile *pr, int k, size_t *n) {
        switch (k) {
        case 0:
                *n = pr->n_libraries;
                return pr->libraries;
        case 1:
                *n = pr->n_binaries;
                return pr->binaries;
        case 2:
                *n = pr->n_files;
                return pr->files;
        default:
                *n = 0;
                return NULL;
        }
}

static bool profile_knows_capability(const struct xpu_profile *pr, const char *cap) {
        if (pr->capability_32bit && strcmp(pr->capability_32bit, cap) == 0)
                return true;
        size_t n;
        for (int k = 0; k < 3; k++) {
                const struct xpu_capability_files *cf = xpu_plan_capability_list(pr, k, &n);
                for (size_t i = 0; i < n; i++)
                        if (strcmp(cf[i].capability, cap) == 0)
                                return true;
        }
        return false;
}

static int push_unique(char ***v, size_t *n, const char *s) {
        for (size_t i = 0; i < *n; i++)
                if (strcmp((*v)[i], s) == 0)
                        return 0;
        int r = xpu_strv_push(v, s);
        if (r >= 0)
                (*n)++;
        return r;
}

static void strv_freep(char ***v) {
        xpu_strv_free(*v);
}

/* Push every capability PR names files for (libraries first, then binaries, then files), once
 * each. */
static int push_profile_capabilities(char ***v, size_t *n, const struct xpu_profile *pr) {
        size_t m;
        for (int k = 0; k < 3; k++) {
                const struct xpu_capability_files *cf = xpu_plan_capability_list(pr, k, &m);
                for (size_t i = 0; i < m; i++)
                        if (push_unique(v, n, cf[i].capability) < 0)
                                return -ENOMEM;
        }
        return pr->capability_32bit ? push_unique(v, n, pr->capability_32bit) : 0;
}

/* Capabilities in effect into N: the image's list ENV (comma-separated, "all"), else the profile
 * default. A word the profile has no files for (the toolkit's compat32 on nvidia-cuda, a typo)
 * goes to N->ignored; a list without a word sets N->no_capability. */
static int capabilities_in_effect(struct xpu_plan_needs *n, const struct xpu_profile *pr, const char *env) {
        if (pr->n_libraries == 0 && pr->n_binaries == 0)
                return 0; /* the profile injects no files: capabilities mean nothing to it */
        if (!env || !env[strspn(env, " \t")]) { /* unset, empty or blank: the profile's default */
                for (size_t i = 0; i < pr->n_capabilities; i++)
                        if (push_unique(&n->capabilities, &n->n_capabilities, pr->capabilities[i]) < 0)
                                return -ENOMEM;
                return 0;
        }
        _cleanup_free_ char *copy = strdup(env);
        size_t n_words = 0;
        if (!copy)
                return -ENOMEM;
        char *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                tok = xpu_strstrip(tok);
                if (!*tok)
                        continue;
                n_words++;
                int r = strcmp(tok, "all") == 0 ? push_profile_capabilities(&n->capabilities, &n->n_capabilities, pr)
                        : profile_knows_capability(pr, tok) ? push_unique(&n->capabilities, &n->n_capabilities, tok)
                                                              : push_unique(&n->ignored, &n->n_ignored, tok);
                if (r < 0)
                        return -ENOMEM;
        }
        n->no_capability = n_words == 0;
        return 0;
}

/* Does PR name any library or binary (LISTS 2), or any of those or a file at its own path
 * (LISTS 3), for the capabilities in effect in N? */
static bool profile_names_files(const struct xpu_profile *pr, const struct xpu_plan_needs *n, int lists) {
        size_t m;
        for (size_t c = 0; c < n->n_capabilities; c++)
                for (int k = 0; k < lists; k++) {
                        const struct xpu_capability_files *cf = xpu_plan_capability_list(pr, k, &m);
                        for (size_t i = 0; i < m; i++)
                                if (strcmp(cf[i].capability, n->capabilities[c]) == 0 && cf[i].n_names)
                                        return true;
                }
        return false;
}

void xpu_plan_needs_done(struct xpu_plan_needs *n) {
        n->capabilities = xpu_strv_free(n->capabilities);
        n->ignored = xpu_strv_free(n->ignored);
        n->n_capabilities = n->n_ignored = 0;
}

int xpu_plan_needs(const struct xpu_selection *sel, const struct xpu_profile *pr, const struct xpu_plan_options *o,
                   struct xpu_plan_needs *ret) {
        struct xpu_plan_needs n = {
                .inject = o->inject == XPU_INJECT_AUTO ? (o->can_mount ? XPU_INJECT_MOUNT : XPU_INJECT_LINK)
                                                       : o->inject,
                .capabilities = calloc(1, sizeof(char *)),
                .ignored = calloc(1, sizeof(char *)),
                .void_request = !pr->match_any && sel->request[pr->vendor] == XPU_REQUEST_VOID,
        };
        if (!n.capabilities || !n.ignored || capabilities_in_effect(&n, pr, o->capabilities_env) < 0) {
                xpu_plan_needs_done(&n);
                return -ENOMEM;
        }
        n.names_files = profile_names_files(pr, &n, 3);
        n.names_libraries = profile_names_files(pr, &n, 2);
        n.files = n.n_capabilities > 0 && n.inject != XPU_INJECT_NONE && !n.void_request && n.names_files;
        for (size_t c = 0; n.files && pr->capability_32bit && c < n.n_capabilities; c++)
                n.files32 |= strcmp(n.capabilities[c], pr->capability_32bit) == 0;
        *ret = n;
        return 0;
}

int xpu_plan_capabilities(struct xpu_plan *p, const struct xpu_profile *pr, const struct xpu_plan_needs *n,
                          const char *env, const char *var, char *err, size_t err_size) {
        if (!var)
                var = "NVIDIA_DRIVER_CAPABILITIES";
        if (n->no_capability) { /* ",,," names nothing: never inject nothing silently */
                xpu_format_error(err, err_size,
                                 "%s=\"%s\" names no capability; use a list such as \"utility,compute\", \"all\", "
                                 "or leave it unset",
                                 var, env);
                return -EINVAL;
        }
        for (size_t i = 0; i < n->n_capabilities; i++)
                if (xpu_strv_push(&p->capabilities, n->capabilities[i]) < 0)
                        return -ENOMEM;
        p->n_capabilities = n->n_capabilities;
        if (n->n_ignored == 0)
                return 0;
        _cleanup_(strv_freep) char **known = calloc(1, sizeof(char *));
        size_t n_known = 0;
        if (!known || push_profile_capabilities(&known, &n_known, pr) < 0)
                return -ENOMEM;
        _cleanup_free_ char *ign = xpu_strv_join(n->ignored, ",");
        _cleanup_free_ char *kn = xpu_strv_join(known, ", ");
        _cleanup_free_ char *eff = xpu_strv_join(p->capabilities, ",");
        if (!ign || !kn || !eff)
                return -ENOMEM;
        return xpu_plan_warning(p, "%s: ignoring \"%s\": profile \"%s\" has no driver files for %s (it knows %s, and all); %s%s",
                       var, ign, pr->name, n->n_ignored == 1 ? "it" : "them", kn,
                       p->n_capabilities ? "injecting " : "no driver files are injected", eff) < 0
                       ? -ENOMEM
                       : 0;
}

/* ---- environment placeholders ------------------------------------------------------------- */

/* Append ITEM to the comma list *OUT. Returns 0 or -ENOMEM. */
static int list_append(char **out, const char *item) {
        char *n = NULL;
        if (asprintf(&n, "%s%s%s", *out, **out ? "," : "", item) < 0)
                return -ENOMEM;
        free(*out);
        *out = n;
        return 0;
}

/* Comma list of the selected devices: UUID when it names exactly one device, else the vendor
 * index (partitions of one AMD GPU share a UUID). A device whose MIG devices were selected is
 * listed as those MIG devices: NVML's "MIG-<uuid>", else the form CUDA_VISIBLE_DEVICES also takes,
 * "MIG-<gpu uuid>/<gi>/<ci>" (CUDA programming guide, CUDA_VISIBLE_DEVICES); INDICES_ONLY lists
 * the vendor index of each device once. */
char *xpu_plan_visible_ids(const struct xpu_inventory *inv, const struct xpu_selection *sel, const struct xpu_plan *p,
                           bool indices_only) {
        _cleanup_free_ char *out = strdup("");
        if (!out)
                return NULL;
        for (size_t k = 0; k < p->n_devices; k++) {
                const struct xpu_device *d = &inv->devices[p->devices[k]];
                uint32_t mig = sel->mig[p->devices[k]];
                char item[96];
                size_t same = 0;
                for (size_t j = 0; j < inv->n_devices && d->uuid[0]; j++)
                        same += strcasecmp(inv->devices[j].uuid, d->uuid) == 0;
                size_t n_mig;
                const struct xpu_mig_device *migs = xpu_mig_devices(d, &n_mig);
                for (size_t m = 0; !indices_only && m < n_mig; m++) {
                        if (!(mig & (1u << m)))
                                continue;
                        const struct xpu_mig_device *g = &migs[m];
                        if (g->uuid[0])
                                snprintf(item, sizeof item, "%s", g->uuid);
                        else
                                snprintf(item, sizeof item, "MIG-%s/%u/%u", d->uuid, g->gi, g->ci);
                        if (list_append(&out, item) < 0)
                                return NULL;
                }
                if (mig && !indices_only)
                        continue;
                if (!indices_only && d->uuid[0] && same == 1)
                        snprintf(item, sizeof item, "%s", d->uuid);
                else
                        snprintf(item, sizeof item, "%u", d->vendor_index);
                if (list_append(&out, item) < 0)
                        return NULL;
        }
        return TAKE_PTR(out);
}

/* The profile's environment edits, with the placeholders of profile.h expanded from VALUES. */
int xpu_plan_env_edits(struct xpu_plan *p, const struct xpu_profile *pr, const char *const values[_XPU_PLACEHOLDER_MAX]) {
        for (size_t i = 0; i < pr->n_env; i++) {
                const struct xpu_env_edit *e = &pr->env[i];
                if (e->op == XPU_ENV_UNSET) {
                        xpu_env_unset(p->env, e->name);
                        continue;
                }
                _cleanup_free_ char *v = NULL;
                int r = xpu_env_expand(e->value ? e->value : "", values, &v);
                if (r < 0)
                        return r;
                const char *old = xpu_env_get(p->env, e->name);
                _cleanup_free_ char *joined = NULL;
                if (e->op == XPU_ENV_PREPEND && old && *old) {
                        if (asprintf(&joined, "%s:%s", v, old) < 0)
                                return -ENOMEM;
                } else if (e->op == XPU_ENV_APPEND && old && *old) {
                        if (asprintf(&joined, "%s:%s", old, v) < 0)
                                return -ENOMEM;
                }
                if (xpu_env_set(&p->env, e->name, joined ? joined : v) < 0)
                        return -ENOMEM;
        }
        return 0;
}

