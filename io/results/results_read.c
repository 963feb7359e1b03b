/* results_read.c - reads a results file back (serial, any HDF5 driver) for `sax pareto`,
 * `sax report` and tests. Refuses files that are not HDF5, not from sax, or from an incompatible
 * format version, with a message saying which. Enums are read by name (HDF5 converts enum values
 * by member name), so a file stays readable if a later sax reorders a name list.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include "results_hdf5.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *path;
    hid_t file;
    sax_error_t *err;
} reader_t;

static sax_status_t broken(reader_t *r, const char *what)
{
    return sax_error_set(r->err, SAX_ERR_INPUT, "%s: not a readable sax results file: %s", r->path, what);
}

/* A string attribute (variable or fixed length) as a malloc'ed string; NULL when absent. */
static char *attr_string(hid_t obj, const char *name)
{
    if (H5Aexists(obj, name) <= 0)
        return NULL;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    char *out = NULL;
    if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
        if (H5Tis_variable_str(t) > 0) {
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, H5T_VARIABLE);
            H5Tset_cset(mt, H5Tget_cset(t));
            char *v = NULL;
            if (H5Aread(a, mt, &v) >= 0 && v) {
                out = strdup(v);
                H5free_memory(v);
            }
            H5Tclose(mt);
        } else {
            size_t n = H5Tget_size(t);
            out = calloc(n + 1, 1);
            if (out && H5Aread(a, t, out) < 0) {
                free(out);
                out = NULL;
            }
        }
    }
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return out;
}

/* The n strings of a 1-D string attribute of exactly n elements into out[i] (truncated to `size`);
 * false (out untouched) when absent or of another shape. */
static bool attr_strings(hid_t obj, const char *name, int n, char *out, size_t size)
{
    if (H5Aexists(obj, name) <= 0)
        return false;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    bool ok = sp >= 0 && t >= 0 && H5Sget_simple_extent_npoints(sp) == n && H5Tget_class(t) == H5T_STRING &&
              H5Tis_variable_str(t) > 0;
    if (ok) {
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        H5Tset_cset(mt, H5Tget_cset(t));
        char **v = calloc((size_t)n, sizeof *v);
        ok = v != NULL && H5Aread(a, mt, v) >= 0;
        for (int i = 0; ok && i < n; i++)
            snprintf(out + (size_t)i * size, size, "%s", v[i] ? v[i] : "");
        if (v != NULL && ok)
            H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, v);
        free(v);
        H5Tclose(mt);
    }
    if (t >= 0)
        H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    if (a >= 0)
        H5Aclose(a);
    return ok;
}

/* A 1-D float64 attribute of exactly n elements into out; false when absent or of another shape. */
static bool attr_doubles(hid_t obj, const char *name, int n, double *out)
{
    if (H5Aexists(obj, name) <= 0)
        return false;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
    bool ok = sp >= 0 && H5Sget_simple_extent_npoints(sp) == n && H5Aread(a, H5T_NATIVE_DOUBLE, out) >= 0;
    if (sp >= 0)
        H5Sclose(sp);
    if (a >= 0)
        H5Aclose(a);
    return ok;
}

/* A scalar numeric attribute of the class of `memtype`; false when absent or of another kind. */
static bool attr_number(hid_t obj, const char *name, hid_t memtype, void *out)
{
    if (H5Aexists(obj, name) <= 0)
        return false;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    hid_t s = a >= 0 ? H5Aget_space(a) : -1;
    bool ok = t >= 0 && H5Tget_class(t) == H5Tget_class(memtype) && s >= 0 &&
              H5Sget_simple_extent_npoints(s) == 1 && H5Aread(a, memtype, out) >= 0;
    if (t >= 0)
        H5Tclose(t);
    if (s >= 0)
        H5Sclose(s);
    if (a >= 0)
        H5Aclose(a);
    return ok;
}

/* ---- what a dataset must be before it is read ------------------------------------------------ */

static const char *class_name(H5T_class_t c)
{
    switch (c) {
    case H5T_INTEGER: return "an integer";
    case H5T_FLOAT: return "a floating-point number";
    case H5T_STRING: return "a string";
    case H5T_ENUM: return "an enumeration";
    case H5T_COMPOUND: return "a compound";
    case H5T_ARRAY: return "an array";
    default: return "another HDF5 class";
    }
}

/* Every member of `memtype` (a compound) is a member of the file's type `ft` by name, of the same
 * class: HDF5 would otherwise leave a member missing from the file as zeros in memory without a
 * word, so a file without /best's iteration_time_s read as "0 s per iteration". */
static sax_status_t check_fields(reader_t *r, const char *name, hid_t ft, hid_t memtype)
{
    H5T_class_t mc = H5Tget_class(memtype), fc = H5Tget_class(ft);
    char what[320];
    if (mc != fc) {
        snprintf(what, sizeof what, "dataset /%s: expected elements of %s, found %s", name, class_name(mc),
                 class_name(fc));
        return broken(r, what);
    }
    if (mc != H5T_COMPOUND)
        return SAX_OK;
    int n = H5Tget_nmembers(memtype);
    for (int i = 0; i < n; i++) {
        char *field = H5Tget_member_name(memtype, (unsigned)i);
        if (!field)
            return broken(r, name);
        int j = H5Tget_member_index(ft, field);
        H5T_class_t want = H5Tget_member_class(memtype, (unsigned)i);
        H5T_class_t got = j >= 0 ? H5Tget_member_class(ft, (unsigned)j) : H5T_NO_CLASS;
        sax_status_t st = SAX_OK;
        if (j < 0) {
            snprintf(what, sizeof what, "dataset /%s has no field '%.64s' (expected %s)", name, field,
                     class_name(want));
            st = broken(r, what);
        } else if (got != want) {
            snprintf(what, sizeof what, "dataset /%s: field '%.64s': expected %s, found %s", name, field,
                     class_name(want), class_name(got));
            st = broken(r, what);
        }
        H5free_memory(field);
        if (st != SAX_OK)
            return st;
    }
    return SAX_OK;
}

/* The filters sax writes (and whose smallest output is known): deflate, shuffle, Fletcher-32. */
static bool known_filter(H5Z_filter_t f)
{
    return f == H5Z_FILTER_DEFLATE || f == H5Z_FILTER_SHUFFLE || f == H5Z_FILTER_FLETCHER32;
}

