/* checkpoint.c - the saved state of an interrupted sweep: which index ranges are done and the
 * partial reductions, tagged with a hash of the configuration and options so that --resume never
 * mixes two different sweeps. Binary, for the same build: records are raw sax_record_t.
 *
 * Format 2 (docs/reliability.md, "Corrupt checkpoints"): header, the ranges' lo[] and hi[], the
 * counts, the records, then a CRC-64 of every byte before it. A checkpoint is trusted only when the
 * CRC matches and every count, range and record is within what the sweep could have written; a
 * refused checkpoint is left as it is. */
#define _POSIX_C_SOURCE 200809L /* fileno, fsync, getpid, fstat */
#include "sax_output.h"
#include "comm_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FORMAT_VERSION '2'
static const char magic[8] = {'S', 'A', 'X', 'C', 'K', 'P', 'T', FORMAT_VERSION}; /* last byte: format */

uint64_t sax_hash_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* CRC-64/XZ: the ECMA-182 polynomial, bit-reflected, initial value and final xor all ones. The table
 * is rebuilt on every call (2048 shifts) rather than kept in a global; callers pass large blocks. */
uint64_t sax_crc64(uint64_t crc, const void *data, size_t n)
{
    uint64_t table[256];
    for (uint64_t b = 0; b < 256; b++) {
        uint64_t c = b;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0xc96c5795d7870f42ull : c >> 1;
        table[b] = c;
    }
    const unsigned char *p = data;
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

typedef struct {
    char magic[8];
    uint64_t record_size, counts_size; /* identify the build's layout */
    uint64_t hash;
    double elapsed_s;
    int64_t n_ranges, n_records;
} header_t;

/* fwrite that also feeds the CRC; fwrite's pointer must not be NULL even for zero elements (UBSan:
 * nonnull argument). */
static bool write_part(FILE *f, const void *p, size_t size, size_t n, uint64_t *crc)
{
    if (n == 0)
        return true;
    *crc = sax_crc64(*crc, p, size * n);
    return fwrite(p, size, n, f) == n;
}

sax_status_t sax_checkpoint_save(const char *path, uint64_t hash, double elapsed_s, const sax_ranges_t *done,
                                 const sax_reduce_t *acc, sax_error_t *err)
{
    sax_record_t *recs = NULL;
    int64_t n = 0;
    sax_status_t st = sax_reduce_pack(acc, &recs, &n, err);
    if (st != SAX_OK)
        return st;
    sax_output_t o;
    if ((st = sax_output_open(&o, path, err)) != SAX_OK)
        goto out;
    FILE *f = o.f;
    header_t h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, magic, sizeof magic);
    h.record_size = sizeof(sax_record_t);
    h.counts_size = sizeof(sax_counts_t);
    h.hash = hash;
    h.elapsed_s = elapsed_s;
    h.n_ranges = done->n;
    h.n_records = n;
    uint64_t crc = 0;
    bool ok = write_part(f, &h, sizeof h, 1, &crc);
    ok = ok && write_part(f, done->lo, sizeof *done->lo, (size_t)done->n, &crc);
    ok = ok && write_part(f, done->hi, sizeof *done->hi, (size_t)done->n, &crc);
    ok = ok && write_part(f, sax_reduce_counts_const(acc), sizeof(sax_counts_t), 1, &crc);
    ok = ok && write_part(f, recs, sizeof *recs, (size_t)n, &crc);
    ok = ok && fwrite(&crc, sizeof crc, 1, f) == 1;
    if (!ok) {
        sax_output_abort(&o);
        st = sax_error_set(err, SAX_ERR_IO, "%s: cannot write the checkpoint", path);
    } else {
        st = sax_output_commit(&o, err);
    }
out:
    free(recs);
    return st;
}

