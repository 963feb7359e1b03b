/* test_layout.c - routes between sites without a direct link, and MoE parallel folding (Megatron-Core's --expert-tensor-parallel-size): which ranks the
 * experts' groups hold, what the experts weigh per GPU, and the refusals. Expected rank sets are worked by
 * hand from Megatron-Core's expert RankGenerator (megatron/core/parallel_state.py at NVIDIA/Megatron-LM
 * d98e8a64dd: tp = etp, ep, dp = expert DP, pp, order tp-ep-dp-pp, so a stage's ranks are numbered etp
 * fastest, then ep, then expert DP); memory by hand from the parameter counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fixture.h"
#include "model_internal.h"

#include <math.h>

/* A small MoE layer: h 1024, 8 heads, 8 routed SwiGLU experts of width 512, top-2, sequence 256. */
static const sax_model_desc_t small_moe = {.name = "moe",
                                           .layers = 1,
                                           .hidden = 1024,
                                           .ffn_hidden = 4096,
                                           .heads = 8,
                                           .kv_heads = 8,
                                           .vocab = 32768,
                                           .seq_len = 256,
                                           .ffn_act = SAX_FFN_SWIGLU,
                                           .experts = 8,
                                           .top_k = 2,
                                           .expert_ffn_hidden = 512};

