/* bench_eval.c - evaluations per second of the cost model on one core (a benchmark, not a test:
 * docs/performance.md records its output and the command). Usage: bench_eval CONFIG.json [SECONDS]
 * (CPU-seconds of this thread per set)
 *
 * Three loops over candidates of the configuration's problem:
 * Only feasible candidates are kept, so every evaluation is a full one (an infeasible candidate
 * returns after its first failed check, which would flatter the rate).
 *   no-sim     pp = 1 candidates (no pipeline to simulate), varying tp, dp, cp, micro-batch, ZeRO,
 *              recompute and the network keys
 *   sim-cold   pp > 1 1F1B candidates with cross-site stage boundaries, every one a new pipeline
 *              (the memo misses every time)
 *   sweep      the order a sweep visits them: network keys innermost, so candidates that differ
 *              only in what the pipeline does not see reuse its simulation */
#define _POSIX_C_SOURCE 200809L
#include "sax_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The thread's CPU time, not the wall clock: on a machine shared with other jobs the rate is the
 * evaluations per second this core spends on them (equal to the wall-clock rate on an idle machine). */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    long n;
    double s;
    double checksum;
} run_t;

static bool feasible(const sax_problem_t *p, const sax_candidate_t *x, sax_scratch_t *sc)
{
    sax_result_t res;
    return sax_model_eval(p, x, sc, &res) == SAX_OK && res.feasible;
}

