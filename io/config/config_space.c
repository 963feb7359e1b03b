/* config_space.c - the `space` section of a sweep: value lists for the keys of `parallelism` and
 * `network` (SAX_KEY_LIST), environment `scenarios` (paths into `cluster` with value lists, whose
 * cartesian product gives one problem per scenario) and named `baselines`. Every value is parsed
 * and checked by the same field table rows as the fixed sections. */
#include "config_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cf_field_t *key_field(int k)
{
    const cf_field_t *f = cf_find(&cf_parallelism_section, sax_key_names[k]);
    return f != NULL ? f : cf_find(&cf_network_section, sax_key_names[k]);
}

/* The design key a space or baseline key names: its own name, or another name for it (`alias_of` in
 * the field tables, such as qps_per_connection for connections); -1 when none. */
int cf_design_key(const char *name)
{
    int k = sax_name_lookup(sax_key_names, SAX_KEY_COUNT, name);
    if (k >= 0)
        return k;
    const cf_field_t *f = cf_find(&cf_network_section, name);
    if (f == NULL)
        f = cf_find(&cf_parallelism_section, name);
    return f != NULL && f->alias_of != NULL ? sax_name_lookup(sax_key_names, SAX_KEY_COUNT, f->alias_of) : -1;
}

static bool same_order(const sax_space_desc_t *s, int i, const sax_candidate_t *c)
{
    return s->order_len[i] == c->n_order &&
           memcmp(s->orders[i], c->order, (size_t)c->n_order * sizeof c->order[0]) == 0;
}

static int find_order(const sax_space_desc_t *s, const sax_candidate_t *c)
{
    for (int i = 0; i < s->n_orders; i++)
        if (same_order(s, i, c))
            return i;
    return -1;
}

static int add_order(sax_space_desc_t *s, const sax_candidate_t *c)
{
    if (s->n_orders >= SAX_SPACE_MAX_VALUES)
        return -1;
    s->order_len[s->n_orders] = c->n_order;
    memcpy(s->orders[s->n_orders], c->order, sizeof c->order);
    return s->n_orders++;
}

/* "1f1b", "auto", "8", "[tp, cp, pp, dp]" */
static void value_text(const sax_space_desc_t *s, int k, int32_t v, char *buf, size_t n)
{
    const cf_field_t *f = key_field(k);
    if (k == SAX_KEY_ORDER) {
        size_t used = snprintf(buf, n, "[");
        for (int i = 0; v >= 0 && v < s->n_orders && i < s->order_len[v] && used < n; i++)
            used += (size_t)snprintf(buf + used, n - used, "%s\"%s\"", i > 0 ? ", " : "",
                                     sax_dim_names[s->orders[v][i]]);
        if (used < n)
            snprintf(buf + used, n - used, "]");
    } else if (f->type == CF_DEGREE && v == 0) {
        snprintf(buf, n, "\"auto\"");
    } else {
        char name[64];
        sax_key_value_name(s, (sax_key_t)k, v, name, sizeof name);
        snprintf(buf, n, f->type == CF_ENUM ? "\"%s\"" : "%s", name);
    }
}

static void list_text(const sax_space_desc_t *s, int k, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->values[k].n && used + 2 < n; i++) {
        if (i > 0)
            used += (size_t)snprintf(buf + used, n - used, ", ");
        value_text(s, k, s->values[k].v[i], buf + used, n - used);
        used = strlen(buf);
    }
}

static void key_list(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < SAX_KEY_COUNT && used < n; k++) {
        snprintf(buf + used, n - used, "%s%s", k > 0 ? ", " : "", sax_key_names[k]);
        used = strlen(buf);
    }
}

/* Parses one value of key k; `add` allows a new order to join s->orders. */
static sax_status_t parse_key_value(cf_ctx_t *ctx, int k, const cJSON *item, const sax_candidate_t *fixed,
                                    sax_space_desc_t *s, bool add, int32_t *v)
{
    sax_candidate_t tmp = *fixed;
    sax_status_t st = cf_parse_value(ctx, key_field(k), item, &tmp);
    if (st != SAX_OK)
        return st;
    if (k != SAX_KEY_ORDER) {
        *v = sax_candidate_get(&tmp, (sax_key_t)k);
        return SAX_OK;
    }
    int idx = find_order(s, &tmp);
    if (idx < 0 && add)
        idx = add_order(s, &tmp);
    *v = idx;
    return SAX_OK;
}

