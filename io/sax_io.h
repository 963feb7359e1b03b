/* sax_io.h - configuration (cJSON), results (parallel HDF5), reports and plots, calibration (PETSc).
 *
 * Sections below are owned by different parts of io/; each documents whether its functions are
 * collective over an MPI communicator. Depends on model/ types only (plus MPI for the HDF5 part).
 */
#ifndef SAX_IO_H
#define SAX_IO_H

#include "sax_model.h"

/* ==== configuration ========================================================================== */

/* ==== results (parallel HDF5) ================================================================ */

/* One HDF5 file per sweep (docs/results-format.md lists every dataset and attribute). Writing is
 * collective over an MPI communicator through MPI-IO; reading is serial (any HDF5 driver). */
#include <mpi.h>
#include <stdio.h>

#define SAX_RESULTS_FORMAT "sax-results" /* root attribute sax_format */
#define SAX_RESULTS_FORMAT_VERSION 1     /* root attribute sax_format_version */

/* Which evaluated candidates a sweep stores in the /rows dataset (`sax sweep --store`). */
#define SAX_STORE_LIST(X) X(SAX_STORE_NONE, "none") X(SAX_STORE_FEASIBLE, "feasible") X(SAX_STORE_ALL, "all")
#define SAX_ENUM_MEMBER(name, str) name,
typedef enum { SAX_STORE_LIST(SAX_ENUM_MEMBER) SAX_STORE_COUNT } sax_store_t;
#undef SAX_ENUM_MEMBER
extern const char *const sax_store_names[SAX_STORE_COUNT];

/* Everything a sweep hands to the writer. Pointers are borrowed. The reductions (best, top,
 * pareto, best_per_value, baseline_best) must be identical on every rank; rows that stand for
 * "no feasible candidate" have index -1. Record arrays are sorted as stated. */
typedef struct {
    /* provenance (root attributes) */
    const char *config_json;  /* effective configuration as JSON */
    const char *version;      /* sax version, e.g. "0.1.0" */
    const char *git_revision; /* e.g. "4f1fbdc" or "4f1fbdc-dirty" */
    const char *command_line; /* argv joined with spaces */
    const char *hosts;        /* comma-separated unique host names of the ranks */
    int ranks;
    double start_unix_s, end_unix_s;
    sax_store_t store;
    int64_t evaluated, skipped;
    int64_t infeasible[SAX_INFEASIBLE_COUNT]; /* per reason; [SAX_FEASIBLE] = feasible count */
    /* the space and the scenarios */
    const sax_space_desc_t *space;
    int n_scenarios;
    const double *scenario_values; /* n_scenarios x space->n_scenario_vars, row-major, SI units */
    /* reductions */
    const sax_record_t *best;     /* n_scenarios: best (fastest feasible) per scenario */
    const sax_record_t *top;      /* n_top: the top_k fastest per scenario, by scenario then time */
    int64_t n_top;
    int top_k;
    const sax_record_t *pareto;   /* n_pareto: front of (iteration_time_s, cross_site_bytes) per
                                     scenario, sorted by scenario then time */
    int64_t n_pareto;
    const sax_record_t *best_per_value; /* n_bpv: best for scenario s, key bpv_key[i] = bpv_value[i] */
    const int32_t *bpv_key;             /* sax_key_t */
    const int32_t *bpv_value;           /* integer coding of sax_candidate_get (order: index into
                                           space->orders) */
    int64_t n_bpv;
    const sax_record_t *baseline_best; /* n_scenarios x space->n_baselines, row-major */
} sax_results_t;

