/* model_internal.h - private to model/: the pieces eval.c composes. Not part of the public API. */
#ifndef SAX_MODEL_INTERNAL_H
#define SAX_MODEL_INTERNAL_H

#include "sax_model.h"

#include <stdint.h>

/* max and min of two numbers that are not NaN, inlined (libm's fmax and fmin are calls). */
static inline double sax_max(double a, double b) { return a > b ? a : b; }

/* For the few helpers of the evaluation path that must be inlined into each caller (so that a constant
 * argument specialises them): GCC and Clang otherwise keep some out of line. */
#define SAX_INLINE __attribute__((always_inline)) static inline
static inline double sax_min(double a, double b) { return a < b ? a : b; }

/* The modules selective recomputation covers, bit m for sax_recompute_module_t m: the candidate's, or
 * Megatron-Core's default (the attention core) when it names none. */
static inline unsigned sax_recompute_modules(const sax_candidate_t *c)
{
    return c->recompute_modules != 0 ? c->recompute_modules : 1u << SAX_RECOMPUTE_MODULE_CORE_ATTN;
}

/* One step of the memos' keys (the pipeline's in schedule.c, the collectives' in eval.c): a word in, every
 * bit of it reaching every bit of the key. A multiply alone carries a difference only upwards, so
 * words that differ only in their high bits - doubles that differ by a power of two, such as a
 * pipeline's times and the same halved over two chunks - could cancel out within the top dozen bits
 * (about one pair in 2,000 collided); the shift brings the high bits back down. */
static inline uint64_t sax_hash_word(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 31);
}

/* Bytes per element of what travels and what is stored. */
#define SAX_ACT_BYTES 2.0 /* bf16 activations and weights */

/* The four GEMMs of a layer next to its TP collectives (sax_layer_cost_t.tp_gemm_s). */
enum { SAX_TP_GEMM_QKV, SAX_TP_GEMM_PROJ, SAX_TP_GEMM_MLP_IN, SAX_TP_GEMM_MLP_OUT };

