/* cmd_validate.c - `sax validate`: the cost model against measured training runs. */
#include "cli.h"
#include "cli_print.h"
#include "sax_config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: sax validate DATASET.json [--json]\n");
    return 2;
}

/* A case refused for memory. The run happened, so it fitted: the settings its description leaves
 * unstated are assumed at the values that make it fit changing the fewest of them
 * (sax_model_memory_assume; true, *assumed). `why` gets the fullest GPU with sax's defaults and, when
 * nothing unstated makes it fit, the fastest single setting that would (sax eval lists them all). */
static bool memory_refusal(const sax_case_t *cs, const sax_result_t *r, sax_scratch_t *scratch,
                           sax_memory_assumption_t *assumed, char *why, size_t n)
{
    int k = snprintf(why, n, "%.1f GiB", r->memory_per_gpu_bytes / (1024.0 * 1024.0 * 1024.0));
    unsigned open = ~cs->config.stated_levers & ((1u << SAX_LEVER_COUNT) - 1);
    bool found = false;
    if (sax_model_memory_assume(&cs->config.problem, &cs->config.candidate, open, scratch, assumed, &found) !=
            SAX_OK ||
        found)
        return found;
    sax_memory_fit_t fits[SAX_LEVER_COUNT];
    int n_fits = 0;
    if (sax_model_memory_fits(&cs->config.problem, &cs->config.candidate, scratch, fits, &n_fits) == SAX_OK &&
        n_fits > 0 && k > 0 && (size_t)k < n)
        snprintf(why + k, n - (size_t)k, "; fits with %s: %s", sax_lever_keys[fits[0].lever], fits[0].value);
    return false;
}

/* The errors of a group of cases (a family, a range of job sizes). */
typedef struct {
    int cases, infeasible;
    double abs_sum, signed_sum, worst;
} err_group_t;

static void group_add(err_group_t *g, double err_pct)
{
    g->cases++;
    if (isnan(err_pct)) {
        g->infeasible++;
        return;
    }
    g->abs_sum += fabs(err_pct);
    g->signed_sum += err_pct;
    g->worst = fmax(g->worst, fabs(err_pct));
}

/* One row of a group table: the rest of a JSON object whose first key the caller printed, or the rest
 * of a text line after its label. */
static void group_print(const err_group_t *g, bool json)
{
    int k = g->cases - g->infeasible;
    if (json) {
        printf(", \"cases\": %d, \"infeasible\": %d, \"mean_abs_error_pct\": ", g->cases, g->infeasible);
        cli_print_json_number(stdout, k > 0 ? g->abs_sum / k : NAN);
        printf(", \"max_abs_error_pct\": ");
        cli_print_json_number(stdout, k > 0 ? g->worst : NAN);
        printf(", \"mean_error_pct\": ");
        cli_print_json_number(stdout, k > 0 ? g->signed_sum / k : NAN);
        printf("}");
    } else if (k > 0) {
        printf(" %6d %11d %9.2f %9.2f %+9.2f\n", g->cases, g->infeasible, g->abs_sum / k, g->worst,
               g->signed_sum / k);
    } else { /* every case of the group infeasible: no error to average */
        printf(" %6d %11d %9s %9s %9s\n", g->cases, g->infeasible, "-", "-", "-");
    }
}

/* The heading of a group table's text form. */
static void group_heading(const char *label)
{
    printf("\n%-28s %6s %11s %9s %9s %9s\n", label, "cases", "infeasible", "mean %", "max %", "signed %");
}

/* Job sizes the residuals are grouped by, in GPUs: a node, a few racks, a pod, a building, more. */
static const long scale_upper[] = {8, 64, 512, 4096, 0}; /* 0: no upper bound */
enum { N_SCALES = sizeof scale_upper / sizeof scale_upper[0] };

static int scale_of(long gpus)
{
    int b = 0;
    while (scale_upper[b] != 0 && gpus > scale_upper[b])
        b++;
    return b;
}

