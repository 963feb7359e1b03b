/* test_config.c - the configuration loader: every example under tests/data/configs loads and its
 * values match what the files say (converted by hand), every file under tests/data/bad fails with
 * exit status 2 and a message naming the file, the JSON path and what was expected, the effective
 * JSON reloads to the same configuration, and nothing is left allocated after an error. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sax_config.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONFIGS SAX_TEST_DATA "/configs/"
#define BAD SAX_TEST_DATA "/bad/"
#define GIB 1073741824.0

static bool close_to(double a, double b) { return fabs(a - b) <= 1e-12 * fabs(b); }

static void load_ok(const char *path, sax_config_t *cfg)
{
    sax_error_t err = {{0}};
    sax_status_t st = sax_config_load(path, cfg, &err);
    if (st != SAX_OK) {
        print_error("%s: %s\n", path, err.text);
        fail();
    }
}

/* ---- examples --------------------------------------------------------------------------------- */

static void test_contract_eval(void **state)
{
    (void)state;
    sax_config_t cfg;
    load_ok(CONFIGS "contract-eval.json", &cfg);
    const sax_problem_t *p = &cfg.problem;
    assert_string_equal(p->model.name, "gpt3-175b");
    assert_int_equal(p->model.layers, 96);
    assert_int_equal(p->model.hidden, 12288);
    assert_int_equal(p->model.ffn_hidden, 49152);
    assert_int_equal(p->model.heads, 96);
    assert_int_equal(p->model.kv_heads, 96);
    assert_int_equal(p->model.vocab, 51200);
    assert_int_equal(p->model.seq_len, 2048);
    assert_int_equal(p->model.ffn_act, SAX_FFN_GELU);
    assert_false(p->model.tied_embeddings);
    assert_true(p->training.global_batch == 1536);
    assert_int_equal(p->training.precision, SAX_PRECISION_BF16);
    assert_string_equal(p->cluster.gpu.name, "A100");
    assert_true(close_to(p->cluster.gpu.peak_flops_bf16, 312e12));
    assert_true(p->cluster.gpu.hbm_bytes == 80 * GIB);
    assert_true(close_to(p->cluster.gpu.hbm_bw_Bps, 2.0e12));
    assert_true(p->cluster.gpu.peak_flops_fp8 == 0.0);
    assert_int_equal(p->cluster.scale_up.size, 8);
    assert_true(close_to(p->cluster.scale_up.bw_Bps, 300e9));
    assert_true(close_to(p->cluster.scale_up.latency_s, 3e-6));
    assert_int_equal(p->cluster.n_tiers, 2);
    assert_string_equal(p->cluster.tiers[1].name, "building");
    assert_int_equal(p->cluster.tiers[1].gpus, 24576);
    assert_true(close_to(p->cluster.tiers[1].bw_Bps, 25e9));
    assert_true(close_to(p->cluster.tiers[1].latency_s, 20e-6));
    assert_true(p->cluster.tiers[1].oversubscription == 7.0);
    assert_int_equal(p->cluster.n_sites, 1);
    assert_int_equal(p->cluster.sites[0].gpus, 1024);
    assert_int_equal(p->cluster.n_links, 0);
    /* the file sets no efficiency; a GPU object named "A100" is modelled as the A100 preset */
    sax_gpu_t gd;
    memset(&gd, 0, sizeof gd);
    assert_true(sax_preset_gpu_calibration("A100", 0.0, &gd));
    assert_true(p->cluster.gpu.gemm_eff_max == gd.gemm_eff_max);
    assert_true(p->cluster.gpu.mem_eff == gd.mem_eff);
    assert_true(p->cluster.sites[0].gpu.hbm_bytes == 80 * GIB); /* the site inherits the cluster's GPU */

    assert_true(cfg.has_candidate);
    const sax_candidate_t *c = &cfg.candidate;
    assert_int_equal(c->tp, 8);
    assert_int_equal(c->pp, 16);
    assert_int_equal(c->dp, 8);
    assert_int_equal(c->recompute, SAX_RECOMPUTE_FULL);
    assert_int_equal(c->schedule, SAX_SCHEDULE_1F1B);
    assert_int_equal(c->n_order, 4);
    assert_int_equal(c->order[0], SAX_DIM_TP);
    assert_int_equal(c->order[2], SAX_DIM_PP);
    assert_int_equal(c->order[3], SAX_DIM_DP);
    assert_int_equal(c->transport, SAX_TRANSPORT_ROCE);
    assert_false(cfg.has_space);
    assert_int_equal(cfg.n_scenarios, 1);
    assert_null(cfg.scenario_values);
    assert_non_null(cfg.effective_json);
    sax_config_fini(&cfg);
    assert_null(cfg.effective_json);
}

static void test_contract_sweep(void **state)
{
    (void)state;
    sax_config_t cfg;
    load_ok(CONFIGS "contract-sweep.json", &cfg);
    const sax_space_desc_t *s = &cfg.space;
    assert_true(cfg.has_space);
    assert_int_equal(s->values[SAX_KEY_TP].n, 4);
    assert_int_equal(s->values[SAX_KEY_TP].v[3], 8);
    assert_int_equal(s->values[SAX_KEY_PP].n, 5);
    assert_int_equal(s->values[SAX_KEY_DP].n, 1);
    assert_int_equal(s->values[SAX_KEY_DP].v[0], 0); /* "auto" */
    assert_int_equal(s->values[SAX_KEY_SCHEDULE].n, 3);
    assert_int_equal(s->values[SAX_KEY_SCHEDULE].v[1], SAX_SCHEDULE_INTERLEAVED);
    assert_int_equal(s->values[SAX_KEY_TRANSPORT].v[0], SAX_TRANSPORT_ROCE_GBN);
    assert_int_equal(s->values[SAX_KEY_TRANSPORT].v[2], SAX_TRANSPORT_TCP);
    assert_int_equal(s->values[SAX_KEY_CONNECTIONS].v[2], 16);
    /* keys the space leaves out keep the fixed section's value */
    assert_int_equal(s->values[SAX_KEY_EP].n, 1);
    assert_int_equal(s->values[SAX_KEY_EP].v[0], 1);
    assert_int_equal(s->values[SAX_KEY_SEQUENCE_PARALLEL].v[0], 0);
    assert_int_equal(s->values[SAX_KEY_LAYER_SPLIT].v[0], SAX_LAYER_SPLIT_UNIFORM);
    assert_int_equal(s->n_orders, 2);
    assert_int_equal(s->values[SAX_KEY_ORDER].n, 2);
    assert_int_equal(s->order_len[1], 4);
    assert_int_equal(s->orders[1][2], SAX_DIM_DP);
    assert_int_equal(s->orders[1][3], SAX_DIM_PP);
    /* scenarios: 10 Tbit/s = 1.25e12 B/s, 40 Tbit/s = 5e12 B/s, 0.1 ms, 1 ms */
    assert_int_equal(s->n_scenario_vars, 2);
    assert_string_equal(s->scenario_vars[0].path, "site_links[0].bandwidth");
    assert_true(close_to(s->scenario_vars[0].v[0], 1.25e12));
    assert_true(close_to(s->scenario_vars[0].v[1], 5e12));
    assert_true(close_to(s->scenario_vars[1].v[0], 1e-4));
    assert_int_equal(cfg.n_scenarios, 4);
    /* the first variable varies slowest: scenario 1 = (10 Tbit/s, 1 ms), 2 = (40 Tbit/s, 0.1 ms) */
    assert_true(close_to(cfg.scenarios[1].cluster.links[0].bw_Bps, 1.25e12));
    assert_true(close_to(cfg.scenarios[1].cluster.links[0].latency_s, 1e-3));
    assert_true(close_to(cfg.scenarios[2].cluster.links[0].bw_Bps, 5e12));
    assert_true(close_to(cfg.scenarios[2].cluster.links[0].latency_s, 1e-4));
    assert_true(close_to(cfg.scenario_values[2 * 2 + 0], 5e12));
    assert_true(close_to(cfg.scenario_values[2 * 2 + 1], 1e-4));
    assert_true(close_to(cfg.problem.cluster.links[0].bw_Bps, 5e12)); /* the file's own value, 40 Tbit/s */
    assert_true(cfg.scenarios[3].cluster.links[0].loss == 1e-6);
    /* baseline */
    assert_int_equal(s->n_baselines, 1);
    const sax_baseline_t *b = &s->baselines[0];
    assert_string_equal(b->name, "production");
    assert_int_equal(b->mask, (1u << SAX_KEY_ORDER) | (1u << SAX_KEY_SCHEDULE) | (1u << SAX_KEY_CONNECTIONS) |
                                  (1u << SAX_KEY_ALGORITHM));
    assert_int_equal(b->value[SAX_KEY_ORDER], 0);
    assert_int_equal(b->value[SAX_KEY_SCHEDULE], SAX_SCHEDULE_1F1B);
    assert_int_equal(b->value[SAX_KEY_CONNECTIONS], 1);
    assert_int_equal(b->value[SAX_KEY_ALGORITHM], SAX_ALGORITHM_RING);
    sax_config_fini(&cfg);
}

