/* config_tables.c - one table per configuration section: every key, its type, unit kind, range,
 * default and where it lands in model/sax_model.h's structs. Parsing, validation, the effective
 * JSON, --help and docs/config.md are all driven from here (fields.c). Key names follow
 * ../shared/design/contract.md exactly; keys beyond it are optional with documented defaults. */
#include "config_internal.h"

#include <math.h>

_Static_assert(sizeof(sax_ffn_act_t) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(sax_schedule_t) == sizeof(int), "enums are stored as int");

#define INF INFINITY
#define AT(T, m) .offset = offsetof(T, m), .size = sizeof(((T *)0)->m)
#define INT_F(T, m, k, lo, nd, d, h)                                                                         \
    {                                                                                                        \
        .key = k, .type = CF_INT, .min = lo, .max = INF, .need = nd, .def = d, AT(T, m), .help = h           \
    }
#define QTY_F(T, m, k, u, lo, lo_open, hi, hi_open, nd, d, h)                                                \
    {                                                                                                        \
        .key = k, .type = CF_QUANTITY, .unit = u, .min = lo, .min_open = lo_open, .max = hi,                 \
        .max_open = hi_open, .need = nd, .def = d, AT(T, m), .help = h                                       \
    }
#define ENUM_F(T, m, k, nm, count, nd, d, h)                                                                 \
    {                                                                                                        \
        .key = k, .type = CF_ENUM, .names = nm, .n_names = count, .need = nd, .def = d, AT(T, m), .help = h  \
    }
#define BOOL_F(T, m, k, d, h)                                                                                \
    {                                                                                                        \
        .key = k, .type = CF_BOOL, .need = CF_DEFAULT, .def = d, AT(T, m), .help = h                         \
    }
#define STR_F(T, m, k, nd, dtext, h)                                                                         \
    {                                                                                                        \
        .key = k, .type = CF_STRING, .need = nd, .def_text = dtext, AT(T, m), .help = h                      \
    }
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- model ------------------------------------------------------------------------------------- */

static const cf_field_t model_fields[] = {
    STR_F(sax_model_desc_t, name, "name", CF_DEFAULT, "`\"custom\"` (the preset's name)",
          "label used in reports"),
    INT_F(sax_model_desc_t, layers, "layers", 1, CF_REQUIRED, 0, "transformer layers"),
    INT_F(sax_model_desc_t, hidden, "hidden", 1, CF_REQUIRED, 0, "hidden size h (a multiple of heads)"),
    INT_F(sax_model_desc_t, ffn_hidden, "ffn_hidden", 0, CF_REQUIRED, 0,
          "FFN width of the dense layers (0 only when every layer is MoE)"),
    INT_F(sax_model_desc_t, heads, "heads", 1, CF_REQUIRED, 0, "attention (query) heads"),
    {.key = "kv_heads",
     .type = CF_INT,
     .min = 1,
     .max = INF,
     .need = CF_DERIVED,
     .def_text = "`heads`",
     AT(sax_model_desc_t, kv_heads),
     .help = "key/value heads; fewer than `heads` is grouped-query attention"},
    INT_F(sax_model_desc_t, vocab, "vocab", 1, CF_REQUIRED, 0, "vocabulary size"),
    INT_F(sax_model_desc_t, seq_len, "seq_len", 1, CF_REQUIRED, 0, "training sequence length in tokens"),
    ENUM_F(sax_model_desc_t, ffn_act, "ffn_act", sax_ffn_act_names, SAX_FFN_ACT_COUNT, CF_REQUIRED, 0,
           "`gelu`, `relu` (OPT), `squared_relu` (Nemotron-4, Megatron-LM's --squared-relu): two FFN "
           "matrices; the gated `swiglu` and `geglu` (Megatron-LM's --swiglu, --quick-geglu): three"),
    INT_F(sax_model_desc_t, experts, "experts", 0, CF_DEFAULT, 0,
          "routed experts per MoE layer (0: dense model)"),
    INT_F(sax_model_desc_t, top_k, "top_k", 0, CF_DEFAULT, 0, "routed experts active per token"),
    INT_F(sax_model_desc_t, expert_ffn_hidden, "expert_ffn_hidden", 0, CF_DEFAULT, 0,
          "FFN width of one expert (routed and shared)"),
    INT_F(sax_model_desc_t, shared_experts, "shared_experts", 0, CF_DEFAULT, 0,
          "always-active experts per MoE layer"),
    INT_F(sax_model_desc_t, dense_layers, "dense_layers", 0, CF_DEFAULT, 0,
          "the first `dense_layers` layers are dense (FFN width `ffn_hidden`), the rest MoE"),
    BOOL_F(sax_model_desc_t, tied_embeddings, "tied_embeddings", 0,
           "the output layer shares the input embedding matrix"),
    {.key = "head_dim",
     .type = CF_INT,
     .min = 0,
     .max = INF,
     .need = CF_DEFAULT,
     .def = 0,
     .def_text = "`0` (= hidden / heads)",
     AT(sax_model_desc_t, head_dim),
     .help = "width of one attention head (query/key without the rotary part, and value); 0: hidden / heads"},
    INT_F(sax_model_desc_t, rope_head_dim, "rope_head_dim", 0, CF_DEFAULT, 0,
          "MLA only: width of the decoupled rotary query/key part of each head"),
    INT_F(sax_model_desc_t, q_lora_rank, "q_lora_rank", 0, CF_DEFAULT, 0,
          "MLA only: rank of the query compression (0: full-rank queries)"),
    INT_F(sax_model_desc_t, kv_lora_rank, "kv_lora_rank", 0, CF_DEFAULT, 0,
          "multi-head latent attention (DeepSeek-V2/V3) when > 0: rank of the joint key/value compression"),
    INT_F(sax_model_desc_t, moe_router_num_groups, "moe_router_num_groups", 0, CF_DEFAULT, 0,
          "group-limited routing (Megatron-LM's --moe-router-num-groups; Hugging Face's n_group): the routed "
          "experts form this many equal groups of consecutive experts, and each token's `top_k` experts come "
          "from `moe_router_group_topk` of them; 0: no limit. DeepSeek-V3 routes over 8 groups, at most 4 a "
          "token, so that the flex dispatcher sends a token to at most 4 nodes (docs/cost-model.md section "
          "5.7)"),
    INT_F(sax_model_desc_t, moe_router_group_topk, "moe_router_group_topk", 0, CF_DEFAULT, 0,
          "groups a token's experts may come from (Megatron-LM's --moe-router-group-topk; Hugging Face's "
          "topk_group); 0 exactly when `moe_router_num_groups` is 0"),
    INT_F(
        sax_model_desc_t, mtp_num_layers, "mtp_num_layers", 0, CF_DEFAULT, 0,
        "multi-token prediction depths (Megatron-LM's --mtp-num-layers; Hugging Face's "
        "num_nextn_predict_layers; DeepSeek-V3 trained with 1): each a transformer layer like the last one, "
        "with its two input norms, its 2h x h projection, a final norm, and the output layer and loss again, "
        "on the last pipeline stage (its last chunk), which also holds a copy of the embedding unless the "
        "embeddings are tied or DualPipe puts the first stage on the same GPUs; 0: none (docs/cost-model.md "
        "section 1)"),
};
const cf_section_t cf_model_section = {
    "model", "The workload: a decoder-only transformer, dense or mixture-of-experts.", model_fields,
    COUNT(model_fields)};

