/* space.c - the design-dimension table, mixed-radix decoding of candidate indices and the cheap
 * validity checks that skip whole blocks of the space without evaluating the model. */
#include "search_internal.h"

#include <stdlib.h>
#include <string.h>

#define SAX_NAME_OF3(name, str, msg) str,
#define SAX_MESSAGE_OF3(name, str, msg) msg,
const char *const sax_skip_names[SAX_SKIP_COUNT] = {SAX_SKIP_LIST(SAX_NAME_OF3)};
const char *const sax_skip_messages[SAX_SKIP_COUNT] = {SAX_SKIP_LIST(SAX_MESSAGE_OF3)};
#undef SAX_NAME_OF3
#undef SAX_MESSAGE_OF3

struct sax_search {
    sax_space_desc_t desc;
    int n_scenarios;
    sax_problem_t *problems;        /* n_scenarios */
    sax_problem_t *ideal;           /* n_scenarios: the same with an ideal network (search/relax.c) */
    sax_problem_t *ideal_transport; /* n_scenarios: the same with ideal transports */
    int64_t *gpus;                  /* n_scenarios */
    int64_t scenario_size, total;
    int n_values[SAX_KEY_COUNT];   /* by radix position */
    int64_t stride[SAX_KEY_COUNT]; /* by radix position: candidates per value of that digit */
    sax_candidate_t base;
};

/* The cheap checks of one row. Each may read only keys of its row and of rows before it (and the
 * scenario), so a verdict holds for the whole block below the row. */
typedef sax_skip_t (*row_check_fn)(const sax_search_t *s, int scenario, sax_candidate_t *c);

static sax_skip_t check_tp(const sax_search_t *s, int scenario, sax_candidate_t *c)
{
    const sax_problem_t *p = &s->problems[scenario];
    if (c->tp > p->cluster.scale_up.size)
        return SAX_SKIP_TP_DOMAIN;
    /* GQA: each TP rank holds whole query heads; KV heads are either split (tp | kv_heads) or
     * replicated (kv_heads | tp), as Megatron-LM does. */
    int kv = p->model.kv_heads > 0 ? p->model.kv_heads : p->model.heads;
    if (p->model.heads % c->tp != 0 || (kv % c->tp != 0 && c->tp % kv != 0))
        return SAX_SKIP_HEADS;
    return SAX_SKIP_NONE;
}

static sax_skip_t check_cp(const sax_search_t *s, int scenario, sax_candidate_t *c)
{
    return s->problems[scenario].model.seq_len % c->cp != 0 ? SAX_SKIP_SEQUENCE : SAX_SKIP_NONE;
}

static sax_skip_t check_pp(const sax_search_t *s, int scenario, sax_candidate_t *c)
{
    return c->pp > s->problems[scenario].model.layers ? SAX_SKIP_LAYERS : SAX_SKIP_NONE;
}

/* dp "auto" (coded 0) takes every GPU of the scenario. */
static sax_skip_t check_dp(const sax_search_t *s, int scenario, sax_candidate_t *c)
{
    const int degrees[3] = {c->tp, c->cp, c->pp};
    int64_t gpus = s->gpus[scenario];
    int64_t inner = sax_degrees_product(degrees, 3, gpus < INT32_MAX ? gpus : INT32_MAX);
    if (c->dp == 0) {
        if (gpus % inner != 0)
            return SAX_SKIP_DP_AUTO;
        c->dp = (int)(gpus / inner);
        return SAX_SKIP_NONE;
    }
    return inner > gpus || inner * c->dp > gpus ? SAX_SKIP_GPUS : SAX_SKIP_NONE;
}

static sax_skip_t check_ep(const sax_search_t *s, int scenario, sax_candidate_t *c)
{
    const sax_model_desc_t *m = &s->problems[scenario].model;
    if (c->ep == 1)
        return SAX_SKIP_NONE;
    /* the cost model's rule: the experts' grid etp x ep x expert-DP fills a stage's tp x cp x dp ranks
     * (with the fixed parallelism.expert_tensor_parallel; 0: tp, where this is ep dividing dp x cp) */
    if (m->experts <= 0 || sax_candidate_expert_dp(c) < 1 || m->experts % c->ep != 0)
        return SAX_SKIP_EXPERTS;
    return SAX_SKIP_NONE;
}

