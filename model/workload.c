/* workload.c - parameters, FLOPs and activation memory of decoder transformers (dense and MoE).
 *
 * Sources: parameter and FLOP counts follow Narayanan et al. 2021 (arXiv 2104.04473, section 5.1)
 * generalised to GQA, SwiGLU and MoE; activation memory per layer follows Korthikanti et al. 2022
 * (arXiv 2205.05198, section 4, eq. 1-5), generalised the same way. docs/cost-model.md derives each.
 */
#include "model_internal.h"

#include <math.h>

/* A gated FFN (SwiGLU, GeGLU) has a third matrix, the gate; ReLU, squared ReLU and GELU apply their
 * function to FC1's output alone, and cost the same elementwise pass (read and written once). */
static double ffn_matrices(const sax_model_desc_t *m)
{
    return m->ffn_act == SAX_FFN_SWIGLU || m->ffn_act == SAX_FFN_GEGLU ? 3.0 : 2.0;
}

static double head_dim(const sax_model_desc_t *m)
{
    return m->head_dim > 0 ? (double)m->head_dim : (double)m->hidden / (double)m->heads;
}

/* Width of one head's query/key (with MLA: nope + rope parts) and of its value. */
static double qk_dim(const sax_model_desc_t *m) { return head_dim(m) + (double)m->rope_head_dim; }

static bool is_mla(const sax_model_desc_t *m) { return m->kv_lora_rank > 0; }

bool sax_op_sac_priced(const sax_model_desc_t *m) { return m->experts == 0 && !is_mla(m); }

bool sax_eager_priced(const sax_model_desc_t *m)
{
    return sax_op_sac_priced(m) && m->ffn_act == SAX_FFN_SWIGLU;
}

static double attention_params(const sax_model_desc_t *m)
{
    double h = m->hidden, a = m->heads, g = m->kv_heads, d = head_dim(m);
    if (!is_mla(m)) /* Q, K, V projections (K and V have g heads) and the output projection */
        return h * (a * d + 2.0 * g * d) + a * d * h;
    /* MLA (DeepSeek-V2 arXiv 2405.04434 section 2.1): low-rank query and joint KV compression,
     * decoupled rotary key of rope_head_dim shared by all heads. */
    double q = m->q_lora_rank > 0 ? h * m->q_lora_rank + m->q_lora_rank * a * qk_dim(m) : h * a * qk_dim(m);
    double kv = h * (m->kv_lora_rank + m->rope_head_dim) + m->kv_lora_rank * a * (d + d);
    return q + kv + a * d * h;
}

void sax_model_param_split(const sax_model_desc_t *m, sax_param_split_t *out)
{
    double h = m->hidden, kf = ffn_matrices(m);
    out->per_layer_attn = attention_params(m) + 2.0 * h; /* + two norms */
    out->per_dense_mlp = kf * h * m->ffn_hidden;
    out->per_moe_routed = (double)m->experts * kf * h * m->expert_ffn_hidden;
    out->per_moe_shared = (double)m->shared_experts * kf * h * m->expert_ffn_hidden;
    out->per_moe_router = h * m->experts;
    out->embedding = (double)m->vocab * h;
    out->output = m->tied_embeddings ? 0.0 : (double)m->vocab * h;
}

static int moe_layers(const sax_model_desc_t *m)
{
    if (m->experts <= 0)
        return 0;
    return m->layers > m->dense_layers ? m->layers - m->dense_layers : 0;
}

void sax_model_param_count(const sax_model_desc_t *m, sax_param_count_t *out)
{
    sax_param_split_t p;
    sax_model_param_split(m, &p);
    int nm = moe_layers(m), nd = m->layers - nm;
    double kf = ffn_matrices(m);
    out->per_dense_layer = p.per_layer_attn + p.per_dense_mlp;
    out->per_moe_layer = p.per_layer_attn + p.per_moe_routed + p.per_moe_shared + p.per_moe_router;
    out->per_moe_layer_active = p.per_layer_attn + p.per_moe_shared + p.per_moe_router +
                                (double)m->top_k * kf * m->hidden * m->expert_ffn_hidden;
    out->embedding = p.embedding + p.output;
    out->total = nd * out->per_dense_layer + nm * out->per_moe_layer + out->embedding;
    out->active = nd * out->per_dense_layer + nm * out->per_moe_layer_active + out->embedding;
}

/* Contract (contract.md, "mfu"): 6 x non-embedding active parameters per token, plus
 * 12 x layers x hidden x seq per token for the score and value products (no causal halving;
 * a*head_dim replaces hidden for MLA), plus the logits layer 6 x hidden x vocab per token. */
double sax_model_flops_per_iteration(const sax_model_desc_t *m, int64_t global_batch)
{
    sax_param_count_t pc;
    sax_model_param_count(m, &pc);
    double tokens = (double)global_batch * m->seq_len;
    double attn_width = is_mla(m) ? m->heads * 0.5 * (qk_dim(m) + head_dim(m)) : (double)m->hidden;
    double dense = 6.0 * (pc.active - pc.embedding);
    double attn = 12.0 * m->layers * attn_width * m->seq_len;
    double logits = 6.0 * (double)m->hidden * m->vocab;
    return tokens * (dense + attn + logits);
}

/* Forward time of a GEMM of m x k by k x n repeated `batch` times. */
static double gemm(const sax_gpu_t *gpu, sax_precision_t prec, double batch, double mm, double n, double k)
{
    if (mm <= 0.0 || n <= 0.0 || k <= 0.0 || batch <= 0.0)
        return 0.0;
    return batch * sax_gemm_time_s(gpu, mm, n, k, prec);
}

/* The sequence length at which a flash-attention kernel runs at half its long-sequence speed: Shah et
 * al., FlashAttention-3 (arXiv 2407.08608), H100 figures, s / (s + k) through each kernel's speed at 512
 * and at 16K tokens: k from 270 (FlashAttention-2 backward) to 610 (FlashAttention-3 forward), cuDNN's 385
 * forward and 370 backward (docs/cost-model.md section 2). */
