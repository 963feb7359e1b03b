/* gemm.c - how fast a GPU runs a matrix multiply: a saturating efficiency in arithmetic intensity.
 *
 * Small per-GPU GEMMs (after heavy tensor parallelism, or attention's head-sized products) reach a
 * lower fraction of peak than large ones. We model the efficiency as a function of the GEMM's
 * arithmetic intensity AI = FLOPs / bytes moved (operands read once, result written once):
 *     eff(AI) = eff_max * AI / (AI + AI_half)
 * Two parameters per GPU type, fitted by `sax calibrate` from measured GEMMs (docs/cost-model.md,
 * docs/calibration.md). The same shape of curve is used by roofline-style models such as Calculon's
 * size-keyed efficiency tables; ours is a closed form so that it can be fitted by linear least squares.
 */
#include "model_internal.h"

#include <math.h>

static double element_bytes(sax_precision_t prec) { return prec == SAX_PRECISION_FP8 ? 1.0 : 2.0; }

double sax_gpu_peak_flops(const sax_gpu_t *gpu, sax_precision_t prec)
{
    if (prec == SAX_PRECISION_FP8 && gpu->peak_flops_fp8 > 0.0)
        return gpu->peak_flops_fp8;
    return gpu->peak_flops_bf16;
}

double sax_gemm_intensity(double m, double n, double k, sax_precision_t prec)
{
    return 2.0 * m * n * k / (element_bytes(prec) * (m * k + k * n + m * n));
}

/* FP8 GEMMs reach a lower fraction of their (twice as high) peak than BF16 ones: per-tensor scaling,
 * the fp32 accumulation and the same memory system for twice the FLOPs (docs/cost-model.md section 2).
 * Same knee, own ceiling when one is set. */
double sax_gemm_efficiency_ai(const sax_gpu_t *gpu, double ai, sax_precision_t prec)
{
    double top =
        prec == SAX_PRECISION_FP8 && gpu->gemm_eff_max_fp8 > 0.0 ? gpu->gemm_eff_max_fp8 : gpu->gemm_eff_max;
    return top * ai / (ai + gpu->gemm_eff_half_ai);
}

double sax_gemm_efficiency(const sax_gpu_t *gpu, double m, double n, double k, sax_precision_t prec)
{
    return sax_gemm_efficiency_ai(gpu, sax_gemm_intensity(m, n, k, prec), prec);
}

/* E[max of n standard normals] for n = 2^0 .. 2^24, by numerical integration of x n phi(x) Phi(x)^(n-1)
 * (trapezoid, 1.2 M points on [-12, 12]); it agrees with Harter's (1961) tables to their four digits
 * (1.4236 for 8, 2.5076 for 100, 3.2414 for 1000). Between the powers of two linear in log2 n (within
 * 0.1 %), beyond 2^24 the last step extended. */
static const double max_of_normals[25] = {
    0.0000, 0.5642, 1.0294, 1.4236, 1.7660, 2.0697, 2.3437, 2.5946, 2.8269, 3.0439, 3.2482, 3.4418, 3.6261,
    3.8023, 3.9714, 4.1341, 4.2911, 4.4430, 4.5903, 4.7332, 4.8723, 5.0077, 5.1398, 5.2687, 5.3948};

double sax_slowest_of(const sax_gpu_t *gpu, double n)
{
    if (!(n > 1.0) || !(gpu->speed_cv > 0.0))
        return 1.0;
    double k = log2(n);
    int i = k >= 23.0 ? 23 : (int)k;
    return 1.0 + gpu->speed_cv * (max_of_normals[i] + (max_of_normals[i + 1] - max_of_normals[i]) * (k - i));
}

/* No GEMM runs faster than HBM moves its operands in and its result out, each once, at the fraction
 * of the bandwidth memory-bound kernels reach: the roofline's memory side (Williams, Waterman and
 * Patterson, CACM 2009). It binds where one dimension is narrow, below the ridge point (about 300
 * FLOP/B on an H100 in BF16): a key or value projection of a few heads at high TP, an expert that
 * receives few tokens. FP8 reads 1 B an element and writes its result in BF16. */
double sax_gemm_memory_s(const sax_gpu_t *gpu, double m, double n, double k, sax_precision_t prec)
{
    double bw = gpu->hbm_bw_Bps * gpu->mem_eff;
    if (!(bw > 0.0))
        return 0.0;
    return (element_bytes(prec) * (m * k + k * n) + 2.0 * m * n) / bw;
}

double sax_gemm_time_s(const sax_gpu_t *gpu, double m, double n, double k, sax_precision_t prec)
{
    double math = 2.0 * m * n * k / (sax_gpu_peak_flops(gpu, prec) * sax_gemm_efficiency(gpu, m, n, k, prec));
    return sax_max(math, sax_gemm_memory_s(gpu, m, n, k, prec));
}
