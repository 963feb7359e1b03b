/* model_internal.h - private to model/: the pieces eval.c composes. Not part of the public API. */
#ifndef SAX_MODEL_INTERNAL_H
#define SAX_MODEL_INTERNAL_H

#include "sax_model.h"

/* Bytes per element of what travels and what is stored. */
#define SAX_ACT_BYTES 2.0 /* bf16 activations and weights */

/* Per-layer costs of one micro-batch on one GPU, forward pass only (backward derives from it). */
typedef struct {
    double gemm_s;         /* linear layers (QKV, output projection, MLP or experts) */
    double attn_s;         /* attention score and value products (forward) */
    double attn_bwd_s;     /* their backward (flash attention recomputes the scores: 2.5x forward) */
    double elem_s;         /* memory-bound kernels: norms, residuals, activations, softmax, dropout */
    double flops;          /* forward FLOPs of the layer on this GPU */
    double params;         /* parameters of the layer held by this GPU (after TP and EP) */
    double expert_params;  /* of which routed experts: replicated over cp x dp / ep ranks only */
    double act_bytes;      /* activation memory kept for backward (recompute "none") */
    double act_sel_bytes;  /* ... with selective recomputation */
    double act_full_bytes; /* ... with full recomputation (the layer input only) */
    double tp_bytes;       /* bytes of one TP all-reduce (the layer's output activation) */
    double ep_bytes;       /* bytes one GPU sends in one all-to-all (dispatch or combine) */
    double cp_bytes;       /* K and V bytes one GPU passes on per ring-attention step */
} sax_layer_cost_t;

typedef struct {
    double per_layer_attn; /* attention projections */
    double per_dense_mlp;
    double per_moe_routed; /* all routed experts of one layer */
    double per_moe_shared;
    double per_moe_router;
    double embedding, output;
} sax_param_split_t;

void sax_model_param_split(const sax_model_desc_t *m, sax_param_split_t *out);

/* Costs of one dense (moe = false) or MoE layer for micro-batch b on a GPU of `gpu`. */
void sax_layer_cost(const sax_model_desc_t *m, const sax_gpu_t *gpu, const sax_training_t *tr, int tp, int cp,
                    int ep, int b, bool sp, bool moe, sax_layer_cost_t *out);

/* Output layer (logits) + loss for micro-batch b: forward time and FLOPs on one GPU. */
void sax_logits_cost(const sax_model_desc_t *m, const sax_gpu_t *gpu, sax_precision_t prec, int tp, int cp,
                     int b, double *fwd_s, double *flops, double *act_bytes);

/* ---- memory --------------------------------------------------------------------------------- */

typedef struct {
    int stage, layers;
    long micro;                 /* micro-batches per iteration */
    double params;              /* parameters held by one GPU of the stage, before ZeRO sharding */
    double expert_params;       /* of which routed experts (ZeRO shards them over cp x dp / ep) */
    double act_per_micro_bytes; /* activations one micro-batch leaves on the stage */
    double act_recompute_bytes; /* working set of recomputing one layer (full recomputation) */
    double grad_bytes, reserved_bytes;
} sax_memory_in_t;

typedef struct {
    double weights_bytes, grads_bytes, optimizer_bytes, activations_bytes, total_bytes;
} sax_memory_t;

void sax_memory_stage(const sax_candidate_t *c, const sax_memory_in_t *in, sax_memory_t *out);

/* ---- layout: how a parallel group maps onto the hierarchy ----------------------------------- */

/* Levels: 0 = scale-up domain, 1..n_tiers = tiers, n_tiers + 1 = across sites. */
#define SAX_MAX_LEVELS (SAX_MAX_TIERS + 2)

typedef struct {
    int n;                     /* group size */
    int top;                   /* outermost level the group crosses (0 = stays in scale-up) */
    int count[SAX_MAX_LEVELS]; /* members of one group inside one unit of each level */
    int groups_per_site;       /* groups that have members in one site */
    int sites;                 /* sites one group spans */
    int link;                  /* site link used (of several: the slowest between neighbours), or -1 */
} sax_group_t;

/* The group of a layout that is not a dimension: the ranks holding the same routed experts (the
 * data-parallel replicas of one expert shard, cp x dp / ep), which reduce their gradients. */
#define SAX_GROUP_EXPERT_DP ((sax_dim_t)SAX_DIM_COUNT)

typedef struct {
    int n_levels;                       /* n_tiers + 2 */
    int unit[SAX_MAX_LEVELS];           /* GPUs per unit at each level (sites: GPUs of the first site) */
    sax_group_t dim[SAX_DIM_COUNT + 1]; /* every dimension's group, and SAX_GROUP_EXPERT_DP's */
    long stride[SAX_DIM_COUNT];         /* rank distance between neighbours of each dimension */
    int gpus;
} sax_layout_t;

