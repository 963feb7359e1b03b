/* cmd_collective.c - `sax collective`: the table nccl-tests would print for one collective of a group of
 * GPUs on the configured cluster, from the closed forms the evaluation uses (and, with --simulate, from
 * the reference simulator beside them). */
#include "cli.h"
#include "cli_print.h"
#include "sax_config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELEM_BYTES 4.0 /* nccl-tests' default data type, float */

/* A size as nccl-tests reads it: a number with an optional K, M or G (powers of 1024), also KiB, MiB,
 * GiB and B. Returns false for anything else. */
static bool parse_size(const char *s, double *out)
{
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || !(v >= 0.0) || !isfinite(v))
        return false;
    while (*end == ' ')
        end++;
    static const struct {
        const char *suffix;
        double scale;
    } units[] = {{"", 1.0},           {"B", 1.0},
                 {"K", 1024.0},       {"KiB", 1024.0},
                 {"KB", 1024.0},      {"M", 1048576.0},
                 {"MiB", 1048576.0},  {"MB", 1048576.0},
                 {"G", 1073741824.0}, {"GiB", 1073741824.0},
                 {"GB", 1073741824.0}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].suffix) == 0) {
            *out = floor(v * units[i].scale);
            return true;
        }
    return false;
}

static bool parse_long(const char *s, long lo, long *out)
{
    errno = 0;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || v < lo)
        return false;
    *out = v;
    return true;
}

/* nccl-tests' buffer of `size` bytes, rounded down to whole elements per rank where the operation
 * splits it over ranks. */
static double rounded_size(sax_coll_op_t op, int n, double size)
{
    double count = floor(size / ELEM_BYTES);
    if (op == SAX_OP_REDUCE_SCATTER || op == SAX_OP_ALL_GATHER || op == SAX_OP_ALL_TO_ALL)
        count = floor(count / n) * n;
    return count * ELEM_BYTES;
}

typedef struct {
    double bytes;
    sax_coll_prediction_t p;
} row_t;

static void print_text(const char *path, sax_coll_op_t op, const char *alg, int n, long stride,
                       bool concurrent, bool simulate, const row_t *rows, int n_rows)
{
    const sax_coll_prediction_t *p0 = &rows[0].p;
    printf("# %s: %s of %d GPUs %ld apart (%d site%s, %d channel%s), %s, %s\n", path, sax_coll_op_names[op],
           n, stride, p0->sites, p0->sites == 1 ? "" : "s", p0->channels, p0->channels == 1 ? "" : "s", alg,
           concurrent ? "with every group of this shape at once" : "alone");
    printf("# %12s %12s %6s %6s %12s %8s %8s %14s", "size", "count", "type", "redop", "time", "algbw",
           "busbw", "cross-site");
    if (simulate)
        printf(" %12s %8s", "simulated", "diff");
    printf("\n# %12s %12s %6s %6s %12s %8s %8s %14s", "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)",
           "(B)");
    if (simulate)
        printf(" %12s %8s", "(us)", "(%)");
    printf("\n");
    bool reduces = op == SAX_OP_ALL_REDUCE || op == SAX_OP_REDUCE_SCATTER;
    double factor = sax_coll_busbw_factor(op, n);
    for (int i = 0; i < n_rows; i++) {
        const row_t *r = &rows[i];
        double algbw = r->p.time_s > 0.0 ? r->bytes / r->p.time_s / 1e9 : 0.0;
        printf("  %12.0f %12.0f %6s %6s %12.2f %8.2f %8.2f %14.0f", r->bytes, r->bytes / ELEM_BYTES, "float",
               reduces ? "sum" : "none", r->p.time_s * 1e6, algbw, algbw * factor, r->p.xsite_bytes);
        if (simulate)
            printf(" %12.2f %+8.2f", r->p.sim_time_s * 1e6,
                   r->p.sim_time_s > 0.0 ? 100.0 * (r->p.time_s / r->p.sim_time_s - 1.0) : 0.0);
        printf("\n");
    }
}

static void print_json(sax_coll_op_t op, const char *alg, int n, long stride, bool concurrent, bool simulate,
                       const row_t *rows, int n_rows)
{
    printf("{\"op\": \"%s\", \"gpus\": %d, \"stride\": %ld, \"algorithm\": \"%s\", \"concurrent\": %s, "
           "\"sites\": %d, \"channels\": %d, \"rows\": [",
           sax_coll_op_names[op], n, stride, alg, concurrent ? "true" : "false", rows[0].p.sites,
           rows[0].p.channels);
    double factor = sax_coll_busbw_factor(op, n);
    for (int i = 0; i < n_rows; i++) {
        const row_t *r = &rows[i];
        double algbw = r->p.time_s > 0.0 ? r->bytes / r->p.time_s : 0.0;
        printf("%s{\"bytes\": ", i > 0 ? ", " : "");
        cli_print_json_number(stdout, r->bytes);
        printf(", \"count\": ");
        cli_print_json_number(stdout, r->bytes / ELEM_BYTES);
        printf(", \"time_s\": ");
        cli_print_json_number(stdout, r->p.time_s);
        printf(", \"algbw_Bps\": ");
        cli_print_json_number(stdout, algbw);
        printf(", \"busbw_Bps\": ");
        cli_print_json_number(stdout, algbw * factor);
        printf(", \"cross_site_bytes\": ");
        cli_print_json_number(stdout, r->p.xsite_bytes);
        if (simulate) {
            printf(", \"simulated_time_s\": ");
            cli_print_json_number(stdout, r->p.sim_time_s);
        }
        printf("}");
    }
    printf("]}\n");
}

