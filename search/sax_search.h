/* sax_search.h - the design space of a sweep: its dimensions, enumeration and pruning.
 *
 * The space is the cartesian product of the scenarios (outermost) and one value list per design
 * key (sax_space_desc_t). Every candidate has an index in [0, sax_search_size()); the index is a
 * mixed-radix number whose digits are, outermost first,
 *
 *     scenario, tp, cp, pp, dp, ep, micro_batch, schedule, vpp, recompute, sequence_parallel,
 *     zero, layer_split, order, algorithm, compression, transport, connections
 *
 * so work can be handed out as index ranges, a scenario is one contiguous range, and the network
 * keys (innermost) form contiguous blocks that the pruned search can bound and skip whole.
 * Combinations that can never be valid (divisibility, TP beyond the scale-up domain, vpp without
 * the interleaved schedule, ...) are recognised without evaluating the model, with a reason
 * (sax_skip_t), and the whole sub-range that shares the verdict is skipped at once.
 * docs/sweep.md describes the rules. Pure C: no MPI, no I/O; nothing here allocates after create.
 */
#ifndef SAX_SEARCH_H
#define SAX_SEARCH_H

#include "sax_model.h"

/* Why a candidate is skipped without evaluating. X(enum constant, short name, explanation) */
#define SAX_SKIP_LIST(X)                                                                                      \
    X(SAX_SKIP_NONE, "none", "valid: evaluated")                                                              \
    X(SAX_SKIP_TP_DOMAIN, "tp_domain", "tp is larger than the scale-up domain")                               \
    X(SAX_SKIP_HEADS, "heads", "tp does not divide heads, or neither of tp and kv_heads divides the other")   \
    X(SAX_SKIP_SEQUENCE, "sequence", "cp does not divide seq_len")                                            \
    X(SAX_SKIP_DP_AUTO, "dp_auto", "dp \"auto\": the scenario's GPUs are not a multiple of tp*cp*pp")         \
    X(SAX_SKIP_GPUS, "gpus", "tp*cp*pp*dp exceeds the scenario's GPUs")                                       \
    X(SAX_SKIP_EXPERTS, "experts",                                                                            \
      "ep > 1 on a dense model, or ep*etp does not divide tp*cp*dp (etp = tp: ep does not divide dp*cp), "    \
      "or ep does not divide the experts")                                                                    \
    X(SAX_SKIP_BATCH, "batch", "global_batch is not a positive multiple of micro_batch*dp")                   \
    X(SAX_SKIP_SCHEDULE, "schedule",                                                                          \
      "vpp > 1 without interleaved; interleaved with vpp < 2, pp < 2 or micro-batches not a multiple of pp; " \
      "dualpipe with an odd pp, an odd number of micro-batches or fewer than 2 pp")                           \
    X(SAX_SKIP_LAYERS, "layers",                                                                              \
      "the layers do not split over pp x vpp as layer_split and decoder_first/last_pipeline_num_layers set")

#define SAX_ENUM_MEMBER3(name, str, msg) name,
typedef enum { SAX_SKIP_LIST(SAX_ENUM_MEMBER3) SAX_SKIP_COUNT } sax_skip_t;
#undef SAX_ENUM_MEMBER3
extern const char *const sax_skip_names[SAX_SKIP_COUNT];
extern const char *const sax_skip_messages[SAX_SKIP_COUNT];

/* The design keys in radix order, outermost first (the scenario digit comes before all of them). */
extern const sax_key_t sax_search_radix_order[SAX_KEY_COUNT];
/* One line of help per key, indexed by sax_key_t. */
extern const char *const sax_search_key_help[SAX_KEY_COUNT];

/* Radix positions of the two levels of blocks the pruned search bounds (docs/sweep.md):
 * NET: algorithm x compression x NCCL channels and buffers x transport x connections (everything but
 * the network fixed);
 * TRANSPORT: transport x connections (everything but those two fixed). */
#define SAX_SEARCH_NET_POS 15
#define SAX_SEARCH_TRANSPORT_POS 21

typedef struct sax_search sax_search_t;

/* A position in the space: the candidate of `index`, decoded, with its skip verdict. */
typedef struct {
    int64_t index; /* global candidate index */
    int32_t scenario;
    int16_t digit[SAX_KEY_COUNT]; /* value index of each key (by sax_key_t) */
    sax_candidate_t candidate;    /* dp "auto" resolved */
    sax_skip_t skip;              /* SAX_SKIP_NONE when the candidate must be evaluated */
    int skip_pos;                 /* radix position of the failed check (valid when skip != NONE) */
} sax_search_cursor_t;

