/* pipeline_layout.c - parallelism.pipeline_model_parallel_layout: Megatron-Core's
 * --pipeline-model-parallel-layout string, read into the layers of each virtual stage.
 *
 * The grammar is Megatron-Core's (megatron/core/transformer/pipeline_parallel_layer_layout.py,
 * parse_str_to_list and validate_layer_layout, at NVIDIA/Megatron-LM d98e8a64dd): E the embedding, t a
 * transformer layer, m a multi-token-prediction layer, L the output layer and loss; "|" ends a virtual
 * stage; x*N repeats the character before it N times and (...)*N the group; commas are cosmetic. The
 * embedding comes first and the loss last, once each, and no transformer layer follows an MTP layer.
 * Parentheses may nest here (Megatron's do not: a superset). Virtual stage k runs on pipeline stage
 * k mod pp as its chunk k / pp; config.c checks there are pp x vpp of them holding model.layers.
 */
#include "config_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { EXPANDED_MAX = 8192 };

typedef struct {
    cf_ctx_t *ctx;
    const char *text;
    size_t pos;
    char out[EXPANDED_MAX];
    size_t n;
} layout_parse_t;

static sax_status_t fail_at(layout_parse_t *lp, const char *expected)
{
    char found[24];
    if (lp->text[lp->pos] == '\0')
        snprintf(found, sizeof found, "the end");
    else
        snprintf(found, sizeof found, "'%c'", lp->text[lp->pos]);
    return cf_fail(lp->ctx, "expected %s at character %zu of \"%s\", found %s", expected, lp->pos + 1,
                   lp->text, found);
}

/* "*N" after a character or a group: N (>= 0, as Megatron's pattern \d+ reads it). */
static sax_status_t count(layout_parse_t *lp, long *n)
{
    if (lp->text[lp->pos] != '*') {
        *n = 1;
        return SAX_OK;
    }
    lp->pos++;
    if (!isdigit((unsigned char)lp->text[lp->pos]))
        return fail_at(lp, "a repeat count (digits) after '*'");
    long v = 0;
    while (isdigit((unsigned char)lp->text[lp->pos])) {
        v = v * 10 + (lp->text[lp->pos++] - '0');
        if (v > EXPANDED_MAX)
            return cf_fail(lp->ctx, "expected a repeat count of at most %d in \"%s\", found more",
                           EXPANDED_MAX, lp->text);
    }
    *n = v;
    return SAX_OK;
}

/* Appends copies of out[from..n) so that it appears `times` times (0: removed). */
static sax_status_t repeat(layout_parse_t *lp, size_t from, long times)
{
    size_t len = lp->n - from;
    if (times == 0) {
        lp->n = from;
        return SAX_OK;
    }
    if ((double)len * (double)times > (double)(EXPANDED_MAX - from))
        return cf_fail(lp->ctx,
                       "expected a layout of at most %d characters once its repeats are unrolled, found "
                       "\"%s\" longer",
                       EXPANDED_MAX, lp->text);
    for (long k = 1; k < times; k++) {
        memcpy(lp->out + lp->n, lp->out + from, len);
        lp->n += len;
    }
    return SAX_OK;
}

/* A sequence of items up to the end of the text or a ')' (`depth` > 0: inside a group). */
static sax_status_t sequence(layout_parse_t *lp, int depth)
{
    for (;;) {
        char ch = lp->text[lp->pos];
        if (ch == '\0' || ch == ')')
            return ch == ')' && depth == 0 ? fail_at(lp, "a layer (E, t, m, L), '|', '(' or ','") : SAX_OK;
        if (ch == ',') {
            lp->pos++;
            continue;
        }
        size_t from = lp->n;
        long times;
        sax_status_t st;
        if (ch == '(') {
            lp->pos++;
            if ((st = sequence(lp, depth + 1)) != SAX_OK)
                return st;
            if (lp->text[lp->pos] != ')')
                return fail_at(lp, "')' closing the group");
            lp->pos++;
            if (lp->text[lp->pos] != '*')
                return fail_at(lp, "'*' and a repeat count after a group");
        } else if (strchr("EtmL|", ch) != NULL) {
            if (lp->n >= EXPANDED_MAX)
                return repeat(lp, lp->n, 2); /* reports the length */
            lp->out[lp->n++] = ch;
            lp->pos++;
        } else {
            return fail_at(lp, "a layer (E, t, m, L), '|', '(' or ','");
        }
        if ((st = count(lp, &times)) != SAX_OK || (st = repeat(lp, from, times)) != SAX_OK)
            return st;
    }
}

