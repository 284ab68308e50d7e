/* __enzyme_error_estimate(f, x, err_x, ...): forward propagation of
 * floating-point error bounds, Enzyme's model: an operation f(x_i) has
 * error max(ulp(f), sum_i |x_i / f * df/dx_i * err_i|) (relative errors
 * scaled by condition numbers, at least one rounding step of the result).
 * Each check recomputes the model's value by hand; the cancellation
 * example also checks that the bound covers the actual error, and that
 * enzymeLogError hears of each operation that reaches the result. */
#include "check.h"

double __enzyme_error_estimate(void *, ...);
float __enzyme_error_estimatef(void *, ...);

static double ulp(double r) { return nextafter(fabs(r), INFINITY) - fabs(r); }
static float ulpf(float r) { return nextafterf(fabsf(r), INFINITY) - fabsf(r); }
static double max2(double a, double b) { return a > b ? a : b; }

static int logged;
static double last_logged;
void enzymeLogError(double res, double err, const char *opcode, const char *callee, const char *module,
                    const char *function, const char *block) {
  (void)res, (void)opcode, (void)callee, (void)module, (void)function, (void)block;
  logged++;
  last_logged = err;
}

/* 1 - cos(x) cancels: the rounding of cos grows by 1/(1 - cos x). */
double cancel(double x) {
  double v1 = cos(x);
  double v2 = 1 - v1;
  double v3 = x * x;
  double v4 = v2 / v3;
  double unused = sin(v4); /* reaches no result: not logged */
  printf("sin(v4) = %g\n", unused);
  return v4;
}

__attribute__((noinline)) double scale(double a, double b) { return a * b; }
double through_call(double x, double y) { return scale(x, y) + 1; }

void add_ptr(const double *a, const double *b, double *out) { *out = *a + *b; }

double horner(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s = s * x + 1;
  return s;
}

double root(double x) { return sqrt(x); }
float halve(float x) { return x / 3.0f; }

int main(void) {
  double x = 1e-7;
  double v1 = cos(x), v2 = 1 - v1, v3 = x * x, v4 = v2 / v3;
  double e1 = ulp(v1);
  double e2 = max2(ulp(v2), fabs(v1 / v2 * e1));
  double e3 = ulp(v3);
  double e4 = max2(ulp(v4), fabs(e2) + fabs(e3));
  double err = __enzyme_error_estimate((void *)cancel, x, 0.0);
  CHECK("cancellation: error of (1 - cos x) / x^2", err, e4);
  CHECK("enzymeLogError called for cos, -, *, /", logged, 4);
  CHECK("enzymeLogError got the result's error last", last_logged, e4);
  long double exact = (1 - cosl(x)) / ((long double)x * x);
  CHECK("the bound covers the actual relative error", fabsl(v4 - exact) / exact <= err, 1);

  /* An input error carried through a call: x*y has condition 1 in each. */
  double a = 3.0, b = 5.0, ea = 1e-10, eb = 2e-10;
  double p = a * b, em = max2(ulp(p), ea + eb), q = p + 1;
  double es = max2(ulp(q), fabs(p / q * em));
  CHECK("error through a called function", __enzyme_error_estimate((void *)through_call, a, ea, b, eb), es);

  /* Errors in memory: shadows hold the values' errors. */
  double pa = 99, pb = 127, epa = 0, epb = 0, out = 0, eout = 0;
  __enzyme_error_estimate((void *)add_ptr, &pa, &epa, &pb, &epb, &out, &eout);
  CHECK("error written through a pointer (226 to one ulp)", eout, ulp(226.0));
  pa = 1, epa = 1e-10;
  __enzyme_error_estimate((void *)add_ptr, &pa, &epa, &pb, &epb, &out, &eout);
  CHECK("an input error scaled by its share of the sum", eout, max2(ulp(128.0), 1.0 / 128 * 1e-10));

  /* A loop: s <- s*x + 1, the errors of * and + in turn. */
  double hx = 0.5, ehx = 1e-9, s = 0, es2 = 0;
  for (int i = 0; i < 6; i++) {
    double m = s * hx;
    double em2 = s == 0 ? ulp(m) : max2(ulp(m), fabs(es2) + fabs(ehx));
    double t = m + 1;
    es2 = max2(ulp(t), fabs(m / t * em2));
    s = t;
  }
  CHECK("error of a loop (Horner)", __enzyme_error_estimate((void *)horner, hx, ehx, 6), es2);

  /* sqrt halves a relative error. */
  CHECK("sqrt halves the relative error", __enzyme_error_estimate((void *)root, 2.0, 1e-10), max2(ulp(sqrt(2.0)), 0.5e-10));
  CHECK("sqrt without input error: one rounding", __enzyme_error_estimate((void *)root, 2.0, 0.0), ulp(sqrt(2.0)));

  /* float: the rounding step of float. */
  float h = halve(1.0f);
  CHECK("float: one float rounding step", __enzyme_error_estimatef((void *)halve, 1.0f, 0.0f), ulpf(h));
  return DONE();
}