/* Deflate's largest expansion on decompression: a match of 258 bytes takes at least 2 bits
 * (RFC 1951), so a byte of compressed data gives at most 1032 bytes. */
#define SAX_DEFLATE_MAX_RATIO 1032.0
#define SAX_DEFLATE_SLACK_BYTES 65536.0 /* headers of small chunks: ratio far below the maximum */

/* Dataset `name` is one-dimensional and declares no more data than the file can hold: before HDF5
 * reads it (a 134 KB file declaring an empty chunked /rows of 2^40 rows kept `sax pareto` busy for
 * an estimated 60 hours, reading fill values). The data stored (H5Dget_storage_size) is within the
 * file, and the declared bytes within what it can expand to: itself without filters, 1032 times
 * with deflate (its largest ratio). Other filters are refused: sax never writes them. */
static sax_status_t check_extent(reader_t *r, const char *name, hid_t d, hid_t ft, hid_t s, hssize_t count)
{
    char what[320];
    if (H5Sget_simple_extent_ndims(s) != 1) {
        snprintf(what, sizeof what, "dataset /%s: expected one dimension, found %d", name,
                 H5Sget_simple_extent_ndims(s));
        return broken(r, what);
    }
    hsize_t file_size = 0;
    H5Fget_filesize(r->file, &file_size);
    double declared = (double)count * (double)H5Tget_size(ft);
    double stored = (double)H5Dget_storage_size(d);
    hid_t dcpl = H5Dget_create_plist(d);
    int nf = dcpl >= 0 ? H5Pget_nfilters(dcpl) : -1;
    double ratio = 1;
    sax_status_t st = SAX_OK;
    for (int i = 0; i < nf && st == SAX_OK; i++) {
        unsigned flags = 0;
        size_t nelem = 0;
        H5Z_filter_t f = H5Pget_filter2(dcpl, (unsigned)i, &flags, &nelem, NULL, 0, NULL, NULL);
        if (!known_filter(f)) {
            snprintf(what, sizeof what,
                     "dataset /%s: expected only the filters sax writes (deflate, shuffle), "
                     "found filter %d",
                     name, (int)f);
            st = broken(r, what);
        } else if (f == H5Z_FILTER_DEFLATE)
            ratio = SAX_DEFLATE_MAX_RATIO;
    }
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (st == SAX_OK &&
        (nf < 0 || stored > (double)file_size || declared > ratio * stored + SAX_DEFLATE_SLACK_BYTES)) {
        snprintf(what, sizeof what,
                 "dataset /%s declares %lld elements (%.4g bytes) but stores %.4g bytes in a file of %llu "
                 "bytes: expected its data to be in the file",
                 name, (long long)count, declared, stored, (unsigned long long)file_size);
        st = broken(r, what);
    }
    return st;
}

/* Opens dataset `name` and checks it (check_extent, check_fields against `memtype`); *count = its
 * elements. Closes what it opened on failure; *d and *s are then -1. */
static sax_status_t open_checked(reader_t *r, const char *name, hid_t memtype, hid_t *d, hid_t *s,
                                 hssize_t *count)
{
    *d = H5Dopen2(r->file, name, H5P_DEFAULT);
    *s = *d >= 0 ? H5Dget_space(*d) : -1;
    hid_t ft = *d >= 0 ? H5Dget_type(*d) : -1;
    *count = *s >= 0 ? H5Sget_simple_extent_npoints(*s) : -1;
    sax_status_t st = SAX_OK;
    if (*count < 0 || ft < 0)
        st = broken(r, name);
    else if ((st = check_extent(r, name, *d, ft, *s, *count)) == SAX_OK)
        st = check_fields(r, name, ft, memtype);
    if (ft >= 0)
        H5Tclose(ft);
    if (st != SAX_OK) {
        if (*s >= 0)
            H5Sclose(*s);
        if (*d >= 0)
            H5Dclose(*d);
        *d = *s = -1;
    }
    return st;
}

/* Reads dataset `name` (1-D) with `memtype` into a new buffer of `esize`-byte elements. */
static sax_status_t read_all(reader_t *r, const char *name, hid_t memtype, size_t esize, void **buf,
                             int64_t *n)
{
    *buf = NULL;
    *n = 0;
    if (H5Lexists(r->file, name, H5P_DEFAULT) <= 0) {
        char what[128];
        snprintf(what, sizeof what, "dataset /%s is missing", name);
        return broken(r, what);
    }
    hid_t d, s;
    hssize_t count;
    sax_status_t st = open_checked(r, name, memtype, &d, &s, &count);
    if (st != SAX_OK)
        return st;
    *buf = calloc(count > 0 ? (size_t)count : 1, esize);
    if (!*buf) {
        st = sax_error_set(r->err, SAX_ERR_NOMEM, "%s: no memory to read /%s", r->path, name);
        goto done;
    }
    if (count > 0 && H5Dread(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, *buf) < 0) {
        char what[200];
        snprintf(what, sizeof what,
                 "dataset /%s cannot be read (a name in one of its enumerations is unknown to this sax, "
                 "or its data is damaged)",
                 name);
        st = broken(r, what);
        free(*buf);
        *buf = NULL;
        goto done;
    }
    *n = count;
done:
    if (s >= 0)
        H5Sclose(s);
    if (d >= 0)
        H5Dclose(d);
    return st;
}

/* ---- the space ---------------------------------------------------------------------------------- */