static sax_skip_t check_micro_batch(const sax_search_t *s, int scenario, sax_candidate_t *c)
{
    int64_t per_step = (int64_t)c->micro_batch * c->dp;
    int64_t batch = s->problems[scenario].training.global_batch;
    return batch < per_step || batch % per_step != 0 ? SAX_SKIP_BATCH : SAX_SKIP_NONE;
}

static sax_skip_t check_schedule(const sax_search_t *s, int scenario, sax_candidate_t *c)
{
    (void)s;
    (void)scenario;
    return c->schedule == SAX_SCHEDULE_INTERLEAVED && c->pp < 2 ? SAX_SKIP_SCHEDULE : SAX_SKIP_NONE;
}

/* Micro-batches per pipeline per iteration (check_micro_batch made it a whole number >= 1). */
static int64_t micro_batches(const sax_search_t *s, int scenario, const sax_candidate_t *c)
{
    return s->problems[scenario].training.global_batch / ((int64_t)c->micro_batch * c->dp);
}

/* vpp > 1 exactly with the interleaved schedule, which also needs the micro-batches to come in
 * whole rounds of pp (Megatron-LM); DualPipe runs its two directions over an even number of stages
 * and needs an even number of micro-batches, at least 2 pp (deepseek-ai/DualPipe's asserts). The
 * same rules as the cost model's. */
static sax_skip_t check_vpp(const sax_search_t *s, int scenario, sax_candidate_t *c)
{
    bool interleaved = c->schedule == SAX_SCHEDULE_INTERLEAVED;
    if (interleaved != (c->vpp > 1))
        return SAX_SKIP_SCHEDULE;
    int64_t m = micro_batches(s, scenario, c);
    if (interleaved && m % c->pp != 0)
        return SAX_SKIP_SCHEDULE;
    if (c->schedule == SAX_SCHEDULE_DUALPIPE && (c->pp % 2 != 0 || m % 2 != 0 || m < 2 * (int64_t)c->pp))
        return SAX_SKIP_SCHEDULE;
    return SAX_SKIP_NONE;
}

/* The cost model's rule (sax_layer_split_valid): uniform, balanced, embedding-loss, or Megatron-LM's
 * first/last stage layers with the rest split evenly over the middle stages. */
static sax_skip_t check_layer_split(const sax_search_t *s, int scenario, sax_candidate_t *c)
{
    return sax_layer_split_valid(s->problems[scenario].model.layers, c) ? SAX_SKIP_NONE : SAX_SKIP_LAYERS;
}

typedef struct {
    sax_key_t key;
    int32_t min, max; /* accepted coded values */
    row_check_fn check;
    uint32_t reads; /* keys the check reads (bits of sax_key_t); sax_search_count_valid relies on it */
} row_t;

#define K(k) (1u << SAX_KEY_##k)

/* The design-dimension table, outermost first. The checks of a row see the rows above it. */
static const row_t rows[SAX_KEY_COUNT] = {
    {SAX_KEY_TP, 1, 1 << 20, check_tp, K(TP)},
    {SAX_KEY_CP, 1, 1 << 20, check_cp, K(CP)},
    {SAX_KEY_PP, 1, 1 << 20, check_pp, K(PP)},
    {SAX_KEY_DP, 0, 1 << 30, check_dp, K(TP) | K(CP) | K(PP) | K(DP)},
    {SAX_KEY_EP, 1, 1 << 20, check_ep, K(EP) | K(DP) | K(CP) | K(TP)},
    {SAX_KEY_MICRO_BATCH, 1, 1 << 20, check_micro_batch, K(MICRO_BATCH) | K(DP)},
    {SAX_KEY_SCHEDULE, 0, SAX_SCHEDULE_COUNT - 1, check_schedule, K(SCHEDULE) | K(PP)},
    {SAX_KEY_VPP, 1, 1 << 10, check_vpp, K(VPP) | K(SCHEDULE) | K(MICRO_BATCH) | K(DP) | K(PP)},
    {SAX_KEY_RECOMPUTE, 0, SAX_RECOMPUTE_COUNT - 1, NULL, 0},
    {SAX_KEY_SEQUENCE_PARALLEL, 0, 1, NULL, 0},
    {SAX_KEY_ZERO, 0, 3, NULL, 0},
    {SAX_KEY_FIRST_STAGE_LAYERS, 0, 1 << 20, NULL, 0},
    {SAX_KEY_LAST_STAGE_LAYERS, 0, 1 << 20, NULL, 0},
    {SAX_KEY_LAYER_SPLIT, 0, SAX_LAYER_SPLIT_COUNT - 1, check_layer_split,
     K(LAYER_SPLIT) | K(PP) | K(VPP) | K(FIRST_STAGE_LAYERS) | K(LAST_STAGE_LAYERS)},
    /* An order needs no check: dimensions it leaves out go outermost (the cost model's rule). */
    {SAX_KEY_ORDER, 0, SAX_SPACE_MAX_VALUES - 1, NULL, 0},
    {SAX_KEY_ALGORITHM, 0, SAX_ALGORITHM_COUNT - 1, NULL, 0},
    {SAX_KEY_COMPRESSION, 0, SAX_COMPRESSION_COUNT - 1, NULL, 0},
    /* NCCL's channels and buffers: 0 is NCCL's own choice */
    {SAX_KEY_CHANNELS, 0, 64, NULL, 0},
    {SAX_KEY_BUFFER_SIZE, 1, 1 << 30, NULL, 0},
    {SAX_KEY_P2P_CHUNK_SIZE, 1, 1 << 27, NULL, 0},
    {SAX_KEY_P2P_CHANNELS, 0, 64, NULL, 0},
    {SAX_KEY_TRANSPORT, 0, SAX_TRANSPORT_COUNT - 1, NULL, 0},
    {SAX_KEY_CONNECTIONS, 1, 1 << 20, NULL, 0},
};
#undef K
enum { ROW_COUNT = SAX_KEY_COUNT, DEEPEST_CHECK = 13 /* layer_split */ };

