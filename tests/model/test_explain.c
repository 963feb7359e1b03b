/* test_explain.c - what limits a collective and each phase of an iteration (model/explain.c), against
 * verdicts derived by hand from the closed forms' terms (docs/cost-model.md sections 5 and 10): every
 * case puts one term at least four times above every other, so the verdict does not hang on detail.
 *
 * The cluster of most cases: domains of 8 GPUs with NVLink at 450 GB/s x 0.8 = 360 GB/s per GPU and
 * alpha 3 us; one tier, the building, of 1024 GPUs with a 50 GB/s NIC per GPU (x 0.9 = 45 GB/s) and
 * alpha 10 us; two such buildings as sites, joined by one site link. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double GIB = 1024.0 * 1024.0 * 1024.0;

/* |a - b| <= tol, in double precision (cmocka's float assertion narrows to float) */
#define assert_near(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void make_cluster(sax_cluster_t *cl, int site_gpus, double link_bw, double link_lat, double window)
{
    fixture_h100_cluster(cl, link_bw > 0.0 ? 2 : 1, site_gpus, link_bw, link_lat);
    if (link_bw > 0.0)
        cl->links[0].window_bytes = window;
}

static sax_candidate_t candidate(int tp, int dp)
{
    sax_candidate_t c = {.tp = tp,
                         .pp = 1,
                         .dp = dp,
                         .cp = 1,
                         .ep = 1,
                         .vpp = 1,
                         .micro_batch = 1,
                         .schedule = SAX_SCHEDULE_1F1B,
                         .recompute = SAX_RECOMPUTE_SELECTIVE,
                         .zero = 1,
                         .n_order = 4,
                         .order = {SAX_DIM_TP, SAX_DIM_CP, SAX_DIM_PP, SAX_DIM_DP},
                         .transport = SAX_TRANSPORT_ROCE_SR,
                         .algorithm = SAX_ALGORITHM_RING};
    sax_candidate_set_nccl_defaults(&c);
    return c;
}

/* Explains the collective and checks its verdict, printing the terms when it is not the expected one. */
static void expect_limit(const sax_cluster_t *cl, const sax_candidate_t *c, sax_coll_op_t op, int n,
                         long stride, bool concurrent, double bytes, sax_limit_t want)
{
    sax_coll_explain_t x;
    sax_error_t err = {{0}};
    assert_int_equal(
        sax_collective_explain(cl, c, op, SAX_ALGORITHM_RING, n, stride, concurrent, bytes, &x, &err),
        SAX_OK);
    if (x.limited_by != want) {
        fprintf(stderr, "expected %s, found %s; time %.6g s, terms:", sax_limit_names[want],
                sax_limit_names[x.limited_by], x.time_s);
        for (int i = 0; i < SAX_LIMIT_COUNT; i++)
            fprintf(stderr, " %s %.6g", sax_limit_names[i], x.term_s[i]);
        fputc('\n', stderr);
    }
    assert_int_equal(x.limited_by, want);
    /* every term is the operation with fewer limits: never longer than it */
    for (int i = 0; i < SAX_LIMIT_COUNT; i++)
        assert_true(x.term_s[i] <= x.time_s * (1.0 + 1e-9));
}

/* 2 GPUs in two sites (stride 1024), all-reduce of 1 GiB: a ring of 2 members, 2 steps of 512 MiB, so
 * 1 GiB crosses the link each way. 2 channels (one member per domain: NCCL's 2 per NIC), 1 QP each.
 *   window: 64 KiB in flight per flow over a 20 ms round trip = 3.28 MB/s a channel, 6.55 MB/s both:
 *           1 GiB / 6.55 MB/s = 164 s
 *   NIC: 1 GiB / 45 GB/s = 24 ms; link: 1 GiB / 1.25 TB/s = 0.9 ms; latency: 2 steps x 10 ms = 20 ms
 * The window is 6800 times the next term. */
