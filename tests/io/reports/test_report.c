/* test_report.c - `sax report` and `sax pareto` on the fixture's results file: speedups in the
 * text, SVG files that are well-formed and contain the expected elements, Pareto CSV rows equal to
 * the fixture's brute-force front, the exactness note without stored rows, and bad objectives.
 * A singleton MPI process (MPI_Init without mpiexec) writes the files through MPI_COMM_SELF. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reports_internal.h"
#include "test_results_fixture.h"

static fx_t *g_fx;
static char g_dir[512], g_all[600], g_none[600];

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = calloc((size_t)n + 1, 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

static char *captured(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    rewind(f);
    char *s = calloc((size_t)n + 1, 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return s;
}

/* XML well-formedness of the subset SVG writers use: every element closed, in order, text free
 * of raw '<' and '&' outside entities. Returns the number of elements, -1 when malformed. */
static int xml_elements(const char *s)
{
    char stack[64][32];
    int depth = 0, count = 0;
    const char *p = s;
    if (strncmp(p, "<?xml", 5) == 0)
        p = strstr(p, "?>") + 2;
    while ((p = strpbrk(p, "<&"))) {
        if (*p == '&') {
            if (strncmp(p, "&amp;", 5) && strncmp(p, "&lt;", 4) && strncmp(p, "&gt;", 4) &&
                strncmp(p, "&quot;", 6))
                return -1;
            p++;
            continue;
        }
        const char *end = strchr(p, '>');
        if (!end)
            return -1;
        for (const char *q = p + 1; q < end; q++)
            if (*q == '<')
                return -1;
        if (p[1] == '/') {
            size_t len = strcspn(p + 2, " >");
            if (depth == 0 || strlen(stack[depth - 1]) != len || strncmp(stack[depth - 1], p + 2, len) != 0)
                return -1;
            depth--;
        } else {
            size_t len = strcspn(p + 1, " />\n");
            if (len == 0 || len >= 32)
                return -1;
            count++;
            if (end[-1] != '/') {
                if (depth == 64)
                    return -1;
                memcpy(stack[depth], p + 1, len);
                stack[depth++][len] = '\0';
            }
        }
        p = end + 1;
    }
    return depth == 0 ? count : -1;
}

