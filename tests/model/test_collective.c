/* test_collective.c - collectives and transports against values derived by hand (each derivation in
 * the comment above its test) and against NCCL's own tuning-model formula where it applies. The closed
 * forms' agreement with the reference simulator over a grid is test_collective_grid.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model_internal.h"

#include <math.h>
#include <string.h>

static void within(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("got %.9g, expected %.9g (within %.2g %%)", got, want, 100.0 * rel);
}

/* Domains of 8 GPUs (450 GB/s NVLink at 0.8: 360 GB/s, 3 us), one tier (50 GB/s per GPU at 0.9: a NIC
 * of 45 GB/s, 10 us, no oversubscription), `sites` sites of `site_gpus`, links of `link_Bps` and
 * `link_lat_s` in a ring of sites. */
static void cluster(sax_cluster_t *cl, int sites, int site_gpus, double link_Bps, double link_lat_s)
{
    memset(cl, 0, sizeof *cl);
    sax_cluster_set_defaults(cl);
    cl->gpu = (sax_gpu_t){.hbm_bw_Bps = 3.35e12, .mem_eff = 0.6};
    cl->scale_up = (sax_scale_up_t){.size = 8, .bw_Bps = 450e9, .latency_s = 3e-6, .efficiency = 0.8};
    cl->n_tiers = 1;
    cl->tiers[0] = (sax_tier_t){
        .gpus = site_gpus, .bw_Bps = 50e9, .latency_s = 10e-6, .oversubscription = 1.0, .efficiency = 0.9};
    cl->n_sites = sites;
    for (int s = 0; s < sites; s++)
        cl->sites[s].gpus = site_gpus;
    for (int s = 0; s + 1 < sites || (sites > 2 && s + 1 == sites); s++) {
        sax_site_link_t *l = &cl->links[cl->n_links++];
        l->a = s;
        l->b = (s + 1) % sites;
        l->bw_Bps = link_Bps;
        l->latency_s = link_lat_s;
    }
}

static sax_candidate_t nccl(int channels)
{
    sax_candidate_t c = {
        .connections = 1, .transport = SAX_TRANSPORT_ROCE_SR, .algorithm = SAX_ALGORITHM_RING};
    sax_candidate_set_nccl_defaults(&c);
    c.channels = channels;
    return c;
}

static double run(const sax_cluster_t *cl, const sax_candidate_t *c, int n, long stride, bool concurrent,
                  sax_coll_op_t op, sax_algorithm_t alg, double bytes, sax_traffic_t *tr)
{
    sax_layout_t lay;
    sax_layout_levels(cl, &lay);
    sax_group_t g;
    assert_int_equal(sax_layout_group_strided(cl, &lay, n, stride, concurrent, &g), SAX_FEASIBLE);
    return sax_group_collective_s(cl, c, &lay, &g, op, alg, bytes, 2.0, tr);
}

/* A ring inside one domain, 8 B: nothing to carry, each of the 2(n-1) = 14 steps of the chunk's chain
 * pays one NVLink latency: 14 x 3 us = 42 us (NCCL's tuning model, nNodes = 1: nsteps x intraLat). */
static void test_ring_latency_one_domain(void **state)
{
    (void)state;
    sax_cluster_t cl;
    cluster(&cl, 1, 64, 0.0, 0.0);
    sax_candidate_t c = nccl(0);
    within(run(&cl, &c, 8, 1, false, SAX_OP_ALL_REDUCE, SAX_ALGORITHM_RING, 8.0, NULL), 14 * 3e-6, 1e-3);
    /* reduce-scatter: n-1 = 7 steps */
    within(run(&cl, &c, 8, 1, false, SAX_OP_REDUCE_SCATTER, SAX_ALGORITHM_RING, 8.0, NULL), 7 * 3e-6, 1e-3);
}

/* One GPU per node (16 nodes, 8 apart), 8 B: every hop is a network hop of 10 us; 2(n-1) = 30 steps:
 * 300 us. NCCL's tuning model for a ring of nNodes = nRanks: nInterSteps = 2(nNodes - 1) = nsteps, the
 * same 30 x interLat. */
