/* relu3 and square differentiated by gozyme at whatever -O level this is
 * built with. Prints "name x derivative" per point; the Go driver compares
 * each with the analytic value. Also checks them itself: exits 1 on a
 * mismatch. */
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double relu3(double x) { return x > 0 ? pow(x, 3) : 0; }
double square(double x) { return x * x; }

static int report(const char *name, double x, double got, double want) {
    printf("%s %.17g %.17g\n", name, x, got);
    if (fabs(got - want) <= 1e-12 * fabs(want))
        return 1;
    fprintf(stderr, "%s'(%g) = %.17g, want %.17g\n", name, x, got, want);
    return 0;
}

int main(void) {
    const double xs[] = {-2, -1, -0.5, 0.5, 1, 2, 3};
    int ok = 1;
    for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double x = xs[i];
        ok &= report("relu3", x, __enzyme_autodiff((void *)relu3, x), x > 0 ? 3 * x * x : 0);
        ok &= report("square", x, __enzyme_autodiff((void *)square, x), 2 * x);
    }
    return ok ? 0 : 1;
}
