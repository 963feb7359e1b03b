/* test_calibrate_cmd.c - the whole calibration (sax_calibrate_run) on the fixtures of
 * tests/data/calibration: the fitted values land in CALIBRATED.json, which loads as a configuration,
 * and ill-posed or inconsistent measurement files fail with a message naming what is missing.
 * The expected numbers are those the fixtures were written from (measurements.json "note"). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sax_calibration.h"
#include "sax_config.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DATA SAX_TEST_DATA "/calibration/"

static char tmpdir[256];

/* Files this test creates, removed with the directory at the end. */
static char created[64][512];
static int n_created;

static void remember(const char *path)
{
    for (int i = 0; i < n_created; i++)
        if (strcmp(created[i], path) == 0)
            return;
    if (n_created < 64)
        snprintf(created[n_created++], sizeof created[0], "%.511s", path);
}

static void write_file(const char *path, const char *text)
{
    remember(path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Runs the calibration; the report lands in `report` (may be NULL). */
/* true: the next calibrate fits the run parameters by least squares alone (--no-prior), as the tests
 * that find known parameters again from noise-free runs need; calibrate resets it */
static bool least_squares_alone;

static sax_status_t calibrate(const char *measurements, const char *config, bool partial, bool json,
                              const char *holdout, char *report, size_t n, sax_error_t *err)
{
    char out_path[512];
    snprintf(out_path, sizeof out_path, "%s/calibrated.json", tmpdir);
    remove(out_path);
    remember(out_path);
    sax_calibrate_opts_t o;
    memset(&o, 0, sizeof o);
    o.measurements_path = measurements;
    o.config_path = config;
    o.output_path = out_path;
    o.partial = partial;
    o.json = json;
    o.holdout_path = holdout;
    o.no_prior = least_squares_alone;
    least_squares_alone = false;
    FILE *f = tmpfile();
    assert_non_null(f);
    sax_status_t s = sax_calibrate_run(&o, f, err);
    if (report != NULL) {
        rewind(f);
        size_t got = fread(report, 1, n - 1, f);
        report[got] = '\0';
    }
    fclose(f);
    return s;
}

/* A measurements file in tmpdir whose collectives refer to the fixtures by absolute path. */
static const char *measurements(const char *name, const char *body)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    write_file(path, body);
    return path;
}

#define AR_POD "\"" DATA "all_reduce_perf_pod16.txt\""
#define AG_POD "\"" DATA "all_gather_perf_pod16.txt\""
#define AR_NVL "\"" DATA "all_reduce_perf_nvlink8_v2.txt\""
#define AG_NVL "\"" DATA "all_gather_perf_nvlink8_v2.txt\""

static void test_full_calibration(void **state)
{
    (void)state;
    static char report[65536];
    sax_error_t err = {{0}};
    assert_int_equal(calibrate(DATA "measurements.json", DATA "cluster.json", false, false, NULL, report,
                               sizeof report, &err),
                     SAX_OK);
    assert_non_null(strstr(report, "held out"));
    assert_non_null(strstr(report, "scale_up"));

    char out_path[512];
    snprintf(out_path, sizeof out_path, "%s/calibrated.json", tmpdir);
    sax_config_t cfg;
    assert_int_equal(sax_config_load(out_path, &cfg, &err), SAX_OK);
    const sax_cluster_t *c = &cfg.problem.cluster;
    /* fixtures: textbook rings (alpha per step, B = busbw) of scale_up alpha 0.9 us, B 230 GB/s and
     * tier "cluster" alpha 1.5 us, B 46 GB/s (2% noise). Written are the values under which sax's
     * NCCL model reproduces them: inside one domain a GPU's NVLink bandwidth is the ring's busbw
     * (230 GB/s) and each of the 14 steps pays one NVLink latency (0.9 us); the 16 GPUs of the tier
     * file fill two whole 8-GPU nodes, whose channels leave through all 8 NICs, so a NIC carries an
     * eighth of the busbw: 46 / 8 = 5.75 GB/s. The model pipelines chunks where the textbook adds
     * latency to transfer, so mid sizes differ and the fit settles within 10% of these. */
    assert_true(fabs(c->scale_up.bw_Bps / 230e9 - 1.0) < 0.10);
    assert_true(fabs(c->scale_up.latency_s / 0.9e-6 - 1.0) < 0.10);
    assert_true(c->scale_up.efficiency == 1.0);
    assert_true(fabs(c->tiers[0].bw_Bps / (46e9 / 8) - 1.0) < 0.10);
    assert_true(c->tiers[0].efficiency == 1.0);
    /* GEMM rows were computed exactly (9 significant digits) from 0.78 and 160 FLOP/B */
    assert_true(fabs(c->gpu.gemm_eff_max - 0.78) < 1e-6);
    assert_true(fabs(c->gpu.gemm_eff_half_ai - 160.0) < 1e-3);
    /* the run parameters stay inside their ranges */
    assert_true(cfg.problem.training.dp_overlap_efficiency >= 0.0 &&
                cfg.problem.training.dp_overlap_efficiency <= 1.0);
    assert_true(cfg.problem.training.tp_overlap >= 0.0 && cfg.problem.training.tp_overlap <= 1.0);
    sax_config_fini(&cfg);
}

static void test_json_report(void **state)
{
    (void)state;
    static char report[65536];
    sax_error_t err = {{0}};
    assert_int_equal(calibrate(DATA "measurements.json", DATA "cluster.json", false, true,
                               DATA "published-h100-cases.json", report, sizeof report, &err),
                     SAX_OK);
    cJSON *root = cJSON_Parse(report);
    assert_non_null(root);
    const cJSON *net = cJSON_GetObjectItemCaseSensitive(root, "network");
    assert_int_equal(cJSON_GetArraySize(net), 2);
    const cJSON *su = cJSON_GetArrayItem(net, 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(su, "tier")->valuestring, "scale_up");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(su, "measurements")), 2);
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(runs, "cases")), 5);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(runs, "folds")->valueint, 5);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(runs, "heldout_mean_abs_rel_error")));
    const cJSON *ho = cJSON_GetObjectItemCaseSensitive(root, "holdout");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ho, "cases")), 9);
    cJSON_Delete(root);
}

