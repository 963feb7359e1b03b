/* test_memory.c - the memory terms of one GPU against values derived by hand from Megatron-LM's
 * own estimator (megatron/training/theoretical_memory_usage.py) and Korthikanti et al. 2022
 * (arXiv 2205.05198, Table 2), for the Nemotron-4 340B run of issue 13 that ran on 80 GB H100s:
 * NeMo 24.07, 128 GPUs, TP 8, PP 8, DP 2, VP 12, micro-batch 1, global batch 32, sequence 4096,
 * FP8, sequence parallel, distributed optimizer (tests/data/validation/public-runs.json).
 *
 * Model: l = 96, h = 18432, a = 96 heads, g = 8 KV groups, f = 73728 (two FFN matrices),
 * V = 256000 untied. Stage 0 (the fullest: the embedding and the most in-flight micro-batches)
 * holds 12 layers and the embedding. Megatron's tp-sharded parameter count of the most loaded
 * shard, per GPU:
 *   attention 2h^2 (1 + g/a) = 736,100,352; MLP 2hf = 2,717,908,992; one layer 3,454,009,344;
 *   (12 x 3,454,009,344 + V h = 4,718,592,000) / 8 = P0 = 5,770,838,016 parameters.
 * (Megatron adds the norms replicated, 4h a layer; sax counts 2h a layer split by TP: 0.001 %.)
 *
 * Weights and optimizer (Megatron: 6 + 12/d bytes a parameter with the distributed optimizer,
 * i.e. 2 B bf16 weights + 4 B fp32 main gradients + 12 B fp32 master and moments over d = DP):
 *   weights 2 P0 = 11,541,676,032; optimizer 12/2 P0 = 34,625,028,096;
 *   gradients 4 P0 = 23,083,352,064 in fp32 (Megatron's default, its estimator's assumption), or
 *   2 P0 = 11,541,676,032 with --grad-reduce-in-bf16, as NVIDIA's performance recipes run.
 *
 * Activations with sequence parallelism and flash attention, per token and layer before /TP
 * (Korthikanti Table 2 without the 5as score term; Megatron's estimator: (18 + 4f/h) h = 34h):
 *   attention 11h with K and V shrunk by GQA to (7 + 4g/a)h = 7.3333h, norms 4h, MLP 3h + 4f = 19h:
 *   30.3333h (Megatron's 34h ignores GQA, its TODO). Both count a 1-byte dropout mask after attention
 *   and after the MLP; the run has no dropout (NeMo's NemotronConfig sets hidden_dropout and
 *   attention_dropout 0.0), so 2h less: 28.3333h = 522,240 B.
 *   FP8 (Transformer Engine keeps each linear layer's FP8 input for the weight gradient): the QKV,
 *   projection and FC1 inputs lose h each and the FC2 input f: 522,240 - 3h - f = 393,216 B.
 * Per micro-batch on stage 0: 4096 tokens x 12 layers x bytes / 8 (no embedding dropout mask either):
 *   FP8: 4096 x 12 x 393,216 / 8 = 2,415,919,104
 *   BF16: 4096 x 12 x 522,240 / 8 = 3,208,642,560
 * In flight on stage 0: interleaved, (p - 1) 2 + (v - 1) p + 1 = 14 + 88 + 1 = 103 chunks of 12
 * = 8.58333 stage units, which is Megatron's p (1 + (p - 1)/(p v)) = 8 x 1.0729167; 1F1B: p = 8.
 * The last stage (7) holds the output layer (as many parameters as the embedding), its layers'
 * activations over (v - 1) p + 1 = 89 chunks = 7.41667 stage units, and the fp32 logits, 4096 x V / 8
 * x 4 B = 524,288,000, of one micro-batch: the one in its last chunk, whose loss backward follows its
 * forward (memory.c). Megatron's estimator looks at the first stage only; stage 0 is the fuller:
 *   FP8: stage 0's 2,415,919,104 x 8.58333 = 20,736,638,976 against the last stage's
 *   2,415,919,104 x 7.41667 + 524,288,000 = 18,442,354,688;
 *   BF16: stage 0's 3,208,642,560 x 8.58333 = 27,540,848,640, already above what is left of 80 GiB,
 *   against the last stage's 3,208,642,560 x 7.41667 + 524,288,000 = 24,321,720,320; the fullest GPU
 *   (the one furthest over its HBM) is the one reported.
 * Reserved 3 GiB (sax's default, docs/cost-model.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sax_config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double P0 = 5770838016.0, GIB = 1073741824.0;

static void close_to(double got, double want, const char *what)
{
    if (fabs(got - want) > 1e-4 * want)
        fail_msg("%s: sax %.0f, by hand %.0f (%.4f %%)", what, got, want, 100.0 * (got - want) / want);
}

/* Loads public-runs.json into *cases and returns the index of the case `name`. */
static int public_case(sax_case_t **cases, int *n, const char *name)
{
    sax_error_t err = {{0}};
    assert_int_equal(sax_dataset_load(SAX_TEST_DATA "/validation/public-runs.json", cases, n, &err), SAX_OK);
    int i = 0;
    while (i < *n && strcmp((*cases)[i].name, name) != 0)
        i++;
    assert_true(i < *n);
    return i;
}

