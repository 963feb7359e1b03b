/* dist.c - dynamic self-scheduling of the sweep over MPI ranks, and the merge of the reductions.
 *
 * Rank 0 (the master) owns the list of index ranges still to do and hands them out as chunks in
 * increasing index order. It evaluates chunks of its own too, and answers requests from inside
 * its evaluation loop (a non-blocking probe every SAX_COMM_POLL_EVERY steps), so no core idles.
 * A worker asks for its next chunk before it starts the current one, so the reply travels while
 * it computes. Each request reports the chunk the worker finished last, which is how rank 0 knows
 * what is done when a sweep is interrupted.
 *
 * A periodic checkpoint divides the sweep into epochs: when one is due, rank 0 stops handing out
 * chunks, every rank finishes the chunk it holds and leaves, the reductions are merged (they depend
 * only on the set of candidates, so merging early changes nothing), rank 0 saves them with the
 * finished ranges, the other ranks start again empty, and the next epoch hands out what is left.
 * The drain costs at most one chunk per rank (chunks are capped at MAX_CHUNK candidates, a few
 * seconds of model time). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "comm_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TAG_REQUEST = 4401, TAG_WORK = 4402 };

/* flags of a request */
enum { REQ_STOP = 1, /* the sender was asked to stop */ REQ_FINAL = 2 /* the sender leaves the sweep */ };

/* The one message of the protocol, both ways: a worker's request (lo/hi: the chunk it finished,
 * or -1) and the master's reply (a chunk, or lo = -1: no more work). */
typedef struct {
    int64_t lo, hi;
    int64_t flags;
} msg_t;

#define MIN_CHUNK 256
#define MAX_CHUNK (1 << 20)

static bool stop_requested(const sax_sweep_opts_t *o) { return o->stop != NULL && *o->stop != 0; }

/* Why rank 0 hands out no more chunks, in increasing precedence. */
typedef enum { RUN = 0, PAUSE /* a checkpoint is due */, STOP /* interrupted or failed */ } halt_t;

/* How an epoch ended, agreed by every rank (the largest wins). */
enum { ENDED_DONE = 0, ENDED_PAUSED = 1, ENDED_STOPPED = 2, ENDED_FAILED = 3 };

/* The progress clock of the whole sweep, across its epochs (rank 0). */
typedef struct {
    double t0, last_report;
    int64_t done_before; /* finished before this run (a checkpoint's) */
} progress_clock_t;

static int64_t chunk_size(const sax_sweep_opts_t *o, int64_t todo, int ranks)
{
    if (o->chunk > 0)
        return o->chunk;
    int64_t c = todo / ((int64_t)ranks * 64);
    return c < MIN_CHUNK ? MIN_CHUNK : c > MAX_CHUNK ? MAX_CHUNK : c;
}

static sax_status_t mpi_error(sax_error_t *err, int rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    return sax_error_set(err, SAX_ERR_MPI, "%s failed: %s", what, text);
}

/* Waiting politely: a rank with nothing to do sleeps between polls instead of spinning inside
 * MPI, so that on a node with as many ranks as cores (or busier) the ranks still computing get the
 * whole core. 100 us is short next to a chunk and long next to a poll. */
static void nap(void)
{
    struct timespec ts = {0, 100000};
    nanosleep(&ts, NULL);
}

/* ---- rank 0 ---- */

typedef struct {
    MPI_Comm comm;
    MPI_Datatype msg_type;
    const sax_sweep_opts_t *o;
    sax_worker_t *w;
    sax_error_t *err;
    sax_ranges_t *done; /* finished ranges; may also hold ranges above `pos` (from a checkpoint) */
    progress_clock_t *clock;
    int64_t pos; /* everything below has been handed out */
    int64_t total, chunk;
    int64_t handed;  /* chunks handed out in this epoch */
    double pause_at; /* MPI_Wtime() at which a checkpoint is due (INFINITY: never) */
    int ranks;
    int active;           /* workers that have not left */
    halt_t halt;          /* no more chunks, and why */
    sax_status_t mpi_st;  /* an MPI failure: give up */
    sax_status_t work_st; /* another failure: stop handing out work, let the workers leave */
    int64_t own_lo;       /* rank 0's current chunk starts here, or -1 */
} master_t;

/* Chunks shrink towards the end (guided self-scheduling), never below MIN_CHUNK: the last ones
 * finish at about the same time on every rank, so the tail stays short. */
static int64_t guided(const master_t *m)
{
    if (m->o->chunk > 0)
        return m->chunk;
    int64_t c = (m->total - m->pos) / ((int64_t)m->ranks * 4);
    return c < MIN_CHUNK ? MIN_CHUNK : c > m->chunk ? m->chunk : c;
}

