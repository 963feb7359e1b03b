/* results_write.c - writes a sweep's results file collectively through MPI-IO (parallel HDF5).
 *
 * Every rank makes the same HDF5 calls with the same arguments (metadata is collective): rank 0
 * broadcasts the provenance, the space and the sizes first. The reductions are read on rank 0
 * only and written by it inside collective H5Dwrite calls (the other ranks select nothing);
 * /rows is written by every rank at offsets computed from the runs all ranks announce, so its
 * order is (scenario, index) whatever the number of ranks. The file is written under a temporary
 * name and renamed by rank 0 once every rank has closed it. Before it is created, rank 0 checks that
 * its size (an upper bound, with /rows estimated compressed) fits the free space and the ranks'
 * file-size limit, and every rank agrees on the verdict: HDF5 1.10 does not survive a write that
 * fails for lack of room. Once it exists, that room is reserved for it.
 */
#define _GNU_SOURCE /* fallocate (Linux), and POSIX: gmtime_r, truncate */

#include "results_hdf5.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define SAX_ROWS_CHUNK 16384     /* rows per chunk of /rows (about 4 MiB) */
#define SAX_ROWS_BATCH (1 << 18) /* rows per collective H5Dwrite round (bounds memory and MPI counts) */
#define SAX_ROWS_DEFLATE 1       /* zlib level: fast, and most of the gain on these rows */

typedef struct {
    MPI_Comm comm;
    int rank, size;
    hid_t file, dxpl;
    sax_results_types_t t;
    const sax_results_t *res;
    sax_results_write_stats_t *stats;
    sax_error_t *err;
    bool answer, oblivious; /* rank 0's res has an answer, with the oblivious pick */
    int near_kept;          /* rank 0's robust.n_near_kept */
} writer_t;

/* ---- attributes (collective: identical on every rank) ------------------------------------------ */

static sax_status_t hdf5_fail(writer_t *w, const char *what, const char *name)
{
    return sax_error_set(w->err, SAX_ERR_HDF5, "writing results: could not %s '%s'", what, name);
}

static sax_status_t attr_write(writer_t *w, hid_t obj, const char *name, hid_t type, hid_t space,
                               const void *buf)
{
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, type, buf);
    if (a >= 0)
        H5Aclose(a);
    return rc < 0 ? hdf5_fail(w, "write attribute", name) : SAX_OK;
}

static sax_status_t attr_str(writer_t *w, hid_t obj, const char *name, const char *value)
{
    hid_t s = H5Screate(H5S_SCALAR);
    const char *v = value ? value : "";
    sax_status_t st = attr_write(w, obj, name, w->t.str_t, s, &v);
    H5Sclose(s);
    return st;
}

static sax_status_t attr_strs(writer_t *w, hid_t obj, const char *name, const char *const *values, int n)
{
    hsize_t dims[1] = {(hsize_t)n};
    hid_t s = n > 0 ? H5Screate_simple(1, dims, NULL) : H5Screate(H5S_NULL);
    sax_status_t st = attr_write(w, obj, name, w->t.str_t, s, values);
    H5Sclose(s);
    return st;
}

static sax_status_t attr_num(writer_t *w, hid_t obj, const char *name, hid_t type, const void *value)
{
    hid_t s = H5Screate(H5S_SCALAR);
    sax_status_t st = attr_write(w, obj, name, type, s, value);
    H5Sclose(s);
    return st;
}

static sax_status_t attr_i64(writer_t *w, hid_t obj, const char *name, int64_t v)
{
    return attr_num(w, obj, name, H5T_NATIVE_INT64, &v);
}

static sax_status_t attr_f64(writer_t *w, hid_t obj, const char *name, double v)
{
    return attr_num(w, obj, name, H5T_NATIVE_DOUBLE, &v);
}

/* description, and for compounds field_units + field_descriptions in member order; else units. */
static sax_status_t describe(writer_t *w, hid_t dset, hid_t type, const char *description, const char *units)
{
    sax_status_t st = attr_str(w, dset, "description", description);
    if (st != SAX_OK)
        return st;
    if (H5Tget_class(type) == H5T_COMPOUND) {
        const char **u = NULL, **d = NULL;
        int n = sax_results_field_info(type, &u, &d);
        if (n < 0)
            return hdf5_fail(w, "describe the fields of", description);
        st = attr_strs(w, dset, "field_units", u, n);
        if (st == SAX_OK)
            st = attr_strs(w, dset, "field_descriptions", d, n);
        free(u);
        free(d);
        return st;
    }
    return attr_str(w, dset, "units", units);
}

/* ---- small datasets: contiguous, written by rank 0 in a collective call ------------------------- */

static sax_status_t write_small(writer_t *w, hid_t loc, const char *name, hid_t type, int64_t n,
                                const void *buf, const char *description, const char *units)
{
    sax_status_t st = SAX_OK;
    hsize_t dims[1] = {(hsize_t)n};
    hid_t fs = H5Screate_simple(1, dims, NULL);
    hid_t d = H5Dcreate2(loc, name, type, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (d < 0) {
        st = hdf5_fail(w, "create dataset", name);
        goto done;
    }
    if (n > 0) {
        hsize_t one[1] = {1};
        hid_t ms = H5Screate_simple(1, w->rank == 0 ? dims : one, NULL);
        if (w->rank != 0) {
            H5Sselect_none(ms);
            H5Sselect_none(fs);
        }
        herr_t rc = H5Dwrite(d, type, ms, fs, w->dxpl, buf);
        H5Sclose(ms);
        if (rc < 0) {
            st = hdf5_fail(w, "write dataset", name);
            goto done;
        }
        if (w->stats && strcmp(name, "best") == 0) {
            H5D_mpio_actual_io_mode_t mode;
            if (H5Pget_mpio_actual_io_mode(w->dxpl, &mode) >= 0)
                w->stats->summary_io_mode = (int)mode;
        }
    }
    st = describe(w, d, type, description, units);
done:
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(fs);
    return st;
}

/* Collective. Rank 0 allocates `n` elements of `size` bytes (the other ranks write nothing and
 * get a small dummy buffer); every rank learns whether that worked, so that a failure on rank 0
 * never leaves the others waiting in a collective call. */
static sax_status_t rank0_buffer(writer_t *w, int64_t n, size_t size, const char *name, void **buf)
{
    *buf = calloc(w->rank == 0 && n > 0 ? (size_t)n : 1, w->rank == 0 ? size : sizeof(double));
    int ok = *buf != NULL, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, w->comm);
    if (all_ok)
        return SAX_OK;
    free(*buf);
    *buf = NULL;
    return sax_error_set(w->err, SAX_ERR_NOMEM, "writing results: no memory for %s", name);
}

static sax_status_t write_records(writer_t *w, const char *name, const sax_record_t *recs, int64_t n,
                                  const char *description)
{
    sax_row_t *rows;
    sax_status_t st = rank0_buffer(w, n, sizeof *rows, name, (void **)&rows);
    if (st != SAX_OK)
        return st;
    for (int64_t i = 0; w->rank == 0 && i < n; i++)
        sax_results_row_from_record(w->res->space, &recs[i], &rows[i]);
    st = write_small(w, w->file, name, w->t.row_t, n, rows, description, NULL);
    free(rows);
    return st;
}

/* ---- the design space and the scenarios --------------------------------------------------------- */

static const char *column_description(const char *name)
{
    sax_results_column_t cols[64];
    int n = sax_results_columns(cols, 64);
    for (int i = 0; i < n && i < 64; i++)
        if (strcmp(cols[i].name, name) == 0)
            return cols[i].description;
    return "";
}

