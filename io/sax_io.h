/* sax_io.h - configuration (cJSON), results (parallel HDF5), reports and plots, calibration (PETSc).
 *
 * Sections below are owned by different parts of io/; each documents whether its functions are
 * collective over an MPI communicator. Depends on model/ types only (plus MPI for the HDF5 part).
 */
#ifndef SAX_IO_H
#define SAX_IO_H

#include "sax_model.h"

/* ==== configuration ========================================================================== */

/* ==== results (parallel HDF5) ================================================================ */

/* ==== reports, Pareto analysis and plots ===================================================== */

/* ==== calibration ============================================================================ */

#endif
