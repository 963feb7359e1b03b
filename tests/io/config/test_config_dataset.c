/* test_config_dataset.c - loading the published validation dataset (../shared/validation) through
 * sax_dataset_load: 31 cases, and the first case's numbers as read by hand from the file and its
 * source (Narayanan et al. 2021, Table 1, 1.7B row); plus error paths inside a dataset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sax_config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DATASET SAX_SHARED "/validation/published-calibration.json"

static void test_published_dataset(void **state)
{
    (void)state;
    sax_case_t *cases = NULL;
    int n = 0;
    sax_error_t err = {{0}};
    FILE *f = fopen(DATASET, "r");
    if (f == NULL)
        skip(); /* ../shared sits beside every checkout of the project; without it there is no dataset */
    fclose(f);
    sax_status_t st = sax_dataset_load(DATASET, &cases, &n, &err);
    if (st != SAX_OK) {
        print_error("%s\n", err.text);
        fail();
    }
    assert_int_equal(n, 31);
    const sax_case_t *c = &cases[0];
    assert_string_equal(c->name, "sc21-t1-1.7B");
    assert_true(c->measured_s == 3.528);
    const sax_problem_t *p = &c->config.problem;
    assert_int_equal(p->model.layers, 24);
    assert_int_equal(p->model.hidden, 2304);
    assert_int_equal(p->model.heads, 24);
    assert_int_equal(p->model.vocab, 51200);
    assert_true(p->training.global_batch == 512);
    assert_true(fabs(p->cluster.gpu.peak_flops_bf16 - 312e12) < 1.0);
    assert_true(p->cluster.gpu.hbm_bytes == 80.0 * 1073741824.0);
    assert_true(fabs(p->cluster.tiers[0].bw_Bps - 25e9) < 1e-3);
    assert_true(fabs(p->cluster.tiers[0].latency_s - 5e-6) < 1e-18);
    assert_int_equal(p->cluster.sites[0].gpus, 32);
    assert_true(c->config.has_candidate);
    assert_int_equal(c->config.candidate.tp, 1);
    assert_int_equal(c->config.candidate.dp, 32);
    assert_int_equal(c->config.candidate.recompute, SAX_RECOMPUTE_FULL);
    /* the last case: Megatron-Core on H100, 462B on 6144 GPUs, 12.7165 s */
    assert_string_equal(cases[30].name, "mcore-h100-462b");
    assert_true(cases[30].measured_s == 12.7165);
    assert_int_equal(cases[30].config.problem.cluster.sites[0].gpus, 6144);
    sax_dataset_free(cases, n);
}

static void test_dataset_errors(void **state)
{
    (void)state;
    /* a copy of the first case with one bad bandwidth, written to a temporary file */
    char path[512];
    snprintf(path, sizeof path, "%s/test_config_dataset_bad.json", SAX_BINARY_DIR);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"note\": \"x\", \"cases\": [\n");
    for (int i = 0; i < 4; i++)
        fprintf(
            f,
            "%s{\"name\": \"c%d\", \"config\": {\"model\": \"llama3-8b\", \"training\": "
            "{\"global_batch\": 8}, \"cluster\": {\"gpu\": \"H100\", \"scale_up\": {\"size\": 8, \"bandwidth\": \"450 GB/s\","
            " \"latency\": \"2 us\"}, \"tiers\": [{\"name\": \"pod\", \"gpus\": 64, \"bandwidth\": \"%s\","
            " \"latency\": \"5 us\"}], \"sites\": [{\"name\": \"s\", \"gpus\": 64}]},"
            " \"parallelism\": {\"tp\": 8}, \"network\": {}}, \"measured\": {\"iteration_time_s\": 1.5}}\n",
            i > 0 ? "," : "", i, i == 3 ? "25 GiB/us" : "50 GB/s");
    fprintf(f, "]}\n");
    fclose(f);
    sax_case_t *cases = (sax_case_t *)&f; /* must be reset to NULL */
    int n = 7;
    sax_error_t err = {{0}};
    assert_int_equal(sax_dataset_load(path, &cases, &n, &err), SAX_ERR_INPUT);
    assert_null(cases);
    assert_int_equal(n, 0);
    if (strstr(err.text, "cases[3].config.cluster.tiers[0].bandwidth: expected a bandwidth") == NULL) {
        print_error("%s\n", err.text);
        fail();
    }
    remove(path);

    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"cases\": [{\"name\": \"x\", \"config\": {}, \"measured\": {\"iteration_time_s\": 0}}]}\n");
    fclose(f);
    assert_int_equal(sax_dataset_load(path, &cases, &n, &err), SAX_ERR_INPUT);
    assert_non_null(
        strstr(err.text, "cases[0].measured.iteration_time_s: expected a time in seconds > 0, found 0"));
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_dataset),
        cmocka_unit_test(test_dataset_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
