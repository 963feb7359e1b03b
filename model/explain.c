/* explain.c - what limits each phase of an iteration (`sax eval`'s bottlenecks; docs/cost-model.md
 * section 10). Not on the evaluation path: it evaluates the candidate again, then re-times each phase's
 * dominant operation with the closed forms of collective.c on altered copies of the network, each
 * leaving one limit in place and making the others as good as unlimited. The largest of those terms is
 * what limits the operation.
 */
#include "model_internal.h"

#include <math.h>
#include <string.h>

/* A resource made as good as unlimited is scaled by this: its part of any time falls below 1e-9 of it. */
#define UNLIMITED 1e9

enum {
    FREE_LATENCY = 1u << 0,  /* every alpha and site link latency 0 (so no round trip limits a window) */
    FREE_WINDOW = 1u << 1,   /* transport windows unlimited and no loss; NCCL's buffer 1 GiB, so that
                                one loop (one point-to-point chunk) carries any message */
    FREE_SCALE_UP = 1u << 2, /* NVLink */
    FREE_NIC = 1u << 3,      /* a GPU's NIC (tier 0's per-GPU bandwidth), every uplink kept as it is */
    FREE_UPLINK = 1u << 4,   /* the uplinks of every tier's units and of the sites (oversubscription) */
    FREE_LINK = 1u << 5,     /* the site links' capacity */
    FREE_BANDWIDTH = FREE_SCALE_UP | FREE_NIC | FREE_UPLINK | FREE_LINK
};

/* One operation to explain: a collective of group g, or (stage >= 0) the pipeline's transfer over the
 * boundary after `stage`. */
typedef struct {
    const sax_layout_t *lay;
    const sax_group_t *g;
    int stage;
    sax_coll_op_t op;
    sax_algorithm_t alg;
    double bytes, elem;
} op_t;

/* The cluster and candidate with the limits in `what` lifted. Every rate the closed forms use is a
 * product or quotient of these fields (collective.c: nvl_rate, nic_Bps, uplink_share, the site links'
 * shares, sax_transport_cap_Bps), so scaling a field scales exactly that limit. */
static void relax(const sax_cluster_t *cl, const sax_candidate_t *c, unsigned what, sax_cluster_t *v,
                  sax_candidate_t *vc)
{
    *v = *cl;
    *vc = *c;
    vc->p2p_channels = sax_p2p_channels(cl, c); /* NCCL derives it from the NIC's rate: keep it */
    v->gpu.hbm_bw_Bps *= UNLIMITED;             /* compression's passes over HBM are not the network */
    if (what & FREE_LATENCY) {
        v->scale_up.latency_s = 0.0;
        for (int t = 0; t < v->n_tiers; t++)
            v->tiers[t].latency_s = 0.0;
        for (int l = 0; l < v->n_links; l++)
            v->links[l].latency_s = 0.0;
    }
    if (what & FREE_WINDOW) {
        for (int l = 0; l < v->n_links; l++) {
            v->links[l].window_bytes *= UNLIMITED;
            v->links[l].loss = 0.0;
        }
        vc->buffer_bytes = 1 << 30;
        vc->p2p_chunk_bytes = 1 << 27; /* NCCL_BUFFSIZE / 8 */
    }
    if (what & FREE_SCALE_UP)
        v->scale_up.bw_Bps *= UNLIMITED;
    if ((what & FREE_NIC) && v->n_tiers > 0) { /* tier 0's bandwidth is also its uplinks': keep those */
        v->tiers[0].bw_Bps *= UNLIMITED;
        v->tiers[0].oversubscription *= UNLIMITED;
        for (int l = 0; l < v->n_links; l++)
            v->links[l].uplink_oversubscription *= UNLIMITED;
    }
    if (what & FREE_UPLINK) {
        for (int t = 0; t < v->n_tiers; t++)
            v->tiers[t].oversubscription /= UNLIMITED;
        for (int l = 0; l < v->n_links; l++)
            v->links[l].uplink_oversubscription /= UNLIMITED;
    }
    if (what & FREE_LINK)
        for (int l = 0; l < v->n_links; l++)
            v->links[l].bw_Bps *= UNLIMITED;
}