static void eval_scratch(const sax_problem_t *pb, const sax_candidate_t *c, sax_result_t *r)
{
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    assert_non_null(scratch);
    sax_scratch_init(scratch);
    assert_int_equal(sax_model_eval(pb, c, scratch, r), SAX_OK);
    free(scratch);
}

static void eval_case(const char *name, sax_precision_t prec, sax_grad_dtype_t grads, int vpp,
                      sax_result_t *r)
{
    sax_case_t *cases = NULL;
    int n = 0, i = public_case(&cases, &n, name);
    sax_problem_t pb = cases[i].config.problem;
    sax_candidate_t c = cases[i].config.candidate;
    pb.training.precision = prec;
    pb.training.grad_reduce_dtype = grads;
    if (vpp == 1) {
        c.vpp = 1;
        c.schedule = SAX_SCHEDULE_1F1B;
    }
    eval_scratch(&pb, &c, r);
    sax_dataset_free(cases, n);
}

/* The run as it ran: FP8, bf16 gradients, interleaved. 76.1 GiB on stage 0: it fits in 80 GiB. */
static void test_340b_as_run(void **state)
{
    (void)state;
    sax_result_t r;
    eval_case("nemo2407-nemotron4-340b-128", SAX_PRECISION_FP8, SAX_GRAD_DTYPE_BF16, 12, &r);
    assert_true(r.feasible);
    close_to(r.mem_weights_bytes, 2.0 * P0, "weights");
    close_to(r.mem_grads_bytes, 2.0 * P0, "gradients (bf16)");
    close_to(r.mem_optimizer_bytes, 6.0 * P0, "optimizer (12/d, d = 2)");
    close_to(r.mem_activations_bytes, 2415919104.0 * 103.0 / 12.0, "activations (fp8, interleaved, stage 0)");
    double total = 10.0 * P0 + 2415919104.0 * 103.0 / 12.0 + 3.0 * GIB; /* 81,666,244,608 B */
    close_to(r.memory_per_gpu_bytes, total, "total");
    assert_true(total < 80.0 * GIB);
}

/* The same run in fp16 with fp16 gradients (Megatron-LM's default under --fp16): fp16 weights and
 * gradients of 2 B, the optimizer's 12 B over d = 2, and activations of 2 B an element, bf16's. */
static void test_340b_fp16(void **state)
{
    (void)state;
    sax_result_t r;
    eval_case("nemo2407-nemotron4-340b-128", SAX_PRECISION_FP16, SAX_GRAD_DTYPE_FP16, 12, &r);
    close_to(r.mem_weights_bytes, 2.0 * P0, "weights (fp16)");
    close_to(r.mem_grads_bytes, 2.0 * P0, "gradients (fp16)");
    close_to(r.mem_optimizer_bytes, 6.0 * P0, "optimizer (12/d, d = 2)");
    close_to(r.mem_activations_bytes, 3208642560.0 * 103.0 / 12.0,
             "activations (fp16, interleaved, stage 0)");
}

/* Megatron's estimator's own assumptions: BF16 GEMMs, fp32 main gradients. Its formula gives
 * 12 P0 + 34h activations = 64.5 + 30.9 GiB: above 80 GiB, and so does sax (GQA aside). */
static void test_340b_bf16_fp32_grads(void **state)
{
    (void)state;
    sax_result_t r;
    eval_case("nemo2407-nemotron4-340b-128", SAX_PRECISION_BF16, SAX_GRAD_DTYPE_FP32, 12, &r);
    assert_false(r.feasible);
    assert_int_equal(r.reason, SAX_INFEASIBLE_MEMORY);
    close_to(r.mem_grads_bytes, 4.0 * P0, "gradients (fp32)");
    /* every stage is over; stage 0 (the most chunks in flight) is the fullest and is reported */
    close_to(r.mem_activations_bytes, 3208642560.0 * 103.0 / 12.0,
             "activations (bf16, interleaved, stage 0)");
    close_to(r.memory_per_gpu_bytes, 12.0 * P0 + 3208642560.0 * 103.0 / 12.0 + 3.0 * GIB, "total");
}

/* What makes the 340B run with fp32 main gradients fit (sax_model_memory_fits). As run (FP8), its
 * stage 0 holds 12 P0 + 20,736,638,976 + 3 GiB = 93,207,920,640 B = 86.8 GiB of 80. Four settings
 * each take 2 P0 = 11,541,676,032 B off it, to test_340b_as_run's 81,666,244,608 B = 76.06 GiB, which
 * fits: bf16 gradients (4 -> 2 B a parameter), bf16 Adam moments (12 -> 8 B over d = 2), no fp32
 * master (12 -> 8 B over d = 2) and ZeRO 2 (the 4 B gradients sharded over d = 2). Full recomputation
 * fits too (one layer's input kept a layer). Not offered: micro-batch (already 1), dropout (already
 * off), offloading (PP 8). */