const sax_key_t sax_search_radix_order[SAX_KEY_COUNT] = {
    SAX_KEY_TP,
    SAX_KEY_CP,
    SAX_KEY_PP,
    SAX_KEY_DP,
    SAX_KEY_EP,
    SAX_KEY_MICRO_BATCH,
    SAX_KEY_SCHEDULE,
    SAX_KEY_VPP,
    SAX_KEY_RECOMPUTE,
    SAX_KEY_SEQUENCE_PARALLEL,
    SAX_KEY_ZERO,
    SAX_KEY_FIRST_STAGE_LAYERS,
    SAX_KEY_LAST_STAGE_LAYERS,
    SAX_KEY_LAYER_SPLIT,
    SAX_KEY_ORDER,
    SAX_KEY_ALGORITHM,
    SAX_KEY_COMPRESSION,
    SAX_KEY_CHANNELS,
    SAX_KEY_BUFFER_SIZE,
    SAX_KEY_P2P_CHUNK_SIZE,
    SAX_KEY_P2P_CHANNELS,
    SAX_KEY_TRANSPORT,
    SAX_KEY_CONNECTIONS,
};

const char *const sax_search_key_help[SAX_KEY_COUNT] = {
    [SAX_KEY_TP] = "tensor-parallel degree (inside a scale-up domain)",
    [SAX_KEY_PP] = "pipeline-parallel degree (stages)",
    [SAX_KEY_DP] = "data-parallel degree; \"auto\" = the scenario's GPUs / (tp*cp*pp)",
    [SAX_KEY_CP] = "context-parallel degree (sequence split)",
    [SAX_KEY_EP] = "expert-parallel degree (MoE; divides dp*cp and the experts)",
    [SAX_KEY_VPP] = "virtual stages per device (interleaved schedule only)",
    [SAX_KEY_MICRO_BATCH] = "sequences per micro-batch",
    [SAX_KEY_SCHEDULE] = "pipeline schedule",
    [SAX_KEY_RECOMPUTE] = "activation recomputation",
    [SAX_KEY_SEQUENCE_PARALLEL] = "Megatron sequence parallelism with TP",
    [SAX_KEY_ZERO] = "ZeRO stage (3 = FSDP)",
    [SAX_KEY_ORDER] = "placement: parallel dimensions innermost first",
    [SAX_KEY_LAYER_SPLIT] =
        "layers per stage: uniform, balanced by GPU speed, or embedding-loss (Megatron's)",
    [SAX_KEY_FIRST_STAGE_LAYERS] = "layers of the first stage (0: as layer_split; Megatron's flag)",
    [SAX_KEY_LAST_STAGE_LAYERS] = "layers of the last stage (0: as layer_split; Megatron's flag)",
    [SAX_KEY_TRANSPORT] = "transport over site links",
    [SAX_KEY_CONNECTIONS] = "transport flows per NCCL connection (NCCL_IB_QPS_PER_CONNECTION)",
    [SAX_KEY_CHANNELS] = "NCCL channels per collective (NCCL_MIN/MAX_NCHANNELS; auto: NCCL's)",
    [SAX_KEY_BUFFER_SIZE] = "NCCL_BUFFSIZE: bytes in flight per channel",
    [SAX_KEY_P2P_CHUNK_SIZE] = "NCCL_P2P_NET_CHUNKSIZE: point-to-point slot",
    [SAX_KEY_P2P_CHANNELS] = "NCCL_NCHANNELS_PER_NET_PEER (auto: NCCL's)",
    [SAX_KEY_ALGORITHM] = "collective algorithm",
    [SAX_KEY_COMPRESSION] = "compression of cross-site traffic",
};

