/* schedule.c - pipeline schedules: an event simulation per stage and micro-batch, and closed forms.
 *
 * Each stage runs its events (F forward, B input gradient, W weight gradient; one event per
 * micro-batch and model chunk) in the order its schedule fixes; an event starts when its stage is
 * free and its input has arrived: F after the previous virtual stage's F plus the transfer over the
 * boundary, B after the next virtual stage's B plus the transfer back (the last virtual stage's B
 * after its own F), W after its own B. Transfers over each boundary take link_s[s], so one slow
 * cross-site boundary among fast ones costs exactly what it costs (domain.md "Pipelines";
 * CrossPipe arXiv 2507.00217 argues the same). No allocation: all state is in sax_scratch_t.
 *
 * Orders: GPipe (Huang et al. 2019) all forwards then all backwards; 1F1B (Narayanan et al. 2019,
 * PipeDream-Flush); interleaved 1F1B (Narayanan et al. 2021, section 2.2.2) with v chunks per stage;
 * ZB-H1 (Qi et al. 2023, arXiv 2401.10241) = the 1F1B order of F and B whose weight gradients W
 * are free to move: a stage runs a pending W whenever its next F or B would otherwise leave it idle
 * for at least W's duration, and the rest at the end; DualPipe (DeepSeek-V3, arXiv 2412.19437) by
 * its closed form (Table 2).
 *
 * The closed forms are exact (the simulation agrees, tests/model/test_schedule.c) for equal stages
 * with free transfers, and GPipe's also with equal transfer delays. With delays, 1F1B and its
 * interleaved variant stall in the steady state whenever a round trip exceeds the work in flight:
 * eval.c then simulates.
 */
#include "model_internal.h"

#include <math.h>
#include <string.h>

enum { OP_F = 0, OP_B = 1, OP_W = 2 };
#define OP(kind, chunk, micro) ((int32_t)(((kind) << 28) | ((chunk) << 20) | (micro)))
#define OP_KIND(op) ((op) >> 28)
#define OP_CHUNK(op) (((op) >> 20) & 0xff)
#define OP_MICRO(op) ((op)&0xfffff)

static int push(int32_t *ops, int *n, int cap, int32_t op)
{
    if (*n >= cap)
        return -1;
    ops[(*n)++] = op;
    return 0;
}

static int order_gpipe(const sax_pipeline_t *pl, int s, int32_t *ops, int cap)
{
    (void)s;
    int n = 0;
    for (int j = 0; j < pl->micro; j++)
        if (push(ops, &n, cap, OP(OP_F, 0, j)))
            return -1;
    for (int j = 0; j < pl->micro; j++)
        if (push(ops, &n, cap, OP(OP_B, 0, j)))
            return -1;
    return n;
}

static int order_1f1b(const sax_pipeline_t *pl, int s, int32_t *ops, int cap)
{
    int m = pl->micro, w = pl->stages - s - 1 < m ? pl->stages - s - 1 : m, n = 0;
    for (int j = 0; j < w; j++)
        if (push(ops, &n, cap, OP(OP_F, 0, j)))
            return -1;
    for (int i = 0; i < m; i++) {
        if (w + i < m && push(ops, &n, cap, OP(OP_F, 0, w + i)))
            return -1;
        if (push(ops, &n, cap, OP(OP_B, 0, i)))
            return -1;
    }
    return n;
}

/* Megatron's interleaved order: forward op k of a stage works on chunk (k / p) % v of micro-batch
 * (k / (p v)) p + k % p; backward ops visit chunks in reverse. Needs m % p == 0. */
static int32_t interleaved_op(int kind, int k, int p, int v)
{
    int group = k / (p * v), within = k % (p * v), chunk = within / p;
    if (kind == OP_B)
        chunk = v - 1 - chunk;
    return OP(kind, chunk, group * p + within % p);
}

