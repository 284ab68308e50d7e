/* __attribute__((enzyme_function_like("log1p"))) and the global form
 * __enzyme_function_like: the function's calls are differentiated by the
 * named math function's rule (here deliberately not the body's
 * derivative), while the primal still runs the body. */
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
float __enzyme_autodifff(void *, ...);

__attribute__((enzyme_function_like("log1p"))) double my_log1p(double a) { return 2 * a; }
__attribute__((enzyme_function_like("log1p"))) float my_log1pf(float a) { return 2 * a; }

double my_exp(double a) { /* a truncated series, differentiated as exp */
  return 1 + a + a * a / 2;
}
void *__enzyme_function_like[2] = {(void *)my_exp, (void *)"exp"};

double f_log1p(double x) { return my_log1p(x) * 3; }
float f_log1pf(float x) { return my_log1pf(x); }
double f_exp(double x) { return my_exp(x * x); }
double value_of(double x) { return my_log1p(x); }

int main(void) {
  double x = 2.0;
  CHECK("function_like log1p, reverse", __enzyme_autodiff((void *)f_log1p, x), 3 / (1 + x));
  CHECK("function_like log1p, forward", __enzyme_fwddiff((void *)f_log1p, x, 1.0), 3 / (1 + x));
  CHECK("function_like log1p, float", __enzyme_autodifff((void *)f_log1pf, 2.0f), 1 / 3.0f);
  /* exp's rule reuses the call's result: d/dx my_exp(x^2) = 2x my_exp(x^2). */
  CHECK("__enzyme_function_like exp", __enzyme_autodiff((void *)f_exp, x), 2 * x * my_exp(x * x));
  CHECK("primal runs the body", value_of(x), 2 * x);
  return DONE();
}
