/* relu3: gozyme's smallest demo.
 *
 * relu3(x) = x^3 for x > 0, else 0. Its derivative comes from gozyme at link
 * time through Enzyme's C ABI: __enzyme_autodiff is only declared, never
 * defined; gozyme-cc replaces the call with a call to the synthesized
 * gradient when it links the program. The program prints the derivative
 * next to the analytic one (3x^2 for x > 0, else 0) and exits with status 1
 * when any pair differs by more than 1e-12 relative.
 *
 *   bin/gozyme-cc -O2 examples/relu3/relu3.c -o relu3 -lm && ./relu3
 */
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double relu3(double x) { return x > 0 ? pow(x, 3) : 0; }

static double analytic(double x) { return x > 0 ? 3 * x * x : 0; }

int main(void) {
    const double xs[] = {-1, -0.5, 0.5, 1, 2};
    int bad = 0;
    printf("%6s %22s %22s\n", "x", "gozyme d/dx relu3", "analytic 3x^2");
    for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double x = xs[i];
        double d = __enzyme_autodiff((void *)relu3, x);
        double want = analytic(x);
        int ok = fabs(d - want) <= 1e-12 * fabs(want); /* exact when want == 0 */
        printf("%6g %22.17g %22.17g%s\n", x, d, want, ok ? "" : "  MISMATCH");
        bad |= !ok;
    }
    if (bad) {
        fprintf(stderr, "relu3: derivatives differ from the analytic values\n");
        return 1;
    }
    printf("all derivatives match\n");
    return 0;
}
