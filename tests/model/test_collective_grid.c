/* test_collective_grid.c - the closed forms of every collective against the reference simulator over a
 * sample of the grid of collective_grid.h (one case in 97, under a budget of simulated events; the whole
 * grid is bench_collective_grid, with its figures in docs/cost-model.md). Groups that nest in the units
 * and groups that do not, apart: each within 10 % (the measured worst of the larger samples, and the
 * few cases beyond, are in docs/cost-model.md 5.6). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "collective_grid.h"

static void check_groups(sax_coll_op_t op, sax_algorithm_t alg, bool nests, double tolerance)
{
    int checked = 0, i = 0;
    double worst = 1.0;
    char worst_case[256] = "";
    for (long p = 0; p < GRID_POINTS; p++) {
        grid_case_t k;
        int mix;
        if (!grid_point(op, alg, p, &k, &mix) || i++ % 97 != 0)
            continue;
        int ch = k.channels > 0 ? k.channels : 16;
        if (grid_cost(&k, ch) > (op == SAX_OP_ALL_TO_ALL ? 2e5 : 2e6))
            continue;
        sax_cluster_t cl;
        grid_cluster(&cl, &k);
        sax_layout_t lay;
        sax_layout_levels(&cl, &lay);
        if (grid_nests(&lay, &k) != nests)
            continue;
        double closed, sim;
        if (!grid_run(&k, &closed, &sim))
            continue;
        checked++;
        double r = closed / sim;
        if (fabs(r - 1.0) > fabs(worst - 1.0)) {
            worst = r;
            grid_describe(&k, worst_case, sizeof worst_case);
        }
    }
    print_message("%s/%s, groups that %s: %d cases, worst closed/reference %.4f (%s)\n",
                  sax_coll_op_names[op], sax_algorithm_names[alg], nests ? "nest" : "do not nest", checked,
                  worst, worst_case);
    assert_true(checked > (nests ? 20 : 5));
    if (fabs(worst - 1.0) > tolerance)
        fail_msg("closed form / reference = %.4f on %s, beyond %.0f %%", worst, worst_case,
                 100.0 * tolerance);
}

/* Groups that nest in the units and groups that do not, apart. */
static void check(sax_coll_op_t op, sax_algorithm_t alg, double tolerance)
{
    check_groups(op, alg, true, tolerance);
    check_groups(op, alg, false, tolerance);
}

static void test_ring_all_reduce(void **state)
{
    (void)state;
    check(SAX_OP_ALL_REDUCE, SAX_ALGORITHM_RING, 0.10);
}
static void test_ring_reduce_scatter(void **state)
{
    (void)state;
    check(SAX_OP_REDUCE_SCATTER, SAX_ALGORITHM_RING, 0.10);
}
static void test_ring_all_gather(void **state)
{
    (void)state;
    check(SAX_OP_ALL_GATHER, SAX_ALGORITHM_RING, 0.10);
}
static void test_hierarchical_all_reduce(void **state)
{
    (void)state;
    check(SAX_OP_ALL_REDUCE, SAX_ALGORITHM_HIERARCHICAL, 0.10);
}
static void test_hierarchical_reduce_scatter(void **state)
{
    (void)state;
    check(SAX_OP_REDUCE_SCATTER, SAX_ALGORITHM_HIERARCHICAL, 0.10);
}
static void test_tree_all_reduce(void **state)
{
    (void)state;
    check(SAX_OP_ALL_REDUCE, SAX_ALGORITHM_TREE, 0.10);
}
static void test_all_to_all(void **state)
{
    (void)state;
    check(SAX_OP_ALL_TO_ALL, SAX_ALGORITHM_RING, 0.10);
}
static void test_sendrecv(void **state)
{
    (void)state;
    check(SAX_OP_SENDRECV, SAX_ALGORITHM_RING, 0.10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_all_reduce),
        cmocka_unit_test(test_ring_reduce_scatter),
        cmocka_unit_test(test_ring_all_gather),
        cmocka_unit_test(test_hierarchical_all_reduce),
        cmocka_unit_test(test_hierarchical_reduce_scatter),
        cmocka_unit_test(test_tree_all_reduce),
        cmocka_unit_test(test_all_to_all),
        cmocka_unit_test(test_sendrecv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