static double op_time(const sax_cluster_t *cl, const sax_candidate_t *c, const op_t *o)
{
    if (o->stage >= 0)
        return sax_p2p_s(cl, c, o->lay, o->stage, o->bytes, o->elem, NULL, NULL);
    return sax_group_collective_s(cl, c, o->lay, o->g, o->op, o->alg, o->bytes, o->elem, NULL);
}

static double relaxed_time(const sax_cluster_t *cl, const sax_candidate_t *c, const op_t *o, unsigned what)
{
    sax_cluster_t v;
    sax_candidate_t vc;
    relax(cl, c, what, &v, &vc);
    return op_time(&v, &vc, o);
}

/* The site links an operation crosses, as a bit set: the group's ring, or the boundary's route. */
static uint32_t links_crossed(const sax_cluster_t *cl, const op_t *o)
{
    uint32_t set = 0;
    if (o->stage >= 0) {
        int a, b, links[SAX_MAX_LINKS], dirs[SAX_MAX_LINKS];
        sax_layout_stage_level(cl, o->lay, o->stage, &a, &b);
        for (int h = a != b ? sax_site_route(cl, a, b, links, dirs) : 0; h > 0; h--)
            set |= 1u << links[h - 1];
        return set;
    }
    for (int l = 0; o->g->sites > 1 && l < cl->n_links; l++)
        if (o->g->link_hops[l][0] + o->g->link_hops[l][1] > 0)
            set |= 1u << l;
    return set;
}

/* The figures the words of an explanation quote: round trip, bytes in flight, the resources' sizes. */
static void describe(const sax_cluster_t *cl, const sax_candidate_t *c, const op_t *o, sax_coll_explain_t *x)
{
    const sax_group_t *g = o->g;
    x->gpus = g->n;
    x->op = o->stage >= 0 ? SAX_OP_SENDRECV : o->op;
    x->bytes = o->bytes;
    x->scale_up_Bps = cl->scale_up.bw_Bps;
    x->nic_Bps = cl->n_tiers > 0 ? cl->tiers[0].bw_Bps : cl->scale_up.bw_Bps;
    x->oversubscription = 1.0;
    for (int t = 0; t < g->top && t < cl->n_tiers; t++)
        x->oversubscription = fmax(x->oversubscription, cl->tiers[t].oversubscription);
    uint32_t set = links_crossed(cl, o);
    double window = INFINITY;
    x->link_Bps = 0.0;
    x->rtt_s = 0.0;
    x->inflight_bytes = 0.0;
    for (int l = 0; l < cl->n_links; l++)
        if (set >> l & 1u) {
            const sax_site_link_t *k = &cl->links[l];
            x->link_Bps = x->link_Bps > 0.0 ? fmin(x->link_Bps, k->bw_Bps) : k->bw_Bps;
            x->oversubscription = fmax(x->oversubscription, k->uplink_oversubscription);
            window = fmin(window, k->window_bytes);
        }
    if (set == 0)
        return;
    if (o->stage >= 0) {
        int a, b, links[SAX_MAX_LINKS], dirs[SAX_MAX_LINKS];
        sax_layout_stage_level(cl, o->lay, o->stage, &a, &b);
        sax_path_t p;
        sax_site_path(cl, links, sax_site_route(cl, a, b, links, dirs), &p);
        x->rtt_s = p.rtt_s;
    } else {
        for (int i = 0; i < g->sites; i++)
            x->rtt_s = fmax(x->rtt_s, 2.0 * g->site_hop_latency_s[i]);
    }
    bool p2p = o->stage >= 0 || o->op == SAX_OP_ALL_TO_ALL || o->op == SAX_OP_SENDRECV;
    double nccl = p2p ? SAX_NCCL_STEPS * sax_nccl_p2p_chunk(c, false) : sax_nccl_buffer_bytes(c);
    x->inflight_bytes = fmin(nccl, c->connections * window);
}

