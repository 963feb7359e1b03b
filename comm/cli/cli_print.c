/* cli_print.c - candidates and results as text and as the contract's JSON objects. */
#include "cli_print.h"
#include "sax_results.h"

#include <math.h>
#include <string.h>

void cli_print_parallelism_json(FILE *f, const sax_candidate_t *c)
{
    fprintf(
        f,
        "{\"tp\": %d, \"pp\": %d, \"dp\": %d, \"cp\": %d, \"ep\": %d, \"vpp\": %d, \"micro_batch\": %d, "
        "\"schedule\": \"%s\", \"recompute\": \"%s\", \"sequence_parallel\": %s, \"zero\": %d, \"order\": [",
        c->tp, c->pp, c->dp, c->cp, c->ep, c->vpp, c->micro_batch, sax_schedule_names[c->schedule],
        sax_recompute_names[c->recompute], c->sequence_parallel ? "true" : "false", c->zero);
    for (int i = 0; i < c->n_order; i++)
        fprintf(f, "%s\"%s\"", i ? ", " : "", sax_dim_names[c->order[i]]);
    fprintf(f, "], \"layer_split\": \"%s\"", sax_layer_split_names[c->layer_split]);
    if (c->recompute_modules != 0) { /* only when set: Megatron-Core's --recompute-modules */
        fprintf(f, ", \"recompute_modules\": [");
        for (int m = 0, k = 0; m < SAX_RECOMPUTE_MODULE_COUNT; m++)
            if (c->recompute_modules >> m & 1u)
                fprintf(f, "%s\"%s\"", k++ ? ", " : "", sax_recompute_module_names[m]);
        fprintf(f, "]");
    }
    if (c->etp > 0) /* only when set: the experts' own tensor-parallel degree */
        fprintf(f, ", \"expert_tensor_parallel\": %d", c->etp);
    if (c->n_layout > 0) /* only when set: Megatron-Core's layout string */
        fprintf(f, ", \"pipeline_model_parallel_layout\": \"%s\"", c->layout_text);
    if (c->first_stage_layers > 0) /* only when set: Megatron-LM's flags */
        fprintf(f, ", \"decoder_first_pipeline_num_layers\": %d", c->first_stage_layers);
    if (c->last_stage_layers > 0)
        fprintf(f, ", \"decoder_last_pipeline_num_layers\": %d", c->last_stage_layers);
    fputc('}', f);
}

void cli_print_network_json(FILE *f, const sax_candidate_t *c)
{
    fprintf(f, "{\"transport\": \"%s\", \"connections\": %d, \"algorithm\": \"%s\", \"compression\": \"%s\"}",
            sax_transport_names[c->transport], c->connections, sax_algorithm_names[c->algorithm],
            sax_compression_names[c->compression]);
}

/* Why lossless RoCE is refused over site link l, with the numbers; false when the job's traffic does
 * not cross it or its headroom suffices. */
static bool lossless_refusal(const sax_problem_t *p, const sax_result_t *r, int l, char *buf, size_t n)
{
    const sax_cluster_t *cl = &p->cluster;
    if (!(r->lossless_refused >> l & 1u))
        return false;
    double need = sax_pfc_headroom_needed(cl, l), lat = cl->links[l].latency_s;
    snprintf(
        buf, n,
        "site link %d (%s-%s): lossless RoCE needs %.3g MB of PFC headroom per port (2 x %.3g GB/s x %.3g us "
        "one way), site_links[%d].pfc_headroom is %.3g MB: give the switches' real headroom, or use roce-sr, "
        "roce-gbn or tcp",
        l, cl->sites[cl->links[l].a].name, cl->sites[cl->links[l].b].name, need / 1e6,
        need / (2.0 * lat) / 1e9, cl->links[l].latency_s * 1e6, l, cl->links[l].pfc_headroom_bytes / 1e6);
    return true;
}

