/* fixture.h - what the model tests share: the scratch their evaluations memoise in, an evaluation that
 * must succeed, and a cluster of H100s in one or two buildings. Include after cmocka.h. */
#ifndef SAX_TEST_MODEL_FIXTURE_H
#define SAX_TEST_MODEL_FIXTURE_H

#include "sax_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The scratch of every evaluation of the test program (fixture_setup allocates it, for the group). */
static sax_scratch_t *scratch;

static inline int fixture_setup(void **state)
{
    (void)state;
    scratch = malloc(sax_scratch_size());
    if (scratch == NULL)
        return -1;
    sax_scratch_init(scratch);
    return 0;
}

static inline int fixture_teardown(void **state)
{
    (void)state;
    free(scratch);
    return 0;
}

/* A Mixtral-shaped mixture of experts (Mistral 7B's attention and sizes: 32 layers, h 4096, 32 heads, 8 KV
 * heads, sequence 4096) with `experts` SwiGLU experts of width `width`, top-k routed. */
static inline sax_model_desc_t fixture_moe_model(int experts, int top_k, int width)
{
    return (sax_model_desc_t){.name = "mixtral-like",
                              .layers = 32,
                              .hidden = 4096,
                              .ffn_hidden = 14336,
                              .heads = 32,
                              .kv_heads = 8,
                              .vocab = 32000,
                              .seq_len = 4096,
                              .ffn_act = SAX_FFN_SWIGLU,
                              .experts = experts,
                              .top_k = top_k,
                              .expert_ffn_hidden = width};
}

/* sax_model_eval, which must return SAX_OK (the candidate may still be infeasible). */
static inline sax_result_t fixture_eval(const sax_problem_t *p, const sax_candidate_t *c)
{
    sax_result_t r;
    assert_int_equal(sax_model_eval(p, c, scratch, &r), SAX_OK);
    return r;
}

/* n_sites (1 or 2) buildings "A" and "B" of site_gpus H100s each (989 TFLOP/s bf16, 80 GB at 3.35 TB/s):
 * NVLink domains of 8 at 450 GB/s x 0.8 and 3 us, one tier "building" of the whole site at 50 GB/s per
 * GPU x 0.9, 10 us, not oversubscribed; two buildings are joined by one link of link_bw at link_lat
 * one way (the defaults' window, transports and loss). */
static inline void fixture_h100_cluster(sax_cluster_t *cl, int n_sites, int site_gpus, double link_bw,
                                        double link_lat)
{
    memset(cl, 0, sizeof *cl);
    sax_cluster_set_defaults(cl);
    cl->gpu = (sax_gpu_t){.name = "H100",
                          .peak_flops_bf16 = 989e12,
                          .peak_flops_fp8 = 1979e12,
                          .hbm_bytes = 80e9,
                          .hbm_bw_Bps = 3.35e12};
    sax_gpu_set_defaults(&cl->gpu);
    cl->scale_up = (sax_scale_up_t){.size = 8, .bw_Bps = 450e9, .latency_s = 3e-6, .efficiency = 0.8};
    cl->n_tiers = 1;
    cl->tiers[0] = (sax_tier_t){.name = "building",
                                .gpus = site_gpus,
                                .bw_Bps = 50e9,
                                .latency_s = 10e-6,
                                .oversubscription = 1.0,
                                .efficiency = 0.9};
    cl->n_sites = n_sites;
    for (int s = 0; s < n_sites; s++) {
        cl->sites[s].gpus = site_gpus;
        cl->sites[s].gpu = cl->gpu;
        snprintf(cl->sites[s].name, sizeof cl->sites[s].name, "%c", 'A' + s);
    }
    if (n_sites > 1) {
        cl->n_links = 1;
        cl->links[0].a = 0;
        cl->links[0].b = 1;
        cl->links[0].bw_Bps = link_bw;
        cl->links[0].latency_s = link_lat;
    }
}

#endif
