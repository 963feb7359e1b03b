/* cmd_sweep.c - `sax sweep`: explores the space section across MPI ranks (comm/), writes the
 * results as parallel HDF5 (io/results/), prints the best configuration per scenario against the baselines.
 * This is the glue between comm/ and io/, which do not know each other. */
#define _POSIX_C_SOURCE 200809L /* sigaction, isatty, fileno */
#include "cli.h"
#include "cli_output.h"
#include "cli_print.h"
#include "sax_comm.h"
#include "sax_config.h"
#include "sax_results.h"
#include "sax_version.h"
#include "sweep_answer.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Set by the SIGTERM/SIGINT handler: the one piece of global state, because a signal handler can
 * reach nothing else. comm/ only reads it through sax_sweep_opts_t.stop. */
static volatile sig_atomic_t stop_flag = 0;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

typedef struct {
    const char *config, *out;
    bool json, resume, pruned, force, oblivious;
    int top_k;
    int64_t chunk;
    sax_store_t store;
    double progress_s;   /* 0: automatic */
    double checkpoint_s; /* periodic checkpoint interval; 0: only on a signal */
} sweep_args_t;

#define DEFAULT_CHECKPOINT_S 300.0

static int parse_args(int argc, char **argv, sweep_args_t *a)
{
    memset(a, 0, sizeof *a);
    a->top_k = SAX_REDUCE_DEFAULT_TOP;
    a->store = SAX_STORE_NONE;
    a->checkpoint_s = DEFAULT_CHECKPOINT_S;
    a->oblivious = true;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
            if (val == NULL)
                return sax_cli_usage_error(&sax_command_sweep, "%s: expected a file name", arg);
            a->out = argv[++i];
        } else if (strcmp(arg, "--json") == 0) {
            a->json = true;
        } else if (strcmp(arg, "--resume") == 0) {
            a->resume = true;
        } else if (strcmp(arg, "--force") == 0) {
            a->force = true;
        } else if (strcmp(arg, "--no-oblivious") == 0) {
            a->oblivious = false;
        } else if (strcmp(arg, "--search") == 0) {
            if (val != NULL && strcmp(val, "exhaustive") == 0)
                a->pruned = false;
            else if (val != NULL && strcmp(val, "pruned") == 0)
                a->pruned = true;
            else
                return sax_cli_usage_error(&sax_command_sweep,
                                           "--search: expected exhaustive or pruned, found %s",
                                           val != NULL ? val : "nothing");
            i++;
        } else if (strcmp(arg, "--top") == 0) {
            long k = val != NULL ? strtol(val, &end, 10) : 0;
            if (val == NULL || *end != '\0' || k < 1 || k > 100000)
                return sax_cli_usage_error(&sax_command_sweep,
                                           "--top: expected a count from 1 to 100000, found %s",
                                           val != NULL ? val : "nothing");
            a->top_k = (int)k;
            i++;
        } else if (strcmp(arg, "--chunk") == 0) {
            long long c = val != NULL ? strtoll(val, &end, 10) : 0;
            if (val == NULL || *end != '\0' || c < 0)
                return sax_cli_usage_error(
                    &sax_command_sweep, "--chunk: expected a number of candidates (0 = adaptive), found %s",
                    val != NULL ? val : "nothing");
            a->chunk = c;
            i++;
        } else if (strcmp(arg, "--store") == 0) {
            int s = sax_name_lookup(sax_store_names, SAX_STORE_COUNT, val);
            if (s < 0)
                return sax_cli_usage_error(&sax_command_sweep,
                                           "--store: expected none, feasible or all, found %s",
                                           val != NULL ? val : "nothing");
            a->store = (sax_store_t)s;
            i++;
        } else if (strcmp(arg, "--progress") == 0) {
            double p = val != NULL ? strtod(val, &end) : -1;
            if (val == NULL || *end != '\0' || !(p >= 0))
                return sax_cli_usage_error(&sax_command_sweep, "--progress: expected seconds >= 0, found %s",
                                           val != NULL ? val : "nothing");
            a->progress_s = p;
            i++;
        } else if (strcmp(arg, "--checkpoint-every") == 0) {
            double c = val != NULL ? strtod(val, &end) : -1;
            if (val == NULL || *end != '\0' || !(c >= 0 && c < 1e9))
                return sax_cli_usage_error(
                    &sax_command_sweep,
                    "--checkpoint-every: expected seconds from 0 (only on a signal) to "
                    "less than 1e9 (31 years), found %s",
                    val != NULL ? val : "nothing");
            a->checkpoint_s = c;
            i++;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return sax_cli_usage_error(&sax_command_sweep, "unknown option '%s'", arg);
        } else if (a->config == NULL) {
            a->config = arg;
        } else {
            return sax_cli_usage_error(&sax_command_sweep, "unexpected argument '%s'", arg);
        }
    }
    if (a->config == NULL)
        return sax_cli_usage_error(&sax_command_sweep, "expected a configuration file");
    if (a->out == NULL)
        return sax_cli_usage_error(&sax_command_sweep, "expected -o RESULTS.h5");
    if (a->resume && a->store != SAX_STORE_NONE)
        return sax_cli_usage_error(
            &sax_command_sweep,
            "--resume with --store %s: the rows of the interrupted part are not kept in "
            "the checkpoint; rerun without --resume to store rows",
            sax_store_names[a->store]);
    return 0;
}

/* CPU seconds this process has used (all its threads). */
static double cpu_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- progress on rank 0 --------------------------------------------------------------------- */

typedef struct {
    bool tty;
} progress_t;

