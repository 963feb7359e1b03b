/* fields.c - the engine behind the configuration field tables: parse, check, emit and document
 * one section of keys from its table (config_internal.h describes a row). */
#include "config_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- table look-ups ------------------------------------------------------------------------ */

const cf_field_t *cf_find(const cf_section_t *sec, const char *key)
{
    for (int i = 0; i < sec->n_fields; i++)
        if (strcmp(sec->fields[i].key, key) == 0)
            return &sec->fields[i];
    return NULL;
}

/* Edit distance of two short keys (for "did you mean"), capped at 9. */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 9;
    int row[41];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb] > 9 ? 9 : row[lb];
}

static void list_keys(const cf_section_t *sec, const char *extra, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < sec->n_fields && used < n; i++) {
        snprintf(buf + used, n - used, "%s%s", i > 0 ? ", " : "", sec->fields[i].key);
        used = strlen(buf);
    }
    if (extra != NULL && used < n)
        snprintf(buf + used, n - used, ", %s", extra);
}

static void list_names(const char *const *names, int count, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && used < n; i++) {
        snprintf(buf + used, n - used, "%s\"%s\"", i > 0 ? ", " : "", names[i]);
        used = strlen(buf);
    }
}

/* ---- reading and writing fields -------------------------------------------------------------- */

static void *at(void *base, const cf_field_t *f) { return (char *)base + f->offset; }
static const void *at_c(const void *base, const cf_field_t *f) { return (const char *)base + f->offset; }

double cf_get_number(const cf_field_t *f, const void *base)
{
    switch (f->type) {
    case CF_INT:
    case CF_DEGREE:
    case CF_ENUM: {
        int v;
        memcpy(&v, at_c(base, f), sizeof v);
        return v;
    }
    case CF_INT64: {
        int64_t v;
        memcpy(&v, at_c(base, f), sizeof v);
        return (double)v;
    }
    case CF_QUANTITY: {
        double v;
        memcpy(&v, at_c(base, f), sizeof v);
        return v;
    }
    case CF_BOOL: {
        bool v;
        memcpy(&v, at_c(base, f), sizeof v);
        return v ? 1.0 : 0.0;
    }
    default: return 0.0;
    }
}

void cf_set_number(const cf_field_t *f, void *base, double v)
{
    switch (f->type) {
    case CF_INT:
    case CF_DEGREE:
    case CF_ENUM: {
        int i = (int)v;
        memcpy(at(base, f), &i, sizeof i);
        break;
    }
    case CF_INT64: {
        int64_t i = (int64_t)v;
        memcpy(at(base, f), &i, sizeof i);
        break;
    }
    case CF_QUANTITY: memcpy(at(base, f), &v, sizeof v); break;
    case CF_BOOL: {
        bool b = v != 0.0;
        memcpy(at(base, f), &b, sizeof b);
        break;
    }
    default: break;
    }
}

static bool is_integer_type(const cf_field_t *f) { return f->type == CF_INT || f->type == CF_INT64; }

static void format_bound(const cf_field_t *f, double v, char *buf, size_t n)
{
    if (is_integer_type(f) || f->type == CF_DEGREE)
        snprintf(buf, n, "%.0f", v);
    else
        sax_units_format(v, f->unit, buf, n);
}

/* The smallest nonzero value a quantity of each kind may take (docs/reliability.md, "Bad input"):
 * 5e-324 passes a "> 0" check, yet a time divided by it is infinite. Bytes, bandwidths and compute
 * rates divide; below one byte, one bit/s or one FLOP/s a value is no physical quantity, so any
 * nonzero value below those is refused (0 stays allowed where the key allows it). Times, lengths and
 * plain numbers get a floor only where the key must be > 0 (an efficiency: one part per million). */
static double kind_floor(const cf_field_t *f)
{
    if (f->type != CF_QUANTITY)
        return 0;
    bool positive = f->min == 0 && f->min_open;
    switch (f->unit) {
    case SAX_UNIT_BYTES: return 1.0;                  /* one byte */
    case SAX_UNIT_BANDWIDTH: return 0.125;            /* one bit/s */
    case SAX_UNIT_FLOPS: return 1.0;                  /* one FLOP/s */
    case SAX_UNIT_TIME: return positive ? 1e-12 : 0;  /* one picosecond */
    case SAX_UNIT_LENGTH: return positive ? 1e-3 : 0; /* one millimetre */
    case SAX_UNIT_NONE: return positive ? 1e-6 : 0;   /* one part per million */
    default: return 0;
    }
}

