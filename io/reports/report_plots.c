/* report_plots.c - the plots of `sax report` and `sax pareto --svg`, drawn with svg.c:
 * (1) the Pareto front of step time against cross-site traffic with the baselines marked,
 * (2) stacked bars of the time breakdown for the best and each baseline,
 * (3) best step time and speedup against a swept scenario variable, one line per placement.
 * Serial.
 */
#include "reports_internal.h"
#include "svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CLOUD 4000 /* grey background points drawn at most (every k-th beyond that) */

void sax_report_scenario_label(const sax_results_data_t *d, int s, char *buf, size_t len)
{
    size_t nv = (size_t)d->space.n_scenario_vars;
    sax_results_scenario_label(&d->space, nv > 0 ? d->scenario_values + (size_t)s * nv : NULL, buf, len);
}

static sax_status_t nomem(sax_error_t *err)
{
    return sax_error_set(err, SAX_ERR_NOMEM, "no memory for a plot");
}

static void short_config(const sax_results_data_t *d, const sax_record_t *r, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < SAX_KEY_COUNT && used + 1 < len; k++) {
        int nvals = k == SAX_KEY_ORDER ? d->space.n_orders : d->space.values[k].n;
        if (nvals <= 1 && k != SAX_KEY_TP && k != SAX_KEY_PP)
            continue;
        char v[64];
        sax_results_key_value_str(&d->space, &r->candidate, (sax_key_t)k, v, sizeof v);
        int n = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", sax_key_names[k], v);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* ---- (1) the front ------------------------------------------------------------------------------ */

sax_status_t sax_plot_pareto(FILE *f, const sax_results_data_t *d, int scenario, sax_error_t *err)
{
    /* The exact front over (traffic, time), streamed from /rows when stored, and a sample for the
     * cloud: pool = the sample, then the front. */
    const int obj[2] = {sax_pareto_objective_lookup("cross_site_bytes_per_iteration"),
                        sax_pareto_objective_lookup("iteration_time_s")};
    sax_results_front_t fr;
    sax_status_t st = sax_results_front(d, scenario, obj, 2, MAX_CLOUD, &fr, err);
    if (st != SAX_OK)
        return st;
    bool from_rows = fr.from_rows;
    int64_t n_cloud = fr.n_sample, nf = fr.n_front, n = n_cloud + nf;
    sax_record_t *pool = malloc((size_t)(n > 0 ? n : 1) * sizeof *pool);
    double *v = malloc((size_t)(n > 0 ? n : 1) * 2 * sizeof *v);
    int64_t *front = malloc((size_t)(nf > 0 ? nf : 1) * sizeof *front);
    if (!pool || !v || !front) {
        free(pool);
        free(v);
        free(front);
        sax_results_front_fini(&fr);
        return nomem(err);
    }
    if (n_cloud > 0)
        memcpy(pool, fr.sample, (size_t)n_cloud * sizeof *pool);
    if (nf > 0)
        memcpy(pool + n_cloud, fr.front, (size_t)nf * sizeof *pool);
    for (int64_t i = 0; i < nf; i++)
        front[i] = n_cloud + i;
    int64_t n_candidates = fr.n_candidates;
    sax_results_front_fini(&fr);
    double xmax = 0, ymin = INFINITY, ymax = 0;
    for (int64_t i = 0; i < n; i++) {
        v[2 * i] = pool[i].result.cross_site_bytes_per_iteration;
        v[2 * i + 1] = pool[i].result.iteration_time_s;
    }
    const sax_record_t *marks[1 + SAX_SPACE_MAX_BASELINES];
    int nm = 0;
    if (d->best[scenario].index >= 0)
        marks[nm++] = &d->best[scenario];
    for (int b = 0; b < d->space.n_baselines; b++)
        if (d->baseline_best[scenario * d->space.n_baselines + b].index >= 0)
            marks[nm++] = &d->baseline_best[scenario * d->space.n_baselines + b];
    for (int64_t i = 0; i < n; i++) {
        xmax = fmax(xmax, v[2 * i]);
        ymin = fmin(ymin, v[2 * i + 1]);
        ymax = fmax(ymax, v[2 * i + 1]);
    }
    for (int i = 0; i < nm; i++) {
        xmax = fmax(xmax, marks[i]->result.cross_site_bytes_per_iteration);
        ymin = fmin(ymin, marks[i]->result.iteration_time_s);
        ymax = fmax(ymax, marks[i]->result.iteration_time_s);
    }

    char label[512], sub[600], xl[96], yl[64], xu[16], yu[16];
    sax_report_scenario_label(d, scenario, label, sizeof label);
    snprintf(sub, sizeof sub, "scenario %d: %s", scenario, label);
    double xs = sax_unit_scale(xmax, "B", xu, sizeof xu);
    double ys = sax_unit_scale(ymax, "s", yu, sizeof yu);
    snprintf(xl, sizeof xl, "cross-site traffic per iteration (%s)", xu);
    snprintf(yl, sizeof yl, "step time (%s)", yu);
    bool ylog = ymin > 0 && ymax / ymin > 20;
    /* Traffic often spans decades, with zero for candidates that keep everything inside a site:
     * then a log axis, with zero drawn at its left edge. */
    double xpos = INFINITY;
    bool has_zero = false;
    for (int64_t i = 0; i < n; i++) {
        if (v[2 * i] > 0)
            xpos = fmin(xpos, v[2 * i]);
        has_zero = has_zero || !(v[2 * i] > 0);
    }
    bool xlog = isfinite(xpos) && xmax / xpos > 100;

    sax_svg_t s;
    sax_svg_begin(&s, f, 900, 580, "Step time vs cross-site traffic per iteration");
    sax_svg_subtitle(&s, sub);
    sax_svg_area(&s, 90, 64, 600, 500);
    /* a little headroom so that points at the maxima stay off the frame */
    sax_svg_range(&s, xlog ? xpos : 0, xmax > 0 ? xmax * (xlog ? 1.2 : 1.03) : 1, xlog,
                  ylog ? ymin : fmin(0, ymin), ymax > 0 ? ymax * (ylog ? 1.2 : 1.05) : 1, ylog);
    sax_svg_axes(&s, xl, xs, yl, ys);
    if (xlog)
        for (int64_t i = 0; i < n; i++)
            v[2 * i] = fmax(v[2 * i], s.x0);
    fputs("<g opacity=\"0.55\">\n", f);
    for (int64_t i = 0; i < n_cloud; i++)
        sax_svg_mark(&s, v[2 * i], v[2 * i + 1], SAX_MARK_CIRCLE, "#b0b0b0", 2.2, NULL);
    fputs("</g>\n", f);
    double *fx = malloc((size_t)(nf > 0 ? nf : 1) * sizeof *fx),
           *fy = malloc((size_t)(nf > 0 ? nf : 1) * sizeof *fy);
    if (!fx || !fy) {
        st = nomem(err);
    } else {
        for (int64_t i = 0; i < nf; i++) {
            fx[i] = v[2 * front[i]];
            fy[i] = v[2 * front[i] + 1];
        }
        sax_svg_line(&s, fx, fy, (int)nf, sax_svg_color(0), 2, false, true);
        for (int64_t i = 0; i < nf; i++) {
            char tip[400];
            short_config(d, &pool[front[i]], tip, sizeof tip);
            sax_svg_mark(&s, fx[i], fy[i], SAX_MARK_CIRCLE, sax_svg_color(0), 4, tip);
        }
    }
    free(fx);
    free(fy);
    sax_svg_legend_t leg[2 + 1 + SAX_SPACE_MAX_BASELINES];
    char names[SAX_SPACE_MAX_BASELINES][SAX_NAME_LEN + 64]; /* name + " (%.3gx the best time)" */
    char cloud_label[64], front_label[64];
    snprintf(cloud_label, sizeof cloud_label, "%s (%lld)", from_rows ? "candidates" : "stored reductions",
             (long long)n_candidates);
    int64_t distinct = 0; /* candidates with equal objectives are all on the front: count the points */
    for (int64_t i = 0; i < nf; i++)
        distinct += i == 0 || v[2 * front[i]] != v[2 * front[i - 1]] ||
                    v[2 * front[i] + 1] != v[2 * front[i - 1] + 1];
    if (distinct == nf)
        snprintf(front_label, sizeof front_label, "Pareto front (%lld)", (long long)nf);
    else
        snprintf(front_label, sizeof front_label, "Pareto front (%lld at %lld point%s)", (long long)nf,
                 (long long)distinct, distinct == 1 ? "" : "s");
    int nl = 0;
    leg[nl++] = (sax_svg_legend_t){cloud_label, "#b0b0b0", SAX_MARK_CIRCLE, false};
    leg[nl++] = (sax_svg_legend_t){front_label, sax_svg_color(0), -1, false};
    double best_t = d->best[scenario].index >= 0 ? d->best[scenario].result.iteration_time_s : NAN;
    if (d->best[scenario].index >= 0) {
        const sax_record_t *b = &d->best[scenario];
        sax_svg_mark(&s, fmax(b->result.cross_site_bytes_per_iteration, xlog ? s.x0 : 0),
                     b->result.iteration_time_s, SAX_MARK_STAR, sax_svg_color(4), 6, "best");
        leg[nl++] = (sax_svg_legend_t){"best", sax_svg_color(4), SAX_MARK_STAR, false};
    }
    for (int b = 0; b < d->space.n_baselines; b++) {
        const sax_record_t *r = &d->baseline_best[scenario * d->space.n_baselines + b];
        const char *color = sax_svg_color(1 + (b % 3 == 2 ? 2 : b % 3));
        sax_mark_t m = (sax_mark_t)(SAX_MARK_SQUARE + b % 3);
        if (r->index < 0) {
            snprintf(names[b], sizeof names[b], "%s: none feasible", d->space.baselines[b].name);
        } else {
            snprintf(names[b], sizeof names[b], "%s (%.3gx the best time)", d->space.baselines[b].name,
                     r->result.iteration_time_s / best_t);
            double bx = fmax(r->result.cross_site_bytes_per_iteration, xlog ? s.x0 : 0);
            sax_svg_mark(&s, bx, r->result.iteration_time_s, m, color, 6, names[b]);
            /* labels of baselines that land on the same spot step down instead of overprinting */
            bool near_right = sax_svg_px(&s, bx) > s.right - 90; /* keep the label inside the plot */
            sax_svg_text(&s, sax_svg_px(&s, bx) + (near_right ? -9 : 9),
                         sax_svg_py(&s, r->result.iteration_time_s) - 6 + 13.0 * b,
                         near_right ? "end" : "start", 11, false, d->space.baselines[b].name);
        }
        if (nl < (int)(sizeof leg / sizeof leg[0]))
            leg[nl++] = (sax_svg_legend_t){names[b], color, r->index < 0 ? -2 : (int)m, false};
    }
    sax_svg_legend(&s, 615, 64, leg, nl);
    double ty = 84 + 18.0 * nl;
    sax_svg_text(&s, 615, ty, "start", 11, false,
                 from_rows ? "grey: every stored candidate" : "grey: the candidates of /pareto, /top and");
    if (!from_rows)
        sax_svg_text(&s, 615, ty += 15, "start", 11, false, "the other reductions (sweep without --store)");
    if (xlog && has_zero)
        sax_svg_text(&s, 615, ty + 15, "start", 11, false, "no cross-site traffic: drawn at the left edge");
    sax_svg_end(&s);
    free(v);
    free(front);
    free(pool);
    return st;
}

/* ---- (2) breakdown bars ------------------------------------------------------------------------- */

sax_status_t sax_plot_breakdown(FILE *f, const sax_results_data_t *d, int scenario, sax_error_t *err)
{
    (void)err;
    const sax_record_t *bars[2 + SAX_SPACE_MAX_BASELINES];
    const char *names[2 + SAX_SPACE_MAX_BASELINES];
    int nb = 0;
    if (d->best[scenario].index >= 0) {
        bars[nb] = &d->best[scenario];
        names[nb++] = "best";
    }
    for (int b = 0; b < d->space.n_baselines; b++) {
        const sax_record_t *r = &d->baseline_best[scenario * d->space.n_baselines + b];
        if (r->index >= 0) {
            bars[nb] = r;
            names[nb++] = d->space.baselines[b].name;
        }
    }
    /* the network-oblivious pick on the real network, when it runs there (/answer/oblivious) */
    const sax_results_oblivious_t *ob =
        d->res.answer && d->res.answer->oblivious ? &d->res.answer->oblivious[scenario] : NULL;
    if (ob && ob->found && ob->invalid[0] == '\0' && ob->real.result.feasible &&
        d->best[scenario].index >= 0) {
        bars[nb] = &ob->real;
        names[nb++] = "oblivious pick";
    }
    double ymax = 0;
    for (int i = 0; i < nb; i++)
        ymax = fmax(ymax, bars[i]->result.iteration_time_s);
    char label[512], sub[600], yu[16], yl[64];
    sax_report_scenario_label(d, scenario, label, sizeof label);
    snprintf(sub, sizeof sub, "scenario %d: %s", scenario, label);
    double ys = sax_unit_scale(ymax, "s", yu, sizeof yu);
    snprintf(yl, sizeof yl, "time per iteration (%s)", yu);

    sax_svg_t s;
    sax_svg_begin(&s, f, 900, 580, "Where the step time goes: best configuration and baselines");
    sax_svg_subtitle(&s, sub);
    double right = 90 + 110.0 * (nb > 0 ? nb : 1) + 60;
    sax_svg_area(&s, 90, 64, right < 660 ? right : 660, 490);
    sax_svg_range(&s, 0, 1, false, 0, ymax > 0 ? ymax * 1.12 : 1, false);
    s.x0 = 0; /* one unit per bar, exactly */
    s.x1 = nb > 0 ? nb : 1;
    sax_svg_axes(&s, NULL, 0, yl, ys); /* x: bar labels instead of numbers */
    double best_t = d->best[scenario].index >= 0 ? d->best[scenario].result.iteration_time_s : NAN;
    for (int i = 0; i < nb; i++) {
        double y = 0, x0 = i + 0.2, x1 = i + 0.8;
        for (int p = 0; p < SAX_PHASE_COUNT; p++) {
            double h = bars[i]->result.breakdown_s[p];
            if (!(h > 0))
                continue;
            char tip[96];
            snprintf(tip, sizeof tip, "%s: %s %.4g s", names[i], sax_phase_names[p], h);
            sax_svg_rect(&s, x0, y, x1, y + h, sax_svg_color(p), tip);
            y += h;
        }
        char txt[64];
        double px = sax_svg_px(&s, i + 0.5);
        sax_svg_text(&s, px, s.bottom + 18, "middle", 12, true, names[i]);
        snprintf(txt, sizeof txt, "%.4g %s", bars[i]->result.iteration_time_s / ys, yu);
        sax_svg_text(&s, px, s.bottom + 34, "middle", 11, false, txt);
        if (i > 0 || d->best[scenario].index < 0) {
            snprintf(txt, sizeof txt, "%.2fx", bars[i]->result.iteration_time_s / best_t);
            sax_svg_text(&s, px, sax_svg_py(&s, bars[i]->result.iteration_time_s) - 6, "middle", 12, false,
                         isfinite(best_t) ? txt : "");
        } else {
            sax_svg_text(&s, px, sax_svg_py(&s, bars[i]->result.iteration_time_s) - 6, "middle", 12, false,
                         "1.00x");
        }
    }
    if (nb == 0)
        sax_svg_text(&s, (s.left + s.right) / 2, (s.top + s.bottom) / 2, "middle", 14, false,
                     "no feasible candidate in this scenario");
    sax_svg_legend_t leg[SAX_PHASE_COUNT];
    for (int p = 0; p < SAX_PHASE_COUNT; p++)
        leg[SAX_PHASE_COUNT - 1 - p] = (sax_svg_legend_t){sax_phase_names[p], sax_svg_color(p), -2, false};
    sax_svg_legend(&s, s.right + 20, 64, leg, SAX_PHASE_COUNT);
    sax_svg_text(&s, s.right + 20, 64 + 18.0 * SAX_PHASE_COUNT + 28, "start", 11, false,
                 "above a bar: its time / the best time");
    if (nb > 0 && bars[nb - 1] == (ob ? &ob->real : NULL)) {
        char txt[96];
        snprintf(txt, sizeof txt, "oblivious pick: predicted %.4g s", ob->merged_time_s);
        sax_svg_text(&s, s.right + 20, 64 + 18.0 * SAX_PHASE_COUNT + 46, "start", 11, false, txt);
        sax_svg_text(&s, s.right + 20, 64 + 18.0 * SAX_PHASE_COUNT + 61, "start", 11, false,
                     "on the merged network (sites as one)");
    }
    sax_svg_end(&s);
    return SAX_OK;
}

/* ---- (4) each baseline's speedup split into its factors ----------------------------------------- */

sax_status_t sax_plot_attribution(FILE *f, const sax_results_data_t *d, int scenario, sax_error_t *err)
{
    (void)err;
    const sax_results_answer_t *a = d->res.answer;
    int nb = d->space.n_baselines;
    /* the products after each factor: bar b climbs (or drops) from 1 through them to its speedup */
    double lo = 1, hi = 1;
    for (int b = 0; a && b < nb; b++) {
        const sax_results_attribution_t *at = &a->attribution[scenario * nb + b];
        double p = 1;
        for (int g = 0; at->valid && g < SAX_RESULTS_FACTOR_COUNT; g++) {
            p *= at->factor[g];
            lo = fmin(lo, p);
            hi = fmax(hi, p);
        }
    }
    char label[512], sub[600];
    sax_report_scenario_label(d, scenario, label, sizeof label);
    snprintf(sub, sizeof sub, "scenario %d: %s", scenario, label);
    sax_svg_t s;
    sax_svg_begin(&s, f, 900, 580, "Where each baseline's speedup comes from");
    sax_svg_subtitle(&s, sub);
    double right = 90 + 140.0 * (nb > 0 ? nb : 1) + 60;
    sax_svg_area(&s, 90, 64, right < 660 ? right : 660, 490);
    sax_svg_range(&s, 0, 1, false, lo, hi * 1.05, true);
    s.x0 = 0; /* one unit per bar */
    s.x1 = nb > 0 ? nb : 1;
    sax_svg_axes(&s, NULL, 0, "speedup over the baseline (log scale)", 1);
    for (int b = 0; a && b < nb; b++) {
        const sax_results_attribution_t *at = &a->attribution[scenario * nb + b];
        const char *name = d->space.baselines[b].name;
        double px = sax_svg_px(&s, b + 0.5), p = 1;
        sax_svg_text(&s, px, s.bottom + 18, "middle", 12, true, name);
        if (!at->valid) {
            sax_svg_text(&s, px, s.bottom + 34, "middle", 11, false, "not split");
            continue;
        }
        /* on a log axis a segment's length is log(factor): they add up to log(speedup); a factor
         * below 1 runs downwards, drawn narrower so that it shows over the segment it covers */
        for (int g = 0; g < SAX_RESULTS_FACTOR_COUNT; g++) {
            double q = p * at->factor[g], inset = at->factor[g] < 1 ? 0.2 : 0.0;
            char tip[160];
            snprintf(tip, sizeof tip, "%s: %s %.3fx", name, sax_results_factor_names[g], at->factor[g]);
            if (q != p)
                sax_svg_rect(&s, b + 0.2 + inset, p, b + 0.8 - inset, q, sax_svg_color(g), tip);
            p = q;
        }
        double ends[2] = {b + 0.12, b + 0.88}, total[2] = {p, p};
        sax_svg_line(&s, ends, total, 2, "#000000", 1.5, false, false);
        char txt[64];
        snprintf(txt, sizeof txt, "%.3fx", p);
        sax_svg_text(&s, px, sax_svg_py(&s, fmax(p, 1.0)) - 6, "middle", 12, false, txt);
        snprintf(txt, sizeof txt, "%d of 6 orders", (int)at->orders);
        sax_svg_text(&s, px, s.bottom + 34, "middle", 11, false, txt);
    }
    if (nb == 0 || !a)
        sax_svg_text(&s, (s.left + s.right) / 2, (s.top + s.bottom) / 2, "middle", 14, false,
                     "no baselines to attribute");
    sax_svg_legend_t leg[SAX_RESULTS_FACTOR_COUNT + 1];
    for (int g = 0; g < SAX_RESULTS_FACTOR_COUNT; g++)
        leg[SAX_RESULTS_FACTOR_COUNT - 1 - g] =
            (sax_svg_legend_t){sax_results_factor_names[g], sax_svg_color(g), -2, false};
    leg[SAX_RESULTS_FACTOR_COUNT] =
        (sax_svg_legend_t){"speedup (baseline time / best time)", "#000000", -1, false};
    sax_svg_legend(&s, s.right + 20, 64, leg, SAX_RESULTS_FACTOR_COUNT + 1);
    double ty = 64 + 18.0 * (SAX_RESULTS_FACTOR_COUNT + 1) + 28;
    sax_svg_text(&s, s.right + 20, ty, "start", 11, false, "segment lengths (log) add up to the speedup:");
    sax_svg_text(&s, s.right + 20, ty + 15, "start", 11, false, "Shapley factors of log time; a factor");
    sax_svg_text(&s, s.right + 20, ty + 30, "start", 11, false, "below 1 runs down, drawn narrower");
    sax_svg_end(&s);
    return SAX_OK;
}

/* ---- (5) the robust candidate's regret per scenario ---------------------------------------------- */

sax_status_t sax_plot_robust(FILE *f, const sax_results_data_t *d, int which, sax_error_t *err)
{
    (void)which;
    (void)err;
    const sax_results_robust_t *rb = d->res.answer ? &d->res.answer->robust : NULL;
    int ns = d->res.n_scenarios;
    double ymax = 5.0; /* percent: the 5 % line always shows */
    for (int i = 0; rb && rb->found && i < ns; i++)
        if (isfinite(rb->regret[i]))
            ymax = fmax(ymax, 100.0 * rb->regret[i]);
    char sub[600] = "no candidate of the top lists is feasible in every scenario";
    if (rb && rb->found) {
        char cfg[400];
        short_config(d, &rb->pick, cfg, sizeof cfg);
        snprintf(sub, sizeof sub, "%s; worst regret %.2f %%%s", cfg, 100.0 * rb->worst_regret,
                 rb->exact ? " (optimal over the whole space)" : "");
    }
    sax_svg_t s;
    sax_svg_begin(&s, f, 900, 580, "Regret of the robust candidate in each scenario");
    sax_svg_subtitle(&s, sub);
    sax_svg_area(&s, 90, 64, 660, 490);
    sax_svg_range(&s, 0, 1, false, 0, ymax * 1.12, false);
    s.x0 = 0;
    s.x1 = ns > 0 ? ns : 1;
    sax_svg_axes(&s, NULL, 0, "regret: time / the scenario's best time - 1 (%)", 1);
    for (int i = 0; rb && rb->found && i < ns; i++) {
        char label[512], tip[640], txt[48];
        sax_report_scenario_label(d, i, label, sizeof label);
        double r = 100.0 * rb->regret[i], px = sax_svg_px(&s, i + 0.5);
        bool ok = isfinite(r);
        snprintf(tip, sizeof tip, "scenario %d (%s): regret %.2f %%", i, label, r);
        sax_svg_rect(&s, i + 0.2, 0, i + 0.8, ok ? r : s.y1, ok ? sax_svg_color(0) : "#b0b0b0", tip);
        snprintf(txt, sizeof txt, "s%d", i);
        sax_svg_text(&s, px, s.bottom + 18, "middle", 12, true, txt);
        snprintf(txt, sizeof txt, ok ? "%.2f %%" : "infeasible", r);
        sax_svg_text(&s, px, sax_svg_py(&s, ok ? r : s.y1) - 6, "middle", 12, false, txt);
    }
    double ends[2] = {s.x0, s.x1}, five[2] = {100.0 * 0.05, 100.0 * 0.05};
    sax_svg_line(&s, ends, five, 2, sax_svg_color(1), 1.5, true, false);
    sax_svg_legend_t leg[2] = {{"regret in the scenario", sax_svg_color(0), -2, false},
                               {"5 % of the best", sax_svg_color(1), -1, true}};
    sax_svg_legend(&s, 675, 64, leg, 2);
    if (rb && rb->found) {
        char txt[96];
        snprintf(txt, sizeof txt, "within 5 %% everywhere: %d of %d", (int)rb->n_near, (int)rb->candidates);
        sax_svg_text(&s, 675, 64 + 18.0 * 2 + 28, "start", 11, false, txt);
        sax_svg_text(&s, 675, 64 + 18.0 * 2 + 43, "start", 11, false, "candidates compared");
    }
    sax_svg_end(&s);
    return SAX_OK;
}

/* ---- (3) against a scenario variable ------------------------------------------------------------ */

typedef struct {
    double x;
    int s;
} xs_t;

static int xs_cmp(const void *a, const void *b)
{
    const xs_t *p = a, *q = b;
    return p->x < q->x ? -1 : p->x > q->x;
}

static const sax_record_t *bpv_find(const sax_results_data_t *d, int s, sax_key_t k, int32_t value)
{
    for (int64_t i = 0; i < d->res.n_bpv; i++)
        if (d->bpv_key[i] == (int32_t)k && d->bpv_value[i] == value && d->best_per_value[i].scenario == s)
            return &d->best_per_value[i];
    /* rows with index -1 may carry no scenario: match on position as a fallback is not possible */
    return NULL;
}

sax_status_t sax_plot_scenarios(FILE *f, const sax_results_data_t *d, int var, sax_error_t *err)
{
    int nv = d->space.n_scenario_vars, ns = d->res.n_scenarios;
    if (var < 0 || var >= nv)
        return sax_error_set(err, SAX_ERR_USAGE, "no scenario variable %d", var);
    xs_t *pts = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *pts);
    if (!pts)
        return nomem(err);
    int np = 0;
    for (int s = 0; s < ns; s++) {
        bool others_first = true;
        for (int o = 0; o < nv; o++)
            if (o != var && d->scenario_values[(size_t)s * (size_t)nv + (size_t)o] != d->scenario_values[o])
                others_first = false;
        if (others_first)
            pts[np++] = (xs_t){d->scenario_values[(size_t)s * (size_t)nv + (size_t)var], s};
    }
    qsort(pts, (size_t)np, sizeof *pts, xs_cmp);
    int n_orders = d->space.n_orders > 0 ? d->space.n_orders : 0;
    int n_series = n_orders + 1; /* placements + the overall best */
    double *x = calloc((size_t)(np > 0 ? np : 1), sizeof *x);
    double *t = calloc((size_t)(np > 0 ? np : 1) * (size_t)n_series, sizeof *t);
    double *sp = calloc((size_t)(np > 0 ? np : 1) * (size_t)n_series, sizeof *sp);
    if (!x || !t || !sp) {
        free(pts);
        free(x);
        free(t);
        free(sp);
        return nomem(err);
    }
    bool have_base = d->space.n_baselines > 0;
    double xmin = INFINITY, xmax = -INFINITY, tmin = INFINITY, tmax = 0, smin = INFINITY, smax = 0;
    for (int i = 0; i < np; i++) {
        int s = pts[i].s;
        x[i] = pts[i].x;
        xmin = fmin(xmin, x[i]);
        xmax = fmax(xmax, x[i]);
        const sax_record_t *base = have_base ? &d->baseline_best[s * d->space.n_baselines] : NULL;
        for (int p = 0; p < n_series; p++) {
            const sax_record_t *r = p < n_orders ? bpv_find(d, s, SAX_KEY_ORDER, p) : &d->best[s];
            double tv = r && r->index >= 0 ? r->result.iteration_time_s : NAN;
            double sv = base && base->index >= 0 ? base->result.iteration_time_s / tv : NAN;
            t[p * np + i] = tv;
            sp[p * np + i] = sv;
            if (isfinite(tv)) {
                tmin = fmin(tmin, tv);
                tmax = fmax(tmax, tv);
            }
            if (isfinite(sv)) {
                smin = fmin(smin, sv);
                smax = fmax(smax, sv);
            }
        }
    }
    const sax_scenario_var_t *sv_var = &d->space.scenario_vars[var];
    const char *path = sv_var->path;
    char xu[24], xl[160], tu[16], tl[64], title[256], sl[96];
    double xsc; /* in the configuration's own unit where it gave one */
    if (sv_var->unit_si > 0.0) {
        xsc = sv_var->unit_si;
        snprintf(xu, sizeof xu, "%s", sv_var->unit);
    } else {
        xsc = sax_unit_scale(fmax(fabs(xmin), fabs(xmax)), sv_var->si_unit[0] ? sv_var->si_unit : "1", xu,
                             sizeof xu);
    }
    snprintf(xl, sizeof xl, "%s%s%s%s", path, xu[0] ? " (" : "", xu, xu[0] ? ")" : "");
    double tsc = sax_unit_scale(tmax, "s", tu, sizeof tu);
    snprintf(tl, sizeof tl, "best step time (%s)", tu);
    snprintf(title, sizeof title, "Best step time and speedup per placement vs %s", path);
    snprintf(sl, sizeof sl, "speedup over %s", have_base ? d->space.baselines[0].name : "(no baseline)");
    bool xlog = xmin > 0 && xmax / xmin >= 10;

    sax_svg_t top;
    sax_svg_begin(&top, f, 900, 820, title);
    sax_svg_area(&top, 90, 50, 640, 380);
    sax_svg_range(&top, xmin, xmax, xlog, tmin > 0 && tmax / tmin > 20 ? tmin : 0, tmax,
                  tmin > 0 && tmax / tmin > 20);
    sax_svg_axes(&top, xl, xsc, tl, tsc);
    sax_svg_t bottom = top;
    sax_svg_area(&bottom, 90, 460, 640, 760);
    sax_svg_range(&bottom, xmin, xmax, xlog, fmin(1, smin), fmax(1, smax) * 1.02, false);
    if (have_base)
        sax_svg_axes(&bottom, xl, xsc, sl, 1);
    else
        sax_svg_text(&bottom, 365, 600, "middle", 14, false, "no baselines in the configuration: no speedup");

    sax_svg_legend_t leg[SAX_SPACE_MAX_VALUES + 1];
    char names[SAX_SPACE_MAX_VALUES + 1][64];
    int nl = 0;
    for (int p = 0; p < n_series && nl < SAX_SPACE_MAX_VALUES + 1; p++) {
        bool overall = p == n_orders;
        const char *color = overall ? "#000000" : sax_svg_color(p);
        sax_mark_t m = (sax_mark_t)(p % 4);
        if (overall)
            snprintf(names[nl], sizeof names[nl], "best of all placements");
        else
            sax_key_value_name(&d->space, SAX_KEY_ORDER, p, names[nl], sizeof names[nl]);
        leg[nl] = (sax_svg_legend_t){names[nl], color, overall ? -1 : (int)m, overall};
        nl++;
        /* lines break where a placement has no feasible candidate */
        for (int pass = 0; pass < 2; pass++) {
            const sax_svg_t *panel = pass == 0 ? &top : &bottom;
            const double *y = pass == 0 ? &t[p * np] : &sp[p * np];
            if (pass == 1 && !have_base)
                break;
            int i = 0;
            while (i < np) {
                while (i < np && !isfinite(y[i]))
                    i++;
                int j = i;
                while (j < np && isfinite(y[j]))
                    j++;
                sax_svg_line(panel, x + i, y + i, j - i, color, overall ? 1.5 : 2.2, overall, false);
                for (int k = i; k < j && !overall; k++)
                    sax_svg_mark(panel, x[k], y[k], m, color, 4, names[nl - 1]);
                i = j;
            }
        }
    }
    if (have_base) {
        double one[2] = {1, 1}, ends[2] = {bottom.x0, bottom.x1};
        sax_svg_line(&bottom, ends, one, 2, "#666666", 1, true, false);
    }
    sax_svg_legend(&top, 655, 50, leg, nl);
    if (nv > 1)
        sax_svg_text(&top, 655, 70 + 18.0 * nl, "start", 11, false,
                     "other scenario variables at their first value");
    sax_svg_end(&top);
    free(pts);
    free(x);
    free(t);
    free(sp);
    return SAX_OK;
}