/* The orders are the members of /space/order's enum type ("tp-cp-pp-dp" = value). */
static sax_status_t read_orders(reader_t *r, sax_space_desc_t *sp)
{
    hid_t d = H5Dopen2(r->file, "space/order", H5P_DEFAULT);
    if (d < 0)
        return broken(r, "dataset /space/order is missing");
    hid_t t = H5Dget_type(d);
    sax_status_t st = SAX_OK;
    int nm = H5Tget_class(t) == H5T_ENUM ? H5Tget_nmembers(t) : -1;
    if (nm < 0)
        st = broken(r, "/space/order is not an enum");
    for (int m = 0; m < nm && st == SAX_OK; m++) {
        char *name = H5Tget_member_name(t, (unsigned)m);
        int32_t v = -1;
        hid_t nt = H5Tget_native_type(t, H5T_DIR_ASCEND);
        H5Tenum_valueof(nt, name, &v);
        H5Tclose(nt);
        if (v >= 0 && v < SAX_SPACE_MAX_VALUES) {
            int len = 0;
            char buf[96];
            snprintf(buf, sizeof buf, "%s", name);
            char *hash = strchr(buf, '#');
            if (hash)
                *hash = '\0';
            unsigned seen = 0;
            for (char *tok = strtok(buf, "-"); tok && st == SAX_OK; tok = strtok(NULL, "-")) {
                int dim = sax_name_lookup(sax_dim_names, SAX_DIM_COUNT, tok);
                if (dim < 0 || len >= SAX_DIM_COUNT || (seen & (1u << dim)))
                    st = broken(r, "an order in /space/order names an unknown dimension, or one twice");
                else
                    sp->orders[v][len++] = (sax_dim_t)dim;
                seen |= dim >= 0 ? 1u << dim : 0;
            }
            sp->order_len[v] = len;
            if (v + 1 > sp->n_orders)
                sp->n_orders = v + 1;
        }
        H5free_memory(name);
    }
    for (int o = 0; o < sp->n_orders && st == SAX_OK; o++)
        if (sp->order_len[o] == 0) /* the orders' names become the members of an enum: none empty */
            st = broken(r, "the values of /space/order's enum are not 0 to its number of orders - 1, each "
                           "an order of dimensions");
    H5Tclose(t);
    H5Dclose(d);
    return st;
}

typedef struct {
    char name[SAX_NAME_LEN];
    int32_t v[SAX_KEY_COUNT];
} baseline_t;

static sax_status_t read_baselines(reader_t *r, sax_space_desc_t *sp, const sax_results_types_t *t,
                                   bool names_only)
{
    hid_t name_t = H5Tcopy(H5T_C_S1);
    H5Tset_size(name_t, SAX_NAME_LEN);
    H5Tset_strpad(name_t, H5T_STR_NULLTERM);
    hid_t bt = H5Tcreate(H5T_COMPOUND, sizeof(baseline_t));
    H5Tinsert(bt, "name", offsetof(baseline_t, name), name_t);
    if (!names_only)
        for (int k = 0; k < SAX_KEY_COUNT; k++)
            H5Tinsert(bt, sax_key_names[k], offsetof(baseline_t, v) + (size_t)k * sizeof(int32_t),
                      t->key_any_t[k]);
    void *buf;
    int64_t n;
    sax_status_t st = read_all(r, "space/baselines", bt, sizeof(baseline_t), &buf, &n);
    H5Tclose(bt);
    H5Tclose(name_t);
    if (st != SAX_OK)
        return st;
    baseline_t *b = buf;
    if (n > SAX_SPACE_MAX_BASELINES) {
        free(buf);
        return broken(r, "more baselines than this sax supports");
    }
    sp->n_baselines = (int)n;
    for (int64_t i = 0; i < n; i++) {
        memcpy(sp->baselines[i].name, b[i].name, SAX_NAME_LEN);
        sp->baselines[i].name[SAX_NAME_LEN - 1] = '\0';
        /* The names become the members of an enum, and reports print them: as the loader takes them
         * (docs/config.md), non-empty, without control characters, each once. */
        const char *name = sp->baselines[i].name;
        bool control = false;
        for (const char *c = name; *c; c++)
            control |= (unsigned char)*c < 0x20 || *c == 0x7f;
        bool twice = false;
        for (int64_t j = 0; j < i; j++)
            twice |= strcmp(sp->baselines[j].name, name) == 0;
        if (name[0] == '\0' || control || twice) {
            char what[160];
            snprintf(what, sizeof what,
                     "/space/baselines row %lld: expected a unique, non-empty name without control "
                     "characters, found %s",
                     (long long)i,
                     name[0] == '\0' ? "an empty one"
                     : control       ? "control characters"
                                     : "a name given twice");
            free(buf);
            return broken(r, what);
        }
        if (!names_only) {
            sp->baselines[i].mask = 0;
            for (int k = 0; k < SAX_KEY_COUNT; k++) {
                if (b[i].v[k] != -1)
                    sp->baselines[i].mask |= 1u << k;
                sp->baselines[i].value[k] = b[i].v[k] == -1 ? 0 : b[i].v[k];
            }
        }
    }
    free(buf);
    return SAX_OK;
}

static sax_status_t read_key_values(reader_t *r, sax_space_desc_t *sp, const sax_results_types_t *t)
{
    for (int k = 0; k < SAX_KEY_COUNT; k++) {
        if (k == SAX_KEY_ORDER)
            continue;
        char name[64];
        snprintf(name, sizeof name, "space/%s", sax_key_names[k]);
        void *buf;
        int64_t n;
        sax_status_t st = read_all(r, name, t->key_t[k], sizeof(int32_t), &buf, &n);
        if (st != SAX_OK)
            return st;
        if (n > SAX_SPACE_MAX_VALUES) {
            free(buf);
            return broken(r, "a key of /space has more values than this sax supports");
        }
        sp->values[k].n = (int)n;
        memcpy(sp->values[k].v, buf, (size_t)n * sizeof(int32_t));
        free(buf);
    }
    return SAX_OK;
}

