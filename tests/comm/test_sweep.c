/* test_sweep.c - the distributed sweep with the real cost model, run at 1, 2, 3 and 4 ranks:
 * every reduction equals a serial reference computed here for any chunk size; the pruned search
 * finds the same best per scenario and per baseline; its bound is never above a candidate's time;
 * an interrupted sweep resumed from its checkpoint ends with the uninterrupted results, and so does
 * one resumed from a periodic checkpoint taken while it ran. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../search/fixture.h"
#include "sax_comm.h"

static int rank, size;

/* Two scenarios (site link 10 Tbit/s at 1 ms, 100 Gbit/s at 5 ms); a baseline "production":
 * order tp-cp-pp-dp, 1f1b, 1 connection, ring. */
static sax_search_t *make_space(void)
{
    sax_space_desc_t d;
    memset(&d, 0, sizeof d);
    fixture_orders(&d);
    fixture_set(&d, SAX_KEY_TP, 3, (const int32_t[]){2, 4, 8});
    fixture_set(&d, SAX_KEY_PP, 3, (const int32_t[]){1, 2, 4});
    fixture_set(&d, SAX_KEY_DP, 1, (const int32_t[]){0});
    fixture_set(&d, SAX_KEY_MICRO_BATCH, 2, (const int32_t[]){1, 2});
    fixture_set(&d, SAX_KEY_SCHEDULE, 2, (const int32_t[]){SAX_SCHEDULE_1F1B, SAX_SCHEDULE_INTERLEAVED});
    fixture_set(&d, SAX_KEY_VPP, 2, (const int32_t[]){1, 2});
    fixture_set(&d, SAX_KEY_RECOMPUTE, 2, (const int32_t[]){SAX_RECOMPUTE_NONE, SAX_RECOMPUTE_FULL});
    fixture_set(&d, SAX_KEY_ORDER, 2, (const int32_t[]){0, 1});
    fixture_set(&d, SAX_KEY_TRANSPORT, 2, (const int32_t[]){SAX_TRANSPORT_ROCE_SR, SAX_TRANSPORT_TCP});
    fixture_set(&d, SAX_KEY_CONNECTIONS, 2, (const int32_t[]){1, 16});
    fixture_set(&d, SAX_KEY_ALGORITHM, 2, (const int32_t[]){SAX_ALGORITHM_RING, SAX_ALGORITHM_HIERARCHICAL});
    fixture_set(&d, SAX_KEY_COMPRESSION, 2, (const int32_t[]){SAX_COMPRESSION_NONE, SAX_COMPRESSION_FP8});
    d.n_baselines = 1;
    strcpy(d.baselines[0].name, "production");
    d.baselines[0].mask = (1u << SAX_KEY_ORDER) | (1u << SAX_KEY_SCHEDULE) | (1u << SAX_KEY_CONNECTIONS) |
                          (1u << SAX_KEY_ALGORITHM);
    d.baselines[0].value[SAX_KEY_ORDER] = 0;
    d.baselines[0].value[SAX_KEY_SCHEDULE] = SAX_SCHEDULE_1F1B;
    d.baselines[0].value[SAX_KEY_CONNECTIONS] = 1;
    d.baselines[0].value[SAX_KEY_ALGORITHM] = SAX_ALGORITHM_RING;
    sax_problem_t p[2];
    fixture_problem(&p[0], 2, 32);
    fixture_problem(&p[1], 2, 32);
    p[1].cluster.links[0].bw_Bps = 12.5e9;
    p[1].cluster.links[0].latency_s = 5e-3;
    sax_candidate_t base;
    fixture_candidate(&base);
    sax_search_t *s = NULL;
    sax_error_t err;
    assert_int_equal(sax_search_create(&d, &base, p, 2, &s, &err), SAX_OK);
    return s;
}

/* Heterogeneous sites (site B's GPUs twice as fast), uniform and balanced layer splits, three
 * sites' worth of links missing: no baselines, one scenario. */