static void test_ring_latency_matches_nccl_formula(void **state)
{
    (void)state;
    sax_cluster_t cl;
    cluster(&cl, 1, 128, 0.0, 0.0);
    sax_candidate_t c = nccl(0);
    double nccl_formula = 2.0 * (16 - 1) * 10e-6;
    within(run(&cl, &c, 16, 8, false, SAX_OP_ALL_REDUCE, SAX_ALGORITHM_RING, 8.0, NULL), nccl_formula, 1e-3);
}

/* A ring through whole nodes reaches the node's aggregate NIC bandwidth: 16 GPUs in 2 nodes, 16
 * channels (NCCL's two per NIC), 8 GiB. Each channel leaves a node through its own GPU's NIC, so a node
 * moves 16 channels x its share over 8 NICs: busbw = 8 x 45 = 360 GB/s (NVLink allows 360 x 16/14).
 * Time = 2 (n-1)/n x S / busbw = 2 x 15/16 x 8 GiB / 360 GB/s = 44.7 ms (within 2 %: a slice's fill).
 * With one GPU per node (DP beside TP = 8: 16 nodes, 8 apart, 2 channels) every hop is its GPU's NIC:
 * 45 GB/s, eight times slower: 358 ms. */
static void test_ring_uses_every_nic(void **state)
{
    (void)state;
    sax_cluster_t cl;
    cluster(&cl, 1, 128, 0.0, 0.0);
    sax_candidate_t c = nccl(0);
    double S = 8.0 * (1 << 30);
    double whole = run(&cl, &c, 16, 1, false, SAX_OP_ALL_REDUCE, SAX_ALGORITHM_RING, S, NULL);
    within(whole, 2.0 * 15 / 16 * S / 360e9, 0.02);
    double one_per_node = run(&cl, &c, 16, 8, false, SAX_OP_ALL_REDUCE, SAX_ALGORITHM_RING, S, NULL);
    within(one_per_node, 2.0 * 15 / 16 * S / 45e9, 0.02);
}

/* NCCL's window: 8 slots of NCCL_BUFFSIZE / 8 per channel. A ring of 2 GPUs in 2 sites joined by an
 * unlimited link with 5 ms one way (10 us more for the tier): per channel 4 slices of 1 MiB (the
 * all-reduce's 2-step slices) per round trip of 2 x 5.01 ms: 4 MiB / 10.02 ms = 418.6 MB/s (the issue's
 * 0.42 GB/s per collective channel at 10 ms). 2 channels, 1 GiB all-reduce: each channel's ring edge
 * carries 2 (n-1)/n x 512 MiB = 512 MiB = 128 windows: about 128 x 10.02 ms = 1.28 s. */
static void test_window_per_channel(void **state)
{
    (void)state;
    sax_cluster_t cl;
    cluster(&cl, 2, 8, 1e15, 5e-3);
    cl.links[0].window_bytes = 1e12; /* the transport's own window out of the way */
    sax_candidate_t c = nccl(0);
    double t = run(&cl, &c, 2, 8, false, SAX_OP_ALL_REDUCE, SAX_ALGORITHM_RING, 1 << 30, NULL);
    within(t, 128 * 2 * 5.01e-3, 0.02);
    /* twice the buffer, half the round trips */
    c.buffer_bytes = 8 << 20;
    within(run(&cl, &c, 2, 8, false, SAX_OP_ALL_REDUCE, SAX_ALGORITHM_RING, 1 << 30, NULL), 64 * 2 * 5.01e-3,
           0.03);
    /* more queue pairs per connection add no window */
    c.buffer_bytes = 4 << 20;
    c.connections = 8;
    within(run(&cl, &c, 2, 8, false, SAX_OP_ALL_REDUCE, SAX_ALGORITHM_RING, 1 << 30, NULL), t, 1e-9);
}

