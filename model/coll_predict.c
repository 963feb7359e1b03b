/* coll_predict.c - one collective of a strided group, as nccl-tests would time it (`sax collective`):
 * the closed form the evaluation uses and, on request, the reference simulator beside it. */
#include "model_internal.h"

double sax_coll_busbw_factor(sax_coll_op_t op, int n)
{
    if (n < 2)
        return 0.0;
    switch (op) {
    case SAX_OP_ALL_REDUCE: return 2.0 * (n - 1) / n;
    case SAX_OP_REDUCE_SCATTER:
    case SAX_OP_ALL_GATHER:
    case SAX_OP_ALL_TO_ALL: return (double)(n - 1) / n;
    case SAX_OP_SENDRECV:
    case SAX_COLL_OP_COUNT: break;
    }
    return 1.0;
}

sax_status_t sax_collective_predict(const sax_cluster_t *cl, const sax_candidate_t *c, sax_coll_op_t op,
                                    sax_algorithm_t alg, int n, long stride, bool concurrent, double bytes,
                                    bool simulate, sax_coll_prediction_t *out, sax_error_t *err)
{
    *out = (sax_coll_prediction_t){0};
    long total = 0;
    for (int s = 0; s < cl->n_sites; s++)
        total += cl->sites[s].gpus;
    if (n < 2 || stride < 1)
        return sax_error_set(err, SAX_ERR_INPUT,
                             "expected at least 2 members at a stride of at least 1, found %d at %ld", n,
                             stride);
    if ((long)(n - 1) * stride >= total)
        return sax_error_set(
            err, SAX_ERR_INPUT,
            "expected %d members %ld GPUs apart to fit in the cluster's %ld GPUs, found the last "
            "at GPU %ld",
            n, stride, total, (long)(n - 1) * stride);
    bool p2p = op == SAX_OP_ALL_TO_ALL || op == SAX_OP_SENDRECV;
    if (p2p && alg != SAX_ALGORITHM_RING)
        return sax_error_set(err, SAX_ERR_INPUT,
                             "expected no algorithm for %s (NCCL runs it as point-to-point sends), found %s",
                             sax_coll_op_names[op], sax_algorithm_names[alg]);
    if (alg == SAX_ALGORITHM_TREE && op != SAX_OP_ALL_REDUCE)
        return sax_error_set(
            err, SAX_ERR_INPUT,
            "expected ring or hierarchical for %s (NCCL's trees run all_reduce only), found tree",
            sax_coll_op_names[op]);
    sax_layout_t lay;
    sax_layout_levels(cl, &lay);
    sax_group_t g;
    sax_infeasible_t why = sax_layout_group_strided(cl, &lay, n, stride, concurrent, &g);
    if (why != SAX_FEASIBLE)
        return sax_error_set(err, SAX_ERR_INPUT, "the group of %d GPUs %ld apart cannot communicate: %s", n,
                             stride, sax_infeasible_messages[why]);
    sax_traffic_t tr = {0};
    /* nccl-tests' default data type is float: 4-byte elements (compression) */
    out->time_s = sax_group_collective_s(cl, c, &lay, &g, op, alg, bytes, 4.0, &tr);
    out->xsite_bytes = tr.xsite_bytes;
    out->sites = g.sites;
    int per_domain = g.count[0] < 1 ? 1 : g.count[0];
    out->channels = p2p ? sax_p2p_channels(cl, c) : sax_channels(c, per_domain);
    if (simulate) {
        double k = g.sites > 1 ? sax_compression_factor(c->compression, 4.0) : 1.0;
        sax_coll_sim_t sim;
        sax_status_t st = sax_collective_simulate(cl, c, &g, op, alg, bytes, k, &sim, err);
        if (st != SAX_OK)
            return st;
        out->sim_time_s = sim.time_s;
    }
    return SAX_OK;
}
