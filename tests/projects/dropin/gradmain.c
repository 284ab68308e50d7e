/* The derivative of cubic, defined in cubic.c: the object a damaged input
 * stands in for. */
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
double cubic(double x);

int main(void) {
  printf("%.17g\n", __enzyme_autodiff((void *)cubic, 3.0));
  return 0;
}