static sax_search_t *make_space_hetero(void)
{
    sax_space_desc_t d;
    memset(&d, 0, sizeof d);
    fixture_orders(&d);
    fixture_set(&d, SAX_KEY_TP, 2, (const int32_t[]){4, 8});
    fixture_set(&d, SAX_KEY_PP, 3, (const int32_t[]){2, 4, 8});
    fixture_set(&d, SAX_KEY_DP, 1, (const int32_t[]){0});
    fixture_set(&d, SAX_KEY_MICRO_BATCH, 2, (const int32_t[]){1, 4});
    fixture_set(&d, SAX_KEY_SCHEDULE, 2, (const int32_t[]){SAX_SCHEDULE_1F1B, SAX_SCHEDULE_ZB_H1});
    fixture_set(&d, SAX_KEY_LAYER_SPLIT, 2,
                (const int32_t[]){SAX_LAYER_SPLIT_UNIFORM, SAX_LAYER_SPLIT_BALANCED});
    fixture_set(&d, SAX_KEY_ORDER, 2, (const int32_t[]){0, 1});
    fixture_set(&d, SAX_KEY_TRANSPORT, 3,
                (const int32_t[]){SAX_TRANSPORT_ROCE_GBN, SAX_TRANSPORT_ROCE_SR, SAX_TRANSPORT_TCP});
    fixture_set(&d, SAX_KEY_CONNECTIONS, 2, (const int32_t[]){1, 8});
    fixture_set(&d, SAX_KEY_COMPRESSION, 2, (const int32_t[]){SAX_COMPRESSION_NONE, SAX_COMPRESSION_BF16});
    sax_problem_t p;
    fixture_problem(&p, 2, 32);
    p.cluster.sites[1].gpu.peak_flops_bf16 *= 2.0;
    p.cluster.sites[1].gpu.peak_flops_fp8 *= 2.0;
    p.cluster.links[0].loss = 1e-5;
    sax_candidate_t base;
    fixture_candidate(&base);
    sax_search_t *s = NULL;
    assert_int_equal(sax_search_create(&d, &base, &p, 1, &s, NULL), SAX_OK);
    return s;
}

/* An MoE model (8 experts, top 2) with expert parallelism over a lossy, slow link: the network
 * decides, so the bounds are loose. Two baselines, three scenarios of link bandwidth. */
static sax_search_t *make_space_moe(void)
{
    sax_space_desc_t d;
    memset(&d, 0, sizeof d);
    fixture_orders(&d);
    fixture_set(&d, SAX_KEY_TP, 2, (const int32_t[]){1, 2});
    fixture_set(&d, SAX_KEY_PP, 2, (const int32_t[]){2, 4});
    fixture_set(&d, SAX_KEY_DP, 1, (const int32_t[]){0});
    fixture_set(&d, SAX_KEY_EP, 3, (const int32_t[]){1, 4, 8});
    fixture_set(&d, SAX_KEY_MICRO_BATCH, 2, (const int32_t[]){1, 2});
    fixture_set(&d, SAX_KEY_ZERO, 2, (const int32_t[]){1, 3});
    fixture_set(&d, SAX_KEY_ORDER, 2, (const int32_t[]){0, 1});
    fixture_set(&d, SAX_KEY_TRANSPORT, 2, (const int32_t[]){SAX_TRANSPORT_ROCE_SR, SAX_TRANSPORT_TCP});
    fixture_set(&d, SAX_KEY_CONNECTIONS, 3, (const int32_t[]){1, 4, 16});
    fixture_set(&d, SAX_KEY_ALGORITHM, 2, (const int32_t[]){SAX_ALGORITHM_RING, SAX_ALGORITHM_HIERARCHICAL});
    d.n_baselines = 2;
    strcpy(d.baselines[0].name, "dp-outer");
    d.baselines[0].mask = (1u << SAX_KEY_ORDER) | (1u << SAX_KEY_CONNECTIONS);
    d.baselines[0].value[SAX_KEY_ORDER] = 0;
    d.baselines[0].value[SAX_KEY_CONNECTIONS] = 1;
    strcpy(d.baselines[1].name, "no-ep");
    d.baselines[1].mask = 1u << SAX_KEY_EP;
    d.baselines[1].value[SAX_KEY_EP] = 1;
    sax_problem_t p[3];
    const double bw[3] = {1.25e11, 1.25e12, 1.25e13};
    for (int i = 0; i < 3; i++) {
        fixture_problem(&p[i], 2, 32);
        p[i].model.experts = 8;
        p[i].model.top_k = 2;
        p[i].model.expert_ffn_hidden = 2048;
        p[i].cluster.links[0].bw_Bps = bw[i];
        p[i].cluster.links[0].loss = 1e-4;
    }
    sax_candidate_t base;
    fixture_candidate(&base);
    sax_search_t *s = NULL;
    assert_int_equal(sax_search_create(&d, &base, p, 3, &s, NULL), SAX_OK);
    return s;
}

