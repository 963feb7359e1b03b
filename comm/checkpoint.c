/* checkpoint.c - the saved state of an interrupted sweep: which index ranges are done and the
 * partial reductions, tagged with a hash of the configuration and options so that --resume never
 * mixes two different sweeps. Binary, for the same build: records are raw sax_record_t. */
#define _POSIX_C_SOURCE 200809L /* fileno, fsync, getpid */
#include "sax_comm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char magic[8] = {'S', 'A', 'X', 'C', 'K', 'P', 'T', '1'};

uint64_t sax_hash_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

typedef struct {
    char magic[8];
    uint64_t record_size, counts_size; /* identify the build's layout */
    uint64_t hash;
    double elapsed_s;
    int64_t n_ranges, n_records;
} header_t;

sax_status_t sax_checkpoint_save(const char *path, uint64_t hash, double elapsed_s, const sax_ranges_t *done,
                                 const sax_reduce_t *acc, sax_error_t *err)
{
    sax_record_t *recs = NULL;
    int64_t n = 0;
    sax_status_t st = sax_reduce_pack(acc, &recs, &n, err);
    if (st != SAX_OK)
        return st;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (f == NULL) {
        st = sax_error_set(err, SAX_ERR_IO, "%s: cannot write the checkpoint: %s", tmp, strerror(errno));
        goto out;
    }
    header_t h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, magic, sizeof magic);
    h.record_size = sizeof(sax_record_t);
    h.counts_size = sizeof(sax_counts_t);
    h.hash = hash;
    h.elapsed_s = elapsed_s;
    h.n_ranges = done->n;
    h.n_records = n;
    bool ok = fwrite(&h, sizeof h, 1, f) == 1;
    /* fwrite's pointer must not be NULL even for zero elements (UBSan: nonnull argument) */
    ok = ok && (done->n == 0 || fwrite(done->lo, sizeof *done->lo, (size_t)done->n, f) == (size_t)done->n);
    ok = ok && (done->n == 0 || fwrite(done->hi, sizeof *done->hi, (size_t)done->n, f) == (size_t)done->n);
    ok = ok && fwrite(sax_reduce_counts_const(acc), sizeof(sax_counts_t), 1, f) == 1;
    ok = ok && (n == 0 || fwrite(recs, sizeof *recs, (size_t)n, f) == (size_t)n);
    ok = ok && fflush(f) == 0 && fsync(fileno(f)) == 0;
    if (fclose(f) != 0)
        ok = false;
    if (!ok || rename(tmp, path) != 0) {
        st = sax_error_set(err, SAX_ERR_IO, "%s: cannot write the checkpoint: %s", path, strerror(errno));
        remove(tmp);
    }
out:
    free(recs);
    return st;
}

sax_status_t sax_checkpoint_load(const char *path, uint64_t hash, double *elapsed_s, sax_ranges_t *done,
                                 sax_reduce_t *acc, sax_error_t *err)
{
    sax_status_t st = SAX_OK;
    sax_record_t *recs = NULL;
    int64_t *lo = NULL, *hi = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return sax_error_set(err, errno == ENOENT ? SAX_ERR_INPUT : SAX_ERR_IO,
                             "%s: cannot read the checkpoint for --resume: %s", path, strerror(errno));
    header_t h;
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, magic, sizeof magic) != 0) {
        st = sax_error_set(err, SAX_ERR_INPUT, "%s: expected a sax sweep checkpoint, found something else",
                           path);
        goto out;
    }
    if (h.record_size != sizeof(sax_record_t) || h.counts_size != sizeof(sax_counts_t)) {
        st = sax_error_set(err, SAX_ERR_INPUT,
                           "%s: the checkpoint was written by a different build of sax (record size %llu, "
                           "expected %zu); rerun the sweep without --resume",
                           path, (unsigned long long)h.record_size, sizeof(sax_record_t));
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
    if (h.n_ranges < 0 || h.n_records < 0 || h.n_records > (int64_t)(SIZE_MAX / sizeof *recs)) {
        st = sax_error_set(err, SAX_ERR_INPUT, "%s: corrupt checkpoint header", path);
        goto out;
    }
    size_t nr = (size_t)h.n_ranges;
    lo = malloc((nr + 1) * sizeof *lo);
    hi = malloc((nr + 1) * sizeof *hi);
    recs = malloc((size_t)(h.n_records + 1) * sizeof *recs);
    if (lo == NULL || hi == NULL || recs == NULL) {
        st = sax_error_set(err, SAX_ERR_NOMEM, "out of memory reading %s", path);
        goto out;
    }
    sax_counts_t counts;
    if (fread(lo, sizeof *lo, nr, f) != nr || fread(hi, sizeof *hi, nr, f) != nr ||
        fread(&counts, sizeof counts, 1, f) != 1 ||
        fread(recs, sizeof *recs, (size_t)h.n_records, f) != (size_t)h.n_records) {
        st = sax_error_set(err, SAX_ERR_INPUT, "%s: truncated checkpoint", path);
        goto out;
    }
    for (size_t i = 0; i < nr; i++)
        if (lo[i] < 0 || hi[i] < lo[i] || sax_ranges_add(done, lo[i], hi[i]) != SAX_OK) {
            st = sax_error_set(err, SAX_ERR_INPUT, "%s: corrupt checkpoint (range %zu)", path, i);
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
