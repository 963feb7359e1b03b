/* sax_io.h - configuration (cJSON), results (parallel HDF5), reports and plots, calibration (PETSc).
 *
 * Sections below are owned by different parts of io/; each documents whether its functions are
 * collective over an MPI communicator. Depends on model/ types only (plus MPI for the HDF5 part).
 */
#ifndef SAX_IO_H
#define SAX_IO_H

#include "sax_model.h"

/* ==== configuration ========================================================================== */

/* Reading sax configuration files (docs/config.md is generated from the same field tables).
 * Nothing in this section is collective: every rank may load the same file independently. */
#include <stdio.h>

/* Kinds of physical quantity a configuration value carries. X(constant, name, SI unit, example) */
#define SAX_UNIT_KIND_LIST(X)                                                                                \
    X(SAX_UNIT_NONE, "number", "1", "0.9")                                                                   \
    X(SAX_UNIT_BYTES, "byte count", "B", "\"80 GiB\"")                                                       \
    X(SAX_UNIT_TIME, "time", "s", "\"10 us\"")                                                               \
    X(SAX_UNIT_BANDWIDTH, "bandwidth", "B/s", "\"400 Gbit/s\"")                                              \
    X(SAX_UNIT_FLOPS, "compute rate", "FLOP/s", "\"989 TFLOP/s\"")                                           \
    X(SAX_UNIT_LENGTH, "length", "m", "\"100 km\"")
#define SAX_ENUM_MEMBER(name, str, si, example) name,
typedef enum { SAX_UNIT_KIND_LIST(SAX_ENUM_MEMBER) SAX_UNIT_KIND_COUNT } sax_unit_kind_t;
#undef SAX_ENUM_MEMBER

const char *sax_unit_kind_name(sax_unit_kind_t kind);    /* "bandwidth" */
const char *sax_unit_kind_si(sax_unit_kind_t kind);      /* "B/s" */
const char *sax_unit_kind_example(sax_unit_kind_t kind); /* "\"400 Gbit/s\"" */

/* Parses "<number> <unit>" (a quantity of `kind`) into SI base units. On failure returns
 * SAX_ERR_INPUT with "expected ..., found ..." in `err` (the caller prefixes file and JSON path). */
sax_status_t sax_units_parse(const char *text, sax_unit_kind_t kind, double *si, sax_error_t *err);
/* Human-readable form of an SI value ("50 GB/s"), for messages and docs. */
void sax_units_format(double si, sax_unit_kind_t kind, char *buf, size_t n);

/* Built-in presets (io/presets.c). `*_find` overwrite the preset's fields of `out` and return
 * false for an unknown name (leaving `out` untouched). A GPU preset sets name, peak FLOP/s, HBM
 * capacity and bandwidth, and the preset's fitted efficiency parameters. */
int sax_preset_gpu_count(void);
const char *sax_preset_gpu_name(int i);
bool sax_preset_gpu_find(const char *name, sax_gpu_t *out);
/* Only the fitted efficiency parameters of a GPU preset (gemm_eff_max, gemm_eff_half_ai, mem_eff):
 * a GPU object without "preset" whose "name" is a preset's takes them, so that {"name": "H100",
 * "peak_flops": ...} is modelled as an H100. False for an unknown name. */
bool sax_preset_gpu_calibration(const char *name, sax_gpu_t *out);
int sax_preset_model_count(void);
const char *sax_preset_model_name(int i);
bool sax_preset_model_find(const char *name, sax_model_desc_t *out);

#define SAX_CONFIG_MAX_SCENARIOS 4096 /* cartesian product of the scenario lists */

/* A loaded configuration. Owns `scenarios`, `scenario_values` and `effective_json`. */
typedef struct {
    char path[4096];           /* the file name used in messages */
    sax_problem_t problem;     /* model, training and cluster (presets expanded, defaults filled, SI) */
    bool has_candidate;        /* `parallelism` present (always true without a `space`) */
    sax_candidate_t candidate; /* parallelism + network; dp "auto" resolved to GPUs / (tp*cp*pp) */
    bool has_space;
    sax_space_desc_t space;   /* every key has >= 1 value; dp 0 = "auto" */
    int n_scenarios;          /* product of the scenario lists; 1 when there are none */
    sax_problem_t *scenarios; /* n_scenarios problems; the first variable varies slowest */
    double *scenario_values;  /* n_scenarios x space.n_scenario_vars SI values (NULL when no vars) */
    char *effective_json;     /* the whole effective configuration as JSON (for provenance) */
} sax_config_t;

