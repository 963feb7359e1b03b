/* presets.c - built-in GPU types and model architectures, selectable by name in configurations.
 *
 * GPU numbers: dense peaks and HBM from NVIDIA's data sheets as collected in domain.md's
 * reference table. HBM capacity: NVIDIA's "GB" figures are GiB-sized (nvidia-smi reports
 * 81920 MiB for an A100 80GB and 143771 MiB, about 140.4 GiB, for an H200 141GB), so capacities
 * are stored as GiB. Model numbers: the public architecture tables cited per row (docs/config.md).
 */
#include "sax_config.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#define GIB 1073741824.0
#define TFLOPS 1e12
#define TBPS 1e12

typedef struct {
    const char *name;
    double bf16, fp8, hbm, hbm_bw;
    double eff_max, half_ai, mem_eff, eff_max_fp8; /* fitted model parameters (docs/cost-model.md) */
    double attn[SAX_ATTN_BACKEND_COUNT];           /* measured attention kernels; 0: the GEMM curve */
    bool mxfp8;                                    /* block-scaled MXFP8 (Blackwell) */
} gpu_preset_t;

/* The efficiency parameters of A100 and H100 are fitted once to the published measured runs of
 * tests/data/validation/published-runs.json (Megatron-LM SC21 on A100, Megatron-Core on H100),
 * jointly with the training defaults of model/defaults.c, by tests/model/fit_defaults.c, with GEMM
 * efficiency bounded to [0.5, 0.9] and memory efficiency to [0.6, 0.95] (docs/cost-model.md,
 * "Parameters and where they come from"). The H100's half-intensity (5.3 FLOP/B) is not identified: no
 * H100 run of that set has a GEMM near any knee, so the data leave it open. H200 shares the H100's
 * compute die; B200 and GB200 have no public measured runs in that set and take the H100's values
 * as an assumption until a user calibrates them (`sax calibrate`).
 *
 * The fp8 GEMM ceiling, fitted on the 12 fp8 runs of NeMo 24.07 on H100 only
 * (`fit_defaults tests/data/validation/public-runs.json --fp8-family nemo-24.07-h100-fp8`); the other
 * families' fp8 runs are its check (docs/cost-model.md, "Validation"). H200, B200 and GB200 take it as
 * an assumption, as they take the H100's other values.
 *
 * The attention kernels' fractions of the BF16 peak on H100 SXM5 (head dimension 128) come from kernel
 * benchmarks, not from a fit: Shah et al., FlashAttention-3 (arXiv 2407.08608), figures of forward
 * (causal) and backward speed at 16K tokens, combined as a training step runs them (one forward, a
 * backward of 2.5 times its FLOPs) and divided by 16384 / (16384 + 400), the model's growth of a
 * kernel's speed with the sequence (model/workload.c): cuDNN (Transformer Engine's fused attention) 539
 * and 516 TFLOP/s, 0.54 of the peak at long sequences; FlashAttention-2 335 and 322, 0.34;
 * FlashAttention-3 616 and 561, 0.60 (docs/cost-model.md section 2). A benchmark runs one kernel on an
 * idle GPU at full clocks; a training step runs it among the others, at the clocks its power allows.
 * The GEMMs measure that loss: the best shape-searched cuBLAS BF16 GEMM reaches 0.803 of the H100's
 * peak in a benchmark (stas00/ml-engineering, compute/accelerator/README.md), the ceiling fitted to
 * training runs is 0.670, so a compute-bound kernel keeps 0.670 / 0.803 = 0.834 of its benchmark speed
 * in training, and so do the three attention kernels: 0.45, 0.28 and 0.50 (rounded). FlashAttention-1, and the
 * Triton kernel of its generation that Composer's MPT ran (llm-foundry's attn_impl triton), has no
 * H100 benchmark: 0.17, first taken as half FlashAttention-2's benchmark speed (Dao, FlashAttention-2,
 * arXiv 2307.08691, "about 2x faster than FlashAttention", a ratio measured on A100), is kept as the
 * value MPT's long-sequence runs check (docs/cost-model.md, "Validation"), 0.6 of FlashAttention-2's
 * in training. H200 has the same die; B200 and GB200 take them as an assumption, as they take the
 * H100's other values. No such measurement here for A100: its attention keeps the GEMM curve. */
#define FP8_EFF 0.52
/* 0.54, 0.34 and 0.60 x 0.834, rounded; FlashAttention-1's 0.17 as it was */
#define HOPPER_ATTN                                                                                          \
    {                                                                                                        \
        0.45, 0.17, 0.28, 0.50                                                                               \
    }
