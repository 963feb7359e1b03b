/* output_file.c - the one way sax writes a file (docs/reliability.md, "Failing writes"): into a
 * temporary name beside the output (same directory, so same filesystem), flushed and synced, then
 * renamed over it. A write that fails - a full disk, a file-size limit, a killed process - leaves
 * the previous file as it was and no temporary file (a killed process leaves PATH.tmp.PID, never a
 * truncated PATH). */
#define _POSIX_C_SOURCE 200809L /* fileno, fsync */

#include "sax_output.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

sax_status_t sax_output_open(sax_output_t *o, const char *path, sax_error_t *err)
{
    memset(o, 0, sizeof *o);
    if (snprintf(o->path, sizeof o->path, "%s", path) >= (int)sizeof o->path ||
        snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof o->tmp)
        return sax_error_set(err, SAX_ERR_USAGE, "%.200s...: expected a shorter output path", path);
    o->f = fopen(o->tmp, "wb");
    if (o->f == NULL) {
        int e = errno;
        o->tmp[0] = '\0';
        return sax_error_set(err, SAX_ERR_IO, "%s: cannot write: %s", path, strerror(e));
    }
    return SAX_OK;
}

sax_status_t sax_output_close(sax_output_t *o, sax_error_t *err)
{
    if (o->f == NULL)
        return SAX_OK;
    errno = 0;
    bool ok = !ferror(o->f) && fflush(o->f) == 0 && fsync(fileno(o->f)) == 0;
    int e = errno;
    if (fclose(o->f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    o->f = NULL;
    if (ok)
        return SAX_OK;
    sax_output_abort(o);
    return sax_error_set(err, SAX_ERR_IO, "%s: cannot write: %s (the file is left as it was)", o->path,
                         e ? strerror(e) : "write error");
}

sax_status_t sax_output_commit(sax_output_t *o, sax_error_t *err)
{
    sax_status_t st = sax_output_close(o, err);
    if (st != SAX_OK)
        return st;
    if (o->tmp[0] == '\0')
        return sax_error_set(err, SAX_ERR_INTERNAL, "%s: written twice", o->path);
    if (rename(o->tmp, o->path) != 0) {
        int e = errno;
        sax_output_abort(o);
        return sax_error_set(err, SAX_ERR_IO, "%s: cannot write: %s (the file is left as it was)", o->path,
                             strerror(e));
    }
    o->tmp[0] = '\0';
    return SAX_OK;
}

void sax_output_abort(sax_output_t *o)
{
    if (o->f != NULL)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp[0] != '\0')
        remove(o->tmp);
    o->tmp[0] = '\0';
}
