/* ranges.c - sets of candidate index ranges: what a sweep has done, for checkpoints and resume. */
#include "sax_comm.h"

#include <stdlib.h>
#include <string.h>

void sax_ranges_init(sax_ranges_t *r) { memset(r, 0, sizeof *r); }

void sax_ranges_fini(sax_ranges_t *r)
{
    free(r->lo);
    free(r->hi);
    memset(r, 0, sizeof *r);
}

/* Inserts [lo, hi) and merges it with the ranges it touches or overlaps. */
sax_status_t sax_ranges_add(sax_ranges_t *r, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return SAX_OK;
    int64_t i = 0;
    while (i < r->n && r->hi[i] < lo)
        i++;
    int64_t j = i; /* ranges [i, j) touch [lo, hi) */
    while (j < r->n && r->lo[j] <= hi) {
        if (r->lo[j] < lo)
            lo = r->lo[j];
        if (r->hi[j] > hi)
            hi = r->hi[j];
        j++;
    }
    if (j == i) { /* nothing to merge: insert at i */
        if (r->n == r->cap) {
            int64_t cap = r->cap == 0 ? 16 : 2 * r->cap;
            int64_t *nlo = realloc(r->lo, (size_t)cap * sizeof *nlo);
            if (nlo == NULL)
                return SAX_ERR_NOMEM;
            r->lo = nlo;
            int64_t *nhi = realloc(r->hi, (size_t)cap * sizeof *nhi);
            if (nhi == NULL)
                return SAX_ERR_NOMEM;
            r->hi = nhi;
            r->cap = cap;
        }
        memmove(&r->lo[i + 1], &r->lo[i], (size_t)(r->n - i) * sizeof *r->lo);
        memmove(&r->hi[i + 1], &r->hi[i], (size_t)(r->n - i) * sizeof *r->hi);
        r->n++;
    } else if (j > i + 1) { /* several merged into one: close the gap */
        memmove(&r->lo[i + 1], &r->lo[j], (size_t)(r->n - j) * sizeof *r->lo);
        memmove(&r->hi[i + 1], &r->hi[j], (size_t)(r->n - j) * sizeof *r->hi);
        r->n -= j - i - 1;
    }
    r->lo[i] = lo;
    r->hi[i] = hi;
    return SAX_OK;
}

int64_t sax_ranges_total(const sax_ranges_t *r)
{
    int64_t t = 0;
    for (int64_t i = 0; i < r->n; i++)
        t += r->hi[i] - r->lo[i];
    return t;
}

bool sax_ranges_next_gap(const sax_ranges_t *r, int64_t from, int64_t limit, int64_t *lo, int64_t *hi)
{
    int64_t i = 0;
    while (i < r->n && r->hi[i] <= from)
        i++;
    if (i < r->n && r->lo[i] <= from) { /* inside a done range: the gap starts at its end */
        from = r->hi[i];
        i++;
    }
    if (from >= limit)
        return false;
    *lo = from;
    *hi = i < r->n && r->lo[i] < limit ? r->lo[i] : limit;
    return true;
}