static const gpu_preset_t gpu_presets[] = {
    {"A100", 312 * TFLOPS, 0.0, 80 * GIB, 2.0 * TBPS, 0.756, 48.6, 0.771, 0.0, {0}, false},
    /* the first A100 (SXM4 40GB: HBM2 at 1555 GB/s, NVIDIA's A100 data sheet), the same die and fits */
    {"A100-40GB", 312 * TFLOPS, 0.0, 40 * GIB, 1.555 * TBPS, 0.756, 48.6, 0.771, 0.0, {0}, false},
    {"H100", 989 * TFLOPS, 1979 * TFLOPS, 80 * GIB, 3.35 * TBPS, 0.670, 5.3, 0.60, FP8_EFF, HOPPER_ATTN,
     false},
    {"H200", 989 * TFLOPS, 1979 * TFLOPS, 141 * GIB, 4.8 * TBPS, 0.670, 5.3, 0.60, FP8_EFF, HOPPER_ATTN,
     false},
    {"B200", 2250 * TFLOPS, 4500 * TFLOPS, 180 * GIB, 7.7 * TBPS, 0.670, 5.3, 0.60, FP8_EFF, HOPPER_ATTN,
     true},
    {"GB200", 2500 * TFLOPS, 5000 * TFLOPS, 186 * GIB, 8.0 * TBPS, 0.670, 5.3, 0.60, FP8_EFF, HOPPER_ATTN,
     true},
};

#define DENSE(nm, l, h, f, a, g, v, s, act, tied)                                                            \
    {                                                                                                        \
        .name = nm, .layers = l, .hidden = h, .ffn_hidden = f, .heads = a, .kv_heads = g, .vocab = v,        \
        .seq_len = s, .ffn_act = act, .tied_embeddings = tied                                                \
    }

