/* collsim.c - the reference the collective closed forms (collective.c) are tested against: a
 * chunk-level discrete-event simulation of one group's collective as NCCL runs it.
 *
 * Explicitly, and independently of collective.c's counting:
 * 1. Members. The group's ranks are listed one by one; every other group of the same shape that
 *    communicates at the same time (training: all of them) is listed too.
 * 2. Connections. NCCL builds one ring per channel through the members in rank order; inside a
 *    scale-up domain the ring's entry and exit rotate with the channel, so the channels leave a
 *    domain through different GPUs and their NICs (src/graph/search.cc, connect.cc). Trees: a chain
 *    inside the domain and a double binary tree (ncclGetBtree, src/graph/trees.cc; the second tree
 *    mirrored) over the domains of a site, then one over the sites, the way NCCL's cross-data-centre
 *    trees stay inside one site until the top. All-to-all and sendrecv: one connection per
 *    peer and point-to-point channel.
 * 3. Bandwidth. Each connection is a flow through explicit resources: the sending GPU's NVLink or its
 *    NIC, the uplink of every unit it leaves (unit GPUs x bandwidth / oversubscription), the site's
 *    uplink into the inter-site fabric and each site link direction on its route. Rates are the
 *    max-min fair shares of all flows of all concurrent groups (progressive filling over group 0's
 *    flows, each resource's capacity scaled by group 0's part of the flows through it), capped by the
 *    transport's limit per connection.
 * 4. Time. A discrete-event run of every channel: NCCL's order of steps per rank (src/device/
 *    all_reduce.h, reduce_scatter.h, all_gather.h: runRing, runTreeSplit), chunks of NCCL_BUFFSIZE/2
 *    in two slices (ring) or of one step (tree), NCCL_STEPS = 8 slots per connection, a slot freed
 *    when the receiver has used it and its credit back one latency later; sends over the network
 *    leave the GPU at once and queue on the connection, NVLink writes occupy the GPU; store and
 *    forward of each slice; loops of n chunks per channel. Point-to-point moves
 *    NCCL_P2P_NET_CHUNKSIZE chunks through 8 slots per channel.
 * Not the hot path: it allocates, and costs O(members x steps) per channel.
 */
#include "model_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIM_MAX_RES 20 /* resources one flow crosses */
#define SIM_RING_SLICES 2
#define SIM_RING_SLOTS (SAX_NCCL_STEPS / 2) /* slices in flight: NCCL_STEPS / ALLREDUCE_SLICESTEPS */
#define SIM_MAX_EVENTS (1L << 31)
/* a tree node's children: a chain child, two in its site's tree, two in the tree of the sites */
#define TREE_MAX_CHILDREN 6

/* ---- the cluster as explicit resources ---------------------------------------------------------- */

enum { RES_NVL, RES_NIC, RES_UP, RES_SITE_UP = RES_UP + SAX_MAX_TIERS, RES_LINK };

typedef struct {
    double cap;    /* B/s */
    double all;    /* flows of every concurrent group through it */
    double own;    /* flows of group 0 */
    double used;   /* progressive filling: the frozen flows' rates */
    double active; /* progressive filling: group 0's flows still rising */
} res_t;

/* Resources by key ((kind << 48 | index) + 1, so that 0 is empty): an open-addressing table of keys
 * and dense indices into `res`, which flows hold (they stay valid when the table grows). */
typedef struct {
    uint64_t *key;
    int *id;
    size_t mask;
    res_t *res;
    size_t n, cap;
} res_map_t;

typedef struct {
    uint64_t key;
    double cap;
} want_t;

static uint64_t res_key(int kind, long index) { return ((uint64_t)kind << 48 | (uint64_t)index) + 1; }

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

static bool res_map_init(res_map_t *m)
{
    m->mask = 1023;
    m->n = 0;
    m->cap = 512;
    m->key = calloc(m->mask + 1, sizeof *m->key);
    m->id = calloc(m->mask + 1, sizeof *m->id);
    m->res = calloc(m->cap, sizeof *m->res);
    return m->key != NULL && m->id != NULL && m->res != NULL;
}

static void res_map_clear(res_map_t *m)
{
    memset(m->key, 0, sizeof *m->key * (m->mask + 1));
    m->n = 0;
}

static void res_map_free(res_map_t *m)
{
    free(m->key);
    free(m->id);
    free(m->res);
}

/* Dense index of `key` (added with capacity `cap` when `insert`), -1 when absent, -2 out of memory. */
static long res_find(res_map_t *m, uint64_t key, bool insert, double cap)
{
    size_t j = mix(key) & m->mask;
    while (m->key[j] != 0 && m->key[j] != key)
        j = (j + 1) & m->mask;
    if (m->key[j] == key)
        return m->id[j];
    if (!insert)
        return -1;
    if (m->n == m->cap) {
        res_t *grown = realloc(m->res, sizeof *grown * m->cap * 2);
        if (grown == NULL)
            return -2;
        m->res = grown;
        m->cap *= 2;
    }
    if (2 * (m->n + 1) > m->mask + 1) { /* rehash the keys into a table twice the size */
        size_t size = (m->mask + 1) * 2;
        uint64_t *keys = calloc(size, sizeof *keys);
        int *ids = calloc(size, sizeof *ids);
        if (keys == NULL || ids == NULL) {
            free(keys);
            free(ids);
            return -2;
        }
        for (size_t i = 0; i <= m->mask; i++)
            if (m->key[i] != 0) {
                size_t q = mix(m->key[i]) & (size - 1);
                while (keys[q] != 0)
                    q = (q + 1) & (size - 1);
                keys[q] = m->key[i];
                ids[q] = m->id[i];
            }
        free(m->key);
        free(m->id);
        m->key = keys;
        m->id = ids;
        m->mask = size - 1;
        j = mix(key) & m->mask;
        while (m->key[j] != 0)
            j = (j + 1) & m->mask;
    }
    m->key[j] = key;
    m->id[j] = (int)m->n;
    m->res[m->n] = (res_t){.cap = cap};
    return (long)m->n++;
}