static void test_what_fits(void **state)
{
    (void)state;
    sax_case_t *cases = NULL;
    int n = 0, i = public_case(&cases, &n, "nemo2407-nemotron4-340b-128");
    sax_problem_t pb = cases[i].config.problem;
    pb.training.grad_reduce_dtype = SAX_GRAD_DTYPE_FP32;
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    assert_non_null(scratch);
    sax_scratch_init(scratch);
    sax_memory_fit_t fits[SAX_LEVER_COUNT];
    int n_fits = -1;
    assert_int_equal(sax_model_memory_fits(&pb, &cases[i].config.candidate, scratch, fits, &n_fits), SAX_OK);
    const double as_run = 10.0 * P0 + 2415919104.0 * 103.0 / 12.0 + 3.0 * GIB;
    static const struct {
        sax_lever_t lever;
        const char *value;
    } halving[] = {{SAX_LEVER_GRADS, "\"bf16\""},
                   {SAX_LEVER_MOMENTS, "\"bf16\""},
                   {SAX_LEVER_MASTER, "false"},
                   {SAX_LEVER_ZERO, "2"}};
    bool seen[SAX_LEVER_COUNT] = {false};
    for (int k = 0; k < n_fits; k++) {
        seen[fits[k].lever] = true;
        assert_true(fits[k].memory_per_gpu_bytes <= 80.0 * GIB);
        if (k > 0)
            assert_true(fits[k].iteration_time_s >= fits[k - 1].iteration_time_s);
        for (size_t j = 0; j < sizeof halving / sizeof halving[0]; j++)
            if (fits[k].lever == halving[j].lever) {
                assert_string_equal(fits[k].value, halving[j].value);
                close_to(fits[k].memory_per_gpu_bytes, as_run, sax_lever_keys[fits[k].lever]);
            }
        if (fits[k].lever == SAX_LEVER_RECOMPUTE)
            assert_string_equal(fits[k].value, "\"full\"");
    }
    for (size_t j = 0; j < sizeof halving / sizeof halving[0]; j++)
        assert_true(seen[halving[j].lever]);
    assert_true(seen[SAX_LEVER_RECOMPUTE]);
    assert_false(seen[SAX_LEVER_MICRO_BATCH] || seen[SAX_LEVER_DROPOUT] || seen[SAX_LEVER_OFFLOAD]);
    assert_int_equal(n_fits, 5);

    /* a configuration that fits is offered nothing */
    assert_int_equal(
        sax_model_memory_fits(&cases[i].config.problem, &cases[i].config.candidate, scratch, fits, &n_fits),
        SAX_OK);
    assert_int_equal(n_fits, 0);
    free(scratch);
    sax_dataset_free(cases, n);
}

/* What `sax validate` assumes of a measured run its description leaves open (sax_model_memory_assume),
 * on the 340B run with fp32 main gradients. In FP8 (86.8 GiB, test_what_fits) one halving of 2 P0 fits:
 * with only the gradients' dtype open it is bf16, at test_340b_as_run's 76.06 GiB. In BF16 its stage 0
 * holds 12 P0 + 27,540,848,640 + 3 GiB = 93.14 GiB (test_340b_bf16_fp32_grads): one halving leaves
 * 10 P0 + 27,540,848,640 + 3 GiB = 88,470,454,272 B = 82.4 GiB, over 80, so with the optimizer's and
 * the gradients' dtypes open two of the three halvings are assumed, to 8 P0 + ... = 76,928,778,240 B
 * = 71.6 GiB. With every setting open, one change fits (recomputation): the fewest
 * changes win, and among single changes the fastest, the first that sax_model_memory_fits lists. */
