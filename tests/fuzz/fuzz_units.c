/* fuzz_units.c - libFuzzer harness for the unit parser (docs/reliability.md, "Fuzzing").
 * The first byte picks the kind of quantity, the rest is the text. Accepted values must be
 * finite; a rejection must be SAX_ERR_INPUT with an "expected ..." message. A value that parses is
 * formatted back with sax_units_format (for messages: "0" has no unit, so it need not parse again);
 * the text must fit its buffer and, when it parses again, give the value to 6 significant digits.
 * Crashes, sanitizer reports and broken invariants (a trap) are findings. */
#include "fuzz.h"

#include "sax_config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    sax_unit_kind_t kind = (sax_unit_kind_t)(data[0] % SAX_UNIT_KIND_COUNT);
    char *text = malloc(size);
    if (text == NULL)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    double si = NAN;
    sax_error_t err = {{0}};
    sax_status_t st = sax_units_parse(text, kind, &si, &err);
    if (st == SAX_OK) {
        fuzz_check(isfinite(si));
        char buf[64];
        sax_units_format(si, kind, buf, sizeof buf);
        fuzz_check(memchr(buf, '\0', sizeof buf) != NULL);
        double again = NAN;
        if (sax_units_parse(buf, kind, &again, &err) == SAX_OK)
            fuzz_check(fabs(again - si) <= 1e-5 * fabs(si));
    } else {
        fuzz_check(st == SAX_ERR_INPUT);
        fuzz_check(strstr(err.text, "expected") != NULL);
    }
    free(text);
    return 0;
}
