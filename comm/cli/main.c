/* main.c - the sax executable: finds the subcommand, answers --help and --version, owns MPI_Init and
 * MPI_Finalize for the commands that need MPI, and turns everything into the process exit status
 * (0 success, 1 the run failed, 2 bad usage or input, 3 interrupted). */
#define _POSIX_C_SOURCE 200809L /* SIGXFSZ, setenv, getrlimit */
#include "cli.h"
#include "sax_version.h"

#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* The versions of the libraries sax is compiled against, where their headers are visible to this
 * target (the link list of the executable decides which are). */
#if defined(__has_include)
#if __has_include(<H5public.h>)
#include <H5public.h>
#endif
#if __has_include(<petscversion.h>)
#include <petscversion.h>
#endif
#if __has_include(<cjson/cJSON.h>)
#include <cjson/cJSON.h>
#endif
#endif

static const sax_command_t *const commands[] = {
    &sax_command_eval,      &sax_command_sweep,    &sax_command_pareto, &sax_command_report,
    &sax_command_calibrate, &sax_command_validate, &sax_command_space,  &sax_command_collective,
};
enum { COMMAND_COUNT = (int)(sizeof commands / sizeof commands[0]) };

static const char *const exit_status_text =
    "exit status: 0 success; 1 the run failed (I/O, MPI, HDF5); 2 bad usage or bad input;\n"
    "             3 interrupted (a sweep saves its progress for --resume)\n";

