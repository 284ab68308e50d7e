double __enzyme_autodiff(void *, ...);
double f(double x) { return x * x; }
double rev_a(double x, double d) { return 2 * x * d; }
double rev_b(double x, double d) { return 2 * x * d; }
void *__enzyme_register_gradient_fa[3] = {(void *)f, (void *)0, (void *)rev_a};
void *__enzyme_register_gradient_fb[3] = {(void *)f, (void *)0, (void *)rev_b};
int main(void) { return (int)__enzyme_autodiff((void *)f, 1.0); }
