/* test_units.c - the quantity parser against conversions worked out by hand from the SI and IEC
 * prefix definitions (k = 1e3, Gi = 2^30, 1 bit = 1/8 B), and its rejections. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sax_config.h"

#include <math.h>
#include <string.h>

typedef struct {
    const char *text;
    sax_unit_kind_t kind;
    double si;
} case_t;

static void check_close(const char *text, double got, double want)
{
    if (!(fabs(got - want) <= 1e-12 * fabs(want))) {
        print_error("\"%s\": got %.17g, want %.17g\n", text, got, want);
        fail();
    }
}

static void test_conversions(void **state)
{
    (void)state;
    static const case_t cases[] = {
        /* the contract's examples */
        {"80 GiB", SAX_UNIT_BYTES, 85899345920.0},  /* 80 x 2^30 */
        {"3.35 TB/s", SAX_UNIT_BANDWIDTH, 3.35e12}, /* decimal tera */
        {"400 Gbit/s", SAX_UNIT_BANDWIDTH, 5e10},   /* 400e9 bits / 8 */
        {"50 GB/s", SAX_UNIT_BANDWIDTH, 5e10},      /* same rate in bytes */
        {"989 TFLOP/s", SAX_UNIT_FLOPS, 9.89e14},   /* */
        {"10 us", SAX_UNIT_TIME, 1e-5},             /* */
        {"2 ms", SAX_UNIT_TIME, 2e-3},              /* */
        {"100 km", SAX_UNIT_LENGTH, 1e5},           /* */
        {"10 Tbit/s", SAX_UNIT_BANDWIDTH, 1.25e12}, /* 10e12 / 8 */
        {"0.1 ms", SAX_UNIT_TIME, 1e-4},            /* */
        /* the other prefixes and spellings */
        {"1 kB", SAX_UNIT_BYTES, 1000.0},           /* */
        {"1 KiB", SAX_UNIT_BYTES, 1024.0},          /* */
        {"16 MiB", SAX_UNIT_BYTES, 16777216.0},     /* 16 x 2^20 */
        {"2 TiB", SAX_UNIT_BYTES, 2199023255552.0}, /* 2 x 2^40 */
        {"1 PiB", SAX_UNIT_BYTES, 1125899906842624.0},
        {"8 bit", SAX_UNIT_BYTES, 1.0},            /* */
        {"8 Gb", SAX_UNIT_BYTES, 1e9},             /* 8e9 bits */
        {"1 PB", SAX_UNIT_BYTES, 1e15},            /* */
        {"1 B/s", SAX_UNIT_BANDWIDTH, 1.0},        /* */
        {"100 Gb/s", SAX_UNIT_BANDWIDTH, 1.25e10}, /* */
        {"100 Gbps", SAX_UNIT_BANDWIDTH, 1.25e10}, /* */
        {"16 Pbit/s", SAX_UNIT_BANDWIDTH, 2e15},   /* 16e15 / 8 */
        {"1 GiB/s", SAX_UNIT_BANDWIDTH, 1073741824.0},
        {"1 MB/s", SAX_UNIT_BANDWIDTH, 1e6},      /* */
        {"2.5 PFLOP/s", SAX_UNIT_FLOPS, 2.5e15},  /* */
        {"312 TFLOPS", SAX_UNIT_FLOPS, 3.12e14},  /* */
        {"5 GFLOP/s", SAX_UNIT_FLOPS, 5e9},       /* */
        {"3 s", SAX_UNIT_TIME, 3.0},              /* */
        {"250 ns", SAX_UNIT_TIME, 2.5e-7},        /* */
        {"7 \xc2\xb5s", SAX_UNIT_TIME, 7e-6},     /* micro sign */
        {"7 \xce\xbcs", SAX_UNIT_TIME, 7e-6},     /* Greek mu */
        {"2 min", SAX_UNIT_TIME, 120.0},          /* */
        {"1.5 h", SAX_UNIT_TIME, 5400.0},         /* */
        {"42 m", SAX_UNIT_LENGTH, 42.0},          /* */
        {"80GiB", SAX_UNIT_BYTES, 85899345920.0}, /* the space is optional */
        {"  1e3 ms ", SAX_UNIT_TIME, 1.0},        /* surrounding blanks, exponent */
        {"-2 us", SAX_UNIT_TIME, -2e-6},          /* sign parses; ranges are the table's job */
        {".5 s", SAX_UNIT_TIME, 0.5},             /* */
        {"0.9", SAX_UNIT_NONE, 0.9},              /* a plain number */
        {"1e-6", SAX_UNIT_NONE, 1e-6},            /* */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = -12345.0;
        sax_error_t err = {{0}};
        sax_status_t st = sax_units_parse(cases[i].text, cases[i].kind, &v, &err);
        if (st != SAX_OK) {
            print_error("\"%s\": %s\n", cases[i].text, err.text);
            fail();
        }
        check_close(cases[i].text, v, cases[i].si);
    }
}