/* /scenarios: field 0 "scenario", then one double per variable named by its configuration path. */
static sax_status_t read_scenarios(reader_t *r, sax_results_data_t *out)
{
    sax_space_desc_t *sp = &out->space;
    hid_t d = H5Dopen2(r->file, "scenarios", H5P_DEFAULT);
    if (d < 0)
        return broken(r, "dataset /scenarios is missing");
    hid_t ft = H5Dget_type(d);
    int nm = H5Tget_nmembers(ft);
    if (nm < 1 || nm - 1 > SAX_SPACE_MAX_SCENARIO_VARS) {
        H5Dclose(d);
        H5Tclose(ft);
        return broken(r, "/scenarios has an unexpected layout");
    }
    /* the units, and those the configuration gave its values in (files before 2026-12 have no
     * display_units: their labels are in SI units) */
    char units[SAX_SPACE_MAX_SCENARIO_VARS + 1][SAX_UNIT_TEXT_LEN] = {{0}};
    char shown[SAX_SPACE_MAX_SCENARIO_VARS + 1][SAX_UNIT_TEXT_LEN] = {{0}};
    double shown_si[SAX_SPACE_MAX_SCENARIO_VARS + 1] = {0};
    attr_strings(d, "field_units", nm, units[0], SAX_UNIT_TEXT_LEN);
    if (!attr_strings(d, "display_units", nm, shown[0], SAX_UNIT_TEXT_LEN) ||
        !attr_doubles(d, "display_unit_si", nm, shown_si))
        memset(shown_si, 0, sizeof shown_si);
    H5Dclose(d);
    int nv = nm - 1;
    size_t esize = (size_t)nm * sizeof(double);
    hid_t mt = H5Tcreate(H5T_COMPOUND, esize);
    H5Tinsert(mt, "scenario", 0, H5T_NATIVE_INT64);
    sp->n_scenario_vars = 0;
    for (int m = 0; m < nm; m++) {
        char *name = H5Tget_member_name(ft, (unsigned)m);
        if (name && strcmp(name, "scenario") != 0 && sp->n_scenario_vars < nv) {
            int v = sp->n_scenario_vars++;
            sax_scenario_var_t *var = &sp->scenario_vars[v];
            snprintf(var->path, SAX_PATH_LEN, "%s", name);
            snprintf(var->si_unit, sizeof var->si_unit, "%.15s", units[m][0] ? units[m] : "1");
            bool shown_ok = shown_si[m] > 0 && isfinite(shown_si[m]) && shown[m][0] != '\0';
            snprintf(var->unit, sizeof var->unit, "%.15s", shown_ok ? shown[m] : "");
            var->unit_si = shown_ok ? shown_si[m] : 0.0;
            H5Tinsert(mt, name, sizeof(double) * (size_t)(v + 1), H5T_NATIVE_DOUBLE);
        }
        H5free_memory(name);
    }
    H5Tclose(ft);
    void *buf;
    int64_t n;
    sax_status_t st = read_all(r, "scenarios", mt, esize, &buf, &n);
    H5Tclose(mt);
    if (st != SAX_OK)
        return st;
    if (n > INT32_MAX) {
        free(buf);
        return broken(r, "too many scenarios");
    }
    out->scenario_values = calloc(n * nv > 0 ? (size_t)(n * nv) : 1, sizeof(double));
    if (!out->scenario_values) {
        free(buf);
        return sax_error_set(r->err, SAX_ERR_NOMEM, "%s: no memory for the scenarios", r->path);
    }
    const double *row = buf;
    for (int64_t s = 0; s < n; s++) {
        for (int v = 0; v < nv; v++) {
            double x = row[(size_t)s * (size_t)nm + 1 + (size_t)v];
            out->scenario_values[s * nv + v] = x;
            sax_scenario_var_t *var = &sp->scenario_vars[v];
            bool seen = false;
            for (int i = 0; i < var->n; i++)
                seen = seen || var->v[i] == x;
            if (!seen && var->n < SAX_SPACE_MAX_VALUES)
                var->v[var->n++] = x;
        }
    }
    out->res.n_scenarios = (int)n;
    free(buf);
    return SAX_OK;
}

/* ---- records ------------------------------------------------------------------------------------ */

static sax_status_t read_records(reader_t *r, const sax_results_data_t *d, const char *name, hid_t row_t,
                                 sax_record_t **recs, int64_t *n)
{
    void *buf;
    sax_status_t st = read_all(r, name, row_t, sizeof(sax_row_t), &buf, n);
    if (st != SAX_OK)
        return st;
    *recs = calloc(*n > 0 ? (size_t)*n : 1, sizeof **recs);
    if (!*recs) {
        free(buf);
        return sax_error_set(r->err, SAX_ERR_NOMEM, "%s: no memory to read /%s", r->path, name);
    }
    const sax_row_t *rows = buf;
    for (int64_t i = 0; i < *n; i++)
        sax_results_record_from_row(&d->space, &rows[i], &(*recs)[i]);
    free(buf);
    return SAX_OK;
}

static sax_status_t read_tables(reader_t *r, sax_results_data_t *d, const sax_results_types_t *t,
                                bool with_rows)
{
    int64_t n;
    sax_status_t st = read_records(r, d, "best", t->row_t, &d->best, &n);
    if (st == SAX_OK && n != d->res.n_scenarios)
        st = broken(r, "/best does not have one row per scenario");
    if (st == SAX_OK)
        st = read_records(r, d, "top", t->row_t, &d->top, &d->res.n_top);
    if (st == SAX_OK)
        st = read_records(r, d, "pareto", t->row_t, &d->pareto, &d->res.n_pareto);
    if (st != SAX_OK)
        return st;

    void *buf;
    st = read_all(r, "best_per_value", t->bpv_t, sizeof(sax_bpv_row_t), &buf, &n);
    if (st != SAX_OK)
        return st;
    d->best_per_value = calloc(n > 0 ? (size_t)n : 1, sizeof *d->best_per_value);
    d->bpv_key = calloc(n > 0 ? (size_t)n : 1, sizeof *d->bpv_key);
    d->bpv_value = calloc(n > 0 ? (size_t)n : 1, sizeof *d->bpv_value);
    if (!d->best_per_value || !d->bpv_key || !d->bpv_value) {
        free(buf);
        return sax_error_set(r->err, SAX_ERR_NOMEM, "%s: no memory for best_per_value", r->path);
    }
    const sax_bpv_row_t *bpv = buf;
    for (int64_t i = 0; i < n; i++) {
        sax_results_record_from_row(&d->space, &bpv[i].row, &d->best_per_value[i]);
        d->bpv_key[i] = bpv[i].bpv_key;
        d->bpv_value[i] = bpv[i].bpv_value;
    }
    d->res.n_bpv = n;
    free(buf);

    st = read_all(r, "baseline_best", t->baseline_row_t, sizeof(sax_baseline_row_t), &buf, &n);
    if (st != SAX_OK)
        return st;
    int64_t want = (int64_t)d->res.n_scenarios * d->space.n_baselines;
    d->baseline_best = calloc(want > 0 ? (size_t)want : 1, sizeof *d->baseline_best);
    if (!d->baseline_best) {
        free(buf);
        return sax_error_set(r->err, SAX_ERR_NOMEM, "%s: no memory for baseline_best", r->path);
    }
    for (int64_t i = 0; i < want; i++)
        d->baseline_best[i].index = -1;
    const sax_baseline_row_t *bl = buf;
    for (int64_t i = 0; i < n; i++) {
        int64_t s = bl[i].row.scenario, b = bl[i].baseline;
        if (s >= 0 && s < d->res.n_scenarios && b >= 0 && b < d->space.n_baselines)
            sax_results_record_from_row(&d->space, &bl[i].row,
                                        &d->baseline_best[s * d->space.n_baselines + b]);
    }
    free(buf);

    typedef struct {
        int64_t count;
        int32_t reason;
    } count_t;
    hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(count_t));
    H5Tinsert(ct, "reason", offsetof(count_t, reason), t->reason_t);
    H5Tinsert(ct, "count", offsetof(count_t, count), H5T_NATIVE_INT64);
    st = read_all(r, "infeasible", ct, sizeof(count_t), &buf, &n);
    H5Tclose(ct);
    if (st != SAX_OK)
        return st;
    const count_t *c = buf;
    for (int64_t i = 0; i < n; i++)
        if (c[i].reason >= 0 && c[i].reason < SAX_INFEASIBLE_COUNT)
            d->res.infeasible[c[i].reason] = c[i].count;
    free(buf);

    d->has_rows = H5Lexists(r->file, "rows", H5P_DEFAULT) > 0;
    if (with_rows && d->has_rows)
        st = read_records(r, d, "rows", t->row_t, &d->rows, &d->n_rows);
    else if (d->has_rows) { /* streamed later (sax_results_rows_open): its fields and size now */
        hid_t rd, rs;
        hssize_t count;
        if ((st = open_checked(r, "rows", t->row_t, &rd, &rs, &count)) == SAX_OK) {
            H5Sclose(rs);
            H5Dclose(rd);
        }
    }
    return st;
}

