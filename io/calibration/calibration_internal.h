/* calibration_internal.h - private to io/calibration/: what the calibration steps hand each other.
 *
 * The files stand one above the other: calibrate.c (the command) uses calibrate_report.c (what it
 * prints), calibrate_output.c (CALIBRATED.json) and the fits; the report and the output use
 * calibrate_runs.c (the run fit and its predictions). The fits are calibrate_runs.c (through
 * lsq_nls.c), calibrate_collective.c (with nccl_table.c) and calibrate_gemm.c, all resting on
 * lsq.c (PETSc); calibrate_files.c is at the bottom. Configurations are read with io/config/. */
#ifndef SAX_CALIBRATION_INTERNAL_H
#define SAX_CALIBRATION_INTERNAL_H

#include "sax_calibration.h"
#include "sax_config.h"

#include <stdio.h>

/* What a collective measurement's `tier` names. */
typedef enum { CAL_TARGET_SCALE_UP, CAL_TARGET_TIER, CAL_TARGET_LINK } cal_target_kind_t;

/* One network level of the -c configuration and its fit. */
typedef struct {
    cal_target_kind_t kind;
    int index;               /* tier or link index */
    char name[SAX_PATH_LEN]; /* "scale_up", the tier's name, "site_links[0]" */
    int n_measurements;      /* collectives tagged with it */
    bool fitted;
    sax_coll_fit_t fit;
    double flows; /* links: bandwidth written = fit.bw_Bps x flows */
    /* The same level fitted through sax's own collective model (calibrate_model.c): the values
     * written when `model.ok`, the alpha-beta fit's otherwise. */
    struct {
        bool ok;
        double latency_s, bw_Bps; /* per GPU (scale_up, tiers) or per flow (links) */
        double rms_rel_error, max_rel_error;
        int points;
        char why[1024]; /* when not ok */
    } model;
    /* When the level was measured with more than one algorithm: each algorithm alone, a diagnostic
     * of whether one (alpha, B) describes them all (not written). */
    int n_algo;
    struct {
        sax_algorithm_t algorithm;
        bool ok;
        sax_coll_fit_t fit;
        char why[256]; /* when not ok: why this subset alone is ill-posed */
    } algo[SAX_ALGORITHM_COUNT];
} cal_target_t;

/* One GPU type by name, and what the GEMM rows gave. */
typedef struct {
    char name[SAX_NAME_LEN];
    sax_gpu_t gpu; /* as configured */
    bool gemm_fitted;
    sax_gemm_fit_t gemm;
} cal_gpu_t;

/* Parameters fitted from end-to-end runs. X(kind, name suffix, lower, upper, prior width); the training
 * ones first, in sax_tuned_keys' order, whose keys cal_param_key returns (calibrate_runs.c asserts the
 * order). The prior width is the standard deviation of a Gaussian prior centred on the start value
 * (calibrate_runs.c, CAL_RUN_NOISE): a fraction of the peak for the efficiencies, seconds for the step
 * overhead, a share for the overlaps and interference (docs/calibration.md). */
#define CAL_RUN_PARAM_LIST(X)                                                                                \
    X(CAL_DP_OVERLAP, "training.dp_overlap_efficiency", 0.0, 1.0, 0.2)                                       \
    X(CAL_TP_OVERLAP, "training.tp_overlap", 0.0, 1.0, 0.2)                                                  \
    X(CAL_STEP_OVERHEAD, "training.step_overhead", 0.0, 1.0, 0.05)                                           \
    X(CAL_EP_OVERLAP, "training.ep_overlap_efficiency", 0.0, 1.0, 0.2)                                       \
    X(CAL_HYBRIDEP, "training.hybridep_efficiency", 0.05, 1.0, 0.2)                                          \
    X(CAL_GEMM_EFF_MAX, "gemm_efficiency_max", 0.05, 1.0, 0.1)                                               \
    X(CAL_MEM_EFF, "memory_efficiency", 0.05, 1.0, 0.1)                                                      \
    X(CAL_GEMM_EFF_MAX_FP8, "gemm_efficiency_max_fp8", 0.05, 1.0, 0.1)                                       \
    X(CAL_INTERFERENCE, "comm_interference", 0.0, 1.0, 0.1)                                                  \
    X(CAL_ATTN_FUSED, "attention_efficiency_fused", 0.02, 1.0, 0.1)                                          \
    X(CAL_ATTN_FLASH1, "attention_efficiency_flash1", 0.02, 1.0, 0.1)                                        \
    X(CAL_ATTN_FLASH2, "attention_efficiency_flash2", 0.02, 1.0, 0.1)                                        \
    X(CAL_ATTN_FLASH3, "attention_efficiency_flash3", 0.02, 1.0, 0.1)
#define CAL_ENUM(kind, name, lo, hi, sd) kind,
typedef enum { CAL_RUN_PARAM_LIST(CAL_ENUM) CAL_RUN_PARAM_COUNT } cal_param_kind_t;
#undef CAL_ENUM
/* The configuration key of a run parameter (of the GPU object for the per-GPU ones). */
const char *cal_param_key(cal_param_kind_t kind);

typedef struct {
    cal_param_kind_t kind;
    int gpu;       /* index into cal_state_t.gpus for the GPU parameters, else -1 */
    char name[96]; /* "training.tp_overlap", "gpu[A100].gemm_efficiency_max" */
    double start, lower, upper;
    double prior_sd; /* the prior's width; 0 under --no-prior */
    double value, std_error;
    bool determined, at_bound;
} cal_param_t;

/* The settings a measured run leaves unstated, assumed as `sax validate` assumes them when the
 * configured ones overfill its GPUs (a.n = 0: none assumed). */
