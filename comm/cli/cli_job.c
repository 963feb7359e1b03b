/* cli_job.c - a candidate as the job that runs it: Megatron-LM arguments, the NCCL environment and
 * the rank order (docs/decisions.md, "From answer to job"). Each setting names the knob users set;
 * what no Megatron-LM flag or NCCL variable expresses is said in a note rather than invented. */
#include "cli_print.h"

#include <stdarg.h>
#include <string.h>

enum { MAX_ITEMS = 48, ITEM_LEN = 320 };

typedef struct {
    int n_args, n_env, n_notes;
    char args[MAX_ITEMS][ITEM_LEN];  /* "--tensor-model-parallel-size 8" */
    char env[MAX_ITEMS][ITEM_LEN];   /* "NCCL_BUFFSIZE=4194304" */
    char notes[MAX_ITEMS][ITEM_LEN]; /* sentences */
} job_t;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
put(char (*list)[ITEM_LEN], int *n, const char *fmt, ...)
{
    if (*n >= MAX_ITEMS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(list[(*n)++], ITEM_LEN, fmt, ap);
    va_end(ap);
}
#define ARG(j, ...) put((j)->args, &(j)->n_args, __VA_ARGS__)
#define ENV(j, ...) put((j)->env, &(j)->n_env, __VA_ARGS__)
#define NOTE(j, ...) put((j)->notes, &(j)->n_notes, __VA_ARGS__)

/* Megatron-Core's rank order string (innermost first, all five dimensions: ep splits dp). */
static void megatron_order(const sax_candidate_t *c, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    bool ep_done = false;
    for (int i = 0; i < c->n_order && used + 4 < n; i++) {
        sax_dim_t d = c->order[i];
        if (d == SAX_DIM_EP)
            continue;
        if (d == SAX_DIM_DP && !ep_done) {
            used += (size_t)snprintf(buf + used, n - used, "%sep", used ? "-" : "");
            ep_done = true;
        }
        used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? "-" : "", sax_dim_names[d]);
    }
}

/* A dimension of degree 1 may sit anywhere: the order of the others is what places the job. */
static bool same_order(const sax_candidate_t *c, const char *const *want, int n_want)
{
    int j = 0;
    for (int i = 0; i < c->n_order; i++) {
        sax_dim_t d = c->order[i];
        int degree = d == SAX_DIM_TP   ? c->tp
                     : d == SAX_DIM_CP ? c->cp
                     : d == SAX_DIM_PP ? c->pp
                     : d == SAX_DIM_DP ? c->dp
                                       : 1;
        if (degree <= 1 || d == SAX_DIM_EP)
            continue;
        while (j < n_want && strcmp(want[j], sax_dim_names[d]) != 0)
            j++;
        if (j == n_want)
            return false;
    }
    return true;
}