/* The terms of one operation and the largest of them (docs/cost-model.md section 10). */
static void explain_op(const sax_cluster_t *cl, const sax_candidate_t *c, const op_t *o,
                       sax_coll_explain_t *x)
{
    memset(x, 0, sizeof *x);
    x->time_s = op_time(cl, c, o);
    double *t = x->term_s;
    t[SAX_LIMIT_LATENCY] = relaxed_time(cl, c, o, FREE_WINDOW | FREE_BANDWIDTH);
    t[SAX_LIMIT_WINDOW] = fmax(0.0, relaxed_time(cl, c, o, FREE_BANDWIDTH) - t[SAX_LIMIT_LATENCY]);
    t[SAX_LIMIT_SCALE_UP] = relaxed_time(cl, c, o, FREE_LATENCY | (FREE_BANDWIDTH & ~FREE_SCALE_UP));
    t[SAX_LIMIT_NIC] =
        cl->n_tiers > 0 ? relaxed_time(cl, c, o, FREE_LATENCY | (FREE_BANDWIDTH & ~FREE_NIC)) : 0.0;
    t[SAX_LIMIT_OVERSUBSCRIPTION] = relaxed_time(cl, c, o, FREE_LATENCY | (FREE_BANDWIDTH & ~FREE_UPLINK));
    t[SAX_LIMIT_LINK_CAPACITY] = relaxed_time(cl, c, o, FREE_LATENCY | (FREE_BANDWIDTH & ~FREE_LINK));
    /* ties go to the first: latency before the window it multiplies, the NIC before an uplink that
     * matches it */
    static const sax_limit_t order[] = {SAX_LIMIT_LATENCY,          SAX_LIMIT_WINDOW,
                                        SAX_LIMIT_SCALE_UP,         SAX_LIMIT_NIC,
                                        SAX_LIMIT_OVERSUBSCRIPTION, SAX_LIMIT_LINK_CAPACITY};
    x->limited_by = order[0];
    for (size_t i = 1; i < sizeof order / sizeof order[0]; i++)
        if (t[order[i]] > t[x->limited_by] * (1.0 + 1e-9))
            x->limited_by = order[i];
    describe(cl, c, o, x);
}

sax_status_t sax_collective_explain(const sax_cluster_t *cl, const sax_candidate_t *c, sax_coll_op_t op,
                                    sax_algorithm_t alg, int n, long stride, bool concurrent, double bytes,
                                    sax_coll_explain_t *out, sax_error_t *err)
{
    sax_coll_prediction_t pred; /* checks the group and the algorithm, with the messages users get */
    sax_status_t st = sax_collective_predict(cl, c, op, alg, n, stride, concurrent, bytes, false, &pred, err);
    if (st != SAX_OK)
        return st;
    sax_layout_t lay;
    sax_layout_levels(cl, &lay);
    sax_group_t g;
    sax_layout_group_strided(cl, &lay, n, stride, concurrent, &g);
    op_t o = {.lay = &lay, .g = &g, .stage = -1, .op = op, .alg = alg, .bytes = bytes, .elem = 4.0};
    explain_op(cl, c, &o, out);
    return SAX_OK;
}

/* ---- the phases of an iteration ------------------------------------------------------------------ */

/* A collective of the data-parallel groups, issued `count` times an iteration. */
typedef struct {
    sax_dim_t dim; /* SAX_DIM_DP or SAX_GROUP_EXPERT_DP */
    sax_coll_op_t op;
    double bytes, elem, count;
} dp_call_t;

