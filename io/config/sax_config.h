/* sax_config.h - io/config/: reading sax configuration files. Units such as "400 Gbit/s", the
 * built-in GPU and model presets, the loader that turns a JSON file into problems, a candidate
 * and a design space, the key reference generated from the same field tables (docs/config.md),
 * and datasets of measured runs (`sax validate`).
 *
 * Depends on model/ types only (cJSON stays inside io/config/). Nothing here is collective:
 * every rank may load the same file independently. */
#ifndef SAX_CONFIG_H
#define SAX_CONFIG_H

#include "sax_model.h"

#include <stdio.h>

/* Kinds of physical quantity a configuration value carries. X(constant, name, SI unit, example) */
#define SAX_UNIT_KIND_LIST(X)                                                                                \
    X(SAX_UNIT_NONE, "number", "1", "0.9")                                                                   \
    X(SAX_UNIT_BYTES, "byte count", "B", "\"80 GiB\"")                                                       \
    X(SAX_UNIT_TIME, "time", "s", "\"10 us\"")                                                               \
    X(SAX_UNIT_BANDWIDTH, "bandwidth", "B/s", "\"400 Gbit/s\"")                                              \
    X(SAX_UNIT_FLOPS, "compute rate", "FLOP/s", "\"989 TFLOP/s\"")                                           \
    X(SAX_UNIT_LENGTH, "length", "m", "\"100 km\"")
#define SAX_ENUM_MEMBER(name, str, si, example) name,
typedef enum { SAX_UNIT_KIND_LIST(SAX_ENUM_MEMBER) SAX_UNIT_KIND_COUNT } sax_unit_kind_t;
#undef SAX_ENUM_MEMBER

const char *sax_unit_kind_name(sax_unit_kind_t kind);    /* "bandwidth" */
const char *sax_unit_kind_si(sax_unit_kind_t kind);      /* "B/s" */
const char *sax_unit_kind_example(sax_unit_kind_t kind); /* "\"400 Gbit/s\"" */

/* Parses "<number> <unit>" (a quantity of `kind`) into SI base units. On failure returns
 * SAX_ERR_INPUT with "expected ..., found ..." in `err` (the caller prefixes file and JSON path). */
sax_status_t sax_units_parse(const char *text, sax_unit_kind_t kind, double *si, sax_error_t *err);
/* Human-readable form of an SI value ("50 GB/s"), for messages and docs. */
void sax_units_format(double si, sax_unit_kind_t kind, char *buf, size_t n);

/* Built-in presets (io/presets.c). `*_find` overwrite the preset's fields of `out` and return
 * false for an unknown name (leaving `out` untouched). A GPU preset sets name, peak FLOP/s, HBM
 * capacity and bandwidth, and the preset's fitted efficiency parameters. */
int sax_preset_gpu_count(void);
const char *sax_preset_gpu_name(int i);
bool sax_preset_gpu_find(const char *name, sax_gpu_t *out);
/* Only the fitted efficiency parameters of a GPU preset (gemm_eff_max, gemm_eff_half_ai, mem_eff,
 * gemm_eff_max_fp8, the attention kernels') and its die's FP8 (peak_flops_fp8 in proportion to
 * `peak_flops` when > 0, mxfp8): a GPU object without "preset" takes those of the preset its "name"
 * refers to, so that {"name": "H100", "peak_flops": ...} is modelled as an H100, FP8 included. The name
 * is the preset's, or has it as a word ("NVIDIA H100 SXM5 80GB", "A100-SXM4-80GB"), or a variant of
 * its die (H800 and A800, the export H100 and A100; GH200); failing that, the preset of the same dense
 * BF16 peak within 1 % (`peak_flops` > 0: the same tensor cores). False when none matches. */
bool sax_preset_gpu_calibration(const char *name, double peak_flops, sax_gpu_t *out);
int sax_preset_model_count(void);
const char *sax_preset_model_name(int i);
bool sax_preset_model_find(const char *name, sax_model_desc_t *out);

#define SAX_CONFIG_MAX_SCENARIOS 4096 /* cartesian product of the scenario lists */

/* A loaded configuration. Owns `scenarios`, `scenario_values` and `effective_json`. */
typedef struct {
    char path[4096];           /* the file name used in messages */
    sax_problem_t problem;     /* model, training and cluster (presets expanded, defaults filled, SI) */
    bool has_candidate;        /* `parallelism` present (always true without a `space`) */
    sax_candidate_t candidate; /* parallelism + network; dp "auto" resolved to GPUs / (tp*cp*pp); without
                                  `parallelism`, the network section's settings and defaults elsewhere */
    bool has_space;
    sax_space_desc_t space;   /* every key has >= 1 value; dp 0 = "auto" */
    int n_scenarios;          /* product of the scenario lists; 1 when there are none */
    sax_problem_t *scenarios; /* n_scenarios problems; the first variable varies slowest */
    double *scenario_values;  /* n_scenarios x space.n_scenario_vars SI values (NULL when no vars) */
    char *effective_json;     /* the whole effective configuration as JSON (for provenance) */
    unsigned stated_levers;   /* bit l: the file states sax_lever_keys[l] (a measured run's others are open
                                 to assume: `sax validate`, `sax calibrate`, sax_model_memory_assume) */
    unsigned stated_software; /* bit s: the file states sax_software_keys[s] (`sax eval`'s unstated list) */
    unsigned stated_tuned;    /* bit k: the file states sax_tuned_keys[k] (`sax calibrate` keeps it) */
} sax_config_t;