/* Values chosen to trip every cheap check: tp 16 beyond the 8-GPU domain, tp 3 not dividing the
 * 16 heads, cp 3 not dividing
 * 2048, pp 3 not dividing 16 layers and pp 32 above them, an explicit dp 16 too large for some
 * degrees, ep 2 on a dense model, micro-batch 3 not dividing the batch, vpp without interleaved,
 * dualpipe with odd pp, order 2 without cp. */
static sax_search_t *make_space_skips(void)
{
    sax_space_desc_t d;
    memset(&d, 0, sizeof d);
    fixture_orders(&d);
    fixture_set(&d, SAX_KEY_TP, 4, (const int32_t[]){2, 3, 8, 16});
    fixture_set(&d, SAX_KEY_CP, 3, (const int32_t[]){1, 2, 3});
    fixture_set(&d, SAX_KEY_PP, 4, (const int32_t[]){1, 2, 3, 32});
    fixture_set(&d, SAX_KEY_DP, 2, (const int32_t[]){0, 16});
    fixture_set(&d, SAX_KEY_EP, 2, (const int32_t[]){1, 2});
    fixture_set(&d, SAX_KEY_MICRO_BATCH, 2, (const int32_t[]){1, 3});
    fixture_set(&d, SAX_KEY_SCHEDULE, 3,
                (const int32_t[]){SAX_SCHEDULE_1F1B, SAX_SCHEDULE_INTERLEAVED, SAX_SCHEDULE_DUALPIPE});
    fixture_set(&d, SAX_KEY_VPP, 2, (const int32_t[]){1, 2});
    fixture_set(&d, SAX_KEY_LAYER_SPLIT, 2,
                (const int32_t[]){SAX_LAYER_SPLIT_UNIFORM, SAX_LAYER_SPLIT_BALANCED});
    fixture_set(&d, SAX_KEY_ORDER, 2, (const int32_t[]){0, 2});
    sax_problem_t p;
    fixture_problem(&p, 2, 32);
    sax_candidate_t base;
    fixture_candidate(&base);
    sax_search_t *s = NULL;
    assert_int_equal(sax_search_create(&d, &base, &p, 1, &s, NULL), SAX_OK);
    return s;
}

static sax_search_t *(*const spaces[])(void) = {make_space, make_space_hetero, make_space_moe};
enum { SPACES = (int)(sizeof spaces / sizeof spaces[0]) };

/* The reference: every index in order, in this process. */
static sax_reduce_t *serial_reference(const sax_search_t *s)
{
    sax_reduce_t *r = NULL;
    assert_int_equal(sax_reduce_create(s, 5, &r, NULL), SAX_OK);
    void *scratch = malloc(sax_scratch_size());
    assert_non_null(scratch);
    sax_scratch_init(scratch);
    for (int64_t i = 0; i < sax_search_size(s); i++) {
        sax_search_cursor_t cur;
        sax_search_seek(s, i, &cur);
        if (cur.skip != SAX_SKIP_NONE) {
            sax_reduce_add_skipped(r, cur.skip, 1);
            continue;
        }
        sax_result_t res;
        assert_int_equal(sax_model_eval(sax_search_problem(s, cur.scenario), &cur.candidate, scratch, &res),
                         SAX_OK);
        assert_int_equal(sax_reduce_add(r, &cur, &res), SAX_OK);
    }
    free(scratch);
    return r;
}

