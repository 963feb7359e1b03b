/* sax_search.h - the design space: its dimensions, enumeration and pruning. */
#ifndef SAX_SEARCH_H
#define SAX_SEARCH_H
#include "sax_model.h"
#endif
