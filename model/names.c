/* names.c - status codes and the names of every named choice, generated from the X-macro lists. */
#include "sax_model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define SAX_NAME_OF(name, str) str,
#define SAX_NAME_OF3(name, str, msg) str,
const char *const sax_precision_names[SAX_PRECISION_COUNT] = {SAX_PRECISION_LIST(SAX_NAME_OF)};
const char *const sax_ffn_act_names[SAX_FFN_ACT_COUNT] = {SAX_FFN_ACT_LIST(SAX_NAME_OF)};
const char *const sax_schedule_names[SAX_SCHEDULE_COUNT] = {SAX_SCHEDULE_LIST(SAX_NAME_OF)};
const char *const sax_recompute_names[SAX_RECOMPUTE_COUNT] = {SAX_RECOMPUTE_LIST(SAX_NAME_OF)};
const char *const sax_dim_names[SAX_DIM_COUNT] = {SAX_DIM_LIST(SAX_NAME_OF)};
const char *const sax_layer_split_names[SAX_LAYER_SPLIT_COUNT] = {SAX_LAYER_SPLIT_LIST(SAX_NAME_OF)};
const char *const sax_recompute_module_names[SAX_RECOMPUTE_MODULE_COUNT] = {
    SAX_RECOMPUTE_MODULE_LIST(SAX_NAME_OF)};
const char *const sax_transport_names[SAX_TRANSPORT_COUNT] = {SAX_TRANSPORT_LIST(SAX_NAME_OF)};
const char *const sax_algorithm_names[SAX_ALGORITHM_COUNT] = {SAX_ALGORITHM_LIST(SAX_NAME_OF)};
const char *const sax_compression_names[SAX_COMPRESSION_COUNT] = {SAX_COMPRESSION_LIST(SAX_NAME_OF)};
const char *const sax_grad_dtype_names[SAX_GRAD_DTYPE_COUNT] = {SAX_GRAD_DTYPE_LIST(SAX_NAME_OF)};
const char *const sax_moe_dispatcher_names[SAX_MOE_DISPATCHER_COUNT] = {SAX_MOE_DISPATCHER_LIST(SAX_NAME_OF)};
const char *const sax_flex_backend_names[SAX_FLEX_BACKEND_COUNT] = {SAX_FLEX_BACKEND_LIST(SAX_NAME_OF)};
const char *const sax_fsdp_names[SAX_FSDP_COUNT] = {SAX_FSDP_LIST(SAX_NAME_OF)};
const char *const sax_selective_ac_names[SAX_SELECTIVE_AC_COUNT] = {SAX_SELECTIVE_AC_LIST(SAX_NAME_OF)};
const char *const sax_elementwise_names[SAX_ELEMENTWISE_COUNT] = {SAX_ELEMENTWISE_LIST(SAX_NAME_OF)};
const char *const sax_tp_impl_names[SAX_TP_IMPL_COUNT] = {SAX_TP_IMPL_LIST(SAX_NAME_OF)};
const char *const sax_cp_impl_names[SAX_CP_IMPL_COUNT] = {SAX_CP_IMPL_LIST(SAX_NAME_OF)};
const char *const sax_cp_comm_names[SAX_CP_COMM_COUNT] = {SAX_CP_COMM_LIST(SAX_NAME_OF)};
const char *const sax_ce_fusion_names[SAX_CE_FUSION_COUNT] = {SAX_CE_FUSION_LIST(SAX_NAME_OF)};
const char *const sax_fp8_recipe_names[SAX_FP8_RECIPE_COUNT] = {SAX_FP8_RECIPE_LIST(SAX_NAME_OF)};
const char *const sax_attn_backend_names[SAX_ATTN_BACKEND_COUNT] = {SAX_ATTN_BACKEND_LIST(SAX_NAME_OF)};
const char *const sax_coll_op_names[SAX_COLL_OP_COUNT] = {SAX_COLL_OP_LIST(SAX_NAME_OF)};
const char *const sax_infeasible_names[SAX_INFEASIBLE_COUNT] = {SAX_INFEASIBLE_LIST(SAX_NAME_OF3)};
const char *const sax_phase_names[SAX_PHASE_COUNT] = {SAX_PHASE_LIST(SAX_NAME_OF)};
const char *const sax_key_names[SAX_KEY_COUNT] = {SAX_KEY_LIST(SAX_NAME_OF)};
const char *const sax_bn_phase_names[SAX_BN_PHASE_COUNT] = {SAX_BN_PHASE_LIST(SAX_NAME_OF)};
const char *const sax_limit_names[SAX_LIMIT_COUNT] = {SAX_LIMIT_LIST(SAX_NAME_OF)};
const char *const sax_dp_wait_names[SAX_DP_WAIT_COUNT] = {SAX_DP_WAIT_LIST(SAX_NAME_OF)};
const char *const sax_lever_keys[SAX_LEVER_COUNT] = {SAX_LEVER_LIST(SAX_NAME_OF)};
const char *const sax_software_keys[SAX_SOFTWARE_COUNT] = {SAX_SOFTWARE_LIST(SAX_NAME_OF)};
#undef SAX_NAME_OF
#undef SAX_NAME_OF3

