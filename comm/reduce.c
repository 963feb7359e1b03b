/* reduce.c - what a rank keeps of the candidates it evaluates: best, top K, Pareto front, best per
 * value of each key and best per baseline, per scenario, plus counts. Every reduction depends only
 * on the set of candidates offered, with ties broken by the lower index, so partial reductions of
 * any partition of the space merge into exactly the serial result. */
#include "comm_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t n, cap;
    sax_record_t *rec;      /* sorted by (time, index) */
    int64_t last_dominator; /* position of the point that rejected the previous offer */
} front_t;

struct sax_reduce {
    const sax_search_t *s;
    int n_scenarios, top_k, n_baselines;
    int bpv_offset[SAX_KEY_COUNT + 1]; /* per key, into a scenario's best-per-value block */
    sax_counts_t counts;
    sax_record_t *best;     /* n_scenarios */
    sax_record_t *top;      /* n_scenarios x top_k */
    int64_t *n_top;         /* n_scenarios */
    front_t *pareto;        /* n_scenarios */
    sax_record_t *bpv;      /* n_scenarios x bpv_offset[SAX_KEY_COUNT] */
    sax_record_t *baseline; /* n_scenarios x n_baselines */
};

int64_t sax_counts_skipped(const sax_counts_t *c)
{
    int64_t n = 0;
    for (int i = 0; i < SAX_SKIP_COUNT; i++)
        n += c->skipped[i];
    return n;
}

const sax_search_t *sax_reduce_search(const sax_reduce_t *r) { return r->s; }

int64_t sax_counts_done(const sax_counts_t *c) { return c->evaluated + sax_counts_skipped(c) + c->pruned; }

static void mark_empty(sax_record_t *r, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].index = -1;
        r[i].result.iteration_time_s = INFINITY;
    }
}

void sax_reduce_reset(sax_reduce_t *r)
{
    int ns = r->n_scenarios;
    memset(&r->counts, 0, sizeof r->counts);
    mark_empty(r->best, ns);
    mark_empty(r->top, (int64_t)ns * r->top_k);
    mark_empty(r->bpv, (int64_t)ns * r->bpv_offset[SAX_KEY_COUNT]);
    mark_empty(r->baseline, (int64_t)ns * r->n_baselines);
    for (int i = 0; i < ns; i++) {
        r->n_top[i] = 0;
        r->pareto[i].n = 0;
        r->pareto[i].last_dominator = 0;
    }
}

sax_status_t sax_reduce_create(const sax_search_t *s, int top_k, sax_reduce_t **out, sax_error_t *err)
{
    *out = NULL;
    if (top_k < 1)
        return sax_error_set(err, SAX_ERR_USAGE, "--top: expected a count >= 1, found %d", top_k);
    sax_reduce_t *r = calloc(1, sizeof *r);
    if (r == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory for the reductions");
    r->s = s;
    r->n_scenarios = sax_search_scenario_count(s);
    r->top_k = top_k;
    r->n_baselines = sax_search_desc(s)->n_baselines;
    r->bpv_offset[0] = 0;
    for (int k = 0; k < SAX_KEY_COUNT; k++)
        r->bpv_offset[k + 1] = r->bpv_offset[k] + sax_search_value_count(s, (sax_key_t)k);
    size_t ns = (size_t)r->n_scenarios;
    r->best = malloc(ns * sizeof *r->best);
    r->top = malloc(ns * (size_t)top_k * sizeof *r->top);
    r->n_top = calloc(ns, sizeof *r->n_top);
    r->pareto = calloc(ns, sizeof *r->pareto);
    r->bpv = malloc(ns * (size_t)r->bpv_offset[SAX_KEY_COUNT] * sizeof *r->bpv);
    r->baseline = malloc((ns * (size_t)r->n_baselines + 1) * sizeof *r->baseline);
    if (r->best == NULL || r->top == NULL || r->n_top == NULL || r->pareto == NULL || r->bpv == NULL ||
        r->baseline == NULL) {
        sax_reduce_destroy(&r);
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory for the reductions of %d scenarios (top %d)",
                             (int)ns, top_k);
    }
    sax_reduce_reset(r);
    *out = r;
    return SAX_OK;
}

