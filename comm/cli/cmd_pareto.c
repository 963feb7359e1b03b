/* cmd_pareto.c - `sax pareto`: Pareto analysis of a results file. Not implemented yet. */
#include "cli.h"

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 2;
}

const sax_command_t sax_command_pareto = {
    .name = "pareto",
    .synopsis = "RESULTS.h5 [--objectives a,b] [--scenario N] [--csv FILE] [--svg FILE]",
    .summary = "Pareto analysis of a results file",
    .help = "Not implemented yet.\n",
    .needs_mpi = false,
    .implemented = false,
    .run = run,
};