/* ---- training ---------------------------------------------------------------------------------- */

static const cf_field_t training_fields[] = {
    {.key = "global_batch",
     .type = CF_INT64,
     .min = 1,
     .max = INF,
     .need = CF_REQUIRED,
     AT(sax_training_t, global_batch),
     .help = "sequences per iteration"},
    ENUM_F(sax_training_t, precision, "precision", sax_precision_names, SAX_PRECISION_COUNT, CF_DEFAULT,
           SAX_PRECISION_BF16,
           "precision of the GEMMs (peak FLOP/s used for time and MFU); `fp16` (Megatron-LM's --fp16) runs "
           "at bf16's peak and adds dynamic loss scaling's pass over the fp32 gradients at the step"),
    QTY_F(sax_training_t, dp_overlap_efficiency, "dp_overlap_efficiency", SAX_UNIT_NONE, 0, false, 1, false,
          CF_MODEL, 0, "fraction of the backward pass usable to hide data-parallel gradient traffic"),
    BOOL_F(
        sax_training_t, tp_comm_overlap, "tp_comm_overlap", 0,
        "Megatron-LM's --tp-comm-overlap (Transformer Engine's userbuffers, with sequence parallelism): "
        "TP's all-gathers and reduce-scatters run in pieces inside the GEMMs beside them (`tp_overlap` of "
        "each hidden, as far as its GEMM lasts); false, Megatron-LM's default: the forward's collectives wait, and of the backward's "
        "only the column-parallel layers' gather and scatter hide behind their GEMMs"),
    QTY_F(
        sax_training_t, tp_overlap, "tp_overlap", SAX_UNIT_NONE, 0, false, 1, false, CF_MODEL, 0,
        "with `tp_comm_overlap`, the fraction of each TP collective hidden inside the GEMM beside it, as far as that "
        "GEMM lasts (docs/cost-model.md section 6)"),
    QTY_F(sax_training_t, step_overhead_s, "step_overhead", SAX_UNIT_TIME, 0, false, INF, false, CF_MODEL, 0,
          "what each iteration costs beyond its micro-batches and the optimizer's pass over HBM: the host "
          "synchronising with the GPUs at the step (the gradient norm read back for clipping) and the "
          "relaunch of the next step's kernels after it (docs/cost-model.md section 2)"),
    ENUM_F(sax_training_t, cp_comm_type, "cp_comm_type", sax_cp_comm_names, SAX_CP_COMM_COUNT, CF_MODEL, 0,
           "how context parallelism exchanges K and V (Megatron-Core's cp_comm_type, Megatron-LM's "
           "--cp-comm-type): `p2p`, a ring of sends that runs behind attention's chunks; `all_gather`, one "
           "all-gather of K and V before attention (and a gather and a reduce-scatter in the backward) "
           "that the attention waits for (docs/cost-model.md section 6)"),
    ENUM_F(
        sax_training_t, fsdp, "fsdp", sax_fsdp_names, SAX_FSDP_COUNT, CF_MODEL, 0,
        "which FSDP runs ZeRO-3 (`parallelism.zero` 3): `fsdp2`, PyTorch's fully_shard (Megatron-LM's "
        "--use-torch-fsdp2, NeMo AutoModel), copies each gathered weight out of the gather's buffer and each "
        "micro-batch's weight gradient into the reduce-scatter's buffer in the reduction's dtype; `fsdp1`, "
        "PyTorch's FullyShardedDataParallel (Composer, llm-foundry), gathers in place but casts the gradient "
        "and divides it in place; `megatron`, Megatron-FSDP (Megatron-LM's --use-megatron-fsdp, "
        "Megatron-Bridge), gathers in place and accumulates the gradient in the reduce-scatter's bucket, "
        "scaling it there only in bf16 (docs/cost-model.md section 6)"),
    ENUM_F(
        sax_training_t, selective_ac_option, "selective_ac_option", sax_selective_ac_names,
        SAX_SELECTIVE_AC_COUNT, CF_DEFAULT, SAX_SELECTIVE_AC_MODULES,
        "with `parallelism.recompute` `selective`, what runs again in the backward: `modules`, the modules "
        "`parallelism.recompute_modules` names (Megatron-Core's --recompute-modules); `op`, torchtitan's "
        "per-op policy (its activation_checkpoint.selective_ac_option \"op\"): each block keeps the outputs "
        "of its matrix multiplies but every second one (wk, wo and w3 of a SwiGLU block), of attention "
        "and of TP's reduce-scatters, and recomputes the rest; Float8 GEMMs as BF16 ones, as torchtitan's "
        "compiled Float8 runs hold (dense models without MLA; docs/cost-model.md section 8)"),
    ENUM_F(sax_training_t, elementwise_kernels, "elementwise_kernels", sax_elementwise_names,
           SAX_ELEMENTWISE_COUNT, CF_DEFAULT, SAX_ELEMENTWISE_FUSED,
           "how a layer's memory-bound steps run: `fused`, one kernel each (Transformer Engine's or Apex's "
           "norms, rotary embedding and activation, as Megatron-LM runs them, or torch.compile's); `eager`, "
           "PyTorch op by op as torchtitan's Llama block runs without its training.compile: each RMSNorm in "
           "fp32 in eight kernels, the rotary embedding through fp32 complex numbers, the grouped K and V "
           "copied out to every query head, SwiGLU in two kernels (dense SwiGLU models without MLA; "
           "docs/cost-model.md section 2)"),
    ENUM_F(
        sax_training_t, tp_implementation, "tp_implementation", sax_tp_impl_names, SAX_TP_IMPL_COUNT,
        CF_DEFAULT, SAX_TP_IMPL_MEGATRON,
        "whose layers issue TP's collectives under sequence parallelism: `megatron`, Megatron-Core's and "
        "Transformer Engine's (the backward's input gathers and gradient reduce-scatters of QKV and FC1 "
        "run behind their GEMMs; `tp_comm_overlap` is Transformer Engine's userbuffers); `dtensor`, "
        "PyTorch DTensor's ColwiseParallel and RowwiseParallel as torchtitan applies them, compiled: every "
        "gather and reduce-scatter waits, `tp_comm_overlap` is torch's async TP (its micro-pipeline pass "
        "fuses the gathers and the reduce-scatters of one matrix multiply's output, not the backward's "
        "reduce-scatter of the QKV and FC1 input gradients, a sum of matrix multiplies), and the Float8 "
        "tensorwise recipe gathers in FP8 (torchao's Float8ColwiseParallel; docs/cost-model.md section 6); "
        "without sequence parallelism Megatron's backward all-reduces run behind the weight gradients "
        "(`async_tensor_model_parallel_allreduce`), DTensor's wait; `dtensor` also prices torchtitan's "
        "query, key and value projections and SwiGLU gate and up projections as the separate GEMMs they "
        "are (wq, wk, wv; w1, w3), where Megatron-LM fuses each set (docs/cost-model.md section 2)"),
    ENUM_F(
        sax_training_t, cp_implementation, "cp_implementation", sax_cp_impl_names, SAX_CP_IMPL_COUNT,
        CF_DEFAULT, SAX_CP_IMPL_MEGATRON,
        "whose context parallelism runs attention over the CP ranks' shards: `megatron`, Transformer "
        "Engine's as Megatron-Core calls it; `pytorch`, PyTorch's context_parallel ring attention as "
        "torchtitan applies it: K and V repeated to every query head (torchtitan's Llama repeats them "
        "before attention), exchanged as `cp_comm_type` says (torchtitan's context_parallel_rotate_method: "
        "`all_gather` gathers them once behind the first step, `p2p` passes them step by step), each "
        "step's output merged into an fp32 copy, the K and V gradients passed round the ring in fp32, "
        "each pass waiting only on the step before (docs/cost-model.md section 6)"),
    BOOL_F(
        sax_training_t, cross_entropy_loss_fusion, "cross_entropy_loss_fusion", 0,
        "Megatron-LM's --cross-entropy-loss-fusion: the loss over the logits in fused kernels (28 B a logit "
        "with `native`, 22 with `te`) instead of fp32 steps (52 B); Megatron-Bridge's and NeMo 2's model "
        "configurations turn it on (docs/cost-model.md section 2)"),
    ENUM_F(sax_training_t, cross_entropy_fusion_impl, "cross_entropy_fusion_impl", sax_ce_fusion_names,
           SAX_CE_FUSION_COUNT, CF_MODEL, 0,
           "with `cross_entropy_loss_fusion`, Megatron-LM's --cross-entropy-fusion-impl: `native`, "
           "Megatron-Core's jit-fused steps; `te`, Transformer Engine's Triton kernels (Megatron-Bridge's "
           "performance scripts; Megatron-LM's own arguments refuse it since June 2026)"),
    QTY_F(
        sax_training_t, zero3_comm_efficiency, "zero3_comm_efficiency", SAX_UNIT_NONE, 0, true, 1, false,
        CF_MODEL, 0,
        "fraction of the collectives' bandwidth the per-layer weight gathers and gradient scatters of ZeRO-3/FSDP "
        "reach in the implementation (docs/cost-model.md: fitted to DeepSpeed's 2021 runs)"),
    BOOL_F(sax_training_t, flash_attention, "flash_attention", 1,
           "fused (flash) attention: no score matrix in memory, the causal half skipped; false models "
           "Megatron 2021's unfused softmax"),
    ENUM_F(
        sax_training_t, fp8_recipe, "fp8_recipe", sax_fp8_recipe_names, SAX_FP8_RECIPE_COUNT, CF_MODEL, 0,
        "with `precision` fp8, how the GEMM operands are scaled (Megatron-LM's --fp8-recipe): `delayed`, per "
        "tensor from an amax history, the norms and activation functions writing fp8 themselves; "
        "`tensorwise` (current scaling), per tensor from its own amax, one more read of every cast tensor "
        "and the norms' and activations' casts apart; `mxfp8` (Blackwell), per block of 32 elements, the "
        "norms' casts apart; `blockwise` (DeepSeek-V3's recipe: 1 x 128 tiles of the activations and "
        "gradients, 128 x 128 blocks of the weights, Transformer Engine's Float8BlockScaling), the norms' "
        "and activations' casts apart (docs/cost-model.md section 2)"),
    BOOL_F(
        sax_training_t, fp8_dot_product_attention, "fp8_dot_product_attention", 0,
        "with `precision` fp8, run the attention core (scores and values) in fp8 as well (Megatron-LM's "
        "--fp8-dot-product-attention); false: only the linear layers of the transformer layers run in fp8, "
        "the attention core, the router and the output layer in bf16, as Megatron-LM does by default"),
    BOOL_F(
        sax_training_t, dropout, "dropout", 0,
        "hidden and attention dropout of 0.1 (Megatron-LM's built-in default, which GPT-3-era runs such as "
        "Megatron-LM 2021 and BLOOM kept): a 1 B mask an element kept for the backward; false, the default: "
        "none, as Llama, Qwen, DeepSeek, Mixtral, Nemotron and MPT train (the job passes "
        "--attention-dropout 0.0 --hidden-dropout 0.0)"),
    BOOL_F(sax_training_t, bias_dropout_fusion, "bias_dropout_fusion", 1,
           "with `dropout`, the bias, the dropout and the residual add run as one kernel (Megatron-LM's "
           "bias_dropout_add_fused_train, its default since January 2021, and Megatron-Core's): 7 bytes an "
           "element of each of the two sites where apart they are 11; false: Megatron-LM's "
           "--no-bias-dropout-fusion"),
    BOOL_F(sax_training_t, async_tensor_model_parallel_allreduce, "async_tensor_model_parallel_allreduce", 1,
           "TP without sequence parallelism (Megatron's layers): the backward's all-reduce of the QKV and "
           "FC1 input gradients starts before their weight-gradient GEMMs and is waited for after them "
           "(Megatron-LM's default since September 2021, Megatron-Core's allreduce_dgrad); false: it waits, "
           "as in Megatron-LM before then (--no-async-tensor-model-parallel-allreduce) and in the DeepSpeed "
           "forks MT-NLG and BLOOM trained with"),
    {.key = "ddp_bucket_size",
     .type = CF_INT64,
     .min = 0,
     .max = INF,
     .need = CF_DEFAULT,
     .def = 0,
     AT(sax_training_t, ddp_bucket_size),
     .help = "parameters a gradient bucket holds (Megatron-LM's --ddp-bucket-size): with the overlapped DP "
             "reduction each bucket's reduce-scatter (all-reduce with `zero` 0) starts once the backward has "
             "filled it, and the next forward waits for a bucket's gather; the last, the embedding's, waits "
             "for the end of the backward. Only the first stage's first chunk is split; 0: Megatron-Core's "
             "default max(4e7, 1e6 dp) (docs/cost-model.md section 6)"},
    INT_F(sax_training_t, offload_activation_layers, "offload_activation_layers", 0, CF_DEFAULT, 0,
          "layers (fewer than `model.layers`) whose activations move to CPU memory after their forward "
          "(Megatron-Core's --cpu-offloading-num-layers): they leave the GPU's memory, the copies are not "
          "priced; Megatron offloads only with PP 1 and no recomputation, other candidates keep them"),
    ENUM_F(
        sax_training_t, grad_reduce_dtype, "grad_reduce_dtype", sax_grad_dtype_names, SAX_GRAD_DTYPE_COUNT,
        CF_MODEL, 0,
        "what data-parallel gradient reductions carry and main gradients are kept in: `fp32` (Megatron-LM's "
        "default for bf16 and fp8 training), `bf16` (its --grad-reduce-in-bf16) or `fp16` (its default under "
        "--fp16, DeepSpeed's and FairScale's in fp16 training; the default when `precision` is `fp16`)"),
    ENUM_F(sax_training_t, optimizer_moments_dtype, "optimizer_moments_dtype", sax_grad_dtype_names,
           SAX_GRAD_DTYPE_COUNT, CF_MODEL, 0,
           "what Adam's two moments are kept in: `fp32` (12 B of optimizer state a parameter with the fp32 "
           "master weight), `bf16` (8 B: Megatron-LM's --exp-avg-dtype and --exp-avg-sq-dtype bf16, "
           "DeepSeek-V3's low-precision optimizer states) or `fp16` (8 B, the same flags)"),
    BOOL_F(
        sax_training_t, master_weights, "master_weights", 1,
        "the optimizer keeps an fp32 master copy of the weights (4 B a parameter; mixed-precision training); "
        "false: it updates the bf16 weights themselves (PyTorch's Adam on a bf16 model, NeMo AutoModel's "
        "default torch_dtype)"),
    ENUM_F(sax_training_t, moe_token_dispatcher, "moe_token_dispatcher", sax_moe_dispatcher_names,
           SAX_MOE_DISPATCHER_COUNT, CF_MODEL, 0,
           "how MoE tokens reach their experts (Megatron-Core's --moe-token-dispatcher-type): `alltoall`, an "
           "all-to-all that carries one copy of a token per routed expert, with the tokens permuted into "
           "expert order before it and sorted by local expert after it (and back); `flex` (whose default "
           "backend is DeepEP, as NeMo AutoModel runs its MoE models), one copy per destination GPU inside a "
           "scale-up domain and one per other domain across it, permuted once after it (docs/cost-model.md "
           "section 5.7)"),
    ENUM_F(
        sax_training_t, moe_flex_dispatcher_backend, "moe_flex_dispatcher_backend", sax_flex_backend_names,
        SAX_FLEX_BACKEND_COUNT, CF_MODEL, 0,
        "the kernels of the `flex` dispatcher (Megatron-Core's --moe-flex-dispatcher-backend): `deepep`, "
        "DeepEP's normal kernels, at the speed sax's all-to-all gives them (DeepEP's own benchmarks measure "
        "them near the NIC's and NVLink's speed); `hybridep`, NVIDIA's HybridEP (NeMo's recipes on GB200 and "
        "later), at `hybridep_efficiency` of it. Both send a token once to each other scale-up domain "
        "(docs/cost-model.md section 5.7)"),
    QTY_F(sax_training_t, hybridep_efficiency, "hybridep_efficiency", SAX_UNIT_NONE, 0, true, 1, false,
          CF_MODEL, 0,
          "the share of sax's all-to-all speed HybridEP's dispatch and combine kernels reach (from "
          "Megatron-Bridge's nsys profile of Qwen3 30B-A3B on 16 H100; docs/cost-model.md section 5.7)"),
    BOOL_F(sax_training_t, overlap_moe_expert_parallel_comm, "overlap_moe_expert_parallel_comm", 0,
           "Megatron-Core's --overlap-moe-expert-parallel-comm (NeMo's moe_a2a_overlap): in the 1F1B phase "
           "one micro-batch's forward runs beside another's backward, and each side's all-to-alls hide "
           "behind the other side's compute; the warm-up's forwards and the cool-down's backwards still "
           "wait. Megatron-Core allows it with EP, without full recomputation, and with PP only on the "
           "interleaved schedule; elsewhere it changes nothing (docs/cost-model.md section 6)"),
    QTY_F(sax_training_t, ep_overlap_efficiency, "ep_overlap_efficiency", SAX_UNIT_NONE, 0, false, 1, false,
          CF_MODEL, 0,
          "with `overlap_moe_expert_parallel_comm`, the share of the all-to-all time a perfect pairing of "
          "forward and backward chunks would hide that Megatron-Core hides (from Megatron-Bridge's measured "
          "runs of Qwen3 30B-A3B on 16 H100 with and without it; docs/cost-model.md section 6)"),
    ENUM_F(
        sax_training_t, attention_backend, "attention_backend", sax_attn_backend_names,
        SAX_ATTN_BACKEND_COUNT, CF_MODEL, 0,
        "the flash-attention kernel, at the speed `cluster.gpu`'s `attention_efficiency_*` gives it: `fused`, "
        "cuDNN's through Transformer Engine (Megatron-LM's --attention-backend fused, its choice on Hopper and "
        "later); `flash1`, Dao's FlashAttention-1 and the Triton kernels of its generation (llm-foundry's "
        "attn_impl triton, 2023); `flash2`, Dao's FlashAttention-2 (--attention-backend flash without FlashAttention-3, "
        "PyTorch's and most other frameworks' kernel); `flash3`, FlashAttention-3"),
};
const cf_section_t cf_training_section = {"training", "What one iteration processes.", training_fields,
                                          COUNT(training_fields)};