#define SAX_ATTN_HALF_SEQUENCE 400.0

/* The chance that j draws without replacement from n items all avoid `out` of them: C(n - out, j) / C(n, j). */
static double draws_avoid(double n, double out, int j)
{
    double r = 1.0;
    for (int i = 0; i < j; i++)
        r *= sax_max(0.0, n - out - i) / (n - i);
    return r;
}

/* C(n, j) as a double (n small: groups of experts); 0 outside 0 <= j <= n. */
static double choose(int n, int j)
{
    if (j < 0 || j > n)
        return 0.0;
    double r = 1.0;
    for (int i = 0; i < j; i++)
        r *= (double)(n - i) / (i + 1);
    return r;
}

/* The chance that a token's experts all miss a domain holding `held` consecutive experts, with k of E drawn
 * at random: C(E - held, k) / C(E, k). Under group-limited routing (G groups of s = E / G consecutive
 * experts, a token's k drawn from the s gk experts of gk groups picked at random), a domain holding whole
 * groups (held = h s) has j of the picked groups with the hypergeometric chance C(h, j) C(G - h, gk - j) /
 * C(G, gk) and then misses with C(s gk - j s, k) / C(s gk, k); a domain inside one group (s = r held) is
 * picked with gk / G and then missed with C(s gk - held, k) / C(s gk, k). Domains that do not align with
 * the groups are taken as unlimited. */
static double domain_miss(const sax_model_desc_t *m, double held)
{
    const double E = m->experts;
    const int G = m->moe_router_num_groups, gk = m->moe_router_group_topk, k = m->top_k;
    const double s = G > 0 ? E / G : E;
    const bool whole = G > 0 && fmod(held, s) == 0.0, inside = G > 0 && fmod(s, held) == 0.0;
    if (!(whole || inside) || gk >= G)
        return draws_avoid(E, held, k);
    const double picked = s * gk;
    if (inside)
        return 1.0 - (double)gk / G + (double)gk / G * draws_avoid(picked, held, k);
    const int h = (int)(held / s);
    double miss = 0.0;
    for (int j = 0; j <= gk && j <= h; j++)
        miss += choose(h, j) * choose(G - h, gk - j) / choose(G, gk) * draws_avoid(picked, j * s, k);
    return miss;
}

/* The head dimension a flash-attention kernel computes with: it rounds the model's up to a size it was
 * built for and works on the padding too (docs/cost-model.md section 2). FlashAttention-1 and the
 * Triton kernels of its generation: the next power of two (llm-foundry's flash_attn_triton.py,
 * BLOCK_HEADDIM); FlashAttention-2: a multiple of 32 up to 192, then 256 (flash_api.cpp,
 * head_size_rounded); FlashAttention-3: 64, 96, 128, 192 or 256; cuDNN's fused kernel: a multiple of 8. */
static double kernel_head_dim(sax_attn_backend_t backend, double d)
{
    switch (backend) {
    case SAX_ATTN_FLASH1: {
        double p = 16.0;
        while (p < d)
            p *= 2.0;
        return p;
    }
    case SAX_ATTN_FLASH2: return d <= 192.0 ? 32.0 * ceil(d / 32.0) : 256.0;
    case SAX_ATTN_FLASH3:
        return d <= 64.0 ? 64.0 : d <= 96.0 ? 96.0 : d <= 128.0 ? 128.0 : d <= 192.0 ? 192.0 : 256.0;
    default: return 8.0 * ceil(d / 8.0);
    }
}

