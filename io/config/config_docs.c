/* config_docs.c - docs/config.md and the `--help` key summary, generated from the field tables,
 * the unit tables and the presets, so the reference cannot drift from the loader. */
#include "config_internal.h"

#include <string.h>

/* The model's own defaults, so the docs show the values the loader really uses. */
typedef struct {
    sax_training_t training;
    sax_cluster_t cluster;
} model_defaults_t;

static void model_defaults(model_defaults_t *d)
{
    memset(d, 0, sizeof *d);
    sax_training_set_defaults(&d->training);
    d->cluster.n_tiers = 1;
    d->cluster.n_sites = 1;
    d->cluster.n_links = 1;
    sax_cluster_set_defaults(&d->cluster);
    sax_gpu_set_defaults(&d->cluster.gpu);
}

static void section(FILE *f, const char *title, const cf_section_t *sec, const void *defaults)
{
    fprintf(f, "### `%s`\n\n%s\n\n", title, sec->intro);
    cf_write_section_md(f, sec, defaults);
    fprintf(f, "\n");
}

static void write_presets(FILE *f)
{
    fprintf(f,
            "### GPU presets\n\n"
            "| name | `peak_flops` (BF16 dense) | `peak_flops_fp8` | `hbm` | `hbm_bandwidth` | "
            "`gemm_efficiency_max` | `gemm_efficiency_half_intensity` | `memory_efficiency` | "
            "`gemm_efficiency_max_fp8` | `attention_efficiency_fused` / `_flash1` / `_flash2` / `_flash3` |\n"
            "|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < sax_preset_gpu_count(); i++) {
        sax_gpu_t g;
        memset(&g, 0, sizeof g);
        sax_preset_gpu_find(sax_preset_gpu_name(i), &g);
        char a[32], b[32], c[32], d[32];
        sax_units_format(g.peak_flops_bf16, SAX_UNIT_FLOPS, a, sizeof a);
        sax_units_format(g.peak_flops_fp8, SAX_UNIT_FLOPS, b, sizeof b);
        sax_units_format(g.hbm_bytes, SAX_UNIT_BYTES, c, sizeof c);
        sax_units_format(g.hbm_bw_Bps, SAX_UNIT_BANDWIDTH, d, sizeof d);
        fprintf(f, "| `%s` | %s | %s | %s | %s | %g | %g | %g | %g | %g / %g / %g / %g |\n", g.name, a,
                g.peak_flops_fp8 > 0 ? b : "none", c, d, g.gemm_eff_max, g.gemm_eff_half_ai, g.mem_eff,
                g.gemm_eff_max_fp8, g.attn_eff[SAX_ATTN_FUSED], g.attn_eff[SAX_ATTN_FLASH1],
                g.attn_eff[SAX_ATTN_FLASH2], g.attn_eff[SAX_ATTN_FLASH3]);
    }
    fprintf(
        f,
        "\nSources: NVIDIA data sheets (A100 80GB SXM, H100 SXM, H200 SXM, B200 in HGX B200, GB200 NVL72 per "
        "GPU), dense (not sparse) peaks. NVIDIA's \"GB\" of HBM capacity are GiB-sized (nvidia-smi reports "
        "81920 MiB on an A100 80GB and 143771 MiB, about 140 GiB, on an H200 141GB), so capacities are "
        "stored as GiB. A preset also sets the first three efficiency keys to the values fitted to the published "
        "runs of `tests/data/validation/published-runs.json` (A100 and H100; H200, B200 and GB200 take the "
        "H100's as an assumption: docs/cost-model.md, \"Parameters and where they come from\"), and "
        "`gemm_efficiency_max_fp8` to the value fitted to one family of fp8 runs only (NeMo 24.07 on H100, "
        "`tests/data/validation/public-runs.json`; the other fp8 runs are its check; docs/cost-model.md, "
        "\"Validation\"); the attention efficiencies are kernel benchmarks (H100 and H200: Shah et al., "
        "FlashAttention-3, arXiv 2407.08608) at the 0.834 of a benchmark's speed that a training step keeps (the "
        "fitted GEMM ceiling over the best benchmark GEMM's), FlashAttention-1's the value MPT's long-sequence "
        "runs check (B200 and GB200 take them as an assumption; A100 has none: 0, attention follows the GEMM "
        "curve; docs/cost-model.md section 2): under a preset they replace the model defaults of the GPU table "
        "above. "
        "Any of them may be overridden next to `\"preset\"`. The scale-up domain (NVLink) is not part of a "
        "GPU preset: describe it in `cluster.scale_up`.\n\n");

    fprintf(
        f, "### Model presets\n\n"
           "| name | layers | hidden | ffn_hidden | heads | kv_heads | vocab | seq_len | ffn_act | experts | "
           "top_k | expert_ffn_hidden | shared_experts | dense_layers | tied_embeddings |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < sax_preset_model_count(); i++) {
        sax_model_desc_t m;
        sax_preset_model_find(sax_preset_model_name(i), &m);
        fprintf(f, "| `%s` | %d | %d | %d | %d | %d | %d | %d | %s | %d | %d | %d | %d | %d | %s |\n", m.name,
                m.layers, m.hidden, m.ffn_hidden, m.heads, m.kv_heads, m.vocab, m.seq_len,
                sax_ffn_act_names[m.ffn_act], m.experts, m.top_k, m.expert_ffn_hidden, m.shared_experts,
                m.dense_layers, m.tied_embeddings ? "true" : "false");
    }
    fprintf(
        f,
        "\nSources and choices:\n\n- `gpt3-175b`: Brown et al. 2020, *Language Models are Few-Shot "
        "Learners*, arXiv 2005.14165, Table 2.1 (96 layers, d_model 12288, 96 heads of 128, context 2048; "
        "FFN 4 x d_model). The GPT-2 BPE vocabulary of 50257 is padded to 51200 as Megatron-LM does (and as "
        "the SC21 runs in `shared/validation` do); embeddings are tied as in GPT-2. 174.6 B parameters by "
        "the formula of docs/cost-model.md.\n- `llama3-8b`, `llama3-70b`, `llama3-405b`: Llama Team 2024, "
        "*The Llama 3 Herd of Models*, arXiv 2407.21783, Table 3 (layers, model dimension, FFN dimension, "
        "heads, 8 KV heads, SwiGLU). Table 3 rounds the vocabulary to 128K; the released tokenizer has "
        "128256 entries. `seq_len` is the 8K context of the main pre-training stage (Section 3.4.1), before "
        "long-context extension. 8.03 B, 70.6 B and 405.8 B parameters by the formula.\n- `mixtral-8x7b`: "
        "Jiang et al. 2024, *Mixtral of Experts*, arXiv 2401.04088, Table 1 (dim 4096, 32 layers, 32 heads, "
        "8 KV heads, hidden_dim 14336, 8 experts, top-2, context 32768, vocabulary 32000). Every layer is "
        "MoE; `ffn_hidden` repeats the expert width. 46.7 B total, 12.9 B active parameters.\n- "
        "`deepseek-v3`: DeepSeek-AI 2024, *DeepSeek-V3 Technical Report*, arXiv 2412.19437, Sections 2.1 and "
        "4.2 (61 layers, hidden 7168, 128 heads, the first 3 layers dense with FFN 18432, then 256 routed "
        "experts of width 2048 with 8 active and 1 shared, vocabulary 129280, 4K pre-training sequences; "
        "node-limited routing over 8 groups of experts, at most 4 a token: `moe_router_num_groups` 8, "
        "`moe_router_group_topk` 4). The multi-token-prediction module is left out.\n\n**DeepSeek-V3's multi-head latent attention "
        "(MLA)** is described by four model keys: `head_dim` (128: the per-head query/key width without the "
        "rotary part, and the value width), `rope_head_dim` (64: the decoupled rotary query/key part), "
        "`q_lora_rank` (1536) and `kv_lora_rank` (512), all from the report's Section 4.2. The cost model "
        "counts the MLA projections (down-projections to the latent ranks, up-projections to the 128 heads) "
        "and uses the per-head widths in the attention products; by the parameter formula of "
        "docs/cost-model.md this gives 671.0 B parameters and 37.6 B active per token against the published "
        "671 B and 37 B. `kv_heads` equals `heads` because in training the latent is expanded into "
        "full per-head keys and values.\n\n");
}