static sax_status_t write_space(writer_t *w)
{
    const sax_space_desc_t *sp = w->res->space;
    sax_status_t st = SAX_OK;
    hid_t g = H5Gcreate2(w->file, "space", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return hdf5_fail(w, "create group", "space");
    st = attr_str(w, g, "description", "the design space: the values of each key the sweep explored");
    for (int k = 0; k < SAX_KEY_COUNT && st == SAX_OK; k++) {
        int32_t v[SAX_SPACE_MAX_VALUES];
        int n;
        if (k == SAX_KEY_ORDER) {
            n = sp->n_orders;
            for (int o = 0; o < n; o++)
                v[o] = o;
        } else {
            n = sp->values[k].n;
            memcpy(v, sp->values[k].v, sizeof v);
        }
        st = write_small(w, g, sax_key_names[k], w->t.key_t[k], n, v, column_description(sax_key_names[k]),
                         "1");
    }
    /* baselines: name + the value each fixes ("any"/-1 where it does not) */
    typedef struct {
        char name[SAX_NAME_LEN];
        int32_t v[SAX_KEY_COUNT];
    } baseline_t;
    baseline_t b[SAX_SPACE_MAX_BASELINES];
    memset(b, 0, sizeof b);
    int nb = sp->n_baselines;
    for (int i = 0; i < nb; i++) {
        memcpy(b[i].name, sp->baselines[i].name, SAX_NAME_LEN);
        b[i].name[SAX_NAME_LEN - 1] = '\0';
        for (int k = 0; k < SAX_KEY_COUNT; k++)
            b[i].v[k] = (sp->baselines[i].mask >> k) & 1u ? sp->baselines[i].value[k] : -1;
    }
    hid_t name_t = H5Tcopy(H5T_C_S1);
    H5Tset_size(name_t, SAX_NAME_LEN);
    H5Tset_strpad(name_t, H5T_STR_NULLTERM);
    hid_t bt = H5Tcreate(H5T_COMPOUND, sizeof(baseline_t));
    H5Tinsert(bt, "name", offsetof(baseline_t, name), name_t);
    for (int k = 0; k < SAX_KEY_COUNT; k++)
        H5Tinsert(bt, sax_key_names[k], offsetof(baseline_t, v) + (size_t)k * sizeof(int32_t),
                  w->t.key_any_t[k]);
    if (st == SAX_OK)
        st = write_small(w, g, "baselines", bt, nb, b,
                         "baselines: named partial configurations; each key's value, or any/-1 when the "
                         "baseline leaves it to the optimiser",
                         NULL);
    H5Tclose(bt);
    H5Tclose(name_t);
    H5Gclose(g);
    return st;
}

static sax_status_t write_scenarios(writer_t *w)
{
    const sax_results_t *r = w->res;
    int nv = r->space->n_scenario_vars;
    size_t esize = sizeof(int64_t) + (size_t)nv * sizeof(double);
    unsigned char *buf;
    sax_status_t st0 = rank0_buffer(w, r->n_scenarios, esize, "the scenarios", (void **)&buf);
    if (st0 != SAX_OK)
        return st0;
    for (int s = 0; w->rank == 0 && s < r->n_scenarios; s++) {
        int64_t idx = s;
        memcpy(buf + (size_t)s * esize, &idx, sizeof idx);
        if (nv > 0)
            memcpy(buf + (size_t)s * esize + sizeof idx, r->scenario_values + (size_t)s * (size_t)nv,
                   (size_t)nv * sizeof(double));
    }
    hid_t t = H5Tcreate(H5T_COMPOUND, esize);
    H5Tinsert(t, "scenario", 0, H5T_NATIVE_INT64);
    const char *units[SAX_SPACE_MAX_SCENARIO_VARS + 1] = {"1"};
    const char *paths[SAX_SPACE_MAX_SCENARIO_VARS + 1] = {"scenario index"};
    const char *shown[SAX_SPACE_MAX_SCENARIO_VARS + 1] = {""};
    double shown_si[SAX_SPACE_MAX_SCENARIO_VARS + 1] = {0};
    for (int v = 0; v < nv; v++) {
        const sax_scenario_var_t *var = &r->space->scenario_vars[v];
        H5Tinsert(t, var->path, sizeof(int64_t) + (size_t)v * sizeof(double), H5T_NATIVE_DOUBLE);
        units[v + 1] = var->si_unit[0] ? var->si_unit : "1";
        paths[v + 1] = var->path;
        shown[v + 1] = var->unit;
        shown_si[v + 1] = var->unit_si;
    }
    sax_status_t st = SAX_OK;
    hsize_t dims[1] = {(hsize_t)r->n_scenarios};
    hid_t fs = H5Screate_simple(1, dims, NULL);
    hid_t d = H5Dcreate2(w->file, "scenarios", t, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (d < 0) {
        st = hdf5_fail(w, "create dataset", "scenarios");
    } else {
        if (r->n_scenarios > 0) {
            hsize_t one[1] = {1};
            hid_t ms = H5Screate_simple(1, w->rank == 0 ? dims : one, NULL);
            if (w->rank != 0) {
                H5Sselect_none(ms);
                H5Sselect_none(fs);
            }
            if (H5Dwrite(d, t, ms, fs, w->dxpl, buf) < 0)
                st = hdf5_fail(w, "write dataset", "scenarios");
            H5Sclose(ms);
        }
        if (st == SAX_OK)
            st =
                attr_str(w, d, "description",
                         "the scenarios: one row per combination of the swept environment values (SI units); "
                         "field names are configuration paths");
        if (st == SAX_OK)
            st = attr_strs(w, d, "field_units", units, nv + 1);
        if (st == SAX_OK)
            st = attr_strs(w, d, "field_descriptions", paths, nv + 1);
        if (st == SAX_OK)
            st = attr_strs(w, d, "display_units", shown, nv + 1);
        if (st == SAX_OK) {
            hsize_t n1[1] = {(hsize_t)nv + 1};
            hid_t as = H5Screate_simple(1, n1, NULL);
            st = attr_write(w, d, "display_unit_si", H5T_NATIVE_DOUBLE, as, shown_si);
            H5Sclose(as);
        }
        H5Dclose(d);
    }
    H5Sclose(fs);
    H5Tclose(t);
    free(buf);
    return st;
}

/* ---- reductions --------------------------------------------------------------------------------- */

static sax_status_t write_reductions(writer_t *w)
{
    const sax_results_t *r = w->res;
    sax_status_t st = write_records(w, "best", r->best, r->n_scenarios,
                                    "the fastest feasible candidate of each scenario (row s = scenario s; "
                                    "index -1 when no candidate is feasible)");
    if (st == SAX_OK)
        st = write_records(w, "top", r->top, r->n_top,
                           "the top_k fastest feasible candidates of each scenario, by scenario then "
                           "iteration time");
    if (st == SAX_OK)
        st = write_records(w, "pareto", r->pareto, r->n_pareto,
                           "per scenario, the candidates not dominated in the objectives of the root "
                           "attribute pareto_objectives, by scenario then iteration time");
    if (st != SAX_OK)
        return st;

    int64_t nb = r->n_bpv;
    sax_bpv_row_t *bpv;
    if ((st = rank0_buffer(w, nb, sizeof *bpv, "best_per_value", (void **)&bpv)) != SAX_OK)
        return st;
    for (int64_t i = 0; w->rank == 0 && i < nb; i++) {
        sax_results_row_from_record(r->space, &r->best_per_value[i], &bpv[i].row);
        bpv[i].bpv_key = r->bpv_key[i];
        bpv[i].bpv_value = r->bpv_value[i];
    }
    st = write_small(w, w->file, "best_per_value", w->t.bpv_t, nb, bpv,
                     "per scenario and per value of each design key, the fastest feasible candidate with "
                     "that value (index -1 when none)",
                     NULL);
    free(bpv);
    if (st != SAX_OK)
        return st;

    int64_t nbl = (int64_t)r->n_scenarios * r->space->n_baselines;
    sax_baseline_row_t *bl;
    if ((st = rank0_buffer(w, nbl, sizeof *bl, "baseline_best", (void **)&bl)) != SAX_OK)
        return st;
    for (int64_t i = 0; w->rank == 0 && i < nbl; i++) {
        sax_results_row_from_record(r->space, &r->baseline_best[i], &bl[i].row);
        bl[i].row.scenario = (int32_t)(i / r->space->n_baselines);
        bl[i].baseline = (int32_t)(i % r->space->n_baselines);
    }
    st = write_small(w, w->file, "baseline_best", w->t.baseline_row_t, nbl, bl,
                     "per scenario and baseline, the fastest feasible candidate agreeing with the baseline "
                     "(scenario-major; index -1 when none)",
                     NULL);
    free(bl);
    if (st != SAX_OK)
        return st;

    typedef struct {
        int64_t count;
        int32_t reason;
    } count_t;
    count_t c[SAX_INFEASIBLE_COUNT];
    memset(c, 0, sizeof c);
    for (int i = 0; i < SAX_INFEASIBLE_COUNT; i++) {
        c[i].reason = i;
        c[i].count = r->infeasible[i];
    }
    hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(count_t));
    H5Tinsert(ct, "reason", offsetof(count_t, reason), w->t.reason_t);
    H5Tinsert(ct, "count", offsetof(count_t, count), H5T_NATIVE_INT64);
    st = write_small(w, w->file, "infeasible", ct, SAX_INFEASIBLE_COUNT, c,
                     "evaluated candidates per infeasibility reason, over all scenarios (reason none = "
                     "feasible)",
                     NULL);
    H5Tclose(ct);
    if (st == SAX_OK) {
        hid_t d = H5Dopen2(w->file, "infeasible", H5P_DEFAULT);
        st = d < 0 ? hdf5_fail(w, "open", "infeasible")
                   : attr_strs(w, d, "reason_messages", sax_infeasible_messages, SAX_INFEASIBLE_COUNT);
        if (d >= 0)
            H5Dclose(d);
    }
    return st;
}

/* ---- the answer beyond the bests (docs/decisions.md) ------------------------------------------- */

/* "transport,connections": the keys of bit mask `differ`. */
static void differ_text(uint32_t differ, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < SAX_KEY_COUNT; k++)
        if (differ >> k & 1u) {
            int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", sax_key_names[k]);
            if (n < 0 || (size_t)n >= len - used)
                break;
            used += (size_t)n;
        }
}