/* A 4-member ring over 2 sites (one GPU per domain, 8 apart; sites of 16), 8 B, 5 ms between sites.
 * Edges A0->A1 (10 us), A1->B0 (5.01 ms), B0->B1 (10 us), B1->A0 (5.01 ms). All-reduce: 7 steps per
 * rank, 12 slices sent over every edge; a connection holds 4 slices, so over a site edge the 5th slice
 * waits for the 1st's credit (sent at 0, back at 2 x 5.01 ms) and the 9th for the 5th's (at 4 x 5.01):
 * the last slice arrives at 5 x 5.01 ms = 25.05 ms. The chain alone (6 hops, the cheapest pair left
 * out: 3 x 10 us + 3 x 5.01 ms = 15.06 ms) is shorter. Flat latency charging (2(n-1) = 6 x the slowest
 * hop, sax's former model) says 30.06 ms. */
static void test_four_member_ring_two_sites(void **state)
{
    (void)state;
    sax_cluster_t cl;
    cluster(&cl, 2, 16, 1e13, 5e-3);
    sax_candidate_t c = nccl(1);
    within(run(&cl, &c, 4, 8, false, SAX_OP_ALL_REDUCE, SAX_ALGORITHM_RING, 8.0, NULL), 5 * 5.01e-3, 1e-3);
}

/* Cross-site bytes of a flat ring: per direction 2 (n-1)/n x S (every edge carries that, and one edge
 * each way crosses); a hierarchical all-reduce sends each member's 1/n_site part once across each way:
 * S per direction for the group. 256 members over 2 sites (one per domain), S = 1 GB. */
static void test_cross_site_bytes(void **state)
{
    (void)state;
    sax_cluster_t cl;
    cluster(&cl, 2, 1024, 1e13, 1e-3);
    sax_candidate_t c = nccl(0);
    sax_traffic_t ring = {0}, hier = {0};
    run(&cl, &c, 256, 8, false, SAX_OP_ALL_REDUCE, SAX_ALGORITHM_RING, 1e9, &ring);
    within(ring.link_bytes[0][0], 2.0 * 255 / 256 * 1e9, 1e-9);
    within(ring.link_bytes[0][1], 2.0 * 255 / 256 * 1e9, 1e-9);
    run(&cl, &c, 256, 8, false, SAX_OP_ALL_REDUCE, SAX_ALGORITHM_HIERARCHICAL, 1e9, &hier);
    within(hier.link_bytes[0][0], 1e9, 1e-9);
    within(hier.xsite_bytes, 2e9, 1e-9);
}

/* All-to-all of EP = 16 over two domains, 470 MB per GPU: NCCL sends to every peer at once; 7/16 of the
 * bytes go over NVLink (360 GB/s), 8/16 over the GPU's NIC (45 GB/s): 8/16 x 470 MB / 45 GB/s = 5.22 ms
 * (+ one network latency and a chunk's worth): the larger part, each at its own level's bandwidth. */
static void test_all_to_all_two_domains(void **state)
{
    (void)state;
    sax_cluster_t cl;
    cluster(&cl, 1, 64, 0.0, 0.0);
    sax_candidate_t c = nccl(0);
    double t = run(&cl, &c, 16, 1, false, SAX_OP_ALL_TO_ALL, SAX_ALGORITHM_RING, 470e6, NULL);
    within(t, 8.0 / 16 * 470e6 / 45e9, 0.01);
}

/* Point-to-point window: NCCL_P2P_NET_CHUNKSIZE = 128 KiB through 8 slots per channel, NCCL's 4
 * channels per network peer for a 50 GB/s NIC (one per 14 GB/s): 4 x 8 x 128 KiB = 4 MiB per round
 * trip. Two stages' GPUs in two sites 5 ms apart (5.01 ms with the tier), 256 MiB: 64 windows, the last
 * leaving after 63 round trips of 10.02 ms and arriving one latency later: 636.3 ms (and 63 x 7 chunks'
 * transfer, 0.7 ms). One channel (NCCL_NCHANNELS_PER_NET_PEER = 1): 0.105 GB/s, 255 round trips, four
 * times as long. */
