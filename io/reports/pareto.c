/* pareto.c - non-dominated sets over chosen output columns (`sax pareto`, the report's fronts).
 *
 * Two objectives: sort by the first, then the second, and sweep keeping each point whose second
 * objective beats every earlier one: O(n log n). Any number: sort lexicographically, then keep a
 * point unless a point already kept dominates it; a point is never dominated by one that sorts
 * after it, and a dominated point's dominator is itself dominated by, or is, a kept point, so
 * comparing against the kept points suffices: O(n log n + n f k) for a front of f points.
 */
#include "sax_reports.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- objectives ------------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    bool maximise;
    size_t offset; /* of a double in sax_result_t; SIZE_MAX for gpus_used */
} objective_t;

#define SAX_OBJ_METRIC(field, unit, desc) {#field, false, offsetof(sax_result_t, field)},
#define SAX_OBJ_PHASE(name, str)                                                                             \
    {str "_s", false, offsetof(sax_result_t, breakdown_s) + name * sizeof(double)},
static const objective_t objectives[] = {
    SAX_METRIC_LIST(SAX_OBJ_METRIC) SAX_PHASE_LIST(SAX_OBJ_PHASE){"gpus_used", false, (size_t)-1},
};
#undef SAX_OBJ_METRIC
#undef SAX_OBJ_PHASE
enum { N_OBJECTIVES = sizeof objectives / sizeof objectives[0] };

/* Columns where more is better; every other column is minimised. */
static bool is_maximised(const char *name)
{
    return strcmp(name, "mfu") == 0 || strcmp(name, "tokens_per_s") == 0;
}

int sax_pareto_objective_count(void) { return N_OBJECTIVES; }

const char *sax_pareto_objective_name(int i)
{
    return i >= 0 && i < N_OBJECTIVES ? objectives[i].name : NULL;
}

bool sax_pareto_objective_maximised(int i)
{
    return i >= 0 && i < N_OBJECTIVES && is_maximised(objectives[i].name);
}

int sax_pareto_objective_lookup(const char *name)
{
    for (int i = 0; i < N_OBJECTIVES; i++)
        if (strcmp(objectives[i].name, name) == 0)
            return i;
    return -1;
}

double sax_pareto_objective_value(int i, const sax_result_t *r)
{
    if (i < 0 || i >= N_OBJECTIVES)
        return NAN;
    if (objectives[i].offset == (size_t)-1)
        return (double)r->gpus_used;
    double v;
    memcpy(&v, (const char *)r + objectives[i].offset, sizeof v);
    return v;
}

/* ---- fronts ----------------------------------------------------------------------------------- */

typedef struct {
    double a, b;
    int64_t i;
} pt2_t;

static int pt2_cmp(const void *x, const void *y)
{
    const pt2_t *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return p->i < q->i ? -1 : (p->i > q->i);
}

typedef struct {
    const double *v;
    int64_t i;
    int k;
} ptk_t;

static int ptk_cmp(const void *x, const void *y)
{
    const ptk_t *p = x, *q = y;
    for (int j = 0; j < p->k; j++)
        if (p->v[j] != q->v[j])
            return p->v[j] < q->v[j] ? -1 : 1;
    return p->i < q->i ? -1 : (p->i > q->i);
}

/* a dominates b: no worse anywhere, better somewhere (all minimised). */
static bool dominates(const double *a, const double *b, int k)
{
    bool better = false;
    for (int j = 0; j < k; j++) {
        if (a[j] > b[j])
            return false;
        better = better || a[j] < b[j];
    }
    return better;
}

int64_t sax_pareto_front_general(const double *values, int64_t n, int k, int64_t *front)
{
    if (n <= 0 || k <= 0)
        return 0;
    ptk_t *p = malloc((size_t)n * sizeof *p);
    if (!p)
        return -1;
    for (int64_t i = 0; i < n; i++)
        p[i] = (ptk_t){values + i * k, i, k};
    qsort(p, (size_t)n, sizeof *p, ptk_cmp);
    int64_t nf = 0;
    for (int64_t i = 0; i < n; i++) {
        bool dominated = false;
        for (int64_t f = 0; f < nf && !dominated; f++)
            dominated = dominates(values + front[f] * k, p[i].v, k);
        if (!dominated)
            front[nf++] = p[i].i;
    }
    free(p);
    return nf;
}

int64_t sax_pareto_front(const double *values, int64_t n, int k, int64_t *front)
{
    if (k != 2)
        return sax_pareto_front_general(values, n, k, front);
    if (n <= 0)
        return 0;
    pt2_t *p = malloc((size_t)n * sizeof *p);
    if (!p)
        return -1;
    for (int64_t i = 0; i < n; i++)
        p[i] = (pt2_t){values[2 * i], values[2 * i + 1], i};
    qsort(p, (size_t)n, sizeof *p, pt2_cmp);
    int64_t nf = 0;
    double best_b = INFINITY, kept_a = NAN;
    for (int64_t i = 0; i < n; i++) {
        /* Earlier points have a <= this a; the one holding best_b dominates this point unless
         * this point beats it on b, or is equal to it (then it is the last point kept). */
        if (nf == 0 || p[i].b < best_b || (p[i].b == best_b && p[i].a == kept_a)) {
            front[nf++] = p[i].i;
            best_b = p[i].b;
            kept_a = p[i].a;
        }
    }
    free(p);
    return nf;
}
