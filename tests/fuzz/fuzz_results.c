/* fuzz_results.c - libFuzzer harness for the results reader behind pareto, report and eval
 * --candidate (docs/reliability.md, "Fuzzing"). The bytes are written to a file and read by
 * sax_results_read with its rows, as `sax pareto` does, with the invariants of fuzz_results.h. The
 * seeds (tests/fuzz/corpus/results) are small sweeps' results files. */
#include "fuzz_results.h"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (!fuzz_file(data, size, "results.h5", path, sizeof path))
        return 0;
    fuzz_results_read_check(path);
    remove(path);
    return 0;
}
