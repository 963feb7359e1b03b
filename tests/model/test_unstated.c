/* test_unstated.c - what the software settings a configuration leaves out would change
 * (sax_model_unstated), on Megatron-LM's Llama 3 70B on 64 H100 of the public runs: FP8, TP 4 with
 * sequence parallelism, PP 8, ZeRO-1, no recomputation, a dense SwiGLU model; its file states
 * dropout, tp_comm_overlap and cross_entropy_loss_fusion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sax_config.h"
#include "sax_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef SAX_TEST_DATA
#error "SAX_TEST_DATA must point at tests/data"
#endif

/* One other value, set by hand on a copy of the configuration's training section. */
typedef struct {
    sax_software_t setting;
    const char *value;
    void (*set)(sax_training_t *t);
} expected_t;

static void flash1(sax_training_t *t) { t->attention_backend = SAX_ATTN_FLASH1; }
static void flash2(sax_training_t *t) { t->attention_backend = SAX_ATTN_FLASH2; }
static void flash3(sax_training_t *t) { t->attention_backend = SAX_ATTN_FLASH3; }
static void no_flash(sax_training_t *t) { t->flash_attention = false; }
static void tensorwise(sax_training_t *t) { t->fp8_recipe = SAX_FP8_RECIPE_TENSORWISE; }
static void blockwise(sax_training_t *t) { t->fp8_recipe = SAX_FP8_RECIPE_BLOCKWISE; }
static void eager(sax_training_t *t) { t->elementwise_kernels = SAX_ELEMENTWISE_EAGER; }
static void dtensor(sax_training_t *t) { t->tp_implementation = SAX_TP_IMPL_DTENSOR; }
static void dropout(sax_training_t *t) { t->dropout = true; }
static void no_overlap(sax_training_t *t) { t->tp_comm_overlap = false; }
static void unfused_loss(sax_training_t *t) { t->cross_entropy_loss_fusion = false; }

/* Open to this run, by the rules of sax_model.h: three other attention kernels (flash attention is
 * on), unfused attention, the tensorwise and blockwise fp8 recipes (not MXFP8: H100), PyTorch eager
 * (dense SwiGLU),
 * DTensor's TP (TP 4 with sequence parallelism); not the FSDP flavour (ZeRO-1), torchtitan's per-op checkpointing (no recomputation), CP's exchange
 * (CP 1) or the token dispatcher (no experts). With nothing stated, the three stated settings too. */
static const expected_t open_always[] = {{SAX_SOFTWARE_ATTENTION_BACKEND, "\"flash1\"", flash1},
                                         {SAX_SOFTWARE_ATTENTION_BACKEND, "\"flash2\"", flash2},
                                         {SAX_SOFTWARE_ATTENTION_BACKEND, "\"flash3\"", flash3},
                                         {SAX_SOFTWARE_FLASH_ATTENTION, "false", no_flash},
                                         {SAX_SOFTWARE_FP8_RECIPE, "\"tensorwise\"", tensorwise},
                                         {SAX_SOFTWARE_FP8_RECIPE, "\"blockwise\"", blockwise},
                                         {SAX_SOFTWARE_ELEMENTWISE, "\"eager\"", eager},
                                         {SAX_SOFTWARE_TP_IMPL, "\"dtensor\"", dtensor}};
static const expected_t open_unstated[] = {{SAX_SOFTWARE_DROPOUT, "true", dropout},
                                           {SAX_SOFTWARE_TP_COMM_OVERLAP, "false", no_overlap},
                                           {SAX_SOFTWARE_CE_FUSION, "false", unfused_loss}};

static const sax_unstated_t *find(const sax_unstated_t *u, int n, sax_software_t s, const char *value)
{
    for (int i = 0; i < n; i++)
        if (u[i].setting == s && strcmp(u[i].value, value) == 0)
            return &u[i];
    return NULL;
}

/* Each expected value is listed once with the time sax_model_eval gives the configuration with it
 * set by hand, nothing else is listed, and the list runs farthest from the configuration's own time
 * first, those that do not fit last. */
static void check(const sax_problem_t *p, const sax_candidate_t *c, unsigned stated, int n_expected,
                  sax_scratch_t *scratch)
{
    sax_unstated_t u[SAX_UNSTATED_MAX];
    int n = -1;
    assert_int_equal(sax_model_unstated(p, c, stated, scratch, u, &n), SAX_OK);
    assert_int_equal(n, n_expected);
    sax_result_t own;
    assert_int_equal(sax_model_eval(p, c, scratch, &own), SAX_OK);
    assert_true(own.feasible);
    for (int k = 0; k < n_expected; k++) {
        const expected_t *e = k < (int)(sizeof open_always / sizeof open_always[0])
                                  ? &open_always[k]
                                  : &open_unstated[k - (int)(sizeof open_always / sizeof open_always[0])];
        const sax_unstated_t *got = find(u, n, e->setting, e->value);
        assert_non_null(got);
        sax_problem_t pv = *p;
        e->set(&pv.training);
        sax_result_t r;
        assert_int_equal(sax_model_eval(&pv, c, scratch, &r), SAX_OK);
        assert_true(got->feasible == r.feasible);
        if (r.feasible) {
            assert_true(got->iteration_time_s == r.iteration_time_s);
            assert_true(fabs(got->change - (r.iteration_time_s / own.iteration_time_s - 1.0)) < 1e-12);
        } else {
            assert_int_equal(got->reason, r.reason);
        }
    }
    for (int i = 1; i < n; i++) {
        assert_true(u[i - 1].feasible || !u[i].feasible);
        if (u[i].feasible)
            assert_true(fabs(u[i - 1].change) >= fabs(u[i].change));
    }
}

