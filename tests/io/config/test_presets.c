/* test_presets.c - the built-in presets against the cited public numbers: GPU peaks and memories
 * from domain.md's reference table (NVIDIA data sheets), model architectures from their papers,
 * and each model's parameter count, computed here by hand from the architecture (domain.md's
 * per-layer formulas; MLA from DeepSeek-V2/V3's projection shapes), against the published total. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sax_config.h"

#include <math.h>
#include <string.h>

#define GIB 1073741824.0

static void test_gpus(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double bf16_T, fp8_T, hbm_GiB, hbm_bw_TBps;
        bool mxfp8; /* Blackwell's tensor cores (NVIDIA's Blackwell architecture brief) */
    } want[] = {
        {"A100", 312, 0, 80, 2.0, false},     {"A100-40GB", 312, 0, 40, 1.555, false},
        {"H100", 989, 1979, 80, 3.35, false}, {"H200", 989, 1979, 141, 4.8, false},
        {"B200", 2250, 4500, 180, 7.7, true}, {"GB200", 2500, 5000, 186, 8.0, true},
    };
    assert_int_equal(sax_preset_gpu_count(), 6);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        sax_gpu_t g;
        memset(&g, 0, sizeof g);
        assert_true(sax_preset_gpu_find(want[i].name, &g));
        assert_string_equal(g.name, want[i].name);
        assert_true(fabs(g.peak_flops_bf16 - want[i].bf16_T * 1e12) < 1.0);
        assert_true(fabs(g.peak_flops_fp8 - want[i].fp8_T * 1e12) < 1.0);
        assert_true(g.hbm_bytes == want[i].hbm_GiB * GIB);
        assert_true(fabs(g.hbm_bw_Bps - want[i].hbm_bw_TBps * 1e12) < 1.0);
        assert_int_equal(g.mxfp8, want[i].mxfp8);
        /* the fitted efficiencies come along and are physically possible fractions */
        assert_true(g.gemm_eff_max > 0.0 && g.gemm_eff_max <= 1.0);
        assert_true(g.mem_eff > 0.0 && g.mem_eff <= 1.0);
        assert_true(g.gemm_eff_half_ai > 0.0);
    }
    sax_gpu_t g;
    memset(&g, 0, sizeof g);
    assert_false(sax_preset_gpu_find("h100", &g)); /* names are case-sensitive */
    assert_false(sax_preset_gpu_find(NULL, &g));
    assert_true(g.name[0] == '\0');
}

/* Parameters by hand: attention Q,K,V,O (or MLA's projections), FFN k_f x h x f, MoE routed +
 * shared experts + router, embeddings (x2 unless tied). Norms are ignored (< 0.01%). */
static void count_params(const sax_model_desc_t *m, double *total, double *active)
{
    double h = m->hidden, a = m->heads, g = m->kv_heads, V = m->vocab;
    double kf = m->ffn_act == SAX_FFN_SWIGLU ? 3.0 : 2.0;
    double attn;
    if (m->kv_lora_rank > 0) {
        double d = m->head_dim, r = m->rope_head_dim, qr = m->q_lora_rank, kr = m->kv_lora_rank;
        attn = h * qr + qr * a * (d + r) + h * (kr + r) + kr * a * 2 * d + a * d * h;
    } else {
        double d = h / a;
        attn = h * (h + 2 * g * d) + h * h;
    }
    double dense = attn + kf * h * m->ffn_hidden;
    double expert = kf * h * m->expert_ffn_hidden;
    double moe = attn + (m->experts + m->shared_experts) * expert + h * m->experts;
    double moe_active = attn + (m->top_k + m->shared_experts) * expert + h * m->experts;
    int n_dense = m->experts > 0 ? m->dense_layers : m->layers;
    int n_moe = m->layers - n_dense;
    double emb = (m->tied_embeddings ? 1.0 : 2.0) * V * h;
    *total = n_dense * dense + n_moe * moe + emb;
    *active = n_dense * dense + n_moe * moe_active + emb;
}

