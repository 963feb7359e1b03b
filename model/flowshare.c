/* flowshare.c - traffic classes that share site links (docs/cost-model.md section 9).
 *
 * The reference: max-min fair shares by progressive filling over flows with release times, bytes, a
 * rate cap of their own (window, NIC) and the set of links they cross; every time a flow is released
 * or completes the shares are filled again. Exact for fluid flows; it allocates nothing but costs
 * O(flows^2 x links) per event, so it is for the tests, not the evaluation.
 *
 * The closed form the evaluation uses, sax_shared_finish_s: one synchronisation (the DP reduction,
 * a pipeline transfer) that alone takes t seconds and puts bytes[r] on resource r (a site link's
 * direction), released while other classes demand bg[r] on the same resources for `window` seconds.
 * On each resource it and the other classes (as one flow) get their max-min shares: each keeps what it
 * demands below half the link and leaves the other the rest. The others' bytes (bg x window) then take
 * longer than their window when they get less than they demand, and it is slowed for that long; after
 * that it runs as alone. It ends when its most slowed resource has carried its bytes. Exact for one
 * link; over several it treats each resource on its own (a flow crossing two links is not held back
 * on one by the other), which the grid of tests/model/test_flowshare.c measures. O(resources), no
 * allocation.
 */
#include "model_internal.h"

#include <math.h>
#include <string.h>

sax_status_t sax_flow_share_simulate(const sax_flow_t *flows, int n, const double *link_cap, int n_links,
                                     double *finish)
{
    if (n < 0 || n > SAX_FLOW_MAX || n_links < 0 || n_links > SAX_FLOW_MAX_LINKS)
        return SAX_ERR_INPUT;
    double left[SAX_FLOW_MAX], rate[SAX_FLOW_MAX];
    bool done[SAX_FLOW_MAX];
    for (int i = 0; i < n; i++) {
        if (!(flows[i].bytes >= 0.0) || !(flows[i].cap > 0.0) || !(flows[i].release >= 0.0) ||
            (isinf(flows[i].cap) && (flows[i].links & ((1ull << n_links) - 1)) == 0))
            return SAX_ERR_INPUT;
        left[i] = flows[i].bytes;
        done[i] = false;
        finish[i] = INFINITY;
    }
    double t = 0.0;
    for (int step = 0; step < 4 * SAX_FLOW_MAX + 4; step++) {
        /* progressive filling over the released flows that have bytes left */
        bool frozen[SAX_FLOW_MAX];
        double used[SAX_FLOW_MAX_LINKS] = {0.0};
        int active = 0;
        for (int i = 0; i < n; i++) {
            if (!done[i] && flows[i].release <= t && left[i] <= 0.0) {
                done[i] = true;
                finish[i] = t;
            }
            frozen[i] = done[i] || flows[i].release > t;
            rate[i] = 0.0;
            active += !frozen[i];
        }
        double level = 0.0;
        while (active > 0) {
            double rise = INFINITY;
            for (int i = 0; i < n; i++)
                if (!frozen[i])
                    rise = fmin(rise, flows[i].cap - level);
            for (int l = 0; l < n_links; l++) {
                int k = 0;
                for (int i = 0; i < n; i++)
                    k += !frozen[i] && (flows[i].links >> l & 1u);
                if (k > 0)
                    rise = fmin(rise, (link_cap[l] - used[l]) / k);
            }
            level += rise;
            for (int i = 0; i < n; i++)
                if (!frozen[i]) {
                    rate[i] = level;
                    for (int l = 0; l < n_links; l++)
                        used[l] += (flows[i].links >> l & 1u) ? rise : 0.0;
                }
            for (int i = 0; i < n; i++) { /* a flow stops at its cap or at a full link */
                if (frozen[i])
                    continue;
                bool stop = level >= flows[i].cap * (1.0 - 1e-12);
                for (int l = 0; l < n_links && !stop; l++)
                    stop = (flows[i].links >> l & 1u) && link_cap[l] - used[l] <= 1e-12 * link_cap[l];
                if (stop) {
                    frozen[i] = true;
                    active--;
                }
            }
        }
        /* the next event: a release or a completion at these rates */
        double next = INFINITY;
        for (int i = 0; i < n; i++) {
            if (done[i])
                continue;
            if (flows[i].release > t)
                next = fmin(next, flows[i].release);
            else if (rate[i] > 0.0)
                next = fmin(next, t + left[i] / rate[i]);
        }
        if (next == INFINITY)
            return SAX_OK; /* every flow done */
        for (int i = 0; i < n; i++)
            if (!done[i] && flows[i].release <= t) {
                left[i] -= rate[i] * (next - t);
                if (left[i] <= 1e-9 * flows[i].bytes)
                    left[i] = 0.0;
            }
        t = next;
    }
    return SAX_ERR_INPUT; /* cannot happen: every event releases or completes a flow */
}

double sax_shared_finish_s(double t_alone, double window, int n_links, const double *cap,
                           const double (*bytes)[2], bool flip, const double (*bg)[2])
{
    if (!(t_alone > 0.0) || !(window > 0.0))
        return t_alone > 0.0 ? t_alone : 0.0;
    double end = t_alone, per_s = 1.0 / t_alone;
    for (int l = 0; l < n_links; l++)
        for (int d = 0; d < 2; d++) {
            double b = bytes[l][d ^ flip], o = bg[l][d];
            if (!(b > 0.0) || !(o > 0.0))
                continue;
            double alone = b * per_s, half = 0.5 * cap[l]; /* its rate here alone */
            double mine = sax_max(cap[l] - o, half);
            if (mine >= alone)
                continue; /* not slowed here */
            double theirs = sax_min(o, sax_max(cap[l] - alone, half));
            double pace = mine / alone;          /* relative to alone, below 1 */
            double held = window * (o / theirs); /* the others' bytes take this long here */
            end = sax_max(end, t_alone <= pace * held ? t_alone / pace : held + t_alone - pace * held);
        }
    return end;
}