void sax_config_write_docs(FILE *f)
{
    model_defaults_t d;
    model_defaults(&d);
    fprintf(
        f,
        "# Configuration reference\n\n<!-- Generated by sax_config_write_docs() (io/config/config_docs.c) from the "
        "loader's field tables. Do not edit by hand: regenerate with\n     cmake --build build --target "
        "gen_config_docs && build/tests/io/config/gen_config_docs -o docs/config.md\n"
        "     The test `config_docs` fails when this file is stale. -->\n\n");
    fprintf(
        f,
        "A sax configuration is one JSON object with lowercase snake-case keys. `sax eval` needs `model`, "
        "`training`, `cluster`, `parallelism` and `network`; `sax sweep` and `sax space` need `model`, "
        "`training`, `cluster` and `space`, and take `parallelism` and `network` (if present) as the fixed "
        "values of every key the space leaves out.\n\nThe loader is strict, so that a typo never silently "
        "falls back to a default:\n\n- an unknown key, a key given twice, a missing required key, a value of "
        "the wrong type, a number out of its range (negative, zero where zero is meaningless, non-integer "
        "where an integer is needed), a non-finite number, an unknown unit or a unit of the wrong kind, a "
        "site link naming an unknown site, and a cluster whose site GPU counts do not fit its tiers are all "
        "errors;\n- each error message names the file, the JSON path (`cluster.tiers[1].bandwidth`, or "
        "`cases[3].config.cluster.tiers[0].bandwidth` inside a dataset), what was expected and what was "
        "found; the command then exits with status 2.\n\nPrecedence of values: the cost model's defaults "
        "(efficiencies), then the defaults below, then a "
        "preset, then the file.\n\n");

    fprintf(
        f,
        "## Quantities and units\n\nEvery quantity accepts a JSON number in SI base units or a string `\""
        "<number> <unit>\"` (the space is optional): `\"80 GiB\"`, `\"3.35 TB/s\"`, `\"400 Gbit/s\"`, `\"50 "
        "GB/s\"`, `\"989 TFLOP/s\"`, `\"10 us\"`, `\"2 ms\"`, `\"100 km\"`. Decimal prefixes `k`, `M`, `G`, "
        "`T`, `P`, `E` are powers of 1000 (`K` is not a prefix), binary prefixes `Ki`, `Mi`, `Gi`, `Ti`, "
        "`Pi`, `Ei` powers of 1024; `bit` and `b` are bits, `B` bytes. So `\"400 Gbit/s\"` = 5e10 B/s, `\"80 "
        "GiB\"` = 85899345920 B, `\"10 us\"` = 1e-5 s, `\"100 km\"` = 1e5 m. The number follows JSON's "
        "syntax (no `inf`, `nan` or "
        "hex); nothing may follow the unit.\n\n");
    sax_units_write_docs(f);
    fprintf(f, "\n");

    fprintf(f, "## Sections\n\n");
    fprintf(f, "### top level\n\n");
    cf_write_section_md(f, &cf_root_section, NULL);
    fprintf(f, "\n`model` and `cluster.gpu` (and a site's `gpu`) may be a preset name, or an object with `\""
               "preset\": \"<name>\"` plus keys that override the preset's values (see *Presets*). Without a "
               "preset, the keys marked required are required.\n\n");
    section(f, "model", &cf_model_section, NULL);
    fprintf(f,
            "Checks: `hidden` is a multiple of `heads`, `kv_heads` divides `heads`; with `experts` > 0, 1 <= "
            "`top_k` <= `experts`, `expert_ffn_hidden` >= 1 and `dense_layers` <= `layers`; a dense model "
            "(`experts` = 0) has `top_k`, `shared_experts` and `dense_layers` 0; `ffn_hidden` >= 1 when any "
            "layer is dense.\n\n");
    section(f, "training", &cf_training_section, &d.training);
    fprintf(f, "`precision: \"fp8\"` needs every site's GPU to have `peak_flops_fp8` > 0.\n\n");
    section(f, "cluster", &cf_cluster_section, NULL);
    fprintf(
        f,
        "Consistency of the hierarchy: each tier's `gpus` is a multiple of the unit inside it (the scale-up "
        "domain for `tiers[0]`) and at least as large. A tier whose unit equals the unit inside it (a "
        "node-level tier over 8-GPU domains, or the only tier of a one-node cluster) is allowed: it adds "
        "that unit's uplink (its `bandwidth` and `oversubscription`) and no level of its own (no hop stays "
        "inside it, so its `latency` is never paid). A site holds at most one unit of the outermost tier, "
        "or one scale-up domain when there are no tiers (one node, one domain, no tiers at all: a valid "
        "cluster). A cluster of more than one site needs a tier, even when each site is one node: "
        "`tiers[0].bandwidth` is the GPUs' NIC, through which traffic reaches the site links (a tier of "
        "`scale_up.size` GPUs describes it). A site need not hold whole units of any level, scale-up "
        "domains included: ranks fill the units in order, so the site's last unit of a level may be partial "
        "(a 16384-GPU site in pods of 3072 is five full pods and one of 1024 GPUs; 256 GB200 in NVL72 "
        "domains are three full domains and one of 40). A partial unit is modelled as what it is: its "
        "GPUs, each with the tier's per-GPU `bandwidth`, share an uplink of (its GPUs) x `bandwidth` / "
        "`oversubscription`, and a group that reaches into it is timed with the members it has there "
        "(docs/cost-model.md, section 3). A job may also use fewer GPUs than the sites hold: with `dp` "
        "given, tp x cp x pp x dp may be smaller than the GPUs of the sites, and the job takes the first "
        "ones in rank order (the GPUs it leaves idle keep their share of the uplinks); `dp: \"auto\"` "
        "takes every GPU. Site names and tier names are unique. `tests/data/configs/one-node-8gpu.json` "
        "and `tests/data/configs/partial-pod-16k.json` are examples of both shapes.\n\n");
    section(f, "cluster.gpu (and cluster.sites[].gpu)", &cf_gpu_section, &d.cluster.gpu);
    fprintf(f,
            "A site's `gpu` given as a preset name or with `\"preset\"` starts from that preset; an object "
            "without `\"preset\"` overrides only the keys it names on a copy of `cluster.gpu`.\n\n");
    section(f, "cluster.scale_up", &cf_scale_up_section, &d.cluster.scale_up);
    section(f, "cluster.tiers[]", &cf_tier_section, &d.cluster.tiers[0]);
    section(f, "cluster.sites[]", &cf_site_section, NULL);
    section(f, "cluster.site_links[]", &cf_link_section, &d.cluster.links[0]);
    fprintf(
        f,
        "`latency` or `distance` is required. With only `distance`, latency = distance x 5 us/km (light in "
        "fibre, one way); with both, `latency` is used and `distance` is informational. A pair of sites "
        "appears at most once (in either order).\n\n");
    section(f, "parallelism", &cf_parallelism_section, NULL);
    fprintf(
        f,
        "`tp x cp x pp x dp` is the number of GPUs used. With `\"dp\": \"auto\"` the loader sets dp = (sum "
        "of the sites' `gpus`) / (tp x cp x pp) and rejects a remainder. Feasibility (divisibility of heads, "
        "layers and batch, memory, schedule constraints) is the cost model's verdict, not an input "
        "error.\n\n");
    section(f, "network", &cf_network_section, NULL);

    fprintf(f, "## `space` (sweeps)\n\n"
               "For `sax sweep` the file also has a `space` object. Its keys are:\n\n"
               "- any key of `parallelism` and `network` (");
    for (int k = 0; k < SAX_KEY_COUNT; k++)
        fprintf(f, "%s`%s`", k > 0 ? ", " : "", sax_key_names[k]);
    fprintf(
        f,
        ") with a list of 1 to %d values to explore, each written as in those sections (`\"dp\": [\"auto\", "
        "8]`, `\"order\": [[\"tp\", \"cp\", \"pp\", \"dp\"], [\"tp\", \"cp\", \"dp\", \"pp\"]]`). A value "
        "may appear once per list. A key left out keeps its value from `parallelism` / `network`, or their "
        "default (`dp` \"auto\"; `order` all five dimensions `[\"tp\", \"cp\", \"ep\", \"pp\", \"dp\"]`, "
        "since degrees vary in a sweep);\n- `scenarios`: an object mapping a path in `cluster` (e.g. `\""
        "site_links[0].bandwidth\"`, `\"site_links[0].latency\"`, `\"site_links[0].loss\"`, `\""
        "site_links[0].distance\"`, `\"sites[1].gpus\"`, `\"tiers[0].bandwidth\"`, `\"scale_up.bandwidth\"`, "
        "`\"gpu.peak_flops\"`; a leading `cluster.` is accepted), or in `training` or `model` when it starts "
        "with `training.` or `model.` (`\"training.dp_overlap_efficiency\"`, `\"model.seq_len\"`: the "
        "model's own parameters, to see how sensitive the answer is to them), to a list of 1 to %d values "
        "of that key's kind. At most %d paths; a path must name an existing numeric key. The scenarios are "
        "the cartesian product of the lists, the first path varying slowest, at most %d. Each scenario's "
        "model and cluster pass the same consistency checks. A value for `gpu.*` also applies to the sites that use the cluster's "
        "GPU; a `distance` also sets the latency of a link whose latency was derived from its distance;\n- "
        "`baselines`: an object mapping a name (at most %d baselines) to an object of `parallelism` / "
        "`network` keys with single values. A baseline fixes the keys it names and is optimised over the "
        "rest of the space, so each of its values must be among the values the space explores for that "
        "key.\n\n",
        SAX_SPACE_MAX_VALUES, SAX_SPACE_MAX_VALUES, SAX_SPACE_MAX_SCENARIO_VARS, SAX_CONFIG_MAX_SCENARIOS,
        SAX_SPACE_MAX_BASELINES);

    fprintf(f, "## Presets\n\n");
    write_presets(f);

    fprintf(
        f,
        "## Effective configuration\n\nAfter loading, sax keeps the *effective* configuration: presets "
        "expanded, every default filled in, every quantity a number in SI base units, `dp` resolved in "
        "`parallelism` (the space keeps `\"auto\"`), and the `space` with every key listed. Result files "
        "store it for provenance; loading it again gives the same problem, candidate and space.\n\n## "
        "Datasets of measured runs\n\n`sax validate` (and `sax calibrate`'s `runs`) read `{\"note\": ..., \""
        "cases\": [...]}` where each case has `name` (unique, at most 63 characters), `config` (a full "
        "configuration as above), `measured: {\"iteration_time_s\": seconds}`, and optionally `family`, "
        "`source`, `derived` and `assumptions` (text). Errors name paths such as "
        "`cases[3].config.cluster.tiers[0].bandwidth`.\n\n## Regenerating this file\n\n```sh\ncmake --build "
        "build --target gen_config_docs && build/tests/io/config/gen_config_docs -o docs/config.md\n"
        "```\n");
}

void sax_config_write_help(FILE *f)
{
    const cf_section_t *secs[] = {&cf_model_section,    &cf_training_section,    &cf_gpu_section,
                                  &cf_scale_up_section, &cf_tier_section,        &cf_site_section,
                                  &cf_link_section,     &cf_parallelism_section, &cf_network_section};
    fprintf(f, "Configuration keys (docs/config.md has types, ranges and defaults):\n");
    for (size_t s = 0; s < sizeof secs / sizeof secs[0]; s++) {
        fprintf(f, "  %-22s", secs[s]->path);
        for (int i = 0; i < secs[s]->n_fields; i++)
            fprintf(f, "%s%s%s", i > 0 ? ", " : "", secs[s]->fields[i].key,
                    secs[s]->fields[i].need == CF_REQUIRED ? "*" : "");
        fprintf(f, "\n");
    }
    fprintf(f, "  %-22s%s\n", "space",
            "any parallelism/network key with a list of values, scenarios, baselines");
    fprintf(
        f,
        "(* required; quantities take units: \"80 GiB\", \"400 Gbit/s\", \"10 us\", \"989 TFLOP/s\", \"100 "
        "km\")\n");
}
