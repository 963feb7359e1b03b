/* json.c - the one reader of JSON text for every input file of sax (configurations, datasets of
 * measured runs, calibration measurements): parses with cJSON and refuses what cJSON accepts but a
 * user cannot have meant. cJSON keeps every member of an object, duplicates included, and its
 * lookups return the first: `{"layers": 96, "layers": 80}` would silently be a 96-layer model, and
 * two baselines of one name would reach the results writer. So a key given twice in any object is
 * an input error, named by its JSON path, before anything else reads the tree. */
#include "config_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *key;
    int pos;
} member_t;

static int by_key_then_pos(const void *a, const void *b)
{
    const member_t *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c != 0 ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* The position of the first member of `obj` whose key an earlier member already has; -1 if none.
 * Sorting keeps large objects (a fuzzer's 100 000 keys) linear-logarithmic. */
static sax_status_t first_repeat(const cJSON *obj, int *repeat)
{
    int n = cJSON_GetArraySize(obj);
    *repeat = -1;
    if (n < 2)
        return SAX_OK;
    member_t *m = malloc((size_t)n * sizeof *m);
    if (m == NULL)
        return SAX_ERR_NOMEM;
    int i = 0;
    for (const cJSON *c = obj->child; c != NULL; c = c->next, i++)
        m[i] = (member_t){c->string != NULL ? c->string : "", i};
    qsort(m, (size_t)n, sizeof *m, by_key_then_pos);
    for (i = 1; i < n; i++)
        if (strcmp(m[i - 1].key, m[i].key) == 0 && (*repeat < 0 || m[i].pos < *repeat))
            *repeat = m[i].pos; /* m[i - 1] is an earlier member with the same key */
    free(m);
    return SAX_OK;
}

/* Depth first, in document order: the first object with a repeated key is reported. */
static sax_status_t check_unique_keys(cf_ctx_t *ctx, const cJSON *item)
{
    if (cJSON_IsObject(item)) {
        int repeat;
        if (first_repeat(item, &repeat) != SAX_OK)
            return sax_error_set(ctx->err, SAX_ERR_NOMEM, "%s: out of memory reading the file", ctx->file);
        if (repeat >= 0) {
            const cJSON *c = cJSON_GetArrayItem(item, repeat);
            cf_push_key(ctx, c->string);
            return cf_fail(ctx,
                           "expected each key once in an object, found it twice (JSON readers disagree on "
                           "which one counts)");
        }
        for (const cJSON *c = item->child; c != NULL; c = c->next) {
            size_t mark = cf_push_key(ctx, c->string != NULL ? c->string : "");
            sax_status_t st = check_unique_keys(ctx, c);
            if (st != SAX_OK)
                return st;
            cf_pop(ctx, mark);
        }
    } else if (cJSON_IsArray(item)) {
        int i = 0;
        for (const cJSON *c = item->child; c != NULL; c = c->next, i++) {
            size_t mark = cf_push_index(ctx, i);
            sax_status_t st = check_unique_keys(ctx, c);
            if (st != SAX_OK)
                return st;
            cf_pop(ctx, mark);
        }
    }
    return SAX_OK;
}

sax_status_t sax_json_parse(const char *text, const char *name, struct cJSON **root, sax_error_t *err)
{
    *root = NULL;
    if (name == NULL)
        name = "<input>";
    if (text == NULL)
        return sax_error_set(err, SAX_ERR_INPUT, "%s: expected JSON text, found nothing", name);
    const char *end = NULL;
    cJSON *tree = cJSON_ParseWithOpts(text, &end, true);
    if (tree == NULL) {
        int line = 1, col = 1;
        for (const char *p = text; end != NULL && p < end && *p != '\0'; p++) {
            if (*p == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        return sax_error_set(err, SAX_ERR_INPUT,
                             "%s:%d:%d: expected valid JSON, found a syntax error near \"%.20s\"", name, line,
                             col, end != NULL ? end : "");
    }
    cf_ctx_t ctx;
    cf_ctx_init(&ctx, name, "", err);
    sax_status_t st = check_unique_keys(&ctx, tree);
    if (st != SAX_OK) {
        cJSON_Delete(tree);
        return st;
    }
    *root = tree;
    return SAX_OK;
}
