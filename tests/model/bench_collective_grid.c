/* bench_collective_grid.c - the whole grid of collective_grid.h (not a test: minutes): every case's
 * closed form against the reference simulator, the worst disagreement per op and algorithm, apart for
 * groups that nest in the units and groups that do not. Usage: bench_collective_grid [MAX_MEMBERS]
 * (default 512; 4096 takes hours). Figures in docs/cost-model.md section 5. */
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
            for (int si = 1; si <= 4; si++)
                for (int ni = 0; ni < GRID_COUNT(grid_n); ni++)
                    for (int st = 0; st < GRID_COUNT(grid_stride); st++)
                        for (int bi = 0; bi < GRID_COUNT(grid_bytes); bi++)
                            for (int li = 0; li < GRID_COUNT(grid_latency); li++)
                                for (int wi = 0; wi < GRID_COUNT(grid_bw); wi++)
                                    for (int ci = 0; ci < GRID_COUNT(grid_channels); ci++)
                                        for (int tiers = 1; tiers <= 2; tiers++)
                                            for (int conc = 0; conc <= 1; conc++) {
                                                grid_case_t k = {.op = runs[r].op,
                                                                 .alg = runs[r].alg,
                                                                 .n = grid_n[ni],
                                                                 .stride = grid_stride[st],
                                                                 .sites = si,
                                                                 .tiers = tiers,
                                                                 .channels = grid_channels[ci],
                                                                 .bytes = grid_bytes[bi],
                                                                 .site_latency_s = grid_latency[li],
                                                                 .link_Bps = grid_bw[wi],
                                                                 .concurrent = conc != 0};
                                                if (k.n > max_n || k.n < si || (si == 1 && li > 0) ||
                                                    (bi + li + wi + ci + tiers + conc + st + ni) % 5 != 0)
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