/* Loads and validates `path`. Init semantics: `cfg` need not be initialised; on error nothing is
 * left allocated (cfg is zeroed) and `err` names the file, the JSON path, what was expected and
 * what was found. Returns SAX_ERR_INPUT for bad input, SAX_ERR_IO if the file cannot be read,
 * SAX_ERR_NOMEM. */
sax_status_t sax_config_load(const char *path, sax_config_t *cfg, sax_error_t *err);
/* The same from JSON text; `name_for_messages` stands for the file name in messages. */
sax_status_t sax_config_parse(const char *json_text, const char *name_for_messages, sax_config_t *cfg,
                              sax_error_t *err);
/* The same from an already parsed cJSON object (a config inside a larger file): messages name
 * `file` and prefix JSON paths with `path_prefix` (e.g. "runs[2].config"; "" for none). */
struct cJSON;
sax_status_t sax_config_from_json(const struct cJSON *obj, const char *file, const char *path_prefix,
                                  sax_config_t *cfg, sax_error_t *err);
/* Frees what `cfg` owns and zeroes it; accepts a zeroed or already finalised cfg. */
void sax_config_fini(sax_config_t *cfg);

/* Markdown reference of every key (the content of docs/config.md) and a shorter plain-text
 * summary for `--help`. Both are generated from the field tables. */
void sax_config_write_docs(FILE *f);
void sax_config_write_help(FILE *f);

/* A dataset of measured runs (`sax validate`, ../shared/validation/published-calibration.json):
 * {"note": ..., "cases": [{"name", "config", "measured": {"iteration_time_s"}, "family"?, "source"?,
 * "derived"?, "assumptions"?}]}. Errors name paths such as cases[3].config.cluster.tiers[0].bandwidth. */
typedef struct {
    char name[64];
    sax_config_t config;
    double measured_s; /* measured iteration time */
} sax_case_t;

sax_status_t sax_dataset_load(const char *path, sax_case_t **cases, int *n, sax_error_t *err);
void sax_dataset_free(sax_case_t *cases, int n);

/* ==== results (parallel HDF5) ================================================================ */

/* One HDF5 file per sweep (docs/results-format.md lists every dataset and attribute). Writing is
 * collective over an MPI communicator through MPI-IO; reading is serial (any HDF5 driver). */
#include <mpi.h>
#include <stdio.h>

#define SAX_RESULTS_FORMAT "sax-results" /* root attribute sax_format */
#define SAX_RESULTS_FORMAT_VERSION 1     /* root attribute sax_format_version */
#define SAX_RESULTS_DEFAULT_PARETO_OBJECTIVES "iteration_time_s,cross_site_bytes_per_iteration"

/* Which evaluated candidates a sweep stores in the /rows dataset (`sax sweep --store`). */
#define SAX_STORE_LIST(X) X(SAX_STORE_NONE, "none") X(SAX_STORE_FEASIBLE, "feasible") X(SAX_STORE_ALL, "all")
#define SAX_ENUM_MEMBER(name, str) name,
typedef enum { SAX_STORE_LIST(SAX_ENUM_MEMBER) SAX_STORE_COUNT } sax_store_t;
#undef SAX_ENUM_MEMBER
extern const char *const sax_store_names[SAX_STORE_COUNT];

/* Everything a sweep hands to the writer. Pointers are borrowed. The writer reads all of it on
 * rank 0 only (provenance, space, scenarios, reductions) and shares what the other ranks need;
 * other ranks must pass a non-NULL `res` but its fields are ignored. Rows that stand for "no
 * feasible candidate" have index -1. Record arrays are sorted as stated. */
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
    const sax_record_t *best; /* n_scenarios: best (fastest feasible) per scenario */
    const sax_record_t *top;  /* n_top: the top_k fastest per scenario, by scenario then time */
    int64_t n_top;
    int top_k;
    const sax_record_t *pareto; /* n_pareto: front per scenario, sorted by scenario then time */
    int64_t n_pareto;
    /* the objectives of `pareto`, comma-separated column names (NULL: the default above) */
    const char *pareto_objectives;
    const sax_record_t *best_per_value; /* n_bpv: best for scenario s, key bpv_key[i] = bpv_value[i] */
    const int32_t *bpv_key;             /* sax_key_t */
    const int32_t *bpv_value;           /* integer coding of sax_candidate_get (order: index into
                                           space->orders) */
    int64_t n_bpv;
    const sax_record_t *baseline_best; /* n_scenarios x space->n_baselines, row-major */
} sax_results_t;

