/* cli_output.c - the one check of an output file name, made by every command that writes before it
 * does any work (docs/reliability.md, "Output targets"). sax writes its outputs as new regular files
 * (most through a temporary name and rename(), which would replace whatever the name held): a
 * device such as /dev/null, a FIFO, a socket or a directory is refused, and so is a name that is
 * one of the command's own inputs, which the output would overwrite. */
#define _POSIX_C_SOURCE 200809L /* S_ISSOCK */
#include "cli_output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *file_kind(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISFIFO(m))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(m))
        return "a socket";
    return "a special file";
}

sax_status_t sax_cli_check_output(const char *out, const char *const *inputs, sax_error_t *err)
{
    struct stat o;
    if (out == NULL || stat(out, &o) != 0)
        return SAX_OK; /* a new name (or one the writer will report it cannot create) */
    if (!S_ISREG(o.st_mode))
        return sax_error_set(err, SAX_ERR_INPUT,
                             "%s: expected a regular file (or a new name) to write the output to, found %s",
                             out, file_kind(o.st_mode));
    for (int i = 0; inputs != NULL && inputs[i] != NULL; i++) {
        struct stat in;
        if (stat(inputs[i], &in) == 0 && in.st_dev == o.st_dev && in.st_ino == o.st_ino)
            return sax_error_set(err, SAX_ERR_INPUT,
                                 "%s: expected an output other than the input, found the same file as the "
                                 "input %s (writing would destroy it)",
                                 out, inputs[i]);
    }
    return SAX_OK;
}

sax_status_t sax_cli_write_text(const char *path, const char *text, sax_error_t *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return sax_error_set(err, SAX_ERR_IO, "%s: cannot write: %s", tmp, strerror(errno));
    bool ok = fputs(text, f) >= 0 && !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return sax_error_set(err, SAX_ERR_IO, "%s: cannot write: %s", path, strerror(e));
    }
    return SAX_OK;
}
