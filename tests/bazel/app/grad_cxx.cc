// grad_cxx is grad.c in C++ (compiled by gozyme-c++): it differentiates the
// C model library's loss, scaled by a template, with respect to the weights
// and prints "w<i> <gradient> <finite difference>" lines; exits 1 on a
// mismatch.
#include <cmath>
#include <cstdio>

#include "model/model.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(...) noexcept;

template <int Scale>
double scaled(const double *w, const double *x, const double *t, int n) {
    return Scale * loss(w, x, t, n);
}

int main() {
    const double x[] = {-1.5, -0.25, 0.5, 1.0, 2.0};
    const double t[] = {-0.8, -0.1, 0.3, 0.6, 0.9};
    const int n = sizeof x / sizeof x[0];
    double w[3] = {0.7, -0.2, 1.3};
    double dw[3] = {0, 0, 0};

    __enzyme_autodiff((void *)scaled<3>, enzyme_dup, w, dw, enzyme_const, x, enzyme_const, t, enzyme_const, n);

    int bad = 0;
    for (int i = 0; i < 3; i++) {
        const double h = 1e-6;
        double wp[3] = {w[0], w[1], w[2]}, wm[3] = {w[0], w[1], w[2]};
        wp[i] += h;
        wm[i] -= h;
        double fd = (scaled<3>(wp, x, t, n) - scaled<3>(wm, x, t, n)) / (2 * h);
        bool ok = std::fabs(dw[i] - fd) <= 1e-6 * (1 + std::fabs(fd));
        std::printf("w%d %.17g %.17g%s\n", i, dw[i], fd, ok ? "" : " MISMATCH");
        bad |= !ok;
    }
    return bad;
}