static void test_what_validate_assumes(void **state)
{
    (void)state;
    sax_case_t *cases = NULL;
    int n = 0, i = public_case(&cases, &n, "nemo2407-nemotron4-340b-128");
    sax_problem_t pb = cases[i].config.problem;
    const sax_candidate_t *c = &cases[i].config.candidate;
    pb.training.grad_reduce_dtype = SAX_GRAD_DTYPE_FP32;
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    assert_non_null(scratch);
    sax_scratch_init(scratch);
    const unsigned grads = 1u << SAX_LEVER_GRADS,
                   optimizer = grads | 1u << SAX_LEVER_MOMENTS | 1u << SAX_LEVER_MASTER;
    sax_memory_assumption_t a;
    bool found = false;

    assert_int_equal(sax_model_memory_assume(&pb, c, grads, scratch, &a, &found), SAX_OK);
    assert_true(found);
    assert_int_equal(a.n, 1);
    assert_int_equal(a.lever[0], SAX_LEVER_GRADS);
    assert_string_equal(a.value[0], "\"bf16\"");
    close_to(a.memory_per_gpu_bytes, 10.0 * P0 + 2415919104.0 * 103.0 / 12.0 + 3.0 * GIB,
             "fp8, bf16 gradients");
    char text[256];
    sax_model_memory_assumption_text(&a, false, text, sizeof text);
    assert_string_equal(text, "training.grad_reduce_dtype = \"bf16\"");
    sax_model_memory_assumption_text(&a, true, text, sizeof text);
    assert_string_equal(text, "\"training.grad_reduce_dtype\": \"bf16\"");
    assert_int_equal(sax_model_memory_assume(&pb, c, 0, scratch, &a, &found), SAX_OK);
    assert_false(found); /* nothing open */

    pb.training.precision = SAX_PRECISION_BF16;
    assert_int_equal(sax_model_memory_assume(&pb, c, grads, scratch, &a, &found), SAX_OK);
    assert_false(found); /* 82.4 GiB */
    assert_int_equal(sax_model_memory_assume(&pb, c, optimizer, scratch, &a, &found), SAX_OK);
    assert_true(found);
    assert_int_equal(a.n, 2);
    assert_true(a.lever[0] != a.lever[1]);
    for (int j = 0; j < 2; j++)
        assert_true(optimizer & (1u << a.lever[j]));
    close_to(a.memory_per_gpu_bytes, 8.0 * P0 + 3208642560.0 * 103.0 / 12.0 + 3.0 * GIB,
             "bf16, two halvings");
    /* written into the configuration (as sax calibrate does), the two settings give that memory */
    sax_problem_t pa = pb;
    sax_candidate_t ca = *c;
    sax_model_memory_assumption_apply(&a, &pa, &ca);
    sax_result_t r;
    assert_int_equal(sax_model_eval(&pa, &ca, scratch, &r), SAX_OK);
    assert_true(r.feasible);
    close_to(r.memory_per_gpu_bytes, 8.0 * P0 + 3208642560.0 * 103.0 / 12.0 + 3.0 * GIB, "applied");
    assert_true(r.iteration_time_s == a.iteration_time_s);

    sax_memory_fit_t fits[SAX_LEVER_COUNT];
    int n_fits = 0;
    assert_int_equal(sax_model_memory_fits(&pb, c, scratch, fits, &n_fits), SAX_OK);
    assert_true(n_fits > 0);
    assert_int_equal(sax_model_memory_assume(&pb, c, (1u << SAX_LEVER_COUNT) - 1, scratch, &a, &found),
                     SAX_OK);
    assert_true(found);
    assert_int_equal(a.n, 1);
    assert_int_equal(a.lever[0], fits[0].lever);
    assert_string_equal(a.value[0], fits[0].value);
    assert_true(a.iteration_time_s == fits[0].iteration_time_s);

    /* Stated selective recomputation (the attention core: nothing under flash attention) with its modules
     * and the gradients' dtype open. The norms recomputed drop their 4h-byte outputs: 28.3333h -> 24.3333h
     * = 448,512 B a token and layer, 4096 x 12 x 448,512 / 8 = 2,755,657,728 a micro-batch on stage 0
     * (the last: x 89/12 + 524,288,000 of logits, 20,962,083,149 B, less). Alone that leaves 12 P0 +
     * 2,755,657,728 x 103/12 + 3 GiB = 89.5 GiB and bf16 gradients alone 82.4 GiB: both are assumed, to
     * 10 P0 + ... = 84,582,334,464 B = 78.8 GiB. */
    sax_candidate_t cs = *c;
    cs.recompute = SAX_RECOMPUTE_SELECTIVE;
    const unsigned modules = grads | 1u << SAX_LEVER_RECOMPUTE_MODULES;
    assert_int_equal(sax_model_memory_assume(&pb, &cs, modules, scratch, &a, &found), SAX_OK);
    assert_true(found);
    assert_int_equal(a.n, 2);
    assert_int_equal(a.lever[0], SAX_LEVER_GRADS);
    assert_int_equal(a.lever[1], SAX_LEVER_RECOMPUTE_MODULES);
    assert_string_equal(a.value[1], "[\"core_attn\", \"layernorm\"]");
    close_to(a.memory_per_gpu_bytes, 10.0 * P0 + 2755657728.0 * 103.0 / 12.0 + 3.0 * GIB,
             "bf16, norms recomputed");

    /* a configuration that fits assumes nothing */
    assert_int_equal(sax_model_memory_assume(&cases[i].config.problem, c, (1u << SAX_LEVER_COUNT) - 1,
                                             scratch, &a, &found),
                     SAX_OK);
    assert_false(found);
    free(scratch);
    sax_dataset_free(cases, n);
}

/* GPUs of two sizes: which GPU the refusal reports. The bf16, fp32-gradient 340B run split over two
 * sites, stage 0 on 16 GPUs like H100s but of 100 GiB and stages 1-7 on 112 H100s of 80 GiB. Stage 0 is
 * the fullest (test_340b_bf16_fp32_grads: 12 P0 + 3,208,642,560 x 103/12 + 3 GiB = 100,012,130,304 B
 * = 93.14 GiB) but fits its 100 GiB. Of the others, stage 7 holds 12 P0 + 3,208,642,560 x 89/12 +
 * 524,288,000 + 3 GiB = 96,793,001,984 B = 90.14 GiB of 80; stage 1 (12 layers, no embedding: P0 -
 * V h / 8 = 5,181,014,016 parameters; 101 chunks of 12 in flight) 62,172,168,192 + 27,006,074,880 +
 * 3 GiB = 86.05 GiB; stages 2-6 less. The refusal reports stage 7, the GPU furthest over its HBM. */