static void test_presets_and_distance(void **state)
{
    (void)state;
    sax_config_t cfg;
    load_ok(CONFIGS "presets-multisite.json", &cfg);
    const sax_cluster_t *c = &cfg.problem.cluster;
    /* Llama 3 405B, arXiv 2407.21783 Table 3 */
    assert_string_equal(cfg.problem.model.name, "llama3-405b");
    assert_int_equal(cfg.problem.model.layers, 126);
    assert_int_equal(cfg.problem.model.hidden, 16384);
    assert_int_equal(cfg.problem.model.kv_heads, 8);
    assert_string_equal(c->gpu.name, "H100");
    assert_true(close_to(c->gpu.peak_flops_bf16, 989e12));
    assert_true(close_to(c->tiers[0].bw_Bps, 5e10));  /* 400 Gbit/s */
    assert_true(c->tiers[0].oversubscription == 1.0); /* default */
    /* sites: east inherits H100; west is a B200 with 192 GB; north is an H100 with memory_efficiency 0.6 */
    assert_string_equal(c->sites[0].gpu.name, "H100");
    assert_string_equal(c->sites[1].gpu.name, "B200");
    assert_true(close_to(c->sites[1].gpu.peak_flops_bf16, 2250e12));
    assert_true(c->sites[1].gpu.hbm_bytes == 192e9);
    assert_string_equal(c->sites[2].gpu.name, "H100");
    assert_true(c->sites[2].gpu.mem_eff == 0.6);
    assert_true(close_to(c->sites[2].gpu.hbm_bw_Bps, 3.35e12));
    /* links: 16 Pbit/s = 2e15 B/s; 1000 km at 5 us/km one way = 5 ms; 64 MiB window */
    assert_int_equal(c->n_links, 2);
    assert_int_equal(c->links[0].a, 0);
    assert_int_equal(c->links[0].b, 1);
    assert_true(close_to(c->links[0].bw_Bps, 2e15));
    assert_true(close_to(c->links[0].latency_s, 5e-3));
    assert_true(close_to(c->links[0].distance_m, 1e6));
    assert_true(c->links[0].window_bytes == 64.0 * 1048576.0);
    assert_true(c->links[0].uplink_oversubscription == 4.5);
    assert_true(c->links[0].loss == 1e-7);
    /* latency given with distance: the latency stands */
    assert_true(close_to(c->links[1].latency_s, 2e-3));
    assert_true(close_to(c->links[1].distance_m, 1e5));
    assert_int_equal(c->links[1].a, 1);
    assert_int_equal(c->links[1].b, 2);
    /* dp "auto" = (24576 + 12288 + 6144) / (8 x 1 x 16) = 336; default order without degree-1 dims */
    assert_int_equal(cfg.candidate.dp, 336);
    assert_int_equal(cfg.candidate.n_order, 3);
    assert_int_equal(cfg.candidate.order[0], SAX_DIM_TP);
    assert_int_equal(cfg.candidate.order[1], SAX_DIM_PP);
    assert_int_equal(cfg.candidate.order[2], SAX_DIM_DP);
    assert_int_equal(cfg.candidate.vpp, 2);
    assert_true(cfg.candidate.sequence_parallel);
    assert_int_equal(cfg.candidate.transport, SAX_TRANSPORT_ROCE_SR);
    assert_int_equal(cfg.candidate.connections, 16);
    assert_int_equal(cfg.candidate.algorithm, SAX_ALGORITHM_RING);
    sax_config_fini(&cfg);
}

static void test_moe_sweep_scenarios(void **state)
{
    (void)state;
    sax_config_t cfg;
    load_ok(CONFIGS "moe-sweep.json", &cfg);
    assert_false(cfg.has_candidate);
    assert_true(cfg.has_space);
    assert_string_equal(cfg.problem.model.name, "deepseek-v3");
    assert_int_equal(cfg.problem.model.seq_len, 8192); /* overrides the preset's 4096 */
    assert_int_equal(cfg.problem.model.experts, 256);
    assert_int_equal(cfg.problem.training.precision, SAX_PRECISION_FP8);
    assert_true(cfg.problem.training.dp_overlap_efficiency == 0.9);
    assert_true(cfg.problem.cluster.gpu.gemm_eff_max == 0.75);
    assert_true(close_to(cfg.problem.cluster.gpu.hbm_bytes, 141 * GIB));
    /* 50 km at 5 us/km = 250 us */
    assert_true(close_to(cfg.problem.cluster.links[0].latency_s, 2.5e-4));
    assert_int_equal(cfg.problem.cluster.links[0].a, 1);
    assert_int_equal(cfg.space.values[SAX_KEY_DP].n, 2);
    assert_int_equal(cfg.space.values[SAX_KEY_DP].v[0], 0);
    assert_int_equal(cfg.space.values[SAX_KEY_DP].v[1], 32);
    assert_int_equal(cfg.space.n_orders, 1);
    assert_int_equal(cfg.space.order_len[0], 5); /* all dimensions when nothing fixes the order */
    assert_int_equal(cfg.space.n_baselines, 2);
    assert_string_equal(cfg.space.baselines[1].name, "dualpipe");
    /* 3 distances x 2 GPU counts x 2 peaks; scenario 7 = (1, 1, 1): 100 km, 1024 GPUs, 1979 TFLOP/s */
    assert_int_equal(cfg.n_scenarios, 12);
    const sax_problem_t *p = &cfg.scenarios[7];
    assert_true(close_to(p->cluster.links[0].distance_m, 1e5));
    assert_true(close_to(p->cluster.links[0].latency_s, 5e-4)); /* derived again from the distance */
    assert_int_equal(p->cluster.sites[1].gpus, 1024);
    assert_true(close_to(p->cluster.gpu.peak_flops_bf16, 1979e12));
    assert_true(close_to(p->cluster.sites[0].gpu.peak_flops_bf16, 1979e12)); /* inherited by the sites */
    assert_true(close_to(cfg.scenario_values[7 * 3 + 0], 1e5));
    /* scenario 0 = 10 km, 512 GPUs, 989 TFLOP/s */
    p = &cfg.scenarios[0];
    assert_true(close_to(p->cluster.links[0].latency_s, 5e-5));
    assert_int_equal(p->cluster.sites[1].gpus, 512);
    assert_true(close_to(p->cluster.sites[1].gpu.peak_flops_bf16, 989e12));
    sax_config_fini(&cfg);
}

