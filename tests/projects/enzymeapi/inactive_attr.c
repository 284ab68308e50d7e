/* __attribute__((enzyme_inactive)) on functions (a definition, and a
 * declaration whose definition lives in another translation unit that
 * never sees the attribute) and on a global, and the global forms
 * __enzyme_inactivefn and __enzyme_inactive_global: calls of inactive
 * functions carry no derivative, and derivatives written into inactive
 * globals are dropped. Each function would have another derivative if its
 * body were differentiated. */
#include "check.h"

double __enzyme_autodiff(void *, ...);

__attribute__((enzyme_inactive)) double scale_of(double a) { return 2 * a; }

/* Defined in inactive_other.c, which does not see this attribute. */
__attribute__((enzyme_inactive)) double shift_of(double a);

double logged(double a) { return a * a; } /* listed in __enzyme_inactivefn */
void *__enzyme_inactivefn[] = {(void *)logged};

__attribute__((enzyme_inactive)) double counter = 5.5;
double history = 1.5; /* listed in __enzyme_inactive_global */
void *__enzyme_inactive_global = &history;

double f_scale(double x) { return scale_of(x) * x; }   /* d = scale_of(x) = 2x */
double f_shift(double x) { return shift_of(x) * x; }   /* d = shift_of(x) = x + 1 */
double f_logged(double x) { return logged(x) + 3 * x; } /* d = 3 */

/* The optimizer turns the branches into one store through a select of
 * &counter and c: the global's side gets a zeroed shadow. */
__attribute__((noinline)) void bump(int cond, double a, double *c) {
  if (cond)
    counter *= a;
  else
    *c *= a;
}
double f_counter(int cond, double x) {
  double v = x;
  bump(cond, x, &v);
  return v;
}

/* A derivative written into an inactive global is dropped, not an error
 * (the function reads the global back). */
double f_history(double x) {
  double h = history;
  history = h * x;
  return x * x + h * history / history; /* d = 2x: h is a constant */
}

int main(void) {
  double x = 1.75;
  CHECK("enzyme_inactive definition", __enzyme_autodiff((void *)f_scale, x), 2 * x);
  CHECK("enzyme_inactive declaration", __enzyme_autodiff((void *)f_shift, x), x + 1);
  CHECK("__enzyme_inactivefn", __enzyme_autodiff((void *)f_logged, x), 3);
  CHECK("inactive global, other branch", __enzyme_autodiff((void *)f_counter, 0, x), 2 * x);
  double before = counter;
  CHECK("inactive global, its branch", __enzyme_autodiff((void *)f_counter, 1, x), 1);
  CHECK("inactive global, primal kept", counter, before * x);
  history = 1.5;
  CHECK("__enzyme_inactive_global", __enzyme_autodiff((void *)f_history, x), 2 * x);
  return DONE();
}
