/* candidate.c - a candidate's design keys as integers, so search/ can treat every key alike. */
#include "sax_model.h"

int32_t sax_candidate_get(const sax_candidate_t *c, sax_key_t k)
{
    switch (k) {
    case SAX_KEY_TP: return c->tp;
    case SAX_KEY_PP: return c->pp;
    case SAX_KEY_DP: return c->dp;
    case SAX_KEY_CP: return c->cp;
    case SAX_KEY_EP: return c->ep;
    case SAX_KEY_VPP: return c->vpp;
    case SAX_KEY_MICRO_BATCH: return c->micro_batch;
    case SAX_KEY_SCHEDULE: return (int32_t)c->schedule;
    case SAX_KEY_RECOMPUTE: return (int32_t)c->recompute;
    case SAX_KEY_SEQUENCE_PARALLEL: return c->sequence_parallel ? 1 : 0;
    case SAX_KEY_ZERO: return c->zero;
    case SAX_KEY_ORDER: return -1; /* the order is stored by value; see sax_space_desc_t.orders */
    case SAX_KEY_LAYER_SPLIT: return (int32_t)c->layer_split;
    case SAX_KEY_FIRST_STAGE_LAYERS: return c->first_stage_layers;
    case SAX_KEY_LAST_STAGE_LAYERS: return c->last_stage_layers;
    case SAX_KEY_TRANSPORT: return (int32_t)c->transport;
    case SAX_KEY_CONNECTIONS: return c->connections;
    case SAX_KEY_CHANNELS: return c->channels;
    case SAX_KEY_BUFFER_SIZE: return c->buffer_bytes;
    case SAX_KEY_P2P_CHUNK_SIZE: return c->p2p_chunk_bytes;
    case SAX_KEY_P2P_CHANNELS: return c->p2p_channels;
    case SAX_KEY_ALGORITHM: return (int32_t)c->algorithm;
    case SAX_KEY_COMPRESSION: return (int32_t)c->compression;
    case SAX_KEY_COUNT: break;
    }
    return -1;
}

void sax_candidate_set(sax_candidate_t *c, sax_key_t k, int32_t v)
{
    switch (k) {
    case SAX_KEY_TP: c->tp = v; break;
    case SAX_KEY_PP: c->pp = v; break;
    case SAX_KEY_DP: c->dp = v; break;
    case SAX_KEY_CP: c->cp = v; break;
    case SAX_KEY_EP: c->ep = v; break;
    case SAX_KEY_VPP: c->vpp = v; break;
    case SAX_KEY_MICRO_BATCH: c->micro_batch = v; break;
    case SAX_KEY_SCHEDULE: c->schedule = (sax_schedule_t)v; break;
    case SAX_KEY_RECOMPUTE: c->recompute = (sax_recompute_t)v; break;
    case SAX_KEY_SEQUENCE_PARALLEL: c->sequence_parallel = v != 0; break;
    case SAX_KEY_ZERO: c->zero = v; break;
    case SAX_KEY_ORDER: break; /* callers copy sax_space_desc_t.orders[v] themselves */
    case SAX_KEY_LAYER_SPLIT: c->layer_split = (sax_layer_split_t)v; break;
    case SAX_KEY_FIRST_STAGE_LAYERS: c->first_stage_layers = v; break;
    case SAX_KEY_LAST_STAGE_LAYERS: c->last_stage_layers = v; break;
    case SAX_KEY_TRANSPORT: c->transport = (sax_transport_t)v; break;
    case SAX_KEY_CONNECTIONS: c->connections = v; break;
    case SAX_KEY_CHANNELS: c->channels = v; break;
    case SAX_KEY_BUFFER_SIZE: c->buffer_bytes = v; break;
    case SAX_KEY_P2P_CHUNK_SIZE: c->p2p_chunk_bytes = v; break;
    case SAX_KEY_P2P_CHANNELS: c->p2p_channels = v; break;
    case SAX_KEY_ALGORITHM: c->algorithm = (sax_algorithm_t)v; break;
    case SAX_KEY_COMPRESSION: c->compression = (sax_compression_t)v; break;
    case SAX_KEY_COUNT: break;
    }
}

int sax_candidate_etp(const sax_candidate_t *c) { return c->etp > 0 ? c->etp : c->tp; }

bool sax_candidate_ep_overlap_allowed(const sax_candidate_t *c)
{
    return c->ep > 1 && c->recompute != SAX_RECOMPUTE_FULL &&
           (c->pp == 1 || c->schedule == SAX_SCHEDULE_INTERLEAVED);
}

int sax_candidate_expert_dp(const sax_candidate_t *c)
{
    long stage = (long)c->tp * c->cp * c->dp, experts = (long)c->ep * sax_candidate_etp(c);
    return experts > 0 && stage % experts == 0 ? (int)(stage / experts) : 0;
}

void sax_candidate_set_nccl_defaults(sax_candidate_t *c)
{
    c->connections = 1; /* NCCL_IB_QPS_PER_CONNECTION */
    c->channels = 0;
    c->buffer_bytes = SAX_NCCL_BUFFSIZE_DEFAULT;
    c->p2p_chunk_bytes = SAX_NCCL_P2P_CHUNK_DEFAULT;
    c->p2p_channels = 0;
}
