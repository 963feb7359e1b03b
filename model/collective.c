/* collective.c - closed forms of collectives and point-to-point transfers as NCCL runs them, for the
 * evaluation path (no allocation, a few hundred operations). collsim.c is their reference: the tests
 * hold each closed form to it over a grid (docs/cost-model.md section 5 derives every term).
 *
 * Geometry. A group spans units[l] units of each level l; a ring visits members in rank order, so per
 * channel it crosses out of every level-l unit once: units[l] edges leave level-l units (0 when the
 * group fits one), and edges[l] edges run at exactly level l.
 * Rates. Per channel, an edge at level l gets the smallest of its shares: of its GPU's NVLink (level
 * 0), of its GPU's NIC (channels leave a domain through different GPUs, NCCL's rings spread over the
 * NICs), of each unit uplink it leaves (unit GPUs x bandwidth / oversubscription, split among the
 * groups of this shape in the unit), of the site links and the site's uplink on its route, and of its
 * transport.
 * Time. NCCL's ring (src/device/all_reduce.h) runs per channel loops of n chunks of NCCL_BUFFSIZE/2;
 * each step waits for the previous rank's step, so a chunk's chain of 2(n-1) hops pays each hop's
 * latency and store-and-forward of a slice; the slowest edge carries every slice; 8 slots per
 * connection bound what is in flight to NCCL_BUFFSIZE per round trip.
 */
#include "model_internal.h"

#include <math.h>
#include <string.h>

int sax_channels(const sax_candidate_t *c, int members_per_domain)
{
    if (c->channels > 0)
        return c->channels;
    /* NCCL's search finds one ring per NIC and doubles the channels (two per NIC); a group with one
     * GPU per node gets two */
    int ch = 2 * (members_per_domain > 1 ? members_per_domain : 1);
    return ch > 32 ? 32 : ch;
}

double sax_nccl_buffer_bytes(const sax_candidate_t *c)
{
    return c->buffer_bytes > 0 ? (double)c->buffer_bytes : (double)SAX_NCCL_BUFFSIZE_DEFAULT;
}

double sax_nccl_p2p_chunk(const sax_candidate_t *c, bool nvlink)
{
    double net = c->p2p_chunk_bytes > 0 ? (double)c->p2p_chunk_bytes : (double)SAX_NCCL_P2P_CHUNK_DEFAULT;
    return sax_min(nvlink ? SAX_NCCL_P2P_NVL_CHUNK : net, sax_nccl_buffer_bytes(c) / SAX_NCCL_STEPS);
}

int sax_p2p_channels(const sax_cluster_t *cl, const sax_candidate_t *c)
{
    if (c->p2p_channels > 0)
        return c->p2p_channels;
    /* NCCL (src/graph/paths.cc): at least one channel per NIC, one per NCCL_P2P_PER_CHANNEL_NET_BW =
     * 14 GB/s of the NIC's line rate, at most MAXCHANNELS (32); bounded before the conversion, as a
     * NIC may be given any bandwidth */
    double nic = cl->n_tiers > 0 ? cl->tiers[0].bw_Bps : cl->scale_up.bw_Bps;
    double ch = ceil(nic / 14e9);
    return ch < 1.0 ? 1 : ch > 32.0 ? 32 : (int)ch;
}

static double nic_Bps(const sax_cluster_t *cl)
{
    return cl->n_tiers > 0 ? cl->tiers[0].bw_Bps * cl->tiers[0].efficiency
                           : cl->scale_up.bw_Bps * cl->scale_up.efficiency;
}

/* ---- NCCL's trees ---------------------------------------------------------------------------------- */

/* NCCL's binary tree over f nodes (src/graph/trees.cc ncclGetBtree): node 0 is the root. */
static void btree(int f, int rank, int *up, int *d0, int *d1)
{
    int bit;
    for (bit = 1; bit < f; bit <<= 1)
        if (bit & rank)
            break;
    if (rank == 0) {
        *up = -1;
        *d0 = -1;
        *d1 = f > 1 ? bit >> 1 : -1;
        return;
    }
    int u = (rank ^ bit) | (bit << 1);
    if (u >= f)
        u = rank ^ bit;
    *up = u;
    int lowbit = bit >> 1;
    *d0 = lowbit == 0 ? -1 : rank - lowbit;
    int d = lowbit == 0 ? -1 : rank + lowbit;
    while (d >= f) {
        lowbit >>= 1;
        d = lowbit == 0 ? -1 : rank + lowbit;
    }
    *d1 = d;
}

/* Parent of index i among f in tree t (1: the mirror, or the shift by one when f is odd). */
void sax_dtree_node(int f, int i, int t, int *up, int *d0, int *d1)
{
    if (t == 0 || f <= 1) {
        btree(f, i, up, d0, d1);
        return;
    }
    int u, a, b;
    if (f % 2 == 1) { /* the second tree: the first shifted by one */
        btree(f, (i - 1 + f) % f, &u, &a, &b);
        *up = u < 0 ? -1 : (u + 1) % f;
        *d0 = a < 0 ? -1 : (a + 1) % f;
        *d1 = b < 0 ? -1 : (b + 1) % f;
        return;
    }
    btree(f, f - 1 - i, &u, &a, &b); /* ... or mirrored */
    *up = u < 0 ? -1 : f - 1 - u;
    *d0 = a < 0 ? -1 : f - 1 - a;
    *d1 = b < 0 ? -1 : f - 1 - b;
}

int sax_dtree_parent(int f, int i, int t)
{
    int up, d0, d1;
    sax_dtree_node(f, i, t, &up, &d0, &d1);
    return up;
}

/* ---- the ring ---------------------------------------------------------------------------------- */

#define RING_MAX_CLASSES (SAX_MAX_LEVELS + SAX_MAX_SITES)

/* A ring's edges in classes of equal rate and latency: one per level inside a site, one per hop
 * between sites. */
typedef struct {
    double count;    /* edges of the class in one channel's ring */
    double rate_Bps; /* per channel payload rate of one edge */
    double lat_s;    /* its one-way latency */
    double rx_s;     /* per byte, how long the receiving GPU's step holds the slot: a slice written on
                        over NVLink (0 when it goes on over the network) */
    int prev;        /* the class of the hop just before an edge of this class in the ring */
    double run;      /* edges of this class in a row (inside one unit of the level above) */
    bool coupled;    /* its receiver forwards over the next class, a slow edge (a lone member between
                        two site links): its credits come back at that edge's pace */
    int level;       /* the level the edges cross (the site level: a hop between sites) */
    int from_site;   /* a hop between sites: the site it leaves */
} edge_class_t;

typedef struct {
    int n, ch, n_cls;
    bool uneven; /* a group that does not nest: its ranks' chains differ */
    edge_class_t cls[RING_MAX_CLASSES];
} ring_t;

/* Share of the uplink of one level-t unit that a group gets per channel: all groups of its shape in
 * the unit split it by members, a group alone has it whole (nccl-tests). */
/* The GPUs' worth of a unit's uplink a group with m members in it gets: the unit's GPUs split among the
 * `active` GPUs communicating at once (all of a unit when every group of the shape does, the group's
 * own when it is alone). */
static double unit_gpus(double m, double unit, double active) { return unit * m / sax_max(m, active); }

static double uplink_share(const sax_cluster_t *cl, const sax_layout_t *lay, const sax_group_t *g, int t,
                           int ch)
{
    const sax_tier_t *tr = &cl->tiers[t];
    double gpus = g->uneven && g->few_gpus[t] > 0.0
                      ? g->few_gpus[t]
                      : unit_gpus((double)g->n / g->units[t], lay->unit[t], g->active[t]);
    if (g->has_tail && g->tail_gpus[t] > 0.0) /* a partial unit: its own GPUs' uplink, for its members */
        gpus = sax_min(gpus, g->tail_gpus[t]);
    return gpus * tr->bw_Bps * tr->efficiency / tr->oversubscription / ch;
}

static double level_latency(const sax_cluster_t *cl, int level)
{
    if (level == 0)
        return cl->scale_up.latency_s;
    if (level <= cl->n_tiers)
        return cl->tiers[level - 1].latency_s;
    return cl->n_tiers > 0 ? cl->tiers[cl->n_tiers - 1].latency_s : cl->scale_up.latency_s;
}