/* The row of a per-scenario candidate: a record, with the scenario set where it stands for none. */
static void scenario_row(const sax_space_desc_t *sp, const sax_record_t *rec, int s, sax_row_t *row)
{
    sax_results_row_from_record(sp, rec, row);
    row->scenario = s;
}

static sax_status_t write_answer_scenarios(writer_t *w, hid_t g)
{
    const sax_results_t *r = w->res;
    const sax_results_answer_t *a = w->rank == 0 ? r->answer : NULL;
    int ns = r->n_scenarios;
    sax_ties_row_t *ties;
    sax_status_t st = rank0_buffer(w, ns, sizeof *ties, "answer/ties", (void **)&ties);
    if (st != SAX_OK)
        return st;
    for (int s = 0; a && s < ns; s++) {
        scenario_row(r->space, &a->ties[s].simplest, s, &ties[s].row);
        ties[s].tied = a->ties[s].count;
        ties[s].at_least = a->ties[s].at_least ? 1 : 0;
        differ_text(a->ties[s].differ, ties[s].differ_in, sizeof ties[s].differ_in);
    }
    st = write_small(w, g, "ties", w->t.ties_t, ns, ties,
                     "per scenario, the candidates of the top list tied with the best: how many, the keys in "
                     "which they differ, and the simplest of them (row fields)",
                     NULL);
    free(ties);
    if (st != SAX_OK)
        return st;

    sax_lossless_row_t *ll;
    if ((st = rank0_buffer(w, ns, sizeof *ll, "answer/best_lossless", (void **)&ll)) != SAX_OK)
        return st;
    for (int s = 0; a && s < ns; s++) {
        scenario_row(r->space, &a->lossless[s].lossless, s, &ll[s].row);
        ll[s].lossy = a->lossless[s].lossy ? 1 : 0;
        ll[s].noop = a->lossless[s].noop ? 1 : 0;
    }
    st = write_small(w, g, "best_lossless", w->t.lossless_t, ns, ll,
                     "per scenario, whether the best compresses (lossy) and whether that is a no-op, and the "
                     "fastest candidate that compresses nothing (row fields; index -1 when none)",
                     NULL);
    free(ll);
    if (st != SAX_OK || !w->oblivious)
        return st;

    sax_oblivious_row_t *ob;
    if ((st = rank0_buffer(w, ns, sizeof *ob, "answer/oblivious", (void **)&ob)) != SAX_OK)
        return st;
    for (int s = 0; a && s < ns; s++) {
        const sax_results_oblivious_t *o = &a->oblivious[s];
        scenario_row(r->space, &o->real, s, &ob[s].row);
        if (!o->found)
            ob[s].row.index = -1;
        ob[s].found = o->found ? 1 : 0;
        ob[s].merged_time_s = o->found ? o->merged_time_s : NAN;
        snprintf(ob[s].invalid, sizeof ob[s].invalid, "%s", o->invalid);
    }
    st = write_small(w, g, "oblivious", w->t.oblivious_t, ns, ob,
                     "per scenario, the pick of a network-oblivious optimiser (sites merged into one): its "
                     "predicted time there, and the pick on the real network (row fields)",
                     NULL);
    free(ob);
    return st;
}

static sax_status_t write_answer_robust(writer_t *w, hid_t g)
{
    const sax_results_t *r = w->res;
    const sax_results_answer_t *a = w->rank == 0 ? r->answer : NULL;
    int ns = r->n_scenarios, nb = r->space->n_baselines;
    int64_t nat = (int64_t)ns * nb;
    sax_attribution_row_t *at;
    sax_status_t st = rank0_buffer(w, nat, sizeof *at, "answer/attribution", (void **)&at);
    if (st != SAX_OK)
        return st;
    for (int64_t i = 0; a && i < nat; i++) {
        at[i].scenario = (int32_t)(i / nb);
        at[i].baseline = (int32_t)(i % nb);
        at[i].valid = a->attribution[i].valid ? 1 : 0;
        at[i].orders = a->attribution[i].valid ? a->attribution[i].orders : 0;
        for (int f = 0; f < SAX_RESULTS_FACTOR_COUNT; f++)
            at[i].factor[f] = a->attribution[i].valid ? a->attribution[i].factor[f] : NAN;
    }
    st = write_small(
        w, g, "attribution", w->t.attribution_t, nat, at,
        "per scenario and baseline (scenario-major), the baseline's speedup split into factors for "
        "placement, scheduling and network (Shapley values of log time; they multiply to it)",
        NULL);
    free(at);
    if (st != SAX_OK)
        return st;

    sax_robust_row_t *rb;
    if ((st = rank0_buffer(w, 1, sizeof *rb, "answer/robust", (void **)&rb)) != SAX_OK)
        return st;
    if (a) {
        const sax_results_robust_t *x = &a->robust;
        scenario_row(r->space, &x->pick, 0, &rb->row);
        if (!x->found)
            rb->row.index = -1;
        rb->found = x->found ? 1 : 0;
        rb->exact = x->exact ? 1 : 0;
        rb->worst_regret = x->found ? x->worst_regret : NAN;
        rb->bound = x->bound;
        rb->candidates = x->candidates;
        rb->within_5pct = x->n_near;
    }
    st = write_small(w, g, "robust", w->t.robust_t, 1, rb,
                     "the candidate with the least worst regret over the scenarios (regret = time / the "
                     "scenario's best time - 1), as evaluated in scenario 0 (row fields)",
                     NULL);
    free(rb);
    if (st != SAX_OK)
        return st;

    double *rg;
    if ((st = rank0_buffer(w, ns, sizeof *rg, "answer/robust_regret", (void **)&rg)) != SAX_OK)
        return st;
    for (int s = 0; a && s < ns; s++)
        rg[s] = a->robust.found ? a->robust.regret[s] : NAN;
    st = write_small(
        w, g, "robust_regret", H5T_NATIVE_DOUBLE, ns, rg,
        "the robust candidate's regret in each scenario (time / the scenario's best time - 1; inf "
        "where it is infeasible)",
        "1");
    free(rg);
    if (st != SAX_OK)
        return st;

    int nk = w->near_kept;
    sax_near_row_t *nr;
    if ((st = rank0_buffer(w, nk, sizeof *nr, "answer/robust_within_5pct", (void **)&nr)) != SAX_OK)
        return st;
    for (int i = 0; a && i < nk; i++) {
        scenario_row(r->space, &a->robust.near[i], 0, &nr[i].row);
        nr[i].worst_regret = a->robust.near_worst[i];
    }
    st = write_small(
        w, g, "robust_within_5pct", w->t.near_t, nk, nr,
        "the least regretted of the compared candidates within 5 % of the best in every scenario, "
        "by worst regret (at most five; how many there are: /answer/robust within_5pct)",
        NULL);
    free(nr);
    return st;
}

