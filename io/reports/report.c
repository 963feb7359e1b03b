/* report.c - `sax report`: per scenario, the best configuration against each baseline (speedup =
 * baseline time / best time) as text, and the plots (report_plots.c) as SVG files. Serial.
 */
#include "sax_output.h"
#include "reports_internal.h"
#include "svg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- text --------------------------------------------------------------------------------------- */

static void config_line(FILE *out, const sax_space_desc_t *sp, const sax_record_t *r)
{
    char line[SAX_RESULTS_LINE_LEN];
    (void)sp;
    fputs(sax_results_candidate_line(&r->candidate, line, sizeof line), out);
}

/* ---- the answer beyond the bests (/answer; docs/decisions.md) ------------------------------------ */

/* "transport {roce-sr, tcp}, connections {1, 4}": the values each differing key takes among the
 * tied candidates, which are the first `count` entries of the scenario's /top (sorted by time). */
static void print_tie_values(FILE *out, const sax_results_data_t *d, int s, const sax_results_ties_t *t)
{
    const sax_record_t *first = NULL;
    int64_t n = 0;
    for (int64_t i = 0; i < d->res.n_top; i++)
        if (d->top[i].scenario == s) {
            first = first ? first : &d->top[i];
            n++;
        }
    if (n > t->count)
        n = t->count;
    bool first_key = true;
    for (int k = 0; k < SAX_KEY_COUNT; k++) {
        if (!(t->differ >> k & 1u))
            continue;
        fprintf(out, "%s%s {", first_key ? "" : ", ", sax_key_names[k]);
        first_key = false;
        int nv = k == SAX_KEY_ORDER ? d->space.n_orders : d->space.values[k].n;
        bool first_value = true;
        for (int j = 0; j < nv; j++) { /* in the space's order of values */
            char want[96], got[96];
            if (k == SAX_KEY_ORDER) {
                sax_key_value_name(&d->space, SAX_KEY_ORDER, j, want, sizeof want);
            } else {
                sax_candidate_t c = first ? first->candidate : t->simplest.candidate;
                sax_candidate_set(&c, (sax_key_t)k, d->space.values[k].v[j]);
                sax_results_key_value_str(&d->space, &c, (sax_key_t)k, want, sizeof want);
            }
            bool seen = false;
            for (int64_t i = 0; i < n && !seen; i++)
                seen = strcmp(sax_results_key_value_str(&d->space, &first[i].candidate, (sax_key_t)k, got,
                                                        sizeof got),
                              want) == 0;
            if (seen) {
                fprintf(out, "%s%s", first_value ? "" : ", ", want);
                first_value = false;
            }
        }
        fputc('}', out);
    }
}

static void print_ties_and_lossless(FILE *out, const sax_results_data_t *d, int s)
{
    const sax_results_answer_t *a = d->res.answer;
    const sax_record_t *best = &d->best[s];
    const sax_results_ties_t *t = &a->ties[s];
    if (t->count >= 2) {
        fprintf(out, "  tied: %s%lld candidates with the same time, differing only in ",
                t->at_least ? "at least " : "", (long long)t->count);
        print_tie_values(out, d, s, t);
        fprintf(out, "\n    the simplest of them (candidate %lld; docs/decisions.md): ",
                (long long)t->simplest.index);
        config_line(out, &d->space, &t->simplest);
        fputc('\n', out);
    } else {
        fprintf(out, "  tied: no other candidate has the same time\n");
    }
    const sax_results_lossless_t *l = &a->lossless[s];
    if (!l->lossy)
        return;
    char v[32];
    sax_results_key_value_str(&d->space, &best->candidate, SAX_KEY_COMPRESSION, v, sizeof v);
    if (l->noop)
        fprintf(out, "  compression %s is a no-op here: nothing it would narrow crosses the sites\n", v);
    else if (l->lossless.index < 0)
        fprintf(out, "  the best is lossy (compression %s); the space has no candidate without compression\n",
                v);
    else {
        fprintf(
            out,
            "  best lossless (the best is lossy, compression %s): %.4f s, %+.2f %% (candidate %lld)\n    ", v,
            l->lossless.result.iteration_time_s,
            100.0 * (l->lossless.result.iteration_time_s / best->result.iteration_time_s - 1.0),
            (long long)l->lossless.index);
        config_line(out, &d->space, &l->lossless);
        fputc('\n', out);
    }
}