/* Creates the space of `desc` over `n_scenarios` problems (copied). `base` supplies what a key's
 * values do not (it may be NULL: every key of desc must then have values). Fails with
 * SAX_ERR_INPUT when a key has no value or a value is out of range, and when the number of
 * candidates does not fit in int64_t (the message gives the sizes). */
sax_status_t sax_search_create(const sax_space_desc_t *desc, const sax_candidate_t *base,
                               const sax_problem_t *problems, int n_scenarios, sax_search_t **out,
                               sax_error_t *err);
void sax_search_destroy(sax_search_t **s);

int64_t sax_search_size(const sax_search_t *s);          /* all candidates of all scenarios */
int64_t sax_search_scenario_size(const sax_search_t *s); /* candidates per scenario */
int sax_search_scenario_count(const sax_search_t *s);
const sax_problem_t *sax_search_problem(const sax_search_t *s, int scenario);
const sax_space_desc_t *sax_search_desc(const sax_search_t *s);
int sax_search_value_count(const sax_search_t *s, sax_key_t k);
int32_t sax_search_value(const sax_search_t *s, sax_key_t k, int j); /* coded as sax_space_desc_t */
/* GPUs available in scenario `scenario` (sum over its sites). */
int64_t sax_search_gpus(const sax_search_t *s, int scenario);

/* The index of the candidate with these digits (value index of each key) in scenario `scenario`:
 * the inverse of sax_search_seek. Digits must be in range. */
int64_t sax_search_index(const sax_search_t *s, int scenario, const int16_t digit[SAX_KEY_COUNT]);
/* Decodes `index` (0 <= index < size) into `cur` and runs the cheap checks. */
void sax_search_seek(const sax_search_t *s, int64_t index, sax_search_cursor_t *cur);
/* Moves `cur` to `index` (> cur->index, < size), by odometer increments when it is the next
 * index, and re-runs only the checks whose inputs changed. */
void sax_search_move(const sax_search_t *s, sax_search_cursor_t *cur, int64_t index);
/* The first index after the block of candidates that share cur's skip verdict (cur->index + 1
 * when the candidate is valid). */
int64_t sax_search_skip_end(const sax_search_t *s, const sax_search_cursor_t *cur);
/* The first index after the block of candidates that share cur's digits before radix position
 * `pos` (0 <= pos <= SAX_KEY_COUNT; 0: the scenario). */
int64_t sax_search_block_end(const sax_search_t *s, const sax_search_cursor_t *cur, int pos);
/* Candidates in one block at radix position `pos`. */
int64_t sax_search_block_size(const sax_search_t *s, int pos);
/* Whether cur is the first candidate of its block at radix position `pos`. */
bool sax_search_is_block_start(const sax_search_cursor_t *cur, int pos);

/* Whether cur's candidate agrees with every key that baseline `b` fixes. */
bool sax_search_matches_baseline(const sax_search_t *s, const sax_search_cursor_t *cur, int b);
/* Whether some candidate of cur's block at radix position `pos` may agree with baseline `b` (the
 * keys before `pos` agree). */
bool sax_search_block_may_match_baseline(const sax_search_t *s, const sax_search_cursor_t *cur, int b,
                                         int pos);

/* Candidates of scenario `scenario` that pass the cheap checks, exact, counted without visiting
 * them: the work grows with the combinations of checked keys that later checks can tell apart
 * (docs/sweep.md), not with the space. Pass -1 for all scenarios. `skipped` (may be NULL) receives
 * the number of candidates skipped for each reason. Returns -1 (`skipped` then incomplete) when
 * the count needs more than `max_classes` such combinations (`sax space` passes
 * SAX_SEARCH_COUNT_MAX_CLASSES), or memory fails. */
#define SAX_SEARCH_COUNT_MAX_CLASSES (1 << 21) /* 56 bytes each: at most 112 MiB */
int64_t sax_search_count_valid(const sax_search_t *s, int scenario, int64_t max_classes,
                               int64_t skipped[SAX_SKIP_COUNT]);

/* ---- the pruned search's admissible lower bound (search/bound.c) ---- */

/* The bounds are divided by 1 + SAX_SEARCH_BOUND_SLACK: the model's pipeline simulator schedules
 * greedily, and like any list schedule it can finish slightly earlier when one transfer gets
 * slower (observed: up to 4.6 % on heterogeneous pipelines, when a site link's latency grows from
 * 0.1 to 1 ms), which a bound computed on a faster network must tolerate. */
