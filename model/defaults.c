/* defaults.c - values of model parameters that a configuration may leave out.
 *
 * These are properties of the software stack and hardware generation rather than user choices;
 * `sax calibrate` fits them to a user's measurements. The generic values below are used for GPUs
 * without a built-in preset; the presets in io/config/presets.c carry per-GPU fitted values
 * (docs/cost-model.md, "Parameters and where they come from").
 */
#include "sax_model.h"

#include <string.h>

void sax_gpu_set_defaults(sax_gpu_t *gpu)
{
    gpu->gemm_eff_max = 0.80;
    gpu->gemm_eff_half_ai = 100.0;
    gpu->mem_eff = 0.70;
    gpu->reserved_bytes = 3.0 * 1024 * 1024 * 1024;
    /* Sinha et al., SC22 (arXiv 2208.11035): GPUs of one SKU in one cluster differ in sustained speed by
     * 8 % on average (max 22 %), power management and manufacturing; read as the spread of a cluster's
     * thousands of GPUs, about 8 standard deviations, 1 % (docs/cost-model.md section 2) */
    gpu->speed_cv = 0.01;
    /* fitted jointly with the other efficiencies to the published runs it goes to 0 (docs/cost-model.md
     * section 2): those runs' layers are long enough for a few microseconds a kernel not to show */
    gpu->kernel_overhead_s = 0.0;
    /* arXiv 2507.03114 measured computation overlapped with communication 18.9 % slower on average (max
     * 40 %) than alone, on 4 A100, H100, MI250 and MI210; fitted with the other efficiencies to the
     * published runs it stays at 0 (from 0.189 it ends at 0.04 and the held-out error grows), so it is
     * off unless measured or calibrated (docs/cost-model.md section 6) */
    gpu->comm_interference = 0.0;
    /* no measured attention kernel: attention runs at the GEMM curve's efficiency (docs/cost-model.md
     * section 2); the H100 and H200 presets carry measured ones, B200 and GB200 the same as an assumption */
    for (int i = 0; i < SAX_ATTN_BACKEND_COUNT; i++)
        gpu->attn_eff[i] = 0.0;
}

