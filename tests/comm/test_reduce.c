/* test_reduce.c - the reductions, index ranges and checkpoints, on hand-made results (no MPI_Init).
 * The model is not called: each candidate gets a result whose metrics the test chooses, so the
 * expected fronts and orders are worked out by hand. */
#define _POSIX_C_SOURCE 200809L
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

/* 8 candidates per scenario (tp {1,2} x transport {roce-sr, tcp} x connections {1,4}), 1 scenario;
 * every one valid. */
static sax_search_t *make_space(int n_baselines)
{
    sax_space_desc_t d;
    memset(&d, 0, sizeof d);
    fixture_orders(&d);
    fixture_set(&d, SAX_KEY_TP, 2, (const int32_t[]){1, 2});
    fixture_set(&d, SAX_KEY_TRANSPORT, 2, (const int32_t[]){SAX_TRANSPORT_ROCE_SR, SAX_TRANSPORT_TCP});
    fixture_set(&d, SAX_KEY_CONNECTIONS, 2, (const int32_t[]){1, 4});
    d.n_baselines = n_baselines;
    if (n_baselines > 0) { /* "tcp": transport fixed to tcp */
        strcpy(d.baselines[0].name, "tcp");
        d.baselines[0].mask = 1u << SAX_KEY_TRANSPORT;
        d.baselines[0].value[SAX_KEY_TRANSPORT] = SAX_TRANSPORT_TCP;
    }
    sax_problem_t p;
    fixture_problem(&p, 2, 32);
    sax_candidate_t base;
    fixture_candidate(&base);
    sax_search_t *s = NULL;
    assert_int_equal(sax_search_create(&d, &base, &p, 1, &s, NULL), SAX_OK);
    return s;
}

/* (time, cross-site bytes, memory) of candidates 0..7 */
static const double points[8][3] = {
    {3, 0, 10}, /* 0: on the front */
    {2, 5, 10}, /* 1: on the front */
    {2, 5, 10}, /* 2: equal to 1, higher index: dominated by 1 */
    {4, 0, 9},  /* 3: on the front (least memory) */
    {3, 1, 10}, /* 4: dominated by 0 */
    {1, 9, 50}, /* 5: on the front (fastest) */
    {5, 5, 60}, /* 6: dominated by 0 */
    {9, 9, 90}, /* 7: infeasible (memory) */
};

static void offer(sax_reduce_t *r, const sax_search_t *s, int i)
{
    sax_search_cursor_t cur;
    sax_search_seek(s, i, &cur);
    sax_result_t res;
    memset(&res, 0, sizeof res);
    res.feasible = i != 7;
    res.reason = i != 7 ? SAX_FEASIBLE : SAX_INFEASIBLE_MEMORY;
    res.iteration_time_s = points[i][0];
    res.cross_site_bytes_per_iteration = points[i][1];
    res.memory_per_gpu_bytes = points[i][2];
    assert_int_equal(sax_reduce_add(r, &cur, &res), SAX_OK);
}

static void expect_hand_results(const sax_reduce_t *r)
{
    const sax_record_t *recs;
    assert_int_equal(sax_reduce_best(r, 0)->index, 5);
    int64_t n = sax_reduce_top(r, 0, &recs);
    assert_int_equal(n, 3); /* K = 3: 5 (1 s), 1 (2 s, lower index than 2), 2 (2 s) */
    assert_int_equal(recs[0].index, 5);
    assert_int_equal(recs[1].index, 1);
    assert_int_equal(recs[2].index, 2);
    n = sax_reduce_pareto(r, 0, &recs);
    assert_int_equal(n, 4); /* by time: 5, 1, 0, 3 */
    assert_int_equal(recs[0].index, 5);
    assert_int_equal(recs[1].index, 1);
    assert_int_equal(recs[2].index, 0);
    assert_int_equal(recs[3].index, 3);
    /* best per value: tp digit is index / 4; tp 1 -> {0..3}: best 1 (2 s); tp 2 -> {4..6}: 5 */
    assert_int_equal(sax_reduce_best_per_value(r, 0, SAX_KEY_TP, 0)->index, 1);
    assert_int_equal(sax_reduce_best_per_value(r, 0, SAX_KEY_TP, 1)->index, 5);
    /* transport digit is (index / 2) % 2: tcp -> {2, 3, 6, 7}: best 2 (2 s) */
    assert_int_equal(sax_reduce_best_per_value(r, 0, SAX_KEY_TRANSPORT, 1)->index, 2);
    assert_int_equal(sax_reduce_baseline_best(r, 0, 0)->index, 2);
    const sax_counts_t *c = sax_reduce_counts_const(r);
    assert_int_equal(c->evaluated, 8);
    assert_int_equal(c->infeasible[SAX_FEASIBLE], 7);
    assert_int_equal(c->infeasible[SAX_INFEASIBLE_MEMORY], 1);
}