static void print_attribution(FILE *out, const sax_results_data_t *d, int s, int b)
{
    const sax_results_attribution_t *at = &d->res.answer->attribution[s * d->space.n_baselines + b];
    if (!at->valid) {
        fprintf(out,
                "  %-20s speedup not split: every order of mixing its settings with the best's meets an "
                "infeasible mix\n",
                "");
        return;
    }
    fprintf(out, "  %-20s speedup", "");
    for (int g = 0; g < SAX_RESULTS_FACTOR_COUNT; g++)
        fprintf(out, "%s %s %.3fx", g ? " x" : " =", sax_results_factor_names[g], at->factor[g]);
    if (at->orders < 6)
        fprintf(out, " (%d of 6 orders: the others meet an infeasible mix)", (int)at->orders);
    fputc('\n', out);
}

static void print_oblivious(FILE *out, const sax_results_data_t *d, int s)
{
    const sax_results_answer_t *a = d->res.answer;
    if (!a->oblivious)
        return;
    const sax_results_oblivious_t *o = &a->oblivious[s];
    if (!o->found) {
        fprintf(out, "  network-oblivious pick: none feasible on the merged network\n");
        return;
    }
    const sax_result_t *r = &o->real.result;
    fprintf(
        out,
        "  network-oblivious pick (sites merged into one; candidate %lld): predicted %.4f s on the merged network, ",
        (long long)o->real.index, o->merged_time_s);
    if (o->invalid[0] != '\0')
        fprintf(out, "invalid on the real network (%s)\n", o->invalid);
    else if (!r->feasible)
        fprintf(out, "infeasible on the real network (%s)\n", sax_infeasible_names[r->reason]);
    else
        fprintf(out, "%.4f s on the real network: the best is %.3fx faster\n", r->iteration_time_s,
                r->iteration_time_s / d->best[s].result.iteration_time_s);
    fprintf(out, "    ");
    config_line(out, &d->space, &o->real);
    fputc('\n', out);
}

static void print_robust(FILE *out, const sax_results_data_t *d)
{
    const sax_results_answer_t *a = d->res.answer;
    int ns = d->res.n_scenarios;
    if (!a || ns < 2)
        return;
    const sax_results_robust_t *rb = &a->robust;
    fprintf(out, "\nRobust over the %d scenarios", ns);
    if (!rb->found) {
        fprintf(out, ": no candidate of the top lists is feasible in every scenario\n");
        return;
    }
    fprintf(out, " (least worst regret = time / scenario's best - 1, among %d candidates; %s)\n    ",
            (int)rb->candidates,
            rb->exact ? "optimal over the whole space" : "not proven optimal: raise --top");
    config_line(out, &d->space, &rb->pick);
    fprintf(out, "\n  worst regret %.2f %%; per scenario:", 100.0 * rb->worst_regret);
    for (int s = 0; s < ns; s++)
        fprintf(out, " %.2f", 100.0 * rb->regret[s]);
    fprintf(out, " %%\n  within 5 %% of the best in every scenario: %d of the %d candidates compared\n",
            (int)rb->n_near, (int)rb->candidates);
    for (int i = 0; i < rb->n_near_kept; i++) {
        fprintf(out, "    %5.2f %%  ", 100.0 * rb->near_worst[i]);
        config_line(out, &d->space, &rb->near[i]);
        fputc('\n', out);
    }
}

