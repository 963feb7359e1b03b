/* sax_model.h - the analytical cost model of sax, the ScaleAcross Explorer.
 *
 * Pure C11 with libc and libm only: no MPI, no I/O, no allocation on the evaluation path.
 * Every modelled quantity is a double in SI base units; the unit is part of the field name.
 * docs/cost-model.md derives every formula used behind this interface.
 */
#ifndef SAX_MODEL_H
#define SAX_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SAX_NAME_LEN 32
#define SAX_UNIT_TEXT_LEN 16 /* a unit as a configuration writes it: "Tbit/s", "TFLOP/s" */
#define SAX_MAX_TIERS 6
#define SAX_MAX_SITES 8
#define SAX_MAX_LINKS 28          /* every pair of SAX_MAX_SITES sites */
#define SAX_LAYOUT_MAX_STAGES 128 /* virtual stages of a pipeline layout (pp x vpp) */
#define SAX_LAYOUT_TEXT_LEN 128   /* a pipeline layout as a configuration writes it */

/* ---- status ------------------------------------------------------------------------------- */

/* X(name, exit status, message) */
#define SAX_STATUS_LIST(X)                                                                                   \
    X(SAX_OK, 0, "success")                                                                                  \
    X(SAX_ERR_USAGE, 2, "bad usage")                                                                         \
    X(SAX_ERR_INPUT, 2, "bad input")                                                                         \
    X(SAX_ERR_UNIMPLEMENTED, 2, "not implemented yet")                                                       \
    X(SAX_ERR_IO, 1, "I/O error")                                                                            \
    X(SAX_ERR_NOMEM, 1, "out of memory")                                                                     \
    X(SAX_ERR_MPI, 1, "MPI error")                                                                           \
    X(SAX_ERR_HDF5, 1, "HDF5 error")                                                                         \
    X(SAX_ERR_PETSC, 1, "PETSc error")                                                                       \
    X(SAX_ERR_INTERNAL, 1, "internal error")                                                                 \
    X(SAX_ERR_INTERRUPTED, 3, "interrupted; progress saved for --resume")

typedef enum {
#define SAX_X(name, exit_code, msg) name,
    SAX_STATUS_LIST(SAX_X)
#undef SAX_X
        SAX_STATUS_COUNT
} sax_status_t;

const char *sax_status_name(sax_status_t s);
const char *sax_status_message(sax_status_t s);
int sax_status_exit_code(sax_status_t s);

/* ---- named choices (X-macro lists: enum constant, name in files and on the command line) ---- */

#define SAX_PRECISION_LIST(X)                                                                                \
    X(SAX_PRECISION_BF16, "bf16") X(SAX_PRECISION_FP8, "fp8") X(SAX_PRECISION_FP16, "fp16")
#define SAX_FFN_ACT_LIST(X)                                                                                  \
    X(SAX_FFN_GELU, "gelu")                                                                                  \
    X(SAX_FFN_SWIGLU, "swiglu")                                                                              \
    X(SAX_FFN_RELU, "relu") X(SAX_FFN_SQUARED_RELU, "squared_relu") X(SAX_FFN_GEGLU, "geglu")
#define SAX_SCHEDULE_LIST(X)                                                                                 \
    X(SAX_SCHEDULE_GPIPE, "gpipe")                                                                           \
    X(SAX_SCHEDULE_1F1B, "1f1b")                                                                             \
    X(SAX_SCHEDULE_INTERLEAVED, "interleaved")                                                               \
    X(SAX_SCHEDULE_ZB_H1, "zb-h1")                                                                           \
    X(SAX_SCHEDULE_DUALPIPE, "dualpipe")
#define SAX_RECOMPUTE_LIST(X)                                                                                \
    X(SAX_RECOMPUTE_NONE, "none") X(SAX_RECOMPUTE_SELECTIVE, "selective") X(SAX_RECOMPUTE_FULL, "full")
/* Megatron-Core's --recompute-modules under selective recomputation, those sax prices (bit i: entry i) */
#define SAX_RECOMPUTE_MODULE_LIST(X)                                                                         \
    X(SAX_RECOMPUTE_MODULE_CORE_ATTN, "core_attn")                                                           \
    X(SAX_RECOMPUTE_MODULE_LAYERNORM, "layernorm")                                                           \
    X(SAX_RECOMPUTE_MODULE_MLA_UP_PROJ, "mla_up_proj")                                                       \
    X(SAX_RECOMPUTE_MODULE_MOE_ACT, "moe_act")
#define SAX_DIM_LIST(X)                                                                                      \
    X(SAX_DIM_TP, "tp") X(SAX_DIM_CP, "cp") X(SAX_DIM_EP, "ep") X(SAX_DIM_PP, "pp") X(SAX_DIM_DP, "dp")
#define SAX_LAYER_SPLIT_LIST(X)                                                                              \
    X(SAX_LAYER_SPLIT_UNIFORM, "uniform")                                                                    \
    X(SAX_LAYER_SPLIT_BALANCED, "balanced")                                                                  \
    X(SAX_LAYER_SPLIT_EMBEDDING_LOSS, "embedding-loss")
#define SAX_TRANSPORT_LIST(X)                                                                                \
    X(SAX_TRANSPORT_ROCE, "roce")                                                                            \
    X(SAX_TRANSPORT_ROCE_GBN, "roce-gbn")                                                                    \
    X(SAX_TRANSPORT_ROCE_SR, "roce-sr")                                                                      \
    X(SAX_TRANSPORT_TCP, "tcp")
#define SAX_ALGORITHM_LIST(X)                                                                                \
    X(SAX_ALGORITHM_RING, "ring") X(SAX_ALGORITHM_TREE, "tree") X(SAX_ALGORITHM_HIERARCHICAL, "hierarchical")
#define SAX_COMPRESSION_LIST(X)                                                                              \
    X(SAX_COMPRESSION_NONE, "none") X(SAX_COMPRESSION_BF16, "bf16") X(SAX_COMPRESSION_FP8, "fp8")
#define SAX_GRAD_DTYPE_LIST(X)                                                                               \
    X(SAX_GRAD_DTYPE_FP32, "fp32") X(SAX_GRAD_DTYPE_BF16, "bf16") X(SAX_GRAD_DTYPE_FP16, "fp16")
/* Megatron-Core's --moe-token-dispatcher-type: its all-to-all dispatcher, or the flex one (over DeepEP or
 * HybridEP) */
#define SAX_MOE_DISPATCHER_LIST(X)                                                                           \
    X(SAX_MOE_DISPATCHER_ALLTOALL, "alltoall") X(SAX_MOE_DISPATCHER_FLEX, "flex")
/* The flex dispatcher's backend (Megatron-Core's --moe-flex-dispatcher-backend): DeepEP, or HybridEP */
#define SAX_FLEX_BACKEND_LIST(X) X(SAX_FLEX_BACKEND_DEEPEP, "deepep") X(SAX_FLEX_BACKEND_HYBRIDEP, "hybridep")
/* Which fused cross-entropy kernel runs the loss with Megatron-LM's --cross-entropy-loss-fusion
 * (--cross-entropy-fusion-impl): Megatron-Core's own jit-fused steps, or Transformer Engine's Triton
 * kernel (online softmax, the gradient written in the forward) */
#define SAX_CE_FUSION_LIST(X) X(SAX_CE_FUSION_NATIVE, "native") X(SAX_CE_FUSION_TE, "te")
/* How fp8 GEMM operands are scaled (Megatron-LM's --fp8-recipe, Transformer Engine's recipes): per tensor
 * from an amax history (delayed), per tensor from the tensor itself (tensorwise, "current scaling"), per
 * block of 32 elements (mxfp8, Blackwell), or per 1 x 128 tile of the activations and 128 x 128 block of
 * the weights (blockwise, DeepSeek-V3's) */
#define SAX_FP8_RECIPE_LIST(X)                                                                               \
    X(SAX_FP8_RECIPE_DELAYED, "delayed")                                                                     \
    X(SAX_FP8_RECIPE_TENSORWISE, "tensorwise")                                                               \
    X(SAX_FP8_RECIPE_MXFP8, "mxfp8") X(SAX_FP8_RECIPE_BLOCKWISE, "blockwise")
/* How context parallelism exchanges K and V (Megatron-Core's cp_comm_type, --cp-comm-type): a ring of
 * point-to-point sends that attention's chunks hide, or one all-gather before attention that waits */
#define SAX_CP_COMM_LIST(X) X(SAX_CP_COMM_P2P, "p2p") X(SAX_CP_COMM_ALL_GATHER, "all_gather")
/* Which FSDP runs ZeRO-3: PyTorch's fully_shard (FSDP2; Megatron-LM's --use-torch-fsdp2, NeMo AutoModel),
 * its FullyShardedDataParallel (FSDP1; Composer and llm-foundry, 2023) or Megatron-FSDP (Megatron-LM's
 * --use-megatron-fsdp, Megatron-Bridge) */
#define SAX_FSDP_LIST(X)                                                                                     \
    X(SAX_FSDP_FSDP2, "fsdp2") X(SAX_FSDP_FSDP1, "fsdp1") X(SAX_FSDP_MEGATRON, "megatron")
/* What selective recomputation runs again: the modules Megatron-Core's --recompute-modules names
 * (parallelism.recompute_modules), or torchtitan's per-op policy (its activation_checkpoint
 * selective_ac_option "op": every op's output kept but every second matrix multiply's in a block and
 * those of the ops outside its save list) */
