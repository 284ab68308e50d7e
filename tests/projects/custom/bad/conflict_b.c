/* The other rule for g (see bad/conflict_a.c). */
double rule_b(double x, double d_ret);
__attribute__((enzyme("gradient", rule_b))) double g(double x);
double use_b(double x) { return g(x) * 2; }
double g(double x) { return x * x; }
double rule_a(double x, double d_ret) { return 2 * x * d_ret; }
double rule_b(double x, double d_ret) { return 3 * x * d_ret; }
