/* defaults.c - values of model parameters that a configuration may leave out.
 *
 * These are properties of the software stack and hardware generation rather than user choices;
 * `sax calibrate` fits them to a user's measurements. The generic values below are used for GPUs
 * without a built-in preset; the presets in io/presets.c carry per-GPU fitted values
 * (docs/cost-model.md, "Parameters and where they come from").
 */
#include "sax_model.h"

#include <string.h>

void sax_gpu_set_defaults(sax_gpu_t *gpu)
{
    gpu->gemm_eff_max = 0.80;
    gpu->gemm_eff_half_ai = 100.0;
    gpu->mem_eff = 0.70;
    gpu->reserved_bytes = 3.0 * 1024 * 1024 * 1024;
}

void sax_training_set_defaults(sax_training_t *t)
{
    t->precision = SAX_PRECISION_BF16;
    /* fitted with the GPU presets' efficiencies to the published runs (docs/cost-model.md) */
    t->dp_overlap_efficiency = 0.27;
    t->tp_overlap = 0.39;
    t->flash_attention = true;
    t->grad_reduce_bytes = 2.0; /* bf16, Megatron-Core's default; 4 for fp32 reduction */
}

void sax_cluster_set_defaults(sax_cluster_t *c)
{
    c->scale_up.efficiency = 0.80;
    for (int i = 0; i < SAX_MAX_TIERS; i++) {
        c->tiers[i].efficiency = 0.90;
        c->tiers[i].oversubscription = 1.0;
    }
    for (int i = 0; i < SAX_MAX_LINKS; i++) {
        sax_site_link_t *l = &c->links[i];
        l->loss = 0.0;
        l->mtu_bytes = 4096.0;
        l->window_bytes = 16.0 * 1024 * 1024;
        l->pfc_headroom_bytes = 2.0 * 1024 * 1024;
        l->uplink_oversubscription = 1.0;
    }
}
