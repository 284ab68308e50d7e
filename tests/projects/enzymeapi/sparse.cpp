// Enzyme's sparse API: __enzyme_todense views (a ring buffer read and
// written through a dense pointer) and a Hessian accumulated into a
// triplet list through a view's store function, by forward mode over
// reverse mode with the primal gradient passed enzyme_dupnoneed (T*)0x1.
#include <math.h>
#include <stdint.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
template <typename T, typename... Tys> extern T __enzyme_autodiff(void *, Tys...) noexcept;
template <typename T, typename... Tys> extern T __enzyme_fwddiff(void *, Tys...) noexcept;
template <typename T, typename... Tys> extern T __enzyme_todense(Tys...) noexcept;
template <typename T, typename... Tys> extern T __enzyme_post_sparse_todense(Tys...) noexcept;

struct Triplets {
  int n;
  long row[512], col[512];
  double val[512];
};

static int failures, bad_stores;

static void check(const char *what, double got, double want) {
  int ok = fabs(got - want) <= 1e-10 * (1 + fabs(want));
  if (!ok)
    failures++;
  printf("%s %s: %.12g (want %.12g)\n", ok ? "ok" : "FAIL", what, got, want);
}

// The ring buffer: element k of the view is buf[k % N].
static double ring_load(int64_t off, double *buf, long N) { return buf[(off / 8) % N]; }
static void ring_store(double v, int64_t off, double *buf, long N) { buf[(off / 8) % N] = v; }
static void never_store(double v, int64_t off, long i, long N) { bad_stores++; }
// The seed e_i and the Hessian's row i over the ring: element k is slot k % N.
static double ident_load(int64_t off, long i, long N) { return (off / 8) % N == i; }
static double zero_load(int64_t off, long i, long N, Triplets *t) { return 0; }
static void sparse_store(double v, int64_t off, long i, long N, Triplets *t) {
  if (v == 0 || t->n == 512)
    return;
  t->row[t->n] = i;
  t->col[t->n] = (off / 8) % N;
  t->val[t->n] = v;
  t->n++;
}

__attribute__((noinline)) static double sum_view(const double *v, long n) {
  double s = 0;
  for (long k = 0; k < n; k++)
    s += v[k] * (k + 1);
  return s;
}

__attribute__((noinline)) static void fill_view(double *v, long n) {
  for (long k = 0; k < n; k++)
    v[k] = 10.0 * k;
}

// F(x) = sum_i x_i^2 x_{i+1} + sin(x_i), indices mod N (x[N] is x[0]
// through the ring view).
static double f(long N, double *x) {
  double s = 0;
  for (long i = 0; i < N; i++)
    s += x[i] * x[i] * x[i + 1] + sin(x[i]);
  return s;
}

static void grad_f(long N, double *x, double *dx) {
  __enzyme_autodiff<void>((void *)f, enzyme_const, N, enzyme_dup, x, dx);
}

__attribute__((noinline)) static void hessian(long N, double *x, Triplets *t) {
  double *ring = __enzyme_todense<double *>((void *)ring_load, (void *)ring_store, x, N);
  for (long i = 0; i < N; i++) {
    double *seed = __enzyme_todense<double *>((void *)ident_load, (void *)never_store, i, N);
    double *row = __enzyme_post_sparse_todense<double *>((void *)zero_load, (void *)sparse_store, i, N, t);
    __enzyme_fwddiff<void>((void *)grad_f, enzyme_const, N, enzyme_dup, ring, seed,
                           enzyme_dupnoneed, (double *)0x1, row);
  }
}

int main() {
  const long N = 5;
  double x[N];
  for (long i = 0; i < N; i++)
    x[i] = 0.5 + 0.25 * i;

  // A dense view over the ring buffer: reads wrap around.
  double *ring = __enzyme_todense<double *>((void *)ring_load, (void *)ring_store, x, N);
  double want = 0;
  for (long k = 0; k < 2 * N + 1; k++)
    want += x[k % N] * (k + 1);
  check("sum through the ring view", sum_view(ring, 2 * N + 1), want);

  // Writes wrap around too: the last write to each slot stays.
  double buf[N];
  double *wring = __enzyme_todense<double *>((void *)ring_load, (void *)ring_store, buf, N);
  fill_view(wring, N + 2);
  for (long j = 0; j < N; j++) {
    char what[64];
    snprintf(what, sizeof what, "ring slot %ld", j);
    check(what, buf[j], 10.0 * (j < 2 ? N + j : j));
  }

  static Triplets t;
  hessian(N, x, &t);
  double H[N][N] = {};
  for (int k = 0; k < t.n; k++)
    H[t.row[k]][t.col[k]] += t.val[k];
  for (long j = 0; j < N; j++)
    for (long k = 0; k < N; k++) {
      double w = 0;
      long next = (j + 1) % N, prev = (j + N - 1) % N;
      if (k == j)
        w = 2 * x[next] - sin(x[j]);
      else if (k == next)
        w = 2 * x[j];
      else if (k == prev)
        w = 2 * x[prev];
      char what[64];
      snprintf(what, sizeof what, "H[%ld][%ld]", j, k);
      check(what, H[j][k], w);
    }
  if (bad_stores)
    failures++;
  printf("stores through the seed %d\n", bad_stores);
  printf("failures %d\n", failures);
  return failures != 0;
}