static void parallel_args(const sax_problem_t *p, const sax_candidate_t *c, job_t *j)
{
    ARG(j, "--tensor-model-parallel-size %d", c->tp);
    ARG(j, "--pipeline-model-parallel-size %d", c->pp);
    ARG(j, "--context-parallel-size %d", c->cp);
    if (c->cp > 1 && p->training.cp_comm_type == SAX_CP_COMM_ALL_GATHER)
        ARG(j, "--cp-comm-type allgather");
    if (p->model.experts > 0)
        ARG(j, "--expert-model-parallel-size %d", c->ep);
    if (p->model.experts > 0 && c->etp > 0)
        ARG(j, "--expert-tensor-parallel-size %d", c->etp);
    if (p->model.experts > 0)
        ARG(j, "--moe-token-dispatcher-type %s", sax_moe_dispatcher_names[p->training.moe_token_dispatcher]);
    if (p->model.experts > 0 && p->training.moe_token_dispatcher == SAX_MOE_DISPATCHER_FLEX)
        ARG(j, "--moe-flex-dispatcher-backend %s",
            sax_flex_backend_names[p->training.moe_flex_dispatcher_backend]);
    /* Megatron-LM runs FlashAttention-2 or -3 as `flash`, whichever is installed */
    if (p->training.flash_attention)
        ARG(j, "--attention-backend %s", p->training.attention_backend == SAX_ATTN_FUSED ? "fused" : "flash");
    ARG(j, "--micro-batch-size %d", c->micro_batch);
    ARG(j, "--global-batch-size %lld", (long long)p->training.global_batch);
    if (c->sequence_parallel && c->tp > 1)
        ARG(j, "--sequence-parallel");
    if (c->sequence_parallel && c->tp > 1 && p->training.tp_comm_overlap)
        ARG(j, "--tp-comm-overlap");
    if (!c->sequence_parallel && c->tp > 1 && !p->training.async_tensor_model_parallel_allreduce)
        NOTE(j, "async_tensor_model_parallel_allreduce false: Megatron-LM of 2021-09 to 2024 took "
                "--no-async-tensor-model-parallel-allreduce; Megatron-Core always overlaps this all-reduce");
    /* 16-bit weights and activations; fp8 adds Transformer Engine's GEMMs on top of bf16 */
    ARG(j, "%s", p->training.precision == SAX_PRECISION_FP16 ? "--fp16" : "--bf16");
    if (p->training.precision == SAX_PRECISION_FP8)
        ARG(j, "--fp8-format hybrid --fp8-recipe %s%s", sax_fp8_recipe_names[p->training.fp8_recipe],
            p->training.fp8_dot_product_attention ? " --fp8-dot-product-attention" : "");
    if (p->training.cross_entropy_loss_fusion)
        ARG(j, "--cross-entropy-loss-fusion --cross-entropy-fusion-impl %s",
            sax_ce_fusion_names[p->training.cross_entropy_fusion_impl]);
    if (!p->training.dropout) { /* Megatron-LM's defaults are 0.1 */
        ARG(j, "--attention-dropout 0.0");
        ARG(j, "--hidden-dropout 0.0");
    } else if (!p->training.bias_dropout_fusion) {
        ARG(j, "--no-bias-dropout-fusion");
    }
    if (p->model.mtp_num_layers > 0)
        ARG(j, "--mtp-num-layers %d", p->model.mtp_num_layers);

    /* the layers of each stage: equal, first/last different, or a layout string */
    int layers[SAX_SIM_MAX_STAGES];
    if (c->n_layout > 0) { /* the layout as written: Megatron derives vpp from it */
        ARG(j, "--pipeline-model-parallel-layout '%s'", c->layout_text);
    } else if (c->pp > 1 && (c->first_stage_layers > 0 || c->last_stage_layers > 0)) { /* Megatron's flags */
        if (c->first_stage_layers > 0)
            ARG(j, "--decoder-first-pipeline-num-layers %d", c->first_stage_layers);
        if (c->last_stage_layers > 0)
            ARG(j, "--decoder-last-pipeline-num-layers %d", c->last_stage_layers);
        if (c->vpp > 1)
            ARG(j, "--num-virtual-stages-per-pipeline-rank %d", c->vpp);
    } else if (c->layer_split == SAX_LAYER_SPLIT_EMBEDDING_LOSS) {
        ARG(j, "--account-for-embedding-in-pipeline-split");
        ARG(j, "--account-for-loss-in-pipeline-split");
        if (c->vpp > 1)
            ARG(j, "--num-virtual-stages-per-pipeline-rank %d", c->vpp);
    } else if (c->pp > 1 && sax_model_stage_layers(p, c, layers) == SAX_OK) {
        bool middle_equal = true, all_equal = true;
        for (int s = 1; s < c->pp; s++)
            all_equal = all_equal && layers[s] == layers[0];
        for (int s = 2; s < c->pp - 1; s++)
            middle_equal = middle_equal && layers[s] == layers[1];
        bool chunks_even = true;
        for (int s = 0; s < c->pp; s++)
            chunks_even = chunks_even && layers[s] % c->vpp == 0;
        if (all_equal && c->vpp > 1 && chunks_even) {
            ARG(j, "--num-layers-per-virtual-pipeline-stage %d", layers[0] / c->vpp);
        } else if (!all_equal && c->vpp == 1 && middle_equal && c->pp > 2) {
            ARG(j, "--decoder-first-pipeline-num-layers %d", layers[0]);
            ARG(j, "--decoder-last-pipeline-num-layers %d", layers[c->pp - 1]);
        } else if (!all_equal || !chunks_even) {
            /* Megatron-Core's layout: one "|"-separated entry per virtual stage, virtual stage k on rank
             * k mod pp (chunk k / pp of it), E (embedding) in the first and L (output layer and loss) in
             * the last, with the MTP layers m before it; a stage's layers over its chunks, the first chunks
             * one more when they do not divide */
            char layout[ITEM_LEN];
            size_t used = (size_t)snprintf(layout, sizeof layout, "E");
            for (int k = 0; k < c->pp * c->vpp && used + 16 < sizeof layout; k++) {
                int s = k % c->pp, chunk = k / c->pp;
                int n = layers[s] / c->vpp + (chunk < layers[s] % c->vpp ? 1 : 0);
                used += (size_t)snprintf(layout + used, sizeof layout - used, "%st*%d", k ? "|" : "", n);
            }
            /* the MTP layers (m) before the loss, as many as --mtp-num-layers (validate_layer_layout) */
            if (p->model.mtp_num_layers > 0)
                used +=
                    (size_t)snprintf(layout + used, sizeof layout - used, "m*%d", p->model.mtp_num_layers);
            snprintf(layout + used, sizeof layout - used, "L");
            if (used + 16 < sizeof layout)
                ARG(j, "--pipeline-model-parallel-layout '%s'", layout);
            else
                NOTE(j,
                     "the layers of the %d stages differ: give each stage its layers with "
                     "--pipeline-model-parallel-layout",
                     c->pp);
            if (!chunks_even)
                NOTE(j,
                     "a stage's %d chunks differ by one layer where its layers do not divide; sax timed them "
                     "as equal",
                     c->vpp);
        }
    } else if (c->vpp > 1) {
        ARG(j, "--num-virtual-stages-per-pipeline-rank %d", c->vpp);
    }

    switch (c->schedule) {
    case SAX_SCHEDULE_1F1B:
    case SAX_SCHEDULE_INTERLEAVED: break; /* Megatron's own: 1F1B, interleaved when vpp > 1 */
    case SAX_SCHEDULE_GPIPE: NOTE(j, "gpipe: Megatron-LM runs 1F1B; GPipe needs another framework"); break;
    case SAX_SCHEDULE_ZB_H1:
        NOTE(j, "zb-h1: zero-bubble H1 (Qi et al., ICLR 2024) is not a Megatron-LM flag; its authors' fork "
                "(sail-sg/zero-bubble-pipeline-parallelism) runs it");
        break;
    case SAX_SCHEDULE_DUALPIPE:
        NOTE(j, "dualpipe: DeepSeek's DualPipe (deepseek-ai/DualPipe) is not a Megatron-LM flag");
        break;
    case SAX_SCHEDULE_COUNT: break;
    }
    switch (c->recompute) {
    case SAX_RECOMPUTE_NONE:
    case SAX_RECOMPUTE_COUNT: break;
    case SAX_RECOMPUTE_SELECTIVE:
        ARG(j, "--recompute-granularity selective");
        if (p->training.selective_ac_option == SAX_SELECTIVE_AC_OP)
            NOTE(j, "selective_ac_option op: torchtitan's per-op checkpointing (activation_checkpoint.mode "
                    "selective, selective_ac_option op); Megatron-LM has no such policy");
        if (c->recompute_modules != 0) { /* Megatron's default is core_attn alone */
            char mods[64] = "";
            for (int m = 0; m < SAX_RECOMPUTE_MODULE_COUNT; m++)
                if (c->recompute_modules >> m & 1u)
                    snprintf(mods + strlen(mods), sizeof mods - strlen(mods), " %s",
                             sax_recompute_module_names[m]);
            ARG(j, "--recompute-modules%s", mods);
            if (c->recompute_modules >> SAX_RECOMPUTE_MODULE_MOE_ACT & 1u) /* Megatron needs it for moe_act */
                ARG(j, "--moe-grouped-gemm");
        }
        break;
    case SAX_RECOMPUTE_FULL:
        ARG(j, "--recompute-granularity full --recompute-method uniform --recompute-num-layers 1");
        break;
    }
    if (p->training.overlap_moe_expert_parallel_comm && p->model.experts > 0 && c->ep > 1 &&
        c->schedule != SAX_SCHEDULE_DUALPIPE) {
        if (sax_candidate_ep_overlap_allowed(c))
            ARG(j, "--overlap-moe-expert-parallel-comm");
        else
            NOTE(j, "overlap_moe_expert_parallel_comm: Megatron-Core refuses it with full recomputation and, "
                    "with PP, without virtual stages; sax timed the all-to-alls as waiting");
    }
    if (c->zero == 3) {
        ARG(j, p->training.fsdp == SAX_FSDP_MEGATRON
                   ? "--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params"
                   : "--use-torch-fsdp2");
        if (p->training.fsdp == SAX_FSDP_FSDP1)
            NOTE(j,
                 "fsdp1: PyTorch's FullyShardedDataParallel (Composer, llm-foundry); Megatron-LM runs FSDP2");
    } else if (c->zero >= 1) {
        ARG(j, "--use-distributed-optimizer");
        if (c->zero == 2)
            NOTE(
                j,
                "zero 2: Megatron's distributed optimizer reduce-scatters gradients and shards the optimizer "
                "(ZeRO-1 and -2 are the same flag)");
    }
    /* sax hides DP traffic behind compute (dp_overlap_efficiency); Megatron-LM does so only when told */
    const bool megatron_dp = c->zero < 3 || p->training.fsdp == SAX_FSDP_MEGATRON;
    if (megatron_dp && p->training.dp_overlap_efficiency > 0.0)
        ARG(j, c->zero >= 1 ? "--overlap-grad-reduce --overlap-param-gather" : "--overlap-grad-reduce");
    if (c->zero < 3 && p->training.ddp_bucket_size > 0)
        ARG(j, "--ddp-bucket-size %lld", (long long)p->training.ddp_bucket_size);
    /* fp16 gradients are Megatron-LM's default under --fp16 (no flag); it has none for them otherwise */
    if (p->training.grad_reduce_dtype == SAX_GRAD_DTYPE_FP32)
        ARG(j, "--accumulate-allreduce-grads-in-fp32");
    else if (p->training.grad_reduce_dtype == SAX_GRAD_DTYPE_BF16)
        ARG(j, "--grad-reduce-in-bf16");
    else if (p->training.precision != SAX_PRECISION_FP16)
        NOTE(j, "grad_reduce_dtype fp16 outside fp16 training: Megatron-LM has no flag for it");
    if (p->training.optimizer_moments_dtype != SAX_GRAD_DTYPE_FP32)
        ARG(j, "--use-precision-aware-optimizer --exp-avg-dtype %s --exp-avg-sq-dtype %s",
            sax_grad_dtype_names[p->training.optimizer_moments_dtype],
            sax_grad_dtype_names[p->training.optimizer_moments_dtype]);
    if (p->training.cross_entropy_loss_fusion && p->training.cross_entropy_fusion_impl == SAX_CE_FUSION_TE)
        NOTE(j, "cross_entropy_fusion_impl te: Megatron-LM's training arguments refuse it since June 2026 "
                "(stability); Megatron-Core and Megatron-Bridge still run it");
    if (p->training.elementwise_kernels == SAX_ELEMENTWISE_EAGER)
        NOTE(j, "elementwise_kernels eager: PyTorch eager kernels, torchtitan without training.compile; "
                "Megatron-LM runs Transformer Engine's fused kernels");
    if (p->training.tp_implementation == SAX_TP_IMPL_DTENSOR)
        NOTE(j, "tp_implementation dtensor: PyTorch DTensor's tensor parallelism as torchtitan applies it "
                "(async TP for tp_comm_overlap); Megatron-LM runs its own TP layers");
    if (c->cp > 1 && p->training.cp_implementation == SAX_CP_IMPL_PYTORCH)
        NOTE(j,
             "cp_implementation pytorch: PyTorch's context_parallel ring attention as torchtitan applies it "
             "(its context_parallel_rotate_method for cp_comm_type); Megatron-LM runs Transformer Engine's");
    if (!p->training.master_weights)
        NOTE(j, "master_weights false: the optimizer updates the bf16 weights (no fp32 master copy), "
                "PyTorch's Adam on a bf16 model; Megatron-LM keeps fp32 master weights");

    /* rank order: Megatron-Core's default is tp-cp-ep-dp-pp; --use-tp-pp-dp-mapping gives tp-pp-dp */
    static const char *const dflt[] = {"tp", "cp", "dp", "pp"}, *const tppd[] = {"tp", "pp", "dp"};
    char order[64];
    megatron_order(c, order, sizeof order);
    if (same_order(c, dflt, 4)) {
        NOTE(j, "rank order %s: Megatron-Core's default (tp-cp-ep-dp-pp)", order);
    } else if (same_order(c, tppd, 3) && c->cp == 1 && c->ep == 1) {
        ARG(j, "--use-tp-pp-dp-mapping");
        NOTE(j, "rank order %s: --use-tp-pp-dp-mapping", order);
    } else {
        NOTE(j,
             "rank order %s: no Megatron-LM flag gives it; pass order=\"%s\" to "
             "megatron.core.parallel_state.initialize_model_parallel",
             order, order);
    }
}