/* ---- /answer (absent in files written without it) --------------------------------------------- */

static uint32_t differ_mask(const char *text)
{
    uint32_t mask = 0;
    char buf[SAX_DIFFER_LEN + 1];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int k = sax_name_lookup(sax_key_names, SAX_KEY_COUNT, tok);
        if (k >= 0)
            mask |= 1u << k;
    }
    return mask;
}

/* Reads answer/<name> and checks it has `want` elements (want < 0: any number up to -want). */
static sax_status_t read_answer_set(reader_t *r, const char *name, hid_t type, size_t esize, int64_t want,
                                    void **buf, int64_t *n)
{
    char path[64];
    snprintf(path, sizeof path, "answer/%s", name);
    sax_status_t st = read_all(r, path, type, esize, buf, n);
    if (st == SAX_OK && (want >= 0 ? *n != want : *n > -want)) {
        char what[128];
        snprintf(what, sizeof what, "/answer/%s has %lld rows, expected %lld", name, (long long)*n,
                 (long long)(want >= 0 ? want : -want));
        free(*buf);
        *buf = NULL;
        st = broken(r, what);
    }
    return st;
}

static sax_status_t read_answer_scenarios(reader_t *r, sax_results_data_t *d, const sax_results_types_t *t)
{
    int64_t ns = d->res.n_scenarios, n;
    void *buf;
    d->ties = calloc(ns > 0 ? (size_t)ns : 1, sizeof *d->ties);
    d->lossless = calloc(ns > 0 ? (size_t)ns : 1, sizeof *d->lossless);
    if (!d->ties || !d->lossless)
        return sax_error_set(r->err, SAX_ERR_NOMEM, "%s: no memory for /answer", r->path);
    sax_status_t st = read_answer_set(r, "ties", t->ties_t, sizeof(sax_ties_row_t), ns, &buf, &n);
    if (st != SAX_OK)
        return st;
    const sax_ties_row_t *ti = buf;
    for (int64_t s = 0; s < n; s++) {
        sax_results_record_from_row(&d->space, &ti[s].row, &d->ties[s].simplest);
        d->ties[s].count = ti[s].tied;
        d->ties[s].at_least = ti[s].at_least != 0;
        d->ties[s].differ = differ_mask(ti[s].differ_in);
    }
    free(buf);
    if ((st = read_answer_set(r, "best_lossless", t->lossless_t, sizeof(sax_lossless_row_t), ns, &buf, &n)) !=
        SAX_OK)
        return st;
    const sax_lossless_row_t *ll = buf;
    for (int64_t s = 0; s < n; s++) {
        sax_results_record_from_row(&d->space, &ll[s].row, &d->lossless[s].lossless);
        d->lossless[s].lossy = ll[s].lossy != 0;
        d->lossless[s].noop = ll[s].noop != 0;
    }
    free(buf);
    if (H5Lexists(r->file, "answer/oblivious", H5P_DEFAULT) <= 0)
        return SAX_OK; /* --no-oblivious, or the oblivious sweep was interrupted */
    d->oblivious = calloc(ns > 0 ? (size_t)ns : 1, sizeof *d->oblivious);
    if (!d->oblivious)
        return sax_error_set(r->err, SAX_ERR_NOMEM, "%s: no memory for /answer", r->path);
    if ((st = read_answer_set(r, "oblivious", t->oblivious_t, sizeof(sax_oblivious_row_t), ns, &buf, &n)) !=
        SAX_OK)
        return st;
    const sax_oblivious_row_t *ob = buf;
    for (int64_t s = 0; s < n; s++) {
        sax_results_oblivious_t *o = &d->oblivious[s];
        sax_results_record_from_row(&d->space, &ob[s].row, &o->real);
        o->found = ob[s].found != 0;
        o->merged_time_s = ob[s].merged_time_s;
        memcpy(o->invalid, ob[s].invalid, sizeof o->invalid);
        o->invalid[sizeof o->invalid - 1] = '\0';
    }
    free(buf);
    return SAX_OK;
}