/* Every example loads, and its effective JSON loads to the same effective JSON. */
static void test_every_example_round_trip(void **state)
{
    (void)state;
    DIR *d = opendir(CONFIGS);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s%s", CONFIGS, e->d_name);
        sax_config_t a, b;
        load_ok(path, &a);
        sax_error_t err = {{0}};
        sax_status_t st = sax_config_parse(a.effective_json, "effective", &b, &err);
        if (st != SAX_OK) {
            print_error("%s: effective JSON does not load: %s\n%s\n", path, err.text, a.effective_json);
            fail();
        }
        assert_string_equal(a.effective_json, b.effective_json);
        assert_int_equal(a.n_scenarios, b.n_scenarios);
        assert_memory_equal(&a.problem.cluster.links, &b.problem.cluster.links,
                            sizeof a.problem.cluster.links);
        assert_memory_equal(&a.space, &b.space, sizeof a.space);
        sax_config_fini(&a);
        sax_config_fini(&b);
        n++;
    }
    closedir(d);
    assert_true(n >= 4);
}

/* ---- errors ------------------------------------------------------------------------------------ */

typedef struct {
    const char *file;
    const char *path;     /* JSON path expected in the message */
    const char *fragment; /* what was expected or found */
} bad_t;

static const bad_t bad_files[] = {
    {"unknown-key", "model.layer:", "unknown key (did you mean \"layers\"?)"},
    {"unknown-top-key", ": paralelism:", "unknown key"},
    {"wrong-type", "cluster.tiers[1].gpus:", "expected an integer >= 2, found \"many\""},
    {"missing-required", ": model:", "missing required key \"hidden\""},
    {"non-finite", "cluster.tiers[0].bandwidth:", "found \"NaN GB/s\" (no number)"},
    {"negative", "cluster.scale_up.latency:", "expected a time >= 0"},
    {"zero-bandwidth", "cluster.tiers[1].bandwidth:", "expected a bandwidth >= 1 bit/s"},
    {"bad-unit", "cluster.gpu.hbm:", "unknown unit \"GX\""},
    {"wrong-unit-kind", "cluster.site_links[0].bandwidth:", "\"us\" is a unit of time"},
    {"unknown-site-in-link", "cluster.site_links[0].between[1]:", "found \"C\""},
    {"sites-without-tiers", "cluster.tiers:", "expected at least one tier in a cluster of 2 sites"},
    {"tier-not-multiple-of-scale-up", "cluster.tiers[0].gpus:", "expected a multiple of 8"},
    {"site-larger-than-outer-tier", "cluster.sites[0].gpus:", "expected at most 24576 GPUs"},
    {"bad-scenario-path", "space.scenarios.site_links[3].bandwidth:", "index 3 is outside"},
    {"baseline-key-unknown", "space.baselines.production.tpp:", "unknown key"},
    {"baseline-value-outside-space", "space.baselines.production.schedule:", "found \"gpipe\""},
    {"bad-enum", "parallelism.schedule:", "found \"1f2b\""},
    {"missing-parallelism", "missing-parallelism.json: missing required key \"parallelism\"",
     "expected an object"},
    {"dp-auto-remainder", "parallelism.dp:", "by tp x cp x pp = 48, found a remainder of 16"},
    {"fp8-without-peak", "training.precision:", "without an FP8 peak"},
    {"link-without-latency", "cluster.site_links[0]:", "\"latency\" or \"distance\""},
    {"duplicate-link", "cluster.site_links[1]:", "second link between"},
    {"kv-heads-not-divisor", "model.kv_heads:", "expected a divisor of heads = 96, found 7"},
    {"offload-all-layers",
     "training.offload_activation_layers:", "expected fewer than model.layers = 96, found 96"},
    {"first-stage-layers-negative",
     "parallelism.decoder_first_pipeline_num_layers:", "expected an integer >= 0, found -1"},
    {"order-missing-dim", "parallelism.order:", "found no \"pp\""},
    {"unknown-gpu-preset", "cluster.gpu:", "found \"H1000\""},
    {"non-integer", "model.layers:", "expected an integer >= 1, found 96.5"},
    {"loss-out-of-range", "cluster.site_links[0].loss:", "expected a number in [0, 1), found 1.5"},
    {"scenario-value-kind", "space.scenarios.site_links[0].latency[0]:", "\"Gbit/s\" is a unit of bandwidth"},
    {"space-unknown-key", "space.tensor:", "unknown key"},
    {"space-duplicate-value", "space.tp[2]:", "expected each value once"},
    {"duplicate-site-name", "cluster.sites[1].name:", "expected a unique site name"},
    {"scenario-inconsistent-sites", "space.scenarios.cluster.sites[1].gpus:", "(in scenario 1:"},
    {"syntax-error", "syntax-error.json:4:", "syntax error"},
    {"duplicate-key", "model.layers:", "found it twice"},
    {"not-an-object", "not-an-object.json:", "expected an object"},
};

static void test_bad_files(void **state)
{
    (void)state;
    size_t n = sizeof bad_files / sizeof bad_files[0];
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s%s.json", BAD, bad_files[i].file);
        sax_config_t cfg;
        memset(&cfg, 0xab, sizeof cfg); /* init semantics: garbage in is fine */
        sax_error_t err = {{0}};
        sax_status_t st = sax_config_load(path, &cfg, &err);
        bool ok = st == SAX_ERR_INPUT && sax_status_exit_code(st) == 2 && strstr(err.text, path) != NULL &&
                  strstr(err.text, bad_files[i].path) != NULL &&
                  strstr(err.text, bad_files[i].fragment) != NULL && strstr(err.text, "expected") != NULL;
        if (!ok) {
            print_error("%s: status %s, message:\n  %s\nwanted path \"%s\" and \"%s\"\n", bad_files[i].file,
                        sax_status_name(st), err.text, bad_files[i].path, bad_files[i].fragment);
            fail();
        }
        /* nothing left allocated, nothing half-filled */
        assert_null(cfg.scenarios);
        assert_null(cfg.scenario_values);
        assert_null(cfg.effective_json);
        assert_int_equal(cfg.n_scenarios, 0);
        sax_config_fini(&cfg);
    }
}

/* Whether `name` (a file of tests/data/bad) has a line in tests/data/bad/expected.txt, the list
 * tests/reliability/bad_input.sh runs through every command. */
static bool in_expected_list(const char *name)
{
    FILE *f = fopen(BAD "expected.txt", "r");
    if (f == NULL)
        return false;
    char line[512];
    bool found = false;
    size_t len = strlen(name);
    while (!found && fgets(line, sizeof line, f) != NULL)
        found = strncmp(line, name, len) == 0 && (line[len] == ' ' || line[len] == '\t');
    fclose(f);
    return found;
}

