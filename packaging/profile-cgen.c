/* SPDX-License-Identifier: Apache-2.0 */
/* Build-time compiler of the built-in profiles: parses each JSON file of profiles/ with xpuinit's own
 * parser (so a bad built-in fails the build, with the parser's message) and prints C source that
 * defines them as static data, xpu_builtin_profiles[], their requirement expressions already
 * parsed (struct xpu_require, require-parse.h). xpuinit then starts without parsing JSON or
 * requirements for its built-ins (nothing on the start-up path a GPU-less host does not need).
 *   profile-cgen FILE.json... > builtin-profiles.c */
#include <errno.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "require-parse.h"

static const char *const env_ops[] = {
        [XPU_ENV_SET] = "XPU_ENV_SET",
        [XPU_ENV_PREPEND] = "XPU_ENV_PREPEND",
        [XPU_ENV_APPEND] = "XPU_ENV_APPEND",
        [XPU_ENV_UNSET] = "XPU_ENV_UNSET",
};

static const char *const command_modes[] = {
        [XPU_COMMAND_KEEP] = "XPU_COMMAND_KEEP",
        [XPU_COMMAND_REPLACE] = "XPU_COMMAND_REPLACE",
        [XPU_COMMAND_PREFIX] = "XPU_COMMAND_PREFIX",
};

/* "XPU_VENDOR_NVIDIA": the enum constant of V, spelled from the vendor's name. */
static void print_vendor(enum xpu_vendor v) {
        printf("        .vendor = XPU_VENDOR_");
        for (const char *c = xpu_vendor_to_string(v); *c; c++)
                putchar(toupper((unsigned char)*c));
        printf(",\n");
}

/* A C string literal of S. Octal escapes for anything but plain printable ASCII, so no hex escape
 * can swallow a following digit. */
static void literal(const char *s) {
        putchar('"');
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
                if (*p == '"' || *p == '\\')
                        printf("\\%c", *p);
                else if (*p >= 0x20 && *p < 0x7f && *p != '?') /* '?' would start trigraphs */
                        putchar(*p);
                else
                        printf("\\%03o", *p);
        }
        putchar('"');
}

/* A writable static string: (char[]){"..."}; NULL stays NULL. */
static void str(const char *s) {
        if (!s) {
                fputs("NULL", stdout);
                return;
        }
        fputs("(char[]){", stdout);
        literal(s);
        fputs("}", stdout);
}

/* A parsed requirement expression as a static compound literal, &(struct xpu_require){...}, its
 * factors and terms as the parser left them; NULL stays NULL. */
static void require(const struct xpu_require *r) {
        if (!r) {
                fputs("NULL", stdout);
                return;
        }
        fputs("&(struct xpu_require){\n                .factors = ", stdout);
        if (r->n_factors == 0)
                fputs("NULL", stdout);
        else
                fputs("(struct factor[]){\n", stdout);
        for (size_t i = 0; i < r->n_factors; i++) {
                const struct factor *f = &r->factors[i];
                fputs("                        { .key = KEY_", stdout);
                for (const char *c = xpu_require_keys[f->key].name; *c; c++)
                        putchar(toupper((unsigned char)*c));
                printf(", .op = (enum op)%d, .value = ", (int)f->op);
                literal(f->value);
                printf(", .bytes = %" PRIu64 "u, .text = ", f->bytes);
                literal(f->text);
                fputs(" },\n", stdout);
        }
        if (r->n_factors)
                fputs("                }", stdout);
        printf(",\n                .n_factors = %zu,\n                .cap_factors = %zu,\n                .terms = {",
               r->n_factors, r->n_factors);
        for (size_t t = 0; t < r->n_terms; t++)
                printf(" { .first = %zu, .n = %zu },", r->terms[t].first, r->terms[t].n);
        printf(" },\n                .n_terms = %zu,\n                .text = ", r->n_terms);
        str(r->text);
        fputs(",\n        }", stdout);
}

/* (char *[]){ "a", "b", NULL } */
static void strv(char *const *v, size_t n) {
        if (!v) {
                fputs("NULL", stdout);
                return;
        }
        fputs("(char *[]){ ", stdout);
        for (size_t i = 0; i < n; i++) {
                str(v[i]);
                fputs(", ", stdout);
        }
        fputs("NULL }", stdout);
}

static void capfiles(const struct xpu_capability_files *c, size_t n) {
        if (n == 0) {
                fputs("NULL", stdout);
                return;
        }
        fputs("(struct xpu_capability_files[]){\n", stdout);
        for (size_t i = 0; i < n; i++) {
                fputs("                { .capability = ", stdout);
                str(c[i].capability);
                fputs(", .names = ", stdout);
                strv(c[i].names, c[i].n_names);
                printf(", .n_names = %zu },\n", c[i].n_names);
        }
        fputs("        }", stdout);
}

