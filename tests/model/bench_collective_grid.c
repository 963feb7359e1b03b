/* bench_collective_grid.c - the grid of collective_grid.h (not a test: minutes): every case's
 * closed form against the reference simulator, the worst disagreement per op and algorithm, apart for
 * groups that nest in the units and groups that do not, over the 1-in-5 sample of the grid whose
 * indices sum to a multiple of 5 (every axis varies in it), cases costing the simulator more than 4e8
 * slice-hops left out. Usage:
 *     bench_collective_grid [MAX_MEMBERS [MIN_MEMBERS [SAMPLE [NESTS [LINE [MAX_COST [THIN]]]]]]]
 * members from MIN (default 2) to MAX (default 512); SAMPLE (default 5) takes the cases whose indices sum
 * to a multiple of it; NESTS "yes", "no" or "both" (default); LINE the index of one op/algorithm line
 * (default all); MAX_COST the most slice-hops a case may cost (default 4e8); THIN keeps every THIN-th
 * of the cases left (default 1: all). With GRID_VERBOSE set, every case beyond 10 % as well; with
 * GRID_CLOSED set, only the closed forms, one "line point seconds" a case (to compare two builds);
 * GRID_CACHE below (with GRID_CACHED_ONLY also set, only the cases it holds: a run stopped part
 * way). LINE: 0-2 ring all-reduce, reduce-scatter, all-gather; 3-5 hierarchical; 6 tree; 7 all-to-all;
 * 8 sendrecv. Figures in docs/cost-model.md section 5.6. */
#include "collective_grid.h"

#include <stdlib.h>
#include <time.h>

/* GRID_CACHE=FILE keeps the reference's times ("line point seconds" a line): the simulator's results do
 * not depend on the closed forms, so a run after a change of collective.c reads them back and only
 * the closed forms are computed again. */
typedef struct {
    long key;
    double sim_s;
} cached_t;

static cached_t *cache;
static long n_cache, cap_cache;

static int cached_cmp(const void *a, const void *b)
{
    long x = ((const cached_t *)a)->key, y = ((const cached_t *)b)->key;
    return (x > y) - (x < y);
}

static void cache_add(long key, double sim_s)
{
    if (n_cache == cap_cache) {
        cap_cache = cap_cache ? 2 * cap_cache : 4096;
        cache = realloc(cache, sizeof *cache * (size_t)cap_cache);
        if (cache == NULL) {
            fprintf(stderr, "bench_collective_grid: out of memory\n");
            exit(1);
        }
    }
    cache[n_cache++] = (cached_t){key, sim_s};
}

static FILE *cache_open(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        long line, point;
        double t;
        while (fscanf(f, "%ld %ld %lf", &line, &point, &t) == 3)
            cache_add(line * GRID_POINTS + point, t);
        fclose(f);
        qsort(cache, (size_t)n_cache, sizeof *cache, cached_cmp);
    }
    f = fopen(path, "a");
    if (f == NULL) {
        fprintf(stderr, "bench_collective_grid: cannot write %s\n", path);
        exit(2);
    }
    return f;
}

static bool cache_find(long key, double *sim_s)
{
    cached_t want = {key, 0.0}, *hit = bsearch(&want, cache, (size_t)n_cache, sizeof *cache, cached_cmp);
    if (hit != NULL)
        *sim_s = hit->sim_s;
    return hit != NULL;
}

