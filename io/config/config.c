/* config.c - loading a sax configuration: JSON text -> sax_config_t (problem, candidate, space,
 * scenario problems, effective JSON). Order of precedence for every value: the model's defaults
 * (sax_*_set_defaults), then the table defaults, then a preset, then the file. */
#include "config_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- presets ------------------------------------------------------------------------------------ */

typedef struct {
    const char *what; /* "GPU", "model" */
    bool (*find)(const char *name, void *out);
    int (*count)(void);
    const char *(*name)(int i);
} preset_kind_t;

static bool find_gpu(const char *name, void *out) { return sax_preset_gpu_find(name, out); }
static bool find_model(const char *name, void *out) { return sax_preset_model_find(name, out); }
static const preset_kind_t gpu_presets = {"GPU", find_gpu, sax_preset_gpu_count, sax_preset_gpu_name};
static const preset_kind_t model_presets = {"model", find_model, sax_preset_model_count,
                                            sax_preset_model_name};

static void preset_names(const preset_kind_t *k, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < k->count() && used < n; i++) {
        snprintf(buf + used, n - used, "%s\"%s\"", i > 0 ? ", " : "", k->name(i));
        used = strlen(buf);
    }
}

static sax_status_t apply_preset(cf_ctx_t *ctx, const preset_kind_t *k, const cJSON *name_item, void *base)
{
    char names[256], found[96];
    if (cJSON_IsString(name_item) && k->find(name_item->valuestring, base))
        return SAX_OK;
    preset_names(k, names, sizeof names);
    cf_describe(name_item, found, sizeof found);
    return cf_fail(ctx, "expected a %s preset (%s) or an object, found %s", k->what, names, found);
}

/* A GPU object's "peak_flops" in FLOP/s, or 0 when absent or not a rate (its parsing reports that). */
static double item_peak_flops(const cJSON *gpu)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(gpu, "peak_flops");
    sax_error_t err;
    double flops = 0.0;
    if (cJSON_IsNumber(v))
        return v->valuedouble;
    if (!cJSON_IsString(v) || sax_units_parse(v->valuestring, SAX_UNIT_FLOPS, &flops, &err) != SAX_OK)
        return 0.0;
    return flops;
}

/* A section that may be a preset name, an object with "preset" plus overrides, or an object.
 * `fresh` is what a preset starts from; `inherit` says that `base` already holds complete values
 * (a site's copy of the cluster GPU), so no key is required. `*replaced`: a preset was applied. */
static sax_status_t parse_preset_section(cf_ctx_t *ctx, const cJSON *item, const cf_section_t *sec,
                                         const preset_kind_t *k, void *base, const void *fresh, size_t size,
                                         bool inherit, bool *replaced)
{
    *replaced = false;
    if (cJSON_IsString(item)) {
        memcpy(base, fresh, size);
        *replaced = true;
        return apply_preset(ctx, k, item, base);
    }
    if (!cJSON_IsObject(item)) {
        char names[256], found[96];
        preset_names(k, names, sizeof names);
        cf_describe(item, found, sizeof found);
        return cf_fail(ctx, "expected a %s preset (%s) or an object, found %s", k->what, names, found);
    }
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(item, "preset");
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(item, "name");
    if (p == NULL && k == &gpu_presets) /* a GPU type named, or known by its peak: its fitted efficiencies */
        sax_preset_gpu_calibration(cJSON_IsString(nm) ? nm->valuestring : NULL, item_peak_flops(item), base);
    if (p != NULL) {
        memcpy(base, fresh, size);
        *replaced = true;
        size_t mark = cf_push_key(ctx, "preset");
        sax_status_t st = apply_preset(ctx, k, p, base);
        if (st != SAX_OK)
            return st;
        cf_pop(ctx, mark);
    }
    return cf_parse_object(ctx, sec, item, base, *replaced || inherit, "preset");
}

/* ---- sections ----------------------------------------------------------------------------------- */

static sax_status_t parse_model(cf_ctx_t *ctx, const cJSON *item, sax_model_desc_t *m)
{
    sax_model_desc_t fresh;
    memset(&fresh, 0, sizeof fresh);
    cf_apply_defaults(&cf_model_section, &fresh);
    fresh.kv_heads = 0; /* derived below unless given */
    *m = fresh;
    bool replaced;
    size_t mark = cf_push_key(ctx, "model");
    sax_status_t st = parse_preset_section(ctx, item, &cf_model_section, &model_presets, m, &fresh,
                                           sizeof fresh, false, &replaced);
    if (st != SAX_OK)
        return st;
    if (m->kv_heads == 0)
        m->kv_heads = m->heads;
    st = cf_check_model(ctx, m);
    cf_pop(ctx, mark);
    return st;
}