typedef struct {
    const char *text;
    sax_unit_kind_t kind;
    const char *fragment; /* expected in the message */
} bad_t;

static void test_rejections(void **state)
{
    (void)state;
    static const bad_t cases[] = {
        {"10 us", SAX_UNIT_BANDWIDTH, "is a unit of time"},       /* wrong kind */
        {"80 GiB", SAX_UNIT_TIME, "is a unit of byte count"},     /* */
        {"400 Gbit/s", SAX_UNIT_BYTES, "is a unit of bandwidth"}, /* */
        {"100 km", SAX_UNIT_TIME, "is a unit of length"},         /* */
        {"1 TFLOP/s", SAX_UNIT_BANDWIDTH, "compute rate"},        /* */
        {"10 parsecs", SAX_UNIT_LENGTH, "unknown unit"},          /* unknown */
        {"10 KB", SAX_UNIT_BYTES, "unknown unit"},                /* K is not a prefix */
        {"1 KiFLOP/s", SAX_UNIT_FLOPS, "unknown unit"},           /* no binary FLOP/s */
        {"400 Gbit/s x", SAX_UNIT_BANDWIDTH, "unknown unit"},     /* trailing junk */
        {"400 Gbit/s/s", SAX_UNIT_BANDWIDTH, "unknown unit"},     /* */
        {"", SAX_UNIT_TIME, "no number"},                         /* empty */
        {"   ", SAX_UNIT_TIME, "no number"},                      /* blank */
        {"us", SAX_UNIT_TIME, "no number"},                       /* unit only */
        {"nan s", SAX_UNIT_TIME, "no number"},                    /* NaN */
        {"inf GB/s", SAX_UNIT_BANDWIDTH, "no number"},            /* infinity */
        {"0x10 s", SAX_UNIT_TIME, "unknown unit"},                /* hex: "0" then "x10 s" */
        {"1e999 s", SAX_UNIT_TIME, "finite"},                     /* overflows to inf */
        {"10", SAX_UNIT_TIME, "needs a unit"},                    /* a unitless string */
        {"1.2.3 s", SAX_UNIT_TIME, "unknown unit"},               /* */
        {"5 s", SAX_UNIT_NONE, "is a unit of time"},              /* a plain number has no unit */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = 42.0;
        sax_error_t err = {{0}};
        sax_status_t st = sax_units_parse(cases[i].text, cases[i].kind, &v, &err);
        if (st != SAX_ERR_INPUT || strstr(err.text, cases[i].fragment) == NULL ||
            strstr(err.text, "expected") == NULL) {
            print_error("\"%s\": status %d, message \"%s\", wanted \"%s\"\n", cases[i].text, (int)st,
                        err.text, cases[i].fragment);
            fail();
        }
        assert_true(v == 42.0); /* untouched on failure */
        assert_int_equal(sax_status_exit_code(st), 2);
    }
}

static void test_format(void **state)
{
    (void)state;
    char buf[64];
    sax_units_format(5e10, SAX_UNIT_BANDWIDTH, buf, sizeof buf);
    assert_string_equal(buf, "50 GB/s");
    sax_units_format(16777216.0, SAX_UNIT_BYTES, buf, sizeof buf);
    assert_string_equal(buf, "16 MiB");
    sax_units_format(1e-5, SAX_UNIT_TIME, buf, sizeof buf);
    assert_string_equal(buf, "10 us");
    sax_units_format(1e5, SAX_UNIT_LENGTH, buf, sizeof buf);
    assert_string_equal(buf, "100 km");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