/* Every file of tests/data/bad has a row above or in expected.txt (so the corpus cannot grow
 * untested), and every row above names a file of the corpus. */
static void test_bad_corpus_covered(void **state)
{
    (void)state;
    DIR *d = opendir(BAD);
    assert_non_null(d);
    int listed_here = 0;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        bool listed = false;
        for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++)
            listed = listed || (strncmp(e->d_name, bad_files[i].file, len - 5) == 0 &&
                                strlen(bad_files[i].file) == len - 5);
        listed_here += listed;
        if (!listed && !in_expected_list(e->d_name)) {
            print_error("tests/data/bad/%s has no expectation in test_config.c nor in expected.txt\n",
                        e->d_name);
            fail();
        }
    }
    closedir(d);
    assert_int_equal(listed_here, (int)(sizeof bad_files / sizeof bad_files[0]));
}

/* Parses a one-node llama3-8b job of 8 GPUs (TP 8) whose training section also holds `training` and whose
 * cluster GPU is `gpu` (JSON text). */
static sax_status_t parse_one_node(const char *training, const char *gpu, sax_config_t *cfg, sax_error_t *err)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"model\": \"llama3-8b\", \"training\": {\"global_batch\": 8, %s}, \"cluster\": {\"gpu\": %s,"
             " \"scale_up\": {\"size\": 8, \"bandwidth\": \"450 GB/s\", \"latency\": \"2 us\"},"
             " \"sites\": [{\"name\": \"s\", \"gpus\": 8}]}, \"parallelism\": {\"tp\": 8}, \"network\": {}}",
             training, gpu);
    return sax_config_parse(text, "inline", cfg, err);
}

/* An fp8 run written in the contract's form, its GPU an object with a BF16 peak only: the GPU type its
 * name gives brings its FP8 peak (an H100: 1979 TFLOP/s, NVIDIA's data sheet), which a stated
 * peak_flops_fp8 overrides; an A100 has none, and the file says so. */
static void test_contract_gpu_object_in_fp8(void **state)
{
    (void)state;
    static const struct {
        const char *gpu;
        sax_status_t st;
        double fp8;
    } cases[] = {
        {"{\"name\": \"H100\", \"peak_flops\": \"989 TFLOP/s\", \"hbm\": \"80 GiB\", \"hbm_bandwidth\": \"3.35 TB/s\"}",
         SAX_OK, 1979e12},
        {"{\"name\": \"H100\", \"peak_flops\": \"989 TFLOP/s\", \"peak_flops_fp8\": \"1500 TFLOP/s\", \"hbm\": \"80 GiB\", \"hbm_bandwidth\": \"3.35 TB/s\"}",
         SAX_OK, 1500e12},
        {"{\"name\": \"A100\", \"peak_flops\": \"312 TFLOP/s\", \"hbm\": \"80 GiB\", \"hbm_bandwidth\": \"2 TB/s\"}",
         SAX_ERR_INPUT, 0.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sax_config_t cfg;
        sax_error_t err = {{0}};
        assert_int_equal(parse_one_node("\"precision\": \"fp8\"", cases[i].gpu, &cfg, &err), cases[i].st);
        if (cases[i].st != SAX_OK) {
            assert_non_null(strstr(err.text, "training.precision: expected \"bf16\" or \"fp16\""));
            continue;
        }
        assert_true(close_to(cfg.problem.cluster.gpu.peak_flops_fp8, cases[i].fp8));
        sax_config_fini(&cfg);
    }
}

/* Under fp16 Megatron-LM reduces gradients in fp16 unless told otherwise (megatron/training/arguments.py
 * forces fp32 accumulation under --bf16 only): the default follows the precision; a stated dtype wins. */
static void test_fp16_gradients_by_default(void **state)
{
    (void)state;
    static const struct {
        const char *training;
        sax_grad_dtype_t want;
    } cases[] = {{"\"precision\": \"fp16\"", SAX_GRAD_DTYPE_FP16},
                 {"\"precision\": \"fp16\", \"grad_reduce_dtype\": \"fp32\"", SAX_GRAD_DTYPE_FP32},
                 {"\"precision\": \"bf16\"", SAX_GRAD_DTYPE_FP32}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sax_config_t cfg;
        sax_error_t err = {{0}};
        assert_int_equal(parse_one_node(cases[i].training, "\"H100\"", &cfg, &err), SAX_OK);
        assert_int_equal(cfg.problem.training.grad_reduce_dtype, cases[i].want);
        sax_config_fini(&cfg);
    }
}

static void test_missing_file_and_text(void **state)
{
    (void)state;
    sax_config_t cfg;
    sax_error_t err = {{0}};
    assert_int_equal(sax_config_load(BAD "no-such-file.json", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "no-such-file.json: cannot open"));
    /* text API: the given name stands for the file */
    const char *text =
        "{\"model\": \"llama3-8b\", \"training\": {\"global_batch\": 8}, \"cluster\": {\"gpu\": \"H100\","
        " \"scale_up\": {\"size\": 8, \"bandwidth\": \"450 GB/s\", \"latency\": \"2 us\"},"
        " \"sites\": [{\"name\": \"s\", \"gpus\": 8}]},"
        " \"parallelism\": {\"tp\": 8}, \"network\": {}}";
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_OK);
    assert_int_equal(cfg.candidate.dp, 1);
    assert_int_equal(cfg.candidate.n_order, 1); /* only tp has a degree > 1 */
    assert_int_equal(cfg.problem.cluster.n_tiers, 0);
    sax_config_fini(&cfg);
    const char *bad = "{\"model\": \"llama3-8b\", \"training\": {\"global_batch\": -8}}";
    assert_int_equal(sax_config_parse(bad, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "inline: missing required key \"cluster\""));
    char negative[1024];
    snprintf(negative, sizeof negative, "%s", text);
    memcpy(strstr(negative, "\"global_batch\": 8"), "\"global_batch\":-8", 17);
    assert_int_equal(sax_config_parse(negative, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "inline: training.global_batch: expected an integer >= 1, found -8"));
    /* a site larger than one scale-up domain needs tiers */
    const char *no_tier =
        "{\"model\": \"llama3-8b\", \"training\": {\"global_batch\": 8}, \"cluster\": {\"gpu\": "
        "\"H100\", \"scale_up\": {\"size\": 8, \"bandwidth\": 1e11, \"latency\": 0},"
        " \"sites\": [{\"name\": \"s\", \"gpus\": 16}]}, \"parallelism\": {}, \"network\": {}}";
    assert_int_equal(sax_config_parse(no_tier, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "cluster.sites[0].gpus: expected at most 8 GPUs"));
}

/* Scenarios may vary the training and the model too (not design choices: the model's own
 * parameters), each value reaching its scenario's problem; a bad path or value is refused with it. */
