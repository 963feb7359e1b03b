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
#include "sax_model.h"

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

double sax_gemm_time_s(const sax_gpu_t *gpu, double m, double n, double k, sax_precision_t prec)
{
    return 2.0 * m * n * k / (sax_gpu_peak_flops(gpu, prec) * sax_gemm_efficiency(gpu, m, n, k, prec));
}
