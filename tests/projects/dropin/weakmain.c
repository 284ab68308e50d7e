/* The caller holds a weak default sq; the link may bring a strong one
 * (strong.c). The program prints the value and the derivative of the sq it
 * runs, evaluated at 3: the test compares them with the definition ld
 * picks. */
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

__attribute__((weak)) double sq(double x) { return x * x + 3 * x; }

int main(void) {
  double x = 3;
  printf("sq(3)=%.17g grad=%.17g\n", sq(x), __enzyme_autodiff((void *)sq, x));
  return 0;
}
