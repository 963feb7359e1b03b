/* calibrate.c - `sax calibrate`: reads MEASUREMENTS.json and runs the fits in order: the network
 * levels (nccl-tests tables), the GEMM curve of each GPU type, then the parameters only end-to-end
 * runs determine; calibrate_report.c prints the result and calibrate_output.c writes CALIBRATED.json
 * (docs/calibration.md).
 * Not collective: the command runs it on one rank; PETSc objects live on PETSC_COMM_SELF.
 */
#include "calibration_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers -------------------------------------------------------------------------- */

static sax_status_t check_keys(const cJSON *obj, const char *const *allowed, const char *file,
                               const char *path, sax_error_t *err)
{
    if (!cJSON_IsObject(obj))
        return sax_error_set(err, SAX_ERR_INPUT, "%s: %s: expected an object", file, path);
    for (const cJSON *it = obj->child; it != NULL; it = it->next) {
        bool ok = false;
        for (int i = 0; allowed[i] != NULL && !ok; i++)
            ok = strcmp(it->string, allowed[i]) == 0;
        if (!ok) {
            char list[512] = "";
            for (int i = 0; allowed[i] != NULL; i++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", allowed[i]);
            return sax_error_set(err, SAX_ERR_INPUT, "%s: %s.%s: unknown key; expected one of: %s", file,
                                 path, it->string, list);
        }
    }
    return SAX_OK;
}

static sax_status_t get_string(const cJSON *obj, const char *key, bool required, const char *file,
                               const char *path, const char **out, sax_error_t *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (it == NULL && !required)
        return SAX_OK;
    if (!cJSON_IsString(it))
        return sax_error_set(err, SAX_ERR_INPUT, "%s: %s.%s: expected a string, found %s", file, path, key,
                             it == NULL ? "nothing" : "another type");
    *out = it->valuestring;
    return SAX_OK;
}

/* A positive number, or a string with a unit of `kind`. */
static sax_status_t get_quantity(const cJSON *it, sax_unit_kind_t kind, const char *file, const char *path,
                                 const char *key, double *out, sax_error_t *err)
{
    if (cJSON_IsNumber(it))
        *out = it->valuedouble;
    else if (cJSON_IsString(it)) {
        sax_error_t inner;
        if (sax_units_parse(it->valuestring, kind, out, &inner) != SAX_OK)
            return sax_error_set(err, SAX_ERR_INPUT, "%s: %s.%s: %s", file, path, key, inner.text);
    } else
        return sax_error_set(err, SAX_ERR_INPUT, "%s: %s.%s: expected a number or a quantity such as %s",
                             file, path, key, sax_unit_kind_example(kind));
    if (!(*out > 0.0) || !isfinite(*out))
        return sax_error_set(err, SAX_ERR_INPUT, "%s: %s.%s: expected a positive value, found %g", file, path,
                             key, *out);
    return SAX_OK;
}

/* An integer from 1 to `max`. */
static sax_status_t get_positive_int(const cJSON *obj, const char *key, double max, const char *file,
                                     const char *path, double *out, sax_error_t *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(it) || !(it->valuedouble >= 1.0 && it->valuedouble <= max) ||
        it->valuedouble != floor(it->valuedouble)) {
        char found[64];
        if (cJSON_IsNumber(it))
            snprintf(found, sizeof found, "%.17g", it->valuedouble);
        else
            snprintf(found, sizeof found, "%s", it == NULL ? "nothing" : "another type");
        return sax_error_set(err, SAX_ERR_INPUT, "%s: %s.%s: expected an integer from 1 to %.0f, found %s",
                             file, path, key, max, found);
    }
    *out = it->valuedouble;
    return SAX_OK;
}

/* `file` relative to the directory of `base`, unless absolute. */
static void resolve_path(const char *base, const char *file, char *out, size_t n)
{
    const char *slash = strrchr(base, '/');
    if (file[0] == '/' || slash == NULL)
        snprintf(out, n, "%s", file);
    else
        snprintf(out, n, "%.*s/%s", (int)(slash - base), base, file);
}

/* ---- the network: targets, collectives ------------------------------------------------------ */

