/* cmd_eval.c - `sax eval`: the cost model on the one configuration a file fixes. */
#include "cli.h"
#include "cli_output.h"
#include "cli_print.h"
#include "sax_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: sax eval CONFIG.json [--json] [--trace FILE.json]\n");
    return 2;
}

static int run(int argc, char **argv)
{
    const char *path = NULL, *trace = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc)
            trace = argv[++i];
        else if (argv[i][0] == '-' || path != NULL)
            return usage();
        else
            path = argv[i];
    }
    if (path == NULL)
        return usage();
    sax_config_t cfg;
    sax_error_t err = {{0}};
    const char *inputs[] = {path, NULL};
    sax_status_t st = sax_cli_check_output(trace, inputs, &err);
    if (st != SAX_OK) {
        fprintf(stderr, "sax eval: %s\n", err.text);
        return sax_status_exit_code(st);
    }
    st = sax_config_load(path, &cfg, &err);
    if (st != SAX_OK) {
        fprintf(stderr, "sax eval: %s\n", err.text);
        return sax_status_exit_code(st);
    }
    if (!cfg.has_candidate) {
        fprintf(stderr,
                "sax eval: %s: expected a `parallelism` section fixing one configuration, found none\n",
                path);
        sax_config_fini(&cfg);
        return 2;
    }
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    if (scratch != NULL)
        sax_scratch_init(scratch);
    if (scratch == NULL) {
        sax_config_fini(&cfg);
        fprintf(stderr, "sax eval: out of memory\n");
        return 1;
    }
    sax_result_t r;
    sax_bottleneck_t bn[SAX_BN_PHASE_COUNT];
    int rc = 0, n_bn = 0;
    st = sax_model_eval(&cfg.problem, &cfg.candidate, scratch, &r);
    if (st == SAX_OK)
        st = sax_model_explain(&cfg.problem, &cfg.candidate, scratch, bn, &n_bn);
    if (st != SAX_OK) {
        fprintf(stderr, "sax eval: %s: the configuration cannot be evaluated (%s)\n", path,
                sax_status_message(st));
        rc = sax_status_exit_code(st);
    } else if (json) {
        cli_print_eval_json(stdout, &cfg.problem, &r, bn, n_bn);
        fputc('\n', stdout);
    } else {
        printf("%s\n", path);
        cli_print_candidate_line(stdout, &cfg.candidate);
        printf("\n\n");
        cli_print_result_text(stdout, &cfg.problem, &r);
        cli_print_bottlenecks_text(stdout, bn, n_bn);
    }
    if (rc == 0 && trace != NULL)
        rc = cli_write_trace(trace, &cfg.problem, &cfg.candidate, scratch);
    free(scratch);
    sax_config_fini(&cfg);
    return rc;
}

const sax_command_t sax_command_eval = {
    .name = "eval",
    .synopsis = "CONFIG.json [--json] [--trace FILE.json]",
    .summary = "evaluate one configuration with the cost model",
    .help = "usage: sax eval CONFIG.json [--json] [--trace FILE.json]\n\n"
            "Evaluates the one training configuration that CONFIG.json's `parallelism` and `network`\n"
            "sections fix, on its `model`, `training` and `cluster` (docs/config.md), and prints the\n"
            "predicted iteration time, throughput, MFU, memory per GPU, bytes crossing site links and\n"
            "the breakdown of the iteration (compute, pipeline bubble, exposed TP/CP/EP/PP/DP traffic),\n"
            "and in words what limits each phase that takes time.\n"
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
            "                  oversubscription, nic or scale_up (docs/cost-model.md section 10)\n"
            "  --trace FILE    write the simulated iteration as Chrome trace-event JSON (open it in\n"
            "                  https://ui.perfetto.dev or chrome://tracing): one track per pipeline\n"
            "                  stage with its forward/backward/weight-gradient events, and the\n"
            "                  transfers over each stage boundary\n\n"
            "exit status: 0 evaluated (also when the configuration is infeasible: see `feasible`);\n"
            "             1 the trace file could not be written; 2 bad usage or bad configuration\n",
    .needs_mpi = false,
    .implemented = true,
    .run = run,
};