/* "an integer >= 1", "a bandwidth >= 1 bit/s (e.g. \"400 Gbit/s\")", "a number in [0, 1)" */
static void describe_expected(const cf_field_t *f, char *buf, size_t n)
{
    bool has_unit = f->type == CF_QUANTITY && f->unit != SAX_UNIT_NONE;
    char what[48];
    if (is_integer_type(f))
        snprintf(what, sizeof what, "an integer");
    else if (has_unit)
        snprintf(what, sizeof what, "a %s", sax_unit_kind_name(f->unit));
    else
        snprintf(what, sizeof what, "a number");
    char range[112] = "", lo[48], hi[48];
    double min = f->min, floor_v = kind_floor(f);
    bool min_open = f->min_open;
    const char *zero_or = "";
    if (floor_v > 0 && min == 0) { /* "> 0" becomes ">= floor"; ">= 0" becomes "0 or >= floor" */
        zero_or = min_open ? "" : " 0 or";
        min = floor_v;
        min_open = false;
    }
    format_bound(f, min, lo, sizeof lo);
    if (f->type == CF_QUANTITY && f->unit == SAX_UNIT_BANDWIDTH && min == kind_floor(f))
        snprintf(lo, sizeof lo, "1 bit/s");
    format_bound(f, f->max, hi, sizeof hi);
    bool has_lo = isfinite(min), has_hi = isfinite(f->max);
    if (has_lo && has_hi)
        snprintf(range, sizeof range, "%s in %s%s, %s%s", zero_or, min_open ? "(" : "[", lo, hi,
                 f->max_open ? ")" : "]");
    else if (has_lo)
        snprintf(range, sizeof range, "%s %s %s", zero_or, min_open ? ">" : ">=", lo);
    else if (has_hi)
        snprintf(range, sizeof range, " %s %s", f->max_open ? "<" : "<=", hi);
    if (has_unit)
        snprintf(buf, n, "%s%s (e.g. %s)", what, range, sax_unit_kind_example(f->unit));
    else
        snprintf(buf, n, "%s%s", what, range);
}

bool cf_check_range(const cf_field_t *f, double v, char *why, size_t n)
{
    bool ok = isfinite(v);
    if (ok && isfinite(f->min))
        ok = f->min_open ? v > f->min : v >= f->min;
    if (ok && isfinite(f->max))
        ok = f->max_open ? v < f->max : v <= f->max;
    if (ok && is_integer_type(f))
        ok = v == floor(v);
    if (ok && v != 0 && fabs(v) < kind_floor(f))
        ok = false;
    if (!ok)
        describe_expected(f, why, n);
    return ok;
}

static sax_status_t parse_number(cf_ctx_t *ctx, const cf_field_t *f, const cJSON *item, void *base)
{
    char found[96], expected[160];
    cf_describe(item, found, sizeof found);
    double v;
    if (cJSON_IsNumber(item)) {
        v = item->valuedouble;
    } else if (cJSON_IsString(item) &&
               (f->type == CF_QUANTITY || (f->type == CF_INT && f->unit != SAX_UNIT_NONE))) {
        sax_error_t why;
        if (sax_units_parse(item->valuestring, f->unit, &v, &why) != SAX_OK)
            return cf_fail(ctx, "%s", why.text);
    } else {
        describe_expected(f, expected, sizeof expected);
        return cf_fail(ctx, "expected %s, found %s", expected, found);
    }
    if (!cf_check_range(f, v, expected, sizeof expected)) {
        if (cJSON_IsString(item) && isfinite(v))
            return cf_fail(ctx, "expected %s, found %s (= %.6g %s)", expected, found, v,
                           sax_unit_kind_si(f->unit));
        return cf_fail(ctx, "expected %s, found %s", expected, found);
    }
    if (f->type == CF_INT && (v > INT32_MAX || v < INT32_MIN))
        return cf_fail(ctx, "expected an integer that fits 32 bits, found %s", found);
    if (f->type == CF_INT64 && fabs(v) > 9007199254740992.0)
        return cf_fail(ctx, "expected an integer below 2^53, found %s", found);
    cf_set_number(f, base, v);
    return SAX_OK;
}