/* Collective: /answer, when rank 0 has one. */
static sax_status_t write_answer(writer_t *w)
{
    if (!w->answer)
        return SAX_OK;
    hid_t g = H5Gcreate2(w->file, "answer", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return hdf5_fail(w, "create group", "answer");
    sax_status_t st = attr_str(w, g, "description",
                               "what the sweep says beyond the bests (docs/decisions.md): ties, the best "
                               "lossless, the network-oblivious pick, attribution, the robust candidate");
    if (st == SAX_OK)
        st = write_answer_scenarios(w, g);
    if (st == SAX_OK)
        st = write_answer_robust(w, g);
    H5Gclose(g);
    return st;
}

/* Collective: every rank learns the shape of rank 0's answer. */
static void share_answer_shape(writer_t *w, const sax_results_t *in)
{
    int32_t shape[3] = {0, 0, 0};
    if (w->rank == 0 && in->answer) {
        shape[0] = 1;
        shape[1] = in->answer->oblivious != NULL;
        shape[2] = in->answer->robust.found ? in->answer->robust.n_near_kept : 0;
    }
    MPI_Bcast(shape, 3, MPI_INT32_T, 0, w->comm);
    w->answer = shape[0] != 0;
    w->oblivious = shape[1] != 0;
    w->near_kept = shape[2] < 0 ? 0 : shape[2];
}

/* ---- every evaluated candidate ------------------------------------------------------------------ */

typedef struct {
    int64_t scenario, first, last; /* keys of the run's first and last row */
    int64_t len, rank, local;      /* rows; owner; index of the run on its owner */
    int64_t offset;                /* row offset in /rows */
} run_t;

typedef struct {
    int64_t file_off, src, len; /* where in the file, where in my_rows, how many */
} local_run_t;

static int run_cmp(const void *a, const void *b)
{
    const run_t *x = a, *y = b;
    if (x->scenario != y->scenario)
        return x->scenario < y->scenario ? -1 : 1;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->local < y->local ? -1 : (x->local > y->local);
}

static int local_run_cmp(const void *a, const void *b)
{
    const local_run_t *x = a, *y = b;
    return x->file_off < y->file_off ? -1 : (x->file_off > y->file_off);
}

/* Collective: every rank learns every run, sorts them by key and derives its runs' file offsets.
 * Fails (identically on every rank) when runs interleave. */
/* Scenario and index of row i of a source. */
static void source_key(const sax_row_source_t *src, int64_t i, int64_t *scenario, int64_t *index)
{
    if (src->rows) {
        *scenario = src->rows[i].scenario;
        *index = src->rows[i].index;
    } else {
        *scenario = src->recs[i].scenario;
        *index = src->recs[i].index;
    }
}

static sax_status_t place_runs(writer_t *w, const sax_row_source_t *src, local_run_t **out, int64_t *n_out,
                               int64_t *total)
{
    int64_t n_rows = src->n, n_runs = src->n_runs;
    const int64_t *run_len = src->run_len;
    int64_t one_run = n_rows;
    if (n_runs == 0 || !run_len) {
        run_len = &one_run;
        n_runs = 1;
    }
    int64_t sum = 0, mine = 0;
    for (int64_t i = 0; i < n_runs; i++) {
        sum += run_len[i];
        mine += run_len[i] > 0;
    }
    int bad = sum != n_rows || mine > INT32_MAX / 7;
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, w->comm);
    if (any_bad)
        return sax_error_set(w->err, SAX_ERR_INTERNAL,
                             "writing results: run lengths do not add up to the rows");

    int my_count = (int)(mine * 7);
    run_t *my = calloc(mine > 0 ? (size_t)mine : 1, sizeof *my);
    int *counts = calloc((size_t)w->size, sizeof *counts), *displs = calloc((size_t)w->size, sizeof *displs);
    run_t *all = NULL;
    local_run_t *loc = NULL;
    sax_status_t st = SAX_OK;
    if (!my || !counts || !displs) {
        st = SAX_ERR_NOMEM;
        goto done;
    }
    int64_t start = 0, m = 0;
    for (int64_t i = 0; i < n_runs; i++) {
        if (run_len[i] > 0) {
            int64_t s0, i0, s1, i1;
            source_key(src, start, &s0, &i0);
            source_key(src, start + run_len[i] - 1, &s1, &i1);
            my[m] = (run_t){s0, i0, i1, run_len[i], w->rank, start, 0};
            if (s1 != s0)
                my[m].last = INT64_MAX; /* a run crossing scenarios: compare on its first key only */
            m++;
        }
        start += run_len[i];
    }
    MPI_Allgather(&my_count, 1, MPI_INT, counts, 1, MPI_INT, w->comm);
    int64_t all_ints = 0;
    for (int r = 0; r < w->size; r++) {
        displs[r] = (int)all_ints;
        all_ints += counts[r];
    }
    if (all_ints > INT32_MAX) {
        st = SAX_ERR_INTERNAL;
        goto done;
    }
    int64_t n_all = all_ints / 7;
    all = calloc(n_all > 0 ? (size_t)n_all : 1, sizeof *all);
    if (!all) {
        st = SAX_ERR_NOMEM;
        goto done;
    }
    MPI_Allgatherv(my, my_count, MPI_INT64_T, all, counts, displs, MPI_INT64_T, w->comm);
    qsort(all, (size_t)n_all, sizeof *all, run_cmp);
    int64_t off = 0;
    for (int64_t i = 0; i < n_all; i++) {
        all[i].offset = off;
        off += all[i].len;
        if (i > 0 && all[i].scenario == all[i - 1].scenario && all[i].first <= all[i - 1].last)
            st = SAX_ERR_INTERNAL; /* identical on every rank: they all sorted the same table */
    }
    *total = off;
    if (st != SAX_OK)
        goto done;
    loc = calloc(mine > 0 ? (size_t)mine : 1, sizeof *loc);
    if (!loc) {
        st = SAX_ERR_NOMEM;
        goto done;
    }
    int64_t nl = 0;
    for (int64_t i = 0; i < n_all; i++)
        if (all[i].rank == w->rank)
            loc[nl++] = (local_run_t){all[i].offset, all[i].local, all[i].len};
    qsort(loc, (size_t)nl, sizeof *loc, local_run_cmp);
    *out = loc;
    *n_out = nl;
    loc = NULL;
done:
    free(my);
    free(counts);
    free(displs);
    free(all);
    free(loc);
    if (st == SAX_ERR_NOMEM)
        return sax_error_set(w->err, st, "writing results: no memory to place the rows");
    if (st != SAX_OK)
        return sax_error_set(w->err, st,
                             "writing results: the rows of two runs interleave (runs must cover "
                             "disjoint ranges of (scenario, index))");
    return SAX_OK;
}

