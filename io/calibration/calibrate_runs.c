/* calibrate_runs.c - the parameters only end-to-end runs determine, fitted by nonlinear least squares
 * on measured iteration times, and their k-fold cross-validated (held-out) error.
 *
 * Residual of run i: predicted / measured iteration time - 1 (relative, so a 100 s run and a 0.5 s
 * run weigh alike), through a soft-L1 loss (cal_soft_l1): quadratic near 0, linear beyond
 * CAL_RUN_SOFT_L1, so the fit minimises about the mean absolute error it is reported by, and a run the
 * model does not explain pulls it by its error, not by its error's square.
 * The parameters (CAL_RUN_PARAM_LIST) are shared by all runs: the overlap efficiencies of the training
 * section, and per GPU type the GEMM efficiency ceiling (unless GEMM micro-benchmarks measured it: a
 * measured parameter is not refitted), the memory efficiency, the fp8 GEMM ceiling when fp8 runs use the
 * GPU, how much communication hidden behind compute slows it, and the speed of each flash-attention
 * kernel its runs use.
 * They start from the configured (or micro-benchmark-fitted) values and stay inside their ranges; each
 * has a Gaussian prior on its start value (its width in CAL_RUN_PARAM_LIST, against CAL_RUN_NOISE), so
 * the fit is the maximum a posteriori estimate (the loss alone under --no-prior).
 * Each run is evaluated with the network and GPU values fitted from the micro-benchmarks wherever it
 * shares a tier name or GPU name with the calibrated configuration.
 * Cross-validation: run i belongs to fold i mod k, k = min(5, runs), or with --leave-family-out to
 * the fold of its family; each fold is predicted by the parameters fitted on the other folds, from the
 * same start values.
 */
#include "calibration_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const param_names[CAL_RUN_PARAM_COUNT] = {
#define CAL_NAME(kind, name, lo, hi, sd) name,
    CAL_RUN_PARAM_LIST(CAL_NAME)
#undef CAL_NAME
};
static const double param_lower[CAL_RUN_PARAM_COUNT] = {
#define CAL_LO(kind, name, lo, hi, sd) lo,
    CAL_RUN_PARAM_LIST(CAL_LO)
#undef CAL_LO
};
static const double param_upper[CAL_RUN_PARAM_COUNT] = {
#define CAL_HI(kind, name, lo, hi, sd) hi,
    CAL_RUN_PARAM_LIST(CAL_HI)
#undef CAL_HI
};
static const double param_prior_sd[CAL_RUN_PARAM_COUNT] = {
#define CAL_SD(kind, name, lo, hi, sd) sd,
    CAL_RUN_PARAM_LIST(CAL_SD)
#undef CAL_SD
};

/* The training parameters' keys are sax_tuned_keys', which the configuration loader looks for in a run's
 * file (sax_config_t.stated_tuned) */
const char *cal_param_key(cal_param_kind_t kind)
{
    return (int)kind < SAX_TUNED_COUNT ? sax_tuned_keys[kind] : param_names[kind];
}

int cal_gpu_find(const cal_state_t *st, const char *name)
{
    for (int i = 0; i < st->n_gpus; i++)
        if (strcmp(st->gpus[i].name, name) == 0)
            return i;
    return -1;
}

static void apply_gpu(const cal_state_t *st, const double *x, sax_gpu_t *g)
{
    int gi = cal_gpu_find(st, g->name);
    if (gi < 0)
        return;
    if (st->gpus[gi].gemm_fitted) {
        g->gemm_eff_max = st->gpus[gi].gemm.eff_max;
        g->gemm_eff_half_ai = st->gpus[gi].gemm.half_ai;
        if (st->gpus[gi].gemm.eff_max_fp8 > 0.0)
            g->gemm_eff_max_fp8 = st->gpus[gi].gemm.eff_max_fp8;
    }
    if (x == NULL)
        return;
    for (int j = 0; j < st->n_params; j++) {
        if (st->params[j].gpu != gi)
            continue;
        if (st->params[j].kind == CAL_GEMM_EFF_MAX)
            g->gemm_eff_max = x[j];
        else if (st->params[j].kind == CAL_MEM_EFF)
            g->mem_eff = x[j];
        else if (st->params[j].kind == CAL_GEMM_EFF_MAX_FP8)
            g->gemm_eff_max_fp8 = x[j];
        else if (st->params[j].kind == CAL_INTERFERENCE)
            g->comm_interference = x[j];
        else if (st->params[j].kind >= CAL_ATTN_FUSED)
            g->attn_eff[st->params[j].kind - CAL_ATTN_FUSED] = x[j];
    }
}

