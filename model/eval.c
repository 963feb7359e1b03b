/* eval.c - one candidate, end to end: feasibility, per-stage costs, the pipeline (schedule.c),
 * DP synchronisation, memory (memory.c), and the breakdown of the iteration (docs/cost-model.md
 * sections 6-9). Pure: no globals, no allocation, no I/O.
 */
#include "model_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    double f, b, w;              /* per micro-batch, one chunk: forward, input grad, weight grad */
    double comp, tp, cp, ep, z3; /* per micro-batch, whole stage: where f + b + w went */
    double place_f, place_b;     /* f and b without the traffic of groups that cross site links */
    double params;               /* parameters held per GPU (before ZeRO sharding) */
    double expert_params;        /* of which routed experts (replicated over their expert-DP only) */
    double emb_params;           /* of which the embedding (the first stage's) */
    double head_params;          /* of which the output layer and the MTP depths (the last stage's) */
    double act, act_peak_layer;  /* activation bytes per micro-batch kept; one layer's working set */
    double act_loss;             /* apart from act: the output layer's fp32 logits a micro-batch keeps */
    double peak_flops;           /* of this stage's GPU */
    const sax_gpu_t *gpu;
    int layers;
} stage_t;

/* A stage's sums over its layers: `n` layers like `layer` (their per-layer sums; the working set is
 * one layer's) set them (`first`) or add to them. */
static void stage_layers(stage_t *st, const stage_t *layer, double n, bool first)
{
    double *const dst[] = {&st->f,  &st->b,  &st->w,  &st->place_f, &st->place_b,       &st->comp, &st->tp,
                           &st->cp, &st->ep, &st->z3, &st->params,  &st->expert_params, &st->act};
    const double src[] = {
        layer->f,  layer->b,  layer->w,  layer->place_f, layer->place_b,       layer->comp, layer->tp,
        layer->cp, layer->ep, layer->z3, layer->params,  layer->expert_params, layer->act};
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++)
        *dst[i] = (first ? 0.0 : *dst[i]) + n * src[i];
    double peak = n > 0 ? layer->act_peak_layer : 0.0;
    st->act_peak_layer = first ? peak : sax_max(st->act_peak_layer, peak);
}

/* per GPU type: layer costs */
typedef struct {
    const sax_gpu_t *gpu;
    sax_layer_cost_t dense, moe;
    sax_logits_cost_t logits;
    sax_mtp_cost_t mtp; /* one MTP depth's own work (zero without MTP) */
    double slowest;     /* sax_slowest_of this GPU type over the candidate's GPUs */
} gpu_costs_t;

static sax_status_t infeasible(sax_result_t *r, sax_infeasible_t why)
{
    r->feasible = false;
    r->reason = why;
    return SAX_OK;
}

/* Refuses with `reason`; with `why` (sax_model_refusal, off the evaluation path) says which check, in
 * the configuration's keys. */
#define REFUSE(reason, ...)                                                                                  \
    do {                                                                                                     \
        if (why != NULL)                                                                                     \
            snprintf(why, n, __VA_ARGS__);                                                                   \
        return reason;                                                                                       \
    } while (0)

static sax_infeasible_t check_divisibility(const sax_problem_t *p, const sax_candidate_t *c, char *why,
                                           size_t n)
{
    const sax_model_desc_t *m = &p->model;
    if (m->heads % c->tp != 0 || (m->kv_heads % c->tp != 0 && c->tp % m->kv_heads != 0))
        REFUSE(
            SAX_INFEASIBLE_DIVISIBILITY,
            "tp = %d: model.heads = %d and model.kv_heads = %d must split over it (kv_heads may also divide "
            "tp)",
            c->tp, m->heads, m->kv_heads);
    if (m->seq_len % c->cp != 0)
        REFUSE(SAX_INFEASIBLE_DIVISIBILITY, "cp = %d does not divide model.seq_len = %d", c->cp, m->seq_len);
    /* the routed experts' grid, etp x ep x expert-DP, fills each stage's tp x cp x dp ranks (MoE parallel
     * folding); with etp = tp that is ep dividing cp x dp */
    if (sax_candidate_expert_dp(c) < 1)
        REFUSE(SAX_INFEASIBLE_DIVISIBILITY,
               "ep x expert tensor parallel = %d x %d does not divide tp x cp x dp = %d x %d x %d", c->ep,
               sax_candidate_etp(c), c->tp, c->cp, c->dp);
    if (c->ep > 1 && (m->experts <= 0 || m->experts % c->ep != 0))
        REFUSE(SAX_INFEASIBLE_DIVISIBILITY, "ep = %d does not divide model.experts = %d", c->ep, m->experts);
    long mb = (long)c->micro_batch * c->dp;
    if (p->training.global_batch % mb != 0)
        REFUSE(SAX_INFEASIBLE_DIVISIBILITY,
               "training.global_batch = %lld is not a multiple of micro_batch x dp = %d x %d = %ld",
               (long long)p->training.global_batch, c->micro_batch, c->dp, mb);
    if (!sax_layer_split_valid(m->layers, c))
        REFUSE(SAX_INFEASIBLE_DIVISIBILITY,
               "model.layers = %d do not split over pp = %d stages of vpp = %d chunks as %s sets them",
               m->layers, c->pp, c->vpp,
               c->n_layout > 0 ? "parallelism.pipeline_model_parallel_layout"
               : c->first_stage_layers != 0 || c->last_stage_layers != 0
                   ? "parallelism.decoder_first/last_pipeline_num_layers"
                   : (c->layer_split == SAX_LAYER_SPLIT_EMBEDDING_LOSS
                          ? "layer_split embedding-loss (layers + 2 over pp, then over vpp)"
                          : "parallelism.layer_split (at least one layer a chunk)"));
    long micro = p->training.global_batch / mb;
    switch (c->schedule) {
    case SAX_SCHEDULE_INTERLEAVED:
        if (c->vpp < 2 || c->pp < 2)
            REFUSE(SAX_INFEASIBLE_SCHEDULE,
                   "schedule interleaved needs pp >= 2 and vpp >= 2, found pp = %d, vpp = %d", c->pp, c->vpp);
        if (micro % c->pp != 0)
            REFUSE(
                SAX_INFEASIBLE_SCHEDULE,
                "schedule interleaved: the %ld micro-batches a pipeline runs (global_batch / (micro_batch x dp)) "
                "are not a multiple of pp = %d",
                micro, c->pp);
        break;
    case SAX_SCHEDULE_DUALPIPE:
        if (c->vpp != 1 || c->pp % 2 != 0 || micro % 2 != 0 || micro < 2L * c->pp) /* DualPipe.step asserts */
            REFUSE(
                SAX_INFEASIBLE_SCHEDULE,
                "schedule dualpipe needs vpp = 1, an even pp and an even number of micro-batches, at least 2 x "
                "pp: found vpp = %d, pp = %d, %ld micro-batches",
                c->vpp, c->pp, micro);
        break;
    default:
        if (c->vpp != 1)
            REFUSE(SAX_INFEASIBLE_SCHEDULE, "vpp = %d needs schedule interleaved, found %s", c->vpp,
                   sax_schedule_names[c->schedule]);
    }
    return SAX_FEASIBLE;
}
#undef REFUSE

/* Each stage's GPU type (the site its first rank is on) and its share of the layers. */
static void stage_gpus(const sax_problem_t *p, const sax_candidate_t *c, const sax_layout_t *lay, stage_t *st)
{
    const sax_cluster_t *cl = &p->cluster;
    double peak[SAX_SIM_MAX_STAGES];
    int layers[SAX_SIM_MAX_STAGES];
    for (int s = 0; s < c->pp; s++) {
        memset(&st[s], 0, sizeof st[s]);
        st[s].gpu = &cl->sites[sax_layout_site_of_rank(cl, (long)s * lay->stride[SAX_DIM_PP])].gpu;
        peak[s] = st[s].peak_flops = sax_gpu_peak_flops(st[s].gpu, p->training.precision);
    }
    sax_layer_split_stages(p->model.layers, c, peak, layers);
    for (int s = 0; s < c->pp; s++)
        st[s].layers = layers[s];
}

sax_status_t sax_model_stage_layers(const sax_problem_t *p, const sax_candidate_t *c, int *layers)
{
    const sax_cluster_t *cl = &p->cluster;
    sax_layout_t lay;
    if (c->pp < 1 || c->pp > SAX_SIM_MAX_STAGES || c->vpp < 1 || !sax_layer_split_valid(p->model.layers, c) ||
        sax_layout_build(cl, c, &lay) != SAX_FEASIBLE)
        return SAX_ERR_INPUT;
    stage_t st[SAX_SIM_MAX_STAGES];
    stage_gpus(p, c, &lay, st);
    for (int s = 0; s < c->pp; s++)
        layers[s] = st[s].layers;
    return SAX_OK;
}

static const gpu_costs_t *costs_for(const sax_problem_t *p, const sax_candidate_t *c, const sax_gpu_t *gpu,
                                    gpu_costs_t *cache, int *n_cache)
{
    for (int i = 0; i < *n_cache; i++)
        if (cache[i].gpu == gpu)
            return &cache[i];
    gpu_costs_t *g = &cache[(*n_cache)++];
    g->gpu = gpu;
    /* the job computes at the pace of its slowest GPU (sax_slowest_of, docs/cost-model.md section 2) */
    const int degrees[4] = {c->tp, c->cp, c->pp, c->dp};
    double k = g->slowest = sax_slowest_of(gpu, (double)sax_degrees_product(degrees, 4, INT32_MAX));
    sax_gpu_t slow = *gpu;
    slow.peak_flops_bf16 /= k;
    slow.peak_flops_fp8 /= k;
    slow.hbm_bw_Bps /= k;
    const int etp = sax_candidate_etp(c);
    sax_layer_cost(&p->model, &slow, &p->training, c->tp, c->cp, c->ep, etp, c->micro_batch,
                   c->sequence_parallel, false, &g->dense);
    if (p->model.experts > 0)
        sax_layer_cost(&p->model, &slow, &p->training, c->tp, c->cp, c->ep, etp, c->micro_batch,
                       c->sequence_parallel, true, &g->moe);
    else
        g->moe = g->dense;
    sax_logits_cost(&p->model, &slow, &p->training, c->tp, c->cp, c->micro_batch, &g->logits);
    memset(&g->mtp, 0, sizeof g->mtp);
    if (p->model.mtp_num_layers > 0)
        sax_mtp_cost(&p->model, &slow, &p->training, c->tp, c->cp, c->micro_batch, c->sequence_parallel,
                     &g->mtp);
    return g;
}

/* The collectives inside a layer, by class: one TP all-reduce (or RS+AG pair under SP), the same over
 * the routed experts' TP group (TP's without parallel folding), one ring-attention pass of K and V,
 * one all-to-all. */
typedef enum { LAYER_TP, LAYER_ETP, LAYER_CP, LAYER_EP, LAYER_CLASSES } layer_class_t;

typedef struct {
    double s[LAYER_CLASSES];         /* one call's time */
    sax_traffic_t tr[LAYER_CLASSES]; /* what it puts on the site links */
} layer_comm_t;

/* The trace's and the breakdown's dimension of each class. */
static const sax_dim_t layer_class_dim[LAYER_CLASSES] = {SAX_DIM_TP, SAX_DIM_TP, SAX_DIM_CP, SAX_DIM_EP};

/* sax_layout_build, or the scratch's copy of the layout when the last one built had the same inputs
 * (`own` holds it without a scratch). */
static const sax_layout_t *layout_of(sax_scratch_t *sc, const sax_cluster_t *cl, const sax_candidate_t *c,
                                     sax_layout_t *own, sax_infeasible_t *why)
{
    if (sc == NULL) {
        *why = sax_layout_build(cl, c, own);
        return own;
    }
    sax_layout_key_t k;
    memset(&k, 0, sizeof k);
    k.tp = c->tp;
    k.pp = c->pp;
    k.dp = c->dp;
    k.cp = c->cp;
    k.ep = c->ep;
    k.etp = sax_candidate_etp(c);
    k.n_order = c->n_order;
    for (int i = 0; i < c->n_order; i++)
        k.order[i] = (int32_t)c->order[i];
    k.scale_up = cl->scale_up.size;
    k.n_tiers = cl->n_tiers;
    for (int t = 0; t < cl->n_tiers; t++)
        k.tier_gpus[t] = cl->tiers[t].gpus;
    k.n_sites = cl->n_sites;
    for (int s = 0; s < cl->n_sites; s++)
        k.site_gpus[s] = cl->sites[s].gpus;
    k.n_links = cl->n_links;
    for (int l = 0; l < cl->n_links; l++) {
        k.link_ends[l] = cl->links[l].a * SAX_MAX_SITES + cl->links[l].b;
        k.link_latency_s[l] = cl->links[l].latency_s;
    }
    if (!sc->lay_valid || memcmp(&k, &sc->lay_key, sizeof k) != 0) {
        sc->lay_key = k;
        sc->lay_why = sax_layout_build(cl, c, &sc->lay);
        sc->lay_valid = true;
    }
    *why = sc->lay_why;
    return &sc->lay;
}