static void print_scenario(FILE *out, const sax_results_data_t *d, int s)
{
    char label[512], a[32], b[32], c[32], t[32];
    sax_report_scenario_label(d, s, label, sizeof label);
    fprintf(out, "\nScenario %d: %s\n", s, label);
    const sax_record_t *best = &d->best[s];
    if (best->index < 0) {
        fprintf(out, "  no feasible candidate\n");
        return;
    }
    const sax_result_t *r = &best->result;
    sax_quantity_str(r->cross_site_bytes_per_iteration, "B", a, sizeof a);
    snprintf(b, sizeof b, "%.1f GiB",
             r->memory_per_gpu_bytes / 1073741824.0); /* as sweep and eval print it */
    sax_quantity_str(r->tokens_per_s, "", c, sizeof c);
    fprintf(out,
            "  best: %s per iteration, %s tokens/s, MFU %.1f %%, cross-site %s per iteration, %s per GPU, "
            "%d GPUs (candidate %lld)\n",
            sax_quantity_str(r->iteration_time_s, "s", t, sizeof t), c, 100.0 * r->mfu, a, b, r->gpus_used,
            (long long)best->index);
    fprintf(out, "    ");
    config_line(out, &d->space, best);
    fprintf(out, "\n    breakdown:");
    for (int p = 0; p < SAX_PHASE_COUNT; p++)
        fprintf(out, " %s %.4g s%s", sax_phase_names[p], r->breakdown_s[p],
                p + 1 < SAX_PHASE_COUNT ? "," : "\n");
    if (d->res.answer)
        print_ties_and_lossless(out, d, s);
    if (d->space.n_baselines == 0) {
        fprintf(out, "  no baselines in the configuration\n");
        if (d->res.answer)
            print_oblivious(out, d, s);
        return;
    }
    fprintf(out, "  %-20s %12s %9s  %s\n", "baseline", "time (s)", "speedup", "its best configuration");
    for (int bl = 0; bl < d->space.n_baselines; bl++) {
        const sax_record_t *x = &d->baseline_best[s * d->space.n_baselines + bl];
        if (x->index < 0) {
            fprintf(out, "  %-20s %12s %9s  no feasible candidate agrees with it\n",
                    d->space.baselines[bl].name, "-", "-");
            continue;
        }
        fprintf(out, "  %-20s %12.4g %8.3fx  ", d->space.baselines[bl].name, x->result.iteration_time_s,
                x->result.iteration_time_s / r->iteration_time_s);
        config_line(out, &d->space, x);
        fputc('\n', out);
        if (d->res.answer)
            print_attribution(out, d, s, bl);
    }
    if (d->res.answer)
        print_oblivious(out, d, s);
}

/* Best step time of each placement (order) in each scenario, from /best_per_value: which
 * placement wins as the environment changes, as text. */
static void print_placements(FILE *out, const sax_results_data_t *d)
{
    int no = d->space.n_orders;
    if (no < 2)
        return;
    fprintf(out, "\nBest step time per placement (s; * = fastest placement of the scenario)\n  %-9s",
            "scenario");
    char name[64];
    for (int o = 0; o < no; o++) {
        sax_key_value_name(&d->space, SAX_KEY_ORDER, o, name, sizeof name);
        fprintf(out, " %14s", name);
    }
    fputc('\n', out);
    for (int s = 0; s < d->res.n_scenarios; s++) {
        double t[SAX_SPACE_MAX_VALUES], best = INFINITY;
        for (int o = 0; o < no; o++) {
            t[o] = NAN;
            for (int64_t i = 0; i < d->res.n_bpv; i++)
                if (d->bpv_key[i] == SAX_KEY_ORDER && d->bpv_value[i] == o &&
                    d->best_per_value[i].scenario == s && d->best_per_value[i].index >= 0)
                    t[o] = d->best_per_value[i].result.iteration_time_s;
            if (t[o] < best)
                best = t[o];
        }
        fprintf(out, "  %-9d", s);
        for (int o = 0; o < no; o++) {
            if (isnan(t[o]))
                fprintf(out, " %14s", "-");
            else
                fprintf(out, " %13.4g%c", t[o], t[o] == best ? '*' : ' ');
        }
        fputc('\n', out);
    }
}

/* ---- files -------------------------------------------------------------------------------------- */

typedef sax_status_t (*plot_fn)(FILE *f, const sax_results_data_t *d, int which, sax_error_t *err);

