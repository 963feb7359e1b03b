/* calibrate_model.c - a network level's latency and bandwidth fitted through sax's own collective
 * model (sax_collective_predict: the closed forms `sax collective` prints and the evaluation uses),
 * so that the values written reproduce the measured tables when sax runs those groups the way NCCL
 * does: a ring through two whole 8-GPU nodes uses all eight NICs, so its bus bandwidth is about
 * eight NICs' and the NIC bandwidth written is an eighth of it. The alpha-beta fit of
 * calibrate_collective.c (textbook ring coefficients) stays in the report as a model-free summary
 * of each level and as this fit's start.
 *
 * Residual of row r of a table: predicted / measured time - 1, for its out-of-place and in-place
 * halves. Parameters: the level's latency (us) and its bandwidth (GB/s per GPU, or per flow for a
 * site link), Levenberg-Marquardt with bounds (sax_nls_fit). The fit fails, and the alpha-beta
 * values are written instead, when the model cannot reach the measured times with any bandwidth:
 * NCCL's flow control (network.buffer_size, p2p_chunk_size, channels) bounds the group below what
 * was measured, so the configuration does not describe the NCCL settings of the measurement.
 */
#include "calibration_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Above this rms relative error the model fit is not written (the alpha-beta fit is). */
#define CAL_MODEL_MAX_RMS 0.15

void cal_level_written(const cal_target_t *tg, double *latency_s, double *bw_Bps)
{
    *latency_s = tg->model.ok ? tg->model.latency_s : tg->fit.latency_s;
    *bw_Bps =
        (tg->model.ok ? tg->model.bw_Bps : tg->fit.bw_Bps) * (tg->kind == CAL_TARGET_LINK ? tg->flows : 1.0);
}

/* Level `tg` of `cl` at latency `lat` and written bandwidth `bw`. */
static void level_set(const cal_target_t *tg, sax_cluster_t *cl, double lat, double bw)
{
    switch (tg->kind) {
    case CAL_TARGET_SCALE_UP:
        cl->scale_up.latency_s = lat;
        cl->scale_up.bw_Bps = bw;
        cl->scale_up.efficiency = 1.0;
        break;
    case CAL_TARGET_TIER:
        cl->tiers[tg->index].latency_s = lat;
        cl->tiers[tg->index].bw_Bps = bw;
        cl->tiers[tg->index].efficiency = 1.0;
        break;
    case CAL_TARGET_LINK:
        cl->links[tg->index].latency_s = lat;
        cl->links[tg->index].bw_Bps = bw;
        break;
    }
}

void cal_apply_network(const cal_state_t *st, sax_cluster_t *cl, bool own_cluster)
{
    for (int t = 0; t < st->n_targets; t++) {
        const cal_target_t *tg = &st->targets[t];
        if (!tg->fitted)
            continue;
        double lat, bw;
        cal_level_written(tg, &lat, &bw);
        if (own_cluster) {
            level_set(tg, cl, lat, bw);
        } else if (tg->kind == CAL_TARGET_SCALE_UP &&
                   strcmp(cl->gpu.name, st->config.problem.cluster.gpu.name) == 0) {
            level_set(tg, cl, lat, bw);
        } else if (tg->kind == CAL_TARGET_TIER) {
            for (int i = 0; i < cl->n_tiers; i++)
                if (strcmp(cl->tiers[i].name, tg->name) == 0) {
                    cal_target_t by_name = *tg;
                    by_name.index = i;
                    level_set(&by_name, cl, lat, bw);
                }
        }
    }
}

/* The time sax's model gives row `size` of measurement `m` on `cl`. */
static sax_status_t predict(const cal_state_t *st, const sax_cluster_t *cl, const sax_coll_measurement_t *m,
                            double size, double *time_s, sax_error_t *err)
{
    sax_coll_prediction_t p;
    sax_status_t s = sax_collective_predict(cl, &st->config.candidate, m->op, m->algorithm, m->gpus,
                                            m->stride, false, size, false, &p, err);
    *time_s = p.time_s;
    return s;
}

bool cal_model_errors(const cal_state_t *st, const sax_cluster_t *cl, const sax_coll_measurement_t *m,
                      double *row_s, double *rms, double *mx, char *why, size_t why_n)
{
    double ss = 0.0;
    int n = 0;
    *rms = *mx = NAN;
    for (int r = 0; r < m->table.n_rows; r++) {
        const sax_nccl_row_t *row = &m->table.rows[r];
        if (row_s != NULL)
            row_s[r] = NAN;
        if (!(row->size_bytes > 0.0))
            continue;
        sax_error_t e = {{0}};
        double t;
        if (predict(st, cl, m, row->size_bytes, &t, &e) != SAX_OK) {
            snprintf(why, why_n, "%s", e.text);
            return false;
        }
        if (row_s != NULL)
            row_s[r] = t;
        for (int h = 0; h < 2; h++)
            if (row->time_s[h] > 0.0) {
                double d = t / row->time_s[h] - 1.0;
                ss += d * d;
                *mx = n == 0 ? fabs(d) : fmax(*mx, fabs(d));
                n++;
            }
    }
    *rms = n > 0 ? sqrt(ss / n) : NAN;
    return true;
}