/* nccl-tests' table of `op` over `gpus` GPUs, every size from 8 B to 1 GiB by 8, as sax's model
 * times it on `cfg` (the calibration's own model, so a fit must recover `cfg` exactly). */
static void write_model_table(const char *path, const sax_config_t *cfg, sax_coll_op_t op, int gpus)
{
    remember(path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "#       size         count      type   redop    root     time   algbw   busbw #wrong     time "
            "  algbw   busbw #wrong\n");
    for (double size = 8; size <= 1073741824.0; size *= 8) {
        sax_coll_prediction_t p;
        sax_error_t err = {{0}};
        assert_int_equal(sax_collective_predict(&cfg->problem.cluster, &cfg->candidate, op,
                                                SAX_ALGORITHM_RING, gpus, 1, false, size, false, &p, &err),
                         SAX_OK);
        double us = p.time_s * 1e6, algbw = size / p.time_s / 1e9;
        double busbw = algbw * sax_coll_busbw_factor(op, gpus);
        fprintf(f, "%12.0f %13.0f %9s %7s %7s %8.3f %7.2f %7.2f %6s %8.3f %7.2f %7.2f %6s\n", size, size / 4,
                "float", "sum", "-1", us, algbw, busbw, "0", us, algbw, busbw, "0");
    }
    fclose(f);
}

static void test_model_fit_recovers_the_model(void **state)
{
    (void)state;
    /* Tables written by sax's own collective model at known values (NVLink 0.7 us and 300 GB/s per
     * GPU; the tier's NIC 4 us and 40 GB/s) must give those values back: the fit through the model
     * is exact where the model holds. */
    sax_error_t err = {{0}};
    sax_config_t cfg;
    assert_int_equal(sax_config_load(DATA "cluster.json", &cfg, &err), SAX_OK);
    sax_cluster_t *c = &cfg.problem.cluster;
    c->scale_up.latency_s = 0.7e-6;
    c->scale_up.bw_Bps = 300e9;
    c->scale_up.efficiency = 1.0;
    c->tiers[0].latency_s = 4e-6;
    c->tiers[0].bw_Bps = 40e9;
    c->tiers[0].efficiency = 1.0;
    char files[4][512];
    const sax_coll_op_t ops[4] = {SAX_OP_ALL_REDUCE, SAX_OP_ALL_GATHER, SAX_OP_ALL_REDUCE, SAX_OP_ALL_GATHER};
    const int gpus[4] = {8, 8, 16, 16};
    for (int i = 0; i < 4; i++) {
        snprintf(files[i], sizeof files[i], "%s/model-%d.txt", tmpdir, i);
        write_model_table(files[i], &cfg, ops[i], gpus[i]);
    }
    sax_config_fini(&cfg);
    char body[4096];
    snprintf(
        body, sizeof body,
        "{\"collectives\": [{\"file\": \"%s\", \"op\": \"all_reduce\", \"tier\": \"scale_up\", \"gpus\": 8}, "
        "{\"file\": \"%s\", \"op\": \"all_gather\", \"tier\": \"scale_up\", \"gpus\": 8}, "
        "{\"file\": \"%s\", \"op\": \"all_reduce\", \"tier\": \"cluster\", \"gpus\": 16}, "
        "{\"file\": \"%s\", \"op\": \"all_gather\", \"tier\": \"cluster\", \"gpus\": 16}]}",
        files[0], files[1], files[2], files[3]);
    static char report[65536];
    assert_int_equal(calibrate(measurements("model.json", body), DATA "cluster.json", false, false, NULL,
                               report, sizeof report, &err),
                     SAX_OK);
    assert_non_null(strstr(report, "through sax's collective model"));
    char out_path[512];
    snprintf(out_path, sizeof out_path, "%s/calibrated.json", tmpdir);
    assert_int_equal(sax_config_load(out_path, &cfg, &err), SAX_OK);
    /* the table prints 3 decimals of microseconds: recovered within 1% */
    assert_true(fabs(c->scale_up.latency_s / 0.7e-6 - 1.0) < 0.01);
    assert_true(fabs(c->scale_up.bw_Bps / 300e9 - 1.0) < 0.01);
    assert_true(fabs(c->tiers[0].latency_s / 4e-6 - 1.0) < 0.01);
    assert_true(fabs(c->tiers[0].bw_Bps / 40e9 - 1.0) < 0.01);
    sax_config_fini(&cfg);
}