static double nic_Bps(const sax_cluster_t *cl)
{
    return cl->n_tiers > 0 ? cl->tiers[0].bw_Bps * cl->tiers[0].efficiency
                           : cl->scale_up.bw_Bps * cl->scale_up.efficiency;
}

typedef struct {
    int res[SIM_MAX_RES];
    int n_res;
    double cap_Bps;   /* the connection's own limit (transport), INFINITY inside a site */
    double latency_s; /* one way */
    double rate_Bps;  /* payload rate: max-min share x transport efficiency */
    double weight;    /* identical connections it stands for (same resources, latency and limit) */
    bool net;         /* leaves the scale-up domain: the GPU does not wait for the wire */
    bool frozen;
    bool xsite;
    sax_path_t path; /* the site route's properties (when it crosses sites) */
} flow_t;

typedef struct {
    const sax_cluster_t *cl;
    const sax_candidate_t *c;
    sax_layout_t lay;
    const sax_group_t *g;
    res_map_t map;
    bool counting_own; /* building group 0's flows (else counting the other groups') */
} sim_t;

/* The resources, latency and limits of a connection from rank a to rank b. Returns false when the
 * map cannot grow. Resources are inserted while group 0's flows are built and only looked up for
 * the other groups (their flows elsewhere cannot slow group 0 down). */
static bool route(sim_t *s, long a, long b, double weight, flow_t *f)
{
    f->weight = weight;
    const sax_cluster_t *cl = s->cl;
    const sax_layout_t *lay = &s->lay;
    int site_level = lay->n_levels - 1;
    int sa = sax_layout_site_of_rank(cl, a), sb = sax_layout_site_of_rank(cl, b);
    int level = site_level;
    if (sa == sb) {
        level = site_level - 1;
        for (int l = 0; l < site_level; l++)
            if (sax_layout_unit_of(cl, lay, a, l, NULL) == sax_layout_unit_of(cl, lay, b, l, NULL)) {
                level = l;
                break;
            }
    }
    want_t want[SIM_MAX_RES];
    int n = 0;
    f->cap_Bps = INFINITY;
    f->xsite = false;
    if (level == 0) {
        want[n++] = (want_t){res_key(RES_NVL, a), cl->scale_up.bw_Bps * cl->scale_up.efficiency};
        f->latency_s = cl->scale_up.latency_s;
        f->net = false;
    } else {
        f->net = true;
        want[n++] = (want_t){res_key(RES_NIC, a), nic_Bps(cl)};
        int tiers = level < cl->n_tiers ? level : cl->n_tiers;
        for (int t = 0; t < tiers; t++) { /* a site's last unit may be partial: its own GPUs' uplink */
            const sax_tier_t *tr = &cl->tiers[t];
            long gpus, unit = sax_layout_unit_of(cl, lay, a, t, &gpus);
            want[n++] = (want_t){res_key(RES_UP + t, unit),
                                 (double)gpus * tr->bw_Bps * tr->efficiency / tr->oversubscription};
        }
        f->latency_s = level <= cl->n_tiers ? cl->tiers[level - 1].latency_s
                                            : (cl->n_tiers > 0 ? cl->tiers[cl->n_tiers - 1].latency_s
                                                               : cl->scale_up.latency_s);
        if (level == site_level) {
            int links[SAX_MAX_SITES], dirs[SAX_MAX_SITES];
            int h = sax_site_route(cl, sa, sb, links, dirs);
            if (h <= 0)
                return false;
            const sax_site_link_t *first = &cl->links[links[0]];
            want[n++] = (want_t){res_key(RES_SITE_UP, (long)sa * SAX_MAX_LINKS + links[0]),
                                 cl->sites[sa].gpus * nic_Bps(cl) / first->uplink_oversubscription};
            for (int k = 0; k < h; k++)
                want[n++] = (want_t){res_key(RES_LINK, links[k] * 2 + dirs[k]), cl->links[links[k]].bw_Bps};
            sax_site_path(cl, links, h, &f->path);
            f->latency_s += f->path.latency_s;
            f->xsite = true;
        }
    }
    f->n_res = 0;
    for (int i = 0; i < n; i++) {
        long j = res_find(&s->map, want[i].key, s->counting_own, want[i].cap);
        if (j == -2)
            return false;
        if (j < 0)
            continue;
        res_t *r = &s->map.res[j];
        r->all += weight;
        if (s->counting_own) {
            r->own += weight;
            f->res[f->n_res++] = (int)j;
        }
    }
    return true;
}

/* ---- members, and the groups beside them ---------------------------------------------------- */

