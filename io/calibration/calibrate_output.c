/* calibrate_output.c - CALIBRATED.json: the -c configuration file as written, with the fitted values
 * replaced or added as SI numbers (docs/calibration.md, "CALIBRATED.json"), then loaded back as a
 * configuration before the command reports success. */
#include "sax_output.h"
#include "calibration_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
        if (st->gpus[gi].gemm.eff_max_fp8 > 0.0)
            set_number(g, "gemm_efficiency_max_fp8", st->gpus[gi].gemm.eff_max_fp8);
    }
    for (int j = 0; j < st->n_params && st->run_fitted; j++)
        if (st->params[j].gpu == gi && st->params[j].determined)
            set_number(g, cal_param_key(st->params[j].kind), st->params[j].value);
}

sax_status_t cal_write_output(const cal_state_t *st, sax_error_t *err)
{
    char *text = NULL;
    sax_status_t s = sax_read_text_file(st->opts->config_path, "the configuration", &text, err);
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
        double lat, bw;
        cal_level_written(tg, &lat, &bw);
        set_number(obj, "bandwidth", bw);
        set_number(obj, "latency", lat);
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
        /* the key in the training object: the parameter's name after "training." */
        set_number(training, cal_param_key(st->params[j].kind) + strlen("training."), st->params[j].value);
    }
    char *out = cJSON_Print(root);
    cJSON_Delete(root);
    if (out == NULL)
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory printing %s", st->opts->output_path);
    /* whole or not at all: a temporary name beside the output, checked to load, then renamed over it,
     * so that a failed write never leaves the previous file truncated */
    const char *path = st->opts->output_path;
    sax_output_t o;
    s = sax_output_open(&o, path, err);
    if (s != SAX_OK) {
        free(out);
        return s;
    }
    bool ok = cal_write_untabbed(o.f, out);
    free(out);
    s = sax_output_close(&o, err);
    if (s == SAX_OK && !ok)
        s = sax_error_set(err, SAX_ERR_IO, "%s: cannot write (the file is left as it was)", path);
    if (s != SAX_OK) {
        sax_output_abort(&o);
        return s;
    }
    /* What was written must load as a configuration. */
    sax_config_t check;
    s = sax_config_load(o.tmp, &check, err);
    if (s != SAX_OK) {
        sax_output_abort(&o);
        return sax_error_set(err, SAX_ERR_INTERNAL, "the calibrated configuration does not load: %s",
                             err->text);
    }
    sax_config_fini(&check);
    s = sax_output_commit(&o, err);
    sax_output_abort(&o);
    return s;
}