static sax_status_t read_stages(cf_ctx_t *ctx, const layout_parse_t *lp, sax_candidate_t *c);

sax_status_t cf_parse_pipeline_layout(cf_ctx_t *ctx, const char *text, sax_candidate_t *c)
{
    c->n_layout = 0;
    memset(c->layout_text, 0, sizeof c->layout_text);
    if (text[0] == '\0') /* not set */
        return SAX_OK;
    size_t len = strlen(text);
    if (len >= sizeof c->layout_text)
        return cf_fail(ctx, "expected a layout of at most %zu characters, found %zu",
                       sizeof c->layout_text - 1, len);
    layout_parse_t *lp = malloc(sizeof *lp); /* 8 KiB: off the stack */
    if (lp == NULL)
        return SAX_ERR_NOMEM;
    lp->ctx = ctx;
    lp->text = text;
    lp->pos = 0;
    lp->n = 0;
    sax_status_t st = sequence(lp, 0);
    if (st == SAX_OK)
        st = read_stages(ctx, lp, c);
    free(lp);
    if (st == SAX_OK)
        memcpy(c->layout_text, text, len);
    return st;
}

/* The expanded layout's virtual stages, checked against Megatron's rules. */
static sax_status_t read_stages(cf_ctx_t *ctx, const layout_parse_t *lp, sax_candidate_t *c)
{
    const char *text = lp->text;
    /* Megatron's rules: E first and once, L last and once, no t after an m */
    int e = 0, l = 0, stages = 1, mtp_layers = 0, first_mtp_stage = 0;
    bool mtp = false;
    for (size_t i = 0; i < lp->n; i++) {
        char ch = lp->out[i];
        e += ch == 'E';
        l += ch == 'L';
        stages += ch == '|';
        if (ch == 'm' && mtp_layers++ == 0)
            first_mtp_stage = stages - 1;
        if (ch == 't' && mtp)
            return cf_fail(
                ctx,
                "expected every transformer layer (t) before the MTP layers (m) in \"%s\", found a "
                "t after an m",
                text);
        mtp = mtp || ch == 'm';
    }
    if (e != 1 || lp->n == 0 || lp->out[0] != 'E')
        return cf_fail(ctx,
                       "expected the embedding (E) once, as the first layer, in \"%s\", found it %d times%s",
                       text, e, e == 1 ? " but not first" : "");
    if (l != 1 || lp->out[lp->n - 1] != 'L')
        return cf_fail(ctx, "expected the loss (L) once, as the last layer, in \"%s\", found it %d times%s",
                       text, l, l == 1 ? " but not last" : "");
    if (stages > SAX_LAYOUT_MAX_STAGES)
        return cf_fail(ctx, "expected at most %d virtual stages in \"%s\", found %d", SAX_LAYOUT_MAX_STAGES,
                       text, stages);
    /* Megatron-Core keeps its MTP layers in one chunk, the last of its rank; sax prices them on the last
     * stage only, as Megatron places them without a layout: all in the last virtual stage */
    if (mtp_layers > 0 && first_mtp_stage != stages - 1)
        return cf_fail(ctx,
                       "expected the MTP layers (m) in the last virtual stage, with the loss (L), in \"%s\" "
                       "(sax prices them on the last stage, where Megatron-Core places them without a "
                       "layout), found one in virtual stage %d",
                       text, first_mtp_stage);
    c->layout_mtp = mtp_layers;
    int k = 0, layers = 0;
    for (size_t i = 0; i <= lp->n; i++) {
        if (i == lp->n || lp->out[i] == '|') {
            if (layers > 255)
                return cf_fail(ctx,
                               "expected at most 255 transformer layers a virtual stage in \"%s\", found %d "
                               "in virtual stage %d",
                               text, layers, k);
            c->layout_layers[k++] = (uint8_t)layers;
            layers = 0;
        } else {
            layers += lp->out[i] == 't';
        }
    }
    c->n_layout = k;
    return SAX_OK;
}
