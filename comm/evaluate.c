/* evaluate.c - one rank's work on one range of the space: decode, skip, bound, evaluate, reduce.
 *
 * Exhaustive: every index in order; blocks that fail a cheap check are counted and jumped over.
 * Pruned (docs/sweep.md, "The pruned search"): first the NET blocks of the range (candidates that
 * differ only in algorithm, compression, transport and connections) get their ideal-network
 * bound; then they are visited best-first, so that a good incumbent is found early, and each is
 * skipped when its bound exceeds the incumbent it would have to beat; inside a visited NET block
 * each TRANSPORT block (transport x connections) is bounded and skipped the same way. */
#include "comm_internal.h"

#include <math.h>
#include <stdlib.h>

static void maybe_poll(sax_worker_t *w)
{
    if (w->poll != NULL && ++w->polls >= SAX_COMM_POLL_EVERY) {
        w->polls = 0;
        w->poll(w->poll_ctx);
    }
}

static sax_status_t evaluate(sax_worker_t *w)
{
    const sax_search_cursor_t *cur = &w->cur;
    sax_result_t res;
    sax_status_t st =
        sax_model_eval(sax_search_problem(w->s, cur->scenario), &cur->candidate, w->scratch, &res);
    if (st != SAX_OK)
        return sax_error_set(w->err, st, "the cost model rejected candidate %lld of scenario %d: %s",
                             (long long)cur->index, (int)cur->scenario, sax_status_message(st));
    if (res.feasible && res.iteration_time_s < fmax(w->bound[0], w->bound[1]))
        sax_reduce_counts(w->acc)->bound_violations++;
    if (sax_reduce_add(w->acc, cur, &res) != SAX_OK)
        return sax_error_set(w->err, SAX_ERR_NOMEM, "out of memory growing a Pareto front");
    if (w->o->on_row != NULL) {
        sax_record_t rec;
        rec.index = cur->index;
        rec.scenario = cur->scenario;
        rec.candidate = cur->candidate;
        rec.result = res;
        w->o->on_row(w->o->row_ctx, &rec);
    }
    maybe_poll(w);
    return SAX_OK;
}

/* A bound costs one evaluation per compression value (NET) or one (TRANSPORT): computed only for
 * blocks that hold more candidates than that. */
static bool worth_bounding(const sax_search_t *s, int pos)
{
    int64_t cost = pos == SAX_SEARCH_NET_POS ? sax_search_value_count(s, SAX_KEY_COMPRESSION) : 1;
    return sax_search_block_size(s, pos) > cost;
}

static double bound_of(sax_worker_t *w, int pos)
{
    double b =
        sax_search_lower_bound(w->s, &w->cur, pos, w->scratch, &sax_reduce_counts(w->acc)->bound_evals);
    maybe_poll(w);
    return b;
}

static sax_status_t run_exhaustive(sax_worker_t *w, int64_t lo, int64_t hi)
{
    const sax_search_t *s = w->s;
    sax_search_cursor_t *cur = &w->cur;
    sax_search_seek(s, lo, cur);
    for (;;) {
        int64_t next;
        if (cur->skip != SAX_SKIP_NONE) {
            next = sax_search_skip_end(s, cur);
            if (next > hi)
                next = hi;
            sax_reduce_add_skipped(w->acc, cur->skip, next - cur->index);
            maybe_poll(w);
        } else {
            sax_status_t st = evaluate(w);
            if (st != SAX_OK)
                return st;
            next = cur->index + 1;
        }
        if (next >= hi)
            return SAX_OK;
        sax_search_move(s, cur, next);
    }
}

