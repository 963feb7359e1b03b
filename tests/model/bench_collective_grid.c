/* bench_collective_grid.c - the grid of collective_grid.h (not a test: minutes): every case's
 * closed form against the reference simulator, the worst disagreement per op and algorithm, apart for
 * groups that nest in the units and groups that do not, over the 1-in-5 sample of the grid whose
 * indices sum to a multiple of 5 (every axis varies in it), cases costing the simulator more than 4e8
 * slice-hops left out. Usage: bench_collective_grid [MAX_MEMBERS] (default 512; 4096 takes hours).
 * Figures in docs/cost-model.md section 5. */
#include "collective_grid.h"

#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    int max_n = argc > 1 ? atoi(argv[1]) : 512;
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
            int cases = 0, out = 0;
            double lo = 1.0, hi = 1.0;
            char lo_case[256] = "", hi_case[256] = "";
            clock_t t0 = clock();
            for (long p = 0; p < GRID_POINTS; p++) {
                grid_case_t k;
                int mix;
                if (!grid_point(runs[r].op, runs[r].alg, p, &k, &mix) || k.n > max_n || mix % 5 != 0)
                    continue;
                int ch = k.channels > 0 ? k.channels : 16;
                if (grid_cost(&k, ch) > 4e8)
                    continue;
                sax_cluster_t cl;
                grid_cluster(&cl, &k);
                sax_layout_t lay;
                sax_layout_levels(&cl, &lay);
                if (grid_nests(&lay, &k) != (nest != 0))
                    continue;
                double closed, sim;
                if (!grid_run(&k, &closed, &sim))
                    continue;
                cases++;
                double q = closed / sim;
                out += fabs(q - 1.0) > 0.10;
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
    return 0;
}