#define SAX_SELECTIVE_AC_LIST(X) X(SAX_SELECTIVE_AC_MODULES, "modules") X(SAX_SELECTIVE_AC_OP, "op")
/* How a layer's memory-bound steps run: fused kernels (Transformer Engine's or Apex's norms, rotary
 * embedding and activation, or torch.compile's), or PyTorch eager, op by op (torchtitan's Llama block
 * without its training.compile) */
#define SAX_ELEMENTWISE_LIST(X) X(SAX_ELEMENTWISE_FUSED, "fused") X(SAX_ELEMENTWISE_EAGER, "eager")
/* Whose tensor parallelism issues TP's collectives: Megatron-Core's layers and Transformer Engine's
 * (userbuffers under --tp-comm-overlap), or PyTorch's DTensor ColwiseParallel/RowwiseParallel as
 * torchtitan applies them, compiled (torch's micro-pipeline async TP under tp_comm_overlap; torchao's
 * Float8 TP gathers in FP8 under the tensorwise recipe) */
#define SAX_TP_IMPL_LIST(X) X(SAX_TP_IMPL_MEGATRON, "megatron") X(SAX_TP_IMPL_DTENSOR, "dtensor")
/* Whose context parallelism runs attention over the ranks' shards: Transformer Engine's, as Megatron-Core
 * calls it, or PyTorch's experimental context_parallel (torch.distributed.tensor.experimental) as
 * torchtitan applies it: K and V repeated to every query head, outputs merged in fp32 on the host side
 * of the kernel, the K and V gradients passed round the ring in fp32 */
#define SAX_CP_IMPL_LIST(X) X(SAX_CP_IMPL_MEGATRON, "megatron") X(SAX_CP_IMPL_PYTORCH, "pytorch")
/* The flash-attention kernel a run uses (Megatron-LM's --attention-backend): Transformer Engine's cuDNN
 * fused attention, or Dao's FlashAttention-1 (and the Triton kernels of its generation), -2 or -3 */
#define SAX_ATTN_BACKEND_LIST(X)                                                                             \
    X(SAX_ATTN_FUSED, "fused")                                                                               \
    X(SAX_ATTN_FLASH1, "flash1") X(SAX_ATTN_FLASH2, "flash2") X(SAX_ATTN_FLASH3, "flash3")
/* The collectives and point-to-point operations the model times (nccl-tests' names). */
#define SAX_COLL_OP_LIST(X)                                                                                  \
    X(SAX_OP_ALL_REDUCE, "all_reduce")                                                                       \
    X(SAX_OP_REDUCE_SCATTER, "reduce_scatter")                                                               \
    X(SAX_OP_ALL_GATHER, "all_gather")                                                                       \
    X(SAX_OP_ALL_TO_ALL, "all_to_all")                                                                       \
    X(SAX_OP_SENDRECV, "sendrecv")

/* Why a candidate cannot run. X(enum constant, short name, explanation) */
#define SAX_INFEASIBLE_LIST(X)                                                                               \
    X(SAX_FEASIBLE, "none", "feasible")                                                                      \
    X(SAX_INFEASIBLE_GPUS, "gpus", "tp*cp*pp*dp exceeds the GPUs of the cluster")                            \
    X(SAX_INFEASIBLE_DIVISIBILITY, "divisibility",                                                           \
      "a degree does not divide what it splits (heads, layers, batch, experts, sequence)")                   \
    X(SAX_INFEASIBLE_TP_DOMAIN, "tp_domain", "tensor parallelism spans more than one scale-up domain")       \
    X(SAX_INFEASIBLE_SCHEDULE, "schedule", "the pipeline schedule does not fit the other settings")          \
    X(SAX_INFEASIBLE_MEMORY, "memory", "memory per GPU exceeds the GPU's HBM")                               \
    X(SAX_INFEASIBLE_NO_LINK, "no_link", "a parallel group spans two sites without a site link")             \
    X(SAX_INFEASIBLE_LOSSLESS, "lossless_distance",                                                          \
      "lossless RoCE over a site link too long for PFC headroom")                                            \
    X(SAX_INFEASIBLE_SIMULATION, "simulation", "the pipeline has more events than the simulator holds")

#define SAX_ENUM_MEMBER(name, str) name,
#define SAX_ENUM_MEMBER3(name, str, msg) name,
typedef enum { SAX_PRECISION_LIST(SAX_ENUM_MEMBER) SAX_PRECISION_COUNT } sax_precision_t;
typedef enum { SAX_FFN_ACT_LIST(SAX_ENUM_MEMBER) SAX_FFN_ACT_COUNT } sax_ffn_act_t;
typedef enum { SAX_SCHEDULE_LIST(SAX_ENUM_MEMBER) SAX_SCHEDULE_COUNT } sax_schedule_t;
typedef enum { SAX_RECOMPUTE_LIST(SAX_ENUM_MEMBER) SAX_RECOMPUTE_COUNT } sax_recompute_t;
typedef enum { SAX_DIM_LIST(SAX_ENUM_MEMBER) SAX_DIM_COUNT } sax_dim_t;
typedef enum { SAX_RECOMPUTE_MODULE_LIST(SAX_ENUM_MEMBER) SAX_RECOMPUTE_MODULE_COUNT } sax_recompute_module_t;
typedef enum { SAX_LAYER_SPLIT_LIST(SAX_ENUM_MEMBER) SAX_LAYER_SPLIT_COUNT } sax_layer_split_t;
typedef enum { SAX_TRANSPORT_LIST(SAX_ENUM_MEMBER) SAX_TRANSPORT_COUNT } sax_transport_t;
typedef enum { SAX_ALGORITHM_LIST(SAX_ENUM_MEMBER) SAX_ALGORITHM_COUNT } sax_algorithm_t;
typedef enum { SAX_COMPRESSION_LIST(SAX_ENUM_MEMBER) SAX_COMPRESSION_COUNT } sax_compression_t;
typedef enum { SAX_GRAD_DTYPE_LIST(SAX_ENUM_MEMBER) SAX_GRAD_DTYPE_COUNT } sax_grad_dtype_t;
typedef enum { SAX_MOE_DISPATCHER_LIST(SAX_ENUM_MEMBER) SAX_MOE_DISPATCHER_COUNT } sax_moe_dispatcher_t;
typedef enum { SAX_FLEX_BACKEND_LIST(SAX_ENUM_MEMBER) SAX_FLEX_BACKEND_COUNT } sax_flex_backend_t;
typedef enum { SAX_FSDP_LIST(SAX_ENUM_MEMBER) SAX_FSDP_COUNT } sax_fsdp_t;
typedef enum { SAX_SELECTIVE_AC_LIST(SAX_ENUM_MEMBER) SAX_SELECTIVE_AC_COUNT } sax_selective_ac_t;
typedef enum { SAX_ELEMENTWISE_LIST(SAX_ENUM_MEMBER) SAX_ELEMENTWISE_COUNT } sax_elementwise_t;
typedef enum { SAX_TP_IMPL_LIST(SAX_ENUM_MEMBER) SAX_TP_IMPL_COUNT } sax_tp_impl_t;
typedef enum { SAX_CP_IMPL_LIST(SAX_ENUM_MEMBER) SAX_CP_IMPL_COUNT } sax_cp_impl_t;
typedef enum { SAX_CP_COMM_LIST(SAX_ENUM_MEMBER) SAX_CP_COMM_COUNT } sax_cp_comm_t;
typedef enum { SAX_CE_FUSION_LIST(SAX_ENUM_MEMBER) SAX_CE_FUSION_COUNT } sax_ce_fusion_t;
typedef enum { SAX_FP8_RECIPE_LIST(SAX_ENUM_MEMBER) SAX_FP8_RECIPE_COUNT } sax_fp8_recipe_t;
typedef enum { SAX_ATTN_BACKEND_LIST(SAX_ENUM_MEMBER) SAX_ATTN_BACKEND_COUNT } sax_attn_backend_t;
typedef enum { SAX_COLL_OP_LIST(SAX_ENUM_MEMBER) SAX_COLL_OP_COUNT } sax_coll_op_t;
typedef enum { SAX_INFEASIBLE_LIST(SAX_ENUM_MEMBER3) SAX_INFEASIBLE_COUNT } sax_infeasible_t;
#undef SAX_ENUM_MEMBER
#undef SAX_ENUM_MEMBER3