static void same_record(const sax_record_t *a, const sax_record_t *b)
{
    assert_int_equal(a->index, b->index);
    if (a->index >= 0)
        assert_true(a->result.iteration_time_s == b->result.iteration_time_s);
}

static void same_list(const sax_record_t *a, int64_t na, const sax_record_t *b, int64_t nb)
{
    assert_int_equal(na, nb);
    for (int64_t i = 0; i < na; i++)
        same_record(&a[i], &b[i]);
}

static void same_best(const sax_search_t *s, const sax_reduce_t *got, const sax_reduce_t *ref)
{
    for (int sc = 0; sc < sax_search_scenario_count(s); sc++) {
        same_record(sax_reduce_best(got, sc), sax_reduce_best(ref, sc));
        for (int b = 0; b < sax_search_desc(s)->n_baselines; b++)
            same_record(sax_reduce_baseline_best(got, sc, b), sax_reduce_baseline_best(ref, sc, b));
    }
}

static void same_all(const sax_search_t *s, const sax_reduce_t *got, const sax_reduce_t *ref)
{
    same_best(s, got, ref);
    for (int sc = 0; sc < sax_search_scenario_count(s); sc++) {
        const sax_record_t *a, *b;
        int64_t na = sax_reduce_top(got, sc, &a), nb = sax_reduce_top(ref, sc, &b);
        same_list(a, na, b, nb);
        na = sax_reduce_pareto(got, sc, &a);
        nb = sax_reduce_pareto(ref, sc, &b);
        same_list(a, na, b, nb);
        for (int k = 0; k < SAX_KEY_COUNT; k++)
            for (int j = 0; j < sax_search_value_count(s, (sax_key_t)k); j++)
                same_record(sax_reduce_best_per_value(got, sc, (sax_key_t)k, j),
                            sax_reduce_best_per_value(ref, sc, (sax_key_t)k, j));
    }
    assert_memory_equal(sax_reduce_counts_const(got), sax_reduce_counts_const(ref), sizeof(sax_counts_t));
}

static sax_reduce_t *distributed(const sax_search_t *s, const sax_sweep_opts_t *o, sax_ranges_t *done,
                                 sax_reduce_t *start, sax_status_t expect)
{
    sax_reduce_t *r = start;
    if (r == NULL)
        assert_int_equal(sax_reduce_create(s, 5, &r, NULL), SAX_OK);
    sax_error_t err;
    assert_int_equal(sax_comm_sweep(MPI_COMM_WORLD, s, o, r, done, &err), expect);
    assert_int_equal(sax_comm_allreduce(MPI_COMM_WORLD, r, &err), SAX_OK);
    return r;
}

static void test_rank_and_chunk_invariance(void **state)
{
    (void)state;
    sax_search_t *s = make_space();
    sax_reduce_t *ref = serial_reference(s);
    /* the space is not trivial: some candidates are skipped, some infeasible, most feasible */
    const sax_counts_t *c = sax_reduce_counts_const(ref);
    assert_true(sax_counts_skipped(c) > 0);
    assert_true(c->infeasible[SAX_FEASIBLE] > 0);
    assert_int_equal(sax_counts_done(c), sax_search_size(s));
    const int64_t chunks[] = {7, 64, 0};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        sax_sweep_opts_t o = {.chunk = chunks[i]};
        sax_ranges_t done;
        sax_ranges_init(&done);
        sax_reduce_t *r = distributed(s, &o, &done, NULL, SAX_OK);
        if (rank == 0)
            assert_int_equal(sax_ranges_total(&done), sax_search_size(s));
        same_all(s, r, ref);
        sax_reduce_destroy(&r);
        sax_ranges_fini(&done);
    }
    sax_reduce_destroy(&ref);
    sax_search_destroy(&s);
}