_Static_assert(CAL_DP_OVERLAP == 0 && CAL_TP_OVERLAP == 1 && CAL_STEP_OVERHEAD == 2 && CAL_EP_OVERLAP == 3 &&
                   CAL_HYBRIDEP == SAX_TUNED_COUNT - 1,
               "the training parameters come first, in sax_tuned_keys' order");

/* The training setting of run parameter kind k < SAX_TUNED_COUNT (sax_tuned_keys[k]). */
static double *tuned_field(sax_training_t *t, int k)
{
    double *const field[SAX_TUNED_COUNT] = {&t->dp_overlap_efficiency, &t->tp_overlap, &t->step_overhead_s,
                                            &t->ep_overlap_efficiency, &t->hybridep_efficiency};
    return field[k];
}

void cal_apply(const cal_state_t *st, const double *x, sax_problem_t *p)
{
    sax_cluster_t *c = &p->cluster;
    cal_apply_network(st, c, false);
    apply_gpu(st, x, &c->gpu);
    for (int s = 0; s < c->n_sites; s++)
        apply_gpu(st, x, &c->sites[s].gpu);
    if (x == NULL)
        return;
    for (int j = 0; j < st->n_params; j++)
        if ((int)st->params[j].kind < SAX_TUNED_COUNT)
            *tuned_field(&p->training, st->params[j].kind) = x[j];
}

/* A run's time under x, the settings its file states kept against the fit (sax_tuned_keys). */
sax_status_t cal_predict(const cal_state_t *st, const double *x, const sax_config_t *cfg, const char *label,
                         double *time_s, sax_error_t *err)
{
    sax_problem_t p = cfg->problem;
    sax_training_t stated = p.training;
    cal_apply(st, x, &p);
    for (int k = 0; k < SAX_TUNED_COUNT; k++)
        if (cfg->stated_tuned >> k & 1u)
            *tuned_field(&p.training, k) = *tuned_field(&stated, k);
    sax_result_t r;
    sax_status_t s = sax_model_eval(&p, &cfg->candidate, st->scratch, &r);
    if (s != SAX_OK)
        return sax_error_set(err, s, "%s: the model cannot evaluate this configuration", label);
    if (!r.feasible)
        return sax_error_set(err, SAX_ERR_INPUT, "%s: the model finds this configuration infeasible (%s: %s)",
                             label, sax_infeasible_names[r.reason], sax_infeasible_messages[r.reason]);
    *time_s = r.iteration_time_s;
    return SAX_OK;
}

sax_status_t cal_assume_fit(const cal_state_t *st, sax_config_t *cfg, unsigned stated, cal_assumed_t *out)
{
    memset(out, 0, sizeof *out);
    sax_result_t r;
    sax_status_t s = sax_model_eval(&cfg->problem, &cfg->candidate, st->scratch, &r);
    if (s != SAX_OK || r.feasible || r.reason != SAX_INFEASIBLE_MEMORY)
        return s;
    bool found = false;
    unsigned open = ~stated & ((1u << SAX_LEVER_COUNT) - 1);
    s = sax_model_memory_assume(&cfg->problem, &cfg->candidate, open, st->scratch, &out->a, &found);
    if (s != SAX_OK || !found) {
        out->a.n = 0;
        return s;
    }
    out->default_memory_per_gpu_bytes = r.memory_per_gpu_bytes;
    sax_model_memory_assumption_apply(&out->a, &cfg->problem, &cfg->candidate);
    return SAX_OK;
}

/* A run's relative error the fit expects from the model's own inexactness, against which the priors
 * weigh: a prior residual of (x - start) / prior_sd counts as much as a run CAL_RUN_NOISE off
 * (docs/calibration.md) */
#define CAL_RUN_NOISE 0.10

