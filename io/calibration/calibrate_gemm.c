/* calibrate_gemm.c - the GEMM efficiency curve of one GPU type from measured matrix multiplies.
 *
 * The model (sax_model.h, model/gemm.c): eff(AI) = eff_max * AI / (AI + half_ai), time = 2mnk /
 * (peak * eff). Rearranged, y = peak * time / (2mnk) = 1/eff_max + (half_ai/eff_max) * (1/AI) is
 * linear in p = (1/eff_max, half_ai/eff_max). Each row is divided by its y so that residuals are
 * relative errors of the time. Bounds: eff_max <= 1 (p0 >= 1; a faster GEMM means the configured
 * peak is wrong, which the report shows as a bound) and half_ai >= 0 (p1 >= 0). Standard errors of
 * eff_max = 1/p0 and half_ai = p1/p0 follow from the covariance of p by the delta method.
 * FP8 GEMMs have a ceiling of their own (sax_gpu_t.gemm_eff_max_fp8) at the same knee: when bf16 rows
 * of two intensities or more fix the curve, the fp8 rows fit only that ceiling, y = (1 + half_ai/AI) /
 * eff_max_fp8, by least squares in the same relative residuals (one parameter, closed form).
 */
#include "sax_calibration.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sax_status_t sax_gemm_fit(const char *gpu_label, const sax_gpu_t *gpu, const sax_gemm_measurement_t *g, int n,
                          sax_gemm_fit_t *fit, sax_error_t *err)
{
    memset(fit, 0, sizeof *fit);
    if (n == 0)
        return sax_error_set(err, SAX_ERR_INPUT, "GPU \"%s\": no GEMM measurement", gpu_label);
    sax_status_t st = SAX_OK;
    double *A = malloc((size_t)n * 2 * sizeof *A);
    double *b = malloc((size_t)n * sizeof *b);
    double *ai = malloc((size_t)n * sizeof *ai);
    if (A == NULL || b == NULL || ai == NULL) {
        st = sax_error_set(err, SAX_ERR_NOMEM, "out of memory fitting GEMMs of \"%s\"", gpu_label);
        goto done;
    }
    int distinct = 0, bf16_distinct = 0, fp8_rows = 0, rows = 0;
    for (int i = 0; i < n; i++) { /* 16-bit intensities first (bf16, fp16: the same tensor cores and peak):
                                    * the curve is theirs when there are two */
        double intensity = sax_gemm_intensity(g[i].m, g[i].n, g[i].k, g[i].precision);
        fp8_rows += g[i].precision == SAX_PRECISION_FP8;
        bool seen = g[i].precision == SAX_PRECISION_FP8;
        for (int j = 0; j < bf16_distinct && !seen; j++)
            seen = fabs(ai[j] - intensity) <= 1e-9 * intensity;
        if (!seen)
            ai[bf16_distinct++] = intensity;
    }
    bool split = bf16_distinct >= 2 && fp8_rows > 0; /* else one curve through every row */
    for (int i = 0; i < n; i++) {
        double peak = sax_gpu_peak_flops(gpu, g[i].precision);
        if (!(peak > 0.0) || (g[i].precision == SAX_PRECISION_FP8 && !(gpu->peak_flops_fp8 > 0.0))) {
            st =
                sax_error_set(err, SAX_ERR_INPUT, "%s: GPU \"%s\" has no %s peak FLOP/s in the configuration",
                              g[i].label, gpu_label, sax_precision_names[g[i].precision]);
            goto done;
        }
        double intensity = sax_gemm_intensity(g[i].m, g[i].n, g[i].k, g[i].precision);
        double y = peak * g[i].time_s / (2.0 * g[i].m * g[i].n * g[i].k);
        if (split && g[i].precision == SAX_PRECISION_FP8)
            continue; /* not a row of the curve */
        A[2 * rows] = 1.0 / y;
        A[2 * rows + 1] = 1.0 / (intensity * y);
        b[rows++] = 1.0;
        bool seen = false;
        for (int j = 0; j < distinct && !seen; j++)
            seen = fabs(ai[j] - intensity) <= 1e-9 * intensity;
        if (!seen)
            ai[distinct++] = intensity;
    }
    if (distinct < 2) {
        st = sax_error_set(err, SAX_ERR_INPUT,
                           "GPU \"%s\": every GEMM has the same arithmetic intensity (%.4g FLOP/B), so the "
                           "peak efficiency and the half-efficiency intensity cannot be separated; measure "
                           "GEMMs of at least two shapes (e.g. 1024^3 and 8192^3)",
                           gpu_label, ai[0]);
        goto done;
    }
    const double lower[2] = {1.0, 0.0};
    sax_lsq_result_t res;
    st = sax_lsq_solve(rows, 2, A, b, lower, &res, err);
    if (st != SAX_OK) {
        char inner[sizeof err->text];
        snprintf(inner, sizeof inner, "%s", err != NULL ? err->text : "");
        st = sax_error_set(err, st, "GPU \"%s\" GEMMs: %s", gpu_label, inner);
        goto done;
    }
    double p0 = res.x[0], p1 = res.x[1];
    fit->eff_max = 1.0 / p0;
    fit->half_ai = p1 / p0;
    fit->eff_max_at_bound = res.at_bound[0];
    fit->half_ai_at_bound = res.at_bound[1];
    /* d(1/p0) = -dp0/p0^2; d(p1/p0) = dp1/p0 - p1 dp0/p0^2. */
    double c00 = res.covariance[0][0], c01 = res.covariance[0][1], c11 = res.covariance[1][1];
    fit->eff_max_se = sqrt(fmax(c00, 0.0)) / (p0 * p0);
    double g0 = -p1 / (p0 * p0), g1 = 1.0 / p0;
    fit->half_ai_se = sqrt(fmax(g0 * g0 * c00 + 2.0 * g0 * g1 * c01 + g1 * g1 * c11, 0.0));
    fit->condition = res.condition;
    fit->points = n;
    double sx = 0.0, sxx = 0.0; /* the fp8 ceiling: x_i q = 1 in least squares, q = 1 / eff_max_fp8 */
    for (int i = 0; i < n && split; i++)
        if (g[i].precision == SAX_PRECISION_FP8) {
            double intensity = sax_gemm_intensity(g[i].m, g[i].n, g[i].k, g[i].precision);
            double y =
                sax_gpu_peak_flops(gpu, g[i].precision) * g[i].time_s / (2.0 * g[i].m * g[i].n * g[i].k);
            double x = (1.0 + fit->half_ai / intensity) / y;
            sx += x;
            sxx += x * x;
        }
    fit->eff_max_fp8 = split          ? fmin(1.0, sxx / sx)
                       : fp8_rows > 0 ? fit->eff_max
                                      : 0.0; /* one curve: its own */
    double ss = 0.0, mx = 0.0;
    for (int i = 0; i < n; i++) {
        double intensity = sax_gemm_intensity(g[i].m, g[i].n, g[i].k, g[i].precision);
        double y = sax_gpu_peak_flops(gpu, g[i].precision) * g[i].time_s / (2.0 * g[i].m * g[i].n * g[i].k);
        double top = g[i].precision == SAX_PRECISION_FP8 ? fit->eff_max_fp8 : fit->eff_max;
        double e = (1.0 + fit->half_ai / intensity) / (top * y) - 1.0;
        ss += e * e;
        mx = fmax(mx, fabs(e));
    }
    fit->rms_rel_error = sqrt(ss / n);
    fit->max_rel_error = mx;
done:
    free(A);
    free(b);
    free(ai);
    return st;
}