static int run(int argc, char **argv)
{
    const char *path = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (argv[i][0] == '-')
            return usage();
        else if (path == NULL)
            path = argv[i];
        else
            return usage();
    }
    if (path == NULL)
        return usage();
    sax_case_t *cases = NULL;
    int n = 0;
    sax_error_t err = {{0}};
    sax_status_t st = sax_dataset_load(path, &cases, &n, &err);
    if (st != SAX_OK) {
        fprintf(stderr, "sax validate: %s\n", err.text);
        return sax_status_exit_code(st);
    }
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    if (scratch != NULL)
        sax_scratch_init(scratch);
    if (scratch == NULL) {
        sax_dataset_free(cases, n);
        fprintf(stderr, "sax validate: out of memory\n");
        return 1;
    }
    err_group_t all = {0};                                         /* every case */
    double *errs = malloc(sizeof *errs * (size_t)(n > 0 ? n : 1)); /* signed error %, NAN when infeasible */
    long *gpus = malloc(sizeof *gpus * (size_t)(n > 0 ? n : 1));   /* the GPUs each job uses */
    if (errs == NULL || gpus == NULL) {
        free(errs);
        free(gpus);
        free(scratch);
        sax_dataset_free(cases, n);
        fprintf(stderr, "sax validate: out of memory\n");
        return 1;
    }
    if (json) {
        printf("{\"dataset\": ");
        cli_print_json_string(stdout, path);
        printf(", \"cases\": [");
    } else
        printf("%-28s %12s %12s %9s\n", "case", "measured s", "predicted s", "error %");
    int n_assumed = 0;
    for (int i = 0; i < n; i++) {
        sax_result_t r = {0};
        const sax_config_t *cfg = &cases[i].config;
        st = sax_model_eval(&cfg->problem, &cfg->candidate, scratch, &r);
        gpus[i] = r.gpus_used; /* tp x cp x pp x dp, set before any refusal */
        sax_memory_assumption_t as;
        const sax_memory_assumption_t *assumed = NULL;
        char why[600] = "";
        if (st == SAX_OK && !r.feasible && r.reason == SAX_INFEASIBLE_MEMORY)
            assumed = memory_refusal(&cases[i], &r, scratch, &as, why, sizeof why) ? &as : NULL;
        else if (st == SAX_OK && !r.feasible)
            sax_model_refusal(&cfg->problem, &cfg->candidate, why, sizeof why);
        bool feasible = st == SAX_OK && (r.feasible || assumed != NULL);
        double predicted = assumed != NULL ? assumed->iteration_time_s : r.iteration_time_s;
        double err_pct = feasible ? 100.0 * (predicted - cases[i].measured_s) / cases[i].measured_s : NAN;
        errs[i] = err_pct;
        group_add(&all, err_pct);
        n_assumed += feasible && assumed != NULL;
        if (json) {
            printf("%s{\"name\": ", i ? ", " : "");
            cli_print_json_string(stdout, cases[i].name);
            printf(", \"family\": ");
            cli_print_json_string(stdout, cases[i].family);
            printf(", \"gpus\": %ld, \"measured_s\": ", gpus[i]);
            cli_print_json_number(stdout, cases[i].measured_s);
            printf(", \"predicted_s\": ");
            cli_print_json_number(stdout, feasible ? predicted : NAN);
            printf(", \"error_pct\": ");
            cli_print_json_number(stdout, err_pct);
            printf(", \"feasible\": %s, \"assumed\": ", feasible ? "true" : "false");
            if (assumed != NULL) {
                char settings[SAX_ASSUMPTION_TEXT_LEN];
                sax_model_memory_assumption_text(assumed, true, settings, sizeof settings);
                printf("{\"settings\": {%s}, \"default_memory_per_gpu_bytes\": ", settings);
                cli_print_json_number(stdout, r.memory_per_gpu_bytes);
                printf(", \"memory_per_gpu_bytes\": ");
                cli_print_json_number(stdout, assumed->memory_per_gpu_bytes);
                printf("}");
            } else
                printf("null");
            printf(", \"infeasible_reason\": ");
            if (feasible) {
                printf("null}");
            } else {
                printf("\"%s\", \"infeasible_detail\": ", sax_infeasible_names[r.reason]);
                if (why[0] != '\0') { /* a list, as sax eval --json gives it */
                    printf("[");
                    cli_print_json_string(stdout, why);
                    printf("]");
                } else
                    printf("null");
                printf("}");
            }
        } else if (feasible) {
            printf("%-28s %12.4f %12.4f %+9.2f", cases[i].name, cases[i].measured_s, predicted, err_pct);
            if (assumed != NULL) {
                char settings[SAX_ASSUMPTION_TEXT_LEN];
                sax_model_memory_assumption_text(assumed, false, settings, sizeof settings);
                printf("  (unstated, assumed so that the run fits: %s; sax's defaults need %s)", settings,
                       why);
            }
            printf("\n");
        } else {
            printf("%-28s %12.4f %12s %9s  (%s%s%s)\n", cases[i].name, cases[i].measured_s, "infeasible", "-",
                   sax_infeasible_names[r.reason], why[0] != '\0' ? ": " : "", why);
        }
    }
    const int counted = all.cases - all.infeasible, failed = all.infeasible;
    const double mean = counted > 0 ? all.abs_sum / counted : NAN,
                 bias = counted > 0 ? all.signed_sum / counted : NAN;
    if (json) {
        printf("], \"cases_evaluated\": %d, \"cases_infeasible\": %d, \"cases_assumed\": %d, "
               "\"mean_abs_error_pct\": ",
               counted, failed, n_assumed);
        cli_print_json_number(stdout, mean);
        printf(", \"max_abs_error_pct\": ");
        cli_print_json_number(stdout, counted > 0 ? all.worst : NAN);
        printf(", \"mean_error_pct\": ");
        cli_print_json_number(stdout, bias);
        printf(", \"families\": [");
    } else {
        printf("\n%d cases, %d infeasible", n, failed);
        if (n_assumed > 0)
            printf(", %d with unstated settings assumed so that the run fits", n_assumed);
        printf(
            "; mean absolute error %.2f %%, max %.2f %%, mean signed error %+.2f %% (negative: sax too fast)\n",
            mean, all.worst, bias);
        group_heading("family");
    }
    /* per family, in the order of first appearance */
    for (int i = 0, shown = 0; i < n; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(cases[j].family, cases[i].family) == 0;
        if (seen)
            continue;
        err_group_t g = {0};
        for (int j = i; j < n; j++)
            if (strcmp(cases[j].family, cases[i].family) == 0)
                group_add(&g, errs[j]);
        if (json) {
            printf("%s{\"family\": ", shown++ ? ", " : "");
            cli_print_json_string(stdout, cases[i].family);
        } else
            printf("%-28.28s", cases[i].family[0] != '\0' ? cases[i].family : "(no family)");
        group_print(&g, json);
    }
    /* per job size: whether the error grows with the GPUs a run uses */
    err_group_t by_scale[N_SCALES] = {{0}};
    for (int i = 0; i < n; i++)
        group_add(&by_scale[scale_of(gpus[i])], errs[i]);
    if (json)
        printf("], \"by_gpus\": [");
    else
        group_heading("GPUs");
    for (int b = 0, shown = 0; b < N_SCALES; b++) {
        if (by_scale[b].cases == 0)
            continue;
        long lo = b > 0 ? scale_upper[b - 1] + 1 : 1, hi = scale_upper[b];
        if (json) {
            printf("%s{\"gpus_min\": %ld, \"gpus_max\": ", shown++ ? ", " : "", lo);
            if (hi > 0)
                printf("%ld", hi);
            else
                printf("null");
        } else {
            char label[48];
            if (hi > 0)
                snprintf(label, sizeof label, "%ld-%ld", lo, hi);
            else
                snprintf(label, sizeof label, "%ld or more", lo);
            printf("%-28s", label);
        }
        group_print(&by_scale[b], json);
    }
    if (json)
        printf("]}\n");
    free(errs);
    free(gpus);
    free(scratch);
    sax_dataset_free(cases, n);
    return failed > 0 ? 1 : 0;
}

