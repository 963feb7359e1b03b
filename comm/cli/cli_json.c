/* cli_json.c - the two JSON scalars every printer of the executable writes (cli_print.h): the
 * lowest file of comm/cli, so that the printers above it stand one above the other. */
#include "cli_print.h"

#include <math.h>

void cli_print_json_string(FILE *f, const char *text)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void cli_print_json_number(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.17g", x);
    else
        fputs("null", f);
}
