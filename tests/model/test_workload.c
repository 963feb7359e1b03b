/* test_workload.c - parameter counts against public totals, FLOPs and activation memory by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model_internal.h"

#include <math.h>

static void assert_within(double got, double want, double rel)
{
    if (fabs(got - want) > rel * fabs(want))
        fail_msg("got %.6g, expected %.6g within %.1f%%", got, want, 100.0 * rel);
}

/* Llama 3 405B (arXiv 2407.21783, Table 3): 126 layers, model dim 16384, FFN 53248, 128 heads,
 * 8 KV heads, vocabulary 128256, SwiGLU, untied embeddings. Public total: 405B. */
static const sax_model_desc_t llama405 = {.name = "llama3-405b",
                                          .layers = 126,
                                          .hidden = 16384,
                                          .ffn_hidden = 53248,
                                          .heads = 128,
                                          .kv_heads = 8,
                                          .vocab = 128256,
                                          .seq_len = 8192,
                                          .ffn_act = SAX_FFN_SWIGLU};

/* GPT-3 175B (arXiv 2005.14165, Table 2.1): 96 layers, d_model 12288, 96 heads, FFN 4 d_model,
 * vocabulary 50257 (Megatron pads to 51200), GELU. Public total: 175B. */
static const sax_model_desc_t gpt3 = {.name = "gpt3-175b",
                                      .layers = 96,
                                      .hidden = 12288,
                                      .ffn_hidden = 49152,
                                      .heads = 96,
                                      .kv_heads = 96,
                                      .vocab = 51200,
                                      .seq_len = 2048,
                                      .ffn_act = SAX_FFN_GELU,
                                      .tied_embeddings = true};

/* DeepSeek-V3 (arXiv 2412.19437, section 4.2): 61 layers, hidden 7168, 128 heads, MLA with
 * q_lora 1536, kv_lora 512, head 128 + rope 64; first 3 layers dense (FFN 18432), then 1 shared +
 * 256 routed experts of 2048, 8 active; vocabulary 129280. Public: 671B total, 37B activated. */
static const sax_model_desc_t dsv3 = {.name = "deepseek-v3",
                                      .layers = 61,
                                      .hidden = 7168,
                                      .ffn_hidden = 18432,
                                      .heads = 128,
                                      .kv_heads = 128,
                                      .vocab = 129280,
                                      .seq_len = 4096,
                                      .ffn_act = SAX_FFN_SWIGLU,
                                      .experts = 256,
                                      .top_k = 8,
                                      .expert_ffn_hidden = 2048,
                                      .shared_experts = 1,
                                      .dense_layers = 3,
                                      .head_dim = 128,
                                      .rope_head_dim = 64,
                                      .q_lora_rank = 1536,
                                      .kv_lora_rank = 512};

static void test_public_parameter_totals(void **state)
{
    (void)state;
    sax_param_count_t pc;
    sax_model_param_count(&llama405, &pc);
    assert_within(pc.total, 405e9, 0.02);
    sax_model_param_count(&gpt3, &pc);
    assert_within(pc.total, 175e9, 0.02);
    sax_model_param_count(&dsv3, &pc);
    assert_within(pc.total, 671e9, 0.02);
    assert_within(pc.active, 37e9, 0.02);
}

/* A model small enough to count by hand: 2 layers, h = 4, f = 16, 2 heads of 2, 1 KV head (GQA),
 * vocabulary 10, GELU, untied.
 *   attention: Q 4x4 = 16, K and V 4x2 each = 16, output 4x4 = 16 -> 48; norms 2 x 4 = 8
 *   MLP: 2 x 4 x 16 = 128;  layer = 48 + 8 + 128 = 184;  two layers 368
 *   embedding 10 x 4 = 40, output layer 40 -> total 448 */
static const sax_model_desc_t tiny = {.name = "tiny",
                                      .layers = 2,
                                      .hidden = 4,
                                      .ffn_hidden = 16,
                                      .heads = 2,
                                      .kv_heads = 1,
                                      .vocab = 10,
                                      .seq_len = 8,
                                      .ffn_act = SAX_FFN_GELU};

static void test_tiny_model_by_hand(void **state)
{
    (void)state;
    sax_param_count_t pc;
    sax_model_param_count(&tiny, &pc);
    assert_true(pc.per_dense_layer == 184.0);
    assert_true(pc.total == 448.0);
    /* contract.md MFU FLOPs per token: 6 x non-embedding active params (368) = 2208, plus
     * 12 x layers x hidden x seq = 12 x 2 x 4 x 8 = 768, plus 6 x hidden x vocab = 240 -> 3216;
     * a batch of 3 sequences of 8 tokens: 24 x 3216 = 77184 */
    assert_true(sax_model_flops_per_iteration(&tiny, 3) == 77184.0);
    /* ReLU and squared ReLU have GELU's two matrices; GeGLU gates like SwiGLU: MLP 3 x 4 x 16 = 192,
     * layer 48 + 8 + 192 = 248, total 2 x 248 + 80 = 576 */
    const struct {
        sax_ffn_act_t act;
        double layer, total;
    } acts[] = {{SAX_FFN_RELU, 184.0, 448.0},
                {SAX_FFN_SQUARED_RELU, 184.0, 448.0},
                {SAX_FFN_GEGLU, 248.0, 576.0},
                {SAX_FFN_SWIGLU, 248.0, 576.0}};
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
        sax_model_desc_t m = tiny;
        m.ffn_act = acts[i].act;
        sax_model_param_count(&m, &pc);
        assert_true(pc.per_dense_layer == acts[i].layer);
        assert_true(pc.total == acts[i].total);
    }
}

/* Forward FLOPs of one layer on one GPU (Narayanan et al. 2021 section 5.1 generalised):
 * b = 1, s = 8, tp = 1: QKV 2 x 8 x 4 x (4 + 2 x 2) = 512, scores + values 2 x 2 heads x 8 x 8 x
 * (2 + 2) = 1024, output 2 x 8 x 4 x 4 = 256, MLP 2 x 8 x 2 x 4 x 16 = 2048 -> 3840. */
static void test_layer_flops_by_hand(void **state)
{
    (void)state;
    sax_gpu_t gpu = {.peak_flops_bf16 = 1e12,
                     .hbm_bytes = 1e9,
                     .hbm_bw_Bps = 1e9,
                     .gemm_eff_max = 1.0,
                     .gemm_eff_half_ai = 1.0,
                     .mem_eff = 1.0};
    sax_training_t tr = {.global_batch = 1,
                         .precision = SAX_PRECISION_BF16,
                         .flash_attention = false,
                         .dropout = true, /* Korthikanti's counts include the dropout masks */
                         .grad_reduce_dtype = SAX_GRAD_DTYPE_FP32};
    sax_layer_cost_t lc;
    sax_layer_cost(&tiny, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &lc);
    assert_true(lc.flops == 3840.0);
    /* with tp = 2 every GEMM and the heads split in two */
    sax_layer_cost(&tiny, &gpu, &tr, 2, 1, 1, 2, 1, false, false, &lc);
    assert_true(lc.flops == 1920.0);
}

/* A GPU whose GEMMs reach their peak at any size and whose HBM moves 1e9 B/s: times are counts. */
static const sax_gpu_t ideal_gpu = {.peak_flops_bf16 = 1e12,
                                    .peak_flops_fp8 = 2e12,
                                    .hbm_bytes = 1e9,
                                    .hbm_bw_Bps = 1e9,
                                    .gemm_eff_max = 1.0,
                                    .gemm_eff_half_ai = 1.0,
                                    .mem_eff = 1.0};

/* The four GEMMs beside a layer's TP collectives (tp_gemm_s: what each can hide, docs/cost-model.md
 * section 6), on the tiny model at the peak (a knee of 1e-12 FLOP/B: every GEMM at 1e12 FLOP/s), 8
 * tokens: QKV 2 x 8 x 4 x (2 x 2 + 2 x 1 x 2) = 512 FLOP, projection 2 x 8 x (2 x 2) x 4 = 256, FC1
 * (GELU) 2 x 8 x 16 x 4 = 1024, FC2 2 x 8 x 4 x 16 = 1024; at TP 2 each half. They add up to the
 * layer's GEMMs. A MoE layer's MLP pair is half its experts', shared experts' and router's GEMMs each.
 * HBM without a limit: no GEMM waits on its bytes (that floor: test_gemm_efficiency_curve). */
static void test_gemms_beside_tp_collectives_by_hand(void **state)
{
    (void)state;
    sax_gpu_t gpu = ideal_gpu;
    gpu.gemm_eff_half_ai = 1e-12;
    gpu.hbm_bw_Bps = INFINITY;
    sax_training_t tr = {.global_batch = 1, .precision = SAX_PRECISION_BF16, .flash_attention = true};
    static const double want[4] = {[SAX_TP_GEMM_QKV] = 512,
                                   [SAX_TP_GEMM_PROJ] = 256,
                                   [SAX_TP_GEMM_MLP_IN] = 1024,
                                   [SAX_TP_GEMM_MLP_OUT] = 1024};
    for (int tp = 1; tp <= 2; tp++) {
        sax_layer_cost_t lc;
        sax_layer_cost(&tiny, &gpu, &tr, tp, 1, 1, tp, 1, false, false, &lc);
        double sum = 0.0;
        for (int k = 0; k < 4; k++) {
            if (fabs(lc.tp_gemm_s[k] - want[k] / tp * 1e-12) > 1e-9 * want[k] * 1e-12)
                fail_msg("TP %d, GEMM %d: %.12g s, expected %.12g s", tp, k, lc.tp_gemm_s[k],
                         want[k] / tp * 1e-12);
            sum += lc.tp_gemm_s[k];
        }
        assert_true(fabs(sum - lc.gemm_s) <= 1e-12 * lc.gemm_s);
    }
    sax_model_desc_t moe = tiny;
    moe.experts = 4;
    moe.top_k = 2;
    moe.expert_ffn_hidden = 8;
    sax_layer_cost_t dense, lc;
    sax_layer_cost(&tiny, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &dense);
    sax_layer_cost(&moe, &gpu, &tr, 1, 1, 2, 1, 1, false, true, &lc);
    assert_true(lc.tp_gemm_s[SAX_TP_GEMM_QKV] == dense.tp_gemm_s[SAX_TP_GEMM_QKV]);
    assert_true(lc.tp_gemm_s[SAX_TP_GEMM_PROJ] == dense.tp_gemm_s[SAX_TP_GEMM_PROJ]);
    assert_true(lc.tp_gemm_s[SAX_TP_GEMM_MLP_IN] == lc.tp_gemm_s[SAX_TP_GEMM_MLP_OUT]);
    double mlp = lc.gemm_s - dense.tp_gemm_s[SAX_TP_GEMM_QKV] - dense.tp_gemm_s[SAX_TP_GEMM_PROJ];
    assert_true(mlp > 0.0 && fabs(2.0 * lc.tp_gemm_s[SAX_TP_GEMM_MLP_IN] - mlp) <= 1e-12 * mlp);
}

