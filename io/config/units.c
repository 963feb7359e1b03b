/* units.c - quantities with units: "400 Gbit/s", "80 GiB", "10 us", "100 km" into SI base units.
 *
 * Grammar: [space] number [space] unit [space], where number is a decimal number in JSON's
 * syntax (optional sign, digits, optional fraction and exponent; no inf/nan/hex) and unit is one
 * of the units of the requested kind. Decimal prefixes are powers of 1000, binary ones (Ki..Ei)
 * powers of 1024; "bit" and "b" are bits, "B" bytes. docs/config.md lists every unit.
 */
#include "config_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAX_NAME_OF(name, str, si, example) str,
#define SAX_SI_OF(name, str, si, example) si,
#define SAX_EXAMPLE_OF(name, str, si, example) example,
static const char *const kind_names[SAX_UNIT_KIND_COUNT] = {SAX_UNIT_KIND_LIST(SAX_NAME_OF)};
static const char *const kind_si[SAX_UNIT_KIND_COUNT] = {SAX_UNIT_KIND_LIST(SAX_SI_OF)};
static const char *const kind_examples[SAX_UNIT_KIND_COUNT] = {SAX_UNIT_KIND_LIST(SAX_EXAMPLE_OF)};
#undef SAX_NAME_OF
#undef SAX_SI_OF
#undef SAX_EXAMPLE_OF

const char *sax_unit_kind_name(sax_unit_kind_t kind)
{
    return (int)kind >= 0 && kind < SAX_UNIT_KIND_COUNT ? kind_names[kind] : "?";
}

const char *sax_unit_kind_si(sax_unit_kind_t kind)
{
    return (int)kind >= 0 && kind < SAX_UNIT_KIND_COUNT ? kind_si[kind] : "?";
}

const char *sax_unit_kind_example(sax_unit_kind_t kind)
{
    return (int)kind >= 0 && kind < SAX_UNIT_KIND_COUNT ? kind_examples[kind] : "?";
}

typedef struct {
    const char *text;
    double factor;
} unit_t;

/* Units without prefixes. */
static const unit_t time_units[] = {
    {"s", 1.0},          {"ms", 1e-3},  {"us", 1e-6},  {"\xc2\xb5s", 1e-6}, /* U+00B5 micro sign */
    {"\xce\xbcs", 1e-6},                                                    /* U+03BC Greek mu */
    {"ns", 1e-9},        {"min", 60.0}, {"h", 3600.0},
};
static const unit_t length_units[] = {{"m", 1.0}, {"km", 1e3}};

/* Prefixes for bytes, bits, bandwidth and FLOP/s. */
static const unit_t decimal_prefixes[] = {{"", 1.0},   {"k", 1e3},  {"M", 1e6}, {"G", 1e9},
                                          {"T", 1e12}, {"P", 1e15}, {"E", 1e18}};
static const unit_t binary_prefixes[] = {
    {"Ki", 1024.0},          {"Mi", 1048576.0},          {"Gi", 1073741824.0},
    {"Ti", 1099511627776.0}, {"Pi", 1125899906842624.0}, {"Ei", 1152921504606846976.0}};
/* Data units after the prefix: bytes or bits (in bytes). */
static const unit_t data_units[] = {{"B", 1.0}, {"bit", 0.125}, {"b", 0.125}};
static const char *const per_second_suffixes[] = {"/s", "ps"};
static const char *const flops_suffixes[] = {"FLOP/s", "FLOPS", "flop/s"};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static bool match_table(const unit_t *t, int n, const char *u, double *factor)
{
    for (int i = 0; i < n; i++)
        if (strcmp(t[i].text, u) == 0) {
            *factor = t[i].factor;
            return true;
        }
    return false;
}

/* `u` = prefix + data unit + suffix (suffix may be ""). */
static bool match_data(const char *u, const char *suffix, double *factor)
{
    size_t ulen = strlen(u), slen = strlen(suffix);
    if (ulen <= slen || strcmp(u + ulen - slen, suffix) != 0)
        return false;
    for (int p = 0; p < COUNT(decimal_prefixes) + COUNT(binary_prefixes); p++) {
        const unit_t *pre = p < COUNT(decimal_prefixes) ? &decimal_prefixes[p]
                                                        : &binary_prefixes[p - COUNT(decimal_prefixes)];
        size_t plen = strlen(pre->text);
        if (strncmp(u, pre->text, plen) != 0)
            continue;
        for (int d = 0; d < COUNT(data_units); d++) {
            size_t dlen = strlen(data_units[d].text);
            if (plen + dlen + slen == ulen && strncmp(u + plen, data_units[d].text, dlen) == 0) {
                *factor = pre->factor * data_units[d].factor;
                return true;
            }
        }
    }
    return false;
}

