/* search_internal.h - private to search/: what the files of the folder hand each other.
 *
 * The files stand one above the other: decide.c (attribution, robust) and bound.c (the lower
 * bounds) use space.c (the space and its relaxed problems), which uses relax.c (how a problem is
 * relaxed), which uses only the model. */
#ifndef SAX_SEARCH_INTERNAL_H
#define SAX_SEARCH_INTERNAL_H

#include "sax_search.h"

/* relax.c: copies `p` into `ideal` with an ideal network (every bandwidth unlimited, every latency
 * and loss zero, no oversubscription), or with ideal transports only (no loss, unlimited window
 * and PFC headroom). */
void sax_search_ideal_problem(const sax_problem_t *p, sax_problem_t *ideal);
void sax_search_ideal_transport_problem(const sax_problem_t *p, sax_problem_t *ideal);

/* space.c: the relaxed twins of scenario `scenario`, built once by sax_search_create. */
const sax_problem_t *sax_search_ideal(const sax_search_t *s, int scenario);
const sax_problem_t *sax_search_ideal_transport(const sax_search_t *s, int scenario);

#endif
