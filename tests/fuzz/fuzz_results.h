/* fuzz_results.h - what the two results-file harnesses (fuzz_results.c: bytes; fuzz_h5edits.c: edits
 * through the HDF5 API) ask of sax_results_read. A refusal must be SAX_ERR_INPUT (or out of memory,
 * or I/O) with a message; an accepted file must give what its readers rely on: scenario, record and
 * row counts that are not negative, every record's scenario within the scenarios, and finite,
 * positive times for every candidate it calls feasible (no NaN or infinity reaches a report). */
#ifndef SAX_FUZZ_RESULTS_H
#define SAX_FUZZ_RESULTS_H

#include "fuzz.h"

#include "sax_results.h"

#include <math.h>

static void fuzz_results_records(const sax_record_t *r, int64_t n, int scenarios)
{
    fuzz_check(n >= 0 && (n == 0 || r != NULL));
    for (int64_t i = 0; i < n; i++) {
        if (r[i].index < 0)
            continue;
        fuzz_check(r[i].scenario >= 0 && r[i].scenario < scenarios);
        if (r[i].result.feasible)
            fuzz_check(isfinite(r[i].result.iteration_time_s) && r[i].result.iteration_time_s > 0.0);
    }
}

/* Reads the results file at `path` with its rows, as `sax pareto` does, and checks the above. */
static void fuzz_results_read_check(const char *path)
{
    sax_results_data_t d;
    sax_error_t err = {{0}};
    sax_status_t st = sax_results_read(path, true, &d, &err);
    if (st == SAX_OK) {
        int ns = d.res.n_scenarios;
        fuzz_check(ns >= 0);
        fuzz_results_records(d.best, ns, ns);
        fuzz_results_records(d.top, d.res.n_top, ns);
        fuzz_results_records(d.pareto, d.res.n_pareto, ns);
        fuzz_results_records(d.rows, d.n_rows, ns);
        sax_results_data_fini(&d);
    } else {
        fuzz_check((st == SAX_ERR_INPUT || st == SAX_ERR_NOMEM || st == SAX_ERR_IO) && err.text[0] != '\0');
    }
}

#endif