static void test_reports_the_gpu_over(void **state)
{
    (void)state;
    sax_case_t *cases = NULL;
    int n = 0, i = public_case(&cases, &n, "nemo2407-nemotron4-340b-128");
    sax_problem_t pb = cases[i].config.problem;
    pb.training.precision = SAX_PRECISION_BF16;
    pb.training.grad_reduce_dtype = SAX_GRAD_DTYPE_FP32;
    sax_cluster_t *cl = &pb.cluster;
    assert_int_equal(cl->n_sites, 1);
    assert_int_equal(cl->sites[0].gpus, 128);
    cl->n_sites = 2;
    cl->sites[1] = cl->sites[0];
    strcpy(cl->sites[0].name, "big");
    cl->sites[0].gpus = 16;
    cl->sites[0].gpu.hbm_bytes = 100.0 * GIB;
    cl->sites[1].gpus = 112;
    cl->n_links = 1;
    cl->links[0].a = 0;
    cl->links[0].b = 1;
    cl->links[0].bw_Bps = 1e12;
    cl->links[0].latency_s = 1e-6;
    sax_result_t r;
    eval_scratch(&pb, &cases[i].config.candidate, &r);
    sax_dataset_free(cases, n);
    assert_false(r.feasible);
    assert_int_equal(r.reason, SAX_INFEASIBLE_MEMORY);
    const double act7 = 3208642560.0 * 89.0 / 12.0 + 524288000.0;
    close_to(r.memory_per_gpu_bytes, 12.0 * P0 + act7 + 3.0 * GIB, "stage 7 (the furthest over 80 GiB)");
    close_to(r.mem_activations_bytes, act7, "stage 7's activations");
}

/* The same model without interleaving: 1F1B keeps p = 8 micro-batches on stage 0. */
static void test_340b_1f1b(void **state)
{
    (void)state;
    sax_result_t r;
    eval_case("nemo2407-nemotron4-340b-128", SAX_PRECISION_FP8, SAX_GRAD_DTYPE_BF16, 1, &r);
    assert_true(r.feasible);
    close_to(r.mem_activations_bytes, 2415919104.0 * 8.0, "activations (fp8, 1f1b)");
    close_to(r.memory_per_gpu_bytes, 10.0 * P0 + 2415919104.0 * 8.0 + 3.0 * GIB, "total");
}

/* Llama 3 405B on 8192 H100 (Llama 3 paper, Table 4 and section 3.3.2): TP 8, PP 16, DP 64, CP 1,
 * sequence 8192, micro-batch 1 (m = 2048 / 64 = 32), BF16, sequence parallel, flash attention, no
 * dropout, FSDP keeping parameters (zero 2), interleaved with V = 8 (the paper's first chunk holds only
 * the embedding: one layer slot a chunk, 128 / 16 = 8 chunks), 126 layers as 7, 8 x 14, 7.
 * Model: h = 16384, a = 128, g = 8, f = 53248 (SwiGLU: three matrices), V = 128256 untied.
 *
 * Parameters a layer on one GPU: attention 2h^2 (1 + g/a) = 570,425,344, MLP 3hf = 2,617,245,696,
 * two norms 2h = 32,768 (sax: split by TP; Megatron's estimator: 4h replicated): 3,187,703,808 / 8 =
 * 398,462,976. Stage 1 (8 layers, no embedding) P1 = 3,187,703,808 parameters:
 *   weights 2 P1 = 6,375,407,616; fp32 gradients and optimizer sharded over DP = 64 (zero 2):
 *   4 P1 / 64 = 199,231,488 and 12 P1 / 64 = 597,694,464.
 * Activations a token and layer before /TP (docs/cost-model.md section 8): attention (7 + 4g/a)h =
 *   7.25h, norms 4h, MLP 3h + 2 x 3 f = 3h + 6f, less the two 1-byte dropout masks (2h) without
 *   dropout: 12.25h + 6f = 200,704 + 319,488 = 520,192 B (Megatron's estimator, (18 + 4f/h)h = 31h =
 *   507,904 B, counts SwiGLU as two matrices, ignores GQA and keeps the masks); / 8 x 8192 tokens =
 *   532,676,608 B a layer and micro-batch; stage 1: 8 layers = 4,261,412,864 B a micro-batch.
 * In flight on stage 1: (p - s - 1) 2 + (v - 1) p + 1 = 28 + 112 + 1 = 141 chunks of 1/8 stage =
 *   17.625 micro-batches: 75,107,401,728 B. Stage 0 (7 layers, 143/8 = 17.875) holds 66.65 GB and the
 *   last stage (7 layers + fp32 logits 8192 x 128256 / 8 x 4 = 525,336,576 B, 113/8) 60.09 GB: stage 1
 *   is the fullest, which Megatron's estimator (first stage only) does not look at.
 * Total with 3 GiB reserved: 85,500,960,768 B = 79.63 GiB < 80 GiB. With V = 2 (the case's earlier
 * assumption) stage 0 keeps 47/2 = 23.5 micro-batches: 7 x 532,676,608 x 23.5 = 87.6 GB, infeasible. */
static void test_llama3_405b_8192(void **state)
{
    (void)state;
    sax_result_t r;
    eval_case("llama3-405b-8192-cp1", SAX_PRECISION_BF16, SAX_GRAD_DTYPE_FP32, 8, &r);
    const double p1 = 3187703808.0, act = 4261412864.0 * 141.0 / 8.0;
    assert_true(r.feasible);
    close_to(r.mem_weights_bytes, 2.0 * p1, "weights (stage 1)");
    close_to(r.mem_grads_bytes, 4.0 * p1 / 64.0, "gradients (fp32 over DP 64)");
    close_to(r.mem_optimizer_bytes, 12.0 * p1 / 64.0, "optimizer (12 B over DP 64)");
    close_to(r.mem_activations_bytes, act, "activations (stage 1, 141 chunks of 1/8)");
    close_to(r.memory_per_gpu_bytes, 2.0 * p1 + 16.0 * p1 / 64.0 + act + 3.0 * GIB, "total");
    assert_true(r.memory_per_gpu_bytes < 80.0 * GIB);
}