static void test_p2p_window(void **state)
{
    (void)state;
    sax_cluster_t cl;
    cluster(&cl, 2, 8, 1e15, 5e-3);
    cl.links[0].window_bytes = 1e12;
    sax_candidate_t c = nccl(0);
    double t = run(&cl, &c, 2, 8, false, SAX_OP_SENDRECV, SAX_ALGORITHM_RING, 256.0 * (1 << 20), NULL);
    within(t, 63 * 2 * 5.01e-3 + 5.01e-3, 0.01);
    c.p2p_channels = 1;
    double one = run(&cl, &c, 2, 8, false, SAX_OP_SENDRECV, SAX_ALGORITHM_RING, 256.0 * (1 << 20), NULL);
    within(one, 4.0 * t, 0.02);
}

/* NCCL's automatic point-to-point channels (paths.cc): one per 14 GB/s of NIC line rate, at least 1,
 * at most MAXCHANNELS = 32. 50 GB/s: ceil(3.57) = 4; 1 GB/s: 1; 5e19 B/s (a fuzzer's input, once an int
 * overflow): 32; set by the user: as set. */
static void test_p2p_channel_count(void **state)
{
    (void)state;
    sax_cluster_t cl;
    cluster(&cl, 2, 8, 1e12, 1e-3);
    sax_candidate_t c = nccl(0);
    assert_int_equal(sax_p2p_channels(&cl, &c), 4);
    cl.tiers[0].bw_Bps = 1e9;
    assert_int_equal(sax_p2p_channels(&cl, &c), 1);
    cl.tiers[0].bw_Bps = 5e19;
    assert_int_equal(sax_p2p_channels(&cl, &c), 32);
    cl.tiers[0].bw_Bps = INFINITY;
    assert_int_equal(sax_p2p_channels(&cl, &c), 32);
    c.p2p_channels = 3;
    assert_int_equal(sax_p2p_channels(&cl, &c), 3);
}

/* NCCL's tree (nNodes nodes of ppn GPUs): latency 2 x ((ppn - 1) x intraLat + log2(nNodes) x interLat)
 * in its tuning model. 8 nodes of 8 GPUs, 8 B: 2 x (7 x 3 us + 3 x 10 us) = 102 us. */
static void test_tree_latency_matches_nccl_formula(void **state)
{
    (void)state;
    sax_cluster_t cl;
    cluster(&cl, 1, 64, 0.0, 0.0);
    sax_candidate_t c = nccl(0);
    double nccl_formula = 2.0 * (7 * 3e-6 + 3 * 10e-6);
    within(run(&cl, &c, 64, 1, false, SAX_OP_ALL_REDUCE, SAX_ALGORITHM_TREE, 8.0, NULL), nccl_formula, 1e-3);
}

/* The hierarchical algorithm's level factors multiply to the group even where members do not nest in
 * the units: the DP group of the regions example (512 GPUs 48 apart over pods of 2048 and two sites of
 * 12288) has 42 or 43 members per pod, 12 pods, 256 per site. A hierarchical reduce-scatter leaves each
 * member 1/256 of the data before the step between sites, where each sends half of it across: per
 * direction 256 x S / 256 / 2 = S / 2. (Integer level factors, 43 x 5 x 2 = 430, would say 0.59 S.) */
static void test_hierarchical_factors_multiply_to_n(void **state)
{
    (void)state;
    sax_cluster_t cl;
    cluster(&cl, 2, 12288, 1e13, 1e-3);
    cl.n_tiers = 2;
    cl.tiers[0].gpus = 2048;
    cl.tiers[1] = cl.tiers[0];
    cl.tiers[1].gpus = 12288;
    sax_layout_t lay;
    sax_layout_levels(&cl, &lay);
    sax_group_t g;
    assert_int_equal(sax_layout_group_strided(&cl, &lay, 512, 48, false, &g), SAX_FEASIBLE);
    assert_int_equal(g.units[0], 512); /* one member per domain */
    assert_int_equal(g.units[1], 12);  /* 12 pods */
    assert_int_equal(g.sites, 2);
    sax_candidate_t c = nccl(0);
    sax_traffic_t tr = {0};
    sax_group_collective_s(&cl, &c, &lay, &g, SAX_OP_REDUCE_SCATTER, SAX_ALGORITHM_HIERARCHICAL, 1e9, 2.0,
                           &tr);
    within(tr.link_bytes[0][0], 0.5e9, 1e-9);
    within(tr.link_bytes[0][1], 0.5e9, 1e-9);
}