static void test_reductions_by_hand(void **state)
{
    (void)state;
    sax_search_t *s = make_space(1);
    sax_reduce_t *r = NULL;
    assert_int_equal(sax_reduce_create(s, 3, &r, NULL), SAX_OK);
    for (int i = 0; i < 8; i++)
        offer(r, s, i);
    expect_hand_results(r);
    /* the reverse order gives the same reductions */
    sax_reduce_reset(r);
    for (int i = 7; i >= 0; i--)
        offer(r, s, i);
    expect_hand_results(r);
    sax_reduce_destroy(&r);
    assert_null(r);
    sax_search_destroy(&s);
}

/* Two halves reduced apart and merged through pack/merge equal the whole. */
static void test_merge_of_parts(void **state)
{
    (void)state;
    sax_search_t *s = make_space(1);
    sax_reduce_t *a = NULL, *b = NULL, *m = NULL;
    assert_int_equal(sax_reduce_create(s, 3, &a, NULL), SAX_OK);
    assert_int_equal(sax_reduce_create(s, 3, &b, NULL), SAX_OK);
    assert_int_equal(sax_reduce_create(s, 3, &m, NULL), SAX_OK);
    const int part_a[] = {0, 3, 6, 7}, part_b[] = {5, 2, 4, 1};
    for (int i = 0; i < 4; i++) {
        offer(a, s, part_a[i]);
        offer(b, s, part_b[i]);
    }
    sax_record_t *recs = NULL;
    int64_t n = 0;
    assert_int_equal(sax_reduce_pack(b, &recs, &n, NULL), SAX_OK);
    /* b holds 5, 2, 4, 1: 4 is dominated by nobody in b ({3,1,10} vs 1 {2,5,10}, 5, 2) so b's front
     * is {5, 1, 4}; with best, top and per-value every one of the four appears once, sorted */
    assert_int_equal(n, 4);
    assert_int_equal(recs[0].index, 1);
    assert_int_equal(recs[3].index, 5);
    assert_int_equal(sax_reduce_merge(m, recs, n, sax_reduce_counts_const(b), NULL), SAX_OK);
    free(recs);
    assert_int_equal(sax_reduce_pack(a, &recs, &n, NULL), SAX_OK);
    assert_int_equal(sax_reduce_merge(m, recs, n, sax_reduce_counts_const(a), NULL), SAX_OK);
    free(recs);
    expect_hand_results(m);
    sax_reduce_destroy(&a);
    sax_reduce_destroy(&b);
    sax_reduce_destroy(&m);
    sax_search_destroy(&s);
}