/* The contract's object without its closing brace. */
static void result_json_body(FILE *f, const sax_problem_t *p, const sax_result_t *r)
{
    fprintf(f, "{\"feasible\": %s, \"infeasible_reason\": ", r->feasible ? "true" : "false");
    if (r->feasible)
        fputs("null", f);
    else
        fprintf(f, "\"%s\"", sax_infeasible_names[r->reason]);
    if (!r->feasible && r->reason == SAX_INFEASIBLE_LOSSLESS) {
        fputs(", \"infeasible_detail\": [", f);
        char why[512];
        for (int l = 0, n = 0; l < p->cluster.n_links; l++)
            if (lossless_refusal(p, r, l, why, sizeof why)) {
                fputs(n++ ? ", " : "", f);
                cli_print_json_string(f, why);
            }
        fputs("]", f);
    }
#define SAX_PRINT_METRIC(field, unit, desc)                                                                  \
    fputs(", \"" #field "\": ", f);                                                                          \
    cli_print_json_number(f, r->field);
    SAX_METRIC_LIST(SAX_PRINT_METRIC)
#undef SAX_PRINT_METRIC
    fputs(", \"breakdown_s\": {", f);
    for (int i = 0; i < SAX_PHASE_COUNT; i++) {
        fprintf(f, "%s\"%s\": ", i ? ", " : "", sax_phase_names[i]);
        cli_print_json_number(f, r->breakdown_s[i]);
    }
    fprintf(f, "}, \"gpus_used\": %d, \"memory_breakdown_bytes\": {\"weights\": ", r->gpus_used);
    cli_print_json_number(f, r->mem_weights_bytes);
    fputs(", \"gradients\": ", f);
    cli_print_json_number(f, r->mem_grads_bytes);
    fputs(", \"optimizer\": ", f);
    cli_print_json_number(f, r->mem_optimizer_bytes);
    fputs(", \"activations\": ", f);
    cli_print_json_number(f, r->mem_activations_bytes);
    fputs("}, \"site_link_utilisation\": [", f);
    for (int l = 0; l < p->cluster.n_links; l++) {
        fputs(l ? ", " : "", f);
        cli_print_json_number(f, r->link_utilisation[l]);
    }
    fputs("], \"site_links\": [", f);
    for (int l = 0; l < p->cluster.n_links; l++) {
        const sax_site_link_t *k = &p->cluster.links[l];
        fprintf(f, "%s{\"between\": [", l ? ", " : "");
        cli_print_json_string(f, p->cluster.sites[k->a].name);
        fputs(", ", f);
        cli_print_json_string(f, p->cluster.sites[k->b].name);
        fputs("], \"bytes\": ", f);
        cli_print_json_number(f, r->link_bytes[l]);
        fputs(", \"busy_s\": ", f);
        cli_print_json_number(f, (double)r->link_utilisation[l] * r->iteration_time_s);
        fputs(", \"utilisation\": ", f);
        cli_print_json_number(f, r->link_utilisation[l]);
        fputs("}", f);
    }
    fputs("]", f);
}

void cli_print_result_json(FILE *f, const sax_problem_t *p, const sax_result_t *r)
{
    result_json_body(f, p, r);
    fputs("}", f);
}

void cli_print_eval_json(FILE *f, const sax_problem_t *p, const sax_result_t *r, const sax_bottleneck_t *bn,
                         int n_bn, const sax_memory_fit_t *fits, int n_fits, const sax_unstated_t *un,
                         int n_un, const sax_candidate_t *job)
{
    result_json_body(f, p, r);
    char why[512] = "";
    if (!r->feasible && job != NULL)
        sax_model_refusal(p, job, why, sizeof why);
    if (why[0] != '\0') { /* gpus, divisibility, schedule, tp_domain: the check that fails */
        fputs(", \"infeasible_detail\": [", f);
        cli_print_json_string(f, why);
        fputs("]", f);
    }
    if (!r->feasible && r->reason == SAX_INFEASIBLE_MEMORY) {
        fputs(", \"fits_with\": [", f);
        for (int i = 0; i < n_fits; i++) {
            fprintf(f, "%s{\"key\": \"%s\", \"value\": %s, \"memory_per_gpu_bytes\": ", i ? ", " : "",
                    sax_lever_keys[fits[i].lever], fits[i].value);
            cli_print_json_number(f, fits[i].memory_per_gpu_bytes);
            fputs(", \"iteration_time_s\": ", f);
            cli_print_json_number(f, fits[i].iteration_time_s);
            fputs("}", f);
        }
        fputs("]", f);
    }
    if (r->feasible) {
        fputs(", \"unstated\": [", f);
        for (int i = 0; i < n_un; i++) {
            fprintf(f, "%s{\"key\": \"%s\", \"value\": %s, \"feasible\": %s", i ? ", " : "",
                    sax_software_keys[un[i].setting], un[i].value, un[i].feasible ? "true" : "false");
            if (un[i].feasible) {
                fputs(", \"iteration_time_s\": ", f);
                cli_print_json_number(f, un[i].iteration_time_s);
                fputs(", \"change\": ", f);
                cli_print_json_number(f, un[i].change);
            } else {
                fprintf(f, ", \"infeasible_reason\": \"%s\"", sax_infeasible_names[un[i].reason]);
            }
            fputs("}", f);
        }
        fputs("]", f);
    }
    fputs(", \"bottlenecks\": [", f);
    for (int i = 0; i < n_bn; i++) {
        fprintf(f, "%s{\"phase\": \"%s\", \"exposed_s\": ", i ? ", " : "", sax_bn_phase_names[bn[i].phase]);
        cli_print_json_number(f, bn[i].exposed_s);
        fprintf(f, ", \"limited_by\": \"%s\"}", sax_limit_names[bn[i].limited_by]);
    }
    fputs("]", f);
    /* why the DP reduction shows, beside the contract's bottleneck entries (which keep their three keys) */
    for (int i = 0; i < n_bn; i++)
        if (bn[i].phase == SAX_BN_DP && bn[i].dp_wait != SAX_DP_WAIT_NONE) {
            fprintf(f, ", \"dp_sync\": {\"stage\": %d, \"waits_on\": \"%s\", \"last_bucket_share\": ",
                    bn[i].stage, sax_dp_wait_names[bn[i].dp_wait]);
            cli_print_json_number(f, bn[i].last_bucket_share);
            fputs("}", f);
        }
    if (job != NULL) {
        fputs(", \"job\": ", f);
        cli_print_job(f, p, job, true);
    }
    fputs("}", f);
}

/* "the transport window (8 ms RTT, 64 MiB in flight per connection)": the limit in words, with the
 * figures that decide it. */
static void limit_words(char *buf, size_t n, const sax_coll_explain_t *x)
{
    const double mib = 1024.0 * 1024.0;
    switch (x->limited_by) {
    case SAX_LIMIT_LATENCY: {
        char t[32];
        snprintf(buf, n, "latency (%s with every bandwidth and window unlimited)",
                 sax_quantity_str(x->term_s[SAX_LIMIT_LATENCY], "s", t, sizeof t));
        break;
    }
    case SAX_LIMIT_WINDOW:
        snprintf(buf, n, "the transport window (%.3g ms RTT, %.3g MiB in flight per connection)",
                 1e3 * x->rtt_s, x->inflight_bytes / mib);
        break;
    case SAX_LIMIT_LINK_CAPACITY:
        snprintf(buf, n, "site link capacity (%.4g Gbit/s on its slowest link)", 8e-9 * x->link_Bps);
        break;
    case SAX_LIMIT_OVERSUBSCRIPTION:
        if (x->oversubscription > 1.0)
            snprintf(buf, n, "the uplinks' oversubscription (up to %.3g:1 on the way)", x->oversubscription);
        else
            snprintf(buf, n, "the capacity of the tier and site uplinks on the way");
        break;
    case SAX_LIMIT_NIC: snprintf(buf, n, "the NIC (%.4g GB/s per GPU)", 1e-9 * x->nic_Bps); break;
    case SAX_LIMIT_SCALE_UP:
        snprintf(buf, n, "scale-up bandwidth (%.4g GB/s per GPU)", 1e-9 * x->scale_up_Bps);
        break;
    case SAX_LIMIT_COMPUTE:
    case SAX_LIMIT_MEMORY_BANDWIDTH:
    case SAX_LIMIT_COUNT: snprintf(buf, n, "%s", sax_limit_names[x->limited_by]); break;
    }
}

void cli_print_bottlenecks_text(FILE *f, const sax_bottleneck_t *bn, int n_bn)
{
    if (n_bn <= 0)
        return;
    fprintf(f, "what limits each phase (exposed time, longest first):\n");
    for (int i = 0; i < n_bn; i++) {
        const sax_bottleneck_t *b = &bn[i];
        char why[512], t1[32], t2[32];
        if (b->has_coll) {
            char words[160], buckets[192] = "";
            limit_words(words, sizeof words, &b->coll);
            char size[32], took[32];
            if (b->phase == SAX_BN_DP && b->dp_wait == SAX_DP_WAIT_ONE_BUCKET)
                snprintf(buckets, sizeof buckets,
                         "; stage %d reduces its gradients as one bucket a chunk, after its backward "
                         "(Megatron-Core splits only the first stage's first chunk)",
                         b->stage);
            else if (b->phase == SAX_BN_DP && b->dp_wait == SAX_DP_WAIT_LAST_BUCKET)
                snprintf(buckets, sizeof buckets,
                         "; stage %d's last bucket, the embedding's (%.3g %% of its parameters), reduces "
                         "after its backward",
                         b->stage, 100.0 * b->last_bucket_share);
            else if (b->phase == SAX_BN_DP && b->dp_wait == SAX_DP_WAIT_QUEUE)
                snprintf(buckets, sizeof buckets,
                         "; stage %d's buckets queue on the link for longer than its last backward",
                         b->stage);
            snprintf(why, sizeof why, "%s; its %s of %s over %d GPUs takes %s%s", words,
                     sax_coll_op_names[b->coll.op], sax_quantity_str(b->coll.bytes, "B", size, sizeof size),
                     b->coll.gpus, sax_quantity_str(b->coll.time_s, "s", took, sizeof took), buckets);
        } else if (b->phase == SAX_BN_PP && b->bubble_of == SAX_BN_COMPUTE) {
            snprintf(why, sizeof why,
                     "%s: the schedule's bubble (%s of it) waits on the other stages' compute",
                     b->limited_by == SAX_LIMIT_MEMORY_BANDWIDTH ? "HBM bandwidth" : "compute",
                     sax_quantity_str(b->bubble_s, "s", t1, sizeof t1));
        } else if (b->phase == SAX_BN_PP) {
            snprintf(why, sizeof why,
                     "%s: the schedule's bubble (%s of it) waits on the other stages' events, mostly %s "
                     "traffic",
                     sax_limit_names[b->limited_by], sax_quantity_str(b->bubble_s, "s", t1, sizeof t1),
                     sax_bn_phase_names[b->bubble_of]);
        } else if (b->phase == SAX_BN_OPTIMIZER) {
            snprintf(why, sizeof why,
                     "%s: the optimizer's pass over HBM %s, the host's synchronisation at the step %s",
                     b->limited_by == SAX_LIMIT_LATENCY ? "latency" : "HBM bandwidth",
                     sax_quantity_str(b->memory_s, "s", t1, sizeof t1),
                     sax_quantity_str(b->exposed_s - b->memory_s, "s", t2, sizeof t2));
        } else if (b->limited_by == SAX_LIMIT_MEMORY_BANDWIDTH) {
            snprintf(why, sizeof why, "HBM bandwidth: memory-bound kernels %s, GEMMs and attention %s",
                     sax_quantity_str(b->memory_s, "s", t1, sizeof t1),
                     sax_quantity_str(b->math_s, "s", t2, sizeof t2));
        } else {
            snprintf(why, sizeof why, "compute: GEMMs and attention %s, memory-bound kernels %s",
                     sax_quantity_str(b->math_s, "s", t1, sizeof t1),
                     sax_quantity_str(b->memory_s, "s", t2, sizeof t2));
        }
        char t[32];
        fprintf(f, "  exposed %s %s: limited by %s\n", sax_bn_phase_names[b->phase],
                sax_quantity_str(b->exposed_s, "s", t, sizeof t), why);
    }
}

void cli_print_candidate_line(FILE *f, const sax_candidate_t *c)
{
    char line[SAX_RESULTS_LINE_LEN];
    fputs(sax_results_candidate_line(c, line, sizeof line), f);
}

void cli_print_result_text(FILE *f, const sax_problem_t *p, const sax_result_t *r)
{
    const double gib = 1024.0 * 1024.0 * 1024.0;
    if (!r->feasible) {
        fprintf(f, "infeasible: %s (%s)\n", sax_infeasible_names[r->reason],
                sax_infeasible_messages[r->reason]);
        if (r->reason == SAX_INFEASIBLE_MEMORY) {
            double parts =
                r->mem_weights_bytes + r->mem_grads_bytes + r->mem_optimizer_bytes + r->mem_activations_bytes;
            fprintf(
                f,
                "  memory per GPU %.1f GiB (weights %.1f, gradients %.1f, optimizer %.1f, activations %.1f, "
                "reserved %.1f)",
                r->memory_per_gpu_bytes / gib, r->mem_weights_bytes / gib, r->mem_grads_bytes / gib,
                r->mem_optimizer_bytes / gib, r->mem_activations_bytes / gib,
                (r->memory_per_gpu_bytes - parts) / gib);
            double hbm = p->cluster.gpu.hbm_bytes; /* named when every site's GPU has as much */
            for (int i = 0; i < p->cluster.n_sites; i++)
                hbm = p->cluster.sites[i].gpu.hbm_bytes == hbm ? hbm : 0.0;
            if (hbm > 0.0)
                fprintf(f, " against %.1f GiB of HBM", hbm / gib);
            fputc('\n', f);
        }
        char why[512];
        for (int l = 0; r->reason == SAX_INFEASIBLE_LOSSLESS && l < p->cluster.n_links; l++)
            if (lossless_refusal(p, r, l, why, sizeof why))
                fprintf(f, "  %s\n", why);
        return;
    }
    char q[4][32];
    fprintf(f, "iteration time   %10s\n", sax_quantity_str(r->iteration_time_s, "s", q[0], sizeof q[0]));
    fprintf(f, "tokens per s     %10s\n", sax_quantity_str(r->tokens_per_s, "", q[0], sizeof q[0]));
    fprintf(f, "MFU              %10.1f %%\n", 100.0 * r->mfu);
    fprintf(f, "model FLOPs      %10s per iteration\n",
            sax_quantity_str(r->model_flops_per_iteration, "FLOP", q[0], sizeof q[0]));
    fprintf(f, "GPUs used        %10d\n", r->gpus_used);
    fprintf(f,
            "memory per GPU   %10.1f GiB  (weights %.1f, gradients %.1f, optimizer %.1f, activations %.1f)\n",
            r->memory_per_gpu_bytes / gib, r->mem_weights_bytes / gib, r->mem_grads_bytes / gib,
            r->mem_optimizer_bytes / gib, r->mem_activations_bytes / gib);
    fprintf(f, "cross-site bytes %10s per iteration\n",
            sax_quantity_str(r->cross_site_bytes_per_iteration, "B", q[0], sizeof q[0]));
    for (int l = 0; l < p->cluster.n_links; l++)
        fprintf(
            f, "site link %-2d      %9.1f %% busy (%s-%s: %s, busy %s)\n", l, 100.0 * r->link_utilisation[l],
            p->cluster.sites[p->cluster.links[l].a].name, p->cluster.sites[p->cluster.links[l].b].name,
            sax_quantity_str((double)r->link_bytes[l], "B", q[1], sizeof q[1]),
            sax_quantity_str((double)r->link_utilisation[l] * r->iteration_time_s, "s", q[2], sizeof q[2]));
    fprintf(f, "breakdown:\n");
    for (int i = 0; i < SAX_PHASE_COUNT; i++)
        fprintf(f, "  %-12s %10.4g s  %5.1f %%\n", sax_phase_names[i], r->breakdown_s[i],
                100.0 * r->breakdown_s[i] / r->iteration_time_s); /* seconds, as report prints them */
}

void cli_print_refusal_text(FILE *f, const sax_problem_t *p, const sax_candidate_t *c)
{
    char why[512];
    sax_model_refusal(p, c, why, sizeof why);
    if (why[0] != '\0')
        fprintf(f, "  %s\n", why);
}

void cli_print_unstated_text(FILE *f, const sax_unstated_t *un, int n_un)
{
    int shown = 0, width = 36; /* the keys' column: the widest shown, at least 36 */
    for (int i = 0; i < n_un; i++)
        if (un[i].feasible && fabs(un[i].change) >= 0.01 &&
            (int)strlen(sax_software_keys[un[i].setting]) > width)
            width = (int)strlen(sax_software_keys[un[i].setting]);
    for (int i = 0; i < n_un; i++) {
        if (!un[i].feasible || fabs(un[i].change) < 0.01)
            continue;
        if (shown++ == 0)
            fputs(
                "settings the file leaves to sax's defaults (Megatron-LM with Transformer Engine) that move\n"
                "this answer by 1 % or more; state the ones your job sets otherwise:\n",
                f);
        fprintf(f, "  %-*s %-12s %10.4g s  %+6.1f %%\n", width, sax_software_keys[un[i].setting], un[i].value,
                un[i].iteration_time_s, 100.0 * un[i].change);
    }
}

void cli_print_fits_text(FILE *f, const sax_memory_fit_t *fits, int n_fits)
{
    if (n_fits == 0) {
        fputs(
            "  no one setting of recomputation (or its modules), micro-batch, ZeRO, optimizer or gradient\n"
            "  precision, dropout, activation offloading or first/last stage layers makes it fit: it needs more\n"
            "  GPUs for its model state or fewer tokens a GPU\n",
            f);
        return;
    }
    fputs("  fits with one of (fastest first):\n", f);
    int key_w = 36, value_w = 12; /* the columns as wide as the longest entry */
    for (int i = 0; i < n_fits; i++) {
        int k = (int)strlen(sax_lever_keys[fits[i].lever]), v = (int)strlen(fits[i].value);
        key_w = k > key_w ? k : key_w;
        value_w = v > value_w ? v : value_w;
    }
    for (int i = 0; i < n_fits; i++)
        fprintf(f, "    %-*s %-*s %6.1f GiB  %10.4g s an iteration\n", key_w, sax_lever_keys[fits[i].lever],
                value_w, fits[i].value, fits[i].memory_per_gpu_bytes / (1024.0 * 1024.0 * 1024.0),
                fits[i].iteration_time_s);
}