static sax_status_t parse_training(cf_ctx_t *ctx, const cJSON *item, sax_training_t *t)
{
    memset(t, 0, sizeof *t);
    sax_training_set_defaults(t);
    cf_apply_defaults(&cf_training_section, t);
    size_t mark = cf_push_key(ctx, "training");
    sax_status_t st = cf_parse_object(ctx, &cf_training_section, item, t, false, NULL);
    cf_pop(ctx, mark);
    /* Megatron-LM forces fp32 gradient reductions under --bf16 only: under --fp16 they carry fp16 */
    if (st == SAX_OK && t->precision == SAX_PRECISION_FP16 &&
        cJSON_GetObjectItemCaseSensitive(item, "grad_reduce_dtype") == NULL)
        t->grad_reduce_dtype = SAX_GRAD_DTYPE_FP16;
    return st;
}

/* Counts the elements of an optional list key of the cluster. */
static sax_status_t list_size(cf_ctx_t *ctx, const cJSON *cluster, const char *key, int max, int *n)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(cluster, key);
    *n = 0;
    if (a == NULL)
        return SAX_OK;
    size_t mark = cf_push_key(ctx, key);
    char found[96];
    cf_describe(a, found, sizeof found);
    if (!cJSON_IsArray(a))
        return cf_fail(ctx, "expected a list of objects, found %s", found);
    if (cJSON_GetArraySize(a) > max)
        return cf_fail(ctx, "expected at most %d entries, found %s", max, found);
    *n = cJSON_GetArraySize(a);
    cf_pop(ctx, mark);
    return SAX_OK;
}

static sax_status_t parse_between(cf_ctx_t *ctx, const cJSON *item, const sax_cluster_t *c,
                                  sax_site_link_t *l)
{
    char found[96];
    cf_describe(item, found, sizeof found);
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 2)
        return cf_fail(ctx, "expected a list of two site names, found %s", found);
    int idx[2];
    for (int k = 0; k < 2; k++) {
        const cJSON *e = cJSON_GetArrayItem(item, k);
        size_t mark = cf_push_index(ctx, k);
        cf_describe(e, found, sizeof found);
        idx[k] = -1;
        for (int s = 0; cJSON_IsString(e) && s < c->n_sites; s++)
            if (strcmp(c->sites[s].name, e->valuestring) == 0)
                idx[k] = s;
        if (idx[k] < 0) {
            char names[256] = "";
            size_t used = 0;
            for (int s = 0; s < c->n_sites && used < sizeof names; s++) {
                snprintf(names + used, sizeof names - used, "%s\"%s\"", s > 0 ? ", " : "", c->sites[s].name);
                used = strlen(names);
            }
            return cf_fail(ctx, "expected the name of a site in cluster.sites (%s), found %s", names, found);
        }
        cf_pop(ctx, mark);
    }
    if (idx[0] == idx[1])
        return cf_fail(ctx, "expected two different sites, found \"%s\" twice", c->sites[idx[0]].name);
    l->a = idx[0];
    l->b = idx[1];
    return SAX_OK;
}

