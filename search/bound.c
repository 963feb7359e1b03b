/* bound.c - the admissible lower bounds of the pruned search (docs/sweep.md, "The pruned search").
 *
 * The innermost keys form two levels of blocks: NET (algorithm, compression, transport,
 * connections) and inside it TRANSPORT (transport, connections). A block's bound is the model
 * itself, evaluated on a relaxed problem (search/relax.c builds it) that is never slower than the
 * real one for any candidate of the block:
 * - NET: an ideal network (unlimited bandwidth, zero latency and loss, no oversubscription), where
 *   no algorithm, transport or connection count costs anything; compression only scales bytes
 *   but the bound is minimised over the space's compression values all the same;
 * - TRANSPORT: the real network with ideal transports (no loss, unlimited window and PFC
 *   headroom), where one connection of any transport carries the full line rate, so the number
 *   of connections and the transport no longer limit a flow.
 * Both rest on the model's invariant that a slower network never makes a step faster (tested by
 * the model's tests and, for every candidate of the test spaces, by tests/comm/test_sweep.c),
 * its pipeline simulator included (docs/cost-model.md section 7); the bounds are still divided by
 * 1 + SAX_SEARCH_BOUND_SLACK, a safety margin for anything the tests have not found. */
#include "search_internal.h"

#include <math.h>

/* Model FLOPs / (GPUs x the fastest GPU's peak x its best GEMM efficiency, bf16's or fp8's), halved: the model may
 * count some FLOPs more cheaply than the contract's MFU formula does (causal attention at half),
 * and the factor keeps the floor below every candidate's compute time whatever that accounting. */
double sax_search_flops_bound(const sax_search_t *s, int scenario, int64_t gpus_used)
{
    const sax_problem_t *p = sax_search_problem(s, scenario);
    double best = 0.0;
    for (int i = 0; i <= p->cluster.n_sites; i++) {
        const sax_gpu_t *g = i < p->cluster.n_sites ? &p->cluster.sites[i].gpu : &p->cluster.gpu;
        double top = fmax(g->gemm_eff_max, g->gemm_eff_max_fp8);
        double eff = top > 0.0 && top <= 1.0 ? top : 1.0;
        double rate = fmax(sax_gpu_peak_flops(g, p->training.precision), g->peak_flops_bf16) * eff;
        best = fmax(best, rate);
    }
    if (best <= 0.0 || gpus_used <= 0)
        return 0.0;
    double flops = sax_model_flops_per_iteration(&p->model, p->training.global_batch);
    return 0.5 * flops / ((double)gpus_used * best);
}

double sax_search_lower_bound(const sax_search_t *s, const sax_search_cursor_t *cur, int pos,
                              sax_scratch_t *scratch, int64_t *evals)
{
    const sax_candidate_t *c = &cur->candidate;
    const int degrees[4] = {c->tp, c->cp, c->pp, c->dp};
    int64_t used = sax_degrees_product(degrees, 4, INT32_MAX);
    double floor_s = sax_search_flops_bound(s, cur->scenario, used);
    bool ideal_net = pos <= SAX_SEARCH_NET_POS;
    const sax_problem_t *relaxed =
        ideal_net ? sax_search_ideal(s, cur->scenario) : sax_search_ideal_transport(s, cur->scenario);
    sax_candidate_t trial = *c;
    double best = INFINITY;
    int n = ideal_net ? sax_search_value_count(s, SAX_KEY_COMPRESSION) : 1;
    for (int j = 0; j < n; j++) {
        if (ideal_net)
            sax_candidate_set(&trial, SAX_KEY_COMPRESSION, sax_search_value(s, SAX_KEY_COMPRESSION, j));
        sax_result_t r;
        sax_status_t st = sax_model_eval(relaxed, &trial, scratch, &r);
        if (evals != NULL)
            (*evals)++;
        if (st != SAX_OK || !r.feasible) {
            /* Infeasible on the relaxed problem need not mean infeasible on the real one (a reason
             * may depend on the network): fall back to the network-independent floor. */
            return floor_s / (1.0 + SAX_SEARCH_BOUND_SLACK);
        }
        best = fmin(best, r.iteration_time_s);
    }
    return fmax(best, floor_s) / (1.0 + SAX_SEARCH_BOUND_SLACK);
}
