/* Enzyme's C interface beyond markers by value: markers passed by address,
 * the whole-call markers enzyme_primal_return and enzyme_const_return,
 * split mode with the result and the tape returned together and with a
 * tape in the caller's buffer (enzyme_allocated, enzyme_tape), and a
 * function pointer passed enzyme_const that the differentiated function
 * calls (specialized in place). Every value is checked against its
 * analytic derivative. */
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_primal_return, enzyme_const_return,
    enzyme_allocated, enzyme_tape;

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct {
  double dx, dy, value;
} grad_and_value;
grad_and_value __enzyme_autodiff_primal(void *, ...);
typedef struct {
  double value, dvalue;
} value_and_tangent;
value_and_tangent __enzyme_fwddiff_primal(void *, ...);

double prod(double x, double y) { return x * y * y; }

/* Writes through its output and returns a value. */
double scale_into(const double *x, double *out, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    out[i] = 3 * x[i] * x[i];
    s += x[i];
  }
  return s;
}

/* Split mode: the result and the tape in one struct. */
typedef struct {
  double result;
  void *tape;
} result_and_tape;
result_and_tape __enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
void __enzyme_augmentfwd_buffer(void *, ...);
void __enzyme_reverse_buffer(void *, ...);

double cube_sin(double x) { return sin(x) * x * x; }

void update(double *x) {
  x[0] += x[1] * x[1];
  x[1] = sin(x[1]);
}

/* A callback passed as a constant. */
double apply_twice(double (*g)(double), double x) { return g(g(x)); }
double square(double v) { return v * v; }

int main(void) {
  double x = 1.25, y = -0.75;
  /* Markers by address. */
  CHECK("&enzyme_out", __enzyme_autodiff((void *)prod, &enzyme_out, x, &enzyme_const, y), y * y);
  CHECK("&enzyme_dup forward", __enzyme_fwddiff((void *)prod, &enzyme_dup, x, 1.0, &enzyme_dup, y, 0.0), y * y);

  /* enzyme_primal_return: the derivatives, then the result. */
  grad_and_value gv = __enzyme_autodiff_primal((void *)prod, &enzyme_primal_return, x, y);
  CHECK("primal_return dx", gv.dx, y * y);
  CHECK("primal_return dy", gv.dy, 2 * x * y);
  CHECK("primal_return value", gv.value, x * y * y);
  value_and_tangent vt = __enzyme_fwddiff_primal((void *)prod, enzyme_primal_return, x, 0.0, y, 1.0);
  CHECK("forward primal_return value", vt.value, x * y * y);
  CHECK("forward primal_return tangent", vt.dvalue, 2 * x * y);

  /* enzyme_const_return: the result is not differentiated; derivatives
   * come only through the output's shadow. */
  double in[3] = {0.5, -1.0, 2.0}, din[3] = {0, 0, 0}, out[3], dout[3] = {1, 1, 1};
  __enzyme_autodiff((void *)scale_into, enzyme_const_return, enzyme_dup, in, din, enzyme_dup, out, dout, enzyme_const, 3);
  for (int i = 0; i < 3; i++)
    CHECK("const_return through the output", din[i], 6 * in[i]);
  /* Forward mode with enzyme_const_return returns the primal result. */
  double t[3] = {1, 1, 1}, dt[3];
  CHECK("forward const_return value",
        __enzyme_fwddiff((void *)scale_into, &enzyme_const_return, &enzyme_dup, in, t, &enzyme_dup, out, dt, &enzyme_const, 3),
        in[0] + in[1] + in[2]);
  for (int i = 0; i < 3; i++)
    CHECK("forward const_return tangent", dt[i], 6 * in[i]);

  /* Split mode: {result, tape}, then the reverse with the tape. */
  result_and_tape rt = __enzyme_augmentfwd((void *)cube_sin, x);
  CHECK("augmentfwd result", rt.result, sin(x) * x * x);
  CHECK("reverse", __enzyme_reverse((void *)cube_sin, x, 2.0, rt.tape), 2.0 * (cos(x) * x * x + 2 * x * sin(x)));

  /* The tape in the caller's buffer. */
  char buffer[256];
  double v[2] = {1.5, 0.5}, dv[2] = {1.0, 1.0};
  double v1 = v[1];
  __enzyme_augmentfwd_buffer((void *)update, enzyme_dup, v, dv, enzyme_allocated, (int)sizeof buffer, enzyme_tape, buffer);
  CHECK("augmentfwd into enzyme_tape", v[0], 1.5 + v1 * v1);
  __enzyme_reverse_buffer((void *)update, enzyme_dup, v, dv, enzyme_allocated, (int)sizeof buffer, enzyme_tape, buffer);
  CHECK("reverse from enzyme_tape dx0", dv[0], 1.0);
  CHECK("reverse from enzyme_tape dx1", dv[1], 2 * v1 + cos(v1));

  /* A callback passed enzyme_const: d/dx (x^2)^2 = 4x^3. */
  CHECK("constant callback", __enzyme_autodiff((void *)apply_twice, enzyme_const, square, x), 4 * x * x * x);
  CHECK("constant callback forward", __enzyme_fwddiff((void *)apply_twice, enzyme_const, square, x, 1.0), 4 * x * x * x);
  return DONE();
}
