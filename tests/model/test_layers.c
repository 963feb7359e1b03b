/* test_layers.c - uneven pipeline splits (layer_split, Megatron-LM's first/last stage layers): the
 * layers of each stage against Megatron-LM's rules worked by hand, the pipeline of an uneven split
 * worked event by event, and the memory of the fullest stage by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fixture.h"
#include "model_internal.h"

#include <math.h>

static void near(double got, double want)
{
    if (fabs(got - want) > 1e-9 * fmax(1.0, fabs(want)))
        fail_msg("got %.12g, expected %.12g", got, want);
}

static sax_candidate_t split(int pp, int vpp, sax_layer_split_t how, int first, int last)
{
    return (sax_candidate_t){
        .pp = pp, .vpp = vpp, .layer_split = how, .first_stage_layers = first, .last_stage_layers = last};
}

/* Each stage's layers, or a failure when the split is refused. */
static void expect_layers(int total, sax_candidate_t c, const int *want)
{
    assert_true(sax_layer_split_valid(total, &c));
    int got[SAX_SIM_MAX_STAGES];
    sax_layer_split_stages(total, &c, NULL, got);
    for (int s = 0; s < c.pp; s++)
        if (got[s] != want[s])
            fail_msg("stage %d: %d layers, expected %d", s, got[s], want[s]);
}

/* Megatron-LM (transformer_block.py get_num_layers_to_build): the first and the last stage hold what
 * is set, the rest is split evenly over the other stages. By hand:
 *   10 layers, 4 stages, first 1, last 3: (10 - 1 - 3) / 2 = 3 on each middle stage: 1 3 3 3;
 *   10 layers, 2 stages, first 4 only: the last stage is the one "middle" stage: 4 6;
 *   10 layers, 3 stages, last 2 only: (10 - 2) / 2 = 4: 4 4 2;
 *   12 layers, 4 stages x 2 chunks, first 2, last 4: (12 - 6) / 2 = 3, not a multiple of 2: refused;
 *   14 layers, 4 stages x 2 chunks, first 2, last 4: (14 - 6) / 2 = 4, a multiple of 2: 2 4 4 4.
 * embedding-loss (--account-for-embedding-in-pipeline-split, --account-for-loss-in-pipeline-split):
 *   70 layers, 12 stages: (70 + 2) / 12 = 6, the first and the last one fewer: 5, 6 x 10, 5 (BLOOM's
 *   split); 126 layers, 8 stages x 8 chunks: 128 / 8 = 16 a stage, 16 / 8 = 2 a chunk: 15, 16 x 6, 15. */
static void test_megatron_stage_layers(void **state)
{
    (void)state;
    expect_layers(10, split(4, 1, SAX_LAYER_SPLIT_UNIFORM, 1, 3), (const int[]){1, 3, 3, 3});
    expect_layers(10, split(2, 1, SAX_LAYER_SPLIT_UNIFORM, 4, 0), (const int[]){4, 6});
    expect_layers(10, split(3, 1, SAX_LAYER_SPLIT_UNIFORM, 0, 2), (const int[]){4, 4, 2});
    expect_layers(14, split(4, 2, SAX_LAYER_SPLIT_UNIFORM, 2, 4), (const int[]){2, 4, 4, 4});
    expect_layers(70, split(12, 1, SAX_LAYER_SPLIT_EMBEDDING_LOSS, 0, 0),
                  (const int[]){5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 5});
    expect_layers(126, split(8, 8, SAX_LAYER_SPLIT_EMBEDDING_LOSS, 0, 0),
                  (const int[]){15, 16, 16, 16, 16, 16, 16, 15});
    expect_layers(12, split(4, 1, SAX_LAYER_SPLIT_UNIFORM, 0, 0), (const int[]){3, 3, 3, 3});
    /* layers the stages do not divide, as DeepSpeed's partition_uniform hands them out: the first
     * total mod (pp x vpp) virtual stages one more. BLOOM's 70 layers on 12 stages: 10 of 6, 2 of 5;
     * 10 over 4 x 2 virtual stages (chunk k / 4 of stage k mod 4): virtual stages 0 and 1 take 2, the
     * other six 1, so stages 0 and 1 hold 3 and stages 2 and 3 hold 2. */
    expect_layers(70, split(12, 1, SAX_LAYER_SPLIT_UNIFORM, 0, 0),
                  (const int[]){6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 5, 5});
    expect_layers(10, split(4, 2, SAX_LAYER_SPLIT_UNIFORM, 0, 0), (const int[]){3, 3, 2, 2});
    expect_layers(61, split(16, 1, SAX_LAYER_SPLIT_UNIFORM, 0, 0),
                  (const int[]){4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3});
}