sax_status_t sax_search_create(const sax_space_desc_t *desc, const sax_candidate_t *base,
                               const sax_problem_t *problems, int n_scenarios, sax_search_t **out,
                               sax_error_t *err)
{
    *out = NULL;
    if (n_scenarios < 1 || problems == NULL)
        return sax_error_set(err, SAX_ERR_INPUT, "space: expected at least one scenario, found %d",
                             n_scenarios);
    sax_search_t *s = calloc(1, sizeof *s);
    if (s == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "space: out of memory");
    s->desc = *desc;
    if (base != NULL)
        s->base = *base;
    s->n_scenarios = n_scenarios;
    s->problems = malloc((size_t)n_scenarios * sizeof *s->problems);
    s->ideal = malloc((size_t)n_scenarios * sizeof *s->ideal);
    s->ideal_transport = malloc((size_t)n_scenarios * sizeof *s->ideal_transport);
    s->gpus = malloc((size_t)n_scenarios * sizeof *s->gpus);
    if (s->problems == NULL || s->ideal == NULL || s->ideal_transport == NULL || s->gpus == NULL) {
        sax_search_destroy(&s);
        return sax_error_set(err, SAX_ERR_NOMEM, "space: out of memory for %d scenarios", n_scenarios);
    }
    for (int i = 0; i < n_scenarios; i++) {
        s->problems[i] = problems[i];
        sax_search_ideal_problem(&problems[i], &s->ideal[i]);
        sax_search_ideal_transport_problem(&problems[i], &s->ideal_transport[i]);
        int64_t g = 0;
        for (int k = 0; k < problems[i].cluster.n_sites; k++)
            g += problems[i].cluster.sites[k].gpus;
        s->gpus[i] = g;
    }

    sax_status_t st = SAX_OK;
    for (int pos = 0; pos < ROW_COUNT && st == SAX_OK; pos++) {
        const row_t *row = &rows[pos];
        sax_value_list_t *vl = &s->desc.values[row->key];
        if (vl->n == 0 && base != NULL) {
            vl->n = 1;
            vl->v[0] = row->key == SAX_KEY_ORDER ? 0 : sax_candidate_get(base, row->key);
            if (row->key == SAX_KEY_ORDER && s->desc.n_orders == 0) {
                s->desc.n_orders = 1;
                s->desc.order_len[0] = base->n_order;
                memcpy(s->desc.orders[0], base->order, sizeof base->order);
            }
        }
        if (vl->n < 1 || vl->n > SAX_SPACE_MAX_VALUES) {
            st = sax_error_set(err, SAX_ERR_INPUT, "space.%s: expected 1 to %d values, found %d",
                               sax_key_names[row->key], SAX_SPACE_MAX_VALUES, vl->n);
            break;
        }
        int32_t max = row->key == SAX_KEY_ORDER ? s->desc.n_orders - 1 : row->max;
        for (int j = 0; j < vl->n; j++)
            if (vl->v[j] < row->min || vl->v[j] > max) {
                st = sax_error_set(err, SAX_ERR_INPUT, "space.%s[%d]: expected a value in %d..%d, found %d",
                                   sax_key_names[row->key], j, row->min, max, vl->v[j]);
                break;
            }
        s->n_values[pos] = vl->n;
    }
    if (st != SAX_OK) {
        sax_search_destroy(&s);
        return st;
    }

    int64_t size = 1;
    for (int pos = ROW_COUNT - 1; pos >= 0; pos--) {
        s->stride[pos] = size;
        if (size > INT64_MAX / s->n_values[pos]) {
            long long limit = (long long)(INT64_MAX / s->n_values[pos]);
            sax_search_destroy(&s);
            return sax_error_set(err, SAX_ERR_INPUT,
                                 "space: the number of candidates overflows a 64-bit index (the keys from "
                                 "'%s' inward alone give more than %lld); remove values from the space",
                                 sax_key_names[rows[pos].key], limit);
        }
        size *= s->n_values[pos];
    }
    s->scenario_size = size;
    if (size > INT64_MAX / n_scenarios) {
        sax_search_destroy(&s);
        return sax_error_set(err, SAX_ERR_INPUT,
                             "space: %lld candidates per scenario x %d scenarios overflows a 64-bit index; "
                             "remove values from the space or scenarios",
                             (long long)size, n_scenarios);
    }
    s->total = size * n_scenarios;
    *out = s;
    return SAX_OK;
}

