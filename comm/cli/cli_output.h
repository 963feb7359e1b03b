/* cli_output.h - private to the sax executable: the check every command that writes makes of its
 * output file names before any work (cli_output.c). */
#ifndef SAX_CLI_OUTPUT_H
#define SAX_CLI_OUTPUT_H

#include "sax_model.h"

/* `out` may be written only if it does not exist or is a regular file (symbolic links followed)
 * other than every file of `inputs` (NULL-terminated; same st_dev and st_ino). Otherwise
 * SAX_ERR_INPUT with "<out>: expected ..., found ...". NULL `out`: nothing to check. Not collective. */
sax_status_t sax_cli_check_output(const char *out, const char *const *inputs, sax_error_t *err);

/* Writes `text` to `path` whole or not at all: into a temporary name beside it, then rename()
 * (SAX_ERR_IO with the reason otherwise; the temporary is removed). Check `path` first. */
sax_status_t sax_cli_write_text(const char *path, const char *text, sax_error_t *err);

#endif
