/* results_hdf5.h - private to io/results/: the on-disk row layout of results files and the HDF5 types
 * built from the model's X-macro lists (one list feeds the HDF5 compound type, the CSV header and
 * the JSON keys). docs/results-format.md documents the result.
 */
#ifndef SAX_RESULTS_HDF5_H
#define SAX_RESULTS_HDF5_H

#include "sax_results.h"

#include <hdf5.h>

/* Extra per-row columns beyond SAX_METRIC_LIST and the breakdown.
 * X(field of sax_result_t, unit, description) */
#define SAX_ROW_MEMORY_LIST(X)                                                                               \
    X(mem_weights_bytes, "B", "weights held by the fullest GPU")                                             \
    X(mem_grads_bytes, "B", "gradients held by the fullest GPU")                                             \
    X(mem_optimizer_bytes, "B", "optimizer state held by the fullest GPU")                                   \
    X(mem_activations_bytes, "B", "activations held by the fullest GPU at its peak")

/* One row of /rows, /best, /top, /pareto as it sits in memory and in the file (the same layout
 * in both, so parallel writes need no type conversion). Doubles first, then 32-bit integers, then
 * the 8-bit flag: padding only at the end, and rows are zeroed before they are filled. */
typedef struct {
    int64_t index;
#define SAX_ROW_DOUBLE(field, unit, desc) double field;
    SAX_METRIC_LIST(SAX_ROW_DOUBLE)
    SAX_ROW_MEMORY_LIST(SAX_ROW_DOUBLE)
#undef SAX_ROW_DOUBLE
    double breakdown_s[SAX_PHASE_COUNT];
    double comm_s[SAX_DIM_COUNT];
    int32_t scenario;
    int32_t key[SAX_KEY_COUNT]; /* integer coding of sax_candidate_get; order: index into the space */
    int32_t reason;             /* sax_infeasible_t */
    int32_t gpus_used;
    int8_t feasible;
} sax_row_t;

/* /best_per_value: the key and value a row is best for. */
typedef struct {
    sax_row_t row;
    int32_t bpv_key;
    int32_t bpv_value;
} sax_bpv_row_t;

/* /baseline_best: which baseline a row is the best candidate of. */
typedef struct {
    sax_row_t row;
    int32_t baseline;
} sax_baseline_row_t;

/* /answer (docs/results-format.md): leading fields, then a candidate's row where there is one. */
#define SAX_DIFFER_LEN 400 /* "transport,connections,...": every key name fits */

typedef struct {   /* /answer/ties */
    sax_row_t row; /* the simplest tied candidate */
    int64_t tied;
    char differ_in[SAX_DIFFER_LEN];
    int8_t at_least;
} sax_ties_row_t;

typedef struct {   /* /answer/best_lossless */
    sax_row_t row; /* the best without compression */
    int8_t lossy, noop;
} sax_lossless_row_t;

typedef struct {   /* /answer/oblivious */
    sax_row_t row; /* the pick on the real network */
    double merged_time_s;
    char invalid[SAX_RESULTS_INVALID_LEN];
    int8_t found;
} sax_oblivious_row_t;

typedef struct { /* /answer/attribution */
    double factor[SAX_RESULTS_FACTOR_COUNT];
    int32_t scenario, baseline, orders;
    int8_t valid;
} sax_attribution_row_t;

typedef struct {   /* /answer/robust */
    sax_row_t row; /* the robust candidate in scenario 0 */
    double worst_regret, bound;
    int32_t candidates, within_5pct;
    int8_t found, exact;
} sax_robust_row_t;

typedef struct { /* /answer/robust_within_5pct */
    sax_row_t row;
    double worst_regret;
} sax_near_row_t;

/* The rows one rank contributes to /rows: records, or rows already in the file's layout, split
 * into runs (sax_results_write). */
typedef struct {
    const sax_record_t *recs; /* one of recs and rows */
    const sax_row_t *rows;
    int64_t n;
    const int64_t *run_len; /* NULL: one run */
    int64_t n_runs;
} sax_row_source_t;

void sax_results_rows_source(const sax_results_rows_t *acc, sax_row_source_t *src);

/* HDF5 types of one file, created from the space (the `order` enum names the space's orders).
 * Every id is owned; sax_results_types_fini closes them. */
typedef struct {
    hid_t bool_t;                   /* int8 enum false/true */
    hid_t key_t[SAX_KEY_COUNT];     /* enum for named keys, native int32 otherwise (borrowed) */
    hid_t key_any_t[SAX_KEY_COUNT]; /* the same with an "any" member = -1 (baselines table) */
    hid_t reason_t;                 /* sax_infeasible_t enum */
    hid_t row_t;                    /* sax_row_t */
    hid_t bpv_t;                    /* sax_bpv_row_t */
    hid_t baseline_enum_t;          /* baseline names, or -1 when there are none */
    hid_t baseline_row_t;           /* sax_baseline_row_t */
    hid_t key_enum_t;               /* sax_key_t enum */
    hid_t str_t;                    /* variable-length UTF-8 string */
    hid_t ties_t, lossless_t, oblivious_t, attribution_t, robust_t, near_t; /* /answer */
} sax_results_types_t;

sax_status_t sax_results_types_init(sax_results_types_t *t, const sax_space_desc_t *space, sax_error_t *err);
void sax_results_types_fini(sax_results_types_t *t);

/* Units and descriptions of the members of `compound` (found by member name), in member order,
 * as two string arrays; the caller frees each with free(). Unknown members get "" . */
int sax_results_field_info(hid_t compound, const char ***units, const char ***descriptions);

/* A row <-> a record. `space` resolves `order`. */
void sax_results_row_from_record(const sax_space_desc_t *space, const sax_record_t *rec, sax_row_t *row);
void sax_results_record_from_row(const sax_space_desc_t *space, const sax_row_t *row, sax_record_t *rec);

#endif