static int order_interleaved(const sax_pipeline_t *pl, int s, int32_t *ops, int cap)
{
    int p = pl->stages, v = pl->chunks, total = pl->micro * v, n = 0;
    int warm = (p - s - 1) * 2 + (v - 1) * p;
    if (warm > total)
        warm = total;
    for (int k = 0; k < warm; k++)
        if (push(ops, &n, cap, interleaved_op(OP_F, k, p, v)))
            return -1;
    for (int i = 0; i < total; i++) {
        if (warm + i < total && push(ops, &n, cap, interleaved_op(OP_F, warm + i, p, v)))
            return -1;
        if (push(ops, &n, cap, interleaved_op(OP_B, i, p, v)))
            return -1;
    }
    return n;
}

static double max_stage(const double *x, int p)
{
    double v = 0.0;
    for (int s = 0; s < p; s++)
        v = sax_max(v, x[s]);
    return v;
}

/* Equal stages F, B, W and equal links d (the largest of each is used if they differ). */
static double closed_1f1b(const sax_pipeline_t *pl)
{
    int p = pl->stages, m = pl->micro;
    double f = max_stage(pl->f_s, p), b = max_stage(pl->b_s, p) + max_stage(pl->w_s, p);
    double d = max_stage(pl->link_s, p - 1 > 0 ? p - 1 : 1);
    return (m + p - 1) * (f + b) + 2.0 * (p - 1) * d;
}

static double closed_interleaved(const sax_pipeline_t *pl)
{
    int p = pl->stages, m = pl->micro, v = pl->chunks;
    double f = max_stage(pl->f_s, p), b = max_stage(pl->b_s, p) + max_stage(pl->w_s, p);
    double d = max_stage(pl->link_s, p);
    /* bubble (p-1)/v of a whole stage's work (Narayanan et al. 2021 eq. 3) */
    return (m * v + p - 1) * (f + b) + 2.0 * (p - 1) * d;
}

static double closed_zb_h1(const sax_pipeline_t *pl)
{
    int p = pl->stages, m = pl->micro;
    double f = max_stage(pl->f_s, p), b = max_stage(pl->b_s, p), w = max_stage(pl->w_s, p);
    double d = max_stage(pl->link_s, p - 1 > 0 ? p - 1 : 1);
    /* DeepSeek-V3 Table 2: bubble (p-1)(F + B_full - 2W) with B_full = b + w */
    return m * (f + b + w) + (p - 1) * (f + b - w) + 2.0 * (p - 1) * d;
}

/* DualPipe: two pipelines in opposite directions share the stages; bubble (p/2-1)(F&B + B - 3W)
 * with F&B the overlapped forward-and-backward chunk pair, here F + B_full (DeepSeek-V3 Table 2). */
static double closed_dualpipe(const sax_pipeline_t *pl)
{
    int p = pl->stages, m = pl->micro;
    double f = max_stage(pl->f_s, p), b = max_stage(pl->b_s, p), w = max_stage(pl->w_s, p);
    double d = max_stage(pl->link_s, p);
    double bubble = (p / 2.0 - 1.0) * ((f + b + w) + (b + w) - 3.0 * w);
    return m * (f + b + w) + sax_max(0.0, bubble) + 2.0 * (p - 1) * d;
}

static const sax_schedule_desc_t schedules[SAX_SCHEDULE_COUNT] = {
    {SAX_SCHEDULE_GPIPE, false, order_gpipe, closed_1f1b},
    {SAX_SCHEDULE_1F1B, false, order_1f1b, closed_1f1b},
    {SAX_SCHEDULE_INTERLEAVED, false, order_interleaved, closed_interleaved},
    {SAX_SCHEDULE_ZB_H1, true, order_1f1b, closed_zb_h1},
    {SAX_SCHEDULE_DUALPIPE, true, NULL, closed_dualpipe},
};

const sax_schedule_desc_t *sax_schedule_get(sax_schedule_t id) { return &schedules[id]; }