static void test_scenarios_beyond_cluster(void **state)
{
    (void)state;
    const char *fmt =
        "{\"model\": \"llama3-8b\", \"training\": {\"global_batch\": 64}, \"cluster\": {\"gpu\": \"H100\","
        " \"scale_up\": {\"size\": 8, \"bandwidth\": \"450 GB/s\", \"latency\": \"2 us\"},"
        " \"sites\": [{\"name\": \"s\", \"gpus\": 8}]},"
        " \"parallelism\": {\"tp\": 8}, \"network\": {},"
        " \"space\": {\"tp\": [4, 8], \"scenarios\": {%s}}}";
    char text[2048];
    sax_config_t cfg;
    sax_error_t err = {{0}};
    snprintf(text, sizeof text, fmt,
             "\"training.dp_overlap_efficiency\": [0.25, 1], \"model.seq_len\": [4096, 8192]");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_OK);
    assert_int_equal(cfg.n_scenarios, 4);
    /* the last path varies fastest: (0.25, 4096), (0.25, 8192), (1, 4096), (1, 8192) */
    assert_true(close_to(cfg.scenarios[0].training.dp_overlap_efficiency, 0.25));
    assert_true(close_to(cfg.scenarios[3].training.dp_overlap_efficiency, 1.0));
    assert_int_equal(cfg.scenarios[0].model.seq_len, 4096);
    assert_int_equal(cfg.scenarios[1].model.seq_len, 8192);
    assert_int_equal(cfg.problem.model.seq_len, 8192); /* llama3-8b's own, untouched */
    sax_config_fini(&cfg);

    snprintf(text, sizeof text, fmt, "\"training.no_such_key\": [1, 2]");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text,
                           "space.scenarios.training.no_such_key: expected a path to a number in cluster, "
                           "training or model"));
    assert_non_null(strstr(err.text, "training has no key \"no_such_key\""));
    snprintf(text, sizeof text, fmt, "\"training.dp_overlap_efficiency\": [0.5, 1.5]");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "space.scenarios.training.dp_overlap_efficiency[1]"));
}

/* parallelism.pipeline_model_parallel_layout, Megatron-Core's --pipeline-model-parallel-layout
 * (megatron/core/transformer/pipeline_parallel_layer_layout.py): E embedding, t layer, m MTP, L loss,
 * "|" between virtual stages, x*N and (...)*N repeats, commas cosmetic; virtual stage k on stage
 * k mod pp. Each layout's per-stage layers below are counted by hand. */
static const char *layout_fmt =
    "{\"model\": %s, \"training\": {\"global_batch\": 8}, \"cluster\": {\"gpu\": \"H100\","
    " \"scale_up\": {\"size\": 8, \"bandwidth\": \"450 GB/s\", \"latency\": \"2 us\"},"
    " \"sites\": [{\"name\": \"s\", \"gpus\": 8}]},"
    " \"parallelism\": {\"pp\": 4, \"dp\": 2, \"vpp\": %d, \"schedule\": \"%s\", %s\"pipeline_model_parallel_layout\": "
    "\"%s\"}, \"network\": {}}";
static const char *model62 = "{\"name\": \"m62\", \"layers\": 62, \"hidden\": 1024, \"ffn_hidden\": 4096, "
                             "\"heads\": 8, \"kv_heads\": 8, \"vocab\": 32768, \"seq_len\": 1024, "
                             "\"ffn_act\": \"swiglu\"}";

static sax_status_t parse_layout(const char *model, int vpp, const char *extra, const char *layout,
                                 sax_config_t *cfg, sax_error_t *err)
{
    char text[2048];
    snprintf(text, sizeof text, layout_fmt, model, vpp, vpp > 1 ? "interleaved" : "1f1b", extra, layout);
    return sax_config_parse(text, "inline", cfg, err);
}

static void test_pipeline_layout_parse(void **state)
{
    (void)state;
    sax_config_t cfg;
    sax_error_t err = {{0}};
    int layers[4];
    /* Megatron-Bridge's DeepSeek-V3 (61 layers) PP4 VPP4: 16 virtual stages of 4 layers, the last 1;
     * stage s holds virtual stages s, s + 4, s + 8, s + 12: 16, 16, 16 and 4 + 4 + 4 + 1 = 13 */
    assert_int_equal(parse_layout("\"deepseek-v3\"", 4, "", "Et*4|(t*4|)*14,tL", &cfg, &err), SAX_OK);
    assert_int_equal(cfg.candidate.n_layout, 16);
    assert_int_equal(cfg.candidate.layout_layers[0], 4);
    assert_int_equal(cfg.candidate.layout_layers[14], 4);
    assert_int_equal(cfg.candidate.layout_layers[15], 1);
    assert_int_equal(sax_model_stage_layers(&cfg.problem, &cfg.candidate, layers), SAX_OK);
    assert_int_equal(layers[0], 16);
    assert_int_equal(layers[1], 16);
    assert_int_equal(layers[2], 16);
    assert_int_equal(layers[3], 13);
    sax_config_fini(&cfg);
    /* AutoModel's split of 61 layers into 32 virtual stages: 29 of 2 then 3 of 1; stage 0 holds virtual
     * stages 0, 4, ..., 28 (all of 2): 16; stages 1-3 one of 1 each: 15 */
    assert_int_equal(parse_layout("\"deepseek-v3\"", 8, "", "Ett|(tt|)*28,t|t|tL", &cfg, &err), SAX_OK);
    assert_int_equal(cfg.candidate.n_layout, 32);
    assert_int_equal(sax_model_stage_layers(&cfg.problem, &cfg.candidate, layers), SAX_OK);
    assert_int_equal(layers[0], 16);
    assert_int_equal(layers[1], 15);
    assert_int_equal(layers[3], 15);
    sax_config_fini(&cfg);
    /* nested groups and a zero repeat: ((t*15|)*2)*1 is 15 | 15 |, t*0 nothing, then 15 | 16 L: the four
     * stages 15, 15, 15, 16 = 61 */
    assert_int_equal(parse_layout("\"deepseek-v3\"", 1, "", "E((t*15|)*2)*1,t*0t*15|t*16,L", &cfg, &err),
                     SAX_OK);
    assert_int_equal(sax_model_stage_layers(&cfg.problem, &cfg.candidate, layers), SAX_OK);
    assert_int_equal(layers[0], 15);
    assert_int_equal(layers[2], 15);
    assert_int_equal(layers[3], 16);
    sax_config_fini(&cfg);
    /* one MTP depth (model.mtp_num_layers 1) in the last virtual stage, with the loss: Megatron-Bridge's
     * DeepSeek-V3 layout with its MTP layer */
    assert_int_equal(parse_layout("{\"preset\": \"deepseek-v3\", \"mtp_num_layers\": 1}", 4, "",
                                  "Et*4|(t*4|)*14,tmL", &cfg, &err),
                     SAX_OK);
    assert_int_equal(cfg.candidate.n_layout, 16);
    assert_int_equal(cfg.candidate.layout_mtp, 1);
    assert_int_equal(cfg.problem.model.mtp_num_layers, 1);
    sax_config_fini(&cfg);
    /* as many m as model.mtp_num_layers (Megatron-Core's validate_layer_layout) */
    assert_int_equal(parse_layout("{\"preset\": \"deepseek-v3\", \"mtp_num_layers\": 1}", 4, "",
                                  "Et*4|(t*4|)*14,tL", &cfg, &err),
                     SAX_ERR_INPUT);
    assert_non_null(strstr(err.text,
                           "parallelism.pipeline_model_parallel_layout: expected model.mtp_num_layers "
                           "= 1 MTP layers (m), found 0 in \"Et*4|(t*4|)*14,tL\""));
    /* "" is not set */
    assert_int_equal(parse_layout(model62, 1, "", "", &cfg, &err), SAX_OK);
    assert_int_equal(cfg.candidate.n_layout, 0);
    sax_config_fini(&cfg);

    /* errors: the file, the JSON path, what was expected and what was found */
    static const struct {
        const char *layout, *message;
    } bad[] = {
        {"Et*|t*61L",
         "expected a repeat count (digits) after '*' at character 4 of \"Et*|t*61L\", found '|'"},
        {"Ex|t*61L",
         "expected a layer (E, t, m, L), '|', '(' or ',' at character 2 of \"Ex|t*61L\", found 'x'"},
        {"E(t*61|L", "expected ')' closing the group at character 9 of \"E(t*61|L\", found the end"},
        {"E(t*61)|L", "expected '*' and a repeat count after a group at character 8"},
        {"tE|t*60L",
         "expected the embedding (E) once, as the first layer, in \"tE|t*60L\", found it 1 times but not "
         "first"},
        {"Et*61|t", "expected the loss (L) once, as the last layer, in \"Et*61|t\", found it 0 times"},
        {"Et*30m|t*31L", "expected every transformer layer (t) before the MTP layers (m)"},
        {"Et*15|t*15|t*15|t*16m|L",
         "expected the MTP layers (m) in the last virtual stage, with the loss (L), in \"Et*15|t*15|t*15|t*16m|L\" "
         "(sax prices them on the last stage, where Megatron-Core places them without a layout), found one in "
         "virtual stage 3"},
        {"Et*15|t*15|t*15|t*16mL", "expected model.mtp_num_layers = 0 MTP layers (m), found 1"},
        {"Et*30|t*31L", "expected pp x vpp = 4 x 1 = 4 virtual stages (separated by '|'), found 2"},
        {"Et*15|t*15|t*15|t*15L", "expected model.layers = 61 transformer layers (t), found 60"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse_layout("\"deepseek-v3\"", 1, "", bad[i].layout, &cfg, &err), SAX_ERR_INPUT);
        if (strstr(err.text, "inline: parallelism.pipeline_model_parallel_layout: ") == NULL ||
            strstr(err.text, bad[i].message) == NULL)
            fail_msg("%s: got \"%s\"", bad[i].layout, err.text);
    }
    /* not beside Megatron's first/last stage layers */
    assert_int_equal(parse_layout("\"deepseek-v3\"", 1, "\"decoder_first_pipeline_num_layers\": 16, ",
                                  "Et*16|t*16|t*16|t*13L", &cfg, &err),
                     SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "expected no decoder_first/last_pipeline_num_layers beside a layout"));
}

