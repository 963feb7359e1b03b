/* sax_comm.h - MPI distribution of the sweep and the reductions of its results.
 *
 * Three parts (docs/sweep.md):
 * - sax_reduce_t (comm/reduce.c): what a rank keeps of the candidates it evaluated - the best per
 *   scenario, the top K per scenario, the Pareto front per scenario over (iteration time,
 *   cross-site bytes, memory per GPU), the best per value of every key per scenario, the best
 *   agreeing with each baseline per scenario, and counts. Its memory depends on the number of
 *   scenarios, values, K and the Pareto front, never on the size of the space. Every reduction is
 *   a function of the set of candidates offered (ties broken by the lower candidate index), so
 *   merging the reductions of any partition of the space gives the same result.
 * - sax_comm_sweep (comm/dist.c): dynamic self-scheduling of index ranges over a communicator;
 *   rank 0 hands out chunks and evaluates chunks of its own, answering requests from inside its
 *   evaluation loop; each rank evaluates its chunks in comm/evaluate.c (exhaustive or pruned).
 * - the checkpoint of an interrupted sweep (comm/checkpoint.c).
 *
 * Collectivity is stated for every function; "serial" functions involve no communication.
 */
#ifndef SAX_COMM_H
#define SAX_COMM_H

#include <mpi.h>
#include <signal.h>

#include "sax_search.h"

/* ---- counts --------------------------------------------------------------------------------- */

typedef struct {
    int64_t evaluated;                        /* candidates evaluated with the model */
    int64_t skipped[SAX_SKIP_COUNT];          /* by the cheap checks, per reason ([NONE] stays 0) */
    int64_t infeasible[SAX_INFEASIBLE_COUNT]; /* evaluated, per reason; [SAX_FEASIBLE] = feasible */
    int64_t pruned;                           /* skipped by the pruned search's bound */
    int64_t bound_evals;                      /* model evaluations spent computing bounds */
    int64_t bound_violations;                 /* candidates faster than their bound (must stay 0) */
} sax_counts_t;

/* Candidates accounted for: evaluated + skipped + pruned. */
int64_t sax_counts_done(const sax_counts_t *c);
int64_t sax_counts_skipped(const sax_counts_t *c);

/* ---- reductions (serial) -------------------------------------------------------------------- */

typedef struct sax_reduce sax_reduce_t;

#define SAX_REDUCE_DEFAULT_TOP 20

/* Serial. `s` must outlive the reduction. top_k >= 1. */
sax_status_t sax_reduce_create(const sax_search_t *s, int top_k, sax_reduce_t **out, sax_error_t *err);
void sax_reduce_destroy(sax_reduce_t **r);
/* Serial. Forgets every candidate and count. */
void sax_reduce_reset(sax_reduce_t *r);

/* Serial. Accounts one evaluated candidate (cur: its position; res: the model's result). Returns
 * SAX_ERR_NOMEM when the Pareto front cannot grow. */
sax_status_t sax_reduce_add(sax_reduce_t *r, const sax_search_cursor_t *cur, const sax_result_t *res);
void sax_reduce_add_skipped(sax_reduce_t *r, sax_skip_t why, int64_t n);
void sax_reduce_add_pruned(sax_reduce_t *r, int64_t n);
sax_counts_t *sax_reduce_counts(sax_reduce_t *r);
const sax_counts_t *sax_reduce_counts_const(const sax_reduce_t *r);
int sax_reduce_top_k(const sax_reduce_t *r);

/* Serial accessors. A record with index -1 stands for "no feasible candidate". Arrays are sorted by
 * (iteration time, index). */
const sax_record_t *sax_reduce_best(const sax_reduce_t *r, int scenario);
int64_t sax_reduce_top(const sax_reduce_t *r, int scenario, const sax_record_t **recs);
int64_t sax_reduce_pareto(const sax_reduce_t *r, int scenario, const sax_record_t **recs);
/* Best for scenario `scenario` among candidates whose key `k` has value index `j` (0 <= j <
 * sax_search_value_count(s, k)). */
const sax_record_t *sax_reduce_best_per_value(const sax_reduce_t *r, int scenario, sax_key_t k, int j);
const sax_record_t *sax_reduce_baseline_best(const sax_reduce_t *r, int scenario, int baseline);
/* The threshold the pruned search compares the bound of cur's block at radix position `pos`
 * (SAX_KEY_COUNT: cur alone) with:
 * the largest of the incumbent times of the scenario and of the baselines the block may match
 * (infinity while one of them has none). A block whose bound exceeds it holds neither a better
 * best nor a better baseline best, even with ties broken by index. */
double sax_reduce_prune_threshold(const sax_reduce_t *r, const sax_search_cursor_t *cur, int pos);

/* Serial. Every record that some reduction holds, once each, sorted by index; the caller frees
 * *records. */
sax_status_t sax_reduce_pack(const sax_reduce_t *r, sax_record_t **records, int64_t *n, sax_error_t *err);
/* Serial. Offers `records` (from sax_reduce_pack of another part of the space) to every reduction
 * and adds `counts` (may be NULL). */
sax_status_t sax_reduce_merge(sax_reduce_t *r, const sax_record_t *records, int64_t n,
                              const sax_counts_t *counts, sax_error_t *err);

/* ---- index ranges (serial) ------------------------------------------------------------------ */

/* A set of disjoint, sorted, non-adjacent half-open index ranges [lo, hi). */
typedef struct {
    int64_t n, cap;
    int64_t *lo, *hi;
} sax_ranges_t;