/* The Hopper presets' attention efficiencies from the FlashAttention-3 paper's H100 SXM5 figures at 16K
 * tokens (arXiv 2407.08608; forward with the causal mask, backward), combined as a training step runs them
 * (a forward and a backward of 2.5 times its FLOPs), over the 989 TFLOP/s peak, divided by the model's
 * growth with the sequence at 16K (16384 / 16784) and scaled by what a training step keeps of a benchmark's
 * speed: the fitted GEMM ceiling 0.670 over the best benchmark GEMM's 0.803 (docs/cost-model.md section 2).
 * The presets are rounded to two places. FlashAttention-1 has no benchmark: 0.17 as validated. */
static void test_attention_from_benchmarks(void **state)
{
    (void)state;
    static const struct {
        sax_attn_backend_t b;
        double fwd_T, bwd_T;
    } bench[] = {{SAX_ATTN_FUSED, 539, 516}, {SAX_ATTN_FLASH2, 335, 322}, {SAX_ATTN_FLASH3, 616, 561}};
    const double keep = 0.670 / 0.803, growth = 16384.0 / (16384.0 + 400.0);
    static const char *const hopper_and_later[] = {"H100", "H200", "B200", "GB200"};
    for (size_t k = 0; k < sizeof hopper_and_later / sizeof hopper_and_later[0]; k++) {
        sax_gpu_t g;
        memset(&g, 0, sizeof g);
        assert_true(sax_preset_gpu_find(hopper_and_later[k], &g));
        for (size_t i = 0; i < sizeof bench / sizeof bench[0]; i++) {
            double mix_T = 3.5 / (1.0 / bench[i].fwd_T + 2.5 / bench[i].bwd_T); /* FLOPs over time */
            double want = mix_T / 989.0 / growth * keep;
            assert_true(fabs(g.attn_eff[bench[i].b] - want) <= 0.006);
        }
        assert_true(fabs(g.attn_eff[SAX_ATTN_FLASH1] - 0.17) < 1e-12);
    }
    sax_gpu_t a100;
    memset(&a100, 0, sizeof a100);
    assert_true(sax_preset_gpu_find("A100", &a100));
    for (int b = 0; b < SAX_ATTN_BACKEND_COUNT; b++)
        assert_true(a100.attn_eff[b] == 0.0); /* no measurement: the GEMM curve */
}

