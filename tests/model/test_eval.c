/* test_eval.c - whole-candidate invariants, feasibility reasons, and no allocation on the
 * evaluation path (this binary wraps malloc/calloc/realloc; see CMakeLists.txt). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fixture.h"
#include "model_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- allocation hook -------------------------------------------------------------------------- */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t k);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t k);
void *__wrap_realloc(void *p, size_t n);
static bool fail_allocations;
static long allocations_attempted;
void *__wrap_malloc(size_t n)
{
    if (fail_allocations) {
        allocations_attempted++;
        return NULL;
    }
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t k)
{
    if (fail_allocations) {
        allocations_attempted++;
        return NULL;
    }
    return __real_calloc(n, k);
}
void *__wrap_realloc(void *p, size_t n)
{
    if (fail_allocations) {
        allocations_attempted++;
        return NULL;
    }
    return __real_realloc(p, n);
}

/* ---- a two-building problem: 2 x 1024 H100, a 70B-class dense model ---------------------------- */
static sax_problem_t problem;

static void make_problem(sax_problem_t *p)
{
    memset(p, 0, sizeof *p);
    p->model = (sax_model_desc_t){.name = "dense70",
                                  .layers = 80,
                                  .hidden = 8192,
                                  .ffn_hidden = 28672,
                                  .heads = 64,
                                  .kv_heads = 8,
                                  .vocab = 128256,
                                  .seq_len = 8192,
                                  .ffn_act = SAX_FFN_SWIGLU};
    sax_training_set_defaults(&p->training);
    p->training.global_batch = 512;
    fixture_h100_cluster(&p->cluster, 2, 1024, 1.25e12 /* 10 Tbit/s */, 0.5e-3);
}

static sax_candidate_t base(void)
{
    sax_candidate_t c = {.tp = 8,
                         .pp = 4,
                         .dp = 64,
                         .cp = 1,
                         .ep = 1,
                         .vpp = 1,
                         .micro_batch = 1,
                         .schedule = SAX_SCHEDULE_1F1B,
                         .recompute = SAX_RECOMPUTE_SELECTIVE,
                         .sequence_parallel = true,
                         .zero = 1,
                         .n_order = 4,
                         .order = {SAX_DIM_TP, SAX_DIM_CP, SAX_DIM_PP, SAX_DIM_DP},
                         .connections = 4,
                         .transport = SAX_TRANSPORT_ROCE_SR,
                         .algorithm = SAX_ALGORITHM_HIERARCHICAL};
    return c;
}

static int setup(void **state)
{
    make_problem(&problem);
    return fixture_setup(state);
}

static void test_breakdown_sums_and_dp_crosses_sites(void **state)
{
    (void)state;
    sax_candidate_t c = base();
    sax_result_t r = fixture_eval(&problem, &c);
    assert_true(r.feasible);
    double sum = 0.0;
    for (int i = 0; i < SAX_PHASE_COUNT; i++) {
        assert_true(r.breakdown_s[i] >= 0.0);
        sum += r.breakdown_s[i];
    }
    assert_true(fabs(sum - r.iteration_time_s) < 1e-9 * r.iteration_time_s);
    assert_int_equal(r.gpus_used, 2048);
    assert_true(r.cross_site_bytes_per_iteration > 0.0); /* DP spans the two buildings */
    assert_true(r.link_utilisation[0] > 0.0);
    /* two sites, one link: every cross-site byte crosses it once (single precision: 1e-6); its
     * busier direction carries from half to all of them over the iteration at capacity */
    double cap = problem.cluster.links[0].bw_Bps, busy = r.link_utilisation[0] * r.iteration_time_s;
    assert_true(fabs(r.link_bytes[0] - r.cross_site_bytes_per_iteration) <= 1e-6 * r.link_bytes[0]);
    assert_true(busy >= r.link_bytes[0] / 2.0 / cap * (1.0 - 1e-6));
    assert_true(busy <= r.link_bytes[0] / cap * (1.0 + 1e-6));
    assert_true(r.link_utilisation[0] <= 1.0);
    /* tokens/s and MFU follow from the time by their definitions */
    assert_true(fabs(r.tokens_per_s - 512.0 * 8192 / r.iteration_time_s) < 1e-6 * r.tokens_per_s);
    assert_true(fabs(r.mfu - r.model_flops_per_iteration / (r.iteration_time_s * 2048 * 989e12)) < 1e-12);
}

static void test_no_site_crossing_no_cross_site_bytes(void **state)
{
    (void)state;
    sax_candidate_t c = base();
    c.dp = 32; /* 8 x 4 x 32 = 1024 GPUs: one building */
    sax_result_t r = fixture_eval(&problem, &c);
    assert_true(r.feasible);
    assert_true(r.cross_site_bytes_per_iteration == 0.0);
    assert_true(r.link_utilisation[0] == 0.0);
}

/* More bandwidth or less latency never makes a step slower, on every level. */
static void test_monotone_in_network(void **state)
{
    (void)state;
    const sax_candidate_t cands[] = {base(), base(), base()};
    sax_candidate_t c[3];
    memcpy(c, cands, sizeof c);
    c[1].order[2] = SAX_DIM_DP; /* pipeline across the buildings */
    c[1].order[3] = SAX_DIM_PP;
    c[1].schedule = SAX_SCHEDULE_INTERLEAVED;
    c[1].vpp = 2;
    c[2].algorithm = SAX_ALGORITHM_RING;
    c[2].zero = 3;
    for (int k = 0; k < 3; k++) {
        double prev = INFINITY;
        for (double scale = 0.25; scale <= 8.0; scale *= 2.0) {
            sax_problem_t p = problem;
            p.cluster.links[0].bw_Bps *= scale;
            p.cluster.tiers[0].bw_Bps *= scale;
            p.cluster.scale_up.bw_Bps *= scale;
            p.cluster.links[0].latency_s /= scale;
            p.cluster.tiers[0].latency_s /= scale;
            sax_result_t r = fixture_eval(&p, &c[k]);
            assert_true(r.feasible);
            assert_true(r.iteration_time_s <= prev * (1 + 1e-12));
            prev = r.iteration_time_s;
        }
    }
}

/* More HBM never makes a feasible candidate infeasible; enough less makes it infeasible for memory. */
static void test_memory_feasibility(void **state)
{
    (void)state;
    sax_candidate_t c = base();
    sax_result_t r = fixture_eval(&problem, &c);
    assert_true(r.feasible);
    sax_problem_t p = problem;
    for (int s = 0; s < 2; s++)
        p.cluster.sites[s].gpu.hbm_bytes = 2 * 80e9;
    assert_true(fixture_eval(&p, &c).feasible);
    for (int s = 0; s < 2; s++)
        p.cluster.sites[s].gpu.hbm_bytes = 0.5 * r.memory_per_gpu_bytes;
    sax_result_t small = fixture_eval(&p, &c);
    assert_false(small.feasible);
    assert_int_equal(small.reason, SAX_INFEASIBLE_MEMORY);
}

static void test_infeasibility_reasons(void **state)
{
    (void)state;
    sax_candidate_t c = base();
    c.tp = 16; /* beyond the 8-GPU scale-up domain (and 64 heads / 16 divides) */
    c.dp = 32;
    assert_int_equal(fixture_eval(&problem, &c).reason, SAX_INFEASIBLE_TP_DOMAIN);
    c = base();
    c.dp = 128; /* 4096 GPUs > 2048 */
    assert_int_equal(fixture_eval(&problem, &c).reason, SAX_INFEASIBLE_GPUS);
    c = base();
    c.pp = 3; /* (80 layers + embedding + loss) / 3 */
    c.dp = 8;
    c.layer_split = SAX_LAYER_SPLIT_EMBEDDING_LOSS;
    assert_int_equal(fixture_eval(&problem, &c).reason, SAX_INFEASIBLE_DIVISIBILITY);
    c = base();
    c.vpp = 2; /* vpp without interleaved */
    assert_int_equal(fixture_eval(&problem, &c).reason, SAX_INFEASIBLE_SCHEDULE);
    c = base();
    c.transport = SAX_TRANSPORT_ROCE; /* 0.5 ms one way: 2 x 50 GB/s x 0.5 ms = 50 MB of PFC headroom */
    sax_result_t lossless = fixture_eval(&problem, &c);
    assert_int_equal(lossless.reason, SAX_INFEASIBLE_LOSSLESS);
    assert_int_equal(lossless.lossless_refused, 1u); /* site link 0 */
    assert_true(fabs(sax_pfc_headroom_needed(&problem.cluster, 0) - 50e6) < 1.0);
    sax_problem_t p = problem;
    p.cluster.n_links = 0; /* DP across buildings without a link */
    c = base();
    assert_int_equal(fixture_eval(&p, &c).reason, SAX_INFEASIBLE_NO_LINK);
    c = base();
    c.tp = 0;
    sax_result_t r;
    assert_int_equal(sax_model_eval(&problem, &c, scratch, &r), SAX_ERR_INPUT);
    /* degrees whose product overflows 32 (and 64) bits: more GPUs than the sites hold, never a
     * wrapped (negative or small) count */
    c = base();
    c.tp = c.cp = c.pp = c.dp = 65536; /* 2^64 GPUs */
    sax_result_t huge = fixture_eval(&problem, &c);
    assert_int_equal(huge.reason, SAX_INFEASIBLE_GPUS);
    assert_true(huge.gpus_used > 2048);
    c.tp = c.cp = c.pp = c.dp = INT32_MAX;
    assert_int_equal(fixture_eval(&problem, &c).reason, SAX_INFEASIBLE_GPUS);
}

/* tp x cp x pp x dp against a cap: exact up to the cap, above it once exceeded, no overflow */
static void test_degrees_product(void **state)
{
    (void)state;
    const int small[4] = {8, 1, 16, 16};
    assert_int_equal(sax_degrees_product(small, 4, 2048), 2048);
    assert_true(sax_degrees_product(small, 4, 2047) > 2047);
    const int huge[4] = {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX};
    assert_true(sax_degrees_product(huge, 4, INT32_MAX) > INT32_MAX);
    const int wraps[2] = {65536, 32768}; /* 2^31: wraps to INT32_MIN in int arithmetic */
    assert_int_equal(sax_degrees_product(wraps, 2, INT32_MAX), (int64_t)1 << 31);
}

/* Three sites of 1024 GPUs, A-B and B-C 5 us apart (1 km: 2 x 50 GB/s x 5 us = 0.5 MB of headroom),
 * A-C 200 us (40 km: 20 MB). A pipeline of 3 stages of 1024 GPUs, one per site (order dp inside pp),
 * crosses A-B and B-C, never A-C: lossless RoCE is feasible whatever A-C's length or bandwidth. With
 * DP across the sites instead (a ring through A, B, C and back), A-C carries traffic and is refused. */