/* The refusal of a checkpoint that is not what sax wrote; the file is never changed. */
#define CORRUPT(...)                                                                                         \
    do {                                                                                                     \
        char what_[400];                                                                                     \
        snprintf(what_, sizeof what_, __VA_ARGS__);                                                          \
        st = sax_error_set(err, SAX_ERR_INPUT,                                                               \
                           "%s: corrupt checkpoint: %s; it is left as it is (start again with --force)",     \
                           path, what_);                                                                     \
        goto out;                                                                                            \
    } while (0)

/* *sum += x when 0 <= x and the sum stays within limit. */
static bool add_count(int64_t *sum, int64_t x, int64_t limit)
{
    if (x < 0 || x > limit - *sum)
        return false;
    *sum += x;
    return true;
}

/* CRC-64 of the first `n` bytes of f, read from the start. */
static bool crc_of_file(FILE *f, uint64_t n, uint64_t *crc)
{
    unsigned char buf[65536];
    *crc = 0;
    if (fseek(f, 0, SEEK_SET) != 0)
        return false;
    while (n > 0) {
        size_t want = n < sizeof buf ? (size_t)n : sizeof buf;
        if (fread(buf, 1, want, f) != want)
            return false;
        *crc = sax_crc64(*crc, buf, want);
        n -= want;
    }
    return true;
}

