/* cmd_sweep.c - `sax sweep`: explore the space section exhaustively across MPI ranks. Not implemented yet. */
#include "cli.h"

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 2;
}

const sax_command_t sax_command_sweep = {
    .name = "sweep",
    .synopsis = "CONFIG.json -o RESULTS.h5 [--json] [--resume] [--search exhaustive|pruned]",
    .summary = "explore the space section exhaustively across MPI ranks",
    .help = "Not implemented yet.\n",
    .needs_mpi = true,
    .implemented = false,
    .run = run,
};