/* A file that names no split for more virtual stages than layers (the Llama 3 paper's 126 layers on 16
 * stages of 8 chunks) gets Megatron-LM's embedding-loss split where it fits. 14 layers on PP4 VPP4: 16
 * chunks; (14 + 2) / 4 = 4 a stage, the embedding's and the loss's stages one fewer: 3, 4, 4, 3. 13 layers
 * fit neither (15 is not a multiple of 4): the split stays uniform and the evaluation says divisibility;
 * so does a file that asks for uniform by name. */
static void test_default_split_when_layers_are_few(void **state)
{
    (void)state;
    static const char *model14 =
        "{\"name\": \"m14\", \"layers\": 14, \"hidden\": 1024, \"ffn_hidden\": 4096, "
        "\"heads\": 8, \"kv_heads\": 8, \"vocab\": 32768, \"seq_len\": 1024, "
        "\"ffn_act\": \"swiglu\"}";
    static const char *model13 =
        "{\"name\": \"m13\", \"layers\": 13, \"hidden\": 1024, \"ffn_hidden\": 4096, "
        "\"heads\": 8, \"kv_heads\": 8, \"vocab\": 32768, \"seq_len\": 1024, "
        "\"ffn_act\": \"swiglu\"}";
    sax_config_t cfg;
    sax_error_t err = {{0}};
    int layers[4];
    assert_int_equal(parse_layout(model14, 4, "", "", &cfg, &err), SAX_OK);
    assert_int_equal(cfg.candidate.layer_split, SAX_LAYER_SPLIT_EMBEDDING_LOSS);
    assert_int_equal(sax_model_stage_layers(&cfg.problem, &cfg.candidate, layers), SAX_OK);
    assert_int_equal(layers[0], 3);
    assert_int_equal(layers[1], 4);
    assert_int_equal(layers[2], 4);
    assert_int_equal(layers[3], 3);
    sax_config_fini(&cfg);
    /* enough layers: uniform stays (62 on 16 chunks) */
    assert_int_equal(parse_layout(model62, 4, "", "", &cfg, &err), SAX_OK);
    assert_int_equal(cfg.candidate.layer_split, SAX_LAYER_SPLIT_UNIFORM);
    sax_config_fini(&cfg);
    sax_scratch_t *sc = malloc(sax_scratch_size());
    assert_non_null(sc);
    sax_scratch_init(sc);
    sax_result_t r;
    assert_int_equal(parse_layout(model13, 4, "", "", &cfg, &err), SAX_OK);
    assert_int_equal(cfg.candidate.layer_split, SAX_LAYER_SPLIT_UNIFORM);
    assert_int_equal(sax_model_eval(&cfg.problem, &cfg.candidate, sc, &r), SAX_OK);
    assert_false(r.feasible);
    assert_int_equal(r.reason, SAX_INFEASIBLE_DIVISIBILITY);
    sax_config_fini(&cfg);
    assert_int_equal(parse_layout(model14, 4, "\"layer_split\": \"uniform\", ", "", &cfg, &err), SAX_OK);
    assert_int_equal(cfg.candidate.layer_split, SAX_LAYER_SPLIT_UNIFORM);
    assert_int_equal(sax_model_eval(&cfg.problem, &cfg.candidate, sc, &r), SAX_OK);
    assert_false(r.feasible);
    assert_int_equal(r.reason, SAX_INFEASIBLE_DIVISIBILITY);
    sax_config_fini(&cfg);
    free(sc);
}

/* A MoE file that leaves expert_tensor_parallel out for an ep that tp x ep does not fit: TP 2, DP 4 and EP
 * 8 on 8 GPUs need the experts' TP of 1 (8 x 1 fills tp x dp = 8; 8 x 2 would need 16), the one setting
 * Megatron-Core runs; EP 16 fits neither and stays divisibility, as does an etp of 2 asked by name. */
static void test_unstated_expert_tp(void **state)
{
    (void)state;
    static const char *fmt =
        "{\"model\": {\"name\": \"moe\", \"layers\": 4, \"hidden\": 1024, \"ffn_hidden\": 4096, "
        "\"heads\": 8, \"kv_heads\": 8, \"vocab\": 32768, \"seq_len\": 1024, \"ffn_act\": \"swiglu\", "
        "\"experts\": 64, \"top_k\": 8, \"expert_ffn_hidden\": 512}, \"training\": {\"global_batch\": 8}, "
        "\"cluster\": {\"gpu\": \"H100\", \"scale_up\": {\"size\": 8, \"bandwidth\": \"450 GB/s\", "
        "\"latency\": \"2 us\"}, \"sites\": [{\"name\": \"s\", \"gpus\": 8}]}, \"parallelism\": {\"tp\": 2, "
        "\"dp\": 4, \"ep\": %d%s}, \"network\": {}}";
    static const struct {
        int ep;
        const char *extra;
        int etp;
        bool feasible;
    } cases[] = {{8, "", 1, true}, {16, "", 0, false}, {8, ", \"expert_tensor_parallel\": 2", 2, false}};
    sax_scratch_t *sc = malloc(sax_scratch_size());
    assert_non_null(sc);
    sax_scratch_init(sc);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text, fmt, cases[i].ep, cases[i].extra);
        sax_config_t cfg;
        sax_error_t err = {{0}};
        assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_OK);
        assert_int_equal(cfg.candidate.etp, cases[i].etp);
        sax_result_t r;
        assert_int_equal(sax_model_eval(&cfg.problem, &cfg.candidate, sc, &r), SAX_OK);
        if (r.feasible != cases[i].feasible ||
            (!cases[i].feasible && r.reason != SAX_INFEASIBLE_DIVISIBILITY))
            fail_msg("case %zu: feasible %d reason %d", i, r.feasible, (int)r.reason);
        sax_config_fini(&cfg);
    }
    free(sc);
}

