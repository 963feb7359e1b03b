/* test_results_fixture.h - a small hand-made sweep outcome (space, scenarios, records, reductions)
 * shared by the results tests. Values follow simple closed formulas of the row number, so tests
 * can state what a file must contain without running the model. */
#ifndef SAX_TEST_RESULTS_FIXTURE_H
#define SAX_TEST_RESULTS_FIXTURE_H

#include "sax_results.h"

#define FX_SCENARIOS 2
#define FX_PER_SCENARIO 600 /* evaluated candidates per scenario */
#define FX_ROWS (FX_SCENARIOS * FX_PER_SCENARIO)
#define FX_TOP_K 3

typedef struct {
    sax_space_desc_t space;
    double scenario_values[FX_SCENARIOS];
    sax_record_t rows[FX_ROWS]; /* every evaluated candidate, by scenario then index */
    sax_record_t best[FX_SCENARIOS];
    sax_record_t top[FX_SCENARIOS * FX_TOP_K];
    sax_record_t pareto[FX_ROWS];
    int64_t n_pareto;
    sax_record_t bpv[FX_SCENARIOS * 5]; /* tp = 1, 2, 4 and order = 0, 1 */
    int32_t bpv_key[FX_SCENARIOS * 5], bpv_value[FX_SCENARIOS * 5];
    sax_record_t baseline_best[FX_SCENARIOS * 2];
    sax_results_t res;
    /* the answer beyond the bests (fx_answer) */
    sax_results_answer_t answer;
    sax_results_ties_t ties[FX_SCENARIOS];
    sax_results_lossless_t lossless[FX_SCENARIOS];
    sax_results_oblivious_t oblivious[FX_SCENARIOS];
    sax_results_attribution_t attribution[FX_SCENARIOS * 2];
    double regret[FX_SCENARIOS];
    sax_record_t near[2];
    double near_worst[2];
} fx_t;

/* Row i of the sweep (0 <= i < FX_ROWS): index 3*(i % FX_PER_SCENARIO), scenario i / FX_PER_SCENARIO,
 * tp = {1,2,4}[j % 3], pp = {1,2}[(j / 3) % 2], schedule = {1f1b, interleaved}[(j / 6) % 2],
 * order = orders[(j / 12) % 2], iteration_time_s = 1 + (j * 37 % 101) / 10 + scenario,
 * cross_site_bytes = 1e9 * (j % 7); infeasible (memory) when j % 10 == 9; j = i % FX_PER_SCENARIO. */
void fx_record(const fx_t *fx, int64_t i, sax_record_t *rec);
void fx_init(fx_t *fx, sax_store_t store);
/* A hand-made /answer (values in test_results_fixture.c), with or without the oblivious pick, set as
 * fx->res.answer. Scenario 0: 2 tied candidates differing in tp and pp, the simplest = top[1]; the
 * best lossy (fp8) with the bpv row of tp = 2 as best lossless; production's speedup split as
 * placement 1.5, scheduling 0.8, network t(production) / t(best) / 1.2 (6 orders); tp1's not split;
 * the oblivious pick = tp1's best, predicted 0.9 s. Scenario 1: no tie, lossless best; both
 * attributions valid over 4 orders (placement 2, scheduling 1, network speedup / 2); the oblivious
 * pick invalid ("tp_domain"), predicted 1.9 s. Robust: rows[5], regret 0.1 and 0.25, exact, 7
 * candidates, bound 0.3, 2 within 5 % (rows[0] 0.01, rows[1] 0.02). */
void fx_answer(fx_t *fx, bool oblivious);

#endif