static void setup_targets(cal_state_t *st)
{
    const sax_cluster_t *c = &st->config.problem.cluster;
    st->n_targets = 0;
    cal_target_t *t = &st->targets[st->n_targets++];
    memset(t, 0, sizeof *t);
    t->kind = CAL_TARGET_SCALE_UP;
    snprintf(t->name, sizeof t->name, "scale_up");
    for (int i = 0; i < c->n_tiers; i++) {
        t = &st->targets[st->n_targets++];
        memset(t, 0, sizeof *t);
        t->kind = CAL_TARGET_TIER;
        t->index = i;
        snprintf(t->name, sizeof t->name, "%s", c->tiers[i].name);
    }
    for (int i = 0; i < c->n_links; i++) {
        t = &st->targets[st->n_targets++];
        memset(t, 0, sizeof *t);
        t->kind = CAL_TARGET_LINK;
        t->index = i;
        snprintf(t->name, sizeof t->name, "site_links[%d]", i);
    }
}

static int target_find(const cal_state_t *st, const char *name)
{
    for (int i = 0; i < st->n_targets; i++)
        if (strcmp(st->targets[i].name, name) == 0)
            return i;
    return -1;
}

/* A measurement of a level must cross it and stay inside it: more GPUs than the unit inside (the
 * scale-up domain or the previous tier), at most the GPUs of one unit of the level. */
static sax_status_t check_span(const cal_state_t *st, const cal_target_t *t, const sax_coll_measurement_t *m,
                               const char *file, const char *path, sax_error_t *err)
{
    const sax_cluster_t *c = &st->config.problem.cluster;
    long span = (long)(m->gpus - 1) * m->stride + 1; /* GPUs from the first member to the last */
    if (t->kind == CAL_TARGET_SCALE_UP && span > c->scale_up.size)
        return sax_error_set(err, SAX_ERR_INPUT,
                             "%s: %s.gpus: %d GPUs %ld apart do not fit in one scale-up domain of %d GPUs "
                             "(cluster.scale_up.size of %s); a collective across more GPUs measures a tier",
                             file, path, m->gpus, m->stride, c->scale_up.size, st->opts->config_path);
    if (t->kind == CAL_TARGET_TIER) {
        int inner = t->index == 0 ? c->scale_up.size : c->tiers[t->index - 1].gpus;
        int outer = c->tiers[t->index].gpus;
        if (inner == outer) /* a tier whose unit is the unit inside it: nothing crosses it alone */
            return sax_error_set(err, SAX_ERR_INPUT,
                                 "%s: %s.tier: expected a tier a collective can cross alone, found \"%s\", "
                                 "whose unit (%d GPUs) is the unit inside it: every collective that leaves "
                                 "it also crosses the tier outside it; measure that tier instead",
                                 file, path, t->name, outer);
        if (span <= inner || span > outer)
            return sax_error_set(
                err, SAX_ERR_INPUT,
                "%s: %s.gpus: expected a collective across tier \"%s\" to span more than one unit inside it "
                "(%d GPUs) and at most one unit of it (%d GPUs), found %d GPUs %ld apart (%ld GPUs)",
                file, path, t->name, inner, outer, m->gpus, m->stride, span);
    }
    return SAX_OK;
}