void sax_reduce_destroy(sax_reduce_t **rp)
{
    if (rp == NULL || *rp == NULL)
        return;
    sax_reduce_t *r = *rp;
    if (r->pareto != NULL)
        for (int i = 0; i < r->n_scenarios; i++)
            free(r->pareto[i].rec);
    free(r->best);
    free(r->top);
    free(r->n_top);
    free(r->pareto);
    free(r->bpv);
    free(r->baseline);
    free(r);
    *rp = NULL;
}

/* The order of every reduction: faster first, then the lower index. */
static bool better(double t, int64_t index, const sax_record_t *than)
{
    double u = than->result.iteration_time_s;
    return t < u || (t == u && index < than->index) || than->index < 0;
}

static void fill(sax_record_t *dst, const sax_search_cursor_t *cur, const sax_result_t *res)
{
    memset(dst, 0, sizeof *dst); /* padding too: records are written raw to checkpoints */
    dst->index = cur->index;
    dst->scenario = cur->scenario;
    dst->candidate = cur->candidate;
    dst->result = *res;
}

static void offer_top(sax_reduce_t *r, const sax_search_cursor_t *cur, const sax_result_t *res)
{
    sax_record_t *top = &r->top[(int64_t)cur->scenario * r->top_k];
    int64_t n = r->n_top[cur->scenario];
    double t = res->iteration_time_s;
    if (n == r->top_k && !better(t, cur->index, &top[n - 1]))
        return;
    int64_t i = n < r->top_k ? n : n - 1;
    while (i > 0 && better(t, cur->index, &top[i - 1])) {
        top[i] = top[i - 1];
        i--;
    }
    fill(&top[i], cur, res);
    if (n < r->top_k)
        r->n_top[cur->scenario] = n + 1;
}

/* Pareto objectives, all minimised. */
static inline bool dominates(const sax_result_t *a, int64_t ia, const sax_result_t *b, int64_t ib)
{
    double a0 = a->iteration_time_s, a1 = a->cross_site_bytes_per_iteration, a2 = a->memory_per_gpu_bytes;
    double b0 = b->iteration_time_s, b1 = b->cross_site_bytes_per_iteration, b2 = b->memory_per_gpu_bytes;
    if (a0 > b0 || a1 > b1 || a2 > b2)
        return false;
    /* a <= b everywhere: strictly better somewhere, or an equal point with a lower index. */
    return a0 < b0 || a1 < b1 || a2 < b2 || ia < ib;
}