typedef struct {
    const cal_state_t *st;
    const cal_target_t *tg;
    const sax_coll_measurement_t *m;
    int k;
    sax_cluster_t cl;
} fit_ctx_t;

static sax_status_t residuals(void *ctx, const double *x, double *r, sax_error_t *err)
{
    fit_ctx_t *f = ctx;
    /* a site link at its per-flow bandwidth: the measured pair is one flow */
    level_set(f->tg, &f->cl, x[0] * 1e-6, x[1] * 1e9);
    int j = 0;
    for (int i = 0; i < f->k; i++)
        for (int row = 0; row < f->m[i].table.n_rows; row++) {
            const sax_nccl_row_t *rw = &f->m[i].table.rows[row];
            if (!(rw->size_bytes > 0.0))
                continue;
            double t;
            sax_status_t s = predict(f->st, &f->cl, &f->m[i], rw->size_bytes, &t, err);
            if (s != SAX_OK)
                return s;
            for (int h = 0; h < 2; h++)
                if (rw->time_s[h] > 0.0)
                    r[j++] = t / rw->time_s[h] - 1.0;
        }
    return SAX_OK;
}

sax_status_t cal_model_fit(const cal_state_t *st, cal_target_t *tg, const sax_coll_measurement_t *m, int k,
                           sax_error_t *err)
{
    memset(&tg->model, 0, sizeof tg->model);
    fit_ctx_t *f = calloc(1, sizeof *f);
    if (f == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory fitting %s", tg->name);
    *f = (fit_ctx_t){.st = st, .tg = tg, .m = m, .k = k, .cl = st->config.problem.cluster};
    cal_apply_network(st, &f->cl, true); /* the levels fitted before this one (inner first) */
    int points = 0;
    for (int i = 0; i < k; i++) {
        for (int r = 0; r < m[i].table.n_rows; r++)
            for (int h = 0; h < 2; h++)
                points += m[i].table.rows[r].size_bytes > 0.0 && m[i].table.rows[r].time_s[h] > 0.0;
        double rms, mx;
        if (!cal_model_errors(st, &f->cl, &m[i], NULL, &rms, &mx, tg->model.why, sizeof tg->model.why)) {
            free(f);
            return SAX_OK; /* the model cannot place this group: why says so, alpha-beta is written */
        }
    }
    sax_nls_param_t params[2] = {
        {"latency_us", fmax(tg->fit.latency_s * 1e6, 0.01), 0.0, 1e6, 0.0},
        {"bandwidth_GBps", fmin(fmax(tg->fit.bw_Bps / 1e9, 1e-3), 1e5), 1e-3, 1e5, 0.0},
    };
    sax_nls_result_t res;
    sax_error_t fit_err = {{0}};
    sax_status_t s = sax_nls_fit(points, 2, params, residuals, f, &res, &fit_err);
    if (s == SAX_ERR_NOMEM) {
        free(f);
        return sax_error_set(err, s, "%s", fit_err.text);
    }
    if (s != SAX_OK) {
        snprintf(tg->model.why, sizeof tg->model.why, "%s", fit_err.text);
    } else {
        tg->model.latency_s = res.x[0] * 1e-6;
        tg->model.bw_Bps = res.x[1] * 1e9;
        tg->model.points = points;
        tg->model.rms_rel_error = res.rms;
        level_set(tg, &f->cl, tg->model.latency_s, tg->model.bw_Bps);
        double mx = 0.0;
        for (int i = 0; i < k; i++) {
            double rms1, mx1;
            if (cal_model_errors(st, &f->cl, &m[i], NULL, &rms1, &mx1, tg->model.why, sizeof tg->model.why))
                mx = fmax(mx, mx1);
        }
        tg->model.max_rel_error = mx;
        if (res.rms > CAL_MODEL_MAX_RMS)
            snprintf(
                tg->model.why, sizeof tg->model.why,
                "sax's model reproduces these measurements only to %.1f%% rms (more than %.0f%%): the "
                "levels inside this one (as configured or fitted), the NCCL settings (network.channels, "
                "buffer_size, p2p_chunk_size, p2p_channels: flow control) or the group's place (`stride`) "
                "differ from the measurement's",
                100.0 * res.rms, 100.0 * CAL_MODEL_MAX_RMS);
        else if (!res.determined[1] || res.at_bound[1])
            snprintf(
                tg->model.why, sizeof tg->model.why,
                "no bandwidth lets sax's model reach the measured times (best rms %.1f%% at the %s): NCCL's "
                "flow control bounds this group, so network.buffer_size, p2p_chunk_size, p2p_channels "
                "or channels differ from what the measurement ran with",
                100.0 * res.rms, res.at_bound[1] ? "bound" : "start");
        else if (!res.determined[0])
            snprintf(tg->model.why, sizeof tg->model.why,
                     "the measurements do not determine the latency through sax's model (no latency-bound "
                     "sizes)");
        else
            tg->model.ok = true;
    }
    free(f);
    return SAX_OK;
}
