/* unstated.c - what the software settings a configuration leaves to sax's defaults would change: each
 * other value of each, tried alone on a copy of the configuration. Off the evaluation path. */
#include "model_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Whether every site's GPU runs Transformer Engine's MXFP8 recipe (Blackwell and later). */
static bool all_mxfp8(const sax_cluster_t *cl)
{
    for (int i = 0; i < cl->n_sites; i++)
        if (!cl->sites[i].gpu.mxfp8)
            return false;
    return true;
}

/* Sets value v (an index into the setting's names, or 0/1 for a boolean) of setting s on copies of the
 * problem and candidate; false when v is the configuration's own or not open to it (the file would
 * refuse it, or it would change nothing). */
static bool software_value(sax_software_t s, int v, const sax_problem_t *p0, const sax_candidate_t *c0,
                           sax_problem_t *p, char value[SAX_LEVER_VALUE_LEN])
{
    const sax_training_t *t0 = &p0->training;
    sax_training_t *t = &p->training;
    const sax_model_desc_t *m = &p0->model;
    const char *name = NULL; /* an enum value's name; NULL for a boolean */
    bool *flag = NULL, open = true;
    int count = 2, own = 0;
/* an enum-valued setting: its field, type, names and count, and when it is open */
#define ENUM_SETTING(field, type, names, n_values, when)                                                     \
    count = (n_values);                                                                                      \
    own = (int)t0->field;                                                                                    \
    open = (when);                                                                                           \
    if (v < count) {                                                                                         \
        t->field = (type)v;                                                                                  \
        name = (names)[v];                                                                                   \
    }                                                                                                        \
    break
    switch (s) {
    case SAX_SOFTWARE_ATTENTION_BACKEND:
        ENUM_SETTING(attention_backend, sax_attn_backend_t, sax_attn_backend_names, SAX_ATTN_BACKEND_COUNT,
                     t0->flash_attention);
    case SAX_SOFTWARE_FLASH_ATTENTION: flag = &t->flash_attention; break;
    case SAX_SOFTWARE_DROPOUT: flag = &t->dropout; break;
    case SAX_SOFTWARE_TP_COMM_OVERLAP:
        flag = &t->tp_comm_overlap;
        open = c0->tp > 1 && c0->sequence_parallel;
        break;
    case SAX_SOFTWARE_CE_FUSION: flag = &t->cross_entropy_loss_fusion; break;
    case SAX_SOFTWARE_FSDP: ENUM_SETTING(fsdp, sax_fsdp_t, sax_fsdp_names, SAX_FSDP_COUNT, c0->zero == 3);
    case SAX_SOFTWARE_FP8_RECIPE:
        ENUM_SETTING(fp8_recipe, sax_fp8_recipe_t, sax_fp8_recipe_names, SAX_FP8_RECIPE_COUNT,
                     t0->precision == SAX_PRECISION_FP8 &&
                         (v != SAX_FP8_RECIPE_MXFP8 || all_mxfp8(&p0->cluster)));
    case SAX_SOFTWARE_ELEMENTWISE:
        ENUM_SETTING(elementwise_kernels, sax_elementwise_t, sax_elementwise_names, SAX_ELEMENTWISE_COUNT,
                     sax_eager_priced(m));
    case SAX_SOFTWARE_TP_IMPL:
        ENUM_SETTING(tp_implementation, sax_tp_impl_t, sax_tp_impl_names, SAX_TP_IMPL_COUNT,
                     c0->tp > 1 && (c0->sequence_parallel || t0->async_tensor_model_parallel_allreduce));
    case SAX_SOFTWARE_SELECTIVE_AC:
        ENUM_SETTING(selective_ac_option, sax_selective_ac_t, sax_selective_ac_names, SAX_SELECTIVE_AC_COUNT,
                     sax_op_sac_priced(m) && c0->recompute == SAX_RECOMPUTE_SELECTIVE &&
                         c0->recompute_modules == 0);
    case SAX_SOFTWARE_CP_COMM:
        ENUM_SETTING(cp_comm_type, sax_cp_comm_t, sax_cp_comm_names, SAX_CP_COMM_COUNT, c0->cp > 1);
    case SAX_SOFTWARE_CP_IMPL:
        ENUM_SETTING(cp_implementation, sax_cp_impl_t, sax_cp_impl_names, SAX_CP_IMPL_COUNT, c0->cp > 1);
    case SAX_SOFTWARE_DISPATCHER:
        ENUM_SETTING(moe_token_dispatcher, sax_moe_dispatcher_t, sax_moe_dispatcher_names,
                     SAX_MOE_DISPATCHER_COUNT, m->experts > 0);
    case SAX_SOFTWARE_ASYNC_TP_ALLREDUCE: /* Megatron-LM before 2021-09 and its DeepSpeed forks */
        flag = &t->async_tensor_model_parallel_allreduce;
        open = c0->tp > 1 && !c0->sequence_parallel && t0->tp_implementation == SAX_TP_IMPL_MEGATRON;
        break;
    case SAX_SOFTWARE_BIAS_DROPOUT_FUSION:
        flag = &t->bias_dropout_fusion;
        open = t0->dropout;
        break;
    default: return false;
    }
#undef ENUM_SETTING
    if (flag != NULL) {
        own = *flag ? 1 : 0;
        if (v < count)
            *flag = v != 0;
    }
    if (!open || v >= count || v == own)
        return false;
    if (name != NULL)
        snprintf(value, SAX_LEVER_VALUE_LEN, "\"%s\"", name);
    else
        snprintf(value, SAX_LEVER_VALUE_LEN, "%s", v != 0 ? "true" : "false");
    return true;
}

sax_status_t sax_model_unstated(const sax_problem_t *p, const sax_candidate_t *c, unsigned stated,
                                sax_scratch_t *scratch, sax_unstated_t out[SAX_UNSTATED_MAX], int *n)
{
    *n = 0;
    sax_result_t r;
    sax_status_t st = sax_model_eval(p, c, scratch, &r);
    if (st != SAX_OK || !r.feasible)
        return st;
    const double own = r.iteration_time_s;
    for (int s = 0; s < SAX_SOFTWARE_COUNT; s++) {
        if (stated & (1u << s))
            continue;
        for (int v = 0; v < 8 && *n < SAX_UNSTATED_MAX; v++) { /* no setting has more than 8 values */
            sax_problem_t pv = *p;                             /* 5 kB */
            char value[SAX_LEVER_VALUE_LEN];
            if (!software_value((sax_software_t)s, v, p, c, &pv, value))
                continue;
            if ((st = sax_model_eval(&pv, c, scratch, &r)) != SAX_OK)
                return st;
            sax_unstated_t *u = &out[(*n)++];
            u->setting = (sax_software_t)s;
            memcpy(u->value, value, sizeof u->value);
            u->feasible = r.feasible;
            u->reason = r.reason;
            u->iteration_time_s = r.feasible ? r.iteration_time_s : 0.0;
            u->change = r.feasible ? r.iteration_time_s / own - 1.0 : 0.0;
        }
    }
    /* the feasible ones farthest from the configuration's own time first, then the others; insertion
     * keeps the table's order among equals */
    for (int i = 1; i < *n; i++)
        for (int j = i; j > 0; j--) {
            const sax_unstated_t *a = &out[j - 1], *b = &out[j];
            bool before = b->feasible && (!a->feasible || fabs(b->change) > fabs(a->change));
            if (!before)
                break;
            sax_unstated_t x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
    return SAX_OK;
}