static sax_status_t parse_collectives(cal_state_t *st, const cJSON *arr, sax_coll_measurement_t **out,
                                      int **target_of, int *n_out, sax_error_t *err)
{
    static const char *const keys[] = {"file",  "op",     "tier", "gpus", "algorithm",
                                       "flows", "stride", "note", NULL};
    const char *file = st->opts->measurements_path;
    *out = NULL;
    *target_of = NULL;
    *n_out = 0;
    if (!cJSON_IsArray(arr))
        return sax_error_set(err, SAX_ERR_INPUT, "%s: collectives: expected a list", file);
    int n = cJSON_GetArraySize(arr);
    if (n == 0)
        return SAX_OK;
    sax_coll_measurement_t *m = calloc((size_t)n, sizeof *m);
    int *tg = calloc((size_t)n, sizeof *tg);
    if (m == NULL || tg == NULL) {
        free(m);
        free(tg);
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory reading collectives");
    }
    *out = m;
    *target_of = tg;
    sax_status_t s = SAX_OK;
    int i = 0;
    for (const cJSON *e = arr->child; e != NULL; e = e->next, i++) {
        char path[64];
        snprintf(path, sizeof path, "collectives[%d]", i);
        sax_coll_measurement_t *mi = &m[i];
        snprintf(mi->label, sizeof mi->label, "%s", path);
        const char *fname = NULL, *op = NULL, *tier = NULL, *algo = "ring";
        double gpus = 0;
        if ((s = check_keys(e, keys, file, path, err)) != SAX_OK ||
            (s = get_string(e, "file", true, file, path, &fname, err)) != SAX_OK ||
            (s = get_string(e, "op", true, file, path, &op, err)) != SAX_OK ||
            (s = get_string(e, "tier", true, file, path, &tier, err)) != SAX_OK ||
            (s = get_string(e, "algorithm", false, file, path, &algo, err)) != SAX_OK ||
            (s = get_positive_int(e, "gpus", 1e7, file, path, &gpus, err)) != SAX_OK)
            break;
        int opi = sax_coll_op_lookup(op);
        if (opi < 0) {
            s = sax_error_set(
                err, SAX_ERR_INPUT,
                "%s: %s.op: expected all_reduce, all_gather, reduce_scatter, all_to_all (or alltoall) or sendrecv, "
                "found \"%s\"",
                file, path, op);
            break;
        }
        mi->op = (sax_coll_op_t)opi;
        int al = sax_name_lookup(sax_algorithm_names, SAX_ALGORITHM_COUNT, algo);
        if (al < 0) {
            s = sax_error_set(err, SAX_ERR_INPUT, "%s: %s.algorithm: expected ring or tree, found \"%s\"",
                              file, path, algo);
            break;
        }
        mi->algorithm = (sax_algorithm_t)al;
        mi->gpus = (int)gpus;
        mi->flows = 1.0;
        const cJSON *fl = cJSON_GetObjectItemCaseSensitive(e, "flows");
        if (fl != NULL &&
            (s = get_quantity(fl, SAX_UNIT_NONE, file, path, "flows", &mi->flows, err)) != SAX_OK)
            break;
        tg[i] = target_find(st, tier);
        if (tg[i] < 0) {
            char list[1024] = "";
            for (int t = 0; t < st->n_targets; t++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", t ? ", " : "",
                         st->targets[t].name);
            s = sax_error_set(err, SAX_ERR_INPUT,
                              "%s: %s.tier: \"%s\" is not a network level of %s; expected one of: %s", file,
                              path, tier, st->opts->config_path, list);
            break;
        }
        resolve_path(file, fname, mi->path, sizeof mi->path);
        sax_error_t table_err = {{0}};
        if ((s = sax_nccl_load(mi->path, &mi->table, &table_err)) != SAX_OK) {
            sax_error_set(err, s, "%s: %s.file: %.900s", file, path, table_err.text);
            break;
        }
        if (mi->table.ranks > 0 && mi->table.ranks != mi->gpus) {
            s = sax_error_set(err, SAX_ERR_INPUT, "%s: %s.gpus: says %d GPUs, but %s lists %d ranks", file,
                              path, mi->gpus, mi->path, mi->table.ranks);
            break;
        }
        if (mi->table.binary[0] != '\0' && strcmp(mi->table.binary, sax_coll_op_binaries[mi->op]) != 0) {
            s = sax_error_set(err, SAX_ERR_INPUT, "%s: %s.op: says %s, but %s is the output of %s", file,
                              path, op, mi->path, mi->table.binary);
            break;
        }
        cal_target_t *t = &st->targets[tg[i]];
        /* the group sax's model places: consecutive GPUs inside a domain or a tier; across a site
         * link, half the members in each of the first two sites */
        const sax_cluster_t *cl = &st->config.problem.cluster;
        mi->stride = t->kind == CAL_TARGET_LINK && cl->n_sites > 1 && mi->gpus >= 2
                         ? cl->sites[0].gpus / (mi->gpus / 2)
                         : 1;
        if (mi->stride < 1)
            mi->stride = 1;
        double stride = 0;
        if (cJSON_GetObjectItemCaseSensitive(e, "stride") != NULL) {
            if ((s = get_positive_int(e, "stride", 1e9, file, path, &stride, err)) != SAX_OK)
                break;
            mi->stride = (long)stride;
        }
        if ((s = check_span(st, t, mi, file, path, err)) != SAX_OK)
            break;
        if (fl != NULL && t->kind != CAL_TARGET_LINK) {
            s = sax_error_set(
                err, SAX_ERR_INPUT,
                "%s: %s.flows: applies to site links only (their aggregate bandwidth), found it for "
                "\"%s\"",
                file, path, t->name);
            break;
        }
        if (t->kind == CAL_TARGET_LINK && t->n_measurements > 0 && t->flows != mi->flows) {
            s = sax_error_set(
                err, SAX_ERR_INPUT,
                "%s: %s.flows: %g, but an earlier measurement of %s says %g; every measurement of "
                "one site link must have the same number of flows",
                file, path, mi->flows, t->name, t->flows);
            break;
        }
        t->flows = mi->flows;
        t->n_measurements++;
    }
    *n_out = s == SAX_OK ? i : i + 1; /* a failed entry may hold a parsed table to free */
    return s;
}