static bool next_chunk(master_t *m, int64_t *lo, int64_t *hi)
{
    int64_t glo, ghi;
    if (m->halt != RUN || !sax_ranges_next_gap(m->done, m->pos, m->total, &glo, &ghi))
        return false;
    int64_t c = guided(m);
    *lo = glo;
    *hi = ghi - glo > c ? glo + c : ghi;
    m->pos = *hi;
    m->handed++;
    return true;
}

static void fail(master_t *m, sax_status_t st)
{
    if (m->work_st == SAX_OK)
        m->work_st = st;
    m->halt = STOP;
}

/* Answers one request; waits for it when `block`. Returns false when none was pending. */
static bool serve(master_t *m, bool block)
{
    int flag = 1;
    MPI_Status status;
    int rc = block ? MPI_Probe(MPI_ANY_SOURCE, TAG_REQUEST, m->comm, &status)
                   : MPI_Iprobe(MPI_ANY_SOURCE, TAG_REQUEST, m->comm, &flag, &status);
    if (rc != MPI_SUCCESS) {
        m->mpi_st = mpi_error(m->err, rc, "MPI_Probe");
        return false;
    }
    if (!flag)
        return false;
    msg_t req, rep = {-1, -1, 0};
    rc = MPI_Recv(&req, 1, m->msg_type, status.MPI_SOURCE, TAG_REQUEST, m->comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        m->mpi_st = mpi_error(m->err, rc, "MPI_Recv");
        return false;
    }
    if (req.lo >= 0 && sax_ranges_add(m->done, req.lo, req.hi) != SAX_OK)
        fail(m, sax_error_set(m->err, SAX_ERR_NOMEM, "out of memory recording finished chunks"));
    if (req.flags & REQ_STOP)
        m->halt = STOP;
    if (req.flags & REQ_FINAL) {
        m->active--;
        return true;
    }
    if (!next_chunk(m, &rep.lo, &rep.hi))
        rep.lo = rep.hi = -1;
    rc = MPI_Send(&rep, 1, m->msg_type, status.MPI_SOURCE, TAG_WORK, m->comm);
    if (rc != MPI_SUCCESS)
        m->mpi_st = mpi_error(m->err, rc, "MPI_Send");
    return true;
}

static void report(master_t *m, bool final)
{
    const sax_sweep_opts_t *o = m->o;
    progress_clock_t *clk = m->clock;
    double now = MPI_Wtime();
    if (o->progress == NULL || (!final && now - clk->last_report < o->progress_interval_s))
        return;
    int64_t d = sax_ranges_total(m->done);
    if (!final && m->own_lo >= 0 && m->w->cur.index > m->own_lo)
        d += m->w->cur.index - m->own_lo;
    o->progress(o->progress_ctx, d, m->total, d - clk->done_before, now - clk->t0, final);
    clk->last_report = now;
}

/* The poll hook of rank 0's own evaluation: answer every pending request, report progress. */
static void master_poll(void *ctx)
{
    master_t *m = ctx;
    if (stop_requested(m->o))
        m->halt = STOP;
    /* an epoch hands out at least one chunk, so that every epoch makes progress */
    if (m->halt == RUN && m->handed > 0 && MPI_Wtime() >= m->pause_at)
        m->halt = PAUSE;
    while (m->mpi_st == SAX_OK && m->active > 0 && serve(m, false))
        ;
    report(m, false);
}

