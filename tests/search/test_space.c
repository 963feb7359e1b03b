/* test_space.c - the design space: sizes, mixed-radix decoding, cheap checks, blocks, baselines.
 * Expected values are worked out by hand in the comments. No MPI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "sax_search.h"

/* Space A (per scenario): tp {1,2,4,8} x cp {1,2} x pp {1,2,4} x micro_batch {1,2} x schedule
 * {1f1b, interleaved} x vpp {1,2} x order {0,1} x transport {roce-sr, tcp} x connections {1,4}.
 * Radix strides, innermost first: connections 1, transport 2, order 4, vpp 8, schedule 16,
 * micro_batch 32, pp 64, cp 192, tp 384; 1536 candidates per scenario. */
static void space_a(sax_space_desc_t *d)
{
    memset(d, 0, sizeof *d);
    fixture_orders(d);
    fixture_set(d, SAX_KEY_TP, 4, (const int32_t[]){1, 2, 4, 8});
    fixture_set(d, SAX_KEY_CP, 2, (const int32_t[]){1, 2});
    fixture_set(d, SAX_KEY_PP, 3, (const int32_t[]){1, 2, 4});
    fixture_set(d, SAX_KEY_DP, 1, (const int32_t[]){0});
    fixture_set(d, SAX_KEY_MICRO_BATCH, 2, (const int32_t[]){1, 2});
    fixture_set(d, SAX_KEY_SCHEDULE, 2, (const int32_t[]){SAX_SCHEDULE_1F1B, SAX_SCHEDULE_INTERLEAVED});
    fixture_set(d, SAX_KEY_VPP, 2, (const int32_t[]){1, 2});
    fixture_set(d, SAX_KEY_ORDER, 2, (const int32_t[]){0, 1});
    fixture_set(d, SAX_KEY_TRANSPORT, 2, (const int32_t[]){SAX_TRANSPORT_ROCE_SR, SAX_TRANSPORT_TCP});
    fixture_set(d, SAX_KEY_CONNECTIONS, 2, (const int32_t[]){1, 4});
}

static sax_search_t *make(const sax_space_desc_t *d, int n_scen, const int *gpus_site_b)
{
    sax_problem_t p[4];
    for (int i = 0; i < n_scen; i++) {
        fixture_problem(&p[i], 2, 32);
        p[i].cluster.sites[1].gpus = gpus_site_b[i];
    }
    sax_candidate_t base;
    fixture_candidate(&base);
    sax_search_t *s = NULL;
    sax_error_t err;
    assert_int_equal(sax_search_create(d, &base, p, n_scen, &s, &err), SAX_OK);
    return s;
}

static void test_sizes_and_decoding(void **state)
{
    (void)state;
    sax_space_desc_t d;
    space_a(&d);
    sax_search_t *s = make(&d, 2, (const int[]){32, 16});
    assert_int_equal(sax_search_scenario_size(s), 1536);
    assert_int_equal(sax_search_size(s), 3072);
    assert_int_equal(sax_search_gpus(s, 0), 64);
    assert_int_equal(sax_search_gpus(s, 1), 48);

    /* scenario 1, tp 4, cp 2, pp 2, micro_batch 2, interleaved, vpp 2, order 1, tcp, 4 connections:
     * 1536 + 2*384 + 192 + 64 + 32 + 16 + 8 + 4 + 2 + 1 = 2623 */
    sax_search_cursor_t cur;
    sax_search_seek(s, 2623, &cur);
    assert_int_equal(cur.scenario, 1);
    assert_int_equal(cur.candidate.tp, 4);
    assert_int_equal(cur.candidate.cp, 2);
    assert_int_equal(cur.candidate.pp, 2);
    assert_int_equal(cur.candidate.micro_batch, 2);
    assert_int_equal(cur.candidate.schedule, SAX_SCHEDULE_INTERLEAVED);
    assert_int_equal(cur.candidate.vpp, 2);
    assert_int_equal(cur.candidate.order[2], SAX_DIM_DP);
    assert_int_equal(cur.candidate.transport, SAX_TRANSPORT_TCP);
    assert_int_equal(cur.candidate.connections, 4);
    /* keys the space leaves out keep the base candidate's values */
    assert_int_equal(cur.candidate.zero, 1);
    assert_int_equal(cur.candidate.algorithm, SAX_ALGORITHM_RING);
    /* dp auto: 48 GPUs / (4*2*2) = 3; 256 % (2*3) != 0, so the batch check fails */
    assert_int_equal(cur.candidate.dp, 3);
    assert_int_equal(cur.skip, SAX_SKIP_BATCH);
    /* the verdict holds for the block below micro_batch (stride 32): indices 2592..2623 */
    assert_int_equal(sax_search_skip_end(s, &cur), 2624);

    /* the same candidate in scenario 0: dp = 64/16 = 4, 256 % 8 == 0, layers 16 % (2*2) == 0 */
    sax_search_seek(s, 2623 - 1536, &cur);
    assert_int_equal(cur.candidate.dp, 4);
    assert_int_equal(cur.skip, SAX_SKIP_NONE);
    sax_search_destroy(&s);
    assert_null(s);
}