static void test_pruned_equals_exhaustive(void **state)
{
    (void)state;
    for (int v = 0; v < SPACES; v++) {
        sax_search_t *s = spaces[v]();
        sax_reduce_t *ref = serial_reference(s);
        assert_true(sax_reduce_counts_const(ref)->infeasible[SAX_FEASIBLE] > 0);
        sax_sweep_opts_t o = {.chunk = 0, .pruned = true};
        sax_ranges_t done;
        sax_ranges_init(&done);
        sax_reduce_t *r = distributed(s, &o, &done, NULL, SAX_OK);
        same_best(s, r, ref);
        const sax_counts_t *c = sax_reduce_counts_const(r);
        assert_int_equal(c->bound_violations, 0);
        assert_int_equal(sax_counts_done(c), sax_search_size(s));
        if (rank == 0)
            printf("space %d pruned: evaluated %lld + %lld bound evaluations of %lld (exhaustive %lld)\n", v,
                   (long long)c->evaluated, (long long)c->bound_evals, (long long)sax_search_size(s),
                   (long long)sax_reduce_counts_const(ref)->evaluated);
        sax_reduce_destroy(&r);
        sax_ranges_fini(&done);
        sax_reduce_destroy(&ref);
        sax_search_destroy(&s);
    }
}

/* The bound of every NET and TRANSPORT block is at most the time of each feasible candidate in it. */
static void bound_is_admissible(sax_search_t *s)
{
    void *scratch = malloc(sax_scratch_size());
    assert_non_null(scratch);
    sax_scratch_init(scratch);
    int64_t checked = 0;
    double net = 0.0, transport = 0.0;
    for (int64_t i = 0; i < sax_search_size(s); i++) {
        sax_search_cursor_t cur;
        sax_search_seek(s, i, &cur);
        if (cur.skip != SAX_SKIP_NONE)
            continue;
        if (sax_search_is_block_start(&cur, SAX_SEARCH_NET_POS))
            net = sax_search_lower_bound(s, &cur, SAX_SEARCH_NET_POS, scratch, NULL);
        if (sax_search_is_block_start(&cur, SAX_SEARCH_TRANSPORT_POS))
            transport = sax_search_lower_bound(s, &cur, SAX_SEARCH_TRANSPORT_POS, scratch, NULL);
        sax_result_t res;
        assert_int_equal(sax_model_eval(sax_search_problem(s, cur.scenario), &cur.candidate, scratch, &res),
                         SAX_OK);
        if (!res.feasible)
            continue;
        assert_true(net > 0.0);
        assert_true(net <= res.iteration_time_s);
        assert_true(transport <= res.iteration_time_s);
        /* the FLOPs floor alone is below too */
        assert_true(sax_search_flops_bound(s, cur.scenario, res.gpus_used) <= res.iteration_time_s);
        checked++;
    }
    assert_true(checked > 0);
    free(scratch);
}

static void test_bound_is_admissible(void **state)
{
    (void)state;
    if (rank != 0)
        return;
    for (int v = 0; v < SPACES; v++) {
        sax_search_t *s = spaces[v]();
        bound_is_admissible(s);
        sax_search_destroy(&s);
    }
}

/* What the cheap checks skip, the model finds infeasible too: skipping never hides a feasible
 * candidate. (dp "auto" that does not divide has no dp to evaluate with.) */