extern const char *const sax_precision_names[SAX_PRECISION_COUNT];
extern const char *const sax_ffn_act_names[SAX_FFN_ACT_COUNT];
extern const char *const sax_schedule_names[SAX_SCHEDULE_COUNT];
extern const char *const sax_recompute_names[SAX_RECOMPUTE_COUNT];
extern const char *const sax_dim_names[SAX_DIM_COUNT];
extern const char *const sax_recompute_module_names[SAX_RECOMPUTE_MODULE_COUNT];
extern const char *const sax_layer_split_names[SAX_LAYER_SPLIT_COUNT];
extern const char *const sax_transport_names[SAX_TRANSPORT_COUNT];
extern const char *const sax_algorithm_names[SAX_ALGORITHM_COUNT];
extern const char *const sax_compression_names[SAX_COMPRESSION_COUNT];
extern const char *const sax_grad_dtype_names[SAX_GRAD_DTYPE_COUNT];
extern const char *const sax_moe_dispatcher_names[SAX_MOE_DISPATCHER_COUNT];
extern const char *const sax_flex_backend_names[SAX_FLEX_BACKEND_COUNT];
extern const char *const sax_fsdp_names[SAX_FSDP_COUNT];
extern const char *const sax_selective_ac_names[SAX_SELECTIVE_AC_COUNT];
extern const char *const sax_elementwise_names[SAX_ELEMENTWISE_COUNT];
extern const char *const sax_tp_impl_names[SAX_TP_IMPL_COUNT];
extern const char *const sax_cp_impl_names[SAX_CP_IMPL_COUNT];
extern const char *const sax_cp_comm_names[SAX_CP_COMM_COUNT];
extern const char *const sax_ce_fusion_names[SAX_CE_FUSION_COUNT];
extern const char *const sax_fp8_recipe_names[SAX_FP8_RECIPE_COUNT];
extern const char *const sax_attn_backend_names[SAX_ATTN_BACKEND_COUNT];
extern const char *const sax_coll_op_names[SAX_COLL_OP_COUNT];
extern const char *const sax_infeasible_names[SAX_INFEASIBLE_COUNT];
extern const char *const sax_infeasible_messages[SAX_INFEASIBLE_COUNT];

/* Index of `name` in `names[0..count)`, or -1. */
int sax_name_lookup(const char *const *names, int count, const char *name);

/* ---- the workload ------------------------------------------------------------------------- */

typedef struct {
    char name[SAX_NAME_LEN];
    int layers, hidden, ffn_hidden, heads, kv_heads, vocab, seq_len;
    sax_ffn_act_t ffn_act; /* gated (swiglu, geglu): three FFN matrices; gelu, relu, squared_relu: two */
    int experts, top_k, expert_ffn_hidden, shared_experts, dense_layers;
    bool tied_embeddings; /* output layer shares the embedding matrix */
    /* Multi-head latent attention (DeepSeek-V2/V3); all 0 = standard MHA/GQA with head_dim = hidden/heads.
     * Config keys: head_dim, rope_head_dim, q_lora_rank, kv_lora_rank. */
    int head_dim, rope_head_dim, q_lora_rank, kv_lora_rank;
    /* Group-limited routing (DeepSeek-V3's node-limited routing; Megatron-LM's --moe-router-num-groups and
     * --moe-router-group-topk): the routed experts fall into this many equal groups of consecutive experts
     * and a token picks its top_k among the experts of group_topk of them; 0: no limit. Config keys
     * moe_router_num_groups, moe_router_group_topk. */
    int moe_router_num_groups, moe_router_group_topk;
    /* Multi-token prediction (DeepSeek-V3; Megatron-LM's --mtp-num-layers): this many MTP depths after the
     * last layer, each a transformer layer like the last one with its norms, projection, output layer
     * and loss, on the last stage (its last chunk). Config key mtp_num_layers; 0: none. */
    int mtp_num_layers;
} sax_model_desc_t;

typedef struct {
    int64_t global_batch;               /* sequences per iteration */
    sax_precision_t precision;          /* of the GEMMs; fp16 adds dynamic loss scaling's pass at the step */
    double dp_overlap_efficiency;       /* fraction of the backward pass usable to hide DP traffic, 0..1 */
    bool tp_comm_overlap;               /* Megatron-LM's --tp-comm-overlap (Transformer Engine's userbuffers):
                                           TP's collectives run in pieces inside the GEMMs. false, its
                                           default: the forward's wait, the backward's column-parallel ones
                                           hide behind its GEMMs. Config key training.tp_comm_overlap */
    double tp_overlap;                  /* with tp_comm_overlap, the fraction of TP traffic hidden, 0..1 */
    double step_overhead_s;             /* what each iteration costs beyond its micro-batches and optimizer
                                           math: the host's synchronisation at the step (the gradient norm's
                                           .item()) and the relaunch after it. Config key
                                           training.step_overhead */
    sax_cp_comm_t cp_comm_type;         /* how CP exchanges K and V: p2p (Megatron-Core's default, hidden
                                           behind attention) or all_gather (waits). Config key
                                           training.cp_comm_type */
    sax_fsdp_t fsdp;                    /* which FSDP runs ZeRO-3 (its per-micro-batch gradient pass). Config
                                           key training.fsdp */
    double zero3_comm_efficiency;       /* the fraction of the collectives' bandwidth a ZeRO-3/FSDP
                                           implementation's per-layer gathers and scatters reach, 0..1 */
    bool flash_attention;               /* fused attention (no score matrix in HBM); false: Megatron 2021's
                                     unfused softmax. Config key training.flash_attention */
    sax_fp8_recipe_t fp8_recipe;        /* with precision fp8, how the operands are scaled (the casts it
                                           costs). Config key training.fp8_recipe */
    bool fp8_dot_product_attention;     /* with precision fp8, the attention core (scores and values) in fp8
                                           too (Megatron-LM's --fp8-dot-product-attention); false, the
                                           default: only the linear layers run in fp8. Config key
                                           training.fp8_dot_product_attention */
    bool dropout;                       /* hidden and attention dropout (Megatron-LM's default 0.1); false:
                                           none (Llama, Qwen and DeepSeek train without): no masks kept, no
                                           dropout kernels. Config key training.dropout */
    int64_t ddp_bucket_size;            /* Megatron-LM's --ddp-bucket-size: parameters a gradient bucket of
                                           the overlapped DP reduction holds; 0: its default max(4e7, 1e6 dp).
                                           Config key training.ddp_bucket_size */
    int offload_activation_layers;      /* layers whose activations are moved to CPU memory after their
                                      forward (Megatron-Core's --cpu-offloading-num-layers), with PP 1
                                      and no recomputation. Config key training.offload_activation_layers */
    sax_grad_dtype_t grad_reduce_dtype; /* what data-parallel reductions carry and main gradients are
                                           kept in: fp32 (Megatron-LM's default for bf16 training) or
                                           bf16. Config key training.grad_reduce_dtype */
    sax_grad_dtype_t optimizer_moments_dtype; /* Adam's two moments: fp32 (Megatron-LM's default) or bf16
                                                 (--exp-avg-dtype/--exp-avg-sq-dtype bf16, DeepSeek-V3).
                                                 Config key training.optimizer_moments_dtype */
    bool master_weights; /* an fp32 master copy of the weights in the optimizer (mixed precision, the
                            default); false: the optimizer updates the bf16 weights themselves (PyTorch's
                            Adam on a bf16 model, NeMo AutoModel's default). Config key
                            training.master_weights */
    sax_moe_dispatcher_t moe_token_dispatcher;      /* how MoE tokens reach their experts: Megatron-Core's
                                                  all-to-all dispatcher (the default) or its flex
                                                  dispatcher (DeepEP, HybridEP). Config key
                                                  training.moe_token_dispatcher */
    sax_flex_backend_t moe_flex_dispatcher_backend; /* the flex dispatcher's kernels: DeepEP (Megatron-Core's
                                                       default) or HybridEP. Config key
                                                       training.moe_flex_dispatcher_backend */
    double hybridep_efficiency; /* the share of sax's all-to-all speed HybridEP's dispatch and combine
                                   reach, 0..1. Config key training.hybridep_efficiency */
    bool overlap_moe_expert_parallel_comm;     /* Megatron-Core's --overlap-moe-expert-parallel-comm:
                                                  the 1F1B phase runs one micro-batch's forward beside
                                                  another's backward, each side's all-to-alls behind the
                                                  other's compute. Config key
                                                  training.overlap_moe_expert_parallel_comm */
    double ep_overlap_efficiency;              /* with it, the share of what a perfect pairing would hide that
                                                  Megatron-Core hides, 0..1. Config key
                                                  training.ep_overlap_efficiency */
    bool cross_entropy_loss_fusion;            /* Megatron-LM's --cross-entropy-loss-fusion: the loss in
                                                 fused kernels; false, its default: unfused fp32 steps.
                                                 Config key training.cross_entropy_loss_fusion */
    sax_ce_fusion_t cross_entropy_fusion_impl; /* which fused kernels (--cross-entropy-fusion-impl). Config
                                                 key training.cross_entropy_fusion_impl */
    sax_attn_backend_t attention_backend;      /* the flash-attention kernel: cuDNN's fused attention through
                                             Transformer Engine (the default), FlashAttention-1, -2 or -3.
                                             Config key training.attention_backend */
    sax_selective_ac_t selective_ac_option;    /* with recompute "selective", what runs again: Megatron-Core's
                                                 modules or torchtitan's per-op policy. Config key
                                                 training.selective_ac_option */
    sax_elementwise_t elementwise_kernels;     /* fused kernels or PyTorch eager for the memory-bound steps.
                                                 Config key training.elementwise_kernels */
    sax_tp_impl_t tp_implementation;           /* Megatron-Core's TP layers or PyTorch DTensor's. Config key
                                                 training.tp_implementation */
    sax_cp_impl_t cp_implementation;           /* Transformer Engine's context parallelism or PyTorch's.
                                                 Config key training.cp_implementation */
    /* with dropout, bias, dropout and residual add in one kernel (Megatron-LM's default since 2021-01;
     * --no-bias-dropout-fusion). Config key training.bias_dropout_fusion */
    bool bias_dropout_fusion;
    /* TP without sequence parallelism: the backward's all-reduce of the column-parallel layers' input
     * gradient runs behind their weight-gradient GEMMs (Megatron-LM since 2021-09, Megatron-Core's
     * allreduce_dgrad); false: it waits, as in Megatron-LM before and its DeepSpeed forks of 2021-22.
     * Config key training.async_tensor_model_parallel_allreduce */
    bool async_tensor_model_parallel_allreduce;
} sax_training_t;

