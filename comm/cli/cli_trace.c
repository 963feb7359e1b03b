/* cli_trace.c - `sax eval --trace`: the simulated iteration as Chrome trace-event JSON.
 *
 * Format: the Trace Event Format's "complete" events (ph "X", microseconds) and thread-name
 * metadata, which Perfetto (ui.perfetto.dev) and chrome://tracing open. Process 1 holds one track
 * per pipeline stage (forward F, input-gradient B and weight-gradient W events of each micro-batch
 * and chunk); process 2 one track per stage boundary with every activation and gradient transfer.
 * The file is written to a temporary name and renamed, so a failed write leaves nothing behind. */
#include "cli_print.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void event(FILE *f, bool *first, const char *name, const char *cat, int pid, int tid, double t0_s,
                  double t1_s, int micro, int chunk)
{
    fprintf(f,
            "%s\n{\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, "
            "\"dur\": %.3f, \"args\": {\"micro_batch\": %d, \"chunk\": %d}}",
            *first ? "" : ",", name, cat, pid, tid, t0_s * 1e6, (t1_s - t0_s) * 1e6, micro, chunk);
    *first = false;
}

static void track_name(FILE *f, bool *first, int pid, int tid, const char *name)
{
    fprintf(
        f,
        "%s\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"args\": {\"name\": \"%s\"}}",
        *first ? "" : ",", pid, tid, name);
    *first = false;
}

int cli_write_trace(const char *path, const sax_problem_t *p, const sax_candidate_t *c,
                    sax_scratch_t *scratch)
{
    static sax_pipeline_t pl;
    sax_result_t r;
    if (sax_model_eval_pipeline(p, c, scratch, &r, &pl) != SAX_OK || !r.feasible) {
        fprintf(stderr,
                "sax eval: --trace: the configuration is infeasible; there is no iteration to trace\n");
        return 2;
    }
    long cap = (long)pl.stages * pl.chunks * pl.micro * 3;
    sax_event_t *ev = malloc(sizeof *ev * (size_t)cap);
    sax_pipeline_result_t pr;
    long n = ev != NULL ? sax_pipeline_simulate(&pl, scratch, &pr, ev, cap) : -1;
    if (n < 0) {
        free(ev);
        fprintf(stderr, "sax eval: --trace: %s\n",
                ev == NULL ? "out of memory" : "this schedule is timed by its closed form; no event trace");
        return ev == NULL ? 1 : 2;
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        fprintf(stderr, "sax eval: cannot write %s: %s\n", tmp, strerror(errno));
        free(ev);
        return 1;
    }
    bool first = true;
    fprintf(
        f,
        "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"iteration_time_s\": %.9g, \"schedule\": \"%s\"}, "
        "\"traceEvents\": [",
        r.iteration_time_s, sax_schedule_names[c->schedule]);
    char name[64];
    for (int s = 0; s < pl.stages; s++) {
        snprintf(name, sizeof name, "stage %d", s);
        track_name(f, &first, 1, s, name);
        snprintf(name, sizeof name, "boundary %d-%d", s, (s + 1) % pl.stages);
        track_name(f, &first, 2, s, name);
    }
    int vs_count = pl.stages * pl.chunks;
    for (long i = 0; i < n && i < cap; i++) {
        const sax_event_t *e = &ev[i];
        const char *cat = e->kind == 'F' ? "forward" : e->kind == 'B' ? "backward" : "weight-gradient";
        snprintf(name, sizeof name, "%c%d", e->kind, e->micro);
        event(f, &first, name, cat, 1, e->stage, e->start_s, e->end_s, e->micro, e->chunk);
        int vs = e->chunk * pl.stages + e->stage;
        if (e->kind == 'F' && vs < vs_count - 1) { /* activations to the next virtual stage */
            snprintf(name, sizeof name, "act %d", e->micro);
            event(f, &first, name, "transfer", 2, e->stage, e->end_s, e->end_s + pl.link_s[e->stage],
                  e->micro, e->chunk);
        } else if (e->kind == 'B' && vs > 0) { /* gradients back to the previous one */
            int prev = (e->stage + pl.stages - 1) % pl.stages;
            snprintf(name, sizeof name, "grad %d", e->micro);
            event(f, &first, name, "transfer", 2, prev, e->end_s, e->end_s + pl.link_s[prev], e->micro,
                  e->chunk);
        }
    }
    fprintf(f, "\n]}\n");
    free(ev);
    bool ok = !ferror(f);
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        fprintf(stderr, "sax eval: cannot write %s: %s\n", path, strerror(errno));
        remove(tmp);
        return 1;
    }
    return 0;
}
