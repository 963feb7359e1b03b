/* layout.c - where each parallel group lands in the hierarchy (scale-up domain, tiers, sites).
 *
 * parallelism.order lists the dimensions innermost first; consecutive ranks fill the scale-up
 * domain, then each tier's units, then the sites in order (contract.md). A dimension's groups are
 * the ranks that differ only in that dimension's coordinate: `pieces` of (stride, size). For each
 * level we count how many members of one group share a unit of that level; the outermost level
 * whose unit does not hold the whole group is the boundary the group's traffic crosses.
 * EP is carved out of DP (Megatron-Core's expert parallelism): the order's "ep" entry has degree ep
 * and its "dp" entry dp/ep; dense gradients are reduced over cp x ep x dp/ep. When ep divides
 * dp x cp but not dp, EP takes g = gcd(ep, dp) data-parallel ranks (the "ep" entry has degree g,
 * "dp" dp/g) and the innermost ep/g context-parallel ranks (ep/g divides cp). An order that leaves
 * "ep" out (as contract.md's examples do) has it just inside "dp": the expert-parallel ranks are
 * the innermost ep of the data-parallel ones, as in Megatron-Core's default rank order.
 * MoE parallel folding (an experts' tensor-parallel degree etp other than tp): the routed experts take
 * their own grid, as Megatron-Core's expert RankGenerator does (megatron/core/parallel_state.py,
 * initialize_model_parallel): each pipeline stage's tp x cp x dp ranks, numbered by their coordinates in
 * the order's sequence (pp left out), are read as etp x ep x expert-DP, innermost first. The dense grid
 * then has no "ep" (degree 1 wherever the order lists it) and DP is all of dp.
 */
#include "model_internal.h"

#include <math.h>
#include <string.h>

int sax_layout_site_of_rank(const sax_cluster_t *cl, long rank)
{
    long acc = 0;
    for (int i = 0; i < cl->n_sites; i++) {
        acc += cl->sites[i].gpus;
        if (rank < acc)
            return i;
    }
    return cl->n_sites - 1;
}

static long site_start(const sax_cluster_t *cl, int site)
{
    long acc = 0;
    for (int i = 0; i < site; i++)
        acc += cl->sites[i].gpus;
    return acc;
}

long sax_layout_unit_of(const sax_cluster_t *cl, const sax_layout_t *lay, long rank, int level, long *gpus)
{
    if (!lay->partial) { /* every site a whole number of units: they tile the ranks from 0 */
        if (gpus != NULL)
            *gpus = lay->unit[level];
        return rank / lay->unit[level] * lay->unit[level];
    }
    long s0 = 0;
    int s = 0;
    while (s < cl->n_sites - 1 && rank >= s0 + cl->sites[s].gpus)
        s0 += cl->sites[s++].gpus;
    long u = lay->unit[level], start = s0 + (rank - s0) / u * u, left = s0 + cl->sites[s].gpus - start;
    if (gpus != NULL)
        *gpus = left < u ? left : u;
    return start;
}

/* The bottleneck bandwidth of the widest route from site a to site b (0: none), by Dijkstra's
 * label-setting on the narrowest link so far, which never widens along a route. */
static double widest_bw(const sax_cluster_t *cl, int a, int b)
{
    double wide[SAX_MAX_SITES];
    bool done[SAX_MAX_SITES];
    for (int i = 0; i < cl->n_sites; i++) {
        wide[i] = 0.0;
        done[i] = false;
    }
    wide[a] = INFINITY;
    for (int step = 0; step < cl->n_sites; step++) {
        int x = -1;
        for (int i = 0; i < cl->n_sites; i++)
            if (!done[i] && wide[i] > 0.0 && (x < 0 || wide[i] > wide[x]))
                x = i;
        if (x < 0 || x == b)
            break;
        done[x] = true;
        for (int l = 0; l < cl->n_links; l++) {
            const sax_site_link_t *k = &cl->links[l];
            int y = k->a == x ? k->b : k->b == x ? k->a : -1;
            if (y >= 0 && !done[y])
                wide[y] = fmax(wide[y], fmin(wide[x], k->bw_Bps));
        }
    }
    return wide[b];
}