/* One epoch on rank 0; *ended tells how it ended (ENDED_*). */
static sax_status_t master(MPI_Comm comm, int size, MPI_Datatype msg_type, sax_worker_t *w,
                           sax_ranges_t *done, progress_clock_t *clk, int *ended, sax_error_t *err)
{
    int64_t total = sax_search_size(w->s);
    double every = w->o->checkpoint_every_s;
    master_t m = {.comm = comm,
                  .msg_type = msg_type,
                  .o = w->o,
                  .w = w,
                  .err = err,
                  .done = done,
                  .clock = clk,
                  .total = total,
                  .chunk = chunk_size(w->o, total - sax_ranges_total(done), size),
                  .pause_at = every > 0 && w->o->checkpoint != NULL ? MPI_Wtime() + every : INFINITY,
                  .ranks = size,
                  .active = size - 1,
                  .own_lo = -1};
    w->poll = master_poll;
    w->poll_ctx = &m;
    for (;;) {
        master_poll(&m);
        if (m.mpi_st != SAX_OK)
            break;
        int64_t lo, hi;
        if (next_chunk(&m, &lo, &hi)) {
            /* rank 0 finishes its chunk like everyone else, answering requests meanwhile */
            if (m.o->on_chunk != NULL)
                m.o->on_chunk(m.o->row_ctx, lo, hi);
            m.own_lo = lo;
            sax_status_t st = sax_worker_run(w, lo, hi);
            m.own_lo = -1;
            if (st != SAX_OK)
                fail(&m, st);
            else if (sax_ranges_add(done, lo, hi) != SAX_OK)
                fail(&m, sax_error_set(err, SAX_ERR_NOMEM, "out of memory recording finished chunks"));
        } else if (m.active > 0) {
            if (!serve(&m, false) && m.mpi_st == SAX_OK)
                nap(); /* every chunk is out: wait for the workers' last reports */
        } else {
            break;
        }
    }
    w->poll = NULL;
    *ended = ENDED_FAILED;
    if (m.mpi_st != SAX_OK)
        return m.mpi_st;
    bool complete = sax_ranges_total(done) == total;
    *ended = m.work_st != SAX_OK ? ENDED_FAILED
             : complete          ? ENDED_DONE
             : m.halt == PAUSE   ? ENDED_PAUSED
                                 : ENDED_STOPPED;
    if (*ended != ENDED_PAUSED)
        report(&m, true);
    if (m.work_st != SAX_OK)
        return m.work_st;
    return *ended == ENDED_STOPPED ? SAX_ERR_INTERRUPTED : SAX_OK;
}

/* ---- the other ranks ---- */

