/* cmd_report.c - `sax report`: per scenario, the best configuration against the baselines
 * (speedup), and the plots (io/reports/report.c, io/reports/report_plots.c). */
#include "cli.h"
#include "sax_reports.h"
#include "sax_results.h"

#include <stdio.h>
#include <string.h>

static int usage(const char *why)
{
    fprintf(stderr, "sax report: %s\nusage: sax report RESULTS.h5 [--svg-dir DIR]\n", why);
    return 2;
}

static int run(int argc, char **argv)
{
    const char *path = NULL, *svg_dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--svg-dir") == 0 && i + 1 < argc)
            svg_dir = argv[++i];
        else if (strncmp(argv[i], "--svg-dir=", 10) == 0)
            svg_dir = argv[i] + 10;
        else if (argv[i][0] == '-')
            return usage("unknown option or missing value");
        else if (path)
            return usage("one results file only");
        else
            path = argv[i];
    }
    if (!path)
        return usage("no results file given");
    sax_error_t err = {{0}};
    sax_results_data_t d;
    sax_status_t st = sax_results_read(path, false, &d, &err); /* /rows is streamed */
    if (st == SAX_OK) {
        printf("%s\n", path);
        st = sax_report_write(stdout, &d, svg_dir, &err);
        sax_results_data_fini(&d);
    }
    if (st != SAX_OK) {
        fflush(stdout);
        fprintf(stderr, "sax report: %s\n", err.text);
    }
    return sax_status_exit_code(st);
}

const sax_command_t sax_command_report = {
    .name = "report",
    .synopsis = "RESULTS.h5 [--svg-dir DIR]",
    .summary = "best configuration per scenario against the baselines, with plots",
    .help =
        "Prints, for each scenario of a results file (sax sweep -o), the fastest configuration with its\n"
        "breakdown, and for each baseline of the configuration the fastest candidate that agrees with\n"
        "it and its speedup: baseline time / best time. From the file's /answer (docs/decisions.md):\n"
        "the candidates tied with the best and the simplest of them, the best lossless candidate when\n"
        "the best compresses, each speedup split into placement, scheduling and network, the pick of\n"
        "a network-oblivious optimiser (predicted and real time), and the robust candidate's regret in\n"
        "every scenario. Files without /answer (older sweeps) report the rest.\n\n"
        "options:\n"
        "  --svg-dir DIR   also draw standalone SVG plots into DIR (created if missing):\n"
        "                  pareto-s<N>.svg     step time vs cross-site traffic per iteration: the\n"
        "                                      candidates, their Pareto front, the best, the baselines\n"
        "                  breakdown-s<N>.svg  stacked bars of compute, bubble and exposed TP/CP/EP/PP/DP\n"
        "                                      time for the best, each baseline and the oblivious pick\n"
        "                  attribution-s<N>.svg each baseline's speedup on a log axis, stacked from its\n"
        "                                      placement, scheduling and network factors\n"
        "                  robust-regret.svg   the robust candidate's regret in each scenario\n"
        "                  scenario-var<V>.svg best step time and speedup over the first baseline against\n"
        "                                      swept variable V, one line per placement (order)\n"
        "                  Open them in a browser; hover a point for its configuration.\n\n"
        "example:\n"
        "  sax report results.h5 --svg-dir plots/\n\n"
        "A file that is not HDF5, not from sax or of another results format version is bad input\n"
        "(exit status 2); a plot that cannot be written is a failed run (1).\n",
    .needs_mpi = false,
    .implemented = true,
    .run = run,
};
