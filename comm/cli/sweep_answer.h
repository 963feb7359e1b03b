/* sweep_answer.h - private to the sax executable: what `sax sweep` says beyond each scenario's best
 * (docs/decisions.md): what a network-oblivious optimiser would pick and what it costs, how much of
 * each baseline's speedup placement, scheduling and the network contribute, and the candidate that
 * is least bad over all scenarios (sweep_answer.c). */
#ifndef SAX_SWEEP_ANSWER_H
#define SAX_SWEEP_ANSWER_H

#include "sax_comm.h"

#include <stdio.h>

typedef struct {
    bool found;        /* the merged network has a feasible candidate */
    double merged_s;   /* its time as the oblivious optimiser predicts it */
    sax_record_t real; /* the same candidate on the real network */
    sax_skip_t skip;   /* why the real one was not evaluated (SAX_SKIP_NONE: it was) */
} sweep_oblivious_t;

/* Per scenario: compression is lossy (docs/decisions.md), so a lossy best is shown beside the best
 * candidate that compresses nothing; and a compression that changes nothing is called a no-op. */
typedef struct {
    bool lossy; /* the best compresses */
    bool noop;  /* ... and without its compression it moves the same bytes in the same time */
    const sax_record_t *lossless; /* the best without compression (index -1: none in the space) */
} sweep_lossless_t;

typedef struct {
    int n_scenarios, n_baselines;
    sweep_lossless_t *lossless;     /* n_scenarios */
    sax_ties_t *ties;               /* n_scenarios: the candidates tied with the best */
    sax_why_none_t *why_none;       /* n_scenarios x (1 + n_baselines): why the scenario [0] or a
                                       baseline [1 + b] has no feasible candidate (candidates 0 when
                                       it has one) */
    bool have_oblivious;            /* false when --no-oblivious or interrupted */
    sweep_oblivious_t *oblivious;   /* n_scenarios */
    sax_attribution_t *attribution; /* n_scenarios x n_baselines */
    sax_robust_t robust;
    double *regret; /* n_scenarios: the robust candidate's */
} sweep_answer_t;

/* Collective over `comm`: the network-oblivious sweep (pruned) of the scenarios of `s` with
 * the sites merged (sax_search_oblivious_problem). On rank 0 *best receives, per scenario, its best
 * record on the merged network (index -1: none); other ranks may pass NULL. `stop` as in
 * sax_sweep_opts_t. Returns SAX_ERR_INTERRUPTED when stopped. */
sax_status_t sweep_oblivious(MPI_Comm comm, const sax_space_desc_t *space, const sax_candidate_t *base,
                             const sax_search_t *s, volatile sig_atomic_t *stop, sax_record_t *best,
                             sax_error_t *err);

/* Serial (rank 0): everything else, from the merged reductions `r` of an exhaustive or pruned sweep
 * and the oblivious bests (NULL: not computed). */
sax_status_t sweep_answer_compute(const sax_search_t *s, const sax_reduce_t *r, bool exhaustive,
                                  const sax_record_t *oblivious_best, sweep_answer_t *a, sax_error_t *err);
void sweep_answer_free(sweep_answer_t *a);

/* Text lines of scenario `sc`, indented: the tie (under the best), the best lossless, the attribution (under
 * baseline b), the oblivious pick (last); then the robust block after all scenarios. */
void sweep_answer_print_ties_text(FILE *f, const sax_search_t *s, const sax_reduce_t *r,
                                  const sweep_answer_t *a, int sc);
/* "no feasible candidate: of N candidates, ... never valid (reasons), ... evaluated: reasons" for the
 * scenario (b = -1) or baseline b; nothing when it has a feasible candidate. */
void sweep_answer_print_why_none_text(FILE *f, const sweep_answer_t *a, int sc, int b);
void sweep_answer_print_lossless_text(FILE *f, const sax_reduce_t *r, const sweep_answer_t *a, int sc);
void sweep_answer_print_attribution_text(FILE *f, const sweep_answer_t *a, int sc, int b);
void sweep_answer_print_oblivious_text(FILE *f, const sax_reduce_t *r, const sweep_answer_t *a, int sc);
void sweep_answer_print_robust_text(FILE *f, const sax_search_t *s, const sweep_answer_t *a);
/* JSON members (each preceded by ", "): per scenario `"oblivious": {...}` and `"best_lossless": {...},
 * "best_lossy": b, "compression_noop": b` and `"ties": {...}`; per baseline
 * `"attribution": {...}`; top level `"robust": {...}`. */
void sweep_answer_print_oblivious_json(FILE *f, const sax_search_t *s, const sax_reduce_t *r,
                                       const sweep_answer_t *a, int sc);
void sweep_answer_print_ties_json(FILE *f, const sax_search_t *s, const sax_reduce_t *r,
                                  const sweep_answer_t *a, int sc);
/* `, "why_none": {...}` for a scenario without a feasible candidate and `, "baselines_why_none": {name:
 * {...}}` for its baselines without one. */
void sweep_answer_print_why_none_json(FILE *f, const sax_search_t *s, const sweep_answer_t *a, int sc);
void sweep_answer_print_lossless_json(FILE *f, const sax_reduce_t *r, const sweep_answer_t *a, int sc);
void sweep_answer_print_attribution_json(FILE *f, const sweep_answer_t *a, int sc, int b);
void sweep_answer_print_robust_json(FILE *f, const sax_search_t *s, const sweep_answer_t *a);

#endif