void sax_layer_cost(const sax_model_desc_t *m, const sax_gpu_t *gpu, const sax_training_t *tr, int tp, int cp,
                    int ep, int etp, int b, bool sp, bool moe, sax_layer_cost_t *out)
{
    /* Under fp8 (Transformer Engine's recipe as Megatron-LM applies it) only the transformer layers'
     * linear layers run in fp8: the attention core stays in bf16 unless
     * training.fp8_dot_product_attention says otherwise, and the router is a plain bf16 GEMM
     * (docs/cost-model.md section 2). */
    const sax_precision_t prec = tr->precision;
    const sax_precision_t attn_prec = tr->fp8_dot_product_attention ? prec : SAX_PRECISION_BF16;
    const bool flash = tr->flash_attention, drop = tr->dropout;
    const double t = tp, h = m->hidden, a = m->heads, g = m->kv_heads, s = m->seq_len;
    const double d = head_dim(m), dqk = qk_dim(m), kf = ffn_matrices(m);
    const double sl = s / cp;   /* local sequence under context parallelism */
    const double tok = b * sl;  /* tokens of the micro-batch on this GPU */
    const double heads = a / t; /* heads on this GPU */
    double gemm_s = 0.0, flops = 0.0;

    /* attention projections */
    out->mla_up_s = 0.0;
    /* torchtitan's models, which PyTorch DTensor's TP runs (training.tp_implementation "dtensor"), keep
     * the query, key and value projections and the FFN's gate and up projections as separate nn.Linear
     * (wq, wk, wv; w1, w3): at high TP the key and value GEMMs are narrow (a GQA model's 8 KV heads at TP 8:
     * 128 columns) and wait on their bytes. Megatron-LM fuses each into one GEMM (linear_qkv, linear_fc1). */
    const bool dtensor = tr->tp_implementation == SAX_TP_IMPL_DTENSOR;
    const bool sharded_tp = dtensor && sp && t > 1.0; /* DTensor's TP over sequence shards */
    if (!is_mla(m)) {
        out->tp_gemm_s[SAX_TP_GEMM_QKV] =
            dtensor ? gemm(gpu, prec, 1, tok, a * d / t, h) + gemm(gpu, prec, 2, tok, g * d / t, h)
                    : gemm(gpu, prec, 1, tok, (a * d + 2.0 * g * d) / t, h);
        gemm_s += out->tp_gemm_s[SAX_TP_GEMM_QKV];
        flops += 2.0 * tok * h * (a * d + 2.0 * g * d) / t;
    } else {
        /* the up-projections alone, from the query latent (or the hidden state without one) and the KV
         * latent to every head's query and its key and value: what recompute module mla_up_proj runs again */
        out->mla_up_s = gemm(gpu, prec, 1, tok, heads * dqk, m->q_lora_rank > 0 ? m->q_lora_rank : h) +
                        gemm(gpu, prec, 1, tok, heads * 2.0 * d, m->kv_lora_rank);
        double q = m->q_lora_rank > 0 ? h * m->q_lora_rank + m->q_lora_rank * a * dqk : h * a * dqk;
        double kv = h * (m->kv_lora_rank + m->rope_head_dim) + m->kv_lora_rank * a * 2.0 * d;
        double eq_n = (q + kv) / h / t; /* an equivalent single GEMM of the same FLOPs */
        out->tp_gemm_s[SAX_TP_GEMM_QKV] = gemm(gpu, prec, 1, tok, eq_n, h);
        gemm_s += out->tp_gemm_s[SAX_TP_GEMM_QKV];
        flops += 2.0 * tok * (q + kv) / t;
    }
    out->tp_gemm_s[SAX_TP_GEMM_PROJ] = gemm(gpu, prec, 1, tok, h, a * d / t);
    gemm_s += out->tp_gemm_s[SAX_TP_GEMM_PROJ];
    flops += 2.0 * tok * a * d * h / t;

    /* scores Q K^T and the value product, per head: (sl x dqk) x (dqk x s), (sl x s) x (s x d).
     * Unfused (Megatron 2021): two batched GEMMs through HBM, the full square computed.
     * Flash attention (Dao et al. 2022): one fused kernel whose operands are Q, K, V and O only,
     * skipping the masked half of the causal square; its backward recomputes the scores (5 GEMMs
     * against 2 forward: 2.5x). */
    double attn_flops = 2.0 * b * heads * sl * s * (dqk + d), attn_s;
    if (flash) {
        /* at the measured speed of the run's kernel on this GPU (forward and backward together, section
         * 2), which grows with the sequence each call works on (the local one under CP) as sl / (sl +
         * 400): FlashAttention-3's figures of every kernel's speed from 512 to 16K tokens; or without a
         * measurement at the GEMM curve's efficiency for the kernel's intensity */
        double eff = gpu->attn_eff[tr->attention_backend] * sl / (sl + SAX_ATTN_HALF_SEQUENCE);
        if (eff <= 0.0) {
            double ai = 2.0 * sl * s * (dqk + d) /
                        ((attn_prec == SAX_PRECISION_FP8 ? 1.0 : 2.0) * (sl + s) * (dqk + d));
            eff = sax_gemm_efficiency_ai(gpu, ai, attn_prec);
        }
        /* the kernel computes at its padded head dimensions: the time, not the model's FLOPs */
        const double pad =
            (kernel_head_dim(tr->attention_backend, dqk) + kernel_head_dim(tr->attention_backend, d)) /
            (dqk + d);
        attn_s = 0.5 * attn_flops * pad / (sax_gpu_peak_flops(gpu, attn_prec) * eff);
        out->attn_bwd_s = 2.5 * attn_s;
    } else {
        attn_s = gemm(gpu, attn_prec, b * heads, sl, s, dqk) + gemm(gpu, attn_prec, b * heads, sl, d, s);
        out->attn_bwd_s = 2.0 * attn_s;
    }
    flops += attn_flops;

    /* MLP, or routed + shared experts; `width` is the FFN width one token passes through */
    double perm = 0.0;                   /* the MoE token dispatcher's copies, bytes each way */
    double width, params, fc_rows = 1.0; /* fc_rows: the MLP's input rows a token makes here (its top_k
                                              routed copies, etp/tp of them on this GPU, and one for the
                                              shared experts under MoE) */
    sax_param_split_t ps;
    sax_model_param_split(m, &ps);
    if (!moe) {
        double f = m->ffn_hidden;
        width = f;
        out->tp_gemm_s[SAX_TP_GEMM_MLP_IN] = dtensor ? gemm(gpu, prec, kf - 1.0, tok, f / t, h)
                                                     : gemm(gpu, prec, 1, tok, (kf - 1.0) * f / t, h);
        out->tp_gemm_s[SAX_TP_GEMM_MLP_OUT] = gemm(gpu, prec, 1, tok, h, f / t);
        gemm_s += out->tp_gemm_s[SAX_TP_GEMM_MLP_IN] + out->tp_gemm_s[SAX_TP_GEMM_MLP_OUT];
        flops += 2.0 * tok * kf * h * f / t;
        params = (ps.per_layer_attn + ps.per_dense_mlp) / t;
        out->expert_params = 0.0;
        out->ep_bytes = 0.0;
        out->etp_bytes = 0.0;
    } else {
        /* The routed experts on their own grid (Megatron-Core's MoE parallel folding): each stage's
         * tp x cp x dp ranks as etp x ep x expert-DP. An etp group routes tok x etp / tp distinct tokens
         * (the stage's tokens over its ep x expert-DP groups), each expert receives its share of the
         * ep groups' tokens, and its matrices are split etp ways; per GPU the work stays tok x k / tp
         * tokens' worth. With etp = tp: tok x k x ep / experts tokens per local expert. */
        const double attn_gemm_s = gemm_s;
        double ef = m->expert_ffn_hidden, k = m->top_k, e = ep, et = etp;
        double local_experts = (double)m->experts / e, group_tok = tok * et / t;
        double per_expert = group_tok * k * e / m->experts;
        gemm_s += gemm(gpu, prec, local_experts, per_expert, (kf - 1.0) * ef / et, h) +
                  gemm(gpu, prec, local_experts, per_expert, h, ef / et);
        flops += 2.0 * tok * k * kf * h * ef / t;
        double sh = (double)m->shared_experts * ef;
        gemm_s += gemm(gpu, prec, 1, tok, (kf - 1.0) * sh / t, h) + gemm(gpu, prec, 1, tok, h, sh / t);
        flops += 2.0 * tok * kf * h * sh / t;
        gemm_s += gemm(gpu, SAX_PRECISION_BF16, 1, tok, m->experts, h); /* router */
        out->tp_gemm_s[SAX_TP_GEMM_MLP_IN] = out->tp_gemm_s[SAX_TP_GEMM_MLP_OUT] =
            0.5 * (gemm_s - attn_gemm_s);
        flops += 2.0 * tok * h * m->experts;
        width = k * ef + sh;
        fc_rows = k * et / t + (m->shared_experts > 0 ? 1.0 : 0.0); /* per token of this GPU's tok */
        params =
            (ps.per_layer_attn + ps.per_moe_shared) / t + ps.per_moe_router + ps.per_moe_routed / (e * et);
        out->expert_params = ps.per_moe_routed / (e * et);
        /* Megatron-Core's token dispatchers (megatron/core/transformer/moe/token_dispatcher.py at
         * d98e8a64dd) copy the routed tokens in HBM around the two all-to-alls, bf16, 2 B an element,
         * and the backward moves the gradients back through the same copies. The all-to-all one
         * (MoEAlltoAllTokenDispatcher) permutes the tokens into expert order before the dispatch, one
         * copy per routed expert (k h elements read and k h written a token), and, with more than one
         * local expert, sorts the received chunks by expert after it (the same again); the combine
         * undoes both, its last step weighting the k copies by their router probabilities and summing
         * them into one (k h read, h written). Its all-to-all carries the k copies. The flex one over
         * DeepEP (MoEFlexTokenDispatcher) sends a token once to each GPU that holds one of its experts
         * and permutes the received tokens once, into expert order, and back before the combine. With
         * k of E experts drawn at random, a GPU holding E / ep of them misses a token with probability
         * C(E - E/ep, k) / C(E, k), less often under group-limited routing (domain_miss). Per token of this
         * GPU: k etp / tp copies. */
        double copies = k * et / t, sends = k;
        bool flex = tr->moe_token_dispatcher == SAX_MOE_DISPATCHER_FLEX;
        if (flex)
            sends = e * (1.0 - domain_miss(m, (double)m->experts / e));
        double copy_passes = flex ? 3.0 : 3.0 + (local_experts > 1.0 ? 4.0 : 0.0);
        perm = tok * h * SAX_ACT_BYTES * (copies * copy_passes + et / t);
        out->ep_bytes = group_tok * sends * h * SAX_ACT_BYTES;
        out->etp_bytes = group_tok * h * SAX_ACT_BYTES;
    }
    /* the routed experts' activation function: reads FC1's kf - 1 outputs, writes one, tok x k x ef / tp
     * elements each on this GPU (SwiGLU: 3 x 2 B an element); what recompute module moe_act runs again */
    const double routed_w = moe ? (double)m->top_k * m->expert_ffn_hidden : 0.0; /* per token */
    out->moe_act_s = tok * SAX_ACT_BYTES * kf * routed_w / t / (gpu->hbm_bw_Bps * gpu->mem_eff);

    /* Memory-bound kernels, forward, bytes read + written per token: two norms (8h), two residual
     * adds (12h), two dropouts, the activation function (kf * width elements) and, unfused, per
     * head and key: Megatron's fused scale-mask-softmax (2 B in, 2 B out) and the attention dropout
     * after it (2 B in, 2 B out, 1 B mask), the 5as of Korthikanti et al.'s memory count.
     * The dropouts: in the residual add's kernel (training.bias_dropout_fusion, Megatron-LM's
     * bias_dropout_add_fused_train) only their 1 B masks are written (2h); apart, each reads and writes
     * its 2 B elements and writes its mask (10h). Their backward reads the gradient and the mask and
     * writes the gradient either way: fusion saves forward bytes only (fused_saved, added back to the
     * backward's twice-the-forward count).
     * Without sequence parallelism norms, residuals and dropouts are replicated on every TP rank.
     * Without dropout (training.dropout false) they and, unfused, the attention dropout's 5 B go. */
    double rep = sp ? t : 1.0;
    double fused_saved = drop && tr->bias_dropout_fusion ? tok * 8.0 * h / rep : 0.0;
    double bytes = tok * ((drop ? 30.0 : 20.0) * h / rep + SAX_ACT_BYTES * kf * width / t +
                          (flash ? 0.0 : (drop ? 9.0 : 4.0) * heads * s)) -
                   fused_saved;
    /* FP8 (Transformer Engine on Hopper and later, per-tensor scaling): an fp8 GEMM takes its operands
     * in fp8, and the weight gradient takes the input and the output gradient transposed, so every
     * activation operand gets an fp8 copy and an fp8 transpose. Where the producing kernel writes fp8
     * itself (the norms before QKV and FC1, the activation function before FC2: TE's LayerNormLinear and
     * LayerNormMLP) only the transpose is extra, 1 B read + 1 B written an element; the output
     * projection's input (the attention output) is cast and transposed in one kernel, 2 B read + 2 B
     * written. In the backward pass each GEMM's output gradient is cast and transposed alike (4 B an
     * element), FC1's fused with the activation's backward (only its 2 B of fp8 written are extra).
     * Weights are cast once an iteration (TE caches them over the micro-batches): not counted. That is
     * the delayed recipe (the scale from an amax history). The others, as Transformer Engine runs them
     * (transformer_engine/pytorch/csrc at d0067d0da):
     * - tensorwise (current scaling) needs a tensor's amax before its cast: the norms and the activation
     *   functions write bf16 and their amax (normalization.cpp FUSED_NORM_AMAX_FP8, activation.cpp
     *   FUSED_ACTIVATION_AMAX_FP8), then a cast reads it back and writes the fp8 copy and transpose: 2 B an
     *   element more than the fused write (4 more for the activation's backward, which wrote fp8 itself);
     *   every other cast (quantizer.cpp, quantize_impl) first reads the tensor once for its amax: 2 B more.
     * - mxfp8 (a scale per 32 elements, found in the cast itself) fuses the activation functions' casts
     *   as delayed does, but not the norms' (normalization.cpp: UNFUSED without cuDNN's kernel): 2 B an
     *   element more there; its scales are 1/32 of a byte an element, not counted.
     * - blockwise (Float8BlockScaling: 1 x 128 tiles, found in the cast, which writes both the rowwise and
     *   the columnwise copy) casts the norms' outputs apart (normalization.cpp quantizes the unquantized
     *   output) and the activation functions' too (activation.cpp refuses to fuse "blockwise
     *   quantization"): tensorwise's casts apart without its amax reads; its scales, 1/128 of a float an
     *   element, not counted. */
    double cast_fwd = 0.0, cast_bwd = 0.0, eager_fwd = 0.0, eager_bwd = 0.0, ring_fwd = 0.0, ring_bwd = 0.0;
    if (prec == SAX_PRECISION_FP8) {
        cast_fwd = tok * (2.0 * h + 4.0 * a * d / t + 2.0 * fc_rows * h + 2.0 * width / t);
        cast_bwd = tok * (4.0 * (a * d + 2.0 * g * d) / t + 4.0 * h + 2.0 * (kf - 1.0) * width / t +
                          4.0 * fc_rows * h);
        if (tr->fp8_recipe != SAX_FP8_RECIPE_DELAYED) /* the norms' outputs cast apart from the norms */
            cast_fwd += tok * 2.0 * (h + fc_rows * h);
        if (tr->fp8_recipe == SAX_FP8_RECIPE_TENSORWISE) {
            cast_fwd += tok * 2.0 * (a * d / t + width / t); /* projection input's amax; FC2 input's cast */
            cast_bwd +=
                tok * (2.0 * ((a * d + 2.0 * g * d) / t + h + fc_rows * h) + 4.0 * (kf - 1.0) * width / t);
            if (sharded_tp) {
                /* torchao's Float8 TP (PrepareFloat8ModuleInput, Float8ColwiseParallel and
                 * Float8RowwiseParallel) casts the column-parallel layers' inputs and the row-parallel
                 * layers' output gradients on the local sequence shard, then gathers them in FP8: the norms'
                 * outputs cast apart (2 B an element) and those gradients' amax reads (2 B) and casts (2 B
                 * read, 1 written) run on tok / t rows; the transposes for the weight gradients (1 B read, 1
                 * written) still run on all of them, apart from the cast. */
                const double sharded = 1.0 - 1.0 / t;
                cast_fwd -= tok * 2.0 * (h + fc_rows * h) * sharded;
                cast_bwd -= tok * (h + fc_rows * h) * (4.0 - (3.0 / t + 2.0) + 2.0 * sharded);
            }
        } else if (tr->fp8_recipe == SAX_FP8_RECIPE_BLOCKWISE) {
            cast_fwd += tok * 2.0 * width / t; /* FC2 input's cast apart */
            cast_bwd += tok * 4.0 * (kf - 1.0) * width / t;
        }
    }
    /* Kernels a layer launches (Megatron-Core with Transformer Engine): forward, norm, QKV, rotary
     * embedding, attention, projection, bias-dropout-add, norm, FC1, activation, FC2, bias-dropout-add
     * (11); backward, two GEMMs (data and weight gradient) for each of the four, attention's three
     * (preprocess, main, dQ postprocess), the two norms' backward and their weight reductions (4), the
     * activation's, the two residual adds' and the rotary embedding's (20); MoE adds the router, its
     * top-k and the permute and unpermute around the experts (4 forward, 4 backward); fp8 its casts
     * (4 forward, 4 backward); TP its collectives (timed as communication, not here). */
    double kern_f = 11.0 + (moe ? 4.0 : 0.0) + (prec == SAX_PRECISION_FP8 ? 4.0 : 0.0);
    double kern_b = 20.0 + (moe ? 4.0 : 0.0) + (prec == SAX_PRECISION_FP8 ? 4.0 : 0.0);
    /* PyTorch eager (training.elementwise_kernels "eager"): torchtitan's Llama block without
     * torch.compile (torchtitan/models/llama/model.py and models/norms.py at 9dec370), bytes read +
     * written a token beyond the fused kernels counted above, bf16 activations, q = a d / t query and
     * kv = g d / t key elements on this GPU:
     * - RMSNorm, _norm(x.float()).type_as(x) * weight: the cast to fp32 (2 + 4 B), pow (4 + 4), mean
     *   (4), the product with the reciprocal root (4 + 4), the cast back (4 + 2), the weight's product
     *   (2 + 2): 36 B an element against the fused 4, 32 more; its autograd backward, the weight's product
     *   (4) and reduction (8), the casts (6 + 6), the product's two gradients (8 + 16), mean's expanded
     *   gradient (4), pow's (12) and their sum (12): 76 B against the fused 8, 68 more. Two norms.
     * - apply_rotary_emb, for Q and K: to fp32 (2 + 4), the complex product (4 + 4), back to bf16
     *   (4 + 2): 20 B an element forward and again backward, where the fused count has none.
     * - repeat_kv materialises K and V for every query head: 2 kv read + 2 q written each, forward; the
     *   backward sums them back, the same bytes.
     * - SwiGLU, F.silu(w1(x)) * w3(x): silu (2 + 2) apart from the product (4 + 2), 4 B an element more
     *   than one fused kernel; backward the product's two gradients (6 + 6) and silu's (4 + 2), 6 more.
     * Residual adds are one kernel either way. Kernels: 16 for the norms, 6 rotary, 2 copies, 2 SwiGLU
     * forward (22 beyond the fused count's 4 of them); backward about 12 a norm, 6, 2 and 3 (29 more). */
    if (tr->elementwise_kernels == SAX_ELEMENTWISE_EAGER && sax_eager_priced(m)) {
        const double q = a * d / t, kv = g * d / t, f = m->ffn_hidden / t;
        eager_fwd = tok * (64.0 * h / rep + 24.0 * (q + kv) + 4.0 * f);
        eager_bwd = tok * (136.0 * h / rep + 24.0 * (q + kv) + 6.0 * f);
        kern_f += 22.0;
        kern_b += 29.0;
    }
    /* PyTorch's ring attention (training.cp_implementation "pytorch";
     * torch/distributed/tensor/experimental/_attention.py, _templated_ring_attention and its backward,
     * with load balancing and K and V repeated to every query head), in bytes of each element of the
     * local queries' output, q = a d / t a token, on the last CP rank, whose every step after the first
     * uses all its queries (the others merge half at some steps; the slowest sets the pace):
     * - forward: K and V made contiguous (4 B each, 8); at each step but the last their concatenation
     *   for the exchange (8); each step's output cast to fp32 (2 + 4); from the second step on the merge
     *   out - sigmoid(lse' - lse) (out - out'), three fp32 passes (12 + 8 + 12); the result cast back
     *   (4 + 2): 66 + 46 (c - 2) = 46 c - 26;
     * - backward: fp32 gradient accumulators for Q, K and V zeroed (12) and K and V made contiguous
     *   again (8); at each step the concatenation of K and V but at the last (8), the fp32 K and V
     *   gradients concatenated for the exchange (16) and dQ added to its fp32 accumulator (10); the
     *   first step adds dK and dV to theirs (20), the others to the first half of the gradients that
     *   arrived, which torch.cat then rebuilds (2 x (5 + 8)); dQ and the received dK, dV cast back
     *   (6 + 12): 92 + 52 (c - 1) + 8 (c - 2) = 60 c + 16.
     * Kernels: about 9 a step forward and 7 backward. */
    out->ring_s = 0.0;
    if (cp > 1 && tr->cp_implementation == SAX_CP_IMPL_PYTORCH) {
        const double qn = tok * a * d / t, c = cp;
        ring_fwd = qn * (46.0 * c - 26.0);
        ring_bwd = qn * (60.0 * c + 16.0);
        kern_f += 9.0 * c;
        kern_b += 7.0 * c;
        out->ring_s = ring_fwd / (gpu->hbm_bw_Bps * gpu->mem_eff) + 9.0 * c * gpu->kernel_overhead_s;
    }
    /* torch's async TP (tp_implementation "dtensor" with tp_comm_overlap; _fused_matmul_reduce_scatter_impl
     * in torch/distributed/_symmetric_memory/__init__.py) computes each destination's rows of a GEMM that
     * feeds a reduce-scatter, pulls the partial sums the other ranks computed for its own rows, and adds
     * them up in one more kernel: it reads the stacked partials, as large as the unscattered output
     * (tok x h), and writes its tok/t rows, 2 B an element. In the forward, after the projection and the
     * FFN's second GEMM (a MoE layer's experts are not one matrix multiply: the projection's only). NCCL's
     * reduce-scatter sums as it moves the data. */
    double sum_fwd = 0.0;
    out->tp_sum_s = 0.0;
    if (sharded_tp && tr->tp_comm_overlap) {
        const double fused = moe ? 1.0 : 2.0;
        sum_fwd = fused * tok * h * SAX_ACT_BYTES * (1.0 + 1.0 / t);
        kern_f += fused;
        out->tp_sum_s = sum_fwd / (gpu->hbm_bw_Bps * gpu->mem_eff) + fused * gpu->kernel_overhead_s;
    }
    out->elem_s =
        (bytes + cast_fwd + perm + eager_fwd + ring_fwd + sum_fwd) / (gpu->hbm_bw_Bps * gpu->mem_eff) +
        kern_f * gpu->kernel_overhead_s;
    out->elem_bwd_s = (2.0 * (bytes + fused_saved) + cast_bwd + perm + eager_bwd + ring_bwd) /
                          (gpu->hbm_bw_Bps * gpu->mem_eff) +
                      kern_b * gpu->kernel_overhead_s;

    /* Korthikanti eq. (1)-(3) generalised, bytes per token: attention 11h -> (7 + 4g/a)h (GQA
     * shrinks K and V: 3h of QKV input and dropout mask, qkvo = (4 + 4g/a)h of Q, K, V and the output
     * projection's input; MLA's below), norms 4h, MLP 19h -> 3h + 2 kf width, scores 5 a s (per local
     * query).
     * With TP alone, 10h of it (norm inputs, the two GEMM inputs, dropout masks) stays replicated.
     * FP8 (Transformer Engine): each linear layer keeps its input for the weight gradient as the
     * FP8 copy it cast for the forward GEMM, 1 B instead of 2: the QKV, projection and FC1 inputs
     * (h each; MLA's projection input a x d) and the FC2 input (width) - 3h + width less
     * (docs/cost-model.md section 8).
     * Without dropout its two masks (h each) and, unfused, the attention's mask and output (3as) go. */
    const bool fp8 = prec == SAX_PRECISION_FP8;
    double qkvo = (4.0 + 4.0 * g / a) * h, proj_in = h, latents = 0.0;
    if (is_mla(m)) {
        /* MLA (docs/cost-model.md section 1): the attention core keeps the up-projected Q, K (a x d_qk
         * each) and V (a x d), the output projection its input (a x d); each latent norm (query, KV) its
         * input and the up-projection after it the norm's output (1 B as the FP8 copy), replicated over
         * TP without SP like the layer's norms */
        proj_in = a * d;
        qkvo = SAX_ACT_BYTES * (a * (2.0 * dqk + d) + proj_in);
        latents = (SAX_ACT_BYTES + (fp8 ? 1.0 : SAX_ACT_BYTES)) * ((double)m->q_lora_rank + m->kv_lora_rank);
    }
    double fp8_saved = fp8 ? 2.0 * h + proj_in + width : 0.0;
    double masks = drop ? 0.0 : 2.0 * h;
    double per_tok = 3.0 * h + qkvo + latents + (4.0 + 3.0) * h + 2.0 * kf * width - fp8_saved - masks;
    /* PyTorch DTensor's TP (training.tp_implementation "dtensor") keeps the gathered input of QKV and FC1
     * for the weight gradient (autograd saves the matrix multiply's replicated input, torchao's Float8
     * TP its FP8 copy), where Megatron-LM keeps the shard and gathers it again in the backward */
    double gathered = sp && dtensor ? 2.0 * (fp8 ? 1.0 : SAX_ACT_BYTES) * h : 0.0;
    double replicated = sp ? gathered : 10.0 * h - masks + latents;
    double split = per_tok - replicated;
    double scores = flash ? 0.0 : (drop ? 5.0 : 2.0) * a * s; /* flash attention keeps no score matrix */
    out->act_bytes = tok * (replicated + split / t + scores / t);
    out->act_sel_bytes = tok * (replicated + split / t);
    out->act_full_bytes = tok * SAX_ACT_BYTES * h / (sp ? t : 1.0);
    /* the norms' outputs, the QKV and FC1 inputs (2h each; h as the FP8 copies), replicated over TP
     * without SP: what Megatron-Core's --recompute-modules layernorm frees, recomputing the two norms
     * (8h bytes of traffic a token, 2 in and 2 out each) in the backward */
    out->act_norm_bytes = tok * (prec == SAX_PRECISION_FP8 ? 2.0 : 4.0) * h / rep;
    out->norm_s = tok * 8.0 * h / rep / (gpu->hbm_bw_Bps * gpu->mem_eff);
    /* Megatron-Core's mla_up_proj (multi_latent_attention.py) discards Q, K and V once the attention core
     * has run and keeps the checkpoint's inputs: the latents (kept anyway by the up-projections) and the
     * rotary key part k_pe (rope_head_dim a token, on every TP rank), which nothing else keeps */
    out->act_mla_up_bytes =
        is_mla(m) ? tok * SAX_ACT_BYTES * (a * (2.0 * dqk + d) / t - (double)m->rope_head_dim) : 0.0;
    /* moe_act (experts.py) discards the activation's output, the FC2 input, and keeps its input (FC1's
     * output): 2 B an element, 1 B where FP8 kept only the FC2 input's FP8 copy */
    out->act_moe_act_bytes = tok * (fp8 ? 1.0 : SAX_ACT_BYTES) * routed_w / t;
    /* torchtitan's per-op selective checkpointing (training.selective_ac_option "op"; _save_list and
     * _custom_policy in torchtitan/models/llama3/parallelize_llama.py at 820504e20d, the same at
     * 9dec370): a block keeps its input and the outputs of the saved ops, aten.mm but every second one in
     * the block's order (wq, wk, wv, wo, w1, w3, w2: wk, wo and w3 run again; wk, wo and w2 of a GELU
     * block), the flash-attention kernel (its output and fp32 log-sum-exp) and TP's reduce-scatters, and
     * recomputes everything else in the backward, the norms, the rotary embedding, the activation and
     * TP's all-gathers included. The FFN's last product before a reduce-scatter holds every token's
     * partial sums (2h a token on each TP rank). Float8Linear's GEMMs (aten._scaled_mm) are not in the
     * list, which eager PyTorch would recompute all; torch.compile takes PREFER_RECOMPUTE as a hint, and
     * torchtitan's compiled Float8 runs hold what its BF16 runs hold (76.8 against 77.0 GiB, its Table 1),
     * so fp8 is priced as BF16 is (docs/cost-model.md section 8). */
    out->act_op_bytes = 0.0;
    out->op_sac_s = 0.0;
    if (tr->selective_ac_option == SAX_SELECTIVE_AC_OP && sax_op_sac_priced(m)) {
        const double f = m->ffn_hidden;
        const bool swiglu = kf == 3.0;
        double kept = SAX_ACT_BYTES * (h / rep + 2.0 * a * d / t + g * d / t + f / t + (swiglu ? h : 0.0) +
                                       (t > 1.0 ? 2.0 * h / t : 0.0)) +
                      4.0 * a / t;
        out->act_op_bytes = tok * kept;
        out->op_sac_s = gemm(gpu, prec, 1, tok, g * d / t, h) + gemm(gpu, prec, 1, tok, h, a * d / t) +
                        (swiglu ? gemm(gpu, prec, 1, tok, f / t, h) : gemm(gpu, prec, 1, tok, h, f / t));
    }

    out->gemm_s = gemm_s;
    out->attn_s = attn_s;
    out->flops = flops;
    out->params = params;
    out->tp_bytes = tok * h * SAX_ACT_BYTES;
    /* PyTorch's ring attention under torchtitan exchanges K and V repeated to every query head */
    const double kv_heads = cp > 1 && tr->cp_implementation == SAX_CP_IMPL_PYTORCH ? a : g;
    out->cp_bytes = b * sl * 2.0 * (is_mla(m) ? a * (dqk + d) / 2.0 : kv_heads * d) / t * SAX_ACT_BYTES;
}

