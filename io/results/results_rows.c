/* results_rows.c - a rank's rows for /rows, accumulated in the file's compact layout with the runs
 * (work chunks) they came in, so that a sweep with --store keeps 272 bytes per stored candidate
 * rather than a whole record. Serial.
 */
#include "results_hdf5.h"

#include <stdlib.h>
#include <string.h>

struct sax_results_rows {
    const sax_space_desc_t *space;
    sax_row_t *rows;
    int64_t n, cap;
    int64_t *runs; /* length of each run */
    int64_t n_runs, cap_runs;
};

sax_status_t sax_results_rows_create(const sax_space_desc_t *space, sax_results_rows_t **out,
                                     sax_error_t *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return sax_error_set(err, SAX_ERR_NOMEM, "no memory for the rows to store");
    (*out)->space = space;
    return SAX_OK;
}

void sax_results_rows_destroy(sax_results_rows_t **rows)
{
    if (!rows || !*rows)
        return;
    free((*rows)->rows);
    free((*rows)->runs);
    free(*rows);
    *rows = NULL;
}

sax_status_t sax_results_rows_begin_run(sax_results_rows_t *r, sax_error_t *err)
{
    if (r->n_runs > 0 && r->runs[r->n_runs - 1] == 0)
        return SAX_OK; /* the current run is still empty: keep using it */
    if (r->n_runs == r->cap_runs) {
        int64_t cap = r->cap_runs ? 2 * r->cap_runs : 256;
        int64_t *grown = realloc(r->runs, (size_t)cap * sizeof *grown);
        if (!grown)
            return sax_error_set(err, SAX_ERR_NOMEM, "no memory for the runs of the rows to store");
        r->runs = grown;
        r->cap_runs = cap;
    }
    r->runs[r->n_runs++] = 0;
    return SAX_OK;
}

sax_status_t sax_results_rows_add(sax_results_rows_t *r, const sax_record_t *rec, sax_error_t *err)
{
    if (r->n_runs == 0) {
        sax_status_t st = sax_results_rows_begin_run(r, err);
        if (st != SAX_OK)
            return st;
    }
    if (r->n == r->cap) {
        int64_t cap = r->cap ? 2 * r->cap : 4096;
        sax_row_t *grown = realloc(r->rows, (size_t)cap * sizeof *grown);
        if (!grown)
            return sax_error_set(err, SAX_ERR_NOMEM, "no memory to store %lld rows", (long long)cap);
        r->rows = grown;
        r->cap = cap;
    }
    sax_results_row_from_record(r->space, rec, &r->rows[r->n++]);
    r->runs[r->n_runs - 1]++;
    return SAX_OK;
}

int64_t sax_results_rows_count(const sax_results_rows_t *r) { return r ? r->n : 0; }

void sax_results_rows_source(const sax_results_rows_t *r, sax_row_source_t *src)
{
    *src = (sax_row_source_t){NULL, r->rows, r->n, r->runs, r->n_runs};
}
