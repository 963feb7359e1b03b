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
 * for at least W's duration, and the rest at the end; DualPipe (DeepSeek-V3, arXiv 2412.19437) in
 * the order of DeepSeek's reference (deepseek-ai/DualPipe, commit 3da1bbea), two directions of
 * micro-batches over the same stages whose transfers share each boundary's queues.
 *
 * The closed forms are exact (the simulation agrees, tests/model/test_schedule.c) for equal stages
 * with free transfers, and GPipe's also with equal transfer delays; DualPipe's (DeepSeek-V3 Table 2)
 * only when F = B >= W, so DualPipe is always simulated. With delays, 1F1B and its interleaved
 * variant stall in the steady state whenever a round trip exceeds the work in flight: eval.c then
 * simulates.
 */
#include "model_internal.h"

#include <math.h>
#include <string.h>

/* An event: its kind, chunk (DualPipe: its direction) and micro-batch (below SAX_SIM_MAX_EVENTS),
 * and two flags: OP_PAIRED on an F that DualPipe overlaps with the B after it (the pair starts when
 * both inputs are there and sends both outputs when it ends), OP_WITH_W on a B of a schedule with
 * separate weight gradients that computes its own (every B of the other schedules does). */
enum { OP_F = 0, OP_B = 1, OP_W = 2 };
#define OP(kind, chunk, micro) ((int32_t)(((kind) << 25) | ((chunk) << 17) | (micro)))
#define OP_KIND(op) (((op) >> 25) & 3)
#define OP_CHUNK(op) (((op) >> 17) & 0xff)
#define OP_MICRO(op) ((op)&0x1ffff)
#define OP_PAIRED (1 << 27)
#define OP_WITH_W (1 << 28)

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

/* DualPipe (deepseek-ai/DualPipe, dualpipe/dualpipe.py, DualPipe.step): half the micro-batches
 * enter at stage 0 and flow to p-1 (direction 0, micro-batches 0 .. m/2-1), the other half enter at
 * p-1 and flow back (direction 1, m/2 .. m-1). A rank's "phase 0" is the direction whose first half
 * of the stages it is in (direction 0 for s < p/2, direction 1 above): phase = direction ^ (s >= p/2).
 * Each phase's F and B take its micro-batches in order; a B either computes its weight gradients
 * (OP_WITH_W) or defers them (zero bubble), and each W runs the oldest deferred one. */
typedef struct {
    int32_t *ops;
    int n, cap, err;
    int flip, half_m; /* phase ^ flip is the direction; micro-batches per direction */
    int f[2], b[2];   /* per direction: the next micro-batch to run forward, backward */
    int w_scan;       /* deferred weight gradients before ops[w_scan] have run */
} dp_order_t;

static void dp_push(dp_order_t *o, int32_t op) { o->err |= push(o->ops, &o->n, o->cap, op); }

static void dp_f(dp_order_t *o, int phase, bool paired)
{
    int d = phase ^ o->flip;
    dp_push(o, OP(OP_F, d, d * o->half_m + o->f[d]++) | (paired ? OP_PAIRED : 0));
}

static void dp_b(dp_order_t *o, int phase, bool defer_w)
{
    int d = phase ^ o->flip;
    dp_push(o, OP(OP_B, d, d * o->half_m + o->b[d]++) | (defer_w ? 0 : OP_WITH_W));
}

static void dp_w(dp_order_t *o)
{
    while (o->w_scan < o->n && (OP_KIND(o->ops[o->w_scan]) != OP_B || (o->ops[o->w_scan] & OP_WITH_W)))
        o->w_scan++;
    if (o->w_scan >= o->n) {
        o->err = -1;
        return;
    }
    int32_t b = o->ops[o->w_scan++];
    dp_push(o, OP(OP_W, OP_CHUNK(b), OP_MICRO(b)));
}

/* The reference's eight steps, with h = min(s, p-1-s) and P = p/2 (its step 4 needs m >= 2p):
 *   1 2(P-h-1) F0                 5 (P-h-1) x [B1, F1&B0]
 *   2 (h+1) x [F0, F1]            6 (h+1) x [B1, B0], weight gradients deferred from the middle on
 *   3 (P-h-1) x [B1 W F1]           (from B1 of round (h+1)/2 when h is odd, from its B0 when even)
 *   4 (m/2-p+h+1) x [F0&B1, F1&B0] 7 (P-h-1) x [W, B0 deferring W]
 *     (the middle ranks run round 0's F0, B1 apart)  8 (h+1) x W
 * where Fx&By is an overlapped pair, B1 of step 3 defers its W, and the other B compute theirs. */
