/* memory.c - memory of one GPU of a pipeline stage: weights, gradients, optimizer state under
 * ZeRO 0-3, and the activations the schedule keeps in flight (docs/cost-model.md section 8).
 *
 * Mixed-precision Adam (domain.md): 2 B bf16 weights + `grad_reduce_bytes` gradients + 12 B fp32
 * master weights and two moments per parameter (8 B with bf16 moments, 4 B less without the master
 * copy: `optimizer_bytes`). ZeRO-1 (Megatron's distributed optimizer) shards that state over
 * DP x CP - the routed experts over their replicas only, TP x CP x DP / (EP x ETP), since EP and
 * the experts' TP already split them - ZeRO-2 also the gradients, ZeRO-3/FSDP also the weights, keeping two
 * gathered layers (the current one and the prefetched next). A DualPipe rank's parameters are its
 * two stages' (eval.c: twice a stage's when they are alike, DeepSeek-V3 Table 2).
 */
#include "model_internal.h"

/* Activation sets, in whole-stage units, that stage s holds at its fullest (domain.md "Workload"):
 * GPipe all m; 1F1B and ZB-H1 the p - s warm-up micro-batches; interleaved its warm-up chunks
 * (p - s - 1) * 2 + (v - 1) * p + 1 of v per stage (Narayanan et al. 2021); DualPipe p + 1. The
 * output layer's logits apart (sax_memory_stage). */
static double inflight(const sax_candidate_t *c, int s, long m)
{
    int p = c->pp, v = c->vpp;
    switch (c->schedule) {
    case SAX_SCHEDULE_GPIPE: return (double)m;
    case SAX_SCHEDULE_INTERLEAVED: {
        long k = (long)(p - s - 1) * 2 + (long)(v - 1) * p + 1;
        long total = m * v;
        return (double)(k < total ? k : total) / v;
    }
    case SAX_SCHEDULE_DUALPIPE: return (double)(p + 1);
    default: return (double)((p - s) < m ? (p - s) : m);
    }
}

void sax_memory_stage(const sax_candidate_t *c, const sax_memory_in_t *in, sax_memory_t *out)
{
    double prm = in->params, ex = in->expert_params, shared = prm - ex;
    double shard = (double)c->dp * c->cp, expert_shard = sax_candidate_expert_dp(c);
    double sharded = shared / shard + ex / expert_shard; /* parameters one GPU owns under ZeRO */
    double w = prm * SAX_ACT_BYTES, gr = prm * in->grad_bytes, op = prm * in->optimizer_bytes;
    if (c->zero >= 1)
        op = sharded * in->optimizer_bytes;
    if (c->zero >= 2)
        gr = sharded * in->grad_bytes;
    if (c->zero >= 3)
        w = sharded * SAX_ACT_BYTES + 2.0 * w / (in->layers > 0 ? in->layers : 1);
    out->weights_bytes = w;
    out->grads_bytes = gr;
    out->optimizer_bytes = op;
    /* the logits wait for the loss backward only while their micro-batch is in the stage's last chunk:
     * GPipe keeps all m; the other schedules run that chunk's backward right after its forward (1F1B and
     * ZB-H1 warm up p - s - 1 = 0 micro-batches on the last stage, Megatron's interleaving (v - 1) p
     * of the other chunks, DualPipe backs each reverse-direction micro-batch up before the next forward
     * of that chunk: its step loops 3 to 6 in dualpipe.py), so one */
    double loss_inflight = c->schedule == SAX_SCHEDULE_GPIPE ? (double)in->micro : 1.0;
    out->activations_bytes = in->act_per_micro_bytes * inflight(c, in->stage, in->micro) +
                             in->act_loss_bytes * loss_inflight + in->act_recompute_bytes;
    out->total_bytes = w + gr + op + out->activations_bytes + in->reserved_bytes;
}
