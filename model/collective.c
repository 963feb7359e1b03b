/* collective.c - alpha-beta cost of collectives, latency counted per algorithm step.
 *
 * For n participants, S bytes per participant, per-participant bandwidth B and per-step latency a
 * (domain.md "Collectives"; Thakur, Rabenseifner & Gropp 2005; NCCL's ring/tree algorithms):
 *   ring all-reduce            2(n-1) a + 2 (n-1)/n S/B
 *   ring reduce-scatter/gather  (n-1) a +   (n-1)/n S/B
 *   all-to-all                  (n-1) a +   (n-1)/n S/B
 *   double binary tree AR      2 log2(n) a + 2 S/B   (large-message form)
 * The algorithms users choose by name (network.algorithm) form a registry of function tables below:
 *   ring          one flat ring over all members; every step waits for the slowest hop.
 *   tree          NCCL's double binary tree for all-reduce (ring for reduce-scatter/all-gather).
 *   hierarchical  reduce-scatter inside each level, all-reduce of 1/n_inner of the data across the
 *                 outermost level, all-gather back down: only 1/n_inner of the bytes cross the slow
 *                 boundary per GPU, but every GPU's share crosses it at once.
 */
#include "model_internal.h"

#include <math.h>

double sax_ring_allreduce_s(int n, double bytes, double alpha_s, double bw_Bps)
{
    if (n <= 1)
        return 0.0;
    return 2.0 * (n - 1) * alpha_s + 2.0 * (n - 1) / n * bytes / bw_Bps;
}

double sax_ring_gather_s(int n, double bytes, double alpha_s, double bw_Bps)
{
    if (n <= 1)
        return 0.0;
    return (n - 1) * alpha_s + (double)(n - 1) / n * bytes / bw_Bps;
}

double sax_alltoall_s(int n, double bytes, double alpha_s, double bw_Bps)
{
    return sax_ring_gather_s(n, bytes, alpha_s, bw_Bps);
}

double sax_tree_allreduce_s(int n, double bytes, double alpha_s, double bw_Bps)
{
    if (n <= 1)
        return 0.0;
    return 2.0 * log2((double)n) * alpha_s + 2.0 * bytes / bw_Bps;
}

/* What a collective needs to know about its group. */
typedef struct {
    const sax_cluster_t *cl;
    const sax_candidate_t *c;
    const sax_layout_t *lay;
    const sax_group_t *g;
    char kind;       /* 'A', 'R', 'G' */
    double bytes;    /* per participant */
    double compress; /* byte factor on cross-site traffic */
    bool xsite;      /* the group crosses a site link */
    double *xsite_bytes;
} coll_t;

static double steps_factor(char kind) { return kind == 'A' ? 2.0 : 1.0; }

static double flows_at(const coll_t *x, double share) { return share * (double)x->lay->gpus / x->g->sites; }

/* the hop a flat algorithm sees: the slowest level it crosses, with one GPU per group leaving
 * each unit (share 1/members-inside) */
static sax_hop_t flat_hop(const coll_t *x)
{
    const sax_group_t *g = x->g;
    sax_hop_t worst = sax_level_hop(x->cl, x->c, x->lay, 0, 1.0, 0.0, -1);
    for (int l = 1; l <= g->top; l++) {
        double share = 1.0 / g->count[l - 1];
        sax_hop_t h = sax_level_hop(x->cl, x->c, x->lay, l, share, flows_at(x, share), g->link);
        worst.bw_Bps = fmin(worst.bw_Bps, h.bw_Bps);
        worst.latency_s = h.latency_s;
    }
    return worst;
}

static double ring(const coll_t *x)
{
    const sax_group_t *g = x->g;
    int n = g->n;
    sax_hop_t h = flat_hop(x);
    double s = x->xsite ? x->bytes * x->compress : x->bytes;
    double coef = steps_factor(x->kind) * (n - 1) / n;
    if (x->xsite)
        *x->xsite_bytes += (double)x->lay->gpus / n * g->sites * coef * s;
    return steps_factor(x->kind) * (n - 1) * h.latency_s + coef * s / h.bw_Bps;
}

static double tree(const coll_t *x)
{
    if (x->kind != 'A')
        return ring(x);
    const sax_group_t *g = x->g;
    sax_hop_t h = flat_hop(x);
    double s = x->xsite ? x->bytes * x->compress : x->bytes;
    if (x->xsite)
        *x->xsite_bytes += (double)x->lay->gpus / g->n * 2.0 * (g->sites - 1) * s;
    return sax_tree_allreduce_s(g->n, s, h.latency_s, h.bw_Bps);
}