static void test_skips_are_infeasible(void **state)
{
    (void)state;
    if (rank != 0)
        return;
    void *scratch = malloc(sax_scratch_size());
    assert_non_null(scratch);
    sax_scratch_init(scratch);
    int64_t checked[SAX_SKIP_COUNT] = {0};
    for (int v = 0; v <= SPACES; v++) {
        sax_search_t *s = v < SPACES ? spaces[v]() : make_space_skips();
        for (int64_t i = 0; i < sax_search_size(s); i++) {
            sax_search_cursor_t cur;
            sax_search_seek(s, i, &cur);
            if (cur.skip == SAX_SKIP_NONE || cur.skip == SAX_SKIP_DP_AUTO)
                continue;
            sax_result_t res;
            sax_status_t st =
                sax_model_eval(sax_search_problem(s, cur.scenario), &cur.candidate, scratch, &res);
            if (st == SAX_OK && res.feasible)
                printf("skipped as %s but feasible: candidate %lld of space %d\n", sax_skip_names[cur.skip],
                       (long long)i, v);
            assert_false(st == SAX_OK && res.feasible);
            checked[cur.skip]++;
        }
        sax_search_destroy(&s);
    }
    for (int k = 1; k < SAX_SKIP_COUNT; k++)
        if (k != SAX_SKIP_DP_AUTO) {
            if (checked[k] == 0)
                printf("no candidate skipped as %s\n", sax_skip_names[k]);
            assert_true(checked[k] > 0);
        }
    free(scratch);
}

typedef struct {
    int chunks;
    volatile sig_atomic_t *stop;
} interrupter_t;

static void stop_after_two(void *ctx, int64_t lo, int64_t hi)
{
    (void)lo;
    (void)hi;
    interrupter_t *it = ctx;
    if (++it->chunks == 2)
        *it->stop = 1;
}

/* Rank `signalled` is "signalled"; every rank stops, and resuming from the checkpoint ends with
 * the uninterrupted results. */
static void interrupt_and_resume(int signalled)
{
    sax_search_t *s = make_space();
    sax_reduce_t *ref = serial_reference(s);
    volatile sig_atomic_t stop = 0;
    interrupter_t it = {.stop = &stop};
    sax_sweep_opts_t o = {.chunk = 11, .stop = &stop};
    if (rank == signalled && rank == 0) { /* after starting its second chunk */
        o.on_chunk = stop_after_two;
        o.row_ctx = &it;
    } else if (rank == signalled) {
        /* Before its first request: a worker need not get any chunk (rank 0 may hand out the
         * whole space while the worker starts), so waiting for its second chunk would be racy. */
        stop = 1;
    }
    sax_ranges_t done;
    sax_ranges_init(&done);
    sax_reduce_t *partial = distributed(s, &o, &done, NULL, SAX_ERR_INTERRUPTED);
    char path[64];
    snprintf(path, sizeof path, "/tmp/sax-test-resume-%d.ckpt", (int)getpid());
    /* every rank agrees on rank 0's file name */
    MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    sax_error_t err;
    if (rank == 0) {
        assert_true(sax_ranges_total(&done) < sax_search_size(s));
        assert_int_equal(sax_counts_done(sax_reduce_counts_const(partial)), sax_ranges_total(&done));
        assert_int_equal(sax_checkpoint_save(path, 7, 0.5, &done, partial, &err), SAX_OK);
    }
    sax_reduce_destroy(&partial);
    sax_ranges_fini(&done);

    sax_reduce_t *resumed = NULL;
    assert_int_equal(sax_reduce_create(s, 5, &resumed, NULL), SAX_OK);
    sax_ranges_init(&done);
    if (rank == 0) {
        double elapsed;
        assert_int_equal(sax_checkpoint_load(path, 7, &elapsed, &done, resumed, &err), SAX_OK);
        remove(path);
    }
    sax_sweep_opts_t again = {.chunk = 13};
    resumed = distributed(s, &again, &done, resumed, SAX_OK);
    same_all(s, resumed, ref);
    sax_reduce_destroy(&resumed);
    sax_ranges_fini(&done);
    sax_reduce_destroy(&ref);
    sax_search_destroy(&s);
}

static void test_interrupt_on_rank_0_and_resume(void **state)
{
    (void)state;
    interrupt_and_resume(0);
}

