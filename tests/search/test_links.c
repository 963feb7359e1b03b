/* test_links.c - properties of the site links over the bundled examples' spaces (a sample of every
 * example's candidates: every 7th index, valid ones only; SAX_TEST_LINKS_STRIDE=1 in the environment
 * for every one, about 25 s), each evaluated as the sweep would, and over random configurations
 * (2 to 4 sites joined in a line, a ring or a full mesh by links of random speed, latency and loss;
 * dense and MoE models; random degrees, rank orders, schedules, ZeRO stages and transports; seed
 * SAX_TEST_LINKS_SEED, 1 by default).
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

#include "fixture.h"
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

typedef struct {
    int checked, crossing, slower, removed, removed_faster; /* crossing: with traffic across sites */
    double worst_util, worst_speedup, worst_removed;
} stats_t;

/* The three properties on one candidate of problem p (`what` and i name it in a failure); the third,
a link removed, only where `removals`. */
static void check_candidate(const char *what, int64_t i, const sax_problem_t *p, const sax_candidate_t *c,
                            bool removals, sax_scratch_t *sc, stats_t *st)
{
    sax_result_t r;
    assert_int_equal(sax_model_eval(p, c, sc, &r), SAX_OK);
    if (!r.feasible)
        return;
    if (!isfinite(r.iteration_time_s) || !(r.iteration_time_s > 0.0))
        fail_msg("%s %lld: iteration time %g s", what, (long long)i, r.iteration_time_s);
    st->crossing += r.cross_site_bytes_per_iteration > 0.0;
    for (int l = 0; l < p->cluster.n_links; l++) {
        st->worst_util = fmax(st->worst_util, r.link_utilisation[l]);
        if (r.link_utilisation[l] > 1.0 + 1e-9)
            fail_msg("%s %lld: site link %d is %.1f %% busy", what, (long long)i, l,
                     100.0 * r.link_utilisation[l]);
    }
    sax_problem_t half = *p;
    for (int l = 0; l < half.cluster.n_links; l++)
        half.cluster.links[l].bw_Bps *= 0.5;
    sax_result_t h;
    assert_int_equal(sax_model_eval(&half, c, sc, &h), SAX_OK);
    if (h.feasible) {
        double gain = r.iteration_time_s / h.iteration_time_s - 1.0;
        st->worst_speedup = fmax(st->worst_speedup, gain);
        st->slower += gain > TOL;
        if (gain > TOL)
            fail_msg("%s %lld: %.12g s with the site links at half bandwidth, %.12g s at full", what,
                     (long long)i, h.iteration_time_s, r.iteration_time_s);
    }
    for (int l = 0; removals && l < p->cluster.n_links && p->cluster.n_sites > 2; l++) {
        const sax_site_link_t *ll = &p->cluster.links[l];
        bool best = true;
        for (int k = 0; k < p->cluster.n_links; k++) {
            const sax_site_link_t *o = &p->cluster.links[k];
            best = best && o->bw_Bps <= ll->bw_Bps && o->latency_s >= ll->latency_s && o->loss >= ll->loss;
        }
        if (!best)
            continue;
        sax_problem_t less = *p; /* without link l */
        for (int k = l; k + 1 < less.cluster.n_links; k++)
            less.cluster.links[k] = less.cluster.links[k + 1];
        less.cluster.n_links--;
        sax_result_t w;
        assert_int_equal(sax_model_eval(&less, c, sc, &w), SAX_OK);
        if (!w.feasible)
            continue;
        double gain = r.iteration_time_s / w.iteration_time_s - 1.0;
        st->worst_removed = fmax(st->worst_removed, gain);
        st->removed++;
        st->removed_faster += gain > TOL;
        if (gain > TOL)
            fail_msg("%s %lld: %.12g s without site link %d, %.12g s with it", what, (long long)i,
                     w.iteration_time_s, l, r.iteration_time_s);
    }
    st->checked++;
}

static void print_stats(const char *what, const stats_t *st)
{
    printf(
        "%s: %d feasible candidates; busiest link %.1f %%; half bandwidth faster in %d (by at most %.2f %%); "
        "%d with a link removed, faster in %d (by at most %.2f %%)\n",
        what, st->checked, 100.0 * st->worst_util, st->slower, 100.0 * st->worst_speedup, st->removed,
        st->removed_faster, 100.0 * st->worst_removed);
}

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
    stats_t st = {0};
    sax_search_cursor_t cur;
    const char *env = getenv("SAX_TEST_LINKS_STRIDE");
    int64_t stride = env != NULL && atoll(env) > 0 ? atoll(env) : STRIDE;
    for (int64_t i = 0; i < sax_search_size(s); i += stride) {
        sax_search_seek(s, i, &cur);
        if (cur.skip != SAX_SKIP_NONE)
            continue;
        check_candidate(path, i, sax_search_problem(s, cur.scenario), &cur.candidate, true, sc, &st);
    }
    print_stats(path, &st);
    assert_true(st.checked > 100);
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

/* splitmix64: a seeded stream for the random configurations */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int pick(uint64_t *s, int n) { return (int)(next_u64(s) % (uint64_t)n); }