/* The data-parallel collective of the critical stage that takes the most time over the iteration, as
 * eval.c issues them: after the last backward (ZeRO 0: all-reduce; 1-2: reduce-scatter and all-gather),
 * or per layer and micro-batch (ZeRO 3: two gathers and a scatter). False when there is none. */
static bool dp_dominant(const sax_problem_t *p, const sax_candidate_t *c, const sax_layout_t *lay,
                        const sax_eval_detail_t *d, int n_dense, const sax_layer_cost_t *dense,
                        const sax_layer_cost_t *moe, op_t *best)
{
    const double gb = sax_grad_bytes(&p->training), a = SAX_ACT_BYTES;
    const sax_dim_t dp = SAX_DIM_DP, xdp = SAX_GROUP_EXPERT_DP;
    dp_call_t k[8];
    int n = 0;
    double shared = d->params - d->expert_params, ex = d->expert_params;
    if (c->zero == 0) {
        k[n++] = (dp_call_t){dp, SAX_OP_ALL_REDUCE, shared * gb, gb, 1.0};
        k[n++] = (dp_call_t){xdp, SAX_OP_ALL_REDUCE, ex * gb, gb, 1.0};
    } else if (c->zero <= 2) {
        k[n++] = (dp_call_t){dp, SAX_OP_REDUCE_SCATTER, shared * gb, gb, 1.0};
        k[n++] = (dp_call_t){xdp, SAX_OP_REDUCE_SCATTER, ex * gb, gb, 1.0};
        k[n++] = (dp_call_t){dp, SAX_OP_ALL_GATHER, shared * a, a, 1.0};
        k[n++] = (dp_call_t){xdp, SAX_OP_ALL_GATHER, ex * a, a, 1.0};
    } else {
        double md = (double)d->micro * n_dense, mm = (double)d->micro * (d->layers - n_dense);
        double sh = moe->params - moe->expert_params, xe = moe->expert_params;
        k[n++] = (dp_call_t){dp, SAX_OP_ALL_GATHER, dense->params * a, a, 2.0 * md};
        k[n++] = (dp_call_t){dp, SAX_OP_REDUCE_SCATTER, dense->params * gb, gb, md};
        if (p->model.experts > 0) {
            k[n++] = (dp_call_t){dp, SAX_OP_ALL_GATHER, sh * a, a, 2.0 * mm};
            k[n++] = (dp_call_t){xdp, SAX_OP_ALL_GATHER, xe * a, a, 2.0 * mm};
            k[n++] = (dp_call_t){dp, SAX_OP_REDUCE_SCATTER, sh * gb, gb, mm};
            k[n++] = (dp_call_t){xdp, SAX_OP_REDUCE_SCATTER, xe * gb, gb, mm};
        }
    }
    const sax_cluster_t *cl = &p->cluster;
    double most = 0.0;
    for (int i = 0; i < n; i++) {
        const sax_group_t *g = &lay->dim[k[i].dim];
        if (!(k[i].bytes > 0.0) || !(k[i].count > 0.0) || g->n <= 1)
            continue;
        op_t o = {.lay = lay,
                  .g = g,
                  .stage = -1,
                  .op = k[i].op,
                  .alg = c->algorithm,
                  .bytes = k[i].bytes,
                  .elem = k[i].elem};
        double t = k[i].count * op_time(cl, c, &o);
        if (t > most) {
            most = t;
            *best = o;
        }
    }
    return most > 0.0;
}

