/* cmd_eval.c - `sax eval`: the cost model on the one configuration a file fixes. */
#include "cli.h"
#include "cli_output.h"
#include "cli_print.h"
#include "sax_config.h"
#include "sax_results.h"
#include "sax_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USAGE                                                                                                \
    "sax eval CONFIG.json [--json] [--trace FILE.json] [--write-config FILE.json]\n"                         \
    "       sax eval RESULTS.h5 --candidate N [--json] [--trace FILE.json] [--write-config FILE.json]"

static int usage(const char *why)
{
    if (why != NULL)
        fprintf(stderr, "sax eval: %s\n", why);
    fprintf(stderr, "usage: " USAGE "\n");
    return 2;
}

typedef struct {
    const char *path, *trace, *write_config;
    bool json;
    long long candidate; /* -1: the path is a configuration */
} eval_args_t;

/* What is evaluated: the configuration's problem and candidate, or a results file's candidate N in
 * its scenario. `cfg` and `s` own what `p` and `c` point to. */
typedef struct {
    sax_config_t cfg;
    sax_search_t *s;
    const sax_problem_t *p;
    const sax_candidate_t *c;
    int scenario;
} target_t;

/* Whether `path` starts with HDF5's signature (a results file given without --candidate). */
static bool is_hdf5(const char *path)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char head[8] = {0};
    FILE *f = fopen(path, "rb");
    bool yes =
        f != NULL && fread(head, 1, sizeof head, f) == sizeof head && memcmp(head, sig, sizeof sig) == 0;
    if (f != NULL)
        fclose(f);
    return yes;
}

static sax_status_t load_config(const eval_args_t *a, target_t *t, sax_error_t *err)
{
    if (is_hdf5(a->path))
        return sax_error_set(err, SAX_ERR_INPUT,
                             "%s: expected a configuration, found an HDF5 file: to evaluate a candidate of a "
                             "sweep's results, add --candidate N",
                             a->path);
    sax_status_t st = sax_config_load(a->path, &t->cfg, err);
    if (st == SAX_OK && !t->cfg.has_candidate)
        st = sax_error_set(err, SAX_ERR_INPUT,
                           "%s: expected a `parallelism` section fixing one configuration, found none (a "
                           "results file takes --candidate N)",
                           a->path);
    t->p = &t->cfg.problem;
    t->c = &t->cfg.candidate;
    t->scenario = -1;
    return st;
}

/* Candidate N of a results file: its configuration (as the sweep read it), its space, the scenario
 * the index falls in. */
static sax_status_t load_candidate(const eval_args_t *a, target_t *t, sax_search_cursor_t *cur,
                                   sax_error_t *err)
{
    sax_results_data_t d;
    sax_status_t st = sax_results_read(a->path, false, &d, err);
    if (st != SAX_OK)
        return st;
    st = sax_config_parse(d.res.config_json, a->path, &t->cfg, err);
    sax_results_data_fini(&d);
    if (st == SAX_OK && !t->cfg.has_space)
        st = sax_error_set(err, SAX_ERR_INPUT,
                           "%s: its configuration has no space to take candidate %lld from", a->path,
                           a->candidate);
    if (st == SAX_OK)
        st = sax_search_create(&t->cfg.space, t->cfg.has_candidate ? &t->cfg.candidate : NULL,
                               t->cfg.scenarios, t->cfg.n_scenarios, &t->s, err);
    if (st != SAX_OK)
        return st;
    int64_t size = sax_search_size(t->s);
    if (a->candidate >= size)
        return sax_error_set(err, SAX_ERR_INPUT,
                             "--candidate: expected an index from 0 to %lld (the space of %s), found %lld",
                             (long long)size - 1, a->path, a->candidate);
    sax_search_seek(t->s, a->candidate, cur);
    if (cur->skip != SAX_SKIP_NONE)
        return sax_error_set(err, SAX_ERR_INPUT, "%s: candidate %lld is never valid: %s", a->path,
                             a->candidate, sax_skip_messages[cur->skip]);
    t->scenario = cur->scenario;
    t->p = sax_search_problem(t->s, cur->scenario);
    t->c = &cur->candidate;
    return SAX_OK;
}

