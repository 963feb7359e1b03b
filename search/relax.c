/* relax.c - the relaxed twins of a problem that the pruned search's lower bounds evaluate
 * (search/bound.c explains why each is never slower than the real problem). sax_search_create
 * builds them once per scenario; they depend on the model's types only. */
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
