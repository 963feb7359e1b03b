/* replay.c - runs a fuzz harness once on each file named on the command line, without libFuzzer,
 * so that the seed corpus and every crash input found so far are regression tests in every build
 * (under ASan+UBSan in the asan preset). Directories are expanded one level. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: %s: cannot open\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *grown = realloc(buf, cap * 2);
            if (grown == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf == NULL) {
        fprintf(stderr, "replay: %s: out of memory\n", path);
        return 1;
    }
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            DIR *d = opendir(argv[i]);
            for (struct dirent *e = d ? readdir(d) : NULL; e != NULL; e = readdir(d)) {
                char path[4096];
                if (e->d_name[0] == '.' ||
                    snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name) >= (int)sizeof path)
                    continue;
                if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
                    failed += run_file(path);
                    files++;
                }
            }
            if (d != NULL)
                closedir(d);
        } else {
            failed += run_file(argv[i]);
            files++;
        }
    }
    printf("replay: %d inputs, %d unreadable\n", files, failed);
    return failed > 0 || files == 0;
}