static void test_site_link(void **state)
{
    (void)state;
    /* sendrecv between the two sites, written for alpha = 1 ms and 12.5 GB/s per flow (1% noise); four
     * such flows share the link, so its aggregate bandwidth is 50 GB/s. The other levels keep their
     * configured values (--partial). */
    sax_error_t err = {{0}};
    const char *m =
        measurements("link.json", "{\"collectives\": [{\"file\": \"" DATA "sendrecv_perf_link.txt\", "
                                  "\"op\": \"sendrecv\", \"tier\": \"site_links[0]\", \"gpus\": 2, "
                                  "\"flows\": 4}]}");
    static char report[65536];
    assert_int_equal(calibrate(m, DATA "two-sites.json", true, false, NULL, report, sizeof report, &err),
                     SAX_OK);
    /* across 2 ms of round trip NCCL's 4 point-to-point channels of 8 x 128 KiB slots carry at most
     * 4 MiB / 2 ms = 2.1 GB/s: the model cannot reach 12.5 GB/s per flow, says so and writes the
     * alpha-beta values */
    assert_non_null(strstr(report, "not fitted"));
    char out_path[512];
    snprintf(out_path, sizeof out_path, "%s/calibrated.json", tmpdir);
    sax_config_t cfg;
    assert_int_equal(sax_config_load(out_path, &cfg, &err), SAX_OK);
    assert_int_equal(cfg.problem.cluster.n_links, 1);
    assert_true(fabs(cfg.problem.cluster.links[0].latency_s / 1e-3 - 1.0) < 0.03);
    assert_true(fabs(cfg.problem.cluster.links[0].bw_Bps / 50e9 - 1.0) < 0.03);
    assert_true(fabs(cfg.problem.cluster.links[0].distance_m - 200e3) < 1e-6); /* kept, informational */
    assert_true(fabs(cfg.problem.cluster.scale_up.bw_Bps - 450e9) < 1.0);
    sax_config_fini(&cfg);

    /* without --partial the unmeasured levels are named */
    assert_int_equal(calibrate(m, DATA "two-sites.json", false, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "\"scale_up\", \"cluster\""));
}

/* Sets the run parameters to known values on every GPU object of a problem (independently of the
 * calibration's own code). */
static void set_truth(sax_problem_t *p)
{
    p->training.dp_overlap_efficiency = 0.55;
    p->training.tp_overlap = 0.35;
    p->training.step_overhead_s = 0.03;
    sax_gpu_t *g[SAX_MAX_SITES + 1];
    int n = 0;
    g[n++] = &p->cluster.gpu;
    for (int s = 0; s < p->cluster.n_sites; s++)
        g[n++] = &p->cluster.sites[s].gpu;
    for (int i = 0; i < n; i++) {
        bool a100 = strcmp(g[i]->name, "A100") == 0;
        g[i]->gemm_eff_max = a100 ? 0.66 : 0.71;
        g[i]->mem_eff = a100 ? 0.6 : 0.8;
        g[i]->gemm_eff_max_fp8 = a100 ? 0.0 : 0.52;
        g[i]->attn_eff[SAX_ATTN_FUSED] = a100 ? 0.0 : 0.42; /* the H100 runs' flash attention */
        g[i]->comm_interference = a100 ? 0.1 : 0.15;
    }
}

static cJSON *load_json(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[1 << 20]; /* public-runs.json: 0.45 MB */
    size_t n = fread(text, 1, sizeof text - 1, f);
    assert_true(n < sizeof text - 1); /* the whole file, not a truncated prefix */
    text[n] = '\0';
    fclose(f);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    return root;
}