static void test_lossless_only_on_links_used(void **state)
{
    (void)state;
    sax_problem_t p = problem;
    p.model.layers = 81; /* 27 layers per stage */
    sax_cluster_t *cl = &p.cluster;
    cl->n_sites = 3;
    cl->sites[2] = cl->sites[0];
    strcpy(cl->sites[2].name, "C");
    cl->n_links = 3;
    const int ends[3][2] = {{0, 1}, {1, 2}, {0, 2}};
    const double lat[3] = {5e-6, 5e-6, 200e-6};
    for (int l = 0; l < 3; l++) {
        cl->links[l] = cl->links[0];
        cl->links[l].a = ends[l][0];
        cl->links[l].b = ends[l][1];
        cl->links[l].latency_s = lat[l];
    }
    sax_candidate_t c = base();
    c.transport = SAX_TRANSPORT_ROCE;
    c.pp = 3;
    c.dp = 128; /* 8 x 128 = 1024 GPUs per stage: one site each */
    c.order[2] = SAX_DIM_DP;
    c.order[3] = SAX_DIM_PP;
    sax_result_t r = fixture_eval(&p, &c);
    assert_true(r.feasible);
    assert_true(r.link_bytes[0] > 0.0 && r.link_bytes[1] > 0.0);
    assert_true(r.link_bytes[2] == 0.0);
    cl->links[2].bw_Bps = 1e9; /* slower A-C: nothing changes */
    sax_result_t slow = fixture_eval(&p, &c);
    assert_true(slow.feasible && slow.iteration_time_s == r.iteration_time_s);
    c.order[2] = SAX_DIM_PP; /* DP outermost: its ring goes A -> B -> C -> A */
    c.order[3] = SAX_DIM_DP;
    r = fixture_eval(&p, &c);
    assert_int_equal(r.reason, SAX_INFEASIBLE_LOSSLESS);
    assert_int_equal(r.lossless_refused, 1u << 2);
}

/* The evaluation path allocates nothing: with every allocation failing, candidates that take the
 * closed form and candidates that need the event simulation still evaluate, to the same result. */
static void test_no_allocation(void **state)
{
    (void)state;
    sax_candidate_t c[2] = {base(), base()};
    c[1].order[2] = SAX_DIM_DP;
    c[1].order[3] = SAX_DIM_PP; /* a cross-site stage boundary: uneven links, simulated */
    sax_result_t before[2], after[2];
    for (int k = 0; k < 2; k++)
        before[k] = fixture_eval(&problem, &c[k]);
    sax_scratch_init(scratch);
    fail_allocations = true;
    allocations_attempted = 0;
    for (int k = 0; k < 2; k++)
        assert_int_equal(sax_model_eval(&problem, &c[k], scratch, &after[k]), SAX_OK);
    fail_allocations = false;
    assert_int_equal(allocations_attempted, 0);
    for (int k = 0; k < 2; k++) {
        assert_true(after[k].feasible);
        assert_true(after[k].iteration_time_s == before[k].iteration_time_s);
    }
}

/* The scratch keeps the last layout built (eval.c layout_of): candidates in any order, and a cluster
 * changed in place under the same scratch (pods of half a building with 4:1 uplinks instead of the whole
 * one), evaluate exactly as with a scratch of their own (with the pods left out of the layout's key, the
 * last evaluation gives 2.9567 s against 2.9522 s: checked). */
static void test_layout_memo(void **state)
{
    (void)state;
    sax_candidate_t a = base(), b = base();
    b.order[2] = SAX_DIM_DP; /* DP outermost: its groups span both buildings */
    b.order[3] = SAX_DIM_PP;
    sax_problem_t pb = problem;
    sax_scratch_t *own = malloc(sax_scratch_size());
    assert_non_null(own);
    sax_scratch_init(scratch);
    const sax_candidate_t *seq[] = {&a, &b, &a, &b, &b};
    double t[5];
    for (int k = 0; k < 5; k++) {
        if (k == 4) { /* the same candidate as before, on pods of half a building with 4:1 uplinks */
            pb.cluster.tiers[0].gpus = 512;
            pb.cluster.tiers[0].oversubscription = 4.0;
        }
        sax_result_t r, want;
        assert_int_equal(sax_model_eval(&pb, seq[k], scratch, &r), SAX_OK);
        sax_scratch_init(own);
        assert_int_equal(sax_model_eval(&pb, seq[k], own, &want), SAX_OK);
        assert_true(r.feasible && want.feasible);
        assert_true(r.iteration_time_s == want.iteration_time_s);
        t[k] = r.iteration_time_s;
    }
    free(own);
    assert_true(t[0] == t[2] && t[1] == t[3] && t[0] != t[1] && t[4] != t[3]);
}

/* A slow cross-site pipeline boundary costs more than the same boundary inside a building. */
static void test_cross_site_pipeline_costs(void **state)
{
    (void)state;
    sax_candidate_t inside = base(), across = base();
    across.order[2] = SAX_DIM_DP;
    across.order[3] = SAX_DIM_PP;
    sax_problem_t p = problem;
    p.cluster.links[0].latency_s = 5e-3;
    p.cluster.links[0].bw_Bps = 1e11;
    sax_result_t a = fixture_eval(&p, &inside), b = fixture_eval(&p, &across);
    assert_true(a.feasible && b.feasible);
    assert_true(b.breakdown_s[SAX_PHASE_PP] > a.breakdown_s[SAX_PHASE_PP]);
}

/* Two pipeline boundaries on one link, worked by hand: an interleaved pipeline over the two buildings
 * (TP 8, DP 128, PP 2 outermost, v = 2; m = 512 / 128 = 4) crosses the 100 Gbit/s link twice, at the
 * boundary from stage 0 to stage 1 (activations A -> B, their gradients B -> A) and at the
 * wrap-around from stage 1 back to stage 0 (activations B -> A, gradients A -> B). One transfer of
 * every pipeline puts b = 128 pipelines x 8 TP ranks x (1 x 8192 x 8192 x 2 B / 8) = 17.18 GB on one
 * direction of the link: 1.374 s at the link's C = 12.5 GB/s, what a transfer holds alone (1F1B, no
 * wrap-around). In the steady state each boundary demands its transfers' bytes over a stage's compute
 * of a micro-batch (its chunks: 2 at the boundary, 1 at the wrap-around; a stage computes a
 * micro-batch in about a third of a second), tens of GB/s per direction, far above C / 2. So on each
 * direction the other boundary keeps half the link and a transfer gets the other half (max-min: each
 * demands more than C / 2): it holds the boundary's channels b / (C / 2) = 2.749 s, both boundaries
 * alike (docs/cost-model.md section 9). Eight such transfers (m v) leave stage 0 one after another,
 * so the iteration takes at least 8 x 2.749 s = 21.99 s. */
static void test_two_boundaries_share_a_link(void **state)
{
    (void)state;
    sax_problem_t p = problem;
    p.cluster.links[0].bw_Bps = 12.5e9; /* 100 Gbit/s */
    p.cluster.links[0].latency_s = 5e-6;
    sax_candidate_t c = base();
    c.pp = 2;
    c.dp = 128;
    c.vpp = 2;
    c.schedule = SAX_SCHEDULE_INTERLEAVED;
    c.order[2] = SAX_DIM_DP;
    c.order[3] = SAX_DIM_PP;
    sax_result_t r;
    static sax_pipeline_t pl;
    assert_int_equal(sax_model_eval_pipeline(&p, &c, scratch, &r, &pl), SAX_OK);
    assert_true(r.feasible);
    const double b = 128.0 * 8 * (8192.0 * 8192 * 2 / 8), held = b / (12.5e9 / 2);
    for (int s = 0; s < 2; s++)
        if (fabs(pl.link_busy_s[s] - held) > 1e-12 * held)
            fail_msg("boundary %d holds its channels %.15g s, expected %.15g s", s, pl.link_busy_s[s], held);
    assert_true(r.iteration_time_s >= 8.0 * held);
    /* per iteration each direction carries 8 transfers of one boundary and 4 of the other */
    assert_true(fabs(r.link_bytes[0] - 2.0 * 12.0 * b) <= 1e-6 * r.link_bytes[0]);
}

/* sax_model_eval_trace: the same result as sax_model_eval; the stages' ends (last event, exposed DP,
 * optimizer step) end the iteration on the critical stage and nowhere later; the breakdown's exposed
 * TP, CP and EP are its events' comm parts times micro-batches; the classes' link bytes add up to
 * the link's. Both orders: DP across the sites, and the pipeline across them. */
static void test_iteration_detail(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        sax_candidate_t c = base();
        if (k == 1) {
            c.order[2] = SAX_DIM_DP;
            c.order[3] = SAX_DIM_PP;
        }
        sax_result_t r = fixture_eval(&problem, &c), rt;
        sax_pipeline_t pl;
        sax_iteration_detail_t *d = malloc(sizeof *d);
        assert_non_null(d);
        assert_int_equal(sax_model_eval_trace(&problem, &c, scratch, &rt, &pl, d), SAX_OK);
        assert_true(rt.feasible);
        assert_true(rt.iteration_time_s == r.iteration_time_s);
        double last = 0.0;
        for (int s = 0; s < c.pp; s++) {
            assert_true(d->finish_s[s] <= d->makespan_s * (1.0 + 1e-12));
            assert_true(d->dp_exposed_s[s] <= d->dp_s[s] * (1.0 + 1e-12));
            last = fmax(last, d->finish_s[s] + d->dp_exposed_s[s] + d->opt_s[s]);
        }
        const int cs = d->crit;
        assert_true(fabs(last - r.iteration_time_s) <= 1e-12 * r.iteration_time_s);
        assert_true(fabs(d->finish_s[cs] + d->dp_exposed_s[cs] + d->opt_s[cs] - r.iteration_time_s) <=
                    1e-12 * r.iteration_time_s);
        long m = problem.training.global_batch / ((long)c.micro_batch * c.dp);
        const sax_phase_t ph[3] = {SAX_PHASE_TP, SAX_PHASE_CP, SAX_PHASE_EP};
        const sax_dim_t dim[3] = {SAX_DIM_TP, SAX_DIM_CP, SAX_DIM_EP};
        for (int i = 0; i < 3; i++) {
            double per_micro = c.vpp * (d->fwd_comm_s[cs][dim[i]] + d->bwd_comm_s[cs][dim[i]]);
            assert_true(fabs((double)m * per_micro - r.breakdown_s[ph[i]]) <= 1e-9 * r.iteration_time_s);
        }
        double bytes = 0.0;
        for (int cl = 0; cl < SAX_DIM_COUNT; cl++)
            bytes += d->link_class_bytes[0][cl][0] + d->link_class_bytes[0][cl][1];
        assert_true(r.link_bytes[0] > 0.0);
        assert_true(fabs(bytes - r.link_bytes[0]) <= 1e-6 * r.link_bytes[0]);
        /* the pipeline crosses the link only when it spans the sites */
        uint32_t crossed = 0;
        for (int s = 0; s + 1 < c.pp; s++)
            crossed |= d->boundary_links[s];
        assert_true((crossed != 0) == (k == 1));
        assert_true((d->link_class_bytes[0][SAX_DIM_PP][0] > 0.0) == (k == 1));
        free(d);
    }
}