static void test_checks(void **state)
{
    (void)state;
    sax_space_desc_t d;
    space_a(&d);
    sax_search_t *s = make(&d, 2, (const int[]){32, 16});
    sax_search_cursor_t cur;
    /* scenario 1 (48 GPUs), tp 8, cp 2, pp 4: 64 does not divide 48 -> dp_auto, block of pp (64) */
    int64_t i = 1536 + 3 * 384 + 192 + 2 * 64;
    sax_search_seek(s, i, &cur);
    assert_int_equal(cur.skip, SAX_SKIP_DP_AUTO);
    assert_int_equal(sax_search_skip_end(s, &cur), i + 64);
    /* scenario 0, tp 1, cp 1, pp 1, 1f1b, vpp 2 -> schedule (vpp > 1 without interleaved) */
    sax_search_seek(s, 8, &cur);
    assert_int_equal(cur.skip, SAX_SKIP_SCHEDULE);
    /* interleaved with pp 1 -> schedule, decided at the schedule row: block of 16 */
    sax_search_seek(s, 16, &cur);
    assert_int_equal(cur.skip, SAX_SKIP_SCHEDULE);
    assert_int_equal(sax_search_skip_end(s, &cur), 32);
    /* tp 1 cp 2 pp 1 with order 2 (tp-pp-dp, no cp) is valid: the model places cp outermost; the
     * candidate carries the order as the space lists it */
    memset(&d, 0, sizeof d);
    space_a(&d);
    fixture_set(&d, SAX_KEY_ORDER, 2, (const int32_t[]){0, 2});
    sax_search_t *s2 = make(&d, 1, (const int[]){32});
    sax_search_seek(s2, 192 + 4, &cur);
    assert_int_equal(cur.skip, SAX_SKIP_NONE);
    assert_int_equal(cur.candidate.n_order, 3);
    assert_int_equal(cur.candidate.order[1], SAX_DIM_PP);
    sax_search_destroy(&s2);
    sax_search_destroy(&s);
}

/* Space B: tp {1,2,4,8} x pp {1,2,4} x schedule {1f1b, interleaved} x vpp {1,2}, 64 GPUs, 16 layers,
 * batch 256, micro_batch 1. Non-interleaved needs vpp 1: 4*3 = 12 valid (dp = 64/(tp*pp) divides
 * 256). Interleaved needs vpp 2, pp >= 2 and 16 % (2 pp) == 0: pp 2 or 4, 4*2 = 8 valid. 20 of 48. */
static void test_count_valid_by_hand(void **state)
{
    (void)state;
    sax_space_desc_t d;
    memset(&d, 0, sizeof d);
    fixture_orders(&d);
    fixture_set(&d, SAX_KEY_TP, 4, (const int32_t[]){1, 2, 4, 8});
    fixture_set(&d, SAX_KEY_PP, 3, (const int32_t[]){1, 2, 4});
    fixture_set(&d, SAX_KEY_SCHEDULE, 2, (const int32_t[]){SAX_SCHEDULE_1F1B, SAX_SCHEDULE_INTERLEAVED});
    fixture_set(&d, SAX_KEY_VPP, 2, (const int32_t[]){1, 2});
    sax_search_t *s = make(&d, 1, (const int[]){32});
    assert_int_equal(sax_search_size(s), 48);
    assert_int_equal(sax_search_count_valid(s, -1, SAX_SEARCH_COUNT_MAX_CLASSES, NULL), 20);
    /* the 28 others all fail on the schedule: 12 non-interleaved with vpp 2, 8 interleaved with
     * pp 1, 8 interleaved with vpp 1 and pp >= 2 */
    int64_t skipped[SAX_SKIP_COUNT];
    assert_int_equal(sax_search_count_valid(s, 0, SAX_SEARCH_COUNT_MAX_CLASSES, skipped), 20);
    assert_int_equal(skipped[SAX_SKIP_SCHEDULE], 28);
    assert_int_equal(skipped[SAX_SKIP_LAYERS], 0);
    /* The classes a count may hold: never more than the 48 combinations of the four checked keys, so
     * a cap of 48 counts; a cap below the first key's values cannot hold even the first row, and the
     * count says "not counted" (-1) rather than a number. */
    assert_int_equal(sax_search_count_valid(s, -1, 48, NULL), 20);
    assert_int_equal(sax_search_count_valid(s, -1, 1, NULL), -1);
    assert_int_equal(sax_search_count_valid(s, 0, 1, skipped), -1);
    sax_search_destroy(&s);
}