static void assert_svg(const char *path, const char *const *must, int n_must)
{
    char *s = slurp(path);
    assert_non_null(s);
    assert_non_null(strstr(s, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    int elements = xml_elements(s);
    if (elements < 0)
        fprintf(stderr, "malformed SVG: %s\n", path);
    assert_true(elements > 20);
    for (int i = 0; i < n_must; i++) {
        if (!strstr(s, must[i]))
            fprintf(stderr, "%s lacks %s\n", path, must[i]);
        assert_non_null(strstr(s, must[i]));
    }
    free(s);
}

static void test_xml_checker_catches_errors(void **state)
{
    (void)state;
    assert_int_equal(xml_elements("<svg><g><rect/></g></svg>"), 3);
    assert_int_equal(xml_elements("<svg><g></svg>"), -1);
    assert_int_equal(xml_elements("<svg><text>a < b</text></svg>"), -1);
    assert_int_equal(xml_elements("<svg><text>a & b</text></svg>"), -1);
}

static void assert_contains(const char *text, const char *want)
{
    if (!strstr(text, want))
        fprintf(stderr, "the report lacks: %s\n", want);
    assert_non_null(strstr(text, want));
}

/* The fixture's /answer (test_results_fixture.h) as the report must say it, formatted here. */
static void check_answer_text(const fx_t *fx, const char *text)
{
    char want[512];
    /* ties of scenario 0: top[0] and top[1], differing in tp and pp, values in the space's order */
    char tp[64] = "", pp[64] = "";
    const int tps[3] = {1, 2, 4}, pps[2] = {1, 2};
    for (int v = 0; v < 3; v++)
        if (fx->top[0].candidate.tp == tps[v] || fx->top[1].candidate.tp == tps[v])
            snprintf(tp + strlen(tp), sizeof tp - strlen(tp), "%s%d", tp[0] ? ", " : "", tps[v]);
    for (int v = 0; v < 2; v++)
        if (fx->top[0].candidate.pp == pps[v] || fx->top[1].candidate.pp == pps[v])
            snprintf(pp + strlen(pp), sizeof pp - strlen(pp), "%s%d", pp[0] ? ", " : "", pps[v]);
    snprintf(want, sizeof want,
             "  tied: 2 candidates with the same time, differing only in tp {%s}, pp {%s}\n", tp, pp);
    assert_contains(text, want);
    snprintf(want, sizeof want, "the simplest of them (candidate %lld;", (long long)fx->top[1].index);
    assert_contains(text, want);
    assert_contains(text, "  tied: no other candidate has the same time\n");
    const sax_record_t *ll = &fx->bpv[1];
    snprintf(want, sizeof want,
             "best lossless (the best is lossy, compression none): %.4f s, %+.2f %% (candidate %lld)",
             ll->result.iteration_time_s,
             100.0 * (ll->result.iteration_time_s / fx->best[0].result.iteration_time_s - 1.0),
             (long long)ll->index);
    assert_contains(text, want);
    snprintf(want, sizeof want, "speedup = placement 1.500x x scheduling 0.800x x network %.3fx\n",
             fx->attribution[0].factor[2]);
    assert_contains(text, want);
    assert_contains(text, "speedup not split: every order of mixing");
    snprintf(want, sizeof want,
             "speedup = placement 2.000x x scheduling 1.000x x network %.3fx (4 of 6 orders",
             fx->attribution[3].factor[2]);
    assert_contains(text, want);
    const sax_record_t *ob = &fx->baseline_best[1];
    snprintf(
        want, sizeof want,
        "network-oblivious pick (sites merged into one; candidate %lld): predicted 0.9000 s on the merged "
        "network, %.4f s on the real network: the best is %.3fx faster",
        (long long)ob->index, ob->result.iteration_time_s,
        ob->result.iteration_time_s / fx->best[0].result.iteration_time_s);
    assert_contains(text, want);
    assert_contains(text,
                    "predicted 1.9000 s on the merged network, invalid on the real network (tp_domain)");
    assert_contains(text,
                    "\nRobust over the 2 scenarios (least worst regret = time / scenario's best - 1, among 7 "
                    "candidates; optimal over the whole space)");
    assert_contains(text, "  worst regret 25.00 %; per scenario: 10.00 25.00 %\n");
    assert_contains(text, "  within 5 % of the best in every scenario: 2 of the 7 candidates compared\n");
    assert_contains(text, "     1.00 %  tp=1 pp=1 ");
    assert_contains(text, "     2.00 %  tp=2 pp=1 ");
}

static void test_report_text_and_plots(void **state)
{
    (void)state;
    fx_t *fx = g_fx;
    sax_results_data_t d;
    sax_error_t err = {{0}};
    assert_int_equal(sax_results_read(g_all, true, &d, &err), SAX_OK);
    char dir[700];
    snprintf(dir, sizeof dir, "%s/plots", g_dir);
    FILE *out = tmpfile();
    sax_status_t st = sax_report_write(out, &d, dir, &err);
    char *text = captured(out);
    if (st != SAX_OK)
        fprintf(stderr, "%s\n", err.text);
    assert_int_equal(st, SAX_OK);
    sax_results_data_fini(&d);

    /* speedup = baseline time / best time, from the fixture's brute-force reductions */
    for (int s = 0; s < FX_SCENARIOS; s++) {
        char want[128];
        /* in the configuration's unit: 1.25e12 and 5e12 B/s are 10 and 40 Tbit/s */
        snprintf(want, sizeof want, "Scenario %d: site_links[0].bandwidth = %s", s,
                 s ? "40 Tbit/s" : "10 Tbit/s");
        assert_non_null(strstr(text, want));
        for (int b = 0; b < 2; b++) {
            const sax_record_t *bl = &fx->baseline_best[s * 2 + b];
            snprintf(want, sizeof want, "%8.3fx",
                     bl->result.iteration_time_s / fx->best[s].result.iteration_time_s);
            assert_non_null(strstr(text, want));
        }
    }
    /* scenario 0: best t = 1.0 (j = 0); production (order 0, 1f1b) best is also j = 0 -> 1.000x;
     * tp1 (tp = 1: j % 3 == 0) best is j = 0 as well */
    assert_non_null(strstr(text, "production"));
    assert_non_null(strstr(text, "best: 1 s per iteration"));
    assert_non_null(strstr(text, "memory 120"));
    /* per placement: scenario 0's fastest of both orders is t = 1.0 (j = 0 for order 0; j = 303,
     * 303 * 37 = 111 * 101, for order 1) */
    assert_non_null(strstr(text, "Best step time per placement"));
    assert_non_null(strstr(text, "    tp-cp-pp-dp    tp-cp-dp-pp\n"));
    assert_non_null(strstr(text, "\n  0                     1*             1*\n"));
    check_answer_text(fx, text);
    assert_null(strstr(text, "this file has no /answer"));
    free(text);

    char p[800];
    const char *pareto_must[] = {"<polyline",      "step time (s)",   "cross-site traffic per iteration (GB)",
                                 "Pareto front (", "production",      "tp1",
                                 "best",           "candidates (540)"};
    snprintf(p, sizeof p, "%s/pareto-s0.svg", dir);
    assert_svg(p, pareto_must, 8);
    const char *bars_must[] = {"compute",    "bubble", "exposed_tp", "exposed_dp", "time per iteration (s)",
                               "production", "<rect"};
    snprintf(p, sizeof p, "%s/breakdown-s1.svg", dir);
    assert_svg(p, bars_must, 7);
    /* the oblivious pick beside the best and the baselines where it runs on the real network */
    const char *bars0_must[] = {"oblivious pick", "oblivious pick: predicted 0.9 s", "tp1"};
    snprintf(p, sizeof p, "%s/breakdown-s0.svg", dir);
    assert_svg(p, bars0_must, 3);
    char *bars1 = NULL;
    snprintf(p, sizeof p, "%s/breakdown-s1.svg", dir);
    assert_non_null(bars1 = slurp(p));
    assert_null(strstr(bars1, "oblivious pick")); /* invalid there (tp_domain): no bar */
    free(bars1);
    snprintf(p, sizeof p, "%s/robust-regret.svg", dir);
    const char *robust_must[] = {"Regret of the robust candidate", "regret 10.00 %", "regret 25.00 %",
                                 "5 % of the best", "within 5 % everywhere: 2 of 7"};
    assert_svg(p, robust_must, 5);
    char tip0[64], tip1[64], tip2[64];
    snprintf(tip2, sizeof tip2, "production: network %.3fx", fx->attribution[2].factor[2]);
    snprintf(tip0, sizeof tip0, "production: placement %.3fx", 1.5);
    snprintf(tip1, sizeof tip1, "production: scheduling %.3fx", 0.8);
    const char *attr0_must[] = {"Where each baseline's speedup comes from",
                                "speedup over the baseline (log scale)",
                                tip0,
                                tip1,
                                "not split",
                                "6 of 6 orders"};
    snprintf(p, sizeof p, "%s/attribution-s0.svg", dir);
    assert_svg(p, attr0_must, 6);
    const char *attr1_must[] = {tip2, "4 of 6 orders", "tp1: placement 2.000x"};
    snprintf(p, sizeof p, "%s/attribution-s1.svg", dir);
    assert_svg(p, attr1_must, 3);
    const char *scen_must[] = {"site_links[0].bandwidth (Tbit/s)",
                               "tp-cp-pp-dp",
                               "tp-cp-dp-pp", /* the configuration's unit */
                               "speedup over production",
                               "best step time (s)",
                               "best of all placements"};
    snprintf(p, sizeof p, "%s/scenario-var0.svg", dir);
    assert_svg(p, scen_must, 6);
}

/* Indices of CSV data rows of scenario s (column 0 index, column 1 scenario). */
static int csv_indices(const char *csv, int s, int64_t *idx, int max)
{
    int n = 0;
    const char *line = strchr(csv, '\n') + 1;
    while (*line) {
        long long i;
        int sc;
        if (sscanf(line, "%lld,%d,", &i, &sc) == 2 && sc == s && n < max)
            idx[n++] = i;
        line = strchr(line, '\n');
        if (!line)
            break;
        line++;
    }
    return n;
}

static void check_fronts_against_fixture(const char *csv)
{
    fx_t *fx = g_fx;
    for (int s = 0; s < FX_SCENARIOS; s++) {
        int64_t got[FX_ROWS];
        int n = csv_indices(csv, s, got, FX_ROWS);
        int want = 0;
        for (int64_t i = 0; i < fx->n_pareto; i++) {
            if (fx->pareto[i].scenario != s)
                continue;
            bool found = false;
            for (int j = 0; j < n; j++)
                found = found || got[j] == fx->pareto[i].index;
            assert_true(found);
            want++;
        }
        assert_int_equal(n, want);
    }
}

static void test_pareto_csv(void **state)
{
    (void)state;
    char csv_path[700], svg_path[700];
    snprintf(csv_path, sizeof csv_path, "%s/front.csv", g_dir);
    snprintf(svg_path, sizeof svg_path, "%s/front.svg", g_dir);
    sax_pareto_opts_t o = {.path = g_all, .scenario = -1, .csv_path = csv_path, .svg_path = svg_path};
    sax_error_t err = {{0}};
    assert_int_equal(sax_pareto_parse_objectives("iteration_time_s,cross_site_bytes_per_iteration", &o, &err),
                     SAX_OK);
    FILE *out = tmpfile();
    sax_status_t st = sax_pareto_report(&o, out, &err);
    char *text = captured(out);
    if (st != SAX_OK)
        fprintf(stderr, "%s\n", err.text);
    assert_int_equal(st, SAX_OK);
    assert_non_null(strstr(text, "Scenario 1 ("));
    free(text);
    char *csv = slurp(csv_path);
    assert_non_null(csv);
    /* the header is the documented row fields, in file order */
    const char *head = "index,scenario,tp,pp,dp,cp,ep,vpp,micro_batch,schedule,recompute,";
    assert_true(strncmp(csv, head, strlen(head)) == 0);
    assert_non_null(strstr(csv, ",exposed_dp_s,mem_weights_bytes,"));
    assert_non_null(strstr(csv, ",gpus_used\n"));
    /* enums by name in the rows */
    assert_non_null(strstr(csv, ",full,false,1,tp-cp-"));
    check_fronts_against_fixture(csv);
    free(csv);
    const char *svg_must[] = {"iteration_time_s (s)", "cross_site_bytes_per_iteration (GB)",
                              "Pareto front ("};
    assert_svg(svg_path, svg_must, 3);
}

static void test_pareto_without_rows(void **state)
{
    (void)state;
    char csv_path[700];
    snprintf(csv_path, sizeof csv_path, "%s/front-none.csv", g_dir);
    sax_pareto_opts_t o = {.path = g_none, .scenario = -1, .csv_path = csv_path};
    sax_error_t err = {{0}};
    FILE *out = tmpfile();
    assert_int_equal(sax_pareto_report(&o, out, &err), SAX_OK);
    char *text = captured(out);
    assert_non_null(strstr(text, "the front is exact"));
    free(text);
    char *csv = slurp(csv_path);
    check_fronts_against_fixture(csv); /* /pareto holds the whole two-objective front */
    free(csv);

    /* objectives outside the sweep's own: the output says the front may be partial */
    o.csv_path = NULL;
    assert_int_equal(sax_pareto_parse_objectives("mfu,memory_per_gpu_bytes", &o, &err), SAX_OK);
    out = tmpfile();
    assert_int_equal(sax_pareto_report(&o, out, &err), SAX_OK);
    text = captured(out);
    assert_non_null(strstr(text, "is that of these candidates only"));
    assert_non_null(strstr(text, "mfu (max), memory_per_gpu_bytes (min)"));
    free(text);
}

/* A sweep without baselines and without scenario variables: the file still reads back, the report
 * says what is missing, and every plot is still well-formed. */
static void test_minimal_sweep(void **state)
{
    (void)state;
    fx_t *fx = malloc(sizeof *fx);
    fx_init(fx, SAX_STORE_NONE);
    fx->space.n_baselines = 0;
    fx->space.n_scenario_vars = 0;
    fx->res.n_scenarios = 1;
    fx->res.scenario_values = NULL;
    fx->res.baseline_best = NULL;
    fx->res.n_top = FX_TOP_K;
    fx->res.n_bpv = 5;
    int64_t np = 0;
    while (np < fx->n_pareto && fx->pareto[np].scenario == 0)
        np++;
    fx->res.n_pareto = np;
    char path[700], dir[700];
    snprintf(path, sizeof path, "%s/minimal.h5", g_dir);
    snprintf(dir, sizeof dir, "%s/minimal-plots", g_dir);
    sax_error_t err = {{0}};
    assert_int_equal(sax_results_write(MPI_COMM_SELF, path, &fx->res, NULL, 0, NULL, 0, true, &err), SAX_OK);
    sax_results_data_t d;
    assert_int_equal(sax_results_read(path, true, &d, &err), SAX_OK);
    assert_int_equal(d.res.n_scenarios, 1);
    assert_int_equal(d.space.n_baselines, 0);
    assert_int_equal(d.space.n_scenario_vars, 0);
    assert_false(d.has_rows);
    FILE *out = tmpfile();
    sax_status_t st = sax_report_write(out, &d, dir, &err);
    char *text = captured(out);
    assert_int_equal(st, SAX_OK);
    assert_non_null(strstr(text, "Scenario 0: the only scenario"));
    assert_non_null(strstr(text, "no baselines in the configuration"));
    assert_non_null(strstr(text, "no scenario variables"));
    assert_non_null(strstr(text, "this file has no /answer")); /* an older sweep's file still reports */
    free(text);
    char p[800];
    const char *must[] = {"Pareto front (", "stored reductions ("};
    snprintf(p, sizeof p, "%s/pareto-s0.svg", dir);
    assert_svg(p, must, 2);
    const char *bars[] = {"best", "compute"};
    snprintf(p, sizeof p, "%s/breakdown-s0.svg", dir);
    assert_svg(p, bars, 2);
    sax_results_data_fini(&d);
    free(fx);
}

/* /rows in pieces: scenario ranges, strided reads, and a front streamed in batches of 7 rows equal
 * to the fixture's brute-force front (the front of a union is the front of the parts' fronts). */
static void test_streamed_rows(void **state)
{
    (void)state;
    fx_t *fx = g_fx;
    sax_results_data_t d;
    sax_error_t err = {{0}};
    assert_int_equal(sax_results_read(g_all, false, &d, &err), SAX_OK);
    assert_true(d.has_rows);
    assert_null(d.rows);
    sax_results_file_t *f = NULL;
    assert_int_equal(sax_results_rows_open(&d, &f, &err), SAX_OK);
    assert_non_null(f);
    assert_int_equal(sax_results_rows_total(f), FX_ROWS);
    int64_t first, n;
    assert_int_equal(sax_results_rows_scenario(f, 1, &first, &n, &err), SAX_OK);
    assert_int_equal(first, FX_PER_SCENARIO);
    assert_int_equal(n, FX_PER_SCENARIO);
    assert_int_equal(sax_results_rows_scenario(f, 2, &first, &n, &err), SAX_OK);
    assert_int_equal(n, 0);
    sax_record_t r[4];
    assert_int_equal(sax_results_rows_read(f, 10, 4, 100, r, &err), SAX_OK);
    for (int i = 0; i < 4; i++)
        assert_int_equal(r[i].index, 3 * (10 + 100 * i)); /* index = 3 j */
    assert_int_equal(sax_results_rows_read(f, FX_ROWS - 1, 2, 1, r, &err), SAX_ERR_INTERNAL);
    sax_results_rows_close(&f);
    assert_null(f);

    const int obj[2] = {sax_pareto_objective_lookup("iteration_time_s"),
                        sax_pareto_objective_lookup("cross_site_bytes_per_iteration")};
    for (int s = 0; s < FX_SCENARIOS; s++) {
        sax_results_front_t small, big;
        assert_int_equal(sax_results_front_batched(&d, s, obj, 2, 50, 7, &small, &err), SAX_OK);
        assert_int_equal(sax_results_front(&d, s, obj, 2, 50, &big, &err), SAX_OK);
        assert_int_equal(small.n_candidates, 540); /* 600 rows, j % 10 == 9 infeasible */
        assert_true(small.from_rows);
        assert_true(small.n_sample > 0 && small.n_sample <= 50);
        assert_int_equal(small.n_front, big.n_front);
        for (int64_t i = 0; i < small.n_front; i++)
            assert_int_equal(small.front[i].index, big.front[i].index);
        int want = 0;
        for (int64_t i = 0; i < fx->n_pareto; i++) {
            if (fx->pareto[i].scenario != s)
                continue;
            bool found = false;
            for (int64_t j = 0; j < small.n_front; j++)
                found = found || small.front[j].index == fx->pareto[i].index;
            assert_true(found);
            want++;
        }
        assert_int_equal(small.n_front, want);
        sax_results_front_fini(&small);
        sax_results_front_fini(&big);
    }
    sax_results_data_fini(&d);
}

static void test_bad_objectives_and_scenario(void **state)
{
    (void)state;
    sax_pareto_opts_t o = {.path = g_all, .scenario = -1};
    sax_error_t err = {{0}};
    sax_status_t st = sax_pareto_parse_objectives("iteration_time_s,speed", &o, &err);
    assert_int_equal(st, SAX_ERR_USAGE);
    assert_int_equal(sax_status_exit_code(st), 2);
    assert_non_null(strstr(err.text, "unknown objective 'speed'"));
    assert_non_null(strstr(err.text, "iteration_time_s (min)"));
    assert_non_null(strstr(err.text, "mfu (max)"));
    assert_non_null(strstr(err.text, "gpus_used (min)"));
    assert_int_equal(sax_pareto_parse_objectives("mfu,mfu", &o, &err), SAX_ERR_USAGE);
    assert_int_equal(sax_pareto_parse_objectives("", &o, &err), SAX_ERR_USAGE);

    sax_pareto_opts_t bad = {.path = g_all, .scenario = 7};
    FILE *out = tmpfile();
    assert_int_equal(sax_pareto_report(&bad, out, &err), SAX_ERR_USAGE);
    fclose(out);
    assert_non_null(strstr(err.text, "has 2 scenarios (0..1)"));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    snprintf(g_dir, sizeof g_dir, "%s/tests/io/reports/report-out", SAX_BINARY_DIR);
    mkdir(g_dir, 0755);
    snprintf(g_all, sizeof g_all, "%s/all.h5", g_dir);
    snprintf(g_none, sizeof g_none, "%s/none.h5", g_dir);
    g_fx = malloc(sizeof *g_fx);
    fx_init(g_fx, SAX_STORE_ALL);
    fx_answer(g_fx, true);
    sax_error_t err = {{0}};
    int rc = 0;
    if (sax_results_write(MPI_COMM_SELF, g_all, &g_fx->res, g_fx->rows, FX_ROWS, NULL, 0, true, &err) !=
        SAX_OK)
        rc = 1;
    g_fx->res.store = SAX_STORE_NONE;
    g_fx->res.answer = NULL; /* as sweeps wrote before /answer existed */
    if (rc == 0 &&
        sax_results_write(MPI_COMM_SELF, g_none, &g_fx->res, NULL, 0, NULL, 0, true, &err) != SAX_OK)
        rc = 1;
    if (rc == 0) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_xml_checker_catches_errors),
            cmocka_unit_test(test_report_text_and_plots),
            cmocka_unit_test(test_pareto_csv),
            cmocka_unit_test(test_pareto_without_rows),
            cmocka_unit_test(test_bad_objectives_and_scenario),
            cmocka_unit_test(test_streamed_rows),
            cmocka_unit_test(test_minimal_sweep),
        };
        rc = cmocka_run_group_tests(tests, NULL, NULL);
    } else {
        fprintf(stderr, "writing the fixture failed: %s\n", err.text);
    }
    free(g_fx);
    MPI_Finalize();
    return rc;
}
