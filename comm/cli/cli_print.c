/* cli_print.c - candidates and results as text and as the contract's JSON objects. */
#include "cli_print.h"

#include <math.h>

void cli_print_json_string(FILE *f, const char *text)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void cli_print_json_number(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.17g", x);
    else
        fputs("null", f);
}

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
    fprintf(f, "], \"layer_split\": \"%s\"}", sax_layer_split_names[c->layer_split]);
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

void cli_print_result_json(FILE *f, const sax_problem_t *p, const sax_result_t *r)
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
    fputs("]}", f);
}

/* The name of value `j` of key `k` as a configuration writes it. */
void cli_value_text(const sax_space_desc_t *d, sax_key_t k, int32_t v, char *buf, size_t n)
{
    switch (k) {
    case SAX_KEY_DP:
        if (v == 0) {
            snprintf(buf, n, "auto");
            return;
        }
        break;
    case SAX_KEY_SCHEDULE: snprintf(buf, n, "%s", sax_schedule_names[v]); return;
    case SAX_KEY_RECOMPUTE: snprintf(buf, n, "%s", sax_recompute_names[v]); return;
    case SAX_KEY_SEQUENCE_PARALLEL: snprintf(buf, n, "%s", v ? "true" : "false"); return;
    case SAX_KEY_LAYER_SPLIT: snprintf(buf, n, "%s", sax_layer_split_names[v]); return;
    case SAX_KEY_TRANSPORT: snprintf(buf, n, "%s", sax_transport_names[v]); return;
    case SAX_KEY_ALGORITHM: snprintf(buf, n, "%s", sax_algorithm_names[v]); return;
    case SAX_KEY_COMPRESSION: snprintf(buf, n, "%s", sax_compression_names[v]); return;
    case SAX_KEY_ORDER: {
        size_t used = 0;
        buf[0] = '\0';
        for (int i = 0; i < d->order_len[v] && used + 4 < n; i++)
            used +=
                (size_t)snprintf(buf + used, n - used, "%s%s", i ? "-" : "", sax_dim_names[d->orders[v][i]]);
        return;
    }
    default: break;
    }
    snprintf(buf, n, "%d", (int)v);
}

void cli_print_candidate_line(FILE *f, const sax_candidate_t *c)
{
    fprintf(f, "tp=%d cp=%d ep=%d pp=%d dp=%d vpp=%d mb=%d %s recompute=%s sp=%s zero=%d order=", c->tp,
            c->cp, c->ep, c->pp, c->dp, c->vpp, c->micro_batch, sax_schedule_names[c->schedule],
            sax_recompute_names[c->recompute], c->sequence_parallel ? "on" : "off", c->zero);
    for (int i = 0; i < c->n_order; i++)
        fprintf(f, "%s%s", i ? "," : "", sax_dim_names[c->order[i]]);
    fprintf(f, " split=%s %s x%d %s compress=%s%s", sax_layer_split_names[c->layer_split],
            sax_transport_names[c->transport], c->connections, sax_algorithm_names[c->algorithm],
            sax_compression_names[c->compression], c->compression != SAX_COMPRESSION_NONE ? " (lossy)" : "");
}

void cli_print_result_text(FILE *f, const sax_problem_t *p, const sax_result_t *r)
{
    const double gib = 1024.0 * 1024.0 * 1024.0;
    if (!r->feasible) {
        fprintf(f, "infeasible: %s (%s)\n", sax_infeasible_names[r->reason],
                sax_infeasible_messages[r->reason]);
        if (r->reason == SAX_INFEASIBLE_MEMORY)
            fprintf(f, "  memory per GPU %.1f GiB\n", r->memory_per_gpu_bytes / gib);
        char why[512];
        for (int l = 0; r->reason == SAX_INFEASIBLE_LOSSLESS && l < p->cluster.n_links; l++)
            if (lossless_refusal(p, r, l, why, sizeof why))
                fprintf(f, "  %s\n", why);
        return;
    }
    fprintf(f, "iteration time   %10.4f s\n", r->iteration_time_s);
    fprintf(f, "tokens per s     %10.4g\n", r->tokens_per_s);
    fprintf(f, "MFU              %10.1f %%\n", 100.0 * r->mfu);
    fprintf(f, "model FLOPs      %10.4g per iteration\n", r->model_flops_per_iteration);
    fprintf(f, "GPUs used        %10d\n", r->gpus_used);
    fprintf(f,
            "memory per GPU   %10.1f GiB  (weights %.1f, gradients %.1f, optimizer %.1f, activations %.1f)\n",
            r->memory_per_gpu_bytes / gib, r->mem_weights_bytes / gib, r->mem_grads_bytes / gib,
            r->mem_optimizer_bytes / gib, r->mem_activations_bytes / gib);
    fprintf(f, "cross-site bytes %10.4g per iteration\n", r->cross_site_bytes_per_iteration);
    for (int l = 0; l < p->cluster.n_links; l++)
        fprintf(f, "site link %-2d      %9.1f %% busy (%s-%s: %.4g B, busy %.4g s)\n", l,
                100.0 * r->link_utilisation[l], p->cluster.sites[p->cluster.links[l].a].name,
                p->cluster.sites[p->cluster.links[l].b].name, (double)r->link_bytes[l],
                (double)r->link_utilisation[l] * r->iteration_time_s);
    fprintf(f, "breakdown:\n");
    for (int i = 0; i < SAX_PHASE_COUNT; i++)
        fprintf(f, "  %-12s %10.4f s  %5.1f %%\n", sax_phase_names[i], r->breakdown_s[i],
                100.0 * r->breakdown_s[i] / r->iteration_time_s);
}