static void ring_geometry(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                          const sax_group_t *g, int ch, bool rotate, ring_t *r)
{
    int site_level = lay->n_levels - 1;
    r->n = g->n;
    r->ch = ch;
    r->n_cls = 0;
    r->uneven = g->uneven;
    int m0 = (int)lrint((double)g->n / g->units[0]);
    if (m0 < 1)
        m0 = 1;
    /* NVLink: a GPU sends on every channel but those that leave its domain through it (the fullest
     * domain's GPUs leave on the fewest) */
    double nvl = cl->scale_up.bw_Bps * cl->scale_up.efficiency;
    int m_full = g->uneven ? g->count[0] : m0;
    double nvl_rate = g->top == 0 || !rotate ? nvl / ch : nvl / (ch - ch / m_full);
    if (g->uneven) /* the emptiest domain's GPUs take the most channels out */
        m0 = g->few[0];
    double rx_nvl = 0.0; /* set once the slice size is known: a fraction of NVLink's slice time */
    (void)rx_nvl;
    bool lone[RING_MAX_CLASSES] = {false};
    /* edges leaving level-l units, per channel */
    double leave[SAX_MAX_LEVELS];
    for (int l = 0; l < site_level; l++)
        leave[l] = g->units[l] > 1 ? g->units[l] : 0.0;
    /* a ring's channels leave a domain through different GPUs; a shift's through the same one */
    double nic = nic_Bps(cl) / (rotate ? ceil((double)ch / m0) : ch);
    for (int l = 0; l < site_level; l++) {
        double count = l == 0 ? g->n - leave[0] : leave[l - 1] - leave[l];
        if (count <= 0.0)
            continue;
        double rate = nvl_rate;
        if (l > 0) {
            rate = nic;
            int tiers = l < cl->n_tiers ? l : cl->n_tiers;
            for (int t = 0; t < tiers; t++)
                rate = sax_min(rate, uplink_share(cl, lay, g, t, ch));
        }
        /* in a row: inside one domain; at a level above, only when the units below hold one member */
        double below = l == 0 ? 1.0 : (double)g->n / g->units[l - 1];
        double per_unit = (double)g->units[l > 0 ? l - 1 : 0] / (l + 1 < site_level ? g->units[l] : g->sites);
        double run = l == 0 ? (double)g->n / g->units[0] - 1.0 : (below <= 1.0 ? per_unit - 1.0 : 1.0);
        r->cls[r->n_cls++] = (edge_class_t){.count = count,
                                            .rate_Bps = rate,
                                            .lat_s = level_latency(cl, l),
                                            .run = run,
                                            .level = l,
                                            .from_site = -1};
        /* a unit of the level below holding one member (a group that does not nest): the hop into it
         * crosses this level too */
        lone[r->n_cls - 1] = l > 0 && g->uneven && g->few[l - 1] == 1 && g->count[l - 1] > 1;
    }
    /* the rings that skip the last site (short_groups): their hops on each link and direction */
    double short_hops[SAX_MAX_LINKS][2];
    if (g->short_groups > 0) {
        memset(short_hops, 0, sizeof short_hops);
        for (int i = 0, f = g->sites - 1; i < f; i++) {
            int links[SAX_MAX_SITES], dirs[SAX_MAX_SITES];
            int h = sax_site_route(cl, g->site[i], g->site[(i + 1) % f], links, dirs);
            for (int k = 0; k < h; k++)
                short_hops[links[k]][dirs[k]] += 1.0;
        }
    }
    if (g->sites > 1) {
        double base = nic, m_site = (double)g->n / g->sites;
        for (int t = 0; t < cl->n_tiers; t++)
            base = sax_min(base, uplink_share(cl, lay, g, t, ch));
        for (int i = 0; i < g->sites; i++) {
            int links[SAX_MAX_SITES], dirs[SAX_MAX_SITES];
            int from = g->site[i], to = g->site[(i + 1) % g->sites];
            int h = sax_site_route(cl, from, to, links, dirs);
            const sax_site_link_t *first = &cl->links[links[0]];
            double site_gpus = g->uneven && g->few_gpus[site_level] > 0.0
                                   ? g->few_gpus[site_level]
                                   : unit_gpus(m_site, cl->sites[from].gpus, g->active[site_level]);
            double rate = sax_min(base, site_gpus * nic_Bps(cl) / first->uplink_oversubscription / ch);
            for (int k = 0; k < h; k++) {
                double rings = (double)g->groups * g->link_hops[links[k]][dirs[k]];
                if (g->short_groups > 0)
                    rings = (double)(g->groups - g->short_groups) * g->link_hops[links[k]][dirs[k]] +
                            g->short_groups * short_hops[links[k]][dirs[k]];
                rate = sax_min(rate, cl->links[links[k]].bw_Bps / (rings * ch));
            }
            sax_path_t p;
            sax_site_path(cl, links, h, &p);
            rate = sax_min(rate, sax_transport_cap_Bps(&p, c->transport, c->connections));
            rate *= sax_transport_efficiency(&p, c->transport, c->connections, rate);
            r->cls[r->n_cls++] = (edge_class_t){.count = 1.0,
                                                .rate_Bps = rate,
                                                .lat_s = level_latency(cl, site_level) + p.latency_s,
                                                .run = 1.0,
                                                .level = site_level,
                                                .from_site = from};
        }
    }
    /* the GPU a slice arrives at writes it on over NVLink unless it is its domain's exit; the hop before
     * an edge is the innermost one (inside its unit the ring runs member by member), or for hops
     * between sites with one member each, the hop between the sites before */
    int n_inner = r->n_cls - (g->sites > 1 ? g->sites : 0);
    for (int i = 0; i < r->n_cls; i++) {
        r->cls[i].rx_s = m0 > 1 ? 1.0 / nvl_rate : 0.0;
        r->cls[i].prev = n_inner > 0 && i > 0 ? 0 : (i >= n_inner && i > n_inner ? i - 1 : r->n_cls - 1);
        if (i == 0 && n_inner > 0)
            r->cls[i].prev = 0;
        if (lone[i])
            r->cls[i].prev = i;
    }
    /* a site holding one member (the last, in a group that does not nest in the sites): the hop
     * leaving it follows the hop into it */
    if (g->uneven && g->sites > 1 && g->few[site_level] == 1) {
        r->cls[r->n_cls - 1].prev = r->n_cls - 2;
        r->cls[r->n_cls - 2].coupled = true;
    }
}

/* A ring's work per channel: `loops` full loops and maybe one partial loop, each of `sends` slice
 * sends per edge (2 per step), loop by loop. */
typedef struct {
    double loops[2]; /* full loops, then 0 or 1 partial loop */
    double slice[2]; /* slice bytes of each */
    double chain[2]; /* one loop's dependency chain */
    double hop[2];   /* the chain's average cost per step (latency + a slice's store and forward) */
    double sends;    /* slice sends per edge per loop */
} ring_work_t;

/* floor() of a count that is never negative, as one conversion instruction (floor is a libm call on
 * baseline x86-64; this runs some hundred times per ring timed) */
static inline double whole(double x) { return (double)(int64_t)x; }

/* How sends go over an edge: s per slice, a slot's credit back `credit` after its send started, and
 * for an edge into a member that forwards over a slow edge of its own (a lone member between two site
 * links), `pair` (0 otherwise): that member frees the slot it read only when its own send has a slot,
 * so the credits come back one pair of sends (one step) per half the slower round trip, not four
 * sends per round trip. */
typedef struct {
    double s, credit, pair;
} pace_t;

/* Start of the j-th send after a first one at 0 over an edge: one after the other (s each), and a slice
 * only once the slice four sends back has its credit back, `credit` after that one started (NCCL's 4
 * slices in flight per connection): sends go in groups of four, max(4 s, credit) apart. Paced by
 * pairs, the k-th pair (k = j / 2) starts no sooner than (k - 1) x pair + credit / 2 when the first
 * four went with credits in hand (`fresh`, the start of the collective), else k x pair. */
SAX_INLINE double send_start(double j, pace_t p, bool fresh)
{
    double q = whole(j * 0.25);
    double t = q * sax_max(4.0 * p.s, p.credit) + (j - 4.0 * q) * p.s;
    if (p.pair > 0.0) {
        double k = whole(j * 0.5),
               by_pair = fresh ? (k >= 2.0 ? (k - 1.0) * p.pair + 0.5 * p.credit : 0.0) : k * p.pair;
        t = sax_max(t, by_pair + (j - 2.0 * k) * p.s);
    }
    return t;
}

/* The same for a connection with `slots` slots of one chunk each (trees, point-to-point): start of the
 * last of k chunks. */
static double chunks_start(double k, double s, double lat, double slots)
{
    if (k <= 1.0)
        return 0.0;
    double q = whole((k - 1.0) / slots);
    return q * sax_max(slots * s, s + 2.0 * lat) + (k - 1.0 - slots * q) * s;
}

/* From the start of a send to the end of the d0-th send from it, then of d1 more (the partial loop's,
 * smaller), whose first waits for the credit of the fourth send back. */
SAX_INLINE double sends_cost(double d0, pace_t p0, bool fresh, double d1, pace_t p1)
{
    double end0 = send_start(d0 - 1.0, p0, fresh) + p0.s;
    if (d1 <= 0.0)
        return end0;
    double next = d0 >= 4.0 ? sax_max(end0, send_start(d0 - 4.0, p0, fresh) + p0.credit) : end0;
    if (p0.pair > 0.0)
        next = sax_max(next, send_start(d0, p0, fresh));
    return next + send_start(d1 - 1.0, p1, false) + p1.s;
}

/* When edge class e's last slice arrives: the latest over its sends i of (when send i's data is ready
 * + the cost of sends i .. last), the data of step o of a loop being ready the loop's start + o chain
 * steps after. The terms are linear in i apart from period-4 wiggles, so the first and last four
 * sends of the first and last full loops and of the partial loop hold the maximum. */
