/* config_internal.h - private to io/config/, the configuration loader: the field tables and their engine.
 *
 * One table per section (config_tables.c) says for each key its type, unit kind, range, default
 * and where it lands in the model's structs; fields.c parses, validates, emits and documents any
 * section from its table, so every key behaves alike and docs/config.md cannot drift.
 */
#ifndef SAX_CONFIG_INTERNAL_H
#define SAX_CONFIG_INTERNAL_H

#include "sax_config.h"

#include <cjson/cJSON.h>
#include <stddef.h>

typedef enum {
    CF_INT,       /* int */
    CF_INT64,     /* int64_t */
    CF_QUANTITY,  /* double in SI units of `unit` (SAX_UNIT_NONE: a plain number) */
    CF_ENUM,      /* enum stored as int; JSON string from `names` */
    CF_BOOL,      /* bool */
    CF_STRING,    /* char[size] */
    CF_DEGREE,    /* int >= 1, or "auto" stored as 0 */
    CF_ORDER,     /* list of dimension names (sax_candidate_t.order/n_order) */
    CF_LAYOUT,    /* Megatron's pipeline layout string (sax_candidate_t.layout_*; pipeline_layout.c) */
    CF_MODULES,   /* list of recompute module names (sax_candidate_t.recompute_modules, a bit each) */
    CF_SITE_PAIR, /* ["A", "B"]: two site names (sax_site_link_t.a/b) */
    CF_PRESET,    /* preset name or object with "preset" + overrides (`sub`) */
    CF_OBJECT,    /* nested section `sub` */
    CF_LIST,      /* list of objects of section `sub` */
} cf_type_t;

typedef enum {
    CF_REQUIRED, /* must be present (unless a preset supplies the section) */
    CF_DEFAULT,  /* optional; `def` (or `def_text` for strings) when absent */
    CF_MODEL,    /* optional; default from sax_*_set_defaults (model/) */
    CF_DERIVED,  /* optional; default derived from other keys, explained in `def_text` */
} cf_need_t;

typedef struct cf_section cf_section_t;

typedef struct {
    const char *key;
    cf_type_t type;
    sax_unit_kind_t unit;
    const char *const *names; /* CF_ENUM */
    int n_names;
    double min, max; /* inclusive unless min_open/max_open */
    bool min_open, max_open;
    cf_need_t need;
    double def;
    const char *def_text; /* docs text for the default (strings, derived defaults) */
    size_t offset, size;
    const cf_section_t *sub; /* CF_OBJECT, CF_LIST, CF_PRESET */
    const char *help;
    const char *alias_of; /* another name for that key of the same section: same place, never both */
} cf_field_t;

struct cf_section {
    const char *path; /* "cluster.tiers[]" */
    const char *intro;
    const cf_field_t *fields;
    int n_fields;
};

/* The tables (config_tables.c). */
extern const cf_section_t cf_model_section, cf_training_section, cf_gpu_section, cf_scale_up_section,
    cf_tier_section, cf_site_section, cf_link_section, cf_cluster_section, cf_parallelism_section,
    cf_network_section, cf_root_section;

/* Parse state: file name, the JSON path being read, the error sink. */
typedef struct {
    const char *file;
    char path[1024];
    size_t path_len;
    sax_error_t *err;
    const sax_cluster_t *cluster; /* sites known so far (for site_links[].between) */
} cf_ctx_t;

void cf_ctx_init(cf_ctx_t *ctx, const char *file, const char *prefix, sax_error_t *err);
size_t cf_push_key(cf_ctx_t *ctx, const char *key);
size_t cf_push_index(cf_ctx_t *ctx, int index);
void cf_pop(cf_ctx_t *ctx, size_t mark);
/* Reads Megatron-Core's --pipeline-model-parallel-layout string into c's layout (pipeline_layout.c);
 * "" leaves it unset. */