/* A group that does not nest in the units: 3 members 8 apart (ranks 0, 8, 16) in pods of 16, so pod 0
 * holds 2 of them and pod 1 one. One site of 48 GPUs, domains of 8, pods of 16 (tier 0: 45 GB/s NICs,
 * 10 us), the site's fabric above them at 4:1 (tier 1: 45 / 4 = 11.25 GB/s per GPU of a pod's uplink,
 * 180 GB/s per pod, 20 us). Every group at once: blocks of 24 ranks, 8 groups interleaved in each, two
 * blocks (16 groups). Pod 1 (ranks 16-31) holds one member of each of the 16 groups, and each leaves
 * it: group 0 gets 180 / 16 = 11.25 GB/s of pod 1's uplink (the average of 1.5 members per pod would
 * say 1.5 x 11.25). Send/receive of S = 1 GiB over 4 point-to-point channels (50 GB/s / 14 GB/s, up):
 * the hop 16 -> 0 leaves pod 1 at 11.25 / 4 = 2.8125 GB/s per channel; 2^30 / 4 B in 128 KiB chunks,
 * 8 in flight, bandwidth-bound (8 x 46.6 us > 46.6 + 2 x 20 us): 2^28 / 2.8125e9 + 20 us = 95.4637 ms.
 * All-to-all of S: member 16 sends S / 3 to each of 0 and 8, both outside its pod: 2 peers x 4
 * channels = 8 flows on its 11.25 GB/s of the uplink, 1.40625 GB/s each; per flow 2^30 / 3 / 4 B:
 * 89478485.3 / 1.40625e9 + 20 us = 63.6491 ms. The reference simulator builds every group's flows
 * one by one and finds the same (within 1 %). */
static void uneven_cluster(sax_cluster_t *cl)
{
    cluster(cl, 1, 48, 0.0, 0.0);
    cl->n_tiers = 2;
    cl->tiers[0].gpus = 16;
    cl->tiers[1] = (sax_tier_t){
        .gpus = 48, .bw_Bps = 50e9, .latency_s = 20e-6, .oversubscription = 4.0, .efficiency = 0.9};
}

static void test_group_that_does_not_nest(void **state)
{
    (void)state;
    sax_cluster_t cl;
    uneven_cluster(&cl);
    sax_candidate_t c = nccl(0);
    sax_layout_t lay;
    sax_layout_levels(&cl, &lay);
    sax_group_t g;
    assert_int_equal(sax_layout_group_strided(&cl, &lay, 3, 8, true, &g), SAX_FEASIBLE);
    assert_int_equal(g.groups, 16);
    assert_int_equal(g.units[1], 2); /* two pods ... */
    assert_int_equal(g.count[1], 2); /* ... of 2 and 1 members */
    assert_true(g.uneven);
    assert_int_equal(g.few[1], 1);
    within(g.few_gpus[1], 1.0, 1e-12); /* one GPU's worth of pod 1's uplink */
    double S = (double)(1 << 30);
    const struct {
        sax_coll_op_t op;
        double want;
    } cases[] = {{SAX_OP_SENDRECV, S / 4 / 2.8125e9 + 20e-6},
                 {SAX_OP_ALL_TO_ALL, S / 3 / 4 / 1.40625e9 + 20e-6}};
    for (int i = 0; i < 2; i++) {
        double closed =
            sax_group_collective_s(&cl, &c, &lay, &g, cases[i].op, SAX_ALGORITHM_RING, S, 2.0, NULL);
        within(closed, cases[i].want, 1e-3);
        sax_coll_sim_t sim;
        sax_error_t err;
        assert_int_equal(
            sax_collective_simulate(&cl, &c, &g, cases[i].op, SAX_ALGORITHM_RING, S, 1.0, &sim, &err),
            SAX_OK);
        within(sim.time_s, cases[i].want, 0.01);
    }
}

