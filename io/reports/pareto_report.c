/* pareto_report.c - `sax pareto`: non-dominated sets of a results file over chosen output
 * columns, printed as a table and optionally written as CSV and SVG. Serial.
 *
 * The candidates are every stored row (/rows, `sax sweep --store feasible|all`), or without
 * them the union of the reductions (/pareto, /top, /best, ...). That union contains the exact
 * front whenever the chosen objectives are among the sweep's own Pareto objectives (root
 * attribute pareto_objectives): a point non-dominated in fewer objectives is non-dominated in
 * more, up to ties. Otherwise the front is only that of the stored candidates, and the output
 * says so.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */

#include "sax_output.h"
#include "reports_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

sax_status_t sax_pareto_parse_objectives(const char *list, sax_pareto_opts_t *o, sax_error_t *err)
{
    char buf[512];
    if (snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf)
        return sax_error_set(err, SAX_ERR_USAGE, "--objectives: list too long");
    o->n_objectives = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        int i = sax_pareto_objective_lookup(tok);
        if (i < 0) {
            char valid[1024];
            size_t used = 0;
            valid[0] = '\0';
            for (int j = 0; j < sax_pareto_objective_count() && used + 1 < sizeof valid; j++) {
                int n =
                    snprintf(valid + used, sizeof valid - used, "%s  %s (%s)\n", "",
                             sax_pareto_objective_name(j), sax_pareto_objective_maximised(j) ? "max" : "min");
                if (n < 0)
                    break;
                used += (size_t)n;
            }
            return sax_error_set(err, SAX_ERR_USAGE,
                                 "--objectives: unknown objective '%.64s'; valid objectives:\n%s", tok,
                                 valid);
        }
        for (int j = 0; j < o->n_objectives; j++)
            if (o->objectives[j] == i)
                return sax_error_set(err, SAX_ERR_USAGE, "--objectives: '%s' given twice", tok);
        if (o->n_objectives == SAX_PARETO_MAX_OBJECTIVES)
            return sax_error_set(err, SAX_ERR_USAGE, "--objectives: at most %d objectives",
                                 SAX_PARETO_MAX_OBJECTIVES);
        o->objectives[o->n_objectives++] = i;
    }
    if (o->n_objectives == 0)
        return sax_error_set(err, SAX_ERR_USAGE, "--objectives: empty list");
    return SAX_OK;
}

/* One CSV line; no value contains a comma or a quote (names, integers, numbers). */
static void csv_row(FILE *f, const sax_space_desc_t *space, const sax_record_t *rec)
{
    sax_results_column_t cols[64];
    int nc = sax_results_columns(cols, 64);
    char buf[128];
    for (int c = 0; c < nc; c++) {
        sax_results_column_format(space, rec, c, buf, sizeof buf);
        fprintf(f, "%s%s", c ? "," : "", buf);
    }
    fputc('\n', f);
}

void sax_report_write_csv(FILE *f, const sax_space_desc_t *space, const sax_record_t *recs, int64_t n)
{
    sax_results_column_t cols[64];
    int nc = sax_results_columns(cols, 64);
    for (int c = 0; c < nc; c++)
        fprintf(f, "%s%s", c ? "," : "", cols[c].name);
    fputc('\n', f);
    for (int64_t i = 0; i < n; i++)
        csv_row(f, space, &recs[i]);
}

static const char *objective_unit(int obj)
{
    sax_results_column_t cols[64];
    int nc = sax_results_columns(cols, 64);
    for (int c = 0; c < nc; c++)
        if (strcmp(cols[c].name, sax_pareto_objective_name(obj)) == 0)
            return cols[c].unit;
    return "1";
}