static void test_runs_recover_known_parameters(void **state)
{
    (void)state;
    /* The published runs of both GPU types, with "measured" times replaced by the model's own
     * prediction under known parameters: the fit must find them again (to the tolerance of a
     * finite-difference Levenberg-Marquardt), where the runs determine them. The H100 runs a second
     * time in fp8, which adds the H100's fp8 GEMM ceiling; their flash attention (Transformer Engine's
     * fused kernel) adds its speed, and the communication they hide its interference. A third of the
     * A100 runs state training.dp_overlap_efficiency 0, which the fit keeps for them. */
    const char *files[3] = {DATA "published-a100-cases.json", DATA "published-h100-cases.json",
                            DATA "published-h100-cases.json"};
    cJSON *all = cJSON_CreateObject();
    cJSON *runs = cJSON_AddArrayToObject(all, "runs");
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    assert_non_null(scratch);
    sax_scratch_init(scratch);
    int stating = 0;
    for (int f = 0; f < 3; f++) {
        cJSON *root = load_json(files[f]);
        cJSON *e;
        int k = 0;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "cases"))
        {
            cJSON *config = cJSON_GetObjectItemCaseSensitive(e, "config");
            /* every third A100 run states that its DP reduction waits for the backward (as DeepSpeed's
             * pipeline engine runs it): its time is the model's with that 0, which calibrate keeps */
            bool states = f == 0 && k++ % 3 == 0;
            if (states)
                cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(config, "training"),
                                        "dp_overlap_efficiency", 0.0);
            if (f == 2) { /* the same runs in fp8 on the H100's fp8 peak */
                cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(config, "training"),
                                                       "precision", cJSON_CreateString("fp8"));
                cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(
                                            cJSON_GetObjectItemCaseSensitive(config, "cluster"), "gpu"),
                                        "peak_flops_fp8", "1979 TFLOP/s");
            }
            sax_config_t cfg;
            sax_error_t err = {{0}};
            assert_int_equal(
                sax_config_from_json(cJSON_GetObjectItemCaseSensitive(e, "config"), files[f], "", &cfg, &err),
                SAX_OK);
            set_truth(&cfg.problem);
            if (states)
                cfg.problem.training.dp_overlap_efficiency = 0.0;
            sax_result_t r;
            assert_int_equal(sax_model_eval(&cfg.problem, &cfg.candidate, scratch, &r), SAX_OK);
            sax_config_fini(&cfg);
            if (!r.feasible)
                continue;
            stating += states;
            cJSON *run = cJSON_Duplicate(e, 1);
            cJSON *measured = cJSON_CreateObject();
            cJSON_AddNumberToObject(measured, "iteration_time_s", r.iteration_time_s);
            cJSON_ReplaceItemInObjectCaseSensitive(run, "measured", measured);
            cJSON_AddItemToArray(runs, run);
        }
        cJSON_Delete(root);
    }
    free(scratch);
    assert_true(cJSON_GetArraySize(runs) >= 20);
    assert_true(stating >= 3);
    char *body = cJSON_Print(all);
    cJSON_Delete(all);
    const char *m = measurements("synthetic-runs.json", body);
    free(body);

    static char report[1 << 17];
    sax_error_t err = {{0}};
    least_squares_alone = true;
    assert_int_equal(
        calibrate(m, DATA "published-h100-config.json", false, true, NULL, report, sizeof report, &err),
        SAX_OK);
    cJSON *root = cJSON_Parse(report);
    assert_non_null(root);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(root, "runs");
    const struct {
        const char *name;
        double truth;
    } expect[] = {{"training.dp_overlap_efficiency", 0.55},
                  {"training.tp_overlap", 0.35},
                  {"training.step_overhead", 0.03},
                  {"gpu[A100].gemm_efficiency_max", 0.66},
                  {"gpu[A100].memory_efficiency", 0.6},
                  {"gpu[H100].gemm_efficiency_max", 0.71},
                  {"gpu[H100].memory_efficiency", 0.8},
                  {"gpu[H100].gemm_efficiency_max_fp8", 0.52},
                  {"gpu[H100].attention_efficiency_fused", 0.42},
                  {"gpu[A100].comm_interference", 0.1},
                  {"gpu[H100].comm_interference", 0.15}};
    int checked = 0;
    bool fp8_checked = false, attn_checked = false, interference_checked = false;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "parameters"))
    {
        const char *name = cJSON_GetObjectItemCaseSensitive(p, "name")->valuestring;
        double value = cJSON_GetObjectItemCaseSensitive(p, "value")->valuedouble;
        bool determined = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "determined"));
        for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++)
            if (strcmp(name, expect[i].name) == 0 && determined) {
                if (fabs(value - expect[i].truth) > 1e-3)
                    fprintf(stderr, "%s: fitted %.6f, truth %.6f\n", name, value, expect[i].truth);
                assert_true(fabs(value - expect[i].truth) < 1e-3);
                checked++;
                fp8_checked = fp8_checked || strstr(name, "fp8") != NULL;
                attn_checked = attn_checked || strstr(name, "attention") != NULL;
                interference_checked = interference_checked || strstr(name, "interference") != NULL;
            }
    }
    assert_true(checked >= 7 && fp8_checked && attn_checked && interference_checked);
    /* noise-free: the fit reproduces every run, in sample and nearly held out */
    assert_true(cJSON_GetObjectItemCaseSensitive(r, "fitted_mean_abs_rel_error")->valuedouble < 1e-4);
    /* held out, each fold's fit stops at Levenberg-Marquardt's tolerance short of the truth: 0.09 % with
     * the step overhead at its start value, 0.15 % with the 30 ms to find */
    assert_true(cJSON_GetObjectItemCaseSensitive(r, "heldout_mean_abs_rel_error")->valuedouble < 2e-3);
    /* the loss the runs were fitted on, and its scale */
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(r, "loss")->valuestring, "soft_l1");
    assert_true(cJSON_GetObjectItemCaseSensitive(r, "loss_scale")->valuedouble == 0.05);
    cJSON_Delete(root);
}

/* The MoE communication parameters (training.ep_overlap_efficiency, training.hybridep_efficiency) are
 * fitted when runs depend on them, and found again. Megatron-Bridge's Qwen3 30B-A3B on 16 H100
 * (public-runs.json's first card run), with the NCCL all-to-all dispatcher, DeepEP and HybridEP, each
 * with and without the EP overlap, at two batch sizes: 12 runs whose "measured" times are the model's
 * under an overlap efficiency of 0.3 and a HybridEP efficiency of 0.6, every other parameter at its
 * default. */