SAX_INLINE double arrival(const ring_t *r, const edge_class_t *e, const ring_work_t *w, bool coupled)
{
    const edge_class_t *before = &r->cls[e->prev];
    pace_t pace[2];
    double n[2];
    for (int p = 0; p < 2; p++) {
        double s = w->slice[p] / e->rate_Bps;
        pace[p] = (pace_t){s, s + 2.0 * e->lat_s + w->slice[p] * e->rx_s, 0.0};
        if (coupled) {
            const edge_class_t *out = e + 1;
            double s_out = w->slice[p] / out->rate_Bps;
            pace[p].pair = 0.5 * sax_max(pace[p].credit, s_out + 2.0 * out->lat_s + w->slice[p] * out->rx_s);
        }
        n[p] = w->loops[p] * w->sends;
    }
    double best = 0.0, before_lat = before->lat_s;
    for (int p = 0; p < 2; p++) {
        if (n[p] <= 0.0)
            continue;
        double before_s = w->slice[p] / before->rate_Bps, base = p == 1 ? w->loops[0] * w->chain[0] : 0.0;
        for (int which = 0; which < (w->loops[p] > 1.0 ? 2 : 1); which++) {
            double loop = which == 0 ? 0.0 : w->loops[p] - 1.0, start = base + loop * w->chain[p];
            for (int k = 0; k < 8; k++) {
                double in_loop = k < 4 ? (double)k : w->sends - 8.0 + k;
                if (in_loop < 0.0 || in_loop >= w->sends || (k >= 4 && in_loop < 4.0))
                    continue;
                double i = loop * w->sends + in_loop; /* send index within the segment */
                double op = whole(in_loop * 0.5);
                double ready = start + (op >= 1.0 ? (op - 1.0) * w->hop[p] + before_lat + before_s : 0.0);
                bool fresh = i < 4.0 && (p == 0 || w->loops[0] <= 0.0);
                double cost = p == 0 ? sends_cost(n[0] - i, pace[0], fresh, n[1], pace[1])
                                     : sends_cost(n[1] - i, pace[1], fresh, 0.0, pace[1]);
                best = sax_max(best, ready + cost);
            }
        }
    }
    return best + e->lat_s;
}

/* (two copies of arrival, the common one without the pairs' pacing: this runs for every ring timed) */
static double edge_arrival(const ring_t *r, const edge_class_t *e, const ring_work_t *w)
{
    return e->coupled ? arrival(r, e, w, true) : arrival(r, e, w, false);
}

/* One channel's ring time on `bytes` per member, as the longer of two paths through NCCL's steps
 * (docs/cost-model.md 5.2): the sends over one edge (in a row, 4 slices per credit round trip, each
 * once its data has come round the ring); and the loops one after the other, each a chain of 2(n-1)
 * (all-reduce) or n-1 hops paying each hop's latency and a slice's store and forward. */
static double ring_time(const ring_t *r, sax_coll_op_t op, double bytes, double buffer)
{
    int n = r->n;
    double steps = op == SAX_OP_ALL_REDUCE ? 2.0 * (n - 1) : n - 1.0;
    double chunk_max = buffer / 2.0, per_channel = bytes / r->ch;
    double loop_bytes = n * chunk_max;
    ring_work_t w = {.sends = 2.0 * steps};
    w.loops[0] = floor(per_channel / loop_bytes);
    double rest = per_channel - w.loops[0] * loop_bytes;
    w.loops[1] = rest > 0.0 ? 1.0 : 0.0;
    w.slice[0] = chunk_max / 2.0;
    w.slice[1] = rest / n / 2.0;
    double edges = 0.0;
    for (int i = 0; i < r->n_cls; i++)
        edges += r->cls[i].count;
    double t = 0.0;
    for (int p = 0; p < 2; p++) {
        double sum = 0.0, s_max = 0.0, lo = INFINITY, lo2 = INFINITY;
        int lo_cls = 0;
        for (int i = 0; i < r->n_cls; i++) {
            double s = w.slice[p] / r->cls[i].rate_Bps, hop = r->cls[i].lat_s + s;
            s_max = sax_max(s_max, s);
            sum += r->cls[i].count * hop;
            if (hop < lo) {
                lo2 = lo;
                lo = hop;
                lo_cls = i;
            } else {
                lo2 = sax_min(lo2, hop);
            }
        }
        w.hop[p] = sum / edges;
        /* The chain of a chunk: the ring's hops once but the cheapest (n-1 steps), or twice but the
         * cheapest two in a row (2(n-1)): two of the cheapest class where it runs at least two edges
         * long inside its units, else the cheapest and the next; then the chunk's second slice. */
        double pair = r->cls[lo_cls].run >= 2.0 ? 2.0 * lo : lo + (lo2 < INFINITY ? lo2 : lo);
        double path = op == SAX_OP_ALL_REDUCE ? 2.0 * sum - pair : sum - lo;
        /* or a rank's last receive of the loop, after every slice of the loop over the edge into it: the
         * next loop starts after both */
        w.chain[p] = path + s_max;
        for (int i = 0; i < r->n_cls; i++)
            w.chain[p] = sax_max(w.chain[p], w.sends * w.slice[p] / r->cls[i].rate_Bps + r->cls[i].lat_s);
        if (r->uneven && p == 0 && w.loops[0] > 1.0) {
            /* loop after loop, each rank's chain is its own: they average out to the ring's hops times
             * (n - 1) / n per pass. A rank starts a loop once the last slice of the previous one came
             * in over the edge into it: round the ring, loops pace at the edges' mean of their sends
             * and latency (a cycle's mean weight), and no faster than the busiest edge sends. */
            double mean = (op == SAX_OP_ALL_REDUCE ? 2.0 : 1.0) * (n - 1.0) / n * sum + s_max,
                   first = w.chain[0], edge = 0.0, cycle = 0.0;
            for (int i = 0; i < r->n_cls; i++) {
                double sends = w.sends * w.slice[p] / r->cls[i].rate_Bps;
                edge = sax_max(edge, sends);
                cycle += r->cls[i].count * (sends + r->cls[i].lat_s);
            }
            edge = sax_max(edge, cycle / edges);
            w.chain[0] = sax_min(sax_max(mean, edge), first);
            /* the first loop's longest chain once, unless an edge's sends set the pace from the start */
            if (mean > edge)
                t += first - w.chain[0];
        }
        t += w.loops[p] * w.chain[p];
    }
    for (int i = 0; i < r->n_cls; i++) {
        bool seen = false; /* alike classes (hops between sites alike) arrive alike */
        for (int j = 0; j < i && !seen; j++)
            seen = r->cls[j].rate_Bps == r->cls[i].rate_Bps && r->cls[j].lat_s == r->cls[i].lat_s &&
                   r->cls[j].rx_s == r->cls[i].rx_s && r->cls[j].prev == r->cls[i].prev &&
                   r->cls[j].coupled == r->cls[i].coupled;
        if (!seen)
            t = sax_max(t, edge_arrival(r, &r->cls[i], &w));
    }
    return t;
}

/* ---- max-min shares of flows in classes -------------------------------------------------------- */

#define WF_MAX_CLS (SAX_MAX_LEVELS + SAX_MAX_SITES)
#define WF_MAX_RES (SAX_MAX_LEVELS + 2 * SAX_MAX_LINKS + 4)

/* Classes of identical flows through shared resources: progressive filling (all classes rise together;
 * a class stops at its own limit or when a resource it crosses is full). */
typedef struct {
    int n_cls, n_res;
    double cls_cap[WF_MAX_CLS]; /* a flow's own limit (transport), INFINITY when none */
    double res_cap[WF_MAX_RES];
    double use[WF_MAX_RES][WF_MAX_CLS]; /* flows of each class through each resource */
    double rate[WF_MAX_CLS];
} share_t;

static void water_fill(share_t *w)
{
    bool frozen[WF_MAX_CLS];
    double used[WF_MAX_RES] = {0};
    int left = 0;
    for (int k = 0; k < w->n_cls; k++) {
        bool any = false;
        for (int r = 0; r < w->n_res; r++)
            any = any || w->use[r][k] > 0.0;
        frozen[k] = !any;
        w->rate[k] = any ? 0.0 : INFINITY;
        left += any;
    }
    while (left > 0) {
        double level = INFINITY;
        for (int k = 0; k < w->n_cls; k++)
            if (!frozen[k])
                level = sax_min(level, w->cls_cap[k]);
        for (int r = 0; r < w->n_res; r++) {
            double active = 0.0;
            for (int k = 0; k < w->n_cls; k++)
                if (!frozen[k])
                    active += w->use[r][k];
            if (active > 0.0)
                level = sax_min(level, (w->res_cap[r] - used[r]) / active);
        }
        bool stop[WF_MAX_CLS] = {false};
        for (int k = 0; k < w->n_cls; k++)
            stop[k] = !frozen[k] && w->cls_cap[k] <= level * (1.0 + 1e-12);
        for (int r = 0; r < w->n_res; r++) {
            double active = 0.0;
            for (int k = 0; k < w->n_cls; k++)
                if (!frozen[k])
                    active += w->use[r][k];
            if (active > 0.0 && (w->res_cap[r] - used[r]) / active <= level * (1.0 + 1e-12))
                for (int k = 0; k < w->n_cls; k++)
                    stop[k] = stop[k] || (!frozen[k] && w->use[r][k] > 0.0);
        }
        for (int k = 0; k < w->n_cls; k++)
            if (stop[k]) {
                frozen[k] = true;
                w->rate[k] = level;
                left--;
                for (int r = 0; r < w->n_res; r++)
                    used[r] += w->use[r][k] * level;
            }
    }
}