static sax_status_t parse_key_list(cf_ctx_t *ctx, int k, const cJSON *arr, const sax_candidate_t *fixed,
                                   sax_space_desc_t *s)
{
    char found[96];
    cf_describe(arr, found, sizeof found);
    int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : -1;
    if (n < 1 || n > SAX_SPACE_MAX_VALUES)
        return cf_fail(ctx, "expected a list of 1 to %d values of %s (%s), found %s", SAX_SPACE_MAX_VALUES,
                       sax_key_names[k], cf_type_name(key_field(k)), found);
    sax_value_list_t *list = &s->values[k];
    list->n = 0;
    for (int i = 0; i < n; i++) {
        size_t mark = cf_push_index(ctx, i);
        int n_orders = s->n_orders;
        int32_t v;
        sax_status_t st = parse_key_value(ctx, k, cJSON_GetArrayItem(arr, i), fixed, s, true, &v);
        if (st != SAX_OK)
            return st;
        if (k == SAX_KEY_ORDER && v < 0)
            return cf_fail(ctx, "expected at most %d orders, found more", SAX_SPACE_MAX_VALUES);
        bool dup = k == SAX_KEY_ORDER ? s->n_orders == n_orders : false;
        for (int j = 0; !dup && j < list->n; j++)
            dup = list->v[j] == v;
        if (dup) {
            cf_describe(cJSON_GetArrayItem(arr, i), found, sizeof found);
            return cf_fail(ctx, "expected each value once, found %s again", found);
        }
        list->v[list->n++] = v;
        cf_pop(ctx, mark);
    }
    return SAX_OK;
}

/* ---- scenario paths --------------------------------------------------------------------------- */

static int list_count(const cf_section_t *sub, const sax_cluster_t *c)
{
    if (sub == &cf_tier_section)
        return c->n_tiers;
    if (sub == &cf_site_section)
        return c->n_sites;
    if (sub == &cf_link_section)
        return c->n_links;
    return 0;
}

const cf_field_t *cf_resolve_path(const char *path, const sax_problem_t *p, size_t *offset, char *why,
                                  size_t n)
{
    /* a path starts in the cluster unless it names the training or the model section */
    const char *s = path;
    const cf_section_t *sec = &cf_cluster_section;
    size_t off = offsetof(sax_problem_t, cluster);
    if (strncmp(s, "training.", 9) == 0) {
        s += 9;
        sec = &cf_training_section;
        off = offsetof(sax_problem_t, training);
    } else if (strncmp(s, "model.", 6) == 0) {
        s += 6;
        sec = &cf_model_section;
        off = offsetof(sax_problem_t, model);
    } else if (strncmp(s, "cluster.", 8) == 0) {
        s += 8;
    }
    for (;;) {
        char name[SAX_PATH_LEN];
        size_t len = strcspn(s, ".[");
        if (len == 0 || len >= sizeof name) {
            snprintf(why, n, "empty or overlong key");
            return NULL;
        }
        memcpy(name, s, len);
        name[len] = '\0';
        s += len;
        const cf_field_t *f = cf_find(sec, name);
        if (f == NULL) {
            snprintf(why, n, "%s has no key \"%s\"", sec->path, name);
            return NULL;
        }
        if (f->type == CF_LIST) {
            char *end = NULL;
            errno = 0;
            long idx = *s == '[' ? strtol(s + 1, &end, 10) : -1;
            bool huge = errno == ERANGE; /* strtol gave LONG_MAX or LONG_MIN: quote the digits instead */
            if (*s != '[' || end == s + 1 || *end != ']') {
                snprintf(why, n, "\"%s\" is a list: expected an index such as %s[0]", name, name);
                return NULL;
            }
            int count = list_count(f->sub, &p->cluster);
            if (huge || idx < 0 || idx >= count) {
                snprintf(why, n, "index %.*s is outside cluster.%s, which has %d entries",
                         (int)(end - s - 1 < 32 ? end - s - 1 : 32), s + 1, name, count);
                return NULL;
            }
            off += f->offset + (size_t)idx * f->size;
            s = end + 1;
        } else if (f->type == CF_OBJECT || f->type == CF_PRESET) {
            off += f->offset;
        } else {
            if (*s != '\0') {
                snprintf(why, n, "\"%s\" is not an object or list", name);
                return NULL;
            }
            if (f->type != CF_INT && f->type != CF_INT64 && f->type != CF_QUANTITY) {
                snprintf(why, n, "\"%s\" is not a number or quantity", name);
                return NULL;
            }
            *offset = off;
            return f;
        }
        if (*s != '.') {
            snprintf(why, n, "\"%s\" is %s: expected a key after it, such as %s.%s", name,
                     f->type == CF_LIST ? "a list of objects" : "an object", path, f->sub->fields[1].key);
            return NULL;
        }
        s++;
        sec = f->sub;
    }
}

