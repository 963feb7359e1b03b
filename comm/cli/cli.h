/* cli.h - private to the sax executable: the subcommand table. Each command lives in cmd_<name>.c
 * and exports one sax_command_t; main.c lists them.
 *
 * What main.c does around run(), so that commands need not:
 * - `sax NAME --help` (or -h anywhere before a "--") prints "usage: sax NAME <synopsis>", the
 *   summary, `help` and the exit statuses on stdout, exits 0; run() never sees --help.
 * - implemented == false: `sax NAME ...` prints "sax NAME: not implemented yet" on stderr, exits 2.
 * - needs_mpi: MPI_Init before run(), MPI_Finalize after it unless run() already finalized. run()
 *   must return the same status on every rank (agree with MPI_Allreduce MAX before returning),
 *   otherwise the ranks that finalize could wait for one still inside a collective.
 * - Commands without needs_mpi run as a plain process and must not call MPI at all.
 * Exit statuses (contract.md): 0 success, 1 the run failed (I/O, MPI, HDF5), 2 bad usage or bad
 * input, 3 interrupted; sax_status_exit_code() maps a sax_status_t onto them. */
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
extern const sax_command_t sax_command_collective;

/* Prints "sax NAME: <message>", the command's usage line and a pointer to --help on stderr;
 * returns 2, the exit status for bad usage: `return sax_cli_usage_error(&sax_command_eval, "...")`. */
int sax_cli_usage_error(const sax_command_t *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