/* FP8 as Megatron-LM runs it with Transformer Engine, on the tiny model (h 4, a 2, g 1, head 2, f 16,
 * GELU; s 8, b 1, tp 1: 8 tokens), HBM at 1e9 B/s:
 *   forward casts a token: QKV input transpose 2h = 8, projection input cast + transpose 4ad = 16,
 *   FC1 input transpose 2h = 8, FC2 input transpose 2f = 32 -> 64 B, x 8 tokens = 512 B;
 *   backward: QKV output gradient 4(a + 2g)d = 32, projection 4h = 16, FC1 (fused with GELU's
 *   backward) 2f = 32, FC2 4h = 16 -> 96 B, x 8 = 768 B.
 * The attention core stays at bf16 speed unless fp8_dot_product_attention is set. */
static void test_fp8_casts_and_bf16_attention_by_hand(void **state)
{
    (void)state;
    sax_gpu_t gpu = ideal_gpu;
    sax_training_t tr = {.global_batch = 1, .precision = SAX_PRECISION_BF16, .flash_attention = true};
    sax_layer_cost_t bf, f8, f8dpa;
    sax_layer_cost(&tiny, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &bf);
    tr.precision = SAX_PRECISION_FP8;
    sax_layer_cost(&tiny, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &f8);
    tr.fp8_dot_product_attention = true;
    sax_layer_cost(&tiny, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &f8dpa);
    assert_within(bf.elem_bwd_s, 2.0 * bf.elem_s, 1e-12);
    assert_within(f8.elem_s - bf.elem_s, 512e-9, 1e-9);
    assert_within(f8.elem_bwd_s - bf.elem_bwd_s, 768e-9, 1e-9);
    assert_true(f8.attn_s == bf.attn_s && f8.attn_bwd_s == bf.attn_bwd_s);
    assert_true(f8dpa.attn_s < 0.6 * bf.attn_s);
    /* the linear layers do run at the fp8 peak, where their bytes do not hold them back */
    gpu.hbm_bw_Bps = INFINITY;
    tr.precision = SAX_PRECISION_BF16;
    sax_layer_cost(&tiny, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &bf);
    tr.precision = SAX_PRECISION_FP8;
    sax_layer_cost(&tiny, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &f8);
    assert_true(f8.gemm_s < 0.6 * bf.gemm_s);
}

/* The fp8 recipes' casts beyond delayed scaling's, on the tiny model (h 4, a 2, g 1, head 2, f 16, GELU:
 * FC1 gives f = 16 outputs; 8 tokens), HBM at 1e9 B/s, as Transformer Engine runs them:
 *   tensorwise forward, a token: the two norms' outputs cast apart 2(h + h) = 16, the projection
 *   input's amax read 2ad = 8, FC2's input cast apart from GELU 2f = 32 -> 56, x 8 = 448 B; backward, the
 *   amax reads of the QKV, projection and FC2 output gradients 2((a + 2g)d + h + h) = 32 and GELU's
 *   backward cast apart 4f = 64 -> 96, x 8 = 768 B;
 *   mxfp8: the norms' outputs cast apart, 16 a token, x 8 = 128 B forward, nothing backward;
 *   blockwise: tensorwise's casts apart without its amax reads, 16 + 32 = 48 a token, x 8 = 384 B
 *   forward, GELU's backward 64, x 8 = 512 B. */
static void test_fp8_recipes_by_hand(void **state)
{
    (void)state;
    sax_gpu_t gpu = ideal_gpu;
    sax_training_t tr = {.global_batch = 1, .precision = SAX_PRECISION_FP8, .flash_attention = true};
    sax_layer_cost_t delayed, tensorwise, mx, block;
    sax_layer_cost(&tiny, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &delayed);
    tr.fp8_recipe = SAX_FP8_RECIPE_TENSORWISE;
    sax_layer_cost(&tiny, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &tensorwise);
    tr.fp8_recipe = SAX_FP8_RECIPE_MXFP8;
    sax_layer_cost(&tiny, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &mx);
    tr.fp8_recipe = SAX_FP8_RECIPE_BLOCKWISE;
    sax_layer_cost(&tiny, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &block);
    assert_within(block.elem_s - delayed.elem_s, 384e-9, 1e-9);
    assert_within(block.elem_bwd_s - delayed.elem_bwd_s, 512e-9, 1e-9);
    assert_within(tensorwise.elem_s - delayed.elem_s, 448e-9, 1e-9);
    assert_within(tensorwise.elem_bwd_s - delayed.elem_bwd_s, 768e-9, 1e-9);
    assert_within(mx.elem_s - delayed.elem_s, 128e-9, 1e-9);
    assert_true(mx.elem_bwd_s == delayed.elem_bwd_s);
    assert_true(tensorwise.gemm_s == delayed.gemm_s && mx.gemm_s == delayed.gemm_s);
}

/* Attention at its kernel's measured speed (training.attention_backend, gpu.attention_efficiency_*).
 * GPT-3 175B at TP 8, micro-batch 1: 12 heads of 128 a GPU over 2048 tokens, causal, so the forward's
 * two products take 2 x 12 x 2048 x 2048 x (128 + 128) / 2 = 1.2885e10 FLOP and the backward 2.5 times
 * that. A kernel of 0.34 of the peak at long sequences (FlashAttention-2) runs at 2048 / (2048 + 400)
 * of it over 2048 tokens, 0.2845: on a 989 TFLOP/s GPU the forward takes 45.80 us; under CP 4 each call
 * works on 512 tokens (queries against as many keys per ring step): the forward's 2048 / 4 queries
 * against 2048 keys, 3.2212e9 FLOP, at 0.34 x 512 / 912 = 0.1909 of the peak. Without a measurement the
 * GEMM curve prices it at its intensity, 2048 x 2048 / (2048 + 2048) = 1024 FLOP/B: 0.8 x 1024 / (1024 +
 * 100) = 0.7288 of the peak. */
static void test_attention_backend_by_hand(void **state)
{
    (void)state;
    sax_gpu_t gpu = {
        .peak_flops_bf16 = 989e12,
        .hbm_bytes = 80e9,
        .hbm_bw_Bps = 3.35e12,
        .gemm_eff_max = 0.8,
        .gemm_eff_half_ai = 100,
        .mem_eff = 0.7,
        .attn_eff = {[SAX_ATTN_FUSED] = 0.54, [SAX_ATTN_FLASH2] = 0.34, [SAX_ATTN_FLASH3] = 0.60}};
    sax_training_t tr = {.global_batch = 1,
                         .precision = SAX_PRECISION_BF16,
                         .flash_attention = true,
                         .attention_backend = SAX_ATTN_FLASH2};
    const double flops = 2.0 * 12 * 2048 * 2048 * 256 / 2, at2k = 2048.0 / 2448.0;
    sax_layer_cost_t lc;
    sax_layer_cost(&gpt3, &gpu, &tr, 8, 1, 1, 8, 1, true, false, &lc);
    assert_within(lc.attn_s, flops / (989e12 * 0.34 * at2k), 1e-12);
    assert_within(lc.attn_s, 45.80e-6, 1e-3);
    assert_within(lc.attn_bwd_s, 2.5 * flops / (989e12 * 0.34 * at2k), 1e-12);
    sax_layer_cost(&gpt3, &gpu, &tr, 8, 4, 1, 8, 1, true, false, &lc);
    assert_within(lc.attn_s, 3.2212e9 / (989e12 * 0.1909), 1e-3);
    tr.attention_backend = SAX_ATTN_FUSED;
    sax_layer_cost(&gpt3, &gpu, &tr, 8, 1, 1, 8, 1, true, false, &lc);
    assert_within(lc.attn_s, flops / (989e12 * 0.54 * at2k), 1e-12);
    tr.attention_backend = SAX_ATTN_FLASH3;
    sax_layer_cost(&gpt3, &gpu, &tr, 8, 1, 1, 8, 1, true, false, &lc);
    assert_within(lc.attn_bwd_s, 2.5 * flops / (989e12 * 0.60 * at2k), 1e-12);
    gpu.attn_eff[SAX_ATTN_FLASH3] = 0.0;
    sax_layer_cost(&gpt3, &gpu, &tr, 8, 1, 1, 8, 1, true, false, &lc);
    assert_within(lc.attn_s, flops / (989e12 * 0.8 * 1024 / 1124), 1e-12);
}