static sax_status_t write_rows(writer_t *w, const sax_row_source_t *src)
{
    local_run_t *runs = NULL;
    int64_t nr = 0, total = 0, n_rows = src->n;
    sax_status_t st = place_runs(w, src, &runs, &nr, &total);
    if (st != SAX_OK)
        return st;

    hsize_t dims[1] = {(hsize_t)total}, maxdims[1] = {H5S_UNLIMITED};
    hsize_t chunk[1] = {(hsize_t)(total < SAX_ROWS_CHUNK ? (total > 0 ? total : 1) : SAX_ROWS_CHUNK)};
    hid_t fs = H5Screate_simple(1, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, chunk);
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, SAX_ROWS_DEFLATE);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    hid_t d = H5Dcreate2(w->file, "rows", w->t.row_t, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    sax_row_t *buf = NULL;
    if (d < 0) {
        st = hdf5_fail(w, "create dataset", "rows");
        goto done;
    }
    /* Rounds of at most SAX_ROWS_BATCH of my rows, taken in file order; every rank joins every round. */
    int64_t my_rounds = (n_rows + SAX_ROWS_BATCH - 1) / SAX_ROWS_BATCH, rounds = 0;
    MPI_Allreduce(&my_rounds, &rounds, 1, MPI_INT64_T, MPI_MAX, w->comm);
    buf =
        malloc((size_t)(n_rows < SAX_ROWS_BATCH ? (n_rows > 0 ? n_rows : 1) : SAX_ROWS_BATCH) * sizeof *buf);
    /* Without a buffer this rank writes nothing but still joins every collective round. */
    int failed = !buf;
    if (!buf)
        st = sax_error_set(w->err, SAX_ERR_NOMEM, "writing results: no memory for a batch of rows");
    int64_t ri = 0, in_run = 0; /* current run and position in it */
    for (int64_t round = 0; round < rounds; round++) {
        int64_t want = buf ? n_rows - round * SAX_ROWS_BATCH : 0;
        want = want < 0 ? 0 : (want > SAX_ROWS_BATCH ? SAX_ROWS_BATCH : want);
        H5Sselect_none(fs);
        int64_t got = 0;
        while (got < want && ri < nr) {
            int64_t take = runs[ri].len - in_run;
            if (take > want - got)
                take = want - got;
            hsize_t start[1] = {(hsize_t)(runs[ri].file_off + in_run)}, count[1] = {(hsize_t)take};
            H5Sselect_hyperslab(fs, H5S_SELECT_OR, start, NULL, count, NULL);
            if (src->rows)
                memcpy(&buf[got], &src->rows[runs[ri].src + in_run], (size_t)take * sizeof *buf);
            else
                for (int64_t i = 0; i < take; i++)
                    sax_results_row_from_record(w->res->space, &src->recs[runs[ri].src + in_run + i],
                                                &buf[got + i]);
            got += take;
            in_run += take;
            if (in_run == runs[ri].len) {
                ri++;
                in_run = 0;
            }
        }
        hsize_t mdims[1] = {(hsize_t)(got > 0 ? got : 1)};
        hid_t ms = H5Screate_simple(1, mdims, NULL);
        if (got == 0)
            H5Sselect_none(ms);
        if (H5Dwrite(d, w->t.row_t, ms, fs, w->dxpl, buf) < 0)
            failed = 1;
        H5Sclose(ms);
    }
    if (w->stats && rounds > 0) {
        H5D_mpio_actual_io_mode_t mode;
        uint32_t local_cause = 0, global_cause = 0;
        if (H5Pget_mpio_actual_io_mode(w->dxpl, &mode) >= 0)
            w->stats->rows_io_mode = (int)mode;
        if (H5Pget_mpio_no_collective_cause(w->dxpl, &local_cause, &global_cause) >= 0)
            w->stats->rows_no_collective_cause = global_cause;
    }
    if (w->stats)
        w->stats->rows = total;
    if (failed && st == SAX_OK)
        st = hdf5_fail(w, "write dataset", "rows");
    if (st == SAX_OK)
        st = describe(w, d, w->t.row_t,
                      "every evaluated candidate (sax sweep --store feasible|all), ordered by scenario then "
                      "index",
                      NULL);
done:
    free(buf);
    free(runs);
    if (d >= 0)
        H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(fs);
    return st;
}

/* ---- provenance --------------------------------------------------------------------------------- */

static void iso_time(double unix_s, char *buf, size_t len)
{
    time_t t = (time_t)unix_s;
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
    else
        snprintf(buf, len, "?");
}

static sax_status_t write_provenance(writer_t *w)
{
    const sax_results_t *r = w->res;
    hid_t root = w->file;
    char start[32], end[32];
    iso_time(r->start_unix_s, start, sizeof start);
    iso_time(r->end_unix_s, end, sizeof end);
    int64_t infeasible = 0;
    for (int i = 1; i < SAX_INFEASIBLE_COUNT; i++)
        infeasible += r->infeasible[i];
    const char *vars[SAX_SPACE_MAX_SCENARIO_VARS];
    for (int v = 0; v < r->space->n_scenario_vars; v++)
        vars[v] = r->space->scenario_vars[v].path;
    int32_t version = SAX_RESULTS_FORMAT_VERSION;
    int32_t ranks = r->ranks, n_scen = r->n_scenarios, top_k = r->top_k;

    sax_status_t st = attr_str(w, root, "sax_format", SAX_RESULTS_FORMAT);
#define SAX_ATTR(call)                                                                                       \
    do {                                                                                                     \
        if (st == SAX_OK)                                                                                    \
            st = (call);                                                                                     \
    } while (0)
    SAX_ATTR(attr_num(w, root, "sax_format_version", H5T_NATIVE_INT32, &version));
    SAX_ATTR(attr_str(w, root, "sax_version", r->version));
    SAX_ATTR(attr_str(w, root, "git_revision", r->git_revision));
    SAX_ATTR(attr_str(w, root, "config_json", r->config_json));
    SAX_ATTR(attr_str(w, root, "command_line", r->command_line));
    SAX_ATTR(attr_num(w, root, "ranks", H5T_NATIVE_INT32, &ranks));
    SAX_ATTR(attr_str(w, root, "hosts", r->hosts));
    SAX_ATTR(attr_str(w, root, "start_time", start));
    SAX_ATTR(attr_str(w, root, "end_time", end));
    SAX_ATTR(attr_f64(w, root, "start_unix_s", r->start_unix_s));
    SAX_ATTR(attr_f64(w, root, "end_unix_s", r->end_unix_s));
    SAX_ATTR(attr_f64(w, root, "elapsed_s", r->end_unix_s - r->start_unix_s));
    SAX_ATTR(attr_i64(w, root, "evaluated", r->evaluated));
    SAX_ATTR(attr_i64(w, root, "skipped", r->skipped));
    SAX_ATTR(attr_i64(w, root, "feasible", r->infeasible[SAX_FEASIBLE]));
    SAX_ATTR(attr_i64(w, root, "infeasible", infeasible));
    SAX_ATTR(attr_str(w, root, "store",
                      (int)r->store >= 0 && r->store < SAX_STORE_COUNT ? sax_store_names[r->store] : "none"));
    SAX_ATTR(attr_num(w, root, "n_scenarios", H5T_NATIVE_INT32, &n_scen));
    SAX_ATTR(attr_strs(w, root, "scenario_variables", vars, r->space->n_scenario_vars));
    SAX_ATTR(attr_num(w, root, "top_k", H5T_NATIVE_INT32, &top_k));
    SAX_ATTR(attr_str(w, root, "pareto_objectives",
                      r->pareto_objectives ? r->pareto_objectives : SAX_RESULTS_DEFAULT_PARETO_OBJECTIVES));
#undef SAX_ATTR
    return st;
}

/* Collective: every rank takes rank 0's provenance (times and host lists may differ per rank, and
 * HDF5 attributes must be written with identical values everywhere), space and reduction sizes.
 * `*owned` holds the strings. */
