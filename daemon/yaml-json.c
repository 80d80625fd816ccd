/* SPDX-License-Identifier: Apache-2.0 */
/* A bounded YAML → cJSON converter (yaml-json.h). */
#include "yaml-json.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/log.h"
#include "base/macro.h"

/* One open collection: the item, and for a mapping the key read but not yet given a value. */
struct frame {
        cJSON *node;
        char *key;
};

struct conv {
        const struct xpud_yaml_limits *lim;
        struct frame *stack;
        size_t depth;
        size_t nodes;
        cJSON *root;
        char *err;
        size_t err_size;
};

static bool is_null_word(const char *v) {
        return !*v || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 || strcmp(v, "Null") == 0 ||
               strcmp(v, "NULL") == 0;
}

/* 1 for true, 0 for false, -1 for neither (YAML 1.2's core schema: no yes/no/on/off). */
static int bool_word(const char *v) {
        if (strcmp(v, "true") == 0 || strcmp(v, "True") == 0 || strcmp(v, "TRUE") == 0)
                return 1;
        if (strcmp(v, "false") == 0 || strcmp(v, "False") == 0 || strcmp(v, "FALSE") == 0)
                return 0;
        return -1;
}

/* A decimal integer or float ([-+]digits[.digits][e[-+]digits], or .digits): no hex, inf or nan. */
static bool number_word(const char *v, double *ret) {
        const char *p = v;
        bool digits = false;
        if (*p == '+' || *p == '-')
                p++;
        for (; *p >= '0' && *p <= '9'; p++)
                digits = true;
        if (*p == '.')
                for (p++; *p >= '0' && *p <= '9'; p++)
                        digits = true;
        if (!digits)
                return false;
        if (*p == 'e' || *p == 'E') {
                p++;
                if (*p == '+' || *p == '-')
                        p++;
                if (!(*p >= '0' && *p <= '9'))
                        return false;
                while (*p >= '0' && *p <= '9')
                        p++;
        }
        if (*p)
                return false;
        char *end;
        errno = 0;
        *ret = strtod(v, &end);
        return !*end && errno == 0;
}

/* The item for scalar V: a string unless it is plain (and not tagged !!str) and reads as null, a
 * boolean or a number, which keep V in valuestring. NULL when out of memory. */
static cJSON *scalar_item(const char *v, bool plain, const char *tag) {
        if (!plain || (tag && strcmp(tag, YAML_STR_TAG) == 0))
                return cJSON_CreateString(v);
        cJSON *item;
        double d;
        int b;
        if (is_null_word(v))
                item = cJSON_CreateNull();
        else if ((b = bool_word(v)) >= 0)
                item = cJSON_CreateBool(b);
        else if (number_word(v, &d))
                item = cJSON_CreateNumber(d);
        else
                return cJSON_CreateString(v);
        if (item && !(item->valuestring = strdup(v))) {
                cJSON_Delete(item);
                return NULL;
        }
        return item;
}

const char *xpud_yaml_text(const cJSON *item) {
        if (!item || cJSON_IsArray(item) || cJSON_IsObject(item) || cJSON_IsRaw(item))
                return NULL;
        return item->valuestring;
}

static int fail(struct conv *c, int r, const yaml_mark_t *m, const char *what) {
        xpu_format_error(c->err, c->err_size, "line %zu, column %zu: %s", m->line + 1, m->column + 1, what);
        return r;
}

/* Hang ITEM (owned) into the open collection, or make it the root. */
static int add(struct conv *c, cJSON *item, const yaml_mark_t *m) {
        if (!item)
                return -ENOMEM;
        if (++c->nodes > c->lim->nodes_max) {
                cJSON_Delete(item);
                char what[96];
                xpu_format_error(what, sizeof what, "more than %zu values", c->lim->nodes_max);
                return fail(c, -E2BIG, m, what);
        }
        if (c->depth == 0) {
                c->root = item;
                return 0;
        }
        struct frame *f = &c->stack[c->depth - 1];
        if (cJSON_IsArray(f->node)) {
                cJSON_AddItemToArray(f->node, item);
                return 0;
        }
        _cleanup_free_ char *key = TAKE_PTR(f->key);
        if (!cJSON_AddItemToObject(f->node, key, item)) {
                cJSON_Delete(item);
                return -ENOMEM;
        }
        return 0;
}

/* A scalar: a mapping's key when one is due, else a value. */
static int on_scalar(struct conv *c, const yaml_event_t *ev) {
        const char *v = (const char *)ev->data.scalar.value;
        if (memchr(v, '\0', ev->data.scalar.length))
                return fail(c, -EINVAL, &ev->start_mark, "a NUL character in a scalar");
        bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        struct frame *f = c->depth ? &c->stack[c->depth - 1] : NULL;
        if (f && cJSON_IsObject(f->node) && !f->key) {
                if (plain && strcmp(v, "<<") == 0)
                        return fail(c, -EINVAL, &ev->start_mark, "a merge key (<<): write the mapping out in full");
                f->key = strdup(v);
                return f->key ? 0 : -ENOMEM;
        }
        return add(c, scalar_item(v, plain, (const char *)ev->data.scalar.tag), &ev->start_mark);
}

