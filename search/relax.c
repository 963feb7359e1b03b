/* relax.c - twins of a problem with another network: the relaxed ones that the pruned search's
 * lower bounds evaluate (search/bound.c explains why each is never slower than the real problem;
 * sax_search_create builds them once per scenario) and the network-oblivious one that a sweep's
 * answer is compared with (docs/decisions.md). They depend on the model's types only. */
#include "search_internal.h"

/* Faster than any real network, finite so that bytes / bandwidth stays an ordinary number. */
#define IDEAL_BW_BPS 1e30
#define IDEAL_BYTES 1e30

void sax_search_ideal_problem(const sax_problem_t *p, sax_problem_t *ideal)
{
    *ideal = *p;
    sax_cluster_t *c = &ideal->cluster;
    c->scale_up.bw_Bps = IDEAL_BW_BPS;
    c->scale_up.latency_s = 0.0;
    c->scale_up.efficiency = 1.0;
    for (int i = 0; i < c->n_tiers; i++) {
        c->tiers[i].bw_Bps = IDEAL_BW_BPS;
        c->tiers[i].latency_s = 0.0;
        c->tiers[i].oversubscription = 1.0;
        c->tiers[i].efficiency = 1.0;
    }
    for (int i = 0; i < c->n_links; i++) {
        sax_site_link_t *l = &c->links[i];
        l->bw_Bps = IDEAL_BW_BPS;
        l->latency_s = 0.0;
        l->distance_m = 0.0;
        l->loss = 0.0;
        l->window_bytes = IDEAL_BYTES;
        l->pfc_headroom_bytes = IDEAL_BYTES;
        l->uplink_oversubscription = 1.0;
    }
}

void sax_search_ideal_transport_problem(const sax_problem_t *p, sax_problem_t *ideal)
{
    *ideal = *p;
    for (int i = 0; i < ideal->cluster.n_links; i++) {
        sax_site_link_t *l = &ideal->cluster.links[i];
        l->loss = 0.0;
        l->window_bytes = IDEAL_BYTES;
        l->pfc_headroom_bytes = IDEAL_BYTES;
    }
}

void sax_search_oblivious_problem(const sax_problem_t *p, sax_problem_t *out)
{
    *out = *p;
    sax_cluster_t *c = &out->cluster;
    double bw_per_gpu = c->scale_up.bw_Bps, latency = c->scale_up.latency_s;
    if (c->n_tiers > 0) {
        const sax_tier_t *outer = &c->tiers[c->n_tiers - 1];
        bw_per_gpu = outer->bw_Bps / outer->oversubscription;
        latency = outer->latency_s;
    }
    for (int i = 0; i < c->n_links; i++) {
        sax_site_link_t *l = &c->links[i];
        int gpus = c->sites[l->a].gpus < c->sites[l->b].gpus ? c->sites[l->a].gpus : c->sites[l->b].gpus;
        l->bw_Bps = bw_per_gpu * gpus;
        l->latency_s = latency;
        l->distance_m = 0.0;
        l->loss = 0.0;
        l->window_bytes = IDEAL_BYTES;
        l->pfc_headroom_bytes = IDEAL_BYTES;
        l->uplink_oversubscription = 1.0;
    }
}