double cal_soft_l1(double e, double c)
{
    /* c sqrt(2 (sqrt(1 + u^2) - 1)) with u = e/c, written without the cancellation near 0 */
    return e * sqrt(2.0 / (1.0 + sqrt(1.0 + (e / c) * (e / c))));
}

/* The runs a fit uses. */
typedef struct {
    const cal_state_t *st;
    int n;
    int *idx;
} fit_ctx_t;

static sax_status_t run_residuals(void *ctx, const double *x, double *r, sax_error_t *err)
{
    const fit_ctx_t *f = ctx;
    for (int i = 0; i < f->n; i++) {
        const cal_run_t *run = &f->st->runs[f->idx[i]];
        double t;
        sax_status_t s = cal_predict(f->st, x, &run->cfg, run->label, &t, err);
        if (s != SAX_OK)
            return s;
        r[i] = cal_soft_l1(t / run->measured_s - 1.0, CAL_RUN_SOFT_L1);
    }
    return SAX_OK;
}

static void add_param(cal_state_t *st, cal_param_kind_t kind, int gpu, double start)
{
    if (st->n_params >= SAX_LSQ_MAX_PARAMS) { /* counted, refused by cal_runs_fit */
        st->n_params++;
        return;
    }
    cal_param_t *p = &st->params[st->n_params++];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->gpu = gpu;
    if (gpu >= 0) {
        char gpu_name[SAX_NAME_LEN];
        memcpy(gpu_name, st->gpus[gpu].name, sizeof gpu_name);
        snprintf(p->name, sizeof p->name, "gpu[%s].%s", gpu_name, param_names[kind]);
    } else {
        snprintf(p->name, sizeof p->name, "%s", param_names[kind]);
    }
    p->lower = param_lower[kind];
    p->upper = param_upper[kind];
    p->prior_sd = st->opts->no_prior ? 0.0 : param_prior_sd[kind];
    p->start = fmin(fmax(start, p->lower), p->upper);
    p->value = p->start;
    p->std_error = NAN;
}

/* GPU types the runs use, added to st->gpus when new. */
static void collect_gpu(cal_state_t *st, const sax_gpu_t *g)
{
    if (cal_gpu_find(st, g->name) >= 0 || st->n_gpus >= (int)(sizeof st->gpus / sizeof st->gpus[0]))
        return;
    cal_gpu_t *cg = &st->gpus[st->n_gpus++];
    memset(cg, 0, sizeof *cg);
    snprintf(cg->name, sizeof cg->name, "%s", g->name);
    cg->gpu = *g;
}

