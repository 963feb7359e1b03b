/* bound.c - the admissible lower bound of the pruned search (docs/sweep.md, "The pruned search").
 *
 * A network subtree is the set of candidates that differ only in transport, connections,
 * algorithm and compression. Its bound is the model itself evaluated on an "ideal network": every
 * bandwidth unlimited, every latency and loss zero, no oversubscription. It is admissible because
 * the model's iteration time never decreases when a network gets slower (an invariant the model's
 * tests check) and, on an ideal network, transport, connection count and algorithm cost nothing;
 * compression may cost compute, so the bound is the minimum over the space's compression values. */
#include "sax_search.h"

#include <math.h>

const sax_problem_t *sax_search_ideal(const sax_search_t *s, int scenario);
void sax_search_ideal_problem(const sax_problem_t *p, sax_problem_t *ideal);

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

/* Model FLOPs / (GPUs x the fastest GPU's peak x its best GEMM efficiency), halved: the model may
 * count some FLOPs more cheaply than the contract's MFU formula does (causal attention at half),
 * and the factor keeps the floor below every candidate's compute time whatever that accounting. */
double sax_search_flops_bound(const sax_search_t *s, int scenario, int64_t gpus_used)
{
    const sax_problem_t *p = sax_search_problem(s, scenario);
    double best = 0.0;
    for (int i = 0; i <= p->cluster.n_sites; i++) {
        const sax_gpu_t *g = i < p->cluster.n_sites ? &p->cluster.sites[i].gpu : &p->cluster.gpu;
        double eff = g->gemm_eff_max > 0.0 && g->gemm_eff_max <= 1.0 ? g->gemm_eff_max : 1.0;
        double rate = fmax(sax_gpu_peak_flops(g, p->training.precision), g->peak_flops_bf16) * eff;
        best = fmax(best, rate);
    }
    if (best <= 0.0 || gpus_used <= 0)
        return 0.0;
    double flops = sax_model_flops_per_iteration(&p->model, p->training.global_batch);
    return 0.5 * flops / ((double)gpus_used * best);
}

double sax_search_lower_bound(const sax_search_t *s, const sax_search_cursor_t *cur, sax_scratch_t *scratch,
                              int64_t *evals)
{
    const sax_candidate_t *c = &cur->candidate;
    int64_t used = (int64_t)c->tp * c->cp * c->pp * c->dp;
    double floor_s = sax_search_flops_bound(s, cur->scenario, used);
    const sax_problem_t *ideal = sax_search_ideal(s, cur->scenario);
    sax_candidate_t trial = *c;
    double best = INFINITY;
    int n = sax_search_value_count(s, SAX_KEY_COMPRESSION);
    for (int j = 0; j < n; j++) {
        sax_candidate_set(&trial, SAX_KEY_COMPRESSION, sax_search_value(s, SAX_KEY_COMPRESSION, j));
        sax_result_t r;
        sax_status_t st = sax_model_eval(ideal, &trial, scratch, &r);
        if (evals != NULL)
            (*evals)++;
        if (st != SAX_OK || !r.feasible) {
            /* Infeasible on an ideal network need not mean infeasible on the real one (a reason
             * may depend on the network): fall back to the network-independent floor. */
            return floor_s;
        }
        best = fmin(best, r.iteration_time_s);
    }
    return fmax(best, floor_s);
}
