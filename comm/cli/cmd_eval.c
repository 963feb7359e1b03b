/* cmd_eval.c - `sax eval`: evaluate one configuration with the cost model. Not implemented yet. */
#include "cli.h"

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 2;
}

const sax_command_t sax_command_eval = {
    .name = "eval",
    .synopsis = "CONFIG.json [--json] [--trace FILE.json]",
    .summary = "evaluate one configuration with the cost model",
    .help = "Not implemented yet.\n",
    .needs_mpi = false,
    .implemented = false,
    .run = run,
};