/* Collective over `comm`: every rank calls it with the same `path`, `res` (see above) and its own
 * rows (`my_rows`, n_my_rows >= 0), which go to /rows when rank 0's res->store != SAX_STORE_NONE.
 * /rows is ordered by (scenario, index) whatever the number of ranks, provided each rank's rows
 * come as runs: `my_run_len[0..n_my_runs)` split my_rows into consecutive runs, each sorted by
 * (scenario, index) and not interleaving with any other run on any rank (for example one run per
 * work chunk of consecutive candidate indices). n_my_runs = 0 (my_run_len NULL) means one run.
 * Writes PATH.tmp.<pid of rank 0> and renames it to `path` on success. An existing `path` is an
 * error (SAX_ERR_INPUT) unless `force`; sax_results_check_target lets callers say so before a long
 * sweep. Before creating anything, refuses (SAX_ERR_IO) a file whose upper-bound size exceeds the free
 * space of its directory or the smallest file-size limit (RLIMIT_FSIZE) of the ranks. Returns the
 * same status on every rank. */
sax_status_t sax_results_write(MPI_Comm comm, const char *path, const sax_results_t *res,
                               const sax_record_t *my_rows, int64_t n_my_rows, const int64_t *my_run_len,
                               int64_t n_my_runs, bool force, sax_error_t *err);

/* What a write did (for tests and throughput measurements). */
typedef struct {
    double seconds;                    /* from entry to the rename, on this rank */
    int64_t rows;                      /* rows in /rows */
    int rows_io_mode;                  /* H5D_mpio_actual_io_mode_t of the last /rows write here */
    uint32_t rows_no_collective_cause; /* H5Pget_mpio_no_collective_cause, global; 0 = collective */
    int summary_io_mode;               /* the same for the /best write */
    double bound_bytes;                /* the upper bound of the file size checked before writing */
} sax_results_write_stats_t;

/* sax_results_write that also reports what it did (stats may be NULL). Collective. */
sax_status_t sax_results_write_stats(MPI_Comm comm, const char *path, const sax_results_t *res,
                                     const sax_record_t *my_rows, int64_t n_my_rows,
                                     const int64_t *my_run_len, int64_t n_my_runs, bool force,
                                     sax_results_write_stats_t *stats, sax_error_t *err);

/* A rank's rows for /rows kept compactly (272 bytes each, the file's layout, instead of a 520-byte
 * sax_record_t) as a sweep produces them. Serial. `space` must outlive the accumulator and equal
 * rank 0's (it resolves `order`). */
typedef struct sax_results_rows sax_results_rows_t;
sax_status_t sax_results_rows_create(const sax_space_desc_t *space, sax_results_rows_t **out,
                                     sax_error_t *err);
void sax_results_rows_destroy(sax_results_rows_t **rows);
/* Starts a run: call it when a work chunk of consecutive indices starts (see sax_results_write). */
sax_status_t sax_results_rows_begin_run(sax_results_rows_t *rows, sax_error_t *err);
/* Appends one row to the current run (a first run is started if none is). SAX_ERR_NOMEM. */
sax_status_t sax_results_rows_add(sax_results_rows_t *rows, const sax_record_t *rec, sax_error_t *err);
int64_t sax_results_rows_count(const sax_results_rows_t *rows);
/* sax_results_write with this rank's rows from an accumulator (NULL: none). Collective. */
sax_status_t sax_results_write_rows(MPI_Comm comm, const char *path, const sax_results_t *res,
                                    const sax_results_rows_t *my_rows, bool force,
                                    sax_results_write_stats_t *stats, sax_error_t *err);

/* Serial: SAX_ERR_INPUT when `path` exists and `force` is false, or when its directory does not. */
sax_status_t sax_results_check_target(const char *path, bool force, sax_error_t *err);

/* A results file read back (serial). `res` points into the owned buffers; release with
 * sax_results_data_fini. Candidates' `order` is rebuilt from space.orders. */
