/* Floating-point truncation, another Enzyme entry point gozyme does not
 * implement. */
typedef double (*fn_t)(double);
fn_t __enzyme_truncate_mem_func(void *, int, int);
double square(double x) { return x * x; }

int main(void) { return __enzyme_truncate_mem_func((void *)square, 64, 32)(2.0) != 4.0; }
