/* probe_commands.c - a command table with known behaviour, linked with the real comm/cli/main.c into
 * sax_cli_probe, so the tests can watch what main does around run(): whether MPI is initialised,
 * which argv the command sees, that its status becomes the exit status, and that a command which
 * finalizes MPI itself or leaves it initialised both end cleanly. */
#include "cli.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

/* The first argument picks the status to return: ok 0, fail 1, bad 2, interrupt 3. */
static int status_of(int argc, char **argv)
{
    const char *const words[] = {"ok", "fail", "bad", "interrupt"};
    if (argc < 2)
        return 0;
    for (int i = 0; i < 4; i++)
        if (strcmp(argv[1], words[i]) == 0)
            return i;
    return 2;
}

static void print_args(int argc, char **argv)
{
    printf("argc=%d", argc);
    for (int i = 0; i < argc; i++)
        printf(" argv[%d]=%s", i, argv[i]);
    printf("\n");
}

/* A plain command: MPI must be untouched. */
static int run_plain(int argc, char **argv)
{
    int initialized = 1;
    MPI_Initialized(&initialized);
    printf("plain: MPI %s\n", initialized ? "initialized" : "not initialized");
    print_args(argc, argv);
    return initialized ? 1 : status_of(argc, argv);
}

/* An MPI command that leaves MPI initialised for main to finalize. */
static int run_mpi(int argc, char **argv)
{
    int initialized = 0, finalized = 1, rank = -1, size = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized) {
        printf("mpi: MPI not usable (initialized %d, finalized %d)\n", initialized, finalized);
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("mpi: rank %d of %d, allreduce %d\n", rank, size, sum);
    if (rank == 0)
        print_args(argc, argv);
    return sum == size ? status_of(argc, argv) : 1;
}

/* An MPI command that finalizes MPI itself before returning. */
static int run_mpi_finalizing(int argc, char **argv)
{
    int status = run_mpi(argc, argv);
    MPI_Finalize();
    printf("mpi: finalized by the command\n");
    return status;
}

static int run_never(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("unimplemented command ran\n");
    return 0;
}

const sax_command_t sax_command_eval = {
    .name = "eval",
    .synopsis = "[ok|fail|bad|interrupt]",
    .summary = "probe: plain process",
    .help = "Runs without MPI.\n",
    .needs_mpi = false,
    .implemented = true,
    .run = run_plain,
};
const sax_command_t sax_command_sweep = {
    .name = "sweep",
    .synopsis = "[ok|fail|bad|interrupt]",
    .summary = "probe: MPI, main finalizes",
    .help = "Runs with MPI.\n",
    .needs_mpi = true,
    .implemented = true,
    .run = run_mpi,
};
const sax_command_t sax_command_calibrate = {
    .name = "calibrate",
    .synopsis = "[ok|fail]",
    .summary = "probe: MPI, finalizes itself",
    .help = "Finalizes MPI itself.",
    .needs_mpi = true,
    .implemented = true,
    .run = run_mpi_finalizing,
};
const sax_command_t sax_command_pareto = {
    .name = "pareto",
    .synopsis = "X",
    .summary = "probe: unimplemented, MPI",
    .help = "Not implemented.\n",
    .needs_mpi = true,
    .implemented = false,
    .run = run_never,
};
const sax_command_t sax_command_report = {
    .name = "report",
    .synopsis = "X",
    .summary = "probe: unimplemented",
    .help = "Not implemented.\n",
    .needs_mpi = false,
    .implemented = false,
    .run = run_never,
};
const sax_command_t sax_command_validate = {
    .name = "validate",
    .synopsis = "X",
    .summary = "probe: unimplemented",
    .help = "Not implemented.\n",
    .needs_mpi = false,
    .implemented = false,
    .run = run_never,
};
const sax_command_t sax_command_space = {
    .name = "space",
    .synopsis = "X",
    .summary = "probe: unimplemented",
    .help = "Not implemented.\n",
    .needs_mpi = false,
    .implemented = false,
    .run = run_never,
};
const sax_command_t sax_command_collective = {
    .name = "collective",
    .synopsis = "X",
    .summary = "probe: unimplemented",
    .help = "Not implemented.\n",
    .needs_mpi = false,
    .implemented = false,
    .run = run_never,
};
