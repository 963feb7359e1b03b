/* fuzz_results.c - libFuzzer harness for the results reader behind pareto, report and eval
 * --candidate (docs/reliability.md, "Fuzzing"). The bytes are written to a file and read by
 * sax_results_read with its rows, as `sax pareto` does. A rejection must be SAX_ERR_INPUT (or out of
 * memory) with a message; an accepted file must give what its readers rely on: scenario, record and
 * row counts that are not negative, every record's scenario within the scenarios, and finite,
 * positive times for every candidate it calls feasible (no NaN or infinity reaches a report). The
 * seeds (tests/fuzz/corpus/results) are small sweeps' results files. */
#include "fuzz.h"

#include "sax_results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void records(const sax_record_t *r, int64_t n, int scenarios)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (!fuzz_file(data, size, "results.h5", path, sizeof path))
        return 0;
    sax_results_data_t d;
    sax_error_t err = {{0}};
    sax_status_t st = sax_results_read(path, true, &d, &err);
    remove(path);
    if (st == SAX_OK) {
        int ns = d.res.n_scenarios;
        fuzz_check(ns >= 0);
        records(d.best, ns, ns);
        records(d.top, d.res.n_top, ns);
        records(d.pareto, d.res.n_pareto, ns);
        records(d.rows, d.n_rows, ns);
        sax_results_data_fini(&d);
    } else {
        fuzz_check((st == SAX_ERR_INPUT || st == SAX_ERR_NOMEM || st == SAX_ERR_IO) && err.text[0] != '\0');
    }
    return 0;
}