/* The same run with dropout (Megatron's default): each layer keeps two 1-byte masks of h a token, split
 * by TP under SP: 2 x 16384 / 8 x 8192 = 33,554,432 B more a layer and micro-batch; stage 1 then keeps
 * 8 x (532,676,608 + 33,554,432) x 17.625 = 79,837,904,640 B: 84.03 GiB, above 80 GiB. */
static void test_llama3_405b_8192_dropout(void **state)
{
    (void)state;
    sax_case_t *cases = NULL;
    int n = 0, i = public_case(&cases, &n, "llama3-405b-8192-cp1");
    sax_problem_t pb = cases[i].config.problem;
    assert_false(pb.training.dropout);
    pb.training.dropout = true;
    sax_result_t r;
    eval_scratch(&pb, &cases[i].config.candidate, &r);
    sax_dataset_free(cases, n);
    assert_false(r.feasible);
    assert_int_equal(r.reason, SAX_INFEASIBLE_MEMORY);
    close_to(r.mem_activations_bytes, 8.0 * (532676608.0 + 33554432.0) * 141.0 / 8.0,
             "activations with dropout masks (stage 1)");
}

/* DeepSeek-V3 keeps Adam's moments in bf16 (report section 3.3.3): 4 B fp32 master + 2 + 2 B = 8 B of
 * optimizer state a parameter against 12 B, the same parameters sharded the same way: 2/3 of the fp32
 * figure on the same stage. */
static void test_bf16_moments(void **state)
{
    (void)state;
    sax_case_t *cases = NULL;
    int n = 0, i = public_case(&cases, &n, "nemo2407-nemotron4-340b-128");
    sax_problem_t pb = cases[i].config.problem;
    assert_int_equal(pb.training.optimizer_moments_dtype, SAX_GRAD_DTYPE_FP32);
    pb.training.optimizer_moments_dtype = SAX_GRAD_DTYPE_BF16;
    sax_result_t r;
    eval_scratch(&pb, &cases[i].config.candidate, &r);
    sax_dataset_free(cases, n);
    /* the 340B run's stage 0 as in test_340b_as_run, with 8/2 P0 of optimizer instead of 12/2 P0 */
    close_to(r.mem_optimizer_bytes, 4.0 * P0, "optimizer (8 B over d = 2)");
    close_to(r.memory_per_gpu_bytes, 8.0 * P0 + 2415919104.0 * 103.0 / 12.0 + 3.0 * GIB, "total");
}

/* Llama 3 70B on 64 GB200 (Megatron-Bridge 25.11, llama3_70b_pretrain_64gpu_gb200_fp8cs_config): TP 1,
 * PP 1, Megatron-FSDP over 64 (zero 3), micro-batch 2, sequence 8192, FP8, bf16 gradients, no dropout,
 * activations of 40 of the 80 layers offloaded to CPU memory (cpu_offloading_num_layers = 40).
 * Model: h = 8192, a = 64, g = 8, f = 28672 (SwiGLU), V = 128256 untied.
 * Parameters: a layer 2h^2 (1 + g/a) + 3hf + 2h = 150,994,944 + 704,643,072 + 16,384 = 855,654,400;
 *   80 layers + embedding + output (2 V h = 2,101,346,304) = 70,553,698,304 = P; P / 64 = 1,102,401,536.
 *   Weights (zero 3): 2 P / 64 + two gathered layers 2 x 2 P / 80 = 2,204,803,072 + 3,527,684,915.2;
 *   gradients 2 P / 64 = 2,204,803,072; optimizer 12 P / 64 = 13,228,818,432.
 * Activations a token and layer: 7.5h + 4h + 3h + 6f = 290,816 B, less FP8's 3h + f = 53,248 and no
 *   dropout's 2h = 16,384: 221,184 B; x 16,384 tokens = 3,623,878,656 B a layer; 40 layers kept on the
 *   GPU = 144,955,146,240 B, plus the fp32 logits 16,384 x 128,256 x 4 = 8,405,385,216 B; one
 *   micro-batch in flight (PP 1): 153,360,531,456 B.
 * Total with 3 GiB reserved: 177,747,866,419 B = 165.5 GiB < 186 GiB (all 80 layers: 293.5 GiB). */
static void test_gb200_offload(void **state)
{
    (void)state;
    sax_result_t r;
    eval_case("bridge-gb200-llama3-70b-fsdp-64", SAX_PRECISION_FP8, SAX_GRAD_DTYPE_BF16, 1, &r);
    const double w = 2204803072.0 + 3527684915.2, act = 40.0 * 3623878656.0 + 8405385216.0;
    assert_true(r.feasible);
    close_to(r.mem_weights_bytes, w, "weights (zero 3)");
    close_to(r.mem_grads_bytes, 2204803072.0, "gradients (bf16 over 64)");
    close_to(r.mem_optimizer_bytes, 13228818432.0, "optimizer (12 B over 64)");
    close_to(r.mem_activations_bytes, act, "activations (40 of 80 layers on the GPU)");
    close_to(r.memory_per_gpu_bytes, w + 2204803072.0 + 13228818432.0 + act + 3.0 * GIB, "total");
}