/* ---- cluster ----------------------------------------------------------------------------------- */

static const cf_field_t gpu_fields[] = {
    STR_F(
        sax_gpu_t, name, "name", CF_DEFAULT, "`\"custom\"` (the preset's name)",
        "label used in reports; without `preset`, the fitted efficiencies (the keys below) of the preset it "
        "names are the defaults: its name or a word of it (`\"NVIDIA H100 SXM5 80GB\"`), H800 and A800 as H100 "
        "and A100, GH200 as H200; else those of the preset with the same `peak_flops` (within 1 %); so are its "
        "`peak_flops_fp8` (in proportion to `peak_flops`) and `mxfp8`"),
    QTY_F(sax_gpu_t, peak_flops_bf16, "peak_flops", SAX_UNIT_FLOPS, 0, true, INF, false, CF_REQUIRED, 0,
          "dense BF16 peak"),
    QTY_F(sax_gpu_t, peak_flops_fp8, "peak_flops_fp8", SAX_UNIT_FLOPS, 0, false, INF, false, CF_DEFAULT, 0,
          "dense FP8 peak; 0: no FP8 (then `training.precision` must be `bf16` or `fp16`)"),
    QTY_F(sax_gpu_t, hbm_bytes, "hbm", SAX_UNIT_BYTES, 0, true, INF, false, CF_REQUIRED, 0, "HBM capacity"),
    QTY_F(sax_gpu_t, hbm_bw_Bps, "hbm_bandwidth", SAX_UNIT_BANDWIDTH, 0, true, INF, false, CF_REQUIRED, 0,
          "HBM bandwidth"),
    QTY_F(sax_gpu_t, gemm_eff_max, "gemm_efficiency_max", SAX_UNIT_NONE, 0, true, 1, false, CF_MODEL, 0,
          "fraction of peak a large GEMM reaches"),
    QTY_F(sax_gpu_t, gemm_eff_max_fp8, "gemm_efficiency_max_fp8", SAX_UNIT_NONE, 0, false, 1, false, CF_MODEL,
          0, "fraction of the fp8 peak a large fp8 GEMM reaches (same knee); 0: `gemm_efficiency_max`"),
    QTY_F(sax_gpu_t, speed_cv, "speed_variation", SAX_UNIT_NONE, 0, false, 1, false, CF_MODEL, 0,
          "relative standard deviation of sustained speed among GPUs of this type (power management, "
          "manufacturing): a synchronous job of n GPUs computes at the pace of the slowest, 1 + this x "
          "E[max of n standard normals] slower than one GPU alone; 0: every GPU alike"),
    QTY_F(sax_gpu_t, kernel_overhead_s, "kernel_overhead", SAX_UNIT_TIME, 0, false, INF, false, CF_MODEL, 0,
          "what each kernel costs beyond its work (launch gap, ramp-up, tail), per kernel of a layer's "
          "forward and backward (docs/cost-model.md section 2)"),
    QTY_F(
        sax_gpu_t, comm_interference, "comm_interference", SAX_UNIT_NONE, 0, false, 1, false, CF_MODEL, 0,
        "how much the compute that hides communication slows while that communication runs (NCCL's kernels take "
        "SMs and HBM bandwidth from the GEMMs they overlap), as a fraction of the hidden communication's time; "
        "0: hidden communication is free (docs/cost-model.md section 6)"),
    QTY_F(sax_gpu_t, gemm_eff_half_ai, "gemm_efficiency_half_intensity", SAX_UNIT_NONE, 0, false, INF, false,
          CF_MODEL, 0, "GEMM arithmetic intensity (FLOP/B) at which efficiency is half of the maximum"),
    QTY_F(sax_gpu_t, mem_eff, "memory_efficiency", SAX_UNIT_NONE, 0, true, 1, false, CF_MODEL, 0,
          "fraction of HBM bandwidth memory-bound kernels reach"),
    QTY_F(sax_gpu_t, attn_eff[SAX_ATTN_FUSED], "attention_efficiency_fused", SAX_UNIT_NONE, 0, false, 1,
          false, CF_MODEL, 0,
          "fraction of the peak cuDNN's fused attention reaches, forward and backward together; 0: the GEMM "
          "curve at the attention's intensity"),
    QTY_F(sax_gpu_t, attn_eff[SAX_ATTN_FLASH1], "attention_efficiency_flash1", SAX_UNIT_NONE, 0, false, 1,
          false, CF_MODEL, 0, "the same for FlashAttention-1"),
    QTY_F(sax_gpu_t, attn_eff[SAX_ATTN_FLASH2], "attention_efficiency_flash2", SAX_UNIT_NONE, 0, false, 1,
          false, CF_MODEL, 0, "the same for FlashAttention-2"),
    QTY_F(sax_gpu_t, attn_eff[SAX_ATTN_FLASH3], "attention_efficiency_flash3", SAX_UNIT_NONE, 0, false, 1,
          false, CF_MODEL, 0, "the same for FlashAttention-3"),
    QTY_F(sax_gpu_t, reserved_bytes, "reserved_memory", SAX_UNIT_BYTES, 0, false, INF, false, CF_MODEL, 0,
          "HBM not available to the model (CUDA context, allocator, NCCL buffers)"),
    BOOL_F(
        sax_gpu_t, mxfp8, "mxfp8", 0,
        "the tensor cores take block-scaled MXFP8 operands (Blackwell and later; the B200 and GB200 presets "
        "say true): `training.fp8_recipe` mxfp8 needs it on every site's GPU, as Transformer Engine's MXFP8 "
        "recipe needs compute capability 10.0"),
};
const cf_section_t cf_gpu_section = {
    "cluster.gpu",
    "A GPU type: a preset name (`\"H100\"`), or an object with the keys below, optionally with "
    "`\"preset\": \"H100\"` whose values the other keys then override.",
    gpu_fields, COUNT(gpu_fields)};

