/* fixture.h - small hand-written problems and spaces shared by the search and comm tests. */
#ifndef SAX_TEST_FIXTURE_H
#define SAX_TEST_FIXTURE_H

#include "sax_search.h"

#include <string.h>

/* A 16-layer GQA model (heads 16, kv 8) on `n_sites` sites of `gpus_per_site` H100-like GPUs:
 * 8 GPUs per NVLink domain, one 64-GPU pod tier, site links of 10 Tbit/s at 1 ms. */
static inline void fixture_problem(sax_problem_t *p, int n_sites, int gpus_per_site)
{
    memset(p, 0, sizeof *p);
    sax_model_desc_t *m = &p->model;
    strcpy(m->name, "test-1b");
    m->layers = 16;
    m->hidden = 2048;
    m->ffn_hidden = 8192;
    m->heads = 16;
    m->kv_heads = 8;
    m->vocab = 32000;
    m->seq_len = 2048;
    m->ffn_act = SAX_FFN_SWIGLU;
    sax_training_set_defaults(&p->training);
    p->training.global_batch = 256;
    sax_cluster_t *c = &p->cluster;
    sax_cluster_set_defaults(c);
    sax_gpu_set_defaults(&c->gpu);
    strcpy(c->gpu.name, "H100");
    c->gpu.peak_flops_bf16 = 989e12;
    c->gpu.peak_flops_fp8 = 1979e12;
    c->gpu.hbm_bytes = 80e9;
    c->gpu.hbm_bw_Bps = 3.35e12;
    c->scale_up.size = 8;
    c->scale_up.bw_Bps = 450e9;
    c->scale_up.latency_s = 3e-6;
    c->n_tiers = 1;
    strcpy(c->tiers[0].name, "pod");
    c->tiers[0].gpus = 64;
    c->tiers[0].bw_Bps = 50e9;
    c->tiers[0].latency_s = 10e-6;
    c->n_sites = n_sites;
    for (int i = 0; i < n_sites; i++) {
        c->sites[i].name[0] = (char)('A' + i);
        c->sites[i].gpus = gpus_per_site;
        c->sites[i].gpu = c->gpu;
    }
    c->n_links = n_sites > 1 ? 1 : 0;
    c->links[0].a = 0;
    c->links[0].b = 1;
    c->links[0].bw_Bps = 1.25e12;
    c->links[0].latency_s = 1e-3;
}

static inline void fixture_set(sax_space_desc_t *d, sax_key_t k, int n, const int32_t *v)
{
    d->values[k].n = n;
    for (int i = 0; i < n; i++)
        d->values[k].v[i] = v[i];
}

/* A base candidate: tp 1, pp 1, dp auto, 1f1b, no recompute, ZeRO-1, order tp-cp-pp-dp, ring. */
static inline void fixture_candidate(sax_candidate_t *c)
{
    memset(c, 0, sizeof *c);
    c->tp = c->pp = c->cp = c->ep = c->vpp = c->micro_batch = 1;
    c->dp = 0;
    c->schedule = SAX_SCHEDULE_1F1B;
    c->recompute = SAX_RECOMPUTE_NONE;
    c->zero = 1;
    c->n_order = 4;
    c->order[0] = SAX_DIM_TP;
    c->order[1] = SAX_DIM_CP;
    c->order[2] = SAX_DIM_PP;
    c->order[3] = SAX_DIM_DP;
    c->layer_split = SAX_LAYER_SPLIT_UNIFORM;
    c->transport = SAX_TRANSPORT_ROCE_SR;
    sax_candidate_set_nccl_defaults(c);
    c->algorithm = SAX_ALGORITHM_RING;
    c->compression = SAX_COMPRESSION_NONE;
}

/* Orders: 0 = tp-cp-pp-dp, 1 = tp-cp-dp-pp, 2 = tp-pp-dp (no cp). */
static inline void fixture_orders(sax_space_desc_t *d)
{
    static const sax_dim_t o[3][4] = {{SAX_DIM_TP, SAX_DIM_CP, SAX_DIM_PP, SAX_DIM_DP},
                                      {SAX_DIM_TP, SAX_DIM_CP, SAX_DIM_DP, SAX_DIM_PP},
                                      {SAX_DIM_TP, SAX_DIM_PP, SAX_DIM_DP, SAX_DIM_DP}};
    d->n_orders = 3;
    for (int i = 0; i < 3; i++) {
        d->order_len[i] = i == 2 ? 3 : 4;
        memcpy(d->orders[i], o[i], sizeof o[i]);
    }
}

#endif
