/* cmd_calibrate.c - `sax calibrate`: fits model parameters to a cluster's own measurements by least
 * squares (PETSc) and writes a calibrated configuration (docs/calibration.md). The fit is small and
 * serial: under mpirun, rank 0 does it and every rank returns its exit status. */
#include "cli.h"
#include "cli_output.h"
#include "sax_calibration.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv)
{
    sax_calibrate_opts_t opts;
    memset(&opts, 0, sizeof opts);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "-c") == 0 || strcmp(a, "--config") == 0) {
            if (!has_value)
                return sax_cli_usage_error(&sax_command_calibrate, "%s: expected a configuration file", a);
            opts.config_path = argv[++i];
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (!has_value)
                return sax_cli_usage_error(&sax_command_calibrate, "%s: expected an output file name", a);
            opts.output_path = argv[++i];
        } else if (strcmp(a, "--holdout") == 0) {
            if (!has_value)
                return sax_cli_usage_error(&sax_command_calibrate, "%s: expected a dataset file", a);
            opts.holdout_path = argv[++i];
        } else if (strcmp(a, "--folds") == 0) {
            char *end = NULL;
            long k = has_value ? strtol(argv[i + 1], &end, 10) : 0;
            if (!has_value || end == argv[i + 1] || *end != '\0' || k < 2 || k > 100)
                return sax_cli_usage_error(&sax_command_calibrate,
                                           "--folds: expected an integer from 2 to 100");
            opts.folds = (int)k;
            i++;
        } else if (strcmp(a, "--leave-family-out") == 0) {
            opts.leave_family_out = true;
        } else if (strcmp(a, "--partial") == 0) {
            opts.partial = true;
        } else if (strcmp(a, "--no-prior") == 0) {
            opts.no_prior = true;
        } else if (strcmp(a, "--json") == 0) {
            opts.json = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            return sax_cli_usage_error(&sax_command_calibrate, "unknown option '%s'", a);
        } else if (opts.measurements_path != NULL) {
            return sax_cli_usage_error(&sax_command_calibrate, "more than one MEASUREMENTS.json: '%s'", a);
        } else {
            opts.measurements_path = a;
        }
    }
    if (opts.measurements_path == NULL)
        return sax_cli_usage_error(&sax_command_calibrate, "expected MEASUREMENTS.json");
    if (opts.leave_family_out && opts.folds > 0)
        return sax_cli_usage_error(&sax_command_calibrate,
                                   "--folds and --leave-family-out: expected one of them");
    if (opts.config_path == NULL)
        return sax_cli_usage_error(&sax_command_calibrate, "expected -c CONFIG.json");
    if (opts.output_path == NULL)
        return sax_cli_usage_error(&sax_command_calibrate, "expected -o CALIBRATED.json");

    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int status = 0;
    if (rank == 0) {
        sax_error_t err = {{0}};
        const char *inputs[] = {opts.measurements_path, opts.config_path, opts.holdout_path, NULL};
        sax_status_t st = sax_cli_check_output(opts.output_path, inputs, &err);
        if (st == SAX_OK)
            st = sax_calibrate_run(&opts, stdout, &err);
        fflush(stdout);
        if (st != SAX_OK)
            fprintf(stderr, "sax calibrate: %s\n", err.text);
        status = sax_status_exit_code(st);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return status;
}