double sax_pipeline_closed_form(const sax_pipeline_t *pl) { return schedules[pl->schedule].closed_form(pl); }

size_t sax_scratch_size(void) { return sizeof(sax_scratch_t); }

void sax_scratch_init(sax_scratch_t *scratch)
{
    for (int i = 0; i < SAX_MEMO_SLOTS; i++)
        scratch->memo[i].key = 0;
    for (int i = 0; i < SAX_COLL_MEMO_SLOTS; i++)
        scratch->coll[i].key = 0;
    scratch->memo_hits = scratch->memo_misses = 0;
    scratch->lay_valid = false;
}

/* When the input of `op` on stage s is there; -1 while it is not yet known. */
static double op_ready(const sax_pipeline_t *pl, const sax_scratch_t *sc, int s, int32_t op)
{
    int p = pl->stages, m = pl->micro, vs_count = p * pl->chunks;
    int kind = OP_KIND(op), c = OP_CHUNK(op), j = OP_MICRO(op), vs = c * p + s;
    if (kind == OP_W)
        return sc->b_end[(long)vs * m + j];
    if (kind == OP_F)
        return vs == 0 ? 0.0 : sc->f_arr[(long)(vs - 1) * m + j];
    if (vs == vs_count - 1)
        return sc->f_arr[(long)vs * m + j];
    return sc->b_arr[(long)(vs + 1) * m + j];
}

/* The time of an event of kind `kind` (OP_B: with W unless W is separate) on virtual stage vs: `t`, its
 * stage's, unless vs is the first or the last virtual stage and the pipeline's ends differ. */
static double end_time(const sax_pipeline_t *pl, int vs, int kind, bool split_w, double t)
{
    if (vs != 0 && vs != pl->stages * pl->chunks - 1)
        return t;
    const double *e = vs == 0 ? pl->head_s : pl->tail_s;
    return kind == OP_F ? e[0] : kind == OP_W ? e[2] : e[1] + (split_w ? 0.0 : e[2]);
}

/* A transfer over boundary `bnd` issued at t: it waits for the previous one in its direction to
 * leave the channels (*busy_until), holds them link_busy_s, and arrives link_s after its start. */
static double transfer(const sax_pipeline_t *pl, int bnd, double t, double *busy_until)
{
    double start = sax_max(t, *busy_until);
    *busy_until = start + pl->link_busy_s[bnd];
    return start + pl->link_s[bnd];
}

typedef struct {
    const int32_t *lists; /* each stage's events, in order */
    const int *start;     /* stage s owns lists[start[s] .. start[s + 1]) */
    bool greedy_w;        /* W events are not in the lists: place them where they fill idle time */
    int32_t *taken;       /* when greedy: the order actually run, 3 v m events per stage */
} run_t;

