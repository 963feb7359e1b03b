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

/* What a refused case fails, in words: the check (sax_model_refusal), or for memory the fullest GPU and
 * the fastest single setting that makes it fit (sax eval lists them all); "" when there is nothing to
 * add. */
static void refusal(const sax_config_t *cfg, const sax_result_t *r, sax_scratch_t *scratch, char *why,
                    size_t n)
{
    if (r->reason != SAX_INFEASIBLE_MEMORY) {
        sax_model_refusal(&cfg->problem, &cfg->candidate, why, n);
        return;
    }
    sax_memory_fit_t fits[SAX_LEVER_COUNT];
    int n_fits = 0;
    int k = snprintf(why, n, "%.1f GiB", r->memory_per_gpu_bytes / (1024.0 * 1024.0 * 1024.0));
    if (sax_model_memory_fits(&cfg->problem, &cfg->candidate, scratch, fits, &n_fits) == SAX_OK &&
        n_fits > 0 && k > 0 && (size_t)k < n)
        snprintf(why + k, n - (size_t)k, "; fits with %s: %s", sax_lever_keys[fits[0].lever], fits[0].value);
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
    double sum = 0.0, worst = 0.0;
    int counted = 0, failed = 0;
    double *errs = malloc(sizeof *errs * (size_t)(n > 0 ? n : 1)); /* |error| %, NAN when infeasible */
    if (errs == NULL) {
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
    for (int i = 0; i < n; i++) {
        sax_result_t r;
        const sax_config_t *cfg = &cases[i].config;
        st = sax_model_eval(&cfg->problem, &cfg->candidate, scratch, &r);
        double err_pct = NAN;
        if (st == SAX_OK && r.feasible) {
            err_pct = 100.0 * (r.iteration_time_s - cases[i].measured_s) / cases[i].measured_s;
            errs[i] = fabs(err_pct);
            sum += fabs(err_pct);
            worst = fmax(worst, fabs(err_pct));
            counted++;
        } else {
            errs[i] = NAN;
            failed++;
        }
        char why[600] = "";
        if (st == SAX_OK && !r.feasible)
            refusal(cfg, &r, scratch, why, sizeof why);
        if (json) {
            printf("%s{\"name\": ", i ? ", " : "");
            cli_print_json_string(stdout, cases[i].name);
            printf(", \"family\": ");
            cli_print_json_string(stdout, cases[i].family);
            printf(", \"measured_s\": ");
            cli_print_json_number(stdout, cases[i].measured_s);
            printf(", \"predicted_s\": ");
            cli_print_json_number(stdout, r.feasible ? r.iteration_time_s : NAN);
            printf(", \"error_pct\": ");
            cli_print_json_number(stdout, err_pct);
            printf(", \"feasible\": %s, \"infeasible_reason\": ", r.feasible ? "true" : "false");
            if (r.feasible) {
                printf("null}");
            } else {
                printf("\"%s\", \"infeasible_detail\": ", sax_infeasible_names[r.reason]);
                if (why[0] != '\0')
                    cli_print_json_string(stdout, why);
                else
                    printf("null");
                printf("}");
            }
        } else if (r.feasible) {
            printf("%-28s %12.4f %12.4f %+9.2f\n", cases[i].name, cases[i].measured_s, r.iteration_time_s,
                   err_pct);
        } else {
            printf("%-28s %12.4f %12s %9s  (%s%s%s)\n", cases[i].name, cases[i].measured_s, "infeasible", "-",
                   sax_infeasible_names[r.reason], why[0] != '\0' ? ": " : "", why);
        }
    }
    double mean = counted > 0 ? sum / counted : NAN;
    if (json) {
        printf("], \"cases_evaluated\": %d, \"cases_infeasible\": %d, \"mean_abs_error_pct\": ", counted,
               failed);
        cli_print_json_number(stdout, mean);
        printf(", \"max_abs_error_pct\": ");
        cli_print_json_number(stdout, counted > 0 ? worst : NAN);
        printf(", \"families\": [");
    } else {
        printf("\n%d cases, %d infeasible; mean absolute error %.2f %%, max %.2f %%\n", n, failed, mean,
               worst);
        printf("\n%-28s %6s %11s %9s %9s\n", "family", "cases", "infeasible", "mean %", "max %");
    }
    /* per family, in the order of first appearance */
    for (int i = 0, shown = 0; i < n; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(cases[j].family, cases[i].family) == 0;
        if (seen)
            continue;
        int k = 0, bad = 0;
        double fsum = 0.0, fmaxe = 0.0;
        for (int j = i; j < n; j++)
            if (strcmp(cases[j].family, cases[i].family) == 0) {
                if (isnan(errs[j])) {
                    bad++;
                    continue;
                }
                fsum += errs[j];
                fmaxe = fmax(fmaxe, errs[j]);
                k++;
            }
        const char *fam = cases[i].family[0] != '\0' ? cases[i].family : "(no family)";
        if (json) {
            printf("%s{\"family\": ", shown++ ? ", " : "");
            cli_print_json_string(stdout, cases[i].family);
            printf(", \"cases\": %d, \"infeasible\": %d, \"mean_abs_error_pct\": ", k + bad, bad);
            cli_print_json_number(stdout, k > 0 ? fsum / k : NAN);
            printf(", \"max_abs_error_pct\": ");
            cli_print_json_number(stdout, k > 0 ? fmaxe : NAN);
            printf("}");
        } else if (k > 0) {
            printf("%-28.28s %6d %11d %9.2f %9.2f\n", fam, k + bad, bad, fsum / k, fmaxe);
        } else { /* every case of the family infeasible: no error to average */
            printf("%-28.28s %6d %11d %9s %9s\n", fam, k + bad, bad, "-", "-");
        }
    }
    if (json)
        printf("]}\n");
    free(errs);
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
        "iteration time and the signed error, then the mean and maximum absolute percentage error,\n"
        "overall and per family (each case's optional \"family\": the source it comes from).\n"
        "A case the model finds infeasible names its reason and the check it fails; for memory, its fullest\n"
        "GPU and the fastest single setting that makes it fit (`sax eval CONFIG` lists them all,\n"
        "docs/decisions.md).\n\n"
        "options:\n"
        "  --json   one JSON object: {\"cases\": [{name, family, measured_s, predicted_s, error_pct,\n"
        "           feasible, infeasible_reason, and for a refused case infeasible_detail}],\n"
        "           mean_abs_error_pct, max_abs_error_pct,\n"
        "           \"families\": [{family, cases, infeasible, mean_abs_error_pct, max_abs_error_pct}]}\n\n"
        "exit status: 0 every case evaluated; 1 a case was infeasible under the model;\n"
        "             2 the dataset is malformed (the message names the file and JSON path)\n",
    .needs_mpi = false,
    .implemented = true,
    .run = run,
};
