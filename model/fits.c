/* fits.c - what would make a configuration that overfills its GPUs' memory fit: each setting that
 * trades time for memory, tried alone on a copy of the configuration. Off the evaluation path. */
#include "model_internal.h"

#include <stdio.h>
#include <string.h>

/* Value k of the modules recomputed under selective recomputation: Megatron-Core's default (the
 * attention core) or the configuration's own, widened by the next k + 1 of the modules this model has,
 * in the order the norms, MLA's up-projections, the experts' activation. */
static bool more_modules(int k, const sax_problem_t *p0, const sax_candidate_t *c0, sax_candidate_t *c,
                         char value[SAX_LEVER_VALUE_LEN])
{
    static const sax_recompute_module_t order[] = {
        SAX_RECOMPUTE_MODULE_LAYERNORM, SAX_RECOMPUTE_MODULE_MLA_UP_PROJ, SAX_RECOMPUTE_MODULE_MOE_ACT};
    if (c0->recompute != SAX_RECOMPUTE_SELECTIVE || p0->training.selective_ac_option == SAX_SELECTIVE_AC_OP)
        return false;
    unsigned m = sax_recompute_modules(c0);
    int added = 0;
    for (int i = 0; i < (int)(sizeof order / sizeof order[0]) && added <= k; i++) {
        bool has = order[i] == SAX_RECOMPUTE_MODULE_LAYERNORM ||
                   (order[i] == SAX_RECOMPUTE_MODULE_MLA_UP_PROJ && p0->model.kv_lora_rank > 0) ||
                   (order[i] == SAX_RECOMPUTE_MODULE_MOE_ACT && p0->model.experts > 0);
        if (has && !(m & (1u << order[i]))) {
            m |= 1u << order[i];
            added++;
        }
    }
    if (added <= k)
        return false;
    c->recompute_modules = m;
    size_t used = (size_t)snprintf(value, SAX_LEVER_VALUE_LEN, "[");
    for (int i = 0; i < SAX_RECOMPUTE_MODULE_COUNT && used < SAX_LEVER_VALUE_LEN; i++)
        if (m & (1u << i))
            used += (size_t)snprintf(value + used, SAX_LEVER_VALUE_LEN - used, "%s\"%s\"",
                                     used > 1 ? ", " : "", sax_recompute_module_names[i]);
    if (used < SAX_LEVER_VALUE_LEN)
        snprintf(value + used, SAX_LEVER_VALUE_LEN - used, "]");
    return true;
}

/* Sets value k (0, 1, ...) of `lever` on copies of the problem and candidate, nearest the
 * configuration's own value first; false when the lever has no value k here (already as low on
 * memory as it goes, or not allowed: offloading needs PP 1 and no recomputation, as Megatron-Core). */
