/* cli_print.c - candidates and results as text and as the contract's JSON objects. */
#include "cli_print.h"
#include "sax_results.h"

#include <math.h>

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
                         int n_bn, const sax_candidate_t *job)
{
    result_json_body(f, p, r);
    fputs(", \"bottlenecks\": [", f);
    for (int i = 0; i < n_bn; i++) {
        fprintf(f, "%s{\"phase\": \"%s\", \"exposed_s\": ", i ? ", " : "", sax_bn_phase_names[bn[i].phase]);
        cli_print_json_number(f, bn[i].exposed_s);
        fprintf(f, ", \"limited_by\": \"%s\"}", sax_limit_names[bn[i].limited_by]);
    }
    fputs("]", f);
    if (job != NULL) {
        fputs(", \"job\": ", f);
        cli_print_job(f, p, job, true);
    }
    fputs("}", f);
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

/* A size or a duration with a readable unit: "35.3 GB", "655 us". */
static const char *si(char *buf, size_t n, double x, const char *unit)
{
    static const char prefix[] = {'G', 'M', 'k'};
    static const double scale[] = {1e9, 1e6, 1e3};
    for (int i = 0; i < 3; i++)
        if (x >= scale[i]) {
            snprintf(buf, n, "%.3g %c%s", x / scale[i], prefix[i], unit);
            return buf;
        }
    snprintf(buf, n, "%.3g %s", x, unit);
    return buf;
}

static const char *duration(char *buf, size_t n, double s)
{
    if (s >= 1.0 || s <= 0.0)
        snprintf(buf, n, "%.3g s", s);
    else if (s >= 1e-3)
        snprintf(buf, n, "%.3g ms", 1e3 * s);
    else
        snprintf(buf, n, "%.3g us", 1e6 * s);
    return buf;
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
                 duration(t, sizeof t, x->term_s[SAX_LIMIT_LATENCY]));
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
        char why[256], t1[32], t2[32];
        if (b->has_coll) {
            char words[160];
            limit_words(words, sizeof words, &b->coll);
            char size[32], took[32];
            snprintf(why, sizeof why, "%s; its %s of %s over %d GPUs takes %s", words,
                     sax_coll_op_names[b->coll.op], si(size, sizeof size, b->coll.bytes, "B"), b->coll.gpus,
                     duration(took, sizeof took, b->coll.time_s));
        } else if (b->phase == SAX_BN_PP && b->bubble_of == SAX_BN_COMPUTE) {
            snprintf(why, sizeof why,
                     "%s: the schedule's bubble (%s of it) waits on the other stages' compute",
                     b->limited_by == SAX_LIMIT_MEMORY_BANDWIDTH ? "HBM bandwidth" : "compute",
                     duration(t1, sizeof t1, b->bubble_s));
        } else if (b->phase == SAX_BN_PP) {
            snprintf(why, sizeof why,
                     "%s: the schedule's bubble (%s of it) waits on the other stages' events, mostly %s "
                     "traffic",
                     sax_limit_names[b->limited_by], duration(t1, sizeof t1, b->bubble_s),
                     sax_bn_phase_names[b->bubble_of]);
        } else if (b->phase == SAX_BN_OPTIMIZER) {
            snprintf(why, sizeof why, "HBM bandwidth: Adam reads and writes 30 B per parameter");
        } else if (b->limited_by == SAX_LIMIT_MEMORY_BANDWIDTH) {
            snprintf(why, sizeof why, "HBM bandwidth: memory-bound kernels %s, GEMMs and attention %s",
                     duration(t1, sizeof t1, b->memory_s), duration(t2, sizeof t2, b->math_s));
        } else {
            snprintf(why, sizeof why, "compute: GEMMs and attention %s, memory-bound kernels %s",
                     duration(t1, sizeof t1, b->math_s), duration(t2, sizeof t2, b->memory_s));
        }
        char t[32];
        fprintf(f, "  exposed %s %s: limited by %s\n", sax_bn_phase_names[b->phase],
                duration(t, sizeof t, b->exposed_s), why);
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
