/* test_decide.c - the sweep's answer beyond its best (search/decide.c): Shapley factors worked out
 * by hand, the mixes built from independently written candidates, the index inverse, the robust
 * candidate of a hand-made space, and the network-oblivious twin. No MPI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "fixture.h"
#include "sax_search.h"

/* |got - want| <= rel x |want| (cmocka's float assertion takes a float tolerance) */
static void near_rel(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("got %.17g, want %.17g (relative tolerance %g)", got, want, rel);
}

/* Mix times (bit 0 placement, bit 1 scheduling, bit 2 network taken from the best), in log2:
 * v(none)=3, v(P)=2, v(S)=3, v(N)=3, v(PS)=1, v(PN)=2, v(SN)=3, v(PSN)=0.
 * Shapley shares of the log2 speedup, weights 1/3 (empty or full coalition) and 1/6:
 *   P: (3-2)/3 + (3-1)/6 + (3-2)/6 + (3-0)/3 = 1/3 + 1/3 + 1/6 + 1 = 11/6
 *   S: (3-3)/3 + (2-1)/6 + (3-3)/6 + (2-0)/3 = 1/6 + 2/3        = 5/6
 *   N: (3-3)/3 + (2-2)/6 + (3-3)/6 + (1-0)/3 = 1/3
 * sum 3 = log2(8): factors 2^(11/6), 2^(5/6), 2^(1/3), multiplying to 8. */
static void test_shapley_by_hand(void **state)
{
    (void)state;
    sax_attribution_t a;
    memset(&a, 0, sizeof a);
    const double t[8] = {8, 4, 8, 2, 8, 4, 8, 1}; /* index = set of groups */
    memcpy(a.mix_time_s, t, sizeof t);
    sax_attribution_from_mixes(&a);
    assert_true(a.valid);
    assert_int_equal(a.orders, 6);
    assert_float_equal(a.factor[SAX_GROUP_PLACEMENT], pow(2.0, 11.0 / 6.0), 1e-12);
    assert_float_equal(a.factor[SAX_GROUP_SCHEDULING], pow(2.0, 5.0 / 6.0), 1e-12);
    assert_float_equal(a.factor[SAX_GROUP_NETWORK], pow(2.0, 1.0 / 3.0), 1e-12);

    /* The placement+scheduling mix infeasible: the orders P,S,N and S,P,N pass through it. The
     * other four, in log2 (group: before - after):
     *   P,N,S: P 3-2=1, N 2-2=0, S 2-0=2      S,N,P: S 0, N 0, P 3-0=3
     *   N,P,S: N 0, P 3-2=1, S 2-0=2          N,S,P: N 0, S 0, P 3
     * means P 2, S 1, N 0: factors 4, 2, 1. */
    a.mix_time_s[3] = INFINITY;
    sax_attribution_from_mixes(&a);
    assert_true(a.valid);
    assert_int_equal(a.orders, 4);
    assert_float_equal(a.factor[SAX_GROUP_PLACEMENT], 4.0, 1e-12);
    assert_float_equal(a.factor[SAX_GROUP_SCHEDULING], 2.0, 1e-12);
    assert_float_equal(a.factor[SAX_GROUP_NETWORK], 1.0, 1e-12);

    /* every single-group mix infeasible: no order is left */
    a.mix_time_s[1] = a.mix_time_s[2] = a.mix_time_s[4] = INFINITY;
    sax_attribution_from_mixes(&a);
    assert_false(a.valid);
    assert_int_equal(a.orders, 0);
}

/* tp {1,2} x pp {1,2} x micro_batch {1,2} x recompute {none,full} x order {tp-cp-pp-dp, tp-cp-dp-pp}
 * x algorithm {ring,hierarchical} x connections {1,4}; one scenario, or a second whose site link is
 * thin and far (bw2, 20 ms). */