/* Whether every chosen objective is one of the file's own Pareto objectives. */
static bool front_is_exact(const sax_results_data_t *d, const sax_pareto_opts_t *o)
{
    if (d->has_rows)
        return true;
    const char *list = d->res.pareto_objectives ? d->res.pareto_objectives : "";
    for (int j = 0; j < o->n_objectives; j++) {
        const char *name = sax_pareto_objective_name(o->objectives[j]);
        size_t len = strlen(name);
        bool found = false;
        for (const char *p = list; *p && !found; p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p))
            found = strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0');
        if (!found)
            return false;
    }
    return true;
}

static void print_front(FILE *out, const sax_results_data_t *d, const sax_pareto_opts_t *o, int s,
                        const sax_record_t *front, int64_t nf, int64_t n_pool)
{
    char label[512];
    sax_report_scenario_label(d, s, label, sizeof label);
    fprintf(out, "\nScenario %d (%s): %lld of %lld candidates on the front\n", s, label, (long long)nf,
            (long long)n_pool);
    fprintf(out, "  %10s", "index");
    for (int j = 0; j < o->n_objectives; j++)
        fprintf(out, " %*s",
                (int)(strlen(sax_pareto_objective_name(o->objectives[j])) > 14
                          ? strlen(sax_pareto_objective_name(o->objectives[j]))
                          : 14),
                sax_pareto_objective_name(o->objectives[j]));
    fprintf(out, "  configuration (keys the space varies)\n");
    for (int64_t i = 0; i < nf; i++) {
        const sax_record_t *r = &front[i];
        fprintf(out, "  %10lld", (long long)r->index);
        for (int j = 0; j < o->n_objectives; j++) {
            size_t w = strlen(sax_pareto_objective_name(o->objectives[j]));
            fprintf(out, " %*.6g", (int)(w > 14 ? w : 14),
                    sax_pareto_objective_value(o->objectives[j], &r->result));
        }
        fputs("  ", out);
        bool any = false;
        for (int k = 0; k < SAX_KEY_COUNT; k++) {
            int nvals = k == SAX_KEY_ORDER ? d->space.n_orders : d->space.values[k].n;
            if (nvals <= 1)
                continue;
            char v[64];
            sax_results_key_value_str(&d->space, &r->candidate, (sax_key_t)k, v, sizeof v);
            fprintf(out, "%s%s=%s", any ? " " : "", sax_key_names[k], v);
            any = true;
        }
        fputc('\n', out);
    }
}

/* ---- the command ------------------------------------------------------------------------------ */

#define SAX_PLOT_SAMPLE 4000

