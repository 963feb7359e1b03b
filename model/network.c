/* network.c - bandwidth and latency of one hop at each level, and transports over site links.
 *
 * A group whose smallest enclosing unit is at level L communicates over level L: the scale-up
 * domain (L = 0), tier L-1's network (1 <= L <= n_tiers), or a site link. A tier's `oversubscription`
 * o applies to traffic inside one of its units that crosses its sub-units: when a fraction `share`
 * of the GPUs send across at once, each gets bw / max(1, o * share) (domain.md, "Contention").
 * Traffic crossing a level also crosses every level below it, so the hop takes the minimum.
 * Site links: aggregate capacity C shared by the `flows` crossing it at once, each flow also limited
 * by its NIC, by the building's uplink into the inter-site fabric, and by its transport
 * (connections x goodput of one connection).
 */
#include "model_internal.h"

#include <math.h>

/* Lossless RoCE needs PFC headroom of about 2 x port bandwidth x one-way propagation delay per port
 * and priority (domain.md, "Transport over long links"); beyond the switch's headroom it is unusable. */
bool sax_transport_is_feasible(const sax_site_link_t *l, sax_transport_t t, double port_Bps)
{
    if (t != SAX_TRANSPORT_ROCE)
        return true;
    return 2.0 * port_Bps * l->latency_s <= l->pfc_headroom_bytes;
}

/* Goodput of one connection of a flow whose line rate is line_Bps. */
double sax_transport_flow_Bps(const sax_site_link_t *l, sax_transport_t t, double line_Bps)
{
    double rtt = 2.0 * l->latency_s;
    double q = l->loss;
    /* a connection keeps at most `window` bytes in flight: window / RTT */
    double rate = rtt > 0.0 ? fmin(line_Bps, l->window_bytes / rtt) : line_Bps;
    double inflight_pkts = fmax(1.0, rate * rtt / l->mtu_bytes);
    switch (t) {
    case SAX_TRANSPORT_ROCE:
    case SAX_TRANSPORT_ROCE_GBN:
        /* go-back-N: every loss resends the whole window in flight */
        return rate / (1.0 + q * inflight_pkts);
    case SAX_TRANSPORT_ROCE_SR:
        /* selective repeat (IRN-style): only the lost packet is resent */
        return rate * (1.0 - q);
    case SAX_TRANSPORT_TCP:
        /* Mathis et al. 1997: MSS / RTT * sqrt(3/2) / sqrt(q) */
        if (q > 0.0 && rtt > 0.0)
            rate = fmin(rate, l->mtu_bytes / rtt * 1.2247 / sqrt(q));
        return rate;
    case SAX_TRANSPORT_COUNT: break;
    }
    return rate;
}

static double tier_bw(const sax_tier_t *t, double share)
{
    double o = t->oversubscription * share;
    return t->bw_Bps * t->efficiency / (o > 1.0 ? o : 1.0);
}

sax_hop_t sax_level_hop(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay, int lvl,
                        double share, double flows, int link)
{
    sax_hop_t h;
    h.bw_Bps = cl->scale_up.bw_Bps * cl->scale_up.efficiency;
    h.latency_s = cl->scale_up.latency_s;
    int site_level = lay->n_levels - 1;
    int tiers = lvl < site_level ? lvl : cl->n_tiers;
    for (int t = 0; t < tiers; t++) {
        double bw = tier_bw(&cl->tiers[t], share);
        if (t == 0 || bw < h.bw_Bps)
            h.bw_Bps = bw;
        h.latency_s = cl->tiers[t].latency_s;
    }
    if (lvl == site_level && link >= 0) {
        const sax_site_link_t *l = &cl->links[link];
        double nic = cl->n_tiers > 0 ? cl->tiers[0].bw_Bps * cl->tiers[0].efficiency : h.bw_Bps;
        double per_gpu = fmin(h.bw_Bps, nic / fmax(1.0, l->uplink_oversubscription * share));
        double conn = c->connections * sax_transport_flow_Bps(l, c->transport, nic);
        per_gpu = fmin(per_gpu, conn);
        if (flows > 0.0)
            per_gpu = fmin(per_gpu, l->bw_Bps / flows);
        h.bw_Bps = per_gpu;
        h.latency_s += l->latency_s;
    }
    return h;
}

double sax_compression_factor(sax_compression_t comp, double elem_bytes)
{
    switch (comp) {
    case SAX_COMPRESSION_BF16: return elem_bytes > 2.0 ? 2.0 / elem_bytes : 1.0;
    case SAX_COMPRESSION_FP8: return elem_bytes > 1.0 ? 1.0 / elem_bytes : 1.0;
    case SAX_COMPRESSION_NONE:
    case SAX_COMPRESSION_COUNT: break;
    }
    return 1.0;
}