static sax_status_t share_provenance(MPI_Comm comm, int rank, const sax_results_t *in, sax_results_t *out,
                                     sax_space_desc_t *space, char **owned, sax_error_t *err)
{
    *out = *in;
    /* The space and the sizes of the reductions decide the file's types and shapes: rank 0's. */
    if (rank == 0)
        *space = *in->space;
    MPI_Bcast(space, (int)sizeof *space, MPI_BYTE, 0, comm);
    out->space = space;
    int64_t sizes[5] = {in->n_scenarios, in->n_top, in->n_pareto, in->n_bpv, in->top_k};
    MPI_Bcast(sizes, 5, MPI_INT64_T, 0, comm);
    out->n_scenarios = (int)sizes[0];
    out->n_top = sizes[1];
    out->n_pareto = sizes[2];
    out->n_bpv = sizes[3];
    out->top_k = (int)sizes[4];
    const char **strs[] = {&out->config_json,  &out->version, &out->git_revision,
                           &out->command_line, &out->hosts,   &out->pareto_objectives};
    enum { N = sizeof strs / sizeof strs[0] };
    struct {
        double start, end;
        int64_t evaluated, skipped, infeasible[SAX_INFEASIBLE_COUNT];
        int64_t len[N];
        int32_t ranks, store;
    } h;
    memset(&h, 0, sizeof h);
    if (rank == 0) {
        h.start = in->start_unix_s;
        h.end = in->end_unix_s;
        h.evaluated = in->evaluated;
        h.skipped = in->skipped;
        memcpy(h.infeasible, in->infeasible, sizeof h.infeasible);
        for (int i = 0; i < N; i++)
            h.len[i] = *strs[i] ? (int64_t)strlen(*strs[i]) : -1;
        h.ranks = in->ranks;
        h.store = (int32_t)in->store;
    }
    MPI_Bcast(&h, (int)sizeof h, MPI_BYTE, 0, comm);
    out->start_unix_s = h.start;
    out->end_unix_s = h.end;
    out->evaluated = h.evaluated;
    out->skipped = h.skipped;
    memcpy(out->infeasible, h.infeasible, sizeof h.infeasible);
    out->ranks = h.ranks;
    out->store = (sax_store_t)h.store;
    int64_t total = 0;
    for (int i = 0; i < N; i++)
        total += h.len[i] + 1;
    if (total > INT32_MAX)
        return sax_error_set(err, SAX_ERR_INTERNAL, "writing results: provenance too large");
    char *buf = malloc((size_t)total);
    int ok = buf != NULL, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (!all_ok) {
        free(buf);
        return sax_error_set(err, SAX_ERR_NOMEM, "writing results: no memory for the provenance");
    }
    int64_t at = 0;
    for (int i = 0; i < N; i++) {
        if (rank == 0 && h.len[i] >= 0)
            memcpy(buf + at, *strs[i], (size_t)h.len[i] + 1);
        at += h.len[i] + 1;
    }
    MPI_Bcast(buf, (int)total, MPI_CHAR, 0, comm);
    at = 0;
    for (int i = 0; i < N; i++) {
        *strs[i] = h.len[i] >= 0 ? buf + at : NULL;
        at += h.len[i] + 1;
    }
    *owned = buf;
    return SAX_OK;
}

/* ---- pre-flight: will the file fit? ------------------------------------------------------------- */

/* HDF5 1.10 cannot recover from a write that fails for lack of room: H5Fclose fails too, leaves the
 * file ID registered and HDF5's shutdown then crashes (HDF5 issue 2257), and at 2 ranks the
 * collective close can deadlock. So the room is checked before the file exists, against an upper
 * bound of its size: the bytes of every dataset (/rows uncompressed: deflate only makes it smaller,
 * up to zlib's worst-case expansion; for the decision itself /rows counts at an estimate of its
 * compressed size, SAX_H5_ROW_ESTIMATE_BYTES), every string, and allowances for HDF5's own structures of
 * two to eight times what h5stat and H5Oget_info show in real files (docs/reliability.md, "Failing
 * writes"): the largest object header, a row dataset's with its compound datatype and attribute
 * messages, is 5.8 KiB; the root's 22 attribute messages take 1.7 KiB; a variable-length string
 * takes about 30 bytes beyond its text in the global heap; superblock, groups, link B-trees and
 * local heaps 5.3 KiB; the chunk index of /rows 131 bytes per chunk. Rows compress 10-29 times in
 * the measured files, so the estimate's 2.5-fold margin also leaves room for the space HDF5 loses
 * when a parallel filtered write reallocates a chunk (up to 120 KiB in the measured files). */
#define SAX_H5_FILE_BYTES (32 * 1024)    /* superblock, the two groups, their link B-trees and heaps */
#define SAX_H5_DATASET_BYTES (16 * 1024) /* object header: datatype, dataspace, layout, fill, link */
#define SAX_H5_ATTRIBUTE_BYTES 512       /* attribute message, global heap collection slack */
#define SAX_H5_ATTRIBUTES_PER_DATASET 4  /* the most any dataset has (/infeasible) */
#define SAX_H5_ROOT_ATTRIBUTES 32        /* the provenance (22 today) and /space's description */
#define SAX_H5_STRING_BYTES 64           /* per string beyond its text: heap ID, heap object header */
#define SAX_H5_CHUNK_BYTES 1024          /* per /rows chunk: its entry and node share in the index */
#define SAX_H5_DESCRIPTION_BYTES 512     /* a dataset's description and units (150 characters at most) */
/* What a row of /rows takes on disk compressed, for deciding whether the file fits: 9.5-26 bytes in
 * the measured files (docs/reliability.md), so 64 is 2.5 times the least compressible. An estimate,
 * not a bound: counting 272 uncompressed bytes would refuse files that fit by 8-27 times. */
#define SAX_H5_ROW_ESTIMATE_BYTES 64

static double str_bytes(const char *s) { return (double)(s ? strlen(s) : 0) + SAX_H5_STRING_BYTES; }

/* "64.8 MiB": bytes in binary units, three significant digits (for messages). */
static void bytes_text(double bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1000 && u + 1 < (int)(sizeof units / sizeof units[0])) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, len, "%.3g %s", bytes, units[u]);
}

/* The size of the file that write_file makes from `r` (the shared results) with `n_rows` rows in
 * /rows: an upper bound, or with `rows_compressed` the same with /rows at its estimated compressed
 * size (exact as a bound when there are no rows). */
static double results_bound_bytes(const sax_results_t *r, int64_t n_rows, bool rows_compressed)
{
    const sax_space_desc_t *sp = r->space;
    bool rows = r->store != SAX_STORE_NONE;
    /* 7 at the root, /space's keys and baselines, /rows, /answer's 7; all but the keys and
     * /answer/robust_regret are compounds */
    const sax_results_answer_t *a = r->answer;
    int n_answer = a ? 6 + (a->oblivious ? 1 : 0) : 0;
    int n_datasets = 7 + SAX_KEY_COUNT + 1 + (rows ? 1 : 0) + n_answer,
        n_compounds = n_datasets - SAX_KEY_COUNT - (a ? 1 : 0);
    int n_attributes = SAX_H5_ROOT_ATTRIBUTES + n_datasets * SAX_H5_ATTRIBUTES_PER_DATASET +
                       2; /* /scenarios' display_units and display_unit_si */
    double bytes = SAX_H5_FILE_BYTES + (double)n_datasets * SAX_H5_DATASET_BYTES +
                   (double)n_attributes * SAX_H5_ATTRIBUTE_BYTES;

    /* the strings: provenance, scenario paths (root attribute, member names, field descriptions) */
    const char *prov[] = {r->config_json,
                          r->version,
                          r->git_revision,
                          r->command_line,
                          r->hosts,
                          r->pareto_objectives ? r->pareto_objectives : SAX_RESULTS_DEFAULT_PARETO_OBJECTIVES,
                          SAX_RESULTS_FORMAT};
    for (size_t i = 0; i < sizeof prov / sizeof prov[0]; i++)
        bytes += str_bytes(prov[i]);
    for (int v = 0; v < sp->n_scenario_vars; v++)
        bytes += 3 * str_bytes(sp->scenario_vars[v].path) + 2 * SAX_UNIT_TEXT_LEN + sizeof(double);
    for (int i = 0; i < SAX_INFEASIBLE_COUNT; i++)
        bytes += str_bytes(sax_infeasible_messages[i]);
    /* member names, field_units and field_descriptions of the compounds: at most every column each;
     * one-line descriptions and units of every dataset */
    sax_results_column_t cols[64];
    int nc = sax_results_columns(cols, 64);
    double columns = 0;
    for (int i = 0; i < nc && i < 64; i++)
        columns += str_bytes(cols[i].name) + str_bytes(cols[i].unit) + str_bytes(cols[i].description);
    bytes +=
        (double)n_compounds * columns + (double)n_datasets * (SAX_H5_DESCRIPTION_BYTES + 2 * str_bytes(NULL));

    /* the data */
    double row = sizeof(sax_row_t);
    bytes += row * ((double)r->n_scenarios + (double)r->n_top + (double)r->n_pareto);
    bytes += (double)sizeof(sax_bpv_row_t) * (double)r->n_bpv;
    bytes += (double)sizeof(sax_baseline_row_t) * (double)r->n_scenarios * sp->n_baselines;
    bytes += (double)r->n_scenarios * (sizeof(int64_t) + (double)sp->n_scenario_vars * sizeof(double));
    bytes += (double)SAX_KEY_COUNT * SAX_SPACE_MAX_VALUES * sizeof(int32_t);
    bytes += (double)sp->n_baselines * (SAX_NAME_LEN + SAX_KEY_COUNT * sizeof(int32_t));
    bytes += SAX_INFEASIBLE_COUNT * 2.0 * sizeof(int64_t);
    if (a) {
        double ns = (double)r->n_scenarios;
        bytes += SAX_H5_FILE_BYTES / 4.0; /* the group /answer: its header, link B-tree and heap */
        bytes += n_answer * 4096.0;       /* names, units and descriptions of the leading fields */
        bytes += ns * (double)(sizeof(sax_ties_row_t) + sizeof(sax_lossless_row_t) + sizeof(double));
        bytes += a->oblivious ? ns * (double)sizeof(sax_oblivious_row_t) : 0.0;
        bytes += ns * sp->n_baselines * (double)sizeof(sax_attribution_row_t);
        bytes += (double)sizeof(sax_robust_row_t) + SAX_RESULTS_NEAR_MAX * (double)sizeof(sax_near_row_t);
    }
    if (rows) {
        int64_t chunk = n_rows < SAX_ROWS_CHUNK ? (n_rows > 0 ? n_rows : 1) : SAX_ROWS_CHUNK;
        double n_chunks = (double)((n_rows + chunk - 1) / chunk), chunk_bytes = (double)chunk * row;
        /* zlib's compressBound: n + n/4096 + n/16384 + n/2^25 + 13 */
        double expansion = chunk_bytes / 4096 + chunk_bytes / 16384 + chunk_bytes / 33554432 + 13;
        if (rows_compressed)
            bytes += (double)n_rows * SAX_H5_ROW_ESTIMATE_BYTES + n_chunks * SAX_H5_CHUNK_BYTES;
        else
            bytes += (double)n_rows * row + n_chunks * (expansion + SAX_H5_CHUNK_BYTES);
    }
    return bytes;
}

