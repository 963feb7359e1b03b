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

/* An exclusive advisory lock (POSIX fcntl) on OUT.lock, held while one process writes `out`, so
 * that two commands never write the same output at once (docs/reliability.md, "One sweep per
 * output"). The file holds "PID HOST" of the holder for the message of the one refused. The lock
 * dies with its process, so a lock file left by a killed process is harmless: the next one takes
 * it and removes it. */
typedef struct {
    char *path; /* OUT.lock */
    int fd;
    bool held;
} sax_cli_lock_t;

#define SAX_CLI_LOCK_SUFFIX ".lock"

/* Creates OUT.lock if needed (checked like an output: a regular file, not one of `inputs`) and
 * locks it without waiting. SAX_ERR_INPUT naming the holder's pid and host when another process
 * holds it; SAX_ERR_IO when it cannot be created; where the filesystem has no locks (ENOLCK,
 * EOPNOTSUPP) a warning on stderr and SAX_OK without a lock. Not collective. */
sax_status_t sax_cli_lock_init(sax_cli_lock_t *l, const char *out, const char *const *inputs,
                               sax_error_t *err);
/* Removes the lock file and releases the lock, if held; accepts a zeroed struct. Not collective. */
void sax_cli_lock_fini(sax_cli_lock_t *l);

#endif