int sax_site_route(const sax_cluster_t *cl, int a, int b, int *links, int *dirs)
{
    if (a == b)
        return 0;
    for (int l = 0; l < cl->n_links; l++) /* a direct link: one hop, no route is shorter */
        if ((cl->links[l].a == a && cl->links[l].b == b) || (cl->links[l].a == b && cl->links[l].b == a)) {
            links[0] = l;
            dirs[0] = cl->links[l].a == a ? 0 : 1;
            return 1;
        }
    /* the widest route (the largest bottleneck bandwidth: bulk traffic engineered onto capacity, and an
     * added link never narrows a route); among those, breadth-first over the links at least that wide,
     * the fewest hops, then the least latency */
    double floor_bw = widest_bw(cl, a, b);
    if (!(floor_bw > 0.0))
        return -1;
    int hops[SAX_MAX_SITES], via_link[SAX_MAX_SITES], via_site[SAX_MAX_SITES];
    double lat[SAX_MAX_SITES];
    for (int i = 0; i < cl->n_sites; i++) {
        hops[i] = -1;
        lat[i] = 0.0;
    }
    hops[a] = 0;
    for (int depth = 0; depth < cl->n_sites; depth++)
        for (int x = 0; x < cl->n_sites; x++) {
            if (hops[x] != depth)
                continue;
            for (int l = 0; l < cl->n_links; l++) {
                const sax_site_link_t *k = &cl->links[l];
                int y = k->a == x ? k->b : k->b == x ? k->a : -1;
                if (y < 0 || k->bw_Bps < floor_bw)
                    continue;
                double t = lat[x] + k->latency_s;
                if (hops[y] < 0 || (hops[y] == depth + 1 && t < lat[y])) {
                    hops[y] = depth + 1;
                    lat[y] = t;
                    via_link[y] = l;
                    via_site[y] = x;
                }
            }
        }
    if (hops[b] < 0)
        return -1;
    for (int y = b, i = hops[b] - 1; y != a; y = via_site[y], i--) {
        links[i] = via_link[y];
        dirs[i] = cl->links[via_link[y]].a == via_site[y] ? 0 : 1;
    }
    return hops[b];
}

/* members of the group containing rank 0 that lie below rank `unit` */
static int count_in_unit(const sax_group_t *g, long unit)
{
    long c = 1;
    for (int i = 0; i < g->n_pieces; i++) {
        long k = (unit + g->piece_stride[i] - 1) / g->piece_stride[i];
        c *= k < g->piece_size[i] ? k : g->piece_size[i];
    }
    return (int)c;
}

/* Is some member of the group (pieces 0..top, inner first, offset `base`) in ranks [lo, hi)? The
 * pieces nest (an outer stride exceeds the inner pieces' extent), so a run of three or more outer
 * positions that can reach the range has one whose inner members all lie inside it. */
static bool member_in(const sax_group_t *g, int top, long base, long lo, long hi)
{
    if (top < 0)
        return base >= lo && base < hi;
    long inner = 0;
    for (int i = 0; i < top; i++)
        inner += (long)(g->piece_size[i] - 1) * g->piece_stride[i];
    long st = g->piece_stride[top];
    long first = lo - inner - base <= 0 ? 0 : (lo - inner - base + st - 1) / st;
    long last = (hi - 1 - base) < 0 ? -1 : (hi - 1 - base) / st;
    if (last > g->piece_size[top] - 1)
        last = g->piece_size[top] - 1;
    for (long i = first; i <= last && i < first + 3; i++)
        if (member_in(g, top - 1, base + i * st, lo, hi))
            return true;
    return last >= first + 3;
}

