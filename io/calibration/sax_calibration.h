/* sax_calibration.h - io/calibration/: fitting the cost model to measurements
 * (docs/calibration.md). Parses nccl-tests output, fits alpha-beta parameters per tier, the GEMM
 * efficiency curve per GPU and the remaining parameters from end-to-end runs by linear and
 * nonlinear least squares (PETSc KSPLSQR), and writes the calibrated configuration.
 *
 * Depends on model/ types; io/config/ (which reads the configurations it fits and writes),
 * cJSON and PETSc stay inside io/calibration/. Nothing here is collective: every PETSc object
 * lives on PETSC_COMM_SELF. */
#ifndef SAX_CALIBRATION_H
#define SAX_CALIBRATION_H

#include "sax_model.h"

#include <stdio.h>

/* The nccl-tests binary of each collective (model/sax_model.h's SAX_COLL_OP_LIST order). */
extern const char *const sax_coll_op_binaries[SAX_COLL_OP_COUNT];

/* The collective a measurement names: sax_coll_op_names, or nccl-tests' "alltoall"; -1 when none. */
int sax_coll_op_lookup(const char *name);

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

/* the run fit's parameters: 2 shared and up to 9 per GPU type (GEMM ceiling, memory, fp8 ceiling,
 * interference, four attention kernels): four GPU types */
#define SAX_LSQ_MAX_PARAMS 40

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
    double prior_weight; /* > 0: adds the residual prior_weight (x - start), a Gaussian prior on start */
} sax_nls_param_t;

/* Residuals r[0..m) at parameters x[0..k); returns SAX_OK or an error (which stops the fit). */
typedef sax_status_t (*sax_nls_residual_fn)(void *ctx, const double *x, double *r, sax_error_t *err);

typedef struct {
    double x[SAX_LSQ_MAX_PARAMS];
    double std_error
        [SAX_LSQ_MAX_PARAMS]; /* sigma^2 (J^T J)^-1 (J with the priors' rows) over the determined, not
                                          at a bound; else NaN */
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
    long stride;  /* the group: `gpus` members `stride` apart in the cluster's GPU order, from GPU 0 */
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
    double eff_max_fp8;            /* sax_gpu_t.gemm_eff_max_fp8 from the fp8 rows (eff_max when one curve
                                      fits every row); 0: no fp8 row */
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
 * intensities are measured. With bf16 rows of two intensities or more the curve is theirs, and the fp8
 * rows give the fp8 ceiling at the same knee (eff_max_fp8); otherwise every row fits the one curve. */
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
    bool leave_family_out;         /* --leave-family-out: one fold a family of runs instead of k */
    bool no_prior;                 /* --no-prior: the run parameters by least squares alone */
} sax_calibrate_opts_t;

/* Runs the whole calibration and prints the report on `out`. Not collective (the command runs it
 * on rank 0). Starts and stops PETSc itself when it is not running. */
sax_status_t sax_calibrate_run(const sax_calibrate_opts_t *opts, FILE *out, sax_error_t *err);

#endif
