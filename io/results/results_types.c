/* results_types.c - the HDF5 types of a results file (enums named from the model's X-macro name
 * arrays, the row compound from SAX_METRIC_LIST + SAX_PHASE_LIST + the candidate keys) and the
 * conversion between rows and records. Serial; no file access.
 */
#include "results_hdf5.h"

#include <stdlib.h>
#include <string.h>

#define SAX_STORE_NAME(name, str) str,
const char *const sax_store_names[SAX_STORE_COUNT] = {SAX_STORE_LIST(SAX_STORE_NAME)};
#undef SAX_STORE_NAME

#define SAX_FACTOR_NAME(name) #name,
const char *const sax_results_factor_names[SAX_RESULTS_FACTOR_COUNT] = {
    SAX_RESULTS_FACTOR_LIST(SAX_FACTOR_NAME)};
#undef SAX_FACTOR_NAME

static const char *const bool_names[2] = {"FALSE", "TRUE"}; /* h5py reads this enum as numpy bool */
static const char *const flag_names[2] = {"false", "true"};

/* The name table of a named key, or NULL for an integer key (order is named by the space). */
static const char *const *key_value_names(sax_key_t k, int *count)
{
    switch (k) {
    case SAX_KEY_SCHEDULE: *count = SAX_SCHEDULE_COUNT; return sax_schedule_names;
    case SAX_KEY_RECOMPUTE: *count = SAX_RECOMPUTE_COUNT; return sax_recompute_names;
    case SAX_KEY_SEQUENCE_PARALLEL: *count = 2; return flag_names;
    case SAX_KEY_LAYER_SPLIT: *count = SAX_LAYER_SPLIT_COUNT; return sax_layer_split_names;
    case SAX_KEY_TRANSPORT: *count = SAX_TRANSPORT_COUNT; return sax_transport_names;
    case SAX_KEY_ALGORITHM: *count = SAX_ALGORITHM_COUNT; return sax_algorithm_names;
    case SAX_KEY_COMPRESSION: *count = SAX_COMPRESSION_COUNT; return sax_compression_names;
    default: *count = 0; return NULL;
    }
}

char *sax_results_key_value_str(const sax_space_desc_t *space, const sax_candidate_t *c, sax_key_t k,
                                char *buf, size_t len)
{
    (void)space;
    if (len == 0)
        return buf;
    if (k == SAX_KEY_ORDER)
        return sax_order_name(c->order, c->n_order, buf, len);
    return sax_key_value_name(NULL, k, sax_candidate_get(c, k), buf, len);
}