/* Per-layer costs of one micro-batch on one GPU, forward pass only (backward derives from it). */
typedef struct {
    double gemm_s;           /* linear layers (QKV, output projection, MLP or experts) */
    double tp_gemm_s[4];     /* of gemm_s, the GEMM each of the layer's four TP collectives can run inside
                                (SAX_TP_GEMM_*): QKV after the attention's gather, the output projection before
                                its scatter, the MLP's first and second GEMMs likewise (a MoE layer's experts,
                                shared experts and router, half each) */
    double attn_s;           /* attention score and value products (forward) */
    double attn_bwd_s;       /* their backward (flash attention recomputes the scores: 2.5x forward) */
    double elem_s;           /* memory-bound kernels: norms, residuals, activations, softmax, dropout */
    double elem_bwd_s;       /* ... in the backward pass (twice elem_s, and fp8's casts of the gradients) */
    double ring_s;           /* of elem_s, PyTorch's ring attention's merges and copies (0 otherwise) */
    double tp_sum_s;         /* of elem_s, the sums after async TP's fused reduce-scatters (torch's
                                micro-pipeline TP; 0 otherwise) */
    double flops;            /* forward FLOPs of the layer on this GPU */
    double params;           /* parameters of the layer held by this GPU (after TP and EP) */
    double expert_params;    /* of which routed experts: replicated over their expert-DP ranks only */
    double act_bytes;        /* activation memory kept for backward (recompute "none") */
    double act_sel_bytes;    /* ... with selective recomputation of the attention core */
    double act_norm_bytes;   /* of act_bytes, the two norms' outputs as the linear layers after them keep them
                              (recompute module layernorm frees them) */
    double norm_s;           /* the two norms' forward kernels (part of elem_s) */
    double act_mla_up_bytes; /* of act_bytes, MLA's up-projected Q, K and V less the rotary key the
                                checkpoint keeps (recompute module mla_up_proj frees them; 0 without MLA) */
    double mla_up_s;         /* the MLA up-projection GEMMs' forward (what mla_up_proj runs again) */
    double act_moe_act_bytes; /* of act_bytes, the routed experts' activation outputs, the FC2 inputs
                                 (recompute module moe_act frees them; 0 in a dense layer) */
    double moe_act_s;         /* the routed experts' activation kernel, forward (what moe_act runs again) */
    double act_full_bytes;    /* ... with full recomputation (the layer input only) */
    double act_op_bytes;      /* ... under torchtitan's per-op policy (training.selective_ac_option "op"; 0
                                 without it, and for MoE and MLA, where it is not priced) */
    double op_sac_s;          /* the GEMMs that policy runs again, forward (wk, wo and the FFN's second of
                                 three, or its second of two) */
    double tp_bytes;          /* bytes of one TP all-reduce (the layer's output activation) */
    double etp_bytes;         /* the same for the routed experts' TP group (etp ranks): one copy of each
                                 token the group routes, the unit of ep_bytes' copies */
    double ep_bytes;          /* bytes one GPU sends in one all-to-all (dispatch or combine) */
    double cp_bytes;          /* K and V bytes one GPU passes on per ring-attention step */
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

/* Costs of one dense (moe = false) or MoE layer for micro-batch b on a GPU of `gpu`; the routed experts
 * are split over ep x etp ranks (etp: their tensor-parallel degree, tp without parallel folding). */
void sax_layer_cost(const sax_model_desc_t *m, const sax_gpu_t *gpu, const sax_training_t *tr, int tp, int cp,
                    int ep, int etp, int b, bool sp, bool moe, sax_layer_cost_t *out);

/* Output layer (logits) + loss for micro-batch b on one GPU: the logits GEMM (forward; the data and
 * weight gradients take as long each), the memory-bound loss forward and backward, forward FLOPs, and
 * the bytes kept for the loss backward. */
typedef struct {
    double gemm_s, loss_fwd_s, loss_bwd_s, flops, act_bytes;
} sax_logits_cost_t;

void sax_logits_cost(const sax_model_desc_t *m, const sax_gpu_t *gpu, const sax_training_t *tr, int tp,
                     int cp, int b, sax_logits_cost_t *out);

/* One multi-token-prediction depth's own work besides its transformer layer and its output layer and
 * loss (workload.c): eh_proj's forward GEMM (its data and weight gradients take as long each), the norms'
 * and the concatenation's memory-bound time forward and backward, the bytes a micro-batch keeps for the
 * backward and the parameters a GPU holds. */
typedef struct {
    double gemm_s, elem_fwd_s, elem_bwd_s, act_bytes, params;
} sax_mtp_cost_t;

void sax_mtp_cost(const sax_model_desc_t *m, const sax_gpu_t *gpu, const sax_training_t *tr, int tp, int cp,
                  int b, bool sp, sax_mtp_cost_t *out);

/* ---- memory --------------------------------------------------------------------------------- */

typedef struct {
    int stage, layers;
    long micro;                 /* micro-batches per iteration */
    double params;              /* parameters held by one GPU of the stage, before ZeRO sharding */
    double expert_params;       /* of which routed experts (ZeRO shards them over their expert DP) */
    double act_per_micro_bytes; /* activations one micro-batch leaves on the stage */
    double act_loss_bytes;      /* besides them, the logits one micro-batch keeps for the loss backward */
    double act_recompute_bytes; /* working set of recomputing one layer (full recomputation) */
    double grad_bytes, optimizer_bytes, reserved_bytes; /* a parameter: main gradient, optimizer state */
} sax_memory_in_t;

typedef struct {
    double weights_bytes, grads_bytes, optimizer_bytes, activations_bytes, total_bytes;
} sax_memory_t;

void sax_memory_stage(const sax_candidate_t *c, const sax_memory_in_t *in, sax_memory_t *out);

/* ---- layout: how a parallel group maps onto the hierarchy ----------------------------------- */

/* Levels: 0 = scale-up domain, 1..n_tiers = tiers, n_tiers + 1 = across sites. */
#define SAX_MAX_LEVELS (SAX_MAX_TIERS + 2)
#define SAX_MAX_PIECES 3

/* A group's members are { sum_k i_k * piece_stride[k] : 0 <= i_k < piece_size[k] } (+ the group's
 * first rank); pieces inner first. All groups of one shape are translates of each other. */
typedef struct {
    int n;                         /* group size */
    int top;                       /* outermost level the group crosses (0 = stays in scale-up) */
    int count[SAX_MAX_LEVELS];     /* members of the group inside its first (fullest) unit of each level */
    int units[SAX_MAX_LEVELS];     /* units of each level the group spans; n / units[l] members per unit */
    int groups;                    /* groups of this shape communicating at once (1: the group alone) */
    double active[SAX_MAX_LEVELS]; /* GPUs of one unit of each level (the last: of a site) communicating
                                       at once in groups of this family; a unit's uplink is split by them */
    /* Partial units (a site's last unit of a level, when the site is not a whole number of them): the
     * fewest members a group of this family has in one that it leaves (tail), and the GPUs' worth of
     * that unit's uplink such a group gets (tail_gpus: the unit's own GPUs, split among those
     * communicating at once); 0 at a level where the family reaches into no partial unit. Set only when
     * has_tail (some site of the cluster has a partial unit): whole units leave them unwritten. */
    bool has_tail;
    int tail[SAX_MAX_LEVELS];
    double tail_gpus[SAX_MAX_LEVELS];
    /* Groups that do not nest in the units (a level's units hold unequal numbers of members: 3 members
     * 8 apart in pods of 16 hold 2 and 1): per level (the last: per site), the fewest members the group
     * has in one unit it spans, and the GPUs' worth of a unit's uplink the group gets in its most crowded
     * unit (the unit's GPUs split among the groups leaving through it). Set only when uneven: groups
     * that nest leave them unwritten and the closed forms take n / units[l] members per unit. */
    bool uneven;
    int few[SAX_MAX_LEVELS];
    double few_gpus[SAX_MAX_LEVELS];
    int n_pieces;
    long piece_stride[SAX_MAX_PIECES];
    int piece_size[SAX_MAX_PIECES];
    int sites;               /* sites one group spans */
    int site[SAX_MAX_SITES]; /* which, in rank order (a ring visits them in this order) */
    /* The ring through those sites, wrap-around included: each hop between consecutive sites is routed
     * over site links (through an intermediate site when two have no direct link); for every link and
     * direction (0: a -> b), the hops of one ring that use it. */
    uint8_t link_hops[SAX_MAX_LINKS][2];
    /* A hierarchical algorithm's top phase of a group that does not nest in the sites (its last site
     * holds fewer members): of the `groups` rings through the sites, those of the positions the last site
     * lacks, which skip it (their ring runs through the other sites). 0 otherwise. */
    int short_groups;
    double site_hop_latency_s[SAX_MAX_SITES]; /* one-way latency of the ring's hop leaving site[i] */
} sax_group_t;

/* The share of sax's all-to-all speed the MoE dispatcher's kernels reach: HybridEP's
 * training.hybridep_efficiency, 1 for NCCL's all-to-all and DeepEP. */
double sax_ep_dispatch_speed(const sax_training_t *tr);
/* The bytes a GPU's MoE all-to-all over EP group `g` is timed with: the layer's ep_bytes, or, under the
 * flex dispatcher, whose backends (DeepEP, HybridEP) send a token across the NIC once to each other
 * scale-up domain holding one of its experts and fan it out there, those of the uniform all-to-all
 * that puts the same bytes on the NIC (docs/cost-model.md section 5.7). */
double sax_ep_dispatch_bytes(const sax_model_desc_t *m, const sax_training_t *tr, const sax_layer_cost_t *moe,
                             const sax_group_t *g);

/* The groups of a layout that are not dimensions: the ranks holding the same routed experts (the
 * data-parallel replicas of one expert shard, tp x cp x dp / (ep x etp)), which reduce their gradients,
 * and the routed experts' tensor-parallel group (etp ranks; the TP group without parallel folding). */
#define SAX_GROUP_EXPERT_DP ((sax_dim_t)SAX_DIM_COUNT)
#define SAX_GROUP_EXPERT_TP ((sax_dim_t)(SAX_DIM_COUNT + 1))
#define SAX_LAYOUT_GROUPS (SAX_DIM_COUNT + 2)

typedef struct {
    int n_levels;                       /* n_tiers + 2 */
    int unit[SAX_MAX_LEVELS];           /* GPUs per unit at each level (sites: GPUs of the first site) */
    sax_group_t dim[SAX_LAYOUT_GROUPS]; /* every dimension's group, SAX_GROUP_EXPERT_DP's and _TP's */
    long stride[SAX_DIM_COUNT];         /* rank distance between neighbours of each dimension */
    int gpus;
    bool partial; /* some site is not a whole number of units of some level (its last unit is partial) */
} sax_layout_t;

sax_infeasible_t sax_layout_build(const sax_cluster_t *cl, const sax_candidate_t *c, sax_layout_t *lay);

/* Sets g->groups (the groups of its shape communicating at once) and g->active from it. */
void sax_layout_set_groups(const sax_cluster_t *cl, const sax_layout_t *lay, sax_group_t *g, int groups);

/* The levels' unit sizes of a cluster (lay->n_levels, lay->unit) without any group. */
void sax_layout_levels(const sax_cluster_t *cl, sax_layout_t *lay);

/* A group of n members `stride` GPUs apart from rank 0 (sax collective), alone or, with
 * `concurrent`, beside every other group of the same shape among the cluster's GPUs. */
sax_infeasible_t sax_layout_group_strided(const sax_cluster_t *cl, const sax_layout_t *lay, int n,
                                          long stride, bool concurrent, sax_group_t *g);

int sax_layout_site_of_rank(const sax_cluster_t *cl, long rank);

/* The level-`level` unit holding `rank` (level < n_levels - 1): its first rank (an id unique across
 * sites) and, in *gpus, the GPUs it holds. Units are counted from the start of each site, so a site's
 * last unit holds fewer than lay->unit[level] when the site is not a whole number of them. */
long sax_layout_unit_of(const sax_cluster_t *cl, const sax_layout_t *lay, long rank, int level, long *gpus);

/* Site links from site a to site b: the direct link, or the widest route (largest bottleneck
 * bandwidth), then the fewest hops, then the least latency: writes the links and
 * directions (0: links[i].a -> .b) of each hop and returns the hop count, or -1 when no route. */
int sax_site_route(const sax_cluster_t *cl, int a, int b, int *links, int *dirs);

/* Level crossed between pipeline stages s and s+1 (s = pp-1: the wrap back to stage 0) of the
 * pipeline holding rank 0; *a and *b are the sites of the two stages. */
int sax_layout_stage_level(const sax_cluster_t *cl, const sax_layout_t *lay, int s, int *a, int *b);

/* ---- network (network.c) ----------------------------------------------------------------------- */

/* What a route between two sites offers one connection. */
typedef struct {
    double latency_s, rtt_s;                   /* one way (the route's links summed), round trip */
    double loss;                               /* of the whole route */
    double mtu_bytes, mss_bytes, window_bytes; /* the smallest along the route */
    bool tcp_delayed_ack;
} sax_path_t;

void sax_site_path(const sax_cluster_t *cl, const int *links, int hops, sax_path_t *p);
bool sax_transport_is_feasible(const sax_site_link_t *l, sax_transport_t t, double port_Bps);
/* The most one connection of `flows` transport flows can carry over the path (B/s). */
double sax_transport_cap_Bps(const sax_path_t *p, sax_transport_t t, int flows);
/* The part of a connection's sending rate that is new data (loss recovery). */
double sax_transport_efficiency(const sax_path_t *p, sax_transport_t t, int flows, double rate_Bps);
/* Byte factor of compression on cross-site traffic whose elements are `elem_bytes` wide. */
double sax_compression_factor(sax_compression_t comp, double elem_bytes);

/* ---- collectives (collective.c: closed forms; collsim.c: the reference simulation) -------------- */

#define SAX_NCCL_P2P_NVL_CHUNK (512.0 * 1024) /* NCCL_P2P_NVL_CHUNKSIZE */

/* NCCL_BUFFSIZE, and the point-to-point chunk over NVLink or the network (NCCL_P2P_NVL_CHUNKSIZE,
 * NCCL_P2P_NET_CHUNKSIZE, at most NCCL_BUFFSIZE / 8): NCCL's defaults where a candidate leaves 0. */
double sax_nccl_buffer_bytes(const sax_candidate_t *c);
double sax_nccl_p2p_chunk(const sax_candidate_t *c, bool nvlink);

/* The parent of node i among f in tree t of NCCL's double binary tree (t = 0: ncclGetBtree, node 0 the
 * root; t = 1: its mirror, or its shift by one when f is odd); -1 at the root. */
int sax_dtree_parent(int f, int i, int t);
/* ... and its children (-1 where none). */
void sax_dtree_node(int f, int i, int t, int *up, int *d0, int *d1);

/* Channels of a ring or tree whose group has `members_per_domain` members in a scale-up domain. */
int sax_channels(const sax_candidate_t *c, int members_per_domain);
/* Point-to-point channels per network peer. */
int sax_p2p_channels(const sax_cluster_t *cl, const sax_candidate_t *c);

/* Bytes traffic puts on site links, accumulated by the functions below (NULL: not wanted). */
typedef struct {
    double xsite_bytes;                  /* crossing any site link, all groups */
    double link_bytes[SAX_MAX_LINKS][2]; /* on each link and direction (0: a -> b), all groups */
} sax_traffic_t;

/* Time of collective `op` of group g with algorithm `alg` on `bytes` per member (nccl-tests' size);
 * elements of `elem_bytes` (compression of cross-site traffic). */
double sax_group_collective_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                              const sax_group_t *g, sax_coll_op_t op, sax_algorithm_t alg, double bytes,
                              double elem_bytes, sax_traffic_t *tr);