/* A list of recompute module names, each once, into a bit mask ([]: the default, 0). */
static sax_status_t parse_modules(cf_ctx_t *ctx, const cJSON *item, sax_candidate_t *c)
{
    char found[96], names[128];
    cf_describe(item, found, sizeof found);
    list_names(sax_recompute_module_names, SAX_RECOMPUTE_MODULE_COUNT, names, sizeof names);
    if (!cJSON_IsArray(item))
        return cf_fail(ctx, "expected a list of module names (%s), found %s", names, found);
    unsigned mask = 0;
    for (int i = 0; i < cJSON_GetArraySize(item); i++) {
        const cJSON *e = cJSON_GetArrayItem(item, i);
        size_t mark = cf_push_index(ctx, i);
        cf_describe(e, found, sizeof found);
        int m = cJSON_IsString(e)
                    ? sax_name_lookup(sax_recompute_module_names, SAX_RECOMPUTE_MODULE_COUNT, e->valuestring)
                    : -1;
        if (m < 0)
            return cf_fail(ctx, "expected one of %s (the modules sax prices), found %s", names, found);
        if (mask >> m & 1u)
            return cf_fail(ctx, "expected each module once, found %s twice", found);
        mask |= 1u << m;
        cf_pop(ctx, mark);
    }
    c->recompute_modules = mask;
    return SAX_OK;
}

static sax_status_t parse_order(cf_ctx_t *ctx, const cJSON *item, sax_candidate_t *c)
{
    char found[96], names[128];
    cf_describe(item, found, sizeof found);
    list_names(sax_dim_names, SAX_DIM_COUNT, names, sizeof names);
    if (!cJSON_IsArray(item))
        return cf_fail(ctx, "expected a list of dimension names (%s), innermost first, found %s", names,
                       found);
    int n = cJSON_GetArraySize(item);
    if (n > SAX_DIM_COUNT)
        return cf_fail(ctx, "expected at most %d dimension names, found %s", SAX_DIM_COUNT, found);
    sax_candidate_t tmp = *c;
    tmp.n_order = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(item, i);
        size_t mark = cf_push_index(ctx, i);
        cf_describe(e, found, sizeof found);
        int d = cJSON_IsString(e) ? sax_name_lookup(sax_dim_names, SAX_DIM_COUNT, e->valuestring) : -1;
        if (d < 0)
            return cf_fail(ctx, "expected one of %s, found %s", names, found);
        for (int j = 0; j < tmp.n_order; j++)
            if ((int)tmp.order[j] == d)
                return cf_fail(ctx, "expected each dimension once, found %s twice", found);
        tmp.order[tmp.n_order++] = (sax_dim_t)d;
        cf_pop(ctx, mark);
    }
    c->n_order = tmp.n_order;
    memcpy(c->order, tmp.order, sizeof c->order);
    return SAX_OK;
}

