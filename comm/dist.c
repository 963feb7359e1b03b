/* dist.c - dynamic self-scheduling of the sweep over MPI ranks, and the merge of the reductions.
 *
 * Rank 0 (the master) owns the list of index ranges still to do and hands them out as chunks in
 * increasing index order. Between requests it evaluates slices of a chunk of its own, probing for
 * requests without blocking, so no core idles. A worker asks for its next chunk before it starts
 * the current one, so the reply travels while it computes. Each request reports the chunk the
 * worker finished last, which is how rank 0 knows what is done when a sweep is interrupted. */
#include "sax_comm.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_REQUEST = 4401, TAG_WORK = 4402 };

/* flags of a request */
enum { REQ_STOP = 1, /* the sender was asked to stop */ REQ_FINAL = 2 /* the sender leaves the sweep */ };

/* The one message of the protocol, both ways: a worker's request (done_lo/done_hi: the chunk it
 * finished, or -1) and the master's reply (a chunk, or lo = -1: no more work). */
typedef struct {
    int64_t lo, hi;
    int64_t flags;
} msg_t;

#define MIN_CHUNK 256
#define MAX_CHUNK (1 << 20)
#define MASTER_SLICE 128 /* candidates rank 0 evaluates between two probes */

typedef struct {
    const sax_search_t *s;
    const sax_sweep_opts_t *o;
    sax_reduce_t *acc;
    sax_scratch_t *scratch;
    sax_search_cursor_t cur;
    double bound[2]; /* lower bounds of the current NET and TRANSPORT blocks (pruned search), or 0 */
    sax_error_t *err;
} worker_t;

static bool stop_requested(const sax_sweep_opts_t *o) { return o->stop != NULL && *o->stop != 0; }

static const int prune_pos[2] = {SAX_SEARCH_NET_POS, SAX_SEARCH_TRANSPORT_POS};

/* Branch and bound at the start of a NET or TRANSPORT block: the end of the block when its bound
 * exceeds what it would have to beat, else cur->index. */
static int64_t try_prune(worker_t *w, int64_t lo)
{
    const sax_search_t *s = w->s;
    const sax_search_cursor_t *cur = &w->cur;
    for (int level = 0; level < 2; level++) {
        int pos = prune_pos[level];
        if (cur->index != lo && !sax_search_is_block_start(cur, pos))
            continue;
        for (int l = level; l < 2; l++)
            w->bound[l] = 0.0;
        /* a bound costs one evaluation per compression value (NET) or one (TRANSPORT) */
        int64_t cost = level == 0 ? sax_search_value_count(s, SAX_KEY_COMPRESSION) : 1;
        if (sax_search_block_size(s, pos) <= cost)
            continue;
        double threshold = sax_reduce_prune_threshold(w->acc, cur, pos);
        if (threshold == INFINITY)
            continue;
        w->bound[level] =
            sax_search_lower_bound(s, cur, pos, w->scratch, &sax_reduce_counts(w->acc)->bound_evals);
        if (fmax(w->bound[0], w->bound[1]) > threshold)
            return sax_search_block_end(s, cur, pos);
    }
    return cur->index;
}