/* The members of the group of g holding rank 0, sorted, into out (returns how many). */
static int members(const sax_group_t *g, long *out)
{
    int n = 1;
    out[0] = 0;
    for (int p = 0; p < g->n_pieces; p++) {
        int k = n;
        for (int i = 1; i < g->piece_size[p]; i++)
            for (int j = 0; j < k; j++)
                out[n++] = out[j] + i * g->piece_stride[p];
    }
    for (int i = 1; i < n; i++) /* insertion sort */
        for (int j = i; j > 0 && out[j] < out[j - 1]; j--) {
            long t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

static void assert_members(const sax_group_t *g, const long *want, int n)
{
    long got[64];
    assert_int_equal(members(g, got), n);
    assert_int_equal(g->n, n);
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("member %d: got rank %ld, expected %ld", i, got[i], want[i]);
}

static sax_candidate_t candidate(int tp, int dp, int pp, int ep, int etp, const sax_dim_t *order, int n_order)
{
    sax_candidate_t c = {.tp = tp,
                         .pp = pp,
                         .dp = dp,
                         .cp = 1,
                         .ep = ep,
                         .etp = etp,
                         .vpp = 1,
                         .micro_batch = 1,
                         .schedule = SAX_SCHEDULE_1F1B,
                         .zero = 1,
                         .n_order = n_order};
    for (int i = 0; i < n_order; i++)
        c.order[i] = order[i];
    sax_candidate_set_nccl_defaults(&c);
    return c;
}

/* TP2 DP2 PP2 EP4 ETP1 on 8 GPUs, order tp, dp, pp: rank = tp + 2 dp + 4 pp. A stage's 4 ranks are the
 * experts' grid etp 1 x ep 4 x expert-DP 1, so the EP group of rank 0 is stage 0's ranks {0, 1, 2, 3}
 * (EP 4 exceeds DP 2: refused without folding); its expert DP is rank 0 alone, while the dense DP group
 * stays {0, 2}. With NVLink domains of 4 the EP group stays in one; with domains of 2 it crosses the
 * tier. Order tp, pp, dp: rank = tp + 2 pp + 4 dp, stage 0 is {0, 1, 4, 5}, which crosses domains of 4. */
static void test_fold_ep_beyond_dp(void **state)
{
    (void)state;
    sax_cluster_t cl;
    fixture_h100_cluster(&cl, 1, 8, 0, 0);
    cl.scale_up.size = 4;
    const sax_dim_t tdp[] = {SAX_DIM_TP, SAX_DIM_DP, SAX_DIM_PP},
                    tpd[] = {SAX_DIM_TP, SAX_DIM_PP, SAX_DIM_DP};
    sax_candidate_t c = candidate(2, 2, 2, 4, 1, tdp, 3);
    sax_layout_t lay;
    assert_int_equal(sax_layout_build(&cl, &c, &lay), SAX_FEASIBLE);
    assert_members(&lay.dim[SAX_DIM_EP], (const long[]){0, 1, 2, 3}, 4);
    assert_members(&lay.dim[SAX_GROUP_EXPERT_DP], (const long[]){0}, 1);
    assert_members(&lay.dim[SAX_GROUP_EXPERT_TP], (const long[]){0}, 1);
    assert_members(&lay.dim[SAX_DIM_DP], (const long[]){0, 2}, 2);
    assert_int_equal(lay.dim[SAX_DIM_EP].top, 0); /* inside a domain of 4 */
    cl.scale_up.size = 2;
    assert_int_equal(sax_layout_build(&cl, &c, &lay), SAX_FEASIBLE);
    assert_int_equal(lay.dim[SAX_DIM_EP].top, 1); /* over the tier */

    cl.scale_up.size = 4;
    c = candidate(2, 2, 2, 4, 1, tpd, 3);
    assert_int_equal(sax_layout_build(&cl, &c, &lay), SAX_FEASIBLE);
    assert_members(&lay.dim[SAX_DIM_EP], (const long[]){0, 1, 4, 5}, 4);
    assert_int_equal(lay.dim[SAX_DIM_EP].top, 1);
}

/* TP4 DP2 EP4 ETP2 on 8 GPUs (PP1), order tp, dp: rank = tp + 4 dp. The experts' grid is etp 2 x ep 4 x
 * expert-DP 1: Megatron's EP groups are {0, 2, 4, 6} and {1, 3, 5, 7}, its expert-TP groups {0, 1}, ...
 * Without folding (etp = tp = 4) EP 4 would have to divide DP 2. */
static void test_fold_expert_tp(void **state)
{
    (void)state;
    sax_cluster_t cl;
    fixture_h100_cluster(&cl, 1, 8, 0, 0);
    const sax_dim_t order[] = {SAX_DIM_TP, SAX_DIM_DP};
    sax_candidate_t c = candidate(4, 2, 1, 4, 2, order, 2);
    sax_layout_t lay;
    assert_int_equal(sax_layout_build(&cl, &c, &lay), SAX_FEASIBLE);
    assert_members(&lay.dim[SAX_GROUP_EXPERT_TP], (const long[]){0, 1}, 2);
    assert_members(&lay.dim[SAX_DIM_EP], (const long[]){0, 2, 4, 6}, 4);
    assert_members(&lay.dim[SAX_GROUP_EXPERT_DP], (const long[]){0}, 1);
    assert_int_equal(sax_candidate_expert_dp(&c), 1);
    /* etp = tp is no folding: the experts' TP group is TP's, EP 2 is carved out of DP as before */
    c = candidate(4, 2, 1, 2, 4, order, 2);
    assert_int_equal(sax_layout_build(&cl, &c, &lay), SAX_FEASIBLE);
    assert_members(&lay.dim[SAX_GROUP_EXPERT_TP], (const long[]){0, 1, 2, 3}, 4);
    assert_members(&lay.dim[SAX_DIM_EP], (const long[]){0, 4}, 2);
    sax_candidate_t c0 = c;
    c0.etp = 0; /* the default: tp */
    sax_layout_t lay0;
    assert_int_equal(sax_layout_build(&cl, &c0, &lay0), SAX_FEASIBLE);
    assert_members(&lay0.dim[SAX_DIM_EP], (const long[]){0, 4}, 2);
}

/* Refusals. TP2 DP2 EP4 ETP2: ep x etp = 8 does not divide tp x cp x dp = 4 (no expert-DP degree).
 * TP3 DP4 EP6 ETP2: 12 = 12, but an EP step of 2 ranks does not divide tp's 3 coordinates, so the EP
 * group (local ranks 0, 2, 4, ..., 10 of tp + 3 dp) is no product of whole pieces: refused as
 * divisibility rather than laid out wrongly. */
static void test_fold_refusals(void **state)
{
    (void)state;
    sax_cluster_t cl;
    fixture_h100_cluster(&cl, 1, 16, 0, 0);
    const sax_dim_t order[] = {SAX_DIM_TP, SAX_DIM_DP};
    sax_candidate_t c = candidate(2, 2, 1, 4, 2, order, 2);
    assert_int_equal(sax_candidate_expert_dp(&c), 0);
    sax_problem_t p;
    memset(&p, 0, sizeof p);
    p.model = small_moe;
    p.model.layers = 2;
    sax_training_set_defaults(&p.training);
    p.training.global_batch = 8;
    p.cluster = cl;
    sax_result_t r = fixture_eval(&p, &c);
    assert_false(r.feasible);
    assert_int_equal(r.reason, SAX_INFEASIBLE_DIVISIBILITY);
    c.etp = 1; /* 4 x 1 divides 4: feasible */
    r = fixture_eval(&p, &c);
    assert_true(r.feasible);
    sax_layout_t lay;
    c = candidate(3, 4, 1, 6, 2, order, 2);
    assert_int_equal(sax_candidate_expert_dp(&c), 1);
    assert_int_equal(sax_layout_build(&cl, &c, &lay), SAX_INFEASIBLE_DIVISIBILITY);
}

/* The experts per GPU. One MoE layer of 8 routed SwiGLU experts of width 512 on h = 1024 holds
 * 8 x 3 x 1024 x 512 = 12,582,912 routed parameters; they split over ep x etp: TP2 EP4 with ETP1,
 * 3,145,728 a GPU; with ETP2, 1,572,864. The all-to-all's send buffer is the etp group's tokens x top-k
 * x h x 2 B: s = 256 tokens split over tp 2 by sequence parallelism, x etp: ETP1 128 x 2 x 1024 x 2 =
 * 524,288 B, ETP2 1,048,576 B. The expert FLOPs a GPU does are the same either way (tok x k / tp
 * tokens' worth): 2 x 256 x 2 x 3 x 1024 x 512 / 2 = 805,306,368 of routed experts alone. */
static void test_fold_expert_weights(void **state)
{
    (void)state;
    sax_gpu_t gpu = {.peak_flops_bf16 = 1e15,
                     .hbm_bytes = 80e9,
                     .hbm_bw_Bps = 3e12,
                     .gemm_eff_max = 1.0,
                     .gemm_eff_half_ai = 1.0,
                     .mem_eff = 1.0};
    sax_training_t tr = {.global_batch = 8, .precision = SAX_PRECISION_BF16, .flash_attention = true};
    sax_model_desc_t m = small_moe;
    sax_layer_cost_t a, b;
    sax_layer_cost(&m, &gpu, &tr, 2, 1, 4, 1, 1, true, true, &a);
    sax_layer_cost(&m, &gpu, &tr, 2, 1, 4, 2, 1, true, true, &b);
    assert_true(a.expert_params == 3145728.0);
    assert_true(b.expert_params == 1572864.0);
    assert_true(a.ep_bytes == 524288.0);
    assert_true(b.ep_bytes == 1048576.0);
    assert_true(a.flops == b.flops);
    sax_model_desc_t dense_experts = m; /* the same layer without routed experts, for their FLOPs */
    dense_experts.top_k = 0;
    sax_layer_cost_t z;
    sax_layer_cost(&dense_experts, &gpu, &tr, 2, 1, 4, 1, 1, true, true, &z);
    assert_true(a.flops - z.flops == 805306368.0);
}

/* ZeRO-1 shards the routed experts' optimizer state over their expert-DP ranks, tp x cp x dp / (ep x
 * etp), the rest over dp x cp. A stage holding 10e6 parameters per GPU, 6e6 of them routed experts, 12 B
 * of optimizer state each: TP2 DP4 EP4 ETP1 has expert DP 2 x 4 / 4 = 2: (4e6 / 4 + 6e6 / 2) x 12 =
 * 48e6 B; TP2 DP2 EP4 ETP1 expert DP 1: (4e6 / 2 + 6e6) x 12 = 96e6 B. */
static void test_fold_optimizer_memory(void **state)
{
    (void)state;
    const sax_dim_t order[] = {SAX_DIM_TP, SAX_DIM_DP};
    sax_memory_in_t in = {.stage = 0,
                          .layers = 1,
                          .micro = 1,
                          .params = 10e6,
                          .expert_params = 6e6,
                          .grad_bytes = 4.0,
                          .optimizer_bytes = 12.0};
    sax_memory_t out;
    sax_candidate_t c = candidate(2, 4, 1, 4, 1, order, 2);
    sax_memory_stage(&c, &in, &out);
    assert_true(out.optimizer_bytes == 48e6);
    c = candidate(2, 2, 1, 4, 1, order, 2);
    sax_memory_stage(&c, &in, &out);
    assert_true(out.optimizer_bytes == 96e6);
}

/* Routes worked by hand on a ring of four sites A, B, C, D (links A-B, B-C, C-D, D-A; no A-C, no B-D).
 * A to C: via B, bottleneck min(10, 100) = 10 GB/s at 20 ms, or via D, min(100, 5) = 5 GB/s at 2 ms:
 * the wider, via B, although slower to reach; back from C the same links against their direction.
 * With A-B at 4 GB/s, via D is the wider; at 5 GB/s both are as wide, both 2 hops, and D's 2 ms beats
 * B's 20 ms. A direct link is always taken, however narrow (D-A at 1 GB/s). With C-D cut, C reaches D
 * only the long way round, C-B-A-D; with D-A cut as well, not at all. */
static void test_widest_route(void **state)
{
    (void)state;
    sax_cluster_t cl;
    fixture_h100_cluster(&cl, 4, 8, 1e9, 1e-3);
    const int ends[4][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
    const double bw[4] = {10e9, 100e9, 100e9, 5e9}, lat[4] = {10e-3, 10e-3, 1e-3, 1e-3};
    cl.n_links = 4;
    for (int l = 0; l < 4; l++) {
        cl.links[l] = cl.links[0];
        cl.links[l].a = ends[l][0];
        cl.links[l].b = ends[l][1];
        cl.links[l].bw_Bps = bw[l];
        cl.links[l].latency_s = lat[l];
    }
    int links[SAX_MAX_SITES], dirs[SAX_MAX_SITES];
    assert_int_equal(sax_site_route(&cl, 0, 2, links, dirs), 2); /* via B: A-B forward, B-C forward */
    assert_int_equal(links[0], 0);
    assert_int_equal(dirs[0], 0);
    assert_int_equal(links[1], 1);
    assert_int_equal(dirs[1], 0);
    assert_int_equal(sax_site_route(&cl, 2, 0, links, dirs), 2); /* back: C-B, B-A, against the links */
    assert_int_equal(links[0], 1);
    assert_int_equal(dirs[0], 1);
    assert_int_equal(links[1], 0);
    assert_int_equal(dirs[1], 1);
    cl.links[0].bw_Bps = 4e9; /* A-B narrower than D-A: via D */
    assert_int_equal(sax_site_route(&cl, 0, 2, links, dirs), 2);
    assert_int_equal(links[0], 3);
    assert_int_equal(dirs[0], 1);
    assert_int_equal(links[1], 2);
    assert_int_equal(dirs[1], 1);
    cl.links[0].bw_Bps = 5e9; /* as wide as D-A: the same hops, the lower latency (D: 2 ms, B: 20 ms) */
    assert_int_equal(sax_site_route(&cl, 0, 2, links, dirs), 2);
    assert_int_equal(links[0], 3);
    cl.links[3].bw_Bps = 1e9; /* D-A at 1 GB/s: A to D takes it all the same (a direct link) */
    assert_int_equal(sax_site_route(&cl, 0, 3, links, dirs), 1);
    assert_int_equal(links[0], 3);
    cl.links[2] = cl.links[3]; /* cut C-D (the last link moves into its place): A to D, direct still, */
    cl.n_links = 3;            /* and C to D goes the long way round, C-B-A-D, 3 hops */
    assert_int_equal(sax_site_route(&cl, 2, 3, links, dirs), 3);
    assert_int_equal(links[0], 1);
    assert_int_equal(links[1], 0);
    assert_int_equal(links[2], 2);
    cl.n_links = 2; /* and without D-A, D is unreachable */
    assert_int_equal(sax_site_route(&cl, 0, 3, links, dirs), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fold_ep_beyond_dp),     cmocka_unit_test(test_fold_expert_tp),
        cmocka_unit_test(test_fold_refusals),         cmocka_unit_test(test_fold_expert_weights),
        cmocka_unit_test(test_fold_optimizer_memory), cmocka_unit_test(test_widest_route),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