static void env(const struct xpu_env_edit *e, size_t n) {
        if (n == 0) {
                fputs("NULL", stdout);
                return;
        }
        fputs("(struct xpu_env_edit[]){\n", stdout);
        for (size_t i = 0; i < n; i++) {
                printf("                { .op = %s, .name = ", env_ops[e[i].op]);
                str(e[i].name);
                fputs(", .value = ", stdout);
                str(e[i].value);
                fputs(" },\n", stdout);
        }
        fputs("        }", stdout);
}

static char *read_all(const char *path) {
        FILE *f = fopen(path, "re");
        if (!f)
                return NULL;
        size_t cap = 1 << 16, len = 0;
        char *buf = malloc(cap);
        while (buf) {
                size_t k = fread(buf + len, 1, cap - len - 1, f);
                len += k;
                if (k == 0)
                        break;
                if (len + 1 == cap) {
                        char *n = realloc(buf, cap *= 2);
                        if (!n) {
                                free(buf);
                                buf = NULL;
                        } else
                                buf = n;
                }
        }
        fclose(f);
        if (buf)
                buf[len] = '\0';
        return buf;
}

int main(int argc, char **argv) {
        puts("/* Generated by packaging/profile-cgen from the JSON files in profiles/; do not edit. */\n"
             "#include <stddef.h>\n\n#include \"builtin-profiles.h\"\n#include \"require-parse.h\"\n");
        for (int i = 1; i < argc; i++) {
                char *text = read_all(argv[i]);
                if (!text) {
                        fprintf(stderr, "profile-cgen: %s: %s\n", argv[i], strerror(errno));
                        return 1;
                }
                const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
                char origin[512], err[1024] = "";
                snprintf(origin, sizeof origin, "built-in %s", base);
                struct xpu_profile *p = NULL;
                if (xpu_profile_parse(text, origin, &p, err, sizeof err) < 0) {
                        fprintf(stderr, "profile-cgen: %s\n", err[0] ? err : "parse failed");
                        return 1;
                }
                printf("static struct xpu_profile builtin_%d = {\n        .name = ", i);
                str(p->name);
                fputs(",\n        .description = ", stdout);
                str(p->description);
                fputs(",\n        .origin = ", stdout);
                str(p->origin);
                printf(",\n        .builtin = true,\n        .priority = %d,\n        .match_any = %s,\n", p->priority,
                       p->match_any ? "true" : "false");
                if (!p->match_any)
                        print_vendor(p->vendor);
                printf("        .min_devices = %u,\n        .require = ", p->min_devices);
                require(p->require);
                fputs(",\n        .capabilities = ", stdout);
                strv(p->capabilities, p->n_capabilities);
                printf(",\n        .n_capabilities = %zu,\n        .libraries = ", p->n_capabilities);
                capfiles(p->libraries, p->n_libraries);
                printf(",\n        .n_libraries = %zu,\n        .binaries = ", p->n_libraries);
                capfiles(p->binaries, p->n_binaries);
                printf(",\n        .n_binaries = %zu,\n        .files = ", p->n_binaries);
                capfiles(p->files, p->n_files);
                printf(",\n        .n_files = %zu,\n        .library_links = ", p->n_files);
                strv(p->library_links, 2 * p->n_library_links);
                printf(",\n        .n_library_links = %zu,\n        .device_nodes = ", p->n_library_links);
                strv(p->device_nodes, p->n_device_nodes);
                printf(",\n        .n_device_nodes = %zu,\n        .fabric = ", p->n_device_nodes);
                strv(p->fabric, p->n_fabric);
                printf(",\n        .n_fabric = %zu,\n        .env = ", p->n_fabric);
                env(p->env, p->n_env);
                printf(",\n        .n_env = %zu,\n        .command_mode = %s,\n        .command = ", p->n_env,
                       command_modes[p->command_mode]);
                strv(p->command, p->n_command);
                printf(",\n        .n_command = %zu,\n        .keep_capabilities = ", p->n_command);
                strv(p->keep_capabilities, p->n_keep_capabilities);
                printf(",\n        .n_keep_capabilities = %zu,\n        .keep_capabilities_set = %s,\n        .seccomp = ",
                       p->n_keep_capabilities, p->keep_capabilities_set ? "true" : "false");
                str(p->seccomp);
                printf(",\n        .device_code = %d,\n        .device_code_set = %s,\n        .forward_compat_dir = ",
                       (int)p->device_code, p->device_code_set ? "true" : "false");
                str(p->forward_compat_dir);
                fputs(",\n        .forward_compat_library = ", stdout);
                str(p->forward_compat_library);
                fputs(",\n        .forward_compat_require = ", stdout);
                require(p->forward_compat_require);
                fputs(",\n        .capability_32bit = ", stdout);
                str(p->capability_32bit);
                puts(",\n};\n");
                xpu_profile_free(p);
                free(text);
        }
        puts("struct xpu_profile *const xpu_builtin_profiles[] = {");
        for (int i = 1; i < argc; i++)
                printf("        &builtin_%d,\n", i);
        puts("        NULL,\n};");
        return 0;
}