typedef struct {
    sax_memory_assumption_t a;
    double default_memory_per_gpu_bytes; /* what the configured settings need */
} cal_assumed_t;

typedef struct {
    char label[128]; /* "runs[3] (name)" */
    char name[64];
    char family[64];  /* "" without one */
    sax_config_t cfg; /* with the assumed settings set */
    cal_assumed_t assumed;
    double measured_s;
    bool usable;                         /* feasible under the model at the start values */
    double start_s, fitted_s, heldout_s; /* predictions: start values, all-run fit, k-fold held out */
} cal_run_t;

typedef struct {
    /* inputs */
    const sax_calibrate_opts_t *opts;
    sax_config_t config; /* -c */
    int n_targets;
    cal_target_t targets[1 + SAX_MAX_TIERS + SAX_MAX_LINKS];
    int n_gpus;
    cal_gpu_t gpus[2 * SAX_MAX_SITES + 8];
    int n_gemm_rows;
    sax_gemm_measurement_t *gemm_rows; /* kept for the report */
    int *gemm_gpu;                     /* index into gpus of each row */
    int n_runs;
    cal_run_t *runs;
    /* run fit */
    int n_params;
    cal_param_t params[SAX_LSQ_MAX_PARAMS];
    int folds;
    double run_condition;
    int run_iterations;
    bool run_fitted;
    sax_scratch_t *scratch; /* sax_model_eval scratch (sax_scratch_init-ed) */
} cal_state_t;

/* Index of the GPU named `name` in st->gpus, or -1. */
int cal_gpu_find(const cal_state_t *st, const char *name);

/* Writes the fitted network, GPU and (for runs) parameter values into a problem, matching tiers
 * and GPUs by name; `x` are run-parameter values (NULL: only the micro-benchmark fits). */
void cal_apply(const cal_state_t *st, const double *x, sax_problem_t *p);

/* calibrate_model.c. The latency and bandwidth written for a fitted level: the model fit's when it
 * reproduced the measurements, else the alpha-beta fit's; a link's bandwidth is the aggregate. */
void cal_level_written(const cal_target_t *tg, double *latency_s, double *bw_Bps);
/* Writes every fitted level into `cl` (st's own cluster: links too; another run's cluster: the
 * scale-up domain when it has st's GPU, and tiers by name). */
void cal_apply_network(const cal_state_t *st, sax_cluster_t *cl, bool own_cluster);
/* Fits the latency and bandwidth of level `tg` through sax_collective_predict on the measurements
 * m[0..k) of that level, the levels fitted before it applied; sets tg->model. */
sax_status_t cal_model_fit(const cal_state_t *st, cal_target_t *tg, const sax_coll_measurement_t *m, int k,
                           sax_error_t *err);
/* rms and max relative error of sax's collective model on `cl` against one table; row_s[r] the
 * predicted time of row r (may be NULL). false, with `why`, when the model cannot place the group. */
bool cal_model_errors(const cal_state_t *st, const sax_cluster_t *cl, const sax_coll_measurement_t *m,
                      double *row_s, double *rms, double *mx, char *why, size_t why_n);

/* Sets up the run parameters, fits them on all usable runs, then k-fold cross-validates. */
sax_status_t cal_runs_fit(cal_state_t *st, sax_error_t *err);

/* Predicted iteration time of `cfg` with the calibration applied (x as for cal_apply); returns
 * SAX_ERR_INPUT naming `label` when the model finds the configuration infeasible. */
sax_status_t cal_predict(const cal_state_t *st, const double *x, const sax_config_t *cfg, const char *label,
                         double *time_s, sax_error_t *err);

/* A run that its configured settings leave refused for memory: the settings it does not state
 * (`stated`, bit l for sax_lever_keys[l]) are assumed so that it fits, as `sax validate` does, and set
 * on cfg (memory does not depend on the fitted parameters, so once is enough). */
sax_status_t cal_assume_fit(const cal_state_t *st, sax_config_t *cfg, unsigned stated, cal_assumed_t *out);

/* The cases of a --holdout dataset and their predictions. */
typedef struct {
    int n;
    sax_case_t *cases;
    double *before_s, *after_s; /* as configured / calibrated; NAN: infeasible under the model */
    cal_assumed_t *assumed;
} cal_holdout_t;

/* The family a run is cross-validated with under --leave-family-out: its `family`, or its name. */
const char *cal_run_family(const cal_run_t *r);
/* The scale of the run fit's soft-L1 loss (cal_soft_l1): a run's relative error counts as its square up
 * to about this, beyond it as its absolute value, the measure the fit is judged by (docs/calibration.md) */
#define CAL_RUN_SOFT_L1 0.05
/* Relative error e through the soft-L1 loss of scale c, as a residual: its square is
 * 2 c^2 (sqrt(1 + (e/c)^2) - 1), about e^2 for |e| << c and 2 c |e| for |e| >> c (calibrate_runs.c). */
double cal_soft_l1(double e, double c);

/* calibrate_files.c: cJSON's printed text with its tab layout as spaces. */
bool cal_write_untabbed(FILE *f, const char *text);

/* calibrate_output.c: writes CALIBRATED.json and loads it back. */
sax_status_t cal_write_output(const cal_state_t *st, sax_error_t *err);

/* calibrate_report.c */
sax_status_t cal_holdout_evaluate(const cal_state_t *st, cal_holdout_t *h, sax_error_t *err);
void cal_holdout_fini(cal_holdout_t *h);
void cal_report_text(const cal_state_t *st, const sax_coll_measurement_t *m, const int *target_of, int nm,
                     const cal_holdout_t *h, FILE *out);
void cal_report_json(const cal_state_t *st, const sax_coll_measurement_t *m, const int *target_of, int nm,
                     const cal_holdout_t *h, FILE *out);

#endif