typedef struct {
    sax_results_t res;
    sax_space_desc_t space;
    int format_version;
    char *strings; /* owns config_json, version, git_revision, command_line, hosts, pareto_objectives */
    double *scenario_values;
    sax_record_t *best, *top, *pareto, *best_per_value, *baseline_best;
    int32_t *bpv_key, *bpv_value;
    sax_record_t *rows; /* /rows when read with `with_rows` and stored; else NULL */
    int64_t n_rows;
    bool has_rows;   /* the file has /rows (whether or not read) */
    char path[4096]; /* the file read */
} sax_results_data_t;

/* Serial. Opens `path`, checks it is a sax results file of a compatible format version
 * (SAX_ERR_INPUT with a clear message otherwise) and reads every dataset; /rows only when
 * `with_rows`. */
sax_status_t sax_results_read(const char *path, bool with_rows, sax_results_data_t *out, sax_error_t *err);
void sax_results_data_fini(sax_results_data_t *d);

/* Serial: /rows read in pieces, for files too large to hold in memory. `d` (sax_results_read of the
 * same file, without rows) must outlive the reader. *f is NULL when the file stores no rows. */
typedef struct sax_results_file sax_results_file_t;
sax_status_t sax_results_rows_open(const sax_results_data_t *d, sax_results_file_t **f, sax_error_t *err);
void sax_results_rows_close(sax_results_file_t **f);
int64_t sax_results_rows_total(const sax_results_file_t *f);
/* The rows of scenario s are [*first, *first + *n): /rows is sorted by scenario. */
sax_status_t sax_results_rows_scenario(sax_results_file_t *f, int s, int64_t *first, int64_t *n,
                                       sax_error_t *err);
/* Rows first, first + stride, ... (n of them) as records into out[0..n). */
sax_status_t sax_results_rows_read(sax_results_file_t *f, int64_t first, int64_t n, int64_t stride,
                                   sax_record_t *out, sax_error_t *err);

/* Name of a candidate's value of key `k` as it appears in files and reports ("1f1b", "8",
 * "tp-cp-pp-dp"); `space` resolves `order`. Writes at most `len` bytes to `buf`, returns buf. */
char *sax_results_key_value_str(const sax_space_desc_t *space, const sax_candidate_t *c, sax_key_t k,
                                char *buf, size_t len);

/* ==== reports, Pareto analysis and plots ===================================================== */

/* Output columns usable as Pareto objectives: the metrics of SAX_METRIC_LIST, the breakdown
 * (compute_s, bubble_s, exposed_*_s) and gpus_used. mfu and tokens_per_s are maximised, the others
 * minimised. */
int sax_pareto_objective_count(void);
const char *sax_pareto_objective_name(int i);
bool sax_pareto_objective_maximised(int i);
int sax_pareto_objective_lookup(const char *name); /* index or -1 */
double sax_pareto_objective_value(int i, const sax_result_t *r);

/* Non-dominated subset of `n` points with `k` objectives, all minimised (negate maximised ones):
 * `values` is n x k row-major, no NaN (infinities are fine). A point is dominated when another is
 * <= in every objective and < in one; equal points are all kept. Writes the front's point indices to `front` (capacity n),
 * ordered by the objectives lexicographically, and returns their number (or -1 when out of memory).
 * Two objectives take O(n log n) (sort and sweep); more take O(n log n + n f k), f = front size. */
int64_t sax_pareto_front(const double *values, int64_t n, int k, int64_t *front);
/* The simple general method for any k (exposed so tests can compare the two). */
int64_t sax_pareto_front_general(const double *values, int64_t n, int k, int64_t *front);

/* Serial. The front of scenario s over objectives obj[0..k) (sax_pareto_objective_lookup
 * indices; directions as sax_pareto_objective_maximised) among the feasible candidates the file
 * holds: /rows streamed in batches when stored (memory bounded by the front and one batch),
 * otherwise the reductions (as sax_results_candidates). Also an even sample of at most
 * `max_sample` feasible candidates, for plots. Release with sax_results_front_fini. */
typedef struct {
    sax_record_t *front; /* ordered as sax_pareto_front orders it */
    int64_t n_front;
    sax_record_t *sample;
    int64_t n_sample;
    int64_t n_candidates; /* feasible candidates considered */
    bool from_rows;
} sax_results_front_t;
sax_status_t sax_results_front(const sax_results_data_t *d, int s, const int *obj, int k, int64_t max_sample,
                               sax_results_front_t *out, sax_error_t *err);