int main(int argc, char **argv)
{
    int max_n = argc > 1 ? atoi(argv[1]) : 512, min_n = argc > 2 ? atoi(argv[2]) : 2;
    int sample = argc > 3 ? atoi(argv[3]) : 5, line = argc > 5 ? atoi(argv[5]) : -1;
    double max_cost = argc > 6 ? atof(argv[6]) : 4e8;
    int thin = argc > 7 ? atoi(argv[7]) : 1;
    const char *nests = argc > 4 ? argv[4] : "both";
    bool verbose = getenv("GRID_VERBOSE") != NULL;    /* every case beyond 10 % */
    bool closed_only = getenv("GRID_CLOSED") != NULL; /* "line point seconds" of each closed form */
    FILE *keep = getenv("GRID_CACHE") != NULL ? cache_open(getenv("GRID_CACHE")) : NULL;
    bool cached_only = keep != NULL && getenv("GRID_CACHED_ONLY") != NULL; /* a run stopped part way */
    if (sample < 1 || thin < 1 || max_n < 2) {
        fprintf(stderr, "bench_collective_grid: SAMPLE and THIN must be >= 1, MAX_MEMBERS >= 2\n");
        return 2;
    }
    static const struct {
        sax_coll_op_t op;
        sax_algorithm_t alg;
    } runs[] = {{SAX_OP_ALL_REDUCE, SAX_ALGORITHM_RING},
                {SAX_OP_REDUCE_SCATTER, SAX_ALGORITHM_RING},
                {SAX_OP_ALL_GATHER, SAX_ALGORITHM_RING},
                {SAX_OP_ALL_REDUCE, SAX_ALGORITHM_HIERARCHICAL},
                {SAX_OP_REDUCE_SCATTER, SAX_ALGORITHM_HIERARCHICAL},
                {SAX_OP_ALL_GATHER, SAX_ALGORITHM_HIERARCHICAL},
                {SAX_OP_ALL_REDUCE, SAX_ALGORITHM_TREE},
                {SAX_OP_ALL_TO_ALL, SAX_ALGORITHM_RING},
                {SAX_OP_SENDRECV, SAX_ALGORITHM_RING}};
    printf("%-26s %-6s %7s %8s %8s %8s  worst case\n", "op/algorithm", "nests", "cases", "lowest", "highest",
           "out 10%");
    for (int r = 0; r < GRID_COUNT(runs); r++)
        for (int nest = 1; nest >= 0; nest--) {
            if ((line >= 0 && r != line) || (nest && strcmp(nests, "no") == 0) ||
                (!nest && strcmp(nests, "yes") == 0))
                continue;
            int cases = 0, out = 0, picked = 0;
            double lo = 1.0, hi = 1.0;
            char lo_case[256] = "", hi_case[256] = "";
            clock_t t0 = clock();
            for (long p = 0; p < GRID_POINTS; p++) {
                grid_case_t k;
                int mix;
                if (!grid_point(runs[r].op, runs[r].alg, p, &k, &mix) || k.n > max_n || k.n < min_n ||
                    mix % sample != 0)
                    continue;
                int ch = k.channels > 0 ? k.channels : 16;
                if (grid_cost(&k, ch) > max_cost || picked++ % thin != 0)
                    continue;
                sax_cluster_t cl;
                grid_cluster(&cl, &k);
                sax_layout_t lay;
                sax_layout_levels(&cl, &lay);
                if (grid_nests(&lay, &k) != (nest != 0))
                    continue;
                double closed, sim;
                long key = (long)r * GRID_POINTS + p;
                if (closed_only) {
                    if (grid_run(&k, &closed, NULL))
                        printf("%d %ld %.17g\n", r, p, closed);
                    continue;
                }
                if (keep != NULL && cache_find(key, &sim)) {
                    if (!grid_run(&k, &closed, NULL))
                        continue;
                } else {
                    if (cached_only || !grid_run(&k, &closed, &sim))
                        continue;
                    if (keep != NULL) {
                        fprintf(keep, "%d %ld %.17g\n", r, p, sim);
                        fflush(keep);
                    }
                }
                cases++;
                double q = closed / sim;
                out += fabs(q - 1.0) > 0.10;
                if (verbose && fabs(q - 1.0) > 0.10) {
                    char d[256];
                    grid_describe(&k, d, sizeof d);
                    printf("  %.4f %s\n", q, d);
                }
                if (q < lo) {
                    lo = q;
                    grid_describe(&k, lo_case, sizeof lo_case);
                }
                if (q > hi) {
                    hi = q;
                    grid_describe(&k, hi_case, sizeof hi_case);
                }
            }
            char name[64];
            snprintf(name, sizeof name, "%s/%s", sax_coll_op_names[runs[r].op],
                     sax_algorithm_names[runs[r].alg]);
            printf("%-26s %-6s %7d %8.4f %8.4f %8d  low: %s; high: %s (%.0f s)\n", name, nest ? "yes" : "no",
                   cases, lo, hi, out, lo_case, hi_case, (double)(clock() - t0) / CLOCKS_PER_SEC);
            fflush(stdout);
        }
    if (keep != NULL)
        fclose(keep);
    free(cache);
    return 0;
}