static void setup_params(cal_state_t *st)
{
    st->n_params = 0;
    add_param(st, CAL_DP_OVERLAP, -1, st->config.problem.training.dp_overlap_efficiency);
    add_param(st, CAL_TP_OVERLAP, -1, st->config.problem.training.tp_overlap);
    add_param(st, CAL_STEP_OVERHEAD, -1, st->config.problem.training.step_overhead_s);
    /* the MoE communication parameters, when some run depends on them: Megatron-Core's EP overlap, and
     * the flex dispatcher over HybridEP */
    bool ep_overlap = false, hybridep = false;
    for (int i = 0; i < st->n_runs; i++) {
        const sax_problem_t *q = &st->runs[i].cfg.problem;
        if (q->model.experts <= 0 || st->runs[i].cfg.candidate.ep <= 1)
            continue;
        ep_overlap = ep_overlap || q->training.overlap_moe_expert_parallel_comm;
        hybridep = hybridep || (q->training.moe_token_dispatcher == SAX_MOE_DISPATCHER_FLEX &&
                                q->training.moe_flex_dispatcher_backend == SAX_FLEX_BACKEND_HYBRIDEP);
    }
    if (ep_overlap)
        add_param(st, CAL_EP_OVERLAP, -1, st->config.problem.training.ep_overlap_efficiency);
    if (hybridep)
        add_param(st, CAL_HYBRIDEP, -1, st->config.problem.training.hybridep_efficiency);
    for (int i = 0; i < st->n_runs; i++) {
        const sax_cluster_t *c = &st->runs[i].cfg.problem.cluster;
        collect_gpu(st, &c->gpu);
        for (int s = 0; s < c->n_sites; s++)
            collect_gpu(st, &c->sites[s].gpu);
    }
    for (int g = 0; g < st->n_gpus; g++) {
        bool used = false, fp8 = false;          /* by a run; by an fp8 run */
        bool attn[SAX_ATTN_BACKEND_COUNT] = {0}; /* by a run with flash attention through that kernel */
        for (int i = 0; i < st->n_runs; i++) {
            const sax_cluster_t *c = &st->runs[i].cfg.problem.cluster;
            const sax_training_t *t = &st->runs[i].cfg.problem.training;
            bool here = strcmp(c->gpu.name, st->gpus[g].name) == 0;
            for (int s = 0; s < c->n_sites && !here; s++)
                here = strcmp(c->sites[s].gpu.name, st->gpus[g].name) == 0;
            used = used || here;
            fp8 = fp8 || (here && t->precision == SAX_PRECISION_FP8);
            if (here && t->flash_attention)
                attn[t->attention_backend] = true;
        }
        if (!used)
            continue;
        if (!st->gpus[g].gemm_fitted)
            add_param(st, CAL_GEMM_EFF_MAX, g, st->gpus[g].gpu.gemm_eff_max);
        add_param(st, CAL_MEM_EFF, g, st->gpus[g].gpu.mem_eff);
        if (fp8 && !(st->gpus[g].gemm_fitted && st->gpus[g].gemm.eff_max_fp8 > 0.0)) {
            /* starts from the bf16 ceiling when none is set */
            const sax_gpu_t *gp = &st->gpus[g].gpu;
            add_param(st, CAL_GEMM_EFF_MAX_FP8, g,
                      gp->gemm_eff_max_fp8 > 0.0 ? gp->gemm_eff_max_fp8 : gp->gemm_eff_max);
        }
        /* how much hidden communication slows compute (docs/cost-model.md section 6); a parameter the
         * runs leave undetermined (nothing hidden) is reported so and not written */
        add_param(st, CAL_INTERFERENCE, g, st->gpus[g].gpu.comm_interference);
        /* the speed of each flash-attention kernel the runs use; without a measured one it starts from
         * the GEMM ceiling (and once fitted replaces the GEMM curve for attention) */
        for (int b = 0; b < SAX_ATTN_BACKEND_COUNT; b++)
            if (attn[b]) {
                const sax_gpu_t *gp = &st->gpus[g].gpu;
                add_param(st, (cal_param_kind_t)(CAL_ATTN_FUSED + b), g,
                          gp->attn_eff[b] > 0.0 ? gp->attn_eff[b] : gp->gemm_eff_max);
            }
    }
}

static sax_status_t fit_subset(cal_state_t *st, fit_ctx_t *ctx, sax_nls_result_t *res, sax_error_t *err)
{
    sax_nls_param_t p[SAX_LSQ_MAX_PARAMS];
    for (int j = 0; j < st->n_params; j++) {
        p[j].name = st->params[j].name;
        p[j].start = st->params[j].start;
        p[j].lower = st->params[j].lower;
        p[j].upper = st->params[j].upper;
        p[j].prior_weight = st->params[j].prior_sd > 0.0 ? CAL_RUN_NOISE / st->params[j].prior_sd : 0.0;
    }
    return sax_nls_fit(ctx->n, st->n_params, p, run_residuals, ctx, res, err);
}