static void fmt_duration(char *buf, size_t n, double s)
{
    if (!(s < 1e9))
        snprintf(buf, n, "?");
    else if (s < 60)
        snprintf(buf, n, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

static void on_progress(void *ctx, int64_t done, int64_t total, int64_t done_now, double elapsed_s,
                        bool final)
{
    const progress_t *p = ctx;
    double frac = total > 0 ? (double)done / (double)total : 1.0;
    double rate = elapsed_s > 0 ? (double)done_now / elapsed_s : 0.0;
    char eta[32];
    fmt_duration(eta, sizeof eta, rate > 0 ? (double)(total - done) / rate : INFINITY);
    if (p->tty) {
        enum { WIDTH = 30 };
        char bar[WIDTH + 1];
        int full = (int)(frac * WIDTH);
        for (int i = 0; i < WIDTH; i++)
            bar[i] = i < full ? '#' : '.';
        bar[WIDTH] = '\0';
        fprintf(stderr, "\r[%s] %5.1f%% %lld/%lld  %.3g cand/s  ETA %s   ", bar, 100.0 * frac,
                (long long)done, (long long)total, rate, eta);
        if (final)
            fputc('\n', stderr);
    } else {
        fprintf(stderr, "sax sweep: %lld/%lld candidates (%.1f%%), %.3g per s, ETA %s%s\n", (long long)done,
                (long long)total, 100.0 * frac, rate, eta,
                !final          ? ""
                : done == total ? " (done)"
                                : " (stopped)");
    }
    fflush(stderr);
}

/* ---- periodic checkpoints (rank 0) ---------------------------------------------------------- */

typedef struct {
    const char *path;
    uint64_t hash;
    double t0, elapsed_before; /* MPI_Wtime() when this run started; work time of earlier runs */
    int64_t total;             /* candidates of the space */
    bool log;                  /* say so on stderr (not on a terminal, where the bar is) */
} checkpointer_t;

static void on_checkpoint(void *ctx, const sax_ranges_t *done, const sax_reduce_t *acc)
{
    const checkpointer_t *c = ctx;
    sax_error_t err = {{0}};
    if (sax_checkpoint_save(c->path, c->hash, MPI_Wtime() - c->t0 + c->elapsed_before, done, acc, &err) ==
        SAX_OK) {
        if (c->log)
            fprintf(stderr, "sax sweep: checkpoint: %lld of %lld candidates saved in %s\n",
                    (long long)sax_ranges_total(done), (long long)c->total, c->path);
    } else {
        fprintf(stderr,
                "sax sweep: warning: the periodic checkpoint was not saved (the sweep goes on; an "
                "earlier checkpoint, if any, is kept): %s\n",
                err.text);
    }
}

/* ---- rows kept for --store ------------------------------------------------------------------ */

typedef struct {
    sax_store_t store;
    sax_record_t *rows;
    int64_t n, cap;
    int64_t *runs; /* length of each run (one per chunk) */
    int64_t n_runs, cap_runs;
    bool failed;
} rows_t;

static void rows_chunk(void *ctx, int64_t lo, int64_t hi)
{
    (void)lo;
    (void)hi;
    rows_t *r = ctx;
    if (r->failed)
        return;
    if (r->n_runs == r->cap_runs) {
        int64_t cap = r->cap_runs ? 2 * r->cap_runs : 64;
        int64_t *grown = realloc(r->runs, (size_t)cap * sizeof *grown);
        if (grown == NULL) {
            r->failed = true;
            return;
        }
        r->runs = grown;
        r->cap_runs = cap;
    }
    r->runs[r->n_runs++] = 0;
}

static void rows_add(void *ctx, const sax_record_t *rec)
{
    rows_t *r = ctx;
    if (r->failed || (r->store == SAX_STORE_FEASIBLE && !rec->result.feasible))
        return;
    if (r->n == r->cap) {
        int64_t cap = r->cap ? 2 * r->cap : 1024;
        sax_record_t *grown = realloc(r->rows, (size_t)cap * sizeof *grown);
        if (grown == NULL) {
            r->failed = true;
            return;
        }
        r->rows = grown;
        r->cap = cap;
    }
    r->rows[r->n++] = *rec;
    r->runs[r->n_runs - 1]++;
}

static int record_by_index(const void *a, const void *b)
{
    int64_t x = ((const sax_record_t *)a)->index, y = ((const sax_record_t *)b)->index;
    return (x > y) - (x < y);
}

/* The pruned search visits a chunk best-first: the writer wants each run in index order. */
static void rows_sort_runs(rows_t *r)
{
    int64_t at = 0;
    for (int64_t i = 0; i < r->n_runs; i++) {
        qsort(r->rows + at, (size_t)r->runs[i], sizeof *r->rows, record_by_index);
        at += r->runs[i];
    }
}

/* ---- results -------------------------------------------------------------------------------- */

/* The reductions as the writer wants them: flat arrays, scenario-major. */
typedef struct {
    sax_record_t *best, *top, *pareto, *bpv, *baseline;
    int32_t *bpv_key, *bpv_value;
    int64_t n_top, n_pareto, n_bpv;
} flat_t;

static void flat_free(flat_t *f)
{
    free(f->best);
    free(f->top);
    free(f->pareto);
    free(f->bpv);
    free(f->baseline);
    free(f->bpv_key);
    free(f->bpv_value);
    memset(f, 0, sizeof *f);
}

static bool flatten(const sax_search_t *s, const sax_reduce_t *r, flat_t *f)
{
    memset(f, 0, sizeof *f);
    int ns = sax_search_scenario_count(s), nb = sax_search_desc(s)->n_baselines;
    int64_t per_bpv = 0;
    for (int k = 0; k < SAX_KEY_COUNT; k++)
        per_bpv += sax_search_value_count(s, (sax_key_t)k);
    for (int sc = 0; sc < ns; sc++) {
        const sax_record_t *recs;
        f->n_top += sax_reduce_top(r, sc, &recs);
        f->n_pareto += sax_reduce_pareto(r, sc, &recs);
    }
    f->n_bpv = per_bpv * ns;
    f->best = malloc((size_t)ns * sizeof *f->best);
    f->top = malloc((size_t)(f->n_top + 1) * sizeof *f->top);
    f->pareto = malloc((size_t)(f->n_pareto + 1) * sizeof *f->pareto);
    f->bpv = malloc((size_t)(f->n_bpv + 1) * sizeof *f->bpv);
    f->bpv_key = malloc((size_t)(f->n_bpv + 1) * sizeof *f->bpv_key);
    f->bpv_value = malloc((size_t)(f->n_bpv + 1) * sizeof *f->bpv_value);
    f->baseline = malloc((size_t)(ns * nb + 1) * sizeof *f->baseline);
    if (!f->best || !f->top || !f->pareto || !f->bpv || !f->bpv_key || !f->bpv_value || !f->baseline) {
        flat_free(f);
        return false;
    }
    int64_t t = 0, p = 0, v = 0;
    for (int sc = 0; sc < ns; sc++) {
        f->best[sc] = *sax_reduce_best(r, sc);
        const sax_record_t *recs;
        int64_t n = sax_reduce_top(r, sc, &recs);
        memcpy(&f->top[t], recs, (size_t)n * sizeof *recs);
        t += n;
        n = sax_reduce_pareto(r, sc, &recs);
        if (n > 0)
            memcpy(&f->pareto[p], recs, (size_t)n * sizeof *recs);
        p += n;
        for (int k = 0; k < SAX_KEY_COUNT; k++)
            for (int j = 0; j < sax_search_value_count(s, (sax_key_t)k); j++) {
                f->bpv[v] = *sax_reduce_best_per_value(r, sc, (sax_key_t)k, j);
                if (f->bpv[v].index < 0)
                    f->bpv[v].scenario = sc;
                f->bpv_key[v] = k;
                f->bpv_value[v] = sax_search_value(s, (sax_key_t)k, j);
                v++;
            }
        for (int b = 0; b < nb; b++) {
            f->baseline[sc * nb + b] = *sax_reduce_baseline_best(r, sc, b);
            if (f->baseline[sc * nb + b].index < 0)
                f->baseline[sc * nb + b].scenario = sc;
        }
        if (f->best[sc].index < 0)
            f->best[sc].scenario = sc;
    }
    return true;
}

/* The answer as the writer wants it (/answer): plain records, no search/ or comm/ types. */
typedef struct {
    sax_results_answer_t a;
    sax_results_ties_t *ties;
    sax_results_lossless_t *lossless;
    sax_results_oblivious_t *oblivious;
    sax_results_attribution_t *attribution;
} stored_answer_t;

static void stored_answer_free(stored_answer_t *o)
{
    free(o->ties);
    free(o->lossless);
    free(o->oblivious);
    free(o->attribution);
    memset(o, 0, sizeof *o);
}

_Static_assert(SAX_GROUP_COUNT == SAX_RESULTS_FACTOR_COUNT, "attribution groups are the file's factors");
_Static_assert(SAX_ROBUST_NEAR_KEEP <= SAX_RESULTS_NEAR_MAX, "the file keeps every near candidate");

/* Rank 0: `ans` (of reductions `r`) converted for the results file. */
static bool store_answer(const sax_search_t *s, const sax_reduce_t *r, const sweep_answer_t *ans,
                         stored_answer_t *o)
{
    memset(o, 0, sizeof *o);
    int ns = ans->n_scenarios, nb = ans->n_baselines;
    o->ties = calloc((size_t)ns + 1, sizeof *o->ties);
    o->lossless = calloc((size_t)ns + 1, sizeof *o->lossless);
    o->oblivious = ans->have_oblivious ? calloc((size_t)ns + 1, sizeof *o->oblivious) : NULL;
    o->attribution = calloc((size_t)ns * (size_t)nb + 1, sizeof *o->attribution);
    if (!o->ties || !o->lossless || (ans->have_oblivious && !o->oblivious) || !o->attribution) {
        stored_answer_free(o);
        return false;
    }
    for (int sc = 0; sc < ns; sc++) {
        const sax_record_t *best = sax_reduce_best(r, sc), *top;
        int64_t n_top = sax_reduce_top(r, sc, &top);
        const sax_ties_t *t = &ans->ties[sc];
        sax_results_ties_t *ot = &o->ties[sc];
        ot->count = t->count;
        ot->at_least = t->at_least;
        ot->differ = t->differ;
        ot->simplest = (sax_record_t){.index = -1, .scenario = sc};
        if (t->count > 0 && t->simplest >= 0 && t->simplest < n_top)
            ot->simplest = top[t->simplest];
        const sweep_lossless_t *l = &ans->lossless[sc];
        o->lossless[sc].lossy = best->index >= 0 && l->lossy;
        o->lossless[sc].noop = l->noop;
        o->lossless[sc].lossless = (sax_record_t){.index = -1, .scenario = sc};
        if (best->index >= 0 && l->lossless != NULL && l->lossless->index >= 0)
            o->lossless[sc].lossless = *l->lossless;
        if (ans->have_oblivious) {
            const sweep_oblivious_t *ob = &ans->oblivious[sc];
            sax_results_oblivious_t *oo = &o->oblivious[sc];
            oo->found = ob->found && best->index >= 0;
            oo->merged_time_s = ob->merged_s;
            oo->real = ob->real;
            snprintf(oo->invalid, sizeof oo->invalid, "%s",
                     ob->skip != SAX_SKIP_NONE ? sax_skip_names[ob->skip] : "");
        }
        for (int b = 0; b < nb; b++) {
            const sax_attribution_t *at = &ans->attribution[sc * nb + b];
            sax_results_attribution_t *oa = &o->attribution[sc * nb + b];
            oa->valid = at->valid;
            oa->orders = at->orders;
            memcpy(oa->factor, at->factor, sizeof oa->factor);
        }
    }
    const sax_robust_t *rb = &ans->robust;
    o->a = (sax_results_answer_t){
        .ties = o->ties,
        .lossless = o->lossless,
        .oblivious = o->oblivious,
        .attribution = o->attribution,
        .robust = {.found = rb->found,
                   .exact = rb->exact,
                   .worst_regret = rb->worst_regret,
                   .bound = rb->bound,
                   .candidates = rb->candidates,
                   .pick = rb->pick,
                   .regret = ans->regret,
                   .n_near = rb->n_near,
                   .n_near_kept = rb->n_near_kept,
                   .near = rb->near,
                   .near_worst = rb->near_worst},
    };
    (void)s;
    return true;
}

/* "host1,host2" of the ranks, without repeats (collective). */
static char *host_list(MPI_Comm comm)
{
    int size = 1, len = 0;
    MPI_Comm_size(comm, &size);
    char mine[MPI_MAX_PROCESSOR_NAME];
    memset(mine, 0, sizeof mine);
    MPI_Get_processor_name(mine, &len);
    char *all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    char *out = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME + 1);
    if (all == NULL || out == NULL) {
        free(all);
        free(out);
        return NULL;
    }
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
    for (int i = 0; i < size; i++) {
        const char *h = all + (size_t)i * MPI_MAX_PROCESSOR_NAME;
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = strncmp(h, all + (size_t)j * MPI_MAX_PROCESSOR_NAME, MPI_MAX_PROCESSOR_NAME) == 0;
        if (!seen) {
            if (out[0] != '\0')
                strcat(out, ",");
            strncat(out, h, MPI_MAX_PROCESSOR_NAME - 1);
        }
    }
    free(all);
    return out;
}

static char *join_args(int argc, char **argv)
{
    size_t n = 4;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *s = malloc(n);
    if (s == NULL)
        return NULL;
    strcpy(s, "sax");
    for (int i = 0; i < argc; i++) {
        strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

/* ---- the report ----------------------------------------------------------------------------- */

static void print_scenario_values(FILE *f, const sax_config_t *cfg, int sc, bool json)
{
    const sax_space_desc_t *sp = &cfg->space;
    for (int v = 0; v < sp->n_scenario_vars; v++) {
        double x = cfg->scenario_values[(size_t)sc * (size_t)sp->n_scenario_vars + (size_t)v];
        if (json) {
            fprintf(f, "%s\"%s\": ", v ? ", " : "", sp->scenario_vars[v].path);
            cli_print_json_number(f, x);
        } else {
            char buf[64];
            fprintf(f, "%s%s = %s", v ? ", " : "", sp->scenario_vars[v].path,
                    sax_results_scenario_value_str(&sp->scenario_vars[v], x, buf, sizeof buf));
        }
    }
}

/* The model's breakdown of a result, indented under its scenario. */
static void print_indented(FILE *f, const sax_problem_t *p, const sax_result_t *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem == NULL) {
        cli_print_result_text(f, p, r);
        return;
    }
    cli_print_result_text(mem, p, r);
    fclose(mem);
    for (char *line = text; line != NULL && *line != '\0';) {
        char *end = strchr(line, '\n');
        if (end != NULL)
            *end = '\0';
        fprintf(f, "    %s\n", line);
        line = end != NULL ? end + 1 : NULL;
    }
    free(text);
}

static void print_text(FILE *f, const sax_config_t *cfg, const sax_search_t *s, const sax_reduce_t *r,
                       const sax_counts_t *c, double elapsed_s, int ranks, bool pruned,
                       const sweep_answer_t *ans)
{
    const sax_space_desc_t *sp = sax_search_desc(s);
    fprintf(f, "\nsax sweep: %lld candidates in %.2f s on %d rank%s (%s search)\n",
            (long long)sax_search_size(s), elapsed_s, ranks, ranks == 1 ? "" : "s",
            pruned ? "pruned" : "exhaustive");
    fprintf(f, "  evaluated %lld (%.3g per s), feasible %lld, skipped by cheap checks %lld",
            (long long)c->evaluated, elapsed_s > 0 ? (double)c->evaluated / elapsed_s : 0.0,
            (long long)c->infeasible[SAX_FEASIBLE], (long long)sax_counts_skipped(c));
    if (pruned)
        fprintf(f, ", pruned by bound %lld (+%lld bound evaluations)", (long long)c->pruned,
                (long long)c->bound_evals);
    fprintf(f, "\n");
    const char *sep = "  infeasible:";
    for (int i = 1; i < SAX_INFEASIBLE_COUNT; i++)
        if (c->infeasible[i] > 0) {
            fprintf(f, "%s %s %lld", sep, sax_infeasible_names[i], (long long)c->infeasible[i]);
            sep = ",";
        }
    if (sep[0] == ',')
        fprintf(f, "\n");
    for (int sc = 0; sc < sax_search_scenario_count(s); sc++) {
        fprintf(f, "\nscenario %d", sc);
        if (sp->n_scenario_vars > 0) {
            fprintf(f, ": ");
            print_scenario_values(f, cfg, sc, false);
        }
        fprintf(f, "\n");
        const sax_record_t *best = sax_reduce_best(r, sc);
        if (best->index < 0) {
            sweep_answer_print_why_none_text(f, ans, sc, -1);
            continue;
        }
        fprintf(f, "  best (candidate %lld): ", (long long)best->index);
        cli_print_candidate_line(f, &best->candidate);
        fprintf(f, "\n");
        print_indented(f, sax_search_problem(s, sc), &best->result);
        sweep_answer_print_ties_text(f, s, r, ans, sc);
        sweep_answer_print_lossless_text(f, r, ans, sc);
        for (int b = 0; b < sp->n_baselines; b++) {
            const sax_record_t *bl = sax_reduce_baseline_best(r, sc, b);
            if (bl->index < 0) {
                fprintf(f, "  baseline %-14s no feasible candidate agrees with it:\n", sp->baselines[b].name);
                sweep_answer_print_why_none_text(f, ans, sc, b);
                continue;
            }
            fprintf(f, "  baseline %-14s %10.4f s  speedup %.3fx  (", sp->baselines[b].name,
                    bl->result.iteration_time_s, bl->result.iteration_time_s / best->result.iteration_time_s);
            cli_print_candidate_line(f, &bl->candidate);
            fprintf(f, ")\n");
            sweep_answer_print_attribution_text(f, ans, sc, b);
        }
        sweep_answer_print_oblivious_text(f, r, ans, sc);
    }
    sweep_answer_print_robust_text(f, s, ans);
}

static void print_json(FILE *f, const sax_config_t *cfg, const sax_search_t *s, const sax_reduce_t *r,
                       const sax_counts_t *c, double elapsed_s, double cpu_s, int ranks, bool pruned,
                       const char *out, const sweep_answer_t *ans)
{
    const sax_space_desc_t *sp = sax_search_desc(s);
    fprintf(f, "{\"evaluated\": %lld, \"skipped\": %lld, \"skipped_by\": {", (long long)c->evaluated,
            (long long)sax_counts_skipped(c));
    for (int i = 1; i < SAX_SKIP_COUNT; i++)
        fprintf(f, "%s\"%s\": %lld", i > 1 ? ", " : "", sax_skip_names[i], (long long)c->skipped[i]);
    fprintf(f, "}, \"pruned\": %lld, \"bound_evaluations\": %lld, \"feasible\": %lld, \"infeasible\": {",
            (long long)c->pruned, (long long)c->bound_evals, (long long)c->infeasible[SAX_FEASIBLE]);
    for (int i = 1; i < SAX_INFEASIBLE_COUNT; i++)
        fprintf(f, "%s\"%s\": %lld", i > 1 ? ", " : "", sax_infeasible_names[i], (long long)c->infeasible[i]);
    fprintf(f, "}, \"candidates\": %lld, \"elapsed_s\": ", (long long)sax_search_size(s));
    cli_print_json_number(f, elapsed_s);
    fprintf(f, ", \"candidates_per_s\": ");
    cli_print_json_number(f, elapsed_s > 0 ? (double)c->evaluated / elapsed_s : 0.0);
    fprintf(f, ", \"cpu_s\": ");
    cli_print_json_number(f, cpu_s);
    fprintf(f, ", \"ranks\": %d, \"search\": \"%s\", \"output\": ", ranks, pruned ? "pruned" : "exhaustive");
    cli_print_json_string(f, out);
    sweep_answer_print_robust_json(f, s, ans);
    fprintf(f, ", \"scenarios\": [");
    for (int sc = 0; sc < sax_search_scenario_count(s); sc++) {
        fprintf(f, "%s\n  {\"index\": %d, \"values\": {", sc ? "," : "", sc);
        print_scenario_values(f, cfg, sc, true);
        fprintf(f, "}, \"best\": ");
        const sax_record_t *best = sax_reduce_best(r, sc);
        if (best->index < 0) {
            fprintf(f, "null");
        } else {
            fprintf(f, "{\"index\": %lld, \"iteration_time_s\": ", (long long)best->index);
            cli_print_json_number(f, best->result.iteration_time_s);
            fprintf(f, ", \"parallelism\": ");
            cli_print_parallelism_json(f, &best->candidate);
            fprintf(f, ", \"network\": ");
            cli_print_network_json(f, &best->candidate);
            fprintf(f, ", \"result\": ");
            cli_print_result_json(f, sax_search_problem(s, sc), &best->result);
            fprintf(f, "}");
        }
        sweep_answer_print_oblivious_json(f, s, r, ans, sc);
        sweep_answer_print_lossless_json(f, r, ans, sc);
        sweep_answer_print_ties_json(f, s, r, ans, sc);
        sweep_answer_print_why_none_json(f, s, ans, sc);
        fprintf(f, ", \"baselines\": {");
        for (int b = 0; b < sp->n_baselines; b++) {
            const sax_record_t *bl = sax_reduce_baseline_best(r, sc, b);
            fprintf(f, "%s", b ? ", " : "");
            cli_print_json_string(f, sp->baselines[b].name);
            if (bl->index < 0 || best->index < 0) {
                fprintf(f, ": null");
                continue;
            }
            fprintf(f, ": {\"index\": %lld, \"iteration_time_s\": ", (long long)bl->index);
            cli_print_json_number(f, bl->result.iteration_time_s);
            fprintf(f, ", \"speedup\": ");
            cli_print_json_number(f, bl->result.iteration_time_s / best->result.iteration_time_s);
            sweep_answer_print_attribution_json(f, ans, sc, b);
            fprintf(f, "}");
        }
        fprintf(f, "}}");
    }
    fprintf(f, "\n]}\n");
}

/* ---- the command ---------------------------------------------------------------------------- */

/* The same status on every rank: the worst. Prints rank-local messages first. */
static sax_status_t agree(MPI_Comm comm, sax_status_t st, const sax_error_t *err, bool print)
{
    if (st != SAX_OK && print && err->text[0] != '\0')
        fprintf(stderr, "sax sweep: %s\n", err->text);
    int mine = sax_status_exit_code(st) * 64 + (int)st, worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm);
    return (sax_status_t)(worst % 64);
}

static uint64_t sweep_hash(const sax_config_t *cfg, const sweep_args_t *a)
{
    uint64_t h = sax_hash_bytes(SAX_HASH_SEED, cfg->effective_json, strlen(cfg->effective_json));
    int32_t opts[2] = {a->top_k, a->pruned ? 1 : 0};
    return sax_hash_bytes(h, opts, sizeof opts);
}

static int run(int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    sweep_args_t a;
    int usage = parse_args(argc, argv, &a); /* identical on every rank */
    if (usage != 0)
        return usage;

    sax_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    sax_search_t *s = NULL;
    sax_reduce_t *acc = NULL;
    sax_ranges_t done;
    sax_ranges_init(&done);
    rows_t rows = {.store = a.store};
    flat_t flat = {0};
    char *hosts = NULL, *cmdline = NULL, *ckpt = NULL;
    sax_cli_lock_t lock = {0}; /* rank 0: RESULTS.h5.lock, held until the end */
    sax_error_t err = {{0}};
    double elapsed_before = 0.0;
    sax_record_t *oblivious = NULL; /* rank 0: the network-oblivious best per scenario */
    sweep_answer_t ans;             /* rank 0: the answer beyond the bests */
    memset(&ans, 0, sizeof ans);
    bool have_ans = false;
    stored_answer_t stored = {0};
    /* a failure of the answer (after the sweep): the results are still written, without /answer */
    sax_status_t late_st = SAX_OK;
    sax_error_t late_err = {{0}};

    /* every rank reads the configuration; only rank 0 reports problems */
    sax_status_t st = sax_config_load(a.config, &cfg, &err);
    if (st == SAX_OK && !cfg.has_space)
        st = sax_error_set(&err, SAX_ERR_INPUT,
                           "%s: expected a \"space\" section listing the values to explore, found none "
                           "(`sax eval` evaluates a single configuration)",
                           a.config);
    if (st == SAX_OK) {
        st = sax_search_create(&cfg.space, cfg.has_candidate ? &cfg.candidate : NULL, cfg.scenarios,
                               cfg.n_scenarios, &s, &err);
        if (st != SAX_OK) { /* the space's own checks (its size) do not know the file */
            sax_error_t inner = err;
            st = sax_error_set(&err, st, "%s: %s", a.config, inner.text);
        }
    }
    if (st == SAX_OK)
        st = sax_reduce_create(s, a.top_k, &acc, &err);
    if ((st = agree(comm, st, &err, rank == 0)) != SAX_OK)
        goto out;

    /* rank 0 checks the output and the checkpoint before any work */
    size_t ckpt_len = strlen(a.out) + sizeof SAX_CHECKPOINT_SUFFIX;
    ckpt = malloc(ckpt_len);
    if ((st = agree(comm, ckpt == NULL ? sax_error_set(&err, SAX_ERR_NOMEM, "out of memory") : SAX_OK, &err,
                    true)) != SAX_OK)
        goto out;
    snprintf(ckpt, ckpt_len, "%s%s", a.out, SAX_CHECKPOINT_SUFFIX);
    uint64_t hash = sweep_hash(&cfg, &a);
    if (rank == 0) {
        const char *inputs[] = {a.config, NULL};
        st = sax_cli_check_output(a.out, inputs, &err);
        if (st == SAX_OK)
            st = sax_cli_check_output(ckpt, inputs, &err);
        if (st == SAX_OK) /* one sweep per output at a time: a second one stops here, not at the end */
            st = sax_cli_lock_init(&lock, a.out, inputs, &err);
        if (st == SAX_OK)
            st = sax_results_check_target(a.out, a.force, &err);
        if (st == SAX_OK && a.resume) {
            st = sax_checkpoint_load(ckpt, hash, &elapsed_before, &done, acc, &err);
        } else if (st == SAX_OK && !a.force && access(ckpt, F_OK) == 0) {
            st = sax_error_set(
                &err, SAX_ERR_INPUT,
                "%s: a checkpoint of an interrupted sweep exists; continue it with --resume, or "
                "pass --force to start again",
                ckpt);
        }
    }
    if ((st = agree(comm, st, &err, true)) != SAX_OK)
        goto out;

    progress_t prog = {.tty = isatty(fileno(stderr)) != 0};
    sax_sweep_opts_t o = {
        .chunk = a.chunk,
        .pruned = a.pruned,
        .stop = &stop_flag,
        .progress = on_progress,
        .progress_ctx = &prog,
        .progress_interval_s = a.progress_s > 0 ? a.progress_s
                               : prog.tty       ? 0.25
                                                : 5.0,
    };
    checkpointer_t saver = {.path = ckpt,
                            .hash = hash,
                            .elapsed_before = elapsed_before,
                            .total = sax_search_size(s),
                            .log = !prog.tty};
    if (a.store == SAX_STORE_NONE) { /* --resume cannot restore stored rows: no use saving */
        o.checkpoint_every_s = a.checkpoint_s;
        o.checkpoint = on_checkpoint;
        o.checkpoint_ctx = &saver;
    } else {
        o.on_chunk = rows_chunk;
        o.on_row = rows_add;
        o.row_ctx = &rows;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C ends the process at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    double start_unix = (double)time(NULL);
    double t0 = MPI_Wtime(), cpu0 = cpu_seconds();
    saver.t0 = t0;
    sax_status_t sweep_st = sax_comm_sweep(comm, s, &o, acc, &done, &err);
    double elapsed = MPI_Wtime() - t0 + elapsed_before;
    double cpu_mine = cpu_seconds() - cpu0, cpu_all = 0.0;
    MPI_Allreduce(&cpu_mine, &cpu_all, 1, MPI_DOUBLE, MPI_SUM, comm);
    if (sweep_st != SAX_OK && sweep_st != SAX_ERR_INTERRUPTED)
        st = sweep_st;
    if (rows.failed)
        st = sax_error_set(&err, SAX_ERR_NOMEM, "out of memory keeping %lld rows for --store",
                           (long long)rows.n);
    if ((st = agree(comm, st, &err, true)) != SAX_OK)
        goto out;
    if ((st = agree(comm, sax_comm_allreduce(comm, acc, &err), &err, rank == 0)) != SAX_OK)
        goto out;

    if (sweep_st == SAX_ERR_INTERRUPTED) {
        if (rank == 0) {
            st = sax_checkpoint_save(ckpt, hash, elapsed, &done, acc, &err);
            if (st == SAX_OK)
                fprintf(stderr,
                        "sax sweep: interrupted after %lld of %lld candidates; progress saved in %s\n"
                        "sax sweep: continue with: sax sweep %s -o %s --resume\n",
                        (long long)sax_ranges_total(&done), (long long)sax_search_size(s), ckpt, a.config,
                        a.out);
        }
        st = agree(comm, st, &err, true);
        if (st == SAX_OK)
            st = SAX_ERR_INTERRUPTED;
        goto out;
    }

    /* the answer beyond the bests, before the write that stores it: the network-oblivious sweep on
     * every rank, the rest on rank 0 */
    if (a.oblivious) {
        if (rank == 0 && (oblivious = malloc((size_t)cfg.n_scenarios * sizeof *oblivious)) == NULL)
            st = sax_error_set(&late_err, SAX_ERR_NOMEM, "out of memory");
        if ((late_st = agree(comm, st, &late_err, true)) == SAX_OK) {
            st = sweep_oblivious(comm, sax_search_desc(s), cfg.has_candidate ? &cfg.candidate : NULL, s,
                                 &stop_flag, oblivious, &late_err);
            if (st == SAX_ERR_INTERRUPTED) { /* the results are still written: without it */
                if (rank == 0)
                    fprintf(stderr,
                            "sax sweep: interrupted during the network-oblivious sweep; not reported\n");
                free(oblivious);
                oblivious = NULL;
                st = SAX_OK;
            }
            late_st = agree(comm, st, &late_err, true);
        }
        if (late_st != SAX_OK)
            late_err.text[0] = '\0'; /* said */
        st = SAX_OK;
    }
    if (rank == 0 && late_st == SAX_OK) {
        late_st = sweep_answer_compute(s, acc, !a.pruned, oblivious, &ans, &late_err);
        have_ans = late_st == SAX_OK;
        if (have_ans && !store_answer(s, acc, &ans, &stored))
            late_st = sax_error_set(&late_err, SAX_ERR_NOMEM, "out of memory");
    }

    hosts = host_list(comm);
    cmdline = join_args(argc, argv);
    bool ok = hosts != NULL && cmdline != NULL && flatten(s, acc, &flat);
    if ((st = agree(comm, ok ? SAX_OK : sax_error_set(&err, SAX_ERR_NOMEM, "out of memory"), &err, true)) !=
        SAX_OK)
        goto out;
    rows_sort_runs(&rows);
    const sax_counts_t *c = sax_reduce_counts_const(acc);
    sax_results_t res = {
        .config_json = cfg.effective_json,
        .version = SAX_VERSION,
        .git_revision = SAX_GIT_REVISION,
        .command_line = cmdline,
        .hosts = hosts,
        .ranks = size,
        .start_unix_s = start_unix,
        .end_unix_s = (double)time(NULL),
        .store = a.store,
        .evaluated = c->evaluated,
        .skipped = sax_counts_skipped(c) + c->pruned,
        .space = sax_search_desc(s),
        .n_scenarios = cfg.n_scenarios,
        .scenario_values = cfg.scenario_values,
        .best = flat.best,
        .top = flat.top,
        .n_top = flat.n_top,
        .top_k = a.top_k,
        .pareto = flat.pareto,
        .n_pareto = flat.n_pareto,
        .best_per_value = flat.bpv,
        .bpv_key = flat.bpv_key,
        .bpv_value = flat.bpv_value,
        .n_bpv = flat.n_bpv,
        .baseline_best = flat.baseline,
        .answer = rank == 0 && late_st == SAX_OK ? &stored.a : NULL,
    };
    memcpy(res.infeasible, c->infeasible, sizeof res.infeasible);
    st = sax_results_write(comm, a.out, &res, rows.rows, rows.n, rows.runs, rows.n_runs, a.force || a.resume,
                           &err);
    if ((st = agree(comm, st, &err, rank == 0)) != SAX_OK) {
        /* a full disk or a file-size limit: keep what the sweep found, so that --resume only writes */
        if (rank == 0 && st == SAX_ERR_IO && a.store == SAX_STORE_NONE) {
            sax_error_t ck = {{0}};
            if (sax_checkpoint_save(ckpt, hash, elapsed, &done, acc, &ck) == SAX_OK)
                fprintf(stderr,
                        "sax sweep: the evaluated sweep is kept in %s; once there is room, write the "
                        "results with: sax sweep %s -o %s --resume\n",
                        ckpt, a.config, a.out);
            else
                fprintf(stderr, "sax sweep: the evaluated sweep could not be kept either: %s\n", ck.text);
        }
        goto out;
    }
    if (rank == 0)
        remove(ckpt); /* the results are written: a checkpoint for them (--resume, --force) is obsolete */

    /* the answer failed: the results are written without it, and the run fails as it would have */
    if (rank == 0 && late_st != SAX_OK && late_err.text[0] != '\0')
        fprintf(stderr, "sax sweep: %s\n", late_err.text);
    if ((st = agree(comm, late_st, &late_err, false)) != SAX_OK)
        goto out;
    if (rank == 0) {
        if (c->bound_violations > 0)
            fprintf(
                stderr,
                "sax sweep: warning: %lld candidates were faster than the pruned search's lower bound; the "
                "model broke an assumption of the bound (docs/sweep.md): rerun with --search exhaustive\n",
                (long long)c->bound_violations);
        if (a.json)
            print_json(stdout, &cfg, s, acc, c, elapsed, cpu_all, size, a.pruned, a.out, &ans);
        else
            print_text(stdout, &cfg, s, acc, c, elapsed, size, a.pruned, &ans);
        if (!a.json)
            printf("\nresults: %s\n", a.out);
        fflush(stdout);
    }

out:
    if (have_ans)
        sweep_answer_free(&ans);
    stored_answer_free(&stored);
    free(oblivious);
    sax_cli_lock_fini(&lock);
    flat_free(&flat);
    free(rows.rows);
    free(rows.runs);
    free(hosts);
    free(cmdline);
    free(ckpt);
    sax_ranges_fini(&done);
    sax_reduce_destroy(&acc);
    sax_search_destroy(&s);
    sax_config_fini(&cfg);
    return sax_status_exit_code(st);
}

const sax_command_t sax_command_sweep = {
    .name = "sweep",
    .synopsis = "CONFIG.json -o RESULTS.h5 [--json] [--resume] [--search exhaustive|pruned] [--top K]\n"
                "                 [--chunk N] [--store none|feasible|all] [--force] [--progress SECONDS]\n"
                "                 [--checkpoint-every SECONDS] [--no-oblivious]",
    .summary = "explore the space section exhaustively across MPI ranks",
    .help =
        "Evaluates every candidate of CONFIG.json's \"space\" section (the cartesian product of the listed\n"
        "values of parallelism and network keys, for every scenario) with the cost model, spread over the\n"
        "MPI ranks, and writes the results to RESULTS.h5 (parallel HDF5; docs/results-format.md). Then\n"
        "prints, per scenario, the best configuration, its breakdown and its speedup over each baseline\n"
        "(baseline time / best time) split into what placement, scheduling and the network contribute,\n"
        "what an optimiser that ignores the sites would pick and what it would cost, and the candidate\n"
        "least bad over all scenarios (docs/decisions.md), all of which RESULTS.h5 also stores under\n"
        "/answer for `sax report`. Candidates that can never be valid (divisibility, tp beyond the\n"
        "scale-up domain, vpp without interleaved, ...) are skipped without evaluating and counted.\n"
        "Results are identical for any number of ranks and any chunk size (docs/sweep.md).\n"
        "\n"
        "options:\n"
        "  -o, --output FILE   the results file (required); refuses to overwrite without --force, and\n"
        "                      while another sax sweep writes it (FILE.lock: exit status 2 at start)\n"
        "  --json              print the summary as one JSON object on stdout instead of the text report\n"
        "  --search MODE       exhaustive (default) or pruned: branch-and-bound with an admissible lower\n"
        "                      bound; finds the same best per scenario and per baseline, evaluates fewer\n"
        "                      candidates (top K, Pareto fronts and per-value bests then cover only the\n"
        "                      evaluated ones)\n"
        "  --top K             keep the K fastest candidates per scenario (default 20)\n"
        "  --chunk N           candidates per work chunk (default 0: adaptive, todo/(ranks*64))\n"
        "  --store MODE        also store evaluated rows in /rows: none (default), feasible or all\n"
        "                      (memory grows with the rows kept)\n"
        "  --resume            continue an interrupted sweep from RESULTS.h5.ckpt; refuses a checkpoint\n"
        "                      of a different configuration or different --top/--search\n"
        "  --force             overwrite RESULTS.h5 and ignore an existing checkpoint\n"
        "  --checkpoint-every SECONDS\n"
        "                      save the progress to RESULTS.h5.ckpt this often (default 300; 0: only on\n"
        "                      SIGTERM/SIGINT), so that --resume survives a SIGKILL, a node failure or an\n"
        "                      out-of-memory kill; each costs at most one chunk per rank; not with --store\n"
        "  --no-oblivious      skip the network-oblivious comparison (a second, pruned sweep of the space\n"
        "                      with the sites merged into one)\n"
        "  --progress SECONDS  progress interval on stderr (default: a bar every 0.25 s on a terminal,\n"
        "                      a line every 5 s otherwise)\n"
        "\n"
        "SIGTERM or SIGINT (Slurm's time limit, Ctrl-C): the chunks in flight are finished, the progress is\n"
        "saved to RESULTS.h5.ckpt, and sax exits with status 3; --resume ends with the same results as an\n"
        "uninterrupted run. A sweep that is killed outright resumes from its last periodic checkpoint.\n"
        "A results file that does not fit (full disk, ulimit -f) is refused before it is created (exit\n"
        "status 1); without --store the evaluated sweep is then kept in RESULTS.h5.ckpt, and --resume\n"
        "writes the results once there is room.\n"
        "\n"
        "examples:\n"
        "  sax sweep jobs/examples/campus-3bldg-llama405b.json -o campus.h5\n"
        "  mpirun -n 4 sax sweep jobs/examples/regions-2-llama405b.json -o regions.h5 --json\n"
        "  srun --mpi=pmix sax sweep CONFIG.json -o out.h5 --resume\n",
    .needs_mpi = true,
    .implemented = true,
    .run = run,
};
