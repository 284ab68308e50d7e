/* The forward sweep of sweeps() caches q[j] in the loop that loads it (the
 * next iteration of i overwrites q). The optimizer after AD must leave that
 * store in its loop, not turn it into a memcpy call before the loop: this
 * program calls no memcpy of its own, and the test reads its imported
 * symbols. Prints "sweeps x derivative" per parameter (the analytic
 * derivative is unknown: x is the parameter's index) and exits 1 where the
 * gradient differs from central differences. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 5, D = 3 };

__attribute__((noinline)) double sweeps(double *p, const double *x, int n, int d) {
    double s = 0, *q = malloc(d * sizeof *q);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < d; j++) q[j] = p[j] * x[i * d + j];
        for (int j = 1; j < d; j++) q[j] += q[j - 1] * p[j];
        double t = 0;
        for (int j = 0; j < d; j++) t += q[j] * q[j];
        s += sqrt(1 + t);
    }
    free(q);
    return s;
}

int main(void) {
    double x[N * D], p[D], dp[D] = {0};
    for (int k = 0; k < N * D; k++) x[k] = 0.2 + 0.1 * k - 0.01 * k * k;
    for (int j = 0; j < D; j++) p[j] = 0.5 - 0.3 * j;
    volatile int vn = N, vd = D; /* not constants where the gradient is inlined */
    int n = vn, d = vd, ok = 1;
    __enzyme_autodiff((void *)sweeps, enzyme_dup, p, dp, enzyme_const, x, enzyme_const, n, enzyme_const, d);
    for (int j = 0; j < D; j++) {
        double h = 1e-6, save = p[j];
        p[j] = save + h; double fp = sweeps(p, x, n, d);
        p[j] = save - h; double fm = sweeps(p, x, n, d);
        p[j] = save;
        double fd = (fp - fm) / (2 * h);
        printf("sweeps %d %.17g %.17g\n", j, dp[j], fd);
        if (!(fabs(dp[j] - fd) <= 1e-6 * fmax(1, fabs(fd)))) ok = 0;
    }
    return ok ? 0 : 1;
}