/* log-uniform between lo and hi */
static double log_uniform(uint64_t *s, double lo, double hi)
{
    double u = (double)(next_u64(s) >> 11) * 0x1.0p-53;
    return lo * pow(hi / lo, u);
}

/* A random problem and candidate (whether its sites form a full mesh): 2 to 4 sites of 64 to 256 GPUs joined in a line, a ring or a full
 * mesh; links of 10 Gbit/s to 40 Tbit/s, 5 us to 20 ms, lossless or lossy; the fixture's 16-layer model,
 * dense or with 8 to 32 experts; every degree, order, schedule and network choice drawn at random. */
static bool random_case(uint64_t *rs, sax_problem_t *p, sax_candidate_t *c)
{
    int n_sites = 2 + pick(rs, 3), gpus = 64 << pick(rs, 3);
    fixture_problem(p, n_sites, gpus);
    p->cluster.tiers[0].gpus = gpus; /* a site is one unit of its outermost tier, as the loader requires */
    int topology = pick(rs, 3);      /* 0 line, 1 ring, 2 full mesh */
    p->cluster.n_links = 0;
    for (int a = 0; a < n_sites; a++)
        for (int b = a + 1; b < n_sites; b++) {
            bool on =
                topology == 2 || b == a + 1 || (topology == 1 && a == 0 && b == n_sites - 1 && n_sites > 2);
            if (!on)
                continue;
            sax_site_link_t *l = &p->cluster.links[p->cluster.n_links++];
            l->a = a;
            l->b = b;
            l->bw_Bps = log_uniform(rs, 1.25e9, 5e12);
            l->latency_s = log_uniform(rs, 5e-6, 20e-3);
            l->loss = pick(rs, 2) ? 0.0 : log_uniform(rs, 1e-7, 1e-4);
        }
    if (pick(rs, 2)) {
        p->model.experts = 8 << pick(rs, 3);
        p->model.top_k = 2;
        p->model.expert_ffn_hidden = 2048;
    }
    fixture_candidate(c);
    const int total = n_sites * gpus;
    c->tp = 1 << pick(rs, 4);
    c->cp = 1 << pick(rs, 2);
    c->pp = 1 << pick(rs, 3);
    c->dp = total / (c->tp * c->cp * c->pp);
    if (c->dp < 1)
        c->dp = 1;
    if (p->model.experts > 0) {
        c->ep = 1 << pick(rs, 4);
        if (c->dp % c->ep != 0 || c->ep > p->model.experts)
            c->ep = 1;
    }
    c->micro_batch = 1 + pick(rs, 2);
    c->schedule = (sax_schedule_t)pick(rs, SAX_SCHEDULE_COUNT);
    c->vpp = c->schedule == SAX_SCHEDULE_INTERLEAVED ? 2 : 1;
    c->recompute = (sax_recompute_t)pick(rs, SAX_RECOMPUTE_COUNT);
    c->sequence_parallel = c->tp > 1 && pick(rs, 2);
    c->zero = pick(rs, 4);
    const sax_dim_t dims[4] = {SAX_DIM_TP, SAX_DIM_CP, SAX_DIM_PP, SAX_DIM_DP};
    for (int k = 0; k < 4; k++)
        c->order[k] = dims[k];
    for (int k = 3; k > 0; k--) { /* Fisher-Yates */
        int j = pick(rs, k + 1);
        sax_dim_t t = c->order[k];
        c->order[k] = c->order[j];
        c->order[j] = t;
    }
    c->transport = (sax_transport_t)pick(rs, SAX_TRANSPORT_COUNT);
    c->connections = 1 << pick(rs, 4);
    c->algorithm = (sax_algorithm_t)pick(rs, SAX_ALGORITHM_COUNT);
    c->compression = (sax_compression_t)pick(rs, SAX_COMPRESSION_COUNT);
    p->training.global_batch = c->dp * c->micro_batch * (4 << pick(rs, 3)); /* 4 to 16 micro-batches */
    return topology == 2;
}

static void test_random_configurations(void **state)
{
    (void)state;
    const char *env = getenv("SAX_TEST_LINKS_SEED");
    uint64_t seed = env != NULL ? strtoull(env, NULL, 10) : 1, rs = seed;
    sax_scratch_t *sc = malloc(sax_scratch_size());
    assert_non_null(sc);
    sax_scratch_init(sc);
    stats_t st = {0};
    for (int64_t i = 0; i < 20000 && st.checked < 1500; i++) {
        sax_problem_t p;
        sax_candidate_t c;
        /* a link is removed only from full meshes, where every pair of sites keeps its direct link: on a
         * line or a ring each pair's route is chosen on its own, not to spread the load, so an added link
         * can draw a route onto a link another class already loads (docs/cost-model.md section 3) */
        bool mesh = random_case(&rs, &p, &c);
        check_candidate("random case", i, &p, &c, mesh, sc, &st);
    }
    char what[64];
    snprintf(what, sizeof what, "random configurations (seed %llu)", (unsigned long long)seed);
    print_stats(what, &st);
    printf("%d of them with traffic across sites\n", st.crossing);
    assert_true(st.checked >= 500);
    assert_true(st.crossing >= 250);
    free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_examples),
                                       cmocka_unit_test(test_random_configurations)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