sax_status_t sax_model_explain(const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch,
                               sax_bottleneck_t out[SAX_BN_PHASE_COUNT], int *n)
{
    *n = 0;
    sax_result_t r;
    sax_pipeline_t pl;
    sax_eval_detail_t d;
    sax_status_t st = sax_model_eval_detail(p, c, scratch, &r, &pl, &d);
    if (st != SAX_OK || !r.feasible)
        return st;
    const sax_cluster_t *cl = &p->cluster;
    const sax_model_desc_t *md = &p->model;
    sax_layout_t lay;
    if (sax_layout_build(cl, c, &lay) != SAX_FEASIBLE)
        return SAX_ERR_INTERNAL;
    int n_dense = md->experts > 0 ? md->dense_layers - d.first_layer : d.layers;
    n_dense = n_dense < 0 ? 0 : (n_dense > d.layers ? d.layers : n_dense);
    /* the bytes of the per-layer collectives, as eval.c takes them (the cluster's GPU type) */
    sax_layer_cost_t dense, moe;
    sax_layer_cost(md, &cl->gpu, &p->training, c->tp, c->cp, c->ep, sax_candidate_etp(c), c->micro_batch,
                   c->sequence_parallel, false, &dense);
    moe = dense;
    if (md->experts > 0)
        sax_layer_cost(md, &cl->gpu, &p->training, c->tp, c->cp, c->ep, sax_candidate_etp(c), c->micro_batch,
                       c->sequence_parallel, true, &moe);

    sax_bottleneck_t b[SAX_BN_PHASE_COUNT];
    memset(b, 0, sizeof b);
    for (int i = 0; i < SAX_BN_PHASE_COUNT; i++)
        b[i].phase = (sax_bn_phase_t)i;
    const double *bd = r.breakdown_s;

    /* compute and the optimizer step */
    b[SAX_BN_COMPUTE].math_s = d.math_s; /* as eval.c composes the compute */
    b[SAX_BN_COMPUTE].memory_s = d.memory_s;
    b[SAX_BN_COMPUTE].exposed_s = fmax(0.0, bd[SAX_PHASE_COMPUTE] - d.opt_s);
    b[SAX_BN_COMPUTE].limited_by = b[SAX_BN_COMPUTE].memory_s > b[SAX_BN_COMPUTE].math_s
                                       ? SAX_LIMIT_MEMORY_BANDWIDTH
                                       : SAX_LIMIT_COMPUTE;
    /* the optimizer's pass over HBM (eval.c), and the host's synchronisation at the step: latency */
    const double step = fmin(d.opt_s, p->training.step_overhead_s);
    b[SAX_BN_OPTIMIZER].exposed_s = d.opt_s;
    b[SAX_BN_OPTIMIZER].memory_s = d.opt_s - step;
    b[SAX_BN_OPTIMIZER].limited_by = d.opt_s - step >= step ? SAX_LIMIT_MEMORY_BANDWIDTH : SAX_LIMIT_LATENCY;

    /* the per-layer collectives: TP and CP rings, EP's all-to-all */
    const struct {
        sax_bn_phase_t phase;
        sax_phase_t part;
        sax_dim_t dim;
        sax_coll_op_t op;
        double bytes;
    } layer_ops[] = {{SAX_BN_TP, SAX_PHASE_TP, SAX_DIM_TP, SAX_OP_ALL_REDUCE, dense.tp_bytes},
                     {SAX_BN_CP, SAX_PHASE_CP, SAX_DIM_CP, SAX_OP_ALL_GATHER, dense.cp_bytes * c->cp},
                     {SAX_BN_EP, SAX_PHASE_EP, SAX_DIM_EP, SAX_OP_ALL_TO_ALL,
                      sax_ep_dispatch_bytes(&p->model, &p->training, &moe, &lay.dim[SAX_DIM_EP])}};
    for (size_t i = 0; i < sizeof layer_ops / sizeof layer_ops[0]; i++) {
        sax_bottleneck_t *x = &b[layer_ops[i].phase];
        x->exposed_s = bd[layer_ops[i].part];
        if (!(x->exposed_s > 0.0))
            continue;
        op_t o = {.lay = &lay,
                  .g = &lay.dim[layer_ops[i].dim],
                  .stage = -1,
                  .op = layer_ops[i].op,
                  .alg = SAX_ALGORITHM_RING,
                  .bytes = layer_ops[i].bytes,
                  .elem = SAX_ACT_BYTES};
        explain_op(cl, c, &o, &x->coll);
        if (layer_ops[i].dim == SAX_DIM_EP) { /* HybridEP's kernels at their measured share of the speed */
            double k = sax_ep_dispatch_speed(&p->training);
            x->coll.time_s /= k;
            for (int t = 0; t < SAX_LIMIT_COUNT; t++)
                x->coll.term_s[t] /= k;
        }
        x->has_coll = true;
        x->limited_by = x->coll.limited_by;
    }

    /* data parallelism */
    sax_bottleneck_t *dpx = &b[SAX_BN_DP];
    dpx->exposed_s = bd[SAX_PHASE_DP];
    op_t dp_op;
    if (dpx->exposed_s > 0.0 && dp_dominant(p, c, &lay, &d, n_dense, &dense, &moe, &dp_op)) {
        explain_op(cl, c, &dp_op, &dpx->coll);
        dpx->has_coll = true;
        dpx->limited_by = dpx->coll.limited_by;
    }
    dpx->stage = d.crit;
    dpx->dp_wait = d.dp_wait;
    dpx->last_bucket_share = d.dp_last_share;

    /* the pipeline: its bubble and its transfers, whichever is longer. The transfer explained is the
     * slowest boundary's; the bubble is the schedule's fill and drain, waiting on the other stages'
     * events, so it is limited by what takes most of those: compute, or the traffic inside them (TP, CP,
     * EP, ZeRO-3's gathers), whose verdicts are above. */
    sax_bottleneck_t *x = &b[SAX_BN_PP];
    x->bubble_s = bd[SAX_PHASE_BUBBLE];
    x->exposed_s = bd[SAX_PHASE_BUBBLE] + bd[SAX_PHASE_PP];
    x->bubble_of = SAX_BN_COMPUTE;
    x->limited_by = b[SAX_BN_COMPUTE].limited_by;
    if (bd[SAX_PHASE_PP] > bd[SAX_PHASE_BUBBLE] && c->pp > 1) {
        int slow = 0, boundaries = c->vpp > 1 ? c->pp : c->pp - 1;
        for (int s = 1; s < boundaries; s++)
            if (pl.link_s[s] > pl.link_s[slow])
                slow = s;
        op_t o = {.lay = &lay,
                  .g = &lay.dim[SAX_DIM_PP],
                  .stage = slow,
                  .op = SAX_OP_SENDRECV,
                  .alg = SAX_ALGORITHM_RING,
                  .bytes = (double)c->micro_batch * md->seq_len / c->cp * md->hidden * SAX_ACT_BYTES / c->tp,
                  .elem = SAX_ACT_BYTES};
        explain_op(cl, c, &o, &x->coll);
        x->has_coll = true;
        x->limited_by = x->coll.limited_by;
    } else {
        const struct {
            sax_bn_phase_t phase;
            double s;
        } part[] = {{SAX_BN_TP, bd[SAX_PHASE_TP]},
                    {SAX_BN_CP, bd[SAX_PHASE_CP]},
                    {SAX_BN_EP, bd[SAX_PHASE_EP]},
                    {SAX_BN_DP, d.z3_s}};
        double most = b[SAX_BN_COMPUTE].exposed_s;
        for (size_t i = 0; i < sizeof part / sizeof part[0]; i++)
            if (part[i].s > most && b[part[i].phase].has_coll) {
                most = part[i].s;
                x->bubble_of = part[i].phase;
                x->limited_by = b[part[i].phase].limited_by;
            }
    }

    /* the phases that take time, longest first (ties in the list's order) */
    for (int i = 0; i < SAX_BN_PHASE_COUNT; i++) {
        if (!(b[i].exposed_s > 0.0))
            continue;
        int j = *n;
        while (j > 0 && out[j - 1].exposed_s < b[i].exposed_s) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = b[i];
        (*n)++;
    }
    return SAX_OK;
}
