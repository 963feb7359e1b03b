/* fuzz_nccl.c - libFuzzer harness for the nccl-tests table reader that `sax calibrate` uses
 * (docs/reliability.md, "Fuzzing"). Arbitrary bytes go through sax_nccl_parse. A rejection must be
 * SAX_ERR_INPUT (or out of memory) with a message; an accepted table must hold only what a real one
 * can: finite, non-negative sizes, counts and bandwidths, positive finite times (a half the table
 * leaves out reads as time -1 with zero bandwidths), so no NaN or infinity reaches a fit. */
#include "fuzz.h"

#include "sax_calibration.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool sane(double x) { return isfinite(x) && x >= 0.0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (text == NULL)
        return 0;
    sax_nccl_table_t t;
    sax_nccl_table_init(&t);
    sax_error_t err = {{0}};
    sax_status_t st = sax_nccl_parse(text, "fuzz.txt", &t, &err);
    if (st == SAX_OK) {
        fuzz_check(t.n_rows >= 0 && t.n_rows <= t.cap_rows && (t.n_rows == 0 || t.rows != NULL));
        for (int i = 0; i < t.n_rows; i++) {
            const sax_nccl_row_t *r = &t.rows[i];
            fuzz_check(sane(r->size_bytes) && sane(r->count));
            for (int k = 0; k < 2; k++) { /* a half a table leaves out reads as time -1, bandwidths 0 */
                bool absent = r->time_s[k] == -1.0 && r->algbw_Bps[k] == 0.0 && r->busbw_Bps[k] == 0.0;
                fuzz_check(absent || (r->time_s[k] > 0.0 && sane(r->time_s[k]) && sane(r->algbw_Bps[k]) &&
                                      sane(r->busbw_Bps[k])));
                fuzz_check(r->wrong[k] == -1.0 || sane(r->wrong[k]));
            }
        }
    } else {
        fuzz_check((st == SAX_ERR_INPUT || st == SAX_ERR_NOMEM) && err.text[0] != '\0');
    }
    sax_nccl_table_fini(&t);
    free(text);
    return 0;
}
