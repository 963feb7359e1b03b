/* sax_results.h - io/results/: the results file of a sweep, one parallel HDF5 file per sweep
 * (docs/results-format.md lists every dataset and attribute): the collective writer, the rows a
 * sweep keeps for /rows, the serial reader, and the column metadata that the HDF5 types, the CSV
 * files and the reports share.
 *
 * Depends on model/ types and MPI (the writer takes a communicator); HDF5 stays inside
 * io/results/. Writing is collective over an MPI communicator through MPI-IO; reading is serial
 * (any HDF5 driver). */
#ifndef SAX_RESULTS_H
#define SAX_RESULTS_H

#include "sax_model.h"

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

/* What a sweep says beyond each scenario's best (docs/decisions.md), stored under /answer. These
 * are plain records: io/results knows nothing of search/ or comm/, and the sweep converts. */
#define SAX_RESULTS_FACTOR_LIST(X) X(placement) X(scheduling) X(network)
#define SAX_RESULTS_FACTOR_COUNT 3
#define SAX_RESULTS_NEAR_MAX 16 /* kept candidates within 5 % at most */
#define SAX_RESULTS_INVALID_LEN 32

typedef struct {
    int64_t count;         /* candidates of the top list tied with the best (0: none feasible) */
    bool at_least;         /* the top list is full of them */
    uint32_t differ;       /* bit k: key k (sax_key_t) differs among them */
    sax_record_t simplest; /* the simplest of them (index -1 when count is 0) */
} sax_results_ties_t;

typedef struct {
    bool lossy;            /* the best compresses */
    bool noop;             /* ... and without its compression moves the same bytes in the same time */
    sax_record_t lossless; /* the best without compression (index -1: none in the space) */
} sax_results_lossless_t;

typedef struct {
    bool found;                            /* the merged network has a feasible candidate */
    double merged_time_s;                  /* its time as the oblivious optimiser predicts it */
    char invalid[SAX_RESULTS_INVALID_LEN]; /* why the real one was not evaluated ("" when it was) */
    sax_record_t real;                     /* the pick on the real network, network keys tuned there */
} sax_results_oblivious_t;

typedef struct {
    bool valid;                              /* false: every order meets an infeasible mix */
    int32_t orders;                          /* orders averaged, of 6 */
    double factor[SAX_RESULTS_FACTOR_COUNT]; /* placement, scheduling, network: multiply to the speedup */
} sax_results_attribution_t;

typedef struct {
    bool found, exact;
    double worst_regret, bound;
    int32_t candidates;       /* distinct candidates compared */
    sax_record_t pick;        /* the robust candidate, as evaluated in scenario 0 */
    const double *regret;     /* n_scenarios: its regret per scenario (inf where infeasible) */
    int32_t n_near;           /* compared candidates with worst regret <= 5 % */
    int32_t n_near_kept;      /* of them kept, the least regretted first (<= SAX_RESULTS_NEAR_MAX) */
    const sax_record_t *near; /* n_near_kept, as evaluated in scenario 0 */
    const double *near_worst; /* n_near_kept: their worst regret */
} sax_results_robust_t;

typedef struct {
    const sax_results_ties_t *ties;               /* n_scenarios */
    const sax_results_lossless_t *lossless;       /* n_scenarios */
    const sax_results_oblivious_t *oblivious;     /* n_scenarios, or NULL (--no-oblivious, interrupted) */
    const sax_results_attribution_t *attribution; /* n_scenarios x space->n_baselines, row-major */
    sax_results_robust_t robust;
} sax_results_answer_t;

extern const char *const sax_results_factor_names[SAX_RESULTS_FACTOR_COUNT];

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
    const sax_record_t *baseline_best;  /* n_scenarios x space->n_baselines, row-major */
    const sax_results_answer_t *answer; /* /answer, or NULL: not written (a file without it reads) */
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
    bool has_rows; /* the file has /rows (whether or not read) */
    /* /answer when the file has it (res.answer points here; NULL for files written without it) */
    sax_results_answer_t answer;
    sax_results_ties_t *ties;
    sax_results_lossless_t *lossless;
    sax_results_oblivious_t *oblivious;
    sax_results_attribution_t *attribution;
    double *robust_regret, *near_worst;
    sax_record_t *near;
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

/* A candidate on one line, every key as the configuration names it, in the configuration's order
 * ("tp=8 pp=16 dp=32 ... order=tp-cp-dp-pp ... compression=fp8 (lossy)"): the one line sweep, eval and
 * report print. */
#define SAX_RESULTS_LINE_LEN 512
char *sax_results_candidate_line(const sax_candidate_t *c, char *buf, size_t len);

/* Name of a candidate's value of key `k` as it appears in files and reports ("1f1b", "8",
 * "tp-cp-pp-dp"): sax_key_value_name of the candidate's value. Writes at most `len` bytes, returns buf. */
char *sax_results_key_value_str(const sax_space_desc_t *space, const sax_candidate_t *c, sax_key_t k,
                                char *buf, size_t len);

/* A scenario variable's value in the unit the configuration wrote it in ("4 Tbit/s" where the
 * configuration says "4 Tbit/s"), else in its SI unit ("5e+11 B/s"); and a scenario's values as one
 * label ("site_links[0].bandwidth = 4 Tbit/s, site_links[0].latency = 0.1 ms"; "the only scenario"
 * without variables). `values` holds one value per variable. Every command prints scenarios so. */
char *sax_results_scenario_value_str(const sax_scenario_var_t *var, double x, char *buf, size_t len);
char *sax_results_scenario_label(const sax_space_desc_t *space, const double *values, char *buf, size_t len);

/* Column metadata shared by the HDF5 attributes, the CSV header and the report. */
typedef struct {
    const char *name, *unit, *description;
} sax_results_column_t;
/* Every column of a results row (/rows, /best, /top, ...) as it is named in files, in file order;
 * fills up to `max` entries, returns the count. */
int sax_results_columns(sax_results_column_t *out, int max);

/* Column `col` (of sax_results_columns) of a record as CSV/text: enums by name, doubles with 17
 * significant digits. */
void sax_results_column_format(const sax_space_desc_t *space, const sax_record_t *rec, int col, char *buf,
                               size_t len);

#endif