/* A layer of micro-batch 1 at TP 8 with sequence parallelism (dense, or MoE over EP 8 with the experts'
 * TP `etp`), as the evaluation prices it on this problem's GPU at the pace of the slowest of the 512
 * GPUs the tests' one-stage candidates run on (sax_slowest_of: the peaks and HBM bandwidth divided by
 * it). */
static sax_layer_cost_t tp8_layer_at_512s_pace(const sax_problem_t *p, bool moe, int etp)
{
    const double k = sax_slowest_of(&p->cluster.sites[0].gpu, 512.0);
    sax_gpu_t slow = p->cluster.sites[0].gpu;
    slow.peak_flops_bf16 /= k;
    slow.peak_flops_fp8 /= k;
    slow.hbm_bw_Bps /= k;
    sax_layer_cost_t lc;
    sax_layer_cost(&p->model, &slow, &p->training, 8, 1, moe ? 8 : 1, etp, 1, true, moe, &lc);
    return lc;
}

/* What of a layer's TP traffic shows a micro-batch with sequence parallelism and without
 * --tp-comm-overlap, in pieces of u (one gather or scatter of the layer's activations): the forward's
 * four and the row-parallel layers' two backward gathers wait; the column-parallel layers' re-gather and
 * scatter each hide behind a GEMM as long as the forward's (g_k). */
static double sp_megatron_layer_tp(double u, const sax_layer_cost_t *lc)
{
    return 6.0 * u + 2.0 * (fmax(0.0, u - lc->tp_gemm_s[SAX_TP_GEMM_QKV]) +
                            fmax(0.0, u - lc->tp_gemm_s[SAX_TP_GEMM_MLP_IN]));
}

/* TP's collectives as Megatron-LM runs them with sequence parallelism (docs/cost-model.md section 6),
 * counted by hand in pieces of u, one all-gather or reduce-scatter of a layer's activations: the
 * forward's two gathers and two scatters (4u); backward, the projection and FC2 gather their output
 * gradient (2u), and QKV and FC1 re-gather their input and scatter their input gradient (4u). Without
 * --tp-comm-overlap the forward's 4u and the backward's gathers wait, the column-parallel pieces hide
 * behind their own data- and weight-gradient GEMMs (sp_megatron_layer_tp); with it, and nothing hidden
 * (tp_overlap 0), all 10u show; with it and tp_overlap 1, what the GEMM beside each piece does not
 * cover. Without sequence parallelism the all-reduces wait both ways. One stage of 16 layers, TP 8. */
static void test_tp_collectives_as_megatron_runs_them(void **state)
{
    (void)state;
    sax_problem_t p = problem;
    p.model.layers = 16;
    sax_candidate_t c = base();
    c.pp = 1;
    assert_true(c.tp == 8 && c.sequence_parallel);
    p.training.tp_comm_overlap = true;
    p.training.tp_overlap = 0.0;
    sax_result_t waits = fixture_eval(&p, &c);
    p.training.tp_overlap = 1.0;
    sax_result_t hidden = fixture_eval(&p, &c);
    p.training.tp_comm_overlap = false;
    sax_result_t megatron = fixture_eval(&p, &c);
    assert_true(waits.feasible && hidden.feasible && megatron.feasible);
    double u10 = waits.breakdown_s[SAX_PHASE_TP];
    assert_true(u10 > 0.01 * waits.iteration_time_s);
    /* --tp-comm-overlap: each piece (u = u10 / 10 a layer and micro-batch, 16 x 8 of them) runs inside
     * the GEMM beside it, which hides at most its own time (g_k: forward QKV, projection, FC1, FC2;
     * backward the four data-gradient GEMMs, as long, and QKV's and FC1's weight-gradient GEMMs beside
     * their scatters): what shows is 2 sum_k max(0, u - g_k) + sum_{QKV, FC1} max(0, u - g_k) a layer.
     * g_k as the model prices those GEMMs on this GPU at the pace of the slowest of the 512 GPUs; this
     * 70B-class layer's QKV (GQA: 10240 / 8 columns) and projection are short enough that NVLink's
     * gathers outlast them */
    const double calls = 16.0 * 8.0;
    const sax_layer_cost_t sp_lc = tp8_layer_at_512s_pace(&p, false, 1);
    double want_hidden = 0.0, u = u10 / calls / 10.0;
    for (int k = 0; k < 4; k++)
        want_hidden += 2.0 * calls * fmax(0.0, u - sp_lc.tp_gemm_s[k]);
    want_hidden += calls * (fmax(0.0, u - sp_lc.tp_gemm_s[SAX_TP_GEMM_QKV]) +
                            fmax(0.0, u - sp_lc.tp_gemm_s[SAX_TP_GEMM_MLP_IN]));
    if (fabs(hidden.breakdown_s[SAX_PHASE_TP] - want_hidden) > 1e-9 * u10)
        fail_msg("--tp-comm-overlap: TP shows %.9g s, expected %.9g s", hidden.breakdown_s[SAX_PHASE_TP],
                 want_hidden);
    assert_true(want_hidden > 0.0 && want_hidden < 0.25 * u10);
    /* the GEMMs' sum is not what bounds it: with all of the layer's GEMMs longer than the traffic, the
     * QKV's gather still shows */
    assert_true(u < sp_lc.gemm_s && u > sp_lc.tp_gemm_s[SAX_TP_GEMM_QKV]);
    /* without it: the forward's four pieces (4u) and the row-parallel layers' two gathers (2u) wait, and
     * QKV's and FC1's re-gather and scatter (u each) hide behind their own data- and weight-gradient
     * GEMMs (g_k each): 6u + 2 [max(0, u - g_QKV) + max(0, u - g_FC1)] a layer, more than the 6u
     * that would wait if the GEMMs hid them, because QKV's GEMM is the shorter */
    const double want_m = calls * sp_megatron_layer_tp(u, &sp_lc);
    if (fabs(megatron.breakdown_s[SAX_PHASE_TP] - want_m) > 1e-9 * u10)
        fail_msg("without --tp-comm-overlap TP shows %.9g s, expected %.9g s",
                 megatron.breakdown_s[SAX_PHASE_TP], want_m);
    assert_true(want_m > 0.6 * u10 * (1.0 + 1e-6));
    assert_true(hidden.iteration_time_s < megatron.iteration_time_s &&
                megatron.iteration_time_s < waits.iteration_time_s);
    /* NVLink 1000 times slower: every piece outlasts its GEMM, and the same count holds: a layer shows
     * 6u + 2 (2u - g_QKV - g_FC1), between 6/10 and all of the 10u of everything waiting */
    p.cluster.scale_up.bw_Bps /= 1000.0;
    sax_result_t slow_m = fixture_eval(&p, &c);
    p.training.tp_comm_overlap = true;
    p.training.tp_overlap = 0.0;
    sax_result_t slow_w = fixture_eval(&p, &c);
    assert_true(slow_m.feasible && slow_w.feasible);
    double m_tp = slow_m.breakdown_s[SAX_PHASE_TP], w_tp = slow_w.breakdown_s[SAX_PHASE_TP];
    const double want_slow = calls * sp_megatron_layer_tp(w_tp / calls / 10.0, &sp_lc);
    if (fabs(m_tp - want_slow) > 1e-9 * w_tp)
        fail_msg("slow NVLink: TP shows %.9g s, expected %.9g s", m_tp, want_slow);
    assert_true(m_tp > 0.6 * w_tp * (1.0 + 1e-6) && m_tp < w_tp);
    p.cluster.scale_up.bw_Bps *= 1000.0;
    p.training.tp_comm_overlap = false;
    p.training.tp_overlap = 1.0;
    /* without sequence parallelism --tp-comm-overlap has nothing to split: the all-reduces wait */
    c.sequence_parallel = false;
    p.training.tp_comm_overlap = true;
    sax_result_t ar_on = fixture_eval(&p, &c);
    p.training.tp_comm_overlap = false;
    sax_result_t ar_off = fixture_eval(&p, &c);
    assert_true(ar_on.feasible && ar_off.feasible);
    assert_true(ar_on.breakdown_s[SAX_PHASE_TP] == ar_off.breakdown_s[SAX_PHASE_TP]);
    assert_true(ar_off.breakdown_s[SAX_PHASE_TP] > 0.0);
    /* Megatron-LM's asynchronous all-reduce (since 2021-09; megatron/core/tensor_parallel/layers.py,
     * allreduce_dgrad): of a layer's four all-reduces (2v forward, 2v backward, v one all-reduce) the
     * backward's two, of QKV's and FC1's input gradients, start before those layers' weight-gradient
     * GEMMs and end after them, each hidden as far as its own GEMM goes (g_QKV, g_FC1: the forward's, as
     * the model prices them on this GPU at the pace of the slowest of the 512): 2v + max(0, v - g_QKV) +
     * max(0, v - g_FC1) a layer and micro-batch (16 x 8 of them) shows.
     * With NVLink 1000 times faster they hide: exactly half of the 4v that waits without it; as
     * configured QKV's GEMM (GQA's) is shorter than its all-reduce (1.38v of the 2v hide as the model
     * prices the GEMMs); 1000 times slower almost nothing does. */
    sax_layer_cost_t lc;
    sax_layer_cost(&p.model, &p.cluster.sites[0].gpu, &p.training, 8, 1, 1, 1, 1, false, false, &lc);
    for (int speed = 0; speed < 3; speed++) {
        double f = speed == 0 ? 1000.0 : speed == 1 ? 1.0 : 1e-3;
        p.cluster.scale_up.bw_Bps *= f;
        p.training.async_tensor_model_parallel_allreduce = false;
        sax_result_t wait = fixture_eval(&p, &c);
        p.training.async_tensor_model_parallel_allreduce = true;
        sax_result_t async = fixture_eval(&p, &c);
        p.cluster.scale_up.bw_Bps /= f;
        assert_true(wait.feasible && async.feasible);
        double a = async.breakdown_s[SAX_PHASE_TP], w = wait.breakdown_s[SAX_PHASE_TP];
        assert_true(w > 0.0 && async.iteration_time_s < wait.iteration_time_s);
        const double k = sax_slowest_of(&p.cluster.sites[0].gpu, 512.0), two_v = w / calls / 2.0,
                     want = calls * (two_v + fmax(0.0, two_v / 2.0 - k * lc.tp_gemm_s[SAX_TP_GEMM_QKV]) +
                                     fmax(0.0, two_v / 2.0 - k * lc.tp_gemm_s[SAX_TP_GEMM_MLP_IN]));
        if (fabs(a - want) > 1e-9 * want)
            fail_msg(
                "NVLink x %g, asynchronous all-reduce: TP shows %.9g s, expected %.9g s (%.9g s waiting)", f,
                a, want, w);
        assert_true(speed == 0 ? a == 0.5 * w : a > 0.5 * w);
    }
}

