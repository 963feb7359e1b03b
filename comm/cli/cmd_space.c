/* cmd_space.c - `sax space`: size of the design space and an estimate of the sweep time. Not implemented yet. */
#include "cli.h"

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 2;
}

const sax_command_t sax_command_space = {
    .name = "space",
    .synopsis = "CONFIG.json",
    .summary = "size of the design space and an estimate of the sweep time",
    .help = "Not implemented yet.\n",
    .needs_mpi = false,
    .implemented = false,
    .run = run,
};