/* Runs every stage's events; returns the number of events, -1 if the lists deadlock. */
static long run(const sax_pipeline_t *pl, sax_scratch_t *sc, const run_t *rn, sax_pipeline_result_t *out,
                sax_event_t *events, long max_events)
{
    const bool split_w = schedules[pl->schedule].split_w, ends = pl->ends_differ;
    int p = pl->stages, m = pl->micro, per_stage = pl->chunks * m;
    int ptr[SAX_SIM_MAX_STAGES], held[SAX_SIM_MAX_STAGES], w_next[SAX_SIM_MAX_STAGES],
        w_done[SAX_SIM_MAX_STAGES];
    int n_taken[SAX_SIM_MAX_STAGES];
    double free_at[SAX_SIM_MAX_STAGES];
    double fwd_busy[SAX_SIM_MAX_STAGES], bwd_busy[SAX_SIM_MAX_STAGES]; /* per boundary and direction */
    /* pending W events of the greedy pass live in the far end of ops[], per_stage per stage */
    int32_t *pending = sc->ops + SAX_SIM_MAX_OPS - (long)p * per_stage;
    long total = rn->start[p] - rn->start[0] + (rn->greedy_w ? (long)p * per_stage : 0);
    for (int s = 0; s < p; s++) {
        ptr[s] = rn->start[s];
        held[s] = w_next[s] = w_done[s] = n_taken[s] = 0;
        free_at[s] = fwd_busy[s] = bwd_busy[s] = 0.0;
        out->busy_s[s] = 0.0;
        out->peak_inflight[s] = 0;
    }
    for (long i = 0; i < (long)p * per_stage; i++)
        sc->f_arr[i] = sc->b_arr[i] = sc->b_end[i] = -1.0;
    const int last_vs = p * pl->chunks - 1;
    long done = 0, recorded = 0;
    while (done < total) {
        bool progress = false;
        for (int s = 0; s < p; s++) {
            for (;;) {
                int32_t op = ptr[s] < rn->start[s + 1] ? rn->lists[ptr[s]] : -1;
                bool from_pending = false;
                if (rn->greedy_w && w_next[s] < w_done[s]) { /* a pending weight gradient fills idle time */
                    double next = op < 0 ? INFINITY : op_ready(pl, sc, s, op);
                    double w_s = pl->w_s[s];
                    if (ends)
                        w_s = end_time(pl, OP_CHUNK(pending[(long)s * per_stage + w_next[s]]) * p + s, OP_W,
                                       split_w, w_s);
                    if (op < 0 || (next >= 0.0 && next - free_at[s] >= w_s)) {
                        op = pending[(long)s * per_stage + w_next[s]++];
                        from_pending = true;
                    }
                }
                if (op < 0)
                    break;
                double ready = op_ready(pl, sc, s, op);
                if (ready < 0.0)
                    break;
                int kind = OP_KIND(op);
                long me = (long)(OP_CHUNK(op) * p + s) * m + OP_MICRO(op);
                double dur = kind == OP_F   ? pl->f_s[s]
                             : kind == OP_W ? pl->w_s[s]
                                            : pl->b_s[s] + (split_w ? 0.0 : pl->w_s[s]);
                if (ends)
                    dur = end_time(pl, OP_CHUNK(op) * p + s, kind, split_w, dur);
                double t0 = sax_max(free_at[s], ready), t1 = t0 + dur;
                int vs = OP_CHUNK(op) * p + s, back = (s + p - 1) % p;
                double send = t1;
                if (kind == OP_F) { /* its output leaves over boundary s, unless it is the last */
                    sc->f_arr[me] = vs == last_vs ? t1 : transfer(pl, s, t1, &fwd_busy[s]);
                    send = vs == last_vs ? t1 : sc->f_arr[me] - pl->link_s[s];
                    if (++held[s] > out->peak_inflight[s])
                        out->peak_inflight[s] = held[s];
                } else if (kind == OP_B) { /* its input gradient goes back over boundary s - 1 */
                    sc->b_end[me] = t1;
                    if (vs > 0) {
                        sc->b_arr[me] = transfer(pl, back, t1, &bwd_busy[back]);
                        send = sc->b_arr[me] - pl->link_s[back];
                    }
                    held[s]--;
                    if (rn->greedy_w) /* its weight gradient becomes pending */
                        pending[(long)s * per_stage + w_done[s]++] = OP(OP_W, OP_CHUNK(op), OP_MICRO(op));
                }
                free_at[s] = t1;
                out->busy_s[s] += dur;
                if (events != NULL && recorded < max_events) {
                    sax_event_t *e = &events[recorded++];
                    e->stage = s;
                    e->micro = OP_MICRO(op);
                    e->chunk = OP_CHUNK(op);
                    e->kind = kind == OP_F ? 'F' : kind == OP_B ? 'B' : 'W';
                    e->start_s = t0;
                    e->end_s = t1;
                    e->send_s = send;
                }
                if (rn->taken != NULL)
                    rn->taken[(long)s * 3 * per_stage + n_taken[s]++] = op;
                if (!from_pending)
                    ptr[s]++;
                done++;
                progress = true;
            }
        }
        if (!progress)
            return -1; /* an order that deadlocks: a bug in an order function */
    }
    out->makespan_s = 0.0;
    for (int s = 0; s < p; s++) {
        out->finish_s[s] = free_at[s];
        out->makespan_s = sax_max(out->makespan_s, free_at[s]);
    }
    return total;
}

