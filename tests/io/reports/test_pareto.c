/* test_pareto.c - non-dominated sets: hand-made point sets with known fronts, the two-objective
 * sweep against the general method and a brute-force check on random sets with many ties, and
 * the objective table. No MPI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sax_reports.h"

static void test_known_front_2d(void **state)
{
    (void)state;
    /* (1,6) is dominated by (1,5); (3,4) by (2,3); (5,5) by all of them. (2,3) twice: both kept. */
    const double v[] = {1, 5, 2, 3, 3, 4, 4, 1, 2, 3, 5, 5, 1, 6};
    const int64_t want[] = {0, 1, 4, 3}; /* by the first objective, then the second, then index */
    int64_t front[7];
    assert_int_equal(sax_pareto_front(v, 7, 2, front), 4);
    assert_memory_equal(front, want, sizeof want);
    assert_int_equal(sax_pareto_front_general(v, 7, 2, front), 4);
    assert_memory_equal(front, want, sizeof want);
}

static void test_known_front_3d(void **state)
{
    (void)state;
    /* (2,3,3) is dominated by (2,2,2); the rest trade off; (1,2,3) appears twice. */
    const double v[] = {1, 2, 3, 3, 2, 1, 2, 2, 2, 2, 3, 3, 1, 2, 3, 0, 5, 5};
    const int64_t want[] = {5, 0, 4, 2, 1};
    int64_t front[6];
    assert_int_equal(sax_pareto_front(v, 6, 3, front), 5);
    assert_memory_equal(front, want, sizeof want);
}

static void test_edge_cases(void **state)
{
    (void)state;
    int64_t front[4];
    assert_int_equal(sax_pareto_front(NULL, 0, 2, front), 0);
    const double one[] = {3, 4};
    assert_int_equal(sax_pareto_front(one, 1, 2, front), 1);
    assert_int_equal(front[0], 0);
    /* infinities: (inf, 1) is kept (nothing is <= 1 in b), (inf, inf) is dominated */
    const double inf[] = {INFINITY, 1, 2, 2, INFINITY, INFINITY};
    assert_int_equal(sax_pareto_front(inf, 3, 2, front), 2);
    assert_int_equal(front[0], 1);
    assert_int_equal(front[1], 0);
    /* one objective: the minimum, with its ties */
    const double k1[] = {3, 1, 2, 1};
    assert_int_equal(sax_pareto_front(k1, 4, 1, front), 2);
    assert_int_equal(front[0], 1);
    assert_int_equal(front[1], 3);
}

/* Brute force: i is kept when no j dominates it; then ordered as the library orders fronts. */
static int64_t brute(const double *v, int64_t n, int k, int64_t *front)
{
    int64_t nf = 0;
    for (int64_t i = 0; i < n; i++) {
        bool dominated = false;
        for (int64_t j = 0; j < n && !dominated; j++) {
            bool le = true, lt = false;
            for (int d = 0; d < k; d++) {
                le = le && v[j * k + d] <= v[i * k + d];
                lt = lt || v[j * k + d] < v[i * k + d];
            }
            dominated = le && lt;
        }
        if (!dominated)
            front[nf++] = i;
    }
    for (int64_t a = 1; a < nf; a++) { /* insertion sort, lexicographic then index */
        int64_t x = front[a], b = a;
        while (b > 0) {
            int64_t y = front[b - 1];
            int c = 0;
            for (int d = 0; d < k && c == 0; d++)
                c = v[y * k + d] < v[x * k + d] ? -1 : (v[y * k + d] > v[x * k + d]);
            if (c < 0 || (c == 0 && y < x))
                break;
            front[b] = y;
            b--;
        }
        front[b] = x;
    }
    return nf;
}

static void test_random_sets(void **state)
{
    (void)state;
    enum { MAXN = 400 };
    double v[MAXN * 4];
    int64_t f1[MAXN], f2[MAXN], f3[MAXN];
    srand(12345);
    for (int trial = 0; trial < 300; trial++) {
        int k = 2 + trial % 3;
        int64_t n = rand() % MAXN;
        int range = 1 + trial % 20; /* small ranges force many ties and duplicates */
        for (int64_t i = 0; i < n * k; i++)
            v[i] = (double)(rand() % range) + (trial % 2 ? 0.5 * (rand() % 2) : 0.0);
        int64_t nb = brute(v, n, k, f3);
        int64_t ng = sax_pareto_front_general(v, n, k, f2);
        int64_t nf = sax_pareto_front(v, n, k, f1);
        assert_int_equal(ng, nb);
        assert_int_equal(nf, nb);
        assert_memory_equal(f2, f3, (size_t)nb * sizeof f3[0]);
        assert_memory_equal(f1, f3, (size_t)nb * sizeof f3[0]);
    }
}

static void test_objectives(void **state)
{
    (void)state;
    int t = sax_pareto_objective_lookup("iteration_time_s");
    int m = sax_pareto_objective_lookup("mfu");
    int x = sax_pareto_objective_lookup("cross_site_bytes_per_iteration");
    int g = sax_pareto_objective_lookup("gpus_used");
    int b = sax_pareto_objective_lookup("exposed_dp_s");
    assert_true(t >= 0 && m >= 0 && x >= 0 && g >= 0 && b >= 0);
    assert_int_equal(sax_pareto_objective_lookup("speed"), -1);
    assert_false(sax_pareto_objective_maximised(t));
    assert_true(sax_pareto_objective_maximised(m));
    assert_true(sax_pareto_objective_maximised(sax_pareto_objective_lookup("tokens_per_s")));
    assert_false(sax_pareto_objective_maximised(sax_pareto_objective_lookup("memory_per_gpu_bytes")));
    sax_result_t r;
    memset(&r, 0, sizeof r);
    r.iteration_time_s = 12.5;
    r.mfu = 0.4;
    r.cross_site_bytes_per_iteration = 3e9;
    r.gpus_used = 1024;
    r.breakdown_s[SAX_PHASE_DP] = 0.7;
    assert_true(sax_pareto_objective_value(t, &r) == 12.5);
    assert_true(sax_pareto_objective_value(m, &r) == 0.4);
    assert_true(sax_pareto_objective_value(x, &r) == 3e9);
    assert_true(sax_pareto_objective_value(g, &r) == 1024.0);
    assert_true(sax_pareto_objective_value(b, &r) == 0.7);
    assert_string_equal(sax_pareto_objective_name(t), "iteration_time_s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_front_2d), cmocka_unit_test(test_known_front_3d),
        cmocka_unit_test(test_edge_cases),     cmocka_unit_test(test_random_sets),
        cmocka_unit_test(test_objectives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
