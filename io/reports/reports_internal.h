/* reports_internal.h - private to io/reports/: what the files of the folder hand each other.
 *
 * The files stand one above the other: report.c (`sax report`) and pareto_report.c (`sax pareto`)
 * use report_plots.c (the plots); the plots and pareto_report.c use candidates.c (the candidates
 * a file holds, and their front); candidates.c uses pareto.c (non-dominated sets) and io/results/;
 * svg.c (the chart writer) is at the bottom. Nothing lower calls anything higher. */
#ifndef SAX_REPORTS_INTERNAL_H
#define SAX_REPORTS_INTERNAL_H

#include "sax_reports.h"

#include <stdio.h>

/* ---- candidates.c ----------------------------------------------------------------------------- */

/* sax_results_front reading /rows `batch_rows` at a time (tests use small batches). */
sax_status_t sax_results_front_batched(const sax_results_data_t *d, int s, const int *obj, int k,
                                       int64_t max_sample, int64_t batch_rows, sax_results_front_t *out,
                                       sax_error_t *err);

/* ---- report_plots.c: sax's plots -------------------------------------------------------------- */

/* (1) Step time against cross-site traffic for scenario s: the two-objective front of the
 * candidates the file holds (every stored row when /rows exists, otherwise /pareto + /top + the
 * other reductions), the other candidates as a grey cloud, the best and each baseline marked. */
sax_status_t sax_plot_pareto(FILE *f, const sax_results_data_t *d, int scenario, sax_error_t *err);
/* (2) Stacked bars of the time breakdown for the best and each baseline of scenario s. */
sax_status_t sax_plot_breakdown(FILE *f, const sax_results_data_t *d, int scenario, sax_error_t *err);
/* (3) Best step time (top) and speedup over the first baseline (bottom) against scenario variable
 * `var`, one line per placement (order), from /best_per_value; other scenario variables held at
 * their first value. */
sax_status_t sax_plot_scenarios(FILE *f, const sax_results_data_t *d, int var, sax_error_t *err);
/* (4) Scenario s's baselines, one bar each on a log axis from 1 to its speedup, stacked from its
 * attribution factors (placement, scheduling, network) as stored in /answer/attribution. */
sax_status_t sax_plot_attribution(FILE *f, const sax_results_data_t *d, int scenario, sax_error_t *err);
/* (5) The robust candidate's regret in each scenario (/answer/robust_regret), with the 5 % line;
 * `which` is unused. */
sax_status_t sax_plot_robust(FILE *f, const sax_results_data_t *d, int which, sax_error_t *err);
/* Scatter of two objectives: x/y[0..n_cloud) are the grey cloud (a sample of n_total
 * candidates), x/y[front[i]] the front, joined as a staircase when `staircase` (a two-objective
 * front; with more objectives its projection is not one). sax pareto --svg. */
sax_status_t sax_plot_front(FILE *f, const char *title, const char *xname, const char *xunit,
                            const char *yname, const char *yunit, const double *x, const double *y,
                            int64_t n_cloud, int64_t n_total, const int64_t *front, int64_t n_front,
                            bool staircase, sax_error_t *err);

/* Label of scenario s: "site_links[0].bandwidth = 1.25 TB/s, ..." (or "the only scenario"). */
void sax_report_scenario_label(const sax_results_data_t *d, int s, char *buf, size_t len);

#endif