/* NeMo AutoModel's Qwen3-30B-A3B on 8 H100 (FSDP2 8 with EP 8, micro-batch 4, sequence 4096): a bf16
 * model (torch_dtype "auto" -> bfloat16) under torch.optim.Adam, so no fp32 master weights and bf16
 * moments: 4 B of optimizer state a parameter; gradients reduced in fp32 (4 B as sax counts them).
 * Parameters a GPU owns: routed experts whole (expert data-parallel group 8 / 8 = 1): 48 layers x 16
 *   experts x 3 x 2048 x 768 = 3,623,878,656; the rest sharded over 8: a layer q 2048 x 4096 +
 *   k, v 2 x 2048 x 512 + o 4096 x 2048 + router 2048 x 128 + norms 2 x 2048 = 19,140,608, x 48 =
 *   918,749,184, + embedding and output 2 x 151,936 x 2048 = 622,329,856: 1,541,079,040 / 8 =
 *   192,634,880. Owned 3,816,513,536: optimizer 4 B = 15,266,054,144 (with fp32 master and moments,
 *   12 B: 45,798,162,432, which made the run infeasible), gradients 4 B the same. */
static void test_bf16_model_without_master(void **state)
{
    (void)state;
    sax_result_t r;
    eval_case("automodel-qwen3-30b-a3b-8", SAX_PRECISION_BF16, SAX_GRAD_DTYPE_FP32, 1, &r);
    const double owned = 3623878656.0 + 1541079040.0 / 8.0;
    assert_true(r.feasible);
    close_to(r.mem_optimizer_bytes, 4.0 * owned, "optimizer (bf16 m and v, no master)");
    close_to(r.mem_grads_bytes, 4.0 * owned, "gradients (fp32)");
    assert_true(r.memory_per_gpu_bytes < 80.0 * GIB);
}

/* Megatron-Core's --recompute-modules layernorm (recompute "selective"): the two norms' outputs, the QKV
 * and FC1 inputs, are not kept. In FP8 Transformer Engine keeps them as the linear layers' FP8 copies,
 * h bytes each: 2h = 36,864 B a token and layer less, so 393,216 - 36,864 = 356,352 B before /TP.
 * Stage 0 stays the fullest: 4096 x 12 x 356,352 / 8 = 2,189,426,688 x 103/12 = 18,792,245,739 against
 * the last stage's 2,189,426,688 x 89/12 + 524,288,000 = 16,762,535,936. The norms run again
 * in the backward, so the iteration is longer. core_attn beside it changes nothing with flash attention. */
static void test_340b_recompute_layernorm(void **state)
{
    (void)state;
    sax_case_t *cases = NULL;
    int n = 0, i = public_case(&cases, &n, "nemo2407-nemotron4-340b-128");
    sax_problem_t pb = cases[i].config.problem;
    sax_candidate_t c = cases[i].config.candidate;
    pb.training.precision = SAX_PRECISION_FP8;
    pb.training.grad_reduce_dtype = SAX_GRAD_DTYPE_BF16;
    sax_result_t as_run, r;
    eval_scratch(&pb, &c, &as_run);
    c.recompute = SAX_RECOMPUTE_SELECTIVE;
    c.recompute_modules = 1u << SAX_RECOMPUTE_MODULE_LAYERNORM;
    eval_scratch(&pb, &c, &r);
    assert_true(r.feasible);
    close_to(r.mem_activations_bytes, 2189426688.0 * 103.0 / 12.0, "activations (norm outputs recomputed)");
    assert_true(r.iteration_time_s > as_run.iteration_time_s);
    c.recompute_modules |= 1u << SAX_RECOMPUTE_MODULE_CORE_ATTN;
    sax_result_t both;
    eval_scratch(&pb, &c, &both);
    close_to(both.mem_activations_bytes, r.mem_activations_bytes, "activations (core_attn and layernorm)");
    sax_dataset_free(cases, n);
}

/* Recompute modules only trade time for memory: on DeepSeek-V3 as its report runs it (MLA and MoE, FP8,
 * DualPipe) and on the GB200 recipe (bf16, interleaved, TP 1), with HBM large enough that every set fits,
 * adding any module to any set of them never raises the memory a GPU needs nor shortens the iteration;
 * mla_up_proj and moe_act each free something here (both models have MLA and routed experts). */