#define SAX_MESSAGE_OF(name, str, msg) msg,
const char *const sax_infeasible_messages[SAX_INFEASIBLE_COUNT] = {SAX_INFEASIBLE_LIST(SAX_MESSAGE_OF)};
#undef SAX_MESSAGE_OF

#define SAX_STATUS_NAME(name, code, msg) #name,
#define SAX_STATUS_MSG(name, code, msg) msg,
#define SAX_STATUS_CODE(name, code, msg) code,
static const char *const status_names[SAX_STATUS_COUNT] = {SAX_STATUS_LIST(SAX_STATUS_NAME)};
static const char *const status_messages[SAX_STATUS_COUNT] = {SAX_STATUS_LIST(SAX_STATUS_MSG)};
static const int status_codes[SAX_STATUS_COUNT] = {SAX_STATUS_LIST(SAX_STATUS_CODE)};
#undef SAX_STATUS_NAME
#undef SAX_STATUS_MSG
#undef SAX_STATUS_CODE

static bool status_valid(sax_status_t s) { return (int)s >= 0 && s < SAX_STATUS_COUNT; }

const char *sax_status_name(sax_status_t s) { return status_valid(s) ? status_names[s] : "SAX_ERR_?"; }

const char *sax_status_message(sax_status_t s)
{
    return status_valid(s) ? status_messages[s] : "unknown status";
}

int sax_status_exit_code(sax_status_t s) { return status_valid(s) ? status_codes[s] : 1; }

int sax_name_lookup(const char *const *names, int count, const char *name)
{
    if (name == NULL)
        return -1;
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

sax_status_t sax_error_set(sax_error_t *err, sax_status_t status, const char *fmt, ...)
{
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->text, sizeof err->text, fmt, ap);
        va_end(ap);
    }
    return status;
}

char *sax_order_name(const sax_dim_t *order, int n, char *buf, size_t len)
{
    size_t used = 0;
    if (len > 0)
        buf[0] = '\0';
    for (int i = 0; i < n && i < SAX_DIM_COUNT && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? "-" : "", sax_dim_names[order[i]]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}

char *sax_key_value_name(const sax_space_desc_t *space, sax_key_t k, int32_t v, char *buf, size_t len)
{
    static const char *const flag_names[] = {"false", "true"};
    const char *const *names = NULL;
    int count = 0;
    switch (k) {
    case SAX_KEY_ORDER:
        if (space != NULL && v >= 0 && v < space->n_orders)
            return sax_order_name(space->orders[v], space->order_len[v], buf, len);
        snprintf(buf, len, "?");
        return buf;
    case SAX_KEY_SCHEDULE: names = sax_schedule_names, count = SAX_SCHEDULE_COUNT; break;
    case SAX_KEY_RECOMPUTE: names = sax_recompute_names, count = SAX_RECOMPUTE_COUNT; break;
    case SAX_KEY_SEQUENCE_PARALLEL: names = flag_names, count = 2; break;
    case SAX_KEY_LAYER_SPLIT: names = sax_layer_split_names, count = SAX_LAYER_SPLIT_COUNT; break;
    case SAX_KEY_TRANSPORT: names = sax_transport_names, count = SAX_TRANSPORT_COUNT; break;
    case SAX_KEY_ALGORITHM: names = sax_algorithm_names, count = SAX_ALGORITHM_COUNT; break;
    case SAX_KEY_COMPRESSION: names = sax_compression_names, count = SAX_COMPRESSION_COUNT; break;
    default: break;
    }
    if (names != NULL && v >= 0 && v < count)
        snprintf(buf, len, "%s", names[v]);
    else if (k == SAX_KEY_DP && v == 0)
        snprintf(buf, len, "auto");
    else
        snprintf(buf, len, "%d", (int)v);
    return buf;
}

double sax_unit_scale(double max, const char *unit, char *label, size_t len)
{
    if (strcmp(unit, "s") == 0) {
        double sc = max >= 1 || max <= 0 ? 1 : max >= 1e-3 ? 1e-3 : 1e-6;
        snprintf(label, len, "%s", sc == 1 ? "s" : sc == 1e-3 ? "ms" : "us");
        return sc;
    }
    if (strcmp(unit, "1") == 0) {
        snprintf(label, len, "%s", "");
        return 1;
    }
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P", "E"};
    int p = 0;
    double sc = 1;
    while (p < 6 && max >= sc * 1000) {
        sc *= 1000;
        p++;
    }
    snprintf(label, len, "%s%s", prefix[p], unit);
    return sc;
}

char *sax_quantity_str(double x, const char *unit, char *buf, size_t len)
{
    char ul[24];
    double sc = sax_unit_scale(fabs(x), unit, ul, sizeof ul);
    snprintf(buf, len, "%.4g%s%s", x / sc, ul[0] ? " " : "", ul);
    return buf;
}