/* Schedules with separate weight gradients place W greedily where a stage would idle; which
 * idle time exists depends on the transfers and on the stages' times, and a greedy choice that
 * depends on them can make a slower link finish earlier (a list-scheduling anomaly: a forward made
 * longer by a slower link can open a gap that W then fills). So W's place is chosen once, on the same
 * pipeline with free transfers and, when pl->own_place, the stage times without cross-site traffic,
 * and that fixed order is then timed with the real ones: with every stage's order fixed, each event's
 * start is a max of sums of the inputs, so a slower transfer or a longer event never makes anything
 * earlier. */
long sax_pipeline_simulate(const sax_pipeline_t *pl, sax_scratch_t *sc, sax_pipeline_result_t *out,
                           sax_event_t *events, long max_events)
{
    const sax_schedule_desc_t *sd = &schedules[pl->schedule];
    int p = pl->stages, per_stage = pl->chunks * pl->micro;
    if (sd->order == NULL || sc == NULL || p > SAX_SIM_MAX_STAGES || (long)p * per_stage > SAX_SIM_MAX_EVENTS)
        return -1;
    int start[SAX_SIM_MAX_STAGES + 1];
    long n = 0;
    for (int s = 0; s < p; s++) {
        start[s] = (int)n;
        int k = sd->order(pl, s, sc->ops + n, (int)(SAX_SIM_MAX_OPS - n - (long)p * per_stage));
        if (k < 0)
            return -1;
        n += k;
    }
    start[p] = (int)n;
    if (!sd->split_w) {
        run_t rn = {sc->ops, start, false, NULL};
        return run(pl, sc, &rn, out, events, max_events);
    }
    /* the pipeline W is placed on: what run() reads of it, for the p stages only (the whole struct is
     * 14 KB, most of it unused stages) */
    sax_pipeline_t *free_pl = &sc->free_links;
    free_pl->schedule = pl->schedule;
    free_pl->stages = p;
    free_pl->chunks = pl->chunks;
    free_pl->micro = pl->micro;
    free_pl->ends_differ = pl->ends_differ;
    free_pl->own_place = false;
    memcpy(free_pl->head_s, pl->head_s, sizeof pl->head_s);
    memcpy(free_pl->tail_s, pl->tail_s, sizeof pl->tail_s);
    const double *f = pl->own_place ? pl->place_f_s : pl->f_s, *b = pl->own_place ? pl->place_b_s : pl->b_s;
    for (int s = 0; s < p; s++) {
        free_pl->f_s[s] = f[s];
        free_pl->b_s[s] = b[s];
        free_pl->w_s[s] = pl->w_s[s];
        free_pl->link_s[s] = free_pl->link_busy_s[s] = 0.0;
    }
    run_t greedy = {sc->ops, start, true, sc->fixed};
    if (run(free_pl, sc, &greedy, out, NULL, 0) < 0)
        return -1;
    int fixed_start[SAX_SIM_MAX_STAGES + 1];
    for (int s = 0; s <= p; s++)
        fixed_start[s] = s * 3 * per_stage;
    run_t fixed = {sc->fixed, fixed_start, false, NULL};
    return run(pl, sc, &fixed, out, events, max_events);
}

static bool all_equal(const double *x, int n)
{
    for (int i = 1; i < n; i++)
        if (fabs(x[i] - x[0]) > 1e-12 * fabs(x[0]))
            return false;
    return true;
}

