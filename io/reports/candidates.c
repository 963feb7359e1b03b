/* candidates.c - the candidates a results file holds, and the Pareto front among them, shared by
 * `sax pareto` (pareto_report.c) and the plots of `sax report` (report_plots.c). Serial.
 *
 * The candidates are every stored row (/rows, `sax sweep --store feasible|all`), or without them
 * the union of the reductions (/pareto, /top, /best, /best_per_value, /baseline_best). The front
 * of a file with /rows is computed while streaming them in batches, so memory stays bounded by
 * the front and one batch.
 */
#include "reports_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- the candidates a file holds ---------------------------------------------------------------- */

static int rec_cmp(const void *a, const void *b)
{
    const sax_record_t *x = a, *y = b;
    if (x->scenario != y->scenario)
        return x->scenario < y->scenario ? -1 : 1;
    return x->index < y->index ? -1 : (x->index > y->index);
}

sax_status_t sax_results_candidates(const sax_results_data_t *d, int scenario, sax_record_t **out, int64_t *n,
                                    bool *from_rows, sax_error_t *err)
{
    *out = NULL;
    *n = 0;
    *from_rows = d->rows != NULL;
    const sax_record_t *src[6];
    int64_t len[6];
    int ns = 0;
    if (d->rows) {
        src[ns] = d->rows;
        len[ns++] = d->n_rows;
    } else {
        src[ns] = d->pareto;
        len[ns++] = d->res.n_pareto;
        src[ns] = d->top;
        len[ns++] = d->res.n_top;
        src[ns] = d->best;
        len[ns++] = d->res.n_scenarios;
        src[ns] = d->best_per_value;
        len[ns++] = d->res.n_bpv;
        src[ns] = d->baseline_best;
        len[ns++] = (int64_t)d->res.n_scenarios * d->space.n_baselines;
    }
    int64_t total = 0;
    for (int i = 0; i < ns; i++)
        total += len[i];
    sax_record_t *r = malloc((size_t)(total > 0 ? total : 1) * sizeof *r);
    if (!r)
        return sax_error_set(err, SAX_ERR_NOMEM, "no memory for %lld candidates", (long long)total);
    int64_t m = 0;
    for (int i = 0; i < ns; i++)
        for (int64_t j = 0; j < len[i]; j++) {
            const sax_record_t *c = &src[i][j];
            if (c->index >= 0 && c->result.feasible && (scenario < 0 || c->scenario == scenario))
                r[m++] = *c;
        }
    if (!d->rows && m > 1) { /* the reductions overlap: keep each (scenario, index) once */
        qsort(r, (size_t)m, sizeof *r, rec_cmp);
        int64_t u = 1;
        for (int64_t j = 1; j < m; j++)
            if (rec_cmp(&r[j], &r[u - 1]) != 0)
                r[u++] = r[j];
        m = u;
    }
    *out = r;
    *n = m;
    return SAX_OK;
}

/* ---- the front of one scenario, streaming /rows ---------------------------------------------- */

#define SAX_FRONT_BATCH 65536 /* rows read at once: about 50 MB of records and rows */

void sax_results_front_fini(sax_results_front_t *f)
{
    free(f->front);
    free(f->sample);
    memset(f, 0, sizeof *f);
}

/* front := the front of (front U add[0..na)) over the objectives. Correct because the front of a
 * union is the front of the fronts of its parts; the order is sax_pareto_front's. */
static sax_status_t merge_front(sax_results_front_t *o, const sax_record_t *add, int64_t na, const int *obj,
                                int k, sax_error_t *err)
{
    if (na == 0)
        return SAX_OK;
    int64_t n = o->n_front + na;
    sax_record_t *pool = malloc((size_t)n * sizeof *pool);
    double *v = malloc((size_t)n * (size_t)k * sizeof *v);
    int64_t *idx = malloc((size_t)n * sizeof *idx);
    sax_record_t *front = NULL;
    int64_t m = -1;
    if (pool && v && idx) {
        if (o->n_front > 0)
            memcpy(pool, o->front, (size_t)o->n_front * sizeof *pool);
        memcpy(pool + o->n_front, add, (size_t)na * sizeof *pool);
        for (int64_t i = 0; i < n; i++)
            for (int j = 0; j < k; j++) {
                double x = sax_pareto_objective_value(obj[j], &pool[i].result);
                v[i * k + j] = sax_pareto_objective_maximised(obj[j]) ? -x : x;
            }
        m = sax_pareto_front(v, n, k, idx);
        front = m >= 0 ? malloc((size_t)(m > 0 ? m : 1) * sizeof *front) : NULL;
    }
    if (front)
        for (int64_t i = 0; i < m; i++)
            front[i] = pool[idx[i]];
    free(pool);
    free(v);
    free(idx);
    if (!front)
        return sax_error_set(err, SAX_ERR_NOMEM, "no memory for a Pareto front of %lld candidates",
                             (long long)n);
    free(o->front);
    o->front = front;
    o->n_front = m;
    return SAX_OK;
}

