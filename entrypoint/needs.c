/* SPDX-License-Identifier: Apache-2.0 */
/* needs: what a start needs, decided before gather (needs.h). Pure: nothing is read. */
#include "base/str.h"
#include "needs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "base/strv.h"
#include "base/dl.h"
#include "require.h"

static const char *const inject_names[_XPU_INJECT_MAX] = {
        [XPU_INJECT_AUTO] = "auto",
        [XPU_INJECT_MOUNT] = "mount",
        [XPU_INJECT_LINK] = "link",
        [XPU_INJECT_NONE] = "none",
};

const char *xpu_inject_mode_to_string(enum xpu_inject_mode m) {
        return (unsigned)m < _XPU_INJECT_MAX ? inject_names[m] : NULL;
}

int xpu_inject_mode_from_string(const char *s) {
        for (int i = 0; s && i < _XPU_INJECT_MAX; i++)
                if (strcmp(s, inject_names[i]) == 0)
                        return i;
        return -EINVAL;
}

static bool profile_knows_capability(const struct xpu_profile *pr, const char *cap) {
        if (pr->capability_32bit && strcmp(pr->capability_32bit, cap) == 0)
                return true;
        size_t n;
        for (int k = 0; k < 3; k++) {
                const struct xpu_capability_files *cf = xpu_profile_capability_list(pr, k, &n);
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
                int r = strcmp(tok, "all") == 0 ? xpu_profile_capabilities_push(&n->capabilities, &n->n_capabilities, pr)
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
                        const struct xpu_capability_files *cf = xpu_profile_capability_list(pr, k, &m);
                        for (size_t i = 0; i < m; i++)
                                if (strcmp(cf[i].capability, n->capabilities[c]) == 0 && cf[i].n_names)
                                        return true;
                }
        return false;
}

int xpu_plan_needs(const struct xpu_selection *sel, const struct xpu_profile *pr, const struct xpu_plan_options *o,
                   struct xpu_plan_needs *ret) {
        struct xpu_plan_needs n = {
                .inject = o->inject == XPU_INJECT_AUTO ? (o->can_mount ? XPU_INJECT_MOUNT : XPU_INJECT_LINK)
                                                       : o->inject,
                .capabilities = calloc(1, sizeof(char *)),
                .ignored = calloc(1, sizeof(char *)),
                .void_request = !pr->match_any && sel->request[pr->vendor] == XPU_REQUEST_VOID,
                /* forward_compat.require's facts: read after gather, only for a newer build */
                .forward_compat_sources = pr->match_any ? 0 : xpu_require_sources(pr->forward_compat_require),
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
        xpu_fabric_needs(pr, o->envp, &n.fabric);
        *ret = n;
        return 0;
}