#define SAX_SEARCH_BOUND_SLACK 0.10

/* A lower bound on the iteration time of every feasible candidate of cur's block at `pos`:
 * - pos = SAX_SEARCH_NET_POS: the model on an ideal network (every bandwidth unlimited, every
 *   latency and loss zero, no oversubscription), minimised over the space's compression values;
 * - pos = SAX_SEARCH_TRANSPORT_POS: the model with cur's algorithm and compression on the real
 *   network with ideal transports (no loss, unlimited window and PFC headroom), where neither the
 *   transport nor the number of connections limits a flow;
 * never below model FLOPs / (GPUs used x the fastest GPU's peak x gemm_eff_max) / 2; divided by
 * 1 + SAX_SEARCH_BOUND_SLACK. Admissible because the model never gets faster when a network gets
 * slower, by more than the slack (docs/sweep.md). `evals` (may be NULL) is increased by the number
 * of model evaluations spent. */
double sax_search_lower_bound(const sax_search_t *s, const sax_search_cursor_t *cur, int pos,
                              sax_scratch_t *scratch, int64_t *evals);
/* The same network-independent floor alone: model FLOPs / (gpus x max peak x max gemm_eff_max). */
double sax_search_flops_bound(const sax_search_t *s, int scenario, int64_t gpus_used);

/* ---- decisions: what a sweep's best is made of (search/decide.c, docs/decisions.md) ---- */

/* The three groups of settings whose contributions a speedup is split into. */
#define SAX_GROUP_LIST(X)                                                                                    \
    X(SAX_GROUP_PLACEMENT, "placement")   /* order and the parallel degrees */                               \
    X(SAX_GROUP_SCHEDULING, "scheduling") /* schedule, vpp, micro-batch, recompute, sp, ZeRO, layer split */ \
    X(SAX_GROUP_NETWORK, "network")       /* transport, flows, channels, buffers, algorithm, compression */
#define SAX_ENUM_MEMBER(name, str) name,
typedef enum { SAX_GROUP_LIST(SAX_ENUM_MEMBER) SAX_GROUP_COUNT } sax_setting_group_t;
#undef SAX_ENUM_MEMBER
extern const char *const sax_group_names[SAX_GROUP_COUNT];
extern const sax_setting_group_t sax_key_group[SAX_KEY_COUNT];

/* Serial. Evaluates the candidate with digits `digit` in scenario `scenario` into `out` (index,
 * scenario, candidate, result). A candidate the cheap checks skip is not evaluated: its
 * result.feasible is false and *skip (may be NULL) says why. Fails only for a malformed candidate. */
sax_status_t sax_search_eval_digits(const sax_search_t *s, int scenario, const int16_t digit[SAX_KEY_COUNT],
                                    sax_scratch_t *scratch, sax_record_t *out, sax_skip_t *skip);

/* The speedup of `best` over `base` (two candidates of one scenario) split into a factor per group:
 * the Shapley values of log(iteration time) over the groups, i.e. the mean over the 3! orders in
 * which the best's settings replace the base's, group by group, of each group's factor
 * t(before) / t(after). A mix of the two that is infeasible (or skipped by the cheap checks) has
 * no time: the orders that pass through one are left out of the mean, so the factors still
 * multiply to t(base) / t(best). `valid` is false when every order passes through one. */
typedef struct {
    bool valid;
    int orders;                              /* orders averaged (6 when every mix is feasible) */
    double factor[SAX_GROUP_COUNT];          /* multiply to t(base) / t(best) */
    double mix_time_s[1 << SAX_GROUP_COUNT]; /* by the set of groups taken from best (bit g); inf if
                                                infeasible */
} sax_attribution_t;

sax_status_t sax_search_attribute(const sax_search_t *s, int64_t base_index, int64_t best_index,
                                  sax_scratch_t *scratch, sax_attribution_t *out);
/* The factors, orders and validity from out->mix_time_s alone (the part of sax_search_attribute
 * after the evaluations). */
void sax_attribution_from_mixes(sax_attribution_t *out);

