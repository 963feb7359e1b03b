/* test_validation.c - accuracy against published measured runs (tests/data/validation/published-runs.json,
 * the runs of ../shared/validation with the DeepSpeed ZeRO-3 rows saying which ZeRO-3 they ran): the
 * mean absolute error of iteration time at most 10 % and no case beyond 25 % (issue "cost model"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sax_config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void test_published_runs(void **state)
{
    (void)state;
    sax_case_t *cases = NULL;
    int n = 0;
    sax_error_t err = {{0}};
    const char *path = SAX_TEST_DATA "/validation/published-runs.json";
    assert_int_equal(sax_dataset_load(path, &cases, &n, &err), SAX_OK);
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    assert_non_null(scratch);
    sax_scratch_init(scratch);
    double sum = 0.0, worst = 0.0;
    for (int i = 0; i < n; i++) {
        sax_result_t r;
        assert_int_equal(sax_model_eval(&cases[i].config.problem, &cases[i].config.candidate, scratch, &r),
                         SAX_OK);
        if (!r.feasible)
            fail_msg("%s: infeasible (%s)", cases[i].name, sax_infeasible_names[r.reason]);
        double e = fabs(r.iteration_time_s - cases[i].measured_s) / cases[i].measured_s;
        printf("%-28s measured %9.4f s predicted %9.4f s error %5.1f %%\n", cases[i].name,
               cases[i].measured_s, r.iteration_time_s, 100 * e);
        sum += e;
        worst = fmax(worst, e);
    }
    printf("mean %.2f %%, max %.2f %%\n", 100 * sum / n, 100 * worst);
    free(scratch);
    sax_dataset_free(cases, n);
    assert_true(n >= 31);
    assert_true(sum / n <= 0.10);
    assert_true(worst <= 0.25);
}

/* The held-out runs (tests/data/validation/public-runs.json, never fitted to): every one of the 114
 * loads and evaluates, and every one is feasible as its file states it (each of them ran; no unstated
 * setting assumed, as `sax validate` may), with a finite positive time. Their
 * accuracy is reported, not asserted: the target (mean <= 5 %, max <= 15 %) is printed against
 * what the model reaches, which docs/cost-model.md records. */
static void test_public_runs(void **state)
{
    (void)state;
    sax_case_t *cases = NULL;
    int n = 0;
    sax_error_t err = {{0}};
    assert_int_equal(sax_dataset_load(SAX_TEST_DATA "/validation/public-runs.json", &cases, &n, &err),
                     SAX_OK);
    assert_int_equal(n, 114);
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    assert_non_null(scratch);
    sax_scratch_init(scratch);
    double sum = 0.0, worst = 0.0;
    int feasible = 0;
    for (int i = 0; i < n; i++) {
        sax_result_t r;
        assert_int_equal(sax_model_eval(&cases[i].config.problem, &cases[i].config.candidate, scratch, &r),
                         SAX_OK);
        if (!r.feasible) {
            printf("%-34s infeasible (%s)\n", cases[i].name, sax_infeasible_names[r.reason]);
            continue;
        }
        assert_true(isfinite(r.iteration_time_s) && r.iteration_time_s > 0.0);
        double e = fabs(r.iteration_time_s - cases[i].measured_s) / cases[i].measured_s;
        sum += e;
        worst = fmax(worst, e);
        feasible++;
    }
    printf("public runs: %d of %d feasible (target: all); mean %.2f %% (target <= 5 %%), max %.2f %% "
           "(target <= 15 %%)\n",
           feasible, n, feasible > 0 ? 100 * sum / feasible : 0.0, 100 * worst);
    assert_int_equal(feasible, n);
    free(scratch);
    sax_dataset_free(cases, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_published_runs),
                                       cmocka_unit_test(test_public_runs)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
