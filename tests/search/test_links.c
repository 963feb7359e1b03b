/* test_links.c - properties of the site links over the bundled examples' spaces: a sample of every
 * example's candidates (every 7th index, valid ones only; SAX_TEST_LINKS_STRIDE=1 in the environment
 * for every one, about 25 s), each evaluated as the sweep would.
 *
 * - no site link is busier than 100 %: the bytes an iteration puts on a link's busier direction fit
 *   in the link's capacity times the iteration time;
 * - a slower link never makes a job faster: with every site link at half its bandwidth the iteration
 *   takes at least as long, to rounding (TOL; ZB-H1 places W on stage times without cross-site
 *   traffic, so its order does not depend on the links: docs/cost-model.md sections 7 and 9);
 * - an added site link never makes a job slower: with a site link removed, the iteration takes at
 *   least as long, to rounding, or the candidate becomes infeasible. Only links at
 *   least as fast (bandwidth, latency, loss) as every other are removed: traffic always takes the
 *   direct link where there is one, so a slow direct link can lose to a fast detour (the campus
 *   example's 4 Tbit/s scenario against two 32 Tbit/s links), which is the routing, not the model. The traffic classes share the links (docs/cost-model.md section 9),
 *   so these hold for the joint model, not only for each class alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sax_config.h"
#include "sax_search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { STRIDE = 7 };             /* every 7th candidate, unless SAX_TEST_LINKS_STRIDE says otherwise */
static const double TOL = 1e-12; /* relative: float rounding only */

static const char *const examples[] = {
    SAX_EXAMPLES "/campus-3bldg-llama405b.json",
    SAX_EXAMPLES "/hetero-h100-b200.json",
    SAX_EXAMPLES "/moe-2bldg-deepseekv3.json",
    SAX_EXAMPLES "/regions-2-llama405b.json",
};

static void check_example(const char *path)
{
    sax_config_t cfg;
    sax_error_t err = {{0}};
    assert_int_equal(sax_config_load(path, &cfg, &err), SAX_OK);
    sax_search_t *s = NULL;
    assert_int_equal(sax_search_create(&cfg.space, cfg.has_candidate ? &cfg.candidate : NULL, cfg.scenarios,
                                       cfg.n_scenarios, &s, &err),
                     SAX_OK);
    sax_scratch_t *sc = malloc(sax_scratch_size());
    assert_non_null(sc);
    sax_scratch_init(sc);
    int checked = 0, slower = 0, removed = 0, removed_faster = 0;
    double worst_util = 0.0, worst_speedup = 0.0, worst_removed = 0.0;
    sax_search_cursor_t cur;
    const char *env = getenv("SAX_TEST_LINKS_STRIDE");
    int64_t stride = env != NULL && atoll(env) > 0 ? atoll(env) : STRIDE;
    for (int64_t i = 0; i < sax_search_size(s); i += stride) {
        sax_search_seek(s, i, &cur);
        if (cur.skip != SAX_SKIP_NONE)
            continue;
        const sax_problem_t *p = sax_search_problem(s, cur.scenario);
        sax_result_t r;
        assert_int_equal(sax_model_eval(p, &cur.candidate, sc, &r), SAX_OK);
        if (!r.feasible)
            continue;
        for (int l = 0; l < p->cluster.n_links; l++) {
            worst_util = fmax(worst_util, r.link_utilisation[l]);
            if (r.link_utilisation[l] > 1.0 + 1e-9)
                fail_msg("%s: candidate %lld: site link %d is %.1f %% busy", path, (long long)i, l,
                         100.0 * r.link_utilisation[l]);
        }
        sax_problem_t half = *p;
        for (int l = 0; l < half.cluster.n_links; l++)
            half.cluster.links[l].bw_Bps *= 0.5;
        sax_result_t h;
        assert_int_equal(sax_model_eval(&half, &cur.candidate, sc, &h), SAX_OK);
        if (h.feasible) {
            double gain = r.iteration_time_s / h.iteration_time_s - 1.0;
            worst_speedup = fmax(worst_speedup, gain);
            slower += gain > TOL;
            if (gain > TOL)
                fail_msg("%s: candidate %lld: %.12g s with the site links at half bandwidth, %.12g s at full",
                         path, (long long)i, h.iteration_time_s, r.iteration_time_s);
        }
        for (int l = 0; l < p->cluster.n_links && p->cluster.n_sites > 2; l++) {
            const sax_site_link_t *ll = &p->cluster.links[l];
            bool best = true;
            for (int k = 0; k < p->cluster.n_links; k++) {
                const sax_site_link_t *o = &p->cluster.links[k];
                best =
                    best && o->bw_Bps <= ll->bw_Bps && o->latency_s >= ll->latency_s && o->loss >= ll->loss;
            }
            if (!best)
                continue;
            sax_problem_t less = *p; /* without link l */
            for (int k = l; k + 1 < less.cluster.n_links; k++)
                less.cluster.links[k] = less.cluster.links[k + 1];
            less.cluster.n_links--;
            sax_result_t w;
            assert_int_equal(sax_model_eval(&less, &cur.candidate, sc, &w), SAX_OK);
            if (!w.feasible)
                continue;
            double gain = r.iteration_time_s / w.iteration_time_s - 1.0;
            worst_removed = fmax(worst_removed, gain);
            removed++;
            removed_faster += gain > TOL;
            if (gain > TOL)
                fail_msg("%s: candidate %lld: %.12g s without site link %d, %.12g s with it", path,
                         (long long)i, w.iteration_time_s, l, r.iteration_time_s);
        }
        checked++;
    }
    printf(
        "%s: %d feasible candidates; busiest link %.1f %%; half bandwidth faster in %d (by at most %.2f %%); "
        "%d with a link removed, faster in %d (by at most %.2f %%)\n",
        path, checked, 100.0 * worst_util, slower, 100.0 * worst_speedup, removed, removed_faster,
        100.0 * worst_removed);
    assert_true(checked > 100);
    free(sc);
    sax_search_destroy(&s);
    sax_config_fini(&cfg);
}

static void test_examples(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++)
        check_example(examples[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_examples)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