/* A word-wise hash of n doubles: FNV-1a's step over 64-bit words (one multiply a word); the caller
 * avalanches the result once (memo_key). */
static uint64_t hash_doubles(uint64_t h, const double *v, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t w;
        memcpy(&w, &v[i], sizeof w);
        h = (h ^ w) * 0x100000001b3ull;
    }
    return h;
}

/* splitmix64's finaliser, so that every input bit reaches the slot index; never 0, the empty mark */
static uint64_t memo_key(uint64_t h)
{
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h | 1;
}

/* The pipeline's makespan and each stage's finish: closed form where it is exact (equal stages;
 * free transfers, or GPipe), else the event simulation, memoised in `sc`. */
bool sax_pipeline_time(const sax_pipeline_t *pl, sax_scratch_t *sc, double *makespan, double *finish)
{
    const sax_schedule_desc_t *sd = &schedules[pl->schedule];
    int p = pl->stages;
    bool equal = all_equal(pl->f_s, p) && all_equal(pl->b_s, p) && all_equal(pl->w_s, p) && !pl->ends_differ;
    bool free_links = true, no_queue = true;
    double apart = sax_min(pl->f_s[0], pl->b_s[0]);
    for (int s = 0; s < p; s++) {
        free_links = free_links && pl->link_s[s] == 0.0;
        /* GPipe issues a boundary's transfers one F (or B) apart: none waits for another */
        no_queue = no_queue && pl->link_busy_s[s] <= apart;
    }
    /* ZB-H1's form fixes one placement of W; the simulation places W where it fills idle time */
    bool exact = equal && (free_links || (pl->schedule == SAX_SCHEDULE_GPIPE && no_queue)) &&
                 pl->schedule != SAX_SCHEDULE_ZB_H1;
    if (exact || sd->order == NULL) {
        *makespan = sd->closed_form(pl);
        /* the backward wave reaches stage s that much before stage 0 */
        for (int s = 0; s < p; s++)
            finish[s] = *makespan - s * (pl->b_s[s] + (sd->split_w ? 0.0 : pl->w_s[s]) + pl->link_s[0]);
        return true;
    }
    if (sc == NULL)
        return false;
    const double head[4] = {(double)pl->schedule, p, pl->chunks, pl->micro};
    uint64_t key = hash_doubles(14695981039346656037ull, head, 4);
    key = hash_doubles(key, pl->f_s, p);
    key = hash_doubles(key, pl->b_s, p);
    key = hash_doubles(key, pl->w_s, p);
    key = hash_doubles(key, pl->link_s, p);
    key = hash_doubles(key, pl->link_busy_s, p);
    if (pl->ends_differ) {
        key = hash_doubles(key, pl->head_s, 3);
        key = hash_doubles(key, pl->tail_s, 3);
    }
    if (sd->split_w && pl->own_place) {
        key = hash_doubles(key, pl->place_f_s, p);
        key = hash_doubles(key, pl->place_b_s, p);
    }
    key = memo_key(key);
    sax_memo_t *slot = &sc->memo[key % SAX_MEMO_SLOTS];
    if (slot->key == key && slot->check == ~key) {
        sc->memo_hits++;
        *makespan = slot->makespan_s;
        memcpy(finish, slot->finish_s, sizeof(double) * (size_t)p);
        return true;
    }
    sc->memo_misses++;
    sax_pipeline_result_t pr;
    if (sax_pipeline_simulate(pl, sc, &pr, NULL, 0) < 0)
        return false;
    *makespan = pr.makespan_s;
    memcpy(finish, pr.finish_s, sizeof(double) * (size_t)p);
    slot->key = key;
    slot->check = ~key;
    slot->makespan_s = pr.makespan_s;
    memcpy(slot->finish_s, pr.finish_s, sizeof(double) * (size_t)p);
    return true;
}
