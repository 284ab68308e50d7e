/* Declares g with one rule; bad/conflict_b.c declares it with another. */
double rule_a(double x, double d_ret);
__attribute__((enzyme("gradient", rule_a))) double g(double x);
double __enzyme_autodiff(void *, ...);
double use_b(double x);
static double f(double x) { return g(x) + use_b(x); }
int main(void) { return __enzyme_autodiff((void *)f, 1.0) > 0; }