sax_status_t sax_pareto_report(const sax_pareto_opts_t *opts, FILE *out, sax_error_t *err)
{
    sax_pareto_opts_t o = *opts;
    if (o.n_objectives == 0) {
        o.objectives[0] = sax_pareto_objective_lookup("iteration_time_s");
        o.objectives[1] = sax_pareto_objective_lookup("cross_site_bytes_per_iteration");
        o.n_objectives = 2;
    }
    sax_results_data_t d;
    sax_status_t st = sax_results_read(o.path, false, &d, err);
    if (st != SAX_OK)
        return st;
    if (o.scenario >= d.res.n_scenarios || o.scenario < -1) {
        st = sax_error_set(err, SAX_ERR_USAGE, "--scenario %d: %s has %d scenario%s (0..%d)", o.scenario,
                           o.path, d.res.n_scenarios, d.res.n_scenarios == 1 ? "" : "s",
                           d.res.n_scenarios - 1);
        sax_results_data_fini(&d);
        return st;
    }
    /* both written beside their names and renamed at the end (sax_output_t): a failed run leaves
     * the previous files as they were */
    sax_output_t csv_out = {0}, svg_out = {0};
    if (o.csv_path)
        st = sax_output_open(&csv_out, o.csv_path, err);
    if (st == SAX_OK && o.svg_path)
        st = sax_output_open(&svg_out, o.svg_path, err);
    FILE *csv = csv_out.f, *svg = svg_out.f;

    fprintf(out, "Pareto fronts of %s over", o.path);
    for (int j = 0; j < o.n_objectives; j++)
        fprintf(out, "%s %s (%s)", j ? "," : "", sax_pareto_objective_name(o.objectives[j]),
                sax_pareto_objective_maximised(o.objectives[j]) ? "max" : "min");
    fputc('\n', out);
    if (!d.has_rows)
        fprintf(out,
                "%s stores no candidate rows (sweep without --store): candidates are those of /pareto, /top "
                "and the other reductions;\n%s\n",
                o.path,
                front_is_exact(&d, &o)
                    ? "the front is exact: the objectives are among the sweep's own Pareto "
                      "objectives."
                    : "the front is that of these candidates only (the objectives are not "
                      "among the sweep's Pareto objectives); sweep with --store feasible "
                      "for the exact front.");
    if (csv)
        sax_report_write_csv(csv, &d.space, NULL, 0);
    int first = o.scenario >= 0 ? o.scenario : 0, last = o.scenario >= 0 ? o.scenario : d.res.n_scenarios - 1;
    for (int s = first; s <= last && st == SAX_OK; s++) {
        int k = o.n_objectives;
        sax_results_front_t fr;
        st = sax_results_front(&d, s, o.objectives, k, svg && s == first ? SAX_PLOT_SAMPLE : 0, &fr, err);
        if (st != SAX_OK)
            break;
        print_front(out, &d, &o, s, fr.front, fr.n_front, fr.n_candidates);
        for (int64_t i = 0; csv && i < fr.n_front; i++)
            csv_row(csv, &d.space, &fr.front[i]);
        if (svg && s == first) {
            /* the sample as the grey cloud, the front after it */
            int64_t n = fr.n_sample + fr.n_front;
            double *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x),
                   *y = malloc((size_t)(n > 0 ? n : 1) * sizeof *y);
            int64_t *idx = malloc((size_t)(fr.n_front > 0 ? fr.n_front : 1) * sizeof *idx);
            int ox = o.objectives[0], oy = o.objectives[k > 1 ? 1 : 0];
            if (x && y && idx) {
                for (int64_t i = 0; i < n; i++) {
                    const sax_record_t *r = i < fr.n_sample ? &fr.sample[i] : &fr.front[i - fr.n_sample];
                    x[i] = sax_pareto_objective_value(ox, &r->result);
                    y[i] = sax_pareto_objective_value(oy, &r->result);
                }
                for (int64_t i = 0; i < fr.n_front; i++)
                    idx[i] = fr.n_sample + i;
                char title[640], label[512];
                sax_report_scenario_label(&d, s, label, sizeof label);
                snprintf(title, sizeof title, "scenario %d: %s", s, label);
                st = sax_plot_front(svg, title, sax_pareto_objective_name(ox), objective_unit(ox),
                                    sax_pareto_objective_name(oy), objective_unit(oy), x, y, fr.n_sample,
                                    fr.n_candidates, idx, fr.n_front, k == 2, err);
            } else {
                st = sax_error_set(err, SAX_ERR_NOMEM, "no memory for the plot");
            }
            free(x);
            free(y);
            free(idx);
        }
        sax_results_front_fini(&fr);
    }
    if (st == SAX_OK && csv)
        st = sax_output_close(&csv_out, err);
    if (st == SAX_OK && svg)
        st = sax_output_close(&svg_out, err);
    if (st == SAX_OK && csv)
        st = sax_output_commit(&csv_out, err);
    if (st == SAX_OK && svg)
        st = sax_output_commit(&svg_out, err);
    sax_output_abort(&csv_out);
    sax_output_abort(&svg_out);
    if (st == SAX_OK && o.csv_path)
        fprintf(out, "\nwrote %s\n", o.csv_path);
    if (st == SAX_OK && o.svg_path)
        fprintf(out, "wrote %s (scenario %d: %s against %s)\n", o.svg_path, first,
                sax_pareto_objective_name(o.objectives[o.n_objectives > 1 ? 1 : 0]),
                sax_pareto_objective_name(o.objectives[0]));
    sax_results_data_fini(&d);
    return st;
}