/* sub[0..k) are the measurements of one level; sendrecv has no algorithm and takes no part. */
static void fit_per_algorithm(cal_target_t *tg, const sax_coll_measurement_t *sub, int k)
{
    bool used[SAX_ALGORITHM_COUNT] = {false};
    int n_used = 0;
    for (int i = 0; i < k; i++)
        if (sub[i].op != SAX_OP_SENDRECV && !used[sub[i].algorithm]) {
            used[sub[i].algorithm] = true;
            n_used++;
        }
    tg->n_algo = 0;
    if (n_used < 2)
        return;
    sax_coll_measurement_t *one = malloc((size_t)k * sizeof *one);
    if (one == NULL)
        return;
    for (int a = 0; a < SAX_ALGORITHM_COUNT; a++) {
        if (!used[a])
            continue;
        int n = 0;
        for (int i = 0; i < k; i++)
            if (sub[i].op != SAX_OP_SENDRECV && (int)sub[i].algorithm == a)
                one[n++] = sub[i];
        char label[SAX_PATH_LEN + 32];
        snprintf(label, sizeof label, "%s, %s only", tg->name, sax_algorithm_names[a]);
        sax_error_t why = {{0}};
        int j = tg->n_algo++;
        tg->algo[j].algorithm = (sax_algorithm_t)a;
        tg->algo[j].ok = sax_coll_fit(label, one, n, &tg->algo[j].fit, &why) == SAX_OK;
        snprintf(tg->algo[j].why, sizeof tg->algo[j].why, "%.250s", tg->algo[j].ok ? "" : why.text);
    }
    free(one);
}

static sax_status_t fit_network(cal_state_t *st, const sax_coll_measurement_t *m, const int *target_of, int n,
                                sax_error_t *err)
{
    if (n == 0)
        return SAX_OK;
    /* Every level without data, named at once. */
    char missing[1024] = "";
    for (int t = 0; t < st->n_targets; t++)
        if (st->targets[t].n_measurements == 0)
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s\"%s\"",
                     missing[0] ? ", " : "", st->targets[t].name);
    if (missing[0] != '\0' && !st->opts->partial)
        return sax_error_set(err, SAX_ERR_INPUT,
                             "%s: collectives: no measurement for %s of %s; add nccl-tests outputs measured "
                             "across them, or pass --partial to keep their configured values",
                             st->opts->measurements_path, missing, st->opts->config_path);
    sax_coll_measurement_t *sub = malloc((size_t)n * sizeof *sub);
    if (sub == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory fitting the network");
    sax_status_t s = SAX_OK;
    for (int t = 0; t < st->n_targets && s == SAX_OK; t++) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (target_of[i] == t)
                sub[k++] = m[i];
        if (k == 0)
            continue;
        cal_target_t *tg = &st->targets[t];
        sax_error_t fit_err = {{0}};
        s = sax_coll_fit(tg->name, sub, k, &tg->fit, &fit_err);
        if (s != SAX_OK)
            sax_error_set(err, s, "%s: collectives: %.900s", st->opts->measurements_path, fit_err.text);
        tg->fitted = s == SAX_OK;
        if (s == SAX_OK) {
            fit_per_algorithm(tg, sub, k);
            s = cal_model_fit(st, tg, sub, k, err);
        }
    }
    free(sub);
    return s;
}

/* ---- GEMMs ---------------------------------------------------------------------------------- */

static void collect_config_gpus(cal_state_t *st)
{
    const sax_cluster_t *c = &st->config.problem.cluster;
    st->n_gpus = 0;
    const sax_gpu_t *list[SAX_MAX_SITES + 1];
    int nl = 0;
    list[nl++] = &c->gpu;
    for (int s = 0; s < c->n_sites; s++)
        list[nl++] = &c->sites[s].gpu;
    for (int i = 0; i < nl; i++) {
        if (cal_gpu_find(st, list[i]->name) >= 0)
            continue;
        cal_gpu_t *g = &st->gpus[st->n_gpus++];
        memset(g, 0, sizeof *g);
        snprintf(g->name, sizeof g->name, "%s", list[i]->name);
        g->gpu = *list[i];
    }
}

