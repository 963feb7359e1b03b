/* calibrate_report.c - what `sax calibrate` prints: every fitted value with its standard error and
 * the configured value, the residual of every measurement, the run fit with in-sample and k-fold
 * held-out errors, and the --holdout dataset before and after calibration; as text or as one JSON
 * object (docs/calibration.md, "The report"). */
#include "calibration_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- held-out dataset ----------------------------------------------------------------------- */

sax_status_t cal_holdout_evaluate(const cal_state_t *st, cal_holdout_t *h, sax_error_t *err)
{
    memset(h, 0, sizeof *h);
    if (st->opts->holdout_path == NULL)
        return SAX_OK;
    sax_status_t s = sax_dataset_load(st->opts->holdout_path, &h->cases, &h->n, err);
    if (s != SAX_OK)
        return s;
    h->before_s = calloc((size_t)h->n + 1, sizeof *h->before_s);
    h->after_s = calloc((size_t)h->n + 1, sizeof *h->after_s);
    h->assumed = calloc((size_t)h->n + 1, sizeof *h->assumed);
    if (h->before_s == NULL || h->after_s == NULL || h->assumed == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory evaluating %s", st->opts->holdout_path);
    double x[SAX_LSQ_MAX_PARAMS];
    for (int j = 0; j < st->n_params; j++)
        x[j] = st->params[j].value;
    cal_state_t none = *st; /* no fitted values: the dataset as configured */
    none.n_targets = 0;
    none.n_gpus = 0;
    none.n_params = 0;
    for (int i = 0; i < h->n; i++) {
        sax_error_t ignored;
        if (cal_assume_fit(st, &h->cases[i].config, h->cases[i].config.stated_levers, &h->assumed[i]) !=
            SAX_OK)
            h->assumed[i].a.n = 0; /* cal_predict meets the same failure */
        if (cal_predict(&none, NULL, &h->cases[i].config, h->cases[i].name, &h->before_s[i], &ignored) !=
            SAX_OK)
            h->before_s[i] = NAN;
        if (cal_predict(st, st->run_fitted ? x : NULL, &h->cases[i].config, h->cases[i].name, &h->after_s[i],
                        &ignored) != SAX_OK)
            h->after_s[i] = NAN;
    }
    return SAX_OK;
}

void cal_holdout_fini(cal_holdout_t *h)
{
    if (h->cases != NULL)
        sax_dataset_free(h->cases, h->n);
    free(h->before_s);
    free(h->after_s);
    free(h->assumed);
    memset(h, 0, sizeof *h);
}

/* ---- report --------------------------------------------------------------------------------- */

/* Under a run's line: the unstated settings assumed so that it fits, if any. */
static void text_assumed(const cal_assumed_t *as, FILE *out)
{
    if (as->a.n == 0)
        return;
    char settings[SAX_ASSUMPTION_TEXT_LEN];
    sax_model_memory_assumption_text(&as->a, false, settings, sizeof settings);
    fprintf(out, "    (unstated, assumed so that the run fits: %s; the configured settings need %.1f GiB)\n",
            settings, as->default_memory_per_gpu_bytes / (1024.0 * 1024.0 * 1024.0));
}

/* The same as `sax validate --json` gives it: {settings, default_memory_per_gpu_bytes,
 * memory_per_gpu_bytes}, or null. */
static cJSON *json_assumed(const cal_assumed_t *as)
{
    if (as->a.n == 0)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON *settings = cJSON_AddObjectToObject(o, "settings");
    for (int j = 0; j < as->a.n; j++) /* each value is already JSON text */
        cJSON_AddRawToObject(settings, sax_lever_keys[as->a.lever[j]], as->a.value[j]);
    cJSON_AddNumberToObject(o, "default_memory_per_gpu_bytes", as->default_memory_per_gpu_bytes);
    cJSON_AddNumberToObject(o, "memory_per_gpu_bytes", as->a.memory_per_gpu_bytes);
    return o;
}

typedef struct {
    double mean_abs, max_abs, sum_squares;
    int n;
} err_stats_t;

static void stats_add(err_stats_t *e, double predicted, double measured)
{
    if (!isfinite(predicted))
        return;
    double a = fabs(predicted / measured - 1.0);
    e->mean_abs = (e->mean_abs * e->n + a) / (e->n + 1);
    e->max_abs = fmax(e->max_abs, a);
    e->sum_squares += a * a;
    e->n++;
}

static double stats_rms(const err_stats_t *e) { return e->n > 0 ? sqrt(e->sum_squares / e->n) : NAN; }

/* The held-out errors of the usable runs of the family of run i (cal_run_family), if i is the first
 * usable run of it; false otherwise. */
static bool family_heldout(const cal_state_t *st, int i, err_stats_t *e)
{
    const char *fam = cal_run_family(&st->runs[i]);
    if (!st->runs[i].usable)
        return false;
    for (int j = 0; j < i; j++)
        if (st->runs[j].usable && strcmp(cal_run_family(&st->runs[j]), fam) == 0)
            return false;
    memset(e, 0, sizeof *e);
    for (int j = i; j < st->n_runs; j++)
        if (st->runs[j].usable && strcmp(cal_run_family(&st->runs[j]), fam) == 0)
            stats_add(e, st->runs[j].heldout_s, st->runs[j].measured_s);
    return true;
}

/* Relative errors of the fitted alpha-beta times against one table. */
static void measurement_errors(const cal_target_t *t, const sax_coll_measurement_t *m, double *rms,
                               double *mx)
{
    double ss = 0.0;
    int n = 0;
    *mx = 0.0;
    for (int r = 0; r < m->table.n_rows; r++)
        for (int h = 0; h < 2; h++) {
            const sax_nccl_row_t *row = &m->table.rows[r];
            double ca, cb;
            if (!(row->size_bytes > 0.0 && row->time_s[h] > 0.0) ||
                sax_coll_coefficients(m->op, m->algorithm, m->gpus, row->size_bytes, &ca, &cb, NULL) !=
                    SAX_OK)
                continue;
            double e = (ca * t->fit.latency_s + cb / t->fit.bw_Bps) / row->time_s[h] - 1.0;
            ss += e * e;
            *mx = fmax(*mx, fabs(e));
            n++;
        }
    *rms = n > 0 ? sqrt(ss / n) : 0.0;
}

/* A GEMM row's time under the fitted curve of its GPU. */
static double gemm_fitted_s(const cal_state_t *st, int row)
{
    const cal_gpu_t *cg = &st->gpus[st->gemm_gpu[row]];
    sax_gpu_t g = cg->gpu;
    g.gemm_eff_max = cg->gemm.eff_max;
    g.gemm_eff_half_ai = cg->gemm.half_ai;
    if (cg->gemm.eff_max_fp8 > 0.0)
        g.gemm_eff_max_fp8 = cg->gemm.eff_max_fp8;
    const sax_gemm_measurement_t *r = &st->gemm_rows[row];
    return sax_gemm_time_s(&g, r->m, r->n, r->k, r->precision);
}

/* What the -c configuration says about a level: alpha and the effective bandwidth the model uses
 * (bandwidth x efficiency; a site link's aggregate bandwidth). */
static void configured_level(const cal_state_t *st, const cal_target_t *tg, double *alpha, double *bw)
{
    const sax_cluster_t *c = &st->config.problem.cluster;
    if (tg->kind == CAL_TARGET_SCALE_UP) {
        *alpha = c->scale_up.latency_s;
        *bw = c->scale_up.bw_Bps * c->scale_up.efficiency;
    } else if (tg->kind == CAL_TARGET_TIER) {
        *alpha = c->tiers[tg->index].latency_s;
        *bw = c->tiers[tg->index].bw_Bps * c->tiers[tg->index].efficiency;
    } else {
        *alpha = c->links[tg->index].latency_s;
        *bw = c->links[tg->index].bw_Bps;
    }
}

void cal_report_text(const cal_state_t *st, const sax_coll_measurement_t *m, const int *target_of, int nm,
                     const cal_holdout_t *h, FILE *out)
{
    fprintf(out, "sax calibrate: %s with %s -> %s\n", st->opts->measurements_path, st->opts->config_path,
            st->opts->output_path);
    bool any = false;
    for (int t = 0; t < st->n_targets; t++)
        any = any || st->targets[t].fitted;
    if (any) {
        fprintf(out, "\nnetwork (alpha per algorithm step, effective bandwidth; +- one standard error):\n");
        fprintf(out, "  %-16s %12s %10s %14s %12s %6s %9s %9s\n", "level", "alpha_us", "+-", "bw_GB/s", "+-",
                "points", "rms_err", "condition");
        for (int t = 0; t < st->n_targets; t++) {
            const cal_target_t *tg = &st->targets[t];
            if (!tg->fitted) {
                fprintf(out, "  %-16s (no measurement: configured values kept)\n", tg->name);
                continue;
            }
            fprintf(out, "  %-16s %12.4g %10.2g %14.5g %12.3g %6d %8.2f%% %9.3g%s\n", tg->name,
                    tg->fit.latency_s * 1e6, tg->fit.latency_se_s * 1e6, tg->fit.bw_Bps / 1e9,
                    tg->fit.bw_se_Bps / 1e9, tg->fit.points, 100.0 * tg->fit.rms_rel_error, tg->fit.condition,
                    tg->fit.latency_at_bound ? "  alpha < 0 unconstrained: held at 0" : "");
            for (int a = 0; a < tg->n_algo; a++) {
                if (tg->algo[a].ok)
                    fprintf(
                        out,
                        "    %-14s %12.4g %10.2g %14.5g %12.3g %6d %8.2f%% %9.3g  (%s alone; not written)\n",
                        "", tg->algo[a].fit.latency_s * 1e6, tg->algo[a].fit.latency_se_s * 1e6,
                        tg->algo[a].fit.bw_Bps / 1e9, tg->algo[a].fit.bw_se_Bps / 1e9, tg->algo[a].fit.points,
                        100.0 * tg->algo[a].fit.rms_rel_error, tg->algo[a].fit.condition,
                        sax_algorithm_names[tg->algo[a].algorithm]);
                else
                    fprintf(out, "    %-14s %s alone: %s\n", "", sax_algorithm_names[tg->algo[a].algorithm],
                            tg->algo[a].why);
            }
            double cfg_alpha, cfg_bw;
            configured_level(st, tg, &cfg_alpha, &cfg_bw);
            fprintf(out, "    %-14s configured: alpha %.4g us, effective bandwidth %.5g GB/s%s\n", "",
                    cfg_alpha * 1e6, cfg_bw / 1e9, tg->kind == CAL_TARGET_LINK ? " (aggregate)" : "");
            if (tg->model.ok)
                fprintf(
                    out,
                    "    %-14s through sax's collective model: latency %.4g us, bandwidth %.5g GB/s per %s, rms "
                    "%.2f%%, max %.2f%% (written)\n",
                    "", tg->model.latency_s * 1e6, tg->model.bw_Bps / 1e9,
                    tg->kind == CAL_TARGET_LINK ? "flow" : "GPU", 100.0 * tg->model.rms_rel_error,
                    100.0 * tg->model.max_rel_error);
            else
                fprintf(out,
                        "    %-14s through sax's collective model: not fitted: %s; the alpha-beta values are "
                        "written\n",
                        "", tg->model.why);
            if (tg->kind == CAL_TARGET_LINK && tg->flows != 1.0) {
                double lat, bw;
                cal_level_written(tg, &lat, &bw);
                fprintf(out, "  %-16s written bandwidth = %g flows x %.5g GB/s\n", "", tg->flows,
                        bw / tg->flows / 1e9);
            }
        }
        sax_cluster_t *calibrated = malloc(sizeof *calibrated);
        if (calibrated != NULL) {
            *calibrated = st->config.problem.cluster;
            cal_apply_network(st, calibrated, true);
        }
        fprintf(out, "  residuals per measurement (fitted / measured time - 1):\n");
        for (int i = 0; i < nm; i++) {
            double rms, mx;
            measurement_errors(&st->targets[target_of[i]], &m[i], &rms, &mx);
            fprintf(out, "    %-16s %-14s %4d GPUs %-5s rms %6.2f%%  max %6.2f%%  %s\n", m[i].label,
                    sax_coll_op_names[m[i].op], m[i].gpus, sax_algorithm_names[m[i].algorithm], 100.0 * rms,
                    100.0 * mx, m[i].path);
            double crms, cmx, krms = NAN, kmx = NAN;
            char why[1024] = "";
            if (!cal_model_errors(st, &st->config.problem.cluster, &m[i], NULL, &crms, &cmx, why, sizeof why))
                fprintf(out, "    %-16s sax's model cannot place %d GPUs %ld apart: %s\n", "", m[i].gpus,
                        m[i].stride, why);
            else {
                if (calibrated != NULL)
                    cal_model_errors(st, calibrated, &m[i], NULL, &krms, &kmx, why, sizeof why);
                fprintf(
                    out,
                    "    %-16s sax's model (%d GPUs %ld apart): as configured rms %.2f%% max %.2f%%, calibrated "
                    "rms %.2f%% max %.2f%%\n",
                    "", m[i].gpus, m[i].stride, 100.0 * crms, 100.0 * cmx, 100.0 * krms, 100.0 * kmx);
            }
            int wrong = 0;
            for (int r = 0; r < m[i].table.n_rows; r++)
                wrong += m[i].table.rows[r].wrong[0] > 0.0 || m[i].table.rows[r].wrong[1] > 0.0;
            if (wrong > 0)
                fprintf(out,
                        "    %-16s warning: %d rows report wrong elements (#wrong > 0): a data corruption; "
                        "their times are still used\n",
                        "", wrong);
        }
        free(calibrated);
    }
    bool gemm_any = false;
    for (int g = 0; g < st->n_gpus; g++)
        gemm_any = gemm_any || st->gpus[g].gemm_fitted;
    if (gemm_any) {
        fprintf(out, "\nGEMM efficiency: eff = eff_max * AI / (AI + half_ai)\n");
        fprintf(out, "  %-12s %9s %8s %14s %10s %6s %9s %9s\n", "gpu", "eff_max", "+-", "half_ai_FLOP/B",
                "+-", "rows", "rms_err", "condition");
        for (int g = 0; g < st->n_gpus; g++) {
            const cal_gpu_t *cg = &st->gpus[g];
            if (!cg->gemm_fitted)
                continue;
            fprintf(out, "  %-12s %9.4f %8.2g %14.4g %10.2g %6d %8.2f%% %9.3g%s%s\n", cg->name,
                    cg->gemm.eff_max, cg->gemm.eff_max_se, cg->gemm.half_ai, cg->gemm.half_ai_se,
                    cg->gemm.points, 100.0 * cg->gemm.rms_rel_error, cg->gemm.condition,
                    cg->gemm.eff_max_at_bound ? "  faster than the configured peak: eff_max held at 1" : "",
                    cg->gemm.half_ai_at_bound ? "  half_ai held at 0" : "");
            if (cg->gemm.eff_max_fp8 > 0.0)
                fprintf(out, "  %-12s fp8 rows: eff_max_fp8 %.4f at the same knee\n", "",
                        cg->gemm.eff_max_fp8);
            fprintf(out, "  %-12s configured: eff_max %.4g, half_ai %.4g FLOP/B\n", "", cg->gpu.gemm_eff_max,
                    cg->gpu.gemm_eff_half_ai);
        }
        fprintf(out, "  residuals per measurement:\n");
        for (int i = 0; i < st->n_gemm_rows; i++) {
            const sax_gemm_measurement_t *r = &st->gemm_rows[i];
            double fit = gemm_fitted_s(st, i);
            fprintf(out,
                    "    %-10s %-8s %6.0f x %6.0f x %6.0f %-4s measured %10.4g s  fitted %10.4g s  %7.2f%%\n",
                    r->label, st->gpus[st->gemm_gpu[i]].name, r->m, r->n, r->k,
                    sax_precision_names[r->precision], r->time_s, fit, 100.0 * (fit / r->time_s - 1.0));
        }
    }
    if (st->run_fitted) {
        fprintf(
            out,
            "\nend-to-end runs: %d parameters by Levenberg-Marquardt on a soft-L1 loss of scale %.0f%% (%d "
            "iterations), condition %.3g\n",
            st->n_params, 100.0 * CAL_RUN_SOFT_L1, st->run_iterations, st->run_condition);
        int usable = 0, determined = 0;
        for (int i = 0; i < st->n_runs; i++)
            usable += st->runs[i].usable;
        for (int j = 0; j < st->n_params; j++)
            determined += st->params[j].determined;
        if (usable < determined + 2)
            fprintf(
                out,
                "  warning: %d usable runs for %d determined parameters: too few to pin them down; trust the "
                "held-out errors, not the in-sample ones\n",
                usable, determined);
        fprintf(out, "  %-36s %10s %10s %10s %10s  %s\n", "parameter", "start", "prior +-", "fitted", "+-",
                "");
        for (int j = 0; j < st->n_params; j++) {
            const cal_param_t *p = &st->params[j];
            char prior[16] = "-"; /* none under --no-prior */
            if (p->prior_sd > 0.0)
                snprintf(prior, sizeof prior, "%.4g", p->prior_sd);
            fprintf(out, "  %-36s %10.4g %10s %10.4g %10.2g  %s\n", p->name, p->start, prior, p->value,
                    p->std_error,
                    !p->determined ? "not determined by these runs: start value kept, not written"
                    : p->at_bound  ? "at its bound"
                                   : "");
        }
        err_stats_t before = {0}, fitted = {0}, held = {0};
        fprintf(out, "  %-44s %11s %11s %9s %11s %9s\n", "run", "measured_s", "fitted_s", "error",
                "heldout_s", "error");
        for (int i = 0; i < st->n_runs; i++) {
            const cal_run_t *r = &st->runs[i];
            if (!r->usable) {
                fprintf(out, "  %-44.44s %11.4g   (infeasible under the model: not used)\n", r->name,
                        r->measured_s);
                continue;
            }
            stats_add(&before, r->start_s, r->measured_s);
            stats_add(&fitted, r->fitted_s, r->measured_s);
            stats_add(&held, r->heldout_s, r->measured_s);
            fprintf(out, "  %-44.44s %11.4g %11.4g %8.2f%% %11.4g %8.2f%%\n", r->name, r->measured_s,
                    r->fitted_s, 100.0 * (r->fitted_s / r->measured_s - 1.0), r->heldout_s,
                    100.0 * (r->heldout_s / r->measured_s - 1.0));
            text_assumed(&r->assumed, out);
        }
        char how[64];
        snprintf(how, sizeof how,
                 st->opts->leave_family_out ? "held out by family (%d families)" : "%d-fold held out",
                 st->folds);
        fprintf(out, "  mean |error|: start %.2f%%, fitted (in sample) %.2f%%, %s %.2f%% (max %.2f%%)\n",
                100.0 * before.mean_abs, 100.0 * fitted.mean_abs, how, 100.0 * held.mean_abs,
                100.0 * held.max_abs);
        fprintf(out, "  rms error: start %.2f%%, fitted (in sample) %.2f%%, %s %.2f%%\n",
                100.0 * stats_rms(&before), 100.0 * stats_rms(&fitted), how, 100.0 * stats_rms(&held));
        if (st->opts->leave_family_out) {
            fprintf(out, "  %-44s %5s %13s %9s\n", "family (held out)", "runs", "mean |error|", "max");
            err_stats_t e;
            for (int i = 0; i < st->n_runs; i++)
                if (family_heldout(st, i, &e))
                    fprintf(out, "  %-44.44s %5d %12.2f%% %8.2f%%\n", cal_run_family(&st->runs[i]), e.n,
                            100.0 * e.mean_abs, 100.0 * e.max_abs);
        }
    }
    if (h->n > 0) {
        err_stats_t b = {0}, a = {0};
        fprintf(out, "\nheld-out dataset %s (%d cases):\n", st->opts->holdout_path, h->n);
        fprintf(out, "  %-44s %11s %11s %9s %11s %9s\n", "case", "measured_s", "before_s", "error", "after_s",
                "error");
        for (int i = 0; i < h->n; i++) {
            double ms = h->cases[i].measured_s;
            stats_add(&b, h->before_s[i], ms);
            stats_add(&a, h->after_s[i], ms);
            fprintf(out, "  %-44.44s %11.4g %11.4g %8.2f%% %11.4g %8.2f%%\n", h->cases[i].name, ms,
                    h->before_s[i], 100.0 * (h->before_s[i] / ms - 1.0), h->after_s[i],
                    100.0 * (h->after_s[i] / ms - 1.0));
            text_assumed(&h->assumed[i], out);
        }
        fprintf(out, "  mean |error| before %.2f%% (max %.2f%%), after calibration %.2f%% (max %.2f%%)\n",
                100.0 * b.mean_abs, 100.0 * b.max_abs, 100.0 * a.mean_abs, 100.0 * a.max_abs);
    }
    fprintf(out, "\nwrote %s\n", st->opts->output_path);
}

static cJSON *json_num(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

void cal_report_json(const cal_state_t *st, const sax_coll_measurement_t *m, const int *target_of, int nm,
                     const cal_holdout_t *h, FILE *out)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "output", st->opts->output_path);
    cJSON *net = cJSON_AddArrayToObject(root, "network");
    /* sax's collective model of each table, as configured and with the calibration applied */
    sax_cluster_t *calibrated = malloc(sizeof *calibrated);
    if (calibrated != NULL) {
        *calibrated = st->config.problem.cluster;
        cal_apply_network(st, calibrated, true);
    }
    int max_rows = 1;
    for (int i = 0; i < nm; i++)
        max_rows = m[i].table.n_rows > max_rows ? m[i].table.n_rows : max_rows;
    double *model_s = malloc((size_t)max_rows * sizeof *model_s);
    double *calibrated_s = malloc((size_t)max_rows * sizeof *calibrated_s);
    for (int t = 0; t < st->n_targets; t++) {
        const cal_target_t *tg = &st->targets[t];
        if (!tg->fitted)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "tier", tg->name);
        cJSON_AddItemToObject(o, "latency_s", json_num(tg->fit.latency_s));
        cJSON_AddItemToObject(o, "latency_std_error_s", json_num(tg->fit.latency_se_s));
        cJSON_AddItemToObject(o, "bandwidth_Bps", json_num(tg->fit.bw_Bps));
        cJSON_AddItemToObject(o, "bandwidth_std_error_Bps", json_num(tg->fit.bw_se_Bps));
        cJSON_AddBoolToObject(o, "latency_at_bound", tg->fit.latency_at_bound);
        double cfg_alpha, cfg_bw;
        configured_level(st, tg, &cfg_alpha, &cfg_bw);
        cJSON_AddItemToObject(o, "configured_latency_s", json_num(cfg_alpha));
        cJSON_AddItemToObject(o, "configured_effective_bandwidth_Bps", json_num(cfg_bw));
        cJSON_AddItemToObject(o, "condition", json_num(tg->fit.condition));
        cJSON_AddNumberToObject(o, "points", tg->fit.points);
        cJSON_AddItemToObject(o, "rms_rel_error", json_num(tg->fit.rms_rel_error));
        cJSON_AddItemToObject(o, "max_rel_error", json_num(tg->fit.max_rel_error));
        cJSON *mf = cJSON_AddObjectToObject(o, "model_fit");
        cJSON_AddBoolToObject(mf, "fitted", tg->model.ok);
        if (tg->model.ok) {
            cJSON_AddItemToObject(mf, "latency_s", json_num(tg->model.latency_s));
            cJSON_AddItemToObject(mf, "bandwidth_Bps", json_num(tg->model.bw_Bps));
            cJSON_AddItemToObject(mf, "rms_rel_error", json_num(tg->model.rms_rel_error));
            cJSON_AddItemToObject(mf, "max_rel_error", json_num(tg->model.max_rel_error));
        } else {
            cJSON_AddStringToObject(mf, "why", tg->model.why);
        }
        double written_lat, written_bw;
        cal_level_written(tg, &written_lat, &written_bw);
        cJSON_AddItemToObject(o, "written_latency_s", json_num(written_lat));
        cJSON_AddItemToObject(o, "written_bandwidth_Bps", json_num(written_bw));
        if (tg->n_algo > 0) {
            cJSON *pa = cJSON_AddArrayToObject(o, "per_algorithm");
            for (int a = 0; a < tg->n_algo; a++) {
                cJSON *ao = cJSON_CreateObject();
                cJSON_AddStringToObject(ao, "algorithm", sax_algorithm_names[tg->algo[a].algorithm]);
                cJSON_AddBoolToObject(ao, "fitted", tg->algo[a].ok);
                if (tg->algo[a].ok) {
                    cJSON_AddItemToObject(ao, "latency_s", json_num(tg->algo[a].fit.latency_s));
                    cJSON_AddItemToObject(ao, "bandwidth_Bps", json_num(tg->algo[a].fit.bw_Bps));
                    cJSON_AddItemToObject(ao, "rms_rel_error", json_num(tg->algo[a].fit.rms_rel_error));
                } else {
                    cJSON_AddStringToObject(ao, "why", tg->algo[a].why);
                }
                cJSON_AddItemToArray(pa, ao);
            }
        }
        cJSON *ms = cJSON_AddArrayToObject(o, "measurements");
        for (int i = 0; i < nm; i++) {
            if (target_of[i] != t)
                continue;
            double rms, mx;
            measurement_errors(tg, &m[i], &rms, &mx);
            cJSON *mo = cJSON_CreateObject();
            cJSON_AddStringToObject(mo, "label", m[i].label);
            cJSON_AddStringToObject(mo, "file", m[i].path);
            cJSON_AddStringToObject(mo, "op", sax_coll_op_names[m[i].op]);
            cJSON_AddNumberToObject(mo, "gpus", m[i].gpus);
            cJSON_AddItemToObject(mo, "rms_rel_error", json_num(rms));
            cJSON_AddItemToObject(mo, "max_rel_error", json_num(mx));
            cJSON_AddNumberToObject(mo, "stride", (double)m[i].stride);
            double crms = NAN, cmx = NAN, krms = NAN, kmx = NAN;
            char why[1024] = "";
            bool placed = cal_model_errors(st, &st->config.problem.cluster, &m[i], model_s, &crms, &cmx, why,
                                           sizeof why);
            if (placed && calibrated != NULL)
                cal_model_errors(st, calibrated, &m[i], calibrated_s, &krms, &kmx, why, sizeof why);
            cJSON_AddItemToObject(mo, "model_rms_rel_error", json_num(crms));
            cJSON_AddItemToObject(mo, "model_max_rel_error", json_num(cmx));
            cJSON_AddItemToObject(mo, "calibrated_model_rms_rel_error", json_num(krms));
            cJSON_AddItemToObject(mo, "calibrated_model_max_rel_error", json_num(kmx));
            if (!placed)
                cJSON_AddStringToObject(mo, "model_why", why);
            cJSON *rows = cJSON_AddArrayToObject(mo, "rows");
            for (int r = 0; r < m[i].table.n_rows; r++) {
                const sax_nccl_row_t *row = &m[i].table.rows[r];
                double ca, cb;
                if (!(row->size_bytes > 0.0) ||
                    sax_coll_coefficients(m[i].op, m[i].algorithm, m[i].gpus, row->size_bytes, &ca, &cb,
                                          NULL) != SAX_OK)
                    continue;
                cJSON *ro = cJSON_CreateObject();
                cJSON_AddNumberToObject(ro, "size_bytes", row->size_bytes);
                cJSON_AddItemToObject(ro, "out_of_place_s",
                                      json_num(row->time_s[0] > 0.0 ? row->time_s[0] : NAN));
                cJSON_AddItemToObject(ro, "in_place_s",
                                      json_num(row->time_s[1] > 0.0 ? row->time_s[1] : NAN));
                cJSON_AddItemToObject(ro, "fitted_s", json_num(ca * tg->fit.latency_s + cb / tg->fit.bw_Bps));
                cJSON_AddItemToObject(ro, "model_s", json_num(placed && model_s != NULL ? model_s[r] : NAN));
                cJSON_AddItemToObject(ro, "calibrated_model_s",
                                      json_num(placed && calibrated_s != NULL ? calibrated_s[r] : NAN));
                cJSON_AddItemToArray(rows, ro);
            }
            cJSON_AddItemToArray(ms, mo);
        }
        cJSON_AddItemToArray(net, o);
    }
    free(calibrated);
    free(model_s);
    free(calibrated_s);
    cJSON *gpus = cJSON_AddArrayToObject(root, "gemm");
    for (int g = 0; g < st->n_gpus; g++) {
        const cal_gpu_t *cg = &st->gpus[g];
        if (!cg->gemm_fitted)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "gpu", cg->name);
        cJSON_AddItemToObject(o, "gemm_efficiency_max", json_num(cg->gemm.eff_max));
        cJSON_AddItemToObject(o, "gemm_efficiency_max_std_error", json_num(cg->gemm.eff_max_se));
        if (cg->gemm.eff_max_fp8 > 0.0)
            cJSON_AddItemToObject(o, "gemm_efficiency_max_fp8", json_num(cg->gemm.eff_max_fp8));
        cJSON_AddItemToObject(o, "gemm_efficiency_half_intensity", json_num(cg->gemm.half_ai));
        cJSON_AddItemToObject(o, "gemm_efficiency_half_intensity_std_error", json_num(cg->gemm.half_ai_se));
        cJSON_AddItemToObject(o, "condition", json_num(cg->gemm.condition));
        cJSON_AddNumberToObject(o, "rows", cg->gemm.points);
        cJSON_AddItemToObject(o, "rms_rel_error", json_num(cg->gemm.rms_rel_error));
        cJSON *rows = cJSON_AddArrayToObject(o, "measurements");
        for (int i = 0; i < st->n_gemm_rows; i++) {
            if (st->gemm_gpu[i] != g)
                continue;
            const sax_gemm_measurement_t *r = &st->gemm_rows[i];
            cJSON *ro = cJSON_CreateObject();
            cJSON_AddStringToObject(ro, "label", r->label);
            cJSON_AddNumberToObject(ro, "m", r->m);
            cJSON_AddNumberToObject(ro, "n", r->n);
            cJSON_AddNumberToObject(ro, "k", r->k);
            cJSON_AddStringToObject(ro, "precision", sax_precision_names[r->precision]);
            cJSON_AddItemToObject(ro, "measured_s", json_num(r->time_s));
            cJSON_AddItemToObject(ro, "fitted_s", json_num(gemm_fitted_s(st, i)));
            cJSON_AddItemToArray(rows, ro);
        }
        cJSON_AddItemToArray(gpus, o);
    }
    if (st->run_fitted) {
        cJSON *runs = cJSON_AddObjectToObject(root, "runs");
        cJSON *ps = cJSON_AddArrayToObject(runs, "parameters");
        for (int j = 0; j < st->n_params; j++) {
            const cal_param_t *p = &st->params[j];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", p->name);
            cJSON_AddItemToObject(o, "start", json_num(p->start));
            cJSON_AddItemToObject(o, "prior_sd", json_num(p->prior_sd));
            cJSON_AddItemToObject(o, "value", json_num(p->value));
            cJSON_AddItemToObject(o, "std_error", json_num(p->std_error));
            cJSON_AddBoolToObject(o, "determined", p->determined);
            cJSON_AddBoolToObject(o, "at_bound", p->at_bound);
            cJSON_AddItemToArray(ps, o);
        }
        err_stats_t before = {0}, fitted = {0}, held = {0};
        cJSON *cs = cJSON_AddArrayToObject(runs, "cases");
        for (int i = 0; i < st->n_runs; i++) {
            const cal_run_t *r = &st->runs[i];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", r->name);
            cJSON_AddBoolToObject(o, "used", r->usable);
            cJSON_AddItemToObject(o, "measured_s", json_num(r->measured_s));
            cJSON_AddItemToObject(o, "start_s", json_num(r->usable ? r->start_s : NAN));
            cJSON_AddItemToObject(o, "fitted_s", json_num(r->fitted_s));
            cJSON_AddItemToObject(o, "heldout_s", json_num(r->heldout_s));
            cJSON_AddItemToObject(o, "assumed", json_assumed(&r->assumed));
            cJSON_AddItemToArray(cs, o);
            if (r->usable) {
                stats_add(&before, r->start_s, r->measured_s);
                stats_add(&fitted, r->fitted_s, r->measured_s);
                stats_add(&held, r->heldout_s, r->measured_s);
            }
        }
        cJSON_AddStringToObject(runs, "cross_validation",
                                st->opts->leave_family_out ? "leave-family-out" : "k-fold");
        cJSON_AddNumberToObject(runs, "folds", st->folds);
        if (st->opts->leave_family_out) {
            cJSON *fams = cJSON_AddArrayToObject(runs, "families");
            err_stats_t e;
            for (int i = 0; i < st->n_runs; i++)
                if (family_heldout(st, i, &e)) {
                    cJSON *o = cJSON_CreateObject();
                    cJSON_AddStringToObject(o, "family", cal_run_family(&st->runs[i]));
                    cJSON_AddNumberToObject(o, "runs", e.n);
                    cJSON_AddItemToObject(o, "heldout_mean_abs_rel_error",
                                          json_num(e.n > 0 ? e.mean_abs : NAN));
                    cJSON_AddItemToObject(o, "heldout_max_abs_rel_error",
                                          json_num(e.n > 0 ? e.max_abs : NAN));
                    cJSON_AddItemToArray(fams, o);
                }
        }
        cJSON_AddItemToObject(runs, "start_mean_abs_rel_error", json_num(before.mean_abs));
        cJSON_AddItemToObject(runs, "fitted_mean_abs_rel_error", json_num(fitted.mean_abs));
        cJSON_AddItemToObject(runs, "heldout_mean_abs_rel_error", json_num(held.mean_abs));
        cJSON_AddItemToObject(runs, "heldout_max_abs_rel_error", json_num(held.max_abs));
        cJSON_AddItemToObject(runs, "condition", json_num(st->run_condition));
        cJSON_AddStringToObject(runs, "loss", "soft_l1");
        cJSON_AddItemToObject(runs, "loss_scale", json_num(CAL_RUN_SOFT_L1));
    }
    if (h->n > 0) {
        cJSON *ho = cJSON_AddObjectToObject(root, "holdout");
        cJSON_AddStringToObject(ho, "dataset", st->opts->holdout_path);
        err_stats_t b = {0}, a = {0};
        cJSON *cs = cJSON_AddArrayToObject(ho, "cases");
        for (int i = 0; i < h->n; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", h->cases[i].name);
            cJSON_AddItemToObject(o, "measured_s", json_num(h->cases[i].measured_s));
            cJSON_AddItemToObject(o, "before_s", json_num(h->before_s[i]));
            cJSON_AddItemToObject(o, "after_s", json_num(h->after_s[i]));
            cJSON_AddItemToObject(o, "assumed", json_assumed(&h->assumed[i]));
            cJSON_AddItemToArray(cs, o);
            stats_add(&b, h->before_s[i], h->cases[i].measured_s);
            stats_add(&a, h->after_s[i], h->cases[i].measured_s);
        }
        cJSON_AddItemToObject(ho, "before_mean_abs_rel_error", json_num(b.mean_abs));
        cJSON_AddItemToObject(ho, "after_mean_abs_rel_error", json_num(a.mean_abs));
        cJSON_AddItemToObject(ho, "after_max_abs_rel_error", json_num(a.max_abs));
    }
    char *text = cJSON_Print(root);
    if (text != NULL)
        cal_write_untabbed(out, text);
    free(text);
    cJSON_Delete(root);
}
