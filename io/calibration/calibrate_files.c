/* calibrate_files.c - text files in and out of `sax calibrate`: reading one whole file
 * (MEASUREMENTS.json in calibrate.c, the -c configuration in calibrate_output.c) and writing
 * cJSON's printed text with spaces for its tabs (CALIBRATED.json in calibrate_output.c, the --json
 * report in calibrate_report.c). It uses nothing else of io/calibration/, so those three stand
 * above it and none of them needs another for these. */
#include "calibration_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

sax_status_t cal_read_text_file(const char *path, const char *what, char **out, sax_error_t *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return sax_error_set(err, SAX_ERR_INPUT, "%s: cannot open %s: %s", path, what, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
        if (cap - len < 2) {
            char *nb = realloc(buf, 2 * cap);
            if (nb == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    bool failed = ferror(f) != 0;
    fclose(f);
    if (buf == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory reading %s", path);
    if (failed) {
        free(buf);
        return sax_error_set(err, SAX_ERR_IO, "%s: read error", path);
    }
    buf[len] = '\0';
    *out = buf;
    return SAX_OK;
}

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