static const cf_field_t scale_up_fields[] = {
    INT_F(sax_scale_up_t, size, "size", 1, CF_REQUIRED, 0, "GPUs per scale-up (NVLink) domain"),
    QTY_F(sax_scale_up_t, bw_Bps, "bandwidth", SAX_UNIT_BANDWIDTH, 0, true, INF, false, CF_REQUIRED, 0,
          "per GPU, per direction"),
    QTY_F(sax_scale_up_t, latency_s, "latency", SAX_UNIT_TIME, 0, false, INF, false, CF_REQUIRED, 0,
          "alpha: latency of one algorithm step inside the domain"),
    QTY_F(sax_scale_up_t, efficiency, "efficiency", SAX_UNIT_NONE, 0, true, 1, false, CF_MODEL, 0,
          "achievable fraction of `bandwidth`"),
};
const cf_section_t cf_scale_up_section = {"cluster.scale_up",
                                          "The scale-up domain (NVLink) inside a server or rack.",
                                          scale_up_fields, COUNT(scale_up_fields)};

static const cf_field_t tier_fields[] = {
    STR_F(sax_tier_t, name, "name", CF_REQUIRED, NULL, "unique name (`tier` in calibration measurements)"),
    INT_F(sax_tier_t, gpus, "gpus", 2, CF_REQUIRED, 0,
          "GPUs in one unit of this tier: a multiple of the previous unit (scale-up domain for the first), "
          "at least as large"),
    QTY_F(sax_tier_t, bw_Bps, "bandwidth", SAX_UNIT_BANDWIDTH, 0, true, INF, false, CF_REQUIRED, 0,
          "per GPU leaving the unit, before oversubscription"),
    QTY_F(sax_tier_t, latency_s, "latency", SAX_UNIT_TIME, 0, false, INF, false, CF_REQUIRED, 0,
          "alpha: latency of one algorithm step (one message hop) across this tier"),
    QTY_F(sax_tier_t, oversubscription, "oversubscription", SAX_UNIT_NONE, 1, false, INF, false, CF_MODEL, 0,
          "ratio at the unit's uplink"),
    QTY_F(sax_tier_t, efficiency, "efficiency", SAX_UNIT_NONE, 0, true, 1, false, CF_MODEL, 0,
          "achievable fraction of `bandwidth`"),
};
const cf_section_t cf_tier_section = {
    "cluster.tiers[]", "Network levels above the scale-up domain inside a site, innermost first.",
    tier_fields, COUNT(tier_fields)};