/* A layout's virtual stages reach the evaluation: it must time the pipeline exactly as the splits it
 * spells out. 62 layers on PP4: Megatron's embedding-and-loss split (16 a stage, the first and last 15;
 * under VPP4 their end chunks 3 and the others 4) against the layouts of the same layers. */
static void test_pipeline_layout_reaches_eval(void **state)
{
    (void)state;
    sax_scratch_t *sc = malloc(sax_scratch_size());
    assert_non_null(sc);
    sax_scratch_init(sc);
    static const struct {
        int vpp;
        const char *layout;
    } same[] = {{1, "Et*15|t*16|t*16|t*15L"}, {4, "Et*3|(t*4|)*14,t*3L"}};
    for (size_t i = 0; i < 2; i++) {
        sax_config_t a, b;
        sax_error_t err = {{0}};
        assert_int_equal(
            parse_layout(model62, same[i].vpp, "\"layer_split\": \"embedding-loss\", ", "", &a, &err),
            SAX_OK);
        assert_int_equal(parse_layout(model62, same[i].vpp, "", same[i].layout, &b, &err), SAX_OK);
        sax_result_t ra, rb;
        assert_int_equal(sax_model_eval(&a.problem, &a.candidate, sc, &ra), SAX_OK);
        assert_int_equal(sax_model_eval(&b.problem, &b.candidate, sc, &rb), SAX_OK);
        assert_true(ra.feasible && rb.feasible);
        if (fabs(ra.iteration_time_s - rb.iteration_time_s) > 1e-12 * ra.iteration_time_s ||
            fabs(ra.memory_per_gpu_bytes - rb.memory_per_gpu_bytes) > 1e-9 * ra.memory_per_gpu_bytes)
            fail_msg("vpp %d: embedding-loss %.12g s %.12g B, layout %.12g s %.12g B", same[i].vpp,
                     ra.iteration_time_s, ra.memory_per_gpu_bytes, rb.iteration_time_s,
                     rb.memory_per_gpu_bytes);
        sax_config_fini(&a);
        sax_config_fini(&b);
    }
    /* a layout that moves layers between the virtual stages of the last stage changes the timing */
    sax_config_t c, d;
    sax_error_t err = {{0}};
    assert_int_equal(parse_layout(model62, 4, "", "Et*3|(t*4|)*14,t*3L", &c, &err), SAX_OK);
    assert_int_equal(parse_layout(model62, 4, "", "Et*3|(t*4|)*11,t*5|t*4|t*4|t*2L", &d, &err), SAX_OK);
    sax_result_t rc, rd;
    assert_int_equal(sax_model_eval(&c.problem, &c.candidate, sc, &rc), SAX_OK);
    assert_int_equal(sax_model_eval(&d.problem, &d.candidate, sc, &rd), SAX_OK);
    assert_true(rc.iteration_time_s != rd.iteration_time_s);
    sax_config_fini(&c);
    sax_config_fini(&d);
    free(sc);
}

/* parallelism.recompute_modules: Megatron-Core's module names sax prices, each once, into a mask. */
static void test_recompute_modules(void **state)
{
    (void)state;
    const char *fmt =
        "{\"model\": \"llama3-8b\", \"training\": {\"global_batch\": 8}, \"cluster\": {\"gpu\": \"H100\","
        " \"scale_up\": {\"size\": 8, \"bandwidth\": \"450 GB/s\", \"latency\": \"2 us\"},"
        " \"sites\": [{\"name\": \"s\", \"gpus\": 8}]},"
        " \"parallelism\": {\"tp\": 8, \"recompute\": \"selective\", \"recompute_modules\": %s}, \"network\": {}}";
    char text[1024];
    sax_config_t cfg;
    sax_error_t err = {{0}};
    snprintf(text, sizeof text, fmt, "[\"layernorm\", \"core_attn\"]");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_OK);
    assert_int_equal(cfg.candidate.recompute_modules,
                     (1u << SAX_RECOMPUTE_MODULE_LAYERNORM) | (1u << SAX_RECOMPUTE_MODULE_CORE_ATTN));
    sax_config_fini(&cfg);
    snprintf(text, sizeof text, fmt, "[]");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_OK);
    assert_int_equal(cfg.candidate.recompute_modules, 0u);
    sax_config_fini(&cfg);
    snprintf(text, sizeof text, fmt, "[\"layernorm\", \"mlp\"]");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(
        err.text, "inline: parallelism.recompute_modules[1]: expected one of \"core_attn\", \"layernorm\", "
                  "\"mla_up_proj\", \"moe_act\" (the modules sax prices), found \"mlp\""));
    /* Megatron-Core refuses mla_up_proj without multi-latent attention; moe_act is refused without experts */
    snprintf(text, sizeof text, fmt, "[\"layernorm\", \"mla_up_proj\"]");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text,
                           "inline: parallelism.recompute_modules[1]: expected \"mla_up_proj\" only "
                           "with multi-head latent attention (model.kv_lora_rank > 0), found "
                           "model.kv_lora_rank 0"));
    snprintf(text, sizeof text, fmt, "[\"moe_act\"]");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text,
                           "inline: parallelism.recompute_modules[0]: expected \"moe_act\" only with "
                           "routed experts (model.experts > 0), found a dense model"));
    snprintf(text, sizeof text, fmt, "[\"layernorm\", \"layernorm\"]");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "expected each module once, found \"layernorm\" twice"));
    snprintf(text, sizeof text, fmt, "\"layernorm\"");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "parallelism.recompute_modules: expected a list of module names"));
}

/* torchtitan's per-op policy replaces Megatron's modules and is priced for dense models without MLA. */
static void test_selective_ac_option(void **state)
{
    (void)state;
    const char *fmt =
        "{\"model\": \"%s\", \"training\": {\"global_batch\": 8, \"selective_ac_option\": \"op\"},"
        " \"cluster\": {\"gpu\": \"H100\", \"scale_up\": {\"size\": 8, \"bandwidth\": \"450 GB/s\","
        " \"latency\": \"2 us\"}, \"sites\": [{\"name\": \"s\", \"gpus\": 8}]},"
        " \"parallelism\": {\"tp\": 8, \"recompute\": \"selective\"%s}, \"network\": {}}";
    char text[1024];
    sax_config_t cfg;
    sax_error_t err = {{0}};
    snprintf(text, sizeof text, fmt, "llama3-8b", "");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_OK);
    assert_int_equal(cfg.problem.training.selective_ac_option, SAX_SELECTIVE_AC_OP);
    sax_config_fini(&cfg);
    snprintf(text, sizeof text, fmt, "llama3-8b", ", \"recompute_modules\": [\"layernorm\"]");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "inline: training.selective_ac_option: expected \"modules\" with "
                                     "parallelism.recompute_modules (Megatron-Core's modules), or \"op\" "
                                     "without it, found \"op\" and 1 modules"));
    snprintf(text, sizeof text, fmt, "mixtral-8x7b", "");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "inline: training.selective_ac_option: expected \"modules\": \"op\" "
                                     "(torchtitan's per-op policy) is priced for dense models without "
                                     "multi-head latent attention, found model.experts 8"));
}

