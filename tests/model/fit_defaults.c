/* fit_defaults.c - how the model's fitted defaults (docs/cost-model.md, "Parameters") are obtained:
 * a bounded Nelder-Mead search of the parameters below that minimises mean |relative error| + 0.3 x
 * max |relative error| of iteration time over a dataset of measured runs (not a test; minutes).
 * With --folds K it also reports the error of each case when the parameters are fitted on the other
 * folds only (K-fold cross-validation: cases dealt round-robin), and with --leave-family-out the same
 * with one family held out at a time.
 *
 * Usage: fit_defaults DATASET.json [--folds K] [--leave-family-out] [--iterations N] [--max-weight W]
 *                     [--interference]
 *        fit_defaults DATASET.json --fp8-family FAMILY [--max-weight W]
 * (W: the weight of the max |error| in the objective, 0.3 by default)
 * Prints the fitted values and the per-case errors in sample and held out. The second form fits only
 * the fp8 GEMM ceiling (gemm_efficiency_max_fp8, one value for every GPU type) on the fp8 cases of
 * FAMILY, every other parameter as the dataset's configurations carry it, and reports it on the fp8
 * cases of every other family, which it never saw. */
#include "sax_config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    double lo, hi;
} param_t;

/* The fitted parameters: GEMM curve and memory-bound efficiency per GPU type, DP and TP overlap, the
 * kernel overhead, the step's host synchronisation, and with --interference the communication/computation interference. */
static const param_t params[] = {
    {"A100.gemm_efficiency_max", 0.5, 0.9},
    {"A100.gemm_efficiency_half_intensity", 1.0, 1000.0},
    {"A100.memory_efficiency", 0.6, 0.95},
    {"H100.gemm_efficiency_max", 0.5, 0.9},
    {"H100.gemm_efficiency_half_intensity", 1.0, 1000.0},
    {"H100.memory_efficiency", 0.6, 0.95},
    {"training.dp_overlap_efficiency", 0.0, 1.0},
    {"training.tp_overlap", 0.0, 1.0},
    {"gpu.kernel_overhead", 0.0, 20e-6},
    {"training.step_overhead", 0.0, 0.5},
    {"gpu.comm_interference", 0.0, 0.4},
};
#define N_PARAMS ((int)(sizeof params / sizeof params[0]))

static void set_gpu(sax_gpu_t *g, const double *x)
{
    int base = strcmp(g->name, "A100") == 0 ? 0 : strcmp(g->name, "H100") == 0 ? 3 : -1;
    if (base < 0)
        return;
    g->gemm_eff_max = x[base];
    g->gemm_eff_half_ai = x[base + 1];
    g->mem_eff = x[base + 2];
}

static void apply(sax_problem_t *p, const double *x)
{
    set_gpu(&p->cluster.gpu, x);
    for (int s = 0; s < p->cluster.n_sites; s++)
        set_gpu(&p->cluster.sites[s].gpu, x);
    p->training.dp_overlap_efficiency = x[6];
    p->training.tp_overlap = x[7];
    p->cluster.gpu.kernel_overhead_s = x[8];
    p->training.step_overhead_s = x[9];
    p->cluster.gpu.comm_interference = x[10];
    for (int s = 0; s < p->cluster.n_sites; s++) {
        p->cluster.sites[s].gpu.kernel_overhead_s = x[8];
        p->cluster.sites[s].gpu.comm_interference = x[10];
    }
}

static double max_weight = 0.3; /* --max-weight: of the max |error| in the objective */

typedef struct {
    sax_case_t *cases;
    int n;
    const bool *use; /* the cases the objective counts */
    sax_scratch_t *sc;
} data_t;

/* Case i's relative error with problem p in place of its own; `infeasible` when p cannot run it. */
static double relative_error(data_t *d, int i, const sax_problem_t *p, double infeasible)
{
    sax_result_t r;
    if (sax_model_eval(p, &d->cases[i].config.candidate, d->sc, &r) != SAX_OK || !r.feasible)
        return infeasible;
    return (r.iteration_time_s - d->cases[i].measured_s) / d->cases[i].measured_s;
}

static double error_of(data_t *d, int i, const double *x)
{
    sax_problem_t p = d->cases[i].config.problem;
    apply(&p, x);
    return relative_error(d, i, &p, 10.0);
}

