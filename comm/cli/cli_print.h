/* cli_print.h - private to the sax executable: printing candidates and results as text and JSON
 * (the key names are the contract's, generated from the model's X-macro lists). */
#ifndef SAX_CLI_PRINT_H
#define SAX_CLI_PRINT_H

#include "sax_search.h"

#include <stdio.h>

/* {"tp": 8, ..., "order": ["tp", ...]} and {"transport": "roce", ...} */
void cli_print_parallelism_json(FILE *f, const sax_candidate_t *c);
void cli_print_network_json(FILE *f, const sax_candidate_t *c);
/* The contract's `sax eval --json` object (without a trailing newline). */
void cli_print_result_json(FILE *f, const sax_problem_t *p, const sax_result_t *r);
/* The same with the `bottlenecks` list, for a configuration too large for its GPUs' memory the
 * `fits_with` list (sax_model_memory_fits), and, when `job` is not NULL, the `job` that runs it and, if
 * it is refused as gpus, divisibility, schedule or tp_domain, the check it fails as `infeasible_detail`
 * (sax eval --json). */
/* A feasible configuration also gets the `unstated` list (sax_model_unstated). */
void cli_print_eval_json(FILE *f, const sax_problem_t *p, const sax_result_t *r, const sax_bottleneck_t *bn,
                         int n_bn, const sax_memory_fit_t *fits, int n_fits, const sax_unstated_t *un,
                         int n_un, const sax_candidate_t *job);
/* For a candidate refused as gpus, divisibility, schedule or tp_domain: the check it fails, one line. */
void cli_print_refusal_text(FILE *f, const sax_problem_t *p, const sax_candidate_t *c);
/* The settings that would make a configuration too large for its GPUs' memory fit, one a line. */
void cli_print_fits_text(FILE *f, const sax_memory_fit_t *fits, int n_fits);
/* The other values of the software settings the file leaves out that move the iteration by 1 % or
 * more, one a line, farthest first; nothing when none does. */
void cli_print_unstated_text(FILE *f, const sax_unstated_t *un, int n_un);
/* One line per phase that takes time: "exposed dp 12.7 s: limited by the transport window (...)". */
void cli_print_bottlenecks_text(FILE *f, const sax_bottleneck_t *bn, int n_bn);
/* One line, the same in every command: "tp=8 pp=16 dp=8 ... order=tp-cp-pp-dp ... transport=roce ..."
 * (sax_results_candidate_line). */
void cli_print_candidate_line(FILE *f, const sax_candidate_t *c);
/* A readable table of the result with its breakdown. */
void cli_print_result_text(FILE *f, const sax_problem_t *p, const sax_result_t *r);
/* A JSON number: finite values with 17 significant digits, null otherwise. */
void cli_print_json_number(FILE *f, double x);
/* A JSON string, quoted and escaped. */
void cli_print_json_string(FILE *f, const char *text);

/* The job that runs `c` (cli_job.c): Megatron-LM arguments, NCCL environment and notes for what
 * neither expresses, as text lines or as {"megatron_args": [...], "nccl_env": {...}, "notes": [...]}. */
void cli_print_job(FILE *f, const sax_problem_t *p, const sax_candidate_t *c, bool json);

/* Writes the simulated iteration of `c` as Chrome trace-event JSON; returns an exit status. */
int cli_write_trace(const char *path, const sax_problem_t *p, const sax_candidate_t *c,
                    sax_scratch_t *scratch);

#endif
