/* config_emit.c - the effective configuration as JSON: presets expanded, defaults filled, every
 * quantity a number in SI base units (scenario values keep the unit they were written in, where
 * that text reads back exactly). Stored in result files for provenance; loading it again
 * gives the same problem, candidate and space. */
#include "config_internal.h"

#include <stdlib.h>
#include <string.h>

static cJSON *emit_section(const cf_section_t *sec, const void *base)
{
    cJSON *o = cJSON_CreateObject();
    if (o != NULL && cf_emit_object(sec, base, o) != SAX_OK) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Adds `item` to `parent` (object when key != NULL, else array); false (and item freed) on failure. */
static bool add(cJSON *parent, const char *key, cJSON *item)
{
    if (item == NULL)
        return false;
    bool ok = key != NULL ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item);
    if (!ok)
        cJSON_Delete(item);
    return ok;
}

static cJSON *emit_cluster(const sax_cluster_t *c)
{
    cJSON *o = cJSON_CreateObject(), *a;
    bool ok = o != NULL && add(o, "gpu", emit_section(&cf_gpu_section, &c->gpu)) &&
              add(o, "scale_up", emit_section(&cf_scale_up_section, &c->scale_up)) &&
              (a = cJSON_AddArrayToObject(o, "tiers")) != NULL;
    for (int i = 0; ok && i < c->n_tiers; i++)
        ok = add(a, NULL, emit_section(&cf_tier_section, &c->tiers[i]));
    ok = ok && (a = cJSON_AddArrayToObject(o, "sites")) != NULL;
    for (int i = 0; ok && i < c->n_sites; i++) {
        cJSON *s = emit_section(&cf_site_section, &c->sites[i]);
        ok = add(a, NULL, s);
        /* a site that inherits the cluster's GPU keeps inheriting it when this JSON is loaded again */
        if (ok && memcmp(&c->sites[i].gpu, &c->gpu, sizeof c->gpu) != 0)
            ok = add(s, "gpu", emit_section(&cf_gpu_section, &c->sites[i].gpu));
    }
    ok = ok && (a = cJSON_AddArrayToObject(o, "site_links")) != NULL;
    for (int i = 0; ok && i < c->n_links; i++) {
        const sax_site_link_t *l = &c->links[i];
        cJSON *lo = emit_section(&cf_link_section, l);
        const char *pair[2] = {c->sites[l->a].name, c->sites[l->b].name};
        ok = add(a, NULL, lo) && add(lo, "between", cJSON_CreateStringArray(pair, 2));
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* A scenario value as the configuration wrote it ("4 Tbit/s") where that text reads back as exactly
 * the same value, else the exact number. */
static cJSON *scenario_value(const sax_scenario_var_t *var, double v)
{
    static const char *const forms[] = {"%.15g %s", "%.17g %s"}; /* the shorter one where it is exact */
    for (int i = 0; var->unit_si > 0.0 && i < 2; i++) {
        char text[64];
        snprintf(text, sizeof text, forms[i], v / var->unit_si, var->unit);
        if (strtod(text, NULL) * var->unit_si == v)
            return cJSON_CreateString(text);
    }
    return cf_exact_number(v);
}

static cJSON *emit_space(const sax_space_desc_t *s)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL;
    for (int k = 0; ok && k < SAX_KEY_COUNT; k++) {
        const cf_field_t *f = cf_find(&cf_parallelism_section, sax_key_names[k]);
        if (f == NULL)
            f = cf_find(&cf_network_section, sax_key_names[k]);
        cJSON *list = cJSON_CreateArray();
        ok = add(o, sax_key_names[k], list);
        for (int i = 0; ok && i < s->values[k].n; i++) {
            sax_candidate_t c;
            memset(&c, 0, sizeof c);
            int32_t v = s->values[k].v[i];
            if (k == SAX_KEY_ORDER) {
                c.n_order = s->order_len[v];
                memcpy(c.order, s->orders[v], sizeof c.order);
            } else {
                sax_candidate_set(&c, (sax_key_t)k, v);
            }
            ok = add(list, NULL, cf_emit_value(f, &c));
        }
    }
    cJSON *scen = ok ? cJSON_AddObjectToObject(o, "scenarios") : NULL;
    ok = ok && scen != NULL;
    for (int i = 0; ok && i < s->n_scenario_vars; i++) {
        cJSON *vals = cJSON_CreateArray();
        ok = add(scen, s->scenario_vars[i].path, vals);
        for (int k = 0; ok && k < s->scenario_vars[i].n; k++)
            ok = add(vals, NULL, scenario_value(&s->scenario_vars[i], s->scenario_vars[i].v[k]));
    }
    cJSON *bases = ok ? cJSON_AddObjectToObject(o, "baselines") : NULL;
    ok = ok && bases != NULL;
    for (int b = 0; ok && b < s->n_baselines; b++) {
        const sax_baseline_t *bl = &s->baselines[b];
        cJSON *bo = cJSON_CreateObject();
        ok = add(bases, bl->name, bo);
        for (int k = 0; ok && k < SAX_KEY_COUNT; k++) {
            if (!(bl->mask & (1u << k)))
                continue;
            const cf_field_t *f = cf_find(&cf_parallelism_section, sax_key_names[k]);
            if (f == NULL)
                f = cf_find(&cf_network_section, sax_key_names[k]);
            sax_candidate_t c;
            memset(&c, 0, sizeof c);
            if (k == SAX_KEY_ORDER) {
                c.n_order = s->order_len[bl->value[k]];
                memcpy(c.order, s->orders[bl->value[k]], sizeof c.order);
            } else {
                sax_candidate_set(&c, (sax_key_t)k, bl->value[k]);
            }
            ok = add(bo, sax_key_names[k], cf_emit_value(f, &c));
        }
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The sections of a problem and, when `c` is not NULL, of a candidate. */
static cJSON *emit_problem(const sax_problem_t *p, const sax_candidate_t *c)
{
    cJSON *root = cJSON_CreateObject();
    bool ok = root != NULL && add(root, "model", emit_section(&cf_model_section, &p->model)) &&
              add(root, "training", emit_section(&cf_training_section, &p->training)) &&
              add(root, "cluster", emit_cluster(&p->cluster));
    if (ok && c != NULL)
        ok = add(root, "parallelism", emit_section(&cf_parallelism_section, c)) &&
             add(root, "network", emit_section(&cf_network_section, c));
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

sax_status_t cf_emit_config(const sax_config_t *cfg, char **json)
{
    *json = NULL;
    cJSON *root = emit_problem(&cfg->problem, cfg->has_candidate ? &cfg->candidate : NULL);
    bool ok = root != NULL;
    if (ok && cfg->has_space)
        ok = add(root, "space", emit_space(&cfg->space));
    if (ok)
        *json = cJSON_Print(root);
    cJSON_Delete(root);
    return *json != NULL ? SAX_OK : SAX_ERR_NOMEM;
}

sax_status_t sax_config_emit_candidate(const sax_problem_t *p, const sax_candidate_t *c, char **json)
{
    cJSON *root = emit_problem(p, c);
    *json = root != NULL ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    return *json != NULL ? SAX_OK : SAX_ERR_NOMEM;
}