/* ---- point-to-point: all-to-all and sendrecv ------------------------------------------------------ */

/* One flow of `bytes` in chunks through NCCL's 8 slots: the same send recurrence as a ring's edge with
 * eight slots in flight, each freed on arrival. */
static double p2p_flow_s(double bytes, double chunk, double rate, double lat)
{
    if (bytes <= 0.0)
        return 0.0;
    double k = ceil(bytes / chunk), last = (bytes - (k - 1.0) * chunk) / rate;
    return chunks_start(k, chunk / rate, lat, SAX_NCCL_STEPS) + last + lat;
}

/* What one connection across sites over the route from site a to b may carry, after loss. */
static double route_cap(const sax_cluster_t *cl, const sax_candidate_t *c, int a, int b, double *lat)
{
    int links[SAX_MAX_SITES], dirs[SAX_MAX_SITES];
    int h = sax_site_route(cl, a, b, links, dirs);
    sax_path_t p;
    sax_site_path(cl, links, h > 0 ? h : 0, &p);
    *lat = p.latency_s;
    return sax_transport_cap_Bps(&p, c->transport, c->connections);
}

static double route_efficiency(const sax_cluster_t *cl, const sax_candidate_t *c, int a, int b, double rate)
{
    int links[SAX_MAX_SITES], dirs[SAX_MAX_SITES];
    int h = sax_site_route(cl, a, b, links, dirs);
    sax_path_t p;
    sax_site_path(cl, links, h > 0 ? h : 0, &p);
    return sax_transport_efficiency(&p, c->transport, c->connections, rate);
}

/* Cross-site bytes of one group, `per_pair` bytes from every member of site i to every member of site j
 * (i != j), on the links of their routes; times the groups. */
static void traffic_pairs(const sax_cluster_t *cl, const sax_group_t *g, double per_pair, sax_traffic_t *tr)
{
    if (tr == NULL || g->sites <= 1)
        return;
    double m = (double)g->n / g->sites;
    for (int i = 0; i < g->sites; i++)
        for (int j = 0; j < g->sites; j++) {
            if (i == j)
                continue;
            int links[SAX_MAX_SITES], dirs[SAX_MAX_SITES];
            int h = sax_site_route(cl, g->site[i], g->site[j], links, dirs);
            double b = per_pair * m * m * g->groups;
            tr->xsite_bytes += b;
            for (int k = 0; k < h; k++)
                tr->link_bytes[links[k]][dirs[k]] += b;
        }
}

/* All-to-all (NCCL: a send and a receive to every peer at once, p2p channels each) seen from the
 * members of one site `src`: peers in classes by the level they sit at inside the site, and one class
 * per other site; their flows share the GPU's NVLink or NIC, the uplinks of the units they leave, the
 * site's uplink and the site links on their routes (where the other sites' members send too); the
 * slowest class finishes last. */
/* Members of the group in its i-th site: n / sites, or where sites hold unequal numbers, the fullest
 * number in each but the last, which holds the rest. */
static double site_members(const sax_group_t *g, int site_level, int i)
{
    if (!g->uneven)
        return (double)g->n / g->sites;
    int few = g->few[site_level];
    return i == g->sites - 1 ? few : (double)(g->n - few) / (g->sites - 1);
}

/* ... from a member in units of each level holding m[l] members (the group's average, or in a group
 * that does not nest, its fullest or its emptiest units), each unit's uplink `gpus[l]` GPUs' worth
 * (NULL: the unit's share by members) */
static double all_to_all_at(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                            const sax_group_t *g, int src, double bytes, const double *m,
                            const double *gpus_at)
{
    int site_level = lay->n_levels - 1, p = sax_p2p_channels(cl, c);
    int n_in = site_level; /* classes 0 .. site_level-1 inside the site, then one per other site */
    double m_site = site_members(g, site_level, src);
    share_t w = {.n_cls = n_in + g->sites};
    double peers[WF_MAX_CLS] = {0}, lat[WF_MAX_CLS] = {0}, below = 1.0;
    for (int l = 0; l < site_level; l++) {
        peers[l] = sax_min(m[l], m_site) - below;
        below = sax_min(m[l], m_site);
        w.cls_cap[l] = INFINITY;
        lat[l] = level_latency(cl, l);
    }
    for (int j = 0; j < g->sites; j++) {
        int k = n_in + j;
        w.cls_cap[k] = INFINITY;
        if (j == src)
            continue;
        peers[k] = site_members(g, site_level, j);
        double route_lat = 0.0;
        w.cls_cap[k] = route_cap(cl, c, g->site[src], g->site[j], &route_lat);
        lat[k] = level_latency(cl, site_level) + route_lat;
    }
    /* this site's GPUs: NVLink, NIC, the unit uplinks, the site's uplink */
    w.res_cap[w.n_res] = cl->scale_up.bw_Bps * cl->scale_up.efficiency;
    w.use[w.n_res++][0] = peers[0] * p;
    w.res_cap[w.n_res] = nic_Bps(cl);
    for (int k = 1; k < w.n_cls; k++)
        w.use[w.n_res][k] = peers[k] * p;
    w.n_res++;
    for (int t = 0; t < cl->n_tiers && t < site_level; t++) {
        const sax_tier_t *tr = &cl->tiers[t];
        double gpus = gpus_at != NULL ? gpus_at[t] : unit_gpus(m[t], lay->unit[t], g->active[t]);
        if (g->has_tail && g->tail_gpus[t] > 0.0) /* a partial unit's uplink, for the members it holds */
            gpus = sax_min(gpus, g->tail_gpus[t] * m[t] / g->tail[t]);
        w.res_cap[w.n_res] = gpus * tr->bw_Bps * tr->efficiency / tr->oversubscription;
        for (int k = t + 1; k < w.n_cls; k++)
            w.use[w.n_res][k] = sax_min(m[t], m_site) * peers[k] * p;
        w.n_res++;
    }
    if (g->sites > 1) {
        int j0 = src == 0 ? 1 : 0, links[SAX_MAX_SITES], dirs[SAX_MAX_SITES];
        sax_site_route(cl, g->site[src], g->site[j0], links, dirs);
        double site_gpus = g->uneven && g->few_gpus[site_level] > 0.0
                               ? g->few_gpus[site_level]
                               : unit_gpus(m_site, cl->sites[g->site[src]].gpus, g->active[site_level]);
        w.res_cap[w.n_res] = site_gpus * nic_Bps(cl) / cl->links[links[0]].uplink_oversubscription;
        for (int j = 0; j < g->sites; j++)
            w.use[w.n_res][n_in + j] = m_site * peers[n_in + j] * p;
        w.n_res++;
        /* the site links: this site's pairs on their routes, every other pair counted as a flow of the
         * class of this site's pair on the same link and direction (the sites are alike) */
        for (int l = 0; l < cl->n_links; l++)
            for (int d = 0; d < 2; d++) {
                double all = 0.0, mine[SAX_MAX_SITES] = {0};
                for (int i = 0; i < g->sites; i++)
                    for (int j = 0; j < g->sites; j++) {
                        if (i == j)
                            continue;
                        int h = sax_site_route(cl, g->site[i], g->site[j], links, dirs);
                        for (int q = 0; q < h; q++)
                            if (links[q] == l && dirs[q] == d) {
                                double pairs =
                                    site_members(g, site_level, i) * site_members(g, site_level, j);
                                all += pairs * p * g->groups;
                                if (i == src)
                                    mine[j] += pairs * p * g->groups;
                            }
                    }
                double own = 0.0;
                for (int j = 0; j < g->sites; j++)
                    own += mine[j];
                if (own <= 0.0)
                    continue;
                w.res_cap[w.n_res] = cl->links[l].bw_Bps * own / all;
                for (int j = 0; j < g->sites; j++)
                    w.use[w.n_res][n_in + j] = mine[j];
                w.n_res++;
            }
    }
    water_fill(&w);
    double per_flow = bytes / g->n / p, t = 0.0;
    for (int k = 0; k < w.n_cls; k++) {
        if (peers[k] <= 0.0)
            continue;
        double rate = w.rate[k];
        if (k >= n_in)
            rate *= route_efficiency(cl, c, g->site[src], g->site[k - n_in], rate);
        t = sax_max(t, p2p_flow_s(per_flow, sax_nccl_p2p_chunk(c, k == 0), rate, lat[k]));
    }
    return t;
}

static double all_to_all_from(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                              const sax_group_t *g, int src, double bytes)
{
    int site_level = lay->n_levels - 1;
    double m[SAX_MAX_LEVELS];
    for (int l = 0; l < site_level; l++)
        m[l] = (double)g->n / g->units[l];
    if (!g->uneven)
        return all_to_all_at(cl, c, lay, g, src, bytes, m, NULL);
    /* units holding unequal numbers: from a member of the fullest units and from one of the emptiest */
    double gpus[SAX_MAX_LEVELS], t = 0.0;
    for (int v = 0; v < 2; v++) {
        for (int l = 0; l < site_level; l++) {
            m[l] = v == 0 ? g->count[l] : g->few[l];
            gpus[l] = g->few_gpus[l] > 0.0 ? g->few_gpus[l] : unit_gpus(m[l], lay->unit[l], g->active[l]);
        }
        t = sax_max(t, all_to_all_at(cl, c, lay, g, src, bytes, m, gpus));
    }
    return t;
}