/* The unit a scenario value was written in ("Tbit/s" of "4 Tbit/s") and the exact SI value of one
 * such unit (the parser's own factor), so that outputs echo the user's units (docs/decisions.md);
 * nothing for a bare number. */
static void remember_unit(sax_scenario_var_t *var, const cJSON *item, const cf_field_t *f)
{
    if (!cJSON_IsString(item) || f->type != CF_QUANTITY || f->unit == SAX_UNIT_NONE)
        return;
    const char *u = item->valuestring;
    strtod(u, (char **)&u);
    while (*u == ' ')
        u++;
    size_t n = strlen(u);
    while (n > 0 && u[n - 1] == ' ')
        n--;
    char one[sizeof var->unit + 4];
    double factor;
    if (n == 0 || n >= sizeof var->unit || snprintf(one, sizeof one, "1 %.*s", (int)n, u) < 0 ||
        sax_units_parse(one, f->unit, &factor, NULL) != SAX_OK || !(factor > 0.0))
        return;
    memcpy(var->unit, u, n);
    var->unit[n] = '\0';
    var->unit_si = factor;
}

static sax_status_t parse_scenarios(cf_ctx_t *ctx, const cJSON *obj, const sax_problem_t *p,
                                    sax_space_desc_t *s)
{
    char found[96], why[256];
    cf_describe(obj, found, sizeof found);
    if (!cJSON_IsObject(obj))
        return cf_fail(
            ctx,
            "expected an object mapping paths in cluster, training or model to lists of values, found %s",
            found);
    sax_problem_t *scratch = malloc(sizeof *scratch);
    if (scratch == NULL)
        return sax_error_set(ctx->err, SAX_ERR_NOMEM, "%s: out of memory", ctx->file);
    sax_status_t st = SAX_OK;
    size_t offsets[SAX_SPACE_MAX_SCENARIO_VARS];
    const cf_field_t *fields[SAX_SPACE_MAX_SCENARIO_VARS];
    for (const cJSON *m = obj->child; m != NULL; m = m->next) {
        if (m->string == NULL) {
            st = cf_fail(ctx, "expected an object with named keys, found an unnamed member");
            goto out;
        }
        size_t mark = cf_push_key(ctx, m->string);
        if (s->n_scenario_vars >= SAX_SPACE_MAX_SCENARIO_VARS) {
            st = cf_fail(ctx, "expected at most %d scenario paths, found more", SAX_SPACE_MAX_SCENARIO_VARS);
            goto out;
        }
        if (strlen(m->string) >= SAX_PATH_LEN) {
            st = cf_fail(ctx, "expected a path of at most %d characters", SAX_PATH_LEN - 1);
            goto out;
        }
        size_t off;
        const cf_field_t *f = cf_resolve_path(m->string, p, &off, why, sizeof why);
        if (f == NULL) {
            st = cf_fail(ctx,
                         "expected a path to a number in cluster, training or model such as "
                         "\"site_links[0].bandwidth\", \"tiers[1].latency\" or "
                         "\"training.dp_overlap_efficiency\", found \"%s\" (%s)",
                         m->string, why);
            goto out;
        }
        for (int i = 0; i < s->n_scenario_vars; i++)
            if (fields[i] == f && offsets[i] == off) {
                st = cf_fail(ctx, "expected each path once, found it again (as \"%s\")",
                             s->scenario_vars[i].path);
                goto out;
            }
        int n = cJSON_IsArray(m) ? cJSON_GetArraySize(m) : -1;
        if (n < 1 || n > SAX_SPACE_MAX_VALUES) {
            cf_describe(m, found, sizeof found);
            st = cf_fail(ctx, "expected a list of 1 to %d values, found %s", SAX_SPACE_MAX_VALUES, found);
            goto out;
        }
        sax_scenario_var_t *var = &s->scenario_vars[s->n_scenario_vars];
        snprintf(var->path, sizeof var->path, "%s", m->string);
        var->n = 0;
        var->unit[0] = '\0';
        var->unit_si = 0.0;
        snprintf(var->si_unit, sizeof var->si_unit, "%s",
                 f->type == CF_QUANTITY ? sax_unit_kind_si(f->unit) : sax_unit_kind_si(SAX_UNIT_NONE));
        for (int i = 0; i < n; i++) {
            size_t m2 = cf_push_index(ctx, i);
            *scratch = *p;
            void *base = (char *)scratch + off;
            if ((st = cf_parse_value(ctx, f, cJSON_GetArrayItem(m, i), base)) != SAX_OK)
                goto out;
            double v = cf_get_number(f, base);
            if (var->unit_si == 0.0)
                remember_unit(var, cJSON_GetArrayItem(m, i), f);
            for (int j = 0; j < var->n; j++)
                if (var->v[j] == v) {
                    cf_describe(cJSON_GetArrayItem(m, i), found, sizeof found);
                    st = cf_fail(ctx, "expected each value once, found %s again", found);
                    goto out;
                }
            var->v[var->n++] = v;
            cf_pop(ctx, m2);
        }
        fields[s->n_scenario_vars] = f;
        offsets[s->n_scenario_vars] = off;
        s->n_scenario_vars++;
        cf_pop(ctx, mark);
    }
out:
    free(scratch);
    return st;
}

