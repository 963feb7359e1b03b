/* cmd_space.c - `sax space`: the size of the design space per dimension, how many candidates pass the
 * cheap checks, and an estimate of the sweep's time from a short measured sample of evaluations.
 * Runs as a plain process (no MPI). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "cli.h"
#include "cli_print.h"
#include "sax_config.h"
#include "sax_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *config;
    bool json;
    int ranks;
    double sample_s;
} space_args_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Measures the model as a sweep meets it: windows of consecutive valid candidates, spread evenly
 * over the space, each candidate evaluated once, until about `budget_s` has passed. */
static double seconds_per_eval(const sax_search_t *s, double budget_s, int64_t *measured)
{
    *measured = 0;
    void *scratch = malloc(sax_scratch_size() + 1);
    if (scratch == NULL)
        return 0.0;
    sax_scratch_init(scratch); /* empties the pipeline memo: its keys are read before written */
    enum { WINDOWS = 256, WINDOW = 256 };
    int64_t total = sax_search_size(s);
    double t0 = now_s(), t = 0.0;
    for (int w = 0; w < WINDOWS && t < budget_s; w++) {
        sax_search_cursor_t cur;
        sax_search_seek(s, (int64_t)((double)w / WINDOWS * (double)total), &cur);
        for (int n = 0; n < WINDOW;) {
            if (cur.skip == SAX_SKIP_NONE) {
                sax_result_t r;
                sax_model_eval(sax_search_problem(s, cur.scenario), &cur.candidate, scratch, &r);
                n++;
                (*measured)++;
            }
            int64_t next = sax_search_skip_end(s, &cur);
            if (next >= total)
                break;
            sax_search_move(s, &cur, next);
        }
        t = now_s() - t0;
    }
    free(scratch);
    return *measured > 0 ? t / (double)*measured : 0.0;
}

static int parse_args(int argc, char **argv, space_args_t *a)
{
    memset(a, 0, sizeof *a);
    a->ranks = 1;
    a->sample_s = 0.5;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (strcmp(arg, "--json") == 0) {
            a->json = true;
        } else if (strcmp(arg, "--ranks") == 0) {
            long r = val != NULL ? strtol(val, &end, 10) : 0;
            if (val == NULL || *end != '\0' || r < 1 || r > 1000000)
                return sax_cli_usage_error(&sax_command_space, "--ranks: expected a count >= 1, found %s",
                                           val != NULL ? val : "nothing");
            a->ranks = (int)r;
            i++;
        } else if (strcmp(arg, "--sample") == 0) {
            double t = val != NULL ? strtod(val, &end) : -1;
            if (val == NULL || *end != '\0' || !(t >= 0.0 && t <= 60.0))
                return sax_cli_usage_error(&sax_command_space,
                                           "--sample: expected seconds from 0 to 60, found %s",
                                           val != NULL ? val : "nothing");
            a->sample_s = t;
            i++;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return sax_cli_usage_error(&sax_command_space, "unknown option '%s'", arg);
        } else if (a->config == NULL) {
            a->config = arg;
        } else {
            return sax_cli_usage_error(&sax_command_space, "unexpected argument '%s'", arg);
        }
    }
    if (a->config == NULL)
        return sax_cli_usage_error(&sax_command_space, "expected a configuration file");
    return 0;
}