/* The public run `name`'s configuration; the loaded set in *cases (sax_dataset_free it). */
static const sax_config_t *public_run(const char *name, sax_case_t **cases, int *n)
{
    sax_error_t err = {{0}};
    assert_int_equal(sax_dataset_load(SAX_TEST_DATA "/validation/public-runs.json", cases, n, &err), SAX_OK);
    int i = 0;
    while (i < *n && strcmp((*cases)[i].name, name) != 0)
        i++;
    assert_true(i < *n);
    return &(*cases)[i].config;
}

static void test_unstated_settings(void **state)
{
    (void)state;
    sax_case_t *cases = NULL;
    int n = 0;
    const sax_config_t *cfg = public_run("mlm-llama3-70b-64", &cases, &n);
    const unsigned three =
        1u << SAX_SOFTWARE_DROPOUT | 1u << SAX_SOFTWARE_TP_COMM_OVERLAP | 1u << SAX_SOFTWARE_CE_FUSION;
    assert_int_equal(cfg->stated_software, three);
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    assert_non_null(scratch);
    sax_scratch_init(scratch);
    check(&cfg->problem, &cfg->candidate, cfg->stated_software, 8, scratch);
    check(&cfg->problem, &cfg->candidate, 0u, 11, scratch);
    /* a stated attention kernel is not second-guessed */
    sax_unstated_t u[SAX_UNSTATED_MAX];
    int m = 0;
    assert_int_equal(sax_model_unstated(&cfg->problem, &cfg->candidate,
                                        three | 1u << SAX_SOFTWARE_ATTENTION_BACKEND, scratch, u, &m),
                     SAX_OK);
    assert_int_equal(m, 5);
    assert_null(find(u, m, SAX_SOFTWARE_ATTENTION_BACKEND, "\"flash2\""));
    free(scratch);
    sax_dataset_free(cases, n);
}

/* Korthikanti et al.'s 22B on 8 A100 with full recomputation (public runs): TP 8 without sequence
 * parallelism and with dropout, so the two settings of Megatron-LM's age are open: its backward
 * all-reduces waiting (Megatron-LM before September 2021) and the dropouts apart from the residual adds
 * (--no-bias-dropout-fusion). Each is listed with the time sax_model_eval gives with it set by hand, and
 * each is slower than the file's defaults. Llama 3 70B above (sequence parallelism, no dropout) lists
 * neither. */
static void test_settings_of_megatron_lm_age(void **state)
{
    (void)state;
    sax_case_t *cases = NULL;
    int n = 0;
    const sax_config_t *cfg = public_run("korthikanti-22b-8-full", &cases, &n);
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    assert_non_null(scratch);
    sax_scratch_init(scratch);
    sax_unstated_t u[SAX_UNSTATED_MAX];
    int m = 0;
    assert_int_equal(sax_model_unstated(&cfg->problem, &cfg->candidate, cfg->stated_software, scratch, u, &m),
                     SAX_OK);
    sax_result_t own, r;
    assert_int_equal(sax_model_eval(&cfg->problem, &cfg->candidate, scratch, &own), SAX_OK);
    for (int k = 0; k < 2; k++) {
        const sax_unstated_t *got =
            find(u, m, k == 0 ? SAX_SOFTWARE_ASYNC_TP_ALLREDUCE : SAX_SOFTWARE_BIAS_DROPOUT_FUSION, "false");
        assert_non_null(got);
        sax_problem_t pv = cfg->problem;
        if (k == 0)
            pv.training.async_tensor_model_parallel_allreduce = false;
        else
            pv.training.bias_dropout_fusion = false;
        assert_int_equal(sax_model_eval(&pv, &cfg->candidate, scratch, &r), SAX_OK);
        assert_true(got->feasible && r.feasible && got->iteration_time_s == r.iteration_time_s);
        assert_true(got->change > 0.0 && r.iteration_time_s > own.iteration_time_s);
    }
    free(scratch);
    sax_dataset_free(cases, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_unstated_settings),
                                       cmocka_unit_test(test_settings_of_megatron_lm_age)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
