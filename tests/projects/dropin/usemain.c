/* use(x) = sq(x) + 3 with sq in another object: --wrap=sq and
 * --defsym=sq=cube change which function the call runs. */
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
double sq(double x);

double use(double x) { return sq(x) + 3; }

int main(void) {
  printf("use(3)=%.17g grad=%.17g\n", use(3), __enzyme_autodiff((void *)use, 3.0));
  return 0;
}