static double objective(data_t *d, const double *x)
{
    double sum = 0.0, worst = 0.0;
    int k = 0;
    for (int i = 0; i < d->n; i++)
        if (d->use[i]) {
            double e = fabs(error_of(d, i, x));
            sum += e;
            worst = fmax(worst, e);
            k++;
        }
    return k > 0 ? sum / k + max_weight * worst : 0.0;
}

/* The parameters fitted: all but the last (the interference) unless --interference asks for it too. */
static int n_fit = N_PARAMS - 1;

static void clamp(double *x)
{
    for (int j = 0; j < n_fit; j++)
        x[j] = fmin(params[j].hi, fmax(params[j].lo, x[j]));
}

/* Nelder-Mead on the clamped parameters, restarted from its best point until a restart gains less than
 * 1e-5 of the objective (at least three runs, at most twelve): a fixed number of restarts left some
 * fits, the full-data one among them, in a worse point than the folds found. */
static double fit(data_t *d, double *x, int iterations)
{
    double best = objective(d, x);
    for (int restart = 0, stalled = 0; restart < 12 && (restart < 3 || !stalled); restart++) {
        double before = best;
        double s[N_PARAMS + 1][N_PARAMS], f[N_PARAMS + 1] = {0};
        for (int v = 0; v <= n_fit; v++) {
            memcpy(s[v], x, sizeof s[v]);
            if (v > 0) { /* a step towards the inside of the box, so no vertex sits on a bound twice */
                double step = 0.15 * (params[v - 1].hi - params[v - 1].lo);
                s[v][v - 1] += s[v][v - 1] + step > params[v - 1].hi ? -step : step;
            }
            clamp(s[v]);
            f[v] = objective(d, s[v]);
        }
        for (int it = 0; it < iterations; it++) {
            int lo = 0, hi = 0, hi2 = 0;
            for (int v = 1; v <= n_fit; v++) {
                if (f[v] < f[lo])
                    lo = v;
                if (f[v] > f[hi])
                    hi = v;
            }
            hi2 = lo;
            for (int v = 0; v <= n_fit; v++)
                if (v != hi && f[v] > f[hi2])
                    hi2 = v;
            double c[N_PARAMS] = {0}, r[N_PARAMS], e[N_PARAMS];
            memcpy(r, s[hi], sizeof r); /* the parameters not fitted keep their value in every vertex */
            memcpy(e, s[hi], sizeof e);
            for (int v = 0; v <= n_fit; v++)
                if (v != hi)
                    for (int j = 0; j < n_fit; j++)
                        c[j] += s[v][j] / n_fit;
            for (int j = 0; j < n_fit; j++)
                r[j] = c[j] + (c[j] - s[hi][j]);
            clamp(r);
            double fr = objective(d, r);
            if (fr < f[lo]) {
                for (int j = 0; j < n_fit; j++)
                    e[j] = c[j] + 2.0 * (c[j] - s[hi][j]);
                clamp(e);
                double fe = objective(d, e);
                if (fe < fr) {
                    memcpy(s[hi], e, sizeof e);
                    f[hi] = fe;
                } else {
                    memcpy(s[hi], r, sizeof r);
                    f[hi] = fr;
                }
            } else if (fr < f[hi2]) {
                memcpy(s[hi], r, sizeof r);
                f[hi] = fr;
            } else {
                for (int j = 0; j < n_fit; j++)
                    r[j] = c[j] + 0.5 * (s[hi][j] - c[j]);
                double fc = objective(d, r);
                if (fc < f[hi]) {
                    memcpy(s[hi], r, sizeof r);
                    f[hi] = fc;
                } else {
                    for (int v = 0; v <= n_fit; v++)
                        if (v != lo) {
                            for (int j = 0; j < n_fit; j++)
                                s[v][j] = s[lo][j] + 0.5 * (s[v][j] - s[lo][j]);
                            f[v] = objective(d, s[v]);
                        }
                }
            }
        }
        int lo = 0;
        for (int v = 1; v <= n_fit; v++)
            if (f[v] < f[lo])
                lo = v;
        if (f[lo] < best) {
            best = f[lo];
            memcpy(x, s[lo], sizeof s[lo]);
        }
        stalled = before - best < 1e-5;
    }
    return best;
}

static void set_fp8(sax_problem_t *p, double x)
{
    p->cluster.gpu.gemm_eff_max_fp8 = x;
    for (int s = 0; s < p->cluster.n_sites; s++)
        p->cluster.sites[s].gpu.gemm_eff_max_fp8 = x;
}

