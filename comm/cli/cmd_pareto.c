/* cmd_pareto.c - `sax pareto`: the non-dominated candidates of a results file over chosen output
 * columns (io/reports/pareto_report.c does the work). */
#include "cli.h"
#include "cli_output.h"
#include "sax_reports.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(const char *why)
{
    fprintf(stderr,
            "sax pareto: %s\nusage: sax pareto RESULTS.h5 [--objectives a,b,...] [--scenario N] [--csv FILE] "
            "[--svg FILE]\n",
            why);
    return 2;
}

/* --name VALUE or --name=VALUE */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0)
        return NULL;
    if (argv[*i][len] == '=')
        return argv[*i] + len + 1;
    if (argv[*i][len] == '\0' && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static int run(int argc, char **argv)
{
    sax_pareto_opts_t o = {.scenario = -1};
    sax_error_t err = {{0}};
    const char *objectives = NULL, *v;
    for (int i = 1; i < argc; i++) {
        if ((v = option_value(argc, argv, &i, "--objectives")))
            objectives = v;
        else if ((v = option_value(argc, argv, &i, "--scenario"))) {
            char *end;
            long s = strtol(v, &end, 10);
            if (*v == '\0' || *end != '\0' || s < 0 || s > 1000000000)
                return usage("--scenario expects a scenario index (0, 1, ...)");
            o.scenario = (int)s;
        } else if ((v = option_value(argc, argv, &i, "--csv")))
            o.csv_path = v;
        else if ((v = option_value(argc, argv, &i, "--svg")))
            o.svg_path = v;
        else if (argv[i][0] == '-')
            return usage("unknown option or missing value");
        else if (o.path)
            return usage("one results file only");
        else
            o.path = argv[i];
    }
    if (!o.path)
        return usage("no results file given");
    const char *inputs[] = {o.path, NULL};
    sax_status_t st = sax_cli_check_output(o.csv_path, inputs, &err);
    if (st == SAX_OK)
        st = sax_cli_check_output(o.svg_path, inputs, &err);
    if (st == SAX_OK && objectives)
        st = sax_pareto_parse_objectives(objectives, &o, &err);
    if (st == SAX_OK)
        st = sax_pareto_report(&o, stdout, &err);
    if (st != SAX_OK) {
        fflush(stdout);
        fprintf(stderr, "sax pareto: %s\n", err.text);
    }
    return sax_status_exit_code(st);
}

const sax_command_t sax_command_pareto = {
    .name = "pareto",
    .synopsis = "RESULTS.h5 [--objectives a,b,...] [--scenario N] [--csv FILE] [--svg FILE]",
    .summary = "Pareto analysis of a results file",
    .help =
        "Prints, per scenario, the candidates of a results file (sax sweep -o) that no other candidate\n"
        "beats in every chosen objective, as a table. Time, traffic, memory and GPUs are minimised;\n"
        "mfu and tokens_per_s maximised. Two objectives take O(n log n) (sort and sweep).\n\n"
        "The candidates are every stored row when the sweep ran with --store feasible|all; otherwise\n"
        "those the file's reductions hold (/pareto, /top, best, best per value, baselines). Those\n"
        "contain the exact front when the objectives are among the sweep's own Pareto objectives\n"
        "(iteration_time_s, cross_site_bytes_per_iteration, ...); the output says when they may not.\n\n"
        "options:\n"
        "  --objectives a,b,...  output columns to trade off (default:\n"
        "                        iteration_time_s,cross_site_bytes_per_iteration); one of\n"
        "                        iteration_time_s tokens_per_s mfu model_flops_per_iteration\n"
        "                        memory_per_gpu_bytes cross_site_bytes_per_iteration compute_s bubble_s\n"
        "                        exposed_tp_s exposed_cp_s exposed_ep_s exposed_pp_s exposed_dp_s\n"
        "                        gpus_used\n"
        "  --scenario N          only scenario N (default: every scenario, one front each)\n"
        "  --csv FILE            write the front(s) as CSV: every row field of docs/results-format.md\n"
        "  --svg FILE            plot the first two objectives (first scenario shown): every\n"
        "                        candidate in grey, the front in blue\n\n"
        "examples:\n"
        "  sax pareto results.h5\n"
        "  sax pareto results.h5 --objectives iteration_time_s,memory_per_gpu_bytes --scenario 2 --svg f.svg\n\n"
        "An unknown objective, or a file that is not HDF5, not from sax or of another results format\n"
        "version, is bad input (exit status 2).\n",
    .needs_mpi = false,
    .implemented = true,
    .run = run,
};