/* GQA: heads 12, kv_heads 4. tp 2, 4: both divide; tp 8 does not divide 12 -> heads.
 * heads 16, kv_heads 2, tp 8: 16 % 8 == 0 and 8 % 2 == 0 (KV heads replicated) -> valid.
 * heads 16, kv_heads 6: tp 4 divides 16 but neither of 4 and 6 divides the other -> heads. */
static void test_gqa_rule(void **state)
{
    (void)state;
    sax_space_desc_t d;
    memset(&d, 0, sizeof d);
    fixture_orders(&d);
    fixture_set(&d, SAX_KEY_TP, 3, (const int32_t[]){2, 4, 8});
    sax_problem_t p;
    fixture_problem(&p, 2, 32);
    sax_candidate_t base;
    fixture_candidate(&base);
    const struct {
        int heads, kv, tp_index;
        sax_skip_t expect;
    } cases[] = {{12, 4, 0, SAX_SKIP_NONE},
                 {12, 4, 1, SAX_SKIP_NONE},
                 {12, 4, 2, SAX_SKIP_HEADS},
                 {16, 2, 2, SAX_SKIP_NONE},
                 {16, 6, 1, SAX_SKIP_HEADS}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        p.model.heads = cases[i].heads;
        p.model.kv_heads = cases[i].kv;
        sax_search_t *s = NULL;
        assert_int_equal(sax_search_create(&d, &base, &p, 1, &s, NULL), SAX_OK);
        sax_search_cursor_t cur;
        sax_search_seek(s, cases[i].tp_index, &cur);
        assert_int_equal(cur.skip, cases[i].expect);
        sax_search_destroy(&s);
    }
}

/* Walking the space with sax_search_move (odometer and block jumps) gives the same cursors as
 * decoding every index from scratch, and every index of a skipped block has the block's verdict. */
static void test_move_matches_seek(void **state)
{
    (void)state;
    sax_space_desc_t d;
    space_a(&d);
    sax_search_t *s = make(&d, 2, (const int[]){32, 16});
    sax_search_cursor_t walk, fresh;
    sax_search_seek(s, 0, &walk);
    int64_t valid = 0;
    for (int64_t i = 0; i < sax_search_size(s); i++) {
        if (i > 0)
            sax_search_move(s, &walk, i);
        sax_search_seek(s, i, &fresh);
        assert_int_equal(walk.skip, fresh.skip);
        assert_memory_equal(walk.digit, fresh.digit, sizeof walk.digit);
        assert_int_equal(walk.scenario, fresh.scenario);
        if (fresh.skip == SAX_SKIP_NONE) {
            valid++;
            assert_memory_equal(&walk.candidate, &fresh.candidate, sizeof walk.candidate);
        } else {
            sax_search_cursor_t inside;
            sax_search_seek(s, sax_search_skip_end(s, &fresh) - 1, &inside);
            assert_int_equal(inside.skip, fresh.skip);
        }
    }
    assert_int_equal(valid, sax_search_count_valid(s, -1, SAX_SEARCH_COUNT_MAX_CLASSES, NULL));
    /* jumps: block ends, then +1 */
    sax_search_seek(s, 0, &walk);
    int64_t jumped_valid = 0;
    while (walk.index < sax_search_size(s)) {
        int64_t next = sax_search_skip_end(s, &walk);
        if (walk.skip == SAX_SKIP_NONE)
            jumped_valid++;
        if (next >= sax_search_size(s))
            break;
        sax_search_move(s, &walk, next);
        sax_search_seek(s, next, &fresh);
        assert_int_equal(walk.skip, fresh.skip);
        if (fresh.skip == SAX_SKIP_NONE)
            assert_memory_equal(&walk.candidate, &fresh.candidate, sizeof walk.candidate);
    }
    assert_int_equal(jumped_valid, valid);
    sax_search_destroy(&s);
}

