// Reverse mode with an enzyme_dupnoneed output whose primal pointer is
// nullptr (as Enzyme's ode-real benchmark passes it): the primal stores
// through it are not wanted and must not happen; the adjoints of u, v and p
// are seeded from the shadows of du and dv. A second function reads its
// output back for a result that is kept: that must stop the link, not read
// through the null pointer.
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_dupnoneed, enzyme_const;
void __enzyme_autodiff(void *, ...);

#define N 5

__attribute__((noinline)) void stencil(double *__restrict du, double *__restrict dv,
                                       const double *__restrict u, const double *__restrict v,
                                       const double *__restrict p, int n) {
  for (int i = 0; i < n; i++) {
    int im = i == 0 ? i : i - 1, ip = i == n - 1 ? i : i + 1;
    double uv = u[i] * u[i] * v[i];
    du[i] = p[2] * (u[im] + u[ip] - 2 * u[i]) + p[1] + uv - (p[0] + 1) * u[i];
    dv[i] = p[2] * (v[im] + v[ip] - 2 * v[i]) + p[0] * u[i] - uv;
  }
}

static double objective(const double *u, const double *v, const double *p, const double *seed) {
  double du[N], dv[N], s = 0;
  stencil(du, dv, u, v, p, N);
  for (int i = 0; i < N; i++)
    s += seed[i] * du[i] + seed[N + i] * dv[i];
  return s;
}

int main(void) {
  double u[N], v[N], p[3] = {3.4, 1.0, 0.7}, seed[2 * N];
  for (int i = 0; i < N; i++) {
    u[i] = 0.3 + 0.1 * i;
    v[i] = 1.1 - 0.05 * i * i;
    seed[i] = 1.0 + 0.25 * i;
    seed[N + i] = -0.5 + 0.3 * i;
  }
  double dseed[2 * N], gu[N] = {0}, gv[N] = {0}, gp[3] = {0};
  for (int i = 0; i < 2 * N; i++)
    dseed[i] = seed[i];
  __enzyme_autodiff((void *)stencil, enzyme_dupnoneed, (double *)0, dseed, enzyme_dupnoneed,
                    (double *)0, dseed + N, enzyme_dup, u, gu, enzyme_dup, v, gv, enzyme_dup, p, gp,
                    enzyme_const, N);
  int bad = 0;
  double *xs[3] = {u, v, p}, *gs[3] = {gu, gv, gp};
  int ns[3] = {N, N, 3};
  for (int a = 0; a < 3; a++)
    for (int k = 0; k < ns[a]; k++) {
      double h = 1e-4, x = xs[a][k];
      xs[a][k] = x + h;
      double fp = objective(u, v, p, seed);
      xs[a][k] = x - h;
      double fm = objective(u, v, p, seed);
      xs[a][k] = x;
      double fd = (fp - fm) / (2 * h);
      if (fabs(fd - gs[a][k]) > 1e-6 * fmax(1.0, fabs(fd))) {
        printf("mismatch %d[%d]: ad %.12g fd %.12g\n", a, k, gs[a][k], fd);
        bad = 1;
      }
    }
  printf(bad ? "wrong\n" : "ok\n");
  return bad;
}