static double fp8_error(data_t *d, int i, double x)
{
    sax_problem_t p = d->cases[i].config.problem;
    set_fp8(&p, x);
    return relative_error(d, i, &p, NAN);
}

static double fp8_objective(data_t *d, double x)
{
    double sum = 0.0, worst = 0.0;
    int k = 0;
    for (int i = 0; i < d->n; i++) {
        double e = d->use[i] ? fabs(fp8_error(d, i, x)) : NAN;
        if (!isnan(e)) {
            sum += e;
            worst = fmax(worst, e);
            k++;
        }
    }
    return k > 0 ? sum / k + max_weight * worst : 0.0;
}

/* The fp8 ceiling fitted on `family`'s fp8 cases by golden-section search over [0.2, 1] (the objective
 * is unimodal in one GEMM ceiling: every case's time falls as it grows), then every fp8 case's error. */
static int fit_fp8(data_t *d, bool *use, const char *family)
{
    int fitted = 0;
    for (int i = 0; i < d->n; i++) {
        use[i] = d->cases[i].config.problem.training.precision == SAX_PRECISION_FP8 &&
                 strcmp(d->cases[i].family, family) == 0;
        fitted += use[i];
    }
    if (fitted == 0) {
        fprintf(stderr, "no fp8 case in family %s\n", family);
        return 2;
    }
    const double g = 0.5 * (sqrt(5.0) - 1.0);
    double a = 0.2, b = 1.0, x1 = b - g * (b - a), x2 = a + g * (b - a);
    double f1 = fp8_objective(d, x1), f2 = fp8_objective(d, x2);
    while (b - a > 1e-5) {
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - g * (b - a);
            f1 = fp8_objective(d, x1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + g * (b - a);
            f2 = fp8_objective(d, x2);
        }
    }
    double x = 0.5 * (a + b);
    printf("gemm_efficiency_max_fp8 fitted on the %d fp8 cases of %s: %.4f\n", fitted, family, x);
    printf("%-36s %-24s %10s %10s %10s\n", "case", "family", "measured", "before", "fitted");
    double sum[2] = {0}, worst[2] = {0};
    int k[2] = {0};
    for (int i = 0; i < d->n; i++) {
        if (d->cases[i].config.problem.training.precision != SAX_PRECISION_FP8)
            continue;
        double e0 = fp8_error(d, i, d->cases[i].config.problem.cluster.gpu.gemm_eff_max_fp8),
               e = fp8_error(d, i, x);
        printf("%-36s %-24s %10.4f %+9.2f%% %+9.2f%%%s\n", d->cases[i].name, d->cases[i].family,
               d->cases[i].measured_s, 100.0 * e0, 100.0 * e, d->use[i] ? "  (fitted on)" : "");
        if (isnan(e))
            continue;
        int h = !d->use[i];
        sum[h] += fabs(e);
        worst[h] = fmax(worst[h], fabs(e));
        k[h]++;
    }
    for (int h = 0; h < 2; h++)
        if (k[h] > 0)
            printf("%s: %d cases, mean |error| %.2f %%, max %.2f %%\n", h ? "held out" : "in sample", k[h],
                   100.0 * sum[h] / k[h], 100.0 * worst[h]);
    return 0;
}