static sax_status_t fit_gemms(cal_state_t *st, const cJSON *arr, sax_error_t *err)
{
    static const char *const keys[] = {"gpu", "m", "n", "k", "precision", "time", "tflops", "note", NULL};
    const char *file = st->opts->measurements_path;
    if (!cJSON_IsArray(arr))
        return sax_error_set(err, SAX_ERR_INPUT, "%s: gemms: expected a list", file);
    int n = cJSON_GetArraySize(arr);
    if (n == 0)
        return SAX_OK;
    sax_gemm_measurement_t *g = calloc((size_t)n, sizeof *g);
    int *gpu_of = calloc((size_t)n, sizeof *gpu_of);
    sax_gemm_measurement_t *sub = calloc((size_t)n, sizeof *sub);
    sax_status_t s = SAX_OK;
    if (g == NULL || gpu_of == NULL || sub == NULL) {
        s = sax_error_set(err, SAX_ERR_NOMEM, "out of memory reading gemms");
        goto done;
    }
    int i = 0;
    for (const cJSON *e = arr->child; e != NULL; e = e->next, i++) {
        char path[64];
        snprintf(path, sizeof path, "gemms[%d]", i);
        snprintf(g[i].label, sizeof g[i].label, "%s", path);
        const char *gpu = NULL, *prec = "bf16";
        if ((s = check_keys(e, keys, file, path, err)) != SAX_OK ||
            (s = get_string(e, "gpu", true, file, path, &gpu, err)) != SAX_OK ||
            (s = get_string(e, "precision", false, file, path, &prec, err)) != SAX_OK ||
            (s = get_positive_int(e, "m", 1e7, file, path, &g[i].m, err)) != SAX_OK ||
            (s = get_positive_int(e, "n", 1e7, file, path, &g[i].n, err)) != SAX_OK ||
            (s = get_positive_int(e, "k", 1e7, file, path, &g[i].k, err)) != SAX_OK)
            goto done;
        int p = sax_name_lookup(sax_precision_names, SAX_PRECISION_COUNT, prec);
        if (p < 0) {
            s = sax_error_set(err, SAX_ERR_INPUT, "%s: %s.precision: expected bf16 or fp8, found \"%s\"",
                              file, path, prec);
            goto done;
        }
        g[i].precision = (sax_precision_t)p;
        const cJSON *time = cJSON_GetObjectItemCaseSensitive(e, "time");
        const cJSON *tflops = cJSON_GetObjectItemCaseSensitive(e, "tflops");
        if ((time == NULL) == (tflops == NULL)) {
            s = sax_error_set(err, SAX_ERR_INPUT,
                              "%s: %s: expected exactly one of \"time\" and \"tflops\", found %s", file, path,
                              time == NULL ? "neither" : "both");
            goto done;
        }
        if (time != NULL) {
            if ((s = get_quantity(time, SAX_UNIT_TIME, file, path, "time", &g[i].time_s, err)) != SAX_OK)
                goto done;
        } else {
            /* a bare number is in TFLOP/s, as the key says; a string carries its own unit */
            double rate;
            if ((s = get_quantity(tflops, SAX_UNIT_FLOPS, file, path, "tflops", &rate, err)) != SAX_OK)
                goto done;
            if (cJSON_IsNumber(tflops))
                rate *= 1e12;
            g[i].time_s = 2.0 * g[i].m * g[i].n * g[i].k / rate;
        }
        gpu_of[i] = cal_gpu_find(st, gpu);
        if (gpu_of[i] < 0) {
            char list[512] = "";
            for (int k = 0; k < st->n_gpus; k++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", k ? ", " : "",
                         st->gpus[k].name);
            s = sax_error_set(err, SAX_ERR_INPUT,
                              "%s: %s.gpu: \"%s\" is not a GPU type of %s; expected one of: %s", file, path,
                              gpu, st->opts->config_path, list);
            goto done;
        }
    }
    for (int k = 0; k < st->n_gpus && s == SAX_OK; k++) {
        int ns = 0;
        for (int j = 0; j < n; j++)
            if (gpu_of[j] == k)
                sub[ns++] = g[j];
        if (ns == 0)
            continue;
        sax_error_t fit_err = {{0}};
        s = sax_gemm_fit(st->gpus[k].name, &st->gpus[k].gpu, sub, ns, &st->gpus[k].gemm, &fit_err);
        if (s != SAX_OK)
            sax_error_set(err, s, "%s: gemms: %.900s", file, fit_err.text);
        st->gpus[k].gemm_fitted = s == SAX_OK;
    }
done:
    st->gemm_rows = g; /* freed with the state, for the report */
    st->gemm_gpu = gpu_of;
    st->n_gemm_rows = g != NULL && gpu_of != NULL ? n : 0;
    free(sub);
    return s;
}