void sax_results_front_fini(sax_results_front_t *f);

/* Serial. The feasible candidates a results file holds for `scenario` (-1: all): every stored row
 * when /rows exists (*from_rows true), otherwise the union of /pareto, /top, /best,
 * /best_per_value and /baseline_best, each (scenario, index) once. The caller frees *out. */
sax_status_t sax_results_candidates(const sax_results_data_t *d, int scenario, sax_record_t **out, int64_t *n,
                                    bool *from_rows, sax_error_t *err);

/* `sax pareto` (serial). */
#define SAX_PARETO_MAX_OBJECTIVES 8
typedef struct {
    const char *path;                          /* the results file */
    int objectives[SAX_PARETO_MAX_OBJECTIVES]; /* sax_pareto_objective_lookup indices */
    int n_objectives;                          /* 0: iteration_time_s, cross_site_bytes_per_iteration */
    int scenario;                              /* -1: every scenario, one front each */
    const char *csv_path, *svg_path;           /* NULL: not written */
} sax_pareto_opts_t;

/* Parses "a,b,..." into o->objectives. SAX_ERR_USAGE naming the unknown one and listing the valid
 * objectives with their direction. */
sax_status_t sax_pareto_parse_objectives(const char *list, sax_pareto_opts_t *o, sax_error_t *err);
/* Reads o->path, computes the fronts, prints them as a table on `out`, writes the CSV (every row
 * column of docs/results-format.md, fronts only) and the SVG (first two objectives; the first
 * scenario shown). */
sax_status_t sax_pareto_report(const sax_pareto_opts_t *o, FILE *out, sax_error_t *err);
/* The CSV of `recs`: the header is the row fields of the results file, in the same order. */
void sax_report_write_csv(FILE *f, const sax_space_desc_t *space, const sax_record_t *recs, int64_t n);

/* Text report (serial): per scenario, the best configuration and each baseline's best with its
 * speedup (baseline time / best time). With `svg_dir` (created if missing), also writes there
 * pareto-s<N>.svg and breakdown-s<N>.svg per scenario and scenario-var<V>.svg per swept variable,
 * and lists them. */
sax_status_t sax_report_write(FILE *out, const sax_results_data_t *d, const char *svg_dir, sax_error_t *err);

/* ==== calibration ============================================================================ */

/* Calibration (docs/calibration.md): parses nccl-tests output, fits alpha-beta parameters per tier,
 * the GEMM efficiency curve per GPU and the remaining parameters from end-to-end runs by linear and
 * nonlinear least squares (PETSc KSPLSQR), and writes the calibrated configuration.
 * Nothing here is collective: every PETSc object lives on PETSC_COMM_SELF. */

/* The nccl-tests binaries sax reads. X(enum constant, name in MEASUREMENTS.json, binary) */
#define SAX_COLL_OP_LIST(X)                                                                                  \
    X(SAX_COLL_ALL_REDUCE, "all_reduce", "all_reduce_perf")                                                  \
    X(SAX_COLL_ALL_GATHER, "all_gather", "all_gather_perf")                                                  \
    X(SAX_COLL_REDUCE_SCATTER, "reduce_scatter", "reduce_scatter_perf")                                      \
    X(SAX_COLL_ALLTOALL, "alltoall", "alltoall_perf")                                                        \
    X(SAX_COLL_SENDRECV, "sendrecv", "sendrecv_perf")
#define SAX_ENUM_MEMBER3(name, str, bin) name,
typedef enum { SAX_COLL_OP_LIST(SAX_ENUM_MEMBER3) SAX_COLL_OP_COUNT } sax_coll_op_t;
#undef SAX_ENUM_MEMBER3
extern const char *const sax_coll_op_names[SAX_COLL_OP_COUNT];
extern const char *const sax_coll_op_binaries[SAX_COLL_OP_COUNT];

/* One row of an nccl-tests table. Index 0 is out-of-place, 1 in-place; time_s < 0 when a half of
 * the row is absent. `size_bytes` is the size column: the buffer of one rank for all_reduce,
 * sendrecv and alltoall, the whole gathered/scattered array for all_gather and reduce_scatter. */
typedef struct {
    double size_bytes;
    double count;
    double time_s[2];
    double algbw_Bps[2];
    double busbw_Bps[2];
    double wrong[2]; /* #wrong column; -1 for "N/A" */
} sax_nccl_row_t;