void sax_search_destroy(sax_search_t **sp)
{
    if (sp == NULL || *sp == NULL)
        return;
    free((*sp)->problems);
    free((*sp)->ideal);
    free((*sp)->ideal_transport);
    free((*sp)->gpus);
    free(*sp);
    *sp = NULL;
}

int64_t sax_search_size(const sax_search_t *s) { return s->total; }
int64_t sax_search_scenario_size(const sax_search_t *s) { return s->scenario_size; }
int sax_search_scenario_count(const sax_search_t *s) { return s->n_scenarios; }
const sax_problem_t *sax_search_problem(const sax_search_t *s, int scenario)
{
    return &s->problems[scenario];
}
const sax_space_desc_t *sax_search_desc(const sax_search_t *s) { return &s->desc; }
int sax_search_value_count(const sax_search_t *s, sax_key_t k) { return s->desc.values[k].n; }
int32_t sax_search_value(const sax_search_t *s, sax_key_t k, int j) { return s->desc.values[k].v[j]; }
int64_t sax_search_gpus(const sax_search_t *s, int scenario) { return s->gpus[scenario]; }

/* Private accessors for search/bound.c (search_internal.h). */
const sax_problem_t *sax_search_ideal(const sax_search_t *s, int scenario) { return &s->ideal[scenario]; }
const sax_problem_t *sax_search_ideal_transport(const sax_search_t *s, int scenario)
{
    return &s->ideal_transport[scenario];
}

static void set_key(const sax_search_t *s, sax_candidate_t *c, sax_key_t k, int j)
{
    int32_t v = s->desc.values[k].v[j];
    if (k == SAX_KEY_ORDER) {
        c->n_order = s->desc.order_len[v];
        memcpy(c->order, s->desc.orders[v], sizeof c->order);
    } else {
        sax_candidate_set(c, k, v);
    }
}

/* Re-applies the digits from radix position `from` inward (from = -1: the scenario changed) and
 * re-runs the checks whose inputs changed. */
static void refresh(const sax_search_t *s, sax_search_cursor_t *cur, int from)
{
    int first = from < 0 ? 0 : from;
    for (int pos = first; pos < ROW_COUNT; pos++)
        set_key(s, &cur->candidate, rows[pos].key, cur->digit[rows[pos].key]);
    if (cur->skip != SAX_SKIP_NONE && cur->skip_pos < first)
        return; /* the failed check's inputs did not change */
    cur->skip = SAX_SKIP_NONE;
    cur->skip_pos = 0;
    for (int pos = first; pos <= DEEPEST_CHECK; pos++) {
        if (rows[pos].check == NULL)
            continue;
        sax_skip_t r = rows[pos].check(s, cur->scenario, &cur->candidate);
        if (r != SAX_SKIP_NONE) {
            cur->skip = r;
            cur->skip_pos = pos;
            return;
        }
    }
}

static void decode(const sax_search_t *s, int64_t index, int32_t *scenario, int16_t digit[SAX_KEY_COUNT])
{
    *scenario = (int32_t)(index / s->scenario_size);
    int64_t local = index % s->scenario_size;
    for (int pos = ROW_COUNT - 1; pos >= 0; pos--) {
        digit[rows[pos].key] = (int16_t)(local % s->n_values[pos]);
        local /= s->n_values[pos];
    }
}