/* --tp-comm-overlap in a MoE layer whose experts run without TP (MoE parallel folding, expert TP 1):
 * the attention's gather and scatter (c/2 each, c = one TP call) sit beside QKV and the projection, and
 * backward the projection's gather, QKV's re-gather and its input gradient's scatter (5 pieces, 2.5c
 * when nothing hides); the MLP has no TP collective to hide. With NVLink 1000 times slower, what shows is
 * 3 max(0, c/2 - g_QKV) + 2 max(0, c/2 - g_proj) a layer and micro-batch (32 x 8 of them), g as the model
 * prices those GEMMs; dealing the traffic out in equal quarters, half of it behind the long expert
 * GEMMs, would show less. */
static void test_tp_overlap_of_a_moe_layer(void **state)
{
    (void)state;
    sax_problem_t p = problem;
    p.model = fixture_moe_model(64, 8, 1408);
    p.cluster.scale_up.bw_Bps /= 1000.0;
    sax_candidate_t c = base();
    c.pp = 1;
    c.ep = 8;
    c.etp = 1;
    assert_true(c.tp == 8 && c.dp == 64 && c.sequence_parallel);
    p.training.tp_comm_overlap = true;
    p.training.tp_overlap = 0.0;
    sax_result_t waits = fixture_eval(&p, &c);
    p.training.tp_overlap = 1.0;
    sax_result_t hidden = fixture_eval(&p, &c);
    assert_true(waits.feasible && hidden.feasible);
    const double calls = 32.0 * 8.0, call = waits.breakdown_s[SAX_PHASE_TP] / calls / 2.5;
    const sax_layer_cost_t lc = tp8_layer_at_512s_pace(&p, true, 1);
    const double want = calls * (3.0 * fmax(0.0, call / 2 - lc.tp_gemm_s[SAX_TP_GEMM_QKV]) +
                                 2.0 * fmax(0.0, call / 2 - lc.tp_gemm_s[SAX_TP_GEMM_PROJ]));
    assert_true(want > 0.0);
    if (fabs(hidden.breakdown_s[SAX_PHASE_TP] - want) > 1e-9 * want)
        fail_msg("MoE, expert TP 1: TP shows %.9g s, expected %.9g s", hidden.breakdown_s[SAX_PHASE_TP],
                 want);
}

/* TP as PyTorch DTensor runs it, compiled (training.tp_implementation "dtensor", torchtitan), in units
 * of u, one all-reduce's worth of a layer's activations (an all-gather and a reduce-scatter, half each),
 * read off Megatron-LM's run with --tp-comm-overlap and nothing hidden (5u a layer: backward, QKV and
 * FC1 re-gather their input). Derived from
 * torchtitan's apply_tp and torch's micro-pipeline pass, not from sax:
 * - plain: forward, two gathers and two reduce-scatters (2u); backward, the row-parallel layers gather
 *   their output gradient (u), the column-parallel ones reduce-scatter their input gradient (u); all
 *   wait: 4u, where Megatron-LM's own layers show 3u;
 * - async TP: every gather hides, and the forward's reduce-scatters; the backward's reduce-scatter of
 *   the QKV and FC1 input gradient (a sum of matrix multiplies) waits: u;
 * - Float8 tensorwise (torchao's Float8 TP gathers in FP8, half the bytes): 1.5u forward and 1.5u
 *   backward, 3u; with async TP still u; the delayed recipe gathers in bf16: 4u;
 * - full recomputation runs the forward's again: 6u (4.5u in Float8);
 * - torchtitan's per-op checkpointing runs the forward's gathers again: 5u (3.5u in Float8; async, u);
 * - without sequence parallelism the all-reduces wait, as Megatron-LM's before its asynchronous
 *   all-reduce of 2021: 4u. */
static void test_tp_collectives_as_dtensor_runs_them(void **state)
{
    (void)state;
    sax_problem_t p = problem;
    p.model.layers = 16;
    sax_candidate_t c = base();
    c.pp = 1;
    assert_true(c.tp == 8 && c.sequence_parallel && c.recompute == SAX_RECOMPUTE_SELECTIVE);
    /* NVLink 1000 times faster, so that every GEMM outlasts the collective beside it (what a GEMM
     * hides is bounded by its own time: below, and test_tp_collectives_as_megatron_runs_them) */
    p.cluster.scale_up.bw_Bps *= 1000.0;
    static const sax_precision_t precs[] = {SAX_PRECISION_BF16, SAX_PRECISION_FP8};
    for (int k = 0; k < 2; k++) {
        p.training.precision = precs[k];
        p.training.fp8_recipe = SAX_FP8_RECIPE_TENSORWISE;
        const bool fp8 = precs[k] == SAX_PRECISION_FP8;
        p.training.tp_implementation = SAX_TP_IMPL_MEGATRON;
        p.training.tp_comm_overlap = true;
        p.training.tp_overlap = 0.0;
        sax_result_t ref = fixture_eval(&p, &c);
        assert_true(ref.feasible);
        const double u = ref.breakdown_s[SAX_PHASE_TP] / 5.0;
        assert_true(u > 0.0);
        p.training.tp_implementation = SAX_TP_IMPL_DTENSOR;
        p.training.tp_overlap = 1.0;
        const struct {
            bool overlap;
            sax_recompute_t recompute;
            sax_selective_ac_t option;
            double units;
        } cases[] = {
            {false, SAX_RECOMPUTE_SELECTIVE, SAX_SELECTIVE_AC_MODULES, fp8 ? 3.0 : 4.0},
            {true, SAX_RECOMPUTE_SELECTIVE, SAX_SELECTIVE_AC_MODULES, 1.0},
            {false, SAX_RECOMPUTE_FULL, SAX_SELECTIVE_AC_MODULES, fp8 ? 4.5 : 6.0},
            {false, SAX_RECOMPUTE_SELECTIVE, SAX_SELECTIVE_AC_OP, fp8 ? 3.5 : 5.0},
            {true, SAX_RECOMPUTE_SELECTIVE, SAX_SELECTIVE_AC_OP, 1.0},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            p.training.tp_comm_overlap = cases[i].overlap;
            c.recompute = cases[i].recompute;
            p.training.selective_ac_option = cases[i].option;
            sax_result_t r = fixture_eval(&p, &c);
            assert_true(r.feasible);
            double want = cases[i].units * u;
            if (fabs(r.breakdown_s[SAX_PHASE_TP] - want) > 1e-9 * want)
                fail_msg("%s, overlap %d, recompute %d: TP shows %.9g s, expected %.3g u = %.9g s",
                         fp8 ? "fp8" : "bf16", cases[i].overlap, (int)cases[i].recompute,
                         r.breakdown_s[SAX_PHASE_TP], cases[i].units, want);
        }
        c.recompute = SAX_RECOMPUTE_SELECTIVE;
        p.training.selective_ac_option = SAX_SELECTIVE_AC_MODULES;
        if (fp8) { /* delayed scaling gathers in bf16 (torchao gathers in FP8 only under dynamic scaling) */
            p.training.fp8_recipe = SAX_FP8_RECIPE_DELAYED;
            p.training.tp_comm_overlap = false;
            sax_result_t row = fixture_eval(&p, &c);
            assert_true(row.feasible);
            assert_true(fabs(row.breakdown_s[SAX_PHASE_TP] - 4.0 * u) <= 1e-9 * u);
        }
    }
    /* At NVLink's own speed async TP hides a gather or a scatter as far as the GEMM beside it lasts,
     * less the one piece of eight (TP 8) that runs with no transfer beside it (the local shard's):
     * forward, half a gather (v/2, v = u per layer and micro-batch: ag = rs = v) inside QKV and FC1 and
     * half a scatter inside the projection and FC2; backward, half a gather inside the projection's and
     * FC2's data gradients, and the input gradient's scatter (v) waits. */
    p.cluster.scale_up.bw_Bps /= 1000.0;
    p.training.precision = SAX_PRECISION_BF16;
    p.training.tp_implementation = SAX_TP_IMPL_MEGATRON;
    p.training.tp_comm_overlap = true;
    p.training.tp_overlap = 0.0;
    sax_result_t ref = fixture_eval(&p, &c);
    p.training.tp_implementation = SAX_TP_IMPL_DTENSOR;
    p.training.tp_overlap = 1.0;
    sax_result_t async = fixture_eval(&p, &c);
    assert_true(ref.feasible && async.feasible);
    const double calls = 16.0 * 8.0, v = ref.breakdown_s[SAX_PHASE_TP] / 5.0 / calls;
    const sax_layer_cost_t lc = tp8_layer_at_512s_pace(&p, false, 1);
    const double *g = lc.tp_gemm_s;
    const double in = 7.0 / 8.0;
    double want =
        calls * (fmax(0.0, v / 2 - in * g[SAX_TP_GEMM_QKV]) + fmax(0.0, v / 2 - in * g[SAX_TP_GEMM_MLP_IN]) +
                 2.0 * (fmax(0.0, v / 2 - in * g[SAX_TP_GEMM_PROJ]) +
                        fmax(0.0, v / 2 - in * g[SAX_TP_GEMM_MLP_OUT])) +
                 v);
    if (fabs(async.breakdown_s[SAX_PHASE_TP] - want) > 1e-9 * want)
        fail_msg("async TP at NVLink's speed: TP shows %.9g s, expected %.9g s",
                 async.breakdown_s[SAX_PHASE_TP], want);
    assert_true(want > calls * v * (1.0 + 1e-6)); /* some of it outlasts its GEMM */
    /* without sequence parallelism nothing is DTensor's own: the same as Megatron-LM's */
    p.training.precision = SAX_PRECISION_BF16;
    p.training.tp_comm_overlap = false;
    c.sequence_parallel = false;
    sax_result_t ar_dt = fixture_eval(&p, &c);
    p.training.tp_implementation = SAX_TP_IMPL_MEGATRON;
    p.training.async_tensor_model_parallel_allreduce = false;
    sax_result_t ar_mg = fixture_eval(&p, &c);
    assert_true(ar_dt.feasible && ar_mg.feasible);
    assert_true(ar_dt.breakdown_s[SAX_PHASE_TP] == ar_mg.breakdown_s[SAX_PHASE_TP]);
}

