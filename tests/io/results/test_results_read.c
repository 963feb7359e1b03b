/* test_results_read.c - the reader refuses what is not a sax results file, each with its own
 * message (exit status 2 territory: SAX_ERR_INPUT). Serial HDF5 only, no MPI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <hdf5.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sax_results.h"

static char g_dir[512];

static void path_of(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", g_dir, name); }

/* An HDF5 file with optional sax_format / sax_format_version root attributes. */
static void make_h5(const char *path, const char *format, int version)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t s = H5Screate(H5S_SCALAR);
    if (format) {
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, H5T_VARIABLE);
        hid_t a = H5Acreate2(f, "sax_format", t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, &format);
        H5Aclose(a);
        H5Tclose(t);
    }
    if (version) {
        hid_t a = H5Acreate2(f, "sax_format_version", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_INT, &version);
        H5Aclose(a);
    }
    H5Sclose(s);
    H5Fclose(f);
}

static void expect_refusal(const char *path, const char *fragment)
{
    sax_results_data_t d;
    sax_error_t err = {{0}};
    assert_int_equal(sax_results_read(path, false, &d, &err), SAX_ERR_INPUT);
    assert_int_equal(sax_status_exit_code(SAX_ERR_INPUT), 2);
    if (!strstr(err.text, fragment))
        fprintf(stderr, "message: %s\n", err.text);
    assert_non_null(strstr(err.text, fragment));
    assert_non_null(strstr(err.text, path)); /* names the file */
    assert_null(d.best);                     /* nothing left allocated */
}

static void test_missing_file(void **state)
{
    (void)state;
    char p[600];
    path_of(p, sizeof p, "no-such-file.h5");
    remove(p);
    expect_refusal(p, "cannot open");
}

static void test_not_hdf5(void **state)
{
    (void)state;
    char p[600];
    path_of(p, sizeof p, "text.h5");
    FILE *f = fopen(p, "w");
    fputs("{\"not\": \"hdf5\"}\n", f);
    fclose(f);
    expect_refusal(p, "not an HDF5 file");
}

static void test_not_from_sax(void **state)
{
    (void)state;
    char p[600];
    path_of(p, sizeof p, "plain.h5");
    make_h5(p, NULL, 0);
    expect_refusal(p, "not a sax results file");
    path_of(p, sizeof p, "other-format.h5");
    make_h5(p, "netcdf-something", 1);
    expect_refusal(p, "not a sax results file (sax_format is \"netcdf-something\"");
}

static void test_incompatible_version(void **state)
{
    (void)state;
    char p[600];
    path_of(p, sizeof p, "future.h5");
    make_h5(p, SAX_RESULTS_FORMAT, 99);
    expect_refusal(p, "format version 99; this sax reads version 1");
}

static void test_truncated_content(void **state)
{
    (void)state;
    char p[600];
    path_of(p, sizeof p, "empty-sax.h5");
    make_h5(p, SAX_RESULTS_FORMAT, SAX_RESULTS_FORMAT_VERSION);
    expect_refusal(p, "root attribute 'config_json' is missing"); /* the first thing read after the format */
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "%s/tests/io/results/results-read", SAX_BINARY_DIR);
    mkdir(g_dir, 0755);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_file),      cmocka_unit_test(test_not_hdf5),
        cmocka_unit_test(test_not_from_sax),      cmocka_unit_test(test_incompatible_version),
        cmocka_unit_test(test_truncated_content),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