static const cf_field_t site_fields[] = {
    STR_F(sax_site_t, name, "name", CF_REQUIRED, NULL, "unique name, used by `site_links[].between`"),
    INT_F(sax_site_t, gpus, "gpus", 1, CF_REQUIRED, 0,
          "GPUs of the site: at most one unit of the outermost tier; its last unit of each level, scale-up "
          "domain included, may be partial"),
    {.key = "gpu",
     .type = CF_PRESET,
     .need = CF_DERIVED,
     .def_text = "the cluster's `gpu`",
     AT(sax_site_t, gpu),
     .sub = &cf_gpu_section,
     .help = "this site's GPU type: a preset name, an object with `preset`, or an object whose keys override "
             "the cluster's GPU"},
};
const cf_section_t cf_site_section = {"cluster.sites[]",
                                      "Sites (buildings or regions); ranks fill them in the order given.",
                                      site_fields, COUNT(site_fields)};

static const cf_field_t link_fields[] = {
    {.key = "between",
     .type = CF_SITE_PAIR,
     .need = CF_REQUIRED,
     AT(sax_site_link_t, a),
     .help = "the two sites this link joins (one link per pair; a missing pair has no direct link)"},
    QTY_F(sax_site_link_t, bw_Bps, "bandwidth", SAX_UNIT_BANDWIDTH, 0, true, INF, false, CF_REQUIRED, 0,
          "aggregate capacity per direction of the links between the two sites"),
    {.key = "latency",
     .type = CF_QUANTITY,
     .unit = SAX_UNIT_TIME,
     .min = 0,
     .max = INF,
     .need = CF_DERIVED,
     .def_text = "`distance` x 5 us/km",
     AT(sax_site_link_t, latency_s),
     .help = "one-way latency; when absent, derived from `distance` (one of the two is required)"},
    QTY_F(
        sax_site_link_t, distance_m, "distance", SAX_UNIT_LENGTH, 0, false, INF, false, CF_DEFAULT, 0,
        "fibre length; gives the latency (5 us per km one way) when `latency` is absent, else informational"),
    QTY_F(sax_site_link_t, loss, "loss", SAX_UNIT_NONE, 0, false, 1, true, CF_MODEL, 0,
          "packet loss probability"),
    QTY_F(sax_site_link_t, mtu_bytes, "mtu", SAX_UNIT_BYTES, 0, true, INF, false, CF_MODEL, 0,
          "RoCE packet size (go-back-N resends the packets in flight on a loss)"),
    QTY_F(sax_site_link_t, mss_bytes, "mss", SAX_UNIT_BYTES, 0, true, INF, false, CF_MODEL, 0,
          "TCP segment size (1460 B on a 1500 B MTU; 8960 B with jumbo frames)"),
    BOOL_F(
        sax_site_link_t, tcp_delayed_ack, "tcp_delayed_ack", 1,
        "TCP receivers acknowledge every other segment (Linux's default): Mathis's constant is 0.87, not 1.22"),
    QTY_F(
        sax_site_link_t, window_bytes, "window", SAX_UNIT_BYTES, 0, true, INF, false, CF_MODEL, 0,
        "bytes in flight one transport flow (a queue pair's outstanding RDMA, a TCP socket's buffer) can keep"),
    QTY_F(
        sax_site_link_t, pfc_headroom_bytes, "pfc_headroom", SAX_UNIT_BYTES, 0, false, INF, false, CF_MODEL,
        0,
        "per-port, per-priority switch buffer for lossless RoCE; needs about 2 x port rate x one-way delay, "
        "so 2 MiB covers about 4 km at 400 Gbit/s"),
    QTY_F(sax_site_link_t, uplink_oversubscription, "uplink_oversubscription", SAX_UNIT_NONE, 1, false, INF,
          false, CF_MODEL, 0, "oversubscription from the building fabric into the site link"),
};
const cf_section_t cf_link_section = {"cluster.site_links[]", "Links between sites.", link_fields,
                                      COUNT(link_fields)};