/* Word-wise hash (sax_hash_word) of a double's bits, avalanched once at the end by memo_slot. */
static uint64_t mix_double(uint64_t h, double v)
{
    uint64_t w;
    memcpy(&w, &v, sizeof w);
    return sax_hash_word(h, w);
}

/* Everything of the problem and the candidate a collective's time depends on but the group's dimension,
 * the op and the bytes: the network's quantities, the candidate's layout and network knobs. */
static uint64_t network_key(const sax_cluster_t *cl, const sax_candidate_t *c)
{
    uint64_t h = 0x6a09e667f3bcc908ull;
    const sax_scale_up_t *u = &cl->scale_up;
    h = mix_double(mix_double(mix_double(sax_hash_word(h, (uint64_t)u->size), u->bw_Bps), u->latency_s),
                   u->efficiency);
    h = mix_double(mix_double(h, cl->gpu.hbm_bw_Bps), cl->gpu.mem_eff);
    h = sax_hash_word(h, (uint64_t)cl->n_tiers);
    for (int t = 0; t < cl->n_tiers; t++) {
        const sax_tier_t *tr = &cl->tiers[t];
        h = mix_double(
            mix_double(mix_double(sax_hash_word(h, (uint64_t)tr->gpus), tr->bw_Bps), tr->latency_s),
            tr->oversubscription * 1e3 + tr->efficiency);
    }
    h = sax_hash_word(h, (uint64_t)cl->n_sites);
    for (int i = 0; i < cl->n_sites; i++)
        h = sax_hash_word(h, (uint64_t)cl->sites[i].gpus);
    h = sax_hash_word(h, (uint64_t)cl->n_links);
    for (int i = 0; i < cl->n_links; i++) {
        const sax_site_link_t *l = &cl->links[i];
        h = sax_hash_word(h, (uint64_t)(l->a * 64 + l->b) << 1 | (uint64_t)l->tcp_delayed_ack);
        const double q[] = {l->bw_Bps,
                            l->latency_s,
                            l->loss,
                            l->mtu_bytes,
                            l->mss_bytes,
                            l->window_bytes,
                            l->pfc_headroom_bytes,
                            l->uplink_oversubscription};
        for (size_t k = 0; k < sizeof q / sizeof q[0]; k++)
            h = mix_double(h, q[k]);
    }
    const int32_t knobs[] = {c->tp,           c->pp,
                             c->dp,           c->cp,
                             c->ep,           sax_candidate_etp(c),
                             c->n_order,      c->channels,
                             c->buffer_bytes, c->p2p_chunk_bytes,
                             c->p2p_channels};
    for (size_t k = 0; k < sizeof knobs / sizeof knobs[0]; k++)
        h = sax_hash_word(h, (uint64_t)(uint32_t)knobs[k]);
    for (int i = 0; i < c->n_order; i++)
        h = sax_hash_word(h, (uint64_t)c->order[i]);
    return h;
}

typedef struct {
    sax_scratch_t *sc; /* NULL: no memo */
    uint64_t net;      /* network_key */
    uint64_t site;     /* what only traffic between sites sees: transport, connections, compression */
} coll_memo_t;

/* The slot of a call: `what` names it (dimension and op, or a pipeline boundary), `xsite` whether it
 * crosses sites, `alg` the algorithm it runs (or -1). */
static sax_coll_memo_t *memo_slot(coll_memo_t *memo, uint64_t what, bool xsite, int alg, double bytes,
                                  double elem, uint64_t *key)
{
    if (memo->sc == NULL)
        return NULL;
    uint64_t h = mix_double(mix_double(sax_hash_word(memo->net, what), bytes), elem);
    if (xsite)
        h = sax_hash_word(h, memo->site);
    if (alg >= 0)
        h = sax_hash_word(h, (uint64_t)alg);
    h ^= h >> 31; /* splitmix64's finaliser */
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    *key = h | 1; /* never 0, the empty mark */
    return &memo->sc->coll[*key % SAX_COLL_MEMO_SLOTS];
}

/* Zeroes what the links of the cluster use (the rest of a sax_traffic_t is never read). */
static void traffic_zero(sax_traffic_t *t, int n_links)
{
    t->xsite_bytes = 0.0;
    for (int l = 0; l < n_links; l++)
        t->link_bytes[l][0] = t->link_bytes[l][1] = 0.0;
}

static void traffic_sum(sax_traffic_t *dst, const sax_traffic_t *src, int n_links)
{
    if (dst == NULL || src->xsite_bytes <= 0.0)
        return;
    dst->xsite_bytes += src->xsite_bytes;
    for (int l = 0; l < n_links; l++) {
        dst->link_bytes[l][0] += src->link_bytes[l][0];
        dst->link_bytes[l][1] += src->link_bytes[l][1];
    }
}

/* Whether `slot` holds `key`; then its traffic is added to `tr`. */
static bool memo_hit(const sax_coll_memo_t *slot, uint64_t key, sax_traffic_t *tr, int n_links)
{
    if (slot == NULL || slot->key != key || slot->check != ~key)
        return false;
    traffic_sum(tr, &slot->tr, n_links);
    return true;
}

/* Adds `mine` to `tr`, keeps `t` and `mine` in `slot` (may be NULL) under `key`; returns t. */
static double memo_store(sax_coll_memo_t *slot, uint64_t key, double t, const sax_traffic_t *mine,
                         sax_traffic_t *tr, int n_links)
{
    traffic_sum(tr, mine, n_links);
    if (slot != NULL) {
        slot->key = key;
        slot->check = ~key;
        slot->time_s = t;
        slot->tr = *mine;
    }
    return t;
}

/* sax_collective_s, memoised in the scratch. */
static double collective(coll_memo_t *memo, const sax_cluster_t *cl, const sax_candidate_t *c,
                         const sax_layout_t *lay, sax_dim_t d, sax_coll_op_t op, double bytes, double elem,
                         sax_traffic_t *tr)
{
    if (!(bytes > 0.0))
        return 0.0; /* nothing to move (the experts' replicas of a dense model) */
    uint64_t key = 0;
    bool dp = d == SAX_DIM_DP || d == SAX_GROUP_EXPERT_DP;
    sax_coll_memo_t *slot = memo_slot(memo, (uint64_t)d << 8 | (uint64_t)op, lay->dim[d].sites > 1,
                                      dp ? (int)c->algorithm : -1, bytes, elem, &key);
    if (memo_hit(slot, key, tr, cl->n_links))
        return slot->time_s;
    sax_traffic_t mine;
    traffic_zero(&mine, cl->n_links);
    double t = sax_collective_s(cl, c, lay, d, op, bytes, elem, &mine);
    return memo_store(slot, key, t, &mine, tr, cl->n_links);
}

/* sax_p2p_s, memoised alike: a transfer's time depends on the boundary's stage only through the level
 * it crosses and the sites it joins. */
static double p2p(coll_memo_t *memo, const sax_cluster_t *cl, const sax_candidate_t *c,
                  const sax_layout_t *lay, int stage, double bytes, double elem, sax_traffic_t *tr,
                  double *busy_s)
{
    int a, b, lvl = sax_layout_stage_level(cl, lay, stage, &a, &b);
    uint64_t key = 0;
    sax_coll_memo_t *slot =
        memo_slot(memo, 0xf000000ull | (uint64_t)lvl << 16 | (uint64_t)a << 8 | (uint64_t)b,
                  lay->dim[SAX_DIM_PP].sites > 1, -1, bytes, elem, &key);
    if (memo_hit(slot, key, tr, cl->n_links)) {
        *busy_s = slot->busy_s;
        return slot->time_s;
    }
    sax_traffic_t mine;
    traffic_zero(&mine, cl->n_links);
    double t = sax_p2p_s(cl, c, lay, stage, bytes, elem, &mine, busy_s);
    if (slot != NULL)
        slot->busy_s = *busy_s;
    return memo_store(slot, key, t, &mine, tr, cl->n_links);
}

/* dst += k x src */
static void traffic_add(sax_traffic_t *dst, const sax_traffic_t *src, double k, int n_links)
{
    dst->xsite_bytes += k * src->xsite_bytes;
    for (int l = 0; l < n_links; l++) {
        dst->link_bytes[l][0] += k * src->link_bytes[l][0];
        dst->link_bytes[l][1] += k * src->link_bytes[l][1];
    }
}

/* The other traffic classes' demand on each site link direction, B/s: bg += k x t. */
static void demand_add(double (*bg)[2], const sax_traffic_t *t, double k, bool flip, int n_links)
{
    for (int l = 0; l < n_links; l++) {
        bg[l][0] += k * t->link_bytes[l][flip];
        bg[l][1] += k * t->link_bytes[l][!flip];
    }
}

/* A synchronisation that alone takes t and puts `mine` on the site links (`flip`: the other way round,
 * a pipeline's gradients), released while the other classes demand bg (NULL: nothing) for `window`
 * seconds: when it ends (sax_shared_finish_s, docs/cost-model.md section 9). */
static double shared_s(const double *cap, int n_links, double t, double window, const sax_traffic_t *mine,
                       bool flip, const double (*bg)[2])
{
    if (bg == NULL || !(mine->xsite_bytes > 0.0))
        return t;
    return sax_shared_finish_s(t, window, n_links, cap, mine->link_bytes, flip, bg);
}

/* What the trace and the bottlenecks read of one layer, besides its stage_t sums (kept out of stage_t:
 * the evaluation does not need them). */
typedef struct {
    double fwd_comm[SAX_DIM_COUNT]; /* exposed traffic inside the forward pass, by dimension (SAX_DIM_DP:
                                       ZeRO-3) */
    double math, memory;            /* its compute (stage_t.comp) split: GEMMs and attention, and the
                                       memory-bound kernels (norms, residuals, activations, softmax) */
} layer_parts_t;

/* The share of a stage's chunks whose all-to-alls run beside another micro-batch's compute
 * (docs/cost-model.md section 6): all of DualPipe's; under Megatron-Core's
 * --overlap-moe-expert-parallel-comm those of the 1F1B phase, where each forward is paired with an
 * earlier micro-batch's backward. The stage's warm-up forwards (schedules.py at d98e8a64dd:
 * 2 (pp - 1 - s) + (vpp - 1) pp + 1 of its m vpp chunks, the last one added for the overlap; without
 * PP the first micro-batch's) run alone, and as many cool-down backwards. Where Megatron-Core refuses
 * the overlap (sax_candidate_ep_overlap_allowed), none.
 * Megatron-Core's pairing hides `training.ep_overlap_efficiency` of what whole chunks side by side
 * would: its sub-module steps and the dispatcher's own SMs leave the rest waiting. */
static double ep_paired_share(const sax_problem_t *p, const sax_candidate_t *c, int s, long m)
{
    if (c->schedule == SAX_SCHEDULE_DUALPIPE)
        return 1.0;
    if (!p->training.overlap_moe_expert_parallel_comm || !sax_candidate_ep_overlap_allowed(c))
        return 0.0;
    double warm_up = c->pp == 1 ? 1.0 : 2.0 * (c->pp - 1 - s) + (double)(c->vpp - 1) * c->pp + 1.0;
    return sax_max(0.0, 1.0 - warm_up / ((double)m * c->vpp)) * p->training.ep_overlap_efficiency;
}

/* Bytes a parameter that FSDP's own copies move through HBM on the compute stream each micro-batch,
 * forward (bytes[0]) and backward (bytes[1]), with weights gathered in bf16 and gradients reduced in
 * `gb` bytes (docs/cost-model.md section 6):
 * - fsdp2 (PyTorch's fully_shard): every gather lands in one flat buffer that foreach_all_gather_copy_out
 *   splits into the parameters on the compute stream (read and write 2 B), once forward and once
 *   backward; the gradient is copied into the reduce-scatter's input in the reduction's dtype (read 2 B,
 *   write gb) and NCCL averages;
 * - fsdp1 (FullyShardedDataParallel): gathers into the flat parameter itself; the gradient is cast when
 *   the dtypes differ (2 + gb) and divided in place (2 gb);
 * - megatron (Megatron-FSDP): the parameters are views of the gathered bucket; Transformer Engine's fused
 *   accumulation writes the weight gradient into the reduce-scatter's bucket, which is scaled by 1/dp in
 *   place when it is bf16 (2 gb) and by NCCL's PreMulSum otherwise. */