static sax_status_t parse_cluster(cf_ctx_t *ctx, const cJSON *item, sax_cluster_t *c, cf_fixed_t *fixed)
{
    sax_status_t st;
    size_t mark = cf_push_key(ctx, "cluster");
    memset(c, 0, sizeof *c);
    if ((st = cf_parse_object(ctx, &cf_cluster_section, item, c, false, NULL)) != SAX_OK)
        return st;
    if ((st = list_size(ctx, item, "tiers", SAX_MAX_TIERS, &c->n_tiers)) != SAX_OK ||
        (st = list_size(ctx, item, "sites", SAX_MAX_SITES, &c->n_sites)) != SAX_OK ||
        (st = list_size(ctx, item, "site_links", SAX_MAX_LINKS, &c->n_links)) != SAX_OK)
        return st;
    if (c->n_sites == 0) {
        cf_push_key(ctx, "sites");
        return cf_fail(ctx, "expected at least one site, found an empty list");
    }
    sax_cluster_set_defaults(c);
    for (int i = 0; i < c->n_tiers; i++)
        cf_apply_defaults(&cf_tier_section, &c->tiers[i]);
    for (int i = 0; i < c->n_links; i++)
        cf_apply_defaults(&cf_link_section, &c->links[i]);

    /* the GPU type */
    sax_gpu_t fresh_gpu;
    memset(&fresh_gpu, 0, sizeof fresh_gpu);
    sax_gpu_set_defaults(&fresh_gpu);
    cf_apply_defaults(&cf_gpu_section, &fresh_gpu);
    c->gpu = fresh_gpu;
    bool replaced;
    size_t m2 = cf_push_key(ctx, "gpu");
    st = parse_preset_section(ctx, cJSON_GetObjectItemCaseSensitive(item, "gpu"), &cf_gpu_section,
                              &gpu_presets, &c->gpu, &fresh_gpu, sizeof fresh_gpu, false, &replaced);
    if (st != SAX_OK)
        return st;
    cf_pop(ctx, m2);

    m2 = cf_push_key(ctx, "scale_up");
    if ((st = cf_parse_object(ctx, &cf_scale_up_section, cJSON_GetObjectItemCaseSensitive(item, "scale_up"),
                              &c->scale_up, false, NULL)) != SAX_OK)
        return st;
    cf_pop(ctx, m2);

    const cJSON *tiers = cJSON_GetObjectItemCaseSensitive(item, "tiers");
    m2 = cf_push_key(ctx, "tiers");
    for (int i = 0; i < c->n_tiers; i++) {
        size_t m3 = cf_push_index(ctx, i);
        if ((st = cf_parse_object(ctx, &cf_tier_section, cJSON_GetArrayItem(tiers, i), &c->tiers[i], false,
                                  NULL)) != SAX_OK)
            return st;
        cf_pop(ctx, m3);
    }
    cf_pop(ctx, m2);

    const cJSON *sites = cJSON_GetObjectItemCaseSensitive(item, "sites");
    m2 = cf_push_key(ctx, "sites");
    for (int i = 0; i < c->n_sites; i++) {
        const cJSON *s = cJSON_GetArrayItem(sites, i);
        size_t m3 = cf_push_index(ctx, i);
        if ((st = cf_parse_object(ctx, &cf_site_section, s, &c->sites[i], false, NULL)) != SAX_OK)
            return st;
        c->sites[i].gpu = c->gpu;
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(s, "gpu");
        fixed->gpu_inherited[i] = g == NULL;
        if (g != NULL) {
            size_t m4 = cf_push_key(ctx, "gpu");
            st = parse_preset_section(ctx, g, &cf_gpu_section, &gpu_presets, &c->sites[i].gpu, &fresh_gpu,
                                      sizeof fresh_gpu, true, &replaced);
            if (st != SAX_OK)
                return st;
            cf_pop(ctx, m4);
        }
        cf_pop(ctx, m3);
    }
    cf_pop(ctx, m2);

    const cJSON *links = cJSON_GetObjectItemCaseSensitive(item, "site_links");
    m2 = cf_push_key(ctx, "site_links");
    for (int i = 0; i < c->n_links; i++) {
        const cJSON *l = cJSON_GetArrayItem(links, i);
        size_t m3 = cf_push_index(ctx, i);
        if ((st = cf_parse_object(ctx, &cf_link_section, l, &c->links[i], false, NULL)) != SAX_OK)
            return st;
        size_t m4 = cf_push_key(ctx, "between");
        if ((st = parse_between(ctx, cJSON_GetObjectItemCaseSensitive(l, "between"), c, &c->links[i])) !=
            SAX_OK)
            return st;
        cf_pop(ctx, m4);
        for (int j = 0; j < i; j++) {
            const sax_site_link_t *o = &c->links[j];
            if ((o->a == c->links[i].a && o->b == c->links[i].b) ||
                (o->a == c->links[i].b && o->b == c->links[i].a))
                return cf_fail(ctx,
                               "expected one link per pair of sites, found a second link between \"%s\" and "
                               "\"%s\" (the first is site_links[%d])",
                               c->sites[o->a].name, c->sites[o->b].name, j);
        }
        if (cJSON_GetObjectItemCaseSensitive(l, "latency") == NULL) {
            if (cJSON_GetObjectItemCaseSensitive(l, "distance") == NULL)
                return cf_fail(ctx,
                               "missing required key \"latency\" or \"distance\" (expected a time such as "
                               "\"1 ms\" or a length such as \"100 km\")");
            c->links[i].latency_s = c->links[i].distance_m * 5e-9; /* light in fibre: 5 us per km */
            fixed->latency_derived[i] = true;
        }
        cf_pop(ctx, m3);
    }
    cf_pop(ctx, m2);

    st = cf_check_cluster(ctx, c);
    cf_pop(ctx, mark);
    return st;
}