static const cf_field_t cluster_fields[] = {
    {.key = "gpu",
     .type = CF_PRESET,
     .need = CF_REQUIRED,
     AT(sax_cluster_t, gpu),
     .sub = &cf_gpu_section,
     .help = "the GPU type of every site that does not name its own"},
    {.key = "scale_up",
     .type = CF_OBJECT,
     .need = CF_REQUIRED,
     AT(sax_cluster_t, scale_up),
     .sub = &cf_scale_up_section,
     .help = "the scale-up domain"},
    {.key = "tiers",
     .type = CF_LIST,
     .need = CF_DEFAULT,
     .def_text = "`[]`",
     .offset = offsetof(sax_cluster_t, tiers),
     .size = sizeof(sax_tier_t),
     .sub = &cf_tier_section,
     .help = "network tiers inside a site, innermost first"},
    {.key = "sites",
     .type = CF_LIST,
     .need = CF_REQUIRED,
     .offset = offsetof(sax_cluster_t, sites),
     .size = sizeof(sax_site_t),
     .sub = &cf_site_section,
     .help = "the sites, at least one"},
    {.key = "site_links",
     .type = CF_LIST,
     .need = CF_DEFAULT,
     .def_text = "`[]`",
     .offset = offsetof(sax_cluster_t, links),
     .size = sizeof(sax_site_link_t),
     .sub = &cf_link_section,
     .help = "links between pairs of sites"},
};
const cf_section_t cf_cluster_section = {"cluster", "The hardware.", cluster_fields, COUNT(cluster_fields)};

