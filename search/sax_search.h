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
      "ep > 1 on a dense model, or ep does not divide dp*cp or the number of experts")                        \
    X(SAX_SKIP_BATCH, "batch", "global_batch is not a positive multiple of micro_batch*dp")                   \
    X(SAX_SKIP_SCHEDULE, "schedule",                                                                          \
      "vpp > 1 without interleaved; interleaved with vpp < 2, pp < 2 or micro-batches not a multiple of pp; " \
      "dualpipe with an odd pp or fewer micro-batches than pp")                                               \
    X(SAX_SKIP_LAYERS, "layers", "pp x vpp does not divide the layers (uniform split) or exceeds them")

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
#define SAX_SEARCH_NET_POS 13
#define SAX_SEARCH_TRANSPORT_POS 19

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

/* Candidates of scenario `scenario` that pass the cheap checks (exact; walks only the keys that
 * have checks, so it costs far less than the sweep). Pass -1 for all scenarios. `skipped` (may be
 * NULL) receives the number of candidates skipped for each reason. */
int64_t sax_search_count_valid(const sax_search_t *s, int scenario, int64_t skipped[SAX_SKIP_COUNT]);

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

#endif