/* Processes [lo, hi) of the space; a range may start in the middle of a block. */
static sax_status_t run_range(worker_t *w, int64_t lo, int64_t hi)
{
    const sax_search_t *s = w->s;
    sax_search_cursor_t *cur = &w->cur;
    sax_search_seek(s, lo, cur);
    w->bound[0] = w->bound[1] = 0.0;
    while (cur->index < hi) {
        int64_t next;
        if (cur->skip != SAX_SKIP_NONE) {
            next = sax_search_skip_end(s, cur);
            if (next > hi)
                next = hi;
            sax_reduce_add_skipped(w->acc, cur->skip, next - cur->index);
        } else if (w->o->pruned && (next = try_prune(w, lo)) > cur->index) {
            if (next > hi)
                next = hi;
            sax_reduce_add_pruned(w->acc, next - cur->index);
        } else {
            sax_result_t res;
            sax_status_t st =
                sax_model_eval(sax_search_problem(s, cur->scenario), &cur->candidate, w->scratch, &res);
            if (st != SAX_OK)
                return sax_error_set(w->err, st, "the cost model rejected candidate %lld of scenario %d: %s",
                                     (long long)cur->index, (int)cur->scenario, sax_status_message(st));
            if (res.feasible && res.iteration_time_s < fmax(w->bound[0], w->bound[1]))
                sax_reduce_counts(w->acc)->bound_violations++;
            st = sax_reduce_add(w->acc, cur, &res);
            if (st != SAX_OK)
                return sax_error_set(w->err, st, "out of memory growing a Pareto front");
            if (w->o->on_row != NULL) {
                sax_record_t rec;
                rec.index = cur->index;
                rec.scenario = cur->scenario;
                rec.candidate = cur->candidate;
                rec.result = res;
                w->o->on_row(w->o->row_ctx, &rec);
            }
            next = cur->index + 1;
        }
        if (next >= hi)
            break;
        sax_search_move(s, cur, next);
    }
    return SAX_OK;
}

static int64_t chunk_size(const sax_sweep_opts_t *o, int64_t todo, int ranks)
{
    if (o->chunk > 0)
        return o->chunk;
    int64_t c = todo / ((int64_t)ranks * 64);
    return c < MIN_CHUNK ? MIN_CHUNK : c > MAX_CHUNK ? MAX_CHUNK : c;
}

/* The master's view of what is left: chunks go out in increasing index order, so everything below
 * `pos` has been handed out; `done` may also hold ranges above it (from a checkpoint). */
typedef struct {
    const sax_ranges_t *done;
    int64_t pos, total, chunk;
} plan_t;

static bool plan_next(plan_t *p, int64_t *lo, int64_t *hi)
{
    int64_t glo, ghi;
    if (!sax_ranges_next_gap(p->done, p->pos, p->total, &glo, &ghi))
        return false;
    *lo = glo;
    *hi = ghi - glo > p->chunk ? glo + p->chunk : ghi;
    p->pos = *hi;
    return true;
}

static sax_status_t mpi_error(sax_error_t *err, int rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    return sax_error_set(err, SAX_ERR_MPI, "%s failed: %s", what, text);
}