static bool lever_value(sax_lever_t lever, int k, const sax_problem_t *p0, const sax_candidate_t *c0,
                        sax_problem_t *p, sax_candidate_t *c, char value[SAX_LEVER_VALUE_LEN])
{
    sax_training_t *t = &p->training;
    const sax_training_t *t0 = &p0->training;
    int v = 0;
    switch (lever) {
    case SAX_LEVER_RECOMPUTE:
        v = (int)c0->recompute + 1 + k;
        if (v >= SAX_RECOMPUTE_COUNT)
            return false;
        c->recompute = (sax_recompute_t)v;
        snprintf(value, SAX_LEVER_VALUE_LEN, "\"%s\"", sax_recompute_names[v]);
        return true;
    case SAX_LEVER_MICRO_BATCH:
        v = c0->micro_batch - 1 - k;
        if (v < 1)
            return false;
        c->micro_batch = v;
        break;
    case SAX_LEVER_ZERO:
        v = c0->zero + 1 + k;
        if (v > 3)
            return false;
        c->zero = v;
        break;
    case SAX_LEVER_MOMENTS:
    case SAX_LEVER_GRADS: {
        sax_grad_dtype_t *d =
            lever == SAX_LEVER_MOMENTS ? &t->optimizer_moments_dtype : &t->grad_reduce_dtype;
        if (k > 0 || *d != SAX_GRAD_DTYPE_FP32)
            return false;
        /* 2 B: fp16 gradients in fp16 training (Megatron-LM's default there), bf16 otherwise */
        *d = lever == SAX_LEVER_GRADS && t->precision == SAX_PRECISION_FP16 ? SAX_GRAD_DTYPE_FP16
                                                                            : SAX_GRAD_DTYPE_BF16;
        snprintf(value, SAX_LEVER_VALUE_LEN, "\"%s\"", sax_grad_dtype_names[*d]);
        return true;
    }
    case SAX_LEVER_MASTER:
    case SAX_LEVER_DROPOUT: {
        bool *b = lever == SAX_LEVER_MASTER ? &t->master_weights : &t->dropout;
        if (k > 0 || !*b)
            return false;
        *b = false;
        snprintf(value, SAX_LEVER_VALUE_LEN, "false");
        return true;
    }
    case SAX_LEVER_OFFLOAD:
        v = t0->offload_activation_layers + 1 + k;
        if (c0->pp != 1 || c0->recompute != SAX_RECOMPUTE_NONE || v >= p0->model.layers)
            return false;
        t->offload_activation_layers = v;
        break;
    case SAX_LEVER_RECOMPUTE_MODULES: return more_modules(k, p0, c0, c, value);
    case SAX_LEVER_FIRST_LAYERS:
    case SAX_LEVER_LAST_LAYERS: {
        /* one or two layers fewer than the stage holds; the others split the rest evenly (or refuse) */
        bool first = lever == SAX_LEVER_FIRST_LAYERS;
        if (c0->pp < 2 || c0->pp > SAX_SIM_MAX_STAGES || c0->n_layout > 0 ||
            c0->layer_split != SAX_LAYER_SPLIT_UNIFORM || k > 1)
            return false;
        int stages[SAX_SIM_MAX_STAGES]; /* uniform: no GPU speeds needed */
        sax_layer_split_stages(p0->model.layers, c0, NULL, stages);
        v = stages[first ? 0 : c0->pp - 1] - 1 - k;
        if (v < 1)
            return false;
        *(first ? &c->first_stage_layers : &c->last_stage_layers) = v;
        break;
    }
    default: return false;
    }
    snprintf(value, SAX_LEVER_VALUE_LEN, "%d", v);
    return true;
}

