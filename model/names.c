/* names.c - status codes and the names of every named choice, generated from the X-macro lists. */
#include "sax_model.h"

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
const char *const sax_transport_names[SAX_TRANSPORT_COUNT] = {SAX_TRANSPORT_LIST(SAX_NAME_OF)};
const char *const sax_algorithm_names[SAX_ALGORITHM_COUNT] = {SAX_ALGORITHM_LIST(SAX_NAME_OF)};
const char *const sax_compression_names[SAX_COMPRESSION_COUNT] = {SAX_COMPRESSION_LIST(SAX_NAME_OF)};
const char *const sax_grad_dtype_names[SAX_GRAD_DTYPE_COUNT] = {SAX_GRAD_DTYPE_LIST(SAX_NAME_OF)};
const char *const sax_coll_op_names[SAX_COLL_OP_COUNT] = {SAX_COLL_OP_LIST(SAX_NAME_OF)};
const char *const sax_infeasible_names[SAX_INFEASIBLE_COUNT] = {SAX_INFEASIBLE_LIST(SAX_NAME_OF3)};
const char *const sax_phase_names[SAX_PHASE_COUNT] = {SAX_PHASE_LIST(SAX_NAME_OF)};
const char *const sax_key_names[SAX_KEY_COUNT] = {SAX_KEY_LIST(SAX_NAME_OF)};
const char *const sax_bn_phase_names[SAX_BN_PHASE_COUNT] = {SAX_BN_PHASE_LIST(SAX_NAME_OF)};
const char *const sax_limit_names[SAX_LIMIT_COUNT] = {SAX_LIMIT_LIST(SAX_NAME_OF)};
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
