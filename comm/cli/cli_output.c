/* cli_output.c - the one check of an output file name, made by every command that writes before it
 * does any work (docs/reliability.md, "Output targets"). sax writes its outputs as new regular files
 * (most through a temporary name and rename(), which would replace whatever the name held): a
 * device such as /dev/null, a FIFO, a socket or a directory is refused, and so is a name that is
 * one of the command's own inputs, which the output would overwrite, and a symbolic link, which the
 * rename would replace. */
#define _POSIX_C_SOURCE 200809L /* S_ISSOCK, O_CLOEXEC, O_NOFOLLOW */
#include "sax_output.h"
#include "cli_output.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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
    struct stat name, o;
    if (out == NULL || lstat(out, &name) != 0)
        return SAX_OK;                /* a new name (or one the writer will report it cannot create) */
    bool exists = stat(out, &o) == 0; /* what the name leads to, through links */
    if (exists) {
        if (!S_ISREG(o.st_mode))
            return sax_error_set(
                err, SAX_ERR_INPUT,
                "%s: expected a regular file (or a new name) to write the output to, found %s", out,
                file_kind(o.st_mode));
        for (int i = 0; inputs != NULL && inputs[i] != NULL; i++) {
            struct stat in;
            if (stat(inputs[i], &in) == 0 && in.st_dev == o.st_dev && in.st_ino == o.st_ino)
                return sax_error_set(
                    err, SAX_ERR_INPUT,
                    "%s: expected an output other than the input, found the same file as the "
                    "input %s (writing would destroy it)",
                    out, inputs[i]);
        }
    }
    if (S_ISLNK(name.st_mode)) {
        /* The rename that replaces an output would replace the link itself, not write through it,
         * and a dangling link would silently become a file: neither is what a link is for. */
        char to[256];
        ssize_t n = readlink(out, to, sizeof to - 1);
        to[n > 0 ? n : 0] = '\0';
        for (char *c = to; *c != '\0'; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f) /* printed on the user's terminal */
                *c = '?';
        return sax_error_set(err, SAX_ERR_INPUT,
                             "%s: expected a regular file (or a new name) to write the output to, found a "
                             "symbolic link (to %s%s): sax replaces an output by renaming a new file over "
                             "its name, which would replace the link, not write through it; name the "
                             "target itself, or remove the link",
                             out, to, exists ? "" : ", which does not exist");
    }
    return SAX_OK;
}

sax_status_t sax_cli_write_text(const char *path, const char *text, sax_error_t *err)
{
    sax_output_t o;
    sax_status_t st = sax_output_open(&o, path, err);
    if (st != SAX_OK)
        return st;
    fputs(text, o.f); /* a failed write shows in the stream's error flag, which commit checks */
    st = sax_output_commit(&o, err);
    sax_output_abort(&o);
    return st;
}

/* "pid P on HOST" of the process that holds the lock on fd, from the file (written by the holder)
 * or, failing that, from the kernel (F_GETLK; meaningful on a local filesystem only). */
static void lock_holder(int fd, char *buf, size_t n)
{
    char text[300] = {0};
    long pid = 0;
    char host[256] = {0};
    ssize_t got = pread(fd, text, sizeof text - 1, 0);
    if (got > 0 && sscanf(text, "%ld %255s", &pid, host) == 2 && pid > 0) {
        for (char *c = host; *c != '\0'; c++)
            if (*c < 0x21 || *c > 0x7e) /* printed on the user's terminal */
                *c = '?';
        snprintf(buf, n, "pid %ld on %s", pid, host);
        return;
    }
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK && fl.l_pid > 0)
        snprintf(buf, n, "pid %ld", (long)fl.l_pid);
    else
        snprintf(buf, n, "pid unknown");
}

sax_status_t sax_cli_lock_init(sax_cli_lock_t *l, const char *out, const char *const *inputs,
                               sax_error_t *err)
{
    memset(l, 0, sizeof *l);
    l->fd = -1;
    size_t n = strlen(out) + sizeof SAX_CLI_LOCK_SUFFIX;
    l->path = malloc(n);
    if (l->path == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory");
    snprintf(l->path, n, "%s%s", out, SAX_CLI_LOCK_SUFFIX);
    sax_status_t st = sax_cli_check_output(l->path, inputs, err);
    if (st != SAX_OK)
        return st;
    /* A holder removes the file before it releases the lock: one who opened the old file meanwhile
     * would lock a name that is gone, so the lock counts only if the name still is the file locked. */
    for (int attempt = 0; attempt < 100; attempt++) {
        int fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
        if (fd < 0 && errno == ELOOP)
            return sax_error_set(
                err, SAX_ERR_INPUT,
                "%s: expected a regular file (or a new name) to lock the output with, found a "
                "symbolic link",
                l->path);
        if (fd < 0)
            return sax_error_set(err, SAX_ERR_IO, "%s: cannot create the lock file of the output: %s",
                                 l->path, strerror(errno));
        struct stat f, p;
        if (fstat(fd, &f) != 0 || !S_ISREG(f.st_mode)) {
            close(fd);
            return sax_error_set(err, SAX_ERR_INPUT, "%s: expected a regular file to lock the output with",
                                 l->path);
        }
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        if (fcntl(fd, F_SETLK, &fl) != 0) {
            int e = errno;
            if (e == EACCES || e == EAGAIN) {
                char who[300];
                lock_holder(fd, who, sizeof who);
                close(fd);
                return sax_error_set(err, SAX_ERR_INPUT,
                                     "%s: expected no other process writing this output, found another sax "
                                     "sweep (%s) holding %s; wait for it to finish, or write to another name",
                                     out, who, l->path);
            }
            close(fd);
            if (e == ENOLCK || e == EOPNOTSUPP || e == EINVAL) {
                fprintf(stderr,
                        "sax: warning: %s: this filesystem cannot lock files (%s): nothing stops another "
                        "sax from writing %s at the same time\n",
                        l->path, strerror(e), out);
                return SAX_OK;
            }
            return sax_error_set(err, SAX_ERR_IO, "%s: cannot lock the output: %s", l->path, strerror(e));
        }
        if (stat(l->path, &p) != 0 || p.st_dev != f.st_dev || p.st_ino != f.st_ino) {
            close(fd); /* the holder removed it meanwhile: lock the new one */
            continue;
        }
        char text[320], host[256] = "?";
        if (gethostname(host, sizeof host) != 0)
            strcpy(host, "?");
        host[sizeof host - 1] = '\0';
        int len = snprintf(text, sizeof text, "%ld %s\n", (long)getpid(), host);
        /* the holder's name is for the message of the one refused: a full disk does not stop the run */
        if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)len, 0) != len) {
        }
        l->fd = fd;
        l->held = true;
        return SAX_OK;
    }
    return sax_error_set(err, SAX_ERR_IO, "%s: cannot lock the output: its lock file keeps being replaced",
                         l->path);
}

void sax_cli_lock_fini(sax_cli_lock_t *l)
{
    if (l->held) {
        unlink(l->path); /* first: who opens it now finds no file, or a new one */
        close(l->fd);
    }
    free(l->path);
    memset(l, 0, sizeof *l);
    l->fd = -1;
}