static double all_to_all_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                           const sax_group_t *g, double bytes)
{
    double t = 0.0;
    for (int i = 0; i < g->sites; i++)
        t = sax_max(t, all_to_all_from(cl, c, lay, g, i, bytes));
    return t;
}

/* ---- trees --------------------------------------------------------------------------------------- */

/* Flows node x of a site's tree (of `nodes`) sends in tree t: to its parent and children, and, as the
 * site's head (the root), to its parent and children in the sites' tree (site `site` of `sites`). */
static double tree_node_flows(int nodes, int x, int t, int sites, int site)
{
    int a, d0, d1;
    sax_dtree_node(nodes, x, t, &a, &d0, &d1);
    double f = (a >= 0) + (d0 >= 0) + (d1 >= 0);
    if (a < 0 && sites > 1) {
        sax_dtree_node(sites, site, t, &a, &d0, &d1);
        f += (a >= 0) + (d0 >= 0) + (d1 >= 0);
    }
    return f;
}

/* The level-l unit of a site's tree node i (a domain) on the channels headed at the domain's member h:
 * its head's, member i m0 + h of the site, `stride` ranks apart from the site's start. */
static int tree_unit(const sax_layout_t *lay, long stride, int m0, int i, int h, int l, long off)
{
    return (int)((off + ((long)i * m0 + h) * stride) / lay->unit[l]);
}

enum { TREE_UNITS_KEPT = 256, TREE_WORK_MAX = 1 << 16 };

/* Adds to out[] the flows leaving each level-l unit of the site of ranks [start, end) (its q-th) in the
 * trees of the group of this shape whose first rank is `base`, channel by channel: a domain's node sits
 * in its head's unit, and the head rotates with the channel (a unit need not hold whole domains). Returns
 * the nodes walked. */
static double tree_unit_flows(const sax_layout_t *lay, const sax_group_t *g, int l, int m0, int ch, long base,
                              long start, long end, int q, double *out)
{
    long s = g->piece_stride[0];
    long j0 = base >= start ? 0 : (start - base + s - 1) / s, j1 = (end - base + s - 1) / s;
    j1 = j1 < g->n ? j1 : g->n;
    if (j1 <= j0)
        return 0.0;
    int members = (int)(j1 - j0), nq = (members + m0 - 1) / m0;
    long off = base + j0 * s - start;
    for (int k2 = 0; k2 < ch; k2++) {
        int t = k2 % 2, h = (k2 / 2) % m0;
        int unit_of[3];
        for (int i = 0; i < nq; i++) {
            int up, d0, d1, x[3];
            sax_dtree_node(nq, i, t, &x[0], &d0, &d1);
            up = x[0];
            x[1] = d0;
            x[2] = d1;
            int at = (i * m0 + h < members ? i * m0 + h : members - 1),
                unit = (int)((off + at * s) / lay->unit[l]);
            double f = 0.0;
            for (int e = 0; e < 3; e++) {
                if (x[e] < 0)
                    continue;
                int them = x[e] * m0 + h < members ? x[e] * m0 + h : members - 1;
                unit_of[e] = (int)((off + them * s) / lay->unit[l]);
                f += unit_of[e] != unit;
            }
            if (up < 0 && g->sites > 1) /* the sites' tree leaves the unit of the root */
                f += tree_node_flows(nq, i, t, g->sites, q) - (d0 >= 0) - (d1 >= 0);
            out[unit] += f;
        }
    }
    return (double)nq * ch;
}

/* NCCL's double binary tree all-reduce (runTreeSplit): a chain inside each domain, a binary tree over
 * the domains of each site in rank order, one over the sites; reduce up and broadcast down at once,
 * chunks of one slot, 8 slots per connection, channels alternating between the two trees (channel ch
 * has its head on the domain's GPU (ch / 2) mod m0). The trees' shapes are walked node by node (no
 * event is simulated): which level each edge crosses, how many flows leave each GPU and unit. The
 * first chunk goes up and down the deepest path; every chunk crosses the slowest edge. */