static void test_moe_runs_recover_their_parameters(void **state)
{
    (void)state;
    cJSON *set = load_json(SAX_TEST_DATA "/validation/public-runs.json");
    const cJSON *card = NULL, *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(set, "cases"))
    {
        if (strcmp(cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring,
                   "bridge-card-qwen3-30b-a3b-hybridep-16") == 0)
            card = cJSON_GetObjectItemCaseSensitive(e, "config");
    }
    assert_non_null(card);
    char *config_text = cJSON_Print(card);
    char config_path[512];
    snprintf(config_path, sizeof config_path, "%s/card-config.json", tmpdir);
    write_file(config_path, config_text);
    remember(config_path);
    free(config_text);

    cJSON *all = cJSON_CreateObject();
    cJSON *runs = cJSON_AddArrayToObject(all, "runs");
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    assert_non_null(scratch);
    sax_scratch_init(scratch);
    const char *dispatcher[3] = {"alltoall", "flex", "flex"}, *backend[3] = {"deepep", "deepep", "hybridep"};
    for (int k = 0; k < 12; k++) {
        cJSON *config = cJSON_Duplicate(card, 1);
        cJSON *training = cJSON_GetObjectItemCaseSensitive(config, "training");
        cJSON *set_to[4] = {cJSON_CreateString(dispatcher[k % 3]), cJSON_CreateString(backend[k % 3]),
                            cJSON_CreateBool((k / 3) % 2 == 1), cJSON_CreateNumber(k < 6 ? 1024 : 512)};
        const char *key[4] = {"moe_token_dispatcher", "moe_flex_dispatcher_backend",
                              "overlap_moe_expert_parallel_comm", "global_batch"};
        for (int i = 0; i < 4; i++) {
            cJSON_DeleteItemFromObjectCaseSensitive(training, key[i]);
            cJSON_AddItemToObject(training, key[i], set_to[i]);
        }
        sax_config_t cfg;
        sax_error_t err = {{0}};
        assert_int_equal(sax_config_from_json(config, "synthetic", "", &cfg, &err), SAX_OK);
        cfg.problem.training.ep_overlap_efficiency = 0.3;
        cfg.problem.training.hybridep_efficiency = 0.6;
        sax_result_t r;
        assert_int_equal(sax_model_eval(&cfg.problem, &cfg.candidate, scratch, &r), SAX_OK);
        sax_config_fini(&cfg);
        assert_true(r.feasible);
        cJSON *run = cJSON_CreateObject();
        char name[32];
        snprintf(name, sizeof name, "card-%d", k);
        cJSON_AddStringToObject(run, "name", name);
        cJSON_AddItemToObject(run, "config", config);
        cJSON *measured = cJSON_AddObjectToObject(run, "measured");
        cJSON_AddNumberToObject(measured, "iteration_time_s", r.iteration_time_s);
        cJSON_AddItemToArray(runs, run);
    }
    free(scratch);
    cJSON_Delete(set);
    char *body = cJSON_Print(all);
    cJSON_Delete(all);
    const char *m = measurements("moe-runs.json", body);
    free(body);

    /* by least squares alone the fit finds the truth; with the default priors (width 0.2 about the
     * start values 0.4 and 0.43) each maximum a posteriori estimate lies between its start and the truth
     * (the shrinkage of a problem near linear in parameters the runs tell apart, as these two are:
     * the runs with and without the overlap, with and without HybridEP) */
    static char report[1 << 17];
    for (int with_prior = 0; with_prior < 2; with_prior++) {
        sax_error_t err = {{0}};
        least_squares_alone = !with_prior;
        assert_int_equal(calibrate(m, config_path, false, true, NULL, report, sizeof report, &err), SAX_OK);
        cJSON *root = cJSON_Parse(report);
        assert_non_null(root);
        int found = 0;
        const cJSON *p;
        cJSON_ArrayForEach(
            p, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "runs"), "parameters"))
        {
            const char *name = cJSON_GetObjectItemCaseSensitive(p, "name")->valuestring;
            double value = cJSON_GetObjectItemCaseSensitive(p, "value")->valuedouble;
            double start = cJSON_GetObjectItemCaseSensitive(p, "start")->valuedouble;
            double sd = cJSON_GetObjectItemCaseSensitive(p, "prior_sd")->valuedouble;
            double truth = strcmp(name, "training.ep_overlap_efficiency") == 0 ? 0.3
                           : strcmp(name, "training.hybridep_efficiency") == 0 ? 0.6
                                                                               : -1.0;
            if (truth < 0.0)
                continue;
            assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "determined")));
            fprintf(stderr, "%s (prior %s): start %.4f, fitted %.6f, truth %.4f\n", name,
                    with_prior ? "on" : "off", start, value, truth);
            if (with_prior) {
                assert_true(sd == 0.2);
                assert_true((value - truth) * (start - value) > 0.0); /* strictly between */
                assert_true(fabs(value - truth) > 1e-3);
            } else {
                assert_true(sd == 0.0);
                assert_true(fabs(value - truth) < 1e-3);
            }
            found++;
        }
        assert_int_equal(found, 2);
        cJSON_Delete(root);
    }
}

static void test_two_algorithms(void **state)
{
    (void)state;
    /* ring (all_reduce + all_gather) and tree all_reduce across tier "cluster", all written for
     * alpha = 1.5 us, B = 46 GB/s: the joint fit recovers them; alone, ring is well-posed and tree
     * (one operation at one GPU count) is reported as such, without failing the command. */
    static char report[1 << 16];
    sax_error_t err = {{0}};
    const char *m =
        measurements("two-algorithms.json",
                     "{\"collectives\": [{\"file\": " AR_POD
                     ", \"op\": \"all_reduce\", \"tier\": \"cluster\", \"gpus\": 16}, "
                     "{\"file\": " AG_POD ", \"op\": \"all_gather\", \"tier\": \"cluster\", \"gpus\": 16}, "
                     "{\"file\": \"" DATA
                     "all_reduce_perf_pod16_tree.txt\", \"op\": \"all_reduce\", \"tier\": \"cluster\", "
                     "\"gpus\": 16, \"algorithm\": \"tree\"}]}");
    assert_int_equal(calibrate(m, DATA "cluster.json", true, true, NULL, report, sizeof report, &err),
                     SAX_OK);
    cJSON *root = cJSON_Parse(report);
    assert_non_null(root);
    const cJSON *tier = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "network"), 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(tier, "tier")->valuestring, "cluster");
    assert_true(fabs(cJSON_GetObjectItemCaseSensitive(tier, "bandwidth_Bps")->valuedouble / 46e9 - 1.0) <
                0.03);
    assert_true(fabs(cJSON_GetObjectItemCaseSensitive(tier, "latency_s")->valuedouble / 1.5e-6 - 1.0) < 0.05);
    const cJSON *pa = cJSON_GetObjectItemCaseSensitive(tier, "per_algorithm");
    assert_int_equal(cJSON_GetArraySize(pa), 2);
    const cJSON *ring = cJSON_GetArrayItem(pa, 0), *tree = cJSON_GetArrayItem(pa, 1);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(ring, "algorithm")->valuestring, "ring");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ring, "fitted")));
    assert_true(fabs(cJSON_GetObjectItemCaseSensitive(ring, "bandwidth_Bps")->valuedouble / 46e9 - 1.0) <
                0.03);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(tree, "algorithm")->valuestring, "tree");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(tree, "fitted")));
    assert_non_null(strstr(cJSON_GetObjectItemCaseSensitive(tree, "why")->valuestring, "another GPU count"));
    cJSON_Delete(root);
}