/* Parses `parallelism` and `network` (either may be NULL) into fixed->fixed, recording given keys. */
static sax_status_t parse_fixed(cf_ctx_t *ctx, const cJSON *par, const cJSON *net, cf_fixed_t *fixed)
{
    sax_candidate_t *c = &fixed->fixed;
    memset(c, 0, sizeof *c);
    cf_apply_defaults(&cf_parallelism_section, c);
    cf_apply_defaults(&cf_network_section, c);
    const cJSON *objs[2] = {par, net};
    const cf_section_t *secs[2] = {&cf_parallelism_section, &cf_network_section};
    const char *names[2] = {"parallelism", "network"};
    for (int s = 0; s < 2; s++) {
        if (objs[s] == NULL)
            continue;
        size_t mark = cf_push_key(ctx, names[s]);
        sax_status_t st = cf_parse_object(ctx, secs[s], objs[s], c, false, NULL);
        if (st != SAX_OK)
            return st;
        cf_pop(ctx, mark);
        for (const cJSON *m = objs[s]->child; m != NULL; m = m->next) {
            int k = cf_design_key(m->string);
            if (k >= 0)
                fixed->given |= 1u << k;
        }
    }
    return SAX_OK;
}

/* Megatron-Core refuses mla_up_proj without multi-latent attention (transformer_config.py
 * __post_init__) and moe_act without grouped-GEMM experts; sax refuses them on a model without MLA or
 * without routed experts, whatever `recompute` (docs/cost-model.md section 1). */
static sax_status_t check_modules(cf_ctx_t *ctx, const cJSON *par, const sax_model_desc_t *m)
{
    const cJSON *list = par != NULL ? cJSON_GetObjectItemCaseSensitive(par, "recompute_modules") : NULL;
    for (int i = 0; list != NULL && i < cJSON_GetArraySize(list); i++) {
        const cJSON *e = cJSON_GetArrayItem(list, i);
        int mod = sax_name_lookup(sax_recompute_module_names, SAX_RECOMPUTE_MODULE_COUNT, e->valuestring);
        const char *need =
            mod == SAX_RECOMPUTE_MODULE_MLA_UP_PROJ && m->kv_lora_rank == 0
                ? "multi-head latent attention (model.kv_lora_rank > 0), found model.kv_lora_rank 0"
            : mod == SAX_RECOMPUTE_MODULE_MOE_ACT && m->experts == 0
                ? "routed experts (model.experts > 0), found a dense model"
                : NULL;
        if (need == NULL)
            continue;
        size_t mark = cf_push_key(ctx, "parallelism");
        cf_push_key(ctx, "recompute_modules");
        cf_push_index(ctx, i);
        sax_status_t st = cf_fail(ctx, "expected \"%s\" only with %s", e->valuestring, need);
        cf_pop(ctx, mark);
        return st;
    }
    return SAX_OK;
}

/* torchtitan's per-op policy is priced for the dense blocks whose matrix multiplies it counts (its MoE
 * experts run grouped GEMMs, outside its save list), and it replaces Megatron's modules: a file naming
 * both is refused (docs/cost-model.md section 8). */
static sax_status_t check_selective_ac(cf_ctx_t *ctx, const cJSON *par, const sax_problem_t *p)
{
    if (p->training.selective_ac_option != SAX_SELECTIVE_AC_OP)
        return SAX_OK;
    const sax_model_desc_t *m = &p->model;
    const cJSON *list = par != NULL ? cJSON_GetObjectItemCaseSensitive(par, "recompute_modules") : NULL;
    if (!sax_op_sac_priced(m))
        return cf_fail_at(
            ctx, "training", "selective_ac_option",
            "expected \"modules\": \"op\" (torchtitan's per-op policy) is priced for dense models "
            "without multi-head latent attention, found model.experts %d, model.kv_lora_rank %d",
            m->experts, m->kv_lora_rank);
    if (list != NULL && cJSON_GetArraySize(list) > 0)
        return cf_fail_at(
            ctx, "training", "selective_ac_option",
            "expected \"modules\" with parallelism.recompute_modules (Megatron-Core's modules), "
            "or \"op\" without it, found \"op\" and %d modules",
            cJSON_GetArraySize(list));
    return SAX_OK;
}

/* PyTorch eager's steps are counted for torchtitan's Llama block (RMSNorm, rotary embedding, SwiGLU);
 * other blocks are refused rather than priced as if they were one (docs/cost-model.md section 2). */
