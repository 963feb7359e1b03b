/* layers.c - how the model's layers are split over the pipeline stages: layer_split (uniform, balanced
 * by GPU speed, Megatron-LM's embedding-and-loss accounting) and Megatron-LM's first/last stage layers
 * (docs/cost-model.md section 7). Pure: no globals, no allocation, no I/O.
 *
 * The Megatron-LM rules are those of megatron/core/transformer/transformer_block.py
 * (get_num_layers_to_build) and transformer_config.py (__post_init__'s "Uneven PP" checks); a pipeline
 * layout (megatron/core/transformer/pipeline_parallel_layer_layout.py) gives each virtual stage's layers.
 */
#include "sax_model.h"

#include <math.h>

/* The layers of each middle stage when first/last are set; -1 when they do not split. */
static int middle_layers(int total, const sax_candidate_t *c)
{
    int f = c->first_stage_layers, l = c->last_stage_layers, v = c->vpp;
    int stages = c->pp - (f > 0) - (l > 0), rest = total - f - l;
    if (c->pp < 2 || f < 0 || l < 0 || rest < 0 || (rest > 0) != (stages > 0))
        return -1;
    if (f % v != 0 || l % v != 0)
        return -1;
    if (stages == 0)
        return 0;
    if (rest % stages != 0 || (rest / stages) % v != 0)
        return -1;
    return rest / stages;
}

/* Layers the layout puts on virtual stages; -1 when it does not have pp x vpp of them. */
static int layout_layers(const sax_candidate_t *c)
{
    if (c->n_layout != c->pp * c->vpp || c->n_layout > SAX_LAYOUT_MAX_STAGES)
        return -1;
    int sum = 0;
    for (int k = 0; k < c->n_layout; k++)
        sum += c->layout_layers[k];
    return sum;
}

bool sax_layer_split_valid(int total, const sax_candidate_t *c)
{
    int chunks = c->pp * c->vpp;
    if (c->n_layout > 0) /* Megatron's layout places every layer itself (no first/last stage layers) */
        return c->first_stage_layers == 0 && c->last_stage_layers == 0 && layout_layers(c) == total;
    if (c->first_stage_layers != 0 || c->last_stage_layers != 0)
        return c->layer_split == SAX_LAYER_SPLIT_UNIFORM && middle_layers(total, c) >= 0;
    switch (c->layer_split) {
    case SAX_LAYER_SPLIT_UNIFORM: return total >= chunks; /* as even as the layers allow */
    case SAX_LAYER_SPLIT_BALANCED: return total >= chunks;
    case SAX_LAYER_SPLIT_EMBEDDING_LOSS: /* the embedding and the loss count as a layer each */
        return (total + 2) % c->pp == 0 && ((total + 2) / c->pp) % c->vpp == 0;
    case SAX_LAYER_SPLIT_COUNT: break;
    }
    return false;
}

/* Balanced: in proportion to the stages' peak FLOP/s with the largest-remainder rounding, at least one
 * layer per chunk. */
static void split_balanced(int total, const sax_candidate_t *c, const double *peak_flops, int *layers)
{
    int pp = c->pp;
    double sum = 0.0;
    for (int s = 0; s < pp; s++)
        sum += peak_flops[s];
    int given = 0;
    double rem[SAX_SIM_MAX_STAGES];
    for (int s = 0; s < pp; s++) {
        double share = total * peak_flops[s] / sum;
        layers[s] = (int)floor(share);
        if (layers[s] < c->vpp)
            layers[s] = c->vpp;
        rem[s] = share - floor(share);
        given += layers[s];
    }
    while (given < total) { /* hand out the rest by largest remainder, ties to the earlier stage */
        int best = 0;
        for (int s = 1; s < pp; s++)
            if (rem[s] > rem[best])
                best = s;
        layers[best]++;
        rem[best] = -1.0;
        given++;
    }
    while (given > total) { /* minimum chunks forced too many: take from the largest stage */
        int big = 0;
        for (int s = 1; s < pp; s++)
            if (layers[s] > layers[big])
                big = s;
        layers[big]--;
        given--;
    }
}

void sax_layer_split_stages(int total, const sax_candidate_t *c, const double *peak_flops, int *layers)
{
    int pp = c->pp;
    if (c->n_layout > 0) { /* virtual stage k is chunk k / pp of stage k mod pp */
        for (int s = 0; s < pp; s++)
            layers[s] = 0;
        for (int k = 0; k < c->n_layout; k++)
            layers[k % pp] += c->layout_layers[k];
        return;
    }
    if (c->first_stage_layers != 0 || c->last_stage_layers != 0) {
        int mid = middle_layers(total, c); /* also the end stage whose layers are not set */
        for (int s = 0; s < pp; s++)
            layers[s] = mid;
        if (c->first_stage_layers > 0)
            layers[0] = c->first_stage_layers;
        if (c->last_stage_layers > 0)
            layers[pp - 1] = c->last_stage_layers;
        return;
    }
    switch (c->layer_split) {
    case SAX_LAYER_SPLIT_BALANCED: split_balanced(total, c, peak_flops, layers); return;
    case SAX_LAYER_SPLIT_EMBEDDING_LOSS:
        for (int s = 0; s < pp; s++)
            layers[s] = (total + 2) / pp;
        layers[0]--;
        layers[pp - 1]--;
        return;
    case SAX_LAYER_SPLIT_UNIFORM:
    case SAX_LAYER_SPLIT_COUNT: break;
    }
    /* Uniform: equal when the pp x vpp virtual stages divide the layers; otherwise the first
     * `total mod chunks` virtual stages take one layer more, as current DeepSpeed's partition_method
     * "uniform" (deepspeed/runtime/utils.py partition_uniform) splits them. Virtual stage k is chunk
     * k / pp of stage k mod pp. */
    int chunks = pp * c->vpp, base = total / chunks, extra = total % chunks;
    for (int s = 0; s < pp; s++)
        layers[s] = base * c->vpp;
    for (int k = 0; k < extra; k++)
        layers[k % pp]++;
}