void sax_training_set_defaults(sax_training_t *t)
{
    t->precision = SAX_PRECISION_BF16;
    /* fitted with the GPU presets' efficiencies to the published runs (docs/cost-model.md) */
    t->dp_overlap_efficiency = 0.90;
    t->tp_overlap = 1.0;
    t->tp_comm_overlap = false; /* Megatron-LM's default; NVIDIA's performance recipes turn it on */
    t->tp_implementation = SAX_TP_IMPL_MEGATRON;
    t->cp_implementation = SAX_CP_IMPL_MEGATRON;
    /* what NCCL gives a ring; DeepSpeed 0.3's ZeRO-3 reached about 0.12 of it (docs/cost-model.md) */
    t->zero3_comm_efficiency = 1.0;
    t->cp_comm_type = SAX_CP_COMM_P2P;                        /* Megatron-LM's --cp-comm-type default */
    t->overlap_moe_expert_parallel_comm = false;              /* Megatron-LM's default */
    t->moe_flex_dispatcher_backend = SAX_FLEX_BACKEND_DEEPEP; /* Megatron-LM's default */
    /* Megatron-Bridge's nsys profile of Qwen3 30B-A3B on 16 H100 (EP 16, HybridEP, no overlap): its
     * communication kernels ran 10.83 s a step, of which about 0.12 s the data-parallel gradients', where
     * sax's all-to-alls take 4.63 s (docs/cost-model.md section 5.7) */
    t->hybridep_efficiency = 0.43;
    /* Megatron-Bridge's measured pair on Qwen3 30B-A3B, 16 H100, EP 16, HybridEP: the overlap took the step
     * from 24.714 to 20.992 s (x 0.8494); sax's perfect pairing takes that shape's 25.16 s to 15.69 s,
     * and 0.40 of it gives the measured ratio (docs/cost-model.md section 6) */
    t->ep_overlap_efficiency = 0.40;
    t->fsdp = SAX_FSDP_FSDP2;                            /* what Megatron-LM's --use-torch-fsdp2 runs */
    t->fp8_recipe = SAX_FP8_RECIPE_DELAYED;              /* Megatron-LM's default */
    t->cross_entropy_loss_fusion = false;                /* Megatron-LM's default */
    t->cross_entropy_fusion_impl = SAX_CE_FUSION_NATIVE; /* Megatron-LM's default */
    /* the host's synchronisation at every step (Megatron-LM's gradient norm read back with .item() for
     * clipping, megatron/core/optimizer/clip_grads.py) and the relaunch after it: fitted by mean |error|
     * to the published runs, 0.04-0.07 s by where the fit starts; the low end (docs/cost-model.md
     * section 2) */
    t->step_overhead_s = 0.04;
    t->flash_attention = true;
    t->fp8_dot_product_attention = false; /* Megatron-LM's default; Transformer Engine's FP8 recipe
                                             covers its linear layers */
    /* no dropout, as Megatron-LM's own example scripts for Llama 3, Mixtral and DeepSeek-V3 and NeMo's
     * configurations of Llama, Nemotron, Mixtral and GPT-3 175B pass it; Megatron-LM's built-in default
     * (--hidden-dropout, --attention-dropout 0.1) is what GPT-3-era runs kept: their configurations say
     * training.dropout true */
    t->dropout = false;
    /* Megatron-LM's defaults: bias_dropout_add_fused_train since 2021-01-06 (commit 9acc895632), the
     * asynchronous input-gradient all-reduce since 2021-09-02 (3f65246911), always in Megatron-Core */
    t->bias_dropout_fusion = true;
    t->async_tensor_model_parallel_allreduce = true;
    t->ddp_bucket_size = 0; /* Megatron-Core's default, max(4e7, 1e6 dp) */
    t->offload_activation_layers = 0;
    /* Megatron-LM keeps main gradients and reduces them in fp32 for bf16 and fp8 training unless
     * --no-gradient-accumulation-fusion / --grad-reduce-in-bf16 say otherwise (its memory estimator
     * counts 6 + 12/d bytes per parameter with the distributed optimizer: 2 + 4 + 12/d) */
    t->grad_reduce_dtype = SAX_GRAD_DTYPE_FP32;
    t->optimizer_moments_dtype = SAX_GRAD_DTYPE_FP32;
    t->master_weights = true;
    t->moe_token_dispatcher = SAX_MOE_DISPATCHER_ALLTOALL;
    t->attention_backend = SAX_ATTN_FUSED; /* Megatron-LM with Transformer Engine on Hopper and later */
}

double sax_grad_bytes(const sax_training_t *t)
{
    return t->grad_reduce_dtype == SAX_GRAD_DTYPE_FP32 ? 4.0 : 2.0; /* bf16 and fp16: 2 B */
}

double sax_optimizer_bytes(const sax_training_t *t)
{
    return (t->master_weights ? 4.0 : 0.0) +
           2.0 * (t->optimizer_moments_dtype == SAX_GRAD_DTYPE_FP32 ? 4.0 : 2.0);
}

void sax_cluster_set_defaults(sax_cluster_t *c)
{
    c->scale_up.efficiency = 0.80;
    for (int i = 0; i < SAX_MAX_TIERS; i++) {
        c->tiers[i].efficiency = 0.90;
        c->tiers[i].oversubscription = 1.0;
    }
    for (int i = 0; i < SAX_MAX_LINKS; i++) {
        sax_site_link_t *l = &c->links[i];
        l->loss = 0.0;
        l->mtu_bytes = 4096.0;
        l->mss_bytes = 1460.0;
        l->tcp_delayed_ack = true;
        l->window_bytes = 16.0 * 1024 * 1024;
        l->pfc_headroom_bytes = 2.0 * 1024 * 1024;
        l->uplink_oversubscription = 1.0;
    }
}
