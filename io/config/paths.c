/* paths.c - where in a configuration file the reader stands (the JSON path of cf_ctx_t) and the
 * messages that name it: every input error of io/config goes through cf_fail, so it carries the file,
 * the path, what was expected and what was found. */
#include "config_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cf_ctx_init(cf_ctx_t *ctx, const char *file, const char *prefix, sax_error_t *err)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->file = file != NULL ? file : "<config>";
    ctx->err = err;
    if (prefix != NULL) {
        snprintf(ctx->path, sizeof ctx->path, "%s", prefix);
        ctx->path_len = strlen(ctx->path);
    }
}

size_t cf_push_key(cf_ctx_t *ctx, const char *key)
{
    size_t mark = ctx->path_len;
    snprintf(ctx->path + mark, sizeof ctx->path - mark, "%s%s", mark > 0 ? "." : "", key);
    ctx->path_len = strlen(ctx->path);
    return mark;
}

size_t cf_push_index(cf_ctx_t *ctx, int index)
{
    size_t mark = ctx->path_len;
    snprintf(ctx->path + mark, sizeof ctx->path - mark, "[%d]", index);
    ctx->path_len = strlen(ctx->path);
    return mark;
}

void cf_pop(cf_ctx_t *ctx, size_t mark)
{
    ctx->path_len = mark;
    ctx->path[mark] = '\0';
}

sax_status_t cf_check_name(cf_ctx_t *ctx, const char *name)
{
    for (size_t i = 0; name[i] != '\0'; i++) {
        unsigned char ch = (unsigned char)name[i];
        if (ch < 0x20 || ch == 0x7f)
            return cf_fail(ctx, "expected a name without control characters, found U+%04X at character %zu",
                           (unsigned)ch, i + 1);
    }
    return SAX_OK;
}

static sax_status_t fail_v(cf_ctx_t *ctx, const char *fmt, va_list ap)
{
    char msg[768];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (ctx->path_len > 0)
        return sax_error_set(ctx->err, SAX_ERR_INPUT, "%s: %s: %s", ctx->file, ctx->path, msg);
    return sax_error_set(ctx->err, SAX_ERR_INPUT, "%s: %s", ctx->file, msg);
}

sax_status_t cf_fail(cf_ctx_t *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sax_status_t st = fail_v(ctx, fmt, ap);
    va_end(ap);
    return st;
}

sax_status_t cf_fail_at(cf_ctx_t *ctx, const char *section, const char *key, const char *fmt, ...)
{
    size_t mark = cf_push_key(ctx, section);
    cf_push_key(ctx, key);
    va_list ap;
    va_start(ap, fmt);
    sax_status_t st = fail_v(ctx, fmt, ap);
    va_end(ap);
    cf_pop(ctx, mark);
    return st;
}

void cf_describe(const cJSON *item, char *buf, size_t n)
{
    if (item == NULL)
        snprintf(buf, n, "nothing");
    else if (cJSON_IsString(item))
        snprintf(buf, n, "\"%.60s\"%s", item->valuestring, strlen(item->valuestring) > 60 ? "..." : "");
    else if (cJSON_IsNumber(item))
        snprintf(buf, n, "%.17g", item->valuedouble);
    else if (cJSON_IsTrue(item))
        snprintf(buf, n, "true");
    else if (cJSON_IsFalse(item))
        snprintf(buf, n, "false");
    else if (cJSON_IsNull(item))
        snprintf(buf, n, "null");
    else if (cJSON_IsArray(item))
        snprintf(buf, n, "a list of %d", cJSON_GetArraySize(item));
    else if (cJSON_IsObject(item))
        snprintf(buf, n, "an object");
    else
        snprintf(buf, n, "an invalid value");
}
