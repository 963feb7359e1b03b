/* decide.c - what a sweep's answer is made of beyond its best candidate: the share of each group of
 * settings in a speedup (Shapley values over placement, scheduling and network) and the candidate
 * with the least worst regret over the scenarios. Both re-evaluate a few candidates with the model
 * on rank 0 after a sweep; docs/decisions.md says what they mean and how to read them. */
#include "sax_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAX_NAME_OF(name, str) str,
const char *const sax_group_names[SAX_GROUP_COUNT] = {SAX_GROUP_LIST(SAX_NAME_OF)};
#undef SAX_NAME_OF

const sax_setting_group_t sax_key_group[SAX_KEY_COUNT] = {
    [SAX_KEY_TP] = SAX_GROUP_PLACEMENT,
    [SAX_KEY_PP] = SAX_GROUP_PLACEMENT,
    [SAX_KEY_DP] = SAX_GROUP_PLACEMENT,
    [SAX_KEY_CP] = SAX_GROUP_PLACEMENT,
    [SAX_KEY_EP] = SAX_GROUP_PLACEMENT,
    [SAX_KEY_ORDER] = SAX_GROUP_PLACEMENT,
    [SAX_KEY_VPP] = SAX_GROUP_SCHEDULING,
    [SAX_KEY_MICRO_BATCH] = SAX_GROUP_SCHEDULING,
    [SAX_KEY_SCHEDULE] = SAX_GROUP_SCHEDULING,
    [SAX_KEY_RECOMPUTE] = SAX_GROUP_SCHEDULING,
    [SAX_KEY_SEQUENCE_PARALLEL] = SAX_GROUP_SCHEDULING,
    [SAX_KEY_ZERO] = SAX_GROUP_SCHEDULING,
    [SAX_KEY_LAYER_SPLIT] = SAX_GROUP_SCHEDULING,
    [SAX_KEY_FIRST_STAGE_LAYERS] = SAX_GROUP_SCHEDULING,
    [SAX_KEY_LAST_STAGE_LAYERS] = SAX_GROUP_SCHEDULING,
    [SAX_KEY_TRANSPORT] = SAX_GROUP_NETWORK,
    [SAX_KEY_CONNECTIONS] = SAX_GROUP_NETWORK,
    [SAX_KEY_CHANNELS] = SAX_GROUP_NETWORK,
    [SAX_KEY_BUFFER_SIZE] = SAX_GROUP_NETWORK,
    [SAX_KEY_P2P_CHUNK_SIZE] = SAX_GROUP_NETWORK,
    [SAX_KEY_P2P_CHANNELS] = SAX_GROUP_NETWORK,
    [SAX_KEY_ALGORITHM] = SAX_GROUP_NETWORK,
    [SAX_KEY_COMPRESSION] = SAX_GROUP_NETWORK,
};

sax_status_t sax_search_eval_digits(const sax_search_t *s, int scenario, const int16_t digit[SAX_KEY_COUNT],
                                    sax_scratch_t *scratch, sax_record_t *out, sax_skip_t *skip)
{
    sax_search_cursor_t cur;
    sax_search_seek(s, sax_search_index(s, scenario, digit), &cur);
    memset(out, 0, sizeof *out);
    out->index = cur.index;
    out->scenario = cur.scenario;
    out->candidate = cur.candidate;
    if (skip != NULL)
        *skip = cur.skip;
    if (cur.skip != SAX_SKIP_NONE) {
        out->result.iteration_time_s = INFINITY;
        return SAX_OK;
    }
    return sax_model_eval(sax_search_problem(s, scenario), &cur.candidate, scratch, &out->result);
}

static double time_or_inf(const sax_record_t *r)
{
    return r->result.feasible ? r->result.iteration_time_s : INFINITY;
}

sax_status_t sax_search_attribute(const sax_search_t *s, int64_t base_index, int64_t best_index,
                                  sax_scratch_t *scratch, sax_attribution_t *out)
{
    memset(out, 0, sizeof *out);
    sax_search_cursor_t base, best;
    sax_search_seek(s, base_index, &base);
    sax_search_seek(s, best_index, &best);
    /* the time of every mix: bit g of `set` takes group g's settings from the best */
    for (int set = 0; set < 1 << SAX_GROUP_COUNT; set++) {
        int16_t digit[SAX_KEY_COUNT];
        for (int k = 0; k < SAX_KEY_COUNT; k++)
            digit[k] = (set >> sax_key_group[k] & 1) ? best.digit[k] : base.digit[k];
        sax_record_t rec;
        sax_status_t st = sax_search_eval_digits(s, base.scenario, digit, scratch, &rec, NULL);
        if (st != SAX_OK)
            return st;
        out->mix_time_s[set] = time_or_inf(&rec);
    }
    sax_attribution_from_mixes(out);
    return SAX_OK;
}