static void report(const char *what, const double *err, int n)
{
    double sum = 0.0, worst = 0.0;
    for (int i = 0; i < n; i++) {
        sum += fabs(err[i]);
        worst = fmax(worst, fabs(err[i]));
    }
    printf("%s: mean |error| %.2f %%, max %.2f %%\n", what, 100.0 * sum / n, 100.0 * worst);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(
            stderr,
            "usage: fit_defaults DATASET.json [--folds K] [--leave-family-out] [--iterations N] [--max-weight W] "
            "[--interference]\n");
        return 2;
    }
    int folds = 0, iterations = 300;
    bool family_out = false;
    const char *fp8_family = NULL;
    for (int a = 2; a < argc; a++) {
        if (strcmp(argv[a], "--folds") == 0 && a + 1 < argc)
            folds = atoi(argv[++a]);
        else if (strcmp(argv[a], "--fp8-family") == 0 && a + 1 < argc)
            fp8_family = argv[++a];
        else if (strcmp(argv[a], "--leave-family-out") == 0)
            family_out = true;
        else if (strcmp(argv[a], "--interference") == 0)
            n_fit = N_PARAMS;
        else if (strcmp(argv[a], "--iterations") == 0 && a + 1 < argc)
            iterations = atoi(argv[++a]);
        else if (strcmp(argv[a], "--max-weight") == 0 && a + 1 < argc)
            max_weight = atof(argv[++a]);
    }
    sax_case_t *cases = NULL;
    int n = 0;
    sax_error_t err;
    if (sax_dataset_load(argv[1], &cases, &n, &err) != SAX_OK) {
        fprintf(stderr, "%s\n", err.text);
        return 2;
    }
    sax_scratch_t *sc = malloc(sax_scratch_size());
    bool *use = malloc((size_t)n * sizeof *use);
    double *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
    if (sc == NULL || use == NULL || in == NULL || out == NULL)
        return 1;
    sax_scratch_init(sc);
    /* start: the defaults as the dataset's configurations carry them */
    double x0[N_PARAMS] = {0.8, 100.0, 0.7, 0.8, 100.0, 0.7, 0.27, 0.39, 0.0, 0.0, 0.0};
    for (int i = 0; i < n; i++) {
        const sax_problem_t *p = &cases[i].config.problem;
        if (strcmp(p->cluster.gpu.name, "A100") == 0) {
            x0[0] = p->cluster.gpu.gemm_eff_max;
            x0[1] = p->cluster.gpu.gemm_eff_half_ai;
            x0[2] = p->cluster.gpu.mem_eff;
        }
        if (strcmp(p->cluster.gpu.name, "H100") == 0) {
            x0[3] = p->cluster.gpu.gemm_eff_max;
            x0[4] = p->cluster.gpu.gemm_eff_half_ai;
            x0[5] = p->cluster.gpu.mem_eff;
        }
        x0[6] = p->training.dp_overlap_efficiency;
        x0[7] = p->training.tp_overlap;
        x0[8] = p->cluster.gpu.kernel_overhead_s;
        x0[9] = p->training.step_overhead_s;
        x0[10] = p->cluster.gpu.comm_interference;
    }
    data_t d = {.cases = cases, .n = n, .use = use, .sc = sc};
    if (fp8_family != NULL) {
        int rc = fit_fp8(&d, use, fp8_family);
        free(sc);
        free(use);
        free(in);
        free(out);
        sax_dataset_free(cases, n);
        return rc;
    }
    for (int i = 0; i < n; i++)
        use[i] = true;
    double x[N_PARAMS];
    memcpy(x, x0, sizeof x);
    for (int i = 0; i < n; i++)
        in[i] = error_of(&d, i, x);
    report("start", in, n);
    fit(&d, x, iterations);
    printf("fitted on all %d cases:\n", n);
    for (int j = 0; j < N_PARAMS; j++)
        printf("  %-40s %.4g\n", params[j].name, x[j]);
    for (int i = 0; i < n; i++)
        in[i] = error_of(&d, i, x);
    report("in sample", in, n);
    if (folds > 1 || family_out) {
        int groups = family_out ? n : folds;
        for (int g = 0; g < groups; g++) {
            bool any = false;
            for (int i = 0; i < n; i++) {
                bool held = family_out ? strcmp(cases[i].family, cases[g].family) == 0 : i % folds == g;
                use[i] = !held;
                any = any || held;
            }
            if (!any || (family_out && g > 0 && strcmp(cases[g].family, cases[g - 1].family) == 0))
                continue;
            double xf[N_PARAMS];
            memcpy(xf, x0, sizeof xf);
            fit(&d, xf, iterations);
            for (int i = 0; i < n; i++)
                if (!use[i])
                    out[i] = error_of(&d, i, xf);
        }
        report(family_out ? "held out (leave one family out)" : "held out (k-fold)", out, n);
    }
    printf("%-28s %10s %10s %10s\n", "case", "measured", "in sample", "held out");
    for (int i = 0; i < n; i++)
        printf("%-28s %10.4f %+9.2f%% %+9.2f%%\n", cases[i].name, cases[i].measured_s, 100.0 * in[i],
               folds > 1 || family_out ? 100.0 * out[i] : 0.0);
    free(sc);
    free(use);
    free(in);
    free(out);
    sax_dataset_free(cases, n);
    return 0;
}