static int run(int argc, char **argv)
{
    const sax_command_t *me = &sax_command_collective;
    const char *path = NULL;
    int op = -1, alg = -1;
    long n = 0, stride = 1;
    double lo = 8.0, hi = 8.0 * 1073741824.0, factor = 2.0;
    bool json = false, simulate = false, concurrent = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = strcmp(a, "--op") == 0 || strcmp(a, "--gpus") == 0 || strcmp(a, "--stride") == 0 ||
                     strcmp(a, "--algorithm") == 0 || strcmp(a, "-b") == 0 || strcmp(a, "-e") == 0 ||
                     strcmp(a, "-f") == 0;
        if (takes && v == NULL)
            return sax_cli_usage_error(me, "%s needs a value", a);
        if (strcmp(a, "--json") == 0)
            json = true;
        else if (strcmp(a, "--simulate") == 0)
            simulate = true;
        else if (strcmp(a, "--concurrent") == 0)
            concurrent = true;
        else if (strcmp(a, "--op") == 0) {
            if ((op = sax_name_lookup(sax_coll_op_names, SAX_COLL_OP_COUNT, v)) < 0)
                return sax_cli_usage_error(
                    me,
                    "--op: expected all_reduce, reduce_scatter, all_gather, all_to_all or sendrecv, found \"%s\"",
                    v);
            i++;
        } else if (strcmp(a, "--algorithm") == 0) {
            if ((alg = sax_name_lookup(sax_algorithm_names, SAX_ALGORITHM_COUNT, v)) < 0)
                return sax_cli_usage_error(
                    me, "--algorithm: expected ring, tree or hierarchical, found \"%s\"", v);
            i++;
        } else if (strcmp(a, "--gpus") == 0) {
            if (!parse_long(v, 2, &n) || n > 1 << 24)
                return sax_cli_usage_error(me, "--gpus: expected a whole number from 2, found \"%s\"", v);
            i++;
        } else if (strcmp(a, "--stride") == 0) {
            if (!parse_long(v, 1, &stride) || stride > 1L << 30)
                return sax_cli_usage_error(me, "--stride: expected a whole number from 1, found \"%s\"", v);
            i++;
        } else if (strcmp(a, "-b") == 0 || strcmp(a, "-e") == 0) {
            double *dst = strcmp(a, "-b") == 0 ? &lo : &hi;
            if (!parse_size(v, dst) || *dst > 1e15)
                return sax_cli_usage_error(me, "%s: expected a size such as 8, 64K, 1M or 8G, found \"%s\"",
                                           a, v);
            i++;
        } else if (strcmp(a, "-f") == 0) {
            char *end = NULL;
            factor = strtod(v, &end);
            if (end == v || *end != '\0' || !(factor > 1.0) || !isfinite(factor))
                return sax_cli_usage_error(me, "-f: expected a factor above 1, found \"%s\"", v);
            i++;
        } else if (a[0] == '-' || path != NULL)
            return sax_cli_usage_error(me, "unexpected argument \"%s\"", a);
        else
            path = a;
    }
    if (path == NULL || op < 0 || n == 0)
        return sax_cli_usage_error(me, "expected CONFIG.json, --op and --gpus");
    if (lo > hi)
        return sax_cli_usage_error(me, "-b %.0f is larger than -e %.0f", lo, hi);
    bool p2p = op == SAX_OP_ALL_TO_ALL || op == SAX_OP_SENDRECV;
    if (alg < 0)
        alg = SAX_ALGORITHM_RING;
    else if (p2p)
        return sax_cli_usage_error(
            me, "--algorithm: %s runs as NCCL's point-to-point sends; it takes no algorithm",
            sax_coll_op_names[op]);
    const char *alg_name = p2p ? "direct" : sax_algorithm_names[alg];

    sax_config_t cfg;
    sax_error_t err = {{0}};
    sax_status_t st = sax_config_load(path, &cfg, &err);
    if (st != SAX_OK) {
        fprintf(stderr, "sax collective: %s\n", err.text);
        return sax_status_exit_code(st);
    }
    int cap = (int)ceil(log(hi / fmax(lo, 1.0)) / log(factor)) + 2;
    if (cap > 4096)
        cap = 4096;
    row_t *rows = calloc((size_t)cap, sizeof *rows);
    if (rows == NULL) {
        sax_config_fini(&cfg);
        fprintf(stderr, "sax collective: out of memory\n");
        return 1;
    }
    int n_rows = 0, rc = 0;
    for (double size = lo; size <= hi && n_rows < cap; size = fmax(size + 1.0, floor(size * factor))) {
        row_t *r = &rows[n_rows];
        r->bytes = rounded_size((sax_coll_op_t)op, (int)n, size);
        st = sax_collective_predict(&cfg.problem.cluster, &cfg.candidate, (sax_coll_op_t)op,
                                    (sax_algorithm_t)alg, (int)n, stride, concurrent, r->bytes, simulate,
                                    &r->p, &err);
        if (st != SAX_OK) {
            fprintf(stderr, "sax collective: %s: %s\n", path, err.text);
            rc = sax_status_exit_code(st);
            break;
        }
        n_rows++;
    }
    if (rc == 0 && n_rows > 0) {
        if (json)
            print_json((sax_coll_op_t)op, alg_name, (int)n, stride, concurrent, simulate, rows, n_rows);
        else
            print_text(path, (sax_coll_op_t)op, alg_name, (int)n, stride, concurrent, simulate, rows, n_rows);
    }
    free(rows);
    sax_config_fini(&cfg);
    return rc;
}