static void nccl_env(const sax_problem_t *p, const sax_candidate_t *c, job_t *j)
{
    switch (c->algorithm) {
    case SAX_ALGORITHM_RING: ENV(j, "NCCL_ALGO=Ring"); break;
    case SAX_ALGORITHM_TREE: ENV(j, "NCCL_ALGO=Tree"); break;
    case SAX_ALGORITHM_HIERARCHICAL:
    case SAX_ALGORITHM_COUNT:
        NOTE(j,
             "hierarchical: one collective per level of the hierarchy, pipelined (docs/cost-model.md); NCCL "
             "has no NCCL_ALGO for it: the framework issues the per-level collectives on per-level "
             "communicators");
        break;
    }
    if (c->channels > 0) {
        ENV(j, "NCCL_MIN_NCHANNELS=%d", c->channels);
        ENV(j, "NCCL_MAX_NCHANNELS=%d", c->channels);
    }
    ENV(j, "NCCL_BUFFSIZE=%d", c->buffer_bytes);
    ENV(j, "NCCL_P2P_NET_CHUNKSIZE=%d", c->p2p_chunk_bytes);
    if (c->p2p_channels > 0)
        ENV(j, "NCCL_NCHANNELS_PER_NET_PEER=%d", c->p2p_channels);
    bool sites = p->cluster.n_links > 0;
    if (c->transport == SAX_TRANSPORT_TCP) {
        ENV(j, "NCCL_IB_DISABLE=1");
        ENV(j, "NCCL_SOCKET_NTHREADS=1");
        ENV(j, "NCCL_NSOCKS_PERTHREAD=%d", c->connections);
        NOTE(j,
             "tcp: NCCL's socket transport carries all traffic between nodes, with %d socket%s per "
             "connection",
             c->connections, c->connections == 1 ? "" : "s");
    } else {
        ENV(j, "NCCL_IB_QPS_PER_CONNECTION=%d", c->connections);
        if (c->transport == SAX_TRANSPORT_ROCE && sites)
            NOTE(j, "roce: lossless RoCE needs PFC (priority flow control) on every hop of the site links");
        else if (c->transport == SAX_TRANSPORT_ROCE_SR && sites)
            NOTE(j, "roce-sr: selective repeat is a NIC setting (e.g. ConnectX's), not an NCCL variable");
        else if (c->transport == SAX_TRANSPORT_ROCE_GBN && sites)
            NOTE(j, "roce-gbn: the NIC's go-back-N retransmission, RoCE's default without PFC");
    }
    if (c->compression != SAX_COMPRESSION_NONE)
        NOTE(j,
             "compression %s (lossy): NCCL does not compress; the framework casts cross-site traffic to %s "
             "before the collective",
             sax_compression_names[c->compression], sax_compression_names[c->compression]);
}

