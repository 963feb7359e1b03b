/* cli_trace.c - `sax eval --trace`: placeholder until the model exposes its pipeline. */
#include "cli_print.h"

int cli_write_trace(const char *path, const sax_problem_t *p, const sax_candidate_t *c, sax_scratch_t *scratch)
{
    (void)path;
    (void)p;
    (void)c;
    (void)scratch;
    fprintf(stderr, "sax eval: --trace is not implemented yet\n");
    return 2;
}
