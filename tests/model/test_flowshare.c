/* test_flowshare.c - traffic classes sharing site links (model/flowshare.c, docs/cost-model.md
 * section 9): the max-min reference on cases worked by hand, and the closed form the evaluation uses
 * against the reference over a grid of scenarios. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model_internal.h"

#include <math.h>
#include <stdio.h>

/* measured over the grid below (docs/cost-model.md section 9) */
#define WORST_EARLIER 0.334 /* 1/3 of a link where the closed form gives 1/2: two other classes */

#define NEAR(a, b) assert_true(fabs((a) - (b)) <= 1e-9 * fmax(1.0, fabs(b)))

/* The closed form with everything on each link's first direction. */
static double finish(double t, double window, int n, const double *cap, const double *bytes, const double *bg)
{
    double b[2][2] = {{0.0}}, o[2][2] = {{0.0}};
    for (int l = 0; l < n; l++) {
        b[l][0] = bytes[l];
        o[l][0] = bg[l];
    }
    return sax_shared_finish_s(t, window, n, cap, (const double(*)[2])b, false, (const double(*)[2])o);
}

/* Two flows of 10 and 30 B on one link of 10 B/s: 5 B/s each until the shorter ends at 2 b1 / C = 2,
 * then the other alone at 10 B/s: its 20 B left end at 4 (= (b1 + b2) / C). */
static void test_two_flows_one_link(void **state)
{
    (void)state;
    const sax_flow_t f[] = {{0.0, 10.0, INFINITY, 1u}, {0.0, 30.0, INFINITY, 1u}};
    const double cap[] = {10.0};
    double fin[2];
    assert_int_equal(sax_flow_share_simulate(f, 2, cap, 1, fin), SAX_OK);
    NEAR(fin[0], 2.0);
    NEAR(fin[1], 4.0);
}

/* A flow capped at 2 B/s (its own window) below its fair share of 5 leaves 8 B/s to the other: the
 * first (4 B) ends at 2, the second (40 B) has 40 - 16 = 24 B left then, at 10 B/s: 4.4. */
static void test_cap_below_share(void **state)
{
    (void)state;
    const sax_flow_t f[] = {{0.0, 4.0, 2.0, 1u}, {0.0, 40.0, INFINITY, 1u}};
    const double cap[] = {10.0};
    double fin[2];
    assert_int_equal(sax_flow_share_simulate(f, 2, cap, 1, fin), SAX_OK);
    NEAR(fin[0], 2.0);
    NEAR(fin[1], 4.4);
}

/* A later release: 20 B alone on 10 B/s for 1 s (10 B left), then two flows of 10 B at 5 B/s each:
 * both end at 3. */
static void test_release(void **state)
{
    (void)state;
    const sax_flow_t f[] = {{0.0, 20.0, INFINITY, 1u}, {1.0, 10.0, INFINITY, 1u}};
    const double cap[] = {10.0};
    double fin[2];
    assert_int_equal(sax_flow_share_simulate(f, 2, cap, 1, fin), SAX_OK);
    NEAR(fin[0], 3.0);
    NEAR(fin[1], 3.0);
}

/* Three sites in a ring: links 0 (A-B, 10 B/s), 1 (B-C, 10 B/s), 2 (C-A, 4 B/s). f0 on A-B, f1 from
 * A to C through B (links 0 and 1), f2 on C-A, f3 from B to A through C (links 1 and 2). Filling:
 * link 2 is full at 2 B/s each (f2, f3); then f0 and f1 rise to 5 (link 0 full; link 1 has 10 - 2 = 8
 * for f1). f0 (10 B) ends at 2; f1 (20 B) has 10 B left and rises to 8 (link 1's rest): ends at
 * 2 + 10 / 8 = 3.25; f2 and f3 (10 B each) stay at 2 B/s: 5. */
static void test_three_site_ring(void **state)
{
    (void)state;
    const sax_flow_t f[] = {{0.0, 10.0, INFINITY, 1u},
                            {0.0, 20.0, INFINITY, 3u},
                            {0.0, 10.0, INFINITY, 4u},
                            {0.0, 10.0, INFINITY, 6u}};
    const double cap[] = {10.0, 10.0, 4.0};
    double fin[4];
    assert_int_equal(sax_flow_share_simulate(f, 4, cap, 3, fin), SAX_OK);
    NEAR(fin[0], 2.0);
    NEAR(fin[1], 3.25);
    NEAR(fin[2], 5.0);
    NEAR(fin[3], 5.0);
}