typedef struct {
    int n_rows;
    int cap_rows;
    sax_nccl_row_t *rows;
    int ranks;                 /* "# Rank N ..." lines in the header; 0 when the header lists none */
    char binary[SAX_NAME_LEN]; /* from "# Collective test concluded: X", "" when absent */
} sax_nccl_table_t;

void sax_nccl_table_init(sax_nccl_table_t *t);
void sax_nccl_table_fini(sax_nccl_table_t *t);
/* Parses the text output of an nccl-tests binary (`source` names it in messages). */
sax_status_t sax_nccl_parse(const char *text, const char *source, sax_nccl_table_t *t, sax_error_t *err);
sax_status_t sax_nccl_load(const char *path, sax_nccl_table_t *t, sax_error_t *err);

/* The alpha-beta cost of one collective as coefficients of (alpha_s, 1/bw_Bps):
 * time = *alpha_coef * alpha_s + *inv_bw_coef / bw_Bps (domain.md; size as nccl-tests reports it). */
sax_status_t sax_coll_coefficients(sax_coll_op_t op, sax_algorithm_t algo, int n, double size_bytes,
                                   double *alpha_coef, double *inv_bw_coef, sax_error_t *err);

/* ---- linear least squares with lower bounds (PETSc KSPLSQR) ---- */

#define SAX_LSQ_MAX_PARAMS 16

typedef struct {
    int n_params;
    double x[SAX_LSQ_MAX_PARAMS];
    double std_error[SAX_LSQ_MAX_PARAMS]; /* sqrt(diag(sigma^2 (A^T A)^-1)) over the free parameters */
    double covariance[SAX_LSQ_MAX_PARAMS][SAX_LSQ_MAX_PARAMS]; /* sigma^2 (A^T A)^-1; 0 for fixed ones */
    bool at_bound[SAX_LSQ_MAX_PARAMS]; /* fixed at its lower bound because the free fit crossed it */
    double condition;                  /* 2-norm condition of the column-scaled free columns */
    double residual_norm;              /* ||b - A x|| */
    double sigma;                      /* residual_norm / sqrt(rows - free parameters); 0 if none */
    int iterations;                    /* LSQR iterations, summed over the active-set refits */
} sax_lsq_result_t;

/* Starts PETSc on PETSC_COMM_SELF when it is not running (MPI must be initialised); `*started` says
 * whether this call started it, and then sax_lsq_petsc_end() stops it. Not collective. */
sax_status_t sax_lsq_petsc_begin(bool *started, sax_error_t *err);
void sax_lsq_petsc_end(bool started);

/* Minimises ||A x - b|| over x >= lower (lower may be NULL: unbounded; an entry of -HUGE_VAL leaves
 * that parameter free). A is `rows` x `cols`, row-major. A parameter whose unconstrained optimum
 * crosses its bound is fixed there and the rest refitted (active set). Needs PETSc running. */
sax_status_t sax_lsq_solve(int rows, int cols, const double *A, const double *b, const double *lower,
                           sax_lsq_result_t *res, sax_error_t *err);

/* ---- nonlinear least squares with box bounds (Levenberg-Marquardt, each step a KSPLSQR solve) ---- */

typedef struct {
    const char *name; /* "training.dp_overlap_efficiency" */
    double start, lower, upper;
} sax_nls_param_t;

/* Residuals r[0..m) at parameters x[0..k); returns SAX_OK or an error (which stops the fit). */
typedef sax_status_t (*sax_nls_residual_fn)(void *ctx, const double *x, double *r, sax_error_t *err);

typedef struct {
    double x[SAX_LSQ_MAX_PARAMS];
    double
        std_error[SAX_LSQ_MAX_PARAMS]; /* sigma^2 (J^T J)^-1 over the determined, not at a bound; else NaN */
    bool determined[SAX_LSQ_MAX_PARAMS]; /* false: the residuals do not depend on it; kept at its start */
    bool at_bound[SAX_LSQ_MAX_PARAMS];   /* ended on (within 1e-9 of) a bound */
    double condition;                    /* of the column-scaled Jacobian of the determined parameters */
    double rms;                          /* sqrt(mean r^2) at the solution */
    double start_rms;                    /* the same at the start values */
    int iterations;
} sax_nls_result_t;