static sax_status_t read_answer_robust(reader_t *r, sax_results_data_t *d, const sax_results_types_t *t)
{
    int64_t ns = d->res.n_scenarios, nb = d->space.n_baselines, nat = ns * nb, n;
    void *buf;
    d->attribution = calloc(nat > 0 ? (size_t)nat : 1, sizeof *d->attribution);
    d->robust_regret = calloc(ns > 0 ? (size_t)ns : 1, sizeof *d->robust_regret);
    d->near = calloc(SAX_RESULTS_NEAR_MAX, sizeof *d->near);
    d->near_worst = calloc(SAX_RESULTS_NEAR_MAX, sizeof *d->near_worst);
    if (!d->attribution || !d->robust_regret || !d->near || !d->near_worst)
        return sax_error_set(r->err, SAX_ERR_NOMEM, "%s: no memory for /answer", r->path);
    sax_status_t st =
        read_answer_set(r, "attribution", t->attribution_t, sizeof(sax_attribution_row_t), nat, &buf, &n);
    if (st != SAX_OK)
        return st;
    const sax_attribution_row_t *at = buf;
    for (int64_t i = 0; i < n; i++) {
        int64_t s = at[i].scenario, b = at[i].baseline;
        if (s < 0 || s >= ns || b < 0 || b >= nb)
            continue;
        sax_results_attribution_t *x = &d->attribution[s * nb + b];
        x->valid = at[i].valid != 0;
        x->orders = at[i].orders;
        memcpy(x->factor, at[i].factor, sizeof x->factor);
    }
    free(buf);
    if ((st = read_answer_set(r, "robust", t->robust_t, sizeof(sax_robust_row_t), 1, &buf, &n)) != SAX_OK)
        return st;
    const sax_robust_row_t *rb = buf;
    sax_results_robust_t *x = &d->answer.robust;
    sax_results_record_from_row(&d->space, &rb->row, &x->pick);
    x->found = rb->found != 0;
    x->exact = rb->exact != 0;
    x->worst_regret = rb->worst_regret;
    x->bound = rb->bound;
    x->candidates = rb->candidates;
    x->n_near = rb->within_5pct;
    free(buf);
    if ((st = read_answer_set(r, "robust_regret", H5T_NATIVE_DOUBLE, sizeof(double), ns, &buf, &n)) != SAX_OK)
        return st;
    memcpy(d->robust_regret, buf, (size_t)n * sizeof(double));
    free(buf);
    if ((st = read_answer_set(r, "robust_within_5pct", t->near_t, sizeof(sax_near_row_t),
                              -SAX_RESULTS_NEAR_MAX, &buf, &n)) != SAX_OK)
        return st;
    const sax_near_row_t *nr = buf;
    for (int64_t i = 0; i < n; i++) {
        sax_results_record_from_row(&d->space, &nr[i].row, &d->near[i]);
        d->near_worst[i] = nr[i].worst_regret;
    }
    x->n_near_kept = (int32_t)n;
    free(buf);
    x->regret = d->robust_regret;
    x->near = d->near;
    x->near_worst = d->near_worst;
    return SAX_OK;
}

static sax_status_t read_answer(reader_t *r, sax_results_data_t *d, const sax_results_types_t *t)
{
    if (H5Lexists(r->file, "answer", H5P_DEFAULT) <= 0)
        return SAX_OK; /* written before /answer existed, or by a writer given none */
    sax_status_t st = read_answer_scenarios(r, d, t);
    if (st == SAX_OK)
        st = read_answer_robust(r, d, t);
    if (st != SAX_OK)
        return st;
    d->answer.ties = d->ties;
    d->answer.lossless = d->lossless;
    d->answer.oblivious = d->oblivious;
    d->answer.attribution = d->attribution;
    d->res.answer = &d->answer;
    return SAX_OK;
}

/* ---- what every record must be ------------------------------------------------------------------ */

/* A record as sax writes one: no candidate (a negative index), or a candidate of one of the file's
 * scenarios that, when feasible, has a finite, positive iteration time (reports divide by it and
 * index the scenarios with it). NULL when so, else what is wrong. */
static const char *record_problem(const sax_record_t *rec, int n_scenarios)
{
    if (rec->index < 0)
        return NULL;
    if (rec->scenario < 0 || rec->scenario >= n_scenarios)
        return "a scenario outside /scenarios";
    if (rec->result.feasible &&
        !(isfinite(rec->result.iteration_time_s) && rec->result.iteration_time_s > 0.0))
        return "a feasible candidate without a finite, positive iteration_time_s";
    return NULL;
}

static sax_status_t check_records(reader_t *r, const char *table, const sax_record_t *recs, int64_t n,
                                  int n_scenarios)
{
    for (int64_t i = 0; recs != NULL && i < n; i++) {
        const char *problem = record_problem(&recs[i], n_scenarios);
        if (problem != NULL) {
            char what[200];
            snprintf(what, sizeof what,
                     "/%s row %lld: expected a candidate of the sweep, found %s (scenario %d)", table,
                     (long long)i, problem, recs[i].scenario);
            return broken(r, what);
        }
    }
    return SAX_OK;
}

/* Every table of records read, against the file's scenarios. */
static sax_status_t check_all_records(reader_t *r, const sax_results_data_t *d)
{
    int ns = d->res.n_scenarios;
    const struct {
        const char *table;
        const sax_record_t *recs;
        int64_t n;
    } tables[] = {{"best", d->best, ns},
                  {"top", d->top, d->res.n_top},
                  {"pareto", d->pareto, d->res.n_pareto},
                  {"best_per_value", d->best_per_value, d->res.n_bpv},
                  {"baseline_best", d->baseline_best, (int64_t)ns * d->space.n_baselines},
                  {"rows", d->rows, d->n_rows},
                  {"answer/robust_within_5pct", d->near, d->res.answer ? d->answer.robust.n_near_kept : 0},
                  {"answer/robust", d->res.answer ? &d->answer.robust.pick : NULL, 1}};
    sax_status_t st = SAX_OK;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0] && st == SAX_OK; i++)
        st = check_records(r, tables[i].table, tables[i].recs, tables[i].n, ns);
    for (int s = 0; d->res.answer != NULL && s < ns && st == SAX_OK; s++) {
        st = check_records(r, "answer/ties", &d->ties[s].simplest, 1, ns);
        if (st == SAX_OK)
            st = check_records(r, "answer/best_lossless", &d->lossless[s].lossless, 1, ns);
        if (st == SAX_OK && d->oblivious != NULL)
            st = check_records(r, "answer/oblivious", &d->oblivious[s].real, 1, ns);
    }
    return st;
}

/* ---- provenance --------------------------------------------------------------------------------- */