static sax_status_t offer_pareto(sax_reduce_t *r, const sax_search_cursor_t *cur, const sax_result_t *res)
{
    front_t *f = &r->pareto[cur->scenario];
    /* Consecutive candidates are alike: the point that rejected the previous one is tried first. */
    if (f->last_dominator < f->n &&
        dominates(&f->rec[f->last_dominator].result, f->rec[f->last_dominator].index, res, cur->index))
        return SAX_OK;
    double t = res->iteration_time_s;
    int64_t first_tie = 0; /* the first point not faster than the new one */
    for (int64_t i = 0; i < f->n; i++) {
        const sax_record_t *p = &f->rec[i];
        if (p->result.iteration_time_s > t)
            break; /* later points are slower: none can dominate */
        if (dominates(&p->result, p->index, res, cur->index)) {
            f->last_dominator = i;
            return SAX_OK;
        }
        if (p->result.iteration_time_s < t)
            first_tie = i + 1;
    }
    /* Remove the points the new one dominates (only those not faster than it). */
    int64_t w = first_tie;
    for (int64_t i = first_tie; i < f->n; i++)
        if (!dominates(res, cur->index, &f->rec[i].result, f->rec[i].index))
            f->rec[w++] = f->rec[i];
    f->n = w;
    if (f->n == f->cap) {
        int64_t cap = f->cap == 0 ? 16 : 2 * f->cap;
        sax_record_t *grown = realloc(f->rec, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            return SAX_ERR_NOMEM;
        f->rec = grown;
        f->cap = cap;
    }
    /* Keep (time, index) order. */
    int64_t pos = first_tie;
    while (pos < f->n && f->rec[pos].result.iteration_time_s == t && f->rec[pos].index < cur->index)
        pos++;
    memmove(&f->rec[pos + 1], &f->rec[pos], (size_t)(f->n - pos) * sizeof *f->rec);
    fill(&f->rec[pos], cur, res);
    f->n++;
    f->last_dominator = 0;
    return SAX_OK;
}

/* Offers one feasible candidate to every reduction (counts untouched). */
static sax_status_t offer(sax_reduce_t *r, const sax_search_cursor_t *cur, const sax_result_t *res)
{
    int s = cur->scenario;
    double t = res->iteration_time_s;
    if (better(t, cur->index, &r->best[s]))
        fill(&r->best[s], cur, res);
    offer_top(r, cur, res);
    sax_record_t *bpv = &r->bpv[(int64_t)s * r->bpv_offset[SAX_KEY_COUNT]];
    for (int k = 0; k < SAX_KEY_COUNT; k++) {
        sax_record_t *slot = &bpv[r->bpv_offset[k] + cur->digit[k]];
        if (better(t, cur->index, slot))
            fill(slot, cur, res);
    }
    for (int b = 0; b < r->n_baselines; b++) {
        sax_record_t *slot = &r->baseline[(int64_t)s * r->n_baselines + b];
        if (better(t, cur->index, slot) && sax_search_matches_baseline(r->s, cur, b))
            fill(slot, cur, res);
    }
    return offer_pareto(r, cur, res);
}

sax_status_t sax_reduce_add(sax_reduce_t *r, const sax_search_cursor_t *cur, const sax_result_t *res)
{
    r->counts.evaluated++;
    r->counts.infeasible[res->feasible ? SAX_FEASIBLE : res->reason]++;
    if (!res->feasible)
        return SAX_OK;
    return offer(r, cur, res);
}

void sax_reduce_add_skipped(sax_reduce_t *r, sax_skip_t why, int64_t n) { r->counts.skipped[why] += n; }
void sax_reduce_add_pruned(sax_reduce_t *r, int64_t n) { r->counts.pruned += n; }
sax_counts_t *sax_reduce_counts(sax_reduce_t *r) { return &r->counts; }
const sax_counts_t *sax_reduce_counts_const(const sax_reduce_t *r) { return &r->counts; }
int sax_reduce_top_k(const sax_reduce_t *r) { return r->top_k; }

const sax_record_t *sax_reduce_best(const sax_reduce_t *r, int scenario) { return &r->best[scenario]; }

int64_t sax_reduce_top(const sax_reduce_t *r, int scenario, const sax_record_t **recs)
{
    *recs = &r->top[(int64_t)scenario * r->top_k];
    return r->n_top[scenario];
}

int64_t sax_reduce_pareto(const sax_reduce_t *r, int scenario, const sax_record_t **recs)
{
    *recs = r->pareto[scenario].rec;
    return r->pareto[scenario].n;
}

const sax_record_t *sax_reduce_best_per_value(const sax_reduce_t *r, int scenario, sax_key_t k, int j)
{
    return &r->bpv[(int64_t)scenario * r->bpv_offset[SAX_KEY_COUNT] + r->bpv_offset[k] + j];
}

const sax_record_t *sax_reduce_baseline_best(const sax_reduce_t *r, int scenario, int baseline)
{
    return &r->baseline[(int64_t)scenario * r->n_baselines + baseline];
}

double sax_reduce_prune_threshold(const sax_reduce_t *r, const sax_search_cursor_t *cur, int pos)
{
    double thr = r->best[cur->scenario].result.iteration_time_s; /* infinity when none yet */
    for (int b = 0; b < r->n_baselines && thr < INFINITY; b++)
        if (sax_search_block_may_match_baseline(r->s, cur, b, pos))
            thr = fmax(thr, r->baseline[(int64_t)cur->scenario * r->n_baselines + b].result.iteration_time_s);
    return thr;
}

static int by_index(const void *a, const void *b)
{
    int64_t x = ((const sax_record_t *)a)->index, y = ((const sax_record_t *)b)->index;
    return (x > y) - (x < y);
}

sax_status_t sax_reduce_pack(const sax_reduce_t *r, sax_record_t **records, int64_t *n, sax_error_t *err)
{
    int64_t ns = r->n_scenarios, cap = 0;
    for (int64_t s = 0; s < ns; s++)
        cap += 1 + r->n_top[s] + r->pareto[s].n + r->bpv_offset[SAX_KEY_COUNT] + r->n_baselines;
    sax_record_t *out = malloc((size_t)(cap + 1) * sizeof *out);
    if (out == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory packing %lld reduction records",
                             (long long)cap);
    int64_t m = 0;
#define PUSH(rec)                                                                                            \
    do {                                                                                                     \
        if ((rec).index >= 0)                                                                                \
            out[m++] = (rec);                                                                                \
    } while (0)
    for (int64_t s = 0; s < ns; s++) {
        PUSH(r->best[s]);
        for (int64_t i = 0; i < r->n_top[s]; i++)
            PUSH(r->top[s * r->top_k + i]);
        for (int64_t i = 0; i < r->pareto[s].n; i++)
            PUSH(r->pareto[s].rec[i]);
        for (int64_t i = 0; i < r->bpv_offset[SAX_KEY_COUNT]; i++)
            PUSH(r->bpv[s * r->bpv_offset[SAX_KEY_COUNT] + i]);
        for (int64_t i = 0; i < r->n_baselines; i++)
            PUSH(r->baseline[s * r->n_baselines + i]);
    }
#undef PUSH
    qsort(out, (size_t)m, sizeof *out, by_index);
    int64_t w = 0;
    for (int64_t i = 0; i < m; i++)
        if (w == 0 || out[w - 1].index != out[i].index)
            out[w++] = out[i];
    *records = out;
    *n = w;
    return SAX_OK;
}

sax_status_t sax_reduce_merge(sax_reduce_t *r, const sax_record_t *records, int64_t n,
                              const sax_counts_t *counts, sax_error_t *err)
{
    int64_t size = sax_search_size(r->s);
    for (int64_t i = 0; i < n; i++) {
        const sax_record_t *rec = &records[i];
        if (rec->index < 0 || rec->index >= size || !rec->result.feasible)
            return sax_error_set(
                err, SAX_ERR_INPUT,
                "reduction record %lld: expected a feasible candidate with an index below %lld, "
                "found index %lld (%s)",
                (long long)i, (long long)size, (long long)rec->index,
                rec->result.feasible ? "feasible" : "infeasible");
        sax_search_cursor_t cur;
        sax_search_seek(r->s, rec->index, &cur);
        if (offer(r, &cur, &rec->result) != SAX_OK)
            return sax_error_set(err, SAX_ERR_NOMEM, "out of memory merging the Pareto fronts");
    }
    if (counts != NULL) {
        sax_counts_t *c = &r->counts;
        c->evaluated += counts->evaluated;
        for (int i = 0; i < SAX_SKIP_COUNT; i++)
            c->skipped[i] += counts->skipped[i];
        for (int i = 0; i < SAX_INFEASIBLE_COUNT; i++)
            c->infeasible[i] += counts->infeasible[i];
        c->pruned += counts->pruned;
        c->bound_evals += counts->bound_evals;
        c->bound_violations += counts->bound_violations;
    }
    return SAX_OK;
}