/* The closed form, by hand. A reduction that alone takes 2 s moving 20 B over a 10 B/s link, released
 * while other classes demand 8 B/s for 10 s: its share is max(10 - 8, 10 / 2) = 5 B/s, half its pace:
 * done at 4, inside the window (the reference agrees: two flows at 5 B/s). With no other traffic it
 * takes its 2 s. With a window of 2 s the others' 16 B at their share of 5 B/s take 3.2 s, in which it
 * moves 16 B; its last 4 B alone at 10 B/s: 3.6 (the reference: the same two flows). */
static void test_closed_form_by_hand(void **state)
{
    (void)state;
    const double cap[] = {10.0}, bytes[] = {20.0}, none[] = {0.0}, bg[] = {8.0};
    NEAR(finish(2.0, 10.0, 1, cap, bytes, none), 2.0);
    NEAR(finish(2.0, 10.0, 1, cap, bytes, bg), 4.0);
    NEAR(finish(2.0, 2.0, 1, cap, bytes, bg), 3.6);
    /* a cap of its own (5 B/s: alone 4 s) at or below the share: nothing changes */
    NEAR(finish(4.0, 10.0, 1, cap, bytes, bg), 4.0);
    /* light background (1 B/s) leaves it 9 B/s: 20 / 9 */
    const double light[] = {1.0};
    NEAR(finish(2.0, 10.0, 1, cap, bytes, light), 20.0 / 9.0);
    /* the two directions of a link are separate resources: the same bytes the other way round (a
     * pipeline's gradients, flip) meet the others only when flipped back */
    const double b_rev[1][2] = {{0.0, 20.0}}, o_fwd[1][2] = {{8.0, 0.0}};
    NEAR(sax_shared_finish_s(2.0, 10.0, 1, cap, b_rev, false, o_fwd), 2.0);
    NEAR(sax_shared_finish_s(2.0, 10.0, 1, cap, b_rev, true, o_fwd), 4.0);
    const sax_flow_t f[] = {{0.0, 20.0, 10.0, 1u}, {0.0, 80.0, 8.0, 1u}},
                     g[] = {{0.0, 20.0, 10.0, 1u}, {0.0, 16.0, 8.0, 1u}};
    double fin[2];
    assert_int_equal(sax_flow_share_simulate(f, 2, cap, 1, fin), SAX_OK);
    NEAR(fin[0], 4.0);
    assert_int_equal(sax_flow_share_simulate(g, 2, cap, 1, fin), SAX_OK);
    NEAR(fin[0], 3.6);
    NEAR(fin[1], 3.2);
}

/* The grid: the synchronisation crosses one link or two (10 and 4 B/s), D0 and D1 bytes on them, alone
 * t = max D / r at its own pace r (at least what the links allow), either as one flow per link (a
 * collective's connections) or as one flow through both (D0 = D1); the other classes demand bg0, bg1
 * on each link and bgx through both (a route through an intermediate site) for `window` seconds, each
 * a flow of demand x window bytes capped at its demand, all released together. The closed form sees
 * per link the sum of the demands. */