static sax_status_t read_provenance(reader_t *r, sax_results_data_t *d)
{
    static const char *const names[] = {"config_json",  "sax_version", "git_revision",
                                        "command_line", "hosts",       "pareto_objectives"};
    enum { N = sizeof names / sizeof names[0] };
    char *s[N];
    size_t total = 0;
    for (int i = 0; i < N; i++) {
        s[i] = attr_string(r->file, names[i]);
        total += (s[i] ? strlen(s[i]) : 0) + 1;
    }
    /* A string present but of another type, or the configuration missing (sax eval --candidate
     * evaluates it), is a damaged file; the other strings are only shown. */
    for (int i = 0; i < N; i++)
        if (!s[i] && (i == 0 || H5Aexists(r->file, names[i]) > 0)) {
            char what[128];
            snprintf(what, sizeof what, "root attribute '%s' is missing or not a string", names[i]);
            for (int j = 0; j < N; j++)
                free(s[j]);
            return broken(r, what);
        }
    d->strings = malloc(total);
    if (!d->strings) {
        for (int i = 0; i < N; i++)
            free(s[i]);
        return sax_error_set(r->err, SAX_ERR_NOMEM, "%s: no memory for the provenance", r->path);
    }
    const char **dst[N] = {&d->res.config_json,  &d->res.version, &d->res.git_revision,
                           &d->res.command_line, &d->res.hosts,   &d->res.pareto_objectives};
    size_t at = 0;
    for (int i = 0; i < N; i++) {
        size_t len = s[i] ? strlen(s[i]) : 0;
        memcpy(d->strings + at, s[i] ? s[i] : "", len + 1);
        *dst[i] = d->strings + at;
        at += len + 1;
        free(s[i]);
    }
    /* The numbers the readers use (report's counts and elapsed time): present, and numbers. */
    int32_t ranks = 0, top_k = 0;
    const struct {
        const char *name;
        hid_t type;
        void *out;
    } nums[] = {{"ranks", H5T_NATIVE_INT32, &ranks},
                {"top_k", H5T_NATIVE_INT32, &top_k},
                {"start_unix_s", H5T_NATIVE_DOUBLE, &d->res.start_unix_s},
                {"end_unix_s", H5T_NATIVE_DOUBLE, &d->res.end_unix_s},
                {"evaluated", H5T_NATIVE_INT64, &d->res.evaluated},
                {"skipped", H5T_NATIVE_INT64, &d->res.skipped}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (!attr_number(r->file, nums[i].name, nums[i].type, nums[i].out)) {
            char what[160];
            snprintf(what, sizeof what, "root attribute '%s' is missing or not a number (expected %s)",
                     nums[i].name,
                     H5Tget_class(nums[i].type) == H5T_FLOAT ? "a floating-point number" : "an integer");
            return broken(r, what);
        }
    d->res.ranks = ranks;
    d->res.top_k = top_k;
    char *store = attr_string(r->file, "store");
    int si = store ? sax_name_lookup(sax_store_names, SAX_STORE_COUNT, store) : -1;
    free(store);
    if (si < 0)
        return broken(r, "root attribute 'store' is missing or not one of none, feasible, all");
    d->res.store = (sax_store_t)si;
    return SAX_OK;
}

/* ---- entry points ------------------------------------------------------------------------------- */

void sax_results_data_fini(sax_results_data_t *d)
{
    if (!d)
        return;
    free(d->strings);
    free(d->scenario_values);
    free(d->best);
    free(d->top);
    free(d->pareto);
    free(d->best_per_value);
    free(d->baseline_best);
    free(d->bpv_key);
    free(d->bpv_value);
    free(d->rows);
    free(d->ties);
    free(d->lossless);
    free(d->oblivious);
    free(d->attribution);
    free(d->robust_regret);
    free(d->near_worst);
    free(d->near);
    memset(d, 0, sizeof *d);
}

static sax_status_t check_format(reader_t *r, sax_results_data_t *d)
{
    char *fmt = attr_string(r->file, "sax_format");
    if (!fmt)
        return sax_error_set(r->err, SAX_ERR_INPUT,
                             "%s: an HDF5 file, but not a sax results file (no root attribute sax_format)",
                             r->path);
    bool ours = strcmp(fmt, SAX_RESULTS_FORMAT) == 0;
    if (!ours) {
        sax_error_set(r->err, SAX_ERR_INPUT,
                      "%s: not a sax results file (sax_format is \"%.64s\", expected \"%s\")", r->path, fmt,
                      SAX_RESULTS_FORMAT);
        free(fmt);
        return SAX_ERR_INPUT;
    }
    free(fmt);
    int32_t v = 0;
    if (!attr_number(r->file, "sax_format_version", H5T_NATIVE_INT32, &v))
        return sax_error_set(r->err, SAX_ERR_INPUT, "%s: a sax results file without sax_format_version",
                             r->path);
    if (v != SAX_RESULTS_FORMAT_VERSION)
        return sax_error_set(
            r->err, SAX_ERR_INPUT,
            "%s: results format version %d; this sax reads version %d (use the sax that wrote "
            "it, or re-run the sweep)",
            r->path, (int)v, SAX_RESULTS_FORMAT_VERSION);
    d->format_version = v;
    return SAX_OK;
}

sax_status_t sax_results_read(const char *path, bool with_rows, sax_results_data_t *out, sax_error_t *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    reader_t r = {.path = path, .file = -1, .err = err};
    FILE *probe = fopen(path, "rb");
    if (!probe)
        return sax_error_set(err, SAX_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
    fclose(probe);

    H5E_auto2_t old_func;
    void *old_data;
    H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    sax_results_types_t t;
    bool have_types = false;
    sax_status_t st = SAX_OK;
    if (H5Fis_hdf5(path) <= 0) {
        st = sax_error_set(err, SAX_ERR_INPUT,
                           "%s: not an HDF5 file (expected a results file from sax sweep)", path);
        goto done;
    }
    r.file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (r.file < 0) {
        st = sax_error_set(err, SAX_ERR_INPUT, "%s: HDF5 cannot open it", path);
        goto done;
    }
    if ((st = check_format(&r, out)) != SAX_OK || (st = read_provenance(&r, out)) != SAX_OK ||
        (st = read_orders(&r, &out->space)) != SAX_OK)
        goto done;
    /* The baseline names enter the row types, so read them before building the types. */
    if ((st = sax_results_types_init(&t, &out->space, err)) != SAX_OK)
        goto done;
    have_types = true;
    if ((st = read_baselines(&r, &out->space, &t, true)) != SAX_OK)
        goto done;
    sax_results_types_fini(&t);
    have_types = false;
    if ((st = sax_results_types_init(&t, &out->space, err)) != SAX_OK)
        goto done;
    have_types = true;
    if ((st = read_baselines(&r, &out->space, &t, false)) != SAX_OK ||
        (st = read_key_values(&r, &out->space, &t)) != SAX_OK || (st = read_scenarios(&r, out)) != SAX_OK ||
        (st = read_tables(&r, out, &t, with_rows)) != SAX_OK || (st = read_answer(&r, out, &t)) != SAX_OK ||
        (st = check_all_records(&r, out)) != SAX_OK)
        goto done;
    out->res.space = &out->space;
    out->res.scenario_values = out->scenario_values;
    out->res.best = out->best;
    out->res.top = out->top;
    out->res.pareto = out->pareto;
    out->res.best_per_value = out->best_per_value;
    out->res.bpv_key = out->bpv_key;
    out->res.bpv_value = out->bpv_value;
    out->res.baseline_best = out->baseline_best;
done:
    if (have_types)
        sax_results_types_fini(&t);
    if (r.file >= 0)
        H5Fclose(r.file);
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    if (st != SAX_OK)
        sax_results_data_fini(out);
    return st;
}

/* ---- /rows in pieces ---------------------------------------------------------------------------- */

struct sax_results_file {
    const sax_results_data_t *d;
    hid_t file, rows;
    hid_t scenario_t; /* compound with the scenario field only */
    sax_results_types_t t;
    int64_t total;
};

void sax_results_rows_close(sax_results_file_t **f)
{
    if (!f || !*f)
        return;
    sax_results_types_fini(&(*f)->t);
    if ((*f)->scenario_t >= 0)
        H5Tclose((*f)->scenario_t);
    if ((*f)->rows >= 0)
        H5Dclose((*f)->rows);
    if ((*f)->file >= 0)
        H5Fclose((*f)->file);
    free(*f);
    *f = NULL;
}

int64_t sax_results_rows_total(const sax_results_file_t *f) { return f ? f->total : 0; }

sax_status_t sax_results_rows_open(const sax_results_data_t *d, sax_results_file_t **out, sax_error_t *err)
{
    *out = NULL;
    if (!d->has_rows)
        return SAX_OK;
    sax_results_file_t *f = calloc(1, sizeof *f);
    if (!f)
        return sax_error_set(err, SAX_ERR_NOMEM, "%s: no memory to read /rows", d->path);
    f->d = d;
    f->file = f->rows = f->scenario_t = -1;
    H5E_auto2_t old_func;
    void *old_data;
    H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    sax_status_t st = sax_results_types_init(&f->t, &d->space, err); /* on failure its ids are all -1 */
    if (st == SAX_OK) {
        f->file = H5Fopen(d->path, H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f->file < 0)
            st = sax_error_set(err, SAX_ERR_INPUT, "%s: cannot open /rows", d->path);
    }
    if (st == SAX_OK) {
        reader_t r = {.path = d->path, .file = f->file, .err = err};
        hid_t sp;
        hssize_t count;
        st = open_checked(&r, "rows", f->t.row_t, &f->rows, &sp, &count);
        f->total = count;
        if (sp >= 0)
            H5Sclose(sp);
    }
    if (st == SAX_OK) {
        f->scenario_t = H5Tcreate(H5T_COMPOUND, sizeof(int32_t));
        if (f->scenario_t < 0 || H5Tinsert(f->scenario_t, "scenario", 0, H5T_NATIVE_INT32) < 0)
            st = sax_error_set(err, SAX_ERR_INPUT, "%s: cannot open /rows", d->path);
    }
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    if (st != SAX_OK) {
        sax_results_rows_close(&f);
        return st;
    }
    *out = f;
    return SAX_OK;
}

/* Reads `n` rows from `first` every `stride` with memory type `mt` into buf. */
static herr_t read_slab(sax_results_file_t *f, int64_t first, int64_t n, int64_t stride, hid_t mt, void *buf)
{
    hid_t fs = H5Dget_space(f->rows);
    hsize_t start[1] = {(hsize_t)first}, step[1] = {(hsize_t)stride}, count[1] = {(hsize_t)n};
    hid_t ms = H5Screate_simple(1, count, NULL);
    herr_t rc = H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, step, count, NULL);
    if (rc >= 0)
        rc = H5Dread(f->rows, mt, ms, fs, H5P_DEFAULT, buf);
    H5Sclose(ms);
    H5Sclose(fs);
    return rc;
}

/* First row whose scenario is >= s (binary search over the sorted scenario column). */
static int64_t lower_bound(sax_results_file_t *f, int s, bool *ok)
{
    int64_t lo = 0, hi = f->total;
    while (lo < hi && *ok) {
        int64_t mid = lo + (hi - lo) / 2;
        int32_t sc = 0;
        *ok = read_slab(f, mid, 1, 1, f->scenario_t, &sc) >= 0;
        if (sc < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

sax_status_t sax_results_rows_scenario(sax_results_file_t *f, int s, int64_t *first, int64_t *n,
                                       sax_error_t *err)
{
    H5E_auto2_t old_func;
    void *old_data;
    H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    bool ok = true;
    int64_t a = lower_bound(f, s, &ok), b = ok ? lower_bound(f, s + 1, &ok) : a;
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    if (!ok)
        return sax_error_set(err, SAX_ERR_INPUT, "%s: cannot read the scenario column of /rows", f->d->path);
    *first = a;
    *n = b - a;
    return SAX_OK;
}

sax_status_t sax_results_rows_read(sax_results_file_t *f, int64_t first, int64_t n, int64_t stride,
                                   sax_record_t *out, sax_error_t *err)
{
    if (n <= 0)
        return SAX_OK;
    if (stride < 1 || first < 0 || first + (n - 1) * stride >= f->total)
        return sax_error_set(err, SAX_ERR_INTERNAL, "%s: rows %lld.. (stride %lld, %lld rows) outside /rows",
                             f->d->path, (long long)first, (long long)stride, (long long)n);
    sax_row_t *rows = malloc((size_t)n * sizeof *rows);
    if (!rows)
        return sax_error_set(err, SAX_ERR_NOMEM, "%s: no memory for %lld rows", f->d->path, (long long)n);
    H5E_auto2_t old_func;
    void *old_data;
    H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    herr_t rc = read_slab(f, first, n, stride, f->t.row_t, rows);
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    if (rc >= 0)
        for (int64_t i = 0; i < n; i++)
            sax_results_record_from_row(&f->d->space, &rows[i], &out[i]);
    free(rows);
    if (rc < 0)
        return sax_error_set(err, SAX_ERR_INPUT, "%s: cannot read /rows", f->d->path);
    for (int64_t i = 0; i < n; i++) {
        const char *problem = record_problem(&out[i], f->d->res.n_scenarios);
        if (problem != NULL)
            return sax_error_set(
                err, SAX_ERR_INPUT,
                "%s: not a readable sax results file: /rows row %lld: expected a candidate of "
                "the sweep, found %s (scenario %d)",
                f->d->path, (long long)(first + i * stride), problem, out[i].scenario);
    }
    return SAX_OK;
}
