/* grad differentiates the model library's loss with respect to its weights
 * through gozyme (__enzyme_autodiff, resolved when Bazel links this binary)
 * and compares every component with a central finite difference. It prints
 * "w<i> <gradient> <finite difference>" lines and exits 1 on a mismatch. */
#include <math.h>
#include <stdio.h>

#include "model/model.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

int main(void) {
    const double x[] = {-1.5, -0.25, 0.5, 1.0, 2.0};
    const double t[] = {-0.8, -0.1, 0.3, 0.6, 0.9};
    const int n = sizeof x / sizeof x[0];
    double w[3] = {0.7, -0.2, 1.3};
    double dw[3] = {0, 0, 0};

    __enzyme_autodiff((void *)loss, enzyme_dup, w, dw, enzyme_const, x, enzyme_const, t, enzyme_const, n);

    int bad = 0;
    for (int i = 0; i < 3; i++) {
        const double h = 1e-6;
        double wp[3] = {w[0], w[1], w[2]}, wm[3] = {w[0], w[1], w[2]};
        wp[i] += h;
        wm[i] -= h;
        double fd = (loss(wp, x, t, n) - loss(wm, x, t, n)) / (2 * h);
        int ok = fabs(dw[i] - fd) <= 1e-6 * (1 + fabs(fd));
        printf("w%d %.17g %.17g%s\n", i, dw[i], fd, ok ? "" : " MISMATCH");
        bad |= !ok;
    }
    return bad;
}