static sax_status_t check_elementwise(cf_ctx_t *ctx, const sax_problem_t *p)
{
    const sax_model_desc_t *m = &p->model;
    if (p->training.elementwise_kernels != SAX_ELEMENTWISE_EAGER || sax_eager_priced(m))
        return SAX_OK;
    return cf_fail_at(ctx, "training", "elementwise_kernels",
                      "expected \"fused\": \"eager\" (PyTorch eager) is priced for torchtitan's "
                      "Llama block, a dense SwiGLU model without multi-head latent attention, found "
                      "model.ffn_act \"%s\", model.experts %d, model.kv_lora_rank %d",
                      sax_ffn_act_names[m->ffn_act], m->experts, m->kv_lora_rank);
}

static int64_t total_gpus(const sax_cluster_t *c)
{
    int64_t n = 0;
    for (int i = 0; i < c->n_sites; i++)
        n += c->sites[i].gpus;
    return n;
}

/* Megatron-LM's first/last stage layers, written in a file without a space: a split Megatron-LM refuses is
 * the file's error (in a sweep, the candidates it does not fit are skipped). */
static sax_status_t check_fixed_split(cf_ctx_t *ctx, const cf_fixed_t *fixed, const sax_model_desc_t *m,
                                      const sax_candidate_t *c)
{
    const uint32_t first = 1u << SAX_KEY_FIRST_STAGE_LAYERS, last = 1u << SAX_KEY_LAST_STAGE_LAYERS;
    if (!(fixed->given & (first | last)) || (c->first_stage_layers == 0 && c->last_stage_layers == 0) ||
        sax_layer_split_valid(m->layers, c))
        return SAX_OK;
    return cf_fail_at(
        ctx, "parallelism",
        fixed->given & first ? "decoder_first_pipeline_num_layers" : "decoder_last_pipeline_num_layers",
        "expected a split Megatron-LM runs (layer_split \"uniform\", pp >= 2, first + last <= the %d "
        "layers, the rest divided evenly over the stages not set, every stage's layers a multiple of "
        "vpp = %d), found first %d, last %d on %d stages with layer_split \"%s\"",
        m->layers, c->vpp, c->first_stage_layers, c->last_stage_layers, c->pp,
        sax_layer_split_names[c->layer_split]);
}

/* Megatron's pipeline layout, written in a file without a space: pp x vpp virtual stages holding the
 * model's layers and its MTP layers, and no first/last stage layers beside it (in a sweep, candidates it
 * does not fit are skipped). */
static sax_status_t check_fixed_layout(cf_ctx_t *ctx, const sax_model_desc_t *m, const sax_candidate_t *c)
{
    const char *key = "pipeline_model_parallel_layout";
    /* Megatron-Core's validate_layer_layout: as many m as --mtp-num-layers */
    if (c->n_layout > 0 && c->layout_mtp != m->mtp_num_layers)
        return cf_fail_at(ctx, "parallelism", key,
                          "expected model.mtp_num_layers = %d MTP layers (m), found %d in \"%s\"",
                          m->mtp_num_layers, c->layout_mtp, c->layout_text);
    if (c->n_layout == 0 || sax_layer_split_valid(m->layers, c))
        return SAX_OK;
    int layers = 0;
    for (int k = 0; k < c->n_layout; k++)
        layers += c->layout_layers[k];
    if (c->n_layout != c->pp * c->vpp)
        return cf_fail_at(
            ctx, "parallelism", key,
            "expected pp x vpp = %d x %d = %d virtual stages (separated by '|'), found %d in \"%s\"", c->pp,
            c->vpp, c->pp * c->vpp, c->n_layout, c->layout_text);
    if (layers != m->layers)
        return cf_fail_at(ctx, "parallelism", key,
                          "expected model.layers = %d transformer layers (t), found %d in \"%s\"", m->layers,
                          layers, c->layout_text);
    return cf_fail_at(ctx, "parallelism", key,
                      "expected no decoder_first/last_pipeline_num_layers beside a layout, found first %d, "
                      "last %d",
                      c->first_stage_layers, c->last_stage_layers);
}