/* The same for dimension d's group (or SAX_GROUP_EXPERT_DP) of a candidate: TP, CP and EP use rings
 * (all-to-all for EP), network.algorithm chooses for DP and the experts' replicas. */
double sax_collective_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                        sax_dim_t d, sax_coll_op_t op, double bytes, double elem_bytes, sax_traffic_t *tr);

/* Time of one point-to-point transfer between adjacent pipeline stages s and s+1 while every pipeline
 * sends over the same boundary; *busy_s (when not NULL): how long it holds the boundary's channels,
 * that time less the one-way latency and any compression passes (the next transfer in the same
 * direction starts its chunks once they are free). */
double sax_p2p_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay, int stage,
                 double bytes, double elem_bytes, sax_traffic_t *tr, double *busy_s);

typedef struct {
    double time_s;
    long events; /* simulated steps */
    int phases;  /* hierarchical: its phases, unpipelined */
    double phase_s[2 * SAX_MAX_LEVELS];
} sax_coll_sim_t;

/* The reference: simulates group g's collective (xsite_factor scales the bytes of any part that
 * crosses sites: compression). Allocates; not for the evaluation path. */
sax_status_t sax_collective_simulate(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_group_t *g,
                                     sax_coll_op_t op, sax_algorithm_t alg, double bytes, double xsite_factor,
                                     sax_coll_sim_t *out, sax_error_t *err);

