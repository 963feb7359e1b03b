/* sax_comm.h - MPI distribution of the sweep and the reductions of its results. */
#ifndef SAX_COMM_H
#define SAX_COMM_H
#include <mpi.h>
#include "sax_search.h"
#endif