/* ---- runs ------------------------------------------------------------------------------------ */

/* "runs": "DATASET.json": the cases of a `sax validate` dataset (relative to the measurements file). */
static sax_status_t runs_from_dataset(cal_state_t *st, const char *name, sax_error_t *err)
{
    char path[1024];
    resolve_path(st->opts->measurements_path, name, path, sizeof path);
    sax_case_t *cases = NULL;
    int n = 0;
    sax_status_t s = sax_dataset_load(path, &cases, &n, err);
    if (s != SAX_OK)
        return s;
    st->runs = calloc((size_t)n + 1, sizeof *st->runs);
    if (st->runs == NULL) {
        sax_dataset_free(cases, n);
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory reading %s", path);
    }
    for (int i = 0; i < n; i++) {
        cal_run_t *r = &st->runs[i];
        snprintf(r->name, sizeof r->name, "%s", cases[i].name);
        snprintf(r->family, sizeof r->family, "%s", cases[i].family);
        snprintf(r->label, sizeof r->label, "%.60s cases[%d] (%.40s)", name, i, cases[i].name);
        r->cfg = cases[i].config; /* ownership moves to the run */
        memset(&cases[i].config, 0, sizeof cases[i].config);
        r->measured_s = cases[i].measured_s;
    }
    st->n_runs = n;
    sax_dataset_free(cases, n);
    for (int i = 0; i < n; i++)
        if (!st->runs[i].cfg.has_candidate)
            return sax_error_set(err, SAX_ERR_INPUT,
                                 "%s: cases[%d].config.parallelism: expected the parallelism "
                                 "of the measured run, found nothing",
                                 path, i);
    return SAX_OK;
}