sax_status_t sax_model_memory_fits(const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch,
                                   sax_memory_fit_t out[SAX_LEVER_COUNT], int *n)
{
    *n = 0;
    sax_result_t r;
    sax_status_t st = sax_model_eval(p, c, scratch, &r);
    if (st != SAX_OK || r.feasible || r.reason != SAX_INFEASIBLE_MEMORY)
        return st;
    for (int lever = 0; lever < SAX_LEVER_COUNT; lever++) {
        sax_problem_t pv; /* 5 kB */
        sax_candidate_t cv;
        char value[SAX_LEVER_VALUE_LEN];
        for (int k = 0;; k++) {
            pv = *p;
            cv = *c;
            if (!lever_value((sax_lever_t)lever, k, p, c, &pv, &cv, value))
                break;
            if ((st = sax_model_eval(&pv, &cv, scratch, &r)) != SAX_OK)
                return st;
            if (r.feasible) {
                sax_memory_fit_t *f = &out[(*n)++];
                f->lever = (sax_lever_t)lever;
                memcpy(f->value, value, sizeof f->value);
                f->memory_per_gpu_bytes = r.memory_per_gpu_bytes;
                f->iteration_time_s = r.iteration_time_s;
                break;
            } /* still too full, or refused for another reason (a micro-batch that does not divide the
                 batch): the next value */
        }
    }
    for (int i = 1; i < *n; i++) /* fastest first; insertion keeps the table's order among equals */
        for (int j = i; j > 0 && out[j].iteration_time_s < out[j - 1].iteration_time_s; j--) {
            sax_memory_fit_t x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
    return SAX_OK;
}

typedef struct {
    unsigned free;
    sax_scratch_t *scratch;
    sax_memory_assumption_t trial; /* the levers set so far */
    sax_memory_assumption_t best;
    bool found;
} assume_t;

/* Levers from `lever` on, over the configuration (p, c) that the levers before it have set, changing
 * exactly `changes` more of them; *fits: some such completion fits. One that fits is kept when it is
 * faster than the best so far. A lever goes no further than its first value with which the others
 * can make it fit (its next values hold more memory back, and cost more time). */
static sax_status_t assume_from(assume_t *a, int lever, int changes, const sax_problem_t *p,
                                const sax_candidate_t *c, bool *fits)
{
    *fits = false;
    if (lever == SAX_LEVER_COUNT) {
        sax_result_t r;
        sax_status_t st = changes == 0 ? sax_model_eval(p, c, a->scratch, &r) : SAX_OK;
        if (changes != 0 || st != SAX_OK || !r.feasible)
            return st;
        *fits = true;
        if (!a->found || r.iteration_time_s < a->best.iteration_time_s) {
            a->best = a->trial;
            a->best.memory_per_gpu_bytes = r.memory_per_gpu_bytes;
            a->best.iteration_time_s = r.iteration_time_s;
            a->found = true;
        }
        return SAX_OK;
    }
    sax_status_t st = assume_from(a, lever + 1, changes, p, c, fits); /* this lever as it is */
    if (st != SAX_OK || changes == 0 || !(a->free & (1u << lever)))
        return st;
    int slot = a->trial.n++;
    a->trial.lever[slot] = (sax_lever_t)lever;
    bool changed_fits = false;
    for (int k = 0; st == SAX_OK && !changed_fits; k++) {
        sax_problem_t pv = *p; /* 5 kB a level: at most SAX_LEVER_COUNT deep */
        sax_candidate_t cv = *c;
        a->trial.step[slot] = k;
        if (!lever_value((sax_lever_t)lever, k, p, c, &pv, &cv, a->trial.value[slot]))
            break;
        st = assume_from(a, lever + 1, changes - 1, &pv, &cv, &changed_fits);
    }
    a->trial.n--;
    *fits = *fits || changed_fits;
    return st;
}

sax_status_t sax_model_memory_assume(const sax_problem_t *p, const sax_candidate_t *c, unsigned free,
                                     sax_scratch_t *scratch, sax_memory_assumption_t *out, bool *found)
{
    *found = false;
    memset(out, 0, sizeof *out);
    sax_result_t r;
    sax_status_t st = sax_model_eval(p, c, scratch, &r);
    if (st != SAX_OK || r.feasible || r.reason != SAX_INFEASIBLE_MEMORY)
        return st;
    assume_t a = {.free = free, .scratch = scratch};
    for (int changes = 1; st == SAX_OK && !a.found && changes <= SAX_LEVER_COUNT; changes++) {
        bool fits;
        st = assume_from(&a, 0, changes, p, c, &fits);
    }
    *out = a.best;
    *found = a.found;
    return st;
}

void sax_model_memory_assumption_apply(const sax_memory_assumption_t *a, sax_problem_t *p, sax_candidate_t *c)
{
    for (int j = 0; j < a->n; j++) { /* in the search's order: each lever's values count from the last */
        sax_problem_t p0 = *p;
        sax_candidate_t c0 = *c;
        char value[SAX_LEVER_VALUE_LEN];
        lever_value(a->lever[j], a->step[j], &p0, &c0, p, c, value);
    }
}

void sax_model_memory_assumption_text(const sax_memory_assumption_t *a, bool json, char *buf, size_t n)
{
    size_t used = 0;
    if (n > 0)
        buf[0] = '\0';
    for (int j = 0; j < a->n && used < n; j++) {
        int k = snprintf(buf + used, n - used, json ? "%s\"%s\": %s" : "%s%s = %s", j ? ", " : "",
                         sax_lever_keys[a->lever[j]], a->value[j]);
        if (k < 0)
            return;
        used += (size_t)k;
    }
}