/* Communication hidden behind compute slows it by gpu.comm_interference of its time (docs/cost-model.md
 * section 6). One stage of 16 layers, TP 8 with sequence parallelism and --tp-comm-overlap: with
 * tp_overlap 0 every TP collective shows, as the breakdown's TP time; with tp_overlap 1 each hides as far
 * as the GEMM beside it lasts, and what hides is the difference. So with an interference of 0.25 the
 * hidden run's compute grows by a quarter of that difference, and nothing else moves inside the stage. */
static void test_hidden_traffic_slows_compute(void **state)
{
    (void)state;
    sax_problem_t p = problem;
    p.model.layers = 16;
    p.cluster.gpu.comm_interference = 0.0;
    for (int s = 0; s < p.cluster.n_sites; s++)
        p.cluster.sites[s].gpu.comm_interference = 0.0;
    sax_candidate_t c = base();
    c.pp = 1;
    p.training.tp_comm_overlap = true;
    p.training.tp_overlap = 0.0;
    sax_result_t shown = fixture_eval(&p, &c);
    p.training.tp_overlap = 1.0;
    sax_result_t hidden = fixture_eval(&p, &c);
    p.cluster.gpu.comm_interference = 0.25;
    for (int s = 0; s < p.cluster.n_sites; s++)
        p.cluster.sites[s].gpu.comm_interference = 0.25;
    sax_result_t slowed = fixture_eval(&p, &c);
    assert_true(shown.feasible && hidden.feasible && slowed.feasible);
    double tp = shown.breakdown_s[SAX_PHASE_TP], hid = tp - hidden.breakdown_s[SAX_PHASE_TP];
    assert_true(tp > 0.01 * shown.iteration_time_s && hid > 0.5 * tp);
    assert_true(slowed.breakdown_s[SAX_PHASE_TP] == hidden.breakdown_s[SAX_PHASE_TP]);
    double grown = slowed.breakdown_s[SAX_PHASE_COMPUTE] - hidden.breakdown_s[SAX_PHASE_COMPUTE];
    assert_true(fabs(grown - 0.25 * hid) <= 1e-9 * tp);
    assert_true(slowed.iteration_time_s > hidden.iteration_time_s);
}

/* training.step_overhead: the host's synchronisation at the step happens once an iteration, after every
 * stage's optimizer step and outside every micro-batch, so on one building (no link whose backlog could
 * absorb it) a quarter of a second of it makes the iteration exactly a quarter of a second longer, on
 * the breakdown's compute (where the optimizer step sits), whatever the pipeline; and the explanation's
 * optimizer phase is that quarter second plus Adam's pass over HBM, limited by latency when the quarter
 * second is the larger part. */
static void test_step_overhead_once_an_iteration(void **state)
{
    (void)state;
    sax_problem_t p = problem;
    sax_candidate_t c = base();
    for (int pp = 1; pp <= 4; pp *= 4) {
        c.pp = pp;
        c.dp = 128 / pp; /* 1024 GPUs: one building */
        p.training.step_overhead_s = 0.0;
        sax_result_t without = fixture_eval(&p, &c);
        p.training.step_overhead_s = 0.25;
        sax_result_t with = fixture_eval(&p, &c);
        assert_true(without.feasible && with.feasible);
        assert_true(with.cross_site_bytes_per_iteration == 0.0);
        double grown = with.iteration_time_s - without.iteration_time_s;
        if (fabs(grown - 0.25) > 1e-9)
            fail_msg("PP %d: the iteration grew by %.12g s, expected 0.25 s", pp, grown);
        assert_true(
            fabs(with.breakdown_s[SAX_PHASE_COMPUTE] - without.breakdown_s[SAX_PHASE_COMPUTE] - 0.25) < 1e-9);
        sax_bottleneck_t bn[SAX_BN_PHASE_COUNT];
        int n = 0;
        assert_int_equal(sax_model_explain(&p, &c, scratch, bn, &n), SAX_OK);
        bool seen = false;
        for (int i = 0; i < n; i++)
            if (bn[i].phase == SAX_BN_OPTIMIZER) {
                seen = true;
                assert_true(bn[i].memory_s > 0.0 && bn[i].memory_s < 0.25);
                assert_true(fabs(bn[i].exposed_s - bn[i].memory_s - 0.25) < 1e-9);
                assert_int_equal(bn[i].limited_by, SAX_LIMIT_LATENCY);
            }
        assert_true(seen);
    }
}

/* fp16 (Megatron-Core's --fp16) runs its GEMMs at bf16's peak and adds dynamic loss scaling's unscale
 * and inf/nan check, one read and one write of each fp32 main gradient, to Adam's pass at the step:
 * 6 B + 2 x (4 master + 8 moments) = 30 B a parameter becomes 38. Nothing else moves (the gradients stay
 * fp32 here: the fp16 default of grad_reduce_dtype is the loader's, test_config.c). */
static void test_fp16_unscales_at_the_step(void **state)
{
    (void)state;
    sax_problem_t p = problem;
    sax_candidate_t c = base();
    c.pp = 1;
    c.dp = 128;
    double pass[2] = {0.0, 0.0};
    sax_result_t r[2];
    const sax_precision_t prec[2] = {SAX_PRECISION_BF16, SAX_PRECISION_FP16};
    for (int k = 0; k < 2; k++) {
        p.training.precision = prec[k];
        r[k] = fixture_eval(&p, &c);
        assert_true(r[k].feasible);
        sax_bottleneck_t bn[SAX_BN_PHASE_COUNT];
        int n = 0;
        assert_int_equal(sax_model_explain(&p, &c, scratch, bn, &n), SAX_OK);
        for (int i = 0; i < n; i++)
            if (bn[i].phase == SAX_BN_OPTIMIZER)
                pass[k] = bn[i].memory_s;
    }
    assert_true(pass[0] > 0.0);
    if (fabs(pass[1] / pass[0] - 38.0 / 30.0) > 1e-12)
        fail_msg("the step's pass grew %.12g times, expected 38 / 30", pass[1] / pass[0]);
    double grown = pass[1] - pass[0], t0 = r[0].iteration_time_s;
    assert_true(fabs(r[1].iteration_time_s - t0 - grown) <= 1e-12 * t0);
    assert_true(fabs(r[1].breakdown_s[SAX_PHASE_COMPUTE] - r[0].breakdown_s[SAX_PHASE_COMPUTE] - grown) <=
                1e-12 * t0);
    for (int ph = SAX_PHASE_COMPUTE + 1; ph < SAX_PHASE_COUNT; ph++)
        assert_true(r[1].breakdown_s[ph] == r[0].breakdown_s[ph]);
}

/* FSDP's own copies (training.fsdp), by hand. Eight layers on one node, DP 8 (no TP, no pipeline),
 * micro-batch 1 of 512: m = 64 micro-batches. Each GPU gathers a layer's P = h (a d + 2 g d) + a d h +
 * 3 h f + 2 h parameters (attention, SwiGLU, two norms). Bytes a parameter each micro-batch, at
 * hbm_bw x mem_eff on the compute path (NVLink's gathers and scatters stay hidden behind the layers):
 * - FSDP2 copies each gathered weight out of the gather's buffer, forward and backward (2 x (2 + 2)),
 *   and the bf16 gradient into the reduce-scatter's buffer in the reduction's dtype (2 + g): 14 B with
 *   fp32 reductions, 12 with bf16;
 * - FSDP1 gathers in place, casts the gradient when the dtypes differ (2 + g) and divides it in place
 *   (2 g): 14 B with fp32, 4 with bf16;
 * - Megatron-FSDP gathers in place and accumulates into the reduce-scatter's bucket, scaled in place
 *   only in bf16 (2 g): 0 B with fp32, 4 with bf16.
 * So with fp32 FSDP2 and FSDP1 take the same time and Megatron-FSDP 14 B less; with bf16 FSDP1 and
 * Megatron-FSDP the same and FSDP2 8 B more. Every GPU alike (speed_variation 0). */
