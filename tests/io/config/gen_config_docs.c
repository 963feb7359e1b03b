/* gen_config_docs.c - writes docs/config.md from the loader's tables, or checks that the
 * checked-in copy is current.
 *   gen_config_docs                 markdown on stdout
 *   gen_config_docs -o FILE         write FILE
 *   gen_config_docs --check FILE    exit 1 (with a message) when FILE differs */
#include "sax_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (bigger == NULL)
            free(buf);
        buf = bigger;
        cap *= 2;
    }
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc == 1) {
        sax_config_write_docs(stdout);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "-o") == 0) {
        FILE *f = fopen(argv[2], "w");
        if (f == NULL) {
            perror(argv[2]);
            return 1;
        }
        sax_config_write_docs(f);
        return fclose(f) == 0 ? 0 : 1;
    }
    if (argc == 3 && strcmp(argv[1], "--check") == 0) {
        FILE *fresh = tmpfile(), *old = fopen(argv[2], "rb");
        if (fresh == NULL || old == NULL) {
            fprintf(stderr,
                    "docs/config.md is stale: %s cannot be read; regenerate with: cmake --build build "
                    "--target gen_config_docs && build/tests/io/config/gen_config_docs -o docs/config.md\n",
                    argv[2]);
            return 1;
        }
        sax_config_write_docs(fresh);
        rewind(fresh);
        size_t na, nb;
        char *a = read_all(fresh, &na), *b = read_all(old, &nb);
        int same = a != NULL && b != NULL && na == nb && memcmp(a, b, na) == 0;
        free(a);
        free(b);
        fclose(fresh);
        fclose(old);
        if (!same) {
            fprintf(stderr,
                    "docs/config.md is stale: regenerate with: cmake --build build --target gen_config_docs "
                    "&& build/tests/io/config/gen_config_docs -o docs/config.md\n");
            return 1;
        }
        return 0;
    }
    fprintf(stderr, "usage: gen_config_docs [-o FILE | --check FILE]\n");
    return 2;
}
