/* sax_output.h - the one way sax writes a file, shared by every library that writes one (comm's
 * checkpoints, the reports, calibration, the executable's outputs). Depends on the model's status
 * and error types only. */
#ifndef SAX_OUTPUT_H
#define SAX_OUTPUT_H

#include "sax_model.h"

#include <stdio.h>

/* Every file sax writes (results aside: HDF5 writes those, the same way) goes through this: a
 * temporary file beside `path` (PATH.tmp.PID), then flushed, synced and renamed over `path`, so a
 * failed write leaves the previous file as it was and nothing else (io/output/output_file.c).
 * Write to `f` between open and commit; on any failure of your own, call sax_output_abort. */
typedef struct {
    FILE *f;
    char path[4096];
    char tmp[4200];
} sax_output_t;
/* Creates the temporary file. SAX_ERR_IO naming `path` when it cannot. */
sax_status_t sax_output_open(sax_output_t *o, const char *path, sax_error_t *err);
/* Flushes, syncs and closes the temporary file (to check it before it replaces `path`; commit
 * does it too). SAX_ERR_IO naming `path`, with the reason, after removing the temporary file. */
sax_status_t sax_output_close(sax_output_t *o, sax_error_t *err);
/* sax_output_close, then renames the temporary file over `path`. SAX_ERR_IO as above. */
sax_status_t sax_output_commit(sax_output_t *o, sax_error_t *err);
/* Closes and removes the temporary file; harmless after commit or a failure. */
void sax_output_abort(sax_output_t *o);

#endif
