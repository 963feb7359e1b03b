/* sax_reports.h - io/reports/: what sax makes of a results file. Pareto fronts over chosen output
 * columns (`sax pareto`: a table, a CSV file, an SVG plot) and the report of the best
 * configuration per scenario against the baselines, with its SVG plots (`sax report`).
 *
 * sax_results_front and sax_results_candidates (the candidates a file holds, and their front) are
 * named after the file they read but live here, with the analyses that use them.
 *
 * Depends on io/results/ (it reads results files) and model/ types. Everything here is serial. */
#ifndef SAX_REPORTS_H
#define SAX_REPORTS_H

#include "sax_results.h"

#include <stdio.h>

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

#endif