static void test_window(void **state)
{
    (void)state;
    sax_cluster_t cl;
    make_cluster(&cl, 1024, 1.25e12, 10e-3, 64.0 * 1024);
    sax_candidate_t c = candidate(1, 2);
    expect_limit(&cl, &c, SAX_OP_ALL_REDUCE, 2, 1024, false, GIB, SAX_LIMIT_WINDOW);
    sax_coll_explain_t x;
    assert_int_equal(
        sax_collective_explain(&cl, &c, SAX_OP_ALL_REDUCE, SAX_ALGORITHM_RING, 2, 1024, false, GIB, &x, NULL),
        SAX_OK);
    /* the words quote the round trip and what one connection keeps in flight: min(4 MiB NCCL buffer,
     * 1 QP x 64 KiB) */
    assert_near(x.rtt_s, 20e-3, 1e-12);
    assert_near(x.inflight_bytes, 64.0 * 1024, 1e-6);
    assert_near(x.term_s[SAX_LIMIT_WINDOW], GIB / (2.0 * 64.0 * 1024 / 20e-3), 0.05 * 164.0);
}

/* The same two sites with the windows out of the way and a thin link: transport window 1 GiB, NCCL's
 * buffer 64 MiB, link 100 MB/s.
 *   link: 1 GiB / 100 MB/s = 10.7 s
 *   NCCL's window: 64 MiB a channel per 20 ms round trip = 3.4 GB/s, 6.7 GB/s both: 1 GiB in 0.16 s
 *   NIC 24 ms, latency 20 ms
 * The link is 67 times the next term. */
static void test_link_capacity(void **state)
{
    (void)state;
    sax_cluster_t cl;
    make_cluster(&cl, 1024, 100e6, 10e-3, GIB);
    sax_candidate_t c = candidate(1, 2);
    c.buffer_bytes = 64 << 20;
    expect_limit(&cl, &c, SAX_OP_ALL_REDUCE, 2, 1024, false, GIB, SAX_LIMIT_LINK_CAPACITY);
}

/* Test 1's sites with an 8 B all-reduce: 2 steps x (10 ms + 10 us) = 20 ms of latency, against 8 B at
 * 6.55 MB/s through the window (1.2 us) or at any bandwidth (ns). */
static void test_latency(void **state)
{
    (void)state;
    sax_cluster_t cl;
    make_cluster(&cl, 1024, 1.25e12, 10e-3, 64.0 * 1024);
    sax_candidate_t c = candidate(1, 2);
    expect_limit(&cl, &c, SAX_OP_ALL_REDUCE, 2, 1024, false, 8.0, SAX_LIMIT_LATENCY);
}

/* One domain: all-reduce of 1 GiB over its 8 GPUs. 16 channels; each GPU sends 2 x 7/8 GiB over
 * NVLink at 360 GB/s: 5.2 ms; latency 14 steps x 3 us = 42 us; no NIC, no site. A slice (1 MiB at
 * 360/16 = 22.5 GB/s: 47 us) outlasts NCCL's credit round trip (2 x 3 us), so no window either. */
static void test_scale_up(void **state)
{
    (void)state;
    sax_cluster_t cl;
    make_cluster(&cl, 1024, 0.0, 0.0, 0.0);
    sax_candidate_t c = candidate(8, 1);
    expect_limit(&cl, &c, SAX_OP_ALL_REDUCE, 8, 1, false, GIB, SAX_LIMIT_SCALE_UP);
}

/* 16 GPUs one per domain (stride 8) in one building, all-reduce of 1 GiB, 2 channels, 30 steps.
 * With every group of that shape at once (concurrent), a domain's 8 GPUs all send out of it, so its
 * uplink gives each ring edge 1 GPU's worth: 50 GB/s x 0.9 / oversubscription. Each edge carries
 * 2 x 15/16 GiB:
 *   oversubscription 4: 11.25 GB/s, 179 ms; the NIC at 45 GB/s, 45 ms; latency 30 x 10 us = 0.3 ms.
 * Alone (not concurrent), the domain's uplink serves the one member (8 GPUs' worth, 8 x 45 / 4 = 90
 * GB/s) and the NIC binds: 45 ms against the uplink's 22 ms. */
static void test_oversubscription_and_nic(void **state)
{
    (void)state;
    sax_cluster_t cl;
    make_cluster(&cl, 1024, 0.0, 0.0, 0.0);
    cl.tiers[0].oversubscription = 4.0;
    sax_candidate_t c = candidate(1, 16);
    expect_limit(&cl, &c, SAX_OP_ALL_REDUCE, 16, 8, true, GIB, SAX_LIMIT_OVERSUBSCRIPTION);
    expect_limit(&cl, &c, SAX_OP_ALL_REDUCE, 16, 8, false, GIB, SAX_LIMIT_NIC);
}