/* Minimises ||r(x)|| over lower <= x <= upper from `start` by Levenberg-Marquardt with a
 * forward-difference Jacobian (steps kept inside the bounds) and Marquardt's diagonal scaling;
 * every step solves [J; sqrt(lambda) D] dx = [-r; 0] with sax_lsq_solve. Needs PETSc running. */
sax_status_t sax_nls_fit(int m, int k, const sax_nls_param_t *params, sax_nls_residual_fn fn, void *ctx,
                         sax_nls_result_t *res, sax_error_t *err);

/* ---- alpha-beta per tier from nccl-tests tables ---- */

/* One entry of MEASUREMENTS.json `collectives`: a parsed table and what it measured. */
typedef struct {
    char label[64];  /* "collectives[3]" */
    char path[1024]; /* the file, as resolved against the measurements file */
    sax_coll_op_t op;
    sax_algorithm_t algorithm;
    int gpus;
    double flows; /* site links: GPU pairs whose traffic crossed the link at once (bandwidth x flows) */
    sax_nccl_table_t table;
} sax_coll_measurement_t;

typedef struct {
    double latency_s, bw_Bps;            /* fitted alpha (per algorithm step) and effective bandwidth */
    double latency_se_s, bw_se_Bps;      /* standard errors (the bandwidth's by the delta method) */
    bool latency_at_bound;               /* the free fit gave alpha < 0; alpha is fixed at 0 */
    double condition;                    /* of the column-scaled design matrix */
    int points;                          /* (size, time) points used: out-of-place and in-place rows */
    double rms_rel_error, max_rel_error; /* of the fitted times against the measured ones */
    int lsqr_iterations;
} sax_coll_fit_t;

/* Fits time = alpha_coef*alpha + inv_bw_coef/B (relative residuals) to every row of `m[0..n)`.
 * `tier` names the tier in messages. SAX_ERR_INPUT, naming what is missing, when there is no data,
 * a single message size, or a single algorithm step count (one GPU count of one operation), under
 * which the latency per step cannot be told apart from a per-call overhead (sendrecv excepted:
 * it has one step at any GPU count). */
sax_status_t sax_coll_fit(const char *tier, const sax_coll_measurement_t *m, int n, sax_coll_fit_t *fit,
                          sax_error_t *err);

/* ---- GEMM efficiency per GPU ---- */

typedef struct {
    char label[64]; /* "gemms[2]" */
    double m, n, k;
    sax_precision_t precision;
    double time_s;
} sax_gemm_measurement_t;

typedef struct {
    double eff_max, half_ai;       /* sax_gpu_t.gemm_eff_max and gemm_eff_half_ai */
    double eff_max_se, half_ai_se; /* standard errors (delta method) */
    bool eff_max_at_bound;         /* the free fit exceeded peak: eff_max fixed at 1 */
    bool half_ai_at_bound;         /* the free fit gave a negative half-intensity: fixed at 0 */
    double condition;
    int points;
    double rms_rel_error, max_rel_error;
} sax_gemm_fit_t;

/* Fits the GEMM curve of sax_model.h to `g[0..n)` measured on `gpu` (its peaks are used):
 * peak*time/(2mnk) = 1/eff_max + (half_ai/eff_max)/AI, linear in (1/eff_max, half_ai/eff_max),
 * relative residuals, 0 < eff_max <= 1, half_ai >= 0. SAX_ERR_INPUT when fewer than two distinct
 * intensities are measured. */
sax_status_t sax_gemm_fit(const char *gpu_label, const sax_gpu_t *gpu, const sax_gemm_measurement_t *g, int n,
                          sax_gemm_fit_t *fit, sax_error_t *err);

/* ---- the calibrate command ---- */

typedef struct {
    const char *measurements_path; /* MEASUREMENTS.json */
    const char *config_path;       /* -c CONFIG.json */
    const char *output_path;       /* -o CALIBRATED.json */
    const char *holdout_path;      /* --holdout DATASET.json, may be NULL */
    bool partial;                  /* --partial: tiers without measurements keep their values */
    bool json;                     /* --json: the report as one JSON object on stdout */
    int folds;                     /* k of the cross-validation; 0 = min(5, runs) */
} sax_calibrate_opts_t;

/* Runs the whole calibration and prints the report on `out`. Not collective (the command runs it
 * on rank 0). Starts and stops PETSc itself when it is not running. */
sax_status_t sax_calibrate_run(const sax_calibrate_opts_t *opts, FILE *out, sax_error_t *err);

#endif