double sax_ep_dispatch_speed(const sax_training_t *tr)
{
    return tr->moe_token_dispatcher == SAX_MOE_DISPATCHER_FLEX &&
                   tr->moe_flex_dispatcher_backend == SAX_FLEX_BACKEND_HYBRIDEP
               ? tr->hybridep_efficiency
               : 1.0;
}

/* Across scale-up domains DeepEP's normal kernels (and HybridEP) send a token once to each other domain
 * holding one of its experts, to the GPU of the same local rank there, which forwards it over NVLink (the
 * combine reduces inside the domain first and crosses back once). A domain holding E m / n of the E
 * experts (m of the group's n GPUs) misses a token with domain_miss's chance. sax's all-to-all spreads a
 * GPU's bytes evenly over its n - 1 peers, of which n - m are in other domains: timed with the bytes
 * whose off-domain share is what crosses. */
double sax_ep_dispatch_bytes(const sax_model_desc_t *m, const sax_training_t *tr, const sax_layer_cost_t *moe,
                             const sax_group_t *g)
{
    double domains = g->units[0], n = g->n;
    if (tr->moe_token_dispatcher != SAX_MOE_DISPATCHER_FLEX || !(domains > 1.0) || m->experts <= 0)
        return moe->ep_bytes;
    double per = n / domains, held = m->experts * per / n;
    double across = (domains - 1.0) * (1.0 - domain_miss(m, held)); /* other domains one token reaches */
    return sax_min(moe->ep_bytes, moe->etp_bytes * across * n / (n - per)); /* etp_bytes: one copy */
}