sax_status_t cf_parse_pipeline_layout(cf_ctx_t *ctx, const char *text, sax_candidate_t *c);
/* SAX_ERR_INPUT with "<file>: <path>: <message>". */
sax_status_t cf_fail(cf_ctx_t *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* cf_fail at <section>.<key> below the current path, which it leaves as it found it: a check made after
 * the sections are read. */
sax_status_t cf_fail_at(cf_ctx_t *ctx, const char *section, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Names (of a model, GPU, tier, site, baseline) are printed in tables, CSV and HDF5 attributes:
 * SAX_ERR_INPUT at the current path for a control character (a BEL or an escape sequence would act
 * on the terminal, a newline would break a row). */
sax_status_t cf_check_name(cf_ctx_t *ctx, const char *name);
/* A short description of a JSON value for "found ..." ("\"10 us\"", "a list of 3", "true"). */
void cf_describe(const cJSON *item, char *buf, size_t n);

const cf_field_t *cf_find(const cf_section_t *sec, const char *key);
/* Writes the CF_DEFAULT defaults of `sec` into `base`. */
void cf_apply_defaults(const cf_section_t *sec, void *base);
/* Checks that `obj` is an object with only known keys (no duplicates) and every required key
 * (unless `preset`), skipping `extra` (a key the caller handles, e.g. "preset"; may be NULL), then
 * parses every present scalar key into `base`. Keys of type CF_OBJECT/CF_LIST/CF_PRESET/CF_SITE_PAIR
 * are left to the caller. */
sax_status_t cf_parse_object(cf_ctx_t *ctx, const cf_section_t *sec, const cJSON *obj, void *base,
                             bool preset, const char *extra);
/* Parses one value of a scalar field into base + f->offset (range-checked). */
sax_status_t cf_parse_value(cf_ctx_t *ctx, const cf_field_t *f, const cJSON *item, void *base);
/* Reads a numeric field (CF_INT, CF_INT64, CF_QUANTITY) as double; writes one. */
double cf_get_number(const cf_field_t *f, const void *base);
void cf_set_number(const cf_field_t *f, void *base, double v);
/* Checks a numeric value against the field's range; false with "expected ..." in `why`. */
bool cf_check_range(const cf_field_t *f, double v, char *why, size_t n);
/* Adds the scalar fields of `base` to the JSON object `out` (SI numbers, names for enums). */
sax_status_t cf_emit_object(const cf_section_t *sec, const void *base, cJSON *out);
cJSON *cf_emit_value(const cf_field_t *f, const void *base);
/* A JSON number that reads back to exactly `v` (17 significant digits); null if not finite. */
cJSON *cf_exact_number(double v);
/* The markdown table of a section; `model_defaults` holds the model's defaults (may be NULL). */
void cf_write_section_md(FILE *f, const cf_section_t *sec, const void *model_defaults);
const char *cf_type_name(const cf_field_t *f);

/* config_space.c: the `space` section and the scenario problems. */
typedef struct {
    uint32_t given;        /* bit k: key k appears in `parallelism` or `network` */
    sax_candidate_t fixed; /* parallelism + network with defaults, dp unresolved (0 = auto) */
    bool gpu_inherited[SAX_MAX_SITES];
    bool latency_derived[SAX_MAX_LINKS];
} cf_fixed_t;

/* The design key (sax_key_t) a key of parallelism, network or space names, under any of its names; -1. */
int cf_design_key(const char *name);

sax_status_t cf_parse_space(cf_ctx_t *ctx, const cJSON *space, const cf_fixed_t *fixed,
                            const sax_problem_t *problem, sax_space_desc_t *out);
sax_status_t cf_build_scenarios(cf_ctx_t *ctx, const cf_fixed_t *fixed, sax_config_t *cfg);
/* Resolves a scenario path ("site_links[0].bandwidth", optionally "cluster."-prefixed) to a field
 * and its byte offset inside sax_problem_t; NULL with a message in `why` when it names nothing. */
const cf_field_t *cf_resolve_path(const char *path, const sax_problem_t *p, size_t *offset, char *why,
                                  size_t n);

/* config_check.c: cross-key checks of a problem (sites against tiers, model shape). */
sax_status_t cf_check_model(cf_ctx_t *ctx, const sax_model_desc_t *m);
sax_status_t cf_check_cluster(cf_ctx_t *ctx, const sax_cluster_t *c);

/* units.c: the table of units for docs/config.md. */
void sax_units_write_docs(FILE *f);

/* config_emit.c */
sax_status_t cf_emit_config(const sax_config_t *cfg, char **json);

#endif