static sax_status_t parse_baselines(cf_ctx_t *ctx, const cJSON *obj, const sax_candidate_t *fixed,
                                    sax_space_desc_t *s)
{
    char found[96], keys[256], values[512];
    cf_describe(obj, found, sizeof found);
    if (!cJSON_IsObject(obj))
        return cf_fail(ctx, "expected an object mapping baseline names to objects of fixed keys, found %s",
                       found);
    key_list(keys, sizeof keys);
    for (const cJSON *b = obj->child; b != NULL; b = b->next) {
        if (b->string == NULL)
            return cf_fail(ctx, "expected an object with named keys, found an unnamed member");
        sax_status_t bad_name = cf_check_name(ctx, b->string); /* at space.baselines: never print it */
        if (bad_name != SAX_OK)
            return bad_name;
        size_t mark = cf_push_key(ctx, b->string);
        if (s->n_baselines >= SAX_SPACE_MAX_BASELINES)
            return cf_fail(ctx, "expected at most %d baselines, found more", SAX_SPACE_MAX_BASELINES);
        size_t len = strlen(b->string);
        if (len == 0 || len >= SAX_NAME_LEN)
            return cf_fail(ctx, "expected a baseline name of 1 to %d characters", SAX_NAME_LEN - 1);
        cf_describe(b, found, sizeof found);
        if (!cJSON_IsObject(b))
            return cf_fail(ctx, "expected an object of fixed keys (%s), found %s", keys, found);
        sax_baseline_t *bl = &s->baselines[s->n_baselines];
        memset(bl, 0, sizeof *bl);
        memcpy(bl->name, b->string, len);
        for (const cJSON *m = b->child; m != NULL; m = m->next) {
            if (m->string == NULL)
                return cf_fail(ctx, "expected an object with named keys, found an unnamed member");
            size_t m2 = cf_push_key(ctx, m->string);
            int k = cf_design_key(m->string);
            if (k < 0)
                return cf_fail(ctx, "unknown key; expected one of the keys of parallelism and network: %s",
                               keys);
            if (bl->mask & (1u << k))
                return cf_fail(ctx, "expected each key once (or one of its names), found it twice");
            int32_t v;
            sax_status_t st = parse_key_value(ctx, k, m, fixed, s, false, &v);
            if (st != SAX_OK)
                return st;
            bool explored = false;
            for (int i = 0; v >= 0 && i < s->values[k].n; i++)
                explored = explored || s->values[k].v[i] == v;
            if (!explored) {
                list_text(s, k, values, sizeof values);
                cf_describe(m, found, sizeof found);
                return cf_fail(
                    ctx,
                    "expected one of the values the space explores for %s (%s), found %s; a baseline "
                    "can only select candidates of the space",
                    sax_key_names[k], values, found);
            }
            bl->mask |= 1u << k;
            bl->value[k] = v;
            cf_pop(ctx, m2);
        }
        s->n_baselines++;
        cf_pop(ctx, mark);
    }
    return SAX_OK;
}