sax_status_t sax_checkpoint_load(const char *path, uint64_t hash, double *elapsed_s, sax_ranges_t *done,
                                 sax_reduce_t *acc, sax_error_t *err)
{
    sax_status_t st = SAX_OK;
    sax_record_t *recs = NULL;
    int64_t *lo = NULL, *hi = NULL;
    const sax_search_t *s = sax_reduce_search(acc);
    const int64_t space = sax_search_size(s);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return sax_error_set(err, errno == ENOENT ? SAX_ERR_INPUT : SAX_ERR_IO,
                             "%s: cannot read the checkpoint for --resume: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0) {
        st = sax_error_set(err, SAX_ERR_IO, "%s: cannot read the checkpoint for --resume: %s", path,
                           strerror(errno));
        goto out;
    }
    const uint64_t file_size = (uint64_t)sb.st_size;
    header_t h;
    memset(&h, 0, sizeof h);
    size_t got = fread(&h, 1, sizeof h, f);
    if (got < sizeof magic - 1 || memcmp(h.magic, magic, sizeof magic - 1) != 0) {
        st = sax_error_set(err, SAX_ERR_INPUT, "%s: expected a sax sweep checkpoint, found something else",
                           path);
        goto out;
    }
    if (got < sizeof magic)
        CORRUPT("truncated to %zu bytes", got);
    if (h.magic[7] < '1' || h.magic[7] > '9') /* never printed as a character: it may be a control code */
        CORRUPT("its format byte is 0x%02x, expected a digit", (unsigned)(unsigned char)h.magic[7]);
    if (h.magic[7] != FORMAT_VERSION) {
        st = sax_error_set(
            err, SAX_ERR_INPUT,
            "%s: expected a checkpoint of format %c (with a checksum), found format %c, written "
            "by %s sax; it cannot be checked, so it is not used: rerun the sweep with --force",
            path, FORMAT_VERSION, h.magic[7], h.magic[7] < FORMAT_VERSION ? "an older" : "a newer");
        goto out;
    }
    const uint64_t fixed = sizeof h + sizeof(sax_counts_t) + sizeof(uint64_t);
    if (got < sizeof h || file_size < fixed)
        CORRUPT("truncated to %llu bytes, shorter than the smallest checkpoint (%llu bytes)",
                (unsigned long long)file_size, (unsigned long long)fixed);
    /* The size the header announces, when its counts are plausible (no overflow below); otherwise the
     * CRC decides. */
    if (h.record_size == sizeof(sax_record_t) && h.n_ranges >= 0 && h.n_ranges <= space &&
        h.n_ranges <= INT64_MAX / 32 && h.n_records >= 0 && h.n_records <= space &&
        h.n_records <= INT64_MAX / (int64_t)(2 * sizeof(sax_record_t))) {
        uint64_t want =
            fixed + 2 * sizeof(int64_t) * (uint64_t)h.n_ranges + sizeof(sax_record_t) * (uint64_t)h.n_records;
        if (file_size < want)
            CORRUPT("truncated (or its header changed): %llu bytes, its header announces %llu",
                    (unsigned long long)file_size, (unsigned long long)want);
        if (file_size > want)
            CORRUPT("%llu bytes, its header announces %llu (bytes added, or its header changed)",
                    (unsigned long long)file_size, (unsigned long long)want);
    }
    uint64_t crc = 0, stored = 0;
    if (!crc_of_file(f, file_size - sizeof stored, &crc) || fread(&stored, sizeof stored, 1, f) != 1) {
        st = sax_error_set(err, SAX_ERR_IO, "%s: cannot read the checkpoint for --resume: %s", path,
                           ferror(f) ? strerror(errno) : "shorter than it was a moment ago");
        goto out;
    }
    if (crc != stored)
        CORRUPT("its CRC-64 is %016llx, the file records %016llx (its bytes changed after sax wrote it)",
                (unsigned long long)crc, (unsigned long long)stored);
    /* From here the bytes are what some sax wrote; still check every count before trusting it. */
    if (h.record_size != sizeof(sax_record_t) || h.counts_size != sizeof(sax_counts_t)) {
        st = sax_error_set(err, SAX_ERR_INPUT,
                           "%s: the checkpoint was written by a different build of sax (record and counts "
                           "sizes %llu and %llu, expected %zu and %zu); rerun the sweep with --force",
                           path, (unsigned long long)h.record_size, (unsigned long long)h.counts_size,
                           sizeof(sax_record_t), sizeof(sax_counts_t));
        goto out;
    }
    if (h.hash != hash) {
        st = sax_error_set(err, SAX_ERR_INPUT,
                           "%s: the checkpoint belongs to a different sweep (configuration or --top/--search "
                           "differ: hash %016llx, this sweep %016llx); resume with the same configuration "
                           "and options, or remove the checkpoint",
                           path, (unsigned long long)h.hash, (unsigned long long)hash);
        goto out;
    }
    if (h.n_ranges < 0 || h.n_ranges > space)
        CORRUPT("%lld finished ranges, expected 0 to %lld (the candidates of the space)",
                (long long)h.n_ranges, (long long)space);
    if (h.n_records < 0 || h.n_records > space)
        CORRUPT("%lld records, expected 0 to %lld (the candidates of the space)", (long long)h.n_records,
                (long long)space);
    if (!(h.elapsed_s >= 0 && h.elapsed_s < 1e12))
        CORRUPT("elapsed time %g s, expected a time from 0 to 1e12 s", h.elapsed_s);
    size_t nr = (size_t)h.n_ranges;
    lo = malloc((nr + 1) * sizeof *lo);
    hi = malloc((nr + 1) * sizeof *hi);
    recs = malloc((size_t)(h.n_records + 1) * sizeof *recs);
    if (lo == NULL || hi == NULL || recs == NULL) {
        st = sax_error_set(err, SAX_ERR_NOMEM, "out of memory reading %s", path);
        goto out;
    }
    sax_counts_t counts;
    if (fseek(f, (long)sizeof h, SEEK_SET) != 0 || fread(lo, sizeof *lo, nr, f) != nr ||
        fread(hi, sizeof *hi, nr, f) != nr || fread(&counts, sizeof counts, 1, f) != 1 ||
        fread(recs, sizeof *recs, (size_t)h.n_records, f) != (size_t)h.n_records) {
        st = sax_error_set(err, SAX_ERR_IO, "%s: cannot read the checkpoint for --resume: %s", path,
                           ferror(f) ? strerror(errno) : "shorter than it was a moment ago");
        goto out;
    }

    /* ranges: within the space, non-empty, sorted, disjoint and not adjacent (as sax_ranges_t keeps them) */
    int64_t total = 0;
    for (size_t i = 0; i < nr; i++) {
        if (lo[i] < 0 || hi[i] <= lo[i] || hi[i] > space)
            CORRUPT("finished range %zu is [%lld, %lld), expected a non-empty range within [0, %lld)", i,
                    (long long)lo[i], (long long)hi[i], (long long)space);
        if (i > 0 && lo[i] <= hi[i - 1])
            CORRUPT(
                "finished range %zu [%lld, %lld) does not follow range %zu [%lld, %lld), expected sorted, "
                "disjoint ranges",
                i, (long long)lo[i], (long long)hi[i], i - 1, (long long)lo[i - 1], (long long)hi[i - 1]);
        total += hi[i] - lo[i];
    }

    /* counts: non-negative, accounting for exactly the finished candidates (sums bounded: no overflow) */
    int64_t done_sum = 0, infeasible_sum = 0;
    bool ok = counts.skipped[SAX_SKIP_NONE] == 0 && add_count(&done_sum, counts.evaluated, space) &&
              add_count(&done_sum, counts.pruned, space) && counts.bound_evals >= 0 &&
              counts.bound_violations >= 0 && counts.bound_violations <= counts.evaluated;
    for (int i = 0; i < SAX_SKIP_COUNT; i++)
        ok = ok && add_count(&done_sum, counts.skipped[i], space);
    for (int i = 0; i < SAX_INFEASIBLE_COUNT; i++)
        ok = ok && add_count(&infeasible_sum, counts.infeasible[i], space);
    if (!ok)
        CORRUPT("a candidate count is negative or beyond the %lld candidates of the space", (long long)space);
    if (done_sum != total)
        CORRUPT("its counts account for %lld candidates, its finished ranges for %lld", (long long)done_sum,
                (long long)total);
    if (infeasible_sum != counts.evaluated)
        CORRUPT("%lld candidates evaluated, but %lld feasible and infeasible ones",
                (long long)counts.evaluated, (long long)infeasible_sum);
    if (h.n_records > counts.infeasible[SAX_FEASIBLE])
        CORRUPT("%lld records, more than the %lld feasible candidates evaluated", (long long)h.n_records,
                (long long)counts.infeasible[SAX_FEASIBLE]);

    /* records: feasible candidates of the finished ranges, once each, in index order, each in its scenario */
    size_t in = 0; /* the range that may hold the current record */
    for (int64_t i = 0; i < h.n_records; i++) {
        const sax_record_t *rec = &recs[i];
        if (rec->index < 0 || rec->index >= space || (i > 0 && rec->index <= recs[i - 1].index))
            CORRUPT("record %lld has candidate index %lld, expected increasing indices within [0, %lld)",
                    (long long)i, (long long)rec->index, (long long)space);
        while (in < nr && hi[in] <= rec->index)
            in++;
        if (in == nr || rec->index < lo[in])
            CORRUPT("record %lld is candidate %lld, which is not in a finished range", (long long)i,
                    (long long)rec->index);
        sax_search_cursor_t cur;
        sax_search_seek(s, rec->index, &cur);
        if (rec->scenario != cur.scenario || cur.skip != SAX_SKIP_NONE || !rec->result.feasible ||
            !(rec->result.iteration_time_s > 0 && rec->result.iteration_time_s < INFINITY))
            CORRUPT(
                "record %lld (candidate %lld) is not a feasible candidate of scenario %d with a finite time",
                (long long)i, (long long)rec->index, (int)cur.scenario);
    }

    for (size_t i = 0; i < nr; i++)
        if (sax_ranges_add(done, lo[i], hi[i]) != SAX_OK) {
            st = sax_error_set(err, SAX_ERR_NOMEM, "out of memory reading %s", path);
            goto out;
        }
    st = sax_reduce_merge(acc, recs, h.n_records, &counts, err);
    *elapsed_s = h.elapsed_s;
out:
    free(lo);
    free(hi);
    free(recs);
    fclose(f);
    return st;
}