static bool match_flops(const char *u, double *factor)
{
    for (int p = 0; p < COUNT(decimal_prefixes); p++) {
        size_t plen = strlen(decimal_prefixes[p].text);
        if (strncmp(u, decimal_prefixes[p].text, plen) != 0)
            continue;
        for (int s = 0; s < COUNT(flops_suffixes); s++)
            if (strcmp(u + plen, flops_suffixes[s]) == 0) {
                *factor = decimal_prefixes[p].factor;
                return true;
            }
    }
    return false;
}

/* Which kind `u` belongs to, and its factor to SI; false when no kind knows it. */
static bool unit_lookup(const char *u, sax_unit_kind_t *kind, double *factor)
{
    if (match_table(time_units, COUNT(time_units), u, factor)) {
        *kind = SAX_UNIT_TIME;
        return true;
    }
    if (match_table(length_units, COUNT(length_units), u, factor)) {
        *kind = SAX_UNIT_LENGTH;
        return true;
    }
    if (match_flops(u, factor)) {
        *kind = SAX_UNIT_FLOPS;
        return true;
    }
    for (int s = 0; s < COUNT(per_second_suffixes); s++)
        if (match_data(u, per_second_suffixes[s], factor)) {
            *kind = SAX_UNIT_BANDWIDTH;
            return true;
        }
    if (match_data(u, "", factor)) {
        *kind = SAX_UNIT_BYTES;
        return true;
    }
    return false;
}

/* Length of the JSON-syntax number at the start of `s`, or 0. */
static size_t scan_number(const char *s)
{
    size_t i = 0, digits = 0;
    if (s[i] == '+' || s[i] == '-')
        i++;
    while (s[i] >= '0' && s[i] <= '9') {
        i++;
        digits++;
    }
    if (s[i] == '.') {
        i++;
        while (s[i] >= '0' && s[i] <= '9') {
            i++;
            digits++;
        }
    }
    if (digits == 0)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1, exp_digits = 0;
        if (s[j] == '+' || s[j] == '-')
            j++;
        while (s[j] >= '0' && s[j] <= '9') {
            j++;
            exp_digits++;
        }
        if (exp_digits > 0)
            i = j;
    }
    return i;
}

static bool is_space(char c) { return c == ' ' || c == '\t'; }

sax_status_t sax_units_parse(const char *text, sax_unit_kind_t kind, double *si, sax_error_t *err)
{
    const char *what = sax_unit_kind_name(kind), *example = sax_unit_kind_example(kind);
    if (text == NULL)
        return sax_error_set(err, SAX_ERR_INPUT, "expected a %s such as %s, found nothing", what, example);
    const char *s = text;
    while (is_space(*s))
        s++;
    size_t nlen = scan_number(s);
    if (nlen == 0)
        return sax_error_set(err, SAX_ERR_INPUT, "expected a %s such as %s, found \"%.64s\" (no number)",
                             what, example, text);
    char num[64];
    if (nlen >= sizeof num)
        return sax_error_set(err, SAX_ERR_INPUT,
                             "expected a %s such as %s, found \"%.64s\" (number too long)", what, example,
                             text);
    memcpy(num, s, nlen);
    num[nlen] = '\0';
    double value = strtod(num, NULL);

    const char *u = s + nlen;
    while (is_space(*u))
        u++;
    char unit[32];
    size_t ulen = strlen(u);
    while (ulen > 0 && is_space(u[ulen - 1]))
        ulen--;
    if (ulen >= sizeof unit)
        return sax_error_set(err, SAX_ERR_INPUT, "expected a %s such as %s, found \"%.64s\" (unknown unit)",
                             what, example, text);
    memcpy(unit, u, ulen);
    unit[ulen] = '\0';

    double factor = 1.0;
    if (ulen == 0) {
        if (kind != SAX_UNIT_NONE)
            return sax_error_set(err, SAX_ERR_INPUT,
                                 "expected a %s such as %s, found \"%.64s\" (a string needs a unit; write a "
                                 "bare JSON number for %s)",
                                 what, example, text, sax_unit_kind_si(kind));
    } else {
        sax_unit_kind_t found_kind;
        if (!unit_lookup(unit, &found_kind, &factor))
            return sax_error_set(err, SAX_ERR_INPUT,
                                 "expected a %s such as %s, found \"%.64s\" (unknown unit \"%s\")", what,
                                 example, text, unit);
        if (found_kind != kind)
            return sax_error_set(err, SAX_ERR_INPUT,
                                 "expected a %s such as %s, found \"%.64s\" (\"%s\" is a unit of %s)", what,
                                 example, text, unit, sax_unit_kind_name(found_kind));
    }
    double v = value * factor;
    if (!isfinite(v))
        return sax_error_set(err, SAX_ERR_INPUT, "expected a finite %s, found \"%.64s\"", what, text);
    *si = v;
    return SAX_OK;
}