/* The models torchtitan's per-op checkpointing (training.selective_ac_option "op") is priced for: dense,
 * without multi-head latent attention; and PyTorch eager (training.elementwise_kernels "eager"): the
 * same with SwiGLU, torchtitan's Llama block. The configuration refuses the options elsewhere. */
bool sax_op_sac_priced(const sax_model_desc_t *m);
bool sax_eager_priced(const sax_model_desc_t *m);

/* Bytes of one gradient element as reduced (and stored as the main gradient). */
double sax_grad_bytes(const sax_training_t *t);

/* Bytes of optimizer state a parameter: the fp32 master weight (if kept) and Adam's two moments. */
double sax_optimizer_bytes(const sax_training_t *t);

/* ---- the hardware ------------------------------------------------------------------------- */

typedef struct {
    char name[SAX_NAME_LEN];
    double peak_flops_bf16;   /* dense FLOP/s */
    double peak_flops_fp8;    /* dense FLOP/s; 0 when the GPU has no FP8 */
    double hbm_bytes;         /* capacity */
    double hbm_bw_Bps;        /* HBM bandwidth */
    double gemm_eff_max;      /* fraction of peak a large GEMM reaches */
    double gemm_eff_max_fp8;  /* ... of the fp8 peak, in fp8; 0: gemm_eff_max */
    double speed_cv;          /* relative standard deviation of sustained speed among GPUs of this type */
    double kernel_overhead_s; /* what each kernel costs beyond its work: launch gap, ramp-up, tail */
    double comm_interference; /* how much slower compute runs while communication it hides runs beside
                                 it, as a fraction of that communication's time */
    double gemm_eff_half_ai;  /* GEMM arithmetic intensity (FLOP/B) at half of gemm_eff_max */
    double mem_eff;           /* fraction of HBM bandwidth memory-bound kernels reach */
    double attn_eff[SAX_ATTN_BACKEND_COUNT]; /* fraction of the peak each flash-attention kernel reaches,
                                                forward and backward; 0: the GEMM curve */
    double reserved_bytes; /* HBM not available to the model (CUDA context, allocator, NCCL) */
    bool mxfp8;            /* tensor cores that take block-scaled MXFP8 operands (Blackwell and later) */
} sax_gpu_t;

typedef struct {
    int size;          /* GPUs per scale-up domain */
    double bw_Bps;     /* per GPU, per direction */
    double latency_s;  /* alpha: one algorithm step */
    double efficiency; /* achievable fraction of bw_Bps */
} sax_scale_up_t;

typedef struct {
    char name[SAX_NAME_LEN];
    int gpus;                /* GPUs in one unit of this tier */
    double bw_Bps;           /* per GPU leaving the unit, before oversubscription */
    double latency_s;        /* alpha: one algorithm step across this tier */
    double oversubscription; /* ratio at the unit's uplink, >= 1 */
    double efficiency;       /* achievable fraction of bw_Bps */
} sax_tier_t;

typedef struct {
    char name[SAX_NAME_LEN];
    int gpus;
    sax_gpu_t gpu; /* the site's GPU type (the cluster's unless overridden) */
} sax_site_t;

typedef struct {
    int a, b;                       /* site indices */
    double bw_Bps;                  /* aggregate capacity per direction */
    double latency_s;               /* one way */
    double distance_m;              /* informational when latency is given */
    double loss;                    /* packet loss probability */
    double mtu_bytes;               /* RoCE packet size for loss and window arithmetic */
    double mss_bytes;               /* TCP segment size (1460 B on a 1500 B MTU) */
    bool tcp_delayed_ack;           /* receivers ACK every other segment (Linux's default) */
    double window_bytes;            /* bytes in flight one transport flow (QP or TCP socket) can keep */
    double pfc_headroom_bytes;      /* per-port buffer headroom available for lossless RoCE */
    double uplink_oversubscription; /* building fabric into the site link, >= 1 */
} sax_site_link_t;

typedef struct {
    sax_gpu_t gpu; /* default GPU type */
    sax_scale_up_t scale_up;
    int n_tiers;
    sax_tier_t tiers[SAX_MAX_TIERS];
    int n_sites;
    sax_site_t sites[SAX_MAX_SITES];
    int n_links;
    sax_site_link_t links[SAX_MAX_LINKS];
} sax_cluster_t;

/* What is fixed while candidates vary. */
typedef struct {
    sax_model_desc_t model;
    sax_training_t training;
    sax_cluster_t cluster;
} sax_problem_t;

/* ---- one fully specified training configuration -------------------------------------------- */

typedef struct {
    int tp, pp, dp, cp, ep, vpp, micro_batch;
    /* Megatron-Core's --expert-tensor-parallel-size (MoE parallel folding): the tensor-parallel degree of
     * the routed experts; 0: tp (Megatron's default). The experts take their own grid of each pipeline
     * stage's tp x cp x dp ranks, etp x ep x expert-DP innermost first (model/layout.c); config key
     * parallelism.expert_tensor_parallel */
    int etp;
    sax_schedule_t schedule;
    sax_recompute_t recompute;
    /* with recompute "selective": the modules recomputed, bit m for sax_recompute_module_t m; 0: core_attn
     * alone (Megatron-Core's default --recompute-modules). Config key parallelism.recompute_modules */
    unsigned recompute_modules;
    bool sequence_parallel;
    int zero;                       /* 0..3; 3 = FSDP */
    int n_order;                    /* entries used in order[] */
    sax_dim_t order[SAX_DIM_COUNT]; /* innermost first; dims left out have degree 1, except ep,
                                       which then sits just inside dp (model/layout.c) */
    sax_layer_split_t layer_split;
    /* Megatron-LM's --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers: the
     * layers of the first / last stage, the rest split evenly over the middle stages; 0: not set
     * (layer_split alone decides). Only with layer_split "uniform". */
    int first_stage_layers, last_stage_layers;
    /* Megatron-Core's --pipeline-model-parallel-layout (megatron/core/transformer/
     * pipeline_parallel_layer_layout.py): the transformer layers of each of the pp x vpp virtual stages,
     * virtual stage k on stage k mod pp as its chunk k / pp; n_layout 0: not set (layer_split decides).
     * layout_text is the string as written (io/config parses it); its MTP layers (m), model.mtp_num_layers
     * of them, sit in the last virtual stage, where they are priced. */
    int n_layout, layout_mtp; /* layout_mtp: its MTP layers (m) */
    uint8_t layout_layers[SAX_LAYOUT_MAX_STAGES];
    char layout_text[SAX_LAYOUT_TEXT_LEN];
    sax_transport_t transport;
    int connections;     /* transport flows per NCCL connection: queue pairs (NCCL_IB_QPS_PER_CONNECTION) or
                        TCP sockets (NCCL_NSOCKS_PERTHREAD x NCCL_SOCKET_NTHREADS); config keys
                        network.qps_per_connection and its older name network.connections */
    int channels;        /* NCCL channels of a collective (NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS); 0: NCCL's
                            own choice, two per NIC the group uses in a scale-up domain */
    int buffer_bytes;    /* NCCL_BUFFSIZE: bytes a channel's connection keeps in flight (8 slots) */
    int p2p_chunk_bytes; /* NCCL_P2P_NET_CHUNKSIZE: point-to-point slot over the network (8 slots) */
    int p2p_channels;    /* NCCL_NCHANNELS_PER_NET_PEER; 0: NCCL's choice, one per 14 GB/s of NIC */
    sax_algorithm_t algorithm;
    sax_compression_t compression;
} sax_candidate_t;

/* NCCL's defaults (src/init.cc, src/include/device.h of NCCL 2.2x): NCCL_BUFFSIZE 4 MiB split into
 * NCCL_STEPS = 8 slots; NCCL_P2P_NET_CHUNKSIZE 128 KiB. */
#define SAX_NCCL_STEPS 8
#define SAX_NCCL_BUFFSIZE_DEFAULT (4 << 20)
#define SAX_NCCL_P2P_CHUNK_DEFAULT (128 << 10)

/* The experts' tensor-parallel degree (c->etp, or tp when 0) and their data-parallel degree: the replicas
 * of one expert shard, tp x cp x dp / (ep x etp) (Megatron-Core's expert data parallelism). */
int sax_candidate_etp(const sax_candidate_t *c);
int sax_candidate_expert_dp(const sax_candidate_t *c);

/* Whether Megatron-Core runs its EP overlap (--overlap-moe-expert-parallel-comm) for this candidate:
 * it refuses it without EP, with full recomputation, and with PP on any schedule but the interleaved
 * one (docs/cost-model.md section 6). */
bool sax_candidate_ep_overlap_allowed(const sax_candidate_t *c);

/* Sets a candidate's NCCL knobs to NCCL's defaults (channels and p2p channels: NCCL's choice). */
void sax_candidate_set_nccl_defaults(sax_candidate_t *c);

/* ---- results -------------------------------------------------------------------------------- */