/* The candidate with the least worst regret over the scenarios, regret = t(scenario) / t(best of
 * the scenario) - 1, chosen among the candidates (settings, i.e. digits without the scenario) that
 * are in some scenario's top list, each evaluated in every scenario. `top[sc]` holds n_top[sc]
 * records sorted by time, `top_k` the list's capacity, best_s[sc] the scenario's best time. The
 * choice is proven optimal over the whole space (`exact`) when its worst regret is at most the
 * regret every other candidate has at least: in each scenario a candidate outside the top list is
 * no faster than its last entry (a scenario whose list is not full holds all its feasible
 * candidates). That holds for an exhaustive sweep's lists; the caller passes exhaustive = false
 * for a pruned one, whose lists may miss candidates. regret[] (n_scenarios) gets the chosen
 * candidate's regrets (inf where infeasible); `pick` its record in scenario 0. Returns SAX_ERR_NOMEM
 * when the candidate set cannot be allocated; found = false when no candidate is feasible in every
 * scenario. */
#define SAX_ROBUST_NEAR 0.05 /* "within 5 % of the best in every scenario" */
#define SAX_ROBUST_NEAR_KEEP 5

typedef struct {
    bool found, exact;
    double worst_regret;
    double bound;   /* the worst regret any candidate outside the lists has at least */
    int candidates; /* distinct candidates compared */
    sax_record_t pick;
    /* the compared candidates whose worst regret is at most SAX_ROBUST_NEAR: how many, and the
     * SAX_ROBUST_NEAR_KEEP least regretted (records in scenario 0), by (worst regret, index) */
    int n_near, n_near_kept;
    sax_record_t near[SAX_ROBUST_NEAR_KEEP];
    double near_worst[SAX_ROBUST_NEAR_KEEP];
} sax_robust_t;

sax_status_t sax_search_robust(const sax_search_t *s, const sax_record_t *const *top, const int64_t *n_top,
                               int top_k, bool exhaustive, sax_scratch_t *scratch, double *regret,
                               sax_robust_t *out, sax_error_t *err);

/* Candidates whose times differ by less than this fraction are tied: the model's times are
 * deterministic, so a tie is a choice the model cannot tell apart (up to rounding). */
#define SAX_TIE_REL 1e-12

/* The documented preference among tied candidates (docs/decisions.md): < 0 when `a` is the simpler,
 * safer choice: no compression, then a transport less dependent on a loss-free path (tcp, roce-sr,
 * roce-gbn, roce), then fewer cross-site bytes, fewer flows per connection, fewer channels, fewer
 * point-to-point channels, and last the lower index. */
int sax_search_simpler(const sax_record_t *a, const sax_record_t *b);

/* The candidates of a scenario's top list (sorted by time, n_top of capacity top_k) tied with its
 * first: how many, whether the list may hold only some of them (it is full of them), which keys
 * differ among them (bit k), and the position of the simplest by sax_search_simpler. */
typedef struct {
    int64_t count;
    bool at_least;
    uint32_t differ;
    int64_t simplest;
} sax_ties_t;

void sax_search_ties(const sax_search_t *s, const sax_record_t *top, int64_t n_top, int top_k,
                     sax_ties_t *out);

/* Why a scenario (baseline -1) or a baseline in a scenario has no feasible candidate: every
 * candidate of the scenario (agreeing with the baseline) counted by the cheap check that skips it,
 * and the first `max_evals` valid ones evaluated and counted by the model's reason; the rest of the
 * valid ones are counted as not evaluated. The walk stops after SAX_WHY_NONE_MAX_VISITS steps. */
#define SAX_WHY_NONE_MAX_VISITS 20000000 /* a few seconds: beyond, `complete` is false */

typedef struct {
    bool complete; /* the whole scenario was walked */
    int64_t candidates, evaluated, not_evaluated;
    int64_t skipped[SAX_SKIP_COUNT];
    int64_t infeasible[SAX_INFEASIBLE_COUNT]; /* [SAX_FEASIBLE]: feasible ones (0 when called for a
                                                 scenario or baseline without any) */
} sax_why_none_t;

sax_status_t sax_search_why_none(const sax_search_t *s, int scenario, int baseline, int64_t max_evals,
                                 sax_scratch_t *scratch, sax_why_none_t *out);

/* The network-oblivious twin of problem `p` (what an optimiser that models one flat network
 * sees): every site link becomes the outermost tier (its latency, and the bandwidth every GPU of
 * the smaller site has at that tier after oversubscription), lossless, with unlimited window, PFC
 * headroom and no uplink oversubscription. Without tiers the scale-up network stands in. */
void sax_search_oblivious_problem(const sax_problem_t *p, sax_problem_t *out);

#endif