static run_t loop(const sax_problem_t *p, const sax_candidate_t *set, int n_set, sax_scratch_t *sc,
                  double seconds)
{
    run_t r = {0, 0.0, 0.0};
    double t0 = now_s();
    do {
        for (int i = 0; i < n_set; i++) {
            sax_result_t res;
            sax_model_eval(p, &set[i], sc, &res);
            r.checksum += res.feasible ? res.iteration_time_s : 0.0;
        }
        r.n += n_set;
        r.s = now_s() - t0;
    } while (r.s < seconds);
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_eval CONFIG.json [SECONDS]\n");
        return 2;
    }
    double seconds = argc > 2 ? atof(argv[2]) : 2.0;
    sax_config_t cfg;
    sax_error_t err = {{0}};
    if (sax_config_load(argv[1], &cfg, &err) != SAX_OK) {
        fprintf(stderr, "%s\n", err.text);
        return 2;
    }
    const sax_problem_t *p = &cfg.problem;
    int gpus = 0;
    for (int s = 0; s < p->cluster.n_sites; s++)
        gpus += p->cluster.sites[s].gpus;
    sax_scratch_t *sc = malloc(sax_scratch_size());
    enum { MAX = 4096 };
    sax_candidate_t *a = malloc(sizeof *a * MAX), *b = malloc(sizeof *b * MAX), *c = malloc(sizeof *c * MAX);
    if (sc == NULL || a == NULL || b == NULL || c == NULL)
        return 1;
    sax_scratch_init(sc);
    int na = 0, nb = 0, nc = 0;
    const int tps[] = {1, 2, 4, 8}, mbs[] = {1, 2};
    for (int t = 0; t < 4; t++)
        for (int cp = 1; cp <= 2; cp++)
            for (int mb = 0; mb < 2; mb++)
                for (int z = 1; z <= 3; z++)
                    for (int rc = 0; rc < SAX_RECOMPUTE_COUNT; rc++)
                        for (int alg = 0; alg < SAX_ALGORITHM_COUNT; alg++)
                            for (int tr = 1; tr < SAX_TRANSPORT_COUNT && na < MAX; tr++) {
                                sax_candidate_t x = cfg.candidate;
                                x.tp = tps[t];
                                x.cp = cp;
                                x.pp = 1;
                                x.vpp = 1;
                                x.schedule = SAX_SCHEDULE_1F1B;
                                x.dp = gpus / (x.tp * cp) / 2;
                                x.micro_batch = mbs[mb];
                                x.zero = z;
                                x.recompute = (sax_recompute_t)rc;
                                x.algorithm = (sax_algorithm_t)alg;
                                x.transport = (sax_transport_t)tr;
                                if (feasible(p, &x, sc))
                                    a[na++] = x;
                            }
    /* pp > 1 with the pipeline across sites: order tp, cp, dp, pp */
    const int pps2[] = {2, 3, 4, 6, 8, 9, 14, 18}, mbs2[] = {1, 2, 4};
    const sax_schedule_t sch[] = {SAX_SCHEDULE_1F1B, SAX_SCHEDULE_INTERLEAVED, SAX_SCHEDULE_ZB_H1};
    for (int t = 2; t < 4; t++)
        for (int k = 0; k < 8; k++)
            for (int mb = 0; mb < 3; mb++)
                for (int sh = 0; sh < 3; sh++)
                    for (int z = 1; z <= 3; z++)
                        for (int rc = 1; rc < SAX_RECOMPUTE_COUNT; rc++)
                            for (int tr = 1; tr < SAX_TRANSPORT_COUNT; tr++)
                                for (int alg = 0; alg < SAX_ALGORITHM_COUNT; alg++)
                                    for (int comp = 0; comp < SAX_COMPRESSION_COUNT && nc < MAX; comp++) {
                                        sax_candidate_t x = cfg.candidate;
                                        x.tp = tps[t];
                                        x.cp = 1;
                                        x.pp = pps2[k];
                                        x.schedule = sch[sh];
                                        x.vpp = sch[sh] == SAX_SCHEDULE_INTERLEAVED ? 2 : 1;
                                        x.micro_batch = mbs2[mb];
                                        x.dp = gpus / (x.tp * x.pp);
                                        while (x.dp > 1 &&
                                               p->training.global_batch % ((long)x.dp * x.micro_batch) != 0)
                                            x.dp--;
                                        x.zero = z;
                                        x.recompute = (sax_recompute_t)rc;
                                        x.n_order = 4;
                                        x.order[0] = SAX_DIM_TP;
                                        x.order[1] = SAX_DIM_CP;
                                        x.order[2] = SAX_DIM_DP;
                                        x.order[3] = SAX_DIM_PP;
                                        x.transport = (sax_transport_t)tr;
                                        x.algorithm = (sax_algorithm_t)alg;
                                        x.compression = (sax_compression_t)comp;
                                        if (!feasible(p, &x, sc))
                                            continue;
                                        c[nc++] = x;
                                        if (tr == 1 && alg == 0 && comp == 0 && nb < MAX)
                                            b[nb++] = x; /* one per distinct pipeline */
                                    }
    run_t ra = loop(p, a, na, sc, seconds);
    /* cold: clear the memo before each pass so no simulation is reused */
    run_t rb = {0, 0.0, 0.0};
    double t0 = now_s();
    do {
        sax_scratch_init(sc);
        run_t one = loop(p, b, nb, sc, 0.0);
        rb.n += one.n;
        rb.checksum += one.checksum;
        rb.s = now_s() - t0;
    } while (rb.s < seconds);
    sax_scratch_init(sc);
    run_t rc = loop(p, c, nc, sc, seconds);
    printf("config %s\n", argv[1]);
    const run_t *runs[3] = {&ra, &rb, &rc};
    const char *names[3] = {"no-sim  ", "sim-cold", "sweep   "};
    const int counts[3] = {na, nb, nc};
    for (int i = 0; i < 3; i++) {
        double n = (double)runs[i]->n;
        printf("%s %6d candidates  %12.0f evaluations/s  (%.0f ns each)\n", names[i], counts[i],
               n / runs[i]->s, 1e9 * runs[i]->s / n);
    }
    printf("(every candidate in the three sets is feasible: each is a full evaluation)\n");
    printf("checksum %.6g\n", ra.checksum + rb.checksum + rc.checksum);
    free(a);
    free(b);
    free(c);
    free(sc);
    sax_config_fini(&cfg);
    return 0;
}
