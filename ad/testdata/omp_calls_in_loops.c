/* Calls in the loops of parallel regions, whose tapes the threads keep
 * (the pairs of a parallel region frame no tape), and a region inside a
 * function called in a serial loop (that call's tape a field of the
 * loop's records, holding the region's):
 *   called: a parallel loop whose body calls proj in an inner loop of
 *     varying count (zero included) and rec, a recursion of depth 0 to 4
 *     with a loop of one or two calls of itself;
 *   stepped: time steps, each a call of step, which forks a parallel loop
 *     calling flux; norm2 called once outside the loops. */
#include "omp_check.h"

__attribute__((noinline)) static double proj(const double *x, int i, double a) {
  double t = x[i] * a;
  double c = cos(t), s = sin(t);
  return t > 0.5 ? c * x[(i + 1) % N] + s : s * s * x[i];
}

__attribute__((noinline)) static double rec(const double *x, int i, int d, double w) {
  if (d == 0) return w * x[i];
  double s = 0;
  for (int k = 0; k < (d & 1) + 1; k++) s += rec(x, (i + k + 1) % N, d - 1, w * x[(i + k) % N]);
  return s * 0.7 + sin(w);
}

static double called(const double *x, double a, int n) {
  double out[N];
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    double acc = 0;
    for (int j = 0; j < (i % 4); j++) acc += proj(x, (i + j) % n, a) * x[j];
    acc += rec(x, i, i % 5, a);
    out[i] = acc * proj(x, i, a);
  }
  double s = 0;
  for (int i = 0; i < n; i++) s += out[i] * out[i];
  return s;
}

__attribute__((noinline)) static double flux(const double *u, int i, int n, double a) {
  double l = u[(i + n - 1) % n], r = u[(i + 1) % n];
  return 0.1 * a * (l - 2 * u[i] + r) + 0.01 * sin(u[i] * r);
}

__attribute__((noinline)) static void step(double *un, const double *u, int n, double a) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++) un[i] = u[i] + flux(u, i, n, a);
}

__attribute__((noinline)) static double norm2(const double *u, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += u[i] * u[i] * (i + 1);
  return s;
}

static double stepped(const double *x, double a, int n) {
  double u[N], un[N];
  for (int i = 0; i < n; i++) u[i] = x[i];
  double e = norm2(u, n);
  for (int s = 0; s < 5; s++) {
    step(un, u, n, a);
    for (int i = 0; i < n; i++) u[i] = un[i] * (1 + 0.01 * e);
  }
  return 1e-3 * (norm2(u, n) + e);
}

static double f(double *x, double a, int n) { return called(x, a, n) + stepped(x, a, n); }

int main(void) { return run_checks(); }