/* Collective, before the file exists: rank 0 compares what the file needs (/rows at its estimated
 * compressed size) with the space free in the target directory and with the smallest file-size
 * limit (RLIMIT_FSIZE, soft) of any rank, and every rank learns the verdict: SAX_ERR_IO, naming the
 * file, what it needs and what there is, when it cannot fit. An unknown free space (statvfs failing)
 * does not refuse. *bound is the upper bound; *reserve what to reserve once the file exists: the
 * upper bound where it fits, else what the file needs. */
static sax_status_t preflight(MPI_Comm comm, int rank, const char *path, const sax_results_t *r,
                              const sax_row_source_t *src, double *bound, double *reserve, sax_error_t *err)
{
    int64_t mine = r->store != SAX_STORE_NONE ? src->n : 0, n_rows = 0;
    MPI_Allreduce(&mine, &n_rows, 1, MPI_INT64_T, MPI_SUM, comm);
    struct rlimit rl;
    int64_t limit = INT64_MAX, min_limit = INT64_MAX;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)INT64_MAX)
        limit = (int64_t)rl.rlim_cur;
    MPI_Allreduce(&limit, &min_limit, 1, MPI_INT64_T, MPI_MIN, comm);

    struct {
        int status;
        double bound, reserve;
        char msg[sizeof err->text];
    } v;
    memset(&v, 0, sizeof v);
    if (rank == 0) {
        v.bound = results_bound_bytes(r, n_rows, false);
        double needed = results_bound_bytes(r, n_rows, true);
        char dir[4096], need[32], have[32];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (!slash)
            snprintf(dir, sizeof dir, ".");
        else
            slash[slash == dir ? 1 : 0] = '\0';
        struct statvfs fs;
        double free_bytes = statvfs(dir, &fs) == 0 ? (double)fs.f_bavail * (double)fs.f_frsize : HUGE_VAL;
        bytes_text(needed, need, sizeof need);
        char why[128] = "";
        if (n_rows > 0 &&
            snprintf(why, sizeof why, " (/rows estimated at %d B per row compressed: %lld rows)",
                     SAX_H5_ROW_ESTIMATE_BYTES, (long long)n_rows) < 0)
            why[0] = '\0';
        const char *amount = n_rows > 0 ? "about" : "up to";
        int len = 0;
        if (needed > (double)min_limit) {
            bytes_text((double)min_limit, have, sizeof have);
            len = snprintf(v.msg, sizeof v.msg,
                           "%s: cannot write the results: they need %s %s%s and the file-size limit "
                           "(ulimit -f) is %s",
                           path, amount, need, why, have);
        } else if (needed > free_bytes) {
            bytes_text(free_bytes, have, sizeof have);
            len = snprintf(v.msg, sizeof v.msg,
                           "%s: cannot write the results: they need %s %s%s and only %s are free in %s", path,
                           amount, need, why, have, dir);
        }
        if (v.msg[0] != '\0' || len < 0)
            v.status = (int)SAX_ERR_IO;
        v.reserve = v.bound <= fmin(free_bytes, (double)min_limit) ? v.bound : needed;
    }
    MPI_Bcast(&v, (int)sizeof v, MPI_BYTE, 0, comm);
    *bound = v.bound;
    *reserve = v.reserve;
    return v.status == SAX_OK ? SAX_OK : sax_error_set(err, (sax_status_t)v.status, "%s", v.msg);
}

/* Collective, once the file exists: rank 0 reserves `bytes` (the bound) on disk for it without
 * changing its size (Linux fallocate, FALLOC_FL_KEEP_SIZE), so that the disk filling up from now on
 * (another job on the same filesystem) cannot fail the write. Where the filesystem cannot reserve,
 * or the room went meanwhile, the write goes on unreserved, as it would anyway. */
static void reserve_room(MPI_Comm comm, int rank, const char *path, double bytes)
{
#ifdef FALLOC_FL_KEEP_SIZE
    if (rank == 0 && bytes > 0) {
        int fd = open(path, O_WRONLY);
        if (fd >= 0) {
            int rc = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)bytes);
            (void)rc; /* EOPNOTSUPP, ENOSPC: unreserved */
            close(fd);
        }
    }
#else
    (void)rank;
    (void)path;
    (void)bytes;
#endif
    MPI_Barrier(comm); /* no rank writes before the room is reserved */
}

/* Rank 0, after the close: the reserved blocks beyond the end of the file go back to the
 * filesystem (truncating to the same size frees them on ext4, XFS and tmpfs). */
static void release_room(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && truncate(path, sb.st_size) != 0)
        return; /* the reservation stays until the file is removed: space, not correctness */
}

/* ---- entry points ------------------------------------------------------------------------------- */

sax_status_t sax_results_check_target(const char *path, bool force, sax_error_t *err)
{
    struct stat sb;
    if (!path || !*path)
        return sax_error_set(err, SAX_ERR_USAGE, "no results file given (-o RESULTS.h5)");
    if (stat(path, &sb) == 0 && !force)
        return sax_error_set(err, SAX_ERR_INPUT, "%s: the results file exists; pass --force to overwrite it",
                             path);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
        if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return sax_error_set(err, SAX_ERR_INPUT, "%s: directory '%s' does not exist", path, dir);
    }
    return SAX_OK;
}

static bool valid_input(const sax_results_t *r)
{
    if (!r || !r->space || r->n_scenarios < 0 || r->n_top < 0 || r->n_pareto < 0 || r->n_bpv < 0)
        return false;
    if ((r->n_scenarios > 0 && !r->best) || (r->n_top > 0 && !r->top) || (r->n_pareto > 0 && !r->pareto))
        return false;
    if (r->n_bpv > 0 && (!r->best_per_value || !r->bpv_key || !r->bpv_value))
        return false;
    if (r->n_scenarios > 0 && r->space->n_baselines > 0 && !r->baseline_best)
        return false;
    const sax_results_answer_t *a = r->answer;
    if (a && r->n_scenarios > 0 &&
        (!a->ties || !a->lossless || (r->space->n_baselines > 0 && !a->attribution) ||
         (a->robust.found && !a->robust.regret)))
        return false;
    if (a && a->robust.found &&
        (a->robust.n_near_kept < 0 || a->robust.n_near_kept > SAX_RESULTS_NEAR_MAX ||
         (a->robust.n_near_kept > 0 && (!a->robust.near || !a->robust.near_worst))))
        return false;
    return !(r->space->n_scenario_vars > 0 && r->n_scenarios > 0 && !r->scenario_values);
}

