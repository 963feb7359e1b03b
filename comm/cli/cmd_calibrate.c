/* cmd_calibrate.c - `sax calibrate`: fit model parameters to measurements (PETSc least squares). Not implemented yet. */
#include "cli.h"

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 2;
}

const sax_command_t sax_command_calibrate = {
    .name = "calibrate",
    .synopsis = "MEASUREMENTS.json -c CONFIG.json -o CALIBRATED.json",
    .summary = "fit model parameters to measurements (PETSc least squares)",
    .help = "Not implemented yet.\n",
    .needs_mpi = true,
    .implemented = false,
    .run = run,
};
