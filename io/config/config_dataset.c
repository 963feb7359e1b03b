/* config_dataset.c - datasets of measured runs (`sax validate`): a list of cases, each a full
 * configuration with its measured iteration time. Format: ../shared/validation/README.md. */
#include "config_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const case_keys[] = {"name",     "family",  "source",     "config",
                                        "measured", "derived", "assumptions"};
#define N_CASE_KEYS ((int)(sizeof case_keys / sizeof case_keys[0]))

static bool known(const char *const *keys, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(keys[i], key) == 0)
            return true;
    return false;
}

static sax_status_t parse_case(cf_ctx_t *ctx, const cJSON *c, sax_case_t *out)
{
    char found[96];
    cf_describe(c, found, sizeof found);
    if (!cJSON_IsObject(c))
        return cf_fail(ctx, "expected an object with name, config and measured, found %s", found);
    for (const cJSON *m = c->child; m != NULL; m = m->next)
        if (!known(case_keys, N_CASE_KEYS, m->string)) {
            cf_push_key(ctx, m->string);
            return cf_fail(ctx,
                           "unknown key; expected one of: name, family, source, config, measured, derived, "
                           "assumptions");
        }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
    size_t mark = cf_push_key(ctx, "name");
    cf_describe(name, found, sizeof found);
    if (!cJSON_IsString(name) || name->valuestring[0] == '\0' ||
        strlen(name->valuestring) >= sizeof out->name)
        return cf_fail(ctx, "expected a name of 1 to %zu characters, found %s", sizeof out->name - 1, found);
    snprintf(out->name, sizeof out->name, "%s", name->valuestring);
    cf_pop(ctx, mark);
    const cJSON *family = cJSON_GetObjectItemCaseSensitive(c, "family");
    mark = cf_push_key(ctx, "family");
    cf_describe(family, found, sizeof found);
    if (family != NULL && (!cJSON_IsString(family) || family->valuestring[0] == '\0' ||
                           strlen(family->valuestring) >= sizeof out->family))
        return cf_fail(ctx, "expected a family name of 1 to %zu characters, found %s", sizeof out->family - 1,
                       found);
    snprintf(out->family, sizeof out->family, "%s", family != NULL ? family->valuestring : "");
    cf_pop(ctx, mark);

    const cJSON *measured = cJSON_GetObjectItemCaseSensitive(c, "measured");
    mark = cf_push_key(ctx, "measured");
    cf_describe(measured, found, sizeof found);
    if (!cJSON_IsObject(measured))
        return cf_fail(ctx, "expected an object {\"iteration_time_s\": seconds}, found %s", found);
    for (const cJSON *m = measured->child; m != NULL; m = m->next)
        if (strcmp(m->string, "iteration_time_s") != 0) {
            cf_push_key(ctx, m->string);
            return cf_fail(ctx, "unknown key; expected iteration_time_s");
        }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(measured, "iteration_time_s");
    cf_push_key(ctx, "iteration_time_s");
    cf_describe(t, found, sizeof found);
    if (!cJSON_IsNumber(t) || !(t->valuedouble > 0) || !(t->valuedouble < 1e300))
        return cf_fail(ctx, "expected a time in seconds > 0, found %s", found);
    out->measured_s = t->valuedouble;
    cf_pop(ctx, mark);

    const cJSON *config = cJSON_GetObjectItemCaseSensitive(c, "config");
    mark = cf_push_key(ctx, "config");
    if (config == NULL)
        return cf_fail(ctx, "missing required key (expected a full sax configuration)");
    sax_status_t st = sax_config_from_json(config, ctx->file, ctx->path, &out->config, ctx->err);
    cf_pop(ctx, mark);
    return st;
}

void sax_dataset_free(sax_case_t *cases, int n)
{
    for (int i = 0; cases != NULL && i < n; i++)
        sax_config_fini(&cases[i].config);
    free(cases);
}

sax_status_t sax_dataset_load(const char *path, sax_case_t **cases, int *n, sax_error_t *err)
{
    *cases = NULL;
    *n = 0;
    char *text;
    sax_status_t st = sax_read_text_file(path, "the dataset", &text, err);
    if (st != SAX_OK)
        return st;
    cJSON *root;
    st = sax_json_parse(text, path, &root, err);
    if (st != SAX_OK) {
        free(text);
        return st;
    }
    free(text);
    cf_ctx_t ctx;
    cf_ctx_init(&ctx, path, "", err);
    sax_case_t *out = NULL;
    int count = 0;
    char found[96];
    if (!cJSON_IsObject(root)) {
        cf_describe(root, found, sizeof found);
        st = cf_fail(&ctx, "expected an object {\"note\": ..., \"cases\": [...]}, found %s", found);
        goto done;
    }
    for (const cJSON *m = root->child; m != NULL; m = m->next)
        if (strcmp(m->string, "note") != 0 && strcmp(m->string, "cases") != 0) {
            cf_push_key(&ctx, m->string);
            st = cf_fail(&ctx, "unknown key; expected note or cases");
            goto done;
        }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "cases");
    cf_push_key(&ctx, "cases");
    cf_describe(list, found, sizeof found);
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0) {
        st = cf_fail(&ctx, "expected a non-empty list of cases, found %s", found);
        goto done;
    }
    int total = cJSON_GetArraySize(list);
    out = calloc((size_t)total, sizeof *out);
    if (out == NULL) {
        st = sax_error_set(err, SAX_ERR_NOMEM, "%s: out of memory for %d cases", path, total);
        goto done;
    }
    for (const cJSON *c = list->child; c != NULL; c = c->next) {
        size_t mark = cf_push_index(&ctx, count);
        if ((st = parse_case(&ctx, c, &out[count])) != SAX_OK)
            goto done;
        for (int j = 0; j < count; j++)
            if (strcmp(out[j].name, out[count].name) == 0) {
                cf_push_key(&ctx, "name");
                st = cf_fail(&ctx, "expected a unique case name, found \"%s\" again (cases[%d])",
                             out[count].name, j);
                count++;
                goto done;
            }
        count++;
        cf_pop(&ctx, mark);
    }
done:
    cJSON_Delete(root);
    if (st != SAX_OK) {
        sax_dataset_free(out, count);
        return st;
    }
    *cases = out;
    *n = count;
    return SAX_OK;
}
