/* Differentiates a circle's area with gozyme; the library gives the primal
 * and the analytic derivative. Prints "area r derivative" per radius and
 * exits 1 on a mismatch. */
#include <math.h>
#include <stdio.h>

#include "shapes.h"

double __enzyme_autodiff(void *, ...);

double area(double r) { return 3.14159265358979323846 * r * r; }

int main(void) {
    const double rs[] = {0.5, 1, 2.5, 10};
    int ok = 1;
    for (unsigned i = 0; i < sizeof rs / sizeof rs[0]; i++) {
        double r = rs[i];
        double d = __enzyme_autodiff((void *)area, r);
        double want = shapes_circle_area_prime(r);
        printf("area %.17g %.17g\n", r, d);
        if (fabs(d - want) > 1e-12 * fabs(want) || area(r) != shapes_circle_area(r)) {
            fprintf(stderr, "area'(%g) = %.17g, want %.17g\n", r, d, want);
            ok = 0;
        }
    }
    return ok ? 0 : 1;
}
