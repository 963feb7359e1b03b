/* sweep_answer.c - what `sax sweep` says beyond each scenario's best (docs/decisions.md): the
 * network-oblivious optimiser's pick and what it costs on the real network, each baseline's speedup
 * split over placement, scheduling and network, and the robust candidate. The analysis is
 * search/decide.c's; this file runs the oblivious sweep and prints. */
#include "sweep_answer.h"

#include "cli_print.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Candidates the model evaluates to say why a scenario or a baseline has no feasible one. */
#define WHY_NONE_EVALS 100000

sax_status_t sweep_oblivious(MPI_Comm comm, const sax_space_desc_t *space, const sax_candidate_t *base,
                             const sax_search_t *s, volatile sig_atomic_t *stop, sax_record_t *best,
                             sax_error_t *err)
{
    int ns = sax_search_scenario_count(s);
    sax_problem_t *merged = malloc((size_t)ns * sizeof *merged);
    if (merged == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory for the network-oblivious sweep");
    for (int sc = 0; sc < ns; sc++)
        sax_search_oblivious_problem(sax_search_problem(s, sc), &merged[sc]);
    sax_search_t *so = NULL;
    sax_reduce_t *acc = NULL;
    sax_ranges_t done;
    sax_ranges_init(&done);
    sax_status_t st = sax_search_create(space, base, merged, ns, &so, err);
    free(merged);
    if (st == SAX_OK)
        st = sax_reduce_create(so, 1, &acc, err);
    if (st == SAX_OK) {
        sax_sweep_opts_t o = {.pruned = true, .stop = stop};
        st = sax_comm_sweep(comm, so, &o, acc, &done, err);
    }
    if (st == SAX_OK)
        st = sax_comm_allreduce(comm, acc, err);
    if (st == SAX_OK && best != NULL)
        for (int sc = 0; sc < ns; sc++)
            best[sc] = *sax_reduce_best(acc, sc);
    sax_ranges_fini(&done);
    sax_reduce_destroy(&acc);
    sax_search_destroy(&so);
    return st;
}

void sweep_answer_free(sweep_answer_t *a)
{
    free(a->oblivious);
    free(a->lossless);
    free(a->ties);
    free(a->why_none);
    free(a->attribution);
    free(a->regret);
    memset(a, 0, sizeof *a);
}

/* The oblivious pick's placement and schedule on the real network, with the network settings (which a
 * flat-network optimiser does not choose, or cannot tell apart) tuned there: the best of its block of
 * network keys. When none is feasible, the pick's own network settings say why. */
static sax_status_t oblivious_on_real(const sax_search_t *s, const sax_record_t *merged,
                                      sax_scratch_t *scratch, sweep_oblivious_t *o)
{
    o->found = true;
    o->merged_s = merged->result.iteration_time_s;
    int64_t size = sax_search_block_size(s, SAX_SEARCH_NET_POS), start = merged->index - merged->index % size;
    sax_status_t st = SAX_OK;
    bool have = false;
    for (int64_t i = start; i < start + size && st == SAX_OK; i++) {
        sax_search_cursor_t cur;
        sax_search_seek(s, i, &cur);
        sax_record_t rec;
        sax_skip_t skip;
        st = sax_search_eval_digits(s, cur.scenario, cur.digit, scratch, &rec, &skip);
        bool better = skip == SAX_SKIP_NONE && rec.result.feasible &&
                      (!have || rec.result.iteration_time_s < o->real.result.iteration_time_s);
        if (better || (!have && i == merged->index)) {
            o->real = rec;
            o->skip = skip;
            have = have || better;
        }
    }
    return st;
}

/* The best that compresses nothing (the per-value best of compression none), and whether the best's
 * compression is a no-op: the same candidate without it moves the same bytes in the same time. */
static sax_status_t lossless_of(const sax_search_t *s, const sax_reduce_t *r, const sax_record_t *best,
                                sax_scratch_t *scratch, sweep_lossless_t *l)
{
    static const sax_record_t none = {.index = -1};
    l->lossless = &none;
    for (int j = 0; j < sax_search_value_count(s, SAX_KEY_COMPRESSION); j++)
        if (sax_search_value(s, SAX_KEY_COMPRESSION, j) == SAX_COMPRESSION_NONE)
            l->lossless = sax_reduce_best_per_value(r, best->scenario, SAX_KEY_COMPRESSION, j);
    l->lossy = best->candidate.compression != SAX_COMPRESSION_NONE;
    if (!l->lossy)
        return SAX_OK;
    sax_candidate_t c = best->candidate;
    c.compression = SAX_COMPRESSION_NONE;
    sax_result_t res;
    sax_status_t st = sax_model_eval(sax_search_problem(s, best->scenario), &c, scratch, &res);
    l->noop = st == SAX_OK && res.feasible && res.iteration_time_s == best->result.iteration_time_s &&
              res.cross_site_bytes_per_iteration == best->result.cross_site_bytes_per_iteration;
    return st;
}

sax_status_t sweep_answer_compute(const sax_search_t *s, const sax_reduce_t *r, bool exhaustive,
                                  const sax_record_t *oblivious_best, sweep_answer_t *a, sax_error_t *err)
{
    memset(a, 0, sizeof *a);
    int ns = sax_search_scenario_count(s), nb = sax_search_desc(s)->n_baselines;
    a->n_scenarios = ns;
    a->n_baselines = nb;
    a->have_oblivious = oblivious_best != NULL;
    a->oblivious = calloc((size_t)ns, sizeof *a->oblivious);
    a->lossless = calloc((size_t)ns, sizeof *a->lossless);
    a->ties = calloc((size_t)ns, sizeof *a->ties);
    a->why_none = calloc((size_t)ns * (size_t)(nb + 1), sizeof *a->why_none);
    a->attribution = calloc((size_t)ns * (size_t)nb + 1, sizeof *a->attribution);
    a->regret = calloc((size_t)ns, sizeof *a->regret);
    const sax_record_t **top = calloc((size_t)ns, sizeof *top);
    int64_t *n_top = calloc((size_t)ns, sizeof *n_top);
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    sax_status_t st = SAX_OK;
    if (a->oblivious == NULL || a->lossless == NULL || a->ties == NULL || a->why_none == NULL ||
        a->attribution == NULL || a->regret == NULL || top == NULL || n_top == NULL || scratch == NULL)
        st = sax_error_set(err, SAX_ERR_NOMEM, "out of memory for the sweep's answer");
    else
        sax_scratch_init(scratch);
    for (int sc = 0; sc < ns && st == SAX_OK; sc++) {
        const sax_record_t *best = sax_reduce_best(r, sc);
        n_top[sc] = sax_reduce_top(r, sc, &top[sc]);
        sax_search_ties(s, top[sc], n_top[sc], sax_reduce_top_k(r), &a->ties[sc]);
        sax_why_none_t *why = &a->why_none[(size_t)sc * (size_t)(nb + 1)];
        if (best->index < 0)
            st = sax_search_why_none(s, sc, -1, WHY_NONE_EVALS, scratch, &why[0]);
        for (int b = 0; b < nb && st == SAX_OK; b++)
            if (best->index >= 0 && sax_reduce_baseline_best(r, sc, b)->index < 0)
                st = sax_search_why_none(s, sc, b, WHY_NONE_EVALS, scratch, &why[1 + b]);
        if (best->index >= 0 && st == SAX_OK)
            st = lossless_of(s, r, best, scratch, &a->lossless[sc]);
        if (a->have_oblivious && oblivious_best[sc].index >= 0)
            st = oblivious_on_real(s, &oblivious_best[sc], scratch, &a->oblivious[sc]);
        for (int b = 0; b < nb && st == SAX_OK && best->index >= 0; b++) {
            const sax_record_t *bl = sax_reduce_baseline_best(r, sc, b);
            if (bl->index >= 0)
                st = sax_search_attribute(s, bl->index, best->index, scratch, &a->attribution[sc * nb + b]);
        }
    }
    if (st == SAX_OK)
        st = sax_search_robust(s, top, n_top, sax_reduce_top_k(r), exhaustive, scratch, a->regret, &a->robust,
                               err);
    free(top);
    free(n_top);
    free(scratch);
    if (st != SAX_OK)
        sweep_answer_free(a);
    return st;
}

/* ---- text ------------------------------------------------------------------------------------ */

/* "300000 never valid (batch 200000, layers 100000); 31776 evaluated: memory 31000, ..." */
static void print_why_counts(FILE *f, const sax_why_none_t *w, bool json)
{
    int64_t never = 0;
    for (int i = 1; i < SAX_SKIP_COUNT; i++)
        never += w->skipped[i];
    if (json) {
        fprintf(f, "{\"candidates\": %lld, \"complete\": %s, \"skipped\": {", (long long)w->candidates,
                w->complete ? "true" : "false");
        bool first = true;
        for (int i = 1; i < SAX_SKIP_COUNT; i++)
            if (w->skipped[i] > 0) {
                fprintf(f, "%s\"%s\": %lld", first ? "" : ", ", sax_skip_names[i], (long long)w->skipped[i]);
                first = false;
            }
        fprintf(f, "}, \"evaluated\": %lld, \"infeasible\": {", (long long)w->evaluated);
        first = true;
        for (int i = 1; i < SAX_INFEASIBLE_COUNT; i++)
            if (w->infeasible[i] > 0) {
                fprintf(f, "%s\"%s\": %lld", first ? "" : ", ", sax_infeasible_names[i],
                        (long long)w->infeasible[i]);
                first = false;
            }
        fprintf(f, "}, \"not_evaluated\": %lld}", (long long)w->not_evaluated);
        return;
    }
    fprintf(f, "of %s%lld candidates, %lld never valid", w->complete ? "" : "the first ",
            (long long)w->candidates, (long long)never);
    const char *sep = " (";
    for (int i = 1; i < SAX_SKIP_COUNT; i++)
        if (w->skipped[i] > 0) {
            fprintf(f, "%s%s %lld", sep, sax_skip_names[i], (long long)w->skipped[i]);
            sep = ", ";
        }
    fprintf(f, "%s; %lld evaluated", never > 0 ? ")" : "", (long long)w->evaluated);
    sep = ", all infeasible: ";
    for (int i = 1; i < SAX_INFEASIBLE_COUNT; i++)
        if (w->infeasible[i] > 0) {
            fprintf(f, "%s%s %lld", sep, sax_infeasible_names[i], (long long)w->infeasible[i]);
            sep = ", ";
        }
    if (w->not_evaluated > 0)
        fprintf(f, "; %lld more valid ones not evaluated", (long long)w->not_evaluated);
}

void sweep_answer_print_why_none_text(FILE *f, const sweep_answer_t *a, int sc, int b)
{
    const sax_why_none_t *w = &a->why_none[(size_t)sc * (size_t)(a->n_baselines + 1) + (size_t)(b + 1)];
    if (w->candidates == 0)
        return;
    fprintf(f, "%s", b < 0 ? "  no feasible candidate: " : "    ");
    print_why_counts(f, w, false);
    fprintf(f, "\n");
}

void sweep_answer_print_why_none_json(FILE *f, const sax_search_t *s, const sweep_answer_t *a, int sc)
{
    const sax_why_none_t *w = &a->why_none[(size_t)sc * (size_t)(a->n_baselines + 1)];
    if (w[0].candidates > 0) {
        fprintf(f, ", \"why_none\": ");
        print_why_counts(f, &w[0], true);
    }
    bool any = false;
    for (int b = 0; b < a->n_baselines; b++) {
        if (w[1 + b].candidates == 0)
            continue;
        fprintf(f, "%s", any ? ", " : ", \"baselines_why_none\": {");
        any = true;
        cli_print_json_string(f, sax_search_desc(s)->baselines[b].name);
        fprintf(f, ": ");
        print_why_counts(f, &w[1 + b], true);
    }
    if (any)
        fprintf(f, "}");
}

/* `"parallelism": {...}, "network": {...}` of a candidate. */
static void print_settings_json(FILE *f, const sax_candidate_t *c)
{
    fprintf(f, "\"parallelism\": ");
    cli_print_parallelism_json(f, c);
    fprintf(f, ", \"network\": ");
    cli_print_network_json(f, c);
}

/* "transport {roce-sr, tcp}, connections {1, 4}": the values each differing key takes in the tie. */
static void print_tie_values(FILE *f, const sax_search_t *s, const sax_record_t *top, const sax_ties_t *t,
                             bool json)
{
    const sax_space_desc_t *d = sax_search_desc(s);
    bool first_key = true;
    for (int k = 0; k < SAX_KEY_COUNT; k++) {
        if (!(t->differ >> k & 1))
            continue;
        bool seen[SAX_SPACE_MAX_VALUES] = {false};
        for (int64_t i = 0; i < t->count; i++) {
            sax_search_cursor_t cur;
            sax_search_seek(s, top[i].index, &cur);
            seen[cur.digit[k]] = true;
        }
        fprintf(f, json ? "%s\"%s\": [" : "%s%s {", first_key ? "" : ", ", sax_key_names[k]);
        first_key = false;
        bool first_value = true;
        for (int j = 0; j < sax_search_value_count(s, (sax_key_t)k); j++) {
            if (!seen[j])
                continue;
            char buf[96];
            sax_key_value_name(d, (sax_key_t)k, sax_search_value(s, (sax_key_t)k, j), buf, sizeof buf);
            if (json) {
                fprintf(f, "%s", first_value ? "" : ", ");
                cli_print_json_string(f, buf);
            } else {
                fprintf(f, "%s%s", first_value ? "" : ", ", buf);
            }
            first_value = false;
        }
        fprintf(f, json ? "]" : "}");
    }
}

void sweep_answer_print_ties_text(FILE *f, const sax_search_t *s, const sax_reduce_t *r,
                                  const sweep_answer_t *a, int sc)
{
    const sax_ties_t *t = &a->ties[sc];
    if (t->count < 2)
        return;
    const sax_record_t *top;
    sax_reduce_top(r, sc, &top);
    fprintf(f, "  tied: %s%lld candidates with the same time, differing only in ",
            t->at_least ? "at least " : "", (long long)t->count);
    print_tie_values(f, s, top, t, false);
    fprintf(f, "\n  the simplest of them (docs/decisions.md): ");
    cli_print_candidate_line(f, &top[t->simplest].candidate);
    fprintf(f, "\n");
}

void sweep_answer_print_ties_json(FILE *f, const sax_search_t *s, const sax_reduce_t *r,
                                  const sweep_answer_t *a, int sc)
{
    const sax_ties_t *t = &a->ties[sc];
    const sax_record_t *top;
    sax_reduce_top(r, sc, &top);
    fprintf(f, ", \"ties\": ");
    if (t->count == 0) {
        fprintf(f, "null");
        return;
    }
    fprintf(f, "{\"count\": %lld, \"at_least\": %s, \"differ_in\": {", (long long)t->count,
            t->at_least ? "true" : "false");
    print_tie_values(f, s, top, t, true);
    fprintf(f, "}, \"simplest\": {\"index\": %lld, ", (long long)top[t->simplest].index);
    print_settings_json(f, &top[t->simplest].candidate);
    fprintf(f, "}}");
}

void sweep_answer_print_lossless_text(FILE *f, const sax_reduce_t *r, const sweep_answer_t *a, int sc)
{
    const sax_record_t *best = sax_reduce_best(r, sc);
    const sweep_lossless_t *l = &a->lossless[sc];
    if (best->index < 0 || !l->lossy)
        return;
    if (l->noop)
        fprintf(f, "  compression %s is a no-op here: nothing it would narrow crosses the sites\n",
                sax_compression_names[best->candidate.compression]);
    else if (l->lossless->index < 0)
        fprintf(f, "  the best is lossy; the space has no candidate without compression to compare\n");
    else {
        fprintf(f, "  best lossless       %10.4f s  %+.1f %%  (", l->lossless->result.iteration_time_s,
                100.0 * (l->lossless->result.iteration_time_s / best->result.iteration_time_s - 1.0));
        cli_print_candidate_line(f, &l->lossless->candidate);
        fprintf(f, ")\n");
    }
}

void sweep_answer_print_attribution_text(FILE *f, const sweep_answer_t *a, int sc, int b)
{
    const sax_attribution_t *at = &a->attribution[sc * a->n_baselines + b];
    fprintf(f, "    speedup");
    if (!at->valid) {
        fprintf(f,
                " not split: every order of mixing its settings with the best's meets an infeasible mix\n");
        return;
    }
    for (int g = 0; g < SAX_GROUP_COUNT; g++)
        fprintf(f, "%s %s %.3fx", g ? " x" : " =", sax_group_names[g], at->factor[g]);
    if (at->orders < 6)
        fprintf(f, " (%d of 6 orders: the others meet an infeasible mix)", at->orders);
    fprintf(f, "\n");
}

void sweep_answer_print_oblivious_text(FILE *f, const sax_reduce_t *r, const sweep_answer_t *a, int sc)
{
    const sax_record_t *best = sax_reduce_best(r, sc);
    if (!a->have_oblivious || best->index < 0)
        return;
    const sweep_oblivious_t *o = &a->oblivious[sc];
    if (!o->found) {
        fprintf(f, "  network-oblivious pick: none feasible on the merged network\n");
        return;
    }
    fprintf(f, "  network-oblivious pick (sites merged into one): ");
    cli_print_candidate_line(f, &o->real.candidate);
    fprintf(f, "\n    predicted %.4f s on the merged network; ", o->merged_s);
    double ratio = o->real.result.iteration_time_s / best->result.iteration_time_s;
    if (o->skip != SAX_SKIP_NONE)
        fprintf(f, "invalid here (%s)\n", sax_skip_messages[o->skip]);
    else if (!o->real.result.feasible)
        fprintf(f, "infeasible on the real network (%s)\n", sax_infeasible_names[o->real.result.reason]);
    else if (ratio < 1.0005)
        fprintf(f, "%.4f s on the real network: as fast as the best\n", o->real.result.iteration_time_s);
    else
        fprintf(f, "%.4f s on the real network: the best is %.3fx faster\n", o->real.result.iteration_time_s,
                ratio);
}

void sweep_answer_print_robust_text(FILE *f, const sax_search_t *s, const sweep_answer_t *a)
{
    if (a->n_scenarios < 2)
        return;
    fprintf(f, "\nrobust over the %d scenarios", a->n_scenarios);
    if (!a->robust.found) {
        fprintf(f, ": no candidate of the top lists is feasible in every scenario\n");
        return;
    }
    fprintf(f, " (least worst regret = time / scenario's best - 1, among %d candidates%s):\n  ",
            a->robust.candidates, a->robust.exact ? "; optimal over the whole space" : "");
    cli_print_candidate_line(f, &a->robust.pick.candidate);
    fprintf(f, "\n  worst regret %.2f %%; per scenario:", 100.0 * a->robust.worst_regret);
    for (int sc = 0; sc < a->n_scenarios; sc++)
        fprintf(f, " %.2f", 100.0 * a->regret[sc]);
    fprintf(f, " %%\n");
    const sax_robust_t *rb = &a->robust;
    fprintf(f, "  within %.0f %% of the best in every scenario: %d of the %d candidates compared%s\n",
            100.0 * SAX_ROBUST_NEAR, rb->n_near, rb->candidates,
            rb->n_near > 0 ? ", the least regretted:" : "");
    for (int i = 0; i < rb->n_near_kept; i++) {
        fprintf(f, "    %5.2f %%  ", 100.0 * rb->near_worst[i]);
        cli_print_candidate_line(f, &rb->near[i].candidate);
        fprintf(f, "\n");
    }
    if (!a->robust.exact)
        fprintf(f,
                "  (not proven optimal: %s; a candidate outside the top lists could have a worst regret "
                "down to %.2f %%; raise --top)\n",
                a->robust.bound >= a->robust.worst_regret ? "the pruned search's lists may miss candidates"
                                                          : "the lists are too short",
                100.0 * a->robust.bound);
    (void)s;
}

/* ---- JSON ------------------------------------------------------------------------------------ */

void sweep_answer_print_oblivious_json(FILE *f, const sax_search_t *s, const sax_reduce_t *r,
                                       const sweep_answer_t *a, int sc)
{
    (void)s;
    if (!a->have_oblivious)
        return;
    const sweep_oblivious_t *o = &a->oblivious[sc];
    const sax_record_t *best = sax_reduce_best(r, sc);
    fprintf(f, ", \"oblivious\": ");
    if (!o->found || best->index < 0) {
        fprintf(f, "null");
        return;
    }
    bool ok = o->skip == SAX_SKIP_NONE && o->real.result.feasible;
    fprintf(f, "{\"index\": %lld, \"iteration_time_s\": ", (long long)o->real.index);
    cli_print_json_number(f, ok ? o->real.result.iteration_time_s : NAN);
    fprintf(f, ", \"speedup\": ");
    cli_print_json_number(f, ok ? o->real.result.iteration_time_s / best->result.iteration_time_s : NAN);
    fprintf(f, ", \"merged_time_s\": ");
    cli_print_json_number(f, o->merged_s);
    fprintf(f, ", \"infeasible\": ");
    if (ok)
        fprintf(f, "null");
    else
        cli_print_json_string(f, o->skip != SAX_SKIP_NONE ? sax_skip_names[o->skip]
                                                          : sax_infeasible_names[o->real.result.reason]);
    fprintf(f, ", ");
    print_settings_json(f, &o->real.candidate);
    fprintf(f, "}");
}

void sweep_answer_print_lossless_json(FILE *f, const sax_reduce_t *r, const sweep_answer_t *a, int sc)
{
    const sax_record_t *best = sax_reduce_best(r, sc);
    const sweep_lossless_t *l = &a->lossless[sc];
    fprintf(f, ", \"best_lossy\": %s, \"compression_noop\": %s, \"best_lossless\": ",
            best->index >= 0 && l->lossy ? "true" : "false", l->noop ? "true" : "false");
    if (best->index < 0 || l->lossless == NULL || l->lossless->index < 0) {
        fprintf(f, "null");
        return;
    }
    fprintf(f, "{\"index\": %lld, \"iteration_time_s\": ", (long long)l->lossless->index);
    cli_print_json_number(f, l->lossless->result.iteration_time_s);
    fprintf(f, ", \"slower_by\": ");
    cli_print_json_number(f, l->lossless->result.iteration_time_s / best->result.iteration_time_s - 1.0);
    fprintf(f, ", ");
    print_settings_json(f, &l->lossless->candidate);
    fprintf(f, "}");
}

void sweep_answer_print_attribution_json(FILE *f, const sweep_answer_t *a, int sc, int b)
{
    const sax_attribution_t *at = &a->attribution[sc * a->n_baselines + b];
    fprintf(f, ", \"attribution\": ");
    if (!at->valid) {
        fprintf(f, "null");
        return;
    }
    fprintf(f, "{");
    for (int g = 0; g < SAX_GROUP_COUNT; g++) {
        fprintf(f, "%s\"%s\": ", g ? ", " : "", sax_group_names[g]);
        cli_print_json_number(f, at->factor[g]);
    }
    fprintf(f, ", \"orders\": %d}", at->orders);
}

void sweep_answer_print_robust_json(FILE *f, const sax_search_t *s, const sweep_answer_t *a)
{
    (void)s;
    fprintf(f, ", \"robust\": ");
    if (!a->robust.found) {
        fprintf(f, "null");
        return;
    }
    fprintf(f, "{");
    print_settings_json(f, &a->robust.pick.candidate);
    fprintf(f, ", \"worst_regret\": ");
    cli_print_json_number(f, a->robust.worst_regret);
    fprintf(f, ", \"regret\": [");
    for (int sc = 0; sc < a->n_scenarios; sc++) {
        fprintf(f, "%s", sc ? ", " : "");
        cli_print_json_number(f, a->regret[sc]);
    }
    const sax_robust_t *rb = &a->robust;
    fprintf(f, "], \"exact\": %s, \"candidates\": %d, \"within_5pct\": {\"count\": %d, \"least_regret\": [",
            rb->exact ? "true" : "false", rb->candidates, rb->n_near);
    for (int i = 0; i < rb->n_near_kept; i++) {
        fprintf(f, "%s{\"worst_regret\": ", i ? ", " : "");
        cli_print_json_number(f, rb->near_worst[i]);
        fprintf(f, ", ");
        print_settings_json(f, &rb->near[i].candidate);
        fprintf(f, "}");
    }
    fprintf(f, "]}}");
}