static double tree_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                     const sax_group_t *g, double bytes)
{
    int site_level = lay->n_levels - 1;
    int m0 = g->uneven ? g->count[0] : (int)lrint((double)g->n / g->units[0]);
    int ch = sax_channels(c, m0);
    double per_channel = bytes / ch, chunk = sax_min(sax_nccl_buffer_bytes(c) / SAX_NCCL_STEPS, per_channel);
    double c_t[2] = {ceil(ch / 2.0), floor(ch / 2.0)}; /* channels of each tree */
    /* per GPU of a domain, the channels of each tree it heads, and how many times it sits inside a chain
     * (up and down over NVLink) or at its head or tail (one of the two) */
    enum { TREE_CHAIN_KEPT = 256 }; /* each GPU's NVLink flows, for domains of at most this many members */
    double h_t[2] = {0.0, 0.0}, nvl_flows = 0.0, gpu_flows[TREE_CHAIN_KEPT];
    for (int j = 0; j < m0; j++) {
        double heads[2] = {0.0, 0.0}, flows = 0.0;
        for (int k = 0; k < ch; k++) {
            int head = (k / 2) % m0, tail = (head + m0 - 1) % m0;
            heads[k % 2] += j == head;
            flows += m0 == 1 ? 0.0 : (j == head || j == tail) ? 1.0 : 2.0;
        }
        h_t[0] = sax_max(h_t[0], heads[0]);
        h_t[1] = sax_max(h_t[1], heads[1]);
        nvl_flows = sax_max(nvl_flows, flows);
        if (j < TREE_CHAIN_KEPT)
            gpu_flows[j] = flows;
    }
    int nodes = g->units[0] / g->sites; /* domains of a site */
    int n_lv = site_level - 1;          /* levels 1 .. n_lv inside a site */
    int per_unit[SAX_MAX_LEVELS];       /* domains per unit of each level */
    for (int l = 1; l <= n_lv; l++) {
        int units = l == n_lv ? g->sites : g->units[l];
        per_unit[l] = g->units[0] / (units > 0 ? units : 1);
    }
    int last_nodes = nodes; /* domains of the last site */
    if (g->uneven) {        /* units hold unequal numbers: the trees of the fullest site and units */
        double most_site = g->sites > 1 ? site_members(g, site_level, 0) : g->n;
        nodes = (int)ceil(most_site / g->count[0]);
        last_nodes =
            g->sites > 1 ? (int)ceil(site_members(g, site_level, g->sites - 1) / g->count[0]) : nodes;
        for (int l = 1; l <= n_lv; l++)
            per_unit[l] = l == n_lv ? nodes : (int)ceil((double)g->count[l] / g->count[0]);
    }
    int nodes_of[SAX_MAX_SITES];
    for (int q = 0; q < g->sites; q++)
        nodes_of[q] = q == g->sites - 1 ? last_nodes : nodes;
    /* pass 1: the busiest NIC (a domain's tree in one site, its root also in the sites' tree) and the
     * busiest unit uplink of each level */
    double nic_flows = 0.0, unit_flows[SAX_MAX_LEVELS] = {0};
    for (int q = 0; q < g->sites; q++)
        for (int i = 0, nq = nodes_of[q]; i < nq; i++) {
            double f0 = tree_node_flows(nq, i, 0, g->sites, q), f1 = tree_node_flows(nq, i, 1, g->sites, q);
            nic_flows = sax_max(nic_flows, h_t[0] * f0 + h_t[1] * f1);
            unit_flows[0] = sax_max(unit_flows[0], c_t[0] * f0 + c_t[1] * f1); /* the domain's */
        }
    double unit_out[SAX_MAX_LEVELS][TREE_UNITS_KEPT];
    for (int l = 1; l < n_lv && l < cl->n_tiers; l++)
        for (int u0 = 0; u0 < nodes; u0 += per_unit[l]) {
            double out = 0.0;
            for (int t = 0; t < 2; t++)
                for (int i = u0; i < u0 + per_unit[l] && i < nodes; i++) {
                    int up, d0, d1, unit = i / per_unit[l];
                    sax_dtree_node(nodes, i, t, &up, &d0, &d1);
                    out += c_t[t] *
                           ((up >= 0 && up / per_unit[l] != unit) + (d0 >= 0 && d0 / per_unit[l] != unit) +
                            (d1 >= 0 && d1 / per_unit[l] != unit));
                }
            for (int t = 0; t < 2 && g->sites > 1; t++) { /* the sites' tree leaves the unit of the root */
                for (int i = u0; i < u0 + per_unit[l] && i < nodes; i++) {
                    int up, d0, d1;
                    sax_dtree_node(nodes, i, t, &up, &d0, &d1);
                    if (up >= 0)
                        continue;
                    double site_flows = 0.0;
                    for (int q = 0; q < g->sites; q++)
                        site_flows = sax_max(site_flows, tree_node_flows(nodes, i, t, g->sites, q) -
                                                             (d0 >= 0) - (d1 >= 0));
                    out += c_t[t] * site_flows;
                }
            }
            unit_flows[l] = sax_max(unit_flows[l], out);
            if (u0 / per_unit[l] < TREE_UNITS_KEPT)
                unit_out[l][u0 / per_unit[l]] = out;
        }
    /* A group that does not nest: a unit need not hold whole domains (pods of 22 GPUs over domains of 8),
     * and which unit a domain's node sits in is its head's, which rotates with the channel. Then each
     * site's units' flows are counted channel by channel, node i of the channels headed at member h of
     * each domain being the site's member i m0 + h (ranks `stride` apart). */
    bool placed = g->uneven && g->n_pieces == 1;
    int n_units[SAX_MAX_LEVELS] = {0};
    double unit_all[SAX_MAX_LEVELS][TREE_UNITS_KEPT], unit_cap[SAX_MAX_LEVELS] = {0};
    for (int l = 1; placed && l < n_lv && l < cl->n_tiers; l++) {
        double out[TREE_UNITS_KEPT], most = 0.0, most_all = 0.0, work = 0.0;
        long start = 0, s = g->piece_stride[0], block = (long)g->n * s;
        for (int q = 0, s0 = 0; q < g->sites && most >= 0.0; q++) {
            for (; s0 < g->site[q]; s0++)
                start += cl->sites[s0].gpus;
            long end = start + cl->sites[s0].gpus;
            int n_u = (int)((end - start + lay->unit[l] - 1) / lay->unit[l]);
            if (n_u > TREE_UNITS_KEPT) {
                most = -1.0;
                break;
            }
            for (int u = 0; u < n_u; u++)
                out[u] = 0.0;
            work += tree_unit_flows(lay, g, l, m0, ch, 0, start, end, q, out);
            for (int u = 0; u < n_u; u++) {
                most = sax_max(most, out[u]);
                if (q == 0)
                    unit_out[l][u] = out[u];
            }
            if (q == 0)
                n_units[l] = n_u;
            /* every group at once: the others' flows through the same units (translates of this one
             * by b + (block) x n x stride; a unit's uplink is shared in proportion to them) */
            for (int x = 1; x < g->groups && most_all >= 0.0; x++) {
                long base = x / s * block + x % s;
                if (base < end && base + block - s >= start)
                    work += tree_unit_flows(lay, g, l, m0, ch, base, start, end, q, out);
                if (work > TREE_WORK_MAX)
                    most_all = -1.0;
            }
            for (int u = 0; u < n_u && most_all >= 0.0; u++) {
                most_all = sax_max(most_all, out[u]);
                if (q == 0)
                    unit_all[l][u] = out[u];
            }
        }
        if (most <= 0.0) {
            n_units[l] = 0;
            continue;
        }
        unit_flows[l] = most;
        if (g->groups > 1 && most_all > 0.0 && !g->has_tail) { /* the uplink's share per flow: its own */
            const sax_tier_t *tr = &cl->tiers[l];
            unit_cap[l] = lay->unit[l] * tr->bw_Bps * tr->efficiency / tr->oversubscription;
            unit_flows[l] = uplink_share(cl, lay, g, l, 1) / (unit_cap[l] / most_all);
        }
    }
    double nvl = cl->scale_up.bw_Bps * cl->scale_up.efficiency;
    double r_nvl = nvl_flows > 0.0 ? nvl / nvl_flows : INFINITY;
    double r_net = nic_flows > 0.0 ? nic_Bps(cl) / nic_flows : INFINITY;
    for (int t = 0; t < cl->n_tiers && t <= n_lv - 1; t++)
        if (unit_flows[t] > 0.0)
            r_net = sax_min(r_net, uplink_share(cl, lay, g, t, 1) / unit_flows[t]);
    /* the sites' tree edge by edge: routes, latencies and loads */
    double edge_rate[2][SAX_MAX_SITES], edge_rate_dn[2][SAX_MAX_SITES], edge_lat[2][SAX_MAX_SITES];
    double site_path = 0.0, pipe = 0.0;
    /* a last site holding one domain (a group that does not nest in the sites) has no tree inside: its
     * path up is the sites' tree's alone */
    bool lone_last = g->uneven && g->sites > 1 && g->few[site_level] <= g->count[0];
    double site_path_lone = 0.0;
    double k = ceil(per_channel / chunk);
    /* as k equal pieces: NCCL sends k - 1 full slots and a partial one, which the pipelined terms
     * below would otherwise charge as full */
    chunk = per_channel / k;
    if (g->sites > 1) {
        int f = g->sites;
        double flows[SAX_MAX_LINKS][2] = {{0}};
        int links[SAX_MAX_SITES], dirs[SAX_MAX_SITES];
        for (int t = 0; t < 2; t++)
            for (int q = 0; q < f; q++) {
                int p = sax_dtree_parent(f, q, t);
                for (int dir = 0; p >= 0 && dir < 2; dir++) { /* up and down */
                    int a = g->site[dir == 0 ? q : p], b = g->site[dir == 0 ? p : q];
                    int hops = sax_site_route(cl, a, b, links, dirs);
                    for (int h = 0; h < hops; h++)
                        flows[links[h]][dirs[h]] += c_t[t] * g->groups;
                }
            }
        for (int t = 0; t < 2; t++)
            for (int q = 0; q < f; q++) {
                int p = sax_dtree_parent(f, q, t);
                if (p < 0)
                    continue;
                int hops = sax_site_route(cl, g->site[q], g->site[p], links, dirs);
                double route_lat = 0.0, rate = route_cap(cl, c, g->site[q], g->site[p], &route_lat);
                /* each way at its sender's shares: up the child site head's NIC and units, down the
                 * parent's */
                double shared = rate, end_rate[2];
                for (int h = 0; h < hops; h++)
                    shared = sax_min(shared, cl->links[links[h]].bw_Bps /
                                                 sax_max(flows[links[h]][0], flows[links[h]][1]));
                for (int end = 0; end < 2; end++) { /* the root of tree t in site q (up), p (down) */
                    int site = end == 0 ? q : p, root = 0, nq = nodes_of[site];
                    for (int i = 0; i < nq; i++)
                        if (sax_dtree_parent(nq, i, t) < 0)
                            root = i;
                    double f0 = tree_node_flows(nq, root, 0, f, site),
                           f1 = tree_node_flows(nq, root, 1, f, site);
                    double r = sax_min(shared, nic_Bps(cl) / (h_t[0] * f0 + h_t[1] * f1));
                    for (int u = 0; u < cl->n_tiers && u <= n_lv - 1; u++) {
                        double own = u == 0 ? c_t[0] * f0 + c_t[1] * f1 : unit_flows[u];
                        if (own > 0.0)
                            r = sax_min(r, uplink_share(cl, lay, g, u, 1) / own);
                    }
                    end_rate[end] = r * route_efficiency(cl, c, g->site[q], g->site[p], r);
                }
                edge_rate[t][q] = end_rate[0];
                edge_rate_dn[t][q] = end_rate[1];
                edge_lat[t][q] = level_latency(cl, site_level) + route_lat;
                pipe = sax_max(pipe, chunks_start(k, chunk / sax_min(end_rate[0], end_rate[1]),
                                                  edge_lat[t][q], SAX_NCCL_STEPS));
            }
        for (int t = 0; t < 2 && c_t[t] > 0.0; t++)
            for (int q = 0; q < f; q++) {
                double path = 0.0; /* up and down, halved: doubled with the rest below */
                for (int v = q; sax_dtree_parent(f, v, t) >= 0; v = sax_dtree_parent(f, v, t))
                    path += edge_lat[t][v] + 0.5 * (chunk / edge_rate[t][v] + chunk / edge_rate_dn[t][v]);
                if (lone_last && q == f - 1)
                    site_path_lone = sax_max(site_path_lone, path);
                else
                    site_path = sax_max(site_path, path);
            }
    }
    /* pass 2: the deepest path inside a site, hop by hop at the level it crosses, each hop at the rate
     * its sender's NIC gives it (up: the child's, down: the parent's; a site's head also serves the
     * sites' tree, at its busiest site) */
    double path = 0.0;
    for (int t = 0; t < 2 && c_t[t] > 0.0; t++)
        for (int i = 0; i < nodes; i++) {
            double here = 0.0;
            for (int v = i, up = sax_dtree_parent(nodes, v, t); up >= 0;
                 v = up, up = sax_dtree_parent(nodes, v, t)) {
                int level = n_lv;
                for (int l = 1; l < n_lv; l++)
                    if (n_units[l] > 0 ? tree_unit(lay, g->piece_stride[0], m0, v, 0, l, 0) ==
                                             tree_unit(lay, g->piece_stride[0], m0, up, 0, l, 0)
                                       : v / per_unit[l] == up / per_unit[l]) {
                        level = l;
                        break;
                    }
                double rate[2];
                for (int e = 0; e < 2; e++) { /* the sender up, then down, at the busiest site */
                    int x = e == 0 ? v : up;
                    double fl = 0.0, dom = 0.0; /* flows on x's NIC, and on its domain's uplink */
                    for (int q = 0; q < g->sites; q++) {
                        if (nodes_of[q] != nodes)
                            continue; /* a smaller site's tree: its own nodes */
                        double f0 = tree_node_flows(nodes, x, 0, g->sites, q),
                               f1 = tree_node_flows(nodes, x, 1, g->sites, q);
                        fl = sax_max(fl, h_t[0] * f0 + h_t[1] * f1);
                        dom = sax_max(dom, c_t[0] * f0 + c_t[1] * f1);
                    }
                    rate[e] = nic_Bps(cl) / fl;
                    /* the uplinks of the units the hop leaves (levels below the one it crosses), each
                     * at the flows of x's own unit (the busiest unit's where there are too many) */
                    for (int u = 0; u < cl->n_tiers && u <= n_lv - 1 && u < level; u++) {
                        double own = u == 0 ? dom
                                     : n_units[u] > 0
                                         ? unit_out[u][tree_unit(lay, g->piece_stride[0], m0, x, 0, u, 0)]
                                     : (nodes + per_unit[u] - 1) / per_unit[u] <= TREE_UNITS_KEPT
                                         ? unit_out[u][x / per_unit[u]]
                                         : unit_flows[u];
                        if (u > 0 && n_units[u] > 0 && unit_cap[u] > 0.0) /* every group's flows there */
                            rate[e] = sax_min(
                                rate[e], unit_cap[u] /
                                             unit_all[u][tree_unit(lay, g->piece_stride[0], m0, x, 0, u, 0)]);
                        else if (own > 0.0)
                            rate[e] = sax_min(rate[e], uplink_share(cl, lay, g, u, 1) / own);
                    }
                }
                double lat = level_latency(cl, level);
                here += 2.0 * lat + chunk / rate[0] + chunk / rate[1];
                pipe = sax_max(pipe, chunks_start(k, chunk / r_net, lat, SAX_NCCL_STEPS));
            }
            path = sax_max(path, here);
        }
    path /= 2.0;  /* up and down counted above; doubled with the rest below */
    if (m0 > 1) { /* the chain: up from its tail, down from its head, each hop at its sender's share */
        double lat = cl->scale_up.latency_s, chain = chunk / r_nvl * (m0 - 1);
        if (m0 <= TREE_CHAIN_KEPT && nvl < INFINITY) {
            chain = 0.0;
            for (int k2 = 0; k2 < ch; k2++) {
                int head = (k2 / 2) % m0;
                double here = 0.0;
                for (int p = 1; p < m0; p++)
                    here += 0.5 * chunk * (gpu_flows[(head + p) % m0] + gpu_flows[(head + p - 1) % m0]) / nvl;
                chain = sax_max(chain, here);
            }
        }
        path += (m0 - 1) * lat + chain;
        site_path_lone += site_path_lone > 0.0 ? (m0 - 1) * lat + chain : 0.0;
        pipe = sax_max(pipe, chunks_start(k, chunk / r_nvl, lat, SAX_NCCL_STEPS));
    }
    /* the first chunk up and down; the last chunk leaves its slowest edge after the others */
    return 2.0 * sax_max(path + site_path, site_path_lone) + pipe;
}