sax_status_t cf_parse_value(cf_ctx_t *ctx, const cf_field_t *f, const cJSON *item, void *base)
{
    char found[96], names[256];
    cf_describe(item, found, sizeof found);
    switch (f->type) {
    case CF_INT:
    case CF_INT64:
    case CF_QUANTITY: return parse_number(ctx, f, item, base);
    case CF_DEGREE:
        if (cJSON_IsString(item) && strcmp(item->valuestring, "auto") == 0) {
            cf_set_number(f, base, 0.0);
            return SAX_OK;
        }
        if (!cJSON_IsNumber(item) || !(item->valuedouble >= 1) ||
            item->valuedouble != floor(item->valuedouble) || item->valuedouble > INT32_MAX)
            return cf_fail(ctx, "expected an integer >= 1 or \"auto\", found %s", found);
        cf_set_number(f, base, item->valuedouble);
        return SAX_OK;
    case CF_ENUM: {
        list_names(f->names, f->n_names, names, sizeof names);
        int i = cJSON_IsString(item) ? sax_name_lookup(f->names, f->n_names, item->valuestring) : -1;
        if (i < 0)
            return cf_fail(ctx, "expected one of %s, found %s", names, found);
        cf_set_number(f, base, i);
        return SAX_OK;
    }
    case CF_BOOL:
        if (!cJSON_IsBool(item))
            return cf_fail(ctx, "expected true or false, found %s", found);
        cf_set_number(f, base, cJSON_IsTrue(item) ? 1.0 : 0.0);
        return SAX_OK;
    case CF_STRING: {
        if (!cJSON_IsString(item) || item->valuestring[0] == '\0')
            return cf_fail(ctx, "expected a non-empty string, found %s", found);
        size_t len = strlen(item->valuestring);
        if (len >= f->size)
            return cf_fail(ctx, "expected a string of at most %zu characters, found %s (%zu)", f->size - 1,
                           found, len);
        sax_status_t st = cf_check_name(ctx, item->valuestring);
        if (st != SAX_OK)
            return st;
        memset(at(base, f), 0, f->size);
        memcpy(at(base, f), item->valuestring, len);
        return SAX_OK;
    }
    case CF_ORDER: return parse_order(ctx, item, (sax_candidate_t *)base);
    case CF_MODULES: return parse_modules(ctx, item, (sax_candidate_t *)base);
    case CF_LAYOUT:
        if (!cJSON_IsString(item))
            return cf_fail(ctx,
                           "expected a string (Megatron's pipeline layout, e.g. \"Et|(tt|)*3,L\"), found %s",
                           found);
        return cf_parse_pipeline_layout(ctx, item->valuestring, (sax_candidate_t *)base);
    default: return cf_fail(ctx, "internal error: key of type %d parsed as a scalar", (int)f->type);
    }
}

void cf_apply_defaults(const cf_section_t *sec, void *base)
{
    for (int i = 0; i < sec->n_fields; i++) {
        const cf_field_t *f = &sec->fields[i];
        if (f->need != CF_DEFAULT || f->alias_of != NULL)
            continue;
        if (f->type == CF_STRING) {
            memset(at(base, f), 0, f->size);
            if (f->def_text != NULL)
                strncpy((char *)at(base, f), f->def_text, f->size - 1);
        } else if (f->type == CF_LAYOUT) {
            sax_candidate_t *c = base;
            c->n_layout = 0;
            memset(c->layout_text, 0, sizeof c->layout_text);
        } else if (f->type == CF_MODULES) {
            ((sax_candidate_t *)base)->recompute_modules = 0;
        } else if (f->type != CF_ORDER && f->type != CF_OBJECT && f->type != CF_LIST &&
                   f->type != CF_PRESET && f->type != CF_SITE_PAIR) {
            cf_set_number(f, base, f->def);
        }
    }
}

static bool is_scalar(const cf_field_t *f)
{
    return f->type != CF_OBJECT && f->type != CF_LIST && f->type != CF_PRESET && f->type != CF_SITE_PAIR;
}