#define SAX_PHASE_LIST(X)                                                                                    \
    X(SAX_PHASE_COMPUTE, "compute")                                                                          \
    X(SAX_PHASE_BUBBLE, "bubble")                                                                            \
    X(SAX_PHASE_TP, "exposed_tp")                                                                            \
    X(SAX_PHASE_CP, "exposed_cp")                                                                            \
    X(SAX_PHASE_EP, "exposed_ep")                                                                            \
    X(SAX_PHASE_PP, "exposed_pp")                                                                            \
    X(SAX_PHASE_DP, "exposed_dp")
#define SAX_ENUM_MEMBER(name, str) name,
typedef enum { SAX_PHASE_LIST(SAX_ENUM_MEMBER) SAX_PHASE_COUNT } sax_phase_t;
#undef SAX_ENUM_MEMBER
extern const char *const sax_phase_names[SAX_PHASE_COUNT];

typedef struct {
    bool feasible;
    sax_infeasible_t reason;
    double iteration_time_s;
    double tokens_per_s;
    double mfu;
    double model_flops_per_iteration;
    double memory_per_gpu_bytes; /* worst stage */
    double mem_weights_bytes, mem_grads_bytes, mem_optimizer_bytes, mem_activations_bytes;
    double cross_site_bytes_per_iteration;
    double breakdown_s[SAX_PHASE_COUNT]; /* sums to iteration_time_s */
    double comm_s[SAX_DIM_COUNT];        /* total time of each dimension's traffic, hidden or not */
    uint32_t lossless_refused; /* SAX_INFEASIBLE_LOSSLESS: bit l set for each site link the job's traffic
                                  crosses whose PFC headroom is short */
    /* per site link, in single precision (a sweep keeps, merges and checkpoints many results): */
    float link_bytes[SAX_MAX_LINKS];       /* bytes over it per iteration, both directions */
    float link_utilisation[SAX_MAX_LINKS]; /* its busier direction's bytes / (capacity x iteration
                                              time): busy time = utilisation x iteration time */
    int gpus_used;
} sax_result_t;

/* Parameter counts of the model (for docs, presets and tests). */
typedef struct {
    double total, active; /* all parameters; those one token uses */
    double embedding;     /* input embedding (+ output layer unless tied) */
    double per_dense_layer, per_moe_layer;
    double per_moe_layer_active;
} sax_param_count_t;

void sax_model_param_count(const sax_model_desc_t *m, sax_param_count_t *out);

/* Model FLOPs per iteration as the contract defines them for MFU (no recomputation). */
double sax_model_flops_per_iteration(const sax_model_desc_t *m, int64_t global_batch);

/* Fills the defaults that are model parameters rather than user choices (efficiencies, windows). */
void sax_gpu_set_defaults(sax_gpu_t *gpu);
void sax_training_set_defaults(sax_training_t *t);
void sax_cluster_set_defaults(sax_cluster_t *c);

/* Evaluates one candidate. Pure: no globals, no allocation, no I/O.
 * `scratch` is caller-owned storage for the pipeline simulator (may be NULL: uneven pipelines
 * are then reported infeasible with SAX_INFEASIBLE_SIMULATION). Returns SAX_ERR_INPUT only for a
 * malformed problem/candidate (zero degrees); an unrunnable candidate is SAX_OK with
 * result->feasible false. */
/* The product of `n` degrees (each >= 0 and an int), computed in 64 bits and stopped as soon as it
 * exceeds `cap` (<= INT32_MAX): exact when it is at most `cap`, otherwise some value above `cap`,
 * never an overflow. For tp x cp x pp x dp against the GPUs of the sites. */
int64_t sax_degrees_product(const int *degrees, int n, int64_t cap);

typedef struct sax_scratch sax_scratch_t;
size_t sax_scratch_size(void);
/* Prepares caller-allocated scratch (sax_scratch_size() bytes) before its first use. */
void sax_scratch_init(sax_scratch_t *scratch);
sax_status_t sax_model_eval(const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch,
                            sax_result_t *r);

/* GEMM model (calibration fits gemm_eff_max and gemm_eff_half_ai from measured GEMMs):
 *   AI(m,n,k)  = 2mnk / (bytes_per_element * (mk + kn + mn))        FLOP per byte moved
 *   eff        = gemm_eff_max * AI / (AI + gemm_eff_half_ai)
 *   time       = 2mnk / (peak(precision) * eff)
 * so peak*time/(2mnk) = 1/eff_max + (half_ai/eff_max) * (1/AI): linear in 1/AI. */
double sax_gemm_intensity(double m, double n, double k, sax_precision_t prec);
double sax_gemm_efficiency(const sax_gpu_t *gpu, double m, double n, double k, sax_precision_t prec);
double sax_gemm_efficiency_ai(const sax_gpu_t *gpu, double ai, sax_precision_t prec);
/* time     = max(that, (bytes_in * (mk + kn) + 2 mn) / (hbm_bw * mem_eff)): no faster than HBM moves
 *            its operands and result once (sax_gemm_memory_s, 0 without a bandwidth) */
double sax_gemm_memory_s(const sax_gpu_t *gpu, double m, double n, double k, sax_precision_t prec);
double sax_gemm_time_s(const sax_gpu_t *gpu, double m, double n, double k, sax_precision_t prec);
double sax_gpu_peak_flops(const sax_gpu_t *gpu, sax_precision_t prec);
/* How much slower than the typical GPU the slowest of n GPUs of this type is expected to run, the pace
 * a synchronous job of n GPUs keeps: 1 + speed_cv x E[max of n standard normals] (docs/cost-model.md
 * section 2); 1 for n <= 1. */
double sax_slowest_of(const sax_gpu_t *gpu, double n);

/* Whether the model's `total` layers split over c->pp stages of c->vpp chunks as the candidate sets
 * (layer_split, first_stage_layers, last_stage_layers, or a pipeline layout of pp x vpp virtual stages
 * holding `total` layers; docs/cost-model.md section 7). */
bool sax_layer_split_valid(int total, const sax_candidate_t *c);
/* The layers of each of c->pp stages, for a split that is valid; `peak_flops` (each stage's GPU peak)
 * is read only by layer_split "balanced". */
void sax_layer_split_stages(int total, const sax_candidate_t *c, const double *peak_flops, int *layers);

/* The layers each of c->pp pipeline stages holds, as the evaluation splits them (layer_split);
 * SAX_ERR_INPUT when the candidate cannot be laid out on the cluster. */
sax_status_t sax_model_stage_layers(const sax_problem_t *p, const sax_candidate_t *c, int *layers);

/* ---- pipeline simulator (exposed for tests, traces and the closed-form comparison) ---------- */

#define SAX_SIM_MAX_STAGES 256
#define SAX_SIM_MAX_EVENTS (1 << 17)

typedef struct {
    sax_schedule_t schedule;
    int stages;                        /* physical stages p */
    int chunks;                        /* virtual chunks per stage v (1 unless interleaved) */
    int micro;                         /* micro-batches m */
    double f_s[SAX_SIM_MAX_STAGES];    /* forward time of one micro-batch on one chunk of stage s */
    double b_s[SAX_SIM_MAX_STAGES];    /* input-gradient (backward) time, incl. recomputation */
    double w_s[SAX_SIM_MAX_STAGES];    /* weight-gradient time (separate only for zb-h1/dualpipe) */
    double link_s[SAX_SIM_MAX_STAGES]; /* transfer time from stage s to s+1 (and back) */
    /* the part of link_s during which the boundary's channels are busy with one transfer (its bytes
     * through the rate or the window; link_s minus the one-way latency): transfers over a boundary
     * in one direction run one after another, in the order their sender issues them. 0: a pure delay */
    double link_busy_s[SAX_SIM_MAX_STAGES];
    /* ends_differ: the first virtual stage (chunk 0 of stage 0) and the last (chunk v-1 of stage p-1)
     * take head_s and tail_s (forward, input gradient, weight gradient) instead of their stage's f_s,
     * b_s, w_s (layer_split embedding-loss under interleaving: one layer short); false: they do not */
    bool ends_differ;
    double head_s[3], tail_s[3];
    /* own_place: ZB-H1 chooses W's place on place_f_s and place_b_s (f_s and b_s without the exposed
     * traffic of the groups that cross site links) instead of f_s and b_s, so that the order it then
     * times never depends on the site links (docs/cost-model.md section 7); false: on f_s and b_s */
    bool own_place;
    double place_f_s[SAX_SIM_MAX_STAGES], place_b_s[SAX_SIM_MAX_STAGES];
    /* (sax_pipeline_simulate copies the fields one by one, the stages in use only: a new field is
       copied there too) */
} sax_pipeline_t;

typedef struct {
    double makespan_s;
    double finish_s[SAX_SIM_MAX_STAGES];   /* when each stage completes its last event */
    double busy_s[SAX_SIM_MAX_STAGES];     /* compute time of each stage */
    int peak_inflight[SAX_SIM_MAX_STAGES]; /* activation sets held at once */
} sax_pipeline_result_t;

/* One event of a simulated schedule, for traces. */
typedef struct {
    int stage, micro, chunk;
    char kind;   /* 'F', 'B', 'W' */
    bool with_w; /* a 'B' that also computes its weight gradients (every B without separate W) */
    double start_s, end_s;
    double send_s; /* when its output starts over the boundary (after the transfers queued before it);
                      end_s when it sends nothing */
} sax_event_t;