static void test_subtrees_and_baselines(void **state)
{
    (void)state;
    sax_space_desc_t d;
    space_a(&d);
    /* baseline: schedule 1f1b, order 1, connections 1 */
    d.n_baselines = 1;
    strcpy(d.baselines[0].name, "production");
    d.baselines[0].mask = (1u << SAX_KEY_SCHEDULE) | (1u << SAX_KEY_ORDER) | (1u << SAX_KEY_CONNECTIONS);
    d.baselines[0].value[SAX_KEY_SCHEDULE] = SAX_SCHEDULE_1F1B;
    d.baselines[0].value[SAX_KEY_ORDER] = 1;
    d.baselines[0].value[SAX_KEY_CONNECTIONS] = 1;
    sax_search_t *s = make(&d, 1, (const int[]){32});
    sax_search_cursor_t cur;
    /* the TRANSPORT block is transport x connections (4 candidates): 4..7 is order 1's; algorithm
     * and compression have one value, so the NET block is the same */
    sax_search_seek(s, 4, &cur);
    assert_true(sax_search_is_block_start(&cur, SAX_SEARCH_TRANSPORT_POS));
    assert_true(sax_search_is_block_start(&cur, SAX_SEARCH_NET_POS));
    assert_int_equal(sax_search_block_end(s, &cur, SAX_SEARCH_TRANSPORT_POS), 8);
    assert_int_equal(sax_search_block_size(s, SAX_SEARCH_NET_POS), 4);
    /* the block below vpp (position 7) is 8 long: 0..7 */
    assert_int_equal(sax_search_block_end(s, &cur, 8), 8);
    assert_int_equal(sax_search_block_size(s, 8), 8);
    assert_true(sax_search_matches_baseline(s, &cur, 0)); /* roce-sr, 1 connection */
    assert_true(sax_search_block_may_match_baseline(s, &cur, 0, SAX_SEARCH_TRANSPORT_POS));
    sax_search_seek(s, 5, &cur); /* 4 connections */
    assert_false(sax_search_is_block_start(&cur, SAX_SEARCH_TRANSPORT_POS));
    assert_false(sax_search_matches_baseline(s, &cur, 0));
    assert_true(sax_search_block_may_match_baseline(s, &cur, 0, SAX_SEARCH_TRANSPORT_POS));
    sax_search_seek(s, 0, &cur); /* order 0 */
    assert_false(sax_search_matches_baseline(s, &cur, 0));
    assert_false(sax_search_block_may_match_baseline(s, &cur, 0, SAX_SEARCH_TRANSPORT_POS));
    sax_search_destroy(&s);
}

static void test_bad_spaces(void **state)
{
    (void)state;
    sax_problem_t p;
    fixture_problem(&p, 1, 64);
    sax_space_desc_t d;
    memset(&d, 0, sizeof d);
    fixture_orders(&d);
    /* 32 values for every key except order: 32^16 = 2^80 candidates overflow int64 */
    for (int k = 0; k < SAX_KEY_COUNT; k++) {
        d.values[k].n = 32;
        for (int j = 0; j < 32; j++)
            d.values[k].v[j] = k == SAX_KEY_ORDER ? j % 3 : k == SAX_KEY_SEQUENCE_PARALLEL ? j % 2 : 1;
    }
    sax_search_t *s = NULL;
    sax_error_t err;
    assert_int_equal(sax_search_create(&d, NULL, &p, 1, &s, &err), SAX_ERR_INPUT);
    assert_null(s);
    assert_non_null(strstr(err.text, "overflows"));
    /* a value out of range names the key and the position */
    memset(&d, 0, sizeof d);
    fixture_orders(&d);
    sax_candidate_t base;
    fixture_candidate(&base);
    fixture_set(&d, SAX_KEY_SCHEDULE, 2, (const int32_t[]){1, 9});
    assert_int_equal(sax_search_create(&d, &base, &p, 1, &s, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "space.schedule[1]"));
    /* without a base candidate every key needs values */
    memset(&d, 0, sizeof d);
    assert_int_equal(sax_search_create(&d, NULL, &p, 1, &s, &err), SAX_ERR_INPUT);
}

/* The count (computed by classes of prefixes, without visiting candidates) against a plain loop
 * that decodes every index and runs every check (sax_search_seek): the valid candidates and each
 * skip reason, per scenario and in all, on spaces where every check can fail: dp "auto" and
 * explicit dp (gpus), ep on a MoE model, every schedule, both layer splits, unchecked keys between
 * checked ones (recompute, sequence_parallel, zero). */
