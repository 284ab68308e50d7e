/* Differentiates relu3, square and a polynomial with gozyme and checks the
 * results against the analytic derivatives from libmathx. The functions
 * differentiated live in this translation unit, next to the AD calls.
 * Prints "name x derivative" per point; exits 1 on any mismatch. */
#include <math.h>
#include <stdio.h>

#include "mathx.h"

double __enzyme_autodiff(void *, ...);

static const double coef[4] = {1.0, -2.0, 0.5, 0.25};

double relu3(double x) { return x > 0 ? pow(x, 3) : 0; }
double square(double x) { return x * x; }
double cubic(double x) { /* 1 - 2x + x^2/2 + x^3/4, by Horner */
    double y = 0;
    for (int i = 3; i >= 0; i--)
        y = y * x + coef[i];
    return y;
}

static int check(const char *name, double x, double got, double want) {
    int ok = fabs(got - want) <= 1e-12 * fabs(want);
    printf("%s %.17g %.17g\n", name, x, got);
    if (!ok)
        fprintf(stderr, "%s'(%g) = %.17g, want %.17g\n", name, x, got, want);
    return ok;
}

int main(void) {
    const double xs[] = {-2, -1, -0.5, 0.5, 1, 2, 3};
    int ok = 1;
    for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double x = xs[i];
        ok &= check("relu3", x, __enzyme_autodiff((void *)relu3, x), mathx_relu3_prime(x));
        ok &= check("square", x, __enzyme_autodiff((void *)square, x), mathx_square_prime(x));
        ok &= check("cubic", x, __enzyme_autodiff((void *)cubic, x), mathx_poly_prime(coef, 4, x));
        if (cubic(x) != mathx_poly(coef, 4, x)) {
            fprintf(stderr, "cubic(%g) differs from mathx_poly\n", x);
            ok = 0;
        }
    }
    return ok ? 0 : 1;
}
