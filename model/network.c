/* network.c - what one connection over a site route can carry: the transports, and lossless RoCE's
 * reach. Both the closed forms (collective.c) and the reference simulator (collsim.c) use these:
 * they are the transport model itself, not an approximation of anything.
 *
 * A connection is one NCCL channel's link to its peer. It runs `flows` transport flows: queue pairs
 * (NCCL_IB_QPS_PER_CONNECTION) over RoCE, sockets (NCCL_NSOCKS_PERTHREAD x NCCL_SOCKET_NTHREADS) over
 * TCP. Each flow keeps at most the link's `window` bytes in flight (a NIC's outstanding RDMA bytes, a
 * socket buffer), so it carries at most window / RTT. NCCL's own flow control (NCCL_BUFFSIZE over 8
 * slots per channel) bounds the connection again; that bound is not here but in the slot arithmetic of
 * the collectives, where it belongs.
 */
#include "model_internal.h"

#include <math.h>

void sax_site_path(const sax_cluster_t *cl, const int *links, int hops, sax_path_t *p)
{
    double deliver = 1.0;
    p->latency_s = 0.0;
    p->mtu_bytes = INFINITY;
    p->mss_bytes = INFINITY;
    p->window_bytes = INFINITY;
    p->tcp_delayed_ack = false;
    for (int i = 0; i < hops; i++) {
        const sax_site_link_t *l = &cl->links[links[i]];
        p->latency_s += l->latency_s;
        deliver *= 1.0 - l->loss;
        p->mtu_bytes = fmin(p->mtu_bytes, l->mtu_bytes);
        p->mss_bytes = fmin(p->mss_bytes, l->mss_bytes);
        p->window_bytes = fmin(p->window_bytes, l->window_bytes);
        p->tcp_delayed_ack = p->tcp_delayed_ack || l->tcp_delayed_ack;
    }
    p->loss = 1.0 - deliver;
    p->rtt_s = 2.0 * p->latency_s;
}

/* Lossless RoCE needs PFC headroom of about 2 x port bandwidth x one-way propagation delay per port and
 * priority (domain.md, "Transport over long links"); beyond the switch's headroom it is unusable. */
bool sax_transport_is_feasible(const sax_site_link_t *l, sax_transport_t t, double port_Bps)
{
    if (t != SAX_TRANSPORT_ROCE)
        return true;
    return 2.0 * port_Bps * l->latency_s <= l->pfc_headroom_bytes;
}

double sax_pfc_headroom_needed(const sax_cluster_t *cl, int link)
{
    double port = cl->n_tiers > 0 ? cl->tiers[0].bw_Bps : cl->scale_up.bw_Bps;
    return 2.0 * port * cl->links[link].latency_s;
}

/* Mathis, Semke, Mahdavi & Ott 1997: a TCP flow under random loss p carries MSS / RTT x C / sqrt(p),
 * C = sqrt(3/2) = 1.22 when every segment is acknowledged, sqrt(3/4) = 0.87 with delayed ACKs. */
static double mathis_Bps(const sax_path_t *p)
{
    if (p->loss <= 0.0 || p->rtt_s <= 0.0)
        return INFINITY;
    double c = p->tcp_delayed_ack ? sqrt(0.75) : sqrt(1.5);
    return p->mss_bytes / p->rtt_s * c / sqrt(p->loss);
}

double sax_transport_cap_Bps(const sax_path_t *p, sax_transport_t t, int flows)
{
    double one = p->rtt_s > 0.0 ? p->window_bytes / p->rtt_s : INFINITY;
    if (t == SAX_TRANSPORT_TCP)
        one = fmin(one, mathis_Bps(p));
    return flows * one;
}

/* The part of what a connection sends that is new data, at sending rate rate_Bps split over `flows`:
 * go-back-N resends the whole window in flight of a flow on every loss (Mittal et al., SIGCOMM 2018,
 * IRN), so goodput falls as 1 / (1 + p x packets in flight); lossless RoCE recovers from the rare
 * corruption loss the same way; selective repeat resends only the lost packet; TCP's retransmissions
 * are the loss itself (its rate limit is in sax_transport_cap_Bps). */
double sax_transport_efficiency(const sax_path_t *p, sax_transport_t t, int flows, double rate_Bps)
{
    double q = p->loss;
    if (q <= 0.0)
        return 1.0;
    switch (t) {
    case SAX_TRANSPORT_ROCE:
    case SAX_TRANSPORT_ROCE_GBN: {
        double inflight = fmax(1.0, rate_Bps * p->rtt_s / flows / p->mtu_bytes);
        return 1.0 / (1.0 + q * inflight);
    }
    case SAX_TRANSPORT_ROCE_SR:
    case SAX_TRANSPORT_TCP: return 1.0 - q;
    case SAX_TRANSPORT_COUNT: break;
    }
    return 1.0;
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