static int parse_args(int argc, char **argv, eval_args_t *a)
{
    memset(a, 0, sizeof *a);
    a->candidate = -1;
    for (int i = 1; i < argc; i++) {
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--json") == 0) {
            a->json = true;
        } else if (strcmp(argv[i], "--trace") == 0 || strcmp(argv[i], "--write-config") == 0) {
            if (val == NULL)
                return usage("--trace and --write-config: expected a file name");
            const char **dst = argv[i][2] == 't' ? &a->trace : &a->write_config;
            *dst = val;
            i++;
        } else if (strcmp(argv[i], "--candidate") == 0) {
            char *end = NULL;
            long long n = val != NULL ? strtoll(val, &end, 10) : -1;
            if (val == NULL || *end != '\0' || n < 0)
                return usage(
                    "--candidate: expected a candidate index >= 0 (as sweep, pareto and report print it)");
            a->candidate = n;
            i++;
        } else if (argv[i][0] == '-' || a->path != NULL) {
            return usage(NULL);
        } else {
            a->path = argv[i];
        }
    }
    return a->path == NULL ? usage(NULL) : 0;
}

static int run(int argc, char **argv)
{
    eval_args_t a;
    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc;
    target_t t;
    memset(&t, 0, sizeof t);
    sax_search_cursor_t cur;
    sax_error_t err = {{0}};
    const char *inputs[] = {a.path, NULL};
    sax_status_t st = sax_cli_check_output(a.trace, inputs, &err);
    if (st == SAX_OK)
        st = sax_cli_check_output(a.write_config, inputs, &err);
    if (st == SAX_OK)
        st = a.candidate >= 0 ? load_candidate(&a, &t, &cur, &err) : load_config(&a, &t, &err);
    sax_scratch_t *scratch = st == SAX_OK ? malloc(sax_scratch_size()) : NULL;
    if (st == SAX_OK && scratch == NULL)
        st = sax_error_set(&err, SAX_ERR_NOMEM, "out of memory");
    if (st != SAX_OK) {
        fprintf(stderr, "sax eval: %s\n", err.text);
        rc = sax_status_exit_code(st);
        goto out;
    }
    sax_scratch_init(scratch);
    sax_result_t r;
    sax_bottleneck_t bn[SAX_BN_PHASE_COUNT];
    int n_bn = 0;
    sax_memory_fit_t fits[SAX_LEVER_COUNT];
    int n_fits = 0;
    sax_unstated_t un[SAX_UNSTATED_MAX];
    int n_un = 0;
    st = sax_model_eval(t.p, t.c, scratch, &r);
    if (st == SAX_OK)
        st = sax_model_explain(t.p, t.c, scratch, bn, &n_bn);
    if (st == SAX_OK)
        st = sax_model_memory_fits(t.p, t.c, scratch, fits, &n_fits);
    if (st == SAX_OK)
        st = sax_model_unstated(t.p, t.c, t.cfg.stated_software, scratch, un, &n_un);
    if (st != SAX_OK) {
        fprintf(stderr, "sax eval: %s: the configuration cannot be evaluated (%s)\n", a.path,
                sax_status_message(st));
        rc = sax_status_exit_code(st);
        goto out;
    }
    if (a.json) {
        cli_print_eval_json(stdout, t.p, &r, bn, n_bn, fits, n_fits, un, n_un, t.c);
        fputc('\n', stdout);
    } else {
        if (t.scenario >= 0)
            printf("%s, candidate %lld (scenario %d)\n", a.path, a.candidate, t.scenario);
        else
            printf("%s\n", a.path);
        cli_print_candidate_line(stdout, t.c);
        printf("\n\n");
        cli_print_result_text(stdout, t.p, &r);
        if (!r.feasible)
            cli_print_refusal_text(stdout, t.p, t.c);
        if (!r.feasible && r.reason == SAX_INFEASIBLE_MEMORY)
            cli_print_fits_text(stdout, fits, n_fits);
        cli_print_bottlenecks_text(stdout, bn, n_bn);
        printf("\n");
        cli_print_unstated_text(stdout, un, n_un);
        if (n_un > 0)
            printf("\n");
        cli_print_job(stdout, t.p, t.c, false);
    }
    if (a.write_config != NULL) {
        char *text = NULL;
        st = sax_config_emit_candidate(t.p, t.c, &text);
        if (st == SAX_OK)
            st = sax_cli_write_text(a.write_config, text, &err);
        else
            sax_error_set(&err, st, "out of memory");
        free(text);
        if (st != SAX_OK) {
            fprintf(stderr, "sax eval: %s\n", err.text);
            rc = 1;
        } else if (!a.json) {
            printf("\neval-ready configuration: %s\n", a.write_config);
        }
    }
    if (rc == 0 && a.trace != NULL)
        rc = cli_write_trace(a.trace, t.p, t.c, scratch);
out:
    free(scratch);
    sax_search_destroy(&t.s);
    sax_config_fini(&t.cfg);
    return rc;
}

