/* fuzz.h - the libFuzzer entry point the harnesses define; replay.c calls it without libFuzzer. */
#ifndef SAX_FUZZ_H
#define SAX_FUZZ_H

#define _POSIX_C_SOURCE 200809L /* getpid */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant is a finding: trap, so libFuzzer and the sanitizers report it. */
static inline void fuzz_check(bool ok)
{
    if (!ok)
        __builtin_trap();
}

/* The input as a NUL-terminated string (malloc'ed; NULL when out of memory). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text != NULL) {
        memcpy(text, data, size);
        text[size] = '\0';
    }
    return text;
}

/* The input written to /dev/shm/sax-fuzz-<what>.<pid> (memory: several times faster for the HDF5
 * harnesses than a disk), or /tmp where there is no /dev/shm, for readers that take a path; false
 * (nothing left behind) when it cannot be written. The caller removes the file. */
static inline bool fuzz_file(const uint8_t *data, size_t size, const char *what, char *path, size_t len)
{
    snprintf(path, len, "%s/sax-fuzz-%s.%ld", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", what,
             (long)getpid());
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return false;
    bool written = fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !written) {
        remove(path);
        return false;
    }
    return true;
}

#endif