int64_t sax_search_index(const sax_search_t *s, int scenario, const int16_t digit[SAX_KEY_COUNT])
{
    int64_t index = (int64_t)scenario * s->scenario_size;
    for (int pos = 0; pos < ROW_COUNT; pos++)
        index += (int64_t)digit[rows[pos].key] * s->stride[pos];
    return index;
}

void sax_search_seek(const sax_search_t *s, int64_t index, sax_search_cursor_t *cur)
{
    memset(cur, 0, sizeof *cur);
    cur->candidate = s->base;
    cur->index = index;
    decode(s, index, &cur->scenario, cur->digit);
    refresh(s, cur, -1);
}

void sax_search_move(const sax_search_t *s, sax_search_cursor_t *cur, int64_t index)
{
    int from;
    if (index == cur->index + 1) {
        int pos = ROW_COUNT - 1;
        while (pos >= 0) {
            sax_key_t k = rows[pos].key;
            if (++cur->digit[k] < s->n_values[pos])
                break;
            cur->digit[k] = 0;
            pos--;
        }
        if (pos < 0)
            cur->scenario++;
        from = pos;
    } else {
        int32_t scenario;
        int16_t digit[SAX_KEY_COUNT];
        decode(s, index, &scenario, digit);
        from = ROW_COUNT;
        if (scenario != cur->scenario) {
            from = -1;
        } else {
            for (int pos = 0; pos < ROW_COUNT; pos++)
                if (digit[rows[pos].key] != cur->digit[rows[pos].key]) {
                    from = pos;
                    break;
                }
        }
        cur->scenario = scenario;
        memcpy(cur->digit, digit, sizeof digit);
    }
    cur->index = index;
    if (from < ROW_COUNT)
        refresh(s, cur, from);
}

int64_t sax_search_skip_end(const sax_search_t *s, const sax_search_cursor_t *cur)
{
    if (cur->skip == SAX_SKIP_NONE)
        return cur->index + 1;
    int64_t stride = s->stride[cur->skip_pos];
    return (cur->index / stride + 1) * stride;
}

int64_t sax_search_block_end(const sax_search_t *s, const sax_search_cursor_t *cur, int pos)
{
    int64_t stride = pos > 0 ? s->stride[pos - 1] : s->scenario_size;
    return (cur->index / stride + 1) * stride;
}

int64_t sax_search_block_size(const sax_search_t *s, int pos)
{
    return pos > 0 ? s->stride[pos - 1] : s->scenario_size;
}

bool sax_search_is_block_start(const sax_search_cursor_t *cur, int pos)
{
    for (int p = pos; p < ROW_COUNT; p++)
        if (cur->digit[rows[p].key] != 0)
            return false;
    return true;
}

static bool key_matches(const sax_search_t *s, const sax_search_cursor_t *cur, const sax_baseline_t *b,
                        sax_key_t k)
{
    if (k == SAX_KEY_ORDER) {
        int32_t bo = b->value[k];
        if (bo < 0 || bo >= s->desc.n_orders || s->desc.order_len[bo] != cur->candidate.n_order)
            return false;
        return memcmp(s->desc.orders[bo], cur->candidate.order,
                      (size_t)cur->candidate.n_order * sizeof(sax_dim_t)) == 0;
    }
    if (k == SAX_KEY_DP && b->value[k] == 0) /* a baseline with dp "auto" agrees with an auto value */
        return s->desc.values[k].v[cur->digit[k]] == 0;
    return s->desc.values[k].v[cur->digit[k]] == b->value[k];
}

bool sax_search_matches_baseline(const sax_search_t *s, const sax_search_cursor_t *cur, int bi)
{
    const sax_baseline_t *b = &s->desc.baselines[bi];
    for (int k = 0; k < SAX_KEY_COUNT; k++)
        if ((b->mask >> k) & 1u)
            if (!key_matches(s, cur, b, (sax_key_t)k))
                return false;
    return true;
}

bool sax_search_block_may_match_baseline(const sax_search_t *s, const sax_search_cursor_t *cur, int bi,
                                         int pos)
{
    const sax_baseline_t *b = &s->desc.baselines[bi];
    for (int p = 0; p < pos; p++) {
        sax_key_t k = rows[p].key;
        if ((b->mask >> k) & 1u)
            if (!key_matches(s, cur, b, k))
                return false;
    }
    return true;
}

/* ---- counting the candidates that pass the checks, without visiting them ------------------------ */

/* A class of prefixes (the keys of the rows down to some row) that the checks below that row
 * cannot tell apart: they agree on every key a later check reads. `weight` prefixes share it. */
