/* calibrate_files.c - text files out of `sax calibrate`: writing cJSON's printed text with spaces for its tabs (CALIBRATED.json in calibrate_output.c, the --json
 * report in calibrate_report.c). It uses nothing else of io/calibration/, so those three stand
 * above it and none of them needs another for these. */
#include "calibration_internal.h"

#include <stdlib.h>
#include <string.h>

/* cJSON indents with tabs and separates keys from values with a tab; JSON strings cannot hold a raw
 * tab, so every tab is layout: two spaces of indentation, one space after a key. */
bool cal_write_untabbed(FILE *f, const char *text)
{
    bool line_start = true;
    for (const char *r = text; *r != '\0'; r++) {
        int rc;
        if (*r == '\t')
            rc = fputs(line_start ? "  " : " ", f);
        else {
            line_start = *r == '\n';
            rc = fputc(*r, f);
        }
        if (rc == EOF)
            return false;
    }
    return fputc('\n', f) != EOF;
}