/* Simulates `pl`; writes up to `max_events` events to `events` when it is not NULL.
 * Returns the number of events of the schedule, or -1 when the pipeline does not fit. */
long sax_pipeline_simulate(const sax_pipeline_t *pl, sax_scratch_t *scratch, sax_pipeline_result_t *out,
                           sax_event_t *events, long max_events);

/* Closed form for equal stages and equal links (every schedule; DualPipe's, DeepSeek-V3 Table 2,
 * agrees with its simulation only when F = B >= W). */
double sax_pipeline_closed_form(const sax_pipeline_t *pl);

/* sax_model_eval that also returns the pipeline it timed (stage times and boundary transfers, for
 * `sax eval --trace`); `pl` may be NULL. */
sax_status_t sax_model_eval_pipeline(const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch,
                                     sax_result_t *r, sax_pipeline_t *pl);

/* How the model composes one iteration beyond the pipeline's events, for `sax eval --trace`
 * (docs/cost-model.md, "The iteration as a trace"). Per stage s, as eval.c times it. */
typedef struct {
    int crit;                                /* the stage that ends the iteration */
    double makespan_s;                       /* the pipeline's, as the model times it */
    double finish_s[SAX_SIM_MAX_STAGES];     /* its last pipeline event ends */
    double dp_s[SAX_SIM_MAX_STAGES];         /* its DP synchronisation after the last backward, whole */
    double dp_exposed_s[SAX_SIM_MAX_STAGES]; /* of which exposed: from finish_s on */
    double opt_s[SAX_SIM_MAX_STAGES];        /* its optimizer step, after the exposed DP */
    double fwd_comm_s[SAX_SIM_MAX_STAGES][SAX_DIM_COUNT]; /* exposed TP, CP, EP and DP (ZeRO-3) time inside
                                                             one forward event (one micro-batch, one chunk) */
    double bwd_comm_s[SAX_SIM_MAX_STAGES][SAX_DIM_COUNT]; /* the same inside one backward event */
    uint32_t boundary_links[SAX_SIM_MAX_STAGES];          /* bit l: a transfer over boundary s -> s+1
                                                             crosses site link l */
    double link_class_bytes[SAX_MAX_LINKS][SAX_DIM_COUNT][2]; /* per iteration, per traffic class and
                                                                 direction (0: a -> b); they sum to the
                                                                 result's link_bytes */
} sax_iteration_detail_t;

/* sax_model_eval_pipeline that also fills `d` for a feasible candidate. Off the evaluation path. */
sax_status_t sax_model_eval_trace(const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch,
                                  sax_result_t *r, sax_pipeline_t *pl, sax_iteration_detail_t *d);

/* ---- output columns: one list feeds JSON keys, CSV headers and the HDF5 compound types -------- */

/* X(field of sax_result_t, unit, description) */
#define SAX_METRIC_LIST(X)                                                                                   \
    X(iteration_time_s, "s", "predicted wall time of one training iteration")                                \
    X(tokens_per_s, "1/s", "training tokens processed per second")                                           \
    X(mfu, "1", "model FLOPs utilisation: model FLOPs / (iteration time x GPUs x peak)")                     \
    X(model_flops_per_iteration, "FLOP", "model FLOPs of one iteration, without recomputation")              \
    X(memory_per_gpu_bytes, "B", "peak memory of the fullest GPU")                                           \
    X(cross_site_bytes_per_iteration, "B", "bytes crossing site links in one iteration")

/* ---- errors for users ------------------------------------------------------------------------ */

/* A message that names the file, the JSON path, what was expected and what was found. */
typedef struct {
    char text[1024];
} sax_error_t;

/* printf-style; returns `status` so callers can `return sax_error_set(err, SAX_ERR_INPUT, ...)`.
 * `err` may be NULL. */