/* ---- traffic classes sharing site links (flowshare.c) --------------------------------------- */

#define SAX_FLOW_MAX 32       /* flows of one reference run */
#define SAX_FLOW_MAX_LINKS 32 /* links (or link directions) of one reference run */

typedef struct {
    double release; /* s */
    double bytes;
    double cap; /* its own rate limit, B/s (window, NIC); INFINITY when none (then it must cross a link) */
    uint32_t links; /* bit l: it crosses link l */
} sax_flow_t;

/* The reference: max-min fair shares (progressive filling), refilled at every release and completion;
 * finish[i]: flow i's completion time. Not for the evaluation path (O(n^2 x links) per event). */
sax_status_t sax_flow_share_simulate(const sax_flow_t *flows, int n, const double *link_cap, int n_links,
                                     double *finish);

/* The closed form: a transfer that alone takes t_alone and puts bytes[l][d] on site link l's direction
 * d (capacity cap[l] each way; flip: bytes[l][!d]), released while the other classes demand bg[l][d]
 * B/s there for `window` seconds: on each direction the two get their max-min shares (each at most
 * its demand, at least half the link) until the others' bg x window bytes are through, then it runs
 * alone. Returns its completion after its release: the latest over its link directions (>= t_alone). */
double sax_shared_finish_s(double t_alone, double window, int n_links, const double *cap,
                           const double (*bytes)[2], bool flip, const double (*bg)[2]);