static sax_status_t parse_runs(cal_state_t *st, const cJSON *arr, sax_error_t *err)
{
    static const char *const keys[] = {"name",    "config",      "measured", "family", "source",
                                       "derived", "assumptions", "note",     NULL};
    static const char *const measured_keys[] = {"iteration_time_s", NULL};
    const char *file = st->opts->measurements_path;
    if (cJSON_IsString(arr))
        return runs_from_dataset(st, arr->valuestring, err);
    if (!cJSON_IsArray(arr))
        return sax_error_set(
            err, SAX_ERR_INPUT,
            "%s: runs: expected a list of runs or the file name of a dataset, found another type", file);
    int n = cJSON_GetArraySize(arr);
    if (n == 0)
        return SAX_OK;
    st->runs = calloc((size_t)n, sizeof *st->runs);
    if (st->runs == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory reading runs");
    int i = 0;
    for (const cJSON *e = arr->child; e != NULL; e = e->next, i++) {
        cal_run_t *r = &st->runs[i];
        char path[64];
        snprintf(path, sizeof path, "runs[%d]", i);
        const char *name = path;
        sax_status_t s;
        if ((s = check_keys(e, keys, file, path, err)) != SAX_OK ||
            (s = get_string(e, "name", false, file, path, &name, err)) != SAX_OK)
            return s;
        snprintf(r->name, sizeof r->name, "%s", name);
        snprintf(r->label, sizeof r->label, "%.24s (%.64s)", path, name);
        const char *family = "";
        if ((s = get_string(e, "family", false, file, path, &family, err)) != SAX_OK)
            return s;
        snprintf(r->family, sizeof r->family, "%s", family);
        const cJSON *measured = cJSON_GetObjectItemCaseSensitive(e, "measured");
        char mpath[80];
        snprintf(mpath, sizeof mpath, "%s.measured", path);
        if ((s = check_keys(measured, measured_keys, file, mpath, err)) != SAX_OK ||
            (s = get_quantity(cJSON_GetObjectItemCaseSensitive(measured, "iteration_time_s"), SAX_UNIT_TIME,
                              file, mpath, "iteration_time_s", &r->measured_s, err)) != SAX_OK)
            return s;
        char cpath[80];
        snprintf(cpath, sizeof cpath, "%s.config", path);
        const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(e, "config");
        if (cfg == NULL)
            return sax_error_set(err, SAX_ERR_INPUT,
                                 "%s: %s: expected a full sax configuration, found nothing", file, cpath);
        if ((s = sax_config_from_json(cfg, file, cpath, &r->cfg, err)) != SAX_OK)
            return s;
        st->n_runs = i + 1;
        if (!r->cfg.has_candidate)
            return sax_error_set(
                err, SAX_ERR_INPUT,
                "%s: %s.parallelism: expected the parallelism of the measured run, found nothing", file,
                cpath);
    }
    return SAX_OK;
}

/* ---- the command ---------------------------------------------------------------------------- */

sax_status_t sax_calibrate_run(const sax_calibrate_opts_t *opts, FILE *out, sax_error_t *err)
{
    static const char *const top_keys[] = {"collectives", "gemms", "runs", "note", NULL};
    cal_state_t *st = calloc(1, sizeof *st);
    if (st == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory");
    st->opts = opts;
    sax_coll_measurement_t *meas = NULL;
    int *target_of = NULL, nm = 0;
    cal_holdout_t hold;
    memset(&hold, 0, sizeof hold);
    char *text = NULL;
    cJSON *root = NULL;
    bool petsc_started = false;
    sax_status_t s = sax_config_load(opts->config_path, &st->config, err);
    if (s != SAX_OK)
        goto done;
    if ((s = sax_read_text_file(opts->measurements_path, "the measurements", &text, err)) != SAX_OK)
        goto done;
    if ((s = sax_json_parse(text, opts->measurements_path, &root, err)) != SAX_OK)
        goto done;
    if ((s = check_keys(root, top_keys, opts->measurements_path, "(top level)", err)) != SAX_OK)
        goto done;
    const cJSON *coll = cJSON_GetObjectItemCaseSensitive(root, "collectives");
    const cJSON *gemms = cJSON_GetObjectItemCaseSensitive(root, "gemms");
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    if (cJSON_GetArraySize(coll) + cJSON_GetArraySize(gemms) + cJSON_GetArraySize(runs) == 0 &&
        !cJSON_IsString(runs)) {
        s = sax_error_set(
            err, SAX_ERR_INPUT,
            "%s: nothing to fit: expected measurements in \"collectives\", \"gemms\" or \"runs\"",
            opts->measurements_path);
        goto done;
    }
    st->scratch = malloc(sax_scratch_size());
    if (st->scratch == NULL) {
        s = sax_error_set(err, SAX_ERR_NOMEM, "out of memory");
        goto done;
    }
    sax_scratch_init(st->scratch);
    if ((s = sax_lsq_petsc_begin(&petsc_started, err)) != SAX_OK)
        goto done;

    setup_targets(st);
    collect_config_gpus(st);
    if (coll != NULL && ((s = parse_collectives(st, coll, &meas, &target_of, &nm, err)) != SAX_OK ||
                         (s = fit_network(st, meas, target_of, nm, err)) != SAX_OK))
        goto done;
    if (gemms != NULL && (s = fit_gemms(st, gemms, err)) != SAX_OK)
        goto done;
    if (runs != NULL && ((s = parse_runs(st, runs, err)) != SAX_OK ||
                         (st->n_runs > 0 && (s = cal_runs_fit(st, err)) != SAX_OK)))
        goto done;
    if ((s = cal_holdout_evaluate(st, &hold, err)) != SAX_OK)
        goto done;
    if ((s = cal_write_output(st, err)) != SAX_OK)
        goto done;
    if (opts->json)
        cal_report_json(st, meas, target_of, nm, &hold, out);
    else
        cal_report_text(st, meas, target_of, nm, &hold, out);
done:
    sax_lsq_petsc_end(petsc_started);
    cal_holdout_fini(&hold);
    for (int i = 0; i < nm; i++)
        sax_nccl_table_fini(&meas[i].table);
    free(meas);
    free(target_of);
    for (int i = 0; i < st->n_runs; i++)
        sax_config_fini(&st->runs[i].cfg);
    free(st->runs);
    free(st->gemm_rows);
    free(st->gemm_gpu);
    free(st->scratch);
    sax_config_fini(&st->config);
    cJSON_Delete(root);
    free(text);
    free(st);
    return s;
}