sax_status_t cf_parse_object(cf_ctx_t *ctx, const cf_section_t *sec, const cJSON *obj, void *base,
                             bool preset, const char *extra)
{
    char found[96], keys[512];
    if (!cJSON_IsObject(obj)) {
        cf_describe(obj, found, sizeof found);
        return cf_fail(ctx, "expected an object, found %s", found);
    }
    for (const cJSON *m = obj->child; m != NULL; m = m->next) {
        if (m->string == NULL) /* only from cJSON trees built by hand, never from parsed text */
            return cf_fail(ctx, "expected an object with named keys, found an unnamed member");
        for (const cJSON *p = obj->child; p != m; p = p->next)
            if (strcmp(p->string, m->string) == 0) {
                size_t mark = cf_push_key(ctx, m->string);
                sax_status_t st = cf_fail(ctx, "expected each key once, found it twice");
                cf_pop(ctx, mark);
                return st;
            }
        if (cf_find(sec, m->string) != NULL || (extra != NULL && strcmp(m->string, extra) == 0))
            continue;
        const char *best = NULL;
        int best_d = 3;
        for (int i = 0; i < sec->n_fields; i++) {
            int d = edit_distance(m->string, sec->fields[i].key);
            if (d < best_d) {
                best_d = d;
                best = sec->fields[i].key;
            }
        }
        list_keys(sec, extra, keys, sizeof keys);
        size_t mark = cf_push_key(ctx, m->string);
        sax_status_t st;
        if (best != NULL)
            st = cf_fail(ctx, "unknown key (did you mean \"%s\"?); expected one of: %s", best, keys);
        else
            st = cf_fail(ctx, "unknown key; expected one of: %s", keys);
        cf_pop(ctx, mark);
        return st;
    }
    for (int i = 0; i < sec->n_fields; i++) {
        const cf_field_t *f = &sec->fields[i];
        const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, f->key);
        if (item != NULL && f->alias_of != NULL &&
            cJSON_GetObjectItemCaseSensitive(obj, f->alias_of) != NULL) {
            size_t mark = cf_push_key(ctx, f->key);
            sax_status_t st = cf_fail(ctx, "expected either \"%s\" or its other name \"%s\", found both",
                                      f->alias_of, f->key);
            cf_pop(ctx, mark);
            return st;
        }
        if (item == NULL) {
            if (f->need == CF_REQUIRED && !preset) {
                char expected[160];
                if (f->type == CF_INT || f->type == CF_INT64 || f->type == CF_QUANTITY)
                    describe_expected(f, expected, sizeof expected);
                else
                    snprintf(expected, sizeof expected, "%s", cf_type_name(f));
                return cf_fail(ctx, "missing required key \"%s\" (expected %s: %s)", f->key, expected,
                               f->help);
            }
            continue;
        }
        if (!is_scalar(f))
            continue;
        size_t mark = cf_push_key(ctx, f->key);
        sax_status_t st = cf_parse_value(ctx, f, item, base);
        if (st != SAX_OK)
            return st;
        cf_pop(ctx, mark);
    }
    return SAX_OK;
}

/* ---- emitting --------------------------------------------------------------------------------- */

/* cJSON prints 15 significant digits whenever they read back within a few ulps; 17 always read
 * back exactly, so the effective configuration reloads to bit-identical values (and sweeps of it
 * to bit-identical results). */
cJSON *cf_exact_number(double v)
{
    if (!isfinite(v))
        return cJSON_CreateNull();
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    return cJSON_CreateRaw(buf);
}

cJSON *cf_emit_value(const cf_field_t *f, const void *base)
{
    switch (f->type) {
    case CF_INT:
    case CF_INT64:
    case CF_QUANTITY: return cf_exact_number(cf_get_number(f, base));
    case CF_DEGREE: {
        double v = cf_get_number(f, base);
        return v == 0.0 ? cJSON_CreateString("auto") : cf_exact_number(v);
    }
    case CF_ENUM: {
        int i = (int)cf_get_number(f, base);
        return cJSON_CreateString(i >= 0 && i < f->n_names ? f->names[i] : "?");
    }
    case CF_BOOL: return cJSON_CreateBool(cf_get_number(f, base) != 0.0);
    case CF_STRING: return cJSON_CreateString((const char *)at_c(base, f));
    case CF_LAYOUT: return cJSON_CreateString(((const sax_candidate_t *)base)->layout_text);
    case CF_MODULES: {
        const sax_candidate_t *c = base;
        cJSON *a = cJSON_CreateArray();
        for (int m = 0; a != NULL && m < SAX_RECOMPUTE_MODULE_COUNT; m++)
            if (c->recompute_modules >> m & 1u)
                cJSON_AddItemToArray(a, cJSON_CreateString(sax_recompute_module_names[m]));
        return a;
    }
    case CF_ORDER: {
        const sax_candidate_t *c = base;
        cJSON *a = cJSON_CreateArray();
        for (int i = 0; a != NULL && i < c->n_order; i++)
            cJSON_AddItemToArray(a, cJSON_CreateString(sax_dim_names[c->order[i]]));
        return a;
    }
    default: return NULL;
    }
}

sax_status_t cf_emit_object(const cf_section_t *sec, const void *base, cJSON *out)
{
    for (int i = 0; i < sec->n_fields; i++) {
        const cf_field_t *f = &sec->fields[i];
        if (!is_scalar(f) || f->alias_of != NULL)
            continue;
        cJSON *v = cf_emit_value(f, base);
        if (v == NULL || !cJSON_AddItemToObject(out, f->key, v)) {
            cJSON_Delete(v);
            return SAX_ERR_NOMEM;
        }
    }
    return SAX_OK;
}