static void fsdp_bytes(sax_fsdp_t kind, double gb, double bytes[2])
{
    const double w = SAX_ACT_BYTES;
    switch (kind) {
    case SAX_FSDP_FSDP2:
        bytes[0] = 2.0 * w;
        bytes[1] = 2.0 * w + w + gb;
        return;
    case SAX_FSDP_FSDP1:
        bytes[0] = 0.0;
        bytes[1] = (gb > w ? w + gb : 0.0) + 2.0 * gb;
        return;
    case SAX_FSDP_MEGATRON:
    case SAX_FSDP_COUNT:
        bytes[0] = 0.0;
        bytes[1] = gb > w ? 0.0 : 2.0 * gb;
        return;
    }
}

/* Megatron-Core's gradient buckets (megatron/core/distributed/distributed_data_parallel.py at d98e8a64dd,
 * docs/cost-model.md section 6). With the overlapped reduction a bucket's reduce-scatter (all-reduce
 * without the distributed optimizer) starts once the backward has produced all of its gradients, and the
 * next forward waits for a bucket's gather before its first layer. A bucket takes parameters in backward
 * order (the output layer, the last layer first, the embedding last) until it holds `bucket` of them
 * (`training.ddp_bucket_size`, by default max(4e7, 1e6 dp)). Only the first stage's first chunk is split:
 * the other stages and chunks synchronise as one bucket each. With `v` chunks the stage's own share is
 * 1/v a chunk. Here at layer granularity: `n` layers of `layer` non-expert parameters, `head` before
 * them and `emb` after (the stage's output layer and embedding). The shares of the stage's non-expert
 * parameters in the first bucket to fill and in the last, the embedding's, whose reduction only starts
 * when the backward ends and whose gather the forward waits for first. */
typedef struct {
    double first, last;
} buckets_t;

static buckets_t ddp_buckets(double bucket, bool split, int v, double head, double layer, double n,
                             double emb)
{
    const double total = head + n * layer + emb;
    if (!(total > 0.0))
        return (buckets_t){1.0, 1.0};
    if (!split) /* one bucket a chunk; the stage's share is its first chunk's, which synchronises last */
        return (buckets_t){1.0 / v, 1.0 / v};
    /* the first chunk alone is split: its layers and the embedding (the head is on the last stage) */
    if (v > 1) {
        n = floor(n / v);
        head = 0.0;
    }
    const double chunk = head + n * layer + emb;
    double first = head, left = n;
    if (first < bucket) {
        double need = layer > 0.0 ? ceil((bucket - first) / layer) : INFINITY;
        if (need >= n) /* the layers never fill one: a single bucket, with the embedding */
            return (buckets_t){chunk / total, chunk / total};
        first += need * layer;
        left -= need;
    }
    double per = layer > 0.0 ? ceil(bucket / layer) : 1.0, full = floor(left / per), rest = left - full * per;
    double last = rest > 0.0 || emb > 0.0 ? rest * layer + emb : full > 0.0 ? per * layer : first;
    return (buckets_t){first / total, last / total};
}

/* The exposed part of a DP collective of `t` seconds whose buckets fill behind a window of `hide` seconds
 * of compute (docs/cost-model.md section 6): each bucket starts once filled and the link takes one at a
 * time, so with equal buckets the end comes either after the last (the embedding's) or after the first
 * bucket's wait plus the rest; `w` is the share of `t` the buckets describe (not the experts'). With
 * several chunks each synchronises behind the others' backward, which the window does not count: only
 * the last bucket is added then. */
static double bucket_exposed(double t, double hide, buckets_t b, double w, int v, bool *queued)
{
    double wait = v == 1 ? t - hide * (1.0 - w * b.first) : t - hide, tail = t * w * b.last;
    if (queued != NULL) /* the queue, not the last bucket, sets the end */
        *queued = wait > tail;
    return sax_max(0.0, sax_max(tail, wait));
}

/* PyTorch's ring attention (training.cp_implementation "pytorch") rather than Transformer Engine's. */
static bool cp_pytorch(const sax_problem_t *p, const sax_candidate_t *c)
{
    return c->cp > 1 && p->training.cp_implementation == SAX_CP_IMPL_PYTORCH;
}

/* The backward's CP traffic in passes of the forward's K and V gather: Transformer Engine gathers
 * again and reduce-scatters the gradients (2); PyTorch gathers again and sends the fp32 gradients c
 * times round the ring, each twice a bf16 step of the gather (1 + 2c/(c - 1)). */
static double cp_backward_passes(const sax_problem_t *p, const sax_candidate_t *c)
{
    return cp_pytorch(p, c) ? 1.0 + 2.0 * c->cp / (c->cp - 1.0) : 2.0;
}

/* The column-parallel layers, QKV and the MLP's first: their input gradient is a sum over TP's ranks. */
static const int column_parallel[2] = {SAX_TP_GEMM_QKV, SAX_TP_GEMM_MLP_IN};

/* What of a TP collective of `comm` seconds shows when it runs in pieces inside GEMM k of the layer
 * (async TP, userbuffers): a GEMM hides at most `share` of its own time, and of that
 * training.tp_overlap. */
static double unhidden(const sax_layer_cost_t *lc, int k, double comm, double share, const sax_problem_t *p)
{
    return comm - p->training.tp_overlap * sax_min(comm, share * lc->tp_gemm_s[k]);
}

