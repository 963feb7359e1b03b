/* config_check.c - checks that involve several keys: the model's shape and the cluster's
 * hierarchy (scale-up domain <= tier units, each a multiple of the one inside it; a site at most one
 * unit of the outermost tier, its last unit of each level, scale-up domain included, possibly partial). */
#include "config_internal.h"

#include <stdint.h>
#include <string.h>

static sax_status_t fail_at(cf_ctx_t *ctx, const char *key, const char *fmt, const char *a, long long x,
                            long long y)
{
    size_t mark = cf_push_key(ctx, key);
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a, x, y);
    sax_status_t st = cf_fail(ctx, "%s", msg);
    cf_pop(ctx, mark);
    return st;
}

sax_status_t cf_check_model(cf_ctx_t *ctx, const sax_model_desc_t *m)
{
    if (m->head_dim == 0 && m->hidden % m->heads != 0)
        return fail_at(ctx, "hidden", "expected a multiple of %s = %lld (or a head_dim), found %lld", "heads",
                       m->heads, m->hidden);
    if (m->kv_lora_rank == 0 && (m->q_lora_rank != 0 || m->rope_head_dim != 0))
        return fail_at(ctx, m->q_lora_rank != 0 ? "q_lora_rank" : "rope_head_dim",
                       "expected 0 without multi-head latent attention (%s = %lld), found %lld",
                       "kv_lora_rank", 0, m->q_lora_rank != 0 ? m->q_lora_rank : m->rope_head_dim);
    if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0)
        return fail_at(ctx, "kv_heads", "expected a divisor of %s = %lld, found %lld", "heads", m->heads,
                       m->kv_heads);
    if (m->experts > 0) {
        if (m->top_k < 1 || m->top_k > m->experts)
            return fail_at(ctx, "top_k", "expected 1 to %s = %lld routed experts per token, found %lld",
                           "experts", m->experts, m->top_k);
        if (m->expert_ffn_hidden < 1)
            return fail_at(ctx, "expert_ffn_hidden",
                           "expected an expert FFN width >= 1 since %s = %lld, found %lld", "experts",
                           m->experts, m->expert_ffn_hidden);
        if (m->dense_layers > m->layers)
            return fail_at(ctx, "dense_layers", "expected at most %s = %lld dense layers, found %lld",
                           "layers", m->layers, m->dense_layers);
        const int groups = m->moe_router_num_groups, picked = m->moe_router_group_topk;
        if (groups > 0 && m->experts % groups != 0)
            return fail_at(ctx, "moe_router_num_groups", "expected a divisor of %s = %lld, found %lld",
                           "experts", m->experts, groups);
        if (groups > 0 && (picked < 1 || picked > groups))
            return fail_at(ctx, "moe_router_group_topk", "expected 1 to %s = %lld groups, found %lld",
                           "moe_router_num_groups", groups, picked);
        if (groups == 0 && picked != 0)
            return fail_at(ctx, "moe_router_group_topk",
                           "expected 0 without group-limited routing (%s = %lld), "
                           "found %lld",
                           "moe_router_num_groups", 0, picked);
        if (groups > 0 && m->top_k > (long long)picked * (m->experts / groups))
            return fail_at(ctx, "top_k",
                           "expected at most the %s x experts a group = %lld experts, found %lld",
                           "moe_router_group_topk", (long long)picked * (m->experts / groups), m->top_k);
    } else {
        if (m->top_k != 0 || m->shared_experts != 0 || m->dense_layers != 0 ||
            m->moe_router_num_groups != 0 || m->moe_router_group_topk != 0) {
            const char *key = m->top_k != 0                   ? "top_k"
                              : m->shared_experts != 0        ? "shared_experts"
                              : m->dense_layers != 0          ? "dense_layers"
                              : m->moe_router_num_groups != 0 ? "moe_router_num_groups"
                                                              : "moe_router_group_topk";
            long long v = m->top_k != 0                   ? m->top_k
                          : m->shared_experts != 0        ? m->shared_experts
                          : m->dense_layers != 0          ? m->dense_layers
                          : m->moe_router_num_groups != 0 ? m->moe_router_num_groups
                                                          : m->moe_router_group_topk;
            return fail_at(ctx, key, "expected 0 in a dense model (%s = %lld), found %lld", "experts", 0, v);
        }
    }
    bool has_dense = m->experts == 0 || m->dense_layers > 0;
    if (has_dense && m->ffn_hidden < 1)
        return fail_at(ctx, "ffn_hidden",
                       "expected a dense FFN width >= 1 (%s %lld dense layers), found %lld", "the model has",
                       m->experts == 0 ? m->layers : m->dense_layers, m->ffn_hidden);
    return SAX_OK;
}