typedef struct {
    int32_t v[DEEPEST_CHECK + 1]; /* coded values by radix position; unread positions 0 */
    int64_t weight;
} prefix_class_t;

static int compare_classes(const void *a, const void *b)
{
    return memcmp(((const prefix_class_t *)a)->v, ((const prefix_class_t *)b)->v,
                  sizeof((const prefix_class_t *)a)->v);
}

/* Sorts the classes and merges equal ones (adding their weights); returns how many remain. */
static int64_t merge_classes(prefix_class_t *c, int64_t n)
{
    if (n == 0)
        return 0;
    qsort(c, (size_t)n, sizeof *c, compare_classes);
    int64_t out = 0;
    for (int64_t i = 1; i < n; i++) {
        if (compare_classes(&c[out], &c[i]) == 0)
            c[out].weight += c[i].weight;
        else
            c[++out] = c[i];
    }
    return out + 1;
}

/* One scenario: the rows are taken in radix order; after row `pos` every prefix that passed is kept
 * only by the values of the keys that the checks of the rows below read (row_t.reads), and equal
 * ones are merged. A prefix that fails row `pos` skips stride[pos] candidates per prefix of its
 * class. The work is the number of distinct classes times the values of a row, not the number of
 * candidates: for a space of 2^62 candidates typically a few thousand classes. */
static int64_t count_scenario(const sax_search_t *s, int scenario, int64_t cap,
                              int64_t skipped[SAX_SKIP_COUNT])
{
    int64_t n = 1;
    prefix_class_t *cur = calloc(1, sizeof *cur), *next = NULL;
    if (cur == NULL)
        return -1;
    cur[0].weight = 1;
    uint32_t kept = 0; /* keys the classes hold */
    for (int pos = 0; pos <= DEEPEST_CHECK && n > 0; pos++) {
        uint32_t live = 0; /* keys read by the checks below this row */
        for (int q = pos + 1; q <= DEEPEST_CHECK; q++)
            live |= rows[q].reads;
        int nv = s->n_values[pos];
        if (n > cap / nv) {
            free(cur);
            return -1;
        }
        next = malloc((size_t)(n * nv) * sizeof *next);
        if (next == NULL) {
            free(cur);
            return -1;
        }
        int64_t m = 0;
        for (int64_t i = 0; i < n; i++) {
            sax_candidate_t c = s->base;
            for (int q = 0; q < pos; q++) /* the keys the classes kept (the others are read no more) */
                if (kept & (1u << rows[q].key))
                    sax_candidate_set(&c, rows[q].key, cur[i].v[q]);
            for (int j = 0; j < nv; j++) {
                sax_candidate_t t = c;
                set_key(s, &t, rows[pos].key, j);
                sax_skip_t r = rows[pos].check ? rows[pos].check(s, scenario, &t) : SAX_SKIP_NONE;
                if (r != SAX_SKIP_NONE) {
                    if (skipped != NULL)
                        skipped[r] += cur[i].weight * s->stride[pos];
                    continue;
                }
                prefix_class_t *x = &next[m++];
                memset(x->v, 0, sizeof x->v);
                x->weight = cur[i].weight;
                for (int q = 0; q <= pos; q++) /* the values as checked: dp "auto" resolved */
                    if (live & (1u << rows[q].key))
                        x->v[q] = sax_candidate_get(&t, rows[q].key);
            }
        }
        free(cur);
        cur = next;
        n = merge_classes(cur, m);
        kept = live;
    }
    int64_t valid = 0;
    for (int64_t i = 0; i < n; i++)
        valid += cur[i].weight * s->stride[DEEPEST_CHECK];
    free(cur);
    return valid;
}

int64_t sax_search_count_valid(const sax_search_t *s, int scenario, int64_t max_classes,
                               int64_t skipped[SAX_SKIP_COUNT])
{
    if (skipped != NULL)
        memset(skipped, 0, SAX_SKIP_COUNT * sizeof *skipped);
    int first = scenario < 0 ? 0 : scenario, last = scenario < 0 ? s->n_scenarios - 1 : scenario;
    int64_t valid = 0;
    for (int sc = first; sc <= last; sc++) {
        int64_t v = count_scenario(s, sc, max_classes, skipped);
        if (v < 0)
            return -1;
        valid += v;
    }
    return valid;
}