static sax_search_t *small_space(int n_scen, double bw2)
{
    sax_space_desc_t d;
    memset(&d, 0, sizeof d);
    fixture_orders(&d);
    fixture_set(&d, SAX_KEY_TP, 2, (const int32_t[]){1, 2});
    fixture_set(&d, SAX_KEY_PP, 2, (const int32_t[]){1, 2});
    fixture_set(&d, SAX_KEY_MICRO_BATCH, 2, (const int32_t[]){1, 2});
    fixture_set(&d, SAX_KEY_RECOMPUTE, 2, (const int32_t[]){SAX_RECOMPUTE_NONE, SAX_RECOMPUTE_FULL});
    fixture_set(&d, SAX_KEY_ORDER, 2, (const int32_t[]){0, 1});
    fixture_set(&d, SAX_KEY_CONNECTIONS, 2, (const int32_t[]){1, 4});
    fixture_set(&d, SAX_KEY_ALGORITHM, 2, (const int32_t[]){SAX_ALGORITHM_RING, SAX_ALGORITHM_HIERARCHICAL});
    sax_problem_t p[2];
    for (int i = 0; i < n_scen; i++)
        fixture_problem(&p[i], 2, 32);
    if (n_scen > 1) {
        p[1].cluster.links[0].bw_Bps = bw2;
        p[1].cluster.links[0].latency_s = 20e-3;
    }
    sax_candidate_t base;
    fixture_candidate(&base);
    sax_search_t *s = NULL;
    sax_error_t err;
    assert_int_equal(sax_search_create(&d, &base, p, n_scen, &s, &err), SAX_OK);
    return s;
}

static double eval_time(const sax_problem_t *p, const sax_candidate_t *c)
{
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    sax_scratch_init(scratch);
    sax_result_t r;
    assert_int_equal(sax_model_eval(p, c, scratch, &r), SAX_OK);
    free(scratch);
    return r.feasible ? r.iteration_time_s : INFINITY;
}

/* Mixing two candidates group by group: each mix's time equals the model's time of the candidate
 * written out by hand here (base: tp 1 pp 1 mb 1 recompute none, x1 ring; best: tp 2 pp 2 mb 2
 * recompute full, x4 hierarchical). */
static void test_mixes_are_the_hand_written_candidates(void **state)
{
    (void)state;
    sax_search_t *s = small_space(1, 0);
    sax_search_cursor_t cur;
    int16_t base_d[SAX_KEY_COUNT] = {0}, best_d[SAX_KEY_COUNT] = {0};
    best_d[SAX_KEY_TP] = best_d[SAX_KEY_PP] = best_d[SAX_KEY_MICRO_BATCH] = best_d[SAX_KEY_RECOMPUTE] = 1;
    best_d[SAX_KEY_CONNECTIONS] = best_d[SAX_KEY_ALGORITHM] = 1;
    /* radix strides, innermost first: connections 1, algorithm 2, order 4, recompute 8, micro_batch
     * 16, pp 32, tp 64: best = 64 + 32 + 16 + 8 + 2 + 1 = 123 */
    assert_int_equal(sax_search_index(s, 0, base_d), 0);
    assert_int_equal(sax_search_index(s, 0, best_d), 123);
    sax_search_seek(s, 42, &cur);
    assert_int_equal(sax_search_index(s, 0, cur.digit), 42);

    sax_scratch_t *scratch = malloc(sax_scratch_size());
    sax_scratch_init(scratch);
    sax_attribution_t a;
    assert_int_equal(sax_search_attribute(s, 0, 123, scratch, &a), SAX_OK);
    free(scratch);
    for (int set = 0; set < 8; set++) {
        sax_candidate_t c;
        fixture_candidate(&c);
        if (set & 1) { /* placement */
            c.tp = 2;
            c.pp = 2;
        }
        if (set & 2) { /* scheduling */
            c.micro_batch = 2;
            c.recompute = SAX_RECOMPUTE_FULL;
        }
        if (set & 4) { /* network */
            c.connections = 4;
            c.algorithm = SAX_ALGORITHM_HIERARCHICAL;
        }
        c.dp = 64 / (c.tp * c.pp);
        double want = eval_time(sax_search_problem(s, 0), &c);
        if (isinf(want))
            assert_true(isinf(a.mix_time_s[set]));
        else
            near_rel(a.mix_time_s[set], want, 1e-12);
    }
    double product = 1.0;
    for (int g = 0; g < SAX_GROUP_COUNT; g++)
        product *= a.factor[g];
    assert_true(a.valid);
    near_rel(product, a.mix_time_s[0] / a.mix_time_s[7], 1e-9);
    sax_search_destroy(&s);
}