/* A flash-attention kernel computes at the head dimension it was built for, padding included: with every
 * kernel at the same speed, a head of 80 takes 128/80 = 1.6 times cuDNN's time under FlashAttention-1's
 * Triton kernel (the next power of two), 96/80 = 1.2 under FlashAttention-2 (a multiple of 32) and -3
 * (64, 96, 128, ...); a head of 112, 128/112 under FlashAttention-2 and -3; the model's FLOPs stay. */
static void test_attention_head_padding_by_hand(void **state)
{
    (void)state;
    sax_gpu_t gpu = {.peak_flops_bf16 = 989e12,
                     .hbm_bytes = 80e9,
                     .hbm_bw_Bps = 3.35e12,
                     .gemm_eff_max = 0.8,
                     .gemm_eff_half_ai = 100,
                     .mem_eff = 0.7,
                     .attn_eff = {0.5, 0.5, 0.5, 0.5}};
    sax_training_t tr = {.global_batch = 1, .precision = SAX_PRECISION_BF16, .flash_attention = true};
    const double heads[2] = {80, 112}, want[2][SAX_ATTN_BACKEND_COUNT] = {{[SAX_ATTN_FUSED] = 1.0,
                                                                           [SAX_ATTN_FLASH1] = 128.0 / 80,
                                                                           [SAX_ATTN_FLASH2] = 96.0 / 80,
                                                                           [SAX_ATTN_FLASH3] = 96.0 / 80},
                                                                          {[SAX_ATTN_FUSED] = 1.0,
                                                                           [SAX_ATTN_FLASH1] = 128.0 / 112,
                                                                           [SAX_ATTN_FLASH2] = 128.0 / 112,
                                                                           [SAX_ATTN_FLASH3] = 128.0 / 112}};
    for (int i = 0; i < 2; i++) {
        sax_model_desc_t m = {.name = "padded",
                              .layers = 4,
                              .hidden = (int)(16 * heads[i]),
                              .ffn_hidden = (int)(64 * heads[i]),
                              .heads = 16,
                              .kv_heads = 16,
                              .vocab = 1000,
                              .seq_len = 4096,
                              .ffn_act = SAX_FFN_GELU};
        sax_layer_cost_t ref, lc;
        tr.attention_backend = SAX_ATTN_FUSED;
        sax_layer_cost(&m, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &ref);
        for (int k = 0; k < SAX_ATTN_BACKEND_COUNT; k++) {
            tr.attention_backend = (sax_attn_backend_t)k;
            sax_layer_cost(&m, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &lc);
            assert_within(lc.attn_s / ref.attn_s, want[i][k], 1e-12);
            assert_within(lc.attn_bwd_s / ref.attn_bwd_s, want[i][k], 1e-12);
            assert_true(lc.flops == ref.flops);
        }
    }
}

/* An A100-like GPU: 312 TFLOP/s, 2 TB/s at 0.7 for the memory-bound kernels. */
static const sax_gpu_t a100_like = {.peak_flops_bf16 = 312e12,
                                    .hbm_bytes = 80e9,
                                    .hbm_bw_Bps = 2e12,
                                    .gemm_eff_max = 0.8,
                                    .gemm_eff_half_ai = 100,
                                    .mem_eff = 0.7};

/* Korthikanti et al. 2022 (arXiv 2205.05198) eq. (1)-(4), bytes per layer, MHA + GELU + f = 4h:
 *   no parallelism           s b h (34 + 5 a s / h)
 *   TP only                  s b h (10 + 24/t + 5 a s / (h t))
 *   TP + SP                  s b h / t (34 + 5 a s / h)
 *   TP + SP + selective      s b h / t x 34
 * checked on GPT-3 175B shapes: s = 2048, b = 1, h = 12288, a = 96, t = 8. */
static void test_korthikanti_activation_memory(void **state)
{
    (void)state;
    sax_training_t tr = {.global_batch = 1,
                         .precision = SAX_PRECISION_BF16,
                         .flash_attention = false,
                         .dropout = true, /* Korthikanti's counts include the dropout masks */
                         .grad_reduce_dtype = SAX_GRAD_DTYPE_FP32};
    const double s = 2048, b = 1, h = 12288, a = 96, t = 8, sbh = s * b * h;
    sax_layer_cost_t lc;
    sax_layer_cost(&gpt3, &a100_like, &tr, 1, 1, 1, 1, 1, false, false, &lc);
    assert_within(lc.act_bytes, sbh * (34 + 5 * a * s / h), 1e-12);
    sax_layer_cost(&gpt3, &a100_like, &tr, 8, 1, 1, 8, 1, false, false, &lc);
    assert_within(lc.act_bytes, sbh * (10 + 24 / t + 5 * a * s / (h * t)), 1e-12);
    sax_layer_cost(&gpt3, &a100_like, &tr, 8, 1, 1, 8, 1, true, false, &lc);
    assert_within(lc.act_bytes, sbh / t * (34 + 5 * a * s / h), 1e-12);
    assert_within(lc.act_sel_bytes, sbh / t * 34, 1e-12);
    /* full recomputation keeps the layer input only: 2 s b h bytes, / t with SP */
    assert_within(lc.act_full_bytes, 2 * sbh / t, 1e-12);
    /* without dropout (Korthikanti's items): the attention's and the MLP's 1-byte masks (sbh each) go,
     * and of the 5as of the scores the dropout mask (as) and output (2as): 34 -> 32 and 5as -> 2as;
     * with TP alone the masks were among the replicated 10 sbh: 10 -> 8 */
    tr.dropout = false;
    sax_layer_cost(&gpt3, &a100_like, &tr, 8, 1, 1, 8, 1, false, false, &lc);
    assert_within(lc.act_bytes, sbh * (8 + 24 / t + 2 * a * s / (h * t)), 1e-12);
    sax_layer_cost(&gpt3, &a100_like, &tr, 8, 1, 1, 8, 1, true, false, &lc);
    assert_within(lc.act_bytes, sbh / t * (32 + 2 * a * s / h), 1e-12);
}

/* Megatron-LM's bias-dropout-add (bias_dropout_add_fused_train, training.bias_dropout_fusion): a token's
 * two dropouts, apart, each read and write the h elements (2 + 2 B) and write the 1 B mask, 10h bytes;
 * inside the residual add's kernel only the masks are written, 2h. So on GPT-3 175B shapes (s 2048,
 * b 1, h 12288) at 2 TB/s x 0.7: 8h fewer bytes a token forward, replicated on each of TP 8's ranks
 * without sequence parallelism (/ 8 with it). Backward, a dropout reads the gradient and the mask and
 * writes its gradient whether it was fused or not: no difference. Against no dropout at all the fused
 * kernel costs the 2h of its masks forward. */
static void test_bias_dropout_fusion_by_hand(void **state)
{
    (void)state;
    sax_training_t tr = {.global_batch = 1,
                         .precision = SAX_PRECISION_BF16,
                         .flash_attention = true,
                         .dropout = true,
                         .grad_reduce_dtype = SAX_GRAD_DTYPE_FP32};
    const double tok = 2048, h = 12288, bw = 2e12 * 0.7;
    for (int sp = 0; sp < 2; sp++) {
        const double rep = sp ? 8.0 : 1.0;
        sax_layer_cost_t apart, fused, none;
        tr.bias_dropout_fusion = false;
        sax_layer_cost(&gpt3, &a100_like, &tr, 8, 1, 1, 8, 1, sp, false, &apart);
        tr.bias_dropout_fusion = true;
        sax_layer_cost(&gpt3, &a100_like, &tr, 8, 1, 1, 8, 1, sp, false, &fused);
        tr.dropout = false;
        sax_layer_cost(&gpt3, &a100_like, &tr, 8, 1, 1, 8, 1, sp, false, &none);
        tr.dropout = true;
        assert_within(apart.elem_s - fused.elem_s, tok * 8.0 * h / rep / bw, 1e-9);
        assert_true(apart.elem_bwd_s == fused.elem_bwd_s);
        assert_within(fused.elem_s - none.elem_s, tok * 2.0 * h / rep / bw, 1e-9);
        assert_true(fused.act_bytes == apart.act_bytes); /* the masks are kept either way */
    }
}

/* A GPU whose GEMMs run at peak whatever their shape (no knee): a GEMM takes its FLOPs / 1e12 s. */
static const sax_gpu_t flat_gpu = {.peak_flops_bf16 = 1e12,
                                   .peak_flops_fp8 = 2e12,
                                   .hbm_bytes = 1e9,
                                   .hbm_bw_Bps = 1e9,
                                   .gemm_eff_max = 1.0,
                                   .gemm_eff_half_ai = 0.0,
                                   .mem_eff = 1.0};

/* A small MLA model counted by hand (DeepSeek-V2 arXiv 2405.04434 section 2.1 shapes): h 8, 2 heads,
 * d 2 (value and non-rotary query/key), rope 1 (so d_qk = 3), q_lora 4, kv_lora 2, SwiGLU f 8, dense;
 * s 4, b 1, bf16, flash attention, no dropout: 4 tokens.
 * Bytes a token Megatron-Core keeps for the backward (2 B an element), tp 1:
 *   input norm: its input 16; the down-projections: their input (the norm's output) 16;
 *   query latent norm: input 8, output (the Q up-projection's input) 8; KV latent norm: 4 and 4;
 *   the attention core: Q 2 x 2 x 3 = 12, K 12, V 2 x 2 x 2 = 8; the output projection's input 8;
 *   MLP norm: input 16; FC1 input 16; SwiGLU input (FC1's output, 2f) 32; FC2 input (f) 16
 *   -> 176 B a token, 704 B for the 4 tokens.
 * mla_up_proj (multi_latent_attention.py, CheckpointWithoutOutput) drops Q, K and V (32 B) and keeps the
 * rotary key k_pe it takes as input (1 element, 2 B): 30 B a token, 120 B. With tp 2 the heads split:
 * Q, K, V 16 B a token, k_pe still whole: 14 B a token, 56 B.
 * Recomputed in the backward: the Q up-projection 2 x 4 tokens x (2 x 3) x 4 = 192 FLOP and the KV one
 * 2 x 4 x (2 x 2 x 2) x 2 = 128 FLOP: 320 FLOP at 1e12 FLOP/s = 320 ps (tp 2: 160 ps) with HBM
 * without a limit; at 1e9 B/s their bytes bind, 2 B an element of the input, the weights and the
 * output, once: Q 2 (4 x 4 + 4 x 6 + 4 x 6) = 128 B, KV 2 (4 x 2 + 2 x 8 + 4 x 8) = 112 B, 240 ns
 * (tp 2: 2 (16 + 12 + 12) + 2 (8 + 8 + 16) = 144 B, 144 ns). */