static void test_modules_trade_time_for_memory(void **state)
{
    (void)state;
    const char *names[2] = {"deepseek-v3-2048-h800", "bridge-gb200-deepseek-v3-256"};
    for (int k = 0; k < 2; k++) {
        sax_case_t *cases = NULL;
        int n = 0, i = public_case(&cases, &n, names[k]);
        sax_problem_t pb = cases[i].config.problem;
        sax_candidate_t c = cases[i].config.candidate;
        pb.cluster.gpu.hbm_bytes = 1e15;
        for (int s = 0; s < pb.cluster.n_sites; s++)
            pb.cluster.sites[s].gpu.hbm_bytes = 1e15;
        c.recompute = SAX_RECOMPUTE_SELECTIVE;
        const unsigned all = (1u << SAX_RECOMPUTE_MODULE_COUNT) - 1u;
        for (unsigned set = 1; set <= all; set++) {
            sax_result_t base;
            c.recompute_modules = set;
            eval_scratch(&pb, &c, &base);
            assert_true(base.feasible);
            for (int m = 0; m < SAX_RECOMPUTE_MODULE_COUNT; m++) {
                if (set >> m & 1u)
                    continue;
                sax_result_t more;
                c.recompute_modules = set | 1u << m;
                eval_scratch(&pb, &c, &more);
                assert_true(more.feasible);
                assert_true(more.memory_per_gpu_bytes <= base.memory_per_gpu_bytes);
                assert_true(more.mem_activations_bytes <= base.mem_activations_bytes);
                assert_true(more.iteration_time_s >= base.iteration_time_s);
                if (m == SAX_RECOMPUTE_MODULE_MLA_UP_PROJ || m == SAX_RECOMPUTE_MODULE_MOE_ACT) {
                    assert_true(more.mem_activations_bytes < base.mem_activations_bytes);
                    assert_true(more.iteration_time_s > base.iteration_time_s);
                }
            }
        }
        sax_dataset_free(cases, n);
    }
}

/* torchtitan's per-op selective checkpointing (training.selective_ac_option "op"), derived by hand on
 * its Llama 3.1 8B run (tt-llama31-8b-fsdp-compile-8) moved to one GPU: bf16, flash attention, no
 * dropout, micro-batch 2 of 8192 tokens (tok = 16384), l = 32, h = 4096, a = 32, g = 8, d = 128,
 * f = 14336 (SwiGLU), TP 1.
 * Kept a token and layer without recomputation (Korthikanti's 34h with GQA and no masks, as above):
 *   3h + (4 + 4g/a)h + 7h + 6f - 2h = 13h + 6f = 139,264 B.
 * Kept under the policy (parallelize_llama.py's save list; every second aten.mm, wk, wo and w3, runs
 * again): the block's input h, wq's output a d, wv's g d, the attention output a d, w1's f and w2's h,
 * 2 B each, and the attention's fp32 log-sum-exp, 4 B a head: 2 (4096 + 4096 + 1024 + 4096 + 14336 +
 * 4096) + 4 x 32 = 63,616 B. One layer's recomputed activations come back at once in the backward
 * (139,264 - 63,616 a token), so the policy needs (l - 1) x tok x 75,648 = 38,421,921,792 B less.
 * Time: wk, wo and w3 run again, 2 tok h (g d + a d + f) = 2 x 16384 x 4096 x 19456 FLOP a layer, at
 * the GEMM ceiling when the efficiency curve is flat (gemm_eff_half_ai 0) and HBM is fast enough that
 * the memory-bound ops run again for nothing: 32 x 2,611,340,115,968 FLOP / (peak x ceiling). */
static void test_torchtitan_op_sac(void **state)
{
    (void)state;
    sax_case_t *cases = NULL;
    int n = 0, i = public_case(&cases, &n, "tt-llama31-8b-fsdp-compile-8");
    sax_problem_t pb = cases[i].config.problem;
    sax_candidate_t c = cases[i].config.candidate;
    assert_int_equal(pb.training.selective_ac_option, SAX_SELECTIVE_AC_OP);
    pb.training.global_batch = 2;
    c.dp = 1;
    c.zero = 1;
    for (int s = 0; s < pb.cluster.n_sites; s++) {
        pb.cluster.sites[s].gpu.hbm_bytes = 1e15;
        pb.cluster.sites[s].gpu.hbm_bw_Bps = 1e30;
        pb.cluster.sites[s].gpu.gemm_eff_half_ai = 0.0;
    }
    pb.cluster.gpu = pb.cluster.sites[0].gpu;
    sax_result_t op, none;
    eval_scratch(&pb, &c, &op);
    c.recompute = SAX_RECOMPUTE_NONE;
    eval_scratch(&pb, &c, &none);
    assert_true(op.feasible && none.feasible);
    close_to(none.mem_activations_bytes - op.mem_activations_bytes, 38421921792.0, "activations op saves");
    double want = 32.0 * 2.0 * 16384.0 * 4096.0 * 19456.0 /
                  (pb.cluster.gpu.peak_flops_bf16 * pb.cluster.gpu.gemm_eff_max);
    close_to(op.iteration_time_s - none.iteration_time_s, want, "time of the GEMMs op runs again");
    sax_dataset_free(cases, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_340b_as_run),
                                       cmocka_unit_test(test_340b_bf16_fp32_grads),
                                       cmocka_unit_test(test_340b_fp16),
                                       cmocka_unit_test(test_what_fits),
                                       cmocka_unit_test(test_what_validate_assumes),
                                       cmocka_unit_test(test_reports_the_gpu_over),
                                       cmocka_unit_test(test_340b_1f1b),
                                       cmocka_unit_test(test_llama3_405b_8192),
                                       cmocka_unit_test(test_llama3_405b_8192_dropout),
                                       cmocka_unit_test(test_bf16_moments),
                                       cmocka_unit_test(test_gb200_offload),
                                       cmocka_unit_test(test_bf16_model_without_master),
                                       cmocka_unit_test(test_340b_recompute_layernorm),
                                       cmocka_unit_test(test_modules_trade_time_for_memory),
                                       cmocka_unit_test(test_torchtitan_op_sac)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