/* ---- hierarchical ---------------------------------------------------------------------------------- */

/* The sub-group of the hierarchical algorithm's phase at level l: one member from each unit of the level
 * below inside one unit of level l (level 0: the members of one domain). */
/* Returns the phase's factor: members of a sub-group, on average where units hold unequal numbers
 * (their product over the phases is the group's size: the bytes each member moves). There, sub->n is
 * the sub-group of the group's first member (fullest units), whose time the phase takes. */
static double phase_group(const sax_layout_t *lay, const sax_group_t *g, int l, sax_group_t *sub)
{
    int site_level = lay->n_levels - 1;
    *sub = *g;
    double f;
    if (l == 0)
        f = (double)g->n / g->units[0];
    else if (l == site_level)
        f = g->sites;
    else
        f = (double)g->units[l - 1] / (l == site_level - 1 && g->sites > 1 ? g->sites : g->units[l]);
    sub->n = (int)lrint(f);
    sub->groups = (int)lrint((double)g->groups * g->n / f);
    if (g->uneven) { /* units hold unequal numbers: the sub-group of the group's first member is timed */
        sub->n = l == 0            ? g->count[0]
                 : l == site_level ? g->units[site_level - 1]
                                   : (int)ceil((double)g->count[l] / g->count[l - 1]);
        sub->uneven = false;
        /* the sub-groups with members in two units or more: as many as the fullest unit holds when two
         * are full, else as the emptiest */
        if (l > 0)
            sub->groups = g->groups * (sub->n >= 3 ? g->count[l - 1] : g->few[l - 1]);
        /* across the sites, the positions the last site lacks ring through the others only */
        if (l == site_level && sub->n >= 3 && sub->n == g->sites)
            sub->short_groups = g->groups * (g->count[l - 1] - g->few[l - 1]);
        /* ... and leaving each unit of the level below, one member each */
        if (l > 0 && l - 1 < site_level)
            sub->active[l - 1] = sax_min(lay->unit[l - 1], (double)sub->groups);
    }
    sub->top = l;
    for (int k = 0; k <= site_level; k++) {
        sub->units[k] = k < l ? sub->n : 1;
        sub->count[k] = k < l ? 1 : sub->n;
    }
    if (l == 0)
        for (int k = 0; k <= site_level; k++) {
            sub->units[k] = 1;
            sub->count[k] = sub->n;
        }
    if (l < site_level) {
        sub->sites = 1;
        memset(sub->link_hops, 0, sizeof sub->link_hops);
    } else {
        sub->units[site_level - 1] = sub->sites;
    }
    /* a partial unit's uplink, per member: the sub-group has one member in each unit it leaves */
    for (int k = 0; k < site_level && g->has_tail; k++) {
        bool leaves = k < l && g->tail[k] > 0;
        sub->tail_gpus[k] = leaves ? g->tail_gpus[k] / g->tail[k] : 0.0;
        sub->tail[k] = leaves ? 1 : 0;
    }
    return f;
}

/* ---- algorithms ---------------------------------------------------------------------------------- */

/* Cross-site bytes of a ring of every group: each hop between sites carries `per_hop` bytes. */
static void traffic_ring(const sax_cluster_t *cl, const sax_group_t *g, double per_hop, sax_traffic_t *tr)
{
    if (tr == NULL || g->sites <= 1)
        return;
    for (int l = 0; l < cl->n_links; l++)
        for (int d = 0; d < 2; d++) {
            double b = per_hop * g->link_hops[l][d] * g->groups;
            tr->link_bytes[l][d] += b;
        }
    tr->xsite_bytes += per_hop * g->sites * g->groups;
}

static void ring_of(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                    const sax_group_t *g, ring_t *r)
{
    int m0 = g->uneven ? g->count[0] : (int)lrint((double)g->n / g->units[0]); /* the fullest domain's */
    ring_geometry(cl, c, lay, g, sax_channels(c, m0), true, r);
}

static double ring_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                     const sax_group_t *g, sax_coll_op_t op, double bytes, sax_traffic_t *tr)
{
    ring_t r;
    ring_of(cl, c, lay, g, &r);
    double steps = op == SAX_OP_ALL_REDUCE ? 2.0 * (g->n - 1) : g->n - 1.0;
    traffic_ring(cl, g, steps * bytes / g->n, tr);
    return ring_time(&r, op, bytes, sax_nccl_buffer_bytes(c));
}

/* Every member sends `bytes` to the next (nccl-tests' sendrecv; a pipeline's stage boundaries): one
 * point-to-point connection per member with the p2p channels, classes as a ring's edges. */
static double shift_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                      const sax_group_t *g, double bytes, sax_traffic_t *tr)
{
    int p = sax_p2p_channels(cl, c);
    ring_t r;
    ring_geometry(cl, c, lay, g, p, false, &r);
    traffic_ring(cl, g, bytes, tr);
    double t = 0.0;
    for (int i = 0; i < r.n_cls; i++) {
        t = sax_max(t, p2p_flow_s(bytes / p, sax_nccl_p2p_chunk(c, r.cls[i].level == 0), r.cls[i].rate_Bps,
                                  r.cls[i].lat_s));
    }
    return t;
}

