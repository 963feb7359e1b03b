/* test_nccl_table.c - the nccl-tests text parser on hand-written samples of both output shapes
 * (nccl-tests >= 2.13 with redop/root columns, and the 2.x shape without them), checked against the
 * numbers printed in the samples and against nccl-tests' own definitions (doc/PERFORMANCE.md):
 * algbw = size / time, busbw = algbw x 2(n-1)/n for all_reduce and x (n-1)/n for all_gather. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sax_calibration.h"

#include <math.h>
#include <string.h>

#define DATA SAX_TEST_DATA "/calibration/"

static void test_modern_all_reduce(void **state)
{
    (void)state;
    sax_nccl_table_t t;
    sax_error_t err = {{0}};
    assert_int_equal(sax_nccl_load(DATA "all_reduce_perf_pod16.txt", &t, &err), SAX_OK);
    assert_int_equal(t.n_rows, 28); /* 8 B .. 1 GiB by factors of 2 */
    assert_int_equal(t.ranks, 16);
    assert_string_equal(t.binary, "all_reduce_perf");
    /* first row: "8  2  float  sum  -1  43.90 0.00 0.00 0  45.34 0.00 0.00 0" */
    assert_true(t.rows[0].size_bytes == 8.0);
    assert_true(t.rows[0].count == 2.0);
    assert_true(fabs(t.rows[0].time_s[0] - 43.90e-6) < 1e-12);
    assert_true(fabs(t.rows[0].time_s[1] - 45.34e-6) < 1e-12);
    assert_true(t.rows[0].wrong[0] == 0.0);
    /* 1 MiB row: "1048576 262144 float sum -1 86.37 12.14 22.76 0 88.12 11.90 22.31 0" */
    const sax_nccl_row_t *r = &t.rows[17];
    assert_true(r->size_bytes == 1048576.0);
    assert_true(r->count == 262144.0);
    assert_true(fabs(r->time_s[0] - 86.37e-6) < 1e-12);
    assert_true(fabs(r->algbw_Bps[0] - 12.14e9) < 1.0);
    assert_true(fabs(r->busbw_Bps[1] - 22.31e9) < 1.0);
    /* last row: time printed with one decimal at 5 digits before the point */
    assert_true(t.rows[27].size_bytes == 1073741824.0);
    assert_true(fabs(t.rows[27].time_s[0] - 44686.9e-6) < 1e-10);
    /* Column semantics: algbw = size/time, busbw = 2(n-1)/n algbw (within the printed rounding). */
    for (int i = 0; i < t.n_rows; i++)
        for (int h = 0; h < 2; h++) {
            const sax_nccl_row_t *row = &t.rows[i];
            if (row->algbw_Bps[h] < 1e9)
                continue;
            assert_true(fabs(row->size_bytes / row->time_s[h] / row->algbw_Bps[h] - 1.0) < 0.01);
            assert_true(fabs(row->busbw_Bps[h] / row->algbw_Bps[h] - 2.0 * 15.0 / 16.0) < 0.01);
        }
    sax_nccl_table_fini(&t);
}

static void test_modern_all_gather_sizes_are_totals(void **state)
{
    (void)state;
    sax_nccl_table_t t;
    sax_error_t err = {{0}};
    assert_int_equal(sax_nccl_load(DATA "all_gather_perf_pod16.txt", &t, &err), SAX_OK);
    assert_int_equal(t.n_rows, 21);
    assert_int_equal(t.ranks, 16);
    assert_string_equal(t.binary, "all_gather_perf");
    /* nccl-tests prints the gathered size and the per-rank count: size = count * 4 B * 16 ranks */
    for (int i = 0; i < t.n_rows; i++) {
        assert_true(t.rows[i].size_bytes == t.rows[i].count * 4.0 * 16.0);
        for (int h = 0; h < 2; h++)
            if (t.rows[i].algbw_Bps[h] >= 1e9)
                assert_true(fabs(t.rows[i].busbw_Bps[h] / t.rows[i].algbw_Bps[h] - 15.0 / 16.0) < 0.01);
    }
    sax_nccl_table_fini(&t);
}

static void test_v2_shape_without_redop_root(void **state)
{
    (void)state;
    sax_nccl_table_t t;
    sax_error_t err = {{0}};
    assert_int_equal(sax_nccl_load(DATA "all_gather_perf_nvlink8_v2.txt", &t, &err), SAX_OK);
    assert_int_equal(t.n_rows, 11);
    assert_int_equal(t.ranks, 8);
    assert_string_equal(t.binary, "");
    /* "1048576 32768 float 10.42 100.63 88.05 0e+00 10.35 101.31 88.65 0e+00" */
    assert_true(t.rows[5].size_bytes == 1048576.0);
    assert_true(t.rows[5].count == 32768.0);
    assert_true(fabs(t.rows[5].time_s[0] - 10.42e-6) < 1e-12);
    assert_true(fabs(t.rows[5].time_s[1] - 10.35e-6) < 1e-12);
    assert_true(fabs(t.rows[5].busbw_Bps[1] - 88.65e9) < 1.0);
    assert_true(t.rows[5].wrong[0] == 0.0);
    sax_nccl_table_fini(&t);

    assert_int_equal(sax_nccl_load(DATA "all_reduce_perf_nvlink8_v2.txt", &t, &err), SAX_OK);
    assert_int_equal(t.n_rows, 11);
    assert_true(t.rows[0].size_bytes == 1024.0 && t.rows[0].count == 256.0);
    sax_nccl_table_fini(&t);
}

