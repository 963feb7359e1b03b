/* cli_trace.c - `sax eval --trace`: the whole iteration as Chrome trace-event JSON.
 *
 * Format: the Trace Event Format's "complete" events (ph "X", microseconds) and process_name /
 * thread_name metadata for every track, which Perfetto (ui.perfetto.dev) and chrome://tracing open.
 * Process 1 holds six tracks per pipeline stage: its events (forward F, input-gradient B and
 * weight-gradient W of each micro-batch and chunk), the exposed TP, CP and EP time inside them, its
 * DP traffic (ZeRO-3's exposed gathers inside the events, the synchronisation after the last backward:
 * the part hidden behind it and the exposed tail) and its optimizer step. Process 2 holds each stage
 * boundary's transfers, one track per direction (more lanes where transfers overlap). Process 10 + l
 * holds site link l: per traffic class, its busy time at capacity over the iteration. Slices on one
 * track never overlap; the last ends at the model's iteration time. docs/cost-model.md, "The
 * iteration as a trace", states what is exact and what is laid out.
 * The file is written to a temporary name and renamed, so a failed write leaves nothing behind. */
#include "sax_output.h"
#include "cli_print.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { TRACK_EVENTS, TRACK_TP, TRACK_CP, TRACK_EP, TRACK_DP, TRACK_OPT, TRACKS_PER_STAGE };
enum { PID_STAGES = 1, PID_BOUNDARIES = 2, PID_LINK0 = 10 };

typedef struct {
    double t0, t1;
} span_t;

typedef struct {
    span_t *v;
    long n, cap;
} spans_t;

typedef struct {
    int pid, tid;
    char name[80];
} track_t;

typedef struct {
    FILE *f;
    bool first;
    track_t *tracks;
    long n_tracks, cap_tracks;
    bool nomem;
} out_t;

static void *grow(void *p, long *cap, long need, size_t size)
{
    if (need <= *cap)
        return p;
    long c = *cap > 0 ? *cap * 2 : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(p, (size_t)c * size);
    if (q != NULL)
        *cap = c;
    return q;
}

static void spans_add(out_t *o, spans_t *s, double t0, double t1)
{
    span_t *v = grow(s->v, &s->cap, s->n + 1, sizeof *v);
    if (v == NULL) {
        o->nomem = true;
        return;
    }
    s->v = v;
    s->v[s->n++] = (span_t){t0, t1};
}

static void track(out_t *o, int pid, int tid, const char *name)
{
    track_t *t = grow(o->tracks, &o->cap_tracks, o->n_tracks + 1, sizeof *t);
    if (t == NULL) {
        o->nomem = true;
        return;
    }
    o->tracks = t;
    t = &o->tracks[o->n_tracks++];
    t->pid = pid;
    t->tid = tid;
    snprintf(t->name, sizeof t->name, "%s", name);
}

/* One complete event; times in seconds, written in microseconds to the picosecond. */
static void slice(out_t *o, const char *name, const char *cat, int pid, int tid, double t0_s, double dur_s,
                  const char *args)
{
    if (!(dur_s > 0.0))
        return;
    fprintf(o->f, "%s\n{\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": %d, \"tid\": %d, ",
            o->first ? "" : ",", name, cat, pid, tid);
    fprintf(o->f, "\"ts\": %.6f, \"dur\": %.6f, \"args\": {%s}}", t0_s * 1e6, dur_s * 1e6, args);
    o->first = false;
}

/* Overlapping slices of one kind in lanes: the first lane free at t0 (a new one if none is). */
typedef struct {
    double *end;
    long n, cap;
} lanes_t;

static long lane_for(out_t *o, lanes_t *ln, double t0, double t1)
{
    long i = 0;
    while (i < ln->n && ln->end[i] > t0)
        i++;
    if (i == ln->n) {
        double *e = grow(ln->end, &ln->cap, ln->n + 1, sizeof *e);
        if (e == NULL) {
            o->nomem = true;
            return 0;
        }
        ln->end = e;
        ln->n++;
    }
    ln->end[i] = t1;
    return i;
}