static void test_gemms_on_a_preset_gpu(void **state)
{
    (void)state;
    /* "gpu": "H100" (a preset name) becomes {"preset": "H100", ...fitted keys} */
    cJSON *cfg_json = load_json(DATA "cluster.json");
    cJSON *cluster = cJSON_GetObjectItemCaseSensitive(cfg_json, "cluster");
    cJSON_ReplaceItemInObjectCaseSensitive(cluster, "gpu", cJSON_CreateString("H100"));
    char *text = cJSON_Print(cfg_json);
    cJSON_Delete(cfg_json);
    char cfg_path[512];
    snprintf(cfg_path, sizeof cfg_path, "%s/preset-gpu.json", tmpdir);
    write_file(cfg_path, text);
    free(text);
    const char *m = measurements("gemms.json", "{\"gemms\": ["
                                               "{\"gpu\": \"H100\", \"m\": 1024, \"n\": 1024, \"k\": 1024, "
                                               "\"time\": \"4.08871511 us\"},"
                                               "{\"gpu\": \"H100\", \"m\": 8192, \"n\": 8192, \"k\": 8192, "
                                               "\"tflops\": 728.72148}]}");
    sax_error_t err = {{0}};
    assert_int_equal(calibrate(m, cfg_path, false, false, NULL, NULL, 0, &err), SAX_OK);
    char out_path[512];
    snprintf(out_path, sizeof out_path, "%s/calibrated.json", tmpdir);
    cJSON *out = load_json(out_path);
    const cJSON *gpu =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(out, "cluster"), "gpu");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(gpu, "preset")->valuestring, "H100");
    /* two rows, two parameters: an exact fit of 0.78 and 160 FLOP/B (rows rounded to 9 and 5 digits) */
    assert_true(fabs(cJSON_GetObjectItemCaseSensitive(gpu, "gemm_efficiency_max")->valuedouble - 0.78) <
                1e-4);
    assert_true(fabs(cJSON_GetObjectItemCaseSensitive(gpu, "gemm_efficiency_half_intensity")->valuedouble -
                     160.0) < 0.1);
    cJSON_Delete(out);
    sax_config_t cfg;
    assert_int_equal(sax_config_load(out_path, &cfg, &err), SAX_OK);
    assert_true(fabs(cfg.problem.cluster.gpu.peak_flops_bf16 - 989e12) < 1e6); /* the preset's */
    sax_config_fini(&cfg);
}

static void test_runs_from_dataset(void **state)
{
    (void)state;
    /* "runs" may name a `sax validate` dataset, relative to the measurements file */
    static char report[1 << 16];
    sax_error_t err = {{0}};
    assert_int_equal(calibrate(DATA "published-h100-measurements.json", DATA "published-h100-config.json",
                               false, true, NULL, report, sizeof report, &err),
                     SAX_OK);
    cJSON *root = cJSON_Parse(report);
    assert_non_null(root);
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(runs, "cases")), 9);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(
                            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(runs, "cases"), 0), "name")
                            ->valuestring,
                        "mcore-h100-1.7b");
    cJSON_Delete(root);

    const char *m = measurements("missing-dataset.json", "{\"runs\": \"no-such-dataset.json\"}");
    assert_int_equal(calibrate(m, DATA "cluster.json", false, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "no-such-dataset.json"));
}

/* Every value of the collectives and gemms of the fixture replaced by wrong values, or removed:
 * the command succeeds (a value that is still valid) or fails with SAX_ERR_INPUT and a message
 * naming the file; it never crashes or reports another kind of failure. */
static void test_mutated_measurements(void **state)
{
    (void)state;
    cJSON *root = load_json(DATA "measurements.json");
    cJSON_DeleteItemFromObjectCaseSensitive(root, "runs");
    /* absolute file names, so the mutated copies in tmpdir find the tables */
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "collectives"))
    {
        char abs[512];
        snprintf(abs, sizeof abs, "%s%s", DATA, cJSON_GetObjectItemCaseSensitive(e, "file")->valuestring);
        cJSON_ReplaceItemInObjectCaseSensitive(e, "file", cJSON_CreateString(abs));
    }
    const char *sections[2] = {"collectives", "gemms"};
    int variants = 0, ok = 0;
    for (int sec = 0; sec < 2; sec++) {
        int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, sections[sec]));
        for (int i = 0; i < n; i++) {
            cJSON *entry = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, sections[sec]), i);
            int nk = cJSON_GetArraySize(entry);
            for (int k = 0; k < nk; k++) {
                for (int v = 0; v < 7; v++) {
                    cJSON *copy = cJSON_Duplicate(root, 1);
                    cJSON *ce = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(copy, sections[sec]), i);
                    cJSON *item = cJSON_GetArrayItem(ce, k);
                    char key[64];
                    snprintf(key, sizeof key, "%s", item->string);
                    cJSON *bad = v == 0   ? cJSON_CreateNull()
                                 : v == 1 ? cJSON_CreateNumber(-1)
                                 : v == 2 ? cJSON_CreateNumber(0)
                                 : v == 3 ? cJSON_CreateString("12 parsecs")
                                 : v == 4 ? cJSON_CreateObject()
                                 : v == 5 ? cJSON_CreateNumber(1e300)
                                          : NULL;
                    if (bad != NULL)
                        cJSON_ReplaceItemInObjectCaseSensitive(ce, key, bad);
                    else
                        cJSON_DeleteItemFromObjectCaseSensitive(ce, key);
                    char *text = cJSON_Print(copy);
                    cJSON_Delete(copy);
                    const char *m = measurements("mutated.json", text);
                    free(text);
                    sax_error_t err = {{0}};
                    sax_status_t st = calibrate(m, DATA "cluster.json", true, false, NULL, NULL, 0, &err);
                    variants++;
                    if (st == SAX_OK) {
                        ok++;
                    } else {
                        if (st != SAX_ERR_INPUT || strstr(err.text, "mutated.json") == NULL)
                            fprintf(stderr, "%s[%d].%s variant %d: %s\n", sections[sec], i, key, v, err.text);
                        assert_int_equal(st, SAX_ERR_INPUT);
                        assert_non_null(strstr(err.text, "mutated.json"));
                    }
                }
            }
        }
    }
    cJSON_Delete(root);
    assert_true(variants > 200);
    assert_true(ok < variants / 2);
}

