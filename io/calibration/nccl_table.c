/* nccl_table.c - reads the plain-text output of the nccl-tests binaries (all_reduce_perf,
 * all_gather_perf, reduce_scatter_perf, alltoall_perf, sendrecv_perf) into rows of SI numbers.
 *
 * The format, as nccl-tests prints it: comment lines start with '#'; one of them is the column
 * header ("# size count type redop root time algbw busbw #wrong time algbw busbw #wrong"; older
 * versions print no redop/root for all_gather and alltoall, "error" for "#wrong", "cputime" for
 * "time" with -C 1, and per-iteration statistics columns with per-iteration timing). Each data row
 * holds the size in bytes, the element count, the type, [the reduction and root,] then out-of-place
 * time (us), algorithm and bus bandwidth (GB/s, 1e9 B/s) and wrong elements, then the same in
 * place. "# Rank N ..." lines list the participating GPUs; "# Collective test concluded: NAME"
 * ends the output. Columns are located from the header when there is one and inferred from the
 * row shape otherwise, so both shapes parse. Lines that are neither (NCCL INFO logs) are skipped.
 */
#include "sax_calibration.h"
#include "sax_config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const sax_coll_op_binaries[SAX_COLL_OP_COUNT] = {[SAX_OP_ALL_REDUCE] = "all_reduce_perf",
                                                             [SAX_OP_REDUCE_SCATTER] = "reduce_scatter_perf",
                                                             [SAX_OP_ALL_GATHER] = "all_gather_perf",
                                                             [SAX_OP_ALL_TO_ALL] = "alltoall_perf",
                                                             [SAX_OP_SENDRECV] = "sendrecv_perf"};

int sax_coll_op_lookup(const char *name)
{
    int op = sax_name_lookup(sax_coll_op_names, SAX_COLL_OP_COUNT, name);
    return op >= 0 || name == NULL || strcmp(name, "alltoall") != 0 ? op : SAX_OP_ALL_TO_ALL;
}

enum { MAX_TOKENS = 48, LINE_MAX_CHARS = 4096 };

/* Where the columns of one table are: token indices in a data row, -1 when absent. */
typedef struct {
    bool known;
    int size, count;
    int time[2], algbw[2], busbw[2], wrong[2];
    int n_tokens; /* tokens of a full row (without a trailing timestamp) */
} layout_t;

void sax_nccl_table_init(sax_nccl_table_t *t) { memset(t, 0, sizeof *t); }