sax_status_t cal_runs_fit(cal_state_t *st, sax_error_t *err)
{
    sax_status_t s = SAX_OK;
    int *idx = malloc((size_t)st->n_runs * sizeof *idx);
    if (idx == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory fitting runs");
    setup_params(st);
    if (st->n_params > SAX_LSQ_MAX_PARAMS) {
        int wanted = st->n_params;
        st->n_params = 0; /* nothing fitted: no parameter reaches the report */
        free(idx);
        return sax_error_set(err, SAX_ERR_INPUT,
                             "runs: %d run parameters to fit (GPU types x their efficiencies), at most %d: "
                             "calibrate fewer GPU types at a time",
                             wanted, SAX_LSQ_MAX_PARAMS);
    }
    double start[SAX_LSQ_MAX_PARAMS];
    for (int j = 0; j < st->n_params; j++)
        start[j] = st->params[j].start;

    /* Runs the model cannot run at the start values, even with their unstated settings assumed, take no
     * part (reported). */
    int usable = 0;
    sax_error_t first_unusable = {{0}};
    for (int i = 0; i < st->n_runs; i++) {
        sax_error_t why = {{0}};
        cal_run_t *run = &st->runs[i];
        if (cal_assume_fit(st, &run->cfg, run->cfg.stated_levers, &run->assumed) != SAX_OK)
            run->assumed.a.n = 0; /* cal_predict meets the same failure and says what it is */
        run->usable = cal_predict(st, start, &run->cfg, run->label, &run->start_s, &why) == SAX_OK;
        run->fitted_s = run->heldout_s = NAN;
        if (run->usable)
            idx[usable++] = i;
        else if (first_unusable.text[0] == '\0')
            first_unusable = why;
    }
    if (usable < 2) {
        s = sax_error_set(err, SAX_ERR_INPUT,
                          "%s: \"runs\": %d run(s) the model can evaluate; at least 2 are needed to fit and "
                          "cross-validate the run parameters%s%.400s",
                          st->opts->measurements_path, usable, first_unusable.text[0] ? "; " : "",
                          first_unusable.text);
        goto done;
    }
    fit_ctx_t all = {st, usable, idx};
    sax_nls_result_t res;
    s = fit_subset(st, &all, &res, err);
    if (s != SAX_OK)
        goto done;
    st->run_fitted = true;
    st->run_condition = res.condition;
    st->run_iterations = res.iterations;
    for (int j = 0; j < st->n_params; j++) {
        st->params[j].value = res.x[j];
        st->params[j].std_error = res.std_error[j];
        st->params[j].determined = res.determined[j];
        st->params[j].at_bound = res.at_bound[j];
    }
    for (int u = 0; u < usable; u++) {
        cal_run_t *run = &st->runs[idx[u]];
        s = cal_predict(st, res.x, &run->cfg, run->label, &run->fitted_s, err);
        if (s != SAX_OK)
            goto done;
    }

    /* Cross-validation over the usable runs: k folds, or one a family. */
    int *train = malloc((size_t)usable * sizeof *train), *fold = malloc((size_t)usable * sizeof *fold);
    if (train == NULL || fold == NULL) {
        free(train);
        free(fold);
        s = sax_error_set(err, SAX_ERR_NOMEM, "out of memory cross-validating runs");
        goto done;
    }
    int k = 0;
    if (st->opts->leave_family_out) {
        for (int u = 0; u < usable; u++) {
            fold[u] = k;
            for (int w = 0; w < u && fold[u] == k; w++)
                if (strcmp(cal_run_family(&st->runs[idx[w]]), cal_run_family(&st->runs[idx[u]])) == 0)
                    fold[u] = fold[w];
            k += fold[u] == k;
        }
        if (k < 2)
            s = sax_error_set(err, SAX_ERR_INPUT,
                              "%s: --leave-family-out: the runs the model can evaluate are all of family "
                              "\"%.64s\": with it held out nothing is left to fit",
                              st->opts->measurements_path, cal_run_family(&st->runs[idx[0]]));
    } else {
        k = st->opts->folds > 0 ? st->opts->folds : 5;
        if (k > usable)
            k = usable;
        for (int u = 0; u < usable; u++)
            fold[u] = u % k;
    }
    st->folds = k;
    for (int f = 0; f < k && s == SAX_OK; f++) {
        fit_ctx_t sub = {st, 0, train};
        for (int u = 0; u < usable; u++)
            if (fold[u] != f)
                train[sub.n++] = idx[u];
        sax_nls_result_t fr;
        s = fit_subset(st, &sub, &fr, err);
        for (int u = 0; u < usable && s == SAX_OK; u++) {
            if (fold[u] != f)
                continue;
            cal_run_t *run = &st->runs[idx[u]];
            s = cal_predict(st, fr.x, &run->cfg, run->label, &run->heldout_s, err);
        }
    }
    free(train);
    free(fold);
done:
    free(idx);
    return s;
}

const char *cal_run_family(const cal_run_t *r) { return r->family[0] != '\0' ? r->family : r->name; }