static sax_status_t worker(MPI_Comm comm, MPI_Datatype msg_type, sax_worker_t *w, sax_error_t *err)
{
    const sax_sweep_opts_t *o = w->o;
    msg_t req = {-1, -1, stop_requested(o) ? REQ_STOP : 0}, cur, next;
    int rc = MPI_Send(&req, 1, msg_type, 0, TAG_REQUEST, comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Recv(&cur, 1, msg_type, 0, TAG_WORK, comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return mpi_error(err, rc, "the first work request");
    sax_status_t st = SAX_OK;
    msg_t finished = {-1, -1, 0};
    while (cur.lo >= 0) {
        /* ask for the next chunk now, so that the answer arrives while this one runs */
        req = finished;
        req.flags = stop_requested(o) || st != SAX_OK ? REQ_STOP : 0;
        rc = MPI_Send(&req, 1, msg_type, 0, TAG_REQUEST, comm);
        if (rc != MPI_SUCCESS)
            return mpi_error(err, rc, "MPI_Send of a work request");
        if (o->on_chunk != NULL)
            o->on_chunk(o->row_ctx, cur.lo, cur.hi);
        if (st == SAX_OK)
            st = sax_worker_run(w, cur.lo, cur.hi);
        if (st == SAX_OK)
            finished = cur;
        else
            finished.lo = finished.hi = -1; /* not done: never reported as such */
        rc = MPI_Recv(&next, 1, msg_type, 0, TAG_WORK, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return mpi_error(err, rc, "MPI_Recv of a work chunk");
        cur = next;
    }
    /* leave: report the last chunk */
    req = finished;
    req.flags = REQ_FINAL | (stop_requested(o) ? REQ_STOP : 0);
    rc = MPI_Send(&req, 1, msg_type, 0, TAG_REQUEST, comm);
    if (rc != MPI_SUCCESS)
        return mpi_error(err, rc, "MPI_Send of the last report");
    return st;
}

sax_status_t sax_comm_sweep(MPI_Comm comm, const sax_search_t *s, const sax_sweep_opts_t *o,
                            sax_reduce_t *acc, sax_ranges_t *done, sax_error_t *err)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    sax_worker_t w = {.s = s, .o = o, .acc = acc, .err = err};
    w.scratch = malloc(sax_scratch_size() + 1);
    sax_status_t st = SAX_OK;
    if (w.scratch != NULL)
        sax_scratch_init(w.scratch); /* empties the model's pipeline memo */
    if (w.scratch == NULL)
        st = sax_error_set(err, SAX_ERR_NOMEM, "out of memory for the model's scratch (%zu bytes)",
                           sax_scratch_size());
    /* allocation failed somewhere: nobody starts, so nobody waits for a missing rank */
    if (!sax_comm_all_ok(comm, st == SAX_OK)) {
        free(w.scratch);
        return st != SAX_OK
                   ? st
                   : sax_error_set(err, SAX_ERR_NOMEM, "another rank could not allocate its scratch");
    }
    MPI_Datatype msg_type;
    MPI_Type_contiguous(3, MPI_INT64_T, &msg_type);
    MPI_Type_commit(&msg_type);
    progress_clock_t clk = {.t0 = MPI_Wtime(), .done_before = rank == 0 ? sax_ranges_total(done) : 0};
    clk.last_report = clk.t0;
    for (;;) {
        int ended = ENDED_DONE, agreed = ENDED_DONE;
        if (rank == 0)
            st = master(comm, size, msg_type, &w, done, &clk, &ended, err);
        else
            st = worker(comm, msg_type, &w, err);
        if (rank != 0)
            ended = st == SAX_OK ? ENDED_DONE : st == SAX_ERR_INTERRUPTED ? ENDED_STOPPED : ENDED_FAILED;
        /* every rank learns how the epoch ended */
        MPI_Request barrier;
        int arrived = 0;
        if (MPI_Ibarrier(comm, &barrier) == MPI_SUCCESS)
            while (MPI_Test(&barrier, &arrived, MPI_STATUS_IGNORE) == MPI_SUCCESS && !arrived)
                nap(); /* the ranks that finish first leave the cores to those that have not */
        MPI_Allreduce(&ended, &agreed, 1, MPI_INT, MPI_MAX, comm);
        if (agreed >= ENDED_STOPPED && st == SAX_OK)
            st = SAX_ERR_INTERRUPTED;
        if (agreed != ENDED_PAUSED)
            break;
        /* a checkpoint: rank 0 takes every rank's part; the others start again empty */
        st = sax_comm_allreduce(comm, acc, err);
        if (st != SAX_OK)
            break;
        if (rank == 0)
            o->checkpoint(o->checkpoint_ctx, done, acc);
        else
            sax_reduce_reset(acc);
    }
    MPI_Type_free(&msg_type);
    free(w.scratch);
    return st;
}

bool sax_comm_all_ok(MPI_Comm comm, bool local_ok)
{
    int mine = local_ok ? 1 : 0, all = 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return false;
    return all == 1;
}

sax_status_t sax_comm_allreduce(MPI_Comm comm, sax_reduce_t *acc, sax_error_t *err)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    sax_record_t *mine = NULL, *all = NULL;
    int *counts = NULL, *displs = NULL;
    int64_t n_mine = 0;
    sax_status_t st = sax_reduce_pack(acc, &mine, &n_mine, err);
    if (st == SAX_OK && n_mine > INT_MAX)
        st = sax_error_set(err, SAX_ERR_INTERNAL, "%lld reduction records exceed what one MPI message holds",
                           (long long)n_mine);
    counts = malloc((size_t)size * sizeof *counts);
    displs = malloc((size_t)size * sizeof *displs);
    if (st == SAX_OK && (counts == NULL || displs == NULL))
        st = sax_error_set(err, SAX_ERR_NOMEM, "out of memory gathering the reductions");
    if (!sax_comm_all_ok(comm, st == SAX_OK)) {
        if (st == SAX_OK)
            st = sax_error_set(err, SAX_ERR_NOMEM, "another rank could not pack its reductions");
        goto out;
    }
    int n_int = (int)n_mine;
    MPI_Allgather(&n_int, 1, MPI_INT, counts, 1, MPI_INT, comm);
    int64_t n_all = 0;
    for (int i = 0; i < size; i++) {
        displs[i] = (int)n_all;
        n_all += counts[i];
    }
    if (n_all > INT_MAX) {
        st = sax_error_set(err, SAX_ERR_INTERNAL, "%lld reduction records exceed what one MPI message holds",
                           (long long)n_all);
        goto out; /* every rank sees the same n_all */
    }
    all = malloc((size_t)(n_all + 1) * sizeof *all);
    if (!sax_comm_all_ok(comm, all != NULL)) {
        st = sax_error_set(err, SAX_ERR_NOMEM, "out of memory gathering %lld reduction records",
                           (long long)n_all);
        goto out;
    }
    MPI_Datatype rec_type;
    MPI_Type_contiguous((int)sizeof(sax_record_t), MPI_BYTE, &rec_type);
    MPI_Type_commit(&rec_type);
    int rc = MPI_Allgatherv(mine, n_int, rec_type, all, counts, displs, rec_type, comm);
    MPI_Type_free(&rec_type);
    sax_counts_t summed;
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(sax_reduce_counts(acc), &summed, (int)(sizeof(sax_counts_t) / sizeof(int64_t)),
                           MPI_INT64_T, MPI_SUM, comm);
    if (rc != MPI_SUCCESS) {
        st = mpi_error(err, rc, "gathering the reductions");
        goto out;
    }
    sax_reduce_reset(acc);
    st = sax_reduce_merge(acc, all, n_all, &summed, err);
    if (!sax_comm_all_ok(comm, st == SAX_OK) && st == SAX_OK)
        st = sax_error_set(err, SAX_ERR_NOMEM, "another rank could not merge the reductions");
out:
    free(mine);
    free(all);
    free(counts);
    free(displs);
    return st;
}
