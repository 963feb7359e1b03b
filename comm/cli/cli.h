/* cli.h - private to the sax executable: the subcommand table. Each command lives in cmd_<name>.c
 * and exports one sax_command_t; main.c lists them. */
#ifndef SAX_CLI_H
#define SAX_CLI_H

#include <stdbool.h>

typedef struct {
    const char *name;     /* "eval" */
    const char *synopsis; /* "CONFIG.json [--json] [--trace FILE.json]" */
    const char *summary;  /* one line for `sax --help` */
    const char *help;     /* the full text of `sax NAME --help` (options, exit status, examples) */
    bool needs_mpi;       /* main calls MPI_Init/MPI_Finalize around run() */
    bool implemented;     /* false: `sax NAME` says so plainly and exits 2 */
    /* argv[0] is the command name; returns the process exit status (0, 1, 2 or 3). */
    int (*run)(int argc, char **argv);
} sax_command_t;

extern const sax_command_t sax_command_eval;
extern const sax_command_t sax_command_sweep;
extern const sax_command_t sax_command_pareto;
extern const sax_command_t sax_command_report;
extern const sax_command_t sax_command_calibrate;
extern const sax_command_t sax_command_validate;
extern const sax_command_t sax_command_space;

#endif