static sax_status_t master(MPI_Comm comm, int size, MPI_Datatype msg_type, worker_t *w, sax_ranges_t *done,
                           sax_error_t *err)
{
    const sax_sweep_opts_t *o = w->o;
    int64_t total = sax_search_size(w->s);
    int64_t todo = total - sax_ranges_total(done);
    plan_t plan = {.done = done, .pos = 0, .total = total, .chunk = chunk_size(o, todo, size)};
    sax_status_t st = SAX_OK;      /* MPI failures: give up */
    sax_status_t work_st = SAX_OK; /* other failures: stop handing out work, let the workers leave */
    bool stopping = false;
    int active = size - 1;
    int64_t own_lo = 0, own_hi = 0, own_pos = 0; /* rank 0's own chunk and progress in it */
    bool own_open = false;
    double t0 = MPI_Wtime(), last_report = t0;
    int64_t done_before = sax_ranges_total(done);

    while (st == SAX_OK) {
        if (stop_requested(o))
            stopping = true;
        /* serve every pending request */
        for (;;) {
            int flag = 0;
            MPI_Status status;
            bool block = active > 0 && (stopping || (!own_open && plan.pos >= total));
            int rc = block ? MPI_Probe(MPI_ANY_SOURCE, TAG_REQUEST, comm, &status)
                           : MPI_Iprobe(MPI_ANY_SOURCE, TAG_REQUEST, comm, &flag, &status);
            if (rc != MPI_SUCCESS) {
                st = mpi_error(err, rc, "MPI_Probe");
                break;
            }
            if (!block && !flag)
                break;
            msg_t req, rep = {-1, -1, 0};
            rc = MPI_Recv(&req, 1, msg_type, status.MPI_SOURCE, TAG_REQUEST, comm, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) {
                st = mpi_error(err, rc, "MPI_Recv");
                break;
            }
            if (req.lo >= 0 && sax_ranges_add(done, req.lo, req.hi) != SAX_OK && work_st == SAX_OK) {
                work_st = sax_error_set(err, SAX_ERR_NOMEM, "out of memory recording finished chunks");
                stopping = true;
            }
            if (req.flags & REQ_STOP)
                stopping = true;
            if (req.flags & REQ_FINAL) {
                active--;
                if (active == 0 && block)
                    break;
                continue;
            }
            if (!stopping && !plan_next(&plan, &rep.lo, &rep.hi))
                rep.lo = rep.hi = -1;
            rc = MPI_Send(&rep, 1, msg_type, status.MPI_SOURCE, TAG_WORK, comm);
            if (rc != MPI_SUCCESS) {
                st = mpi_error(err, rc, "MPI_Send");
                break;
            }
            if (block)
                break;
        }
        if (st != SAX_OK)
            break;
        /* a slice of rank 0's own work */
        if (!own_open && !stopping && plan_next(&plan, &own_lo, &own_hi)) {
            own_open = true;
            own_pos = own_lo;
            if (o->on_chunk != NULL)
                o->on_chunk(o->row_ctx, own_lo, own_hi);
        }
        if (own_open) {
            int64_t end = own_hi - own_pos > MASTER_SLICE ? own_pos + MASTER_SLICE : own_hi;
            sax_status_t rs = run_range(w, own_pos, end);
            if (rs == SAX_OK)
                own_pos = end;
            if (rs == SAX_OK && (own_pos == own_hi || stopping) &&
                sax_ranges_add(done, own_lo, own_pos) != SAX_OK)
                rs = sax_error_set(err, SAX_ERR_NOMEM, "out of memory recording finished chunks");
            if (rs != SAX_OK || own_pos == own_hi || stopping)
                own_open = false;
            if (rs != SAX_OK &&
                work_st == SAX_OK) { /* stop everyone, but serve the workers until they leave */
                work_st = rs;
                stopping = true;
            }
        } else if (active == 0) {
            break;
        }
        double now = MPI_Wtime();
        if (o->progress != NULL && now - last_report >= o->progress_interval_s) {
            int64_t d = sax_ranges_total(done) + (own_open ? own_pos - own_lo : 0);
            o->progress(o->progress_ctx, d, total, d - done_before, now - t0, false);
            last_report = now;
        }
    }
    if (o->progress != NULL && st == SAX_OK)
        o->progress(o->progress_ctx, sax_ranges_total(done), total, sax_ranges_total(done) - done_before,
                    MPI_Wtime() - t0, true);
    if (st == SAX_OK)
        st = work_st;
    if (st == SAX_OK && stopping && sax_ranges_total(done) < total)
        st = SAX_ERR_INTERRUPTED;
    return st;
}

static sax_status_t worker(MPI_Comm comm, MPI_Datatype msg_type, worker_t *w, sax_error_t *err)
{
    const sax_sweep_opts_t *o = w->o;
    msg_t req = {-1, -1, 0}, cur, next;
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
            st = run_range(w, cur.lo, cur.hi);
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
    worker_t w = {.s = s, .o = o, .acc = acc, .err = err};
    w.scratch = malloc(sax_scratch_size() + 1);
    sax_status_t st = SAX_OK;
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
    if (rank == 0)
        st = master(comm, size, msg_type, &w, done, err);
    else
        st = worker(comm, msg_type, &w, err);
    MPI_Type_free(&msg_type);
    free(w.scratch);
    /* every rank learns whether the sweep was interrupted */
    int mine = st == SAX_ERR_INTERRUPTED ? 1 : 0, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any && st == SAX_OK)
        st = SAX_ERR_INTERRUPTED;
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