const sax_command_t sax_command_calibrate = {
    .name = "calibrate",
    .synopsis =
        "MEASUREMENTS.json -c CONFIG.json -o CALIBRATED.json [--holdout DATASET.json] [--folds K | --leave-family-out] "
        "[--partial] [--no-prior] [--json]",
    .summary = "fit model parameters to measurements (PETSc least squares)",
    .help =
        "Fits the cost model to a cluster's own measurements and writes CALIBRATED.json: CONFIG.json with\n"
        "the fitted values written back as SI numbers, usable directly by eval, sweep and space\n"
        "(--holdout checks the calibration against a `sax validate` dataset).\n"
        "\n"
        "MEASUREMENTS.json (docs/calibration.md) holds any of:\n"
        "  collectives  nccl-tests outputs (all_reduce_perf, all_gather_perf, reduce_scatter_perf,\n"
        "               alltoall_perf, sendrecv_perf), unmodified, by file name relative to\n"
        "               MEASUREMENTS.json, each with op, tier (\"scale_up\", a tier name of CONFIG.json or\n"
        "               \"site_links[i]\"), gpus, algorithm (ring, tree) and stride (where the ranks\n"
        "               sat; default consecutive GPUs).\n"
        "               -> per level: an alpha-beta fit (latency per ring step, bus bandwidth), then the\n"
        "                  latency and bandwidth under which sax's own collective model (the one `sax\n"
        "                  collective` prints) reproduces the tables: those are written; and per table\n"
        "                  sax's prediction error as configured and as calibrated\n"
        "  gemms        {gpu, m, n, k, precision, time or tflops}\n"
        "               -> per GPU type: gemm_efficiency_max and gemm_efficiency_half_intensity\n"
        "  runs         {name, config (a full sax configuration), measured: {iteration_time_s}}\n"
        "               -> training.dp_overlap_efficiency, training.tp_overlap, training.step_overhead,\n"
        "                  and per GPU type memory_efficiency and (without GEMM rows)\n"
        "                  gemm_efficiency_max\n"
        "               A run (or --holdout case) refused for memory gets the memory settings its\n"
        "               config leaves unstated assumed so that it fits, as `sax validate` does; the\n"
        "               report names them under the run, and --json gives them as `assumed`\n"
        "Linear fits use PETSc KSPLSQR; the run parameters Levenberg-Marquardt, each step a KSPLSQR\n"
        "solve, on a soft-L1 loss of the runs' relative errors (quadratic up to about 5 %, linear\n"
        "beyond), each parameter held near its start value by a Gaussian prior (0.1 for a GPU's\n"
        "efficiencies and interference, 0.2 for the overlap and HybridEP shares, 0.05 s for the step\n"
        "overhead, against a run's 10 %; --no-prior drops it). The report gives every fitted value\n"
        "with its standard error, the residual of every measurement and, for runs, the k-fold\n"
        "cross-validated (held-out) error of iteration times.\n"
        "\n"
        "options:\n"
        "  -c, --config FILE     the configuration to calibrate (required)\n"
        "  -o, --output FILE     where to write the calibrated configuration (required)\n"
        "  --holdout DATASET     also predict the cases of a dataset (the `sax validate` format) before\n"
        "                        and after calibration\n"
        "  --folds K             folds of the cross-validation (default min(5, runs))\n"
        "  --leave-family-out    cross-validate by family instead: each run's `family` (a run without\n"
        "                        one is a family of its own) is predicted by the parameters fitted to\n"
        "                        the other families' runs; the report adds each family's held-out error\n"
        "  --partial             network levels without measurements keep their configured values\n"
        "                        (otherwise a level without data is an error)\n"
        "  --no-prior            fit the run parameters by their loss alone (by default each is\n"
        "                        held near its start value by a Gaussian prior: the report's `prior +-`)\n"
        "  --json                print the report as one JSON object\n"
        "\n"
        "Ill-posed input (one message size, one algorithm step count per level, GEMMs of one shape,\n"
        "fewer than 2 runs, a tier the configuration does not have) is an error naming what is\n"
        "missing (exit status 2), never a silent fit. Runs as a plain process or under mpirun (rank 0\n"
        "fits). PETSc options use the prefix calibrate_lsq_, e.g.\n"
        "PETSC_OPTIONS=-calibrate_lsq_ksp_converged_reason.\n"
        "\n"
        "example:\n"
        "  sax calibrate tests/data/calibration/measurements.json -c tests/data/calibration/cluster.json \\\n"
        "      -o calibrated.json\n",
    .needs_mpi = true,
    .implemented = true,
    .run = run,
};