/* One layer's forward, input-gradient and weight-gradient time, and where they went. */
static void add_layer(const sax_problem_t *p, const sax_candidate_t *c, const sax_layer_cost_t *lc,
                      const layer_comm_t *lcm, const bool *xsite, bool moe, double z3_ag, double z3_rs,
                      const double z3_pass[2], double params, double interference, double ep_pair,
                      stage_t *st, layer_parts_t *parts)
{
    /* ZeRO-3/FSDP: the layer's own copies of its gathered weights and of its unsharded weight gradient
     * pass through HBM on the compute stream (z3_pass: seconds a parameter, forward and backward; 0
     * without ZeRO-3; section 6) */
    double fwd_math = lc->gemm_s + lc->attn_s, fwd_mem = lc->elem_s + z3_pass[0] * params;
    double fwd = fwd_math + fwd_mem;
    /* TP's traffic of one direction: an all-reduce's worth for attention and one for the MLP (a MoE
     * layer's over the experts' TP group, the same as TP's without folding) */
    const double *call = lcm->s;
    const double tp_all = moe ? call[LAYER_TP] + call[LAYER_ETP] : 2.0 * call[LAYER_TP];
    /* one gather or one scatter beside the attention's GEMMs (QKV, projection) and beside the MLP's */
    const double half[4] = {[SAX_TP_GEMM_QKV] = 0.5 * call[LAYER_TP],
                            [SAX_TP_GEMM_PROJ] = 0.5 * call[LAYER_TP],
                            [SAX_TP_GEMM_MLP_IN] = 0.5 * (moe ? call[LAYER_ETP] : call[LAYER_TP]),
                            [SAX_TP_GEMM_MLP_OUT] = 0.5 * (moe ? call[LAYER_ETP] : call[LAYER_TP])};
    double tp_f = tp_all, tp_b = tp_all, tp_b_all = tp_all; /* exposed; the backward's in all */
    double tp_f_all = tp_all, tp_ag = 0.0;                  /* the forward's in all; its gathers that show */
    const bool dtensor = c->sequence_parallel && p->training.tp_implementation == SAX_TP_IMPL_DTENSOR;
    if (dtensor) {
        /* PyTorch DTensor, compiled (torchtitan): forward, the gathers before QKV and FC1 and the
         * reduce-scatters after the projection and FC2 (half the traffic each); backward, the row-parallel
         * layers gather their output gradient and the column-parallel ones reduce-scatter their input
         * gradient, nothing re-gathered. All wait: Inductor keeps the graph's order (its
         * reorder_for_compute_comm_overlap is off by default). torchao's Float8 TP (the tensorwise
         * recipe) casts before it gathers, forward and backward: the gathers carry half the bytes. Async
         * TP (torch/_inductor/fx_passes/micro_pipeline_tp.py) runs every gather inside the matrix
         * multiplies that consume it and each reduce-scatter of one matrix multiply's output inside it;
         * the input gradient of QKV and FC1 is a sum of matrix multiplies, so its reduce-scatter waits. */
        const bool fp8_gather =
            p->training.precision == SAX_PRECISION_FP8 && p->training.fp8_recipe == SAX_FP8_RECIPE_TENSORWISE;
        const double g8 = fp8_gather ? 0.5 : 1.0, ag = 0.5 * tp_all * g8, rs = 0.5 * tp_all;
        const bool async = p->training.tp_comm_overlap;
        /* Its fused kernels (torch/distributed/_symmetric_memory/__init__.py) run a GEMM as tp pieces of
         * 1/tp of its rows: the gathers' pieces start with the local shard's, which waits on nothing, and
         * each remote shard's after its copy; the scatters' end with the local rows', after the last copy
         * has left. One piece of the GEMM has no transfer beside it: a GEMM of g seconds hides at most
         * (1 - 1/tp) g, a collective of C seconds shows max(0, C - (1 - 1/tp) g). */
        const double share = 1.0 - 1.0 / c->tp;
        tp_f_all = tp_b_all = ag + rs;
        /* forward: the gathers inside QKV and the MLP's first GEMM, the scatters inside the projection and
         * the MLP's second; backward: the row-parallel layers' gathers inside their data-gradient GEMMs */
        tp_ag = async ? unhidden(lc, SAX_TP_GEMM_QKV, g8 * half[SAX_TP_GEMM_QKV], share, p) +
                            unhidden(lc, SAX_TP_GEMM_MLP_IN, g8 * half[SAX_TP_GEMM_MLP_IN], share, p)
                      : ag;
        tp_f = tp_ag + (async ? unhidden(lc, SAX_TP_GEMM_PROJ, half[SAX_TP_GEMM_PROJ], share, p) +
                                    unhidden(lc, SAX_TP_GEMM_MLP_OUT, half[SAX_TP_GEMM_MLP_OUT], share, p)
                              : rs);
        tp_b = (async ? unhidden(lc, SAX_TP_GEMM_PROJ, g8 * half[SAX_TP_GEMM_PROJ], share, p) +
                            unhidden(lc, SAX_TP_GEMM_MLP_OUT, g8 * half[SAX_TP_GEMM_MLP_OUT], share, p)
                      : ag) +
               rs;
    } else if (c->sequence_parallel && p->training.tp_comm_overlap) {
        /* --tp-comm-overlap (userbuffers, needs sequence parallelism): the all-gathers and
         * reduce-scatters run in pieces inside the GEMMs that consume and produce them, each beside its
         * own. Backward, as without it, the row-parallel layers' gathers run inside their data-gradient
         * GEMMs, and the column-parallel ones re-gather their input inside theirs and scatter the input
         * gradient inside their weight-gradient GEMMs (Transformer Engine's bulk overlaps) */
        tp_f = 0.0;
        for (int k = 0; k < 4; k++)
            tp_f += unhidden(lc, k, half[k], 1.0, p);
        tp_b = tp_f;
        for (int i = 0; i < 2; i++)
            tp_b += unhidden(lc, column_parallel[i], half[column_parallel[i]], 1.0, p);
        tp_b_all = 1.5 * tp_all;
    } else if (c->sequence_parallel) {
        /* Megatron-LM's default (megatron/core/tensor_parallel/layers.py, Transformer Engine's Linear
         * alike): the forward's gathers and scatters wait. Backward, the row-parallel layers (projection,
         * FC2) gather their output gradient before any GEMM can start (half a direction's traffic, it
         * waits); the column-parallel ones (QKV, FC1) re-gather their input behind their own
         * data-gradient GEMM and reduce-scatter the input gradient behind their own weight-gradient GEMM,
         * each as long as the forward's GEMM beside it (g_k) */
        tp_b = half[SAX_TP_GEMM_PROJ] + half[SAX_TP_GEMM_MLP_OUT];
        for (int i = 0; i < 2; i++)
            tp_b += 2.0 * sax_max(0.0, half[column_parallel[i]] - lc->tp_gemm_s[column_parallel[i]]);
        tp_b_all = 1.5 * tp_all;
    } else if (p->training.async_tensor_model_parallel_allreduce &&
               p->training.tp_implementation == SAX_TP_IMPL_MEGATRON) {
        /* Without sequence parallelism (megatron/core/tensor_parallel/layers.py, allreduce_dgrad; Megatron-LM
         * since 2021-09): the forward's two all-reduces wait; the backward's, of QKV's and FC1's input
         * gradients, start before those layers' weight-gradient GEMMs and are waited for after them, each
         * hidden behind its own layer's (g_k); the row-parallel layers have none */
        tp_b = 0.0;
        for (int i = 0; i < 2; i++)
            tp_b += sax_max(0.0, 2.0 * half[column_parallel[i]] - lc->tp_gemm_s[column_parallel[i]]);
    }
    if (!dtensor)
        tp_ag = 0.5 * tp_f; /* the forward's gathers are half its traffic */
    /* CP: the p2p ring's passes run behind attention's chunks, an all-gather waits (Megatron-Core's
     * cp_comm_type; the backward gathers K and V again and reduce-scatters their gradients) */
    const double cpd = c->cp, cp_pass = call[LAYER_CP];
    const bool p2p = p->training.cp_comm_type == SAX_CP_COMM_P2P;
    double cp_f = sax_max(0.0, cp_pass - (p2p ? lc->attn_s : 0.0)),
           cp_b = sax_max(0.0, 2.0 * cp_pass - (p2p ? 2.0 * lc->attn_s : 0.0)),
           cp_b_all = cp_backward_passes(p, c) * cp_pass;
    if (cp_pytorch(p, c)) {
        /* PyTorch's ring attention (torch/distributed/tensor/experimental/_attention.py): c steps of
         * equal work, 1/c of the attention each. The K and V exchange waits only on the step before:
         * gathered at once (cp_comm_type all_gather, torchtitan's rotate method "allgather") behind the
         * first step, or passed on step by step (p2p, its "alltoall") behind each; the backward gathers
         * them again, and passes the K and V gradients round the ring in fp32 (an all-to-all with one peer
         * a step, twice the bytes of one step of the bf16 gather), each behind the next step's backward;
         * the last pass, after the loop, waits. */
        const double share = p2p ? (cpd - 1.0) / cpd : 1.0 / cpd, step = 2.0 * cp_pass / (cpd - 1.0);
        cp_f = sax_max(0.0, cp_pass - share * lc->attn_s);
        cp_b = sax_max(0.0, cp_pass - share * lc->attn_bwd_s) +
               (cpd - 1.0) * sax_max(0.0, step - lc->attn_bwd_s / cpd) + step;
    }
    double ep_f = moe ? 2.0 * call[LAYER_EP] : 0.0, ep_b = ep_f;
    double bwd_math = lc->gemm_s + lc->attn_bwd_s, bwd_mem = lc->elem_bwd_s + z3_pass[1] * params;
    double bwd_in = bwd_math + bwd_mem; /* data gradients */
    if (moe && ep_pair > 0.0) {
        /* DualPipe, and Megatron-Core's EP overlap in its 1F1B phase, run a forward and a backward chunk
         * of two micro-batches together: the forward's all-to-alls hide behind the backward's compute and
         * the backward's behind the forward's (DeepSeek-V3 report, Figure 4; Megatron-Core's
         * combined_1f1b.py). A pair then takes max(fwd, its all-to-alls) + max(bwd, its all-to-alls):
         * more compute on either side never shortens it. The unpaired share still waits. */
        double ep = ep_f;
        ep_f = (1.0 - ep_pair) * ep + ep_pair * sax_max(0.0, ep - bwd_in);
        ep_b = (1.0 - ep_pair) * ep + ep_pair * sax_max(0.0, ep - fwd);
    }
    double wgt = lc->gemm_s; /* weight gradients */
    double rc_math = 0.0, rc_mem = 0.0, rc_tp = 0.0, rc_cp = 0.0;
    const bool sel = c->recompute == SAX_RECOMPUTE_SELECTIVE,
               op = sel && p->training.selective_ac_option == SAX_SELECTIVE_AC_OP;
    const unsigned modules = op ? 0u : sax_recompute_modules(c);
    const bool core_attn = sel && (modules >> SAX_RECOMPUTE_MODULE_CORE_ATTN & 1u),
               norms = sel && (modules >> SAX_RECOMPUTE_MODULE_LAYERNORM & 1u),
               mla_up = sel && (modules >> SAX_RECOMPUTE_MODULE_MLA_UP_PROJ & 1u),
               moe_act = sel && (modules >> SAX_RECOMPUTE_MODULE_MOE_ACT & 1u);
    if (c->recompute == SAX_RECOMPUTE_FULL) {
        rc_math = fwd_math;
        rc_mem = fwd_mem;
        rc_tp = tp_f;
        rc_cp = cp_f; /* the recomputed forward exchanges K and V again */
    } else if (op) {
        /* torchtitan's per-op policy: the GEMMs it does not keep, every memory-bound op of the forward and
         * TP's all-gathers (the forward's reduce-scatters are kept) run again */
        rc_math = lc->op_sac_s;
        rc_mem = lc->elem_s - lc->ring_s - lc->tp_sum_s; /* attention's output and the reduce-scatters'
                                                            are kept: no ring, no sums again */
        rc_tp = tp_ag;
    } else if (core_attn && !p->training.flash_attention) {
        rc_math = lc->attn_s; /* recompute the attention core (flash does anyway) */
        rc_mem = 0.5 * lc->elem_s;
    }
    if (norms) /* the two norms again in the backward */
        rc_mem += lc->norm_s;
    if (mla_up) /* MLA's up-projection GEMMs again (0 without MLA) */
        rc_math += lc->mla_up_s;
    if (moe_act) /* the routed experts' activation function again (0 in a dense layer) */
        rc_mem += lc->moe_act_s;
    double rc = rc_math + rc_mem;
    double f = fwd + tp_f + cp_f + ep_f;
    double b = bwd_in + rc + tp_b + rc_tp + cp_b + rc_cp + ep_b;
    /* ZeRO-3/FSDP: prefetched one layer ahead, the gather hides behind the layer's compute as far
     * as the overlap efficiency allows (communication kernels slow the GEMMs they share the GPU
     * with); only the rest shows */
    double eta = p->training.dp_overlap_efficiency, slow = 1.0 / p->training.zero3_comm_efficiency;
    double z3_f = c->zero == 3 ? sax_max(0.0, z3_ag * slow - eta * f) : 0.0;
    double z3_b = c->zero == 3 ? sax_max(0.0, (z3_ag + z3_rs) * slow - eta * (b + wgt)) : 0.0;
    double z3 = z3_f + z3_b;
    /* Communication hidden behind compute slows it: the NCCL kernels take SMs and HBM bandwidth from
     * the GEMMs they overlap, `interference` of the time they run hidden (docs/cost-model.md section 6).
     * Hidden here: TP's overlapped share, CP's ring behind the attention, DualPipe's all-to-alls
     * behind the other direction, ZeRO-3's prefetched gathers and scatters. */
    double hid_f = 0.0, hid_b = 0.0;
    if (interference > 0.0) {
        hid_f = (tp_f_all - tp_f) + (call[LAYER_CP] - cp_f) + (moe ? 2.0 * call[LAYER_EP] - ep_f : 0.0) +
                (c->zero == 3 ? z3_ag * slow - z3_f : 0.0);
        hid_b = (tp_b_all - tp_b) + (c->recompute == SAX_RECOMPUTE_FULL ? tp_f_all - tp_f : 0.0) +
                (cp_b_all - cp_b) + (c->recompute == SAX_RECOMPUTE_FULL ? cp_pass - cp_f : 0.0) +
                (moe ? 2.0 * call[LAYER_EP] - ep_b : 0.0) +
                (c->zero == 3 ? (z3_ag + z3_rs) * slow - z3_b : 0.0);
        hid_f *= interference;
        hid_b *= interference;
    }
    st->f += f + z3_f + hid_f;
    st->b += b + z3_b + hid_b;
    st->w += wgt;
    st->comp += fwd + bwd_in + rc + wgt + hid_f + hid_b;
    st->tp += tp_f + tp_b + rc_tp;
    st->cp += cp_f + cp_b + rc_cp;
    st->ep += ep_f + ep_b;
    st->z3 += z3;
    parts->fwd_comm[SAX_DIM_TP] = tp_f;
    parts->fwd_comm[SAX_DIM_CP] = cp_f;
    parts->fwd_comm[SAX_DIM_EP] = ep_f;
    parts->fwd_comm[SAX_DIM_DP] = z3_f;
    parts->math = fwd_math + bwd_math + rc_math + wgt + hid_f + hid_b;
    parts->memory = fwd_mem + bwd_mem + rc_mem;
    st->params += lc->params;
    st->expert_params += lc->expert_params;
    double a = c->recompute == SAX_RECOMPUTE_FULL ? lc->act_full_bytes
               : op                               ? lc->act_op_bytes
               : core_attn                        ? lc->act_sel_bytes
                                                  : lc->act_bytes;
    if (norms)
        a -= lc->act_norm_bytes;
    if (mla_up)
        a -= lc->act_mla_up_bytes;
    if (moe_act)
        a -= lc->act_moe_act_bytes;
    st->act += a;
    /* one layer's recomputed activations at once in the backward, beside those kept */
    st->act_peak_layer = sax_max(st->act_peak_layer, c->recompute == SAX_RECOMPUTE_FULL ? lc->act_bytes
                                                     : op                               ? lc->act_bytes - a
                                                                                        : 0.0);
    /* the same without the traffic of the groups that cross site links (`xsite`, by dimension and
     * SAX_GROUP_EXPERT_DP; NULL: not needed): what ZB-H1's W placement sees, so that its order never
     * depends on the links (schedule.c) */
    if (xsite == NULL)
        return;
    double f_loc = fwd + (xsite[SAX_DIM_TP] ? 0.0 : tp_f) + (xsite[SAX_DIM_CP] ? 0.0 : cp_f) +
                   (xsite[SAX_DIM_EP] ? 0.0 : ep_f);
    double b_loc = bwd_in + rc + (xsite[SAX_DIM_TP] ? 0.0 : tp_b + rc_tp) +
                   (xsite[SAX_DIM_CP] ? 0.0 : cp_b + rc_cp) + (xsite[SAX_DIM_EP] ? 0.0 : ep_b);
    bool z3_loc = c->zero == 3 && !xsite[SAX_DIM_DP] && !xsite[SAX_GROUP_EXPERT_DP];
    st->place_f += f_loc + (z3_loc ? sax_max(0.0, z3_ag * slow - eta * f_loc) : 0.0);
    st->place_b += b_loc + (z3_loc ? sax_max(0.0, (z3_ag + z3_rs) * slow - eta * (b_loc + wgt)) : 0.0);
}

/* Boundary s's transfers per second in the steady state, each way: its chunks per micro-batch (v,
 * v - 1 on the interleaved wrap-around) over the slower neighbour's compute of one micro-batch (the
 * demand it puts on the links it crosses, docs/cost-model.md section 9). */
static double transfer_rate(const sax_candidate_t *c, const stage_t *st, int s)
{
    int pp = c->pp, v = c->vpp;
    const stage_t *nb = &st[s + 1 < pp ? s + 1 : 0];
    return (s == pp - 1 ? v - 1 : v) / sax_max(st[s].comp, nb->comp);
}

/* The TP, CP and EP collectives share the site links they cross with the other classes (docs/cost-model.md
 * section 9): in the steady state every stage's groups make their calls of one micro-batch (`calls` / m
 * each, whole-job traffic) and its ZeRO-3 traffic over the stage's compute, and every boundary its
 * transfers over the slower neighbour's; a collective, whose own time already counts every stage's
 * groups of its class at once, gets its max-min share of what the other classes leave
 * (sax_shared_finish_s with no end to their demand). Compute times only, so that a slower link never
 * lowers a demand. Slows lcm's calls; whether any changed. */