void sax_nccl_table_fini(sax_nccl_table_t *t)
{
    if (t == NULL)
        return;
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* Splits `line` (modified in place) at white space. */
static int tokenize(char *line, char **tok, int max)
{
    int n = 0;
    char *p = line;
    while (*p != '\0' && n < max) {
        while (*p != '\0' && isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            break;
        tok[n++] = p;
        while (*p != '\0' && !isspace((unsigned char)*p))
            p++;
        if (*p != '\0')
            *p++ = '\0';
    }
    return n;
}

static bool parse_double(const char *s, double *v)
{
    char *end = NULL;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE)
        return false;
    *v = x;
    return true;
}

static bool parse_integer(const char *s, double *v)
{
    const char *p = s;
    if (*p == '-' || *p == '+')
        p++;
    if (*p == '\0')
        return false;
    for (; *p != '\0'; p++)
        if (!isdigit((unsigned char)*p))
            return false;
    return parse_double(s, v);
}

/* The header line "size count type [redop root] time algbw busbw #wrong [stats] time ...". */
static bool layout_from_header(char **tok, int n, layout_t *lay)
{
    layout_t l;
    memset(&l, -1, sizeof l);
    l.known = true;
    int half = 0;
    for (int i = 0; i < n; i++) {
        const char *w = tok[i];
        if (strcmp(w, "size") == 0)
            l.size = i;
        else if (strcmp(w, "count") == 0)
            l.count = i;
        else if ((strcmp(w, "time") == 0 || strcmp(w, "cputime") == 0) && half < 2)
            l.time[half++] = i;
        else if (strcmp(w, "algbw") == 0 && half > 0)
            l.algbw[half - 1] = i;
        else if (strcmp(w, "busbw") == 0 && half > 0)
            l.busbw[half - 1] = i;
        else if ((strcmp(w, "#wrong") == 0 || strcmp(w, "error") == 0) && half > 0)
            l.wrong[half - 1] = i;
    }
    if (l.size != 0 || l.count < 0 || half != 2)
        return false;
    for (int h = 0; h < 2; h++)
        if (l.algbw[h] <= l.time[h] || l.busbw[h] <= l.algbw[h])
            return false; /* each half: time, then algbw, then busbw */
    l.n_tokens = n;
    if (strcmp(tok[n - 1], "timestamp") == 0)
        l.n_tokens = n - 1;
    *lay = l;
    return true;
}

/* No header: the leading columns are size, count, type and, depending on the version and the
 * operation, redop and root; then four columns per half (time, algbw, busbw, #wrong). */
static bool layout_from_row(char **tok, int n, layout_t *lay)
{
    int lead = n - 8;
    double v;
    if (lead < 3 || lead > 5 || !parse_double(tok[lead], &v) || parse_double(tok[2], &v))
        return false;
    memset(lay, -1, sizeof *lay);
    lay->known = true;
    lay->size = 0;
    lay->count = 1;
    for (int h = 0; h < 2; h++) {
        lay->time[h] = lead + 4 * h;
        lay->algbw[h] = lead + 4 * h + 1;
        lay->busbw[h] = lead + 4 * h + 2;
        lay->wrong[h] = lead + 4 * h + 3;
    }
    lay->n_tokens = n;
    return true;
}

static sax_status_t table_push(sax_nccl_table_t *t, const sax_nccl_row_t *row, sax_error_t *err)
{
    if (t->n_rows == t->cap_rows) {
        int cap = t->cap_rows == 0 ? 32 : 2 * t->cap_rows;
        sax_nccl_row_t *rows = realloc(t->rows, (size_t)cap * sizeof *rows);
        if (rows == NULL)
            return sax_error_set(err, SAX_ERR_NOMEM, "out of memory reading an nccl-tests table");
        t->rows = rows;
        t->cap_rows = cap;
    }
    t->rows[t->n_rows++] = *row;
    return SAX_OK;
}

/* Reads one half (out-of-place or in-place) of a data row. */
static sax_status_t read_half(char **tok, int n, const layout_t *lay, int h, sax_nccl_row_t *row,
                              const char *source, int line_no, sax_error_t *err)
{
    row->time_s[h] = -1.0;
    row->algbw_Bps[h] = row->busbw_Bps[h] = 0.0;
    row->wrong[h] = -1.0;
    if (lay->busbw[h] >= n)
        return SAX_OK;
    double time_us, algbw, busbw;
    if (!parse_double(tok[lay->time[h]], &time_us) || !parse_double(tok[lay->algbw[h]], &algbw) ||
        !parse_double(tok[lay->busbw[h]], &busbw))
        return sax_error_set(err, SAX_ERR_INPUT,
                             "%s:%d: expected the %s time (us), algbw and busbw (GB/s) as numbers, found "
                             "'%s %s %s'",
                             source, line_no, h == 0 ? "out-of-place" : "in-place", tok[lay->time[h]],
                             tok[lay->algbw[h]], tok[lay->busbw[h]]);
    if (!(time_us > 0.0) || !isfinite(time_us))
        return sax_error_set(err, SAX_ERR_INPUT, "%s:%d: expected a positive time, found %s us", source,
                             line_no, tok[lay->time[h]]);
    if (!(algbw >= 0.0) || !isfinite(algbw) || !(busbw >= 0.0) || !isfinite(busbw))
        return sax_error_set(err, SAX_ERR_INPUT,
                             "%s:%d: expected algbw and busbw as bandwidths >= 0 (GB/s), found '%s %s'",
                             source, line_no, tok[lay->algbw[h]], tok[lay->busbw[h]]);
    row->time_s[h] = time_us * 1e-6;
    row->algbw_Bps[h] = algbw * 1e9;
    row->busbw_Bps[h] = busbw * 1e9;
    double wrong;
    if (lay->wrong[h] >= 0 && lay->wrong[h] < n && parse_double(tok[lay->wrong[h]], &wrong) && wrong >= 0.0 &&
        isfinite(wrong))
        row->wrong[h] = wrong;
    return SAX_OK;
}

static sax_status_t parse_row(char **tok, int n, layout_t *lay, sax_nccl_table_t *t, const char *source,
                              int line_no, sax_error_t *err)
{
    if (!lay->known && !layout_from_row(tok, n, lay))
        return sax_error_set(err, SAX_ERR_INPUT,
                             "%s:%d: expected an nccl-tests row (size count type [redop root] time algbw "
                             "busbw #wrong time algbw busbw #wrong), found %d columns and no header line",
                             source, line_no, n);
    sax_nccl_row_t row;
    memset(&row, 0, sizeof row);
    if (!parse_integer(tok[lay->size], &row.size_bytes) ||
        (lay->count >= 0 && lay->count < n && !parse_integer(tok[lay->count], &row.count)) ||
        !(row.size_bytes >= 0.0) || !(row.count >= 0.0))
        return sax_error_set(err, SAX_ERR_INPUT, "%s:%d: expected integer size and count >= 0, found '%s %s'",
                             source, line_no, tok[lay->size], lay->count < n ? tok[lay->count] : "");
    /* A row with only the in-place half (trace replay) has four numbers after the leading columns. */
    if (n == lay->n_tokens - 4) {
        layout_t in_place_only = *lay;
        in_place_only.time[1] = lay->time[0];
        in_place_only.algbw[1] = lay->algbw[0];
        in_place_only.busbw[1] = lay->busbw[0];
        in_place_only.wrong[1] = lay->wrong[0];
        row.time_s[0] = -1.0;
        row.wrong[0] = -1.0;
        sax_status_t st = read_half(tok, n, &in_place_only, 1, &row, source, line_no, err);
        return st != SAX_OK ? st : table_push(t, &row, err);
    }
    if (n < lay->n_tokens)
        return sax_error_set(err, SAX_ERR_INPUT,
                             "%s:%d: expected %d columns as the header announces, found %d", source, line_no,
                             lay->n_tokens, n);
    for (int h = 0; h < 2; h++) {
        sax_status_t st = read_half(tok, n, lay, h, &row, source, line_no, err);
        if (st != SAX_OK)
            return st;
    }
    return table_push(t, &row, err);
}

/* Comment lines: the column header, the "# Rank" lines, the closing line. */
static void parse_comment(char **tok, int n, layout_t *lay, sax_nccl_table_t *t)
{
    if (n >= 2 && strcmp(tok[0], "Rank") == 0) {
        double r;
        if (parse_integer(tok[1], &r))
            t->ranks++;
        return;
    }
    if (n >= 4 && strcmp(tok[0], "Collective") == 0 && strcmp(tok[1], "test") == 0 &&
        strcmp(tok[2], "concluded:") == 0) {
        snprintf(t->binary, sizeof t->binary, "%s", tok[3]);
        return;
    }
    if (n >= 8 && strcmp(tok[0], "size") == 0)
        layout_from_header(tok, n, lay);
}

sax_status_t sax_nccl_parse(const char *text, const char *source, sax_nccl_table_t *t, sax_error_t *err)
{
    sax_nccl_table_init(t);
    layout_t lay;
    memset(&lay, 0, sizeof lay);
    char line[LINE_MAX_CHARS];
    char *tok[MAX_TOKENS];
    int line_no = 0;
    const char *p = text;
    while (*p != '\0') {
        const char *eol = strchr(p, '\n');
        size_t len = eol != NULL ? (size_t)(eol - p) : strlen(p);
        line_no++;
        size_t copy = len < sizeof line - 1 ? len : sizeof line - 1;
        memcpy(line, p, copy);
        line[copy] = '\0';
        p += len + (eol != NULL ? 1 : 0);

        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == '#') {
            int n = tokenize(s + 1, tok, MAX_TOKENS);
            parse_comment(tok, n, &lay, t);
            continue;
        }
        int n = tokenize(s, tok, MAX_TOKENS);
        double first;
        if (n == 0 || !parse_integer(tok[0], &first))
            continue; /* blank lines, NCCL INFO/WARN log lines, banners */
        sax_status_t st = parse_row(tok, n, &lay, t, source, line_no, err);
        if (st != SAX_OK) {
            sax_nccl_table_fini(t);
            return st;
        }
    }
    if (t->n_rows == 0) {
        sax_nccl_table_fini(t);
        return sax_error_set(err, SAX_ERR_INPUT,
                             "%s: expected nccl-tests output with at least one result row (size count type "
                             "... time algbw busbw), found none",
                             source);
    }
    return SAX_OK;
}

sax_status_t sax_nccl_load(const char *path, sax_nccl_table_t *t, sax_error_t *err)
{
    sax_nccl_table_init(t);
    char *text = NULL;
    sax_status_t st = sax_read_text_file(path, "the nccl-tests output", &text, err);
    if (st == SAX_OK)
        st = sax_nccl_parse(text, path, t, err);
    free(text);
    return st;
}