static void test_mla_up_proj_by_hand(void **state)
{
    (void)state;
    const sax_model_desc_t mla = {.name = "tiny-mla",
                                  .layers = 2,
                                  .hidden = 8,
                                  .ffn_hidden = 8,
                                  .heads = 2,
                                  .kv_heads = 2,
                                  .vocab = 10,
                                  .seq_len = 4,
                                  .ffn_act = SAX_FFN_SWIGLU,
                                  .head_dim = 2,
                                  .rope_head_dim = 1,
                                  .q_lora_rank = 4,
                                  .kv_lora_rank = 2};
    sax_training_t tr = {.global_batch = 1, .precision = SAX_PRECISION_BF16, .flash_attention = true};
    sax_layer_cost_t lc;
    sax_layer_cost(&mla, &flat_gpu, &tr, 1, 1, 1, 1, 1, false, false, &lc);
    assert_within(lc.act_bytes, 704.0, 1e-12);
    assert_within(lc.act_mla_up_bytes, 120.0, 1e-12);
    assert_within(lc.mla_up_s, 240e-9, 1e-9);
    assert_true(lc.act_moe_act_bytes == 0.0 && lc.moe_act_s == 0.0); /* a dense layer */
    sax_layer_cost(&mla, &flat_gpu, &tr, 2, 1, 1, 2, 1, true, false, &lc);
    assert_within(lc.act_mla_up_bytes, 56.0, 1e-12);
    assert_within(lc.mla_up_s, 144e-9, 1e-9);
    sax_gpu_t unbound = flat_gpu;
    unbound.hbm_bw_Bps = INFINITY;
    sax_layer_cost(&mla, &unbound, &tr, 1, 1, 1, 1, 1, false, false, &lc);
    assert_within(lc.mla_up_s, 320e-12, 1e-9);
    sax_layer_cost(&mla, &unbound, &tr, 2, 1, 1, 2, 1, true, false, &lc);
    assert_within(lc.mla_up_s, 160e-12, 1e-9);
    /* DeepSeek-V3 (128 heads, d 128, rope 64): 2 x (128 x (2 x 192 + 128) - 64) = 130,944 B a token,
     * x 4096 tokens = 536,346,624 B a layer and micro-batch at tp 1 */
    sax_layer_cost(&dsv3, &flat_gpu, &tr, 1, 1, 1, 1, 1, false, true, &lc);
    assert_within(lc.act_mla_up_bytes, 536346624.0, 1e-12);
    /* no MLA, nothing to free */
    sax_layer_cost(&tiny, &flat_gpu, &tr, 1, 1, 1, 1, 1, false, false, &lc);
    assert_true(lc.act_mla_up_bytes == 0.0 && lc.mla_up_s == 0.0);
}

/* torchtitan's separate projections (tp_implementation "dtensor": wq, wk, wv; w1, w3) against
 * Megatron-LM's fused ones, on the tiny model (h 4, a 2, g 1, head 2; 8 tokens, tp 1) where every GEMM
 * waits on its bytes (flat_gpu: 1e12 FLOP/s, 1e9 B/s; 2 B an element of the input, the weights and the
 * output):
 *   fused QKV, 8 x 8 by 4: 2 (8 x 4 + 4 x 8 + 8 x 8) = 256 B, 256 ns;
 *   wq 8 x 4 by 4: 2 (32 + 16 + 32) = 160 B; wk and wv 8 x 2 by 4: 2 (32 + 8 + 16) = 112 B each: 384 ns;
 *   SwiGLU (f 16): fused FC1 8 x 32 by 4: 2 (32 + 128 + 256) = 832 B; w1 and w3 8 x 16 by 4:
 *   2 x 2 (32 + 64 + 128) = 896 B. A GELU FFN has one input GEMM either way (8 x 16: 448 B).
 * At tp 2 the heads split: fused 8 x 4: 2 (32 + 16 + 32) = 160 B; wq 8 x 2 and wk, wv 8 x 1:
 * 2 (32 + 8 + 16) + 2 x 2 (32 + 4 + 8) = 112 + 176 = 288 B. The FLOPs are the same. */
