/* cmd_report.c - `sax report`: best configuration per scenario against the baselines, with plots. Not implemented yet. */
#include "cli.h"

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 2;
}

const sax_command_t sax_command_report = {
    .name = "report",
    .synopsis = "RESULTS.h5 [--svg-dir DIR]",
    .summary = "best configuration per scenario against the baselines, with plots",
    .help = "Not implemented yet.\n",
    .needs_mpi = false,
    .implemented = false,
    .run = run,
};