void sax_ranges_init(sax_ranges_t *r);
void sax_ranges_fini(sax_ranges_t *r);
sax_status_t sax_ranges_add(sax_ranges_t *r, int64_t lo, int64_t hi);
int64_t sax_ranges_total(const sax_ranges_t *r);
/* The first index >= from that is not in `r`, and the end of the gap it starts (at most limit).
 * Returns false when there is none below limit. */
bool sax_ranges_next_gap(const sax_ranges_t *r, int64_t from, int64_t limit, int64_t *lo, int64_t *hi);

/* ---- the distributed sweep ------------------------------------------------------------------ */

typedef struct {
    int64_t chunk; /* candidates per work chunk; 0 = adaptive: todo / (ranks * 64), clamped */
    bool pruned;   /* branch and bound over the network blocks (--search pruned) */
    /* Set asynchronously (a signal handler) to stop: chunks in flight are finished, no new ones
     * handed out, and sax_comm_sweep returns SAX_ERR_INTERRUPTED on every rank. May be NULL. */
    volatile sig_atomic_t *stop;
    /* Rank 0: called at most every progress_interval_s and once at the end (final = true). `done`
     * counts finished candidates including a checkpoint's; `done_now` those of this run. */
    void (*progress)(void *ctx, int64_t done, int64_t total, int64_t done_now, double elapsed_s, bool final);
    void *progress_ctx;
    double progress_interval_s;
    /* Any rank: a chunk [lo, hi) starts on this rank, then each candidate it evaluates (in index
     * order, except in the pruned search, which visits a chunk's blocks best-first). */
    void (*on_chunk)(void *ctx, int64_t lo, int64_t hi);
    void (*on_row)(void *ctx, const sax_record_t *rec);
    void *row_ctx;
    /* Periodic checkpoint, when checkpoint_every_s > 0 and `checkpoint` is set: that many seconds
     * into each epoch rank 0 stops handing out chunks, the chunks in flight finish, the reductions
     * of every rank are merged on rank 0 and checkpoint(ctx, done, acc) is called there with the
     * finished ranges and the reductions that account for exactly them; then the other ranks' `acc`
     * are reset and the sweep goes on. A failure to save is the callback's to report: the sweep
     * continues. */
    double checkpoint_every_s;
    void (*checkpoint)(void *ctx, const sax_ranges_t *done, const sax_reduce_t *acc);
    void *checkpoint_ctx;
} sax_sweep_opts_t;

/* Collective over `comm`. Evaluates every index of [0, sax_search_size(s)) not in `done` (rank 0's
 * `done` is read; other ranks' is ignored) exactly once on some rank, into that rank's `acc`
 * (which may already hold partial results, e.g. from a checkpoint on rank 0). On return rank 0's
 * `done` lists every completed range (all of the space unless interrupted). The reductions are NOT
 * merged: call sax_comm_allreduce. Returns SAX_OK or SAX_ERR_INTERRUPTED (on every rank), or an
 * error (SAX_ERR_MPI, SAX_ERR_NOMEM, a status of the model) on the ranks where it happened; a
 * failure on one rank stops the others, which return SAX_ERR_INTERRUPTED or the failure. */
sax_status_t sax_comm_sweep(MPI_Comm comm, const sax_search_t *s, const sax_sweep_opts_t *o,
                            sax_reduce_t *acc, sax_ranges_t *done, sax_error_t *err);

/* Collective over `comm`: merges the reductions of every rank; afterwards every rank's `acc`
 * holds the identical merged reductions and summed counts. Returns the same status everywhere. */
sax_status_t sax_comm_allreduce(MPI_Comm comm, sax_reduce_t *acc, sax_error_t *err);

/* Collective over `comm`: true on every rank when `local_ok` is true on every rank. */
bool sax_comm_all_ok(MPI_Comm comm, bool local_ok);

/* ---- checkpoint (serial; rank 0 calls them) ------------------------------------------------- */

#define SAX_CHECKPOINT_SUFFIX ".ckpt"

/* 64-bit FNV-1a of `n` bytes, continuing from `h` (start with SAX_HASH_SEED). */
#define SAX_HASH_SEED 0xcbf29ce484222325ull
uint64_t sax_hash_bytes(uint64_t h, const void *data, size_t n);
/* CRC-64/XZ (ECMA-182 polynomial, reflected) of `n` bytes, continuing from `crc` (start with 0):
 * sax_crc64(0, "123456789", 9) == 0x995dc9bbdf1939fa. The checkpoint's checksum. */
uint64_t sax_crc64(uint64_t crc, const void *data, size_t n);

/* Writes PATH.tmp.<pid> and renames it to `path`, so a crash never leaves a torn checkpoint.
 * `hash` identifies the sweep (configuration and options); `elapsed_s` is the work time so far.
 * The file ends with a CRC-64 of all its other bytes. */
sax_status_t sax_checkpoint_save(const char *path, uint64_t hash, double elapsed_s, const sax_ranges_t *done,
                                 const sax_reduce_t *acc, sax_error_t *err);
/* Reads `path` into `done` (added) and `acc` (merged). SAX_ERR_INPUT with a clear message when the
 * file is not a sax checkpoint, is of another format version, was written by a different build, or
 * `hash` differs (a different configuration or options), and when it is corrupt: its CRC-64 does not
 * match, its size is not the one its header announces, or a count, range or record is outside what
 * a sweep of acc's space could have saved. `done` and `acc` are changed only when the whole file
 * passes; the file is never changed. SAX_ERR_IO when it cannot be read. */
sax_status_t sax_checkpoint_load(const char *path, uint64_t hash, double *elapsed_s, sax_ranges_t *done,
                                 sax_reduce_t *acc, sax_error_t *err);

#endif