/* ---- generic front (sax pareto --svg) ----------------------------------------------------------- */

sax_status_t sax_plot_front(FILE *f, const char *title, const char *xname, const char *xunit,
                            const char *yname, const char *yunit, const double *x, const double *y,
                            int64_t n_cloud, int64_t n_total, const int64_t *front, int64_t n_front,
                            bool staircase, sax_error_t *err)
{
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (int64_t j = 0; j < n_cloud + n_front; j++) {
        int64_t i = j < n_cloud ? j : front[j - n_cloud];
        xmin = fmin(xmin, x[i]);
        xmax = fmax(xmax, x[i]);
        ymin = fmin(ymin, y[i]);
        ymax = fmax(ymax, y[i]);
    }
    char xu[16], yu[16], xl[128], yl[128];
    double xs = sax_unit_scale(fmax(fabs(xmin), fabs(xmax)), xunit, xu, sizeof xu);
    double ys = sax_unit_scale(fmax(fabs(ymin), fabs(ymax)), yunit, yu, sizeof yu);
    snprintf(xl, sizeof xl, "%s%s%s%s", xname, xu[0] ? " (" : "", xu, xu[0] ? ")" : "");
    snprintf(yl, sizeof yl, "%s%s%s%s", yname, yu[0] ? " (" : "", yu, yu[0] ? ")" : "");
    double *fx = malloc((size_t)(n_front > 0 ? n_front : 1) * sizeof *fx);
    double *fy = malloc((size_t)(n_front > 0 ? n_front : 1) * sizeof *fy);
    if (!fx || !fy) {
        free(fx);
        free(fy);
        return nomem(err);
    }
    /* Outliers (a candidate 100x slower) would squash the front: log axes for positive data
     * spanning more than a factor 20. */
    bool xlog = xmin > 0 && xmax / xmin > 20, ylog = ymin > 0 && ymax / ymin > 20;
    sax_svg_t s;
    sax_svg_begin(&s, f, 900, 580, "Pareto front");
    sax_svg_subtitle(&s, title);
    sax_svg_area(&s, 90, 64, 640, 500);
    sax_svg_range(&s, xmin, xmax, xlog, ymin, ymax, ylog);
    sax_svg_axes(&s, xl, xs, yl, ys);
    fputs("<g opacity=\"0.55\">\n", f);
    for (int64_t i = 0; i < n_cloud; i++)
        sax_svg_mark(&s, x[i], y[i], SAX_MARK_CIRCLE, "#b0b0b0", 2.2, NULL);
    fputs("</g>\n", f);
    for (int64_t i = 0; i < n_front; i++) {
        fx[i] = x[front[i]];
        fy[i] = y[front[i]];
    }
    if (staircase)
        sax_svg_line(&s, fx, fy, (int)n_front, sax_svg_color(0), 2, false, true);
    for (int64_t i = 0; i < n_front; i++)
        sax_svg_mark(&s, fx[i], fy[i], SAX_MARK_CIRCLE, sax_svg_color(0), 4, NULL);
    char cl[48], fl[48];
    snprintf(cl, sizeof cl, "candidates (%lld)", (long long)n_total);
    snprintf(fl, sizeof fl, "Pareto front (%lld)", (long long)n_front);
    sax_svg_legend_t leg[2] = {{cl, "#b0b0b0", SAX_MARK_CIRCLE, false},
                               {fl, sax_svg_color(0), staircase ? -1 : SAX_MARK_CIRCLE, false}};
    sax_svg_legend(&s, 655, 64, leg, 2);
    sax_svg_end(&s);
    free(fx);
    free(fy);
    return SAX_OK;
}