static bool share_layer_comm(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                             coll_memo_t *memo, const stage_t *st, const double *calls, double m,
                             const sax_traffic_t *tr_z3, double act_bytes, int boundaries, layer_comm_t *lcm)
{
    const int n = cl->n_links, pp = c->pp;
    bool crossing = false;
    for (int k = 0; k < LAYER_CLASSES; k++)
        crossing = crossing || (calls[k] > 0.0 && lcm->s[k] > 0.0 && lcm->tr[k].xsite_bytes > 0.0);
    if (!crossing)
        return false;
    double per_s = 0.0; /* a stage's calls of one micro-batch per second, summed over stages, over pp */
    for (int s = 0; s < pp; s++)
        per_s += st[s].comp > 0.0 ? 1.0 / (pp * st[s].comp) : 0.0;
    double bg[SAX_MAX_LINKS][2], cap[SAX_MAX_LINKS];
    for (int l = 0; l < n; l++) {
        bg[l][0] = bg[l][1] = 0.0;
        cap[l] = cl->links[l].bw_Bps;
    }
    for (int k = 0; k < LAYER_CLASSES; k++)
        demand_add(bg, &lcm->tr[k], calls[k] / m * per_s, false, n);
    demand_add(bg, tr_z3, per_s, false, n);
    for (int s = 0; pp > 1 && s < boundaries; s++) {
        sax_traffic_t one;
        double busy;
        traffic_zero(&one, n);
        p2p(memo, cl, c, lay, s, act_bytes, SAX_ACT_BYTES, &one, &busy);
        if (one.xsite_bytes > 0.0) {
            double k = transfer_rate(c, st, s);
            demand_add(bg, &one, k, false, n);
            demand_add(bg, &one, k, true, n);
        }
    }
    bool changed = false;
    for (int k = 0; k < LAYER_CLASSES; k++) {
        const sax_traffic_t *mine = &lcm->tr[k];
        if (!(calls[k] > 0.0 && lcm->s[k] > 0.0 && mine->xsite_bytes > 0.0))
            continue;
        double others[SAX_MAX_LINKS][2], own = calls[k] / m * per_s;
        for (int l = 0; l < n; l++)
            for (int d = 0; d < 2; d++)
                others[l][d] = sax_max(0.0, bg[l][d] - own * mine->link_bytes[l][d]);
        double t = sax_shared_finish_s(lcm->s[k], INFINITY, n, cap, (const double(*)[2])mine->link_bytes,
                                       false, (const double(*)[2])others);
        if (t > lcm->s[k]) {
            lcm->s[k] = t;
            changed = true;
        }
    }
    return changed;
}

/* DualPipe's ranks (deepseek-ai/DualPipe: rank s holds the model's stages s and p - 1 - s, one for each
 * direction, and runs half the micro-batches through each): once the pipeline has each stage's times, a
 * rank's per-micro-batch times become the mean of its two stages', its parameters (both stages',
 * reduced and updated by it) and logits their sum, its layer activations a micro-batch their mean (the
 * p + 1 sets DualPipe holds are of both directions, section 8) and its working set the larger. Layer
 * counts and GPU types stay the stage's own, and so do the trace's events (split before the mean). */
static void dualpipe_ranks(stage_t *st, int pp, sax_eval_detail_t *detail)
{
    for (int s = 0; s < pp / 2; s++) {
        stage_t *a = &st[s], *b = &st[pp - 1 - s];
        double *const x[] = {&a->f,  &a->b,  &a->w,       &a->comp,    &a->tp, &a->cp,
                             &a->ep, &a->z3, &a->place_f, &a->place_b, &a->act};
        double *const y[] = {&b->f,  &b->b,  &b->w,       &b->comp,    &b->tp, &b->cp,
                             &b->ep, &b->z3, &b->place_f, &b->place_b, &b->act};
        for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
            *x[i] = *y[i] = 0.5 * (*x[i] + *y[i]);
        a->params = b->params = a->params + b->params;
        a->expert_params = b->expert_params = a->expert_params + b->expert_params;
        a->act_loss = b->act_loss = a->act_loss + b->act_loss;
        a->act_peak_layer = b->act_peak_layer = sax_max(a->act_peak_layer, b->act_peak_layer);
        if (detail != NULL) {
            double *math = detail->stage_math_s, *mem = detail->stage_memory_s;
            math[s] = math[pp - 1 - s] = 0.5 * (math[s] + math[pp - 1 - s]);
            mem[s] = mem[pp - 1 - s] = 0.5 * (mem[s] + mem[pp - 1 - s]);
        }
    }
}

/* For pl->ends_differ (under interleaving): the first chunk of the first stage holds ends[0] layers
 * and the last chunk of the last stage ends[1], the other chunks of those stages their stage's other
 * layers evenly (layer_split embedding-loss: k - 1 at the ends, k elsewhere; a pipeline layout: its first
 * and last virtual stages'; docs/cost-model.md section 7). A stage's layers share its layer time; the
 * output layer and loss, and the MTP depths, `out` (forward, input and weight gradients), stay spread
 * over the last stage's chunks, as for every split. */
static void end_chunks(const sax_candidate_t *c, const stage_t *st, const double *out, const int *ends,
                       sax_pipeline_t *pl)
{
    int p = c->pp, v = c->vpp;
    double *per_chunk[3] = {pl->f_s, pl->b_s, pl->w_s};
    for (int end = 0; end < 2; end++) {
        int s = end ? p - 1 : 0, n = st[s].layers, e = ends[end];
        const double total[3] = {st[s].f, st[s].b, st[s].w};
        double *chunk = end ? pl->tail_s : pl->head_s;
        for (int i = 0; i < 3; i++) {
            double extra = end ? out[i] : 0.0, layers_s = total[i] - extra;
            double mid = (double)(n - e) / (v - 1); /* the other chunks' layers, each */
            chunk[i] = (n > 0 ? layers_s * e / n : 0.0) + extra / v;
            per_chunk[i][s] = (n > 0 ? layers_s * mid / n : 0.0) + extra / v;
        }
    }
}

int64_t sax_degrees_product(const int *degrees, int n, int64_t cap)
{
    int64_t v = 1; /* stays <= cap <= 2^31 - 1 before each step: the product fits 62 bits */
    for (int i = 0; i < n && v <= cap; i++)
        v *= degrees[i];
    return v;
}

/* The GPUs of all sites (the loader bounds them to 2^31 - 1). */
static int64_t sites_gpus(const sax_cluster_t *cl)
{
    int64_t total = 0;
    for (int i = 0; i < cl->n_sites; i++)
        total += cl->sites[i].gpus;
    return total;
}

void sax_model_refusal(const sax_problem_t *p, const sax_candidate_t *c, char *why, size_t n)
{
    why[0] = '\0';
    const sax_cluster_t *cl = &p->cluster;
    int64_t total = sites_gpus(cl);
    const int degrees[4] = {c->tp, c->cp, c->pp, c->dp};
    int64_t used = sax_degrees_product(degrees, 4, INT32_MAX);
    if (used > total) {
        snprintf(why, n, "tp x cp x pp x dp = %d x %d x %d x %d = %s%lld GPUs, the sites hold %lld", c->tp,
                 c->cp, c->pp, c->dp, used > INT32_MAX ? "more than " : "",
                 (long long)(used > INT32_MAX ? INT32_MAX : used), (long long)total);
        return;
    }
    if (c->pp > SAX_SIM_MAX_STAGES || check_divisibility(p, c, why, n) != SAX_FEASIBLE)
        return;
    sax_layout_t lay;
    if (sax_layout_build(cl, c, &lay) == SAX_INFEASIBLE_TP_DOMAIN) {
        char order[8 * SAX_DIM_COUNT] = "";
        for (int i = 0; i < c->n_order; i++)
            snprintf(order + strlen(order), sizeof order - strlen(order), "%s%s", i ? "-" : "",
                     sax_dim_names[c->order[i]]);
        snprintf(why, n,
                 "the tp = %d ranks, placed by order %s, span more than one scale-up domain of %d GPUs "
                 "(cluster.scale_up.size)",
                 c->tp, order, cl->scale_up.size);
    }
}

sax_status_t sax_model_eval(const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch,
                            sax_result_t *r)
{
    return sax_model_eval_pipeline(p, c, scratch, r, NULL);
}

sax_status_t sax_model_eval_pipeline(const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch,
                                     sax_result_t *r, sax_pipeline_t *pl_out)
{
    return sax_model_eval_detail(p, c, scratch, r, pl_out, NULL);
}

static sax_status_t eval_all(const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch,
                             sax_result_t *r, sax_pipeline_t *pl_out, sax_eval_detail_t *detail,
                             sax_iteration_detail_t *trace);

sax_status_t sax_model_eval_detail(const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch,
                                   sax_result_t *r, sax_pipeline_t *pl_out, sax_eval_detail_t *detail)
{
    return eval_all(p, c, scratch, r, pl_out, detail, NULL);
}

sax_status_t sax_model_eval_trace(const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch,
                                  sax_result_t *r, sax_pipeline_t *pl, sax_iteration_detail_t *d)
{
    if (d != NULL)
        memset(d, 0, sizeof *d);
    return eval_all(p, c, scratch, r, pl, NULL, d);
}

/* What the trace draws of one link: each traffic class's bytes (trace may be NULL). */
static void trace_class(sax_iteration_detail_t *trace, sax_dim_t d, const sax_traffic_t *t, double k,
                        int n_links)
{
    if (trace == NULL)
        return;
    for (int l = 0; l < n_links; l++) {
        trace->link_class_bytes[l][d][0] += k * t->link_bytes[l][0];
        trace->link_class_bytes[l][d][1] += k * t->link_bytes[l][1];
    }
}