static void brute_force(const sax_search_t *s, int scenario, int64_t skipped[SAX_SKIP_COUNT], int64_t *valid)
{
    memset(skipped, 0, SAX_SKIP_COUNT * sizeof *skipped);
    *valid = 0;
    int64_t lo = scenario < 0 ? 0 : scenario * sax_search_scenario_size(s);
    int64_t hi = scenario < 0 ? sax_search_size(s) : lo + sax_search_scenario_size(s);
    sax_search_cursor_t cur;
    for (int64_t i = lo; i < hi; i++) {
        sax_search_seek(s, i, &cur);
        if (cur.skip == SAX_SKIP_NONE)
            (*valid)++;
        else
            skipped[cur.skip]++;
    }
}

static void expect_count_equals_brute_force(const sax_search_t *s)
{
    for (int sc = -1; sc < sax_search_scenario_count(s); sc++) {
        int64_t want[SAX_SKIP_COUNT], got[SAX_SKIP_COUNT], valid;
        brute_force(s, sc, want, &valid);
        assert_int_equal(sax_search_count_valid(s, sc, SAX_SEARCH_COUNT_MAX_CLASSES, got), valid);
        for (int r = 1; r < SAX_SKIP_COUNT; r++)
            assert_int_equal(got[r], want[r]);
    }
}

static void test_count_equals_brute_force(void **state)
{
    (void)state;
    sax_space_desc_t d;
    space_a(&d);
    fixture_set(&d, SAX_KEY_RECOMPUTE, 2, (const int32_t[]){SAX_RECOMPUTE_NONE, SAX_RECOMPUTE_FULL});
    fixture_set(&d, SAX_KEY_ZERO, 3, (const int32_t[]){0, 1, 3});
    fixture_set(&d, SAX_KEY_LAYER_SPLIT, 2,
                (const int32_t[]){SAX_LAYER_SPLIT_UNIFORM, SAX_LAYER_SPLIT_BALANCED});
    fixture_set(&d, SAX_KEY_SCHEDULE, 3,
                (const int32_t[]){SAX_SCHEDULE_1F1B, SAX_SCHEDULE_INTERLEAVED, SAX_SCHEDULE_DUALPIPE});
    fixture_set(&d, SAX_KEY_VPP, 3, (const int32_t[]){1, 2, 3});
    fixture_set(&d, SAX_KEY_TP, 5, (const int32_t[]){1, 2, 4, 8, 16});
    sax_search_t *s = make(&d, 3, (const int[]){32, 16, 24});
    expect_count_equals_brute_force(s);
    sax_search_destroy(&s);

    /* explicit dp values (gpus), ep on a model of 8 experts, micro-batches that do not divide */
    memset(&d, 0, sizeof d);
    fixture_orders(&d);
    fixture_set(&d, SAX_KEY_TP, 3, (const int32_t[]){1, 2, 4});
    fixture_set(&d, SAX_KEY_CP, 3, (const int32_t[]){1, 2, 3});
    fixture_set(&d, SAX_KEY_PP, 4, (const int32_t[]){1, 2, 4, 32});
    fixture_set(&d, SAX_KEY_DP, 5, (const int32_t[]){0, 1, 2, 8, 32});
    fixture_set(&d, SAX_KEY_EP, 3, (const int32_t[]){1, 2, 8});
    fixture_set(&d, SAX_KEY_MICRO_BATCH, 3, (const int32_t[]){1, 3, 4});
    fixture_set(&d, SAX_KEY_SCHEDULE, 2, (const int32_t[]){SAX_SCHEDULE_1F1B, SAX_SCHEDULE_DUALPIPE});
    fixture_set(&d, SAX_KEY_SEQUENCE_PARALLEL, 2, (const int32_t[]){0, 1});
    sax_problem_t p[2];
    for (int i = 0; i < 2; i++) {
        fixture_problem(&p[i], 2, 32);
        p[i].model.experts = 8;
        p[i].model.layers = 32;          /* pp 32 passes the layers... */
        p[i].training.global_batch = 64; /* ...and DualPipe then needs micro-batches >= 64 */
        p[i].cluster.sites[1].gpus = i == 0 ? 32 : 8;
    }
    sax_candidate_t base;
    fixture_candidate(&base);
    sax_error_t err;
    assert_int_equal(sax_search_create(&d, &base, p, 2, &s, &err), SAX_OK);
    expect_count_equals_brute_force(s);
    sax_search_destroy(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_and_decoding),  cmocka_unit_test(test_checks),
        cmocka_unit_test(test_count_valid_by_hand), cmocka_unit_test(test_gqa_rule),
        cmocka_unit_test(test_move_matches_seek),   cmocka_unit_test(test_subtrees_and_baselines),
        cmocka_unit_test(test_bad_spaces),          cmocka_unit_test(test_count_equals_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