/* A worker that receives the signal tells rank 0, which stops everyone. */
static void test_interrupt_on_last_rank_and_resume(void **state)
{
    (void)state;
    interrupt_and_resume(size - 1);
}

typedef struct {
    int calls, wrong; /* wrong: checkpoints that broke an expectation (asserted after the sweep) */
    int64_t last_done;
    char path[64];
} saver_t;

/* The periodic checkpoint hook (rank 0): the merged reductions account for exactly the finished
 * ranges, which grow from one checkpoint to the next; the first is saved. (No assert here: it
 * would leave the other ranks waiting.) */
static void save_first(void *ctx, const sax_ranges_t *done, const sax_reduce_t *acc)
{
    saver_t *sv = ctx;
    int64_t d = sax_ranges_total(done);
    if (sax_counts_done(sax_reduce_counts_const(acc)) != d || d <= sv->last_done)
        sv->wrong++;
    sv->last_done = d;
    sax_error_t err;
    if (sv->calls++ == 0 && sax_checkpoint_save(sv->path, 9, 0.25, done, acc, &err) != SAX_OK)
        sv->wrong++;
}

/* A checkpoint due at once: every epoch hands out one chunk per asking rank and pauses. */
static void test_periodic_checkpoints_and_resume(void **state)
{
    (void)state;
    sax_search_t *s = make_space();
    sax_reduce_t *ref = serial_reference(s);
    saver_t sv = {0};
    snprintf(sv.path, sizeof sv.path, "/tmp/sax-test-periodic-%d.ckpt", (int)getpid());
    MPI_Bcast(sv.path, (int)sizeof sv.path, MPI_CHAR, 0, MPI_COMM_WORLD);
    sax_sweep_opts_t o = {
        .chunk = 128, .checkpoint_every_s = 1e-9, .checkpoint = save_first, .checkpoint_ctx = &sv};
    sax_ranges_t done;
    sax_ranges_init(&done);
    sax_reduce_t *r = distributed(s, &o, &done, NULL, SAX_OK);
    same_all(s, r, ref); /* checkpoints change nothing */
    int64_t chunks = (sax_search_size(s) + 127) / 128;
    if (rank == 0) {
        assert_int_equal(sv.wrong, 0);
        /* one epoch hands out at most one chunk per rank, so there are at least chunks/size - 1 */
        assert_true(sv.calls >= chunks / size - 1);
        assert_true(sv.calls < chunks);
    }
    sax_reduce_destroy(&r);
    sax_ranges_fini(&done);

    /* resume from the first checkpoint, with another chunk size and no further checkpoints */
    sax_ranges_init(&done);
    assert_int_equal(sax_reduce_create(s, 5, &r, NULL), SAX_OK);
    if (rank == 0) {
        double elapsed;
        sax_error_t err;
        assert_int_equal(sax_checkpoint_load(sv.path, 9, &elapsed, &done, r, &err), SAX_OK);
        assert_true(sax_ranges_total(&done) > 0 && sax_ranges_total(&done) < sax_search_size(s));
        remove(sv.path);
    }
    sax_sweep_opts_t again = {.chunk = 29};
    r = distributed(s, &again, &done, r, SAX_OK);
    same_all(s, r, ref);
    sax_reduce_destroy(&r);
    sax_ranges_fini(&done);
    sax_reduce_destroy(&ref);
    sax_search_destroy(&s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank != 0 && freopen("/dev/null", "w", stdout) == NULL)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank_and_chunk_invariance),
        cmocka_unit_test(test_pruned_equals_exhaustive),
        cmocka_unit_test(test_bound_is_admissible),
        cmocka_unit_test(test_skips_are_infeasible),
        cmocka_unit_test(test_interrupt_on_rank_0_and_resume),
        cmocka_unit_test(test_interrupt_on_last_rank_and_resume),
        cmocka_unit_test(test_periodic_checkpoints_and_resume),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL), worst = 0;
    MPI_Allreduce(&failed, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}