/* [lo, hi) inside one NET block, its bound known: TRANSPORT blocks bounded, the rest evaluated. */
static sax_status_t run_net_block(sax_worker_t *w, int64_t lo, int64_t hi)
{
    const sax_search_t *s = w->s;
    sax_search_cursor_t *cur = &w->cur;
    bool bound_transport = worth_bounding(s, SAX_SEARCH_TRANSPORT_POS);
    sax_search_seek(s, lo, cur);
    for (;;) {
        int64_t next = cur->index + 1;
        bool visit = true;
        if (cur->index == lo || sax_search_is_block_start(cur, SAX_SEARCH_TRANSPORT_POS)) {
            w->bound[1] = 0.0;
            double threshold = sax_reduce_prune_threshold(w->acc, cur, SAX_SEARCH_TRANSPORT_POS);
            if (bound_transport && threshold < INFINITY) {
                w->bound[1] = bound_of(w, SAX_SEARCH_TRANSPORT_POS);
                if (fmax(w->bound[0], w->bound[1]) > threshold) {
                    next = sax_search_block_end(s, cur, SAX_SEARCH_TRANSPORT_POS);
                    if (next > hi)
                        next = hi;
                    sax_reduce_add_pruned(w->acc, next - cur->index);
                    visit = false;
                }
            }
        }
        /* one candidate: it matters only for the scenario's best and the baselines it matches */
        double bound = fmax(w->bound[0], w->bound[1]);
        if (visit && bound > 0.0 && bound > sax_reduce_prune_threshold(w->acc, cur, SAX_KEY_COUNT)) {
            sax_reduce_add_pruned(w->acc, 1);
            visit = false;
        }
        if (visit) {
            sax_status_t st = evaluate(w);
            if (st != SAX_OK)
                return st;
        }
        if (next >= hi)
            return SAX_OK;
        sax_search_move(s, cur, next);
    }
}

typedef struct {
    int64_t lo, hi;
    double bound;
} block_t;

static int by_bound(const void *a, const void *b)
{
    const block_t *x = a, *y = b;
    if (x->bound != y->bound)
        return x->bound < y->bound ? -1 : 1;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

static sax_status_t run_pruned(sax_worker_t *w, int64_t lo, int64_t hi)
{
    const sax_search_t *s = w->s;
    sax_search_cursor_t *cur = &w->cur;
    int64_t per_block = sax_search_block_size(s, SAX_SEARCH_NET_POS);
    int64_t cap = (hi - lo) / per_block + 2;
    block_t *blocks = malloc((size_t)cap * sizeof *blocks);
    if (blocks == NULL)
        return sax_error_set(w->err, SAX_ERR_NOMEM, "out of memory for %lld blocks of the pruned search",
                             (long long)cap);
    bool bound_net = worth_bounding(s, SAX_SEARCH_NET_POS);
    /* 1. the valid NET blocks of the range (a block never straddles a failed check) and their bounds */
    int64_t n = 0;
    sax_search_seek(s, lo, cur);
    for (;;) {
        int64_t next;
        if (cur->skip != SAX_SKIP_NONE) {
            next = sax_search_skip_end(s, cur);
            if (next > hi)
                next = hi;
            sax_reduce_add_skipped(w->acc, cur->skip, next - cur->index);
        } else {
            next = sax_search_block_end(s, cur, SAX_SEARCH_NET_POS);
            if (next > hi)
                next = hi;
            blocks[n].lo = cur->index;
            blocks[n].hi = next;
            blocks[n].bound = bound_net ? bound_of(w, SAX_SEARCH_NET_POS) : 0.0;
            n++;
        }
        if (next >= hi)
            break;
        sax_search_move(s, cur, next);
    }
    /* 2. best-first */
    qsort(blocks, (size_t)n, sizeof *blocks, by_bound);
    sax_status_t st = SAX_OK;
    for (int64_t i = 0; i < n && st == SAX_OK; i++) {
        sax_search_seek(s, blocks[i].lo, cur);
        w->bound[0] = blocks[i].bound;
        w->bound[1] = 0.0;
        if (blocks[i].bound > sax_reduce_prune_threshold(w->acc, cur, SAX_SEARCH_NET_POS)) {
            sax_reduce_add_pruned(w->acc, blocks[i].hi - blocks[i].lo);
            continue;
        }
        st = run_net_block(w, blocks[i].lo, blocks[i].hi);
    }
    free(blocks);
    return st;
}

sax_status_t sax_worker_run(sax_worker_t *w, int64_t lo, int64_t hi)
{
    w->bound[0] = w->bound[1] = 0.0;
    if (hi <= lo)
        return SAX_OK;
    return w->o->pruned ? run_pruned(w, lo, hi) : run_exhaustive(w, lo, hi);
}