/* Collective: the whole file, with /rows from `src` (this rank's rows). */
static sax_status_t write_file(MPI_Comm comm, const char *path, const sax_results_t *res,
                               const sax_row_source_t *src, bool force, sax_results_write_stats_t *stats,
                               sax_error_t *err)
{
    writer_t w = {.comm = comm, .file = -1, .dxpl = -1, .res = res, .stats = stats, .err = err};
    MPI_Comm_rank(comm, &w.rank);
    MPI_Comm_size(comm, &w.size);
    if (stats)
        memset(stats, 0, sizeof *stats);
    double t0 = MPI_Wtime();

    /* Rank 0 decides the target and the temporary name; everyone learns the outcome. */
    struct {
        int status;
        char tmp[4096];
        char msg[sizeof err->text];
    } plan;
    memset(&plan, 0, sizeof plan);
    if (w.rank == 0) {
        sax_error_t e = {{0}};
        sax_status_t st = valid_input(res) ? sax_results_check_target(path, force, &e)
                                           : sax_error_set(&e, SAX_ERR_INTERNAL,
                                                           "writing results: incomplete results given");
        plan.status = (int)st;
        snprintf(plan.msg, sizeof plan.msg, "%s", e.text);
        if (st == SAX_OK &&
            snprintf(plan.tmp, sizeof plan.tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof plan.tmp) {
            plan.status = (int)SAX_ERR_USAGE;
            snprintf(plan.msg, sizeof plan.msg, "%s: path too long", path);
        }
    }
    MPI_Bcast(&plan, (int)sizeof plan, MPI_BYTE, 0, comm);
    if (plan.status != SAX_OK)
        return sax_error_set(err, (sax_status_t)plan.status, "%s", plan.msg);
    /* Ranks other than 0 contribute only their rows (and agree on the outcome below). */
    int rows_ok = res != NULL && src->n >= 0 && (src->n == 0 || src->recs || src->rows), all_rows_ok = 0;
    MPI_Allreduce(&rows_ok, &all_rows_ok, 1, MPI_INT, MPI_LAND, comm);
    if (!all_rows_ok)
        return sax_error_set(err, SAX_ERR_INTERNAL, "writing results: invalid rows given to some rank");

    sax_results_t shared;
    sax_space_desc_t shared_space;
    char *shared_strings = NULL;
    sax_status_t st = share_provenance(comm, w.rank, res, &shared, &shared_space, &shared_strings, err);
    if (st != SAX_OK)
        return st;
    share_answer_shape(&w, res);
    res = w.res = &shared;
    double bound = 0, reserve = 0;
    st = preflight(comm, w.rank, path, res, src, &bound, &reserve, err);
    if (stats)
        stats->bound_bytes = bound;
    if (st != SAX_OK) {
        free(shared_strings);
        return st;
    }

    H5E_auto2_t old_func;
    void *old_data;
    H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    st = sax_results_types_init(&w.t, res->space, err);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
    H5Pset_all_coll_metadata_ops(fapl, 1);
    H5Pset_coll_metadata_write(fapl, 1);
    if (st == SAX_OK) {
        w.file = H5Fcreate(plan.tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        if (w.file < 0)
            st = sax_error_set(err, SAX_ERR_IO, "%s: cannot create the results file (%s)", plan.tmp,
                               strerror(errno));
    }
    reserve_room(comm, w.rank, plan.tmp, w.file >= 0 ? reserve : 0.0);
    w.dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(w.dxpl, H5FD_MPIO_COLLECTIVE);
    if (st == SAX_OK)
        st = write_provenance(&w);
    if (st == SAX_OK)
        st = write_space(&w);
    if (st == SAX_OK)
        st = write_scenarios(&w);
    if (st == SAX_OK)
        st = write_reductions(&w);
    if (st == SAX_OK)
        st = write_answer(&w);
    if (st == SAX_OK && res->store != SAX_STORE_NONE)
        st = write_rows(&w, src);
    /* A write failed (the disk filled after the pre-flight check): rank 0 empties the temporary file,
     * which is removed below anyway, so that the close finds room to flush HDF5's metadata. A
     * failed H5Fclose leaves its file ID behind in HDF5 1.10, which then crashes at MPI_Finalize
     * (HDF5 issue 2257), and the collective close can deadlock at 2 ranks. */
    int failed_here = st != SAX_OK, failed_any = 0;
    MPI_Allreduce(&failed_here, &failed_any, 1, MPI_INT, MPI_MAX, comm);
    if (failed_any && w.file >= 0) {
        bool emptied = w.rank != 0 || truncate(plan.tmp, 0) == 0; /* if not, the close fails as before */
        (void)emptied;
        MPI_Barrier(comm); /* no rank flushes before the room is made */
    }
    if (w.file >= 0 && H5Fclose(w.file) < 0 && st == SAX_OK)
        st = sax_error_set(err, SAX_ERR_HDF5, "%s: closing the results file failed", plan.tmp);
    H5Pclose(w.dxpl);
    H5Pclose(fapl);
    sax_results_types_fini(&w.t);
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    free(shared_strings);

    /* The worst status of any rank decides; rank 0 renames or removes the temporary file. */
    int mine = (int)st, worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm);
    struct {
        int status;
        char msg[sizeof err->text];
    } out;
    memset(&out, 0, sizeof out);
    if (w.rank == 0) {
        out.status = worst;
        if (worst == SAX_OK)
            release_room(plan.tmp);
        if (worst == SAX_OK && rename(plan.tmp, path) != 0) {
            out.status = (int)SAX_ERR_IO;
            if (snprintf(out.msg, sizeof out.msg, "%s: cannot rename %s to it: %s", path, plan.tmp,
                         strerror(errno)) < 0)
                out.msg[0] = '\0';
        }
        if (out.status != SAX_OK) {
            remove(plan.tmp);
            /* the file named: "out.h5: writing results: could not write dataset 'rows'" */
            if (!out.msg[0] && snprintf(out.msg, sizeof out.msg, "%s: %s", path,
                                        st != SAX_OK && err ? err->text : "writing results failed") < 0)
                out.msg[0] = '\0';
        }
    }
    MPI_Bcast(&out, (int)sizeof out, MPI_BYTE, 0, comm);
    if (stats)
        stats->seconds = MPI_Wtime() - t0;
    if (out.status != SAX_OK) {
        if (st == SAX_OK || w.rank == 0)
            return sax_error_set(err, (sax_status_t)out.status, "%s", out.msg);
        return st;
    }
    return SAX_OK;
}

sax_status_t sax_results_write_stats(MPI_Comm comm, const char *path, const sax_results_t *res,
                                     const sax_record_t *my_rows, int64_t n_my_rows,
                                     const int64_t *my_run_len, int64_t n_my_runs, bool force,
                                     sax_results_write_stats_t *stats, sax_error_t *err)
{
    sax_row_source_t src = {my_rows, NULL, n_my_rows, my_run_len, n_my_runs};
    return write_file(comm, path, res, &src, force, stats, err);
}

sax_status_t sax_results_write(MPI_Comm comm, const char *path, const sax_results_t *res,
                               const sax_record_t *my_rows, int64_t n_my_rows, const int64_t *my_run_len,
                               int64_t n_my_runs, bool force, sax_error_t *err)
{
    return sax_results_write_stats(comm, path, res, my_rows, n_my_rows, my_run_len, n_my_runs, force, NULL,
                                   err);
}

sax_status_t sax_results_write_rows(MPI_Comm comm, const char *path, const sax_results_t *res,
                                    const sax_results_rows_t *my_rows, bool force,
                                    sax_results_write_stats_t *stats, sax_error_t *err)
{
    sax_row_source_t src = {NULL, NULL, 0, NULL, 0};
    if (my_rows)
        sax_results_rows_source(my_rows, &src);
    return write_file(comm, path, res, &src, force, stats, err);
}