sax_status_t cf_parse_space(cf_ctx_t *ctx, const cJSON *space, const cf_fixed_t *fixed,
                            const sax_problem_t *problem, sax_space_desc_t *out)
{
    char found[96], keys[256];
    memset(out, 0, sizeof *out);
    cf_describe(space, found, sizeof found);
    if (!cJSON_IsObject(space))
        return cf_fail(ctx, "expected an object, found %s", found);
    key_list(keys, sizeof keys);
    uint32_t in_space = 0;
    sax_status_t st;
    for (const cJSON *m = space->child; m != NULL; m = m->next) {
        if (m->string == NULL)
            return cf_fail(ctx, "expected an object with named keys, found an unnamed member");
        for (const cJSON *p = space->child; p != m; p = p->next)
            if (strcmp(p->string, m->string) == 0) {
                cf_push_key(ctx, m->string);
                return cf_fail(ctx, "expected each key once, found it twice");
            }
        if (strcmp(m->string, "scenarios") == 0 || strcmp(m->string, "baselines") == 0)
            continue;
        size_t mark = cf_push_key(ctx, m->string);
        int k = cf_design_key(m->string);
        if (k < 0)
            return cf_fail(ctx, "unknown key; expected one of: %s, scenarios, baselines", keys);
        if (in_space & (1u << k))
            return cf_fail(ctx, "expected each key once (or one of its names), found \"%s\" twice",
                           sax_key_names[k]);
        if ((st = parse_key_list(ctx, k, m, &fixed->fixed, out)) != SAX_OK)
            return st;
        in_space |= 1u << k;
        cf_pop(ctx, mark);
    }
    for (int k = 0; k < SAX_KEY_COUNT; k++) {
        if (in_space & (1u << k))
            continue;
        if (k == SAX_KEY_ORDER) {
            sax_candidate_t c = fixed->fixed;
            if (!(fixed->given & (1u << SAX_KEY_ORDER))) {
                static const sax_dim_t def[] = {SAX_DIM_TP, SAX_DIM_CP, SAX_DIM_EP, SAX_DIM_PP, SAX_DIM_DP};
                c.n_order = SAX_DIM_COUNT;
                memcpy(c.order, def, sizeof def);
            }
            out->values[k].n = 1;
            out->values[k].v[0] = add_order(out, &c);
        } else {
            out->values[k].n = 1;
            out->values[k].v[0] = sax_candidate_get(&fixed->fixed, (sax_key_t)k);
        }
    }
    const cJSON *scen = cJSON_GetObjectItemCaseSensitive(space, "scenarios");
    if (scen != NULL) {
        size_t mark = cf_push_key(ctx, "scenarios");
        if ((st = parse_scenarios(ctx, scen, problem, out)) != SAX_OK)
            return st;
        cf_pop(ctx, mark);
    }
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(space, "baselines");
    if (base != NULL) {
        size_t mark = cf_push_key(ctx, "baselines");
        if ((st = parse_baselines(ctx, base, &fixed->fixed, out)) != SAX_OK)
            return st;
        cf_pop(ctx, mark);
    }
    return SAX_OK;
}

/* ---- scenario problems ------------------------------------------------------------------------- */

/* Writes value `v` of the field at `off` into `p`, with what follows from it: a cluster GPU value
 * also reaches the sites that inherit the cluster's GPU, and a link distance the latency derived
 * from it. */