/* The same 16 groups in a tree all-reduce of S = 10^6 B over 4 channels (one chunk of 250 kB each).
 * Trees over the 3 domains (NCCL's btree, the second shifted by one): 0 -> 2 -> 1 (channels 0, 2) and
 * 1 -> 0 -> 2 (channels 1, 3). Flows leaving a pod, per group: pod 0 (ranks 0 and 8 of the first block's
 * 8 groups) 2 + 2 + 1 + 1 = 6; pod 1 holds rank 16 of the first block's groups (node 2: 2 + 2 + 1 + 1 = 6)
 * and rank 24 of the second's (their node 0: 1 + 1 + 2 + 2 = 6). The pod uplinks' 180 GB/s shared in
 * proportion: pod 0 by 48 flows (3.75 GB/s each), pod 1 by 96 (1.875 GB/s); the NICs (45 GB/s over at
 * most 6 flows) and domain uplinks (360 GB/s over at most 48) give more. The first tree's deepest
 * path, every hop between pods (20 us): up 8 -> 16 at 3.75 and 16 -> 0 at 1.875, down 0 -> 16 at 3.75
 * and 16 -> 8 at 1.875: 2 x 250e3 / 3.75e9 + 2 x 250e3 / 1.875e9 + 4 x 20 us = 480 us (the second
 * tree's path, one hop inside pod 0, is shorter: 316 us). Counting every group in pod 1 as group 0's 6
 * flows on one GPU's worth of it (11.25 / 6 GB/s), and pod 0 the same, said 613 us. */
static void test_tree_of_group_that_does_not_nest(void **state)
{
    (void)state;
    sax_cluster_t cl;
    uneven_cluster(&cl);
    sax_candidate_t c = nccl(4);
    sax_layout_t lay;
    sax_layout_levels(&cl, &lay);
    sax_group_t g;
    assert_int_equal(sax_layout_group_strided(&cl, &lay, 3, 8, true, &g), SAX_FEASIBLE);
    double want = 2 * 250e3 / 3.75e9 + 2 * 250e3 / 1.875e9 + 4 * 20e-6;
    within(sax_group_collective_s(&cl, &c, &lay, &g, SAX_OP_ALL_REDUCE, SAX_ALGORITHM_TREE, 1e6, 2.0, NULL),
           want, 1e-3);
    sax_coll_sim_t sim;
    sax_error_t err;
    assert_int_equal(
        sax_collective_simulate(&cl, &c, &g, SAX_OP_ALL_REDUCE, SAX_ALGORITHM_TREE, 1e6, 1.0, &sim, &err),
        SAX_OK);
    within(sim.time_s, want, 0.01);
}

/* Mathis et al.: MSS / RTT x C / sqrt(p). MSS 1460 B, RTT 10 ms, p = 1e-4: with delayed ACKs (C =
 * sqrt(3/4)) 1460 / 0.01 x 0.8660 / 0.01 = 12.64 MB/s per socket; without, sqrt(3/2): 17.88 MB/s. The
 * window bounds a flow at window / RTT: 16 MiB / 10 ms = 1.678 GB/s. */
