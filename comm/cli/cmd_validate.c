/* cmd_validate.c - `sax validate`: compare the model with measured training runs. Not implemented yet. */
#include "cli.h"

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 2;
}

const sax_command_t sax_command_validate = {
    .name = "validate",
    .synopsis = "DATASET.json [--json]",
    .summary = "compare the model with measured training runs",
    .help = "Not implemented yet.\n",
    .needs_mpi = false,
    .implemented = false,
    .run = run,
};