/* Inner pieces first (count_in_unit nests them). */
static void sort_pieces(sax_group_t *g)
{
    for (int i = 1; i < g->n_pieces; i++)
        for (int j = i; j > 0 && g->piece_stride[j] < g->piece_stride[j - 1]; j--) {
            long ts = g->piece_stride[j];
            int tz = g->piece_size[j];
            g->piece_stride[j] = g->piece_stride[j - 1];
            g->piece_size[j] = g->piece_size[j - 1];
            g->piece_stride[j - 1] = ts;
            g->piece_size[j - 1] = tz;
        }
}

static int gcd(int a, int b)
{
    while (b != 0) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Fills everything but the pieces (set by the caller) and `groups`. */
static sax_infeasible_t describe(const sax_cluster_t *cl, const sax_layout_t *lay, sax_group_t *g)
{
    sort_pieces(g);
    int n = 1;
    for (int i = 0; i < g->n_pieces; i++)
        n *= g->piece_size[i];
    g->n = n;
    g->top = 0;
    g->sites = 1;
    g->site[0] = 0;
    memset(g->link_hops, 0, sizeof g->link_hops);
    g->short_groups = 0;
    int site_level = lay->n_levels - 1;
    for (int l = 0; l < site_level; l++) {
        g->count[l] = count_in_unit(g, lay->unit[l]);
        g->units[l] = (n + g->count[l] - 1) / g->count[l];
        if (g->count[l] < n)
            g->top = l + 1;
    }
    g->count[site_level] = n;
    g->units[site_level] = 1;
    if (g->top < site_level)
        return SAX_FEASIBLE;
    /* the group leaves its site: which sites, and how its ring runs between them */
    g->sites = 0;
    for (int s = 0; s < cl->n_sites; s++) {
        long lo = site_start(cl, s);
        if (member_in(g, g->n_pieces - 1, 0, lo, lo + cl->sites[s].gpus))
            g->site[g->sites++] = s;
    }
    if (g->sites <= 1) { /* the tiers' units are larger than the site: still one site */
        g->top = site_level - 1;
        g->sites = 1;
        return SAX_FEASIBLE;
    }
    g->units[site_level - 1] = g->units[site_level - 1] > g->sites ? g->units[site_level - 1] : g->sites;
    for (int i = 0; i < g->sites; i++) {
        int links[SAX_MAX_SITES], dirs[SAX_MAX_SITES];
        int h = sax_site_route(cl, g->site[i], g->site[(i + 1) % g->sites], links, dirs);
        if (h < 0)
            return SAX_INFEASIBLE_NO_LINK;
        g->site_hop_latency_s[i] = 0.0;
        for (int k = 0; k < h; k++) {
            g->link_hops[links[k]][dirs[k]]++;
            g->site_hop_latency_s[i] += cl->links[links[k]].latency_s;
        }
    }
    return SAX_FEASIBLE;
}

/* Members of the group (pieces 0..top, inner first, offset `base`) below rank x. The pieces nest, so
 * at most one position of the outer piece is partly below x. */
static long members_below(const sax_group_t *g, int top, long base, long x)
{
    if (x <= base)
        return 0;
    if (top < 0)
        return 1;
    long inner_n = 1, inner_ext = 0;
    for (int i = 0; i < top; i++) {
        inner_n *= g->piece_size[i];
        inner_ext += (long)(g->piece_size[i] - 1) * g->piece_stride[i];
    }
    long st = g->piece_stride[top], reach = x - base - inner_ext - 1; /* whole positions i: i*st <= reach */
    long whole = reach < 0 ? 0 : reach / st + 1;
    if (whole > g->piece_size[top])
        whole = g->piece_size[top];
    long c = whole * inner_n;
    if (whole < g->piece_size[top])
        c += members_below(g, top - 1, base + whole * st, x);
    return c;
}

/* The base (first rank) of the group of the family of g holding rank r: r with its coordinate in every
 * piece zeroed. */
static long group_base(const sax_group_t *g, long r)
{
    long off = 0;
    for (int i = 0; i < g->n_pieces; i++)
        off += (r / g->piece_stride[i] % g->piece_size[i]) * g->piece_stride[i];
    return r - off;
}

/* The partial units a family of groups reaches into (docs/cost-model.md section 3): at each level, every
 * site's last unit when the site is not a whole number of units and the job's ranks (below `end`) reach
 * it. Of the groups holding the unit's first rank, its last one and the last of the first inner stride
 * (aligned layouts give them all the same count; otherwise the fewest is among them), the one with the
 * fewest members there that also has members elsewhere sets the unit's cost: those members, and the
 * unit's own GPUs' worth of uplink split among the GPUs communicating there at once. */
static void partial_units(const sax_cluster_t *cl, const sax_layout_t *lay, sax_group_t *g, long end)
{
    int site_level = lay->n_levels - 1, top = g->n_pieces - 1;
    long s0 = 0;
    memset(g->tail, 0, sizeof g->tail);
    memset(g->tail_gpus, 0, sizeof g->tail_gpus);
    for (int s = 0; s < cl->n_sites; s0 += cl->sites[s++].gpus) {
        long gpus = cl->sites[s].gpus;
        for (int l = 0; l < site_level; l++) {
            long u = lay->unit[l], start = s0 + gpus / u * u;
            if (gpus % u == 0 || start >= end)
                continue;
            long hi = s0 + gpus < end ? s0 + gpus : end, inner = start + g->piece_stride[0] - 1;
            const long probe[3] = {hi - 1, start, inner < hi - 1 ? inner : hi - 1};
            for (int q = 0; q < (g->groups > 1 ? 3 : 1); q++) {
                long base = g->groups > 1 ? group_base(g, probe[q]) : 0;
                long k = members_below(g, top, base, hi) - members_below(g, top, base, start);
                if (k <= 0 || k >= g->n)
                    continue; /* not there, or it does not leave the unit */
                double kd = (double)k,
                       active = g->groups > 1 ? fmin((double)(hi - start), g->groups * kd) : kd;
                double share = (double)(s0 + gpus - start) * kd / fmax(kd, active);
                if (g->tail[l] == 0 || k < g->tail[l])
                    g->tail[l] = (int)k;
                if (g->tail_gpus[l] == 0.0 || share < g->tail_gpus[l])
                    g->tail_gpus[l] = share;
            }
        }
    }
}

/* A group that does not nest in some level's units (docs/cost-model.md 5.6): its units of that level
 * hold count[l] members each but the last, which holds the rest (fewest). Every unit's GPUs are shared
 * by the groups leaving through it; with every group of the family at once (translates tiling blocks
 * of n x stride ranks, `stride` groups interleaved in each), a unit that straddles two blocks holds the
 * interleaved groups of both. */
static void uneven_units(const sax_cluster_t *cl, const sax_layout_t *lay, sax_group_t *g)
{
    int site_level = lay->n_levels - 1;
    g->uneven = false;
    for (int l = 0; l <= site_level; l++) {
        long unit = l < site_level ? lay->unit[l] : cl->sites[g->site[0]].gpus;
        int count = l < site_level ? g->count[l] : count_in_unit(g, unit);
        int units = l < site_level ? g->units[l] : g->sites;
        if (units <= 1 || (long)count * units == g->n)
            continue;
        if (!g->uneven) {
            for (int k = 0; k <= site_level; k++) {
                g->few[k] = k < site_level ? g->n / g->units[k] : g->n / g->sites;
                g->few_gpus[k] = 0.0;
            }
            g->uneven = true;
        }
        int few = g->n - (units - 1) * count;
        g->few[l] = few < 1 ? 1 : few;
        /* groups leaving through the most crowded unit */
        double crowd = 1.0;
        if (g->groups > 1 && g->n_pieces == 1) {
            long s = g->piece_stride[0], block = (long)g->n * s;
            bool two = block % unit != 0 && (long)g->groups * g->n > block;
            crowd = s >= unit ? (double)unit : fmin((double)unit, (double)s * (two ? 2.0 : 1.0));
        } else if (g->groups > 1) {
            crowd = fmax(1.0, g->active[l] / g->few[l]);
        }
        g->few_gpus[l] = (double)unit / crowd;
    }
}

void sax_layout_set_groups(const sax_cluster_t *cl, const sax_layout_t *lay, sax_group_t *g, int groups)
{
    g->groups = groups;
    int site_level = lay->n_levels - 1;
    for (int l = 0; l < site_level; l++) {
        double m = (double)g->n / g->units[l];
        g->active[l] = fmin(lay->unit[l], groups * m);
    }
    double m_site = (double)g->n / g->sites;
    g->active[site_level] = fmin(cl->sites[g->site[0]].gpus, groups * m_site);
    uneven_units(cl, lay, g);
    g->has_tail = lay->partial;
    if (!lay->partial)
        return;
    long last = 0; /* the last member of group 0 */
    for (int i = 0; i < g->n_pieces; i++)
        last += (long)(g->piece_size[i] - 1) * g->piece_stride[i];
    /* the groups of the family tile the first groups x n ranks (the job's, or sax collective's blocks) */
    long tiled = (long)groups * g->n;
    partial_units(cl, lay, g, groups > 1 ? (tiled < lay->gpus ? tiled : lay->gpus) : last + 1);
}

/* The replicas of one expert shard (SAX_GROUP_EXPERT_DP): the cp ranks EP left (cp / ep_cp, the
 * outer ones) x the dp_rest ranks of "dp"; without EP, all of DP x CP. */
static sax_infeasible_t expert_replicas(const sax_cluster_t *cl, const sax_candidate_t *c, const long *stride,
                                        int ep_cp, int dp_rest, sax_layout_t *lay)
{
    sax_group_t *e = &lay->dim[SAX_GROUP_EXPERT_DP];
    if (c->ep == 1) {
        *e = lay->dim[SAX_DIM_DP];
        return SAX_FEASIBLE;
    }
    e->n_pieces = 0;
    const long e_stride[2] = {stride[SAX_DIM_CP] * ep_cp, stride[SAX_DIM_DP]};
    const int e_size[2] = {c->cp / ep_cp, dp_rest};
    for (int i = 0; i < 2; i++)
        if (e_size[i] > 1 || (i == 1 && e->n_pieces == 0)) {
            e->piece_stride[e->n_pieces] = e_stride[i];
            e->piece_size[e->n_pieces] = e_size[i];
            e->n_pieces++;
        }
    sax_infeasible_t why = describe(cl, lay, e);
    sax_layout_set_groups(cl, lay, e, lay->gpus / e->n);
    return why;
}

/* MoE parallel folding: group g of the experts' grid whose members are `n` consecutive steps of `step` in
 * a stage's local rank index (its tp, cp and dp coordinates, innermost first as their strides say). The
 * run falls into the dimensions' coordinates as at most one piece each; when a dimension holds only part
 * of a step (etp = 2 over tp = 3, say) the members are no product of pieces: refused as divisibility. */
static sax_infeasible_t expert_group(const sax_cluster_t *cl, const sax_candidate_t *c, const long *stride,
                                     long step, long n, sax_layout_t *lay, sax_group_t *g)
{
    sax_dim_t d[3] = {SAX_DIM_TP, SAX_DIM_CP, SAX_DIM_DP};
    const int deg[SAX_DIM_COUNT] = {[SAX_DIM_TP] = c->tp, [SAX_DIM_CP] = c->cp, [SAX_DIM_DP] = c->dp};
    for (int i = 1; i < 3; i++) /* innermost first */
        for (int j = i; j > 0 && stride[d[j]] < stride[d[j - 1]]; j--) {
            sax_dim_t t = d[j];
            d[j] = d[j - 1];
            d[j - 1] = t;
        }
    g->n_pieces = 0;
    long inner = 1, end = step * n; /* local index of the dimension's unit step; past the run's last */
    for (int i = 0; i < 3; i++) {
        long outer = inner * deg[d[i]], a = step > inner ? step : inner, b = end < outer ? end : outer;
        if (a < b) {
            if (a % inner != 0 || b % a != 0)
                return SAX_INFEASIBLE_DIVISIBILITY;
            g->piece_stride[g->n_pieces] = stride[d[i]] * (a / inner);
            g->piece_size[g->n_pieces] = (int)(b / a);
            g->n_pieces++;
        }
        inner = outer;
    }
    if (g->n_pieces == 0) {
        g->n_pieces = 1;
        g->piece_stride[0] = 1;
        g->piece_size[0] = 1;
    }
    sax_infeasible_t why = describe(cl, lay, g);
    sax_layout_set_groups(cl, lay, g, lay->gpus / g->n);
    return why;
}

/* MoE parallel folding: the experts' tensor-parallel, expert-parallel and expert-DP groups. */
static sax_infeasible_t expert_grid(const sax_cluster_t *cl, const sax_candidate_t *c, const long *stride,
                                    sax_layout_t *lay)
{
    long etp = sax_candidate_etp(c), ep = c->ep, edp = sax_candidate_expert_dp(c);
    if (edp < 1)
        return SAX_INFEASIBLE_DIVISIBILITY;
    sax_infeasible_t why = expert_group(cl, c, stride, 1, etp, lay, &lay->dim[SAX_GROUP_EXPERT_TP]);
    if (why == SAX_FEASIBLE)
        why = expert_group(cl, c, stride, etp, ep, lay, &lay->dim[SAX_DIM_EP]);
    if (why == SAX_FEASIBLE)
        why = expert_group(cl, c, stride, etp * ep, edp, lay, &lay->dim[SAX_GROUP_EXPERT_DP]);
    return why;
}

void sax_layout_levels(const sax_cluster_t *cl, sax_layout_t *lay)
{
    lay->n_levels = cl->n_tiers + 2;
    int site_gpus = cl->sites[0].gpus;
    lay->unit[0] = cl->scale_up.size < site_gpus ? cl->scale_up.size : site_gpus;
    for (int t = 0; t < cl->n_tiers; t++)
        lay->unit[t + 1] = cl->tiers[t].gpus < site_gpus ? cl->tiers[t].gpus : site_gpus;
    lay->unit[lay->n_levels - 1] = site_gpus;
    long total = 0; /* the job's GPUs: every GPU, until sax_layout_build says how many it uses */
    lay->partial = false;
    for (int s = 0; s < cl->n_sites; s++) {
        int gpus = cl->sites[s].gpus;
        total += gpus;
        /* the first site holds whole units of its own size (the clipped ones) */
        for (int l = 0; l < lay->n_levels - 1; l++)
            lay->partial = lay->partial || ((s > 0 || lay->unit[l] != site_gpus) && gpus % lay->unit[l] != 0);
    }
    lay->gpus = (int)total;
}

sax_infeasible_t sax_layout_group_strided(const sax_cluster_t *cl, const sax_layout_t *lay, int n,
                                          long stride, bool concurrent, sax_group_t *g)
{
    g->n_pieces = 1;
    g->piece_stride[0] = stride;
    g->piece_size[0] = n;
    sax_infeasible_t why = describe(cl, lay, g);
    long total = 0;
    for (int s = 0; s < cl->n_sites; s++)
        total += cl->sites[s].gpus;
    /* the translates of the group that tile the GPUs: blocks of n x stride ranks, stride groups each */
    long groups = concurrent ? total / ((long)n * stride) * stride : 1;
    sax_layout_set_groups(cl, lay, g, groups < 1 ? 1 : (int)groups);
    return why;
}

sax_infeasible_t sax_layout_build(const sax_cluster_t *cl, const sax_candidate_t *c, sax_layout_t *lay)
{
    const bool fold = sax_candidate_etp(c) != c->tp; /* parallel folding: the experts' own grid */
    /* EP's data- and context-parallel parts (without folding) */
    int ep_dp = fold ? 1 : gcd(c->ep, c->dp), ep_cp = fold ? 1 : c->ep / ep_dp;
    int deg[SAX_DIM_COUNT] = {c->tp, c->cp, ep_dp, c->pp, c->dp / ep_dp};
    long stride[SAX_DIM_COUNT];
    bool placed[SAX_DIM_COUNT] = {false};
    bool ep_listed = false;
    for (int i = 0; i < c->n_order; i++)
        ep_listed = ep_listed || c->order[i] == SAX_DIM_EP;
    long acc = 1;
    for (int i = 0; i < c->n_order; i++) {
        sax_dim_t d = c->order[i];
        if (d == SAX_DIM_DP && !ep_listed) { /* ep's place when the order leaves it out */
            stride[SAX_DIM_EP] = acc;
            lay->stride[SAX_DIM_EP] = acc;
            acc *= deg[SAX_DIM_EP];
            placed[SAX_DIM_EP] = true;
        }
        stride[d] = acc;
        acc *= deg[d];
        placed[d] = true;
        lay->stride[d] = stride[d];
    }
    for (int d = 0; d < SAX_DIM_COUNT; d++) /* dims the order leaves out go outermost */
        if (!placed[d]) {
            stride[d] = acc;
            lay->stride[d] = acc;
            acc *= deg[d];
        }
    sax_layout_levels(cl, lay);
    lay->gpus = (int)acc;

    for (int d = 0; d < SAX_DIM_COUNT; d++) {
        sax_group_t *g = &lay->dim[d];
        g->n_pieces = 1;
        g->piece_stride[0] = stride[d];
        g->piece_size[0] = deg[d];
        if (d == SAX_DIM_DP) { /* replicas of the dense weights: cp x ep x dp/ep, inner to outer */
            static const int order3[3] = {SAX_DIM_CP, SAX_DIM_EP, SAX_DIM_DP};
            g->n_pieces = 0;
            for (int i = 0; i < 3; i++)
                if (deg[order3[i]] > 1 || i == 2) {
                    g->piece_stride[g->n_pieces] = stride[order3[i]];
                    g->piece_size[g->n_pieces] = deg[order3[i]];
                    g->n_pieces++;
                }
        } else if (d == SAX_DIM_EP && ep_cp > 1) { /* ep/g of the innermost cp ranks, g of the dp ones */
            g->n_pieces = 2;
            g->piece_stride[0] = stride[SAX_DIM_CP];
            g->piece_size[0] = ep_cp;
            g->piece_stride[1] = stride[SAX_DIM_EP];
            g->piece_size[1] = ep_dp;
        }
        sax_infeasible_t why = describe(cl, lay, g);
        sax_layout_set_groups(cl, lay, g, lay->gpus / g->n);
        if (why != SAX_FEASIBLE)
            return why;
    }
    sax_infeasible_t why = SAX_FEASIBLE;
    if (fold) {
        why = expert_grid(cl, c, stride, lay);
    } else {
        why = expert_replicas(cl, c, stride, ep_cp, deg[SAX_DIM_DP], lay);
        lay->dim[SAX_GROUP_EXPERT_TP] = lay->dim[SAX_DIM_TP];
    }
    if (why != SAX_FEASIBLE)
        return why;
    if (lay->dim[SAX_DIM_TP].top > 0)
        return SAX_INFEASIBLE_TP_DOMAIN;
    return SAX_FEASIBLE;
}

int sax_layout_stage_level(const sax_cluster_t *cl, const sax_layout_t *lay, int s, int *a, int *b)
{
    long st = lay->stride[SAX_DIM_PP], pp = lay->dim[SAX_DIM_PP].n;
    long r0 = (long)s * st, r1 = ((long)(s + 1) % pp) * st;
    int site_level = lay->n_levels - 1;
    *a = sax_layout_site_of_rank(cl, r0);
    *b = sax_layout_site_of_rank(cl, r1);
    if (*a != *b)
        return site_level;
    if (!lay->partial) { /* whole units tile the ranks from 0 */
        for (int l = 0; l < site_level; l++)
            if (r0 / lay->unit[l] == r1 / lay->unit[l])
                return l;
        return site_level - 1;
    }
    for (int l = 0; l < site_level; l++)
        if (sax_layout_unit_of(cl, lay, r0, l, NULL) == sax_layout_unit_of(cl, lay, r1, l, NULL))
            return l;
    return site_level - 1;
}