/* The loss over the logits on this GPU, bytes per logit read and written: forward, backward (docs/cost-model.md
 * section 2).
 * - unfused, Megatron's VocabParallelCrossEntropy in fp32 steps (megatron/core/tensor_parallel/
 *   cross_entropy.py): forward, cast the bf16 logits to fp32 (2 in, 4 out), the row maximum (4), subtract
 *   it in place (4 + 4), exp in place (4 + 4), the row sum (4), normalise to the softmax kept for backward
 *   (4 + 4): 38; backward, scale the kept softmax by the incoming gradient in place (4 + 4), cast back to
 *   bf16 (4 + 2): 14.
 * - native (--cross-entropy-loss-fusion; megatron/core/fusions/fused_cross_entropy.py, each step one
 *   jit-fused kernel): cast with the maximum (2 + 4), subtract, exp and sum (4 + 4), normalise (4 + 4): 22;
 *   backward, scale and cast in one (4 + 2): 6.
 * - te (--cross-entropy-fusion-impl te; Transformer Engine's Triton kernels, transformer_engine/common/
 *   triton/cross_entropy.py at d0067d0da): forward, an online-softmax pass over the bf16 logits (2) and a
 *   second that writes the fp32 gradient (2 + 4): 8; backward, scale it in place (4 + 4) and cast it to the
 *   logits' bf16 (4 + 2): 14.
 * Each keeps 4 B a logit (the fp32 softmax or gradient). The target gather and the TP all-reduces move a
 * few values per token. */