static const sax_command_t *command_find(const char *name)
{
    for (int i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    return NULL;
}

/* Prints a synopsis that may span lines, each continuation line re-indented by `indent` columns. */
static void print_synopsis(FILE *out, const char *synopsis, int indent)
{
    const char *p = synopsis;
    for (;;) {
        size_t n = strcspn(p, "\n");
        fprintf(out, "%.*s\n", (int)n, p);
        if (p[n] == '\0')
            break;
        p += n + 1;
        p += strspn(p, " ");
        fprintf(out, "%*s", indent, "");
    }
}

static void print_command_list(FILE *out)
{
    fprintf(out, "commands:\n");
    for (int i = 0; i < COMMAND_COUNT; i++) {
        const sax_command_t *c = commands[i];
        fprintf(out, "  %-10s ", c->name);
        print_synopsis(out, c->synopsis, 17);
        fprintf(out, "  %-10s %s%s\n", "", c->summary, c->implemented ? "" : " (not implemented yet)");
    }
}

static void print_usage(FILE *out)
{
    fprintf(out, "usage: sax COMMAND [ARGUMENTS...]\n"
                 "       sax COMMAND --help   (or: sax help COMMAND)\n"
                 "       sax --help | --version\n");
}

static void print_help(void)
{
    printf("sax %s - the ScaleAcross Explorer: finds the fastest way to lay out, schedule and network\n"
           "an LLM training job that spans several buildings or regions, with an analytical cost model\n"
           "evaluated over the whole design space across MPI ranks.\n\n",
           SAX_VERSION);
    print_usage(stdout);
    printf("\n");
    print_command_list(stdout);
    printf("\noptions:\n"
           "  -h, --help     this text; `sax COMMAND --help` describes one command\n"
           "  -V, --version  version, git revision and the libraries sax was built with\n\n");
    printf("%s\nCommands that use MPI (", exit_status_text);
    const char *sep = "";
    for (int i = 0; i < COMMAND_COUNT; i++)
        if (commands[i]->needs_mpi) {
            printf("%s%s", sep, commands[i]->name);
            sep = ", ";
        }
    printf(") run under `mpirun -n N sax ...` or `srun sax ...`,\n"
           "and also as a plain single process. Documentation: README.md and docs/ in the source tree.\n");
}

static void print_command_help(const sax_command_t *c)
{
    printf("usage: sax %s ", c->name);
    print_synopsis(stdout, c->synopsis, (int)(strlen("usage: sax ") + strlen(c->name) + 1));
    printf("\n");
    printf("%s%s\n\n", c->summary, c->implemented ? "" : " (not implemented yet)");
    printf("%s", c->help);
    if (c->help[0] != '\0' && c->help[strlen(c->help) - 1] != '\n')
        printf("\n");
    printf("\n%s", exit_status_text);
}

static void print_version(void)
{
    printf("sax %s (git %s)\n", SAX_VERSION, SAX_GIT_REVISION);
    printf("built with:");
#if defined(OMPI_MAJOR_VERSION)
    printf(" Open MPI %d.%d.%d (MPI %d.%d)", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION, OMPI_RELEASE_VERSION,
           MPI_VERSION, MPI_SUBVERSION);
#else
    printf(" MPI %d.%d", MPI_VERSION, MPI_SUBVERSION);
#endif
#if defined(H5_VERS_MAJOR)
    printf(", HDF5 %d.%d.%d", H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE);
#endif
#if defined(PETSC_VERSION_MAJOR)
    printf(", PETSc %d.%d.%d", PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR);
#endif
#if defined(CJSON_VERSION_MAJOR)
    printf(", cJSON %d.%d.%d", CJSON_VERSION_MAJOR, CJSON_VERSION_MINOR, CJSON_VERSION_PATCH);
#endif
#if defined(__clang__)
    printf(", clang %d.%d.%d", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
    printf(", GCC %d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#endif
    printf("\n");
}

int sax_cli_usage_error(const sax_command_t *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "sax %s: ", cmd->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: sax %s %s\nTry 'sax %s --help'.\n", cmd->name, cmd->synopsis, cmd->name);
    return 2;
}

static bool is_help(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

/* --help or -h anywhere among the command's arguments, up to a "--" that ends the options. */
static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (is_help(argv[i]))
            return true;
    return false;
}

/* Runs a command between MPI_Init and MPI_Finalize; argc/argv are main's, which MPI_Init may edit.
 * A run() may finalize MPI itself; otherwise main does. run() returns the same status on every rank
 * (see cli.h), so finalizing cannot strand a rank in a collective. */
static int run_with_mpi(const sax_command_t *c, int argc, char **argv)
{
    /* Under a file-size limit (ulimit -f), Open MPI's PMIx cannot create the shared-memory files of
     * its job-data store (gds "dstore"): a singleton's MPI_Init then never returns and its orted
     * spins, printing PMIX ERROR (docs/reliability.md, "File-size limits and MPI"). Its in-memory
     * store ("hash") needs no file; the choice is PMIx's own MCA parameter, so one the user set
     * wins. This reaches the orted a singleton starts (it inherits the environment); a job started
     * by mpirun has its PMIx server in mpirun, before sax runs. */
    struct rlimit fsize;
    if (getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY)
        setenv("PMIX_MCA_gds", "hash", 0);
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "sax %s: MPI_Init failed\n", c->name);
        return 1;
    }
    int status = c->run(argc - 1, argv + 1);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && MPI_Finalize() != MPI_SUCCESS) {
        fprintf(stderr, "sax %s: MPI_Finalize failed\n", c->name);
        if (status == 0)
            status = 1;
    }
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        fprintf(stderr, "Try 'sax --help'.\n");
        return 2;
    }
    const char *first = argv[1];
    if (is_help(first)) {
        print_help();
        return 0;
    }
    if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
        print_version();
        return 0;
    }
    if (strcmp(first, "help") == 0) {
        if (argc < 3) {
            print_help();
            return 0;
        }
        first = argv[2];
        const sax_command_t *c = command_find(first);
        if (c == NULL) {
            fprintf(stderr, "sax help: unknown command '%s'\n\n", first);
            print_command_list(stderr);
            return 2;
        }
        print_command_help(c);
        return 0;
    }

    const sax_command_t *c = command_find(first);
    if (c == NULL) {
        fprintf(stderr, "sax: unknown %s '%s'\n\n", first[0] == '-' ? "option" : "command", first);
        print_usage(stderr);
        fprintf(stderr, "\n");
        print_command_list(stderr);
        return 2;
    }
    /* The command sees argv[0] == its own name. */
    int cmd_argc = argc - 1;
    char **cmd_argv = argv + 1;
    if (wants_help(cmd_argc, cmd_argv)) {
        print_command_help(c);
        return 0;
    }
    if (!c->implemented) {
        fprintf(stderr, "sax %s: not implemented yet\n", c->name);
        return 2;
    }
    /* Past a file-size limit (ulimit -f) a write must fail with EFBIG, which the writers report (exit
     * 1, no partial file under the final name), rather than SIGXFSZ killing the process mid-file. */
    signal(SIGXFSZ, SIG_IGN);
    if (c->needs_mpi)
        return run_with_mpi(c, argc, argv);
    return c->run(cmd_argc, cmd_argv);
}