const sax_command_t sax_command_collective = {
    .name = "collective",
    .synopsis = "CONFIG.json --op OP --gpus N [--stride S] [--algorithm A] [-b MIN] [-e MAX] [-f FACTOR]\n"
                "       [--concurrent] [--simulate] [--json]",
    .summary = "predict the table nccl-tests would print for one collective on the cluster",
    .help =
        "Predicts what nccl-tests (all_reduce_perf, reduce_scatter_perf, all_gather_perf, alltoall_perf,\n"
        "sendrecv_perf) would print for one group of GPUs on CONFIG.json's cluster: one row per message\n"
        "size with the size and element count (float), the time, nccl-tests' algbw and busbw, and the\n"
        "bytes that cross site links. The group is N members S GPUs apart in the cluster's GPU order\n"
        "(scale-up domains first, then tiers, then sites, as the configuration lists them): on two sites\n"
        "of 1024 GPUs, --gpus 256 --stride 8 puts 128 members in each site, as a DP group beside TP=8\n"
        "sits. The network knobs (channels, buffer_size, p2p_chunk_size, p2p_channels, transport,\n"
        "qps_per_connection, compression) are the file's `network` section's, NCCL's defaults where it\n"
        "is silent. The times come from the closed forms every evaluation uses (docs/cost-model.md).\n"
        "Runs without mpirun.\n\n"
        "options:\n"
        "  --op OP          all_reduce, reduce_scatter, all_gather, all_to_all or sendrecv\n"
        "  --gpus N         members of the group (2 or more)\n"
        "  --stride S       GPUs between consecutive members (default 1)\n"
        "  --algorithm A    ring (default), tree (all_reduce only: NCCL's double binary tree) or\n"
        "                   hierarchical (reduce inside each level, then across); all_to_all and\n"
        "                   sendrecv take none (point-to-point sends; shown as \"direct\")\n"
        "  -b MIN, -e MAX   smallest and largest size, as in nccl-tests: bytes with an optional K, M or\n"
        "                   G (powers of 1024); defaults 8 and 8G. Sizes are rounded down to whole\n"
        "                   floats per rank, as nccl-tests does\n"
        "  -f FACTOR        multiply the size by FACTOR from row to row (default 2)\n"
        "  --concurrent     every group of this shape in the cluster communicates at once (the\n"
        "                   groups of one dimension in training); default: the group alone, as\n"
        "                   nccl-tests runs it\n"
        "  --simulate       also run the reference chunk-level simulator and print its time and the\n"
        "                   closed form's difference from it (slow for thousands of members and GiBs)\n"
        "  --json           print {\"op\", \"gpus\", \"stride\", \"algorithm\", \"rows\": [{\"bytes\",\n"
        "                   \"time_s\", \"algbw_Bps\", \"busbw_Bps\", \"cross_site_bytes\"}]} (plus count,\n"
        "                   concurrent, sites, channels and simulated_time_s)\n\n"
        "example (docs/collectives.md):\n"
        "  sax collective jobs/examples/regions-2-llama405b.json --op all_reduce --gpus 256 --stride 8 -b 1M -e 1G -f 4\n\n"
        "exit status: 0 printed; 2 bad usage, bad configuration, or a group the cluster cannot hold\n",
    .needs_mpi = false,
    .implemented = true,
    .run = run,
};