/* ---- parallelism and network (one candidate) --------------------------------------------------- */

static const cf_field_t parallelism_fields[] = {
    INT_F(sax_candidate_t, tp, "tp", 1, CF_DEFAULT, 1, "tensor-parallel degree"),
    INT_F(sax_candidate_t, pp, "pp", 1, CF_DEFAULT, 1, "pipeline-parallel degree (physical stages)"),
    {.key = "dp",
     .type = CF_DEGREE,
     .need = CF_DEFAULT,
     .def = 0,
     AT(sax_candidate_t, dp),
     .help = "data-parallel degree; `\"auto\"`: all GPUs of the sites / (tp x cp x pp), which must divide; "
             "a given dp may leave GPUs idle (the job takes the first tp x cp x pp x dp)"},
    INT_F(sax_candidate_t, cp, "cp", 1, CF_DEFAULT, 1, "context-parallel degree"),
    INT_F(sax_candidate_t, ep, "ep", 1, CF_DEFAULT, 1,
          "expert-parallel degree (ep x expert_tensor_parallel divides tp x cp x dp)"),
    INT_F(sax_candidate_t, etp, "expert_tensor_parallel", 0, CF_DEFAULT, 0,
          "Megatron-Core's --expert-tensor-parallel-size: the routed experts' tensor-parallel degree; 0: tp "
          "(Megatron's default). Another value folds the experts onto their own grid of each stage's tp x "
          "cp x dp ranks (MoE parallel folding): etp x ep x expert-DP, innermost first, in the order's "
          "sequence of tp, cp and dp; ep may then exceed dp x cp. Left out for an ep that tp x ep does not "
          "fit in tp x cp x dp, it is 1 where 1 fits"),
    INT_F(sax_candidate_t, vpp, "vpp", 1, CF_DEFAULT, 1,
          "virtual stages per device (`interleaved` needs > 1)"),
    INT_F(sax_candidate_t, micro_batch, "micro_batch", 1, CF_DEFAULT, 1, "sequences per micro-batch"),
    ENUM_F(sax_candidate_t, schedule, "schedule", sax_schedule_names, SAX_SCHEDULE_COUNT, CF_DEFAULT,
           SAX_SCHEDULE_1F1B, "pipeline schedule"),
    ENUM_F(sax_candidate_t, recompute, "recompute", sax_recompute_names, SAX_RECOMPUTE_COUNT, CF_DEFAULT,
           SAX_RECOMPUTE_NONE, "activation recomputation"),
    {.key = "recompute_modules",
     .type = CF_MODULES,
     .need = CF_DEFAULT,
     .def_text = "`[]` (`core_attn`, Megatron's default)",
     AT(sax_candidate_t, recompute_modules),
     .help =
         "Megatron-Core's --recompute-modules with recompute `selective`: `core_attn` recomputes the "
         "attention core (its score matrix is not kept; nothing with flash attention), `layernorm` the two "
         "norms (their outputs, the QKV and FC1 inputs, are not kept: 4h bytes a token and layer, 2h in "
         "FP8, and the norms run again in the backward), `mla_up_proj` MLA's up-projections (the per-head "
         "Q, K and V are not kept, 2a(2d_qk + d)/t bytes a token less the rotary key's 2 x rope_head_dim, "
         "and the up-projection GEMMs run again; an error without MLA), `moe_act` the routed experts' "
         "activation function (its output, the FC2 input, is not kept: 2 top_k x expert_ffn_hidden / t "
         "bytes a token, half in FP8, and the activation runs again; an error without experts); "
         "Megatron's other modules are not priced"},
    BOOL_F(sax_candidate_t, sequence_parallel, "sequence_parallel", 0,
           "shard norms and dropouts along the sequence across the TP group"),
    {.key = "zero",
     .type = CF_INT,
     .min = 0,
     .max = 3,
     .need = CF_DEFAULT,
     .def = 1,
     AT(sax_candidate_t, zero),
     .help = "ZeRO stage: 1 shards optimizer state, 2 also gradients, 3 (FSDP) also weights"},
    {.key = "order",
     .type = CF_ORDER,
     .need = CF_DERIVED,
     .def_text = "`[\"tp\", \"cp\", \"ep\", \"pp\", \"dp\"]` without the dimensions of degree 1",
     AT(sax_candidate_t, order),
     .help =
         "parallel dimensions innermost first: consecutive ranks fill the scale-up domain, then each tier, "
         "then the sites in order; every dimension of degree > 1 among tp, cp, pp, dp must appear; ep, carved "
         "out of dp, may be left out: it then sits just inside dp (with expert_tensor_parallel other than tp "
         "the experts take their own grid and ep has no place here)"},
    ENUM_F(sax_candidate_t, layer_split, "layer_split", sax_layer_split_names, SAX_LAYER_SPLIT_COUNT,
           CF_DEFAULT, SAX_LAYER_SPLIT_UNIFORM,
           "`uniform`: equal layers per stage, or when pp x vpp does not divide the layers the first virtual "
           "stages one more (DeepSpeed's partition_method uniform); `balanced`: layers in proportion to each "
           "stage's GPU speed; "
           "`embedding-loss`: Megatron-LM's --account-for-embedding-in-pipeline-split and "
           "--account-for-loss-in-pipeline-split: the embedding and the loss count as a layer each, the "
           "layers + 2 split evenly, so the first and the last stage hold one layer fewer. A file that names "
           "no split (nor first/last stage layers, nor a layout) for more virtual stages than layers gets "
           "`embedding-loss` where it fits"),
    INT_F(sax_candidate_t, first_stage_layers, "decoder_first_pipeline_num_layers", 0, CF_DEFAULT, 0,
          "Megatron-LM's --decoder-first-pipeline-num-layers: the layers of the first stage, the rest split "
          "evenly over the stages not set (each stage's layers a multiple of vpp); 0: not set. Only with "
          "layer_split `uniform`"),
    INT_F(sax_candidate_t, last_stage_layers, "decoder_last_pipeline_num_layers", 0, CF_DEFAULT, 0,
          "Megatron-LM's --decoder-last-pipeline-num-layers: the layers of the last stage, as "
          "decoder_first_pipeline_num_layers; 0: not set"),
    {.key = "pipeline_model_parallel_layout",
     .type = CF_LAYOUT,
     .need = CF_DEFAULT,
     .def_text = "`\"\"` (not set)",
     AT(sax_candidate_t, layout_text),
     .help =
         "Megatron-Core's --pipeline-model-parallel-layout: the layers of each virtual stage, `E` the "
         "embedding, `t` a transformer layer, `m` an MTP layer (not priced), `L` the loss, `|` between "
         "virtual stages, `x*N` and `(...)*N` repeats, commas cosmetic (e.g. `\"Et*4|(t*4|)*14,tL\"`); "
         "pp x vpp virtual stages, virtual stage k on stage k mod pp, holding model.layers `t`. Places every "
         "layer itself: not with decoder_first/last_pipeline_num_layers; overrides layer_split"},
};
const cf_section_t cf_parallelism_section = {
    "parallelism", "How the job is split across GPUs (one candidate; `sax eval` evaluates it).",
    parallelism_fields, COUNT(parallelism_fields)};