sax_status_t sax_error_set(sax_error_t *err, sax_status_t status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- one collective, as nccl-tests times it -------------------------------------------------- */

/* One collective (or send/recv) of a group of n GPUs `stride` apart from rank 0 in the cluster's GPU order
 * (scale-up domains, then tiers, then sites as listed), as nccl-tests times it: `bytes` is nccl-tests'
 * size (the whole buffer of all_reduce, reduce_scatter's input, all_gather's output, all_to_all's send
 * buffer, sendrecv's message). With `concurrent` every group of that shape in the cluster runs at once
 * (as DP groups do in training); otherwise the group is alone. The network knobs (channels, buffer and
 * chunk sizes, transport, connections, compression) are the candidate's. `simulate` also runs the
 * reference simulator (allocates; seconds for large groups). Returns SAX_ERR_INPUT, with `err` saying
 * why, for a group the cluster cannot hold or an algorithm NCCL does not run for that operation. */
typedef struct {
    double time_s;      /* the closed form the evaluation uses */
    double sim_time_s;  /* the reference simulator's (0 unless asked) */
    double xsite_bytes; /* bytes over site links per operation: the group's, or all groups' if concurrent */
    int sites;          /* sites one group spans */
    int channels;       /* NCCL channels of the ring or tree (point-to-point channels for the others) */
} sax_coll_prediction_t;

sax_status_t sax_collective_predict(const sax_cluster_t *cl, const sax_candidate_t *c, sax_coll_op_t op,
                                    sax_algorithm_t alg, int n, long stride, bool concurrent, double bytes,
                                    bool simulate, sax_coll_prediction_t *out, sax_error_t *err);

/* nccl-tests' bus bandwidth factor: busbw = algbw x this (all_reduce 2(n-1)/n, reduce_scatter, all_gather
 * and all_to_all (n-1)/n, sendrecv 1). */
double sax_coll_busbw_factor(sax_coll_op_t op, int n);

/* The PFC headroom per switch port that lossless RoCE needs on site link `link`: 2 x the port rate (a
 * GPU's NIC) x the link's one-way latency (domain.md, "Transport over long links"). A candidate with
 * transport roce whose traffic crosses a link where this exceeds the link's pfc_headroom is infeasible
 * (SAX_INFEASIBLE_LOSSLESS). */
double sax_pfc_headroom_needed(const sax_cluster_t *cl, int link);

/* ---- what limits each phase (model/explain.c: off the evaluation path) ------------------------ */

/* The phases `sax eval` explains (contract.md, "bottlenecks"): the breakdown's, with the bubble counted
 * in pp and the optimizer step taken out of compute. */
#define SAX_BN_PHASE_LIST(X)                                                                                 \
    X(SAX_BN_COMPUTE, "compute")                                                                             \
    X(SAX_BN_TP, "tp")                                                                                       \
    X(SAX_BN_CP, "cp")                                                                                       \
    X(SAX_BN_EP, "ep")                                                                                       \
    X(SAX_BN_PP, "pp")                                                                                       \
    X(SAX_BN_DP, "dp")                                                                                       \
    X(SAX_BN_OPTIMIZER, "optimizer")
/* What limits a phase: for communication the largest of the collective's terms (docs/cost-model.md
 * section 10), for compute the larger of the GEMM/attention and the memory-bound kernel time. */
#define SAX_LIMIT_LIST(X)                                                                                    \
    X(SAX_LIMIT_COMPUTE, "compute")                                                                          \
    X(SAX_LIMIT_MEMORY_BANDWIDTH, "memory_bandwidth")                                                        \
    X(SAX_LIMIT_LATENCY, "latency")                                                                          \
    X(SAX_LIMIT_WINDOW, "window")                                                                            \
    X(SAX_LIMIT_LINK_CAPACITY, "link_capacity")                                                              \
    X(SAX_LIMIT_OVERSUBSCRIPTION, "oversubscription")                                                        \
    X(SAX_LIMIT_NIC, "nic")                                                                                  \
    X(SAX_LIMIT_SCALE_UP, "scale_up")
/* Why a stage's DP reduction (ZeRO 0-2) shows, in Megatron-Core's gradient buckets (docs/cost-model.md
 * section 6): its one bucket a chunk reduces after the backward (a later stage, or chunks after the
 * first); its last bucket, the embedding's, does; or its buckets queue longer than the backward lasts. */
#define SAX_DP_WAIT_LIST(X)                                                                                  \
    X(SAX_DP_WAIT_NONE, "none")                                                                              \
    X(SAX_DP_WAIT_ONE_BUCKET, "one_bucket")                                                                  \
    X(SAX_DP_WAIT_LAST_BUCKET, "last_bucket")                                                                \
    X(SAX_DP_WAIT_QUEUE, "queue")
#define SAX_ENUM_MEMBER(name, str) name,
typedef enum { SAX_BN_PHASE_LIST(SAX_ENUM_MEMBER) SAX_BN_PHASE_COUNT } sax_bn_phase_t;
typedef enum { SAX_LIMIT_LIST(SAX_ENUM_MEMBER) SAX_LIMIT_COUNT } sax_limit_t;
typedef enum { SAX_DP_WAIT_LIST(SAX_ENUM_MEMBER) SAX_DP_WAIT_COUNT } sax_dp_wait_t;
#undef SAX_ENUM_MEMBER
extern const char *const sax_bn_phase_names[SAX_BN_PHASE_COUNT];
extern const char *const sax_limit_names[SAX_LIMIT_COUNT];
extern const char *const sax_dp_wait_names[SAX_DP_WAIT_COUNT];

/* Why one collective or transfer takes its time. Each term is the operation re-timed by the closed
 * form with only that limit left: latency (every bandwidth and window unlimited, one NCCL loop), window
 * (bandwidths unlimited, latencies and windows real, minus the latency term) and each bandwidth resource
 * alone (latencies zero, every other resource unlimited). The largest term names the limit. */
typedef struct {
    sax_limit_t limited_by;         /* SAX_LIMIT_LATENCY .. SAX_LIMIT_SCALE_UP */
    double time_s;                  /* the closed form the evaluation uses */
    double term_s[SAX_LIMIT_COUNT]; /* the terms (0 for compute and memory_bandwidth) */
    double rtt_s;                   /* the longest round trip between sites on the way (0: none) */
    double inflight_bytes;          /* what one connection keeps in flight: the smaller of NCCL's buffer
                                        (its slots) and the transport's flows x window (0: no sites) */
    double scale_up_Bps, nic_Bps;   /* per GPU, as configured */
    double link_Bps;                /* the smallest site link on the way (0: none) */
    double oversubscription;        /* the largest on the way (tiers crossed, site uplinks) */
    int gpus;                       /* members of the group */
    sax_coll_op_t op;
    double bytes; /* nccl-tests' size of the operation */
} sax_coll_explain_t;

/* One phase of an iteration and what limits it. */
typedef struct {
    sax_bn_phase_t phase;
    double exposed_s; /* its exposed time: the breakdown's (pp: bubble + exposed_pp; compute
                                  without the optimizer step, which is its own phase) */
    sax_limit_t limited_by;
    bool has_coll;            /* coll explains it (communication phases, and pp when its transfers
                                  outweigh its bubble) */
    sax_coll_explain_t coll;  /* the phase's dominant collective (or pipeline transfer) */
    double bubble_s;          /* pp: of exposed_s, the schedule's bubble */
    sax_bn_phase_t bubble_of; /* pp limited by its bubble: the largest part of the stages' events it
                                  waits on (compute, or a phase whose traffic is inside the events) */
    double math_s, memory_s;  /* compute: the critical stage's GEMM and attention time, and its
                                  memory-bound kernels' (optimizer: memory_s is its pass over HBM, the rest
                                  of exposed_s the host's synchronisation at the step) */
    int stage;                /* dp with ZeRO 0-2: the stage that ends the iteration, */
    sax_dp_wait_t dp_wait;    /* ...why its reduction shows (SAX_DP_WAIT_NONE: ZeRO 3), */
    double last_bucket_share; /* ...and the share of its non-expert parameters in the bucket that
                                  reduces only after its backward (its first chunk's on a later stage) */
} sax_bottleneck_t;

/* The phases of candidate c's iteration with nonzero exposed time, sorted by exposed time, longest
 * first, into out (*n of them, at most SAX_BN_PHASE_COUNT); *n = 0 for an infeasible candidate.
 * Evaluates the candidate again and re-times each phase's dominant operation a few times: not for the
 * evaluation path of sweeps. Returns what sax_model_eval returns. */
sax_status_t sax_model_explain(const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch,
                               sax_bottleneck_t out[SAX_BN_PHASE_COUNT], int *n);

/* The same for one collective of a strided group, as sax_collective_predict takes it (elements of 4
 * bytes, nccl-tests' float). */
sax_status_t sax_collective_explain(const sax_cluster_t *cl, const sax_candidate_t *c, sax_coll_op_t op,
                                    sax_algorithm_t alg, int n, long stride, bool concurrent, double bytes,
                                    sax_coll_explain_t *out, sax_error_t *err);

/* For a candidate sax_model_eval refuses as gpus, divisibility, schedule or tp_domain: the check it
 * fails in words, with the configuration's keys and values, into why (n bytes; "" for any other). Off
 * the evaluation path. */
void sax_model_refusal(const sax_problem_t *p, const sax_candidate_t *c, char *why, size_t n);

/* ---- what would make an over-full configuration fit (model/fits.c: off the evaluation path) ---- */

/* The settings that trade time for memory without changing the parallel degrees, each a configuration
 * key: recomputation, a smaller micro-batch, deeper ZeRO sharding, the optimizer's and the gradients'
 * precision, dropout, moving activations to CPU memory (docs/cost-model.md section 8), more modules
 * recomputed under selective recomputation, and a layer or two fewer on the first or the last pipeline
 * stage (Megatron-LM's --decoder-first/last-pipeline-num-layers). */
#define SAX_LEVER_LIST(X)                                                                                    \
    X(SAX_LEVER_RECOMPUTE, "parallelism.recompute")                                                          \
    X(SAX_LEVER_MICRO_BATCH, "parallelism.micro_batch")                                                      \
    X(SAX_LEVER_ZERO, "parallelism.zero")                                                                    \
    X(SAX_LEVER_MOMENTS, "training.optimizer_moments_dtype")                                                 \
    X(SAX_LEVER_MASTER, "training.master_weights")                                                           \
    X(SAX_LEVER_GRADS, "training.grad_reduce_dtype")                                                         \
    X(SAX_LEVER_DROPOUT, "training.dropout")                                                                 \
    X(SAX_LEVER_OFFLOAD, "training.offload_activation_layers")                                               \
    X(SAX_LEVER_RECOMPUTE_MODULES, "parallelism.recompute_modules")                                          \
    X(SAX_LEVER_FIRST_LAYERS, "parallelism.decoder_first_pipeline_num_layers")                               \
    X(SAX_LEVER_LAST_LAYERS, "parallelism.decoder_last_pipeline_num_layers")
#define SAX_ENUM_MEMBER(name, str) name,
typedef enum { SAX_LEVER_LIST(SAX_ENUM_MEMBER) SAX_LEVER_COUNT } sax_lever_t;
#undef SAX_ENUM_MEMBER
extern const char *const sax_lever_keys[SAX_LEVER_COUNT];

/* One setting that alone brings the configuration under its GPUs' HBM. */
#define SAX_LEVER_VALUE_LEN 64
typedef struct {
    sax_lever_t lever;
    char
        value[SAX_LEVER_VALUE_LEN]; /* the key's value as JSON: "\"full\"", "2", "false", "[\"layernorm\"]" */
    double memory_per_gpu_bytes;    /* the fullest GPU with it */
    double iteration_time_s;        /* the iteration with it */
} sax_memory_fit_t;

/* For a configuration infeasible for memory: each lever that alone makes it feasible, at the value
 * nearest the configuration's own (the least recomputation, the largest smaller micro-batch, the
 * shallowest deeper ZeRO stage, the fewest offloaded layers), sorted by iteration time, fastest
 * first, into out (*n of them). *n = 0 for any other configuration. Evaluates the configuration
 * again for each value tried: not for the evaluation path of sweeps. Returns what sax_model_eval
 * returns. */
sax_status_t sax_model_memory_fits(const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch,
                                   sax_memory_fit_t out[SAX_LEVER_COUNT], int *n);

/* Settings assumed together so that a configuration fits: those changed from the configuration's own
 * values, with the memory and time they give. */
typedef struct {
    int n;
    sax_lever_t lever[SAX_LEVER_COUNT];
    char value[SAX_LEVER_COUNT][SAX_LEVER_VALUE_LEN]; /* as in sax_memory_fit_t */
    int step[SAX_LEVER_COUNT]; /* which of the lever's values (0: nearest the configuration's own) */
    double memory_per_gpu_bytes;
    double iteration_time_s;
} sax_memory_assumption_t;

/* For a configuration infeasible for memory whose levers in `free` (bit l for lever l) are open (a
 * measured run's description that does not state them): the combination of their values that fits
 * changing the fewest of them from the configuration's own, the fastest among those (so no setting
 * is assumed for its speed alone). Each lever is tried unchanged and then at its values nearest the
 * configuration's own (as sax_model_memory_fits), going no further than the first value with which
 * the others can make it fit. *found false when no combination fits, or the
 * configuration is not refused for memory. Evaluates up to the product of the levers' values: off the
 * evaluation path. */
sax_status_t sax_model_memory_assume(const sax_problem_t *p, const sax_candidate_t *c, unsigned free,
                                     sax_scratch_t *scratch, sax_memory_assumption_t *out, bool *found);

/* Sets the assumed settings on the configuration they were found for, which then evaluates to the
 * assumption's memory and time (`sax calibrate` fits its runs so). */
void sax_model_memory_assumption_apply(const sax_memory_assumption_t *a, sax_problem_t *p,
                                       sax_candidate_t *c);

/* The assumed settings into buf: `key = value, ...`, or with `json` the members `"key": value, ...`;
 * SAX_ASSUMPTION_TEXT_LEN bytes hold any. */
#define SAX_ASSUMPTION_TEXT_LEN (SAX_LEVER_COUNT * (64 + SAX_LEVER_VALUE_LEN))
void sax_model_memory_assumption_text(const sax_memory_assumption_t *a, bool json, char *buf, size_t n);

/* ---- what the software settings a file leaves out would change (model/unstated.c: off the
 * evaluation path) ---- */

/* The settings of the job's software that the contract's keys do not carry: a file that leaves one out
 * gets Megatron-LM's default with Transformer Engine (docs/config.md), which another framework may not
 * run. */
#define SAX_SOFTWARE_LIST(X)                                                                                 \
    X(SAX_SOFTWARE_ATTENTION_BACKEND, "training.attention_backend")                                          \
    X(SAX_SOFTWARE_FLASH_ATTENTION, "training.flash_attention")                                              \
    X(SAX_SOFTWARE_DROPOUT, "training.dropout")                                                              \
    X(SAX_SOFTWARE_TP_COMM_OVERLAP, "training.tp_comm_overlap")                                              \
    X(SAX_SOFTWARE_CE_FUSION, "training.cross_entropy_loss_fusion")                                          \
    X(SAX_SOFTWARE_FSDP, "training.fsdp")                                                                    \
    X(SAX_SOFTWARE_FP8_RECIPE, "training.fp8_recipe")                                                        \
    X(SAX_SOFTWARE_ELEMENTWISE, "training.elementwise_kernels")                                              \
    X(SAX_SOFTWARE_TP_IMPL, "training.tp_implementation")                                                    \
    X(SAX_SOFTWARE_SELECTIVE_AC, "training.selective_ac_option")                                             \
    X(SAX_SOFTWARE_CP_COMM, "training.cp_comm_type")                                                         \
    X(SAX_SOFTWARE_CP_IMPL, "training.cp_implementation")                                                    \
    X(SAX_SOFTWARE_DISPATCHER, "training.moe_token_dispatcher")                                              \
    X(SAX_SOFTWARE_ASYNC_TP_ALLREDUCE, "training.async_tensor_model_parallel_allreduce")                     \
    X(SAX_SOFTWARE_BIAS_DROPOUT_FUSION, "training.bias_dropout_fusion")
#define SAX_ENUM_MEMBER(name, str) name,
typedef enum { SAX_SOFTWARE_LIST(SAX_ENUM_MEMBER) SAX_SOFTWARE_COUNT } sax_software_t;
#undef SAX_ENUM_MEMBER
extern const char *const sax_software_keys[SAX_SOFTWARE_COUNT];

/* One other value of a setting the file leaves out, and the iteration with it. */
#define SAX_UNSTATED_MAX 24 /* at least every other value of every setting */
typedef struct {
    sax_software_t setting;
    char value[SAX_LEVER_VALUE_LEN]; /* the key's value as JSON: "\"flash2\"", "true" */
    bool feasible;
    sax_infeasible_t reason; /* when not feasible */
    double iteration_time_s; /* when feasible */
    double change;           /* iteration_time_s / the configuration's own - 1; 0 when not feasible */
} sax_unstated_t;

/* For each setting of SAX_SOFTWARE_LIST not in `stated` (bit s for setting s: the file states it) and
 * open to this configuration (an attention kernel with flash attention, TP overlap with sequence
 * parallelism over TP > 1, the FSDP flavour under ZeRO-3, the fp8 recipe under fp8 (MXFP8 where every
 * GPU has it), PyTorch eager for dense SwiGLU models without MLA, torchtitan's per-op checkpointing for
 * dense models without MLA under selective recomputation without Megatron's modules, CP's exchange with
 * CP > 1, the token dispatcher with experts): each of its other values alone on a copy, evaluated. Into out (*n),
 * the feasible ones by how far they move the iteration, farthest first, then those that are not.
 * Returns what sax_model_eval returns; *n = 0 when the configuration itself is not feasible. */
sax_status_t sax_model_unstated(const sax_problem_t *p, const sax_candidate_t *c, unsigned stated,
                                sax_scratch_t *scratch, sax_unstated_t out[SAX_UNSTATED_MAX], int *n);

/* ---- the design space as the configuration states it (search/ decodes it) ------------------- */

#define SAX_SPACE_MAX_VALUES 32
#define SAX_SPACE_MAX_SCENARIO_VARS 6
#define SAX_SPACE_MAX_BASELINES 8
#define SAX_PATH_LEN 96

/* The keys of `parallelism` and `network` a sweep can vary. Values are stored as integers:
 * degrees as themselves (dp 0 = "auto"), names as their enum index, booleans as 0/1 and `order`
 * as an index into sax_space_desc_t.orders. */
#define SAX_KEY_LIST(X)                                                                                      \
    X(SAX_KEY_TP, "tp")                                                                                      \
    X(SAX_KEY_PP, "pp")                                                                                      \
    X(SAX_KEY_DP, "dp")                                                                                      \
    X(SAX_KEY_CP, "cp")                                                                                      \
    X(SAX_KEY_EP, "ep")                                                                                      \
    X(SAX_KEY_VPP, "vpp")                                                                                    \
    X(SAX_KEY_MICRO_BATCH, "micro_batch")                                                                    \
    X(SAX_KEY_SCHEDULE, "schedule")                                                                          \
    X(SAX_KEY_RECOMPUTE, "recompute")                                                                        \
    X(SAX_KEY_SEQUENCE_PARALLEL, "sequence_parallel")                                                        \
    X(SAX_KEY_ZERO, "zero")                                                                                  \
    X(SAX_KEY_ORDER, "order")                                                                                \
    X(SAX_KEY_LAYER_SPLIT, "layer_split")                                                                    \
    X(SAX_KEY_FIRST_STAGE_LAYERS, "decoder_first_pipeline_num_layers")                                       \
    X(SAX_KEY_LAST_STAGE_LAYERS, "decoder_last_pipeline_num_layers")                                         \
    X(SAX_KEY_TRANSPORT, "transport")                                                                        \
    X(SAX_KEY_CONNECTIONS, "connections")                                                                    \
    X(SAX_KEY_CHANNELS, "channels")                                                                          \
    X(SAX_KEY_BUFFER_SIZE, "buffer_size")                                                                    \
    X(SAX_KEY_P2P_CHUNK_SIZE, "p2p_chunk_size")                                                              \
    X(SAX_KEY_P2P_CHANNELS, "p2p_channels")                                                                  \
    X(SAX_KEY_ALGORITHM, "algorithm")                                                                        \
    X(SAX_KEY_COMPRESSION, "compression")
#define SAX_ENUM_MEMBER(name, str) name,
typedef enum { SAX_KEY_LIST(SAX_ENUM_MEMBER) SAX_KEY_COUNT } sax_key_t;
#undef SAX_ENUM_MEMBER
extern const char *const sax_key_names[SAX_KEY_COUNT];

/* Reads / writes key `k` of a candidate as the integer coding above (order: 0..n_orders-1 is
 * an index into `orders`; the candidate stores the order itself). */
int32_t sax_candidate_get(const sax_candidate_t *c, sax_key_t k);
void sax_candidate_set(sax_candidate_t *c, sax_key_t k, int32_t v);

typedef struct {
    int n;
    int32_t v[SAX_SPACE_MAX_VALUES];
} sax_value_list_t;

typedef struct {
    char name[SAX_NAME_LEN];
    uint32_t mask; /* bit k set: the baseline fixes key k */
    int32_t value[SAX_KEY_COUNT];
} sax_baseline_t;

typedef struct {
    char path[SAX_PATH_LEN]; /* as written in the configuration, e.g. "site_links[0].bandwidth" */
    int n;
    double v[SAX_SPACE_MAX_VALUES];  /* SI values */
    char si_unit[SAX_UNIT_TEXT_LEN]; /* the SI unit of `v` ("B/s", "s", "1" for a plain number) */
    char unit[SAX_UNIT_TEXT_LEN];    /* the unit the configuration wrote its first value in ("Tbit/s"); "" */
    double unit_si;                  /* SI value of one `unit` (1.25e11 for "Tbit/s"); 0 when `unit` is "" */
} sax_scenario_var_t;

typedef struct {
    sax_value_list_t values[SAX_KEY_COUNT]; /* a key the space leaves out has its fixed value */
    int n_orders;
    int order_len[SAX_SPACE_MAX_VALUES];
    sax_dim_t orders[SAX_SPACE_MAX_VALUES][SAX_DIM_COUNT];
    int n_scenario_vars;
    sax_scenario_var_t scenario_vars[SAX_SPACE_MAX_SCENARIO_VARS];
    int n_baselines;
    sax_baseline_t baselines[SAX_SPACE_MAX_BASELINES];
} sax_space_desc_t;

/* The one vocabulary of values, used by every command, file and report: the name of value `v` of
 * key `k` ("1f1b", "auto" for dp 0, "8", "true", "tp-cp-dp-pp" for an order index of `space`; "?"
 * for an order without `space` or out of range). Writes at most `len` bytes, returns buf. */
char *sax_key_value_name(const sax_space_desc_t *space, sax_key_t k, int32_t v, char *buf, size_t len);
/* "tp-cp-dp-pp" for `n` dimensions in that order. */
char *sax_order_name(const sax_dim_t *order, int n, char *buf, size_t len);

/* The one way quantities are printed. sax_unit_scale: the scale and prefixed unit for values up to
 * `max` of SI unit `unit`: seconds as s, ms or us; "1" never scaled; "" the bare prefix (3.7e6 ->
 * "M"); any other unit with a decimal prefix (3.2e9 "B" -> 1e9, "GB"). sax_quantity_str: `x` with 4
 * significant digits in that scale ("6.597 TB", "3.399 M", "0.4168 s", "655 us"); returns buf. */
double sax_unit_scale(double max, const char *unit, char *label, size_t len);
char *sax_quantity_str(double x, const char *unit, char *buf, size_t len);

/* One evaluated candidate: what sweeps reduce, store and report. */
typedef struct {
    int64_t index;    /* candidate index in the space (mixed radix, see search/) */
    int32_t scenario; /* scenario index */
    sax_candidate_t candidate;
    sax_result_t result;
} sax_record_t;

#endif