/* dp "auto" and the default order of the one candidate `sax eval` evaluates. */
static sax_status_t resolve_candidate(cf_ctx_t *ctx, const cf_fixed_t *fixed, const sax_cluster_t *cl,
                                      sax_candidate_t *c)
{
    *c = fixed->fixed;
    size_t mark = cf_push_key(ctx, "parallelism");
    if (c->dp == 0) {
        const int inner[3] = {c->tp, c->cp, c->pp};
        int64_t gpus = total_gpus(cl), per = sax_degrees_product(inner, 3, gpus);
        size_t m2 = cf_push_key(ctx, "dp");
        if (per > gpus)
            return cf_fail(ctx,
                           "expected \"auto\" to divide the %lld GPUs of the sites by tp x cp x pp, found "
                           "tp x cp x pp larger than that (tp = %d, cp = %d, pp = %d)",
                           (long long)gpus, c->tp, c->cp, c->pp);
        if (gpus % per != 0)
            return cf_fail(ctx,
                           "expected \"auto\" to divide the %lld GPUs of the sites by tp x cp x pp = %lld, "
                           "found a remainder of %lld",
                           (long long)gpus, (long long)per, (long long)(gpus % per));
        c->dp = (int)(gpus / per);
        cf_pop(ctx, m2);
    }
    int degree[SAX_DIM_COUNT];
    degree[SAX_DIM_TP] = c->tp;
    degree[SAX_DIM_CP] = c->cp;
    degree[SAX_DIM_EP] = c->ep;
    degree[SAX_DIM_PP] = c->pp;
    degree[SAX_DIM_DP] = c->dp;
    if (fixed->given & (1u << SAX_KEY_ORDER)) {
        static const sax_dim_t needed[] = {SAX_DIM_TP, SAX_DIM_CP, SAX_DIM_PP, SAX_DIM_DP};
        for (int i = 0; i < 4; i++) {
            bool present = false;
            for (int j = 0; j < c->n_order; j++)
                present = present || c->order[j] == needed[i];
            if (degree[needed[i]] > 1 && !present) {
                cf_push_key(ctx, "order");
                return cf_fail(ctx,
                               "expected every dimension of degree > 1 among tp, cp, pp, dp, found no \"%s\" "
                               "(%s = %d)",
                               sax_dim_names[needed[i]], sax_dim_names[needed[i]], degree[needed[i]]);
            }
        }
    } else {
        static const sax_dim_t def[] = {SAX_DIM_TP, SAX_DIM_CP, SAX_DIM_EP, SAX_DIM_PP, SAX_DIM_DP};
        c->n_order = 0;
        for (int i = 0; i < SAX_DIM_COUNT; i++)
            if (degree[def[i]] != 1)
                c->order[c->n_order++] = def[i];
    }
    cf_pop(ctx, mark);
    return SAX_OK;
}

/* What a file leaves unstated where the default cannot run and one setting Megatron-LM accepts can:
 * - no split named (no layer_split, decoder_first/last_pipeline_num_layers or layout) for more virtual
 *   stages than layers: `uniform` cannot place them, so Megatron-LM's embedding-loss split where it fits
 *   (the embedding and the loss a layer each; the Llama 3 paper's one layer fewer on the first and the
 *   last stage, 126 layers on 16 stages of 8 chunks);
 * - no expert_tensor_parallel for an ep that tp x ep does not fit in tp x cp x dp: the experts' TP of 1
 *   (parallel folding), the only one Megatron-Core would have run with that ep when 1 fits (Qwen3 235B's
 *   EP 32 over TP 2 x DP 16).
 * Else the file's settings stay, and the evaluation says `divisibility`. */
static void derive_unstated(const cf_fixed_t *fixed, const sax_model_desc_t *m, sax_candidate_t *c)
{
    const uint32_t named =
        1u << SAX_KEY_LAYER_SPLIT | 1u << SAX_KEY_FIRST_STAGE_LAYERS | 1u << SAX_KEY_LAST_STAGE_LAYERS;
    if ((fixed->given & named) == 0 && c->n_layout == 0 && !sax_layer_split_valid(m->layers, c)) {
        c->layer_split = SAX_LAYER_SPLIT_EMBEDDING_LOSS;
        if (!sax_layer_split_valid(m->layers, c))
            c->layer_split = SAX_LAYER_SPLIT_UNIFORM;
    }
    if (c->etp == 0 && c->ep > 1 && sax_candidate_expert_dp(c) < 1) {
        c->etp = 1;
        if (sax_candidate_expert_dp(c) < 1)
            c->etp = 0;
    }
}

static sax_status_t check_precision(cf_ctx_t *ctx, const sax_problem_t *p)
{
    if (p->training.precision != SAX_PRECISION_FP8)
        return SAX_OK;
    for (int i = 0; i < p->cluster.n_sites; i++)
        if (!(p->cluster.sites[i].gpu.peak_flops_fp8 > 0))
            return cf_fail_at(ctx, "training", "precision",
                              "expected \"bf16\" or \"fp16\": site \"%s\" has GPU \"%s\" without an FP8 peak "
                              "(peak_flops_fp8 is 0), found \"fp8\"",
                              p->cluster.sites[i].name, p->cluster.sites[i].gpu.name);
    /* Transformer Engine's MXFP8 recipe runs on compute capability 10.0 and later only (Blackwell) */
    for (int i = 0; i < p->cluster.n_sites && p->training.fp8_recipe == SAX_FP8_RECIPE_MXFP8; i++)
        if (!p->cluster.sites[i].gpu.mxfp8)
            return cf_fail_at(ctx, "training", "fp8_recipe",
                              "expected \"delayed\" or \"tensorwise\": site \"%s\" has GPU \"%s\" "
                              "without MXFP8 (gpu.mxfp8 false; Blackwell and later have it), found "
                              "\"mxfp8\"",
                              p->cluster.sites[i].name, p->cluster.sites[i].gpu.name);
    return SAX_OK;
}