/* MXFP8 needs Blackwell: on H100 the file is refused at training.fp8_recipe with the site and GPU, on
 * B200 it is read. */
static void test_mxfp8_needs_blackwell(void **state)
{
    (void)state;
    const char *fmt =
        "{\"model\": \"llama3-8b\", \"training\": {\"global_batch\": 8, \"precision\": \"fp8\","
        " \"fp8_recipe\": \"mxfp8\"}, \"cluster\": {\"gpu\": \"%s\", \"scale_up\": {\"size\": 8,"
        " \"bandwidth\": \"450 GB/s\", \"latency\": \"2 us\"}, \"sites\": [{\"name\": \"s\", \"gpus\": 8}]},"
        " \"parallelism\": {\"tp\": 8}, \"network\": {}}";
    char text[1024];
    sax_config_t cfg;
    sax_error_t err = {{0}};
    snprintf(text, sizeof text, fmt, "B200");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_OK);
    assert_int_equal(cfg.problem.training.fp8_recipe, SAX_FP8_RECIPE_MXFP8);
    sax_config_fini(&cfg);
    snprintf(text, sizeof text, fmt, "H100");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text,
                           "inline: training.fp8_recipe: expected \"delayed\" or \"tensorwise\": site "
                           "\"s\" has GPU \"H100\" without MXFP8"));
}

/* PyTorch eager is priced for torchtitan's Llama block: a dense SwiGLU model is accepted, an MoE or a
 * GELU model is refused with the key and what was found. */
static void test_elementwise_kernels(void **state)
{
    (void)state;
    const char *fmt =
        "{\"model\": \"%s\", \"training\": {\"global_batch\": 8, \"elementwise_kernels\": \"eager\"},"
        " \"cluster\": {\"gpu\": \"H100\", \"scale_up\": {\"size\": 8, \"bandwidth\": \"450 GB/s\","
        " \"latency\": \"2 us\"}, \"sites\": [{\"name\": \"s\", \"gpus\": 8}]},"
        " \"parallelism\": {\"tp\": 8}, \"network\": {}}";
    char text[1024];
    sax_config_t cfg;
    sax_error_t err = {{0}};
    snprintf(text, sizeof text, fmt, "llama3-8b");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_OK);
    assert_int_equal(cfg.problem.training.elementwise_kernels, SAX_ELEMENTWISE_EAGER);
    sax_config_fini(&cfg);
    snprintf(text, sizeof text, fmt, "mixtral-8x7b");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "inline: training.elementwise_kernels: expected \"fused\": \"eager\" "
                                     "(PyTorch eager) is priced for torchtitan's Llama block, a dense SwiGLU "
                                     "model without multi-head latent attention, found model.ffn_act "
                                     "\"swiglu\", model.experts 8"));
    snprintf(text, sizeof text, fmt, "gpt3-175b");
    assert_int_equal(sax_config_parse(text, "inline", &cfg, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "found model.ffn_act \"gelu\", model.experts 0"));
}

/* Which preset's fitted efficiencies a GPU object without "preset" takes: by a word of its name, by an
 * alias of the die, or by its dense BF16 peak; the A100's GEMM ceiling is 0.756 and the H100's 0.670
 * (io/config/presets.c), the generic default 0.80 (model/defaults.c). */
static void test_gpu_calibration_by_name(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double peak;
        bool found;
        double eff_max;
    } cases[] = {
        {"H100", 0.0, true, 0.670},
        {"NVIDIA H100 SXM5 80GB", 0.0, true, 0.670},
        {"h100-sxm", 0.0, true, 0.670},
        {"A100-SXM4-80GB", 0.0, true, 0.756},
        {"a100_40gb", 0.0, true, 0.756},
        {"H800", 0.0, true, 0.670},              /* the export H100 */
        {"A800 80GB", 0.0, true, 0.756},         /* the export A100 */
        {"Hopper", 989e12, true, 0.670},         /* known by its peak */
        {"custom", 312e12 * 1.005, true, 0.756}, /* within 1 % */
        {"custom", 900e12, false, 0.80},         /* no preset's peak */
        {"H1000", 0.0, false, 0.80},             /* a word, not a prefix */
        {"MI300X", 0.0, false, 0.80},
        {NULL, 0.0, false, 0.80},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sax_gpu_t g;
        memset(&g, 0, sizeof g);
        sax_gpu_set_defaults(&g);
        bool found = sax_preset_gpu_calibration(cases[i].name, cases[i].peak, &g);
        if (found != cases[i].found || fabs(g.gemm_eff_max - cases[i].eff_max) > 1e-12)
            fail_msg("%s (%g FLOP/s): found %d, gemm_efficiency_max %g; expected %d, %g",
                     cases[i].name ? cases[i].name : "(no name)", cases[i].peak, found, g.gemm_eff_max,
                     cases[i].found, cases[i].eff_max);
    }
    /* and the die's FP8, dense, from NVIDIA's data sheets: H100 SXM 1979 TFLOP/s, H100 PCIe (756 BF16)
     * 1513, B200 4500 with MXFP8; the A100 has none */
    static const struct {
        const char *name;
        double peak, fp8;
        bool mxfp8;
    } fp8[] = {{"NVIDIA H100 SXM5 80GB", 0.0, 1979e12, false},
               {"H100 PCIe", 756e12, 1513e12, false},
               {"Hopper", 989e12, 1979e12, false},
               {"NVIDIA B200", 0.0, 4500e12, true},
               {"A100-SXM4-40GB", 312e12, 0.0, false}};
    for (size_t i = 0; i < sizeof fp8 / sizeof fp8[0]; i++) {
        sax_gpu_t g;
        memset(&g, 0, sizeof g);
        assert_true(sax_preset_gpu_calibration(fp8[i].name, fp8[i].peak, &g));
        if (fabs(g.peak_flops_fp8 - fp8[i].fp8) > 0.001 * fp8[i].fp8 || g.mxfp8 != fp8[i].mxfp8)
            fail_msg("%s: FP8 peak %g, mxfp8 %d; expected %g, %d", fp8[i].name, g.peak_flops_fp8, g.mxfp8,
                     fp8[i].fp8, fp8[i].mxfp8);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_calibration_by_name),
        cmocka_unit_test(test_contract_eval),
        cmocka_unit_test(test_contract_sweep),
        cmocka_unit_test(test_presets_and_distance),
        cmocka_unit_test(test_moe_sweep_scenarios),
        cmocka_unit_test(test_every_example_round_trip),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_bad_corpus_covered),
        cmocka_unit_test(test_missing_file_and_text),
        cmocka_unit_test(test_contract_gpu_object_in_fp8),
        cmocka_unit_test(test_fp16_gradients_by_default),
        cmocka_unit_test(test_scenarios_beyond_cluster),
        cmocka_unit_test(test_pipeline_layout_parse),
        cmocka_unit_test(test_pipeline_layout_reaches_eval),
        cmocka_unit_test(test_default_split_when_layers_are_few),
        cmocka_unit_test(test_unstated_expert_tp),
        cmocka_unit_test(test_recompute_modules),
        cmocka_unit_test(test_selective_ac_option),
        cmocka_unit_test(test_mxfp8_needs_blackwell),
        cmocka_unit_test(test_elementwise_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