static void test_unknown_tier(void **state)
{
    (void)state;
    sax_error_t err = {{0}};
    const char *m =
        measurements("unknown-tier.json", "{\"collectives\": [{\"file\": " AR_POD
                                          ", \"op\": \"all_reduce\", \"tier\": \"pod\", \"gpus\": 16}]}");
    assert_int_equal(calibrate(m, DATA "cluster.json", false, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "collectives[0].tier"));
    assert_non_null(strstr(err.text, "\"pod\" is not a network level"));
    assert_non_null(strstr(err.text, "\"cluster\"")); /* what exists */
}

static void test_level_without_data(void **state)
{
    (void)state;
    sax_error_t err = {{0}};
    const char *body =
        "{\"collectives\": [{\"file\": " AR_POD ", \"op\": \"all_reduce\", \"tier\": \"cluster\", "
        "\"gpus\": 16}, {\"file\": " AG_POD ", \"op\": \"all_gather\", \"tier\": \"cluster\", "
        "\"gpus\": 16}]}";
    const char *m = measurements("no-scale-up.json", body);
    assert_int_equal(calibrate(m, DATA "cluster.json", false, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "no measurement for \"scale_up\""));
    assert_non_null(strstr(err.text, "--partial"));

    /* --partial keeps the configured scale-up domain (450 GB/s, 3 us) */
    assert_int_equal(calibrate(m, DATA "cluster.json", true, false, NULL, NULL, 0, &err), SAX_OK);
    char out_path[512];
    snprintf(out_path, sizeof out_path, "%s/calibrated.json", tmpdir);
    sax_config_t cfg;
    assert_int_equal(sax_config_load(out_path, &cfg, &err), SAX_OK);
    assert_true(fabs(cfg.problem.cluster.scale_up.bw_Bps - 450e9) < 1.0);
    assert_true(fabs(cfg.problem.cluster.scale_up.latency_s - 3e-6) < 1e-15);
    assert_true(fabs(cfg.problem.cluster.tiers[0].bw_Bps / 46e9 - 1.0) < 0.03);
    sax_config_fini(&cfg);
}

static void test_single_step_count_and_size(void **state)
{
    (void)state;
    sax_error_t err = {{0}};
    /* one operation at one GPU count */
    const char *m =
        measurements("one-count.json", "{\"collectives\": [{\"file\": " AR_POD
                                       ", \"op\": \"all_reduce\", \"tier\": \"cluster\", \"gpus\": 16}]}");
    assert_int_equal(calibrate(m, DATA "cluster.json", true, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "tier \"cluster\""));
    assert_non_null(strstr(err.text, "another GPU count"));

    /* one message size */
    char path[512];
    snprintf(path, sizeof path, "%s/one-size.txt", tmpdir);
    write_file(path,
               "#       size         count      type   redop    root     time   algbw   busbw #wrong     time"
               "   algbw   busbw #wrong\n"
               "     1048576        262144     float     sum      -1    86.37   12.14   22.76      0    88.12"
               "   11.90   22.31      0\n");
    char body[2048];
    snprintf(
        body, sizeof body,
        "{\"collectives\": [{\"file\": \"one-size.txt\", \"op\": \"all_reduce\", \"tier\": \"cluster\", \"gpus\": "
        "16}, {\"file\": \"one-size.txt\", \"op\": \"all_reduce\", \"tier\": \"cluster\", \"gpus\": 32}]}");
    m = measurements("one-size.json", body);
    assert_int_equal(calibrate(m, DATA "cluster.json", true, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "same message size"));
}