static void test_rows_without_header(void **state)
{
    (void)state;
    sax_nccl_table_t t;
    sax_error_t err = {{0}};
    const char *text = "# a trimmed log\n"
                       "     1048576        262144     float     sum      -1    100.0   10.49   19.66      0"
                       "    101.5   10.33   19.37    N/A\n"
                       "     2097152        524288     float     sum      -1    150.0   13.98   26.21      0"
                       "    151.0   13.89   26.04      0\n";
    assert_int_equal(sax_nccl_parse(text, "inline", &t, &err), SAX_OK);
    assert_int_equal(t.n_rows, 2);
    assert_int_equal(t.ranks, 0);
    assert_true(fabs(t.rows[0].time_s[1] - 101.5e-6) < 1e-12);
    assert_true(t.rows[0].wrong[1] == -1.0); /* N/A */
    assert_true(fabs(t.rows[1].time_s[0] - 150.0e-6) < 1e-12);
    sax_nccl_table_fini(&t);

    const char *three_lead =
        "        4096          1024     float    20.00    0.20    0.36  0e+00    21.00    0.20"
        "    0.34  0e+00\n";
    assert_int_equal(sax_nccl_parse(three_lead, "inline", &t, &err), SAX_OK);
    assert_int_equal(t.n_rows, 1);
    assert_true(fabs(t.rows[0].time_s[1] - 21.0e-6) < 1e-12);
    sax_nccl_table_fini(&t);
}

static void test_bad_input(void **state)
{
    (void)state;
    sax_nccl_table_t t;
    sax_error_t err = {{0}};
    assert_int_equal(sax_nccl_parse("# only comments\n# nothing measured\n", "empty.txt", &t, &err),
                     SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "empty.txt"));
    assert_int_equal(t.n_rows, 0);

    const char *bad =
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time"
        "   algbw   busbw #wrong\n"
        "        4096          1024     float     sum      -1    fast    0.20    0.36      0    21.00"
        "    0.20    0.34      0\n";
    assert_int_equal(sax_nccl_parse(bad, "bad.txt", &t, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "bad.txt:2"));
    assert_non_null(strstr(err.text, "fast"));

    assert_int_equal(sax_nccl_load(DATA "does-not-exist.txt", &t, &err), SAX_ERR_INPUT);
    assert_non_null(strstr(err.text, "does-not-exist.txt"));
}

/* Mutated samples (tokens dropped, duplicated or replaced, characters flipped, lines cut) must
 * parse or fail with a message, never read out of bounds (run under the sanitizer build too). */
static uint64_t fuzz_state = 12345u;
static unsigned fuzz_next(unsigned n)
{
    fuzz_state = fuzz_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((fuzz_state >> 33) % n);
}

static void test_mutations_do_not_crash(void **state)
{
    (void)state;
    FILE *f = fopen(DATA "all_reduce_perf_pod16.txt", "rb");
    assert_non_null(f);
    static char orig[1 << 16], text[1 << 17];
    size_t n = fread(orig, 1, sizeof orig - 1, f);
    fclose(f);
    orig[n] = '\0';
    static const char *const junk[] = {"#",
                                       "time",
                                       "algbw",
                                       "busbw",
                                       "size",
                                       "count",
                                       "-1",
                                       "N/A",
                                       "1e308",
                                       "nan",
                                       "\n",
                                       "  ",
                                       "#wrong",
                                       "Rank",
                                       "0",
                                       "-",
                                       "9999999999999999999999"};
    int ok = 0, failed = 0;
    for (int round = 0; round < 3000; round++) {
        size_t len = 0;
        unsigned rate = 200u << (round % 8); /* from several mutations per line to one per file */
        for (size_t i = 0; i < n && len < sizeof text - 64; i++) {
            unsigned r = fuzz_next(rate);
            if (r == 0)
                continue; /* drop a character */
            if (r == 1) {
                const char *j = junk[fuzz_next(sizeof junk / sizeof junk[0])];
                size_t jl = strlen(j);
                memcpy(text + len, j, jl);
                len += jl;
            }
            if (r == 2)
                text[len++] = (char)(1 + fuzz_next(255));
            text[len++] = orig[i];
        }
        text[len] = '\0';
        sax_nccl_table_t t;
        sax_error_t err = {{0}};
        sax_status_t st = sax_nccl_parse(text, "mutated", &t, &err);
        if (st == SAX_OK) {
            ok++;
            assert_true(t.n_rows > 0);
            for (int r = 0; r < t.n_rows; r++)
                assert_true(t.rows[r].time_s[0] > 0.0 || t.rows[r].time_s[1] > 0.0);
            sax_nccl_table_fini(&t);
        } else {
            failed++;
            assert_int_equal(st, SAX_ERR_INPUT);
            assert_non_null(strstr(err.text, "mutated"));
        }
    }
    assert_true(ok > 0 && failed > 0); /* both outcomes exercised */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modern_all_reduce),
        cmocka_unit_test(test_modern_all_gather_sizes_are_totals),
        cmocka_unit_test(test_v2_shape_without_redop_root),
        cmocka_unit_test(test_rows_without_header),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_mutations_do_not_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
