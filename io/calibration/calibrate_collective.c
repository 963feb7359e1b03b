/* calibrate_collective.c - latency per step (alpha) and effective bandwidth (B) of one network tier
 * from nccl-tests tables, by linear least squares in (alpha, 1/B).
 *
 * Cost of one collective over n GPUs (domain.md "Collectives"; S is nccl-tests' size column):
 *   all_reduce, ring      2(n-1) alpha + 2(n-1)/n S/B
 *   all_reduce, tree      2 log2(n) alpha + 2 S/B
 *   reduce_scatter        (n-1) alpha + (n-1)/n S/B    (S = the whole array, n x the per-rank part)
 *   all_gather            (n-1) alpha + (n-1)/n S/B    (S = the whole gathered array)
 *   alltoall              (n-1) alpha + (n-1)/n S/B    (S = one rank's send buffer)
 *   sendrecv              alpha + S/B
 * The S/B factors are those nccl-tests uses to turn its algorithm bandwidth S/t into bus bandwidth
 * (nccl-tests doc/PERFORMANCE.md), so a fitted B is the bus bandwidth the tier sustains for large
 * messages. Each row contributes its out-of-place and its in-place time. Residuals are relative
 * (each equation divided by its measured time): the tables span five decades of time, and absolute
 * residuals would let the largest messages decide alpha.
 */
#include "sax_calibration.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sax_status_t sax_coll_coefficients(sax_coll_op_t op, sax_algorithm_t algo, int n, double size_bytes,
                                   double *alpha_coef, double *inv_bw_coef, sax_error_t *err)
{
    if (n < 2)
        return sax_error_set(err, SAX_ERR_INPUT, "a collective needs at least 2 GPUs, found %d", n);
    double nd = (double)n;
    if (algo == SAX_ALGORITHM_HIERARCHICAL)
        return sax_error_set(
            err, SAX_ERR_INPUT,
            "algorithm \"hierarchical\" spans several tiers; measure each tier with \"ring\" "
            "or \"tree\"");
    switch (op) {
    case SAX_OP_ALL_REDUCE:
        if (algo == SAX_ALGORITHM_TREE) {
            *alpha_coef = 2.0 * log2(nd);
            *inv_bw_coef = 2.0 * size_bytes;
        } else {
            *alpha_coef = 2.0 * (nd - 1.0);
            *inv_bw_coef = 2.0 * (nd - 1.0) / nd * size_bytes;
        }
        return SAX_OK;
    case SAX_OP_ALL_GATHER:
    case SAX_OP_REDUCE_SCATTER:
    case SAX_OP_ALL_TO_ALL:
        if (algo == SAX_ALGORITHM_TREE)
            return sax_error_set(err, SAX_ERR_INPUT,
                                 "algorithm \"tree\" is modelled for all_reduce only, "
                                 "found it for %s",
                                 sax_coll_op_names[op]);
        *alpha_coef = nd - 1.0;
        *inv_bw_coef = (nd - 1.0) / nd * size_bytes;
        return SAX_OK;
    case SAX_OP_SENDRECV:
        *alpha_coef = 1.0;
        *inv_bw_coef = size_bytes;
        return SAX_OK;
    case SAX_COLL_OP_COUNT: break;
    }
    return sax_error_set(err, SAX_ERR_INTERNAL, "unknown collective %d", (int)op);
}

static int count_distinct(double *v, int n)
{
    int d = 0;
    for (int i = 0; i < n; i++) {
        bool seen = false;
        for (int j = 0; j < d && !seen; j++)
            seen = fabs(v[j] - v[i]) <= 1e-9 * fmax(fabs(v[i]), 1.0);
        if (!seen)
            v[d++] = v[i];
    }
    return d;
}