/* ---- whole iterations ----------------------------------------------------------------------------- */

static void make_problem(sax_problem_t *p, int site_gpus, double link_bw, double link_lat, double window)
{
    memset(p, 0, sizeof *p);
    /* 8 layers of hidden 4096 at sequence 8192: one TP all-reduce is 8192 x 4096 x 2 B = 64 MiB */
    p->model = (sax_model_desc_t){.name = "small",
                                  .layers = 8,
                                  .hidden = 4096,
                                  .ffn_hidden = 16384,
                                  .heads = 32,
                                  .kv_heads = 32,
                                  .vocab = 32000,
                                  .seq_len = 8192,
                                  .ffn_act = SAX_FFN_GELU};
    sax_training_set_defaults(&p->training);
    p->training.global_batch = 8;
    make_cluster(&p->cluster, site_gpus, link_bw, link_lat, window);
}

static const sax_bottleneck_t *find(const sax_bottleneck_t *b, int n, sax_bn_phase_t phase)
{
    for (int i = 0; i < n; i++)
        if (b[i].phase == phase)
            return &b[i];
    return NULL;
}

/* Entries sorted longest first, each phase once, and the times the breakdown's. */
static void check_against_breakdown(const sax_problem_t *p, const sax_candidate_t *c,
                                    const sax_bottleneck_t *b, int n)
{
    sax_result_t r;
    assert_int_equal(sax_model_eval(p, c, scratch, &r), SAX_OK);
    assert_true(r.feasible);
    for (int i = 0; i < n; i++) {
        assert_true(b[i].exposed_s > 0.0);
        assert_true(i == 0 || b[i - 1].exposed_s >= b[i].exposed_s);
        for (int j = 0; j < i; j++)
            assert_int_not_equal(b[i].phase, b[j].phase);
    }
    const double *bd = r.breakdown_s;
    const sax_bottleneck_t *comp = find(b, n, SAX_BN_COMPUTE), *opt = find(b, n, SAX_BN_OPTIMIZER);
    assert_non_null(comp);
    assert_non_null(opt);
    assert_near(comp->exposed_s + opt->exposed_s, bd[SAX_PHASE_COMPUTE], 1e-9 * bd[SAX_PHASE_COMPUTE]);
    const struct {
        sax_bn_phase_t bn;
        double want;
    } k[] = {{SAX_BN_TP, bd[SAX_PHASE_TP]},
             {SAX_BN_CP, bd[SAX_PHASE_CP]},
             {SAX_BN_EP, bd[SAX_PHASE_EP]},
             {SAX_BN_DP, bd[SAX_PHASE_DP]},
             {SAX_BN_PP, bd[SAX_PHASE_PP] + bd[SAX_PHASE_BUBBLE]}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        const sax_bottleneck_t *x = find(b, n, k[i].bn);
        assert_true(k[i].want > 0.0 ? x != NULL && fabs(x->exposed_s - k[i].want) <= 1e-12 * k[i].want
                                    : x == NULL);
    }
}

/* One node, tp = 8: TP's all-reduce of 64 MiB over NVLink takes 2 x 7/8 x 64 MiB / 360 GB/s = 326 us
 * against 14 x 3 us = 42 us of latency: scale_up. No DP, no pipeline: those phases are left out. The
 * GEMMs (3 x 2 x 8192 tokens x 200 M parameters per GPU per layer pass) outweigh the memory-bound
 * kernels, and the optimizer step (without the step's host synchronisation, test_eval.c's) is Adam's
 * pass over HBM. */
static void test_single_node_job(void **state)
{
    (void)state;
    sax_problem_t p;
    make_problem(&p, 8, 0.0, 0.0, 0.0);
    p.training.step_overhead_s = 0.0;
    sax_candidate_t c = candidate(8, 1);
    sax_bottleneck_t b[SAX_BN_PHASE_COUNT];
    int n = -1;
    assert_int_equal(sax_model_explain(&p, &c, scratch, b, &n), SAX_OK);
    check_against_breakdown(&p, &c, b, n);
    const sax_bottleneck_t *tp = find(b, n, SAX_BN_TP);
    assert_non_null(tp);
    assert_true(tp->has_coll);
    assert_int_equal(tp->limited_by, SAX_LIMIT_SCALE_UP);
    assert_int_equal(tp->coll.op, SAX_OP_ALL_REDUCE);
    assert_near(tp->coll.bytes, 8192.0 * 4096 * 2, 0.0);
    assert_null(find(b, n, SAX_BN_DP));
    assert_null(find(b, n, SAX_BN_PP));
    assert_int_equal(find(b, n, SAX_BN_COMPUTE)->limited_by, SAX_LIMIT_COMPUTE);
    assert_int_equal(find(b, n, SAX_BN_OPTIMIZER)->limited_by, SAX_LIMIT_MEMORY_BANDWIDTH);
}

