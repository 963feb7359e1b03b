/* collective_grid.h - the grid over which the collective closed forms (model/collective.c) are held to
 * the reference simulator (model/collsim.c): ops x algorithms x members (2 to 4096, as sax's layouts
 * place them: 1, 2 or 8 GPUs apart) x 1-4 sites x message sizes (8 B to 8 GiB) x site latency (0.01 to
 * 50 ms) x site-link bandwidth x channels x one or two tiers x alone (nccl-tests) or with every group
 * of the shape at once (training). Shared by test_collective_grid.c (a 1-in-97 sample, in CI) and
 * bench_collective_grid.c (a 1-in-5 sample up to a member count, docs/cost-model.md). */
#ifndef SAX_TESTS_COLLECTIVE_GRID_H
#define SAX_TESTS_COLLECTIVE_GRID_H

#include "model_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    sax_coll_op_t op;
    sax_algorithm_t alg;
    int n, sites, tiers, channels;
    long stride;
    double bytes, site_latency_s, link_Bps;
    bool concurrent;
} grid_case_t;

static const int grid_n[] = {2, 3, 4, 8, 16, 24, 64, 128, 256, 512, 1024, 4096};
static const long grid_stride[] = {1, 8, 2};
static const double grid_bytes[] = {8, 4096, 1e6, 3e7, 1e9, 8.6e9};
static const double grid_latency[] = {1e-5, 5e-4, 5e-3, 5e-2};
static const double grid_bw[] = {1e11, 5e12};
static const int grid_channels[] = {0, 1, 4, 32};

#define GRID_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Every point of the grid for one op and algorithm, numbered 0 .. GRID_POINTS - 1 (sites slowest,
 * then members, stride, bytes, latency, bandwidth, channels, tiers, alone/concurrent). */
#define GRID_POINTS                                                                                          \
    (4L * GRID_COUNT(grid_n) * GRID_COUNT(grid_stride) * GRID_COUNT(grid_bytes) * GRID_COUNT(grid_latency) * \
     GRID_COUNT(grid_bw) * GRID_COUNT(grid_channels) * 2 * 2)

/* Point `i` of the grid as a case; false where it is no case (fewer members than sites, or a site
 * latency other than the first on one site). `mix` (sum of the point's indices) lets a caller take a
 * sample that varies every axis. */
static bool grid_point(sax_coll_op_t op, sax_algorithm_t alg, long i, grid_case_t *k, int *mix)
{
    int conc = (int)(i % 2), tiers = 1 + (int)(i / 2 % 2);
    i /= 4;
    int ci = (int)(i % GRID_COUNT(grid_channels));
    i /= GRID_COUNT(grid_channels);
    int wi = (int)(i % GRID_COUNT(grid_bw));
    i /= GRID_COUNT(grid_bw);
    int li = (int)(i % GRID_COUNT(grid_latency));
    i /= GRID_COUNT(grid_latency);
    int bi = (int)(i % GRID_COUNT(grid_bytes));
    i /= GRID_COUNT(grid_bytes);
    int st = (int)(i % GRID_COUNT(grid_stride));
    i /= GRID_COUNT(grid_stride);
    int ni = (int)(i % GRID_COUNT(grid_n)), si = 1 + (int)(i / GRID_COUNT(grid_n));
    *k = (grid_case_t){.op = op,
                       .alg = alg,
                       .n = grid_n[ni],
                       .stride = grid_stride[st],
                       .sites = si,
                       .tiers = tiers,
                       .channels = grid_channels[ci],
                       .bytes = grid_bytes[bi],
                       .site_latency_s = grid_latency[li],
                       .link_Bps = grid_bw[wi],
                       .concurrent = conc != 0};
    *mix = bi + li + wi + ci + tiers + conc + st + ni;
    return k->n >= si && (si > 1 || li == 0);
}

/* Domains of 8 GPUs (450 GB/s at 0.8, 3 us); one tier (pods as large as the site, 50 GB/s per GPU at 0.9,
 * 10 us) or two (pods of a quarter site, then the building at 4:1, 20 us); sites in a ring of links
 * whose latencies differ (1.3, 1.6, 1.9, 2.2 x the case's) so that no two hops are alike. */
