/* comm_internal.h - private to comm/: what one rank needs to evaluate a range of the space. */
#ifndef SAX_COMM_INTERNAL_H
#define SAX_COMM_INTERNAL_H

#include "sax_comm.h"

/* How often (in steps of the evaluation loop) a range calls its poll hook. */
#define SAX_COMM_POLL_EVERY 64

typedef struct {
    const sax_search_t *s;
    const sax_sweep_opts_t *o;
    sax_reduce_t *acc;
    sax_scratch_t *scratch;
    sax_error_t *err;
    sax_search_cursor_t cur;
    double bound[2]; /* lower bounds of the current NET and TRANSPORT blocks (pruned search), or 0 */
    /* Called every SAX_COMM_POLL_EVERY steps (rank 0 answers requests there); may be NULL. */
    void (*poll)(void *ctx);
    void *poll_ctx;
    int polls; /* steps since the last poll */
} sax_worker_t;

/* Evaluates every candidate of [lo, hi) into w->acc (serial): exhaustively, or with branch and
 * bound when w->o->pruned (NET blocks best-first by their bound, then TRANSPORT blocks). */
sax_status_t sax_worker_run(sax_worker_t *w, int64_t lo, int64_t hi);

/* The space a reduction was created for (the checkpoint checks a saved one against it). Serial. */
const sax_search_t *sax_reduce_search(const sax_reduce_t *r);

#endif