/* Two sites of 8 GPUs, tp = 8 in each, dp = 2 across the link (10 ms one way, 64 KiB window). ZeRO 1's
 * reduce-scatter of the gradients: about 250 M parameters per GPU x 4 B = 1 GB, half of it over the link
 * each way; at 64 KiB per 20 ms round trip on each of 2 channels (6.55 MB/s) that is about 76 s, against
 * 10 ms of latency and 11 ms at the NIC: window. It dwarfs the compute (under a second), so dp comes
 * first. */
static void test_two_site_dp_window(void **state)
{
    (void)state;
    sax_problem_t p;
    make_problem(&p, 8, 1.25e12, 10e-3, 64.0 * 1024);
    sax_candidate_t c = candidate(8, 2);
    sax_bottleneck_t b[SAX_BN_PHASE_COUNT];
    int n = -1;
    assert_int_equal(sax_model_explain(&p, &c, scratch, b, &n), SAX_OK);
    check_against_breakdown(&p, &c, b, n);
    assert_true(n >= 3);
    assert_int_equal(b[0].phase, SAX_BN_DP);
    assert_int_equal(b[0].limited_by, SAX_LIMIT_WINDOW);
    assert_near(b[0].coll.rtt_s, 20e-3, 1e-12);
    assert_int_equal(b[0].coll.gpus, 2);
    /* its buckets queue: 76 s of reduction against a backward of a fraction of a second */
    assert_int_equal(b[0].stage, 0);
    assert_int_equal(b[0].dp_wait, SAX_DP_WAIT_QUEUE);
}

/* Why DP shows (Megatron-Core's gradient buckets, docs/cost-model.md section 6), by hand on the small
 * model at TP 8: a layer holds (4096 x (4096 + 2 x 4096) + 4096^2 + 2 x 4096 x 16384) / 8 = 25,165,824
 * parameters a GPU plus its two norms, 2 x 4096 (sax splits them over TP too: 25,166,848), the output
 * layer and the embedding 32000 x 4096 / 8 = 16,384,000 each. DP 2 takes buckets of 4e7 parameters
 * (max(4e7, 1e6 dp)): the output layer and one layer fill the first, then two layers each; the eighth
 * layer is left for the embedding's, 41,550,848 of 234,102,784 (17.75 %).
 * - One stage over two nodes of 8 (50 GB/s NICs), micro-batch 4, one micro-batch: the reduce-scatter
 *   of 234,102,784 x 4 B = 0.94 GB, half of it over each GPU's NIC at 45 GB/s (10 ms), behind a backward
 *   of some 100 ms; all but the last bucket hide, and that one reduces after the backward: last_bucket,
 *   17.75 %.
 * - Two stages of two chunks (interleaved, TP 4, 16 GPUs): a later stage reduces each chunk as one
 *   bucket when the chunk's last backward ends; whichever stage ends the iteration, a later one waits on
 *   its one bucket a chunk (half its parameters, its first chunk's), the first on its last bucket or its
 *   queue.
 * - ZeRO 3, whose per-layer gathers and scatters show on a slow NIC: no buckets to name. */
/* The DP phase of `c` on `p`, its phases checked against the breakdown (NULL: no DP time). */
static const sax_bottleneck_t *dp_phase(const sax_problem_t *p, const sax_candidate_t *c,
                                        sax_bottleneck_t b[SAX_BN_PHASE_COUNT])
{
    int n = -1;
    assert_int_equal(sax_model_explain(p, c, scratch, b, &n), SAX_OK);
    check_against_breakdown(p, c, b, n);
    return find(b, n, SAX_BN_DP);
}