/* Megatron-Core offloads the activations of fewer layers than the model has (TransformerConfig). */
static sax_status_t check_offload(cf_ctx_t *ctx, const sax_problem_t *p)
{
    int n = p->training.offload_activation_layers;
    if (n < p->model.layers)
        return SAX_OK;
    return cf_fail_at(ctx, "training", "offload_activation_layers",
                      "expected fewer than model.layers = %d, found %d", p->model.layers, n);
}

/* ---- public entry points ------------------------------------------------------------------------ */

void sax_config_fini(sax_config_t *cfg)
{
    if (cfg == NULL)
        return;
    free(cfg->scenarios);
    free(cfg->scenario_values);
    cJSON_free(cfg->effective_json);
    memset(cfg, 0, sizeof *cfg);
}

/* Bit i set for each "section.key" of keys[] that the configuration states. */
#define SAX_TUNED_KEY(key) key,
const char *const sax_tuned_keys[SAX_TUNED_COUNT] = {SAX_TUNED_LIST(SAX_TUNED_KEY)};
#undef SAX_TUNED_KEY

static unsigned stated_keys(const cJSON *config, const char *const *keys, int n)
{
    unsigned mask = 0;
    for (int l = 0; l < n; l++) {
        char section[32];
        const char *dot = strchr(keys[l], '.');
        size_t len = (size_t)(dot - keys[l]);
        memcpy(section, keys[l], len);
        section[len] = '\0';
        const cJSON *body = cJSON_GetObjectItemCaseSensitive(config, section);
        if (cJSON_IsObject(body) && cJSON_GetObjectItemCaseSensitive(body, dot + 1) != NULL)
            mask |= 1u << l;
    }
    return mask;
}

sax_status_t sax_config_from_json(const cJSON *root, const char *file, const char *path_prefix,
                                  sax_config_t *cfg, sax_error_t *err)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->path, sizeof cfg->path, "%s", file != NULL ? file : "<config>");
    cf_ctx_t ctx;
    cf_ctx_init(&ctx, cfg->path, path_prefix, err);
    cf_fixed_t *fixed = calloc(1, sizeof *fixed);
    sax_status_t st = SAX_OK;
    if (fixed == NULL) {
        st = sax_error_set(err, SAX_ERR_NOMEM, "%s: out of memory", cfg->path);
        goto fail;
    }
    if ((st = cf_parse_object(&ctx, &cf_root_section, root, NULL, false, NULL)) != SAX_OK)
        goto fail;
    const cJSON *par = cJSON_GetObjectItemCaseSensitive(root, "parallelism");
    const cJSON *net = cJSON_GetObjectItemCaseSensitive(root, "network");
    const cJSON *space = cJSON_GetObjectItemCaseSensitive(root, "space");
    if ((st = parse_model(&ctx, cJSON_GetObjectItemCaseSensitive(root, "model"), &cfg->problem.model)) !=
            SAX_OK ||
        (st = parse_training(&ctx, cJSON_GetObjectItemCaseSensitive(root, "training"),
                             &cfg->problem.training)) != SAX_OK ||
        (st = parse_cluster(&ctx, cJSON_GetObjectItemCaseSensitive(root, "cluster"), &cfg->problem.cluster,
                            fixed)) != SAX_OK ||
        (st = check_precision(&ctx, &cfg->problem)) != SAX_OK ||
        (st = check_offload(&ctx, &cfg->problem)) != SAX_OK)
        goto fail;
    if (space == NULL && (par == NULL || net == NULL)) {
        st = cf_fail(&ctx,
                     "missing required key \"%s\" (expected an object: the candidate `sax eval` evaluates; "
                     "only a file with a \"space\" may leave it out)",
                     par == NULL ? "parallelism" : "network");
        goto fail;
    }
    if ((st = parse_fixed(&ctx, par, net, fixed)) != SAX_OK ||
        (st = check_modules(&ctx, par, &cfg->problem.model)) != SAX_OK ||
        (st = check_selective_ac(&ctx, par, &cfg->problem)) != SAX_OK ||
        (st = check_elementwise(&ctx, &cfg->problem)) != SAX_OK)
        goto fail;
    cfg->has_candidate = par != NULL;
    cfg->stated_levers = stated_keys(root, sax_lever_keys, SAX_LEVER_COUNT);
    cfg->stated_software = stated_keys(root, sax_software_keys, SAX_SOFTWARE_COUNT);
    cfg->stated_tuned = stated_keys(root, sax_tuned_keys, SAX_TUNED_COUNT);
    if (cfg->has_candidate &&
        (st = resolve_candidate(&ctx, fixed, &cfg->problem.cluster, &cfg->candidate)) != SAX_OK)
        goto fail;
    if (cfg->has_candidate)
        derive_unstated(fixed, &cfg->problem.model, &cfg->candidate);
    if (space == NULL &&
        ((st = check_fixed_layout(&ctx, &cfg->problem.model, &cfg->candidate)) != SAX_OK ||
         (st = check_fixed_split(&ctx, fixed, &cfg->problem.model, &cfg->candidate)) != SAX_OK))
        goto fail;
    if (!cfg->has_candidate)
        cfg->candidate = fixed->fixed; /* the `network` section's settings (sax collective), defaults else */
    cfg->has_space = space != NULL;
    if (cfg->has_space) {
        size_t mark = cf_push_key(&ctx, "space");
        if ((st = cf_parse_space(&ctx, space, fixed, &cfg->problem, &cfg->space)) != SAX_OK)
            goto fail;
        cf_pop(&ctx, mark);
    }
    if ((st = cf_build_scenarios(&ctx, fixed, cfg)) != SAX_OK)
        goto fail;
    if ((st = cf_emit_config(cfg, &cfg->effective_json)) != SAX_OK) {
        st = sax_error_set(err, st, "%s: cannot write the effective configuration: %s", cfg->path,
                           sax_status_message(st));
        goto fail;
    }
    free(fixed);
    return SAX_OK;