static void apply_value(sax_problem_t *p, const cf_fixed_t *fixed, const cf_field_t *f, size_t off, double v)
{
    cf_set_number(f, (char *)p + off, v);
    if (off == offsetof(sax_problem_t, cluster.gpu))
        for (int j = 0; j < p->cluster.n_sites; j++)
            if (fixed->gpu_inherited[j])
                cf_set_number(f, &p->cluster.sites[j].gpu, v);
    size_t links = offsetof(sax_problem_t, cluster.links);
    if (strcmp(f->key, "distance") == 0 && off >= links) {
        size_t j = (off - links) / sizeof(sax_site_link_t);
        if (j < SAX_MAX_LINKS && fixed->latency_derived[j])
            p->cluster.links[j].latency_s = v * 5e-9; /* 5 us per km, as when loading */
    }
}

sax_status_t cf_build_scenarios(cf_ctx_t *ctx, const cf_fixed_t *fixed, sax_config_t *cfg)
{
    const sax_space_desc_t *s = &cfg->space;
    int n_vars = cfg->has_space ? s->n_scenario_vars : 0;
    long long n = 1;
    for (int i = 0; i < n_vars; i++) {
        n *= s->scenario_vars[i].n;
        if (n > SAX_CONFIG_MAX_SCENARIOS) {
            return cf_fail_at(ctx, "space", "scenarios",
                              "expected at most %d scenarios (the product of the lists), found more",
                              SAX_CONFIG_MAX_SCENARIOS);
        }
    }
    const cf_field_t *fields[SAX_SPACE_MAX_SCENARIO_VARS];
    size_t offsets[SAX_SPACE_MAX_SCENARIO_VARS];
    for (int i = 0; i < n_vars; i++) {
        char why[256];
        fields[i] = cf_resolve_path(s->scenario_vars[i].path, &cfg->problem, &offsets[i], why, sizeof why);
        if (fields[i] == NULL)
            return sax_error_set(ctx->err, SAX_ERR_INTERNAL, "%s: space.scenarios: %s", ctx->file, why);
    }
    cfg->scenarios = malloc((size_t)n * sizeof *cfg->scenarios);
    cfg->scenario_values = n_vars > 0 ? malloc((size_t)n * (size_t)n_vars * sizeof(double)) : NULL;
    if (cfg->scenarios == NULL || (n_vars > 0 && cfg->scenario_values == NULL))
        return sax_error_set(ctx->err, SAX_ERR_NOMEM, "%s: out of memory for %lld scenarios", ctx->file, n);
    cfg->n_scenarios = (int)n;
    for (int sc = 0; sc < cfg->n_scenarios; sc++) {
        sax_problem_t *p = &cfg->scenarios[sc];
        *p = cfg->problem;
        int rem = sc;
        for (int i = n_vars - 1; i >= 0; i--) {
            int idx = rem % s->scenario_vars[i].n;
            rem /= s->scenario_vars[i].n;
            double v = s->scenario_vars[i].v[idx];
            apply_value(p, fixed, fields[i], offsets[i], v);
            cfg->scenario_values[(size_t)sc * (size_t)n_vars + (size_t)i] = v;
        }
        if (n_vars == 0)
            continue;
        size_t mark = cf_push_key(ctx, "space");
        cf_push_key(ctx, "scenarios");
        size_t inner = cf_push_key(ctx, "model");
        sax_status_t st = cf_check_model(ctx, &p->model);
        cf_pop(ctx, inner);
        if (st == SAX_OK) {
            cf_push_key(ctx, "cluster");
            st = cf_check_cluster(ctx, &p->cluster);
        }
        cf_pop(ctx, mark);
        if (st != SAX_OK) {
            if (ctx->err != NULL) {
                size_t used = strlen(ctx->err->text);
                snprintf(ctx->err->text + used, sizeof ctx->err->text - used, " (in scenario %d:", sc);
                for (int i = 0; i < n_vars; i++) {
                    used = strlen(ctx->err->text);
                    snprintf(ctx->err->text + used, sizeof ctx->err->text - used, " %s = %.6g",
                             s->scenario_vars[i].path,
                             cfg->scenario_values[(size_t)sc * (size_t)n_vars + (size_t)i]);
                }
                used = strlen(ctx->err->text);
                snprintf(ctx->err->text + used, sizeof ctx->err->text - used, ")");
            }
            return st;
        }
    }
    return SAX_OK;
}