static void test_models(void **state)
{
    (void)state;
    static const struct {
        sax_model_desc_t arch; /* the architecture as the cited table gives it */
        double total_B, active_B, tol;
    } want[] = {
        /* GPT-3 paper Table 2.1; 175B (174.6B with the 51200-entry padded vocabulary) */
        {{"gpt3-175b", 96, 12288, 49152, 96, 96, 51200, 2048, SAX_FFN_GELU, 0, 0, 0, 0, 0,
          true,        0,  0,     0,     0,  0,  0,     0},
         175.0,
         175.0,
         0.01},
        /* Llama 3 paper Table 3: 8B, 70B, 405B (the released checkpoints: 8.03B, 70.6B, 405.9B) */
        {{"llama3-8b", 32, 4096, 14336, 32, 8, 128256, 8192, SAX_FFN_SWIGLU, 0, 0, 0, 0, 0,
          false,       0,  0,    0,     0,  0, 0,      0},
         8.03,
         8.03,
         0.005},
        {{"llama3-70b", 80, 8192, 28672, 64, 8, 128256, 8192, SAX_FFN_SWIGLU, 0, 0, 0, 0, 0,
          false,        0,  0,    0,     0,  0, 0,      0},
         70.6,
         70.6,
         0.005},
        {{"llama3-405b", 126, 16384, 53248, 128, 8, 128256, 8192, SAX_FFN_SWIGLU, 0, 0, 0, 0, 0,
          false,         0,   0,     0,     0,   0, 0,      0},
         405.0,
         405.0,
         0.005},
        /* Mixtral paper Table 1 and Section 2: 46.7B total ("47B"), 12.9B active ("13B") */
        {{"mixtral-8x7b", 32, 4096, 14336, 32, 8, 32000, 32768, SAX_FFN_SWIGLU, 8, 2, 14336, 0, 0,
          false,          0,  0,    0,     0,  0, 0,     0},
         46.7,
         12.9,
         0.005},
        /* DeepSeek-V3 report: 671B total, 37B activated */
        {{"deepseek-v3", 61,  7168, 18432, 128, 128, 129280, 4096, SAX_FFN_SWIGLU, 256, 8, 2048, 1, 3,
          false,         128, 64,   1536,  512, 8,   4,      0},
         671.0,
         37.0,
         0.02},
    };
    assert_int_equal(sax_preset_model_count(), 6);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        sax_model_desc_t m;
        memset(&m, 0x5a, sizeof m);
        assert_true(sax_preset_model_find(want[i].arch.name, &m));
        const sax_model_desc_t *w = &want[i].arch;
        assert_string_equal(m.name, w->name);
        assert_int_equal(m.layers, w->layers);
        assert_int_equal(m.hidden, w->hidden);
        assert_int_equal(m.ffn_hidden, w->ffn_hidden);
        assert_int_equal(m.heads, w->heads);
        assert_int_equal(m.kv_heads, w->kv_heads);
        assert_int_equal(m.vocab, w->vocab);
        assert_int_equal(m.seq_len, w->seq_len);
        assert_int_equal(m.ffn_act, w->ffn_act);
        assert_int_equal(m.experts, w->experts);
        assert_int_equal(m.top_k, w->top_k);
        assert_int_equal(m.expert_ffn_hidden, w->expert_ffn_hidden);
        assert_int_equal(m.shared_experts, w->shared_experts);
        assert_int_equal(m.dense_layers, w->dense_layers);
        assert_int_equal(m.tied_embeddings, w->tied_embeddings);
        assert_int_equal(m.head_dim, w->head_dim);
        assert_int_equal(m.rope_head_dim, w->rope_head_dim);
        assert_int_equal(m.q_lora_rank, w->q_lora_rank);
        assert_int_equal(m.kv_lora_rank, w->kv_lora_rank);
        assert_int_equal(m.moe_router_num_groups, w->moe_router_num_groups);
        assert_int_equal(m.moe_router_group_topk, w->moe_router_group_topk);
        double total, active;
        count_params(&m, &total, &active);
        if (fabs(total / 1e9 - want[i].total_B) > want[i].tol * want[i].total_B ||
            fabs(active / 1e9 - want[i].active_B) > want[i].tol * want[i].active_B) {
            print_error("%s: %.2fB total, %.2fB active; published %.1fB, %.1fB\n", m.name, total / 1e9,
                        active / 1e9, want[i].total_B, want[i].active_B);
            fail();
        }
    }
    sax_model_desc_t m;
    assert_false(sax_preset_model_find("llama3-406b", &m));
}

/* A preset name loads through the configuration with the same numbers. */
static void test_preset_in_config(void **state)
{
    (void)state;
    const char *text =
        "{\"model\": {\"preset\": \"mixtral-8x7b\", \"top_k\": 1}, \"training\": {\"global_batch\": 8},"
        " \"cluster\": {\"gpu\": {\"preset\": \"GB200\", \"reserved_memory\": \"5 GiB\"},"
        " \"scale_up\": {\"size\": 72, \"bandwidth\": \"900 GB/s\", \"latency\": \"1 us\"},"
        " \"sites\": [{\"name\": \"nvl72\", \"gpus\": 72}]},"
        " \"parallelism\": {\"tp\": 8, \"dp\": 9}, \"network\": {}}";
    sax_config_t cfg;
    sax_error_t err = {{0}};
    sax_status_t st = sax_config_parse(text, "inline", &cfg, &err);
    if (st != SAX_OK) {
        print_error("%s\n", err.text);
        fail();
    }
    assert_int_equal(cfg.problem.model.experts, 8);
    assert_int_equal(cfg.problem.model.top_k, 1);
    assert_int_equal(cfg.problem.model.vocab, 32000);
    assert_true(fabs(cfg.problem.cluster.gpu.peak_flops_bf16 - 2500e12) < 1.0);
    assert_true(cfg.problem.cluster.gpu.reserved_bytes == 5 * GIB);
    assert_true(cfg.problem.cluster.gpu.hbm_bytes == 186 * GIB);
    sax_config_fini(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpus),
        cmocka_unit_test(test_attention_from_benchmarks),
        cmocka_unit_test(test_models),
        cmocka_unit_test(test_preset_in_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
