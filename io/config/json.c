/* json.c - the one reader of JSON text for every input file of sax (configurations, datasets of
 * measured runs, calibration measurements): parses with cJSON and refuses what cJSON accepts but a
 * user cannot have meant. cJSON keeps every member of an object, duplicates included, and its
 * lookups return the first: `{"layers": 96, "layers": 80}` would silently be a 96-layer model, and
 * two baselines of one name would reach the results writer. So a key given twice in any object is
 * an input error, named by its JSON path, before anything else reads the tree.
 * cJSON is also lenient with the text itself: it reads `0096` as 96, `96.` as 96, `"1 ms\u0000x"` as
 * "1 ms" and 9007199254740993 as 9007199254740992. A second pass over the text (check_tokens)
 * refuses those, with the line and column. */
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

/* Line and column (from 1) of `at` in `text`. */
static void line_col(const char *text, const char *at, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (const char *p = text; p < at && *p != '\0'; p++) {
        if (*p == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

#define SAX_JSON_MAX_EXACT_INT "9007199254740992" /* 2^53: every integer up to it is a double */

/* Numbers as RFC 8259 writes them: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?; *len = its length
 * (0: not a number); *is_int: without fraction or exponent; *digits: integer digits. */
static bool strict_number(const char *p, size_t *len, bool *is_int, size_t *digits)
{
    const char *q = p;
    if (*q == '-')
        q++;
    const char *first = q;
    if (*q == '0')
        q++;
    else if (*q >= '1' && *q <= '9')
        while (*q >= '0' && *q <= '9')
            q++;
    else
        return false;
    *digits = (size_t)(q - first);
    *is_int = true;
    if (*q == '.') {
        *is_int = false;
        if (!(*++q >= '0' && *q <= '9'))
            return false;
        while (*q >= '0' && *q <= '9')
            q++;
    }
    if (*q == 'e' || *q == 'E') {
        *is_int = false;
        q++;
        if (*q == '+' || *q == '-')
            q++;
        if (!(*q >= '0' && *q <= '9'))
            return false;
        while (*q >= '0' && *q <= '9')
            q++;
    }
    *len = (size_t)(q - p);
    return true;
}

/* Over the text cJSON accepted: every number strict (no leading zeros, no bare '.'), every integer
 * within 2^53 (a double holds it exactly: 9007199254740993 would silently be ...992), and no string
 * with an escaped NUL (a C string ends there, so "1 ms\u0000garbage" would be "1 ms"). */
static sax_status_t check_tokens(const char *text, const char *name, sax_error_t *err)
{
    for (const char *p = text; *p != '\0';) {
        if (*p == '"') {
            for (p++; *p != '\0' && *p != '"'; p++) {
                if (*p != '\\')
                    continue;
                if (p[1] == 'u' && strncmp(p + 2, "0000", 4) == 0) {
                    int line, col;
                    line_col(text, p, &line, &col);
                    return sax_error_set(err, SAX_ERR_INPUT,
                                         "%s:%d:%d: expected a string without NUL characters, found \\u0000",
                                         name, line, col);
                }
                if (p[1] != '\0')
                    p++; /* the escaped character, a quote included */
            }
            if (*p == '"')
                p++;
        } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
            size_t len = 0, digits = 0;
            bool is_int = false;
            const char *num = p;
            bool ok = strict_number(p, &len, &is_int, &digits);
            size_t span = strspn(p, "+-.0123456789eE");
            int line, col;
            line_col(text, num, &line, &col);
            if (!ok || len != span)
                return sax_error_set(err, SAX_ERR_INPUT,
                                     "%s:%d:%d: expected a JSON number (no leading zeros, digits after a "
                                     "'.'), found %.*s",
                                     name, line, col, (int)(span < 40 ? span : 40), num);
            const char *d = num + (*num == '-');
            size_t n = sizeof SAX_JSON_MAX_EXACT_INT - 1;
            if (is_int && (digits > n || (digits == n && strncmp(d, SAX_JSON_MAX_EXACT_INT, n) > 0)))
                return sax_error_set(err, SAX_ERR_INPUT,
                                     "%s:%d:%d: expected an integer of magnitude at most 2^53 = %s (a double "
                                     "holds those exactly), found %.*s",
                                     name, line, col, SAX_JSON_MAX_EXACT_INT, (int)(len < 40 ? len : 40),
                                     num);
            p += len;
        } else {
            p++;
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
        int line, col;
        line_col(text, end != NULL ? end : text, &line, &col);
        return sax_error_set(err, SAX_ERR_INPUT,
                             "%s:%d:%d: expected valid JSON, found a syntax error near \"%.20s\"", name, line,
                             col, end != NULL ? end : "");
    }
    sax_status_t st = check_tokens(text, name, err);
    if (st != SAX_OK) {
        cJSON_Delete(tree);
        return st;
    }
    cf_ctx_t ctx;
    cf_ctx_init(&ctx, name, "", err);
    st = check_unique_keys(&ctx, tree);
    if (st != SAX_OK) {
        cJSON_Delete(tree);
        return st;
    }
    *root = tree;
    return SAX_OK;
}