static const sax_model_desc_t model_presets[] = {
    /* GPT-3 175B: Brown et al. 2020 (arXiv 2005.14165) Table 2.1; GPT-2 BPE vocabulary of 50257
     * padded to 51200 as Megatron-LM does; input and output embeddings tied as in GPT-2. */
    DENSE("gpt3-175b", 96, 12288, 49152, 96, 96, 51200, 2048, SAX_FFN_GELU, true),
    /* Llama 3: Llama Team 2024 (arXiv 2407.21783) Table 3; vocabulary 128256 of the released
     * tokenizer (Table 3 rounds it to 128K); 8K pre-training context (Section 3.4.1). */
    DENSE("llama3-8b", 32, 4096, 14336, 32, 8, 128256, 8192, SAX_FFN_SWIGLU, false),
    DENSE("llama3-70b", 80, 8192, 28672, 64, 8, 128256, 8192, SAX_FFN_SWIGLU, false),
    DENSE("llama3-405b", 126, 16384, 53248, 128, 8, 128256, 8192, SAX_FFN_SWIGLU, false),
    /* Mixtral 8x7B: Jiang et al. 2024 (arXiv 2401.04088) Table 1; every layer is MoE and
     * ffn_hidden repeats the expert width. */
    {.name = "mixtral-8x7b",
     .layers = 32,
     .hidden = 4096,
     .ffn_hidden = 14336,
     .heads = 32,
     .kv_heads = 8,
     .vocab = 32000,
     .seq_len = 32768,
     .ffn_act = SAX_FFN_SWIGLU,
     .experts = 8,
     .top_k = 2,
     .expert_ffn_hidden = 14336},
    /* DeepSeek-V3: DeepSeek-AI 2024 (arXiv 2412.19437) Section 4.2: 61 layers, hidden 7168, 128
     * heads of 128 (+64 rotary), MLA with q/kv compression ranks 1536/512, first 3 layers dense
     * (FFN 18432), then 1 shared + 256 routed experts of 2048, 8 active; 4K pre-training
     * sequences; vocabulary 129280 (the report's "128K"). Node-limited routing (Section 2.1.2): the
     * experts in 8 groups, a token's 8 from at most 4 of them (n_group 8, topk_group 4 in the released
     * config.json). The MTP module (num_nextn_predict_layers 1) is left out, as Megatron-Bridge's
     * recipes run it: model.mtp_num_layers 1 adds it. */
    {.name = "deepseek-v3",
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
     .kv_lora_rank = 512,
     .moe_router_num_groups = 8,
     .moe_router_group_topk = 4},
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

int sax_preset_gpu_count(void) { return COUNT(gpu_presets); }

const char *sax_preset_gpu_name(int i)
{
    return i >= 0 && i < COUNT(gpu_presets) ? gpu_presets[i].name : NULL;
}

bool sax_preset_gpu_find(const char *name, sax_gpu_t *out)
{
    for (int i = 0; name != NULL && i < COUNT(gpu_presets); i++) {
        if (strcmp(gpu_presets[i].name, name) != 0)
            continue;
        memset(out->name, 0, sizeof out->name);
        strncpy(out->name, gpu_presets[i].name, sizeof out->name - 1);
        out->peak_flops_bf16 = gpu_presets[i].bf16;
        out->peak_flops_fp8 = gpu_presets[i].fp8;
        out->hbm_bytes = gpu_presets[i].hbm;
        out->hbm_bw_Bps = gpu_presets[i].hbm_bw;
        out->mxfp8 = gpu_presets[i].mxfp8;
        sax_preset_gpu_calibration(name, 0.0, out);
        return true;
    }
    return false;
}

/* Other names of a preset's die: the export variants (same tensor cores and HBM, slower NVLink, which
 * the cluster's scale_up states) and the Grace-Hopper superchip (an H200-class HBM3e on the H100 die). */
static const struct {
    const char *name, *preset;
} gpu_aliases[] = {{"H800", "H100"}, {"A800", "A100"}, {"GH200", "H200"}};

static int gpu_preset_index(const char *name)
{
    for (int i = 0; name != NULL && i < COUNT(gpu_presets); i++)
        if (strcmp(gpu_presets[i].name, name) == 0)
            return i;
    return -1;
}

/* Whether the len characters at w are `upper` (a preset's name, in capitals), case aside. */
static bool word_is(const char *w, size_t len, const char *upper)
{
    if (strlen(upper) != len)
        return false;
    for (size_t k = 0; k < len; k++)
        if (toupper((unsigned char)w[k]) != upper[k])
            return false;
    return true;
}

/* The preset a GPU name refers to: the preset's own name, or a word of the name ("NVIDIA H100 SXM5
 * 80GB", "A100-SXM4-80GB": split at anything not a letter or digit) that is a preset's name or an
 * alias, case aside; -1 for none. */
static int gpu_preset_of_name(const char *name)
{
    int exact = gpu_preset_index(name);
    if (exact >= 0 || name == NULL)
        return exact;
    for (const char *w = name; *w != '\0';) {
        size_t len = 0;
        while (isalnum((unsigned char)w[len]))
            len++;
        for (int i = 0; len > 0 && i < COUNT(gpu_presets); i++)
            if (word_is(w, len, gpu_presets[i].name))
                return i;
        for (int a = 0; len > 0 && a < COUNT(gpu_aliases); a++)
            if (word_is(w, len, gpu_aliases[a].name))
                return gpu_preset_index(gpu_aliases[a].preset);
        w += len > 0 ? len : 1;
    }
    return -1;
}

bool sax_preset_gpu_calibration(const char *name, double peak_flops, sax_gpu_t *out)
{
    int i = gpu_preset_of_name(name);
    for (int j = 0; i < 0 && peak_flops > 0 && j < COUNT(gpu_presets); j++)
        if (fabs(gpu_presets[j].bf16 - peak_flops) <= 0.01 * gpu_presets[j].bf16)
            i = j;
    if (i < 0)
        return false;
    out->gemm_eff_max = gpu_presets[i].eff_max;
    out->gemm_eff_half_ai = gpu_presets[i].half_ai;
    out->mem_eff = gpu_presets[i].mem_eff;
    out->gemm_eff_max_fp8 = gpu_presets[i].eff_max_fp8;
    for (int b = 0; b < SAX_ATTN_BACKEND_COUNT; b++)
        out->attn_eff[b] = gpu_presets[i].attn[b];
    /* the die's FP8 tensor cores: twice the dense BF16 rate on Hopper and Blackwell, so in proportion to
     * a stated BF16 peak (an H100 PCIe's 756 TFLOP/s gives 1513) */
    out->peak_flops_fp8 = gpu_presets[i].fp8 * (peak_flops > 0.0 ? peak_flops / gpu_presets[i].bf16 : 1.0);
    out->mxfp8 = gpu_presets[i].mxfp8;
    return true;
}

int sax_preset_model_count(void) { return COUNT(model_presets); }

const char *sax_preset_model_name(int i)
{
    return i >= 0 && i < COUNT(model_presets) ? model_presets[i].name : NULL;
}

bool sax_preset_model_find(const char *name, sax_model_desc_t *out)
{
    for (int i = 0; name != NULL && i < COUNT(model_presets); i++)
        if (strcmp(model_presets[i].name, name) == 0) {
            *out = model_presets[i];
            return true;
        }
    return false;
}
