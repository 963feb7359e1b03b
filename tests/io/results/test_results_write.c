/* test_results_write.c - the collective results writer at 1, 2 and 4 ranks: what a file holds
 * (checked against the fixture's closed formulas), that the writes are collective, that the
 * datasets' bytes do not depend on the number of ranks or on how rows are split, the
 * temporary-name / no-overwrite rules, and the pre-flight size check (its bound covers the file; a
 * file-size limit below it is refused). All collective calls of a test come before its asserts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_results_fixture.h"

static int g_rank, g_size;
static fx_t *g_fx;
static char g_dir[512];

static void out_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s-np%d.h5", g_dir, name, g_size);
}

/* Collective: the paths of a result and its reference, neither existing yet. */
static void fresh_pair(char *path, char *ref, size_t len, const char *name, const char *ref_name)
{
    out_path(path, len, name);
    out_path(ref, len, ref_name);
    if (g_rank == 0) {
        remove(path);
        remove(ref);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank r's share of the rows in one block: rank 0 gets none when there are several ranks (as a
 * master would), the others unequal blocks. */
static void my_block(int64_t *first, int64_t *count)
{
    if (g_size == 1) {
        *first = 0;
        *count = FX_ROWS;
        return;
    }
    int64_t weight_sum = 0, before = 0;
    for (int r = 1; r < g_size; r++)
        weight_sum += r;
    for (int r = 1; r < g_rank; r++)
        before += r;
    *first = g_rank == 0 ? 0 : FX_ROWS * before / weight_sum;
    int64_t end = g_rank == 0 ? 0 : FX_ROWS * (before + g_rank) / weight_sum;
    *count = end - *first;
}

static void assert_record_equal(const sax_record_t *want, const sax_record_t *got)
{
    assert_int_equal(want->index, got->index);
    assert_int_equal(want->scenario, got->scenario);
    for (int k = 0; k < SAX_KEY_COUNT; k++)
        assert_int_equal(sax_candidate_get(&want->candidate, (sax_key_t)k),
                         sax_candidate_get(&got->candidate, (sax_key_t)k));
    assert_int_equal(want->candidate.n_order, got->candidate.n_order);
    assert_memory_equal(want->candidate.order, got->candidate.order,
                        (size_t)want->candidate.n_order * sizeof want->candidate.order[0]);
    assert_int_equal(want->result.feasible, got->result.feasible);
    assert_int_equal(want->result.reason, got->result.reason);
#define CHECK_METRIC(field, unit, desc) assert_true(want->result.field == got->result.field);
    SAX_METRIC_LIST(CHECK_METRIC)
#undef CHECK_METRIC
    for (int p = 0; p < SAX_PHASE_COUNT; p++)
        assert_true(want->result.breakdown_s[p] == got->result.breakdown_s[p]);
    assert_true(want->result.mem_activations_bytes == got->result.mem_activations_bytes);
    assert_int_equal(want->result.gpus_used, got->result.gpus_used);
}

/* ---- what the file holds ------------------------------------------------------------------------ */

/* What the fixture's answer says, as read back (records by their index, scenario and time). */
static void assert_answer_equal(const sax_results_answer_t *want, const sax_results_data_t *d)
{
    const sax_results_answer_t *got = d->res.answer;
    assert_non_null(got);
    for (int s = 0; s < FX_SCENARIOS; s++) {
        assert_int_equal(got->ties[s].count, want->ties[s].count);
        assert_int_equal(got->ties[s].at_least, want->ties[s].at_least);
        assert_int_equal(got->ties[s].differ, want->ties[s].differ);
        assert_record_equal(&want->ties[s].simplest, &got->ties[s].simplest);
        assert_int_equal(got->lossless[s].lossy, want->lossless[s].lossy);
        assert_int_equal(got->lossless[s].noop, want->lossless[s].noop);
        assert_record_equal(&want->lossless[s].lossless, &got->lossless[s].lossless);
        if (want->oblivious) {
            assert_non_null(got->oblivious);
            assert_int_equal(got->oblivious[s].found, want->oblivious[s].found);
            assert_true(got->oblivious[s].merged_time_s == want->oblivious[s].merged_time_s);
            assert_string_equal(got->oblivious[s].invalid, want->oblivious[s].invalid);
            assert_record_equal(&want->oblivious[s].real, &got->oblivious[s].real);
        }
        for (int b = 0; b < 2; b++) {
            const sax_results_attribution_t *x = &want->attribution[s * 2 + b],
                                            *y = &got->attribution[s * 2 + b];
            assert_int_equal(y->valid, x->valid);
            if (!x->valid)
                continue;
            assert_int_equal(y->orders, x->orders);
            for (int g = 0; g < SAX_RESULTS_FACTOR_COUNT; g++)
                assert_true(y->factor[g] == x->factor[g]);
        }
        assert_true(got->robust.regret[s] == want->robust.regret[s]);
    }
    assert_true(got->robust.found && got->robust.exact);
    assert_true(got->robust.worst_regret == 0.25 && got->robust.bound == 0.3);
    assert_int_equal(got->robust.candidates, 7);
    assert_record_equal(&want->robust.pick, &got->robust.pick);
    assert_int_equal(got->robust.n_near, 2);
    assert_int_equal(got->robust.n_near_kept, 2);
    for (int i = 0; i < 2; i++) {
        assert_record_equal(&want->robust.near[i], &got->robust.near[i]);
        assert_true(got->robust.near_worst[i] == want->robust.near_worst[i]);
    }
}

static void test_roundtrip(void **state)
{
    (void)state;
    char path[600];
    out_path(path, sizeof path, "roundtrip");
    if (g_rank == 0)
        remove(path);
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t first, count;
    my_block(&first, &count);
    fx_t *fx = g_fx;
    fx->res.ranks = g_size;
    sax_results_write_stats_t stats;
    sax_error_t err = {{0}};
    /* Provenance comes from rank 0 even when other ranks see other hosts and clocks. */
    sax_results_t mine = fx->res;
    if (g_rank != 0) {
        mine.hosts = "some-other-host";
        mine.end_unix_s += g_rank;
        mine.command_line = "";
    }
    sax_status_t st = sax_results_write_stats(MPI_COMM_WORLD, path, &mine, fx->rows + first, count, NULL, 0,
                                              false, &stats, &err);
    int all_ok = 0, ok = st == SAX_OK;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (st != SAX_OK)
        fprintf(stderr, "rank %d: %s\n", g_rank, err.text);
    assert_int_equal(st, SAX_OK);
    assert_true(all_ok);
    /* Collective, really: MPI-IO did the writes together, not one rank at a time. */
    assert_int_not_equal(stats.rows_io_mode, H5D_MPIO_NO_COLLECTIVE);
    assert_int_equal(stats.rows_no_collective_cause, H5D_MPIO_COLLECTIVE);
    assert_int_not_equal(stats.summary_io_mode, H5D_MPIO_NO_COLLECTIVE);
    assert_int_equal(stats.rows, FX_ROWS);
    if (g_rank != 0)
        return;
    /* The pre-flight bound really bounds the file: the rows alone take 272 bytes each uncompressed. */
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true(stats.bound_bytes >= (double)sb.st_size);
    assert_true(stats.bound_bytes >= FX_ROWS * 272.0);

    sax_results_data_t d;
    st = sax_results_read(path, true, &d, &err);
    if (st != SAX_OK)
        fprintf(stderr, "%s\n", err.text);
    assert_int_equal(st, SAX_OK);
    assert_int_equal(d.format_version, 1);
    assert_string_equal(d.res.config_json, fx->res.config_json);
    assert_string_equal(d.res.version, "0.1.0");
    assert_string_equal(d.res.git_revision, "abcdef0");
    assert_string_equal(d.res.command_line, fx->res.command_line);
    assert_string_equal(d.res.hosts, "vm");
    assert_string_equal(d.res.pareto_objectives, "iteration_time_s,cross_site_bytes_per_iteration");
    assert_int_equal(d.res.ranks, g_size);
    assert_true(d.res.start_unix_s == 1764676800.0);
    assert_true(d.res.end_unix_s == 1764676810.5);
    assert_int_equal(d.res.evaluated, FX_ROWS);
    assert_int_equal(d.res.skipped, 7);
    /* j % 10 == 9 is infeasible: 60 of every 600 */
    assert_int_equal(d.res.infeasible[SAX_INFEASIBLE_MEMORY], FX_SCENARIOS * 60);
    assert_int_equal(d.res.infeasible[SAX_FEASIBLE], FX_SCENARIOS * 540);
    assert_int_equal(d.res.store, SAX_STORE_ALL);
    assert_int_equal(d.res.top_k, FX_TOP_K);

    /* the space */
    assert_int_equal(d.space.values[SAX_KEY_TP].n, 3);
    assert_int_equal(d.space.values[SAX_KEY_TP].v[2], 4);
    assert_int_equal(d.space.values[SAX_KEY_SCHEDULE].v[1], SAX_SCHEDULE_INTERLEAVED);
    assert_int_equal(d.space.n_orders, 2);
    assert_int_equal(d.space.order_len[1], 4);
    assert_int_equal(d.space.orders[1][2], SAX_DIM_DP);
    assert_int_equal(d.space.n_baselines, 2);
    assert_string_equal(d.space.baselines[0].name, "production");
    assert_int_equal(d.space.baselines[0].mask, (1u << SAX_KEY_ORDER) | (1u << SAX_KEY_SCHEDULE));
    assert_int_equal(d.space.baselines[1].value[SAX_KEY_TP], 1);
    assert_int_equal(d.space.n_scenario_vars, 1);
    assert_string_equal(d.space.scenario_vars[0].path, "site_links[0].bandwidth");
    assert_string_equal(d.space.scenario_vars[0].si_unit, "B/s");
    assert_string_equal(d.space.scenario_vars[0].unit, "Tbit/s"); /* the configuration's unit, kept */
    assert_true(d.space.scenario_vars[0].unit_si == 1.25e11);
    assert_int_equal(d.res.n_scenarios, 2);
    assert_true(d.res.scenario_values[1] == 5e12);

    /* every row, in (scenario, index) order, equal to the formula's row */
    assert_int_equal(d.n_rows, FX_ROWS);
    for (int64_t i = 0; i < FX_ROWS; i++) {
        sax_record_t want;
        fx_record(fx, i, &want);
        assert_record_equal(&want, &d.rows[i]);
    }
    /* row 5 of scenario 1 by hand: j = 5 -> tp 4, pp 2, 1f1b, t = 1 + 185 % 101 / 10 + 1 = 10.4 s */
    assert_int_equal(d.rows[FX_PER_SCENARIO + 5].candidate.tp, 4);
    assert_int_equal(d.rows[FX_PER_SCENARIO + 5].candidate.pp, 2);
    assert_true(fabs(d.rows[FX_PER_SCENARIO + 5].result.iteration_time_s - 10.4) < 1e-12);

    /* the reductions */
    for (int s = 0; s < FX_SCENARIOS; s++)
        assert_record_equal(&fx->best[s], &d.best[s]);
    /* fastest feasible of scenario 0: t = 1 + (j*37 % 101)/10 is smallest (1.0) at j*37 % 101 == 0, j = 0 */
    assert_int_equal(d.best[0].index, 0);
    assert_int_equal(d.res.n_top, FX_SCENARIOS * FX_TOP_K);
    for (int64_t i = 0; i < d.res.n_top; i++)
        assert_record_equal(&fx->top[i], &d.top[i]);
    assert_int_equal(d.res.n_pareto, fx->n_pareto);
    for (int64_t i = 0; i < d.res.n_pareto; i++)
        assert_record_equal(&fx->pareto[i], &d.pareto[i]);
    assert_int_equal(d.res.n_bpv, FX_SCENARIOS * 5);
    for (int64_t i = 0; i < d.res.n_bpv; i++) {
        assert_int_equal(d.bpv_key[i], fx->bpv_key[i]);
        assert_int_equal(d.bpv_value[i], fx->bpv_value[i]);
        assert_record_equal(&fx->bpv[i], &d.best_per_value[i]);
    }
    for (int i = 0; i < FX_SCENARIOS * 2; i++)
        assert_record_equal(&fx->baseline_best[i], &d.baseline_best[i]);
    assert_answer_equal(&fx->answer, &d);
    sax_results_data_fini(&d);
    fx->res.ranks = 1;
}

/* /answer: a file without it (as older sweeps wrote), and one without the oblivious pick
 * (--no-oblivious), both read back. */
static void test_answer_optional(void **state)
{
    (void)state;
    fx_t *fx = g_fx;
    char none[600], no_oblivious[600];
    fresh_pair(none, no_oblivious, sizeof none, "no-answer", "no-oblivious");
    sax_results_t res = fx->res;
    sax_results_answer_t ans = fx->answer;
    ans.oblivious = NULL;
    sax_error_t err = {{0}};
    res.answer = NULL;
    assert_int_equal(sax_results_write(MPI_COMM_WORLD, none, &res, NULL, 0, NULL, 0, true, &err), SAX_OK);
    res.answer = &ans;
    assert_int_equal(sax_results_write(MPI_COMM_WORLD, no_oblivious, &res, NULL, 0, NULL, 0, true, &err),
                     SAX_OK);
    if (g_rank != 0)
        return;
    sax_results_data_t d;
    assert_int_equal(sax_results_read(none, false, &d, &err), SAX_OK);
    assert_null(d.res.answer);
    assert_int_equal(d.res.n_scenarios, FX_SCENARIOS);
    sax_results_data_fini(&d);
    assert_int_equal(sax_results_read(no_oblivious, false, &d, &err), SAX_OK);
    assert_non_null(d.res.answer);
    assert_null(d.res.answer->oblivious);
    assert_answer_equal(&ans, &d);
    sax_results_data_fini(&d);
}

/* ---- identical bytes whatever the number of ranks --------------------------------------------- */

typedef struct {
    char names[64][64];
    int n;
} names_t;

static herr_t collect(hid_t loc, const char *name, const H5O_info_t *info, void *data)
{
    (void)loc;
    names_t *nm = data;
    if (info->type == H5O_TYPE_DATASET && nm->n < 64)
        snprintf(nm->names[nm->n++], 64, "%s", name);
    return 0;
}

/* Every dataset of `a` and `b`: same names, same file types, same bytes. */
static void assert_same_datasets(const char *a, const char *b)
{
    hid_t fa = H5Fopen(a, H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(b, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(fa >= 0 && fb >= 0);
    names_t na = {.n = 0}, nb = {.n = 0};
    H5Ovisit(fa, H5_INDEX_NAME, H5_ITER_INC, collect, &na);
    H5Ovisit(fb, H5_INDEX_NAME, H5_ITER_INC, collect, &nb);
    assert_int_equal(na.n, nb.n);
    assert_true(na.n >= 20); /* 17 keys + baselines + scenarios + best ... */
    for (int i = 0; i < na.n; i++) {
        assert_string_equal(na.names[i], nb.names[i]);
        hid_t da = H5Dopen2(fa, na.names[i], H5P_DEFAULT), db = H5Dopen2(fb, nb.names[i], H5P_DEFAULT);
        hid_t ta = H5Dget_type(da), tb = H5Dget_type(db);
        assert_true(H5Tequal(ta, tb) > 0);
        hssize_t n = H5Sget_simple_extent_npoints(H5Dget_space(da));
        assert_int_equal(n, H5Sget_simple_extent_npoints(H5Dget_space(db)));
        size_t bytes = (size_t)n * H5Tget_size(ta);
        unsigned char *ba = calloc(bytes + 1, 1), *bb = calloc(bytes + 1, 1);
        if (n > 0) {
            assert_true(H5Dread(da, ta, H5S_ALL, H5S_ALL, H5P_DEFAULT, ba) >= 0);
            assert_true(H5Dread(db, tb, H5S_ALL, H5S_ALL, H5P_DEFAULT, bb) >= 0);
        }
        assert_memory_equal(ba, bb, bytes + 1);
        free(ba);
        free(bb);
        H5Tclose(ta);
        H5Tclose(tb);
        H5Dclose(da);
        H5Dclose(db);
    }
    H5Fclose(fa);
    H5Fclose(fb);
}

static void test_identical_across_ranks(void **state)
{
    (void)state;
    fx_t *fx = g_fx;
    char path[600], ref[600];
    fresh_pair(path, ref, sizeof path, "cyclic", "serial-reference");
    /* Runs of 37 rows dealt round-robin, as a master handing out work chunks would. */
    enum { RUN = 37 };
    sax_record_t *mine = malloc(FX_ROWS * sizeof *mine);
    int64_t *runs = malloc((FX_ROWS / RUN + 1) * sizeof *runs);
    int64_t n_mine = 0, n_runs = 0;
    for (int64_t start = 0, k = 0; start < FX_ROWS; start += RUN, k++) {
        if (k % g_size != g_rank)
            continue;
        int64_t len = FX_ROWS - start < RUN ? FX_ROWS - start : RUN;
        memcpy(mine + n_mine, fx->rows + start, (size_t)len * sizeof *mine);
        n_mine += len;
        runs[n_runs++] = len;
    }
    /* Only rank 0's results matter: the others pass an empty one (even store = none). */
    sax_results_t blank;
    memset(&blank, 0, sizeof blank);
    sax_error_t err = {{0}};
    sax_status_t st = sax_results_write(MPI_COMM_WORLD, path, g_rank == 0 ? &fx->res : &blank, mine, n_mine,
                                        runs, n_runs, true, &err);
    if (st != SAX_OK)
        fprintf(stderr, "rank %d: %s\n", g_rank, err.text);
    sax_status_t st_ref = SAX_OK;
    if (g_rank == 0)
        st_ref = sax_results_write(MPI_COMM_SELF, ref, &fx->res, fx->rows, FX_ROWS, NULL, 0, true, &err);
    MPI_Barrier(MPI_COMM_WORLD);
    free(mine);
    free(runs);
    assert_int_equal(st, SAX_OK);
    if (g_rank != 0)
        return;
    assert_int_equal(st_ref, SAX_OK);
    assert_same_datasets(path, ref);
}

/* The compact accumulator (what a sweep with --store uses): runs of 53 rows dealt round-robin, a
 * begin_run per work chunk, an empty run in between; the same bytes as a single process. */
static void test_accumulator_identical(void **state)
{
    (void)state;
    fx_t *fx = g_fx;
    char path[600], ref[600];
    fresh_pair(path, ref, sizeof path, "accumulated", "accumulated-reference");
    enum { RUN = 53 };
    sax_error_t err = {{0}};
    sax_results_rows_t *acc = NULL;
    sax_status_t st = sax_results_rows_create(&fx->space, &acc, &err);
    for (int64_t start = 0, k = 0; st == SAX_OK && start < FX_ROWS; start += RUN, k++) {
        if (k % g_size != g_rank)
            continue;
        st = sax_results_rows_begin_run(acc, &err);
        if (k % 3 == 0 && st == SAX_OK) /* a chunk that stores nothing */
            st = sax_results_rows_begin_run(acc, &err);
        for (int64_t i = start; i < start + RUN && i < FX_ROWS && st == SAX_OK; i++)
            st = sax_results_rows_add(acc, &fx->rows[i], &err);
    }
    int64_t mine = sax_results_rows_count(acc), total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    sax_results_write_stats_t stats;
    sax_status_t wst = sax_results_write_rows(MPI_COMM_WORLD, path, &fx->res, acc, true, &stats, &err);
    sax_status_t rst = SAX_OK;
    if (g_rank == 0)
        rst = sax_results_write(MPI_COMM_SELF, ref, &fx->res, fx->rows, FX_ROWS, NULL, 0, true, &err);
    MPI_Barrier(MPI_COMM_WORLD);
    sax_results_rows_destroy(&acc);
    assert_null(acc);
    assert_int_equal(st, SAX_OK);
    assert_int_equal(total, FX_ROWS);
    assert_int_equal(wst, SAX_OK);
    assert_int_equal(stats.rows, FX_ROWS);
    assert_int_equal(stats.rows_no_collective_cause, 0);
    if (g_rank != 0)
        return;
    assert_int_equal(rst, SAX_OK);
    assert_same_datasets(path, ref);
}

/* ---- temporary name, no overwrite, bad runs ---------------------------------------------------- */

static int count_tmp_files(void)
{
    int n = 0;
    DIR *d = opendir(g_dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, ".tmp.") != NULL;
    if (d)
        closedir(d);
    return n;
}

static void test_no_overwrite(void **state)
{
    (void)state;
    fx_t *fx = g_fx;
    char path[600];
    out_path(path, sizeof path, "exists");
    if (g_rank == 0) {
        FILE *f = fopen(path, "w");
        fputs("precious\n", f);
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    fx->res.store = SAX_STORE_NONE;
    sax_error_t err = {{0}};
    sax_status_t refused = sax_results_write(MPI_COMM_WORLD, path, &fx->res, NULL, 0, NULL, 0, false, &err);
    char first_message[sizeof err.text];
    memcpy(first_message, err.text, sizeof first_message);
    char content[32] = {0};
    if (g_rank == 0) {
        FILE *f = fopen(path, "r");
        fgets(content, sizeof content, f);
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    sax_status_t forced = sax_results_write(MPI_COMM_WORLD, path, &fx->res, NULL, 0, NULL, 0, true, &err);
    MPI_Barrier(MPI_COMM_WORLD);
    sax_results_data_t d;
    sax_status_t read = g_rank == 0 ? sax_results_read(path, true, &d, &err) : SAX_OK;
    int tmp_left = g_rank == 0 ? count_tmp_files() : 0;
    fx->res.store = SAX_STORE_ALL;

    assert_int_equal(refused, SAX_ERR_INPUT);
    assert_non_null(strstr(first_message, "--force"));
    assert_int_equal(forced, SAX_OK);
    if (g_rank != 0)
        return;
    assert_string_equal(content, "precious\n");
    assert_int_equal(read, SAX_OK);
    assert_int_equal(d.res.store, SAX_STORE_NONE);
    assert_null(d.rows); /* --store none: no /rows dataset */
    assert_int_equal(d.n_rows, 0);
    sax_results_data_fini(&d);
    assert_int_equal(tmp_left, 0);
}

static void test_interleaved_runs_refused(void **state)
{
    (void)state;
    fx_t *fx = g_fx;
    char path[600];
    out_path(path, sizeof path, "interleaved");
    if (g_rank == 0)
        remove(path);
    MPI_Barrier(MPI_COMM_WORLD);
    /* Two runs on every rank, rows 0..9 and rows 5..14: they overlap. */
    sax_record_t rows[20];
    memcpy(rows, fx->rows, 10 * sizeof rows[0]);
    memcpy(rows + 10, fx->rows + 5, 10 * sizeof rows[0]);
    int64_t runs[2] = {10, 10};
    sax_error_t err = {{0}};
    sax_status_t st = sax_results_write(MPI_COMM_WORLD, path, &fx->res, rows, 20, runs, 2, false, &err);
    MPI_Barrier(MPI_COMM_WORLD);
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    int tmp_left = g_rank == 0 ? count_tmp_files() : 0;
    assert_int_equal(st, SAX_ERR_INTERNAL);
    assert_non_null(strstr(err.text, "interleave"));
    assert_false(exists);
    assert_int_equal(tmp_left, 0);
}

/* A file-size limit below what the file needs, on the last rank only: every rank refuses before
 * anything is created (SAX_ERR_IO, exit status 1), with a message naming the file and the limit. */
static void test_size_limit_refused(void **state)
{
    (void)state;
    char path[600];
    out_path(path, sizeof path, "limited");
    if (g_rank == 0)
        remove(path);
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t first, count;
    my_block(&first, &count);
    struct rlimit saved, small;
    int got = getrlimit(RLIMIT_FSIZE, &saved) == 0;
    small = saved;
    small.rlim_cur = 64 * 1024;
    int limited = got && g_rank == g_size - 1 &&
                  (saved.rlim_max == RLIM_INFINITY || saved.rlim_max >= small.rlim_cur) &&
                  setrlimit(RLIMIT_FSIZE, &small) == 0;
    sax_error_t err = {{0}};
    sax_status_t st =
        sax_results_write(MPI_COMM_WORLD, path, &g_fx->res, g_fx->rows + first, count, NULL, 0, false, &err);
    int restored = !limited || setrlimit(RLIMIT_FSIZE, &saved) == 0;
    MPI_Barrier(MPI_COMM_WORLD);
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    int tmp_left = g_rank == 0 ? count_tmp_files() : 0;
    assert_true(got && restored);
    assert_int_equal(st, SAX_ERR_IO);
    assert_int_equal(sax_status_exit_code(st), 1);
    assert_non_null(strstr(err.text, path));
    assert_non_null(strstr(err.text, "the file-size limit (ulimit -f) is 64 KiB"));
    assert_false(exists);
    assert_int_equal(tmp_left, 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    if (g_rank != 0 && !freopen("/dev/null", "w", stdout))
        return 1;
    /* Under the working directory (CTest: the build's tests/io/results, where the other results
     * tests find results-out-np1/roundtrip-np1.h5), so that the valgrind run of this binary, in a
     * directory of its own, never meets a concurrent run's files. */
    char cwd[400] = ".";
    if (g_rank == 0 && !getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, ".");
    MPI_Bcast(cwd, (int)sizeof cwd, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(g_dir, sizeof g_dir, "%s/results-out-np%d", cwd, g_size);
    if (g_rank == 0)
        mkdir(g_dir, 0755);
    MPI_Barrier(MPI_COMM_WORLD);
    g_fx = malloc(sizeof *g_fx);
    fx_init(g_fx, SAX_STORE_ALL);
    fx_answer(g_fx, true);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),          cmocka_unit_test(test_identical_across_ranks),
        cmocka_unit_test(test_answer_optional),    cmocka_unit_test(test_accumulator_identical),
        cmocka_unit_test(test_no_overwrite),       cmocka_unit_test(test_interleaved_runs_refused),
        cmocka_unit_test(test_size_limit_refused),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL), any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    free(g_fx);
    MPI_Finalize();
    return any;
}