const sax_command_t sax_command_validate = {
    .name = "validate",
    .synopsis = "DATASET.json [--json]",
    .summary = "compare the model with measured training runs",
    .help =
        "usage: sax validate DATASET.json [--json]\n\n"
        "Runs the cost model on every case of a dataset of measured training runs (the format of\n"
        "tests/data/validation/published-runs.json: {\"cases\": [{\"name\", \"config\",\n"
        "\"measured\": {\"iteration_time_s\"}}]}) and prints, per case, the measured and predicted\n"
        "iteration time and the signed error, then the mean and maximum absolute percentage error and\n"
        "the mean signed one (its bias: negative when sax is too fast), overall, per family (each\n"
        "case's optional \"family\": the source it comes from) and per job size (the GPUs a run uses:\n"
        "up to 8, 9-64, 65-512, 513-4096, more), which shows whether the error grows with scale.\n"
        "A measured run fitted in its GPUs' memory: when sax's defaults overfill them, the settings that trade time for\n"
        "memory which the case's config leaves unstated (training.grad_reduce_dtype, optimizer_moments_dtype,\n"
        "master_weights, ...) are assumed at the values that make it fit changing the fewest, the fastest\n"
        "of those; the line names them. A case still infeasible names its reason and the check it fails;\n"
        "for memory, its fullest GPU and the fastest single setting that would make it fit (`sax eval\n"
        "CONFIG` lists them all; docs/decisions.md).\n\n"
        "options:\n"
        "  --json   one JSON object: {\"cases\": [{name, family, gpus, measured_s, predicted_s, error_pct,\n"
        "           feasible, assumed (null, or {settings: {key: value}, default_memory_per_gpu_bytes,\n"
        "           memory_per_gpu_bytes}), infeasible_reason, and for a refused case\n"
        "           infeasible_detail: [the check it fails], a list as sax eval --json gives it}],\n"
        "           cases_evaluated, cases_infeasible, cases_assumed, mean_abs_error_pct, max_abs_error_pct,\n"
        "           mean_error_pct (signed), \"families\": [{family, cases, infeasible, mean_abs_error_pct,\n"
        "           max_abs_error_pct, mean_error_pct}], \"by_gpus\": [{gpus_min, gpus_max (null: no\n"
        "           bound), cases, infeasible, mean_abs_error_pct, max_abs_error_pct, mean_error_pct}]}\n\n"
        "exit status: 0 every case evaluated; 1 a case was infeasible under the model;\n"
        "             2 the dataset is malformed (the message names the file and JSON path)\n",
    .needs_mpi = false,
    .implemented = true,
    .run = run,
};
