/* test_results_bench.c - throughput of the collective /rows write (docs/performance.md, "Results
 * I/O"). Each rank writes N rows (default 20000, so that the suite stays fast); the rows are the
 * fixture's, or, with a second argument, the stored rows of a real results file repeated (for
 * realistic compression). Prints rows/s and MB/s (of the 272-byte in-memory rows, and of the file)
 * on rank 0 and fails if the write fails, the rows do not read back, or the write was not collective.
 *
 *   mpiexec -n 2 ./test_results_bench 500000 results.h5     (1e6 rows in total)
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results_hdf5.h"
#include "test_results_fixture.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long long per_rank = argc > 1 ? atoll(argv[1]) : 20000;
    const char *source = argc > 2 ? argv[2] : NULL;
    fx_t *fx = malloc(sizeof *fx);
    fx_init(fx, SAX_STORE_ALL);

    /* The pattern of rows to repeat. */
    const sax_record_t *pattern = fx->rows;
    int64_t n_pattern = FX_ROWS;
    sax_results_data_t src;
    memset(&src, 0, sizeof src);
    sax_error_t err = {{0}};
    int rc = 0;
    if (source) {
        if (sax_results_read(source, true, &src, &err) != SAX_OK || src.n_rows == 0) {
            fprintf(stderr, "rank %d: %s: %s\n", rank, source, src.n_rows == 0 ? "no stored rows" : err.text);
            rc = 1;
        } else {
            pattern = src.rows;
            n_pattern = src.n_rows;
            /* the source's space (its orders) and its first scenario; the fixture's reductions of
             * scenario 0 stand in for the source's */
            fx->res.space = &src.space;
            fx->res.n_scenarios = 1;
            fx->res.scenario_values = src.scenario_values;
            fx->res.n_top = FX_TOP_K;
            fx->res.n_pareto = 0;
            while (fx->res.n_pareto < fx->n_pareto && fx->pareto[fx->res.n_pareto].scenario == 0)
                fx->res.n_pareto++;
            fx->res.n_bpv = 0;
        }
    }
    int any = 0;
    MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        MPI_Finalize();
        return 1;
    }
    sax_record_t *rows = malloc((size_t)per_rank * sizeof *rows);
    for (long long i = 0; i < per_rank; i++) {
        rows[i] = pattern[(rank * per_rank + i) % n_pattern];
        rows[i].index = rank * per_rank + i; /* one run per rank, in rank order */
        rows[i].scenario = 0;
    }
    char path[600];
    snprintf(path, sizeof path, "%s/tests/io/results/bench-np%d.h5", SAX_BINARY_DIR, size);
    sax_results_write_stats_t stats;
    MPI_Barrier(MPI_COMM_WORLD);
    sax_status_t st =
        sax_results_write_stats(MPI_COMM_WORLD, path, &fx->res, rows, per_rank, NULL, 0, true, &stats, &err);
    double seconds = stats.seconds, slowest = 0;
    MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    /* the same file without /rows: what the rest of the file costs */
    fx->res.store = SAX_STORE_NONE;
    sax_results_write_stats_t base;
    char base_path[640];
    snprintf(base_path, sizeof base_path, "%s.none", path);
    sax_status_t st2 =
        sax_results_write_stats(MPI_COMM_WORLD, base_path, &fx->res, NULL, 0, NULL, 0, true, &base, &err);
    if (st != SAX_OK || st2 != SAX_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, err.text);
        rc = 1;
    }
    if (rank == 0 && rc == 0) {
        sax_results_data_t d;
        struct stat sb;
        stat(path, &sb);
        long long total = per_rank * size;
        if (sax_results_read(path, true, &d, &err) != SAX_OK || d.n_rows != total ||
            d.rows[total - 1].index != total - 1) {
            fprintf(stderr, "read back failed: %s\n", err.text);
            rc = 1;
        } else {
            sax_results_data_fini(&d);
        }
        if (stats.rows_io_mode == H5D_MPIO_NO_COLLECTIVE || stats.rows_no_collective_cause != 0) {
            fprintf(stderr, "the /rows write was not collective (mode %d, cause %u)\n", stats.rows_io_mode,
                    (unsigned)stats.rows_no_collective_cause);
            rc = 1;
        }
        double rows_s = (slowest - base.seconds) > 0 ? (double)total / (slowest - base.seconds) : 0;
        printf("ranks %d, rows %lld (%s), whole file %.3f s, without /rows %.3f s\n", size, total,
               source ? source : "fixture", slowest, base.seconds);
        printf(
            "/rows: %.3g rows/s, %.1f MB/s of in-memory rows (%zu B each); file %.1f MB (%.1f%% of raw), %.1f MB/s "
            "on disk; io mode %d\n",
            rows_s, rows_s * (double)sizeof(sax_row_t) / 1e6, sizeof(sax_row_t), (double)sb.st_size / 1e6,
            100.0 * (double)sb.st_size / ((double)total * (double)sizeof(sax_row_t)),
            (double)sb.st_size / 1e6 / (slowest - base.seconds), stats.rows_io_mode);
    }
    MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    free(rows);
    free(fx);
    sax_results_data_fini(&src);
    MPI_Finalize();
    return any;
}