static void test_torchtitan_projections_by_hand(void **state)
{
    (void)state;
    sax_training_t tr = {.global_batch = 1, .precision = SAX_PRECISION_BF16, .flash_attention = true};
    sax_model_desc_t swiglu = tiny;
    swiglu.ffn_act = SAX_FFN_SWIGLU;
    const struct {
        const sax_model_desc_t *m;
        int tp;
        double qkv_megatron, qkv_dtensor, fc1_megatron, fc1_dtensor; /* ns */
    } cases[] = {
        {&tiny, 1, 256, 384, 448, 448},
        {&swiglu, 1, 256, 384, 832, 896},
        {&tiny, 2, 160, 288, 2 * (32 + 32 + 64), 2 * (32 + 32 + 64)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sax_layer_cost_t meg, dt;
        tr.tp_implementation = SAX_TP_IMPL_MEGATRON;
        sax_layer_cost(cases[i].m, &flat_gpu, &tr, cases[i].tp, 1, 1, cases[i].tp, 1, false, false, &meg);
        tr.tp_implementation = SAX_TP_IMPL_DTENSOR;
        sax_layer_cost(cases[i].m, &flat_gpu, &tr, cases[i].tp, 1, 1, cases[i].tp, 1, false, false, &dt);
        assert_within(meg.tp_gemm_s[SAX_TP_GEMM_QKV], cases[i].qkv_megatron * 1e-9, 1e-12);
        assert_within(dt.tp_gemm_s[SAX_TP_GEMM_QKV], cases[i].qkv_dtensor * 1e-9, 1e-12);
        assert_within(meg.tp_gemm_s[SAX_TP_GEMM_MLP_IN], cases[i].fc1_megatron * 1e-9, 1e-12);
        assert_within(dt.tp_gemm_s[SAX_TP_GEMM_MLP_IN], cases[i].fc1_dtensor * 1e-9, 1e-12);
        assert_true(dt.flops == meg.flops);
    }
}

/* torch's async TP sums the partial outputs its fused reduce-scatters pull in one more kernel, which
 * reads the stacked partials (tok x h, 2 B an element) and writes its tok/t rows. On the tiny model (h 4,
 * 8 tokens) at TP 2 with sequence parallelism, flat_gpu's 1e9 B/s: the projection's and FC2's, 2 x 2 x 8
 * x 4 x (1 + 1/2) = 192 B, 192 ns, in the forward's memory-bound time; nothing in the backward (its
 * reduce-scatters are NCCL's, which sum as they move). Without async TP, under Megatron-LM's TP, or
 * without sequence parallelism: none. */
static void test_async_tp_sums_by_hand(void **state)
{
    (void)state;
    sax_training_t tr = {.global_batch = 1,
                         .precision = SAX_PRECISION_BF16,
                         .flash_attention = true,
                         .tp_implementation = SAX_TP_IMPL_DTENSOR};
    sax_layer_cost_t plain, async;
    sax_layer_cost(&tiny, &flat_gpu, &tr, 2, 1, 1, 2, 1, true, false, &plain);
    tr.tp_comm_overlap = true;
    sax_layer_cost(&tiny, &flat_gpu, &tr, 2, 1, 1, 2, 1, true, false, &async);
    assert_within(async.tp_sum_s, 192e-9, 1e-12);
    assert_within(async.elem_s - plain.elem_s, 192e-9, 1e-9);
    assert_true(async.elem_bwd_s == plain.elem_bwd_s && plain.tp_sum_s == 0.0);
    sax_layer_cost(&tiny, &flat_gpu, &tr, 2, 1, 1, 2, 1, false, false, &async);
    assert_true(async.tp_sum_s == 0.0);
    tr.tp_implementation = SAX_TP_IMPL_MEGATRON;
    sax_layer_cost(&tiny, &flat_gpu, &tr, 2, 1, 1, 2, 1, true, false, &async);
    assert_true(async.tp_sum_s == 0.0);
}

/* torchao's Float8 TP (tensorwise, tp_implementation "dtensor", sequence parallelism) casts the norms'
 * outputs and the row-parallel layers' output gradients on the local shard before gathering them, where
 * Transformer Engine's casts run over the gathered rows. On the tiny model (h 4, GELU: one FC1 input row a
 * token; 8 tokens) at TP 2, flat_gpu's 1e9 B/s, a token saves, forward, half of the two norms' outputs cast
 * apart, 2 x (4 + 4) / 2 = 8 B, 64 B in all; backward, for the projection's and FC2's output gradients
 * (h each) the amax read (2 B) and the cast (3 B) on half the rows, the transpose (2 B) on all, against
 * Transformer Engine's 2 + 4: (4 - 5/2) x 8 = 12 B, 96 B in all. Under delayed scaling or without sequence
 * parallelism the two price the same. */
static void test_float8_tp_casts_by_hand(void **state)
{
    (void)state;
    sax_training_t tr = {.global_batch = 1,
                         .precision = SAX_PRECISION_FP8,
                         .flash_attention = true,
                         .fp8_recipe = SAX_FP8_RECIPE_TENSORWISE};
    sax_layer_cost_t te, ao;
    for (int k = 0; k < 3; k++) {
        const bool sp = k != 2;
        tr.fp8_recipe = k == 1 ? SAX_FP8_RECIPE_DELAYED : SAX_FP8_RECIPE_TENSORWISE;
        tr.tp_implementation = SAX_TP_IMPL_MEGATRON;
        sax_layer_cost(&tiny, &flat_gpu, &tr, 2, 1, 1, 2, 1, sp, false, &te);
        tr.tp_implementation = SAX_TP_IMPL_DTENSOR;
        sax_layer_cost(&tiny, &flat_gpu, &tr, 2, 1, 1, 2, 1, sp, false, &ao);
        assert_within(te.elem_s - ao.elem_s, k == 0 ? 64e-9 : 0.0, 1e-9);
        assert_within(te.elem_bwd_s - ao.elem_bwd_s, k == 0 ? 96e-9 : 0.0, 1e-9);
    }
}

/* The tiny model with `experts` routed experts of width 6, top 2, SwiGLU, no shared expert. */
static sax_model_desc_t tiny_moe(int experts)
{
    sax_model_desc_t moe = tiny;
    moe.ffn_act = SAX_FFN_SWIGLU;
    moe.experts = experts;
    moe.top_k = 2;
    moe.expert_ffn_hidden = 6;
    return moe;
}

/* moe_act (experts.py: the grouped MLP's activation under CheckpointWithoutOutput) on a small MoE layer:
 * the tiny model's attention (h 4) with 4 routed experts of width 6, top 2, SwiGLU, no shared expert;
 * s 8, b 1: 8 tokens, 16 routed copies. The activation's output, the FC2 input, is 6 elements a copy:
 * 16 x 6 x 2 B = 192 B freed (tp = etp 2: each GPU holds half of every expert's width, 96 B; fp8: the
 * FC2 kept its 1-byte copy, 96 B at tp 1). Recomputing it reads FC1's two outputs and writes one:
 * 16 x 6 x 3 x 2 B = 576 B of HBM at 1e9 B/s = 576 ns (tp 2: 288 ns). */
static void test_moe_act_by_hand(void **state)
{
    (void)state;
    sax_model_desc_t moe = tiny_moe(4);
    sax_training_t tr = {.global_batch = 1, .precision = SAX_PRECISION_BF16, .flash_attention = true};
    sax_layer_cost_t lc;
    sax_layer_cost(&moe, &flat_gpu, &tr, 1, 1, 1, 1, 1, false, true, &lc);
    assert_within(lc.act_moe_act_bytes, 192.0, 1e-12);
    assert_within(lc.moe_act_s, 576e-9, 1e-9);
    sax_layer_cost(&moe, &flat_gpu, &tr, 2, 1, 1, 2, 1, true, true, &lc);
    assert_within(lc.act_moe_act_bytes, 96.0, 1e-12);
    assert_within(lc.moe_act_s, 288e-9, 1e-9);
    tr.precision = SAX_PRECISION_FP8;
    sax_layer_cost(&moe, &flat_gpu, &tr, 1, 1, 1, 1, 1, false, true, &lc);
    assert_within(lc.act_moe_act_bytes, 96.0, 1e-12);
    /* a dense layer of the same model has no routed experts */
    sax_layer_cost(&moe, &flat_gpu, &tr, 1, 1, 1, 1, 1, false, false, &lc);
    assert_true(lc.act_moe_act_bytes == 0.0 && lc.moe_act_s == 0.0);
}

/* The MoE token dispatchers' copies and sends, by hand (docs/cost-model.md section 5): the tiny model
 * with 8 routed experts of width 6, top-2, one micro-batch of 8 tokens, h = 4, on 1 GB/s of HBM, EP 4
 * (2 local experts a GPU). Copies, 2 B an element, per token: the all-to-all dispatcher permutes
 * (2k h), sorts by local expert and back (4k h), and unpermutes (k h read, h written): 15 h = 120 B,
 * 960 B for the 8 tokens; the flex one permutes once and back: 7 h, 448 B. So the all-to-all one
 * spends 512 B more each way, 512 ns at 1 GB/s. Sends: the all-to-all carries k = 2 copies a token,
 * 8 x 2 x 4 x 2 B = 128 B; the flex one one per GPU hit, and a GPU (2 of the 8 experts) misses both
 * picks with probability 6/8 x 5/7 = 15/28, so 4 x 13/28 = 13/7 GPUs a token: 832/7 B. With EP 8 (one
 * expert a GPU) there is nothing to sort and both picks land on different GPUs: the two agree. */
static void test_moe_token_dispatchers_by_hand(void **state)
{
    (void)state;
    sax_model_desc_t moe = tiny_moe(8);
    sax_training_t tr = {.global_batch = 1, .precision = SAX_PRECISION_BF16, .flash_attention = true};
    sax_layer_cost_t a2a, flex;
    for (int ep = 4; ep <= 8; ep += 4) {
        tr.moe_token_dispatcher = SAX_MOE_DISPATCHER_ALLTOALL;
        sax_layer_cost(&moe, &flat_gpu, &tr, 1, 1, ep, 1, 1, false, true, &a2a);
        tr.moe_token_dispatcher = SAX_MOE_DISPATCHER_FLEX;
        sax_layer_cost(&moe, &flat_gpu, &tr, 1, 1, ep, 1, 1, false, true, &flex);
        double extra = ep == 4 ? 512e-9 : 0.0;
        assert_within(a2a.elem_s - flex.elem_s + 1.0, 1.0 + extra, 1e-12);
        assert_within(a2a.elem_bwd_s - flex.elem_bwd_s + 1.0, 1.0 + extra, 1e-12);
        assert_within(a2a.ep_bytes, 128.0, 1e-12);
        assert_within(flex.ep_bytes, ep == 4 ? 832.0 / 7.0 : 128.0, 1e-12);
    }
}

/* One sequence in bf16 under the flex dispatcher: what the dispatch tests below share. */
static const sax_training_t flex_training = {.global_batch = 1,
                                             .precision = SAX_PRECISION_BF16,
                                             .flash_attention = true,
                                             .moe_token_dispatcher = SAX_MOE_DISPATCHER_FLEX};

/* The flex dispatcher across scale-up domains (DeepEP's and HybridEP's forwarding): the tiny model routes
 * 8 tokens of hidden 4 (64 B a copy) to 2 of 8 experts, EP 8 (one expert a GPU) in two domains of 4. A
 * given domain holds 4 experts, so a token misses it with probability C(4,2) / C(8,2) = 6/28: it crosses
 * to the other domain once with probability 22/28, 64 x 22/28 B. The all-to-all spreads a GPU's bytes
 * over its 7 peers, 4 of them in the other domain (4/8 of what it sends, as sax's closed form counts the
 * peer shares): timed with 64 x 22/28 x 8/4 = 704/7 B, where sending per GPU takes 128 B. In one
 * domain, or with the all-to-all dispatcher, nothing changes; with top-1 routing forwarding saves nothing
 * (a token has one destination): equal for any split. */
static void test_flex_dispatch_crosses_once_a_domain(void **state)
{
    (void)state;
    sax_model_desc_t moe = tiny_moe(8);
    sax_training_t tr = flex_training;
    sax_layer_cost_t lc;
    sax_layer_cost(&moe, &flat_gpu, &tr, 1, 1, 8, 1, 1, false, true, &lc);
    assert_within(lc.ep_bytes, 128.0, 1e-12);
    sax_group_t g = {.n = 8, .units = {2}};
    assert_within(sax_ep_dispatch_bytes(&moe, &tr, &lc, &g), 704.0 / 7.0, 1e-12);
    g.units[0] = 1;
    assert_within(sax_ep_dispatch_bytes(&moe, &tr, &lc, &g), 128.0, 1e-12);
    g.units[0] = 2;
    tr.moe_token_dispatcher = SAX_MOE_DISPATCHER_ALLTOALL;
    sax_layer_cost(&moe, &flat_gpu, &tr, 1, 1, 8, 1, 1, false, true, &lc);
    assert_within(sax_ep_dispatch_bytes(&moe, &tr, &lc, &g), lc.ep_bytes, 1e-12);
    tr.moe_token_dispatcher = SAX_MOE_DISPATCHER_FLEX;
    moe.top_k = 1;
    sax_layer_cost(&moe, &flat_gpu, &tr, 1, 1, 8, 1, 1, false, true, &lc);
    for (int d = 2; d <= 8; d *= 2) {
        g.units[0] = d;
        assert_within(sax_ep_dispatch_bytes(&moe, &tr, &lc, &g), lc.ep_bytes, 1e-12 * lc.ep_bytes);
    }
}

/* Group-limited routing (model.moe_router_num_groups, moe_router_group_topk) under the flex dispatcher, by
 * hand, on the tiny model of the test above (8 experts, top-2, EP 8, one expert a GPU, 64 B a copy):
 * - two domains of 4, 4 groups of 2, a token's 2 experts from 2 groups: a domain holds 2 groups and has
 *   j of the token's 2 with the chances 1/6, 4/6, 1/6 (j = 0, 1, 2); it is then missed with 1, C(2,2) /
 *   C(4,2) = 1/6, 0: 1/6 + 4/36 = 5/18. The other domain is reached with 13/18: 64 x 13/18 x 8/4 =
 *   832/9 B (704/7 B without the limit);
 * - four domains of 2, 2 groups of 4, one group a token: a domain's group is picked with 1/2 and then
 *   missed with C(2,2) / C(4,2) = 1/6, so missed with 7/12; 3 x 5/12 = 5/4 other domains: 64 x 5/4 x 8/6
 *   = 320/3 B (64 x 39/28 x 8/6 = 832/7 B without the limit: C(6,2) / C(8,2) = 15/28 missed);
 * - one group a token, groups as large as a domain (2 groups of 4, two domains): a token stays in one
 *   domain, reaching the other with 1/2: 64 x 1/2 x 2 = 64 B. */
static void test_group_limited_routing(void **state)
{
    (void)state;
    sax_model_desc_t moe = tiny_moe(8);
    sax_training_t tr = flex_training;
    sax_layer_cost_t lc;
    sax_layer_cost(&moe, &flat_gpu, &tr, 1, 1, 8, 1, 1, false, true, &lc);
    const struct {
        int domains, groups, picked;
        double bytes;
    } cases[] = {
        {2, 4, 2, 832.0 / 9.0}, {2, 0, 0, 704.0 / 7.0}, {4, 2, 1, 320.0 / 3.0},
        {4, 0, 0, 832.0 / 7.0}, {2, 2, 1, 64.0},        {2, 4, 4, 704.0 / 7.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sax_group_t g = {.n = 8, .units = {cases[i].domains}};
        moe.moe_router_num_groups = cases[i].groups;
        moe.moe_router_group_topk = cases[i].picked;
        assert_within(sax_ep_dispatch_bytes(&moe, &tr, &lc, &g), cases[i].bytes, 1e-12);
    }
}

/* Each subset of `size` items below 2^`items` in turn (Gosper's hack); 0 when there is none left. */
static uint64_t next_subset(uint64_t x, int items)
{
    uint64_t c = x & -x, r = x + c, next = (((r ^ x) >> 2) / c) | r;
    return next < (UINT64_C(1) << items) ? next : 0;
}

/* The group-limited closed form against counting: for every choice of gk groups and every choice of k
 * experts among theirs (all equally likely, as the closed form assumes), which GPUs of the EP group and
 * which of the other domains a token from domain 0 reaches; averaged, the first are the per-GPU sends of
 * the layer's flex bytes (ep_bytes = etp_bytes x GPUs reached), the second the domains the dispatch's
 * bytes carry. Over 8, 16 and 32 experts on EP 8 in 2, 4 or 8 domains, 1 to 8 groups that align with the
 * domains (a domain holds whole groups or lies in one), gk up to 4 and every k up to 4 that the groups
 * allow. The worst relative disagreement is asserted below 1e-12 (it is
 * rounding). */
static void test_group_limited_routing_by_counting(void **state)
{
    (void)state;
    sax_training_t tr = flex_training;
    int checked = 0;
    double worst = 0.0;
    for (int E = 8; E <= 32; E *= 2)
        for (int domains = 2; domains <= 8; domains *= 2)
            for (int G = 1; G <= 8; G *= 2)
                for (int gk = 1; gk <= G && gk <= 4; gk++)
                    for (int k = 1; k <= 4 && k <= gk * (E / G); k++) {
                        const int s = E / G, held = E / domains;
                        if (held % s != 0 && s % held != 0)
                            continue;
                        sax_model_desc_t moe = tiny_moe(E);
                        moe.top_k = k;
                        moe.moe_router_num_groups = G;
                        moe.moe_router_group_topk = gk;
                        sax_layer_cost_t lc;
                        sax_layer_cost(&moe, &flat_gpu, &tr, 1, 1, 8, 1, 1, false, true, &lc);
                        double reach = 0.0, gpus = 0.0, ways = 0.0; /* summed over choices */
                        for (uint64_t gs = (UINT64_C(1) << gk) - 1; gs != 0; gs = next_subset(gs, G)) {
                            int pool[32], n_pool = 0; /* the picked groups' experts */
                            for (int gi = 0; gi < G; gi++)
                                if (gs >> gi & 1)
                                    for (int e = 0; e < s; e++)
                                        pool[n_pool++] = gi * s + e;
                            for (uint64_t es = (UINT64_C(1) << k) - 1; es != 0;
                                 es = next_subset(es, n_pool)) {
                                bool hit[8] = {false}, gpu[8] = {false};
                                for (int i = 0; i < n_pool; i++)
                                    if (es >> i & 1) {
                                        hit[pool[i] / held] = true;
                                        gpu[pool[i] / (E / 8)] = true;
                                    }
                                for (int d = 0; d < 8; d++) {
                                    reach += d > 0 && d < domains && hit[d];
                                    gpus += gpu[d];
                                }
                                ways += 1.0;
                            }
                        }
                        double per = 8.0 / domains, sends = lc.etp_bytes * gpus / ways;
                        worst = fmax(worst, fabs(lc.ep_bytes - sends) / sends);
                        double want = fmin(sends, lc.etp_bytes * reach / ways * 8.0 / (8.0 - per));
                        sax_group_t g = {.n = 8, .units = {domains}};
                        double got = sax_ep_dispatch_bytes(&moe, &tr, &lc, &g);
                        worst = fmax(worst, fabs(got - want) / want);
                        checked++;
                    }
    print_message("group-limited routing: %d cases counted, worst relative disagreement %.3g\n", checked,
                  worst);
    assert_true(checked > 100);
    assert_true(worst < 1e-12);
}

/* GEMM model (gemm.c): AI = 2mnk / (2(mk + kn + mn)); for m = n = k = 1000, AI = 1000/3 FLOP/B;
 * with eff_max 0.9 and AI_half 1000/3, eff = 0.45 and time = 2e9 / (1e12 x 0.45). */
/* ZeRO shards routed experts over their replicas only. A stage holding 10e9 parameters per GPU of
 * which 8e9 are routed experts, dp 16, cp 1, ep 8 (experts replicated over 16 / 8 = 2 ranks),
 * 4-byte gradients, 4 layers, by hand:
 *   owned under ZeRO = 2e9 / 16 + 8e9 / 2 = 4.125e9 parameters
 *   ZeRO-1: optimizer 12 x 4.125e9 = 49.5e9 B; gradients 4 x 10e9 = 40e9 B; weights 2 x 10e9 = 20e9 B
 *   ZeRO-2: gradients 4 x 4.125e9 = 16.5e9 B
 *   ZeRO-3: weights 2 x 4.125e9 + two gathered layers 2 x 20e9 / 4 = 18.25e9 B
 * (sharding all 10e9 over 16 would have given 7.5e9 B of optimizer state). */
static void test_zero_shards_experts_over_their_replicas(void **state)
{
    (void)state;
    sax_candidate_t c = {.tp = 1,
                         .pp = 1,
                         .dp = 16,
                         .cp = 1,
                         .ep = 8,
                         .vpp = 1,
                         .micro_batch = 1,
                         .schedule = SAX_SCHEDULE_1F1B,
                         .zero = 1};
    sax_memory_in_t in = {.stage = 0,
                          .layers = 4,
                          .micro = 1,
                          .params = 10e9,
                          .expert_params = 8e9,
                          .grad_bytes = 4.0,
                          .optimizer_bytes = 12.0}; /* fp32 master and moments */
    sax_memory_t m;
    sax_memory_stage(&c, &in, &m);
    assert_true(fabs(m.optimizer_bytes - 49.5e9) < 1.0);
    assert_true(fabs(m.grads_bytes - 40e9) < 1.0);
    assert_true(fabs(m.weights_bytes - 20e9) < 1.0);
    c.zero = 2;
    sax_memory_stage(&c, &in, &m);
    assert_true(fabs(m.grads_bytes - 16.5e9) < 1.0);
    c.zero = 3;
    sax_memory_stage(&c, &in, &m);
    assert_true(fabs(m.weights_bytes - 18.25e9) < 1.0);
    /* a dense stage (no experts) is sharded over all 16 */
    in.expert_params = 0.0;
    c.zero = 1;
    sax_memory_stage(&c, &in, &m);
    assert_true(fabs(m.optimizer_bytes - 12.0 * 10e9 / 16) < 1.0);
}

/* The logits wait for the loss backward only while their micro-batch is in the last chunk. A last
 * stage (s = 3 of p = 4, m = 8 micro-batches) keeping 1e9 B of layer activations and 0.5e9 B of logits
 * a micro-batch, by hand:
 *   1F1B: p - s = 1 micro-batch in flight: 1e9 + 0.5e9 = 1.5e9 B
 *   interleaved, v = 2: (p - s - 1) 2 + (v - 1) p + 1 = 5 chunks of 2, 2.5 stages: 2.5e9 + 0.5e9 = 3e9 B
 *   DualPipe: p + 1 = 5: 5e9 + 0.5e9 = 5.5e9 B (dualpipe.py's steps 3 to 6 run each reverse chunk's
 *   backward before that chunk's next forward)
 *   GPipe: all 8 forwards first: 8e9 + 8 x 0.5e9 = 12e9 B */
static void test_logits_kept_once(void **state)
{
    (void)state;
    sax_candidate_t c = {.tp = 1, .pp = 4, .dp = 1, .cp = 1, .ep = 1, .vpp = 1, .micro_batch = 1};
    sax_memory_in_t in = {
        .stage = 3, .layers = 4, .micro = 8, .act_per_micro_bytes = 1e9, .act_loss_bytes = 0.5e9};
    const struct {
        sax_schedule_t schedule;
        int vpp;
        double bytes;
    } cases[] = {{SAX_SCHEDULE_1F1B, 1, 1.5e9},
                 {SAX_SCHEDULE_INTERLEAVED, 2, 3e9},
                 {SAX_SCHEDULE_DUALPIPE, 1, 5.5e9},
                 {SAX_SCHEDULE_GPIPE, 1, 12e9}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        c.schedule = cases[i].schedule;
        c.vpp = cases[i].vpp;
        sax_memory_t m;
        sax_memory_stage(&c, &in, &m);
        assert_true(fabs(m.activations_bytes - cases[i].bytes) < 1.0);
    }
}

/* Megatron-LM pads the vocabulary to a multiple of 128 x tp: GPT-2's 50257 is 51200 at TP 8 (50 x 1024)
 * and 50304 at TP 1 (393 x 128), so its output layer costs what 51200 rows and 50304 rows cost, by the
 * same formulas; 51200 at TP 8 is its own padding. */
static void test_vocabulary_padding(void **state)
{
    (void)state;
    const sax_gpu_t gpu = ideal_gpu;
    sax_training_t training;
    sax_training_set_defaults(&training);
    static const struct {
        int raw, padded, tp;
    } cases[] = {{50257, 51200, 8}, {50257, 50304, 1}, {51200, 51200, 8}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sax_model_desc_t raw = gpt3, padded = gpt3;
        raw.vocab = cases[i].raw;
        padded.vocab = cases[i].padded;
        sax_logits_cost_t a, b;
        sax_logits_cost(&raw, &gpu, &training, cases[i].tp, 1, 2, &a);
        sax_logits_cost(&padded, &gpu, &training, cases[i].tp, 1, 2, &b);
        assert_true(a.gemm_s == b.gemm_s && a.loss_fwd_s == b.loss_fwd_s && a.act_bytes == b.act_bytes);
        /* the fp32 softmax kept for the backward, 4 B a logit, and the loss's 38 B a logit forward at
         * 1e9 B/s: 2 x 2048 tokens x padded / tp logits */
        double logits = 2.0 * 2048.0 * cases[i].padded / cases[i].tp;
        assert_true(a.act_bytes == 4.0 * logits);
        assert_within(a.loss_fwd_s, 38.0 * logits / 1e9, 1e-12);
    }
}

/* The loss over the logits, bytes a logit as each implementation moves them (counted by hand from
 * megatron/core/tensor_parallel/cross_entropy.py, megatron/core/fusions/fused_cross_entropy.py and
 * Transformer Engine's triton/cross_entropy.py; docs/cost-model.md section 2): unfused 38 forward, 14
 * backward; native 22 and 6; te 8 and 14. At 1e9 B/s the seconds are the bytes: 2 x 1024 tokens x 51200
 * logits (GPT-3's vocabulary, TP 1, padded to itself). Each keeps the 4 B fp32 softmax or gradient. */
static void test_cross_entropy_fusion_by_hand(void **state)
{
    (void)state;
    const sax_gpu_t gpu = ideal_gpu;
    sax_model_desc_t m = gpt3;
    m.seq_len = 1024;
    static const struct {
        bool fused;
        sax_ce_fusion_t impl;
        double fwd, bwd;
    } cases[] = {{false, SAX_CE_FUSION_TE, 38.0, 14.0},
                 {true, SAX_CE_FUSION_NATIVE, 22.0, 6.0},
                 {true, SAX_CE_FUSION_TE, 8.0, 14.0}};
    const double logits = 2.0 * 1024.0 * 51200.0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sax_training_t tr;
        sax_training_set_defaults(&tr);
        tr.cross_entropy_loss_fusion = cases[i].fused;
        tr.cross_entropy_fusion_impl = cases[i].impl;
        sax_logits_cost_t c;
        sax_logits_cost(&m, &gpu, &tr, 1, 1, 2, &c);
        assert_within(c.loss_fwd_s, cases[i].fwd * logits / 1e9, 1e-12);
        assert_within(c.loss_bwd_s, cases[i].bwd * logits / 1e9, 1e-12);
        assert_true(c.act_bytes == 4.0 * logits);
    }
}

static void test_gemm_efficiency_curve(void **state)
{
    (void)state;
    sax_gpu_t gpu = {.peak_flops_bf16 = 1e12, .gemm_eff_max = 0.9, .gemm_eff_half_ai = 1000.0 / 3.0};
    assert_within(sax_gemm_intensity(1000, 1000, 1000, SAX_PRECISION_BF16), 1000.0 / 3.0, 1e-12);
    assert_within(sax_gemm_efficiency(&gpu, 1000, 1000, 1000, SAX_PRECISION_BF16), 0.45, 1e-12);
    assert_within(sax_gemm_time_s(&gpu, 1000, 1000, 1000, SAX_PRECISION_BF16), 2e9 / 0.45e12, 1e-12);
    /* fp8: 1 B an element doubles the intensity to 2000/3; without an fp8 ceiling the bf16 one applies,
     * 0.9 x (2000/3) / (2000/3 + 1000/3) = 0.6 of the fp8 peak of 2e12; with a ceiling of 0.45, 0.3 */
    gpu.peak_flops_fp8 = 2e12;
    assert_within(sax_gemm_time_s(&gpu, 1000, 1000, 1000, SAX_PRECISION_FP8), 2e9 / (2e12 * 0.6), 1e-12);
    gpu.gemm_eff_max_fp8 = 0.45;
    assert_within(sax_gemm_time_s(&gpu, 1000, 1000, 1000, SAX_PRECISION_FP8), 2e9 / (2e12 * 0.3), 1e-12);
    assert_within(sax_gemm_time_s(&gpu, 1000, 1000, 1000, SAX_PRECISION_BF16), 2e9 / 0.45e12, 1e-12);
    /* No faster than HBM moves the operands and the result once. At 1e9 B/s x 0.5: the cube's 3 x 1e6
     * elements of 2 B take 6e6 / 5e8 = 12 ms, above its 4.44 ms of arithmetic; under fp8 the inputs
     * take 1 B an element and the result 2: 4e6 / 5e8 = 8 ms. A GEMM 1000 x 10 x 1000 (20 MFLOP, 0.78 ms
     * of arithmetic at its intensity 9.8: 0.9 x 9.8 / (9.8 + 333.3) = 0.0257 of the peak) moves
     * 2 (1e6 + 1e4 + 1e4) = 2.04e6 B: 4.08 ms. */
    gpu.hbm_bw_Bps = 1e9;
    gpu.mem_eff = 0.5;
    assert_within(sax_gemm_memory_s(&gpu, 1000, 1000, 1000, SAX_PRECISION_BF16), 12e-3, 1e-12);
    assert_within(sax_gemm_time_s(&gpu, 1000, 1000, 1000, SAX_PRECISION_BF16), 12e-3, 1e-12);
    assert_within(sax_gemm_time_s(&gpu, 1000, 1000, 1000, SAX_PRECISION_FP8), 8e-3, 1e-12);
    assert_within(sax_gemm_time_s(&gpu, 1000, 10, 1000, SAX_PRECISION_BF16), 4.08e-3, 1e-12);
    /* with HBM 1e6 times faster the arithmetic binds again */
    gpu.hbm_bw_Bps = 1e15;
    assert_within(sax_gemm_time_s(&gpu, 1000, 1000, 1000, SAX_PRECISION_BF16), 2e9 / 0.45e12, 1e-12);
}

/* Properties of a GEMM's time over a grid of shapes (1 to 2^17 in each dimension, powers of 4), both
 * precisions and an H100's parameters: a larger GEMM never runs faster, a slower HBM or a lower peak
 * never makes one faster, and the time is never below either bound, the FLOPs at the peak or the bytes
 * at the full bandwidth. */
static void test_gemm_time_properties(void **state)
{
    (void)state;
    const sax_gpu_t h100 = {.peak_flops_bf16 = 989e12,
                            .peak_flops_fp8 = 1979e12,
                            .hbm_bw_Bps = 3.35e12,
                            .gemm_eff_max = 0.67,
                            .gemm_eff_half_ai = 5.3,
                            .gemm_eff_max_fp8 = 0.52,
                            .mem_eff = 0.6};
    for (int p = 0; p < 2; p++) {
        const sax_precision_t prec = p ? SAX_PRECISION_FP8 : SAX_PRECISION_BF16;
        const double in = p ? 1.0 : 2.0;
        for (double m = 1; m <= 131072; m *= 4)
            for (double n = 1; n <= 131072; n *= 4)
                for (double k = 1; k <= 131072; k *= 4) {
                    const double t = sax_gemm_time_s(&h100, m, n, k, prec);
                    assert_true(t >= 2.0 * m * n * k / sax_gpu_peak_flops(&h100, prec) * (1.0 - 1e-12));
                    assert_true(t >= (in * (m * k + k * n) + 2.0 * m * n) / h100.hbm_bw_Bps * (1.0 - 1e-12));
                    assert_true(sax_gemm_time_s(&h100, 2 * m, n, k, prec) >= t);
                    assert_true(sax_gemm_time_s(&h100, m, 2 * n, k, prec) >= t);
                    assert_true(sax_gemm_time_s(&h100, m, n, 2 * k, prec) >= t);
                    sax_gpu_t slow = h100;
                    slow.hbm_bw_Bps /= 2.0;
                    assert_true(sax_gemm_time_s(&slow, m, n, k, prec) >= t);
                    slow = h100;
                    slow.peak_flops_bf16 /= 2.0;
                    slow.peak_flops_fp8 /= 2.0;
                    assert_true(sax_gemm_time_s(&slow, m, n, k, prec) >= t);
                }
    }
}

/* Kernels a dense layer launches, counted by hand from Megatron-Core with Transformer Engine: 11
 * forward, 20 backward; fp8 adds 4 casts each way. At 1 us a kernel the memory-bound time grows by that
 * many microseconds. */
static void test_kernel_overhead_by_hand(void **state)
{
    (void)state;
    sax_gpu_t gpu = ideal_gpu;
    sax_training_t tr = {.global_batch = 1, .precision = SAX_PRECISION_BF16, .flash_attention = true};
    for (int fp8 = 0; fp8 < 2; fp8++) {
        tr.precision = fp8 ? SAX_PRECISION_FP8 : SAX_PRECISION_BF16;
        sax_layer_cost_t none, some;
        gpu.kernel_overhead_s = 0.0;
        sax_layer_cost(&tiny, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &none);
        gpu.kernel_overhead_s = 1e-6;
        sax_layer_cost(&tiny, &gpu, &tr, 1, 1, 1, 1, 1, false, false, &some);
        assert_within(some.elem_s - none.elem_s, fp8 ? 15e-6 : 11e-6, 1e-9);
        assert_within(some.elem_bwd_s - none.elem_bwd_s, fp8 ? 24e-6 : 20e-6, 1e-9);
        assert_true(some.gemm_s == none.gemm_s && some.attn_s == none.attn_s);
    }
}

/* PyTorch eager's memory-bound steps (training.elementwise_kernels "eager"), counted by hand from
 * torchtitan's Llama block at 9dec370 (docs/cost-model.md section 2), bytes a token beyond the fused
 * kernels: forward 64 h/rep (two RMSNorms of 36 B an element against 4) + 24 (q + kv) (rotary embedding
 * of Q and K at 20 B an element, K and V copied out to the query heads at 2 B read + 2 written) + 4 f
 * (SwiGLU's two kernels against one); backward 136 h/rep + 24 (q + kv) + 6 f. Llama 3 405B, 8192 tokens:
 * TP 1, q = 16384, kv = 1024, f = 53248: 1,679,360 B forward, 2,965,504 backward; TP 8 with sequence
 * parallelism, h/rep = q = 2048, kv = 128, f = 6656: 209,920 and 370,688. At 1e9 B/s the seconds are the
 * bytes; at 1 us a kernel, 22 more kernels forward and 29 backward. */
static void test_eager_elementwise_by_hand(void **state)
{
    (void)state;
    sax_gpu_t gpu = ideal_gpu;
    gpu.kernel_overhead_s = 1e-6;
    sax_training_t tr;
    sax_training_set_defaults(&tr);
    static const struct {
        int tp;
        double fwd, bwd;
    } cases[] = {{1, 1679360.0, 2965504.0}, {8, 209920.0, 370688.0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sax_layer_cost_t fused, eager;
        tr.elementwise_kernels = SAX_ELEMENTWISE_FUSED;
        sax_layer_cost(&llama405, &gpu, &tr, cases[i].tp, 1, 1, 1, 1, cases[i].tp > 1, false, &fused);
        tr.elementwise_kernels = SAX_ELEMENTWISE_EAGER;
        sax_layer_cost(&llama405, &gpu, &tr, cases[i].tp, 1, 1, 1, 1, cases[i].tp > 1, false, &eager);
        assert_within(eager.elem_s - fused.elem_s, 8192.0 * cases[i].fwd / 1e9 + 22e-6, 1e-9);
        assert_within(eager.elem_bwd_s - fused.elem_bwd_s, 8192.0 * cases[i].bwd / 1e9 + 29e-6, 1e-9);
        assert_true(eager.gemm_s == fused.gemm_s && eager.attn_s == fused.attn_s);
    }
}

/* PyTorch DTensor's TP keeps the gathered QKV and FC1 inputs for the weight gradient where Megatron-LM
 * keeps the shards: with sequence parallelism over TP 8, Llama 3 405B (h 16384) keeps 2 x 2 B x h x
 * (1 - 1/8) = 57,344 B more a token (28,672 B in FP8, which keeps the FP8 copies), 8192 tokens; the
 * selective recomputation's the same; full recomputation keeps the layer input alone, unchanged; without
 * sequence parallelism every input is gathered already, unchanged. */
static void test_dtensor_keeps_gathered_inputs(void **state)
{
    (void)state;
    sax_training_t tr;
    sax_training_set_defaults(&tr);
    static const sax_precision_t precs[] = {SAX_PRECISION_BF16, SAX_PRECISION_FP8};
    for (int k = 0; k < 2; k++) {
        tr.precision = precs[k];
        const double more = 8192.0 * (k == 0 ? 57344.0 : 28672.0);
        for (int sp = 1; sp >= 0; sp--) {
            sax_layer_cost_t mg, dt;
            tr.tp_implementation = SAX_TP_IMPL_MEGATRON;
            sax_layer_cost(&llama405, &ideal_gpu, &tr, 8, 1, 1, 1, 1, sp, false, &mg);
            tr.tp_implementation = SAX_TP_IMPL_DTENSOR;
            sax_layer_cost(&llama405, &ideal_gpu, &tr, 8, 1, 1, 1, 1, sp, false, &dt);
            assert_within(dt.act_bytes - mg.act_bytes, sp ? more : 0.0, 1e-3);
            assert_within(dt.act_sel_bytes - mg.act_sel_bytes, sp ? more : 0.0, 1e-3);
            assert_true(dt.act_full_bytes == mg.act_full_bytes && dt.act_op_bytes == mg.act_op_bytes);
        }
    }
}

/* PyTorch's ring attention (training.cp_implementation "pytorch"), Llama 3 405B (a 128, g 8, head 128) at
 * TP 8 and CP 4: 8192 / 4 = 2048 tokens and q = 128 x 128 / 8 = 2048 query elements a token on a GPU,
 * HBM at 1e9 B/s. Counted from torch/distributed/tensor/experimental/_attention.py on the last CP rank
 * (docs/cost-model.md section 6): forward 46 x 4 - 26 = 158 B an element, 2048 x 2048 x 158 =
 * 662,700,032 B, 0.662700032 s more; backward 60 x 4 + 16 = 256 B, 1,073,741,824 B, 1.073741824 s more.
 * K and V exchanged for all 16 query heads a GPU instead of its one K/V head: 2048 tokens x 2 x 16 x
 * 128 x 2 B = 16,777,216 B a step against 1,048,576. Without CP both are Megatron-LM's. */
static void test_pytorch_ring_attention_by_hand(void **state)
{
    (void)state;
    sax_training_t tr;
    sax_training_set_defaults(&tr);
    for (int cp = 4; cp >= 1; cp -= 3) {
        sax_layer_cost_t mg, pt;
        tr.cp_implementation = SAX_CP_IMPL_MEGATRON;
        sax_layer_cost(&llama405, &ideal_gpu, &tr, 8, cp, 1, 1, 1, true, false, &mg);
        tr.cp_implementation = SAX_CP_IMPL_PYTORCH;
        sax_layer_cost(&llama405, &ideal_gpu, &tr, 8, cp, 1, 1, 1, true, false, &pt);
        const bool ring = cp > 1;
        assert_within(pt.elem_s - mg.elem_s, ring ? 0.662700032 : 0.0, 1e-12);
        assert_within(pt.ring_s, ring ? 0.662700032 : 0.0, 1e-12);
        assert_within(pt.elem_bwd_s - mg.elem_bwd_s, ring ? 1.073741824 : 0.0, 1e-12);
        assert_within(mg.cp_bytes, 8192.0 / cp * 512.0, 1e-6);
        assert_within(pt.cp_bytes, 8192.0 / cp * 512.0 * (ring ? 16.0 : 1.0), 1e-6);
        assert_true(pt.attn_s == mg.attn_s && pt.gemm_s == mg.gemm_s && pt.act_bytes == mg.act_bytes);
    }
}

/* The slowest of n GPUs whose speeds spread with a relative standard deviation of 2 %: 1 + 0.02 x the
 * expected maximum of n standard normals, tabulated by Harter (1961): 1.4236 for 8, 2.5076 for 100,
 * 3.2414 for 1000 (the interpolated table is held to 0.2 % of those); one GPU runs alone. */
static void test_slowest_of_n_gpus(void **state)
{
    (void)state;
    sax_gpu_t gpu = {.speed_cv = 0.02};
    const double n[3] = {8, 100, 1000}, e_max[3] = {1.4236, 2.5076, 3.2414};
    for (int i = 0; i < 3; i++)
        assert_within(sax_slowest_of(&gpu, n[i]) - 1.0, 0.02 * e_max[i], 0.002);
    assert_true(sax_slowest_of(&gpu, 1) == 1.0);
    gpu.speed_cv = 0.0;
    assert_true(sax_slowest_of(&gpu, 16384) == 1.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_public_parameter_totals),
        cmocka_unit_test(test_tiny_model_by_hand),
        cmocka_unit_test(test_layer_flops_by_hand),
        cmocka_unit_test(test_gemms_beside_tp_collectives_by_hand),
        cmocka_unit_test(test_fp8_casts_and_bf16_attention_by_hand),
        cmocka_unit_test(test_attention_backend_by_hand),
        cmocka_unit_test(test_attention_head_padding_by_hand),
        cmocka_unit_test(test_korthikanti_activation_memory),
        cmocka_unit_test(test_bias_dropout_fusion_by_hand),
        cmocka_unit_test(test_fp8_recipes_by_hand),
        cmocka_unit_test(test_vocabulary_padding),
        cmocka_unit_test(test_cross_entropy_fusion_by_hand),
        cmocka_unit_test(test_eager_elementwise_by_hand),
        cmocka_unit_test(test_dtensor_keeps_gathered_inputs),
        cmocka_unit_test(test_pytorch_ring_attention_by_hand),
        cmocka_unit_test(test_gemm_efficiency_curve),
        cmocka_unit_test(test_gemm_time_properties),
        cmocka_unit_test(test_slowest_of_n_gpus),
        cmocka_unit_test(test_kernel_overhead_by_hand),
        cmocka_unit_test(test_zero_shards_experts_over_their_replicas),
        cmocka_unit_test(test_logits_kept_once),
        cmocka_unit_test(test_mla_up_proj_by_hand),
        cmocka_unit_test(test_torchtitan_projections_by_hand),
        cmocka_unit_test(test_async_tp_sums_by_hand),
        cmocka_unit_test(test_float8_tp_casts_by_hand),
        cmocka_unit_test(test_moe_act_by_hand),
        cmocka_unit_test(test_moe_token_dispatchers_by_hand),
        cmocka_unit_test(test_flex_dispatch_crosses_once_a_domain),
        cmocka_unit_test(test_group_limited_routing),
        cmocka_unit_test(test_group_limited_routing_by_counting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
