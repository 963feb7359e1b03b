/* lsq_nls.c - bounded nonlinear least squares by Levenberg-Marquardt, for the parameters that only
 * end-to-end runs determine (overlap efficiencies, GPU efficiencies).
 *
 * Each iteration linearises the residuals with a forward-difference Jacobian J (the step stays inside
 * the bounds) and solves the damped problem min ||J dx + r||^2 + lambda ||D dx||^2, D = diag of the
 * column norms of J (Marquardt's scaling, so lambda is unit-free), as the linear least-squares problem
 * [J; sqrt(lambda) D] dx = [-r; 0] with sax_lsq_solve (KSPLSQR). A parameter on a bound that the
 * descent direction -J^T r points out of is held there for the step; the step is projected onto the
 * bounds; a step that lowers the cost is taken and lambda shrinks, otherwise lambda grows. A parameter
 * whose column of J is zero does not influence any residual: it keeps its start value and is reported
 * as not determined rather than fitted silently. Standard errors: sigma^2 (J^T J)^-1 at the solution
 * over the determined parameters inside their bounds (one on a bound is held there, and has none),
 * sigma^2 = ||r||^2 / (m - those parameters); NaN when there are no degrees of freedom left.
 * A parameter with a prior (prior_weight w > 0) adds the residual w (x - start) after the m given ones:
 * the fit is then the maximum a posteriori estimate under a Gaussian prior centred on the start value,
 * with w the ratio of the residuals' noise to the prior's width. Its row is exact in the Jacobian, it
 * counts in the cost, the steps, the condition and the standard errors (the posterior's, (J^T J)^-1 with
 * its rows, scaled by the data residuals' sigma^2), not in the reported rms, and it does not make a
 * parameter the data leave undetermined count as determined.
 */
#include "sax_calibration.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NLS_MAX_ITERATIONS = 200 };

static double clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

static double sum_squares(int m, const double *r)
{
    double s = 0.0;
    for (int i = 0; i < m; i++)
        s += r[i] * r[i];
    return s;
}

/* The m data residuals from fn, then each parameter's prior residual (0 without a prior). */
static sax_status_t residuals(int m, int k, const sax_nls_param_t *p, const double *x, sax_nls_residual_fn fn,
                              void *ctx, double *r, sax_error_t *err)
{
    for (int j = 0; j < k; j++)
        r[m + j] = p[j].prior_weight * (x[j] - p[j].start);
    return fn(ctx, x, r, err);
}

/* Forward differences (backward at an upper bound) of the m data and k prior residuals; the data rows'
 * column norms in `norm`. */
static sax_status_t jacobian(int m, int k, const sax_nls_param_t *p, const double *x, const double *r,
                             sax_nls_residual_fn fn, void *ctx, double *J, double *xt, double *rt,
                             double *norm, sax_error_t *err)
{
    for (int j = 0; j < k; j++) {
        double range = p[j].upper - p[j].lower;
        double h = 1e-6 * fmax(fabs(x[j]), isfinite(range) ? 1e-3 * range : 1.0);
        if (x[j] + h > p[j].upper)
            h = -h;
        memcpy(xt, x, (size_t)k * sizeof *xt);
        xt[j] = x[j] + h;
        sax_status_t st = fn(ctx, xt, rt, err);
        if (st != SAX_OK)
            return st;
        double s = 0.0;
        for (int i = 0; i < m; i++) {
            J[(size_t)i * (size_t)k + (size_t)j] = (rt[i] - r[i]) / h;
            s += J[(size_t)i * (size_t)k + (size_t)j] * J[(size_t)i * (size_t)k + (size_t)j];
        }
        for (int i = 0; i < k; i++)
            J[(size_t)(m + i) * (size_t)k + (size_t)j] = i == j ? p[j].prior_weight : 0.0;
        norm[j] = sqrt(s);
    }
    return SAX_OK;
}

/* A parameter is determined when moving it by its own size (or 1e-3 of its range) moves the
 * residuals by more than 1e-9. */
static bool is_determined(const sax_nls_param_t *p, double x, double norm)
{
    double range = p->upper - p->lower;
    double size = fmax(fabs(x), isfinite(range) ? 1e-3 * range : 1.0);
    return norm * size > 1e-9;
}