char *sax_results_candidate_line(const sax_candidate_t *c, char *buf, size_t len)
{
    size_t used = 0;
    if (len > 0)
        buf[0] = '\0';
    for (int k = 0; k < SAX_KEY_COUNT && used + 1 < len; k++) {
        char v[64];
        sax_results_key_value_str(NULL, c, (sax_key_t)k, v, sizeof v);
        int n =
            snprintf(buf + used, len - used, "%s%s=%s%s", k ? " " : "", sax_key_names[k], v,
                     k == SAX_KEY_COMPRESSION && c->compression != SAX_COMPRESSION_NONE ? " (lossy)" : "");
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return buf;
}

/* Index of the candidate's order among the space's orders, or -1. */
static int32_t order_index(const sax_space_desc_t *space, const sax_candidate_t *c)
{
    for (int o = 0; o < space->n_orders; o++) {
        if (space->order_len[o] != c->n_order)
            continue;
        if (memcmp(space->orders[o], c->order, (size_t)c->n_order * sizeof c->order[0]) == 0)
            return o;
    }
    return -1;
}

void sax_results_row_from_record(const sax_space_desc_t *space, const sax_record_t *rec, sax_row_t *row)
{
    memset(row, 0, sizeof *row);
    const sax_result_t *r = &rec->result;
    row->index = rec->index;
#define SAX_ROW_COPY(field, unit, desc) row->field = r->field;
    SAX_METRIC_LIST(SAX_ROW_COPY)
    SAX_ROW_MEMORY_LIST(SAX_ROW_COPY)
#undef SAX_ROW_COPY
    memcpy(row->breakdown_s, r->breakdown_s, sizeof row->breakdown_s);
    memcpy(row->comm_s, r->comm_s, sizeof row->comm_s);
    row->scenario = rec->scenario;
    for (int k = 0; k < SAX_KEY_COUNT; k++)
        row->key[k] = sax_candidate_get(&rec->candidate, (sax_key_t)k);
    row->key[SAX_KEY_ORDER] = order_index(space, &rec->candidate);
    row->reason = (int32_t)r->reason;
    row->gpus_used = r->gpus_used;
    row->feasible = r->feasible ? 1 : 0;
}

void sax_results_record_from_row(const sax_space_desc_t *space, const sax_row_t *row, sax_record_t *rec)
{
    memset(rec, 0, sizeof *rec);
    sax_result_t *r = &rec->result;
    rec->index = row->index;
    rec->scenario = row->scenario;
#define SAX_ROW_COPY(field, unit, desc) r->field = row->field;
    SAX_METRIC_LIST(SAX_ROW_COPY)
    SAX_ROW_MEMORY_LIST(SAX_ROW_COPY)
#undef SAX_ROW_COPY
    memcpy(r->breakdown_s, row->breakdown_s, sizeof r->breakdown_s);
    memcpy(r->comm_s, row->comm_s, sizeof r->comm_s);
    for (int k = 0; k < SAX_KEY_COUNT; k++)
        sax_candidate_set(&rec->candidate, (sax_key_t)k, row->key[k]);
    int o = row->key[SAX_KEY_ORDER];
    if (o >= 0 && o < space->n_orders) {
        rec->candidate.n_order = space->order_len[o];
        memcpy(rec->candidate.order, space->orders[o], sizeof rec->candidate.order);
    }
    r->reason = (row->reason >= 0 && row->reason < SAX_INFEASIBLE_COUNT) ? (sax_infeasible_t)row->reason
                                                                         : SAX_FEASIBLE;
    r->gpus_used = row->gpus_used;
    r->feasible = row->feasible != 0;
}

/* SI unit of a scenario variable, from the last component of its configuration path. */
char *sax_results_scenario_value_str(const sax_scenario_var_t *var, double x, char *buf, size_t len)
{
    if (var->unit_si > 0.0)
        snprintf(buf, len, "%.6g %s", x / var->unit_si, var->unit);
    else if (var->si_unit[0] != '\0' && strcmp(var->si_unit, "1") != 0)
        snprintf(buf, len, "%.6g %s", x, var->si_unit);
    else
        snprintf(buf, len, "%.6g", x);
    return buf;
}

char *sax_results_scenario_label(const sax_space_desc_t *space, const double *values, char *buf, size_t len)
{
    if (len == 0)
        return buf;
    buf[0] = '\0';
    if (space->n_scenario_vars == 0) {
        snprintf(buf, len, "the only scenario");
        return buf;
    }
    size_t used = 0;
    for (int v = 0; v < space->n_scenario_vars && used + 1 < len; v++) {
        char x[64];
        sax_results_scenario_value_str(&space->scenario_vars[v], values[v], x, sizeof x);
        int n = snprintf(buf + used, len - used, "%s%s = %s", v ? ", " : "", space->scenario_vars[v].path, x);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return buf;
}

/* ---- columns ---------------------------------------------------------------------------------- */

/* Descriptions of the breakdown and per-dimension columns (names are built from the lists). */
static const char *const phase_descriptions[SAX_PHASE_COUNT] = {
    "compute time on the critical path (incl. recomputation)",
    "pipeline bubble: idle time of the critical stage",
    "tensor-parallel communication not hidden behind compute",
    "context-parallel communication not hidden behind compute",
    "expert-parallel (all-to-all) communication not hidden behind compute",
    "pipeline send/receive time not hidden behind compute",
    "data-parallel gradient synchronisation not hidden behind the backward pass",
};

static const char *const key_descriptions[SAX_KEY_COUNT] = {
    [SAX_KEY_TP] = "tensor-parallel degree",
    [SAX_KEY_PP] = "pipeline-parallel degree",
    [SAX_KEY_DP] = "data-parallel degree",
    [SAX_KEY_CP] = "context-parallel degree",
    [SAX_KEY_EP] = "expert-parallel degree",
    [SAX_KEY_VPP] = "virtual pipeline stages per GPU",
    [SAX_KEY_MICRO_BATCH] = "sequences per micro-batch",
    [SAX_KEY_SCHEDULE] = "pipeline schedule",
    [SAX_KEY_RECOMPUTE] = "activation recomputation",
    [SAX_KEY_SEQUENCE_PARALLEL] = "sequence parallelism",
    [SAX_KEY_ZERO] = "ZeRO stage (3 = FSDP)",
    [SAX_KEY_ORDER] = "placement: parallel dimensions innermost first",
    [SAX_KEY_LAYER_SPLIT] = "layer split between stages",
    [SAX_KEY_FIRST_STAGE_LAYERS] = "layers of the first pipeline stage (0: as layer_split)",
    [SAX_KEY_LAST_STAGE_LAYERS] = "layers of the last pipeline stage (0: as layer_split)",
    [SAX_KEY_TRANSPORT] = "transport of the site links",
    [SAX_KEY_CONNECTIONS] = "transport flows per NCCL connection (queue pairs or TCP sockets)",
    [SAX_KEY_CHANNELS] = "NCCL channels per collective (0: NCCL's choice)",
    [SAX_KEY_BUFFER_SIZE] = "NCCL_BUFFSIZE in bytes",
    [SAX_KEY_P2P_CHUNK_SIZE] = "NCCL_P2P_NET_CHUNKSIZE in bytes",
    [SAX_KEY_P2P_CHANNELS] = "point-to-point channels per network peer (0: NCCL's choice)",
    [SAX_KEY_ALGORITHM] = "collective algorithm",
    [SAX_KEY_COMPRESSION] = "compression of cross-site traffic",
};

/* Column names and descriptions built from the lists by string-literal concatenation. */
#define SAX_PHASE_COLUMN(name, str) str "_s",
static const char *const phase_columns[SAX_PHASE_COUNT] = {SAX_PHASE_LIST(SAX_PHASE_COLUMN)};
#undef SAX_PHASE_COLUMN
#define SAX_COMM_COLUMN(name, str) "comm_" str "_s",
static const char *const comm_columns[SAX_DIM_COUNT] = {SAX_DIM_LIST(SAX_COMM_COLUMN)};
#undef SAX_COMM_COLUMN
#define SAX_COMM_DESC(name, str) "total time of " str " traffic per iteration, hidden or not",
static const char *const comm_descriptions[SAX_DIM_COUNT] = {SAX_DIM_LIST(SAX_COMM_DESC)};
#undef SAX_COMM_DESC

/* One column: name, unit, description, byte offset in sax_row_t, kind. */
typedef enum { COL_I64, COL_I32, COL_KEY, COL_BOOL, COL_REASON, COL_DOUBLE } col_kind_t;
typedef struct {
    const char *name, *unit, *description;
    size_t offset;
    col_kind_t kind;
    int key;
} col_t;

static int row_columns(col_t *c, int max)
{
    int n = 0;
#define SAX_COL(nm_, unit_, desc_, off_, kind_, key_)                                                        \
    do {                                                                                                     \
        if (n < max)                                                                                         \
            c[n] = (col_t){nm_, unit_, desc_, off_, kind_, key_};                                            \
        n++;                                                                                                 \
    } while (0)
    SAX_COL("index", "1", "candidate index in the design space (mixed radix, search/)",
            offsetof(sax_row_t, index), COL_I64, 0);
    SAX_COL("scenario", "1", "scenario index (row of /scenarios)", offsetof(sax_row_t, scenario), COL_I32, 0);
    for (int k = 0; k < SAX_KEY_COUNT; k++)
        SAX_COL(sax_key_names[k], "1", key_descriptions[k],
                offsetof(sax_row_t, key) + (size_t)k * sizeof(int32_t), COL_KEY, k);
    SAX_COL("feasible", "1", "whether the candidate can run", offsetof(sax_row_t, feasible), COL_BOOL, 0);
    SAX_COL("reason", "1", "why the candidate cannot run (none when feasible)", offsetof(sax_row_t, reason),
            COL_REASON, 0);
#define SAX_COL_METRIC(field, unit, desc)                                                                    \
    SAX_COL(#field, unit, desc, offsetof(sax_row_t, field), COL_DOUBLE, 0);
    SAX_METRIC_LIST(SAX_COL_METRIC)
    for (int p = 0; p < SAX_PHASE_COUNT; p++)
        SAX_COL(phase_columns[p], "s", phase_descriptions[p],
                offsetof(sax_row_t, breakdown_s) + (size_t)p * sizeof(double), COL_DOUBLE, 0);
    SAX_ROW_MEMORY_LIST(SAX_COL_METRIC)
#undef SAX_COL_METRIC
    for (int d = 0; d < SAX_DIM_COUNT; d++)
        SAX_COL(comm_columns[d], "s", comm_descriptions[d],
                offsetof(sax_row_t, comm_s) + (size_t)d * sizeof(double), COL_DOUBLE, 0);
    SAX_COL("gpus_used", "1", "GPUs the candidate occupies", offsetof(sax_row_t, gpus_used), COL_I32, 0);
#undef SAX_COL
    return n;
}

#define SAX_MAX_COLUMNS 64

int sax_results_columns(sax_results_column_t *out, int max)
{
    col_t cols[SAX_MAX_COLUMNS];
    int n = row_columns(cols, SAX_MAX_COLUMNS);
    for (int i = 0; i < n && i < max; i++)
        out[i] = (sax_results_column_t){cols[i].name, cols[i].unit, cols[i].description};
    return n;
}

/* The leading fields of the /answer datasets (docs/decisions.md says what they mean). */
static const struct {
    const char *name, *unit, *description;
} answer_fields[] = {
    {"tied", "1", "candidates of the top list tied with the best (0: none feasible)"},
    {"at_least", "1", "TRUE when the top list is full of tied candidates: there may be more"},
    {"differ_in", "1", "comma-separated keys in which the tied candidates differ"},
    {"lossy", "1", "the best of the scenario compresses cross-site traffic"},
    {"noop", "1", "the best's compression changes neither its time nor its cross-site bytes"},
    {"found", "1", "FALSE when there is no such candidate (the row fields then mean nothing)"},
    {"merged_time_s", "s",
     "the oblivious pick's time on the merged network, as a flat-network optimiser predicts"},
    {"invalid", "1", "why the pick could not be evaluated on the real network (empty when it was)"},
    {"valid", "1", "FALSE when every order of mixing meets an infeasible mix: no factors"},
    {"orders", "1", "orders of the 3! averaged (6 when every mix is feasible)"},
    {"placement", "1", "factor of the speedup from order and parallel degrees"},
    {"scheduling", "1",
     "factor of the speedup from schedule, vpp, micro-batch, recompute, ZeRO, layer split"},
    {"network", "1",
     "factor of the speedup from transport, flows, channels, buffers, algorithm, compression"},
    {"exact", "1", "TRUE when the robust candidate is proven optimal over the whole space"},
    {"worst_regret", "1", "largest regret (time / scenario's best time - 1) over the scenarios"},
    {"bound", "1", "worst regret any candidate outside the compared ones has at least"},
    {"candidates", "1", "distinct candidates compared"},
    {"within_5pct", "1", "compared candidates whose worst regret is at most 5 %"},
};

int sax_results_field_info(hid_t compound, const char ***units, const char ***descriptions)
{
    col_t cols[SAX_MAX_COLUMNS];
    int nc = row_columns(cols, SAX_MAX_COLUMNS);
    int n = H5Tget_nmembers(compound);
    if (n < 0)
        return -1;
    *units = calloc((size_t)n + 1, sizeof **units);
    *descriptions = calloc((size_t)n + 1, sizeof **descriptions);
    if (!*units || !*descriptions) {
        free(*units);
        free(*descriptions);
        return -1;
    }
    for (int m = 0; m < n; m++) {
        char *name = H5Tget_member_name(compound, (unsigned)m);
        (*units)[m] = "";
        (*descriptions)[m] = "";
        for (int c = 0; name && c < nc; c++) {
            if (strcmp(cols[c].name, name) == 0) {
                (*units)[m] = cols[c].unit;
                (*descriptions)[m] = cols[c].description;
            }
        }
        if (name && strcmp(name, "bpv_key") == 0) {
            (*descriptions)[m] = "design key this row is the best for";
        } else if (name && strcmp(name, "bpv_value") == 0) {
            (*descriptions)[m] = "value of bpv_key (integer coding; names in /space/<key>)";
        } else if (name && strcmp(name, "count") == 0) {
            (*descriptions)[m] = "number of evaluated candidates";
            (*units)[m] = "1";
        } else if (name && strcmp(name, "baseline") == 0) {
            (*descriptions)[m] = "baseline (space.baselines) this row is the best candidate of";
        }
        for (size_t a = 0; name && a < sizeof answer_fields / sizeof answer_fields[0]; a++)
            if (strcmp(answer_fields[a].name, name) == 0) {
                (*units)[m] = answer_fields[a].unit;
                (*descriptions)[m] = answer_fields[a].description;
            }
        H5free_memory(name);
    }
    return n;
}

void sax_results_column_format(const sax_space_desc_t *space, const sax_record_t *rec, int col, char *buf,
                               size_t len)
{
    col_t cols[SAX_MAX_COLUMNS];
    int n = row_columns(cols, SAX_MAX_COLUMNS);
    if (len == 0)
        return;
    buf[0] = '\0';
    if (col < 0 || col >= n)
        return;
    sax_row_t row;
    sax_results_row_from_record(space, rec, &row);
    const char *at = (const char *)&row + cols[col].offset;
    int32_t i32;
    switch (cols[col].kind) {
    case COL_I64: {
        int64_t v;
        memcpy(&v, at, sizeof v);
        snprintf(buf, len, "%lld", (long long)v);
        break;
    }
    case COL_I32:
        memcpy(&i32, at, sizeof i32);
        snprintf(buf, len, "%d", (int)i32);
        break;
    case COL_KEY:
        sax_results_key_value_str(space, &rec->candidate, (sax_key_t)cols[col].key, buf, len);
        break;
    case COL_BOOL: snprintf(buf, len, "%s", row.feasible ? "true" : "false"); break;
    case COL_REASON:
        snprintf(buf, len, "%s",
                 row.reason >= 0 && row.reason < SAX_INFEASIBLE_COUNT ? sax_infeasible_names[row.reason]
                                                                      : "?");
        break;
    case COL_DOUBLE: {
        double v;
        memcpy(&v, at, sizeof v);
        /* the shortest of 15..17 significant digits that reads back as the same double */
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(buf, len, "%.*g", digits, v);
            if (strtod(buf, NULL) == v)
                break;
        }
        break;
    }
    }
}

/* ---- types ------------------------------------------------------------------------------------ */

static hid_t enum_type(hid_t base, const char *const *names, int count, bool with_any)
{
    hid_t t = H5Tenum_create(base);
    if (t < 0)
        return -1;
    if (with_any) {
        int32_t v = -1;
        if (H5Tenum_insert(t, "any", &v) < 0)
            goto fail;
    }
    for (int i = 0; i < count; i++) {
        if (base == H5T_NATIVE_INT8) {
            int8_t v = (int8_t)i;
            if (H5Tenum_insert(t, names[i], &v) < 0)
                goto fail;
        } else {
            int32_t v = i;
            if (H5Tenum_insert(t, names[i], &v) < 0)
                goto fail;
        }
    }
    return t;
fail:
    H5Tclose(t);
    return -1;
}

/* The order enum: the space's orders as "tp-cp-pp-dp", plus -1 named "other" (a candidate whose
 * order is not one of them) or, in the baselines table, "any" (the baseline does not fix it). */
static hid_t order_enum_type(const sax_space_desc_t *space, bool with_any)
{
    hid_t t = H5Tenum_create(H5T_NATIVE_INT32);
    if (t < 0)
        return -1;
    int32_t v = -1;
    if (H5Tenum_insert(t, with_any ? "any" : "other", &v) < 0)
        goto fail;
    for (int o = 0; o < space->n_orders; o++) {
        char name[64];
        sax_key_value_name(space, SAX_KEY_ORDER, o, name, sizeof name);
        v = o;
        /* Two identical orders in a space would make a duplicate name; suffix the index. */
        if (H5Tenum_valueof(t, name, &(int32_t){0}) >= 0) {
            size_t len = strlen(name);
            snprintf(name + len, sizeof name - len, "#%d", o);
        }
        if (H5Tenum_insert(t, name, &v) < 0)
            goto fail;
    }
    return t;
fail:
    H5Tclose(t);
    return -1;
}

static herr_t insert_row_members(hid_t compound, size_t base, const sax_results_types_t *t)
{
    col_t cols[SAX_MAX_COLUMNS];
    int n = row_columns(cols, SAX_MAX_COLUMNS);
    for (int i = 0; i < n; i++) {
        hid_t mt = -1;
        switch (cols[i].kind) {
        case COL_I64: mt = H5T_NATIVE_INT64; break;
        case COL_I32: mt = H5T_NATIVE_INT32; break;
        case COL_KEY: mt = t->key_t[cols[i].key]; break;
        case COL_BOOL: mt = t->bool_t; break;
        case COL_REASON: mt = t->reason_t; break;
        case COL_DOUBLE: mt = H5T_NATIVE_DOUBLE; break;
        }
        if (H5Tinsert(compound, cols[i].name, base + cols[i].offset, mt) < 0)
            return -1;
    }
    return 0;
}

/* A fixed-length, NUL-terminated ASCII string of `len` bytes (h5py reads it as bytes). */
static hid_t fixed_string(size_t len)
{
    hid_t s = H5Tcopy(H5T_C_S1);
    if (s >= 0 && (H5Tset_size(s, len) < 0 || H5Tset_strpad(s, H5T_STR_NULLTERM) < 0)) {
        H5Tclose(s);
        return -1;
    }
    return s;
}

/* The compounds of /answer: leading fields first, then (where a candidate is stored) the row's. */
static herr_t answer_types(sax_results_types_t *t)
{
    hid_t differ = fixed_string(SAX_DIFFER_LEN), invalid = fixed_string(SAX_RESULTS_INVALID_LEN);
    herr_t rc = differ < 0 || invalid < 0 ? -1 : 0;
#define SAX_INS(type, st, name, field, mt)                                                                   \
    if (rc >= 0)                                                                                             \
    rc = H5Tinsert(type, name, offsetof(st, field), mt)
    if (rc >= 0 && (t->ties_t = H5Tcreate(H5T_COMPOUND, sizeof(sax_ties_row_t))) < 0)
        rc = -1;
    SAX_INS(t->ties_t, sax_ties_row_t, "tied", tied, H5T_NATIVE_INT64);
    SAX_INS(t->ties_t, sax_ties_row_t, "at_least", at_least, t->bool_t);
    SAX_INS(t->ties_t, sax_ties_row_t, "differ_in", differ_in, differ);
    if (rc >= 0)
        rc = insert_row_members(t->ties_t, offsetof(sax_ties_row_t, row), t);

    if (rc >= 0 && (t->lossless_t = H5Tcreate(H5T_COMPOUND, sizeof(sax_lossless_row_t))) < 0)
        rc = -1;
    SAX_INS(t->lossless_t, sax_lossless_row_t, "lossy", lossy, t->bool_t);
    SAX_INS(t->lossless_t, sax_lossless_row_t, "noop", noop, t->bool_t);
    if (rc >= 0)
        rc = insert_row_members(t->lossless_t, offsetof(sax_lossless_row_t, row), t);

    if (rc >= 0 && (t->oblivious_t = H5Tcreate(H5T_COMPOUND, sizeof(sax_oblivious_row_t))) < 0)
        rc = -1;
    SAX_INS(t->oblivious_t, sax_oblivious_row_t, "found", found, t->bool_t);
    SAX_INS(t->oblivious_t, sax_oblivious_row_t, "merged_time_s", merged_time_s, H5T_NATIVE_DOUBLE);
    SAX_INS(t->oblivious_t, sax_oblivious_row_t, "invalid", invalid, invalid);
    if (rc >= 0)
        rc = insert_row_members(t->oblivious_t, offsetof(sax_oblivious_row_t, row), t);

    if (rc >= 0 && (t->attribution_t = H5Tcreate(H5T_COMPOUND, sizeof(sax_attribution_row_t))) < 0)
        rc = -1;
    SAX_INS(t->attribution_t, sax_attribution_row_t, "scenario", scenario, H5T_NATIVE_INT32);
    SAX_INS(t->attribution_t, sax_attribution_row_t, "baseline", baseline, t->baseline_enum_t);
    SAX_INS(t->attribution_t, sax_attribution_row_t, "valid", valid, t->bool_t);
    SAX_INS(t->attribution_t, sax_attribution_row_t, "orders", orders, H5T_NATIVE_INT32);
    for (int g = 0; g < SAX_RESULTS_FACTOR_COUNT && rc >= 0; g++)
        rc = H5Tinsert(t->attribution_t, sax_results_factor_names[g],
                       offsetof(sax_attribution_row_t, factor) + (size_t)g * sizeof(double),
                       H5T_NATIVE_DOUBLE);

    if (rc >= 0 && (t->robust_t = H5Tcreate(H5T_COMPOUND, sizeof(sax_robust_row_t))) < 0)
        rc = -1;
    SAX_INS(t->robust_t, sax_robust_row_t, "found", found, t->bool_t);
    SAX_INS(t->robust_t, sax_robust_row_t, "exact", exact, t->bool_t);
    SAX_INS(t->robust_t, sax_robust_row_t, "worst_regret", worst_regret, H5T_NATIVE_DOUBLE);
    SAX_INS(t->robust_t, sax_robust_row_t, "bound", bound, H5T_NATIVE_DOUBLE);
    SAX_INS(t->robust_t, sax_robust_row_t, "candidates", candidates, H5T_NATIVE_INT32);
    SAX_INS(t->robust_t, sax_robust_row_t, "within_5pct", within_5pct, H5T_NATIVE_INT32);
    if (rc >= 0)
        rc = insert_row_members(t->robust_t, offsetof(sax_robust_row_t, row), t);

    if (rc >= 0 && (t->near_t = H5Tcreate(H5T_COMPOUND, sizeof(sax_near_row_t))) < 0)
        rc = -1;
    SAX_INS(t->near_t, sax_near_row_t, "worst_regret", worst_regret, H5T_NATIVE_DOUBLE);
    if (rc >= 0)
        rc = insert_row_members(t->near_t, offsetof(sax_near_row_t, row), t);
#undef SAX_INS
    if (differ >= 0)
        H5Tclose(differ);
    if (invalid >= 0)
        H5Tclose(invalid);
    return rc;
}

void sax_results_types_fini(sax_results_types_t *t)
{
    hid_t *owned[] = {&t->bool_t,         &t->reason_t,      &t->row_t,    &t->bpv_t,  &t->baseline_enum_t,
                      &t->baseline_row_t, &t->key_enum_t,    &t->str_t,    &t->ties_t, &t->lossless_t,
                      &t->oblivious_t,    &t->attribution_t, &t->robust_t, &t->near_t};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++) {
        if (*owned[i] >= 0)
            H5Tclose(*owned[i]);
        *owned[i] = -1;
    }
    for (int k = 0; k < SAX_KEY_COUNT; k++) {
        if (t->key_t[k] >= 0 && t->key_t[k] != H5T_NATIVE_INT32)
            H5Tclose(t->key_t[k]);
        if (t->key_any_t[k] >= 0 && t->key_any_t[k] != H5T_NATIVE_INT32)
            H5Tclose(t->key_any_t[k]);
        t->key_t[k] = t->key_any_t[k] = -1;
    }
}

sax_status_t sax_results_types_init(sax_results_types_t *t, const sax_space_desc_t *space, sax_error_t *err)
{
    t->bool_t = t->reason_t = t->row_t = t->bpv_t = t->baseline_enum_t = t->baseline_row_t = -1;
    t->key_enum_t = t->str_t = -1;
    t->ties_t = t->lossless_t = t->oblivious_t = t->attribution_t = t->robust_t = t->near_t = -1;
    for (int k = 0; k < SAX_KEY_COUNT; k++)
        t->key_t[k] = t->key_any_t[k] = -1;

    if ((t->bool_t = enum_type(H5T_NATIVE_INT8, bool_names, 2, false)) < 0)
        goto fail;
    if ((t->reason_t = enum_type(H5T_NATIVE_INT32, sax_infeasible_names, SAX_INFEASIBLE_COUNT, false)) < 0)
        goto fail;
    if ((t->key_enum_t = enum_type(H5T_NATIVE_INT32, sax_key_names, SAX_KEY_COUNT, false)) < 0)
        goto fail;
    for (int k = 0; k < SAX_KEY_COUNT; k++) {
        int count;
        const char *const *names = key_value_names((sax_key_t)k, &count);
        if (k == SAX_KEY_ORDER) {
            t->key_t[k] = order_enum_type(space, false);
            t->key_any_t[k] = order_enum_type(space, true);
        } else if (names) {
            t->key_t[k] = enum_type(H5T_NATIVE_INT32, names, count, false);
            t->key_any_t[k] = enum_type(H5T_NATIVE_INT32, names, count, true);
        } else {
            t->key_t[k] = t->key_any_t[k] = H5T_NATIVE_INT32;
        }
        if (t->key_t[k] < 0 || t->key_any_t[k] < 0)
            goto fail;
    }
    if ((t->row_t = H5Tcreate(H5T_COMPOUND, sizeof(sax_row_t))) < 0 || insert_row_members(t->row_t, 0, t) < 0)
        goto fail;
    if ((t->bpv_t = H5Tcreate(H5T_COMPOUND, sizeof(sax_bpv_row_t))) < 0 ||
        H5Tinsert(t->bpv_t, "bpv_key", offsetof(sax_bpv_row_t, bpv_key), t->key_enum_t) < 0 ||
        H5Tinsert(t->bpv_t, "bpv_value", offsetof(sax_bpv_row_t, bpv_value), H5T_NATIVE_INT32) < 0 ||
        insert_row_members(t->bpv_t, offsetof(sax_bpv_row_t, row), t) < 0)
        goto fail;
    {
        /* An enum needs a member: a space without baselines gets only "none" = -1. */
        const char *names[SAX_SPACE_MAX_BASELINES] = {0};
        int nb = space->n_baselines < SAX_SPACE_MAX_BASELINES ? space->n_baselines : SAX_SPACE_MAX_BASELINES;
        for (int b = 0; b < nb; b++)
            names[b] = space->baselines[b].name;
        if ((t->baseline_enum_t = enum_type(H5T_NATIVE_INT32, names, nb, false)) < 0)
            goto fail;
        if (nb == 0 && H5Tenum_insert(t->baseline_enum_t, "none", &(int32_t){-1}) < 0)
            goto fail;
    }
    if ((t->baseline_row_t = H5Tcreate(H5T_COMPOUND, sizeof(sax_baseline_row_t))) < 0 ||
        H5Tinsert(t->baseline_row_t, "baseline", offsetof(sax_baseline_row_t, baseline), t->baseline_enum_t) <
            0 ||
        insert_row_members(t->baseline_row_t, offsetof(sax_baseline_row_t, row), t) < 0)
        goto fail;
    if ((t->str_t = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(t->str_t, H5T_VARIABLE) < 0 ||
        H5Tset_cset(t->str_t, H5T_CSET_UTF8) < 0)
        goto fail;
    if (answer_types(t) < 0)
        goto fail;
    return SAX_OK;
fail:
    sax_results_types_fini(t);
    return sax_error_set(err, SAX_ERR_HDF5, "could not build the HDF5 types of a results file");
}