static void members_of(const sax_group_t *g, long base, long *out)
{
    int n = 0;
    out[n++] = base;
    for (int p = 0; p < g->n_pieces; p++) {
        int have = n;
        for (int i = 1; i < g->piece_size[p]; i++)
            for (int k = 0; k < have; k++)
                out[n++] = out[k] + i * g->piece_stride[p];
    }
    for (int i = 1; i < n; i++) /* rank order (insertion sort: the pieces nearly sort them) */
        for (int j = i; j > 0 && out[j] < out[j - 1]; j--) {
            long t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
}

static bool is_base(const sax_group_t *g, long r)
{
    for (int p = 0; p < g->n_pieces; p++)
        if ((r / g->piece_stride[p]) % g->piece_size[p] != 0)
            return false;
    return true;
}

/* ---- the connections of each algorithm ---------------------------------------------------------- */

/* Channel ch's ring through members m[0..n) (as member indices): rank order, each scale-up domain's
 * block rotated so the ring leaves it through block member (ch mod block size). */
static void ring_order(const sim_t *s, const long *m, int n, int ch, int *out)
{
    int i = 0;
    while (i < n) {
        int j = i;
        while (j < n && m[j] / s->lay.unit[0] == m[i] / s->lay.unit[0])
            j++;
        int len = j - i;
        for (int k = 0; k < len; k++)
            out[i + k] = i + (ch + 1 + k) % len;
        i = j;
    }
}

/* Channel ch's tree over m[0..n) as NCCL builds it (src/graph/connect.cc, trees.cc): a chain inside
 * each scale-up domain (its head rotating with the channel), a double binary tree over the domains'
 * heads inside each site in rank order, and one over the sites' heads (the cross-data-centre trees
 * stay inside a site until the top). parent[i] = member i's parent, -1 at the root. */
static void tree_build(const sim_t *s, const long *m, int n, int ch, int *parent, int *head, int *heads)
{
    const sax_layout_t *lay = &s->lay;
    int t = ch % 2;
    int i = 0;
    while (i < n) { /* chains */
        int j = i;
        while (j < n && m[j] / lay->unit[0] == m[i] / lay->unit[0])
            j++;
        int len = j - i, h = i + (ch / 2) % len;
        for (int k = 0; k < len; k++) {
            int me = i + (ch / 2 + k) % len, prev = i + (ch / 2 + k - 1 + len) % len;
            parent[me] = k == 0 ? -1 : prev;
        }
        for (int k = i; k < j; k++)
            head[k] = h;
        i = j;
    }
    for (int level = 0; level < 2; level++) { /* the domains' heads in each site, then the sites' */
        i = 0;
        while (i < n) {
            int j = i, site = sax_layout_site_of_rank(s->cl, m[i]);
            while (j < n && (level == 1 || sax_layout_site_of_rank(s->cl, m[j]) == site))
                j++;
            int f = 0;
            for (int k = i; k < j; k++)
                if (f == 0 || heads[f - 1] != head[k])
                    heads[f++] = head[k];
            int root = heads[0];
            for (int q = 0; q < f; q++) {
                int p = sax_dtree_parent(f, q, t);
                if (p >= 0)
                    parent[heads[q]] = heads[p];
                else
                    root = heads[q];
            }
            for (int k = i; k < j; k++)
                head[k] = root;
            i = j;
        }
    }
}

/* ---- rates: max-min fair shares ---------------------------------------------------------------- */

/* Progressive filling over group 0's flows. A resource offers group 0 the part of its capacity that
 * group 0's flows are of all flows through it (the other groups are translates of group 0 and get
 * the same shares). Then the transport's efficiency at that rate (loss recovery). */
static void fair_shares(sim_t *s, flow_t *f, long nf)
{
    res_map_t *m = &s->map;
    for (size_t i = 0; i < m->n; i++) {
        res_t *r = &m->res[i];
        r->cap *= r->own / r->all;
        r->used = 0.0;
        r->active = 0.0;
    }
    for (long i = 0; i < nf; i++) {
        f[i].frozen = false;
        f[i].rate_Bps = 0.0;
        for (int k = 0; k < f[i].n_res; k++)
            m->res[f[i].res[k]].active += f[i].weight;
    }
    long left = nf;
    while (left > 0) {
        double level = INFINITY;
        for (size_t i = 0; i < m->n; i++) {
            const res_t *r = &m->res[i];
            if (r->active > 0)
                level = fmin(level, (r->cap - r->used) / r->active);
        }
        for (long i = 0; i < nf; i++)
            if (!f[i].frozen)
                level = fmin(level, f[i].cap_Bps);
        for (long i = 0; i < nf; i++) {
            if (f[i].frozen)
                continue;
            bool stop = f[i].cap_Bps <= level * (1.0 + 1e-12);
            for (int k = 0; k < f[i].n_res && !stop; k++) {
                const res_t *r = &m->res[f[i].res[k]];
                stop = (r->cap - r->used) / r->active <= level * (1.0 + 1e-12);
            }
            if (stop) {
                f[i].frozen = true;
                f[i].rate_Bps = level;
                left--;
            }
        }
        for (long i = 0; i < nf; i++) /* account the newly frozen flows */
            if (f[i].frozen && f[i].rate_Bps == level && f[i].n_res >= 0) {
                for (int k = 0; k < f[i].n_res; k++) {
                    res_t *r = &m->res[f[i].res[k]];
                    r->used += level * f[i].weight;
                    r->active -= f[i].weight;
                }
                f[i].n_res = -f[i].n_res - 1; /* done: its resources are accounted */
            }
    }
    for (long i = 0; i < nf; i++) {
        f[i].n_res = -f[i].n_res - 1;
        if (f[i].xsite)
            f[i].rate_Bps *=
                sax_transport_efficiency(&f[i].path, s->c->transport, s->c->connections, f[i].rate_Bps);
    }
}

/* ---- time: the discrete-event runs --------------------------------------------------------------- */

/* The ring's steps per rank in one loop (runRing): op 0 sends its chunk, the last op only receives,
 * every op between receives and sends. All ranks run the same steps. */
static int ring_ops(sax_coll_op_t op, int n) { return op == SAX_OP_ALL_REDUCE ? 2 * n - 1 : n; }

/* One channel's ring: edge i goes from order[i] to order[i+1]; rate/latency/net per edge. */
static double ring_channel(sax_coll_op_t op, int n, const double *rate, const double *lat, const bool *net,
                           double bytes, double chunk_max, double *clock, double *busy, double *arr,
                           double *slot_free, long *events)
{
    int nops = ring_ops(op, n);
    for (int r = 0; r < n; r++)
        clock[r] = busy[r] = 0.0;
    for (int r = 0; r < n * SIM_RING_SLOTS; r++)
        slot_free[r] = 0.0;
    long sends = 0, recvs = 0; /* per rank (all ranks alike) */
    double loop_bytes = (double)n * chunk_max, left = bytes;
    while (left > 0.0) {
        double chunk = left >= loop_bytes ? chunk_max : left / n;
        double slice = chunk / SIM_RING_SLICES;
        /* a partial loop takes the rest: (left / n) x n may round below left, which must not run one
         * more loop of nothing (it paid every latency again: 43 members, 250 kB) */
        left = left >= loop_bytes ? left - chunk * n : 0.0;
        for (int o = 0; o < nops; o++) {
            bool rx = o > 0, tx = o < nops - 1;
            for (int sl = 0; sl < SIM_RING_SLICES; sl++) {
                for (int r = 0; r < n; r++) {
                    int prev = (r + n - 1) % n, next = (r + 1) % n;
                    double t = clock[r];
                    if (rx)
                        t = fmax(t, arr[r * 8 + recvs % 8]);
                    double done = t;
                    if (tx) {
                        if (sends >= SIM_RING_SLOTS)
                            t = fmax(t, slot_free[next * SIM_RING_SLOTS + sends % SIM_RING_SLOTS] + lat[r]);
                        double start = fmax(t, busy[r]), end = start + slice / rate[r];
                        busy[r] = end;
                        arr[next * 8 + sends % 8] = end + lat[r];
                        done = net[r] ? t : end;
                    }
                    if (rx) /* the slot this step read is free once the step is done */
                        slot_free[r * SIM_RING_SLOTS + recvs % SIM_RING_SLOTS] = done;
                    clock[r] = done;
                    (void)prev;
                }
                if (rx)
                    recvs++;
                if (tx)
                    sends++;
                *events += n;
            }
        }
    }
    double end = 0.0;
    for (int r = 0; r < n; r++)
        end = fmax(end, clock[r]);
    return end;
}

/* One channel's tree all-reduce (runTreeSplit): every node but the root reduces up (receive from its
 * children, send to its parent) and, concurrently, broadcasts down (receive from its parent, send to
 * its children); the root receives, reduces and sends down in one step. Chunks of one slot. */
typedef struct {
    int n, root;
    const int *parent;
    const int *post;  /* members children first */
    const int *child; /* child[TREE_MAX_CHILDREN v + i] */
    const int *n_child;
    const double *up_rate, *up_lat, *dn_rate, *dn_lat; /* of the edge between v and its parent */
    const bool *net;                                   /* ... leaves the scale-up domain */
} tree_run_t;

static double tree_channel(const tree_run_t *tr, double bytes, double chunk_max, double *st, long *events)
{
    int n = tr->n, Q = SAX_NCCL_STEPS;
    double *clock_up = st, *clock_dn = st + n, *busy_up = st + 2 * n, *busy_dn = st + 3 * n;
    double *up_arr = st + 4 * n, *dn_arr = st + 5 * n, *up_free = st + 6 * n,
           *dn_free = up_free + (size_t)n * Q;
    memset(st, 0, sizeof(double) * (size_t)n * (6 + 2 * (size_t)Q));
    double left = bytes;
    for (long k = 0; left > 0.0; k++) {
        double chunk = fmin(chunk_max, left);
        left -= chunk;
        for (int i = 0; i < n; i++) { /* up, children first */
            int v = tr->post[i];
            double t = v == tr->root ? clock_dn[v] : clock_up[v];
            for (int q = 0; q < tr->n_child[v]; q++)
                t = fmax(t, up_arr[tr->child[TREE_MAX_CHILDREN * v + q]]);
            double done = t;
            if (v != tr->root) {
                if (k >= Q)
                    t = fmax(t, up_free[v * Q + k % Q] + tr->up_lat[v]);
                double start = fmax(t, busy_up[v]), end = start + chunk / tr->up_rate[v];
                busy_up[v] = end;
                up_arr[v] = end + tr->up_lat[v];
                done = tr->net[v] ? t : end;
                clock_up[v] = done;
            } else {
                clock_dn[v] = t; /* the root turns the reduced chunk around */
            }
            for (int q = 0; q < tr->n_child[v]; q++)
                up_free[tr->child[TREE_MAX_CHILDREN * v + q] * Q + k % Q] = done;
        }
        for (int i = n - 1; i >= 0; i--) { /* down, parents first */
            int v = tr->post[i];
            double t = clock_dn[v];
            if (v != tr->root)
                t = fmax(t, dn_arr[v]);
            double done = t;
            for (int q = 0; q < tr->n_child[v]; q++) {
                int ch = tr->child[TREE_MAX_CHILDREN * v + q];
                double tc = k >= Q ? fmax(t, dn_free[ch * Q + k % Q] + tr->dn_lat[ch]) : t;
                double start = fmax(tc, busy_dn[ch]), end = start + chunk / tr->dn_rate[ch];
                busy_dn[ch] = end;
                dn_arr[ch] = end + tr->dn_lat[ch];
                done = fmax(done, tr->net[ch] ? tc : end);
            }
            if (v != tr->root)
                dn_free[v * Q + k % Q] = done;
            clock_dn[v] = done;
        }
        *events += 2L * n;
    }
    double end = 0.0;
    for (int v = 0; v < n; v++)
        end = fmax(end, clock_dn[v]);
    return end;
}

/* One point-to-point connection: chunks through `slots` slots, each freed when it arrives (the
 * receiver copies it out) and credited back one latency later. */
static double p2p_channel(double bytes, double chunk_max, int slots, double rate, double lat, double *free_at,
                          long *events)
{
    double busy = 0.0, arrive = lat, left = bytes;
    for (long k = 0; left > 0.0; k++) {
        double chunk = fmin(chunk_max, left);
        left -= chunk;
        double t = k >= slots ? free_at[k % slots] + lat : 0.0;
        double start = fmax(t, busy), end = start + chunk / rate;
        busy = end;
        arrive = end + lat;
        free_at[k % slots] = arrive;
        (*events)++;
    }
    return arrive;
}

/* ---- one flat collective over explicit groups ------------------------------------------------------- */

/* All concurrent groups, group 0 first: ranks[start[i] .. start[i+1]) in rank order. */
typedef struct {
    long *ranks;
    long *start;
    long n_groups;
} group_set_t;

typedef enum { SHAPE_RING, SHAPE_TREE, SHAPE_PAIRS, SHAPE_SHIFT } shape_t;

typedef struct {
    sax_coll_op_t op;
    shape_t shape;
    int channels; /* ring/tree channels, or point-to-point channels per peer */
    double bytes; /* per member (nccl-tests' size) */
} flat_t;

/* Where a connection from rank a to rank b goes, as far as its resources, latency and limit tell: the
 * level it crosses inside the site, or the site it reaches (route() uses a's NIC and units, a's site's
 * uplink and the links to b's site, nothing of b's own). */
static long pair_class(const sim_t *s, long a, long b)
{
    int site_level = s->lay.n_levels - 1;
    int sa = sax_layout_site_of_rank(s->cl, a), sb = sax_layout_site_of_rank(s->cl, b);
    if (sa != sb)
        return site_level + sb;
    for (int l = 0; l < site_level; l++)
        if (sax_layout_unit_of(s->cl, &s->lay, a, l, NULL) == sax_layout_unit_of(s->cl, &s->lay, b, l, NULL))
            return l;
    return site_level - 1;
}

/* The connections of one group as (from, to) member indices, channel by channel: ring edges
 * (n per channel), tree edges up then down (2 (n-1) per channel), or peer pairs (n (n-1) per
 * channel for a shift). An all-to-all's n (n - 1) pairs per channel are identical flows wherever a
 * sender's peers are of one class (pair_class): one connection per sender and class stands for them
 * all, channels included, with their number in `wt` (1 elsewhere; max-min shares treat identical
 * flows alike, so this is exact and takes n x classes connections, not 4 x 4096^2). Returns the count,
 * writes them when `ft` is not NULL. */
static long connections(const sim_t *s, shape_t shape, int channels, const long *m, int n, int *order,
                        int *parent, int *head, int *heads, int *ft, double *wt)
{
    long k = 0;
    if (shape == SHAPE_PAIRS) {
        enum { MAX_CLASSES = SAX_MAX_LEVELS + SAX_MAX_SITES };
        for (int i = 0; i < n; i++) {
            int rep[MAX_CLASSES];
            double count[MAX_CLASSES] = {0};
            for (int j = 0; j < n; j++)
                if (j != i) {
                    long c = pair_class(s, m[i], m[j]);
                    if (count[c] == 0.0)
                        rep[c] = j;
                    count[c] += 1.0;
                }
            for (int c = 0; c < MAX_CLASSES; c++)
                if (count[c] > 0.0) {
                    if (ft != NULL) {
                        ft[2 * k] = i;
                        ft[2 * k + 1] = rep[c];
                        wt[k] = count[c] * channels;
                    }
                    k++;
                }
        }
        return k;
    }
    for (int ch = 0; ch < channels; ch++) {
        if (shape == SHAPE_RING) {
            ring_order(s, m, n, ch, order);
            for (int i = 0; i < n; i++, k++)
                if (ft != NULL) {
                    ft[2 * k] = order[i];
                    ft[2 * k + 1] = order[(i + 1) % n];
                }
        } else if (shape == SHAPE_TREE) {
            tree_build(s, m, n, ch, parent, head, heads);
            for (int i = 0; i < n; i++)
                if (parent[i] >= 0) {
                    if (ft != NULL) {
                        ft[2 * k] = i;
                        ft[2 * k + 1] = parent[i];
                        ft[2 * (k + 1)] = parent[i];
                        ft[2 * (k + 1) + 1] = i;
                    }
                    k += 2;
                }
        } else {
            for (int i = 0; i < n; i++, k++)
                if (ft != NULL) {
                    ft[2 * k] = i;
                    ft[2 * k + 1] = (i + 1) % n;
                }
        }
    }
    for (long i = 0; wt != NULL && i < k; i++)
        wt[i] = 1.0;
    return k;
}

static bool same(const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* One flat collective (ring, tree, pairs, shift) of the groups in `gs`: group 0's time. */
static sax_status_t run_flat(sim_t *s, const group_set_t *gs, const flat_t *fl, double *time_s, long *events,
                             sax_error_t *err)
{
    const sax_candidate_t *c = s->c;
    const long *m0 = gs->ranks;
    int n = (int)(gs->start[1] - gs->start[0]);
    *time_s = 0.0;
    if (n <= 1 || fl->bytes <= 0.0)
        return SAX_OK;
    long max_n = 0;
    for (long g = 0; g < gs->n_groups; g++)
        max_n = gs->start[g + 1] - gs->start[g] > max_n ? gs->start[g + 1] - gs->start[g] : max_n;
    sax_status_t st = SAX_ERR_NOMEM;
    int *order = malloc(sizeof(int) * (size_t)max_n * 3);
    long nc = connections(s, fl->shape, fl->channels, m0, n, order, order, order + max_n, order + 2 * max_n,
                          NULL, NULL);
    /* the other groups' connections: at most as many as group 0's with max_n members, or for pairs,
     * one per member and class */
    long nc_other = fl->shape == SHAPE_PAIRS
                        ? max_n * (SAX_MAX_LEVELS + SAX_MAX_SITES)
                        : connections(s, fl->shape, fl->channels, m0, (int)max_n, order, order, order + max_n,
                                      order + 2 * max_n, NULL, NULL);
    int *ft = malloc(sizeof(int) * 2 * (size_t)nc);
    double *wt = malloc(sizeof(double) * (size_t)(nc > nc_other ? nc : nc_other));
    int *ft_other = NULL;
    flow_t *f = calloc((size_t)nc, sizeof *f);
    double *work = NULL;
    if (order == NULL || ft == NULL || wt == NULL || f == NULL)
        goto done;
    connections(s, fl->shape, fl->channels, m0, n, order, order, order + max_n, order + 2 * max_n, ft, wt);
    s->counting_own = true;
    for (long k = 0; k < nc; k++) {
        if (!route(s, m0[ft[2 * k]], m0[ft[2 * k + 1]], wt[k], &f[k])) {
            st = sax_error_set(err, SAX_ERR_INPUT, "no route between ranks %ld and %ld", m0[ft[2 * k]],
                               m0[ft[2 * k + 1]]);
            goto done;
        }
        if (f[k].xsite)
            f[k].cap_Bps = sax_transport_cap_Bps(&f[k].path, c->transport, c->connections);
    }
    s->counting_own = false;
    ft_other = malloc(sizeof(int) * 2 * (size_t)nc_other);
    if (ft_other == NULL)
        goto done;
    for (long g = 1; g < gs->n_groups; g++) {
        const long *m = gs->ranks + gs->start[g];
        int ng = (int)(gs->start[g + 1] - gs->start[g]);
        long k2 = connections(s, fl->shape, fl->channels, m, ng, order, order, order + max_n,
                              order + 2 * max_n, ft_other, wt);
        for (long k = 0; k < k2; k++) {
            flow_t scratch;
            if (!route(s, m[ft_other[2 * k]], m[ft_other[2 * k + 1]], wt[k], &scratch)) {
                st = sax_error_set(err, SAX_ERR_INPUT, "no route between ranks %ld and %ld",
                                   m[ft_other[2 * k]], m[ft_other[2 * k + 1]]);
                goto done;
            }
        }
    }
    fair_shares(s, f, nc);

    if (fl->shape == SHAPE_RING) {
        work = malloc(sizeof(double) * (size_t)n * (3 + 8 + SIM_RING_SLOTS + 3) + sizeof(bool) * (size_t)n);
        if (work == NULL)
            goto done;
        double *rate = work, *lat = work + n, *prev_rate = work + 2 * n, *clk = work + 3 * n, *busy = clk + n,
               *arr = busy + n, *slot = arr + 8 * (size_t)n, *prev_lat = slot + SIM_RING_SLOTS * n;
        bool *net = (bool *)(prev_lat + n);
        double chunk = sax_nccl_buffer_bytes(c) / 2.0, per_channel = fl->bytes / fl->channels, last = 0.0;
        for (int ch = 0; ch < fl->channels; ch++) {
            /* edge i of the channel's ring leaves ring position i; put it at the sending member */
            for (int i = 0; i < n; i++) {
                const flow_t *e = &f[(long)ch * n + i];
                rate[i] = e->rate_Bps;
                lat[i] = e->latency_s;
                net[i] = e->net;
            }
            if (ch == 0 || !same(rate, prev_rate, n) || !same(lat, prev_lat, n))
                last =
                    ring_channel(fl->op, n, rate, lat, net, per_channel, chunk, clk, busy, arr, slot, events);
            memcpy(prev_rate, rate, sizeof(double) * (size_t)n);
            memcpy(prev_lat, lat, sizeof(double) * (size_t)n);
            *time_s = fmax(*time_s, last);
        }
    } else if (fl->shape == SHAPE_TREE) {
        size_t nn = (size_t)n;
        work = malloc(sizeof(double) * nn * (4 + 6 + 2 * SAX_NCCL_STEPS) +
                      sizeof(int) * nn * (4 + TREE_MAX_CHILDREN) + sizeof(bool) * nn);
        if (work == NULL)
            goto done;
        double *up_rate = work, *up_lat = work + nn, *dn_rate = work + 2 * nn, *dn_lat = work + 3 * nn,
               *state = work + 4 * nn;
        int *parent = (int *)(state + nn * (6 + 2 * SAX_NCCL_STEPS)), *child = parent + nn,
            *n_child = child + TREE_MAX_CHILDREN * nn, *post = n_child + nn, *depth = post + nn;
        bool *net = (bool *)(depth + nn);
        double per_channel = fl->bytes / fl->channels, chunk = sax_nccl_buffer_bytes(c) / SAX_NCCL_STEPS;
        long k = 0;
        for (int ch = 0; ch < fl->channels; ch++) {
            tree_build(s, m0, n, ch, parent, order, order + max_n);
            int root = 0;
            for (int v = 0; v < n; v++) {
                n_child[v] = 0;
                depth[v] = 0;
            }
            for (int v = 0; v < n; v++) {
                if (parent[v] < 0) {
                    root = v;
                    continue;
                }
                child[TREE_MAX_CHILDREN * parent[v] + n_child[parent[v]]++] = v;
                up_rate[v] = f[k].rate_Bps;
                up_lat[v] = f[k].latency_s;
                net[v] = f[k].net;
                dn_rate[v] = f[k + 1].rate_Bps;
                dn_lat[v] = f[k + 1].latency_s;
                k += 2;
            }
            /* an order with children first: by depth, deepest first (counting sort) */
            int max_depth = 0;
            for (int v = 0; v < n; v++) {
                for (int u = v; parent[u] >= 0; u = parent[u])
                    depth[v]++;
                max_depth = depth[v] > max_depth ? depth[v] : max_depth;
            }
            int np = 0;
            for (int d = max_depth; d >= 0; d--)
                for (int v = 0; v < n; v++)
                    if (depth[v] == d)
                        post[np++] = v;
            tree_run_t tr = {.n = n,
                             .root = root,
                             .parent = parent,
                             .post = post,
                             .child = child,
                             .n_child = n_child,
                             .up_rate = up_rate,
                             .up_lat = up_lat,
                             .dn_rate = dn_rate,
                             .dn_lat = dn_lat,
                             .net = net};
            *time_s = fmax(*time_s, tree_channel(&tr, per_channel, chunk, state, events));
        }
    } else { /* point-to-point: every connection on its own, alike ones once */
        work = malloc(sizeof(double) * (SAX_NCCL_STEPS + 2 * 64));
        if (work == NULL)
            goto done;
        double *free_at = work, *seen = work + SAX_NCCL_STEPS;
        int n_seen = 0;
        double per_peer = fl->op == SAX_OP_ALL_TO_ALL ? fl->bytes / n : fl->bytes;
        double per_flow = per_peer / fl->channels;
        for (long q = 0; q < nc; q++) {
            bool dup = false;
            for (int i = 0; i < n_seen && !dup; i++)
                dup = seen[2 * i] == f[q].rate_Bps && seen[2 * i + 1] == f[q].latency_s;
            if (dup)
                continue;
            if (n_seen < 64) {
                seen[2 * n_seen] = f[q].rate_Bps;
                seen[2 * n_seen + 1] = f[q].latency_s;
                n_seen++;
            }
            double chunk = sax_nccl_p2p_chunk(c, !f[q].net);
            *time_s = fmax(*time_s, p2p_channel(per_flow, chunk, SAX_NCCL_STEPS, f[q].rate_Bps,
                                                f[q].latency_s, free_at, events));
        }
    }
    st = SAX_OK;
done:
    if (st == SAX_ERR_NOMEM)
        sax_error_set(err, st, "out of memory simulating a collective of %d members", n);
    free(work);
    free(wt);
    free(ft_other);
    free(f);
    free(ft);
    free(order);
    return st;
}

/* ---- the groups, and the hierarchical algorithm's phases ------------------------------------------ */

static long unit_of(const sim_t *s, long r, int level)
{
    return level >= s->lay.n_levels - 1 ? 0 : sax_layout_unit_of(s->cl, &s->lay, r, level, NULL);
}

/* Every group of the shape of s->g, group 0 first. */
static sax_status_t all_groups(const sim_t *s, group_set_t *gs)
{
    const sax_group_t *g = s->g;
    long total = (long)g->groups * g->n;
    gs->n_groups = g->groups;
    gs->ranks = malloc(sizeof(long) * (size_t)total);
    gs->start = malloc(sizeof(long) * (size_t)(g->groups + 1));
    if (gs->ranks == NULL || gs->start == NULL)
        return SAX_ERR_NOMEM;
    long k = 0;
    for (long r = 0; r < total && k < g->groups; r++)
        if (is_base(g, r)) {
            gs->start[k] = k * g->n;
            members_of(g, r, gs->ranks + k * g->n);
            k++;
        }
    gs->n_groups = k;
    gs->start[k] = k * g->n;
    return SAX_OK;
}

/* The sub-groups of the hierarchical algorithm's phase at `level`: inside each unit of the level, the
 * members at the same position within their unit of the level below (level 0: the members of one
 * scale-up domain). Sub-group 0 holds the first member of group 0. */
static sax_status_t phase_groups(const sim_t *s, const group_set_t *all, int level, group_set_t *out)
{
    long total = all->start[all->n_groups];
    out->ranks = malloc(sizeof(long) * (size_t)total);
    out->start = malloc(sizeof(long) * (size_t)(total + 1));
    long *key = malloc(sizeof(long) * 2 * (size_t)total);
    if (out->ranks == NULL || out->start == NULL || key == NULL) {
        free(key);
        return SAX_ERR_NOMEM;
    }
    out->n_groups = 0;
    long w = 0;
    for (long g = 0; g < all->n_groups; g++) {
        const long *m = all->ranks + all->start[g];
        long n = all->start[g + 1] - all->start[g];
        /* (unit, position within the sub-unit) of each member; members are in rank order */
        long pos = 0;
        for (long i = 0; i < n; i++) {
            bool new_sub =
                i == 0 || level == 0 || unit_of(s, m[i], level - 1) != unit_of(s, m[i - 1], level - 1);
            pos = new_sub ? 0 : pos + 1;
            key[2 * i] = unit_of(s, m[i], level);
            key[2 * i + 1] = level == 0 ? 0 : pos;
        }
        for (long i = 0; i < n; i++) {
            if (key[2 * i] < 0) /* taken */
                continue;
            out->start[out->n_groups++] = w;
            long ku = key[2 * i], kp = key[2 * i + 1];
            for (long j = i; j < n; j++)
                if (key[2 * j] == ku && key[2 * j + 1] == kp) {
                    out->ranks[w++] = m[j];
                    key[2 * j] = -1;
                }
        }
    }
    out->start[out->n_groups] = w;
    free(key);
    return SAX_OK;
}

static void group_set_free(group_set_t *gs)
{
    free(gs->ranks);
    free(gs->start);
    gs->ranks = NULL;
    gs->start = NULL;
}

/* Does any sub-group of `gs` (group 0's) cross sites? */
static bool crosses_sites(const sim_t *s, const group_set_t *gs)
{
    for (long i = gs->start[0] + 1; i < gs->start[1]; i++)
        if (sax_layout_site_of_rank(s->cl, gs->ranks[i]) != sax_layout_site_of_rank(s->cl, gs->ranks[0]))
            return true;
    return false;
}

sax_status_t sax_collective_simulate(const sax_cluster_t *cl, const sax_candidate_t *c, const sax_group_t *g,
                                     sax_coll_op_t op, sax_algorithm_t alg, double bytes, double xsite_factor,
                                     sax_coll_sim_t *out, sax_error_t *err)
{
    memset(out, 0, sizeof *out);
    sim_t s = {.cl = cl, .c = c, .g = g};
    sax_layout_levels(cl, &s.lay);
    group_set_t all = {0};
    sax_status_t st = !res_map_init(&s.map) ? SAX_ERR_NOMEM : all_groups(&s, &all);
    if (st != SAX_OK) {
        res_map_free(&s.map);
        group_set_free(&all);
        return sax_error_set(err, st, "out of memory simulating a collective");
    }
    bool pairs = op == SAX_OP_ALL_TO_ALL || op == SAX_OP_SENDRECV;
    if (pairs || alg != SAX_ALGORITHM_HIERARCHICAL) {
        flat_t fl = {.op = op, .bytes = crosses_sites(&s, &all) ? bytes * xsite_factor : bytes};
        fl.shape = op == SAX_OP_ALL_TO_ALL                                ? SHAPE_PAIRS
                   : op == SAX_OP_SENDRECV                                ? SHAPE_SHIFT
                   : alg == SAX_ALGORITHM_TREE && op == SAX_OP_ALL_REDUCE ? SHAPE_TREE
                                                                          : SHAPE_RING;
        fl.channels = pairs ? sax_p2p_channels(cl, c) : sax_channels(c, g->count[0]);
        st = run_flat(&s, &all, &fl, &out->time_s, &out->events, err);
        out->phases = 1;
        out->phase_s[0] = out->time_s;
    } else {
        /* reduce-scatter up the levels, the collective across the top, all-gather back down; the data
         * cut in k pieces pipelined through the phases, each phase on its own communicator (a
         * permutation flow shop of identical jobs), k the best of 1, 2, 4, ..., 64 */
        int top = g->top, n_lv = 0, n_ph = 0;
        int lv[SAX_MAX_LEVELS], level[2 * SAX_MAX_LEVELS];
        sax_coll_op_t ph_op[2 * SAX_MAX_LEVELS];
        double lv_share[SAX_MAX_LEVELS], share[2 * SAX_MAX_LEVELS], d = 1.0;
        group_set_t ph[SAX_MAX_LEVELS + 1] = {{0}};
        for (int l = 0; l <= top && st == SAX_OK; l++) {
            st = phase_groups(&s, &all, l, &ph[l]);
            int f = st == SAX_OK ? (int)(ph[l].start[1] - ph[l].start[0]) : 1;
            if (f > 1) {
                lv[n_lv] = l;
                lv_share[n_lv++] = d;
                d /= f;
            }
        }
        /* up: reduce-scatters (all-reduce, reduce-scatter); the top; down: all-gathers (all-reduce,
         * all-gather). Each phase's size is the data it starts from (nccl-tests' convention). */
        for (int i = 0; i < n_lv; i++) {
            bool at_top = i == n_lv - 1;
            if (at_top || op != SAX_OP_ALL_GATHER) {
                level[n_ph] = lv[i];
                ph_op[n_ph] = at_top ? op : SAX_OP_REDUCE_SCATTER;
                share[n_ph++] = lv_share[i];
            }
        }
        if (op != SAX_OP_REDUCE_SCATTER)
            for (int i = n_lv - 2; i >= 0; i--) {
                level[n_ph] = lv[i];
                ph_op[n_ph] = SAX_OP_ALL_GATHER;
                share[n_ph++] = lv_share[i];
            }
        double best = INFINITY;
        for (int k = 1; k <= 64 && st == SAX_OK; k *= 2) {
            double sum = 0.0, worst = 0.0;
            for (int i = 0; i < n_ph && st == SAX_OK; i++) {
                const group_set_t *gs = &ph[level[i]];
                bool xs = crosses_sites(&s, gs);
                int m0 = 0; /* members of the phase's sub-group inside one scale-up domain */
                for (long q = gs->start[0]; q < gs->start[1]; q++)
                    m0 += gs->ranks[q] / s.lay.unit[0] == gs->ranks[gs->start[0]] / s.lay.unit[0];
                flat_t fl = {.op = ph_op[i],
                             .shape = SHAPE_RING,
                             .channels = sax_channels(c, m0),
                             .bytes = bytes * share[i] / k * (xs ? xsite_factor : 1.0)};
                res_map_clear(&s.map);
                double t = 0.0;
                st = run_flat(&s, gs, &fl, &t, &out->events, err);
                sum += t;
                worst = fmax(worst, t);
                if (k == 1)
                    out->phase_s[i] = t;
            }
            best = fmin(best, sum + (k - 1) * worst);
            if (k == 1)
                out->phases = n_ph;
        }
        out->time_s = best == INFINITY ? 0.0 : best;
        for (int l = 0; l <= top; l++)
            group_set_free(&ph[l]);
    }
    res_map_free(&s.map);
    group_set_free(&all);
    return st;
}
