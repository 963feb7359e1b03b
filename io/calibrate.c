/* calibrate.c - `sax calibrate`: reads MEASUREMENTS.json, fits the network tiers (nccl-tests tables),
 * the GEMM curve of each GPU type, then the parameters only end-to-end runs determine, reports the
 * fits with standard errors, residuals and the cross-validated error, and writes CALIBRATED.json:
 * the -c configuration file with the fitted values written back as SI numbers (docs/calibration.md).
 * Not collective: the command runs it on one rank; PETSc objects live on PETSC_COMM_SELF.
 */
#include "calibrate_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers -------------------------------------------------------------------------- */

static sax_status_t read_text_file(const char *path, const char *what, char **out, sax_error_t *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return sax_error_set(err, SAX_ERR_INPUT, "%s: cannot open %s: %s", path, what, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
        if (cap - len < 2) {
            char *nb = realloc(buf, 2 * cap);
            if (nb == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    bool failed = ferror(f) != 0;
    fclose(f);
    if (buf == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory reading %s", path);
    if (failed) {
        free(buf);
        return sax_error_set(err, SAX_ERR_IO, "%s: read error", path);
    }
    buf[len] = '\0';
    *out = buf;
    return SAX_OK;
}

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

static sax_status_t get_positive_int(const cJSON *obj, const char *key, const char *file, const char *path,
                                     double *out, sax_error_t *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(it) || !(it->valuedouble >= 1.0) || it->valuedouble != floor(it->valuedouble))
        return sax_error_set(err, SAX_ERR_INPUT, "%s: %s.%s: expected a positive integer, found %s", file,
                             path, key,
                             it == NULL           ? "nothing"
                             : cJSON_IsNumber(it) ? "another number"
                                                  : "another type");
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
    if (t->kind == CAL_TARGET_SCALE_UP && m->gpus > c->scale_up.size)
        return sax_error_set(err, SAX_ERR_INPUT,
                             "%s: %s.gpus: %d GPUs do not fit in one scale-up domain of %d GPUs "
                             "(cluster.scale_up.size of %s); a collective across more GPUs measures a tier",
                             file, path, m->gpus, c->scale_up.size, st->opts->config_path);
    if (t->kind == CAL_TARGET_TIER) {
        int inner = t->index == 0 ? c->scale_up.size : c->tiers[t->index - 1].gpus;
        int outer = c->tiers[t->index].gpus;
        if (m->gpus <= inner || m->gpus > outer)
            return sax_error_set(
                err, SAX_ERR_INPUT,
                "%s: %s.gpus: expected a collective across tier \"%s\" to span more than one unit inside it "
                "(%d GPUs) and at most one unit of it (%d GPUs), found %d GPUs",
                file, path, t->name, inner, outer, m->gpus);
    }
    return SAX_OK;
}

static sax_status_t parse_collectives(cal_state_t *st, const cJSON *arr, sax_coll_measurement_t **out,
                                      int **target_of, int *n_out, sax_error_t *err)
{
    static const char *const keys[] = {"file", "op", "tier", "gpus", "algorithm", "flows", "note", NULL};
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
            (s = get_positive_int(e, "gpus", file, path, &gpus, err)) != SAX_OK)
            break;
        int opi = sax_name_lookup(sax_coll_op_names, SAX_COLL_OP_COUNT, op);
        if (opi < 0) {
            s = sax_error_set(
                err, SAX_ERR_INPUT,
                "%s: %s.op: expected all_reduce, all_gather, reduce_scatter, alltoall or sendrecv, "
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
        if ((s = sax_nccl_load(mi->path, &mi->table, err)) != SAX_OK)
            break;
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
        if ((s = check_span(st, t, mi, file, path, err)) != SAX_OK)
            break;
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
        if (sub[i].op != SAX_COLL_SENDRECV && !used[sub[i].algorithm]) {
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
            if (sub[i].op != SAX_COLL_SENDRECV && (int)sub[i].algorithm == a)
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
        s = sax_coll_fit(tg->name, sub, k, &tg->fit, err);
        tg->fitted = s == SAX_OK;
        if (s == SAX_OK)
            fit_per_algorithm(tg, sub, k);
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
            (s = get_positive_int(e, "m", file, path, &g[i].m, err)) != SAX_OK ||
            (s = get_positive_int(e, "n", file, path, &g[i].n, err)) != SAX_OK ||
            (s = get_positive_int(e, "k", file, path, &g[i].k, err)) != SAX_OK)
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
        s = sax_gemm_fit(st->gpus[k].name, &st->gpus[k].gpu, sub, ns, &st->gpus[k].gemm, err);
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

static sax_status_t parse_runs(cal_state_t *st, const cJSON *arr, sax_error_t *err)
{
    static const char *const keys[] = {"name",    "config",      "measured", "family", "source",
                                       "derived", "assumptions", "note",     NULL};
    static const char *const measured_keys[] = {"iteration_time_s", NULL};
    const char *file = st->opts->measurements_path;
    if (!cJSON_IsArray(arr))
        return sax_error_set(err, SAX_ERR_INPUT, "%s: runs: expected a list", file);
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

/* ---- the output file ------------------------------------------------------------------------ */

static void set_number(cJSON *obj, const char *key, double v)
{
    cJSON *num = cJSON_CreateNumber(v);
    if (cJSON_GetObjectItemCaseSensitive(obj, key) != NULL)
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, num);
    else
        cJSON_AddItemToObject(obj, key, num);
}

static cJSON *object_member(cJSON *obj, const char *key)
{
    cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (it == NULL) {
        it = cJSON_CreateObject();
        cJSON_AddItemToObject(obj, key, it);
    }
    return it;
}

/* A GPU given as a preset name becomes {"preset": name} so that fitted keys can override it. */
static cJSON *gpu_object(cJSON *parent, const char *key)
{
    cJSON *g = cJSON_GetObjectItemCaseSensitive(parent, key);
    if (cJSON_IsString(g)) {
        cJSON *obj = cJSON_CreateObject();
        cJSON_AddStringToObject(obj, "preset", g->valuestring);
        cJSON_ReplaceItemInObjectCaseSensitive(parent, key, obj);
        return obj;
    }
    return cJSON_IsObject(g) ? g : NULL;
}

static void write_gpu_values(const cal_state_t *st, const char *name, cJSON *g)
{
    int gi = cal_gpu_find(st, name);
    if (g == NULL || gi < 0)
        return;
    if (st->gpus[gi].gemm_fitted) {
        set_number(g, "gemm_efficiency_max", st->gpus[gi].gemm.eff_max);
        set_number(g, "gemm_efficiency_half_intensity", st->gpus[gi].gemm.half_ai);
    }
    for (int j = 0; j < st->n_params && st->run_fitted; j++)
        if (st->params[j].gpu == gi && st->params[j].determined)
            set_number(g,
                       st->params[j].kind == CAL_GEMM_EFF_MAX ? "gemm_efficiency_max" : "memory_efficiency",
                       st->params[j].value);
}

/* cJSON indents with tabs and separates keys from values with a tab; JSON strings cannot hold a raw
 * tab, so every tab is layout: two spaces of indentation, one space after a key. */
static bool write_untabbed(FILE *f, const char *text)
{
    bool line_start = true;
    for (const char *r = text; *r != '\0'; r++) {
        int rc;
        if (*r == '\t')
            rc = fputs(line_start ? "  " : " ", f);
        else {
            line_start = *r == '\n';
            rc = fputc(*r, f);
        }
        if (rc == EOF)
            return false;
    }
    return fputc('\n', f) != EOF;
}

static sax_status_t write_output(const cal_state_t *st, sax_error_t *err)
{
    char *text = NULL;
    sax_status_t s = read_text_file(st->opts->config_path, "the configuration", &text, err);
    if (s != SAX_OK)
        return s;
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (root == NULL)
        return sax_error_set(err, SAX_ERR_INPUT, "%s: not valid JSON", st->opts->config_path);
    cJSON *cluster = cJSON_GetObjectItemCaseSensitive(root, "cluster");
    for (int t = 0; t < st->n_targets && cJSON_IsObject(cluster); t++) {
        const cal_target_t *tg = &st->targets[t];
        if (!tg->fitted)
            continue;
        cJSON *obj = NULL;
        if (tg->kind == CAL_TARGET_SCALE_UP)
            obj = cJSON_GetObjectItemCaseSensitive(cluster, "scale_up");
        else if (tg->kind == CAL_TARGET_TIER)
            obj = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cluster, "tiers"), tg->index);
        else
            obj = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cluster, "site_links"), tg->index);
        if (!cJSON_IsObject(obj))
            continue;
        set_number(obj, "bandwidth", tg->fit.bw_Bps * (tg->kind == CAL_TARGET_LINK ? tg->flows : 1.0));
        set_number(obj, "latency", tg->fit.latency_s);
        if (tg->kind != CAL_TARGET_LINK)
            set_number(obj, "efficiency", 1.0);
    }
    if (cJSON_IsObject(cluster)) {
        write_gpu_values(st, st->config.problem.cluster.gpu.name, gpu_object(cluster, "gpu"));
        cJSON *sites = cJSON_GetObjectItemCaseSensitive(cluster, "sites");
        for (int i = 0; i < st->config.problem.cluster.n_sites; i++) {
            cJSON *site = cJSON_GetArrayItem(sites, i);
            if (cJSON_IsObject(site) && cJSON_GetObjectItemCaseSensitive(site, "gpu") != NULL)
                write_gpu_values(st, st->config.problem.cluster.sites[i].gpu.name, gpu_object(site, "gpu"));
        }
    }
    for (int j = 0; j < st->n_params && st->run_fitted; j++) {
        if (!st->params[j].determined || st->params[j].gpu >= 0)
            continue;
        cJSON *training = object_member(root, "training");
        set_number(training, st->params[j].kind == CAL_DP_OVERLAP ? "dp_overlap_efficiency" : "tp_overlap",
                   st->params[j].value);
    }
    char *out = cJSON_Print(root);
    cJSON_Delete(root);
    if (out == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory printing %s", st->opts->output_path);
    FILE *f = fopen(st->opts->output_path, "w");
    if (f == NULL) {
        free(out);
        return sax_error_set(err, SAX_ERR_IO, "%s: cannot write: %s", st->opts->output_path, strerror(errno));
    }
    bool ok = write_untabbed(f, out);
    ok = fclose(f) == 0 && ok;
    free(out);
    if (!ok)
        return sax_error_set(err, SAX_ERR_IO, "%s: write error", st->opts->output_path);
    /* What was written must load as a configuration. */
    sax_config_t check;
    s = sax_config_load(st->opts->output_path, &check, err);
    if (s != SAX_OK)
        return sax_error_set(err, SAX_ERR_INTERNAL, "the calibrated configuration does not load: %s",
                             err->text);
    sax_config_fini(&check);
    return SAX_OK;
}

/* ---- held-out dataset ----------------------------------------------------------------------- */

typedef struct {
    int n;
    sax_case_t *cases;
    double *before_s, *after_s; /* NAN: infeasible under the model */
} holdout_t;

static sax_status_t evaluate_holdout(const cal_state_t *st, holdout_t *h, sax_error_t *err)
{
    memset(h, 0, sizeof *h);
    if (st->opts->holdout_path == NULL)
        return SAX_OK;
    sax_status_t s = sax_dataset_load(st->opts->holdout_path, &h->cases, &h->n, err);
    if (s != SAX_OK)
        return s;
    h->before_s = calloc((size_t)h->n + 1, sizeof *h->before_s);
    h->after_s = calloc((size_t)h->n + 1, sizeof *h->after_s);
    if (h->before_s == NULL || h->after_s == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory evaluating %s", st->opts->holdout_path);
    double x[SAX_LSQ_MAX_PARAMS];
    for (int j = 0; j < st->n_params; j++)
        x[j] = st->params[j].value;
    cal_state_t none = *st; /* no fitted values: the dataset as configured */
    none.n_targets = 0;
    none.n_gpus = 0;
    none.n_params = 0;
    for (int i = 0; i < h->n; i++) {
        sax_error_t ignored;
        if (cal_predict(&none, NULL, &h->cases[i].config, h->cases[i].name, &h->before_s[i], &ignored) !=
            SAX_OK)
            h->before_s[i] = NAN;
        if (cal_predict(st, st->run_fitted ? x : NULL, &h->cases[i].config, h->cases[i].name, &h->after_s[i],
                        &ignored) != SAX_OK)
            h->after_s[i] = NAN;
    }
    return SAX_OK;
}

static void holdout_fini(holdout_t *h)
{
    if (h->cases != NULL)
        sax_dataset_free(h->cases, h->n);
    free(h->before_s);
    free(h->after_s);
    memset(h, 0, sizeof *h);
}

/* ---- report --------------------------------------------------------------------------------- */

typedef struct {
    double mean_abs, max_abs;
    int n;
} err_stats_t;

static void stats_add(err_stats_t *e, double predicted, double measured)
{
    if (!isfinite(predicted))
        return;
    double a = fabs(predicted / measured - 1.0);
    e->mean_abs = (e->mean_abs * e->n + a) / (e->n + 1);
    e->max_abs = fmax(e->max_abs, a);
    e->n++;
}

/* Relative errors of the fitted alpha-beta times against one table. */
static void measurement_errors(const cal_target_t *t, const sax_coll_measurement_t *m, double *rms,
                               double *mx)
{
    double ss = 0.0;
    int n = 0;
    *mx = 0.0;
    for (int r = 0; r < m->table.n_rows; r++)
        for (int h = 0; h < 2; h++) {
            const sax_nccl_row_t *row = &m->table.rows[r];
            double ca, cb;
            if (!(row->size_bytes > 0.0 && row->time_s[h] > 0.0) ||
                sax_coll_coefficients(m->op, m->algorithm, m->gpus, row->size_bytes, &ca, &cb, NULL) !=
                    SAX_OK)
                continue;
            double e = (ca * t->fit.latency_s + cb / t->fit.bw_Bps) / row->time_s[h] - 1.0;
            ss += e * e;
            *mx = fmax(*mx, fabs(e));
            n++;
        }
    *rms = n > 0 ? sqrt(ss / n) : 0.0;
}

/* A GEMM row's time under the fitted curve of its GPU. */
static double gemm_fitted_s(const cal_state_t *st, int row)
{
    const cal_gpu_t *cg = &st->gpus[st->gemm_gpu[row]];
    sax_gpu_t g = cg->gpu;
    g.gemm_eff_max = cg->gemm.eff_max;
    g.gemm_eff_half_ai = cg->gemm.half_ai;
    const sax_gemm_measurement_t *r = &st->gemm_rows[row];
    return sax_gemm_time_s(&g, r->m, r->n, r->k, r->precision);
}

/* What the -c configuration says about a level: alpha and the effective bandwidth the model uses
 * (bandwidth x efficiency; a site link's aggregate bandwidth). */
static void configured_level(const cal_state_t *st, const cal_target_t *tg, double *alpha, double *bw)
{
    const sax_cluster_t *c = &st->config.problem.cluster;
    if (tg->kind == CAL_TARGET_SCALE_UP) {
        *alpha = c->scale_up.latency_s;
        *bw = c->scale_up.bw_Bps * c->scale_up.efficiency;
    } else if (tg->kind == CAL_TARGET_TIER) {
        *alpha = c->tiers[tg->index].latency_s;
        *bw = c->tiers[tg->index].bw_Bps * c->tiers[tg->index].efficiency;
    } else {
        *alpha = c->links[tg->index].latency_s;
        *bw = c->links[tg->index].bw_Bps;
    }
}

static void print_text(const cal_state_t *st, const sax_coll_measurement_t *m, const int *target_of, int nm,
                       const holdout_t *h, FILE *out)
{
    fprintf(out, "sax calibrate: %s with %s -> %s\n", st->opts->measurements_path, st->opts->config_path,
            st->opts->output_path);
    bool any = false;
    for (int t = 0; t < st->n_targets; t++)
        any = any || st->targets[t].fitted;
    if (any) {
        fprintf(out, "\nnetwork (alpha per algorithm step, effective bandwidth; +- one standard error):\n");
        fprintf(out, "  %-16s %12s %10s %14s %12s %6s %9s %9s\n", "level", "alpha_us", "+-", "bw_GB/s", "+-",
                "points", "rms_err", "condition");
        for (int t = 0; t < st->n_targets; t++) {
            const cal_target_t *tg = &st->targets[t];
            if (!tg->fitted) {
                fprintf(out, "  %-16s (no measurement: configured values kept)\n", tg->name);
                continue;
            }
            fprintf(out, "  %-16s %12.4g %10.2g %14.5g %12.3g %6d %8.2f%% %9.3g%s\n", tg->name,
                    tg->fit.latency_s * 1e6, tg->fit.latency_se_s * 1e6, tg->fit.bw_Bps / 1e9,
                    tg->fit.bw_se_Bps / 1e9, tg->fit.points, 100.0 * tg->fit.rms_rel_error, tg->fit.condition,
                    tg->fit.latency_at_bound ? "  alpha < 0 unconstrained: held at 0" : "");
            for (int a = 0; a < tg->n_algo; a++) {
                if (tg->algo[a].ok)
                    fprintf(
                        out,
                        "    %-14s %12.4g %10.2g %14.5g %12.3g %6d %8.2f%% %9.3g  (%s alone; not written)\n",
                        "", tg->algo[a].fit.latency_s * 1e6, tg->algo[a].fit.latency_se_s * 1e6,
                        tg->algo[a].fit.bw_Bps / 1e9, tg->algo[a].fit.bw_se_Bps / 1e9, tg->algo[a].fit.points,
                        100.0 * tg->algo[a].fit.rms_rel_error, tg->algo[a].fit.condition,
                        sax_algorithm_names[tg->algo[a].algorithm]);
                else
                    fprintf(out, "    %-14s %s alone: %s\n", "", sax_algorithm_names[tg->algo[a].algorithm],
                            tg->algo[a].why);
            }
            double cfg_alpha, cfg_bw;
            configured_level(st, tg, &cfg_alpha, &cfg_bw);
            fprintf(out, "    %-14s configured: alpha %.4g us, effective bandwidth %.5g GB/s%s\n", "",
                    cfg_alpha * 1e6, cfg_bw / 1e9, tg->kind == CAL_TARGET_LINK ? " (aggregate)" : "");
            if (tg->kind == CAL_TARGET_LINK && tg->flows != 1.0)
                fprintf(out, "  %-16s written bandwidth = %g flows x %.5g GB/s\n", "", tg->flows,
                        tg->fit.bw_Bps / 1e9);
        }
        fprintf(out, "  residuals per measurement (fitted / measured time - 1):\n");
        for (int i = 0; i < nm; i++) {
            double rms, mx;
            measurement_errors(&st->targets[target_of[i]], &m[i], &rms, &mx);
            fprintf(out, "    %-16s %-14s %4d GPUs %-5s rms %6.2f%%  max %6.2f%%  %s\n", m[i].label,
                    sax_coll_op_names[m[i].op], m[i].gpus, sax_algorithm_names[m[i].algorithm], 100.0 * rms,
                    100.0 * mx, m[i].path);
            int wrong = 0;
            for (int r = 0; r < m[i].table.n_rows; r++)
                wrong += m[i].table.rows[r].wrong[0] > 0.0 || m[i].table.rows[r].wrong[1] > 0.0;
            if (wrong > 0)
                fprintf(out,
                        "    %-16s warning: %d rows report wrong elements (#wrong > 0): a data corruption; "
                        "their times are still used\n",
                        "", wrong);
        }
    }
    bool gemm_any = false;
    for (int g = 0; g < st->n_gpus; g++)
        gemm_any = gemm_any || st->gpus[g].gemm_fitted;
    if (gemm_any) {
        fprintf(out, "\nGEMM efficiency: eff = eff_max * AI / (AI + half_ai)\n");
        fprintf(out, "  %-12s %9s %8s %14s %10s %6s %9s %9s\n", "gpu", "eff_max", "+-", "half_ai_FLOP/B",
                "+-", "rows", "rms_err", "condition");
        for (int g = 0; g < st->n_gpus; g++) {
            const cal_gpu_t *cg = &st->gpus[g];
            if (!cg->gemm_fitted)
                continue;
            fprintf(out, "  %-12s %9.4f %8.2g %14.4g %10.2g %6d %8.2f%% %9.3g%s%s\n", cg->name,
                    cg->gemm.eff_max, cg->gemm.eff_max_se, cg->gemm.half_ai, cg->gemm.half_ai_se,
                    cg->gemm.points, 100.0 * cg->gemm.rms_rel_error, cg->gemm.condition,
                    cg->gemm.eff_max_at_bound ? "  faster than the configured peak: eff_max held at 1" : "",
                    cg->gemm.half_ai_at_bound ? "  half_ai held at 0" : "");
            fprintf(out, "  %-12s configured: eff_max %.4g, half_ai %.4g FLOP/B\n", "", cg->gpu.gemm_eff_max,
                    cg->gpu.gemm_eff_half_ai);
        }
        fprintf(out, "  residuals per measurement:\n");
        for (int i = 0; i < st->n_gemm_rows; i++) {
            const sax_gemm_measurement_t *r = &st->gemm_rows[i];
            double fit = gemm_fitted_s(st, i);
            fprintf(out,
                    "    %-10s %-8s %6.0f x %6.0f x %6.0f %-4s measured %10.4g s  fitted %10.4g s  %7.2f%%\n",
                    r->label, st->gpus[st->gemm_gpu[i]].name, r->m, r->n, r->k,
                    sax_precision_names[r->precision], r->time_s, fit, 100.0 * (fit / r->time_s - 1.0));
        }
    }
    if (st->run_fitted) {
        fprintf(out,
                "\nend-to-end runs: %d parameters by Levenberg-Marquardt (%d iterations), rms relative error "
                "%.2f%% (start %.2f%%), condition %.3g\n",
                st->n_params, st->run_iterations, 100.0 * st->run_rms, 100.0 * st->run_start_rms,
                st->run_condition);
        fprintf(out, "  %-36s %10s %10s %10s  %s\n", "parameter", "start", "fitted", "+-", "");
        for (int j = 0; j < st->n_params; j++) {
            const cal_param_t *p = &st->params[j];
            fprintf(out, "  %-36s %10.4g %10.4g %10.2g  %s\n", p->name, p->start, p->value, p->std_error,
                    !p->determined ? "not determined by these runs: start value kept, not written"
                    : p->at_bound  ? "at its bound"
                                   : "");
        }
        err_stats_t before = {0}, fitted = {0}, held = {0};
        fprintf(out, "  %-44s %11s %11s %9s %11s %9s\n", "run", "measured_s", "fitted_s", "error",
                "heldout_s", "error");
        for (int i = 0; i < st->n_runs; i++) {
            const cal_run_t *r = &st->runs[i];
            if (!r->usable) {
                fprintf(out, "  %-44.44s %11.4g   (infeasible under the model: not used)\n", r->name,
                        r->measured_s);
                continue;
            }
            stats_add(&before, r->start_s, r->measured_s);
            stats_add(&fitted, r->fitted_s, r->measured_s);
            stats_add(&held, r->heldout_s, r->measured_s);
            fprintf(out, "  %-44.44s %11.4g %11.4g %8.2f%% %11.4g %8.2f%%\n", r->name, r->measured_s,
                    r->fitted_s, 100.0 * (r->fitted_s / r->measured_s - 1.0), r->heldout_s,
                    100.0 * (r->heldout_s / r->measured_s - 1.0));
        }
        fprintf(
            out,
            "  mean |error|: start %.2f%%, fitted (in sample) %.2f%%, %d-fold held out %.2f%% (max %.2f%%)\n",
            100.0 * before.mean_abs, 100.0 * fitted.mean_abs, st->folds, 100.0 * held.mean_abs,
            100.0 * held.max_abs);
    }
    if (h->n > 0) {
        err_stats_t b = {0}, a = {0};
        fprintf(out, "\nheld-out dataset %s (%d cases):\n", st->opts->holdout_path, h->n);
        fprintf(out, "  %-44s %11s %11s %9s %11s %9s\n", "case", "measured_s", "before_s", "error", "after_s",
                "error");
        for (int i = 0; i < h->n; i++) {
            double ms = h->cases[i].measured_s;
            stats_add(&b, h->before_s[i], ms);
            stats_add(&a, h->after_s[i], ms);
            fprintf(out, "  %-44.44s %11.4g %11.4g %8.2f%% %11.4g %8.2f%%\n", h->cases[i].name, ms,
                    h->before_s[i], 100.0 * (h->before_s[i] / ms - 1.0), h->after_s[i],
                    100.0 * (h->after_s[i] / ms - 1.0));
        }
        fprintf(out, "  mean |error| before %.2f%% (max %.2f%%), after calibration %.2f%% (max %.2f%%)\n",
                100.0 * b.mean_abs, 100.0 * b.max_abs, 100.0 * a.mean_abs, 100.0 * a.max_abs);
    }
    fprintf(out, "\nwrote %s\n", st->opts->output_path);
}

static cJSON *json_num(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

static void print_json(const cal_state_t *st, const sax_coll_measurement_t *m, const int *target_of, int nm,
                       const holdout_t *h, FILE *out)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "output", st->opts->output_path);
    cJSON *net = cJSON_AddArrayToObject(root, "network");
    for (int t = 0; t < st->n_targets; t++) {
        const cal_target_t *tg = &st->targets[t];
        if (!tg->fitted)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "tier", tg->name);
        cJSON_AddItemToObject(o, "latency_s", json_num(tg->fit.latency_s));
        cJSON_AddItemToObject(o, "latency_std_error_s", json_num(tg->fit.latency_se_s));
        cJSON_AddItemToObject(o, "bandwidth_Bps", json_num(tg->fit.bw_Bps));
        cJSON_AddItemToObject(o, "bandwidth_std_error_Bps", json_num(tg->fit.bw_se_Bps));
        cJSON_AddBoolToObject(o, "latency_at_bound", tg->fit.latency_at_bound);
        double cfg_alpha, cfg_bw;
        configured_level(st, tg, &cfg_alpha, &cfg_bw);
        cJSON_AddItemToObject(o, "configured_latency_s", json_num(cfg_alpha));
        cJSON_AddItemToObject(o, "configured_effective_bandwidth_Bps", json_num(cfg_bw));
        cJSON_AddItemToObject(o, "condition", json_num(tg->fit.condition));
        cJSON_AddNumberToObject(o, "points", tg->fit.points);
        cJSON_AddItemToObject(o, "rms_rel_error", json_num(tg->fit.rms_rel_error));
        cJSON_AddItemToObject(o, "max_rel_error", json_num(tg->fit.max_rel_error));
        if (tg->n_algo > 0) {
            cJSON *pa = cJSON_AddArrayToObject(o, "per_algorithm");
            for (int a = 0; a < tg->n_algo; a++) {
                cJSON *ao = cJSON_CreateObject();
                cJSON_AddStringToObject(ao, "algorithm", sax_algorithm_names[tg->algo[a].algorithm]);
                cJSON_AddBoolToObject(ao, "fitted", tg->algo[a].ok);
                if (tg->algo[a].ok) {
                    cJSON_AddItemToObject(ao, "latency_s", json_num(tg->algo[a].fit.latency_s));
                    cJSON_AddItemToObject(ao, "bandwidth_Bps", json_num(tg->algo[a].fit.bw_Bps));
                    cJSON_AddItemToObject(ao, "rms_rel_error", json_num(tg->algo[a].fit.rms_rel_error));
                } else {
                    cJSON_AddStringToObject(ao, "why", tg->algo[a].why);
                }
                cJSON_AddItemToArray(pa, ao);
            }
        }
        cJSON *ms = cJSON_AddArrayToObject(o, "measurements");
        for (int i = 0; i < nm; i++) {
            if (target_of[i] != t)
                continue;
            double rms, mx;
            measurement_errors(tg, &m[i], &rms, &mx);
            cJSON *mo = cJSON_CreateObject();
            cJSON_AddStringToObject(mo, "label", m[i].label);
            cJSON_AddStringToObject(mo, "file", m[i].path);
            cJSON_AddStringToObject(mo, "op", sax_coll_op_names[m[i].op]);
            cJSON_AddNumberToObject(mo, "gpus", m[i].gpus);
            cJSON_AddItemToObject(mo, "rms_rel_error", json_num(rms));
            cJSON_AddItemToObject(mo, "max_rel_error", json_num(mx));
            cJSON *rows = cJSON_AddArrayToObject(mo, "rows");
            for (int r = 0; r < m[i].table.n_rows; r++) {
                const sax_nccl_row_t *row = &m[i].table.rows[r];
                double ca, cb;
                if (!(row->size_bytes > 0.0) ||
                    sax_coll_coefficients(m[i].op, m[i].algorithm, m[i].gpus, row->size_bytes, &ca, &cb,
                                          NULL) != SAX_OK)
                    continue;
                cJSON *ro = cJSON_CreateObject();
                cJSON_AddNumberToObject(ro, "size_bytes", row->size_bytes);
                cJSON_AddItemToObject(ro, "out_of_place_s",
                                      json_num(row->time_s[0] > 0.0 ? row->time_s[0] : NAN));
                cJSON_AddItemToObject(ro, "in_place_s",
                                      json_num(row->time_s[1] > 0.0 ? row->time_s[1] : NAN));
                cJSON_AddItemToObject(ro, "fitted_s", json_num(ca * tg->fit.latency_s + cb / tg->fit.bw_Bps));
                cJSON_AddItemToArray(rows, ro);
            }
            cJSON_AddItemToArray(ms, mo);
        }
        cJSON_AddItemToArray(net, o);
    }
    cJSON *gpus = cJSON_AddArrayToObject(root, "gemm");
    for (int g = 0; g < st->n_gpus; g++) {
        const cal_gpu_t *cg = &st->gpus[g];
        if (!cg->gemm_fitted)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "gpu", cg->name);
        cJSON_AddItemToObject(o, "gemm_efficiency_max", json_num(cg->gemm.eff_max));
        cJSON_AddItemToObject(o, "gemm_efficiency_max_std_error", json_num(cg->gemm.eff_max_se));
        cJSON_AddItemToObject(o, "gemm_efficiency_half_intensity", json_num(cg->gemm.half_ai));
        cJSON_AddItemToObject(o, "gemm_efficiency_half_intensity_std_error", json_num(cg->gemm.half_ai_se));
        cJSON_AddItemToObject(o, "condition", json_num(cg->gemm.condition));
        cJSON_AddNumberToObject(o, "rows", cg->gemm.points);
        cJSON_AddItemToObject(o, "rms_rel_error", json_num(cg->gemm.rms_rel_error));
        cJSON *rows = cJSON_AddArrayToObject(o, "measurements");
        for (int i = 0; i < st->n_gemm_rows; i++) {
            if (st->gemm_gpu[i] != g)
                continue;
            const sax_gemm_measurement_t *r = &st->gemm_rows[i];
            cJSON *ro = cJSON_CreateObject();
            cJSON_AddStringToObject(ro, "label", r->label);
            cJSON_AddNumberToObject(ro, "m", r->m);
            cJSON_AddNumberToObject(ro, "n", r->n);
            cJSON_AddNumberToObject(ro, "k", r->k);
            cJSON_AddStringToObject(ro, "precision", sax_precision_names[r->precision]);
            cJSON_AddItemToObject(ro, "measured_s", json_num(r->time_s));
            cJSON_AddItemToObject(ro, "fitted_s", json_num(gemm_fitted_s(st, i)));
            cJSON_AddItemToArray(rows, ro);
        }
        cJSON_AddItemToArray(gpus, o);
    }
    if (st->run_fitted) {
        cJSON *runs = cJSON_AddObjectToObject(root, "runs");
        cJSON *ps = cJSON_AddArrayToObject(runs, "parameters");
        for (int j = 0; j < st->n_params; j++) {
            const cal_param_t *p = &st->params[j];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", p->name);
            cJSON_AddItemToObject(o, "start", json_num(p->start));
            cJSON_AddItemToObject(o, "value", json_num(p->value));
            cJSON_AddItemToObject(o, "std_error", json_num(p->std_error));
            cJSON_AddBoolToObject(o, "determined", p->determined);
            cJSON_AddBoolToObject(o, "at_bound", p->at_bound);
            cJSON_AddItemToArray(ps, o);
        }
        err_stats_t before = {0}, fitted = {0}, held = {0};
        cJSON *cs = cJSON_AddArrayToObject(runs, "cases");
        for (int i = 0; i < st->n_runs; i++) {
            const cal_run_t *r = &st->runs[i];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", r->name);
            cJSON_AddBoolToObject(o, "used", r->usable);
            cJSON_AddItemToObject(o, "measured_s", json_num(r->measured_s));
            cJSON_AddItemToObject(o, "start_s", json_num(r->usable ? r->start_s : NAN));
            cJSON_AddItemToObject(o, "fitted_s", json_num(r->fitted_s));
            cJSON_AddItemToObject(o, "heldout_s", json_num(r->heldout_s));
            cJSON_AddItemToArray(cs, o);
            if (r->usable) {
                stats_add(&before, r->start_s, r->measured_s);
                stats_add(&fitted, r->fitted_s, r->measured_s);
                stats_add(&held, r->heldout_s, r->measured_s);
            }
        }
        cJSON_AddNumberToObject(runs, "folds", st->folds);
        cJSON_AddItemToObject(runs, "start_mean_abs_rel_error", json_num(before.mean_abs));
        cJSON_AddItemToObject(runs, "fitted_mean_abs_rel_error", json_num(fitted.mean_abs));
        cJSON_AddItemToObject(runs, "heldout_mean_abs_rel_error", json_num(held.mean_abs));
        cJSON_AddItemToObject(runs, "heldout_max_abs_rel_error", json_num(held.max_abs));
        cJSON_AddItemToObject(runs, "condition", json_num(st->run_condition));
    }
    if (h->n > 0) {
        cJSON *ho = cJSON_AddObjectToObject(root, "holdout");
        cJSON_AddStringToObject(ho, "dataset", st->opts->holdout_path);
        err_stats_t b = {0}, a = {0};
        cJSON *cs = cJSON_AddArrayToObject(ho, "cases");
        for (int i = 0; i < h->n; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", h->cases[i].name);
            cJSON_AddItemToObject(o, "measured_s", json_num(h->cases[i].measured_s));
            cJSON_AddItemToObject(o, "before_s", json_num(h->before_s[i]));
            cJSON_AddItemToObject(o, "after_s", json_num(h->after_s[i]));
            cJSON_AddItemToArray(cs, o);
            stats_add(&b, h->before_s[i], h->cases[i].measured_s);
            stats_add(&a, h->after_s[i], h->cases[i].measured_s);
        }
        cJSON_AddItemToObject(ho, "before_mean_abs_rel_error", json_num(b.mean_abs));
        cJSON_AddItemToObject(ho, "after_mean_abs_rel_error", json_num(a.mean_abs));
        cJSON_AddItemToObject(ho, "after_max_abs_rel_error", json_num(a.max_abs));
    }
    char *text = cJSON_Print(root);
    if (text != NULL)
        write_untabbed(out, text);
    free(text);
    cJSON_Delete(root);
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
    holdout_t hold;
    memset(&hold, 0, sizeof hold);
    char *text = NULL;
    cJSON *root = NULL;
    bool petsc_started = false;
    sax_status_t s = sax_config_load(opts->config_path, &st->config, err);
    if (s != SAX_OK)
        goto done;
    if ((s = read_text_file(opts->measurements_path, "the measurements", &text, err)) != SAX_OK)
        goto done;
    root = cJSON_Parse(text);
    if (root == NULL) {
        s = sax_error_set(err, SAX_ERR_INPUT, "%s: not valid JSON (near \"%.30s\")", opts->measurements_path,
                          cJSON_GetErrorPtr() != NULL ? cJSON_GetErrorPtr() : "");
        goto done;
    }
    if ((s = check_keys(root, top_keys, opts->measurements_path, "(top level)", err)) != SAX_OK)
        goto done;
    const cJSON *coll = cJSON_GetObjectItemCaseSensitive(root, "collectives");
    const cJSON *gemms = cJSON_GetObjectItemCaseSensitive(root, "gemms");
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    if (cJSON_GetArraySize(coll) + cJSON_GetArraySize(gemms) + cJSON_GetArraySize(runs) == 0) {
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
    if ((s = evaluate_holdout(st, &hold, err)) != SAX_OK)
        goto done;
    if ((s = write_output(st, err)) != SAX_OK)
        goto done;
    if (opts->json)
        print_json(st, meas, target_of, nm, &hold, out);
    else
        print_text(st, meas, target_of, nm, &hold, out);
done:
    sax_lsq_petsc_end(petsc_started);
    holdout_fini(&hold);
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
