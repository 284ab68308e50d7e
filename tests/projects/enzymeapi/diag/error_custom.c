/* Error estimation through a function with a custom forward derivative:
 * the rule gives tangents, not error bounds. */
double __enzyme_error_estimate(void *, ...);
double g(double x) { return x * x; }
double dg(double x, double dx) { return 2 * x * dx; }
void *__enzyme_register_derivative_g[2] = {(void *)g, (void *)dg};
__attribute__((noinline)) double f(double x) { return g(x) + 1; }

int main(void) { return __enzyme_error_estimate((void *)f, 2.0, 0.0) > 1; }