static int by_start(const void *a, const void *b)
{
    const span_t *x = a, *y = b;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* Sorts spans by start (an empty list has no array: qsort must not see its NULL). */
static void sort_spans(spans_t *sp)
{
    if (sp->n > 1)
        qsort(sp->v, (size_t)sp->n, sizeof *sp->v, by_start);
}

/* Lays `busy_s` of a link's time over the sorted spans where its traffic class is active, in
 * proportion to their lengths, on lanes that each hold at most `end_s`: each slice starts where its
 * span starts or where the previous one ends, and slices pushed past end_s are pulled back. */
static void link_slices(out_t *o, int pid, int k_class, const char *cls, spans_t *sp, double busy_s,
                        double end_s)
{
    if (!(busy_s > 0.0))
        return;
    double total = 0.0;
    for (long i = 0; i < sp->n; i++)
        total += sp->v[i].t1 - sp->v[i].t0;
    span_t whole = {0.0, end_s};
    span_t *v = total > 0.0 ? sp->v : &whole;
    long n = total > 0.0 ? sp->n : 1;
    if (!(total > 0.0))
        total = end_s;
    int lanes = (int)ceil(busy_s / end_s * (1.0 - 1e-12));
    lanes = lanes < 1 ? 1 : lanes;
    double *st = malloc(sizeof *st * (size_t)n);
    if (st == NULL) {
        o->nomem = true;
        return;
    }
    double share = busy_s / lanes;
    char name[80], args[96];
    for (int k = 0; k < lanes; k++) {
        double prev = 0.0;
        for (long i = 0; i < n; i++) {
            double d = share * (v[i].t1 - v[i].t0) / total;
            st[i] = fmax(v[i].t0, prev);
            prev = st[i] + d;
        }
        double next = end_s;
        for (long i = n - 1; i >= 0; i--) {
            double d = share * (v[i].t1 - v[i].t0) / total;
            if (st[i] + d > next)
                st[i] = next - d;
            next = st[i];
        }
        snprintf(name, sizeof name, "%s%s%.0d", cls, lanes > 1 ? " lane " : "", lanes > 1 ? k + 1 : 0);
        const int tid = k * SAX_DIM_COUNT + k_class;
        track(o, pid, tid, name);
        /* contiguous slices merged; each written length carries the rounding of the ones before */
        double run0 = st[0], run_d = 0.0, target = 0.0, written = 0.0;
        for (long i = 0; i < n; i++) {
            double d = share * (v[i].t1 - v[i].t0) / total;
            bool joins = fabs(st[i] - (run0 + run_d)) <= 1e-12 * end_s;
            if (!joins && run_d > 0.0) {
                target += run_d;
                double len = round(target * 1e12) / 1e12 - written;
                snprintf(args, sizeof args, "\"busy_s\": %.9g", len);
                slice(o, cls, "link", pid, tid, run0, len, args);
                written += len;
                run_d = 0.0;
            }
            if (!joins || run_d == 0.0)
                run0 = st[i];
            run_d += d;
        }
        target += run_d;
        double len = round(target * 1e12) / 1e12 - written;
        snprintf(args, sizeof args, "\"busy_s\": %.9g", len);
        slice(o, cls, "link", pid, tid, run0, len, args);
    }
    free(st);
}

static const char *const class_names[SAX_DIM_COUNT] = {
    [SAX_DIM_TP] = "tp", [SAX_DIM_CP] = "cp", [SAX_DIM_EP] = "ep", [SAX_DIM_PP] = "pp", [SAX_DIM_DP] = "dp"};

/* A transfer over boundary b (b -> b+1 when `up`, else back) on its direction's lanes. */
static void transfer(out_t *o, lanes_t *ln, spans_t *bsp, int p, int b, bool up, double t0, double t1,
                     const char *name)
{
    char tname[80];
    lanes_t *l = &ln[2 * b + !up];
    long before = l->n, lane = lane_for(o, l, t0, t1);
    int tid = (int)(lane * 2 * p + 2 * b + !up); /* lanes of one track after all first lanes */
    if (l->n > before) {
        snprintf(tname, sizeof tname, "boundary %d%s%d%s%.0ld", up ? b : (b + 1) % p, "->",
                 up ? (b + 1) % p : b, lane > 0 ? " lane " : "", lane > 0 ? lane + 1 : 0);
        track(o, PID_BOUNDARIES, tid, tname);
    }
    slice(o, name, "transfer", PID_BOUNDARIES, tid, t0, t1 - t0, "");
    spans_add(o, &bsp[b], t0, t1);
}

int cli_write_trace(const char *path, const sax_problem_t *p, const sax_candidate_t *c,
                    sax_scratch_t *scratch)
{
    static sax_pipeline_t pl;
    sax_result_t r;
    sax_iteration_detail_t *d = malloc(sizeof *d);
    if (d == NULL) {
        fprintf(stderr, "sax eval: --trace: out of memory\n");
        return 1;
    }
    if (sax_model_eval_trace(p, c, scratch, &r, &pl, d) != SAX_OK || !r.feasible) {
        free(d);
        fprintf(stderr,
                "sax eval: --trace: the configuration is infeasible; there is no iteration to trace\n");
        return 2;
    }
    const int np = pl.stages;
    long cap = (long)np * pl.chunks * pl.micro * 3;
    sax_event_t *ev = malloc(sizeof *ev * (size_t)cap);
    lanes_t *ln = calloc((size_t)np * 2, sizeof *ln);
    spans_t *bsp = calloc((size_t)np, sizeof *bsp); /* per boundary: its transfers */
    spans_t fb = {0}, dp = {0};                     /* F and B events; DP synchronisations */
    out_t o = {.first = true};
    FILE *f = NULL;
    int rc = 1;
    sax_output_t file = {0};
    sax_error_t err = {{0}};
    if (ev == NULL || ln == NULL || bsp == NULL)
        goto nomem;
    sax_pipeline_result_t pr;
    long n = sax_pipeline_simulate(&pl, scratch, &pr, ev, cap);
    if (n < 0 || n > cap) {
        fprintf(stderr, "sax eval: --trace: the pipeline could not be simulated\n");
        rc = 2;
        goto done;
    }
    if (sax_output_open(&file, path, &err) != SAX_OK) {
        fprintf(stderr, "sax eval: %s\n", err.text);
        goto done;
    }
    f = file.f;
    o.f = f;
    fprintf(
        f,
        "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"iteration_time_s\": %.17g, \"pipeline_makespan_s\": "
        "%.17g, \"schedule\": \"%s\", \"critical_stage\": %d, \"pipeline_events\": \"%s\"}, "
        "\"traceEvents\": [",
        r.iteration_time_s, d->makespan_s, sax_schedule_names[c->schedule], d->crit, "simulated");
    char name[80];
    static const char *const stage_track[TRACKS_PER_STAGE] = {"", "tp", "cp", "ep", "dp", "optimizer"};
    for (int s = 0; s < np; s++)
        for (int k = 0; k < TRACKS_PER_STAGE; k++) {
            snprintf(name, sizeof name, "stage %d%s%s", s, k ? " " : "", stage_track[k]);
            track(&o, PID_STAGES, s * TRACKS_PER_STAGE + k, name);
        }
    const bool dualpipe = c->schedule == SAX_SCHEDULE_DUALPIPE;
    const int vs_count = np * pl.chunks;
    char args[96];
    for (long i = 0; i < n; i++) {
        const sax_event_t *e = &ev[i];
        const int s = e->stage, tid = s * TRACKS_PER_STAGE;
        const char *cat = e->kind == 'F' ? "forward" : e->kind == 'B' ? "backward" : "weight-gradient";
        snprintf(name, sizeof name, "%c%d", e->kind, e->micro);
        snprintf(args, sizeof args, "\"micro_batch\": %d, \"chunk\": %d", e->micro, e->chunk);
        slice(&o, name, cat, PID_STAGES, tid + TRACK_EVENTS, e->start_s, e->end_s - e->start_s, args);
        if (e->kind == 'W')
            continue;
        spans_add(&o, &fb, e->start_s, e->end_s);
        /* the exposed communication the model adds to the event, after its compute: the stage's whose
         * layers it runs (a DualPipe rank runs direction 1 through stage p - 1 - s's) */
        const int layers_of = dualpipe && e->chunk == 1 ? np - 1 - s : s;
        const double *cm = e->kind == 'F' ? d->fwd_comm_s[layers_of] : d->bwd_comm_s[layers_of];
        double end = e->end_s - (e->with_w ? pl.w_s[layers_of] : 0.0);
        double t = end - cm[SAX_DIM_TP] - cm[SAX_DIM_CP] - cm[SAX_DIM_EP] - cm[SAX_DIM_DP];
        static const int dims[4] = {SAX_DIM_TP, SAX_DIM_CP, SAX_DIM_EP, SAX_DIM_DP};
        static const int tracks[4] = {TRACK_TP, TRACK_CP, TRACK_EP, TRACK_DP};
        for (int k = 0; k < 4; k++) {
            snprintf(name, sizeof name, "%s %c%d", dims[k] == SAX_DIM_DP ? "zero3" : class_names[dims[k]],
                     e->kind, e->micro);
            slice(&o, name, "exposed", PID_STAGES, tid + tracks[k], t, cm[dims[k]], args);
            t += cm[dims[k]];
        }
        /* activations to the next virtual stage, gradients back to the previous one; DualPipe's
         * direction 1 (chunk 1) runs from stage p-1 to 0 */
        bool back = dualpipe && e->chunk == 1;
        int vs = back ? np - 1 - s : e->chunk * np + s;
        bool up = (e->kind == 'F') != back;
        int b = up ? s : (s + np - 1) % np;
        if ((e->kind == 'F' && vs < vs_count - 1) || (e->kind == 'B' && vs > 0)) {
            snprintf(name, sizeof name, "%s %d", e->kind == 'F' ? "act" : "grad", e->micro);
            transfer(&o, ln, bsp, np, b, up, e->send_s, e->send_s + pl.link_s[b], name);
        }
    }
    /* after each stage's last event: its DP synchronisation (the hidden part overlaps the end of its
     * backward pass, the exposed tail follows), then its optimizer step */
    for (int s = 0; s < np; s++) {
        const int tid = s * TRACKS_PER_STAGE;
        double fin = d->finish_s[s], exposed = d->dp_exposed_s[s];
        double hidden = fmin(fin, fmax(0.0, d->dp_s[s] - exposed));
        snprintf(args, sizeof args, "\"stage\": %d", s);
        slice(&o, "dp hidden", "dp", PID_STAGES, tid + TRACK_DP, fin - hidden, hidden, args);
        slice(&o, "dp exposed", "dp", PID_STAGES, tid + TRACK_DP, fin, exposed, args);
        slice(&o, "optimizer", "optimizer", PID_STAGES, tid + TRACK_OPT, fin + exposed, d->opt_s[s], args);
        if (hidden + exposed > 0.0)
            spans_add(&o, &dp, fin - hidden, fin + exposed);
    }
    if (o.nomem)
        goto nomem;
    /* site links: each class's share of the busier direction's busy time */
    sort_spans(&fb);
    sort_spans(&dp);
    const sax_cluster_t *cl = &p->cluster;
    for (int l = 0; l < cl->n_links; l++) {
        const int pid = PID_LINK0 + l;
        double busy = (double)r.link_utilisation[l] * r.iteration_time_s;
        double dir_sum[2] = {0.0, 0.0};
        for (int k = 0; k < SAX_DIM_COUNT; k++)
            for (int di = 0; di < 2; di++)
                dir_sum[di] += d->link_class_bytes[l][k][di];
        int dir = dir_sum[1] > dir_sum[0];
        spans_t pps = {0};
        for (int b = 0; b < np; b++)
            if (d->boundary_links[b] >> l & 1u)
                for (long i = 0; i < bsp[b].n; i++)
                    spans_add(&o, &pps, bsp[b].v[i].t0, bsp[b].v[i].t1);
        sort_spans(&pps);
        for (int k = 0; k < SAX_DIM_COUNT; k++) {
            double bytes = d->link_class_bytes[l][k][dir];
            if (!(bytes > 0.0) || !(dir_sum[dir] > 0.0))
                continue;
            spans_t *where = k == SAX_DIM_PP ? &pps : k == SAX_DIM_DP && c->zero < 3 ? &dp : &fb;
            link_slices(&o, pid, k, class_names[k], where, busy * bytes / dir_sum[dir], r.iteration_time_s);
        }
        free(pps.v);
    }
    /* metadata: every process and track that holds slices is named */
    for (long i = 0; i < o.n_tracks; i++)
        fprintf(
            f,
            ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"args\": {\"name\": "
            "\"%s\"}}",
            o.tracks[i].pid, o.tracks[i].tid, o.tracks[i].name);
    fprintf(
        f,
        ",\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": {\"name\": \"pipeline stages\"}}"
        ",\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": {\"name\": \"stage boundaries "
        "(pp transfers)\"}}",
        PID_STAGES, PID_BOUNDARIES);
    for (int l = 0; l < cl->n_links; l++)
        fprintf(
            f,
            ",\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": {\"name\": \"site link "
            "%s - %s (busy time at capacity)\"}}",
            PID_LINK0 + l, cl->sites[cl->links[l].a].name, cl->sites[cl->links[l].b].name);
    fprintf(f, "\n]}\n");
    if (o.nomem)
        goto nomem;
    if (sax_output_commit(&file, &err) != SAX_OK) {
        fprintf(stderr, "sax eval: %s\n", err.text);
        goto done;
    }
    rc = 0;
    goto done;
nomem:
    fprintf(stderr, "sax eval: --trace: out of memory\n");
    rc = 1;
done:
    sax_output_abort(&file);
    for (int b = 0; bsp != NULL && b < np; b++)
        free(bsp[b].v);
    free(bsp);
    free(fb.v);
    free(dp.v);
    free(o.tracks);
    for (int b = 0; ln != NULL && b < 2 * np; b++)
        free(ln[b].end);
    free(ln);
    free(ev);
    free(d);
    return rc;
}