/* The robust candidate against a brute force over the whole space: every setting evaluated in both
 * scenarios, its worst regret, the least. With top lists as long as the space the choice is exact. */
static void test_robust_against_brute_force(void **state)
{
    (void)state;
    sax_search_t *s = small_space(2, 1e9);
    int64_t per = sax_search_scenario_size(s);
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    sax_scratch_init(scratch);
    double *t = malloc(2 * (size_t)per * sizeof *t);
    sax_record_t *top[2];
    int64_t n_top[2] = {0, 0};
    double best[2] = {INFINITY, INFINITY};
    for (int sc = 0; sc < 2; sc++) {
        top[sc] = malloc((size_t)per * sizeof *top[sc]);
        for (int64_t i = 0; i < per; i++) {
            sax_search_cursor_t cur;
            sax_search_seek(s, sc * per + i, &cur);
            sax_record_t rec;
            assert_int_equal(sax_search_eval_digits(s, sc, cur.digit, scratch, &rec, NULL), SAX_OK);
            t[sc * per + i] = rec.result.feasible ? rec.result.iteration_time_s : INFINITY;
            if (rec.result.feasible) {
                int64_t j = n_top[sc]++; /* insertion by (time, index) */
                for (; j > 0 && top[sc][j - 1].result.iteration_time_s > rec.result.iteration_time_s; j--)
                    top[sc][j] = top[sc][j - 1];
                top[sc][j] = rec;
            }
            best[sc] = fmin(best[sc], t[sc * per + i]);
        }
    }
    double want = INFINITY;
    for (int64_t i = 0; i < per; i++)
        want = fmin(want, fmax(t[i] / best[0] - 1, t[per + i] / best[1] - 1));
    assert_true(best[1] > best[0]); /* the thin, far link of scenario 1 is slower */
    assert_true(want > 0.0);        /* and the scenarios disagree on the best */

    double regret[2];
    sax_robust_t r;
    sax_error_t err;
    const sax_record_t *tops[2] = {top[0], top[1]};
    assert_int_equal(sax_search_robust(s, tops, n_top, (int)per, true, scratch, regret, &r, &err), SAX_OK);
    assert_true(r.found);
    assert_true(r.exact);
    assert_float_equal(r.worst_regret, want, 1e-12);
    assert_float_equal(fmax(regret[0], regret[1]), want, 1e-12);

    /* lists of 2: the answer is still a real candidate's worst regret, at least the optimum, and
     * only called exact when no candidate outside the lists can beat it */
    int64_t short_n[2] = {2, 2};
    assert_int_equal(sax_search_robust(s, tops, short_n, 2, true, scratch, regret, &r, &err), SAX_OK);
    assert_true(r.worst_regret >= want - 1e-12);
    if (r.exact)
        assert_float_equal(r.worst_regret, want, 1e-12);
    assert_int_equal(sax_search_robust(s, tops, n_top, (int)per, false, scratch, regret, &r, &err), SAX_OK);
    assert_false(r.exact); /* a pruned sweep's lists prove nothing */

    free(t);
    free(top[0]);
    free(top[1]);
    free(scratch);
    sax_search_destroy(&s);
}

/* The oblivious twin: the site link becomes the pod tier (50 GB/s per GPU, no oversubscription,
 * 32 GPUs on the smaller site: 1.6 TB/s; 10 us), lossless; the rest is untouched. */
static void test_oblivious_problem(void **state)
{
    (void)state;
    sax_problem_t p, o;
    fixture_problem(&p, 2, 32);
    p.cluster.tiers[0].oversubscription = 1.0;
    p.cluster.links[0].loss = 1e-4;
    sax_search_oblivious_problem(&p, &o);
    assert_float_equal(o.cluster.links[0].bw_Bps, 1.6e12, 1.0);
    assert_float_equal(o.cluster.links[0].latency_s, 10e-6, 1e-15);
    assert_float_equal(o.cluster.links[0].loss, 0.0, 0.0);
    assert_float_equal(o.cluster.tiers[0].bw_Bps, p.cluster.tiers[0].bw_Bps, 0.0);
    assert_int_equal(o.cluster.n_sites, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapley_by_hand),
        cmocka_unit_test(test_mixes_are_the_hand_written_candidates),
        cmocka_unit_test(test_robust_against_brute_force),
        cmocka_unit_test(test_oblivious_problem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