static void test_grid_against_reference(void **state)
{
    (void)state;
    const double pace[] = {2.0, 5.0, 10.0, 40.0}, bgs[] = {0.0, 1.0, 3.0, 5.0, 8.0, 15.0},
                 windows[] = {0.25, 1.0, 2.0, 4.0, 16.0}, d1s[] = {10.0, 20.0, 40.0},
                 bgxs[] = {0.0, 2.0, 6.0};
    const double cap[] = {10.0, 4.0};
    double worst_one = 0.0, worst_over = 0.0, worst_under = 0.0, worst_single = 0.0;
    int n = 0, n_one = 0, n_single = 0;
    for (size_t a = 0; a < 4; a++)
        for (size_t b0 = 0; b0 < 6; b0++)
            for (size_t w = 0; w < 5; w++) {
                /* one link: exact */
                double D = 20.0, t = fmax(D / pace[a], D / cap[0]);
                const double Dv[] = {D}, bgv[] = {bgs[b0]};
                double cf = finish(t, windows[w], 1, cap, Dv, bgv);
                sax_flow_t f[5] = {{0.0, D, D / t, 1u}, {0.0, bgs[b0] * windows[w], bgs[b0], 1u}};
                double fin[5];
                assert_int_equal(sax_flow_share_simulate(f, b0 > 0 ? 2 : 1, cap, 1, fin), SAX_OK);
                worst_one = fmax(worst_one, fabs(cf / fin[0] - 1.0));
                n_one++;
                /* two links */
                for (size_t b1 = 0; b1 < 6; b1++)
                    for (size_t d = 0; d < 3; d++)
                        for (size_t x = 0; x < 3; x++)
                            for (int through = 0; through < 2; through++) {
                                const double D2[] = {20.0, through ? 20.0 : d1s[d]},
                                             bg2[] = {bgs[b0] + bgxs[x], bgs[b1] + bgxs[x]};
                                if (through && d > 0)
                                    continue;
                                double t2 =
                                    fmax(fmax(D2[0], D2[1]) / pace[a], fmax(D2[0] / cap[0], D2[1] / cap[1]));
                                double c2 = finish(t2, windows[w], 2, cap, D2, bg2);
                                int nf = 0;
                                if (through)
                                    f[nf++] = (sax_flow_t){0.0, D2[0], D2[0] / t2, 3u};
                                else
                                    for (int l = 0; l < 2; l++)
                                        f[nf++] = (sax_flow_t){0.0, D2[l], D2[l] / t2, 1u << l};
                                int n_sync = nf;
                                const double dem[] = {bgs[b0], bgs[b1], bgxs[x]};
                                for (int k = 0; k < 3; k++)
                                    if (dem[k] > 0.0)
                                        f[nf++] = (sax_flow_t){0.0, dem[k] * windows[w], dem[k],
                                                               k < 2 ? 1u << k : 3u};
                                assert_int_equal(sax_flow_share_simulate(f, nf, cap, 2, fin), SAX_OK);
                                double ref = 0.0;
                                for (int i = 0; i < n_sync; i++)
                                    ref = fmax(ref, fin[i]);
                                double rel = c2 / ref - 1.0;
                                worst_over = fmax(worst_over, rel);
                                worst_under = fmax(worst_under, -rel);
                                n++;
                                /* at most one other class on each link: what the closed form's one
                                 * aggregate of the others assumes */
                                if ((b0 == 0 || x == 0) && (b1 == 0 || x == 0)) {
                                    worst_single = fmax(worst_single, fabs(rel));
                                    n_single++;
                                }
                            }
            }
    printf(
        "closed form vs max-min reference: one link, %d scenarios: %.2g; two links, one other class a link, "
        "%d scenarios: %.1f %%; any, %d scenarios: at most %.1f %% later, %.1f %% earlier\n",
        n_one, worst_one, n_single, 100.0 * worst_single, n, 100.0 * worst_over, 100.0 * worst_under);
    assert_true(n_one >= 100 && n > 3000);
    assert_true(worst_one <= 1e-9);
    assert_true(worst_single <= 1e-9);
    assert_true(worst_over <= 1e-9 && worst_under <= WORST_EARLIER);
}

/* Monotone: a smaller link, more background or a slower pace of its own never ends it earlier. */
static void test_closed_form_monotone(void **state)
{
    (void)state;
    double prev_c = INFINITY;
    for (double c = 1.0; c <= 64.0; c *= 1.25) {
        const double cap[] = {c}, D[] = {20.0}, bg[] = {3.0};
        double t = fmax(1.0, 20.0 / c); /* alone: its pace or the link */
        double f = finish(t, 3.0, 1, cap, D, bg);
        assert_true(f <= prev_c * (1.0 + 1e-12));
        prev_c = f;
        double prev_bg = 0.0;
        for (double b = 0.0; b <= 2.0 * c; b += c / 8.0) {
            const double bb[] = {b};
            double g = finish(t, 3.0, 1, cap, D, bb);
            assert_true(g >= prev_bg * (1.0 - 1e-12));
            prev_bg = g;
        }
        double prev_t = 0.0; /* a slower pace of its own (the same bytes) */
        for (double tt = t; tt <= 8.0 * t; tt *= 1.1) {
            double g = finish(tt, 3.0, 1, cap, D, bg);
            assert_true(g >= prev_t * (1.0 - 1e-12));
            prev_t = g;
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_flows_one_link),
        cmocka_unit_test(test_cap_below_share),
        cmocka_unit_test(test_release),
        cmocka_unit_test(test_three_site_ring),
        cmocka_unit_test(test_closed_form_by_hand),
        cmocka_unit_test(test_grid_against_reference),
        cmocka_unit_test(test_closed_form_monotone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
