/* lsq.c - linear least squares with lower bounds, solved with PETSc's KSPLSQR on PETSC_COMM_SELF.
 *
 * Every fit of the calibration (alpha-beta per tier, GEMM efficiency per GPU, each Levenberg-Marquardt
 * step) ends here. The columns are scaled to unit 2-norm before the solve, so parameters of very
 * different magnitude (a latency of 1e-5 s next to an inverse bandwidth of 1e-11 s/B) are equally well
 * resolved, and the reported condition number is that of the scaled matrix: it measures how far the
 * measurements are from determining the parameters independently, not the choice of units.
 * Bounds: a parameter whose unconstrained optimum lies below its lower bound is fixed at the bound
 * and the others are refitted (an active-set method; with the few parameters fitted here the most
 * violating parameter is fixed first). Standard errors are sqrt(diag(sigma^2 (A^T A)^-1)) over the
 * free parameters with sigma^2 = ||r||^2 / (rows - free). LSQR needs PCNONE for a rectangular
 * operator (stack.md section 7); options use the prefix "calibrate_lsq_" (e.g.
 * PETSC_OPTIONS=-calibrate_lsq_ksp_monitor).
 */
#include "sax_calibration.h"

#include <math.h>
#include <petscksp.h>
#include <stdlib.h>
#include <string.h>

#define LSQ_CALL(call)                                                                                       \
    do {                                                                                                     \
        PetscErrorCode lsq_ierr_ = (call);                                                                   \
        if (lsq_ierr_ != 0) {                                                                                \
            st = sax_error_set(err, SAX_ERR_PETSC, "PETSc error %d in %s", (int)lsq_ierr_, #call);           \
            goto done;                                                                                       \
        }                                                                                                    \
    } while (0)

sax_status_t sax_lsq_petsc_begin(bool *started, sax_error_t *err)
{
    *started = false;
    PetscBool running = PETSC_FALSE;
    if (PetscInitialized(&running) != 0)
        return sax_error_set(err, SAX_ERR_PETSC, "PetscInitialized failed");
    if (running)
        return SAX_OK;
    int mpi_up = 0;
    MPI_Initialized(&mpi_up);
    if (!mpi_up)
        return sax_error_set(err, SAX_ERR_INTERNAL, "calibration needs MPI to be initialised before PETSc");
    /* Only the calling rank runs PETSc; the other ranks of the job never call it. */
    PETSC_COMM_WORLD = MPI_COMM_SELF;
    if (PetscInitializeNoArguments() != 0)
        return sax_error_set(err, SAX_ERR_PETSC, "PetscInitialize failed");
    *started = true;
    return SAX_OK;
}

void sax_lsq_petsc_end(bool started)
{
    if (started)
        PetscFinalize();
}

/* Eigenvalues of the symmetric n x n matrix `g` (destroyed) by cyclic Jacobi rotations. */
static void symmetric_eigenvalues(int n, double *g, double *lambda)
{
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0.0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                off += g[i * n + j] * g[i * n + j];
        if (off < 1e-30)
            break;
        for (int p = 0; p < n; p++) {
            for (int q = p + 1; q < n; q++) {
                double apq = g[p * n + q];
                if (fabs(apq) < 1e-300)
                    continue;
                double theta = (g[q * n + q] - g[p * n + p]) / (2.0 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < n; k++) {
                    double gkp = g[k * n + p], gkq = g[k * n + q];
                    g[k * n + p] = c * gkp - s * gkq;
                    g[k * n + q] = s * gkp + c * gkq;
                }
                for (int k = 0; k < n; k++) {
                    double gpk = g[p * n + k], gqk = g[q * n + k];
                    g[p * n + k] = c * gpk - s * gqk;
                    g[q * n + k] = s * gpk + c * gqk;
                }
            }
        }
    }
    for (int i = 0; i < n; i++)
        lambda[i] = g[i * n + i];
}

/* Inverse of the symmetric positive definite n x n matrix `g` by Gauss-Jordan; false if singular. */
static bool spd_inverse(int n, const double *g, double *inv)
{
    double a[SAX_LSQ_MAX_PARAMS * SAX_LSQ_MAX_PARAMS * 2];
    int w = 2 * n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < w; j++)
            a[i * w + j] = j < n ? g[i * n + j] : (j - n == i ? 1.0 : 0.0);
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r * w + c]) > fabs(a[piv * w + c]))
                piv = r;
        if (fabs(a[piv * w + c]) < 1e-300)
            return false;
        if (piv != c)
            for (int j = 0; j < w; j++) {
                double tmp = a[c * w + j];
                a[c * w + j] = a[piv * w + j];
                a[piv * w + j] = tmp;
            }
        double d = a[c * w + c];
        for (int j = 0; j < w; j++)
            a[c * w + j] /= d;
        for (int r = 0; r < n; r++) {
            if (r == c)
                continue;
            double f = a[r * w + c];
            for (int j = 0; j < w; j++)
                a[r * w + j] -= f * a[c * w + j];
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            inv[i * n + j] = a[i * w + n + j];
    return true;
}