static const double loss_bytes[1 + SAX_CE_FUSION_COUNT][2] = {
    {38.0, 14.0}, [1 + SAX_CE_FUSION_NATIVE] = {22.0, 6.0}, [1 + SAX_CE_FUSION_TE] = {8.0, 14.0}};

/* The output layer is Megatron-Core's own ColumnParallelLinear, not a Transformer Engine module, so
 * its GEMM runs in bf16 whatever the training precision. Its rows are the vocabulary as Megatron-LM pads
 * it, up to a multiple of 128 x tp (--make-vocab-size-divisible-by 128; vocab_size_with_padding in
 * megatron/core/tokenizers/utils/build_tokenizer.py at d98e8a64dd), so any vocabulary splits over any
 * TP degree: GPT-2's 50257 is 51200 at TP 8. */
void sax_logits_cost(const sax_model_desc_t *m, const sax_gpu_t *gpu, const sax_training_t *tr, int tp,
                     int cp, int b, sax_logits_cost_t *out)
{
    const double multiple = 128.0 * tp;
    double tok = (double)b * m->seq_len / cp, v = ceil((double)m->vocab / multiple) * multiple / tp;
    double bw = gpu->hbm_bw_Bps * gpu->mem_eff;
    const double *loss = loss_bytes[tr->cross_entropy_loss_fusion ? 1 + tr->cross_entropy_fusion_impl : 0];
    out->gemm_s = gemm(gpu, SAX_PRECISION_BF16, 1, tok, v, m->hidden);
    out->loss_fwd_s = tok * v * loss[0] / bw;
    out->loss_bwd_s = tok * v * loss[1] / bw;
    out->flops = 2.0 * tok * v * m->hidden;
    out->act_bytes = tok * v * 4.0; /* fp32 softmax (or gradient) kept for the loss backward */
}