static int run(int argc, char **argv)
{
    space_args_t a;
    int usage = parse_args(argc, argv, &a);
    if (usage != 0)
        return usage;
    sax_config_t cfg;
    sax_error_t err = {{0}};
    sax_search_t *s = NULL;
    sax_status_t st = sax_config_load(a.config, &cfg, &err);
    if (st != SAX_OK) {
        fprintf(stderr, "sax space: %s\n", err.text);
        return sax_status_exit_code(st);
    }
    if (!cfg.has_space) {
        fprintf(stderr,
                "sax space: %s: expected a \"space\" section listing the values to explore, found none\n",
                a.config);
        sax_config_fini(&cfg);
        return 2;
    }
    st = sax_search_create(&cfg.space, cfg.has_candidate ? &cfg.candidate : NULL, cfg.scenarios,
                           cfg.n_scenarios, &s, &err);
    if (st != SAX_OK) {
        fprintf(stderr, "sax space: %s: %s\n", a.config, err.text);
        sax_config_fini(&cfg);
        return sax_status_exit_code(st);
    }
    const sax_space_desc_t *d = sax_search_desc(s);
    int64_t skipped[SAX_SKIP_COUNT];
    int64_t valid =
        sax_search_count_valid(s, -1, SAX_SEARCH_COUNT_MAX_CLASSES, skipped); /* -1: not counted */
    int64_t measured = 0;
    double per_eval = a.sample_s > 0 ? seconds_per_eval(s, a.sample_s, &measured) : 0.0;
    double estimate = per_eval * (double)(valid >= 0 ? valid : sax_search_size(s)) / a.ranks;
    int64_t total = sax_search_size(s);
    char buf[128];

    if (a.json) {
        printf("{\"dimensions\": {\"scenarios\": %d", cfg.n_scenarios);
        for (int pos = 0; pos < SAX_KEY_COUNT; pos++) {
            sax_key_t k = sax_search_radix_order[pos];
            printf(", \"%s\": %d", sax_key_names[k], sax_search_value_count(s, k));
        }
        printf("}, \"candidates\": %lld, ", (long long)total);
        if (valid < 0) {
            printf("\"valid\": null, \"skipped\": null");
        } else {
            printf("\"valid\": %lld, \"skipped\": {", (long long)valid);
            for (int i = 1; i < SAX_SKIP_COUNT; i++)
                printf("%s\"%s\": %lld", i > 1 ? ", " : "", sax_skip_names[i], (long long)skipped[i]);
            printf("}");
        }
        printf(", \"measured_evaluations\": %lld, \"seconds_per_evaluation\": %.6g, \"ranks\": %d, "
               "\"estimated_sweep_s\": %.6g}\n",
               (long long)measured, per_eval, a.ranks, estimate);
    } else {
        printf("%s: %lld candidates\n\n", a.config, (long long)total);
        printf("  %-18s %6s  %s\n", "dimension", "values", "");
        printf("  %-18s %6d  ", "scenarios", cfg.n_scenarios);
        for (int v = 0; v < d->n_scenario_vars; v++)
            printf("%s%s (%d)", v ? " x " : "", d->scenario_vars[v].path, d->scenario_vars[v].n);
        printf("\n");
        for (int pos = 0; pos < SAX_KEY_COUNT; pos++) {
            sax_key_t k = sax_search_radix_order[pos];
            int n = sax_search_value_count(s, k);
            printf("  %-18s %6d  ", sax_key_names[k], n);
            for (int j = 0; j < n; j++) {
                sax_key_value_name(d, k, sax_search_value(s, k, j), buf, sizeof buf);
                printf("%s%s", j ? ", " : "", buf);
            }
            printf("\n");
        }
        printf("\n  total              %lld candidates (%d scenarios x %lld)\n", (long long)total,
               cfg.n_scenarios, (long long)sax_search_scenario_size(s));
        if (valid < 0)
            printf("  pass cheap checks  not counted: the checked keys (tp to layer_split) combine into more "
                   "than %d cases the checks tell apart; the sweep checks each candidate as it goes, and "
                   "the estimate below counts every candidate\n",
                   SAX_SEARCH_COUNT_MAX_CLASSES);
        else
            printf("  pass cheap checks  %lld (%.1f %%)\n", (long long)valid,
                   total > 0 ? 100.0 * (double)valid / (double)total : 0.0);
        for (int i = 1; i < SAX_SKIP_COUNT && valid >= 0; i++)
            if (skipped[i] > 0)
                printf("    skipped %-12s %lld  (%s)\n", sax_skip_names[i], (long long)skipped[i],
                       sax_skip_messages[i]);
        if (measured > 0) {
            printf("\n  measured           %lld evaluations, %.3g s each (%.3g per s on one core)\n",
                   (long long)measured, per_eval, 1.0 / per_eval);
            printf("  estimated sweep    %.3g s on %d rank%s (exhaustive; --ranks N to change)\n", estimate,
                   a.ranks, a.ranks == 1 ? "" : "s");
        }
    }
    sax_search_destroy(&s);
    sax_config_fini(&cfg);
    return 0;
}

const sax_command_t sax_command_space = {
    .name = "space",
    .synopsis = "CONFIG.json [--json] [--ranks N] [--sample SECONDS]",
    .summary = "size of the design space and an estimate of the sweep time",
    .help = "Prints each dimension of CONFIG.json's \"space\" section with its values (the scenarios first,\n"
            "then the keys in the order of the candidate index, outermost first), the total number of\n"
            "candidates, how many pass the cheap validity checks (and why the others are skipped), and an\n"
            "estimate of `sax sweep`'s time from evaluating valid candidates spread over the space for a\n"
            "short while.\n"
            "\n"
            "options:\n"
            "  --json            one JSON object instead of the table\n"
            "  --ranks N         estimate for N ranks (default 1; assumes linear scaling)\n"
            "  --sample SECONDS  how long to measure the model (default 0.5; 0 skips the estimate)\n"
            "\n"
            "example:\n"
            "  sax space jobs/examples/campus-3bldg-llama405b.json\n",
    .needs_mpi = false,
    .implemented = true,
    .run = run,
};