/* Solves min ||As z - b|| with KSPLSQR for the `nf` scaled free columns `as` (rows x nf, row-major). */
static sax_status_t lsqr_solve(int rows, int nf, const double *as, const double *b, double *z, int *its,
                               sax_error_t *err)
{
    sax_status_t st = SAX_OK;
    Mat A = NULL;
    Vec x = NULL, rhs = NULL;
    KSP ksp = NULL;
    PC pc = NULL;
    KSPConvergedReason reason;
    PetscInt iterations = 0;
    const PetscScalar *xv = NULL;

    LSQ_CALL(MatCreateSeqDense(PETSC_COMM_SELF, rows, nf, NULL, &A));
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < nf; j++)
            LSQ_CALL(MatSetValue(A, i, j, as[(size_t)i * (size_t)nf + (size_t)j], INSERT_VALUES));
    LSQ_CALL(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    LSQ_CALL(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    LSQ_CALL(MatCreateVecs(A, &x, &rhs));
    for (int i = 0; i < rows; i++)
        LSQ_CALL(VecSetValue(rhs, i, b[i], INSERT_VALUES));
    LSQ_CALL(VecAssemblyBegin(rhs));
    LSQ_CALL(VecAssemblyEnd(rhs));

    LSQ_CALL(KSPCreate(PETSC_COMM_SELF, &ksp));
    LSQ_CALL(KSPSetType(ksp, KSPLSQR));
    LSQ_CALL(KSPSetOperators(ksp, A, A));
    LSQ_CALL(KSPGetPC(ksp, &pc));
    LSQ_CALL(PCSetType(pc, PCNONE));
    LSQ_CALL(KSPSetTolerances(ksp, 1e-14, 1e-300, PETSC_DEFAULT, 50 * nf + 100));
    LSQ_CALL(KSPSetOptionsPrefix(ksp, "calibrate_lsq_"));
    LSQ_CALL(KSPSetFromOptions(ksp));
    LSQ_CALL(KSPSolve(ksp, rhs, x));
    LSQ_CALL(KSPGetConvergedReason(ksp, &reason));
    LSQ_CALL(KSPGetIterationNumber(ksp, &iterations));
    *its = (int)iterations;
    /* Hitting the iteration limit after LSQR has reached machine precision is not a failure: the
     * residual test cannot fire for an inconsistent system whose normal residual is round-off. */
    if (reason < 0 && reason != KSP_DIVERGED_ITS) {
        st = sax_error_set(err, SAX_ERR_PETSC, "KSPLSQR did not converge (reason %d)", (int)reason);
        goto done;
    }
    LSQ_CALL(VecGetArrayRead(x, &xv));
    for (int j = 0; j < nf; j++)
        z[j] = (double)xv[j];
    LSQ_CALL(VecRestoreArrayRead(x, &xv));
done:
    KSPDestroy(&ksp);
    VecDestroy(&x);
    VecDestroy(&rhs);
    MatDestroy(&A);
    return st;
}

sax_status_t sax_lsq_solve(int rows, int cols, const double *A, const double *b, const double *lower,
                           sax_lsq_result_t *res, sax_error_t *err)
{
    memset(res, 0, sizeof *res);
    if (cols < 1 || cols > SAX_LSQ_MAX_PARAMS)
        return sax_error_set(err, SAX_ERR_INTERNAL, "least squares with %d parameters (at most %d)", cols,
                             SAX_LSQ_MAX_PARAMS);
    res->n_params = cols;
    sax_status_t st = SAX_OK;
    size_t r = (size_t)rows;
    double *as = malloc(r * (size_t)cols * sizeof *as);
    double *rhs = malloc(r * sizeof *rhs);
    if (as == NULL || rhs == NULL) {
        st = sax_error_set(err, SAX_ERR_NOMEM, "out of memory in least squares");
        goto done;
    }
    bool fixed[SAX_LSQ_MAX_PARAMS] = {false};
    for (;;) {
        int free_idx[SAX_LSQ_MAX_PARAMS], nf = 0;
        for (int j = 0; j < cols; j++)
            if (!fixed[j])
                free_idx[nf++] = j;
        if (nf == 0)
            break;
        if (rows < nf) {
            st = sax_error_set(err, SAX_ERR_INPUT,
                               "%d measurements cannot determine %d parameters; at least %d are needed", rows,
                               nf, nf);
            goto done;
        }
        /* Right-hand side without the fixed parameters; free columns scaled to unit norm. */
        double scale[SAX_LSQ_MAX_PARAMS];
        for (size_t i = 0; i < r; i++) {
            rhs[i] = b[i];
            for (int j = 0; j < cols; j++)
                if (fixed[j])
                    rhs[i] -= A[i * (size_t)cols + (size_t)j] * res->x[j];
        }
        for (int f = 0; f < nf; f++) {
            double s = 0.0;
            for (size_t i = 0; i < r; i++)
                s += A[i * (size_t)cols + (size_t)free_idx[f]] * A[i * (size_t)cols + (size_t)free_idx[f]];
            if (!(s > 0.0)) {
                st = sax_error_set(err, SAX_ERR_INPUT,
                                   "parameter %d does not influence any measurement (its column is zero)",
                                   free_idx[f]);
                goto done;
            }
            scale[f] = 1.0 / sqrt(s);
            for (size_t i = 0; i < r; i++)
                as[i * (size_t)nf + (size_t)f] = A[i * (size_t)cols + (size_t)free_idx[f]] * scale[f];
        }
        /* Normal matrix of the scaled columns: condition and covariance. */
        double g[SAX_LSQ_MAX_PARAMS * SAX_LSQ_MAX_PARAMS], gw[SAX_LSQ_MAX_PARAMS * SAX_LSQ_MAX_PARAMS];
        double ginv[SAX_LSQ_MAX_PARAMS * SAX_LSQ_MAX_PARAMS], lambda[SAX_LSQ_MAX_PARAMS];
        for (int p = 0; p < nf; p++)
            for (int q = 0; q < nf; q++) {
                double s = 0.0;
                for (size_t i = 0; i < r; i++)
                    s += as[i * (size_t)nf + (size_t)p] * as[i * (size_t)nf + (size_t)q];
                g[p * nf + q] = gw[p * nf + q] = s;
            }
        symmetric_eigenvalues(nf, gw, lambda);
        double lmin = lambda[0], lmax = lambda[0];
        for (int p = 1; p < nf; p++) {
            lmin = fmin(lmin, lambda[p]);
            lmax = fmax(lmax, lambda[p]);
        }
        res->condition = lmin > 0.0 ? sqrt(lmax / lmin) : HUGE_VAL;
        if (!(res->condition < 1e10) || !spd_inverse(nf, g, ginv)) {
            st = sax_error_set(err, SAX_ERR_INPUT,
                               "the measurements do not determine the %d parameters independently (condition "
                               "number %.3g of the scaled system)",
                               nf, res->condition);
            goto done;
        }
        double z[SAX_LSQ_MAX_PARAMS];
        int its = 0;
        st = lsqr_solve(rows, nf, as, rhs, z, &its, err);
        if (st != SAX_OK)
            goto done;
        res->iterations += its;
        /* The most violated bound, measured in the scaled variable. */
        int worst = -1;
        double worst_v = 0.0;
        for (int f = 0; f < nf; f++) {
            int j = free_idx[f];
            res->x[j] = z[f] * scale[f];
            if (lower != NULL && lower[j] > -HUGE_VAL && res->x[j] < lower[j]) {
                double v = (lower[j] - res->x[j]) / scale[f];
                if (v > worst_v) {
                    worst_v = v;
                    worst = j;
                }
            }
        }
        if (worst >= 0) {
            fixed[worst] = true;
            res->at_bound[worst] = true;
            res->x[worst] = lower[worst];
            continue;
        }
        double rr = 0.0;
        for (size_t i = 0; i < r; i++) {
            double ri = b[i];
            for (int j = 0; j < cols; j++)
                ri -= A[i * (size_t)cols + (size_t)j] * res->x[j];
            rr += ri * ri;
        }
        res->residual_norm = sqrt(rr);
        res->sigma = rows > nf ? sqrt(rr / (double)(rows - nf)) : 0.0;
        for (int f = 0; f < nf; f++) {
            for (int e = 0; e < nf; e++)
                res->covariance[free_idx[f]][free_idx[e]] =
                    res->sigma * res->sigma * ginv[f * nf + e] * scale[f] * scale[e];
            res->std_error[free_idx[f]] = sqrt(fmax(res->covariance[free_idx[f]][free_idx[f]], 0.0));
        }
        break;
    }
    /* Every parameter at its bound: the residual is that of the bounds alone. */
    if (st == SAX_OK && res->residual_norm == 0.0) {
        double rr = 0.0;
        for (size_t i = 0; i < r; i++) {
            double ri = b[i];
            for (int j = 0; j < cols; j++)
                ri -= A[i * (size_t)cols + (size_t)j] * res->x[j];
            rr += ri * ri;
        }
        res->residual_norm = sqrt(rr);
    }
done:
    free(as);
    free(rhs);
    return st;
}