/* The training settings `sax calibrate` fits from end-to-end runs (io/calibration's CAL_RUN_PARAM_LIST
 * begins with them, in this order): a run whose file states one keeps it against the fit, as a setting
 * its source describes (DeepSpeed's pipeline engine reduces gradients after the last backward). */
#define SAX_TUNED_LIST(X)                                                                                    \
    X("training.dp_overlap_efficiency")                                                                      \
    X("training.tp_overlap")                                                                                 \
    X("training.step_overhead")                                                                              \
    X("training.ep_overlap_efficiency")                                                                      \
    X("training.hybridep_efficiency")
#define SAX_TUNED_COUNT_ONE(key) +1
enum { SAX_TUNED_COUNT = 0 SAX_TUNED_LIST(SAX_TUNED_COUNT_ONE) };
#undef SAX_TUNED_COUNT_ONE
extern const char *const sax_tuned_keys[SAX_TUNED_COUNT];

/* Loads and validates `path`. Init semantics: `cfg` need not be initialised; on error nothing is
 * left allocated (cfg is zeroed) and `err` names the file, the JSON path, what was expected and
 * what was found. Returns SAX_ERR_INPUT for bad input, SAX_ERR_IO if the file cannot be read,
 * SAX_ERR_NOMEM. */
sax_status_t sax_config_load(const char *path, sax_config_t *cfg, sax_error_t *err);
/* The same from JSON text; `name_for_messages` stands for the file name in messages. */
sax_status_t sax_config_parse(const char *json_text, const char *name_for_messages, sax_config_t *cfg,
                              sax_error_t *err);
/* The same from an already parsed cJSON object (a config inside a larger file): messages name
 * `file` and prefix JSON paths with `path_prefix` (e.g. "runs[2].config"; "" for none). */
struct cJSON;
sax_status_t sax_config_from_json(const struct cJSON *obj, const char *file, const char *path_prefix,
                                  sax_config_t *cfg, sax_error_t *err);
/* Parses JSON text (the one reader of every input file: configurations, datasets, measurements).
 * SAX_ERR_INPUT with "<name>:LINE:COL: ..." for a syntax error, and with "<name>: <path>: expected
 * each key once ..." for a key repeated in any object (cJSON would keep both and use the first).
 * On success `*root` is the tree (cJSON_Delete it); on error it is NULL. */
sax_status_t sax_json_parse(const char *text, const char *name, struct cJSON **root, sax_error_t *err);
/* Every text input sax reads (configurations, datasets, measurements, nccl-tests tables) is at most
 * this large: a larger one is refused before it fills the memory (`sax eval /dev/zero`). */
#define SAX_MAX_INPUT_BYTES (64 << 20)

/* Reads the whole file `path` into a NUL-terminated buffer (free() it). `what` names it in messages
 * ("the configuration"). SAX_ERR_INPUT for a missing file or one larger than SAX_MAX_INPUT_BYTES. */
sax_status_t sax_read_text_file(const char *path, const char *what, char **text, sax_error_t *err);

/* An eval-ready configuration: `p`'s model, training and cluster (a scenario's, with its values)
 * and `c` as the `parallelism` and `network` sections, as JSON text (free() it). SAX_ERR_NOMEM on
 * allocation failure. Loading the text gives back `p` and `c`. */
sax_status_t sax_config_emit_candidate(const sax_problem_t *p, const sax_candidate_t *c, char **json);
/* Frees what `cfg` owns and zeroes it; accepts a zeroed or already finalised cfg. */
void sax_config_fini(sax_config_t *cfg);

/* Markdown reference of every key (the content of docs/config.md) and a shorter plain-text
 * summary for `--help`. Both are generated from the field tables. */
void sax_config_write_docs(FILE *f);
void sax_config_write_help(FILE *f);

/* A dataset of measured runs (`sax validate`, ../shared/validation/published-calibration.json):
 * {"note": ..., "cases": [{"name", "config", "measured": {"iteration_time_s"}, "family"?, "source"?,
 * "derived"?, "assumptions"?}]}. Errors name paths such as cases[3].config.cluster.tiers[0].bandwidth. */
typedef struct {
    char name[64];
    char family[64]; /* "" when the case names none */
    sax_config_t config;
    double measured_s; /* measured iteration time */
} sax_case_t;

sax_status_t sax_dataset_load(const char *path, sax_case_t **cases, int *n, sax_error_t *err);
void sax_dataset_free(sax_case_t *cases, int n);

#endif