/* Collective over `comm`: every rank calls it with the same `res` and `path`, and its own rows
 * (`my_rows`, n_my_rows >= 0), which go to /rows when res->store != SAX_STORE_NONE.
 * /rows is ordered by (scenario, index) whatever the number of ranks, provided each rank's rows
 * come as runs: `my_run_len[0..n_my_runs)` split my_rows into consecutive runs, each sorted by
 * (scenario, index) and not interleaving with any other run on any rank (for example one run per
 * work chunk of consecutive candidate indices). n_my_runs = 0 (my_run_len NULL) means one run.
 * Writes PATH.tmp.<pid of rank 0> and renames it to `path` on success. An existing `path` is an
 * error (SAX_ERR_INPUT) unless `force`; sax_results_check_target lets callers say so before a long
 * sweep. Returns the same status on every rank. */
sax_status_t sax_results_write(MPI_Comm comm, const char *path, const sax_results_t *res,
                               const sax_record_t *my_rows, int64_t n_my_rows, const int64_t *my_run_len,
                               int64_t n_my_runs, bool force, sax_error_t *err);

/* Serial: SAX_ERR_INPUT when `path` exists and `force` is false, or when its directory does not. */
sax_status_t sax_results_check_target(const char *path, bool force, sax_error_t *err);

/* A results file read back (serial). `res` points into the owned buffers; release with
 * sax_results_data_fini. Candidates' `order` is rebuilt from space.orders. */
typedef struct {
    sax_results_t res;
    sax_space_desc_t space;
    int format_version;
    char *strings;            /* owns config_json, version, git_revision, command_line, hosts */
    double *scenario_values;
    sax_record_t *best, *top, *pareto, *best_per_value, *baseline_best;
    int32_t *bpv_key, *bpv_value;
    sax_record_t *rows; /* /rows when read with `with_rows` and stored; else NULL */
    int64_t n_rows;
} sax_results_data_t;

/* Serial. Opens `path`, checks it is a sax results file of a compatible format version
 * (SAX_ERR_INPUT with a clear message otherwise) and reads every dataset; /rows only when
 * `with_rows`. */
sax_status_t sax_results_read(const char *path, bool with_rows, sax_results_data_t *out, sax_error_t *err);
void sax_results_data_fini(sax_results_data_t *d);

/* Name of a candidate's value of key `k` as it appears in files and reports ("1f1b", "8",
 * "tp-cp-pp-dp"); `space` resolves `order`. Writes at most `len` bytes to `buf`, returns buf. */
char *sax_results_key_value_str(const sax_space_desc_t *space, const sax_candidate_t *c, sax_key_t k,
                                char *buf, size_t len);

/* ==== reports, Pareto analysis and plots ===================================================== */

/* Output columns usable as Pareto objectives: the metrics of SAX_METRIC_LIST plus gpus_used.
 * Times, bytes, memory and GPUs are minimised; mfu and tokens_per_s maximised. */
int sax_pareto_objective_count(void);
const char *sax_pareto_objective_name(int i);
bool sax_pareto_objective_maximised(int i);
int sax_pareto_objective_lookup(const char *name); /* index or -1 */
double sax_pareto_objective_value(int i, const sax_result_t *r);

/* Non-dominated subset of `n` points with `k` objectives, all minimised (negate maximised ones):
 * `values` is n x k row-major. A point is dominated when another is <= in every objective and <
 * in one; equal points are all kept. Writes the front's point indices to `front` (capacity n),
 * ordered by the objectives lexicographically, and returns their number (or -1 when out of memory).
 * Two objectives take O(n log n) (sort and sweep); more take O(n log n + n f k), f = front size. */
int64_t sax_pareto_front(const double *values, int64_t n, int k, int64_t *front);
/* The simple general method for any k (exposed so tests can compare the two). */
int64_t sax_pareto_front_general(const double *values, int64_t n, int k, int64_t *front);

/* Text report (serial): per scenario, the best configuration and each baseline's best with its
 * speedup (baseline time / best time). With `svg_dir`, also writes the plots there. */
sax_status_t sax_report_write(FILE *out, const sax_results_data_t *d, const char *svg_dir, sax_error_t *err);

/* ==== calibration ============================================================================ */

#endif