/* ---- pipeline schedules ------------------------------------------------------------------- */

#define SAX_SIM_MAX_OPS (3 * SAX_SIM_MAX_EVENTS)

/* Memoised simulations: sweeps meet the same pipeline many times (candidates that differ only in
 * what the pipeline does not see, such as DP's collective algorithm). Keyed by a 64-bit hash
 * of every input of the simulation; the result is a pure function of the key's inputs, so the
 * cache cannot change a result (barring a 2^-64 hash collision). */
#define SAX_MEMO_SLOTS 64
typedef struct {
    uint64_t key;   /* 0: empty */
    uint64_t check; /* ~key: a slot of scratch never initialised cannot pass for a hit */
    double makespan_s;
    double finish_s[SAX_SIM_MAX_STAGES];
} sax_memo_t;

/* Memoised collectives: a sweep asks for the same collective of the same group on the same network
 * again and again (candidates that differ only in what it does not see). Keyed by a hash of every
 * input: the network's quantities, the candidate's layout and network knobs, the group, the op and
 * its bytes (eval.c); the result is a pure function of them (barring a 2^-64 collision). Direct-mapped;
 * 4096 slots (2 MB of scratch): example (a)'s sweep misses 75k of its 2.2 M calls (3.4 %), where 256
 * slots missed 4.3 times as often and ran the sweep at 0.23 M evaluations/s against 0.50 M
 * (docs/performance.md). */