static int on_start(struct conv *c, const yaml_event_t *ev, bool mapping) {
        struct frame *f = c->depth ? &c->stack[c->depth - 1] : NULL;
        if (f && cJSON_IsObject(f->node) && !f->key)
                return fail(c, -EINVAL, &ev->start_mark, "a mapping or sequence used as a key");
        if (c->depth >= c->lim->depth_max) {
                char what[96];
                xpu_format_error(what, sizeof what, "more than %zu nested mappings and sequences", c->lim->depth_max);
                return fail(c, -E2BIG, &ev->start_mark, what);
        }
        cJSON *item = mapping ? cJSON_CreateObject() : cJSON_CreateArray();
        int r = add(c, item, &ev->start_mark);
        if (r < 0)
                return r;
        c->stack[c->depth++] = (struct frame){ .node = item };
        return 0;
}

static int key_cmp(const void *a, const void *b) {
        return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* A key twice in one mapping: YAML forbids it and the CDI library's strict reader refuses the file,
 * while cJSON would quietly answer the first. Sorted, so a wide mapping costs n log n. */
static int check_keys(struct conv *c, const cJSON *map, const yaml_mark_t *m) {
        size_t n = 0;
        for (const cJSON *it = map->child; it; it = it->next)
                n++;
        if (n < 2)
                return 0;
        const cJSON **v = calloc(n, sizeof *v);
        if (!v)
                return -ENOMEM;
        n = 0;
        for (const cJSON *it = map->child; it; it = it->next)
                v[n++] = it;
        qsort(v, n, sizeof *v, key_cmp);
        int r = 0;
        for (size_t i = 1; i < n && r == 0; i++)
                if (strcmp(v[i - 1]->string, v[i]->string) == 0) {
                        char what[160];
                        xpu_format_error(what, sizeof what, "the key \"%.64s\" twice in one mapping ending here",
                                         v[i]->string);
                        r = fail(c, -EINVAL, m, what);
                }
        free(v);
        return r;
}

/* One event; 1 at the end of the stream. */
static int on_event(struct conv *c, const yaml_event_t *ev, unsigned *docs) {
        switch (ev->type) {
        case YAML_DOCUMENT_START_EVENT:
                if (++*docs > 1)
                        return fail(c, -EINVAL, &ev->start_mark,
                                    "a second YAML document (---): a CDI spec is one document, one file each");
                return 0;
        case YAML_STREAM_END_EVENT:
                return 1;
        case YAML_ALIAS_EVENT:
                return fail(c, -EINVAL, &ev->start_mark, "an alias (*name): write the value out in full");
        case YAML_SCALAR_EVENT:
                return on_scalar(c, ev);
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
                return on_start(c, ev, ev->type == YAML_MAPPING_START_EVENT);
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
                if (c->depth > 0 && ev->type == YAML_MAPPING_END_EVENT) {
                        int r = check_keys(c, c->stack[c->depth - 1].node, &ev->start_mark);
                        if (r < 0)
                                return r;
                }
                if (c->depth > 0) {
                        c->depth--;
                        free(c->stack[c->depth].key);
                        c->stack[c->depth].key = NULL;
                }
                return 0;
        case YAML_NO_EVENT:
        case YAML_STREAM_START_EVENT:
        case YAML_DOCUMENT_END_EVENT:
        default:
                return 0;
        }
}

int xpud_yaml_to_json(const char *text, size_t len, const struct xpud_yaml_limits *limits, cJSON **ret, char *err,
                      size_t err_size) {
        struct conv c = { .lim = limits, .err = err, .err_size = err_size };
        yaml_parser_t p;
        if (!limits->depth_max || !(c.stack = calloc(limits->depth_max, sizeof *c.stack)))
                return -ENOMEM;
        if (!yaml_parser_initialize(&p)) {
                free(c.stack);
                return -ENOMEM;
        }
        yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
        unsigned docs = 0;
        int r = 0;
        while (r == 0) {
                yaml_event_t ev;
                if (!yaml_parser_parse(&p, &ev)) {
                        if (p.error == YAML_MEMORY_ERROR) {
                                r = -ENOMEM;
                                break;
                        }
                        char what[256];
                        xpu_format_error(what, sizeof what, "%s%s%s", p.problem ? p.problem : "not YAML",
                                         p.context ? " " : "", p.context ? p.context : "");
                        r = fail(&c, -EINVAL, &p.problem_mark, what);
                        break;
                }
                r = on_event(&c, &ev, &docs);
                yaml_event_delete(&ev);
        }
        yaml_parser_delete(&p);
        for (size_t i = 0; i < c.depth; i++)
                free(c.stack[i].key);
        free(c.stack);
        if (r >= 0 && !c.root) {
                xpu_format_error(err, err_size, "no YAML document (the file is empty)");
                r = -EINVAL;
        }
        if (r < 0) {
                cJSON_Delete(c.root);
                return r;
        }
        *ret = c.root;
        return 0;
}