static const cf_field_t network_fields[] = {
    ENUM_F(sax_candidate_t, transport, "transport", sax_transport_names, SAX_TRANSPORT_COUNT, CF_DEFAULT,
           SAX_TRANSPORT_ROCE,
           "`roce` lossless (PFC), `roce-gbn` go-back-N, `roce-sr` selective repeat, `tcp`; for site links"),
    INT_F(
        sax_candidate_t, connections, "connections", 1, CF_DEFAULT, 1,
        "transport flows per NCCL connection: queue pairs over RoCE (NCCL_IB_QPS_PER_CONNECTION), sockets over "
        "TCP (NCCL_NSOCKS_PERTHREAD x NCCL_SOCKET_NTHREADS); they spread a channel over ECMP paths and share "
        "its loss recovery, but add no NCCL window"),
    {.key = "qps_per_connection",
     .type = CF_INT,
     .min = 1,
     .max = INF,
     .need = CF_DEFAULT,
     .def = 1,
     AT(sax_candidate_t, connections),
     .alias_of = "connections",
     .help = "NCCL_IB_QPS_PER_CONNECTION"},
    {.key = "channels",
     .type = CF_DEGREE,
     .need = CF_DEFAULT,
     .def = 0,
     .def_text = "`\"auto\"`: NCCL's choice, two per NIC a group uses in a scale-up domain",
     AT(sax_candidate_t, channels),
     .help = "NCCL channels of every collective (NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS): each is a ring "
             "or tree of its own with its own window"},
    {.key = "buffer_size",
     .type = CF_INT,
     .unit = SAX_UNIT_BYTES,
     .min = 65536,
     .max = 1073741824,
     .need = CF_DEFAULT,
     .def = SAX_NCCL_BUFFSIZE_DEFAULT,
     AT(sax_candidate_t, buffer_bytes),
     .help = "NCCL_BUFFSIZE: bytes one channel's connection keeps in flight, in 8 slots (NCCL_STEPS)"},
    {.key = "p2p_chunk_size",
     .type = CF_INT,
     .unit = SAX_UNIT_BYTES,
     .min = 4096,
     .max = 134217728,
     .need = CF_DEFAULT,
     .def = SAX_NCCL_P2P_CHUNK_DEFAULT,
     AT(sax_candidate_t, p2p_chunk_bytes),
     .help = "NCCL_P2P_NET_CHUNKSIZE: a point-to-point slot over the network (8 slots per channel; at most "
             "buffer_size / 8)"},
    {.key = "p2p_channels",
     .type = CF_DEGREE,
     .need = CF_DEFAULT,
     .def = 0,
     .def_text = "`\"auto\"`: NCCL's choice, one per 14 GB/s of the NIC's line rate",
     AT(sax_candidate_t, p2p_channels),
     .help = "NCCL_NCHANNELS_PER_NET_PEER: point-to-point channels per network peer (pipeline transfers, "
             "all-to-all)"},
    ENUM_F(sax_candidate_t, algorithm, "algorithm", sax_algorithm_names, SAX_ALGORITHM_COUNT, CF_DEFAULT,
           SAX_ALGORITHM_RING,
           "collective algorithm of data-parallel traffic (NCCL_ALGO Ring or Tree, or hierarchical: "
           "reduce-scatter inside, all-reduce across, all-gather back)"),
    ENUM_F(sax_candidate_t, compression, "compression", sax_compression_names, SAX_COMPRESSION_COUNT,
           CF_DEFAULT, SAX_COMPRESSION_NONE, "compression of traffic that crosses site links"),
};
const cf_section_t cf_network_section = {"network", "Network-layer choices (part of the same candidate).",
                                         network_fields, COUNT(network_fields)};

/* ---- the top level ------------------------------------------------------------------------------ */

static const cf_field_t root_fields[] = {
    {.key = "model",
     .type = CF_PRESET,
     .need = CF_REQUIRED,
     .sub = &cf_model_section,
     .help = "the workload: a preset name (`\"llama3-405b\"`) or an object"},
    {.key = "training",
     .type = CF_OBJECT,
     .need = CF_REQUIRED,
     .sub = &cf_training_section,
     .help = "batch and precision"},
    {.key = "cluster",
     .type = CF_OBJECT,
     .need = CF_REQUIRED,
     .sub = &cf_cluster_section,
     .help = "the hardware"},
    {.key = "parallelism",
     .type = CF_OBJECT,
     .need = CF_DERIVED,
     .def_text = "required unless `space` is present",
     .sub = &cf_parallelism_section,
     .help = "the candidate `sax eval` evaluates; fixed values for `sax sweep`"},
    {.key = "network",
     .type = CF_OBJECT,
     .need = CF_DERIVED,
     .def_text = "required unless `space` is present",
     .sub = &cf_network_section,
     .help = "network-layer choices of the candidate"},
    {.key = "space",
     .type = CF_OBJECT,
     .need = CF_DERIVED,
     .def_text = "none (no sweep)",
     .help = "the design space `sax sweep` explores"},
};
const cf_section_t cf_root_section = {"", "A configuration file.", root_fields, COUNT(root_fields)};