fail:
    free(fixed);
    sax_config_fini(cfg);
    return st;
}

sax_status_t sax_config_parse(const char *json_text, const char *name_for_messages, sax_config_t *cfg,
                              sax_error_t *err)
{
    const char *name = name_for_messages != NULL ? name_for_messages : "<config>";
    memset(cfg, 0, sizeof *cfg);
    if (json_text == NULL)
        return sax_error_set(err, SAX_ERR_INPUT, "%s: expected JSON text, found nothing", name);
    cJSON *root;
    sax_status_t st = sax_json_parse(json_text, name, &root, err);
    if (st != SAX_OK)
        return st;
    st = sax_config_from_json(root, name, "", cfg, err);
    cJSON_Delete(root);
    return st;
}

sax_status_t sax_read_text_file(const char *path, const char *what, char **text, sax_error_t *err)
{
    *text = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return sax_error_set(err, errno == ENOENT ? SAX_ERR_INPUT : SAX_ERR_IO, "%s: cannot open %s: %s",
                             path, what, strerror(errno));
    sax_status_t st = SAX_OK;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        len += fread(buf + len, 1, cap - len - 1, f);
        if (ferror(f)) {
            st = sax_error_set(err, SAX_ERR_IO, "%s: cannot read %s: %s", path, what, strerror(errno));
            break;
        }
        if (feof(f))
            break;
        if (len > SAX_MAX_INPUT_BYTES) { /* /dev/zero, a log file given by mistake, ... */
            st =
                sax_error_set(err, SAX_ERR_INPUT, "%s: too large for %s: expected at most %d MiB, found more",
                              path, what, SAX_MAX_INPUT_BYTES >> 20);
            break;
        }
        char *bigger = realloc(buf, cap * 2);
        if (bigger == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    if (buf == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "%s: out of memory reading %s", path, what);
    if (st == SAX_OK && len > SAX_MAX_INPUT_BYTES)
        st = sax_error_set(err, SAX_ERR_INPUT, "%s: too large for %s: expected at most %d MiB, found more",
                           path, what, SAX_MAX_INPUT_BYTES >> 20);
    if (st != SAX_OK) {
        free(buf);
        return st;
    }
    buf[len] = '\0';
    *text = buf;
    return SAX_OK;
}

sax_status_t sax_config_load(const char *path, sax_config_t *cfg, sax_error_t *err)
{
    memset(cfg, 0, sizeof *cfg);
    char *text;
    sax_status_t st = sax_read_text_file(path, "the configuration", &text, err);
    if (st != SAX_OK)
        return st;
    st = sax_config_parse(text, path, cfg, err);
    free(text);
    return st;
}
