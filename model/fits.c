/* fits.c - what would make a configuration that overfills its GPUs' memory fit: each setting that
 * trades time for memory, tried alone on a copy of the configuration. Off the evaluation path. */
#include "sax_model.h"

#include <stdio.h>
#include <string.h>

/* Sets value k (0, 1, ...) of `lever` on copies of the problem and candidate, nearest the
 * configuration's own value first; false when the lever has no value k here (already as low on
 * memory as it goes, or not allowed: offloading needs PP 1 and no recomputation, as Megatron-Core). */
static bool lever_value(sax_lever_t lever, int k, const sax_problem_t *p0, const sax_candidate_t *c0,
                        sax_problem_t *p, sax_candidate_t *c, char value[16])
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
        snprintf(value, 16, "\"%s\"", sax_recompute_names[v]);
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
        if (k > 0 || *d == SAX_GRAD_DTYPE_BF16)
            return false;
        *d = SAX_GRAD_DTYPE_BF16;
        snprintf(value, 16, "\"%s\"", sax_grad_dtype_names[SAX_GRAD_DTYPE_BF16]);
        return true;
    }
    case SAX_LEVER_MASTER:
    case SAX_LEVER_DROPOUT: {
        bool *b = lever == SAX_LEVER_MASTER ? &t->master_weights : &t->dropout;
        if (k > 0 || !*b)
            return false;
        *b = false;
        snprintf(value, 16, "false");
        return true;
    }
    case SAX_LEVER_OFFLOAD:
        v = t0->offload_activation_layers + 1 + k;
        if (c0->pp != 1 || c0->recompute != SAX_RECOMPUTE_NONE || v >= p0->model.layers)
            return false;
        t->offload_activation_layers = v;
        break;
    default: return false;
    }
    snprintf(value, 16, "%d", v);
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
        char value[16];
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