static void test_fsdp_copies(void **state)
{
    (void)state;
    sax_problem_t p = problem;
    p.model.layers = 8;
    p.cluster.gpu.speed_cv = 0.0;
    for (int s = 0; s < p.cluster.n_sites; s++)
        p.cluster.sites[s].gpu.speed_cv = 0.0;
    sax_candidate_t c = base();
    c.tp = 1;
    c.sequence_parallel = false;
    c.pp = 1;
    c.dp = 8;
    c.zero = 3;
    const double h = 8192, a = 64, g = 8, d = 128, f = 28672;
    const double params = h * (a * d + 2.0 * g * d) + a * d * h + 3.0 * h * f + 2.0 * h;
    const double per_byte = 64.0 * 8.0 * params / (p.cluster.gpu.hbm_bw_Bps * p.cluster.gpu.mem_eff);
    sax_result_t r[SAX_GRAD_DTYPE_COUNT][SAX_FSDP_COUNT];
    for (int gd = 0; gd < SAX_GRAD_DTYPE_COUNT; gd++)
        for (int k = 0; k < SAX_FSDP_COUNT; k++) {
            p.training.grad_reduce_dtype = (sax_grad_dtype_t)gd;
            p.training.fsdp = (sax_fsdp_t)k;
            r[gd][k] = fixture_eval(&p, &c);
            assert_true(r[gd][k].feasible && r[gd][k].breakdown_s[SAX_PHASE_DP] == 0.0);
        }
    const struct {
        sax_grad_dtype_t dtype;
        sax_fsdp_t slower, faster;
        double bytes;
    } want[] = {
        {SAX_GRAD_DTYPE_FP32, SAX_FSDP_FSDP1, SAX_FSDP_FSDP2, 0.0},
        {SAX_GRAD_DTYPE_FP32, SAX_FSDP_FSDP2, SAX_FSDP_MEGATRON, 14.0},
        {SAX_GRAD_DTYPE_BF16, SAX_FSDP_FSDP2, SAX_FSDP_FSDP1, 8.0},
        {SAX_GRAD_DTYPE_BF16, SAX_FSDP_FSDP1, SAX_FSDP_MEGATRON, 0.0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        double got = r[want[i].dtype][want[i].slower].iteration_time_s -
                     r[want[i].dtype][want[i].faster].iteration_time_s,
               expect = want[i].bytes * per_byte;
        if (fabs(got - expect) > 1e-9 * r[want[i].dtype][want[i].faster].iteration_time_s)
            fail_msg("%s over %s with %s reductions: %.9g s more, expected %.9g s",
                     sax_fsdp_names[want[i].slower], sax_fsdp_names[want[i].faster],
                     sax_grad_dtype_names[want[i].dtype], got, expect);
    }
}

/* One CP pass: the all-gather of K and V that explain names for the CP phase. */
static double cp_pass(const sax_problem_t *p, const sax_candidate_t *c)
{
    sax_bottleneck_t bn[SAX_BN_PHASE_COUNT];
    int n = 0;
    assert_int_equal(sax_model_explain(p, c, scratch, bn, &n), SAX_OK);
    for (int i = 0; i < n; i++)
        if (bn[i].phase == SAX_BN_CP && bn[i].has_coll)
            return bn[i].coll.time_s;
    fail_msg("no CP collective in the explanation");
    return 0.0;
}

/* One stage, TP 8, CP `cp` and DP 128 / cp (1024 GPUs, 512 / dp micro-batches), K and V gathered
 * (cp_comm_type all_gather). */
static sax_candidate_t cp_case(sax_problem_t *p, int cp)
{
    sax_candidate_t c = base();
    c.pp = 1;
    c.cp = cp;
    c.dp = 128 / cp;
    p->training.cp_comm_type = SAX_CP_COMM_ALL_GATHER;
    return c;
}

/* training.cp_comm_type: with `all_gather` attention waits for its K and V, so every layer of every
 * micro-batch shows the CP all-gather once forward and twice backward (gathered again, and the
 * gradients reduce-scattered): 80 layers x 8 micro-batches x 3 x the all-gather's time, the time the
 * explanation gives for the CP phase's collective; with full recomputation the recomputed forward
 * gathers once more (4 x). The p2p ring hides what attention's chunks cover, so it shows less and the
 * iteration is shorter. One building: TP 8, CP 2, DP 64, one stage. */
static void test_cp_all_gather_waits(void **state)
{
    (void)state;
    sax_problem_t p = problem;
    sax_candidate_t c = cp_case(&p, 2); /* 8 micro-batches */
    sax_result_t ag = fixture_eval(&p, &c);
    double pass = cp_pass(&p, &c);
    p.training.cp_comm_type = SAX_CP_COMM_P2P;
    sax_result_t ring = fixture_eval(&p, &c);
    assert_true(ag.feasible && ring.feasible && pass > 0.0);
    double want = 80.0 * 8.0 * 3.0 * pass;
    if (fabs(ag.breakdown_s[SAX_PHASE_CP] - want) > 1e-9 * want)
        fail_msg("all_gather shows %.9g s of CP, expected %.9g s", ag.breakdown_s[SAX_PHASE_CP], want);
    assert_true(ring.breakdown_s[SAX_PHASE_CP] < ag.breakdown_s[SAX_PHASE_CP]);
    assert_true(ring.iteration_time_s < ag.iteration_time_s);
    p.training.cp_comm_type = SAX_CP_COMM_ALL_GATHER;
    c.recompute = SAX_RECOMPUTE_FULL;
    sax_result_t full = fixture_eval(&p, &c);
    assert_true(full.feasible);
    want = 80.0 * 8.0 * 4.0 * pass;
    if (fabs(full.breakdown_s[SAX_PHASE_CP] - want) > 1e-9 * want)
        fail_msg("all_gather with full recomputation shows %.9g s of CP, expected %.9g s",
                 full.breakdown_s[SAX_PHASE_CP], want);
}

/* PyTorch's ring attention (training.cp_implementation "pytorch", docs/cost-model.md section 6), the 80
 * layers on one stage, TP 8, CP 4 (c), 16 micro-batches, gathered K and V (cp_comm_type all_gather):
 * a pass is one all-gather of them, a step of the fp32 gradient ring 2 pass / (c - 1), and each of the
 * c steps of attention takes 1/c of its forward A (A' backward), as the model prices them on this GPU.
 * A layer and micro-batch shows the forward's gather less the first step, again with full
 * recomputation, the backward's gather less its first step, the first c - 1 gradient passes less a step
 * each, and the last one (after the loop) whole:
 * - at 8K tokens every exchange outlasts its step: (2 + 2c/(c - 1)) pass - A/c - A' = 14/3 pass - A/4 -
 *   A' (full recomputation: 17/3 pass - A/2 - A'); Megatron-LM's gather, gather and reduce-scatter wait
 *   whole (3 of its own, 8 times smaller, passes);
 * - at 256K tokens the backward's steps outlast its exchanges: 2 (pass - A/4) + 2/3 pass. */
static void test_cp_as_pytorch_runs_it(void **state)
{
    (void)state;
    sax_problem_t p = problem;
    sax_candidate_t c = cp_case(&p, 4); /* 16 micro-batches */
    const double calls = 80.0 * 16.0;
    sax_result_t mg = fixture_eval(&p, &c);
    double pass_mg = cp_pass(&p, &c);
    assert_true(mg.feasible && pass_mg > 0.0);
    assert_true(fabs(mg.breakdown_s[SAX_PHASE_CP] - calls * 3.0 * pass_mg) <= 1e-9 * calls * pass_mg);
    p.training.cp_implementation = SAX_CP_IMPL_PYTORCH;
    p.cluster.gpu.speed_cv = 0.0; /* every GPU at the pace sax_layer_cost prices below */
    for (int s = 0; s < p.cluster.n_sites; s++)
        p.cluster.sites[s].gpu.speed_cv = 0.0;
    const struct {
        int seq;
        sax_recompute_t recompute;
        bool backward_hides; /* A'/4 > pass, step */
    } cases[] = {
        {8192, SAX_RECOMPUTE_SELECTIVE, false},
        {8192, SAX_RECOMPUTE_FULL, false},
        {262144, SAX_RECOMPUTE_FULL, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        p.model.seq_len = cases[i].seq;
        c.recompute = cases[i].recompute;
        sax_result_t r = fixture_eval(&p, &c);
        const double pass = cp_pass(&p, &c), step = 2.0 * pass / 3.0;
        sax_layer_cost_t lc;
        sax_layer_cost(&p.model, &p.cluster.sites[0].gpu, &p.training, 8, 4, 1, 1, 1, true, false, &lc);
        const double a4 = lc.attn_s / 4.0, b4 = lc.attn_bwd_s / 4.0;
        assert_true(r.feasible && pass > a4 && a4 > 0.0);
        assert_true(cases[i].backward_hides ? b4 > pass && b4 > step : b4 < step);
        const double fwd = (c.recompute == SAX_RECOMPUTE_FULL ? 2.0 : 1.0) * (pass - a4),
                     want = calls * (cases[i].backward_hides ? fwd + step
                                                             : fwd + pass - b4 + 3.0 * (step - b4) + step);
        if (fabs(r.breakdown_s[SAX_PHASE_CP] - want) > 1e-9 * want)
            fail_msg("seq %d, recompute %d: CP shows %.9g s, expected %.9g s", cases[i].seq,
                     (int)cases[i].recompute, r.breakdown_s[SAX_PHASE_CP], want);
    }
    /* K and V for every query head: the 64 / 8 = 8 times larger pass costs more */
    p.model.seq_len = 8192;
    assert_true(cp_pass(&p, &c) > pass_mg);
}

/* A 32-layer MoE (64 experts, top-8, width 1408) at TP 1 without sequence parallelism, on the
 * fixture's two buildings: what the MoE tests below share. */
static void moe_case(sax_problem_t *p, sax_candidate_t *c, long global_batch, int pp, int dp, int ep)
{
    *p = problem;
    p->model = fixture_moe_model(64, 8, 1408);
    p->training.global_batch = global_batch;
    *c = base();
    c->tp = 1;
    c->pp = pp;
    c->dp = dp;
    c->ep = ep;
    c->sequence_parallel = false;
}

/* training.overlap_moe_expert_parallel_comm (Megatron-Core's combined 1F1B): without PP each micro-batch's
 * forward runs beside the previous one's backward, so of m = 8 micro-batches only the first forward
 * and the last backward keep their all-to-alls waiting (schedules.py, forward_backward_no_pipelining).
 * With EP 8 inside a node the all-to-alls are shorter than either side's compute, so the rest hide
 * whole: at training.ep_overlap_efficiency 1 the exposed EP time is 1/m of what it is without the
 * overlap, to rounding, and at 0.5 it is 1 - 0.5 (m - 1)/m of it. Megatron-Core
 * refuses the overlap with full recomputation and with PP on the plain 1F1B schedule: there nothing
 * changes. A 32-layer MoE (64 experts, top-8), TP 1, DP 2048. */
static void test_ep_overlap_in_the_1f1b_phase(void **state)
{
    (void)state;
    sax_problem_t p;
    sax_candidate_t c;
    moe_case(&p, &c, 16384, 1, 2048, 8);
    sax_result_t plain = fixture_eval(&p, &c);
    p.training.overlap_moe_expert_parallel_comm = true;
    p.training.ep_overlap_efficiency = 1.0;
    sax_result_t paired = fixture_eval(&p, &c);
    assert_true(plain.feasible && paired.feasible && plain.breakdown_s[SAX_PHASE_EP] > 0.0);
    double want = plain.breakdown_s[SAX_PHASE_EP] / 8.0, got = paired.breakdown_s[SAX_PHASE_EP];
    if (fabs(got - want) > 1e-9 * want)
        fail_msg("overlapped EP shows %.9g s, expected 1/8 of %.9g s", got, plain.breakdown_s[SAX_PHASE_EP]);
    assert_true(paired.iteration_time_s < plain.iteration_time_s);
    /* half as effective: 7/8 of the chunks paired, half of their all-to-all time hidden */
    p.training.ep_overlap_efficiency = 0.5;
    sax_result_t half = fixture_eval(&p, &c);
    want = plain.breakdown_s[SAX_PHASE_EP] * (1.0 - 0.5 * 7.0 / 8.0);
    got = half.breakdown_s[SAX_PHASE_EP];
    if (fabs(got - want) > 1e-9 * want)
        fail_msg("at efficiency 0.5 EP shows %.9g s, expected %.9g s", got, want);

    sax_candidate_t refused[2] = {c, c};
    refused[0].recompute = SAX_RECOMPUTE_FULL;
    refused[1].pp = 4; /* plain 1F1B with PP */
    refused[1].dp = 512;
    for (int k = 0; k < 2; k++) {
        p.training.overlap_moe_expert_parallel_comm = false;
        sax_result_t off = fixture_eval(&p, &refused[k]);
        p.training.overlap_moe_expert_parallel_comm = true;
        sax_result_t on = fixture_eval(&p, &refused[k]);
        assert_true(off.feasible && on.feasible);
        assert_true(on.iteration_time_s == off.iteration_time_s);
    }
}

/* training.moe_flex_dispatcher_backend hybridep: HybridEP's all-to-alls at training.hybridep_efficiency of
 * the speed DeepEP's get, nothing else changed. Without PP and without overlap every all-to-all waits, so
 * at efficiency 0.5 the exposed EP time is exactly twice DeepEP's, compute the same, and the iteration
 * longer by the difference less what the longer backward hides of the data-parallel reduction (the same
 * model and GPUs as test_ep_overlap_in_the_1f1b_phase, EP 8 in a node). */
static void test_hybridep_at_its_share_of_the_speed(void **state)
{
    (void)state;
    sax_problem_t p;
    sax_candidate_t c;
    moe_case(&p, &c, 16384, 1, 2048, 8);
    p.training.moe_token_dispatcher = SAX_MOE_DISPATCHER_FLEX;
    p.training.moe_flex_dispatcher_backend = SAX_FLEX_BACKEND_DEEPEP;
    sax_result_t deepep = fixture_eval(&p, &c);
    p.training.moe_flex_dispatcher_backend = SAX_FLEX_BACKEND_HYBRIDEP;
    p.training.hybridep_efficiency = 0.5;
    sax_result_t hybridep = fixture_eval(&p, &c);
    assert_true(deepep.feasible && hybridep.feasible && deepep.breakdown_s[SAX_PHASE_EP] > 0.0);
    double ep = deepep.breakdown_s[SAX_PHASE_EP];
    if (fabs(hybridep.breakdown_s[SAX_PHASE_EP] - 2.0 * ep) > 1e-9 * ep)
        fail_msg("HybridEP at 0.5 shows %.9g s of EP, expected 2 x %.9g s",
                 hybridep.breakdown_s[SAX_PHASE_EP], ep);
    assert_true(hybridep.breakdown_s[SAX_PHASE_COMPUTE] == deepep.breakdown_s[SAX_PHASE_COMPUTE]);
    /* the longer backward hides more of the data-parallel reduction: the iteration grows by the EP time
     * less at most the DP time DeepEP's run left exposed */
    double grow = hybridep.iteration_time_s - deepep.iteration_time_s;
    if (grow > ep * (1.0 + 1e-9) || grow < ep - deepep.breakdown_s[SAX_PHASE_DP] - 1e-9 * ep)
        fail_msg("the iteration grows by %.9g s, expected %.9g s less at most %.9g s", grow, ep,
                 deepep.breakdown_s[SAX_PHASE_DP]);
}

/* A collective shares its link with the pipeline, worked by hand. Building A holds 512 GPUs, B 1024,
 * one link of C bytes/s each way between them; TP 8, DP 32, PP 3, CP 2, order tp-dp-pp-cp (84 layers,
 * 28 a stage; m = 512 / 32 = 16). CP is outermost: the pairs join GPU i with 768 + i, and the first
 * one (0 and 768) crosses the link; sax counts every group of a dimension as its first one (the
 * layout's convention, docs/cost-model.md section 9), so a CP pass (an all-gather of K and V over the
 * pair) puts on each direction all 768 pairs' shards: 1 x 4096 tokens x 2 (K, V) x 8 KV heads x 128 /
 * TP 8 x 2 B = 2 MiB each, b = 768 x 2 MiB = 1.61 GB. The boundary from stage 1 (GPUs 256..511, A)
 * to stage 2 (512..767, B) crosses the link as well: 512 x 17.2 MB / 2 = 4.3 GB each way per
 * micro-batch, over a stage's compute of a micro-batch (a few tenths of a second), more than
 * C / 2 = 3.1 or 6.3 GB/s. So the pipeline keeps more than half of each direction and the CP pass,
 * which alone runs at the link's speed, gets C / 2 (max-min): it takes b / (C / 2). A forward pass
 * exposes 28 x (pass - attention) of it on every stage, the attention the same at either speed, so
 * halving C adds 28 x b x (2 / C1 - 2 / C2) to a stage's forward CP time: 7.215 s, where a CP pass
 * sized as alone on the link would add half that. */
static void test_collective_shares_link_with_pipeline(void **state)
{
    (void)state;
    sax_problem_t p = problem;
    p.model.layers = 84;
    fixture_h100_cluster(&p.cluster, 2, 512, 6.25e9, 5e-6);
    p.cluster.sites[1].gpus = 1024;
    sax_candidate_t c = base();
    c.pp = 3;
    c.cp = 2;
    c.dp = 32;
    c.order[0] = SAX_DIM_TP;
    c.order[1] = SAX_DIM_DP;
    c.order[2] = SAX_DIM_PP;
    c.order[3] = SAX_DIM_CP;
    const double C[2] = {6.25e9, 12.5e9}, b = 768.0 * 2.0 * 1048576.0;
    double cp_fwd[2];
    sax_iteration_detail_t *d = malloc(sizeof *d);
    assert_non_null(d);
    for (int k = 0; k < 2; k++) {
        p.cluster.links[0].bw_Bps = C[k];
        sax_result_t r;
        sax_pipeline_t pl;
        assert_int_equal(sax_model_eval_trace(&p, &c, scratch, &r, &pl, d), SAX_OK);
        assert_true(r.feasible);
        assert_true(d->link_class_bytes[0][SAX_DIM_PP][0] > 0.0);
        cp_fwd[k] = d->fwd_comm_s[0][SAX_DIM_CP];
    }
    free(d);
    double expect = 28.0 * b * (2.0 / C[0] - 2.0 / C[1]);
    if (fabs(cp_fwd[0] - cp_fwd[1] - expect) > 1e-9 * expect)
        fail_msg("stage 0's forward CP time grows by %.12g s, expected %.12g s", cp_fwd[0] - cp_fwd[1],
                 expect);
}

/* Multi-token prediction (model.mtp_num_layers, Megatron-Core's MultiTokenPredictionLayer) on one GPU
 * whose GEMMs run at their peak (1e15 FLOP/s) and memory-bound kernels at 1e12 B/s, nothing else costing:
 * a 2-layer model with one MTP depth against the same model with a third layer, h 1024, vocabulary 32768,
 * 1024 tokens a micro-batch, two micro-batches. The depth's layer costs what the third layer does; beyond
 * it, by hand, a micro-batch (a GEMM takes its FLOPs at the peak or its bytes, 2 B an element of its
 * input, weights and output, at 1e12 B/s, whichever is longer; its two gradients move the same three
 * matrices):
 *   eh_proj 2h -> h, forward, data and weight gradients: 3 x 2 x 1024 x 1024 x 2048 FLOP (4.29 us each)
 *     or 3 x 2 x (1024 x 2048 + 2048 x 1024 + 1024 x 1024) = 3 x 10,485,760 B: 3.145728e-5 s
 *   the output layer again: 3 x 2 x 1024 x 32768 x 1024 FLOP (68.7 us each) or 3 x 2 x (1024 x 1024
 *     + 1024 x 32768 + 1024 x 32768) = 3 x 136,314,880 B: 4.0894464e-4 s
 *   three norms (4 B an element forward, 8 backward) and the 2h concatenation (8 B): 1024 x (20 + 24)
 *     x 1024 = 46,137,344 B
 *   the loss again, unfused: 1024 x 32768 x (38 + 14) = 1,744,830,464 B
 * 4.4040192e-4 s + 1.790967808e-3 s = 2.231369728e-3 s, twice for the two micro-batches.
 * Parameters: eh_proj 2h^2 and three norms, 2,100,224; with PP 2 the last stage also holds the depth's
 * layer, 4h^2 + 2 h f + 2h = 12,584,960 (f = 4096, GELU), and the embedding's copy, V h = 33,554,432
 * (the model is untied): 2 B each of weights; under DualPipe, whose ranks hold both stages, no copy
 * (DeepSeek-V3 section 3.2.3). */
static void test_mtp_by_hand(void **state)
{
    (void)state;
    sax_problem_t p;
    memset(&p, 0, sizeof p);
    p.model = (sax_model_desc_t){.name = "tiny",
                                 .layers = 2,
                                 .hidden = 1024,
                                 .ffn_hidden = 4096,
                                 .heads = 8,
                                 .kv_heads = 8,
                                 .vocab = 32768,
                                 .seq_len = 1024,
                                 .ffn_act = SAX_FFN_GELU,
                                 .mtp_num_layers = 1};
    sax_training_set_defaults(&p.training);
    p.training.global_batch = 2;
    fixture_h100_cluster(&p.cluster, 1, 8, 0.0, 0.0);
    sax_gpu_t *g = &p.cluster.sites[0].gpu;
    g->peak_flops_bf16 = 1e15;
    g->gemm_eff_max = 1.0;
    g->gemm_eff_half_ai = 0.0;
    g->hbm_bw_Bps = 1e12;
    g->mem_eff = 1.0;
    g->speed_cv = 0.0;
    p.cluster.gpu = *g;
    sax_candidate_t c = {.tp = 1,
                         .pp = 1,
                         .dp = 1,
                         .cp = 1,
                         .ep = 1,
                         .vpp = 1,
                         .micro_batch = 1,
                         .schedule = SAX_SCHEDULE_1F1B,
                         .recompute = SAX_RECOMPUTE_NONE,
                         .n_order = 1,
                         .order = {SAX_DIM_TP},
                         .connections = 1};
    sax_problem_t q = p; /* three layers, no MTP */
    q.model.layers = 3;
    q.model.mtp_num_layers = 0;
    double compute[2], weights[2];
    const sax_problem_t *pr[2] = {&p, &q};
    for (int k = 0; k < 2; k++) {
        sax_result_t r;
        sax_iteration_detail_t *d = malloc(sizeof *d);
        assert_non_null(d);
        sax_pipeline_t pl;
        assert_int_equal(sax_model_eval_trace(pr[k], &c, scratch, &r, &pl, d), SAX_OK);
        assert_true(r.feasible);
        compute[k] = r.breakdown_s[SAX_PHASE_COMPUTE] - d->opt_s[0];
        weights[k] = r.mem_weights_bytes;
        free(d);
    }
    const double own = 2.0 * 2.231369728e-3;
    assert_true(fabs(compute[0] - compute[1] - own) < 1e-9 * own);
    assert_true(fabs(weights[0] - weights[1] - 2.0 * 2100224.0) < 1.0);

    /* PP 2: the last stage holds the depth's layer, eh_proj, the norms and the embedding's copy */
    q = p;
    q.model.mtp_num_layers = 0;
    c.pp = 2;
    c.n_order = 2;
    c.order[1] = SAX_DIM_PP;
    p.training.global_batch = q.training.global_batch = 4;
    sax_result_t with = fixture_eval(&p, &c), without = fixture_eval(&q, &c);
    assert_true(with.feasible && without.feasible);
    assert_true(fabs(with.mem_weights_bytes - without.mem_weights_bytes -
                     2.0 * (2100224.0 + 12584960.0 + 33554432.0)) < 1.0);
    /* DualPipe: each rank holds both stages, the embedding among them, which the depth shares */
    c.schedule = SAX_SCHEDULE_DUALPIPE;
    with = fixture_eval(&p, &c);
    without = fixture_eval(&q, &c);
    assert_true(with.feasible && without.feasible);
    assert_true(fabs(with.mem_weights_bytes - without.mem_weights_bytes - 2.0 * (2100224.0 + 12584960.0)) <
                1.0);
}

/* Megatron-Core's gradient buckets (training.ddp_bucket_size, docs/cost-model.md section 6), by hand. A
 * model of 26 layers of h 1024 (8 heads of 128, 8 KV heads, SwiGLU 4096: L = 1024 (1024 + 2048) + 1024^2 +
 * 3 x 1024 x 4096 + 2 x 1024 = 16,779,264 parameters) and an untied vocabulary of 32000 (E = O =
 * 32,768,000), no TP, every GPU alike, nothing slowed by the traffic it hides behind (interference 0),
 * gradients reduced in bf16 (the reduce-scatter moves the gather's bytes, and a ring takes as long for
 * either: NCCL gives them the same steps), dp_overlap_efficiency 1. Buckets fill in backward order (the
 * output layer, the last layer first, the embedding last) and close at the first parameter that brings
 * them to the bucket size:
 * - one stage, DP 64 (bucket max(4e7, 6.4e7) = 6.4e7): O + 2 L = 66,326,528 first; then 24 layers in
 *   buckets of 4 (67,117,056), none left, so the embedding alone is last: 32,768,000 of 501,796,864;
 * - two stages, DP 32 (bucket 4e7): stage 0's 13 layers go 3 to a bucket (50,337,792 first), one layer
 *   is left for the embedding's: 49,547,264 of 250,898,432. Stage 1 is one bucket (Megatron splits only
 *   the first stage): its reduce-scatter waits for the end of its backward, its gather runs while it
 *   waits for stage 0's first forward, so half its traffic shows.
 * On its 50 GB/s a GPU the synchronisation hides behind the backward but for the last bucket, whose
 * reduce-scatter starts when the backward ends, and the first bucket of the next forward, the same
 * embedding bucket, which the forward waits for: the exposed share of the DP traffic is the last bucket's
 * share of the parameters. On a link 500 times slower the buckets queue: what shows is the traffic less
 * the window behind which all but the first bucket hide, (b + w)(1 - first) backward and f (1 - first)
 * forward. Without the overlap, or with a bucket as large as the stage, all of it shows. */
static void test_ddp_buckets_by_hand(void **state)
{
    (void)state;
    sax_problem_t p = problem;
    p.model = (sax_model_desc_t){.name = "small",
                                 .layers = 26,
                                 .hidden = 1024,
                                 .ffn_hidden = 4096,
                                 .heads = 8,
                                 .kv_heads = 8,
                                 .vocab = 32000,
                                 .seq_len = 2048,
                                 .ffn_act = SAX_FFN_SWIGLU};
    p.training.grad_reduce_dtype = SAX_GRAD_DTYPE_BF16;
    p.cluster.gpu.speed_cv = 0.0;
    p.cluster.gpu.comm_interference = 0.0;
    for (int s = 0; s < p.cluster.n_sites; s++) {
        p.cluster.sites[s].gpu.speed_cv = 0.0;
        p.cluster.sites[s].gpu.comm_interference = 0.0;
    }
    const double L = 16779264.0, E = 32768000.0, one = 2.0 * E + 26.0 * L, two = 13.0 * L + E;
    sax_candidate_t c = base();
    c.tp = 1;
    c.sequence_parallel = false;
    c.micro_batch = 8;
    sax_iteration_detail_t *d = malloc(sizeof *d);
    assert_non_null(d);
    sax_result_t r;
    sax_pipeline_t pl;
    const struct {
        int pp, dp;
        double tier_bw, bucket, overlap;
        double shown[2]; /* the exposed share per stage; < 0: the buckets queue, the first holds -shown */
        double first[2]; /* the first bucket's share (the window hides all but it) */
    } cases[] = {
        {1, 64, 50e9, 0, 1.0, {E / one, 0}, {(E + 2.0 * L) / one, 0}},
        {2, 32, 50e9, 0, 1.0, {(L + E) / two, 0.5}, {3.0 * L / two, 1.0}},
        {1, 64, 1e8, 0, 1.0, {-(E + 2.0 * L) / one, 0}, {(E + 2.0 * L) / one, 0}},
        {1, 64, 50e9, 0, 0.0, {1.0, 0}, {1.0, 0}},
        {1, 64, 50e9, 1e12, 1.0, {1.0, 0}, {1.0, 0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sax_problem_t q = p;
        q.cluster.tiers[0].bw_Bps = cases[i].tier_bw;
        q.training.ddp_bucket_size = (int64_t)cases[i].bucket;
        q.training.dp_overlap_efficiency = cases[i].overlap;
        c.pp = cases[i].pp;
        c.dp = cases[i].dp;
        assert_int_equal(sax_model_eval_trace(&q, &c, scratch, &r, &pl, d), SAX_OK);
        assert_true(r.feasible && r.cross_site_bytes_per_iteration == 0.0);
        for (int s = 0; s < c.pp; s++) {
            double share = cases[i].shown[s], got = d->dp_exposed_s[s], t = d->dp_s[s], want;
            double window = fmin(pl.b_s[s] + pl.w_s[s], pl.f_s[s]) * (1.0 - cases[i].first[s]);
            assert_true(t > 0.0);
            if (share >= 0.0) {
                want = share * t;
                if (cases[i].first[s] < 1.0) /* the window covers all but the last bucket */
                    assert_true(window > t);
            } else {
                want = t - (pl.b_s[s] + pl.w_s[s] + pl.f_s[s]) * (1.0 - cases[i].first[s]);
                assert_true(want > -share * t);
            }
            if (fabs(got - want) > 1e-9 * t)
                fail_msg("case %zu, stage %d: %.9g s of %.9g s exposed, expected %.9g s", i, s, got, t, want);
        }
    }
    free(d);
}
/* A slower GPU never makes an iteration faster, under DualPipe too, where a MoE layer's all-to-alls hide
 * behind the other direction's compute: a forward and a backward chunk together take max(forward,
 * all-to-all) + max(backward, all-to-all) (docs/cost-model.md section 6). A 32-layer MoE (64 experts,
 * top-8) on the two buildings, EP 64 over eight nodes, PP 4, its HBM bandwidth and its peak FLOP/s
 * lowered in steps, each alone and both together: the iteration time never drops. */
static void test_dualpipe_monotone_in_gpu(void **state)
{
    (void)state;
    sax_problem_t p;
    sax_candidate_t c;
    moe_case(&p, &c, 4096, 4, 512, 64);
    c.schedule = SAX_SCHEDULE_DUALPIPE;
    for (int what = 0; what < 3; what++) {
        double prev = 0.0;
        for (int step = 0; step < 8; step++) {
            double k = 1.0 - 0.1 * step;
            sax_problem_t q = p;
            for (int s = 0; s < q.cluster.n_sites; s++) {
                sax_gpu_t *g = &q.cluster.sites[s].gpu;
                if (what != 1)
                    g->hbm_bw_Bps *= k;
                if (what != 0) {
                    g->peak_flops_bf16 *= k;
                    g->peak_flops_fp8 *= k;
                }
            }
            q.cluster.gpu = q.cluster.sites[0].gpu;
            sax_result_t r = fixture_eval(&q, &c);
            assert_true(r.feasible);
            if (r.iteration_time_s < prev * (1.0 - 1e-12))
                fail_msg("slower GPUs (%s x %.1f): %.9g s after %.9g s",
                         what == 0   ? "HBM"
                         : what == 1 ? "FLOP/s"
                                     : "both",
                         k, r.iteration_time_s, prev);
            prev = r.iteration_time_s;
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_breakdown_sums_and_dp_crosses_sites),
        cmocka_unit_test(test_no_site_crossing_no_cross_site_bytes),
        cmocka_unit_test(test_monotone_in_network),
        cmocka_unit_test(test_memory_feasibility),
        cmocka_unit_test(test_infeasibility_reasons),
        cmocka_unit_test(test_lossless_only_on_links_used),
        cmocka_unit_test(test_degrees_product),
        cmocka_unit_test(test_no_allocation),

        cmocka_unit_test(test_layout_memo),
        cmocka_unit_test(test_cross_site_pipeline_costs),
        cmocka_unit_test(test_two_boundaries_share_a_link),
        cmocka_unit_test(test_iteration_detail),
        cmocka_unit_test(test_tp_collectives_as_megatron_runs_them),
        cmocka_unit_test(test_tp_overlap_of_a_moe_layer),
        cmocka_unit_test(test_tp_collectives_as_dtensor_runs_them),
        cmocka_unit_test(test_hidden_traffic_slows_compute),
        cmocka_unit_test(test_step_overhead_once_an_iteration),
        cmocka_unit_test(test_fp16_unscales_at_the_step),
        cmocka_unit_test(test_fsdp_copies),
        cmocka_unit_test(test_cp_all_gather_waits),
        cmocka_unit_test(test_cp_as_pytorch_runs_it),
        cmocka_unit_test(test_ep_overlap_in_the_1f1b_phase),
        cmocka_unit_test(test_hybridep_at_its_share_of_the_speed),
        cmocka_unit_test(test_collective_shares_link_with_pipeline),
        cmocka_unit_test(test_dualpipe_monotone_in_gpu),
        cmocka_unit_test(test_mtp_by_hand),
        cmocka_unit_test(test_ddp_buckets_by_hand),
    };
    return cmocka_run_group_tests(tests, setup, fixture_teardown);
}
