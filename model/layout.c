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
 */
#include "model_internal.h"

typedef struct {
    int n;
    long stride[3];
    int size[3];
} pieces_t;

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

static int find_link(const sax_cluster_t *cl, int a, int b)
{
    for (int i = 0; i < cl->n_links; i++)
        if ((cl->links[i].a == a && cl->links[i].b == b) || (cl->links[i].a == b && cl->links[i].b == a))
            return i;
    return -1;
}

/* members of the group containing rank 0 that lie below rank `unit` */
static int count_in_unit(const pieces_t *p, long unit)
{
    long c = 1;
    for (int i = 0; i < p->n; i++) {
        long k = (unit + p->stride[i] - 1) / p->stride[i];
        c *= k < p->size[i] ? k : p->size[i];
    }
    return (int)c;
}

static long last_member(const pieces_t *p)
{
    long r = 0;
    for (int i = 0; i < p->n; i++)
        r += (long)(p->size[i] - 1) * p->stride[i];
    return r;
}

/* Inner pieces first (count_in_unit nests them). */
static void sort_pieces(pieces_t *p)
{
    for (int i = 1; i < p->n; i++)
        for (int j = i; j > 0 && p->stride[j] < p->stride[j - 1]; j--) {
            long ts = p->stride[j];
            int tz = p->size[j];
            p->stride[j] = p->stride[j - 1];
            p->size[j] = p->size[j - 1];
            p->stride[j - 1] = ts;
            p->size[j - 1] = tz;
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

static sax_infeasible_t describe(const sax_cluster_t *cl, const sax_layout_t *lay, const pieces_t *p,
                                 sax_group_t *g)
{
    int n = 1;
    for (int i = 0; i < p->n; i++)
        n *= p->size[i];
    g->n = n;
    g->top = 0;
    g->sites = 1;
    g->link = -1;
    int site_level = lay->n_levels - 1;
    for (int l = 0; l < site_level; l++) {
        g->count[l] = count_in_unit(p, lay->unit[l]);
        if (g->count[l] < n)
            g->top = l + 1;
    }
    g->count[site_level] = n;
    if (g->top < site_level) {
        g->groups_per_site = 0;
        return SAX_FEASIBLE;
    }
    /* the group leaves its site: which sites, which link */
    int first = sax_layout_site_of_rank(cl, 0), last = sax_layout_site_of_rank(cl, last_member(p));
    if (first == last) { /* the tiers' units are larger than the site: still one site */
        g->top = site_level - 1;
        return SAX_FEASIBLE;
    }
    g->sites = last - first + 1;
    g->count[site_level - 1] = count_in_unit(p, cl->sites[first].gpus);
    g->groups_per_site = g->count[site_level - 1] > 0 ? cl->sites[first].gpus / g->count[site_level - 1] : 0;
    if (g->sites == 2) {
        g->link = find_link(cl, first, last);
        if (g->link < 0)
            return SAX_INFEASIBLE_NO_LINK;
    } else { /* a ring through several sites: the slowest link between neighbours bounds it */
        g->link = -1;
        for (int s = first; s < last; s++) {
            int l = find_link(cl, s, s + 1);
            if (l < 0)
                return SAX_INFEASIBLE_NO_LINK;
            if (g->link < 0 || cl->links[l].bw_Bps < cl->links[g->link].bw_Bps)
                g->link = l;
        }
    }
    return SAX_FEASIBLE;
}

/* The replicas of one expert shard (SAX_GROUP_EXPERT_DP): the cp ranks EP left (cp / ep_cp, the
 * outer ones) x the dp_rest ranks of "dp"; without EP, all of DP x CP. */
static sax_infeasible_t expert_replicas(const sax_cluster_t *cl, const sax_candidate_t *c, const long *stride,
                                        int ep_cp, int dp_rest, sax_layout_t *lay)
{
    if (c->ep == 1) {
        lay->dim[SAX_GROUP_EXPERT_DP] = lay->dim[SAX_DIM_DP];
        return SAX_FEASIBLE;
    }
    pieces_t e = {.n = 0};
    const long e_stride[2] = {stride[SAX_DIM_CP] * ep_cp, stride[SAX_DIM_DP]};
    const int e_size[2] = {c->cp / ep_cp, dp_rest};
    for (int i = 0; i < 2; i++)
        if (e_size[i] > 1 || (i == 1 && e.n == 0)) {
            e.stride[e.n] = e_stride[i];
            e.size[e.n] = e_size[i];
            e.n++;
        }
    sort_pieces(&e);
    return describe(cl, lay, &e, &lay->dim[SAX_GROUP_EXPERT_DP]);
}

sax_infeasible_t sax_layout_build(const sax_cluster_t *cl, const sax_candidate_t *c, sax_layout_t *lay)
{
    int ep_dp = gcd(c->ep, c->dp), ep_cp = c->ep / ep_dp; /* EP's data- and context-parallel parts */
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
    lay->gpus = (int)acc;

    lay->n_levels = cl->n_tiers + 2;
    int site_gpus = cl->sites[0].gpus;
    lay->unit[0] = cl->scale_up.size < site_gpus ? cl->scale_up.size : site_gpus;
    for (int t = 0; t < cl->n_tiers; t++)
        lay->unit[t + 1] = cl->tiers[t].gpus < site_gpus ? cl->tiers[t].gpus : site_gpus;
    lay->unit[lay->n_levels - 1] = site_gpus;

    for (int d = 0; d < SAX_DIM_COUNT; d++) {
        pieces_t p = {.n = 1, .stride = {stride[d]}, .size = {deg[d]}};
        if (d == SAX_DIM_DP) { /* replicas of the dense weights: cp x ep x dp/ep, inner to outer */
            int order3[3] = {SAX_DIM_CP, SAX_DIM_EP, SAX_DIM_DP};
            p.n = 0;
            for (int i = 0; i < 3; i++)
                if (deg[order3[i]] > 1 || i == 2) {
                    p.stride[p.n] = stride[order3[i]];
                    p.size[p.n] = deg[order3[i]];
                    p.n++;
                }
            sort_pieces(&p);
        } else if (d == SAX_DIM_EP && ep_cp > 1) { /* ep/g of the innermost cp ranks, g of the dp ones */
            p = (pieces_t){
                .n = 2, .stride = {stride[SAX_DIM_CP], stride[SAX_DIM_EP]}, .size = {ep_cp, ep_dp}};
            sort_pieces(&p);
        }
        sax_infeasible_t why = describe(cl, lay, &p, &lay->dim[d]);
        if (why != SAX_FEASIBLE)
            return why;
    }
    sax_infeasible_t why = expert_replicas(cl, c, stride, ep_cp, deg[SAX_DIM_DP], lay);
    if (why != SAX_FEASIBLE)
        return why;
    if (lay->dim[SAX_DIM_TP].top > 0)
        return SAX_INFEASIBLE_TP_DOMAIN;
    return SAX_FEASIBLE;
}

int sax_layout_stage_level(const sax_cluster_t *cl, const sax_layout_t *lay, int s, int *link)
{
    long st = lay->stride[SAX_DIM_PP], pp = lay->dim[SAX_DIM_PP].n;
    long r0 = (long)s * st, r1 = ((long)(s + 1) % pp) * st;
    *link = -1;
    int site_level = lay->n_levels - 1;
    int a = sax_layout_site_of_rank(cl, r0), b = sax_layout_site_of_rank(cl, r1);
    if (a != b) {
        *link = find_link(cl, a, b);
        return site_level;
    }
    for (int l = 0; l < site_level; l++)
        if (r0 / lay->unit[l] == r1 / lay->unit[l])
            return l;
    return site_level - 1;
}