void cli_print_job(FILE *f, const sax_problem_t *p, const sax_candidate_t *c, bool json)
{
    job_t j;
    memset(&j, 0, sizeof j);
    parallel_args(p, c, &j);
    nccl_env(p, c, &j);
    if (json) {
        fprintf(f, "{\"megatron_args\": [");
        for (int i = 0; i < j.n_args; i++) {
            fprintf(f, "%s", i ? ", " : "");
            cli_print_json_string(f, j.args[i]);
        }
        fprintf(f, "], \"nccl_env\": {");
        for (int i = 0; i < j.n_env; i++) {
            char *eq = strchr(j.env[i], '=');
            *eq = '\0';
            fprintf(f, "%s", i ? ", " : "");
            cli_print_json_string(f, j.env[i]);
            fprintf(f, ": ");
            cli_print_json_string(f, eq + 1);
        }
        fprintf(f, "}, \"notes\": [");
        for (int i = 0; i < j.n_notes; i++) {
            fprintf(f, "%s", i ? ", " : "");
            cli_print_json_string(f, j.notes[i]);
        }
        fprintf(f, "]}");
        return;
    }
    fprintf(f, "Megatron-LM arguments:\n ");
    for (int i = 0; i < j.n_args; i++)
        fprintf(f, " %s", j.args[i]);
    fprintf(f, "\nNCCL environment:\n ");
    for (int i = 0; i < j.n_env; i++)
        fprintf(f, " %s", j.env[i]);
    fprintf(f, "\n");
    for (int i = 0; i < j.n_notes; i++)
        fprintf(f, "  - %s\n", j.notes[i]);
}