sax_infeasible_t sax_layout_build(const sax_cluster_t *cl, const sax_candidate_t *c, sax_layout_t *lay);

int sax_layout_site_of_rank(const sax_cluster_t *cl, long rank);

/* Level crossed between pipeline stages s and s+1 (s = pp-1: the wrap back to stage 0) of the
 * pipeline holding rank 0; *link is the site link used, or -1. */
int sax_layout_stage_level(const sax_cluster_t *cl, const sax_layout_t *lay, int s, int *link);

/* ---- network ------------------------------------------------------------------------------- */

/* Per-GPU bandwidth (B/s) and per-step latency (s) of traffic crossing level `lvl` when a
 * fraction `share` (0..1] of the GPUs of a unit send across its boundary at once. For the site
 * level, `flows` is the number of concurrent GPU-to-GPU flows on the site link. */
typedef struct {
    double bw_Bps;
    double latency_s;
} sax_hop_t;

sax_hop_t sax_level_hop(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay, int lvl,
                        double share, double flows, int link);

/* Goodput of one connection over a site link under the candidate's transport (B/s). */
double sax_transport_flow_Bps(const sax_site_link_t *l, sax_transport_t t, double line_Bps);
bool sax_transport_is_feasible(const sax_site_link_t *l, sax_transport_t t, double port_Bps);

/* Time of a collective of dimension `d` (or SAX_GROUP_EXPERT_DP) on `bytes` per GPU. `kind`: 'A' all-reduce,
 * 'R' reduce-scatter, 'G' all-gather, 'X' all-to-all. Adds the bytes crossing sites (all groups
 * together) to *xsite_bytes. */
double sax_collective_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                        sax_dim_t d, char kind, double bytes, double elem_bytes, double *xsite_bytes);

/* Time of one point-to-point transfer between adjacent pipeline stages s and s+1. */
double sax_p2p_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay, int stage,
                 double bytes, double elem_bytes, double *xsite_bytes, int *link);

/* Byte factor of compression on cross-site traffic whose elements are `elem_bytes` wide. */
double sax_compression_factor(sax_compression_t comp, double elem_bytes);

/* ---- pipeline schedules ------------------------------------------------------------------- */

#define SAX_SIM_MAX_OPS (3 * SAX_SIM_MAX_EVENTS)

/* Memoised simulations: sweeps meet the same pipeline many times (candidates that differ only in
 * what the pipeline does not see, such as DP's collective algorithm). Keyed by a 64-bit FNV-1a hash
 * of every input of the simulation; the result is a pure function of the key's inputs, so the
 * cache cannot change a result (barring a 2^-64 hash collision). */
#define SAX_MEMO_SLOTS 64
typedef struct {
    uint64_t key;   /* 0: empty */
    uint64_t check; /* ~key: a slot of scratch never initialised cannot pass for a hit */
    double makespan_s;
    double finish_s[SAX_SIM_MAX_STAGES];
} sax_memo_t;

struct sax_scratch {
    sax_memo_t memo[SAX_MEMO_SLOTS];
    uint64_t memo_hits, memo_misses;
    double f_end[SAX_SIM_MAX_EVENTS]; /* finish of forward events, by (virtual stage, micro) */
    double b_end[SAX_SIM_MAX_EVENTS]; /* finish of backward (input-gradient) events */
    int32_t ops[SAX_SIM_MAX_OPS];     /* every stage's event order, stage after stage */
    int32_t fixed[SAX_SIM_MAX_OPS];   /* orders with W placed, for schedules that place W greedily */
    sax_pipeline_t free_links;        /* the pipeline with free transfers, where W's place is chosen */
};

/* A schedule users choose by name: how each stage orders its events, and the closed form of its
 * makespan for equal stages and links (NULL: none). */
typedef struct {
    sax_schedule_t id;
    bool split_w; /* weight gradients are separate events */
    int (*order)(const sax_pipeline_t *pl, int s, int32_t *ops, int cap);
    double (*closed_form)(const sax_pipeline_t *pl);
} sax_schedule_desc_t;

const sax_schedule_desc_t *sax_schedule_get(sax_schedule_t id);

/* The pipeline's makespan and each stage's finish: the closed form where it is exact, else the
 * event simulation, memoised in `sc` (NULL: no simulation). False when it cannot be timed. */
bool sax_pipeline_time(const sax_pipeline_t *pl, sax_scratch_t *sc, double *makespan, double *finish);

#endif