static double hierarchical(const coll_t *x)
{
    const sax_group_t *g = x->g;
    double s = x->bytes, t = 0.0;
    int inner = 1;
    for (int l = 0; l <= g->top; l++) {
        int f = g->count[l] / inner;
        if (f > 1) {
            bool site = x->xsite && l == g->top;
            sax_hop_t h = sax_level_hop(x->cl, x->c, x->lay, l, 1.0, site ? flows_at(x, 1.0) : 0.0, g->link);
            double sl = site ? s * x->compress : s;
            if (l == g->top) { /* the outermost level runs the collective itself */
                t += steps_factor(x->kind) * (f - 1) * h.latency_s +
                     steps_factor(x->kind) * (f - 1) / (double)f * sl / h.bw_Bps;
                if (site) /* every member sends its share of the outermost step across */
                    *x->xsite_bytes +=
                        (double)x->lay->gpus * steps_factor(x->kind) * (f - 1) / (double)f * sl;
            } else { /* reduce-scatter on the way up (and all-gather on the way down for 'A') */
                double one = (f - 1) * h.latency_s + (f - 1) / (double)f * sl / h.bw_Bps;
                t += x->kind == 'A' ? 2.0 * one : one;
            }
            s /= f;
        }
        inner = g->count[l];
    }
    return t;
}

typedef struct {
    sax_algorithm_t id;
    double (*run)(const coll_t *x);
} algorithm_desc_t;

static const algorithm_desc_t algorithms[SAX_ALGORITHM_COUNT] = {
    {SAX_ALGORITHM_RING, ring},
    {SAX_ALGORITHM_TREE, tree},
    {SAX_ALGORITHM_HIERARCHICAL, hierarchical},
};

double sax_collective_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                        sax_dim_t d, char kind, double bytes, double elem_bytes, double *xsite_bytes)
{
    const sax_group_t *g = &lay->dim[d];
    if (g->n <= 1 || bytes <= 0.0)
        return 0.0;
    coll_t x = {.cl = cl,
                .c = c,
                .lay = lay,
                .g = g,
                .kind = kind,
                .bytes = bytes,
                .compress = sax_compression_factor(c->compression, elem_bytes),
                .xsite = g->top == lay->n_levels - 1,
                .xsite_bytes = xsite_bytes};
    double extra = 0.0;
    if (x.xsite && x.compress < 1.0) /* quantise before sending, dequantise after: read + write */
        extra = 2.0 * bytes * (1.0 + x.compress) / (cl->gpu.hbm_bw_Bps * cl->gpu.mem_eff);
    if (kind == 'X') { /* all-to-all: every member sends (n-1)/n of its bytes, all at once */
        sax_hop_t h = sax_level_hop(cl, c, lay, g->top, 1.0, x.xsite ? flows_at(&x, 1.0) : 0.0, g->link);
        double s = x.xsite ? bytes * x.compress : bytes;
        if (x.xsite)
            *xsite_bytes += (double)lay->gpus * (1.0 - (double)g->count[g->top - 1] / g->n) * s;
        return sax_alltoall_s(g->n, s, h.latency_s, h.bw_Bps) + extra;
    }
    /* TP, CP and EP collectives use rings; network.algorithm chooses for DP (experts' too) */
    sax_algorithm_t alg = d == SAX_DIM_DP || d == SAX_GROUP_EXPERT_DP ? c->algorithm : SAX_ALGORITHM_RING;
    return algorithms[alg].run(&x) + extra;
}

double sax_p2p_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay, int stage,
                 double bytes, double elem_bytes, double *xsite_bytes, int *link)
{
    int lvl = sax_layout_stage_level(cl, lay, stage, link);
    const sax_group_t *g = &lay->dim[SAX_DIM_PP];
    /* one stage's GPUs of each unit send across at once: 1 / (stages inside a unit) */
    double share = lvl > 0 ? 1.0 / (double)(g->count[lvl - 1] > 0 ? g->count[lvl - 1] : 1) : 1.0;
    bool xsite = lvl == lay->n_levels - 1;
    double flows = xsite ? (double)lay->gpus / g->n : 0.0; /* every pipeline's boundary stage sends */
    sax_hop_t h = sax_level_hop(cl, c, lay, lvl, share, flows, *link);
    double k = xsite ? sax_compression_factor(c->compression, elem_bytes) : 1.0;
    double extra = k < 1.0 ? 2.0 * bytes * (1.0 + k) / (cl->gpu.hbm_bw_Bps * cl->gpu.mem_eff) : 0.0;
    if (xsite)
        *xsite_bytes += bytes * k;
    return h.latency_s + bytes * k / h.bw_Bps + extra;
}