static void test_dp_waits(void **state)
{
    (void)state;
    sax_problem_t p;
    make_problem(&p, 16, 0.0, 0.0, 0.0);
    p.cluster.gpu.speed_cv = 0.0;
    p.cluster.sites[0].gpu.speed_cv = 0.0;
    sax_bottleneck_t b[SAX_BN_PHASE_COUNT];
    sax_candidate_t c = candidate(8, 2);
    c.micro_batch = 4;
    const sax_bottleneck_t *dp = dp_phase(&p, &c, b);
    assert_non_null(dp);
    assert_int_equal(dp->stage, 0);
    assert_int_equal(dp->dp_wait, SAX_DP_WAIT_LAST_BUCKET);
    assert_near(dp->last_bucket_share, 41550848.0 / 234102784.0, 1e-12);

    c = candidate(4, 2);
    c.pp = 2;
    c.vpp = 2;
    c.schedule = SAX_SCHEDULE_INTERLEAVED;
    dp = dp_phase(&p, &c, b);
    assert_non_null(dp);
    if (dp->stage > 0) {
        assert_int_equal(dp->dp_wait, SAX_DP_WAIT_ONE_BUCKET);
        assert_near(dp->last_bucket_share, 0.5, 1e-12);
    } else {
        assert_true(dp->dp_wait == SAX_DP_WAIT_LAST_BUCKET || dp->dp_wait == SAX_DP_WAIT_QUEUE);
        assert_true(dp->last_bucket_share > 0.0 && dp->last_bucket_share < 0.5);
    }

    /* ZeRO 3 on a NIC 500 times slower, so that its per-layer traffic shows: no buckets to name */
    c = candidate(8, 2);
    c.zero = 3;
    p.cluster.tiers[0].bw_Bps = 1e8;
    dp = dp_phase(&p, &c, b);
    assert_non_null(dp);
    assert_int_equal(dp->dp_wait, SAX_DP_WAIT_NONE);
}

/* One node, tp = 4 and pp = 2 (8 micro-batches, 1F1B): a boundary's transfer is 8192 x 4096 x 2 B / 4 =
 * 16 MiB over NVLink (47 us), while a stage's events take per layer and micro-batch about 4.8 ms of
 * compute (12 x 4096^2 x 2 x 8192 / 4 = 8.2e11 FLOP forward at about 700 TFLOP/s, 1.2 ms, plus 0.4 ms
 * of attention, three passes) against 4 TP all-reduces of 64 MiB over 4 GPUs (2 x 3/4 x 64 MiB / 360
 * GB/s = 0.28 ms each, 1.1 ms). So the pipeline's idle time is its bubble, the bubble waits on the other
 * stage's compute, and pp is limited by compute. */
static void test_pipeline_bubble_is_compute(void **state)
{
    (void)state;
    sax_problem_t p;
    make_problem(&p, 8, 0.0, 0.0, 0.0);
    sax_candidate_t c = candidate(4, 1);
    c.pp = 2;
    sax_bottleneck_t b[SAX_BN_PHASE_COUNT];
    int n = -1;
    assert_int_equal(sax_model_explain(&p, &c, scratch, b, &n), SAX_OK);
    check_against_breakdown(&p, &c, b, n);
    const sax_bottleneck_t *pp = find(b, n, SAX_BN_PP);
    assert_non_null(pp);
    assert_false(pp->has_coll);
    assert_true(pp->bubble_s > 0.5 * pp->exposed_s);
    assert_int_equal(pp->bubble_of, SAX_BN_COMPUTE);
    assert_int_equal(pp->limited_by, SAX_LIMIT_COMPUTE);
}

/* An infeasible candidate has no phases. */
static void test_infeasible_has_none(void **state)
{
    (void)state;
    sax_problem_t p;
    make_problem(&p, 8, 0.0, 0.0, 0.0);
    sax_candidate_t c = candidate(8, 2); /* 16 GPUs on a cluster of 8 */
    sax_bottleneck_t b[SAX_BN_PHASE_COUNT];
    int n = -1;
    assert_int_equal(sax_model_explain(&p, &c, scratch, b, &n), SAX_OK);
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_link_capacity),
        cmocka_unit_test(test_latency),
        cmocka_unit_test(test_scale_up),
        cmocka_unit_test(test_oversubscription_and_nic),
        cmocka_unit_test(test_single_node_job),
        cmocka_unit_test(test_two_site_dp_window),
        cmocka_unit_test(test_dp_waits),
        cmocka_unit_test(test_pipeline_bubble_is_compute),
        cmocka_unit_test(test_infeasible_has_none),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
