/* Programs gozyme cannot differentiate, one per -D: each must stop the
 * link with an error naming the source, never a crash or a segfault. */
#include <stdarg.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
int enzyme_dup, enzyme_const;

#if defined(VARIADIC)
double sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg(ap, double);
  va_end(ap);
  return s;
}
double f(double x) { return sum(2, x, x * x); }
int main(void) { printf("%g\n", __enzyme_autodiff((void *)f, 3.0)); return 0; }
#elif defined(NOSHADOW)
double f(double *x, double c) { return x[0] * x[0] * c; }
int main(void) {
  double x = 3;
  /* enzyme_dup's shadow is missing: enzyme_const comes next. */
  printf("%g\n", __enzyme_autodiff((void *)f, enzyme_dup, &x, enzyme_const, 2.0));
  return 0;
}
#elif defined(ASM)
double f(double x) {
  double y;
  __asm__("movsd %1, %0" : "=x"(y) : "x"(x));
  return y * x;
}
int main(void) { printf("%g\n", __enzyme_autodiff((void *)f, 3.0)); return 0; }
#endif