static sax_status_t eval_all(const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch,
                             sax_result_t *r, sax_pipeline_t *pl_out, sax_eval_detail_t *detail,
                             sax_iteration_detail_t *trace)
{
    memset(r, 0, sizeof *r);
    if (c->tp < 1 || c->pp < 1 || c->dp < 1 || c->cp < 1 || c->ep < 1 || c->vpp < 1 || c->micro_batch < 1 ||
        c->connections < 1 || c->zero < 0 || c->zero > 3 || p->model.layers < 1 ||
        p->training.global_batch < 1)
        return SAX_ERR_INPUT;
    const sax_model_desc_t *md = &p->model;
    const sax_cluster_t *cl = &p->cluster;
    r->model_flops_per_iteration = sax_model_flops_per_iteration(md, p->training.global_batch);
    r->reason = SAX_FEASIBLE;

    int64_t total_gpus = sites_gpus(cl);
    const int degrees[4] = {c->tp, c->cp, c->pp, c->dp};
    int64_t used = sax_degrees_product(degrees, 4, total_gpus < INT32_MAX ? total_gpus : INT32_MAX);
    r->gpus_used = used > INT32_MAX ? INT32_MAX : (int)used;
    if (used > total_gpus)
        return infeasible(r, SAX_INFEASIBLE_GPUS);
    if (c->pp > SAX_SIM_MAX_STAGES)
        return infeasible(r, SAX_INFEASIBLE_SIMULATION);
    sax_infeasible_t why = check_divisibility(p, c, NULL, 0);
    if (why != SAX_FEASIBLE)
        return infeasible(r, why);
    sax_layout_t lay_own;
    const sax_layout_t *lay = layout_of(scratch, cl, c, &lay_own, &why);
    if (why != SAX_FEASIBLE)
        return infeasible(r, why);

    const int pp = c->pp, v = c->vpp;
    const long m = p->training.global_batch / ((long)c->micro_batch * c->dp);
    const double nic = cl->n_tiers > 0 ? cl->tiers[0].bw_Bps : cl->scale_up.bw_Bps;

    /* lossless RoCE needs PFC across every site link the job's traffic uses */
    if (c->transport == SAX_TRANSPORT_ROCE) {
        uint32_t crossed = 0, refused = 0; /* links the job's traffic crosses */
        for (int d = 0; d < SAX_LAYOUT_GROUPS; d++) {
            const sax_group_t *g = &lay->dim[d];
            if (d != SAX_DIM_PP && g->n > 1 && g->sites > 1)
                for (int l = 0; l < cl->n_links; l++)
                    crossed |= (uint32_t)(g->link_hops[l][0] + g->link_hops[l][1] > 0) << l;
        }
        for (int st = 0; st + 1 < pp; st++) { /* a pipeline crosses its stage boundaries, no wrap */
            int a, b, links[SAX_MAX_LINKS], dirs[SAX_MAX_LINKS];
            sax_layout_stage_level(cl, lay, st, &a, &b);
            for (int h = a != b ? sax_site_route(cl, a, b, links, dirs) : 0; h > 0; h--)
                crossed |= 1u << links[h - 1];
        }
        for (int l = 0; l < cl->n_links; l++)
            if ((crossed >> l & 1u) && !sax_transport_is_feasible(&cl->links[l], c->transport, nic))
                refused |= 1u << l;
        if (refused != 0) {
            r->lossless_refused = refused;
            return infeasible(r, SAX_INFEASIBLE_LOSSLESS);
        }
    }

    /* per-layer communication, the same on every stage */
    coll_memo_t memo = {.sc = scratch,
                        .net = scratch != NULL ? network_key(cl, c) : 0,
                        .site = (uint64_t)c->transport << 40 | (uint64_t)c->compression << 32 |
                                (uint64_t)(uint32_t)c->connections};
    layer_comm_t lcm;
    for (int k = 0; k < LAYER_CLASSES; k++) {
        lcm.s[k] = 0.0;
        traffic_zero(&lcm.tr[k], cl->n_links);
    }
    gpu_costs_t cache[SAX_MAX_SITES + 1];
    int n_cache = 0;
    const gpu_costs_t *g0 = costs_for(p, c, &cl->gpu, cache, &n_cache);
    /* which groups cross site links, where the stage times that place a greedy schedule's W must leave
     * their traffic out (schedule.c; NULL: nowhere, or no such schedule) */
    bool xsite[SAX_LAYOUT_GROUPS];
    for (int d = 0; d < SAX_LAYOUT_GROUPS; d++)
        xsite[d] = lay->dim[d].sites > 1;
    xsite[SAX_DIM_TP] = xsite[SAX_DIM_TP] || xsite[SAX_GROUP_EXPERT_TP]; /* both are TP's traffic */
    bool any_xsite = xsite[SAX_DIM_TP] || xsite[SAX_DIM_CP] || xsite[SAX_DIM_EP] ||
                     (c->zero == 3 && (xsite[SAX_DIM_DP] || xsite[SAX_GROUP_EXPERT_DP]));
    const sax_schedule_desc_t *sd = sax_schedule_get(c->schedule);
    const bool *place = sd->split_w && sd->order != NULL && any_xsite ? xsite : NULL;
    lcm.s[LAYER_TP] = collective(&memo, cl, c, lay, SAX_DIM_TP, SAX_OP_ALL_REDUCE, g0->dense.tp_bytes,
                                 SAX_ACT_BYTES, &lcm.tr[LAYER_TP]);
    lcm.s[LAYER_CP] = collective(&memo, cl, c, lay, SAX_DIM_CP, SAX_OP_ALL_GATHER, g0->dense.cp_bytes * c->cp,
                                 SAX_ACT_BYTES, &lcm.tr[LAYER_CP]);
    const bool fold = sax_candidate_etp(c) != c->tp; /* the experts' own TP group (parallel folding) */
    lcm.s[LAYER_ETP] = lcm.s[LAYER_TP];
    if (md->experts > 0) {
        lcm.s[LAYER_EP] = collective(&memo, cl, c, lay, SAX_DIM_EP, SAX_OP_ALL_TO_ALL,
                                     sax_ep_dispatch_bytes(md, &p->training, &g0->moe, &lay->dim[SAX_DIM_EP]),
                                     SAX_ACT_BYTES, &lcm.tr[LAYER_EP]);
        lcm.s[LAYER_EP] /= sax_ep_dispatch_speed(&p->training);
        if (fold)
            lcm.s[LAYER_ETP] = collective(&memo, cl, c, lay, SAX_GROUP_EXPERT_TP, SAX_OP_ALL_REDUCE,
                                          g0->moe.etp_bytes, SAX_ACT_BYTES, &lcm.tr[LAYER_ETP]);
    }

    /* stages */
    stage_t st[SAX_SIM_MAX_STAGES];
    sax_pipeline_t pl;
    pl.schedule = c->schedule;
    pl.stages = pp;
    pl.chunks = v;
    pl.micro = (int)m;
    pl.own_place = place != NULL;
    stage_gpus(p, c, lay, st);
    sax_traffic_t tr_z3; /* ZeRO-3's gathers and scatters of one micro-batch, every stage */
    const double gb = sax_grad_bytes(&p->training);
    /* Megatron-Core builds each MTP depth's layer from the last decoder layer's spec (gpt_builders.py) */
    const int mtp = md->mtp_num_layers;
    const bool mtp_moe = md->experts > 0 && md->layers > md->dense_layers;
    const double per_layer = (double)m * (md->layers + mtp) / pp,
                 moe_layers = (double)m * (md->layers - md->dense_layers + (mtp_moe ? mtp : 0)) / pp;
    const double tp_calls = c->recompute == SAX_RECOMPUTE_FULL ? 6.0 : 4.0;
    /* what each traffic class puts on the site links per iteration: per layer and micro-batch, TP 4
     * collectives (6 with full recomputation), CP 3 passes (PyTorch's ring attention: a gather each way
     * and c passes of fp32 gradients, 2c/(c - 1) gathers' worth; one more pass with full
     * recomputation), EP 4 all-to-alls on the MoE layers; each call's traffic is that of every group of
     * the job, one per stage, so a layer's share is 1/pp.
     * With parallel folding half of a MoE layer's TP calls are the experts' TP group's. */
    const double calls[LAYER_CLASSES] = {
        [LAYER_TP] =
            fold && md->experts > 0 ? (per_layer - 0.5 * moe_layers) * tp_calls : per_layer * tp_calls,
        [LAYER_ETP] = fold && md->experts > 0 ? 0.5 * moe_layers * tp_calls : 0.0,
        [LAYER_CP] =
            per_layer * ((c->recompute == SAX_RECOMPUTE_FULL ? 2.0 : 1.0) + cp_backward_passes(p, c)),
        [LAYER_EP] = md->experts > 0 ? moe_layers * 4.0 : 0.0};
    const bool have_links = cl->n_links > 0;
    double act_bytes = (double)c->micro_batch * md->seq_len / c->cp * md->hidden * SAX_ACT_BYTES / c->tp;
    int boundaries = v > 1 ? pp : pp - 1;
    double tail[3] = {0.0, 0.0, 0.0}; /* the last stage's output layers, losses and MTP: f, b, w */
    /* A second pass when a TP, CP or EP collective crosses a site link that other classes load too:
     * the first pass gives the stages' compute times, from which the classes' demands follow
     * (share_layer_comm); the second prices the slowed collectives. Compute depends on them only through
     * gpu.comm_interference (0 unless set), the slowdown of the compute they hide behind. */
    for (int pass = 0; pass < 2; pass++) {
        int first_layer = 0;
        traffic_zero(&tr_z3, cl->n_links);
        for (int s = 0; s < pp; s++) {
            const gpu_costs_t *gc = costs_for(p, c, st[s].gpu, cache, &n_cache);
            int nl = st[s].layers;
            int n_dense = md->experts > 0 ? md->dense_layers - first_layer : nl;
            n_dense = n_dense < 0 ? 0 : (n_dense > nl ? nl : n_dense);
            /* ZeRO-3: per layer, gather the weights (bf16) forward and backward, reduce-scatter the
         * gradients (fp32), on every micro-batch */
            double ag_d = 0.0, rs_d = 0.0, ag_m = 0.0, rs_m = 0.0;
            if (c->zero == 3) { /* traffic: this stage's groups (1/pp of all), two gathers and a scatter */
                sax_traffic_t ag, rs;
                traffic_zero(&ag, cl->n_links);
                traffic_zero(&rs, cl->n_links);
                ag_d = collective(&memo, cl, c, lay, SAX_DIM_DP, SAX_OP_ALL_GATHER,
                                  gc->dense.params * SAX_ACT_BYTES, SAX_ACT_BYTES, &ag);
                rs_d = collective(&memo, cl, c, lay, SAX_DIM_DP, SAX_OP_REDUCE_SCATTER, gc->dense.params * gb,
                                  gb, &rs);
                traffic_add(&tr_z3, &ag, 2.0 * n_dense / pp, cl->n_links);
                traffic_add(&tr_z3, &rs, (double)n_dense / pp, cl->n_links);
                if (md->experts > 0) { /* the experts gather from, and reduce over, their own replicas */
                    double shared = gc->moe.params - gc->moe.expert_params, ex = gc->moe.expert_params;
                    traffic_zero(&ag, cl->n_links);
                    traffic_zero(&rs, cl->n_links);
                    ag_m = collective(&memo, cl, c, lay, SAX_DIM_DP, SAX_OP_ALL_GATHER,
                                      shared * SAX_ACT_BYTES, SAX_ACT_BYTES, &ag) +
                           collective(&memo, cl, c, lay, SAX_GROUP_EXPERT_DP, SAX_OP_ALL_GATHER,
                                      ex * SAX_ACT_BYTES, SAX_ACT_BYTES, &ag);
                    rs_m = collective(&memo, cl, c, lay, SAX_DIM_DP, SAX_OP_REDUCE_SCATTER, shared * gb, gb,
                                      &rs) +
                           collective(&memo, cl, c, lay, SAX_GROUP_EXPERT_DP, SAX_OP_REDUCE_SCATTER, ex * gb,
                                      gb, &rs);
                    traffic_add(&tr_z3, &ag, 2.0 * (nl - n_dense) / pp, cl->n_links);
                    traffic_add(&tr_z3, &rs, (double)(nl - n_dense) / pp, cl->n_links);
                }
            }
            stage_t one = {0}, many;
            layer_parts_t part_one = {.math = 0.0}, part_many = {.math = 0.0};
            const double kappa = gc->gpu->comm_interference;
            /* seconds a parameter of FSDP's own copies on the compute stream, every micro-batch, forward
             * and backward (fsdp_bytes, section 6) */
            double z3_pass[2] = {0.0, 0.0};
            if (c->zero == 3) {
                fsdp_bytes(p->training.fsdp, gb, z3_pass);
                for (int k = 0; k < 2; k++)
                    z3_pass[k] *= gc->slowest / (gc->gpu->hbm_bw_Bps * gc->gpu->mem_eff);
            }
            const double ep_pair = ep_paired_share(p, c, s, m);
            add_layer(p, c, &gc->dense, &lcm, place, false, ag_d, rs_d, z3_pass, gc->dense.params, kappa,
                      ep_pair, &one, &part_one);
            many = one;
            stage_layers(&st[s], &one, n_dense, true);
            if (nl > n_dense || (s == pp - 1 && mtp > 0 && mtp_moe)) {
                memset(&many, 0, sizeof many);
                add_layer(p, c, &gc->moe, &lcm, place, true, ag_m, rs_m, z3_pass, gc->moe.params, kappa,
                          ep_pair, &many, &part_many);
                if (nl > n_dense)
                    stage_layers(&st[s], &many, nl - n_dense, false);
            }
            /* CPU offloading (Megatron-Core through Transformer Engine, PP 1 and no recomputation only):
         * the activations of the first n layers go to host memory after their forward (section 8) */
            int off = p->training.offload_activation_layers < nl ? p->training.offload_activation_layers : nl;
            if (off > 0 && pp == 1 && c->recompute == SAX_RECOMPUTE_NONE) {
                double off_dense = sax_min((double)off, n_dense);
                st[s].act -= off_dense * one.act + ((double)off - off_dense) * many.act;
            }
            if (trace != NULL) /* the traffic inside the forward passes, whole stage (divided by v below) */
                for (int d = 0; d < SAX_DIM_COUNT; d++) {
                    trace->fwd_comm_s[s][d] = n_dense * part_one.fwd_comm[d];
                    if (nl > n_dense)
                        trace->fwd_comm_s[s][d] += (double)(nl - n_dense) * part_many.fwd_comm[d];
                }
            if (detail != NULL) { /* the split of comp, added up as comp is */
                detail->stage_math_s[s] = n_dense * part_one.math + (double)(nl - n_dense) * part_many.math;
                detail->stage_memory_s[s] =
                    n_dense * part_one.memory + (double)(nl - n_dense) * part_many.memory;
            }
            if (s == 0) {
                sax_param_split_t ps;
                sax_model_param_split(md, &ps);
                st[s].params += ps.embedding / c->tp;
                st[s].emb_params = ps.embedding / c->tp;
                /* the embedding's dropout mask, 1 B per element, split along the sequence with SP
             * (Megatron's estimator); its output is the first layer's norm input, counted there */
                if (p->training.dropout)
                    st[s].act += (double)c->micro_batch * md->seq_len / c->cp * md->hidden /
                                 (c->sequence_parallel ? c->tp : 1);
            }
            if (s == pp - 1) {
                sax_param_split_t ps;
                sax_model_param_split(md, &ps);
                /* tied: the output layer is the embedding, which the last stage holds a copy of
                 * under PP and shares with the first stage's without */
                st[s].head_params = (md->tied_embeddings ? (pp > 1 ? ps.embedding : 0.0) : ps.output) / c->tp;
                st[s].params += st[s].head_params;
                const sax_logits_cost_t *lg = &gc->logits; /* forward, data gradient, weight gradient */
                st[s].f += lg->gemm_s + lg->loss_fwd_s;
                st[s].b += lg->gemm_s + lg->loss_bwd_s;
                st[s].place_f += lg->gemm_s + lg->loss_fwd_s;
                st[s].place_b += lg->gemm_s + lg->loss_bwd_s;
                st[s].w += lg->gemm_s;
                st[s].comp += 3.0 * lg->gemm_s + lg->loss_fwd_s + lg->loss_bwd_s;
                st[s].act_loss = lg->act_bytes;
                if (detail != NULL) {
                    detail->stage_math_s[s] += 3.0 * lg->gemm_s;
                    detail->stage_memory_s[s] += lg->loss_fwd_s + lg->loss_bwd_s;
                }
                tail[0] = lg->gemm_s + lg->loss_fwd_s;
                tail[1] = lg->gemm_s + lg->loss_bwd_s;
                tail[2] = lg->gemm_s;
                if (mtp > 0) { /* each depth: a layer like the last, its own work, an output layer and loss */
                    const stage_t *layer = mtp_moe ? &many : &one;
                    const layer_parts_t *parts = mtp_moe ? &part_many : &part_one;
                    const sax_mtp_cost_t *mc = &gc->mtp;
                    stage_layers(&st[s], layer, mtp, false);
                    const double own_f = mc->gemm_s + mc->elem_fwd_s + tail[0],
                                 own_b = mc->gemm_s + mc->elem_bwd_s + tail[1], own_w = mc->gemm_s + tail[2];
                    st[s].f += mtp * own_f;
                    st[s].b += mtp * own_b;
                    st[s].w += mtp * own_w;
                    st[s].place_f += mtp * own_f;
                    st[s].place_b += mtp * own_b;
                    st[s].comp += mtp * (own_f + own_b + own_w);
                    st[s].act += mtp * mc->act_bytes;
                    st[s].act_loss += mtp * lg->act_bytes;
                    /* the depths' shifted tokens need the embedding on this stage (GPTModel builds it
                     * where mtp_process is set), a copy of the first stage's unless the output layer is it
                     * or, under DualPipe, the rank holds the first stage too (DeepSeek-V3 section 3.2.3:
                     * the embedding and the output head shared physically with the MTP module) */
                    const bool copy = pp > 1 && !md->tied_embeddings && c->schedule != SAX_SCHEDULE_DUALPIPE;
                    st[s].params += mtp * mc->params + (copy ? ps.embedding / c->tp : 0.0);
                    st[s].head_params += mtp * mc->params + (copy ? ps.embedding / c->tp : 0.0);
                    tail[0] += mtp * (layer->f + own_f);
                    tail[1] += mtp * (layer->b + own_b);
                    tail[2] += mtp * (layer->w + own_w);
                    if (trace != NULL)
                        for (int d = 0; d < SAX_DIM_COUNT; d++)
                            trace->fwd_comm_s[s][d] += mtp * parts->fwd_comm[d];
                    if (detail != NULL) {
                        detail->stage_math_s[s] += mtp * (parts->math + 3.0 * (mc->gemm_s + lg->gemm_s));
                        detail->stage_memory_s[s] += mtp * (parts->memory + mc->elem_fwd_s + mc->elem_bwd_s +
                                                            lg->loss_fwd_s + lg->loss_bwd_s);
                    }
                }
            }
            first_layer += nl;
            pl.f_s[s] = st[s].f / v;
            pl.b_s[s] = st[s].b / v;
            pl.w_s[s] = st[s].w / v;
            pl.place_f_s[s] = st[s].place_f / v;
            pl.place_b_s[s] = st[s].place_b / v;
        }
        if (pass > 0 || !have_links ||
            !share_layer_comm(cl, c, lay, &memo, st, calls, (double)m, &tr_z3, act_bytes, boundaries, &lcm))
            break;
        if (!fold)
            lcm.s[LAYER_ETP] = lcm.s[LAYER_TP];
    }
    int ends[2] = {0, 0}; /* the layers of the first and the last virtual stage, when they differ */
    if (c->n_layout > 0) {
        ends[0] = c->layout_layers[0];
        ends[1] = c->layout_layers[c->n_layout - 1];
        pl.ends_differ = v > 1;
    } else {
        ends[0] = (st[0].layers + 1) / v - 1; /* embedding-loss: n = v k - 1 layers, k - 1 at the ends */
        ends[1] = (st[pp - 1].layers + 1) / v - 1;
        pl.ends_differ = c->layer_split == SAX_LAYER_SPLIT_EMBEDDING_LOSS && v > 1 &&
                         c->first_stage_layers == 0 && c->last_stage_layers == 0;
    }
    if (pl.ends_differ)
        end_chunks(c, st, tail, ends, &pl);
    if (trace != NULL) /* each stage's exposed traffic a chunk, forward and backward, its own */
        for (int s = 0; s < pp; s++) {
            const double all_s[SAX_DIM_COUNT] = {[SAX_DIM_TP] = st[s].tp,
                                                 [SAX_DIM_CP] = st[s].cp,
                                                 [SAX_DIM_EP] = st[s].ep,
                                                 [SAX_DIM_DP] = st[s].z3};
            for (int d = 0; d < SAX_DIM_COUNT; d++) {
                double fwd = trace->fwd_comm_s[s][d];
                trace->fwd_comm_s[s][d] = fwd / v;
                trace->bwd_comm_s[s][d] = (all_s[d] - fwd) / v;
            }
        }
    if (c->schedule == SAX_SCHEDULE_DUALPIPE)
        dualpipe_ranks(st, pp, detail);

    /* Traffic classes share the site links (docs/cost-model.md section 9): a stage's TP, CP, EP and
     * ZeRO-3 traffic of one micro-batch (its groups, 1/pp of all) demands its bytes over the stage's
     * compute time, a boundary its transfers over the slower neighbour's; compute times, not the
     * events' (which hold exposed traffic), so that a slower link never lowers a demand. */
    sax_traffic_t cls; /* TP, CP, EP and ZeRO-3 traffic of one micro-batch, every stage */
    double bg[SAX_MAX_LINKS][2], cap[SAX_MAX_LINKS]; /* the stages and boundaries so far (then all) */
    bool busy_links = false;                         /* whether bg is anywhere above 0 */
    for (int l = 0; l < cl->n_links; l++) {
        bg[l][0] = bg[l][1] = 0.0;
        cap[l] = cl->links[l].bw_Bps;
    }
    traffic_zero(&cls, cl->n_links);
    if (have_links) {
        for (int k = 0; k < LAYER_CLASSES; k++)
            traffic_add(&cls, &lcm.tr[k], calls[k] / (double)m, cl->n_links);
        traffic_add(&cls, &tr_z3, 1.0, cl->n_links);
    }

    /* stage boundaries: activations forward, their gradients backward (Megatron's scatter/gather
     * across the TP ranks: each sends 1/tp); and each stage's DP synchronisation after its last
     * backward, which shares the links with the traffic of the stages still computing then (itself
     * and those before it, 1F1B's cool-down) and the boundaries between them */
    sax_traffic_t tr_pp;
    traffic_zero(&tr_pp, cl->n_links);
    double shard = (double)c->dp * c->cp, expert_shard = sax_candidate_expert_dp(c);
    double end[SAX_SIM_MAX_STAGES]; /* each stage's exposed DP synchronisation, then its end */
    /* the boundaries whose transfers cross site links, and one transfer's bytes on each link */
    enum { MAX_CROSSING = 8 }; /* kept here; any further ones (from rest_from on) are asked of p2p again */
    int crossing[MAX_CROSSING], n_crossing = 0, rest_from = -1;
    double crossing_bytes[MAX_CROSSING][SAX_MAX_LINKS][2];
    sax_traffic_t tr_dp;
    traffic_zero(&tr_dp, cl->n_links);
    const double eff = p->training.dp_overlap_efficiency;
    const double bucket =
        p->training.ddp_bucket_size > 0 ? (double)p->training.ddp_bucket_size : sax_max(4e7, 1e6 * c->dp);
    double warm_up = 0.0;                          /* the first forwards of the stages before this one */
    double last_share[SAX_SIM_MAX_STAGES] = {0.0}; /* each stage's last bucket (ZeRO 0-2) */
    sax_dp_wait_t dp_wait[SAX_SIM_MAX_STAGES] = {SAX_DP_WAIT_NONE}; /* and why its reduction shows */
    for (int s = 0; s < pp; s++) {
        if (have_links && cls.xsite_bytes > 0.0) {
            demand_add(bg, &cls, 1.0 / (pp * st[s].comp), false, cl->n_links);
            busy_links = true;
        }
        const double(*others)[2] = busy_links ? (const double(*)[2])bg : NULL;
        /* the routed experts synchronise over their own replicas, the rest over all of DP x CP; the
         * traffic is this stage's groups' (1/pp of the groups of that shape), its time and demand
         * those of all of them at once */
        double ex = st[s].expert_params, shared = st[s].params - ex;
        /* the reduction that hides behind the backward (and the gather behind the next forward) slows
         * them by `kappa` of its hidden time (section 6), which shows here with the exposed part */
        double exposed = 0.0, kappa = st[s].gpu->comm_interference;
        const double own = sax_max(0.0, shared - st[s].emb_params - st[s].head_params);
        const double layer = st[s].layers > 0 ? own / st[s].layers : 0.0;
        const buckets_t bk =
            ddp_buckets(bucket, s == 0, v, st[s].head_params, layer, st[s].layers, st[s].emb_params);
        last_share[s] = c->zero <= 2 ? bk.last : 0.0;
        dp_wait[s] = c->zero > 2 ? SAX_DP_WAIT_NONE
                     : s > 0     ? SAX_DP_WAIT_ONE_BUCKET
                                 : SAX_DP_WAIT_LAST_BUCKET;
        bool queued = false; /* the reduction's buckets outlast the window (the first stage's) */
        sax_traffic_t tr, ag;
        traffic_zero(&tr, cl->n_links);
        traffic_zero(&ag, cl->n_links);
        if (c->zero == 0) {
            double t_sh = collective(&memo, cl, c, lay, SAX_DIM_DP, SAX_OP_ALL_REDUCE, shared * gb, gb, &tr),
                   t = t_sh + collective(&memo, cl, c, lay, SAX_GROUP_EXPERT_DP, SAX_OP_ALL_REDUCE, ex * gb,
                                         gb, &tr);
            double hide = eff * (pl.b_s[s] + pl.w_s[s]),
                   done = shared_s(cap, cl->n_links, t, hide, &tr, false, others);
            double out = bucket_exposed(done, hide, bk, t > 0.0 ? t_sh / t : 1.0, v, &queued);
            exposed = out + kappa * sax_min(done - out, hide);
            if (trace != NULL)
                trace->dp_s[s] = done;
        } else if (c->zero <= 2) {
            double trs_sh =
                       collective(&memo, cl, c, lay, SAX_DIM_DP, SAX_OP_REDUCE_SCATTER, shared * gb, gb, &tr),
                   trs = trs_sh + collective(&memo, cl, c, lay, SAX_GROUP_EXPERT_DP, SAX_OP_REDUCE_SCATTER,
                                             ex * gb, gb, &tr);
            double tag_sh = collective(&memo, cl, c, lay, SAX_DIM_DP, SAX_OP_ALL_GATHER,
                                       shared * SAX_ACT_BYTES, SAX_ACT_BYTES, &ag),
                   tag = tag_sh + collective(&memo, cl, c, lay, SAX_GROUP_EXPERT_DP, SAX_OP_ALL_GATHER,
                                             ex * SAX_ACT_BYTES, SAX_ACT_BYTES, &ag);
            /* the gather hides behind the next iteration's first forward, when the same stages run */
            double hide_b = eff * (pl.b_s[s] + pl.w_s[s]), hide_f = eff * pl.f_s[s];
            double done_rs = shared_s(cap, cl->n_links, trs, hide_b, &tr, false, others),
                   done_ag = shared_s(cap, cl->n_links, tag, hide_f, &ag, false, others);
            /* a later stage's one bucket is gathered from the iteration's start (optimizer.zero_grad
             * dispatches every first gather) while the stage waits for its first activations, idle */
            const bool idle = s > 0 && v == 1 && eff > 0.0;
            double out_rs = bucket_exposed(done_rs, hide_b, bk, trs > 0.0 ? trs_sh / trs : 1.0, v, &queued),
                   out_ag =
                       idle ? sax_max(0.0, done_ag - warm_up)
                            : bucket_exposed(done_ag, hide_f, bk, tag > 0.0 ? tag_sh / tag : 1.0, v, NULL);
            exposed = out_rs + out_ag +
                      kappa * (sax_min(done_rs - out_rs, hide_b) +
                               (idle ? 0.0 : sax_min(done_ag - out_ag, hide_f)));
            traffic_sum(&tr, &ag, cl->n_links);
            if (trace != NULL)
                trace->dp_s[s] = done_rs + done_ag;
        }
        if (dp_wait[s] == SAX_DP_WAIT_LAST_BUCKET && queued)
            dp_wait[s] = SAX_DP_WAIT_QUEUE;
        traffic_add(&tr_dp, &tr, 1.0 / pp, cl->n_links);
        end[s] = exposed;
        warm_up += pl.f_s[s];

        pl.link_s[s] = pl.link_busy_s[s] = 0.0;
        if (pp > 1 && s < boundaries) {
            sax_traffic_t one; /* one transfer of every pipeline */
            traffic_zero(&one, cl->n_links);
            pl.link_s[s] = p2p(&memo, cl, c, lay, s, act_bytes, SAX_ACT_BYTES, &one, &pl.link_busy_s[s]);
            /* crossings per iteration: m micro-batches x chunks (v-1 on the wrap), forward and back: the
             * gradients cross the other way */
            double crossings = (double)m * (s == pp - 1 ? v - 1 : v);
            traffic_add(&tr_pp, &one, crossings, cl->n_links);
            for (int l = 0; l < cl->n_links; l++) {
                tr_pp.link_bytes[l][0] += crossings * one.link_bytes[l][1];
                tr_pp.link_bytes[l][1] += crossings * one.link_bytes[l][0];
            }
            tr_pp.xsite_bytes += crossings * one.xsite_bytes;
            if (have_links && one.xsite_bytes > 0.0) { /* both ways, over the slower neighbour's compute */
                if (n_crossing < MAX_CROSSING) {
                    memcpy(crossing_bytes[n_crossing], one.link_bytes,
                           sizeof(double) * 2 * (size_t)cl->n_links);
                    crossing[n_crossing++] = s;
                } else if (rest_from < 0) {
                    rest_from = s;
                }
                double k = transfer_rate(c, st, s);
                demand_add(bg, &one, k, false, cl->n_links);
                demand_add(bg, &one, k, true, cl->n_links);
                busy_links = true;
            }
        }
    }
    /* In the steady state every stage computes and every boundary sends: a transfer shares its links
     * with the other boundaries' transfers and every stage's TP, CP, EP and ZeRO-3 traffic. */
    int n_rest = rest_from < 0 ? 0 : boundaries - rest_from;
    for (int i = 0; i < n_crossing + n_rest; i++) {
        int s = i < n_crossing ? crossing[i] : rest_from + (i - n_crossing);
        double busy = pl.link_busy_s[s];
        sax_traffic_t more;
        const double(*bytes)[2] = (const double(*)[2])crossing_bytes[i < n_crossing ? i : 0];
        if (i >= n_crossing) {
            traffic_zero(&more, cl->n_links);
            p2p(&memo, cl, c, lay, s, act_bytes, SAX_ACT_BYTES, &more, &busy);
            if (!(more.xsite_bytes > 0.0))
                continue;
            bytes = (const double(*)[2])more.link_bytes;
        }
        double k = transfer_rate(c, st, s);
        double others[SAX_MAX_LINKS][2];
        for (int l = 0; l < cl->n_links; l++) {
            double own = k * (bytes[l][0] + bytes[l][1]);
            others[l][0] = sax_max(0.0, bg[l][0] - own);
            others[l][1] = sax_max(0.0, bg[l][1] - own);
        }
        const double(*rest)[2] = (const double(*)[2])others;
        double held = sax_max(sax_shared_finish_s(busy, INFINITY, cl->n_links, cap, bytes, false, rest),
                              sax_shared_finish_s(busy, INFINITY, cl->n_links, cap, bytes, true, rest));
        pl.link_s[s] += held - busy;
        pl.link_busy_s[s] = held;
    }

    /* the pipeline, and the same without transfer time (what the bubble alone costs) */
    double makespan, makespan_free;
    double finish[SAX_SIM_MAX_STAGES], finish_free[SAX_SIM_MAX_STAGES];
    if (pp == 1) {
        makespan = makespan_free = (double)m * (st[0].f + st[0].b + st[0].w);
        finish[0] = makespan;
    } else {
        if (!sax_pipeline_time(&pl, scratch, &makespan, finish))
            return infeasible(r, SAX_INFEASIBLE_SIMULATION);
        double save[SAX_SIM_MAX_STAGES], save_busy[SAX_SIM_MAX_STAGES];
        memcpy(save, pl.link_s, sizeof(double) * (size_t)pp);
        memcpy(save_busy, pl.link_busy_s, sizeof(double) * (size_t)pp);
        memset(pl.link_s, 0, sizeof(double) * (size_t)pp);
        memset(pl.link_busy_s, 0, sizeof(double) * (size_t)pp);
        bool ok = sax_pipeline_time(&pl, scratch, &makespan_free, finish_free);
        memcpy(pl.link_s, save, sizeof(double) * (size_t)pp);
        memcpy(pl.link_busy_s, save_busy, sizeof(double) * (size_t)pp);
        if (!ok)
            return infeasible(r, SAX_INFEASIBLE_SIMULATION);
    }

    /* each stage's end: its exposed DP synchronisation, then the optimizer step and the host's
     * synchronisation at the step */
    double opt[SAX_SIM_MAX_STAGES];
    int crit = 0;
    double t_iter = 0.0;
    for (int s = 0; s < pp; s++) {
        double ex = st[s].expert_params, shared = st[s].params - ex;
        /* Adam: read the fp32 gradient (4 B) and the optimizer state (O: master, m, v), write the state
         * and the bf16 weights (2 B), which it also reads without a master copy: 30 B with fp32 state.
         * fp16's dynamic loss scaling first unscales the fp32 gradients and checks them for inf/nan, one
         * read and one write of each (Megatron-Core's _unscale_main_grads_and_check_for_nan,
         * torch._amp_foreach_non_finite_check_and_unscale_): 8 B more. */
        double opt_params = c->zero >= 1 ? shared / shard + ex / expert_shard : st[s].params;
        double opt_bytes = 6.0 + 2.0 * sax_optimizer_bytes(&p->training) +
                           (p->training.master_weights ? 0.0 : 2.0) +
                           (p->training.precision == SAX_PRECISION_FP16 ? 8.0 : 0.0);
        opt[s] = opt_params * opt_bytes / (st[s].gpu->hbm_bw_Bps * st[s].gpu->mem_eff) *
                     costs_for(p, c, st[s].gpu, cache, &n_cache)->slowest +
                 p->training.step_overhead_s; /* the host's synchronisation at the step (section 2) */
        if (trace != NULL)
            trace->dp_exposed_s[s] = end[s];
        end[s] += finish[s];
        if (trace != NULL) {
            trace->opt_s[s] = opt[s];
        }
        if (end[s] + opt[s] > t_iter) {
            t_iter = end[s] + opt[s];
            crit = s;
        }
    }
    traffic_add(&tr_dp, &tr_z3, (double)m, cl->n_links);

    /* every class's bytes on the site links; an iteration lasts at least as long as its busiest link
     * direction takes to carry them. The classes' shares can add up to less where one hid behind
     * another's traffic without slowing it in turn (the DP synchronisation behind a last backward whose
     * exposed collectives share its link): the difference is the link's backlog, which the
     * synchronisation of the stage that ends the iteration waits for (docs/cost-model.md section 9). */
    sax_traffic_t all;
    traffic_zero(&all, cl->n_links);
    for (int k = 0; k < LAYER_CLASSES; k++) {
        traffic_add(&all, &lcm.tr[k], calls[k], cl->n_links);
        trace_class(trace, layer_class_dim[k], &lcm.tr[k], calls[k], cl->n_links);
    }
    traffic_add(&all, &tr_pp, 1.0, cl->n_links);
    traffic_add(&all, &tr_dp, 1.0, cl->n_links);
    trace_class(trace, SAX_DIM_PP, &tr_pp, 1.0, cl->n_links);
    trace_class(trace, SAX_DIM_DP, &tr_dp, 1.0, cl->n_links);
    double drain = t_iter;
    for (int l = 0; l < cl->n_links; l++)
        drain = sax_max(drain, sax_max(all.link_bytes[l][0], all.link_bytes[l][1]) / cl->links[l].bw_Bps);
    if (drain > t_iter) {
        end[crit] += drain - t_iter;
        if (trace != NULL) {
            trace->dp_exposed_s[crit] += drain - t_iter;
            trace->dp_s[crit] += drain - t_iter;
        }
        t_iter = drain;
    }

    /* memory: the fullest GPU, or, when some hold more than their HBM, the one furthest over */
    double mem_max = 0.0;
    double excess_max = 0.0; /* with `over`: the most a stage's GPU holds beyond its HBM */
    bool over = false;       /* some stage's GPU holds more than its HBM */
    for (int s = 0; s < pp; s++) {
        sax_memory_in_t in = {.stage = s,
                              .layers = st[s].layers,
                              .micro = m,
                              .params = st[s].params,
                              .expert_params = st[s].expert_params,
                              .act_per_micro_bytes = st[s].act,
                              .act_loss_bytes = st[s].act_loss,
                              .act_recompute_bytes = st[s].act_peak_layer,
                              .grad_bytes = gb,
                              .optimizer_bytes = sax_optimizer_bytes(&p->training),
                              .reserved_bytes = st[s].gpu->reserved_bytes};
        sax_memory_t mem;
        sax_memory_stage(c, &in, &mem);
        /* reported with its breakdown */
        double excess = mem.total_bytes - st[s].gpu->hbm_bytes;
        bool pick = excess > 0.0 ? !over || excess > excess_max : !over && mem.total_bytes > mem_max;
        if (excess > 0.0)
            excess_max = over ? sax_max(excess_max, excess) : excess;
        over = over || excess > 0.0;
        if (pick) {
            mem_max = mem.total_bytes;
            r->mem_weights_bytes = mem.weights_bytes;
            r->mem_grads_bytes = mem.grads_bytes;
            r->mem_optimizer_bytes = mem.optimizer_bytes;
            r->mem_activations_bytes = mem.activations_bytes;
        }
    }
    r->memory_per_gpu_bytes = mem_max;
    if (over)
        return infeasible(r, SAX_INFEASIBLE_MEMORY);

    /* breakdown on the stage that ends the iteration */
    const stage_t *cs = &st[crit];
    double busy = (double)m * (cs->f + cs->b + cs->w);
    double idle = sax_max(0.0, finish[crit] - busy);
    double exposed_pp = sax_min(idle, sax_max(0.0, makespan - makespan_free));
    r->breakdown_s[SAX_PHASE_COMPUTE] = (double)m * cs->comp + opt[crit];
    r->breakdown_s[SAX_PHASE_TP] = (double)m * cs->tp;
    r->breakdown_s[SAX_PHASE_CP] = (double)m * cs->cp;
    r->breakdown_s[SAX_PHASE_EP] = (double)m * cs->ep;
    r->breakdown_s[SAX_PHASE_PP] = exposed_pp;
    r->breakdown_s[SAX_PHASE_BUBBLE] = idle - exposed_pp;
    r->breakdown_s[SAX_PHASE_DP] = (double)m * cs->z3 + (end[crit] - finish[crit]);
    r->iteration_time_s = t_iter;
    r->comm_s[SAX_DIM_TP] = (double)m * cs->tp;
    r->comm_s[SAX_DIM_CP] = (double)m * cs->cp;
    r->comm_s[SAX_DIM_EP] = (double)m * cs->ep;

    /* cross-site traffic and link utilisation */
    r->cross_site_bytes_per_iteration = all.xsite_bytes;
    for (int l = 0; l < cl->n_links; l++) { /* the busier direction */
        r->link_bytes[l] = (float)(all.link_bytes[l][0] + all.link_bytes[l][1]);
        r->link_utilisation[l] =
            (float)(sax_max(all.link_bytes[l][0], all.link_bytes[l][1]) / (cl->links[l].bw_Bps * t_iter));
    }

    double peak = 0.0;
    for (int s = 0; s < pp; s++)
        peak += st[s].peak_flops * (double)r->gpus_used / pp;
    r->tokens_per_s = (double)p->training.global_batch * md->seq_len / t_iter;
    r->mfu = r->model_flops_per_iteration / (t_iter * peak);
    r->feasible = true;
    if (pl_out != NULL)
        *pl_out = pl;
    if (trace != NULL) {
        trace->crit = crit;
        trace->makespan_s = makespan;
        for (int s = 0; s < pp; s++) {
            trace->finish_s[s] = finish[s];
            int a, b, links[SAX_MAX_LINKS], dirs[SAX_MAX_LINKS];
            if (pp > 1 && s < boundaries) {
                sax_layout_stage_level(cl, lay, s, &a, &b);
                for (int h = a != b ? sax_site_route(cl, a, b, links, dirs) : 0; h > 0; h--)
                    trace->boundary_links[s] |= 1u << links[h - 1];
            }
        }
    }
    if (detail != NULL) {
        detail->crit = crit;
        detail->layers = cs->layers;
        detail->params = cs->params;
        detail->expert_params = cs->expert_params;
        detail->opt_s = opt[crit];
        detail->z3_s = (double)m * cs->z3;
        detail->math_s = (double)m * detail->stage_math_s[crit];
        detail->memory_s = (double)m * detail->stage_memory_s[crit];
        detail->micro = m;
        detail->dp_wait = dp_wait[crit];
        detail->dp_last_share = last_share[crit];
        detail->first_layer = 0;
        for (int s = 0; s < crit; s++)
            detail->first_layer += st[s].layers;
    }
    return SAX_OK;
}