const sax_command_t sax_command_eval = {
    .name = "eval",
    .synopsis =
        "CONFIG.json | RESULTS.h5 --candidate N [--json] [--trace FILE.json] [--write-config FILE.json]",
    .summary = "evaluate one configuration with the cost model, and say how to run it",
    .help =
        "usage: " USAGE "\n\n"
        "Evaluates the one training configuration that CONFIG.json's `parallelism` and `network`\n"
        "sections fix, on its `model`, `training` and `cluster` (docs/config.md), and prints the\n"
        "predicted iteration time, throughput, MFU, memory per GPU, bytes crossing site links and\n"
        "the breakdown of the iteration (compute, pipeline bubble, exposed TP/CP/EP/PP/DP traffic),\n"
        "in words what limits each phase that takes time, the software settings the file leaves to\n"
        "sax's defaults that would move the answer by 1 % or more, and the job that runs it: Megatron-LM\n"
        "arguments, NCCL environment and rank order (docs/decisions.md).\n"
        "With RESULTS.h5 --candidate N it does the same for candidate N of the sweep that wrote the file\n"
        "(the index sweep, pareto and report print), in the scenario N belongs to.\n"
        "Runs without mpirun. docs/cost-model.md derives every number.\n\n"
        "options:\n"
        "  --json          print one JSON object instead of the table: feasible, infeasible_reason,\n"
        "                  iteration_time_s, tokens_per_s, mfu, model_flops_per_iteration,\n"
        "                  memory_per_gpu_bytes, cross_site_bytes_per_iteration, breakdown_s (compute,\n"
        "                  bubble, exposed_tp/cp/ep/pp/dp), and more;\n"
        "                  site_links: per link `between`, `bytes` (both directions), `busy_s`\n"
        "                  (its busier direction at capacity) and `utilisation` (busy_s / iteration);\n"
        "                  bottlenecks: per phase that takes time (compute, tp, cp, ep, pp with its\n"
        "                  bubble, dp, optimizer), longest first, `phase`, `exposed_s` and\n"
        "                  `limited_by`: compute, memory_bandwidth, latency, window, link_capacity,\n"
        "                  oversubscription, nic or scale_up (docs/cost-model.md section 10);\n"
        "                  dp_sync (ZeRO 0-2): why DP shows, `stage`, `waits_on` one_bucket,\n"
        "                  last_bucket or queue, `last_bucket_share` (docs/cost-model.md section 6);\n"
        "                  infeasible_detail (refused as gpus, divisibility, schedule, tp_domain or\n"
        "                  lossless_distance): the check it fails, in the configuration's keys;\n"
        "                  fits_with (a configuration too large for its GPUs' memory): each setting that\n"
        "                  alone makes it fit, fastest first, `key`, `value`, `memory_per_gpu_bytes` and\n"
        "                  `iteration_time_s` (recompute, micro_batch, zero, optimizer_moments_dtype,\n"
        "                  master_weights, grad_reduce_dtype, dropout, offload_activation_layers,\n"
        "                  recompute_modules, decoder_first/last_pipeline_num_layers);\n"
        "                  unstated (feasible): each other value of the software settings the file\n"
        "                  leaves out, farthest first: `key`, `value`, `feasible`, `iteration_time_s`,\n"
        "                  `change` or `infeasible_reason` (docs/decisions.md);\n"
        "                  job: `megatron_args`, `nccl_env` and `notes`\n"
        "  --candidate N   the path is a results file: evaluate its candidate N\n"
        "  --write-config FILE\n"
        "                  write the evaluated configuration (the scenario's cluster, the candidate's\n"
        "                  parallelism and network) as a configuration `sax eval FILE` takes\n"
        "  --trace FILE    write the iteration as Chrome trace-event JSON (Perfetto, chrome://tracing):\n"
        "                  per stage its forward/backward/weight-gradient events, tracks of exposed\n"
        "                  TP, CP, EP, DP traffic and the optimizer step, each stage boundary's\n"
        "                  transfers per direction, each site link's busy time per traffic class\n"
        "                  (docs/cost-model.md section 9.1)\n\n"
        "examples:\n"
        "  sax eval jobs/examples/campus-3bldg-llama405b.json\n"
        "  sax sweep jobs/examples/campus-3bldg-llama405b.json -o campus.h5 --json   # best: index N\n"
        "  sax eval campus.h5 --candidate N --write-config best.json\n\n"
        "exit status: 0 evaluated (also when the configuration is infeasible: see `feasible`);\n"
        "             1 an output file could not be written; 2 bad usage, configuration or candidate\n",
    .needs_mpi = false,
    .implemented = true,
    .run = run,
};