static sax_status_t fail_at_index(cf_ctx_t *ctx, const char *list, int i, const char *key, const char *msg)
{
    size_t mark = cf_push_key(ctx, list);
    cf_push_index(ctx, i);
    cf_push_key(ctx, key);
    sax_status_t st = cf_fail(ctx, "%s", msg);
    cf_pop(ctx, mark);
    return st;
}

/* The most GPUs a cluster may hold: every GPU count (a site's, a tier's, the GPUs a candidate uses,
 * tp x cp x pp x dp) is an int, so the sum over the sites must fit one. */
#define CF_MAX_GPUS INT32_MAX

sax_status_t cf_check_cluster(cf_ctx_t *ctx, const sax_cluster_t *c)
{
    char msg[512];
    /* units of the hierarchy, innermost first */
    int unit = c->scale_up.size;
    const char *unit_name = "the scale-up domain (scale_up.size)";
    for (int t = 0; t < c->n_tiers; t++) {
        const sax_tier_t *tier = &c->tiers[t];
        for (int u = 0; u < t; u++)
            if (strcmp(c->tiers[u].name, tier->name) == 0) {
                snprintf(msg, sizeof msg, "expected a unique tier name, found \"%s\" again (tiers[%d])",
                         tier->name, u);
                return fail_at_index(ctx, "tiers", t, "name", msg);
            }
        /* equal is allowed: a tier whose unit is the unit inside it (a node-level tier over 8-GPU domains)
         * adds the limits of that unit's uplink, and no level of its own */
        if (tier->gpus < unit || tier->gpus % unit != 0) {
            snprintf(msg, sizeof msg, "expected a multiple of %d GPUs, at least %s, found %d", unit,
                     unit_name, tier->gpus);
            return fail_at_index(ctx, "tiers", t, "gpus", msg);
        }
        unit = tier->gpus;
        unit_name = t == 0 ? "tiers[0]" : "the previous tier";
    }
    int64_t total = 0;
    for (int s = 0; s < c->n_sites; s++) {
        const sax_site_t *site = &c->sites[s];
        total += site->gpus;
        if (total > CF_MAX_GPUS) {
            snprintf(msg, sizeof msg,
                     "expected at most %d GPUs in all the sites together (2^31 - 1: GPU counts, degrees and "
                     "their products are 32-bit), found %lld up to this site",
                     CF_MAX_GPUS, (long long)total);
            return fail_at_index(ctx, "sites", s, "gpus", msg);
        }
        for (int u = 0; u < s; u++)
            if (strcmp(c->sites[u].name, site->name) == 0) {
                snprintf(msg, sizeof msg, "expected a unique site name, found \"%s\" again (sites[%d])",
                         site->name, u);
                return fail_at_index(ctx, "sites", s, "name", msg);
            }
        int top = c->n_tiers > 0 ? c->tiers[c->n_tiers - 1].gpus : c->scale_up.size;
        if (site->gpus > top) {
            if (c->n_tiers > 0)
                snprintf(
                    msg, sizeof msg,
                    "expected at most %d GPUs (one unit of the outermost tier \"%s\"; add a tier to hold "
                    "more), found %d",
                    top, c->tiers[c->n_tiers - 1].name, site->gpus);
            else
                snprintf(msg, sizeof msg,
                         "expected at most %d GPUs (scale_up.size; add cluster.tiers to hold more), found %d",
                         top, site->gpus);
            return fail_at_index(ctx, "sites", s, "gpus", msg);
        }
    }
    if (c->n_tiers == 0 && c->n_sites > 1) {
        /* one node, one domain, no tiers is a cluster; two such sites are not: nothing says how a GPU
         * reaches the site links (a tier's bandwidth is the GPUs' NIC) */
        size_t mark = cf_push_key(ctx, "tiers");
        sax_status_t st =
            cf_fail(ctx,
                    "expected at least one tier in a cluster of %d sites (tiers[0].bandwidth is the "
                    "GPUs' NIC, through which traffic reaches the site links; a tier of "
                    "scale_up.size = %d GPUs describes a node's NICs), found none",
                    c->n_sites, c->scale_up.size);
        cf_pop(ctx, mark);
        return st;
    }
    return SAX_OK;
}
