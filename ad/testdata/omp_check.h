/* The checks every OpenMP test program (omp_*.c) shares. Each program
 * defines
 *     static double f(double *x, double a, int n);
 * with OpenMP constructs inside, and its main returns run_checks(). The
 * gradient (reverse mode) and a directional derivative (forward mode) are
 * checked against central differences of f and against each other (and
 * split mode against the gradient), and
 * printed ("grad", "fwd" lines) for comparison with the serial build of
 * the same program (compiled without -fopenmp), which the Go test does. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#else
static int omp_get_thread_num(void) { return 0; }
static int omp_get_num_threads(void) { return 1; }
static int omp_get_max_threads(void) { return 1; }
#endif

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);

#ifndef N
#define N 37 /* no multiple of a team's size: uneven chunks */
#endif

static double f(double *x, double a, int n);
static int fails;

static void expect(const char *what, int i, double got, double want, double tol) {
  double scale = fabs(want) > 1 ? fabs(want) : 1;
  if (!(fabs(got - want) <= tol * scale)) {
    printf("FAIL %s %d: got %.17g, want %.17g\n", what, i, got, want);
    fails++;
  }
}

static int run_checks(void) {
  double x[N], dx[N], dxs[N], v[N], xp[N], xm[N];
  double a = 0.8, va = 0.6, h = 1e-6;
  for (int i = 0; i < N; i++) {
    x[i] = 0.3 + 0.5 * sin(1.3 * i + 0.2);
    v[i] = cos(0.7 * i);
    dx[i] = dxs[i] = 0;
  }
  double da = __enzyme_autodiff((void *)f, enzyme_dup, x, dx, a, enzyme_const, N);
  /* split mode: the augmented forward and the reverse apart */
  void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dxs, a, enzyme_const, N);
  double das = __enzyme_reverse((void *)f, enzyme_dup, x, dxs, a, enzyme_const, N, 1.0, tape);
  expect("split mode d/da", 0, das, da, 1e-10);
  double fwd = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, a, va, enzyme_const, N);
  double dot = da * va;
  for (int i = 0; i < N; i++) {
    printf("grad x %d %.17g\n", i, dx[i]);
    memcpy(xp, x, sizeof x);
    memcpy(xm, x, sizeof x);
    xp[i] += h;
    xm[i] -= h;
    expect("d/dx (central difference)", i, dx[i], (f(xp, a, N) - f(xm, a, N)) / (2 * h), 1e-6);
    expect("split mode d/dx", i, dxs[i], dx[i], 1e-10);
    dot += dx[i] * v[i];
  }
  printf("grad a 0 %.17g\n", da);
  printf("fwd v 0 %.17g\n", fwd);
  expect("d/da (central difference)", 0, da, (f(x, a + h, N) - f(x, a - h, N)) / (2 * h), 1e-6);
  expect("forward mode (gradient . v)", 0, fwd, dot, 1e-10);
  printf("value %.17g\n", f(x, a, N));
  return fails != 0;
}