/* ---- documentation ------------------------------------------------------------------------------ */

const char *cf_type_name(const cf_field_t *f)
{
    switch (f->type) {
    case CF_INT:
    case CF_INT64: return "integer";
    case CF_QUANTITY: return f->unit == SAX_UNIT_NONE ? "number" : sax_unit_kind_name(f->unit);
    case CF_ENUM: return "name";
    case CF_BOOL: return "boolean";
    case CF_STRING: return "string";
    case CF_DEGREE: return "integer or \"auto\"";
    case CF_ORDER: return "list of dimension names";
    case CF_LAYOUT: return "string";
    case CF_MODULES: return "list of module names";
    case CF_SITE_PAIR: return "two site names";
    case CF_PRESET: return "preset name or object";
    case CF_OBJECT: return "object";
    case CF_LIST: return "list of objects";
    }
    return "?";
}

static void write_value_md(FILE *out, const cf_field_t *f, double v)
{
    char buf[64];
    if (f->type == CF_ENUM)
        fprintf(out, "`\"%s\"`", (int)v >= 0 && (int)v < f->n_names ? f->names[(int)v] : "?");
    else if (f->type == CF_BOOL)
        fprintf(out, "`%s`", v != 0.0 ? "true" : "false");
    else if (f->type == CF_DEGREE && v == 0.0)
        fprintf(out, "`\"auto\"`");
    else if (f->type == CF_QUANTITY && f->unit != SAX_UNIT_NONE && v != 0.0) {
        sax_units_format(v, f->unit, buf, sizeof buf);
        fprintf(out, "`%.10g` (%s)", v, buf);
    } else
        fprintf(out, "`%.10g`", v);
}

void cf_write_section_md(FILE *out, const cf_section_t *sec, const void *model_defaults)
{
    fprintf(out, "| key | type | default | allowed values | meaning |\n|---|---|---|---|---|\n");
    for (int i = 0; i < sec->n_fields; i++) {
        const cf_field_t *f = &sec->fields[i];
        if (f->alias_of != NULL) {
            fprintf(out, "| `%s` | | | | another name for `%s` (give one of the two) |\n", f->key,
                    f->alias_of);
            continue;
        }
        fprintf(out, "| `%s` | %s | ", f->key, cf_type_name(f));
        switch (f->need) {
        case CF_REQUIRED: fprintf(out, "required"); break;
        case CF_DEFAULT:
            if (f->def_text != NULL)
                fprintf(out, "%s", f->def_text);
            else
                write_value_md(out, f, f->def);
            break;
        case CF_MODEL:
            if (model_defaults != NULL)
                write_value_md(out, f, cf_get_number(f, model_defaults));
            fprintf(out, " (model default)");
            break;
        case CF_DERIVED: fprintf(out, "%s", f->def_text != NULL ? f->def_text : "derived"); break;
        }
        fprintf(out, " | ");
        if (f->type == CF_ENUM) {
            for (int k = 0; k < f->n_names; k++)
                fprintf(out, "%s`%s`", k > 0 ? ", " : "", f->names[k]);
        } else if (f->type == CF_INT || f->type == CF_INT64 || f->type == CF_QUANTITY) {
            char expected[160];
            describe_expected(f, expected, sizeof expected);
            fprintf(out, "%s", expected);
        } else if (f->type == CF_ORDER) {
            for (int k = 0; k < SAX_DIM_COUNT; k++)
                fprintf(out, "%s`%s`", k > 0 ? ", " : "", sax_dim_names[k]);
        } else if (f->type == CF_MODULES) {
            for (int k = 0; k < SAX_RECOMPUTE_MODULE_COUNT; k++)
                fprintf(out, "%s`%s`", k > 0 ? ", " : "", sax_recompute_module_names[k]);
        } else if (f->type == CF_DEGREE) {
            fprintf(out, ">= 1, or `\"auto\"`");
        } else {
            fprintf(out, "-");
        }
        fprintf(out, " | %s |\n", f->help);
    }
}