static double hierarchical_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                             const sax_group_t *g, sax_coll_op_t op, double bytes, double k_x,
                             sax_traffic_t *tr)
{
    /* reduce-scatter up the levels, the collective across the top, all-gather back down; the data cut
     * in k pieces pipelined through the phases, each on its own communicator: a permutation flow shop
     * of identical jobs takes sum of phases + (k - 1) x the slowest; k the best of 1, 2, 4, ..., 64 */
    int n_lv = 0;
    double share[SAX_MAX_LEVELS], d = 1.0, f_avg[SAX_MAX_LEVELS], share_avg[SAX_MAX_LEVELS], d_avg = 1.0;
    sax_group_t sub[SAX_MAX_LEVELS];
    for (int l = 0; l <= g->top; l++) {
        double f = phase_group(lay, g, l, &sub[n_lv]);
        if (sub[n_lv].n > 1) {
            share[n_lv] = d;
            share_avg[n_lv] = d_avg;
            f_avg[n_lv] = f;
            d /= g->uneven ? sub[n_lv].n : f;
            d_avg /= f;
            /* after this level's reduce-scatter each member holds 1/(members in its unit) of the data: in
             * a partial unit, with fewer members, a larger shard goes up */
            if (g->has_tail && l < lay->n_levels - 1 && g->tail[l] > 0)
                d = sax_max(d, 1.0 / g->tail[l]);
            n_lv++;
        }
    }
    if (n_lv == 0)
        return 0.0;
    int n_ph = 0, ph[2 * SAX_MAX_LEVELS];
    sax_coll_op_t ph_op[2 * SAX_MAX_LEVELS];
    for (int i = 0; i < n_lv; i++) {
        bool at_top = i == n_lv - 1;
        if (at_top || op != SAX_OP_ALL_GATHER) {
            ph[n_ph] = i;
            ph_op[n_ph++] = at_top ? op : SAX_OP_REDUCE_SCATTER;
        }
    }
    if (op != SAX_OP_REDUCE_SCATTER)
        for (int i = n_lv - 2; i >= 0; i--) {
            ph[n_ph] = i;
            ph_op[n_ph++] = SAX_OP_ALL_GATHER;
        }
    ring_t rings[SAX_MAX_LEVELS];
    double b_p[2 * SAX_MAX_LEVELS];
    for (int i = 0; i < n_lv; i++)
        ring_of(cl, c, lay, &sub[i], &rings[i]);
    for (int i = 0; i < n_ph; i++) {
        const sax_group_t *sg = &sub[ph[i]];
        b_p[i] = bytes * share[ph[i]] * (sg->sites > 1 ? k_x : 1.0);
        double steps = ph_op[i] == SAX_OP_ALL_REDUCE ? 2.0 * (sg->n - 1) : sg->n - 1.0;
        if (!g->uneven || tr == NULL) {
            traffic_ring(cl, sg, steps * b_p[i] / sg->n, tr);
            continue;
        }
        /* what crosses the links: every member's share, at the average factors (their product is n) */
        sax_group_t avg = *sg;
        double f = f_avg[ph[i]], b = bytes * share_avg[ph[i]] * (sg->sites > 1 ? k_x : 1.0);
        avg.groups = (int)lrint((double)g->groups * g->n / f);
        steps = ph_op[i] == SAX_OP_ALL_REDUCE ? 2.0 * (f - 1.0) : f - 1.0;
        traffic_ring(cl, &avg, steps * b / f, tr);
    }
    /* a piece's time is not affine in its size (a window-bound phase costs the same for any piece that
     * fits its slots), so a k is timed, not interpolated from others */
    double buffer = sax_nccl_buffer_bytes(c), best = INFINITY;
    /* a level's all-gather is timed as its reduce-scatter (the same ring, steps and bytes) */
    int same[2 * SAX_MAX_LEVELS];
    for (int i = 0; i < n_ph; i++) {
        same[i] = i;
        for (int j = 0; j < i; j++)
            if (ph[j] == ph[i] && b_p[j] == b_p[i] &&
                (ph_op[j] == SAX_OP_ALL_REDUCE) == (ph_op[i] == SAX_OP_ALL_REDUCE))
                same[i] = j;
    }
    /* The pieces of k = 64 first, then k = 32, 16, ..., 1. A phase never takes less on a larger piece
     * than on the last smaller one timed, nor less than its bytes over its slowest edges (ring_time's
     * chain carries every slice of a loop over each edge): a k whose bound by both cannot beat the best
     * so far is not timed. The minimum is exact; the bounds only skip what cannot be it. */
    double t_ph[2 * SAX_MAX_LEVELS], per_byte[2 * SAX_MAX_LEVELS];
    for (int i = 0; i < n_ph; i++) {
        const ring_t *r = &rings[ph[i]];
        double slowest = INFINITY;
        for (int j = 0; j < r->n_cls; j++)
            slowest = sax_min(slowest, r->cls[j].rate_Bps);
        double steps = ph_op[i] == SAX_OP_ALL_REDUCE ? 2.0 * (r->n - 1) : r->n - 1.0;
        per_byte[i] = steps / (r->ch * (double)r->n * slowest) * (1.0 - 1e-9);
    }
    for (int k = 64; k >= 1; k /= 2) {
        double sum = 0.0, worst = 0.0;
        if (k < 64) {
            for (int i = 0; i < n_ph; i++) {
                double t = sax_max(t_ph[i], per_byte[i] * b_p[i] / k);
                sum += t;
                worst = sax_max(worst, t);
            }
            if (sum + (k - 1) * worst >= best)
                continue;
            sum = worst = 0.0;
        }
        for (int i = 0; i < n_ph; i++) {
            double t = t_ph[i] =
                same[i] < i ? t_ph[same[i]] : ring_time(&rings[ph[i]], ph_op[i], b_p[i] / k, buffer);
            sum += t;
            worst = sax_max(worst, t);
        }
        best = sax_min(best, sum + (k - 1) * worst);
    }
    return best;
}

double sax_group_collective_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                              const sax_group_t *g, sax_coll_op_t op, sax_algorithm_t alg, double bytes,
                              double elem_bytes, sax_traffic_t *tr)
{
    if (g->n <= 1 || bytes <= 0.0)
        return 0.0;
    double k = g->sites > 1 ? sax_compression_factor(c->compression, elem_bytes) : 1.0;
    /* compression: a quantise and a dequantise pass over the data in HBM */
    double extra = k < 1.0 ? 2.0 * bytes * (1.0 + k) / (cl->gpu.hbm_bw_Bps * cl->gpu.mem_eff) : 0.0;
    switch (op) {
    case SAX_OP_ALL_TO_ALL:
        traffic_pairs(cl, g, bytes * k / g->n, tr);
        return all_to_all_s(cl, c, lay, g, bytes * k) + extra;
    case SAX_OP_SENDRECV: return shift_s(cl, c, lay, g, bytes * k, tr) + extra;
    case SAX_OP_ALL_REDUCE:
    case SAX_OP_REDUCE_SCATTER:
    case SAX_OP_ALL_GATHER:
    case SAX_COLL_OP_COUNT: break;
    }
    if (alg == SAX_ALGORITHM_HIERARCHICAL && g->top > 0) {
        double kh = k;
        return hierarchical_s(cl, c, lay, g, op, bytes, kh, tr) + (kh < 1.0 ? extra / g->n * g->sites : 0.0);
    }
    if (alg == SAX_ALGORITHM_TREE && op == SAX_OP_ALL_REDUCE) {
        if (tr != NULL && g->sites > 1)
            traffic_ring(cl, g, 2.0 * (g->sites - 1) / g->sites * bytes * k, tr);
        return tree_s(cl, c, lay, g, bytes * k) + extra;
    }
    return ring_s(cl, c, lay, g, op, bytes * k, tr) + extra;
}

double sax_collective_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay,
                        sax_dim_t d, sax_coll_op_t op, double bytes, double elem_bytes, sax_traffic_t *tr)
{
    /* TP, CP and EP use rings (all-to-all for EP); network.algorithm chooses for DP and the experts'
     * replicas */
    sax_algorithm_t alg = d == SAX_DIM_DP || d == SAX_GROUP_EXPERT_DP ? c->algorithm : SAX_ALGORITHM_RING;
    return sax_group_collective_s(cl, c, lay, &lay->dim[d], op, alg, bytes, elem_bytes, tr);
}

double sax_p2p_s(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_layout_t *lay, int stage,
                 double bytes, double elem_bytes, sax_traffic_t *tr, double *busy_s)
{
    /* every pipeline sends over the boundary at once: the PP groups' shift, the boundary's own edge */
    const sax_group_t *g = &lay->dim[SAX_DIM_PP];
    int a, b, lvl = sax_layout_stage_level(cl, lay, stage, &a, &b);
    bool xsite = a != b;
    double k = xsite ? sax_compression_factor(c->compression, elem_bytes) : 1.0;
    double extra = k < 1.0 ? 2.0 * bytes * (1.0 + k) / (cl->gpu.hbm_bw_Bps * cl->gpu.mem_eff) : 0.0;
    int p = sax_p2p_channels(cl, c);
    ring_t r;
    ring_geometry(cl, c, lay, g, p, false, &r);
    /* the class of the boundary's edge: its level inside a site, or its hop between sites */
    int cls = -1;
    for (int i = 0; i < r.n_cls; i++)
        if (r.cls[i].level == lvl && (!xsite || r.cls[i].from_site == a))
            cls = i;
    if (xsite && tr != NULL) {
        int links[SAX_MAX_SITES], dirs[SAX_MAX_SITES];
        int h = sax_site_route(cl, a, b, links, dirs);
        double all = bytes * k * g->groups;
        tr->xsite_bytes += all;
        for (int i = 0; i < h; i++)
            tr->link_bytes[links[i]][dirs[i]] += all;
    }
    double lat = cls >= 0 ? r.cls[cls].lat_s : level_latency(cl, lvl);
    double rate = cls >= 0 ? r.cls[cls].rate_Bps : nic_Bps(cl) / p;
    double t = p2p_flow_s(bytes * k / p, sax_nccl_p2p_chunk(c, lvl == 0), rate, lat);
    if (busy_s != NULL)
        *busy_s = t > lat ? t - lat : 0.0;
    return t + extra;
}