/* What Megatron-LM's transformer_config.py refuses, and what sax adds (first/last only with uniform). */
static void test_refused_splits(void **state)
{
    (void)state;
    const struct {
        int total;
        sax_candidate_t c;
    } refused[] = {
        {10, split(4, 1, SAX_LAYER_SPLIT_UNIFORM, 6, 6)},  /* first + last > layers */
        {10, split(4, 1, SAX_LAYER_SPLIT_UNIFORM, 1, 2)},  /* 7 middle layers over 2 stages */
        {10, split(3, 1, SAX_LAYER_SPLIT_UNIFORM, 5, 5)},  /* a middle stage with no layers */
        {10, split(2, 1, SAX_LAYER_SPLIT_UNIFORM, 4, 4)},  /* no middle stage, 2 layers left */
        {10, split(1, 1, SAX_LAYER_SPLIT_UNIFORM, 10, 0)}, /* one stage is first and last */
        {12, split(4, 2, SAX_LAYER_SPLIT_UNIFORM, 2, 4)},  /* 3 a middle stage, not a multiple of vpp */
        {12, split(4, 2, SAX_LAYER_SPLIT_UNIFORM, 3, 3)},  /* first not a multiple of vpp */
        {10, split(4, 1, SAX_LAYER_SPLIT_BALANCED, 1, 3)}, /* first/last with balanced */
        {3, split(4, 1, SAX_LAYER_SPLIT_UNIFORM, 0, 0)},   /* fewer layers than stages */
        {7, split(4, 2, SAX_LAYER_SPLIT_UNIFORM, 0, 0)},   /* fewer layers than virtual stages */
        {71, split(12, 1, SAX_LAYER_SPLIT_EMBEDDING_LOSS, 0, 0)}, /* 73 / 12 */
        {126, split(8, 3, SAX_LAYER_SPLIT_EMBEDDING_LOSS, 0, 0)}, /* 16 a stage, not a multiple of 3 */
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (sax_layer_split_valid(refused[i].total, &refused[i].c))
            fail_msg("split %zu accepted", i);
    assert_true(sax_layer_split_valid(
        10, &(sax_candidate_t){.pp = 2, .vpp = 1, .first_stage_layers = 4, .last_stage_layers = 6}));
}

/* The simulator times each stage with its own layers. 1F1B, 4 stages holding 1 3 3 3 layers, a layer
 * taking F = 1 and B = 2, free transfers, m = 2 micro-batches; each stage's order (warm-up of
 * min(p - s - 1, m) forwards): stage 0 and 1 F0 F1 B0 B1, stage 2 F0 F1 B0 B1, stage 3 F0 B0 F1 B1.
 *   stage 0: F0 [0,1]   F1 [1,2]
 *   stage 1: F0 [1,4]   F1 [4,7]
 *   stage 2: F0 [4,7]   F1 [7,10]
 *   stage 3: F0 [7,10]  B0 [10,16]  F1 [16,19]  B1 [19,25]
 *   stage 2: B0 [16,22] B1 [25,31]
 *   stage 1: B0 [22,28] B1 [31,37]
 *   stage 0: B0 [28,30] B1 [37,39]          makespan 39
 * (3 layers a stage everywhere would take (m + p - 1)(F + B) = 5 x 9 = 45.) */
static void test_uneven_pipeline_by_hand(void **state)
{
    (void)state;
    static sax_pipeline_t pl;
    pl.schedule = SAX_SCHEDULE_1F1B;
    pl.stages = 4;
    pl.chunks = 1;
    pl.micro = 2;
    const int layers[4] = {1, 3, 3, 3};
    for (int s = 0; s < 4; s++) {
        pl.f_s[s] = layers[s] * 1.0;
        pl.b_s[s] = layers[s] * 2.0;
        pl.w_s[s] = pl.link_s[s] = pl.link_busy_s[s] = 0.0;
    }
    sax_pipeline_result_t r;
    assert_true(sax_pipeline_simulate(&pl, scratch, &r, NULL, 0) > 0);
    near(r.makespan_s, 39.0);
    near(r.finish_s[3], 25.0);
    near(r.finish_s[2], 31.0);
    near(r.busy_s[0], 6.0);
    double makespan, finish[SAX_SIM_MAX_STAGES]; /* unequal stages: the evaluation simulates */
    assert_true(sax_pipeline_time(&pl, scratch, &makespan, finish));
    near(makespan, 39.0);
}

/* embedding-loss under interleaving: the first chunk of the first stage and the last chunk of the last
 * are a layer short. 6 layers, p = 2 stages x v = 2 chunks: (6 + 2) / 2 = 4 a stage, 2 a chunk; virtual
 * stages vs = chunk p + s hold 1 2 2 1 layers; a layer F = 1, B = 2, free transfers, m = 2.
 * Megatron's interleaved order (forward op k: chunk (k / p) % v of micro-batch k % p; backward chunks
 * reversed; warm-up (p - s - 1) 2 + (v - 1) p): stage 0 runs its 4 forwards, then B(c1,0) B(c1,1)
 * B(c0,0) B(c0,1); stage 1 F(c0,0) F(c0,1) F(c1,0) B(c1,0) F(c1,1) B(c1,1) B(c0,0) B(c0,1).
 *   stage 0: F(c0,0) [0,1]  F(c0,1) [1,2]     (vs 0: 1 layer)
 *   stage 1: F(c0,0) [1,3]  F(c0,1) [3,5]     (vs 1: 2 layers)
 *   stage 0: F(c1,0) [3,5]  F(c1,1) [5,7]     (vs 2: 2 layers)
 *   stage 1: F(c1,0) [5,6]  B(c1,0) [6,8]  F(c1,1) [8,9]  B(c1,1) [9,11]   (vs 3: 1 layer)
 *   stage 0: B(c1,0) [8,12] B(c1,1) [12,16]
 *   stage 1: B(c0,0) [12,16] B(c0,1) [16,20]
 *   stage 0: B(c0,0) [16,18] B(c0,1) [20,22]                               makespan 22
 * Timing every chunk as its stage's average (1.5 layers: F 1.5, B 3) gives 22.5 instead. */
static void test_short_end_chunks_by_hand(void **state)
{
    (void)state;
    static sax_pipeline_t pl;
    pl.schedule = SAX_SCHEDULE_INTERLEAVED;
    pl.stages = 2;
    pl.chunks = 2;
    pl.micro = 2;
    for (int s = 0; s < 2; s++) {
        pl.f_s[s] = 2.0;
        pl.b_s[s] = 4.0;
        pl.w_s[s] = pl.link_s[s] = pl.link_busy_s[s] = 0.0;
    }
    pl.ends_differ = true;
    pl.head_s[0] = pl.tail_s[0] = 1.0;
    pl.head_s[1] = pl.tail_s[1] = 2.0;
    pl.head_s[2] = pl.tail_s[2] = 0.0;
    sax_pipeline_result_t r;
    assert_true(sax_pipeline_simulate(&pl, scratch, &r, NULL, 0) > 0);
    near(r.makespan_s, 22.0);
    near(r.finish_s[1], 20.0);
    near(r.busy_s[0], 2.0 * 3.0 * (1.0 + 2.0)); /* 2 micro-batches x 3 layers x (F + B) */
    double makespan, finish[SAX_SIM_MAX_STAGES];
    assert_true(sax_pipeline_time(&pl, scratch, &makespan, finish));
    near(makespan, 22.0);
    pl.ends_differ = false;
    pl.f_s[0] = pl.f_s[1] = 1.5;
    pl.b_s[0] = pl.b_s[1] = 3.0;
    assert_true(sax_pipeline_simulate(&pl, scratch, &r, NULL, 0) > 0);
    near(r.makespan_s, 22.5);
}

/* A small dense model: h = 1024, 16 heads of 64 (as many KV heads), FFN 4096 GeLU, vocabulary 1024.
 * Parameters of a layer (docs/cost-model.md section 1): attention h(a d + 2 g d) + a d h = 4 h^2 =
 * 4,194,304, two norms 2h = 2,048, FFN 2 h f = 8,388,608: 12,584,960; embedding v h = 1,048,576. */
static void small_problem(sax_problem_t *p, int layers)
{
    memset(p, 0, sizeof *p);
    p->model = (sax_model_desc_t){.name = "small",
                                  .layers = layers,
                                  .hidden = 1024,
                                  .ffn_hidden = 4096,
                                  .heads = 16,
                                  .kv_heads = 16,
                                  .vocab = 1024,
                                  .seq_len = 128,
                                  .ffn_act = SAX_FFN_GELU};
    sax_training_set_defaults(&p->training);
    p->training.global_batch = 8;
    fixture_h100_cluster(&p->cluster, 1, 64, 0.0, 0.0);
}

static sax_candidate_t small_candidate(int pp, int first, int last)
{
    return (sax_candidate_t){.tp = 1,
                             .pp = pp,
                             .dp = 1,
                             .cp = 1,
                             .ep = 1,
                             .vpp = 1,
                             .micro_batch = 1,
                             .schedule = SAX_SCHEDULE_1F1B,
                             .recompute = SAX_RECOMPUTE_FULL,
                             .zero = 0,
                             .n_order = 4,
                             .order = {SAX_DIM_TP, SAX_DIM_CP, SAX_DIM_PP, SAX_DIM_DP},
                             .first_stage_layers = first,
                             .last_stage_layers = last,
                             .connections = 1,
                             .transport = SAX_TRANSPORT_ROCE,
                             .algorithm = SAX_ALGORITHM_RING};
}

/* The evaluation hands the simulator each stage's own layers: 10 layers on 4 stages, first 1, last 3.
 * Stage 0 holds one layer (the embedding adds no time), stages 1 and 2 three of the same: their
 * forward and backward are 3x stage 0's; the last adds the output layer and loss to its three.
 * The split out of Megatron's range is infeasible for divisibility (first + last > layers). */
static void test_eval_times_each_stage(void **state)
{
    (void)state;
    static sax_problem_t p;
    small_problem(&p, 10);
    sax_candidate_t c = small_candidate(4, 1, 3);
    static sax_pipeline_t pl;
    sax_result_t r;
    assert_int_equal(sax_model_eval_pipeline(&p, &c, scratch, &r, &pl), SAX_OK);
    assert_true(r.feasible);
    near(pl.f_s[1], 3.0 * pl.f_s[0]);
    near(pl.f_s[2], 3.0 * pl.f_s[0]);
    near(pl.b_s[1], 3.0 * pl.b_s[0]);
    assert_true(pl.f_s[3] > pl.f_s[2]);
    int layers[SAX_SIM_MAX_STAGES];
    assert_int_equal(sax_model_stage_layers(&p, &c, layers), SAX_OK);
    assert_int_equal(layers[0] + 10 * layers[1] + 100 * layers[2] + 1000 * layers[3], 3331);
    c.first_stage_layers = 6;
    c.last_stage_layers = 6;
    r = fixture_eval(&p, &c);
    assert_false(r.feasible);
    assert_int_equal(r.reason, SAX_INFEASIBLE_DIVISIBILITY);
    assert_int_equal(sax_model_stage_layers(&p, &c, layers), SAX_ERR_INPUT);
}

/* The evaluation hands the simulator the short end chunks: 6 layers, 2 stages x 2 chunks, embedding-loss:
 * stage 0 holds 3 layers, its first chunk 1 and its second 2, so the first chunk's forward and backward
 * are half the other's; the last stage's short chunk is a layer short plus the same share of the output
 * layer as the other chunk. */
static void test_eval_short_end_chunks(void **state)
{
    (void)state;
    static sax_problem_t p;
    small_problem(&p, 6);
    sax_candidate_t c = small_candidate(2, 0, 0);
    c.layer_split = SAX_LAYER_SPLIT_EMBEDDING_LOSS;
    c.schedule = SAX_SCHEDULE_INTERLEAVED;
    c.vpp = 2;
    static sax_pipeline_t pl;
    sax_result_t r;
    assert_int_equal(sax_model_eval_pipeline(&p, &c, scratch, &r, &pl), SAX_OK);
    assert_true(r.feasible);
    assert_true(pl.ends_differ);
    near(2.0 * pl.head_s[0], pl.f_s[0]);
    near(2.0 * pl.head_s[1], pl.b_s[0]);
    near(pl.f_s[1] - pl.tail_s[0], pl.head_s[0]); /* one layer, the same on both stages */
}

/* Memory counts each stage's layers: 12 layers on 2 stages, first 8 (the last then 4). The fullest
 * stage is the first: 8 layers and the embedding against 4 layers and the output layer, with full
 * recomputation keeping a few MB of activations. Its bf16 weights, by hand:
 * (8 x 12,584,960 + 1,048,576) x 2 B = 203,456,512 B; with first 4 (the last 8) the last stage is the
 * fullest and holds the same: 8 layers and the (untied) output layer of v h parameters. */
static void test_memory_counts_stage_layers(void **state)
{
    (void)state;
    static sax_problem_t p;
    small_problem(&p, 12);
    sax_candidate_t c = small_candidate(2, 8, 0);
    sax_result_t r = fixture_eval(&p, &c);
    assert_true(r.feasible);
    near(r.mem_weights_bytes, 203456512.0);
    c.first_stage_layers = 4;
    r = fixture_eval(&p, &c);
    near(r.mem_weights_bytes, 203456512.0);
    c.first_stage_layers = 6; /* 6 and 6: the first stage holds (6 x 12,584,960 + 1,048,576) x 2 B */
    r = fixture_eval(&p, &c);
    near(r.mem_weights_bytes, 153116672.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_megatron_stage_layers),      cmocka_unit_test(test_refused_splits),
        cmocka_unit_test(test_uneven_pipeline_by_hand),    cmocka_unit_test(test_eval_times_each_stage),
        cmocka_unit_test(test_memory_counts_stage_layers), cmocka_unit_test(test_short_end_chunks_by_hand),
        cmocka_unit_test(test_eval_short_end_chunks),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