/* One multi-token-prediction depth's own work on its stage (model.mtp_num_layers, Megatron-Core's
 * MultiTokenPredictionLayer in megatron/core/transformer/multi_token_prediction.py at d98e8a64dd), beside
 * its transformer layer and its output layer and loss, which cost what the main model's do: the shifted
 * tokens' embedding and the main hidden states each through an RMSNorm (enorm, hnorm), concatenated
 * (2h a token), projected back to h by eh_proj (a column-parallel linear layer of 2h x h / tp, in the
 * training precision like the layers' own: forward, data gradient and weight gradient one GEMM each),
 * and the layer's output through its own final RMSNorm. Memory-bound bytes a token: the three norms
 * 4 B an element forward and 8 backward (as the layers' norms, section 2), the concatenation 8 (2h read
 * and written). Kept for the backward: the embedding's output and the final norm's input and output
 * (the output layer's input), 2 B an element, and eh_proj's input, 2 B (1 B as Transformer Engine's FP8
 * copy); the main hidden states the main output layer keeps anyway. All split by TP under sequence
 * parallelism. eh_proj's TP collectives (a gather of its 2h input and of its h output, and their
 * backward) are not priced. Parameters: eh_proj and the three norms, over TP. */
void sax_mtp_cost(const sax_model_desc_t *m, const sax_gpu_t *gpu, const sax_training_t *tr, int tp, int cp,
                  int b, bool sp, sax_mtp_cost_t *out)
{
    const double tok = (double)b * m->seq_len / cp, h = m->hidden, rep = sp ? tp : 1.0;
    const double bw = gpu->hbm_bw_Bps * gpu->mem_eff;
    out->gemm_s = gemm(gpu, tr->precision, 1, tok, h / tp, 2.0 * h);
    out->elem_fwd_s = tok * (3.0 * 4.0 + 8.0) * h / rep / bw + 4.0 * gpu->kernel_overhead_s;
    out->elem_bwd_s = tok * 3.0 * 8.0 * h / rep / bw + 6.0 * gpu->kernel_overhead_s;
    const double proj_in = tr->precision == SAX_PRECISION_FP8 ? 1.0 : SAX_ACT_BYTES;
    out->act_bytes = tok * (3.0 * SAX_ACT_BYTES * h + proj_in * 2.0 * h) / rep;
    out->params = (2.0 * h * h + 3.0 * h) / tp;
}