sax_status_t sax_coll_fit(const char *tier, const sax_coll_measurement_t *m, int n, sax_coll_fit_t *fit,
                          sax_error_t *err)
{
    memset(fit, 0, sizeof *fit);
    int points = 0;
    for (int i = 0; i < n; i++)
        for (int r = 0; r < m[i].table.n_rows; r++)
            for (int h = 0; h < 2; h++)
                points += m[i].table.rows[r].size_bytes > 0.0 && m[i].table.rows[r].time_s[h] > 0.0;
    if (points == 0)
        return sax_error_set(err, SAX_ERR_INPUT,
                             "tier \"%s\": no collective measurement with a non-zero message size; add an "
                             "nccl-tests output measured across this tier to \"collectives\"",
                             tier);
    sax_status_t st = SAX_OK;
    double *A = malloc((size_t)points * 2 * sizeof *A);
    double *b = malloc((size_t)points * sizeof *b);
    double *sizes = malloc((size_t)points * sizeof *sizes);
    double *steps = malloc((size_t)points * sizeof *steps);
    double *t_meas = malloc((size_t)points * sizeof *t_meas);
    if (A == NULL || b == NULL || sizes == NULL || steps == NULL || t_meas == NULL) {
        st = sax_error_set(err, SAX_ERR_NOMEM, "out of memory fitting tier \"%s\"", tier);
        goto done;
    }
    bool only_sendrecv = true;
    int p = 0;
    for (int i = 0; i < n; i++) {
        only_sendrecv = only_sendrecv && m[i].op == SAX_OP_SENDRECV;
        for (int r = 0; r < m[i].table.n_rows; r++) {
            const sax_nccl_row_t *row = &m[i].table.rows[r];
            for (int h = 0; h < 2; h++) {
                if (!(row->size_bytes > 0.0 && row->time_s[h] > 0.0))
                    continue;
                double ca, cb;
                st =
                    sax_coll_coefficients(m[i].op, m[i].algorithm, m[i].gpus, row->size_bytes, &ca, &cb, err);
                if (st != SAX_OK) {
                    char inner[sizeof err->text];
                    snprintf(inner, sizeof inner, "%s", err != NULL ? err->text : "");
                    st = sax_error_set(err, st, "%s (%s): %s", m[i].label, m[i].path, inner);
                    goto done;
                }
                A[2 * p] = ca / row->time_s[h];
                A[2 * p + 1] = cb / row->time_s[h];
                b[p] = 1.0;
                sizes[p] = row->size_bytes;
                steps[p] = ca;
                t_meas[p] = row->time_s[h];
                p++;
            }
        }
    }
    if (count_distinct(sizes, points) < 2) {
        st = sax_error_set(err, SAX_ERR_INPUT,
                           "tier \"%s\": every measurement has the same message size (%.0f B), so latency "
                           "and bandwidth cannot be separated; measure a range of sizes (nccl-tests -b 8 -e "
                           "1G -f 2)",
                           tier, sizes[0]);
        goto done;
    }
    if (!only_sendrecv && count_distinct(steps, points) < 2) {
        st = sax_error_set(err, SAX_ERR_INPUT,
                           "tier \"%s\": every measurement has the same number of algorithm steps (%.0f: one "
                           "operation at one GPU count), so the latency per step cannot be told apart from "
                           "a fixed per-call latency; add a measurement at another GPU count or of another "
                           "operation (e.g. all_gather next to all_reduce)",
                           tier, steps[0]);
        goto done;
    }
    const double lower[2] = {0.0, -HUGE_VAL};
    sax_lsq_result_t res;
    st = sax_lsq_solve(points, 2, A, b, lower, &res, err);
    if (st != SAX_OK) {
        char inner[sizeof err->text];
        snprintf(inner, sizeof inner, "%s", err != NULL ? err->text : "");
        st = sax_error_set(err, st, "tier \"%s\": %s", tier, inner);
        goto done;
    }
    /* The bandwidth term must explain a visible part of the largest measured time. */
    double bw_share = 0.0;
    for (int i = 0; i < points; i++)
        bw_share = fmax(bw_share, A[2 * i + 1] * res.x[1]);
    if (!(res.x[1] > 0.0) || bw_share < 0.05) {
        st = sax_error_set(err, SAX_ERR_INPUT,
                           "tier \"%s\": the measured times do not grow with the message size (the bandwidth "
                           "term explains %.2g%% of the largest time), so no bandwidth can be fitted; add "
                           "larger messages",
                           tier, 100.0 * bw_share);
        goto done;
    }
    fit->latency_s = res.x[0];
    fit->bw_Bps = 1.0 / res.x[1];
    fit->latency_se_s = res.std_error[0];
    fit->bw_se_Bps = res.std_error[1] * fit->bw_Bps * fit->bw_Bps;
    fit->latency_at_bound = res.at_bound[0];
    fit->condition = res.condition;
    fit->points = points;
    fit->lsqr_iterations = res.iterations;
    double ss = 0.0, mx = 0.0;
    for (int i = 0; i < points; i++) {
        double pred = (A[2 * i] * res.x[0] + A[2 * i + 1] * res.x[1]) * t_meas[i];
        double e = pred / t_meas[i] - 1.0;
        ss += e * e;
        mx = fmax(mx, fabs(e));
    }
    fit->rms_rel_error = sqrt(ss / points);
    fit->max_rel_error = mx;
done:
    free(A);
    free(b);
    free(sizes);
    free(steps);
    free(t_meas);
    return st;
}