sax_status_t sax_nls_fit(int m, int k, const sax_nls_param_t *params, sax_nls_residual_fn fn, void *ctx,
                         sax_nls_result_t *res, sax_error_t *err)
{
    memset(res, 0, sizeof *res);
    if (k < 1 || k > SAX_LSQ_MAX_PARAMS)
        return sax_error_set(err, SAX_ERR_INTERNAL, "nonlinear fit of %d parameters (1..%d)", k,
                             SAX_LSQ_MAX_PARAMS);
    sax_status_t st = SAX_OK;
    const int n = m + k; /* the data residuals, then the priors' */
    double *r = malloc((size_t)n * sizeof *r);
    double *rt = malloc((size_t)n * sizeof *rt);
    double *J = malloc((size_t)n * (size_t)k * sizeof *J);
    double *aug = malloc(((size_t)n + (size_t)k) * (size_t)k * sizeof *aug);
    double *rhs = malloc(((size_t)n + (size_t)k) * sizeof *rhs);
    if (r == NULL || rt == NULL || J == NULL || aug == NULL || rhs == NULL) {
        st = sax_error_set(err, SAX_ERR_NOMEM, "out of memory in the nonlinear fit");
        goto done;
    }
    double x[SAX_LSQ_MAX_PARAMS], xt[SAX_LSQ_MAX_PARAMS], xn[SAX_LSQ_MAX_PARAMS], norm[SAX_LSQ_MAX_PARAMS];
    for (int j = 0; j < k; j++)
        x[j] = clamp(params[j].start, params[j].lower, params[j].upper);
    st = residuals(m, k, params, x, fn, ctx, r, err);
    if (st != SAX_OK)
        goto done;
    double cost = sum_squares(n, r);
    res->start_rms = sqrt(sum_squares(m, r) / m);
    double lambda = 1e-3;
    int it = 0;
    for (; it < NLS_MAX_ITERATIONS && cost > 0.0; it++) {
        st = jacobian(m, k, params, x, r, fn, ctx, J, xt, rt, norm, err);
        if (st != SAX_OK)
            goto done;
        /* Free: determined, and not on a bound the descent direction -J^T r points out of. */
        int free_idx[SAX_LSQ_MAX_PARAMS], nf = 0;
        for (int j = 0; j < k; j++) {
            if (!is_determined(&params[j], x[j], norm[j]))
                continue;
            double g = 0.0;
            for (int i = 0; i < n; i++)
                g += J[(size_t)i * (size_t)k + (size_t)j] * r[i];
            double tol = 1e-12 * (1.0 + fabs(x[j]));
            if ((x[j] <= params[j].lower + tol && g > 0.0) || (x[j] >= params[j].upper - tol && g < 0.0))
                continue;
            free_idx[nf++] = j;
        }
        if (nf == 0)
            break;
        bool improved = false;
        while (!improved && lambda < 1e12) {
            /* [J_free; sqrt(lambda) D] dx = [-r; 0] */
            size_t rows = (size_t)n + (size_t)nf;
            for (size_t i = 0; i < (size_t)n; i++) {
                for (int f = 0; f < nf; f++)
                    aug[i * (size_t)nf + (size_t)f] = J[i * (size_t)k + (size_t)free_idx[f]];
                rhs[i] = -r[i];
            }
            for (int f = 0; f < nf; f++) {
                for (int e = 0; e < nf; e++)
                    aug[((size_t)n + (size_t)f) * (size_t)nf + (size_t)e] =
                        e == f ? sqrt(lambda) * hypot(norm[free_idx[f]], params[free_idx[f]].prior_weight)
                               : 0.0;
                rhs[(size_t)n + (size_t)f] = 0.0;
            }
            sax_lsq_result_t step;
            st = sax_lsq_solve((int)rows, nf, aug, rhs, NULL, &step, err);
            if (st != SAX_OK)
                goto done;
            memcpy(xn, x, (size_t)k * sizeof *xn);
            for (int f = 0; f < nf; f++) {
                int j = free_idx[f];
                xn[j] = clamp(x[j] + step.x[f], params[j].lower, params[j].upper);
            }
            st = residuals(m, k, params, xn, fn, ctx, rt, err);
            if (st != SAX_OK)
                goto done;
            double cost_new = sum_squares(n, rt);
            if (cost_new < cost) {
                double gain = cost - cost_new;
                memcpy(x, xn, (size_t)k * sizeof *x);
                memcpy(r, rt, (size_t)n * sizeof *r);
                cost = cost_new;
                lambda = fmax(lambda / 3.0, 1e-12);
                improved = true;
                double step2 = 0.0, x2 = 0.0;
                for (int f = 0; f < nf; f++) {
                    step2 += step.x[f] * step.x[f];
                    x2 += x[free_idx[f]] * x[free_idx[f]];
                }
                if (gain <= 1e-10 * cost_new || step2 <= 1e-20 * (x2 + 1e-20))
                    lambda = 1e12; /* converged: no further decrease worth an iteration */
            } else {
                lambda *= 4.0;
            }
        }
        if (!improved || lambda >= 1e12)
            break;
    }
    res->iterations = it;
    res->rms = sqrt(sum_squares(m, r) / m);
    memcpy(res->x, x, (size_t)k * sizeof *x);

    /* Standard errors and condition at the solution. */
    st = jacobian(m, k, params, x, r, fn, ctx, J, xt, rt, norm, err);
    if (st != SAX_OK)
        goto done;
    int free_idx[SAX_LSQ_MAX_PARAMS], nf = 0;
    for (int j = 0; j < k; j++) {
        res->std_error[j] = NAN;
        double tol = 1e-9 * (1.0 + fabs(x[j]));
        res->at_bound[j] = fabs(x[j] - params[j].lower) < tol || fabs(x[j] - params[j].upper) < tol;
        res->determined[j] = is_determined(&params[j], x[j], norm[j]);
        if (res->determined[j] && !res->at_bound[j])
            free_idx[nf++] = j;
    }
    res->condition = nf > 0 ? HUGE_VAL : NAN; /* NaN: no free parameter to condition */
    if (nf > 0 && m > nf) {
        for (size_t i = 0; i < (size_t)n; i++) {
            for (int f = 0; f < nf; f++)
                aug[i * (size_t)nf + (size_t)f] = J[i * (size_t)k + (size_t)free_idx[f]];
            rhs[i] = -r[i];
        }
        sax_lsq_result_t lin;
        sax_error_t ignored;
        if (sax_lsq_solve(n, nf, aug, rhs, NULL, &lin, &ignored) == SAX_OK) {
            res->condition = lin.condition;
            double sigma2 = sum_squares(m, r) / (double)(m - nf), lin_sigma2 = lin.sigma * lin.sigma;
            for (int f = 0; f < nf; f++) {
                /* lin.covariance carries the Gauss-Newton residual; rescale to the residual at x. */
                double var = lin_sigma2 > 0.0 ? lin.covariance[f][f] / lin_sigma2 * sigma2 : 0.0;
                res->std_error[free_idx[f]] = sqrt(fmax(var, 0.0));
            }
        }
    }
done:
    free(r);
    free(rt);
    free(J);
    free(aug);
    free(rhs);
    return st;
}