/* Keeps the feasible records of r[0..n) at its front; returns how many. */
static int64_t keep_feasible(sax_record_t *r, int64_t n)
{
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (r[i].index >= 0 && r[i].result.feasible)
            r[m++] = r[i];
    return m;
}

static sax_status_t front_from_rows(const sax_results_data_t *d, int s, const int *obj, int k,
                                    int64_t max_sample, int64_t batch_rows, sax_results_front_t *out,
                                    sax_error_t *err)
{
    sax_results_file_t *f = NULL;
    sax_status_t st = sax_results_rows_open(d, &f, err);
    int64_t first = 0, n = 0;
    if (st == SAX_OK && f)
        st = sax_results_rows_scenario(f, s, &first, &n, err);
    sax_record_t *batch = NULL;
    if (st == SAX_OK && n > 0 && !(batch = malloc((size_t)(n < batch_rows ? n : batch_rows) * sizeof *batch)))
        st = sax_error_set(err, SAX_ERR_NOMEM, "no memory to read /rows");
    for (int64_t at = 0; st == SAX_OK && at < n; at += batch_rows) {
        int64_t m = n - at < batch_rows ? n - at : batch_rows;
        st = sax_results_rows_read(f, first + at, m, 1, batch, err);
        if (st == SAX_OK) {
            m = keep_feasible(batch, m);
            out->n_candidates += m;
            st = merge_front(out, batch, m, obj, k, err);
        }
    }
    free(batch);
    /* an even sample: every stride-th row of the scenario, the feasible ones */
    int64_t stride = max_sample > 0 && n > max_sample ? (n + max_sample - 1) / max_sample : 1;
    int64_t count = n > 0 ? (n + stride - 1) / stride : 0;
    if (st == SAX_OK && count > 0 && max_sample > 0) {
        out->sample = malloc((size_t)count * sizeof *out->sample);
        if (!out->sample)
            st = sax_error_set(err, SAX_ERR_NOMEM, "no memory for a sample of /rows");
        else if ((st = sax_results_rows_read(f, first, count, stride, out->sample, err)) == SAX_OK)
            out->n_sample = keep_feasible(out->sample, count);
    }
    sax_results_rows_close(&f);
    return st;
}

sax_status_t sax_results_front(const sax_results_data_t *d, int s, const int *obj, int k, int64_t max_sample,
                               sax_results_front_t *out, sax_error_t *err)
{
    return sax_results_front_batched(d, s, obj, k, max_sample, SAX_FRONT_BATCH, out, err);
}

sax_status_t sax_results_front_batched(const sax_results_data_t *d, int s, const int *obj, int k,
                                       int64_t max_sample, int64_t batch_rows, sax_results_front_t *out,
                                       sax_error_t *err)
{
    memset(out, 0, sizeof *out);
    out->from_rows = d->has_rows;
    sax_status_t st;
    if (d->has_rows) {
        st = front_from_rows(d, s, obj, k, max_sample, batch_rows > 0 ? batch_rows : SAX_FRONT_BATCH, out,
                             err);
    } else {
        sax_record_t *pool = NULL;
        int64_t n = 0;
        bool from_rows;
        st = sax_results_candidates(d, s, &pool, &n, &from_rows, err);
        if (st == SAX_OK) {
            out->n_candidates = n;
            st = merge_front(out, pool, n, obj, k, err);
        }
        int64_t stride = max_sample > 0 && n > max_sample ? (n + max_sample - 1) / max_sample : 1;
        if (st == SAX_OK && n > 0 && max_sample > 0) {
            out->sample = malloc((size_t)((n + stride - 1) / stride) * sizeof *out->sample);
            if (!out->sample)
                st = sax_error_set(err, SAX_ERR_NOMEM, "no memory for a sample of the candidates");
            for (int64_t i = 0; st == SAX_OK && i < n; i += stride)
                out->sample[out->n_sample++] = pool[i];
        }
        free(pool);
    }
    if (st != SAX_OK)
        sax_results_front_fini(out);
    return st;
}