static void test_ranges(void **state)
{
    (void)state;
    sax_ranges_t r;
    sax_ranges_init(&r);
    assert_int_equal(sax_ranges_add(&r, 10, 20), SAX_OK);
    assert_int_equal(sax_ranges_add(&r, 30, 40), SAX_OK);
    assert_int_equal(sax_ranges_add(&r, 0, 5), SAX_OK);
    assert_int_equal(r.n, 3);
    assert_int_equal(sax_ranges_total(&r), 25);
    /* [5, 10) touches both neighbours: [0, 20) */
    assert_int_equal(sax_ranges_add(&r, 5, 10), SAX_OK);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.lo[0], 0);
    assert_int_equal(r.hi[0], 20);
    /* an overlapping range swallows [30, 40) */
    assert_int_equal(sax_ranges_add(&r, 25, 45), SAX_OK);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.lo[1], 25);
    assert_int_equal(r.hi[1], 45);
    int64_t lo, hi;
    assert_true(sax_ranges_next_gap(&r, 0, 100, &lo, &hi));
    assert_int_equal(lo, 20);
    assert_int_equal(hi, 25);
    assert_true(sax_ranges_next_gap(&r, 30, 100, &lo, &hi));
    assert_int_equal(lo, 45);
    assert_int_equal(hi, 100);
    assert_false(sax_ranges_next_gap(&r, 30, 45, &lo, &hi));
    sax_ranges_fini(&r);
}

static void test_checkpoint_round_trip(void **state)
{
    (void)state;
    sax_search_t *s = make_space(1);
    sax_reduce_t *a = NULL, *b = NULL;
    assert_int_equal(sax_reduce_create(s, 3, &a, NULL), SAX_OK);
    assert_int_equal(sax_reduce_create(s, 3, &b, NULL), SAX_OK);
    for (int i = 0; i < 8; i++)
        offer(a, s, i);
    sax_ranges_t done, back;
    sax_ranges_init(&done);
    sax_ranges_init(&back);
    assert_int_equal(sax_ranges_add(&done, 0, 8), SAX_OK);
    char path[] = "/tmp/sax-test-ckpt-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    sax_error_t err;
    assert_int_equal(sax_checkpoint_save(path, 42, 1.5, &done, a, &err), SAX_OK);
    double elapsed = 0;
    assert_int_equal(sax_checkpoint_load(path, 43, &elapsed, &back, b, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "different sweep"));
    assert_int_equal(sax_checkpoint_load(path, 42, &elapsed, &back, b, &err), SAX_OK);
    assert_true(elapsed == 1.5);
    assert_int_equal(back.n, 1);
    assert_int_equal(back.hi[0], 8);
    expect_hand_results(b);
    assert_int_equal(sax_reduce_counts_const(b)->evaluated, 8);
    assert_int_equal(sax_reduce_counts_const(b)->infeasible[SAX_INFEASIBLE_MEMORY], 1);
    /* counts that account for more candidates than the finished ranges hold: refused, file kept */
    sax_ranges_t part;
    sax_ranges_init(&part);
    assert_int_equal(sax_ranges_add(&part, 0, 6), SAX_OK);
    assert_int_equal(sax_checkpoint_save(path, 42, 1.5, &part, a, &err), SAX_OK);
    sax_ranges_fini(&part);
    assert_int_equal(sax_checkpoint_load(path, 42, &elapsed, &back, b, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "its counts account for 8 candidates, its finished ranges for 6"));
    /* a checkpoint cut short (a full disk, a copy interrupted) */
    FILE *f = fopen(path, "rb");
    char buf[256];
    size_t got = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(got == sizeof buf);
    f = fopen(path, "wb");
    fwrite(buf, 1, sizeof buf, f);
    fclose(f);
    assert_int_equal(sax_checkpoint_load(path, 42, &elapsed, &back, b, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "truncated"));
    /* CRC-64/XZ: the catalogue's check value, and continuing across pieces gives the whole's CRC */
    assert_true(sax_crc64(0, "123456789", 9) == 0x995dc9bbdf1939faull);
    assert_true(sax_crc64(sax_crc64(0, "1234", 4), "56789", 5) == 0x995dc9bbdf1939faull);
    /* not a checkpoint */
    f = fopen(path, "wb");
    fputs("{\"json\": true}", f);
    fclose(f);
    assert_int_equal(sax_checkpoint_load(path, 42, &elapsed, &back, b, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "expected a sax sweep checkpoint"));
    remove(path);
    sax_ranges_fini(&done);
    sax_ranges_fini(&back);
    sax_reduce_destroy(&a);
    sax_reduce_destroy(&b);
    sax_search_destroy(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reductions_by_hand),
        cmocka_unit_test(test_merge_of_parts),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_checkpoint_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