#define SAX_COLL_MEMO_SLOTS 4096
typedef struct {
    uint64_t key, check;
    double time_s;
    double busy_s; /* a transfer's: how long it holds its channels (sax_p2p_s) */
    sax_traffic_t tr;
} sax_coll_memo_t;

/* Everything of a problem and a candidate that sax_layout_build reads (the units, the sites, the links'
 * ends and latencies, which choose routes, and the degrees and their order), compared whole. */
typedef struct {
    int32_t tp, pp, dp, cp, ep, etp, n_order, order[SAX_DIM_COUNT];
    int32_t scale_up, n_tiers, tier_gpus[SAX_MAX_TIERS], n_sites, site_gpus[SAX_MAX_SITES], n_links;
    int32_t link_ends[SAX_MAX_LINKS];
    double link_latency_s[SAX_MAX_LINKS];
} sax_layout_key_t;

struct sax_scratch {
    sax_memo_t memo[SAX_MEMO_SLOTS];
    /* the last layout built: a sweep's candidates that differ only in the network keys share it */
    bool lay_valid;
    sax_layout_key_t lay_key;
    sax_infeasible_t lay_why;
    sax_layout_t lay;
    sax_coll_memo_t coll[SAX_COLL_MEMO_SLOTS];
    uint64_t memo_hits, memo_misses;
    double f_arr[SAX_SIM_MAX_EVENTS]; /* by (virtual stage, micro): when a forward's output is at the
                                         next virtual stage (the last's: when it ends) */
    double b_arr[SAX_SIM_MAX_EVENTS]; /* when a backward's input gradient is at the previous one */
    double b_end[SAX_SIM_MAX_EVENTS]; /* finish of backward (input-gradient) events */
    int32_t ops[SAX_SIM_MAX_OPS];     /* every stage's event order, stage after stage */
    int32_t fixed[SAX_SIM_MAX_OPS];   /* orders with W placed, for schedules that place W greedily */
    sax_pipeline_t free_links;        /* the pipeline with free transfers, where W's place is chosen */
};

/* A schedule users choose by name: how each stage orders its events, and the closed form of its
 * makespan for equal stages and links (DualPipe's, DeepSeek-V3 Table 2, for comparison only). */
typedef struct {
    sax_schedule_t id;
    bool split_w;        /* weight gradients are separate events */
    bool place_w;        /* ...placed greedily where a stage would idle (else where the order puts them) */
    bool blocking_sends; /* a stage waits until its own send has left the boundary's channels */
    int (*order)(const sax_pipeline_t *pl, int s, int32_t *ops, int cap);
    double (*closed_form)(const sax_pipeline_t *pl);
} sax_schedule_desc_t;

const sax_schedule_desc_t *sax_schedule_get(sax_schedule_t id);

/* The pipeline's makespan and each stage's finish: the closed form where it is exact, else the
 * event simulation, memoised in `sc` (NULL: no simulation). False when it cannot be timed. */
bool sax_pipeline_time(const sax_pipeline_t *pl, sax_scratch_t *sc, double *makespan, double *finish);

/* ---- what sax_model_explain needs of an evaluation (eval.c; filled only when asked) ---------- */

typedef struct {
    int crit;                     /* the stage that ends the iteration */
    int first_layer, layers;      /* its first layer and how many it holds */
    double params, expert_params; /* per GPU of it, before ZeRO sharding; of which routed experts */
    double opt_s;                 /* its optimizer step */
    double z3_s;                  /* ZeRO-3's exposed traffic inside its events, all micro-batches */
    double math_s, memory_s;      /* its compute, all micro-batches (the result's compute phase but the
                                     optimizer step): GEMMs and attention, and memory-bound kernels */
    long micro;                   /* micro-batches per iteration */
    sax_dp_wait_t dp_wait;        /* why the critical stage's DP reduction shows (ZeRO 0-2) */
    double dp_last_share;         /* ...the share of its non-expert parameters in its last bucket */
    double stage_math_s[SAX_SIM_MAX_STAGES], stage_memory_s[SAX_SIM_MAX_STAGES]; /* the same, one
                                     micro-batch, every stage (how eval.c finds the critical one's) */
} sax_eval_detail_t;

/* sax_model_eval_pipeline that also fills `d` (may be NULL) for a feasible candidate. */
sax_status_t sax_model_eval_detail(const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch,
                                   sax_result_t *r, sax_pipeline_t *pl, sax_eval_detail_t *d);

#endif