static void test_inconsistent_entries(void **state)
{
    (void)state;
    sax_error_t err = {{0}};
    const char *m =
        measurements("wrong-gpus.json", "{\"collectives\": [{\"file\": " AR_POD
                                        ", \"op\": \"all_reduce\", \"tier\": \"cluster\", \"gpus\": 32}]}");
    assert_int_equal(calibrate(m, DATA "cluster.json", true, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "collectives[0].gpus"));
    assert_non_null(strstr(err.text, "16 ranks"));

    m = measurements("wrong-op.json", "{\"collectives\": [{\"file\": " AR_POD
                                      ", \"op\": \"all_gather\", \"tier\": \"cluster\", \"gpus\": 16}]}");
    assert_int_equal(calibrate(m, DATA "cluster.json", true, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "all_reduce_perf"));

    m = measurements("typo.json", "{\"collectives\": [{\"file\": " AR_POD
                                  ", \"op\": \"all_reduce\", \"teir\": \"cluster\", \"gpus\": 16}]}");
    assert_int_equal(calibrate(m, DATA "cluster.json", true, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "collectives[0].teir: unknown key"));

    m = measurements("gpu.json", "{\"gemms\": [{\"gpu\": \"B200\", \"m\": 1024, \"n\": 1024, \"k\": 1024, "
                                 "\"time\": \"1 ms\"}]}");
    assert_int_equal(calibrate(m, DATA "cluster.json", false, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "gemms[0].gpu"));
    assert_non_null(strstr(err.text, "\"H100\""));

    /* stride: a whole number from 1; the group it places spans (gpus - 1) x stride + 1 GPUs: 16
     * members 8 apart span 121 GPUs, more than the 96 of one unit of tier "cluster" */
    m = measurements("stride0.json",
                     "{\"collectives\": [{\"file\": " AR_POD
                     ", \"op\": \"all_reduce\", \"tier\": \"cluster\", \"gpus\": 16, \"stride\": 0}]}");
    assert_int_equal(calibrate(m, DATA "cluster.json", true, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "collectives[0].stride: expected an integer from 1"));
    m = measurements("stride8.json",
                     "{\"collectives\": [{\"file\": " AR_POD
                     ", \"op\": \"all_reduce\", \"tier\": \"cluster\", \"gpus\": 16, \"stride\": 8}]}");
    assert_int_equal(calibrate(m, DATA "cluster.json", true, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "found 16 GPUs 8 apart (121 GPUs)"));

    /* a level's measurement must cross it and stay inside one unit of it */
    m = measurements("span-su.json", "{\"collectives\": [{\"file\": " AR_POD
                                     ", \"op\": \"all_reduce\", \"tier\": \"scale_up\", \"gpus\": 16}]}");
    assert_int_equal(calibrate(m, DATA "cluster.json", true, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "scale-up domain of 8 GPUs"));
    m = measurements("span-tier.json", "{\"collectives\": [{\"file\": " AR_NVL
                                       ", \"op\": \"all_reduce\", \"tier\": \"cluster\", \"gpus\": 8}]}");
    assert_int_equal(calibrate(m, DATA "cluster.json", true, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "tier \"cluster\" to span more than one unit inside it (8 GPUs)"));

    m = measurements("flows.json",
                     "{\"collectives\": [{\"file\": " AR_POD
                     ", \"op\": \"all_reduce\", \"tier\": \"cluster\", \"gpus\": 16, \"flows\": 2}]}");
    assert_int_equal(calibrate(m, DATA "cluster.json", true, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "collectives[0].flows: applies to site links only"));

    m = measurements("empty.json", "{\"note\": \"nothing\"}");
    assert_int_equal(calibrate(m, DATA "cluster.json", false, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "nothing to fit"));
}

static void test_too_few_runs(void **state)
{
    (void)state;
    sax_error_t err = {{0}};
    /* one run of the fixture, copied out of measurements.json */
    FILE *f = fopen(DATA "measurements.json", "r");
    assert_non_null(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    cJSON *one = cJSON_CreateObject();
    cJSON_AddItemToObject(one, "runs", cJSON_CreateArray());
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(one, "runs"),
                         cJSON_Duplicate(cJSON_GetArrayItem(runs, 0), 1));
    char *body = cJSON_Print(one);
    const char *m = measurements("one-run.json", body);
    free(body);
    cJSON_Delete(one);
    cJSON_Delete(root);
    assert_int_equal(calibrate(m, DATA "cluster.json", false, false, NULL, NULL, 0, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "at least 2"));

    /* two runs, one of which the model cannot run (1008B parameters on 384 GPUs without model
     * parallelism does not fit in 80 GiB): the reason is named */
    cJSON *a100 = load_json(DATA "published-a100-cases.json");
    cJSON *a_runs = cJSON_GetObjectItemCaseSensitive(a100, "cases");
    cJSON *two = cJSON_CreateObject();
    cJSON *two_runs = cJSON_AddArrayToObject(two, "runs");
    cJSON_AddItemToArray(two_runs, cJSON_Duplicate(cJSON_GetArrayItem(a_runs, 0), 1));
    cJSON *big = cJSON_Duplicate(cJSON_GetArrayItem(a_runs, 9), 1);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(big, "name")->valuestring, "sc21-t1-1008.0B");
    cJSON *par =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(big, "config"), "parallelism");
    cJSON_ReplaceItemInObjectCaseSensitive(par, "tp", cJSON_CreateNumber(1));
    cJSON_ReplaceItemInObjectCaseSensitive(par, "pp", cJSON_CreateNumber(1));
    cJSON_ReplaceItemInObjectCaseSensitive(par, "dp", cJSON_CreateNumber(384));
    cJSON_AddItemToArray(two_runs, big);
    body = cJSON_Print(two);
    m = measurements("infeasible-run.json", body);
    free(body);
    cJSON_Delete(two);
    cJSON_Delete(a100);
    assert_int_equal(calibrate(m, DATA "published-a100-config.json", false, false, NULL, NULL, 0, &err),
                     SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "1 run(s) the model can evaluate"));
    assert_non_null(strstr(err.text, "sc21-t1-1008.0B"));
    assert_non_null(strstr(err.text, "infeasible"));
}

static int setup(void **state)
{
    (void)state;
    int argc = 0;
    char **argv = NULL;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return -1;
    snprintf(tmpdir, sizeof tmpdir, "%s/test_calibrate_cmd_XXXXXX", SAX_BINARY_DIR);
    return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < n_created; i++)
        remove(created[i]);
    rmdir(tmpdir);
    MPI_Finalize();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_calibration),
        cmocka_unit_test(test_json_report),
        cmocka_unit_test(test_model_fit_recovers_the_model),
        cmocka_unit_test(test_site_link),
        cmocka_unit_test(test_mutated_measurements),
        cmocka_unit_test(test_runs_from_dataset),
        cmocka_unit_test(test_gemms_on_a_preset_gpu),
        cmocka_unit_test(test_two_algorithms),
        cmocka_unit_test(test_runs_recover_known_parameters),
        cmocka_unit_test(test_moe_runs_recover_their_parameters),
        cmocka_unit_test(test_unknown_tier),
        cmocka_unit_test(test_level_without_data),
        cmocka_unit_test(test_single_step_count_and_size),
        cmocka_unit_test(test_inconsistent_entries),
        cmocka_unit_test(test_too_few_runs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