/* Writes `si` with the largest unit of its kind that keeps the mantissa >= 1 (for messages/docs). */
void sax_units_format(double si, sax_unit_kind_t kind, char *buf, size_t n)
{
    static const struct {
        sax_unit_kind_t kind;
        const char *unit;
        double factor;
    } show[] = {
        {SAX_UNIT_BYTES, "TiB", 1099511627776.0},
        {SAX_UNIT_BYTES, "GiB", 1073741824.0},
        {SAX_UNIT_BYTES, "MiB", 1048576.0},
        {SAX_UNIT_BYTES, "KiB", 1024.0},
        {SAX_UNIT_BYTES, "B", 1.0},
        {SAX_UNIT_TIME, "h", 3600.0},
        {SAX_UNIT_TIME, "s", 1.0},
        {SAX_UNIT_TIME, "ms", 1e-3},
        {SAX_UNIT_TIME, "us", 1e-6},
        {SAX_UNIT_TIME, "ns", 1e-9},
        {SAX_UNIT_BANDWIDTH, "TB/s", 1e12},
        {SAX_UNIT_BANDWIDTH, "GB/s", 1e9},
        {SAX_UNIT_BANDWIDTH, "MB/s", 1e6},
        {SAX_UNIT_BANDWIDTH, "B/s", 1.0},
        {SAX_UNIT_FLOPS, "PFLOP/s", 1e15},
        {SAX_UNIT_FLOPS, "TFLOP/s", 1e12},
        {SAX_UNIT_FLOPS, "GFLOP/s", 1e9},
        {SAX_UNIT_FLOPS, "FLOP/s", 1.0},
        {SAX_UNIT_LENGTH, "km", 1e3},
        {SAX_UNIT_LENGTH, "m", 1.0},
    };
    if (kind != SAX_UNIT_NONE && si != 0.0) {
        for (int i = 0; i < COUNT(show); i++) {
            if (show[i].kind != kind)
                continue;
            bool last = i + 1 == COUNT(show) || show[i + 1].kind != kind;
            if (fabs(si) >= show[i].factor || last) {
                snprintf(buf, n, "%.6g %s", si / show[i].factor, show[i].unit);
                return;
            }
        }
    }
    snprintf(buf, n, "%.6g", si);
}

/* One line per kind listing its units, for docs/config.md. */
void sax_units_write_docs(FILE *f)
{
    fprintf(f, "| kind | SI base unit (bare JSON number) | units accepted in strings |\n|---|---|---|\n");
    fprintf(f, "| number | 1 | none: a bare number, or a string holding only a number |\n");
    fprintf(
        f,
        "| bytes | B | prefix + `B` (bytes), `bit` or `b` (bits): `B`, `kB`, `MB`, `GB`, `TB`, `PB`, `EB`, "
        "`KiB`, `MiB`, `GiB`, `TiB`, `PiB`, `EiB`, `bit`, `kbit`, `Gbit`, `Gb`, `GiB`, ... |\n");
    fprintf(f, "| time | s | `s`, `ms`, `us`, `µs`, `ns`, `min`, `h` |\n");
    fprintf(
        f,
        "| bandwidth | B/s | a bytes unit followed by `/s` or `ps`: `B/s`, `MB/s`, `GB/s`, `TB/s`, `GiB/s`, "
        "`bit/s`, `Gbit/s`, `Gb/s`, `Tbit/s`, `Pbit/s`, `Gbps`, ... |\n");
    fprintf(
        f, "| compute rate | FLOP/s | decimal prefix + `FLOP/s` or `FLOPS`: `GFLOP/s`, `TFLOP/s`, `PFLOP/s`, "
           "`TFLOPS`, ... |\n");
    fprintf(f, "| length | m | `m`, `km` |\n");
}