static sax_status_t plot_file(FILE *out, const char *dir, const char *name, plot_fn fn,
                              const sax_results_data_t *d, int which, sax_error_t *err)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return sax_error_set(err, SAX_ERR_USAGE, "%s: directory name too long", dir);
    sax_output_t o;
    sax_status_t st = sax_output_open(&o, path, err);
    if (st != SAX_OK)
        return st;
    st = fn(o.f, d, which, err);
    if (st == SAX_OK) /* a failed plot (a full disk) leaves the previous file as it was */
        st = sax_output_commit(&o, err);
    sax_output_abort(&o);
    if (st == SAX_OK)
        fprintf(out, "  %s\n", path);
    return st;
}

sax_status_t sax_report_write(FILE *out, const sax_results_data_t *d, const char *svg_dir, sax_error_t *err)
{
    const sax_results_t *r = &d->res;
    int64_t infeasible = 0;
    for (int i = 1; i < SAX_INFEASIBLE_COUNT; i++)
        infeasible += r->infeasible[i];
    fprintf(out, "sax %s (git %s), %d rank%s; command: %s\n", r->version, r->git_revision, r->ranks,
            r->ranks == 1 ? "" : "s", r->command_line);
    fprintf(out, "%lld candidates evaluated (%lld feasible, %lld infeasible", (long long)r->evaluated,
            (long long)r->infeasible[SAX_FEASIBLE], (long long)infeasible);
    for (int i = 1; i < SAX_INFEASIBLE_COUNT; i++)
        if (r->infeasible[i] > 0)
            fprintf(out, "; %s %lld", sax_infeasible_names[i], (long long)r->infeasible[i]);
    fprintf(out, "), %lld skipped, %d scenario%s, %.3g s\n", (long long)r->skipped, r->n_scenarios,
            r->n_scenarios == 1 ? "" : "s", r->end_unix_s - r->start_unix_s);
    for (int s = 0; s < r->n_scenarios; s++)
        print_scenario(out, d, s);
    print_robust(out, d);
    print_placements(out, d);
    if (!d->res.answer)
        fprintf(out,
                "\n(this file has no /answer: it was written by an older sax sweep, so there are no ties, "
                "attribution, oblivious pick or robust candidate to show)\n");
    if (!svg_dir)
        return SAX_OK;

    struct stat sb;
    if (stat(svg_dir, &sb) != 0 && mkdir(svg_dir, 0777) != 0)
        return sax_error_set(err, SAX_ERR_IO, "%s: cannot create the plot directory: %s", svg_dir,
                             strerror(errno));
    if (stat(svg_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return sax_error_set(err, SAX_ERR_USAGE, "%s: not a directory", svg_dir);
    fprintf(out, "\nplots:\n");
    sax_status_t st = SAX_OK;
    for (int s = 0; s < r->n_scenarios && st == SAX_OK; s++) {
        char name[64];
        snprintf(name, sizeof name, "pareto-s%d.svg", s);
        st = plot_file(out, svg_dir, name, sax_plot_pareto, d, s, err);
        snprintf(name, sizeof name, "breakdown-s%d.svg", s);
        if (st == SAX_OK)
            st = plot_file(out, svg_dir, name, sax_plot_breakdown, d, s, err);
        snprintf(name, sizeof name, "attribution-s%d.svg", s);
        if (st == SAX_OK && r->answer && d->space.n_baselines > 0 && d->best[s].index >= 0)
            st = plot_file(out, svg_dir, name, sax_plot_attribution, d, s, err);
    }
    if (st == SAX_OK && r->answer && r->n_scenarios > 1)
        st = plot_file(out, svg_dir, "robust-regret.svg", sax_plot_robust, d, 0, err);
    for (int v = 0; v < d->space.n_scenario_vars && st == SAX_OK; v++) {
        char name[64];
        snprintf(name, sizeof name, "scenario-var%d.svg", v);
        st = plot_file(out, svg_dir, name, sax_plot_scenarios, d, v, err);
    }
    if (st == SAX_OK && d->space.n_scenario_vars == 0)
        fprintf(out, "  (no scenario variables: no plot against the environment)\n");
    return st;
}
