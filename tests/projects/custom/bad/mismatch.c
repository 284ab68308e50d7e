double __enzyme_autodiff(void *, ...);
double f(double x) { return x * x; }
double f_rev(double x) { return 2 * x; }   /* missing the d_ret parameter */
void *__enzyme_register_gradient_f[3] = {(void *)f, (void *)0, (void *)f_rev};
int main(void) { return (int)__enzyme_autodiff((void *)f, 1.0); }