static void grid_cluster(sax_cluster_t *cl, const grid_case_t *k)
{
    int site_gpus = (int)((k->n * k->stride + k->sites - 1) / k->sites);
    site_gpus = (site_gpus + 7) / 8 * 8;
    if (k->tiers == 2 && site_gpus < 64)
        site_gpus = 64;
    memset(cl, 0, sizeof *cl);
    sax_cluster_set_defaults(cl);
    cl->gpu = (sax_gpu_t){.hbm_bw_Bps = 3.35e12, .mem_eff = 0.6};
    cl->scale_up = (sax_scale_up_t){.size = 8, .bw_Bps = 450e9, .latency_s = 3e-6, .efficiency = 0.8};
    cl->n_tiers = k->tiers;
    int pod = k->tiers == 1 ? site_gpus : site_gpus / 4;
    cl->tiers[0] = (sax_tier_t){
        .gpus = pod, .bw_Bps = 50e9, .latency_s = 10e-6, .oversubscription = 1.0, .efficiency = 0.9};
    cl->tiers[1] = (sax_tier_t){
        .gpus = site_gpus, .bw_Bps = 50e9, .latency_s = 20e-6, .oversubscription = 4.0, .efficiency = 0.9};
    cl->n_sites = k->sites;
    for (int s = 0; s < k->sites; s++)
        cl->sites[s].gpus = site_gpus;
    for (int a = 0; a < k->sites; a++)
        for (int b = a + 1; b < k->sites; b++) {
            if (k->sites > 2 && b != a + 1 && !(a == 0 && b == k->sites - 1))
                continue;
            sax_site_link_t *l = &cl->links[cl->n_links++];
            l->a = a;
            l->b = b;
            l->bw_Bps = k->link_Bps;
            l->latency_s = k->site_latency_s * (1.0 + 0.3 * cl->n_links);
        }
}

/* Does the group nest in the units (every unit of a level holds the same members)? Groups that straddle
 * units unevenly (3 members 8 apart in pods of 16) are where the closed forms' average members per unit
 * differ from the busiest unit the reference finds; docs/cost-model.md states their error apart. */
static bool grid_nests(const sax_layout_t *lay, const grid_case_t *k)
{
    long extent = (long)k->n * k->stride;
    for (int l = 0; l < lay->n_levels - 1; l++) {
        long u = lay->unit[l];
        if (!(u % extent == 0 || extent % u == 0) || (k->stride < u && u % k->stride != 0))
            return false;
    }
    return true;
}

/* Simulated events grow as members x steps: the cases whose simulation would take minutes are left to
 * the full run (bench_collective_grid). */
static double grid_cost(const grid_case_t *k, int channels)
{
    double n = k->n, per = k->op == SAX_OP_ALL_TO_ALL ? n * n : n * n * (k->op == SAX_OP_ALL_REDUCE ? 4 : 2);
    return per * fmax(1.0, k->bytes / (n * 2e6 * channels)) * channels;
}

/* Runs case k: closed form and (when `simulated` is not NULL) reference; false when the case is not a
 * valid layout. */
static bool grid_run(const grid_case_t *k, double *closed, double *simulated)
{
    sax_cluster_t cl;
    grid_cluster(&cl, k);
    sax_candidate_t c = {.connections = 1, .transport = SAX_TRANSPORT_ROCE_SR};
    sax_candidate_set_nccl_defaults(&c);
    c.channels = k->channels;
    sax_layout_t lay;
    sax_layout_levels(&cl, &lay);
    sax_group_t g;
    if (sax_layout_group_strided(&cl, &lay, k->n, k->stride, k->concurrent, &g) != SAX_FEASIBLE)
        return false;
    if (k->sites > 1 && g.sites != k->sites)
        return false;
    *closed = sax_group_collective_s(&cl, &c, &lay, &g, k->op, k->alg, k->bytes, 2.0, NULL);
    if (simulated == NULL)
        return true;
    sax_coll_sim_t sim;
    sax_error_t err;
    if (sax_collective_simulate(&cl, &c, &g, k->op, k->alg, k->bytes, 1.0, &sim, &err) != SAX_OK)
        return false;
    *simulated = sim.time_s;
    return true;
}

static void grid_describe(const grid_case_t *k, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s n=%d stride=%ld sites=%d tiers=%d bytes=%.3g lat=%.3g bw=%.3g ch=%d %s",
             sax_coll_op_names[k->op], sax_algorithm_names[k->alg], k->n, k->stride, k->sites, k->tiers,
             k->bytes, k->site_latency_s, k->link_Bps, k->channels, k->concurrent ? "concurrent" : "alone");
}

#endif