static int order_dualpipe(const sax_pipeline_t *pl, int s, int32_t *ops, int cap)
{
    int p = pl->stages, half = p / 2, h = s < p - 1 - s ? s : p - 1 - s;
    if (p % 2 != 0 || pl->micro % 2 != 0 || pl->micro < 2 * p) /* the reference's asserts */
        return -1;
    bool middle = h == half - 1;
    dp_order_t o = {ops, 0, cap, 0, s >= half, pl->micro / 2, {0, 0}, {0, 0}, 0};
    for (int i = 0; i < 2 * (half - h - 1); i++)
        dp_f(&o, 0, false);
    for (int i = 0; i <= h; i++) {
        dp_f(&o, 0, false);
        dp_f(&o, 1, false);
    }
    for (int i = 0; i < half - h - 1; i++) {
        dp_b(&o, 1, true);
        dp_w(&o);
        dp_f(&o, 1, false);
    }
    for (int i = 0; i < o.half_m - p + h + 1; i++) {
        dp_f(&o, 0, !(i == 0 && middle));
        dp_b(&o, 1, false);
        dp_f(&o, 1, true);
        dp_b(&o, 0, false);
    }
    for (int i = 0; i < half - h - 1; i++) {
        dp_b(&o, 1, false);
        dp_f(&o, 1, true);
        dp_b(&o, 0, false);
    }
    for (int i = 0; i <= h; i++) {
        bool from = i >= (h + 1) / 2;
        dp_b(&o, 1, from && (h % 2 == 1 || i > (h + 1) / 2));
        dp_b(&o, 0, from);
    }
    for (int i = 0; i < half - h - 1; i++) {
        dp_w(&o);
        dp_b(&o, 0, true);
    }
    for (int i = 0; i <= h; i++)
        dp_w(&o);
    return o.err ? -1 : o.n;
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
    /* Megatron-LM's non-interleaved 1F1B batches each send with the next receive and waits for both
     * (megatron/core/pipeline_parallel/p2p_communication.py, _communicate with wait_on_reqs; the training
     * arguments force overlap_p2p_comm off for it), and its zero-bubble runtime requires the same batched
     * path; the interleaved schedule overlaps its sends by default (--no-overlap-p2p-communication turns
     * that off), GPipe runtimes send asynchronously, DualPipe overlaps its own (docs/cost-model.md
     * section 7). */
    {SAX_SCHEDULE_GPIPE, false, false, false, order_gpipe, closed_1f1b},
    {SAX_SCHEDULE_1F1B, false, false, true, order_1f1b, closed_1f1b},
    {SAX_SCHEDULE_INTERLEAVED, false, false, false, order_interleaved, closed_interleaved},
    {SAX_SCHEDULE_ZB_H1, true, true, true, order_1f1b, closed_zb_h1},
    {SAX_SCHEDULE_DUALPIPE, true, false, false, order_dualpipe, closed_dualpipe},
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

/* Where an event of chunk c on stage s sits along its micro-batch's path: virtual stage c p + s
 * (interleaved: chunk after chunk); DualPipe's direction 1 runs the stages backwards. */
static inline int vstage(const sax_pipeline_t *pl, int s, int c)
{
    if (pl->schedule == SAX_SCHEDULE_DUALPIPE)
        return c == 0 ? s : pl->stages - 1 - s;
    return c * pl->stages + s;
}

/* When the input of an event of `kind` on virtual stage vs for micro-batch j is there; -1 while it is
 * not yet known. */
static inline double ready_at(const sax_scratch_t *sc, int kind, int vs, int j, int m, int last_vs)
{
    if (kind == OP_W)
        return sc->b_end[(long)vs * m + j];
    if (kind == OP_F)
        return vs == 0 ? 0.0 : sc->f_arr[(long)(vs - 1) * m + j];
    if (vs == last_vs)
        return sc->f_arr[(long)vs * m + j];
    return sc->b_arr[(long)(vs + 1) * m + j];
}

static inline double op_ready(const sax_pipeline_t *pl, const sax_scratch_t *sc, int s, int32_t op)
{
    return ready_at(sc, OP_KIND(op), vstage(pl, s, OP_CHUNK(op)), OP_MICRO(op), pl->micro,
                    pl->stages * pl->chunks - 1);
}

/* The time of event `op` on stage s: its stage's F, B (with W when with_w) or W, unless it runs on
 * the first or the last virtual stage and the pipeline's ends differ. A DualPipe rank runs direction 1
 * through the model's stage p - 1 - s (DualPipe.__init__ takes the rank's two modules, and
 * examples/example_dualpipe.py gives rank s full_modules[s] and full_modules[p - 1 - s]): that
 * stage's times, on this rank. */
static double op_time(const sax_pipeline_t *pl, int s, int32_t op, bool with_w)
{
    int kind = OP_KIND(op), vs = vstage(pl, s, OP_CHUNK(op));
    const double *e = NULL;
    if (pl->ends_differ)
        e = vs == 0 ? pl->head_s : vs == pl->stages * pl->chunks - 1 ? pl->tail_s : NULL;
    if (e != NULL)
        return kind == OP_F ? e[0] : kind == OP_W ? e[2] : e[1] + (with_w ? e[2] : 0.0);
    int k = pl->schedule == SAX_SCHEDULE_DUALPIPE ? vs : s;
    return kind == OP_F ? pl->f_s[k] : kind == OP_W ? pl->w_s[k] : pl->b_s[k] + (with_w ? pl->w_s[k] : 0.0);
}

/* A transfer over boundary `bnd` (stage bnd to bnd + 1 when `up`, else back) issued at t: it waits for
 * the previous one in its direction of travel to leave the channels (busy[up][bnd]), holds them
 * link_busy_s, and arrives link_s after its start. DualPipe's direction-1 activations travel down
 * with direction 0's gradients, and its gradients up with direction 0's activations. */
static double transfer(const sax_pipeline_t *pl, int bnd, bool up, double t,
                       double busy[2][SAX_SIM_MAX_STAGES])
{
    double start = sax_max(t, busy[up][bnd]);
    busy[up][bnd] = start + pl->link_busy_s[bnd];
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
    const bool two_way = pl->schedule == SAX_SCHEDULE_DUALPIPE;
    const bool by_op = pl->ends_differ || two_way; /* an event's time depends on more than its stage */
    const bool blocking = schedules[pl->schedule].blocking_sends;
    const bool all_w = !schedules[pl->schedule].split_w; /* every B computes its weight gradients */
    int p = pl->stages, m = pl->micro, per_stage = pl->chunks * m;
    int ptr[SAX_SIM_MAX_STAGES], held[SAX_SIM_MAX_STAGES], w_next[SAX_SIM_MAX_STAGES],
        w_done[SAX_SIM_MAX_STAGES];
    int n_taken[SAX_SIM_MAX_STAGES];
    double free_at[SAX_SIM_MAX_STAGES];
    double busy[2][SAX_SIM_MAX_STAGES]; /* per direction of travel (1: up) and boundary */
    /* pending W events of the greedy pass live in the far end of ops[], per_stage per stage */
    int32_t *pending = sc->ops + SAX_SIM_MAX_OPS - (long)p * per_stage;
    long total = rn->start[p] - rn->start[0] + (rn->greedy_w ? (long)p * per_stage : 0);
    for (int s = 0; s < p; s++) {
        ptr[s] = rn->start[s];
        held[s] = w_next[s] = w_done[s] = n_taken[s] = 0;
        free_at[s] = busy[0][s] = busy[1][s] = 0.0;
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
            const double t_f = pl->f_s[s], t_b = pl->b_s[s], t_w = pl->w_s[s];
            for (;;) {
                int32_t op = ptr[s] < rn->start[s + 1] ? rn->lists[ptr[s]] : -1;
                bool from_pending = false;
                if (rn->greedy_w && w_next[s] < w_done[s]) { /* a pending weight gradient fills idle time */
                    double next = op < 0 ? INFINITY : op_ready(pl, sc, s, op);
                    int32_t w = pending[(long)s * per_stage + w_next[s]];
                    if (op < 0 ||
                        (next >= 0.0 && next - free_at[s] >= (by_op ? op_time(pl, s, w, false) : t_w))) {
                        op = w;
                        w_next[s]++;
                        from_pending = true;
                    }
                }
                if (op < 0)
                    break;
                int kind = OP_KIND(op), c = OP_CHUNK(op), vs = two_way ? (c == 0 ? s : p - 1 - s) : c * p + s;
                double ready = ready_at(sc, kind, vs, OP_MICRO(op), m, last_vs);
                if (ready < 0.0)
                    break;
                bool with_w = kind == OP_B && (all_w || (op & OP_WITH_W));
                double dur = by_op          ? op_time(pl, s, op, with_w)
                             : kind == OP_F ? t_f
                             : kind == OP_W ? t_w
                                            : t_b + (with_w ? t_w : 0.0);
                double t0 = sax_max(free_at[s], ready), t1 = t0 + dur, out_at = t1;
                if (op & OP_PAIRED) { /* its B follows at once: both inputs first, both outputs at the end */
                    int32_t pb = rn->lists[ptr[s] + 1];
                    double ready_b = op_ready(pl, sc, s, pb);
                    if (ready_b < 0.0)
                        break;
                    t0 = sax_max(t0, ready_b);
                    t1 = t0 + dur;
                    out_at = t1 + op_time(pl, s, pb, (pb & OP_WITH_W) != 0);
                }
                long me = (long)vs * m + OP_MICRO(op);
                /* where its output goes: F to the next virtual stage, B to the previous one */
                bool up = two_way ? (kind == OP_F) == (c == 0) : kind == OP_F;
                int bnd = up ? s : (s + p - 1) % p;
                double send = t1, sent = t1; /* when its transfer starts; when it has left the channels */
                if (kind == OP_F) {
                    sc->f_arr[me] = vs == last_vs ? out_at : transfer(pl, bnd, up, out_at, busy);
                    send = vs == last_vs ? t1 : sc->f_arr[me] - pl->link_s[bnd];
                    sent = vs == last_vs ? t1 : send + pl->link_busy_s[bnd];
                    if (++held[s] > out->peak_inflight[s])
                        out->peak_inflight[s] = held[s];
                } else if (kind == OP_B) {
                    sc->b_end[me] = t1;
                    if (vs > 0) {
                        sc->b_arr[me] = transfer(pl, bnd, up, t1, busy);
                        send = sc->b_arr[me] - pl->link_s[bnd];
                        sent = send + pl->link_busy_s[bnd];
                    }
                    held[s]--;
                    if (rn->greedy_w) /* its weight gradient becomes pending */
                        pending[(long)s * per_stage + w_done[s]++] = OP(OP_W, c, OP_MICRO(op));
                }
                free_at[s] = blocking ? sax_max(t1, sent) : t1;
                out->busy_s[s] += dur;
                if (events != NULL && recorded < max_events) {
                    sax_event_t *e = &events[recorded++];
                    e->stage = s;
                    e->micro = OP_MICRO(op);
                    e->chunk = c;
                    e->kind = kind == OP_F ? 'F' : kind == OP_B ? 'B' : 'W';
                    e->with_w = with_w;
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
    if (sc == NULL || p > SAX_SIM_MAX_STAGES || (long)p * per_stage > SAX_SIM_MAX_EVENTS)
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
    if (!sd->place_w) {
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

/* A word-wise hash of n doubles (sax_hash_word); the caller avalanches the result once (memo_key). */
static uint64_t hash_doubles(uint64_t h, const double *v, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t w;
        memcpy(&w, &v[i], sizeof w);
        h = sax_hash_word(h, w);
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
    /* ZB-H1's form fixes one placement of W, where the simulation places W where it fills idle time;
     * DeepSeek's DualPipe form differs from its reference order unless F = B >= W (section 7) */
    bool exact = equal && (free_links || (pl->schedule == SAX_SCHEDULE_GPIPE && no_queue)) && !sd->split_w;
    if (exact) {
        *makespan = sd->closed_form(pl);
        /* the backward wave reaches stage s that much before stage 0 */
        for (int s = 0; s < p; s++)
            finish[s] = *makespan - s * (pl->b_s[s] + pl->w_s[s] + pl->link_s[0]);
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
    if (sd->place_w && pl->own_place) {
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