void sax_attribution_from_mixes(sax_attribution_t *out)
{
    /* each order adds the groups one by one; a group's factor in it is t(before) / t(after) */
    static const int orders[6][SAX_GROUP_COUNT] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                                   {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    double log_sum[SAX_GROUP_COUNT] = {0};
    out->orders = 0;
    for (int o = 0; o < 6; o++) {
        double step[SAX_GROUP_COUNT];
        int set = 0;
        bool feasible = true;
        for (int i = 0; i < SAX_GROUP_COUNT && feasible; i++) {
            int g = orders[o][i], next = set | 1 << g;
            feasible = isfinite(out->mix_time_s[set]) && isfinite(out->mix_time_s[next]);
            step[g] = feasible ? log(out->mix_time_s[set] / out->mix_time_s[next]) : 0.0;
            set = next;
        }
        if (!feasible)
            continue;
        out->orders++;
        for (int g = 0; g < SAX_GROUP_COUNT; g++)
            log_sum[g] += step[g];
    }
    out->valid = out->orders > 0;
    for (int g = 0; g < SAX_GROUP_COUNT; g++)
        out->factor[g] = out->valid ? exp(log_sum[g] / out->orders) : NAN;
}

/* The distinct settings (index within a scenario) of every scenario's top list, sorted. */
static int64_t collect_settings(const sax_search_t *s, const sax_record_t *const *top, const int64_t *n_top,
                                int64_t *local)
{
    int64_t n = 0, per = sax_search_scenario_size(s);
    for (int sc = 0; sc < sax_search_scenario_count(s); sc++)
        for (int64_t i = 0; i < n_top[sc]; i++)
            local[n++] = top[sc][i].index % per;
    for (int64_t i = 1; i < n; i++) { /* insertion sort: a few thousand at most */
        int64_t v = local[i], j = i;
        for (; j > 0 && local[j - 1] > v; j--)
            local[j] = local[j - 1];
        local[j] = v;
    }
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (m == 0 || local[m - 1] != local[i])
            local[m++] = local[i];
    return m;
}

/* Keeps the SAX_ROBUST_NEAR_KEEP candidates of least worst regret (candidates come by index, so a
 * later one replaces a kept one only when strictly less regretted). */
static void keep_near(sax_robust_t *out, const sax_record_t *rec, double worst)
{
    int n = out->n_near_kept;
    if (n == SAX_ROBUST_NEAR_KEEP && !(worst < out->near_worst[n - 1]))
        return;
    int i = n < SAX_ROBUST_NEAR_KEEP ? n++ : n - 1;
    for (; i > 0 && out->near_worst[i - 1] > worst; i--) {
        out->near[i] = out->near[i - 1];
        out->near_worst[i] = out->near_worst[i - 1];
    }
    out->near[i] = *rec;
    out->near_worst[i] = worst;
    out->n_near_kept = n;
}

sax_status_t sax_search_robust(const sax_search_t *s, const sax_record_t *const *top, const int64_t *n_top,
                               int top_k, bool exhaustive, sax_scratch_t *scratch, double *regret,
                               sax_robust_t *out, sax_error_t *err)
{
    memset(out, 0, sizeof *out);
    out->worst_regret = INFINITY;
    int ns = sax_search_scenario_count(s);
    int64_t total = 0, per = sax_search_scenario_size(s);
    for (int sc = 0; sc < ns; sc++)
        total += n_top[sc];
    int64_t *local = malloc((size_t)(total + 1) * sizeof *local);
    double *r = malloc((size_t)ns * sizeof *r);
    if (local == NULL || r == NULL) {
        free(local);
        free(r);
        return sax_error_set(err, SAX_ERR_NOMEM, "out of memory for the robust candidate");
    }
    /* every candidate outside the lists is, in each scenario, no faster than the list's last entry */
    out->bound = 0.0;
    for (int sc = 0; sc < ns; sc++) {
        double floor = n_top[sc] == 0 ? 0.0 /* every candidate's regret there counts as 0 */
                       : n_top[sc] < top_k
                           ? INFINITY /* the list holds every feasible candidate */
                           : time_or_inf(&top[sc][n_top[sc] - 1]) / time_or_inf(&top[sc][0]) - 1.0;
        out->bound = fmax(out->bound, floor);
    }
    int64_t m = collect_settings(s, top, n_top, local);
    out->candidates = (int)m;
    sax_status_t st = SAX_OK;
    for (int64_t i = 0; i < m && st == SAX_OK; i++) {
        double worst = 0.0;
        sax_record_t first;
        memset(&first, 0, sizeof first);
        for (int sc = 0; sc < ns && st == SAX_OK; sc++) {
            sax_search_cursor_t cur;
            sax_search_seek(s, (int64_t)sc * per + local[i], &cur);
            sax_record_t rec;
            st = sax_search_eval_digits(s, sc, cur.digit, scratch, &rec, NULL);
            r[sc] = time_or_inf(&rec) / time_or_inf(&top[sc][0]) - 1.0;
            if (!(r[sc] >= 0.0)) /* no feasible candidate in the scenario: nothing to regret */
                r[sc] = n_top[sc] == 0 ? 0.0 : INFINITY;
            worst = fmax(worst, r[sc]);
            if (sc == 0)
                first = rec;
        }
        if (st == SAX_OK && worst <= SAX_ROBUST_NEAR) {
            out->n_near++;
            keep_near(out, &first, worst);
        }
        if (st == SAX_OK && isfinite(worst) && worst < out->worst_regret) {
            out->found = true;
            out->worst_regret = worst;
            out->pick = first;
            memcpy(regret, r, (size_t)ns * sizeof *r);
        }
    }
    out->exact = out->found && exhaustive && out->worst_regret <= out->bound;
    free(local);
    free(r);
    return st;
}

/* How much a transport depends on a loss-free path: TCP recovers from loss by design, RoCE with
 * selective repeat resends only what was lost, go-back-N resends the whole window after each loss,
 * and lossless RoCE needs PFC on every hop of the link (docs/decisions.md). */
static int transport_risk(sax_transport_t t)
{
    switch (t) {
    case SAX_TRANSPORT_TCP: return 0;
    case SAX_TRANSPORT_ROCE_SR: return 1;
    case SAX_TRANSPORT_ROCE_GBN: return 2;
    case SAX_TRANSPORT_ROCE:
    case SAX_TRANSPORT_COUNT: break;
    }
    return 3;
}

int sax_search_simpler(const sax_record_t *a, const sax_record_t *b)
{
    const sax_candidate_t *x = &a->candidate, *y = &b->candidate;
    int d = (x->compression != SAX_COMPRESSION_NONE) - (y->compression != SAX_COMPRESSION_NONE);
    if (d == 0)
        d = transport_risk(x->transport) - transport_risk(y->transport);
    if (d == 0) {
        double bx = a->result.cross_site_bytes_per_iteration, by = b->result.cross_site_bytes_per_iteration;
        d = (bx > by) - (bx < by);
    }
    if (d == 0)
        d = x->connections - y->connections;
    if (d == 0)
        d = x->channels - y->channels;
    if (d == 0)
        d = x->p2p_channels - y->p2p_channels;
    if (d == 0)
        d = (a->index > b->index) - (a->index < b->index);
    return d;
}

void sax_search_ties(const sax_search_t *s, const sax_record_t *top, int64_t n_top, int top_k,
                     sax_ties_t *out)
{
    memset(out, 0, sizeof *out);
    if (n_top == 0)
        return;
    double t = top[0].result.iteration_time_s;
    sax_search_cursor_t first, cur;
    sax_search_seek(s, top[0].index, &first);
    while (out->count < n_top && top[out->count].result.iteration_time_s <= t * (1.0 + SAX_TIE_REL)) {
        const sax_record_t *r = &top[out->count];
        sax_search_seek(s, r->index, &cur);
        for (int k = 0; k < SAX_KEY_COUNT; k++)
            if (cur.digit[k] != first.digit[k])
                out->differ |= 1u << k;
        if (sax_search_simpler(r, &top[out->simplest]) < 0)
            out->simplest = out->count;
        out->count++;
    }
    out->at_least = out->count == n_top && n_top == top_k;
}

sax_status_t sax_search_why_none(const sax_search_t *s, int scenario, int baseline, int64_t max_evals,
                                 sax_scratch_t *scratch, sax_why_none_t *out)
{
    memset(out, 0, sizeof *out);
    int64_t per = sax_search_scenario_size(s), first = (int64_t)scenario * per, end = first + per;
    sax_search_cursor_t cur;
    sax_search_seek(s, first, &cur);
    int64_t visits = 0;
    out->complete = true;
    for (int64_t i = first; i < end; visits++) {
        if (visits == SAX_WHY_NONE_MAX_VISITS) {
            out->complete = false;
            break;
        }
        if (i > cur.index)
            sax_search_move(s, &cur, i);
        if (baseline < 0 && cur.skip != SAX_SKIP_NONE) { /* the whole block shares the verdict */
            int64_t next = sax_search_skip_end(s, &cur);
            next = next < end ? next : end;
            out->candidates += next - i;
            out->skipped[cur.skip] += next - i;
            i = next;
            continue;
        }
        i++;
        if (baseline >= 0 && !sax_search_matches_baseline(s, &cur, baseline))
            continue;
        out->candidates++;
        if (cur.skip != SAX_SKIP_NONE) {
            out->skipped[cur.skip]++;
            continue;
        }
        if (out->evaluated >= max_evals) {
            out->not_evaluated++;
            continue;
        }
        sax_result_t r;
        sax_status_t st = sax_model_eval(sax_search_problem(s, scenario), &cur.candidate, scratch, &r);
        if (st != SAX_OK)
            return st;
        out->evaluated++;
        out->infeasible[r.feasible ? SAX_FEASIBLE : r.reason]++;
    }
    return SAX_OK;
}