static void test_transport_caps(void **state)
{
    (void)state;
    sax_site_link_t l = {.latency_s = 5e-3,
                         .loss = 1e-4,
                         .mtu_bytes = 4096,
                         .mss_bytes = 1460,
                         .tcp_delayed_ack = true,
                         .window_bytes = 16.0 * (1 << 20),
                         .bw_Bps = 1e12};
    sax_cluster_t cl = {.n_links = 1, .links = {l}};
    int links[1] = {0};
    sax_path_t p;
    sax_site_path(&cl, links, 1, &p);
    within(sax_transport_cap_Bps(&p, SAX_TRANSPORT_TCP, 1), 1460 / 0.01 * sqrt(0.75) / 0.01, 1e-12);
    within(sax_transport_cap_Bps(&p, SAX_TRANSPORT_TCP, 4), 4 * 1460 / 0.01 * sqrt(0.75) / 0.01, 1e-12);
    cl.links[0].tcp_delayed_ack = false;
    sax_site_path(&cl, links, 1, &p);
    within(sax_transport_cap_Bps(&p, SAX_TRANSPORT_TCP, 1), 1460 / 0.01 * sqrt(1.5) / 0.01, 1e-12);
    within(sax_transport_cap_Bps(&p, SAX_TRANSPORT_ROCE_SR, 1), 16.0 * (1 << 20) / 0.01, 1e-12);
    /* go-back-N: a 1 GB/s flow keeps 1e9 x 0.01 / 4096 = 2441.4 packets in flight: 1 / (1 + 0.24414) */
    within(sax_transport_efficiency(&p, SAX_TRANSPORT_ROCE_GBN, 1, 1e9),
           1.0 / (1.0 + 1e-4 * 1e9 * 0.01 / 4096), 1e-12);
    /* ... split over 4 queue pairs, a quarter of that each */
    within(sax_transport_efficiency(&p, SAX_TRANSPORT_ROCE_GBN, 4, 1e9),
           1.0 / (1.0 + 1e-4 * 1e9 * 0.01 / 4 / 4096), 1e-12);
    within(sax_transport_efficiency(&p, SAX_TRANSPORT_ROCE_SR, 1, 1e9), 1.0 - 1e-4, 1e-12);
}

/* A route through an intermediate site: three sites with links A-B (0) and B-C (1) only. The ring
 * A -> B -> C -> A uses link 0 from A to B, link 1 from B to C, and for C -> A link 1 from C to B and
 * link 0 from B to A: every link once in each direction, and the wrap hop pays both links' latency. */
static void test_route_through_intermediate_site(void **state)
{
    (void)state;
    sax_cluster_t cl;
    cluster(&cl, 3, 8, 1e12, 1e-3);
    cl.n_links = 2; /* A-B, B-C; no C-A */
    sax_layout_t lay;
    sax_layout_levels(&cl, &lay);
    sax_group_t g;
    assert_int_equal(sax_layout_group_strided(&cl, &lay, 3, 8, false, &g), SAX_FEASIBLE);
    assert_int_equal(g.sites, 3);
    assert_int_equal(g.link_hops[0][0], 1);
    assert_int_equal(g.link_hops[0][1], 1);
    assert_int_equal(g.link_hops[1][0], 1);
    assert_int_equal(g.link_hops[1][1], 1);
    /* the wrap hop's latency is both links' */
    within(g.site_hop_latency_s[2], 2e-3, 1e-12);
    /* without the B-C link, C cannot be reached */
    cl.n_links = 1;
    assert_int_equal(sax_layout_group_strided(&cl, &lay, 3, 8, false, &g), SAX_INFEASIBLE_NO_LINK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_latency_one_domain),
        cmocka_unit_test(test_ring_latency_matches_nccl_formula),
        cmocka_unit_test(test_ring_uses_every_nic),
        cmocka_unit_test(test_window_per_channel),
        cmocka_unit_test(test_four_member_ring_two_sites),
        cmocka_unit_test(test_cross_site_bytes),
        cmocka_unit_test(test_all_to_all_two_domains),
        cmocka_unit_test(test_p2p_window),
        cmocka_unit_test(test_p2p_channel_count),
        cmocka_unit_test(test_tree_latency_matches_nccl_formula),
        cmocka_unit_test(test_hierarchical_factors_multiply_to_n),
        cmocka_unit_test(test_group_that_does_not_nest),
        cmocka_unit_test(test_tree_of_group_that_does_not_nest),
        cmocka_unit_test(test_transport_caps),
        cmocka_unit_test(test_route_through_intermediate_site),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
