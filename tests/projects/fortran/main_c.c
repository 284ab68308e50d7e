/* C main differentiating Fortran code (energy.f90 with bonds.f90,
 * forces.f90 with scale.f, particles.f90) with __enzyme_autodiff and
 * __enzyme_fwddiff. Prints one line
 * "name index derivative expected" per derivative; the expected values are
 * analytic (energy) or central finite differences of the primal. */
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiff_forces(void *, ...);

double energy(const double *x, int n);
void forces(const double *x, double *y, int n);
void setup(int n);
double potential(const double *x);

#define N 5

static double energy_grad(const double *x, int n, int i) {
  double xi = x[i], s = sqrt(xi * xi + 1), e = exp(0.1 * xi);
  double g = 2 * sin(xi) * cos(xi) + 0.1 * e * s + e * xi / s + 1 + xi;
  if (i > 0) g += 2 * (xi - x[i - 1]);
  if (i < n - 1) g -= 2 * (x[i + 1] - xi);
  return g;
}

int main(void) {
  double x[N] = {0.3, -1.2, 2.0, 0.7, -0.4}, dx[N] = {0};

  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++) printf("energy %d %.17g %.17g\n", i, dx[i], energy_grad(x, N, i));

  /* Output array: dx = J^T w, seeded through the shadow of y. */
  double y[N], w[N] = {1.0, -0.5, 2.0, 0.25, 1.5}, dy[N], gx[N] = {0};
  for (int i = 0; i < N; i++) dy[i] = w[i];
  __enzyme_autodiff((void *)forces, enzyme_dup, x, gx, enzyme_dup, y, dy, enzyme_const, N);
  double y0[N];
  forces(x, y0, N); /* the gradient call ran the primal too: y holds F(x) */
  for (int i = 0; i < N; i++) printf("forces_primal %d %.17g %.17g\n", i, y[i], y0[i]);
  for (int j = 0; j < N; j++) {
    double h = 1e-6, xp[N], xm[N], yp[N], ym[N], fd = 0;
    for (int i = 0; i < N; i++) xp[i] = xm[i] = x[i];
    xp[j] += h;
    xm[j] -= h;
    forces(xp, yp, N);
    forces(xm, ym, N);
    for (int i = 0; i < N; i++) fd += w[i] * (yp[i] - ym[i]) / (2 * h);
    printf("forces %d %.17g %.17g\n", j, gx[j], fd);
  }

  /* Forward mode: directional derivatives along v. */
  double v[N] = {1, 0.5, -1, 2, 0.25}, xp[N], xm[N], h = 1e-6;
  for (int i = 0; i < N; i++) {
    xp[i] = x[i] + h * v[i];
    xm[i] = x[i] - h * v[i];
  }
  double de = __enzyme_fwddiff((void *)energy, enzyme_dup, x, v, enzyme_const, N);
  printf("energy_fwd 0 %.17g %.17g\n", de, (energy(xp, N) - energy(xm, N)) / (2 * h));
  double ty[N] = {0}, yp[N], ym[N];
  __enzyme_fwddiff_forces((void *)forces, enzyme_dup, x, v, enzyme_dup, y, ty, enzyme_const, N);
  forces(xp, yp, N);
  forces(xm, ym, N);
  for (int i = 0; i < N; i++) printf("forces_fwd %d %.17g %.17g\n", i, ty[i], (yp[i] - ym[i]) / (2 * h));

  /* Module arrays (allocatable) and derived types, read-only under AD. */
  setup(4);
  double p[3] = {0.5, 0.1, -0.3}, dp[3] = {0};
  __enzyme_autodiff((void *)potential, enzyme_dup, p, dp);
  for (int j = 0; j < 3; j++) {
    double h = 1e-6, pp[3] = {p[0], p[1], p[2]}, pm[3] = {p[0], p[1], p[2]};
    pp[j] += h;
    pm[j] -= h;
    printf("potential %d %.17g %.17g\n", j, dp[j], (potential(pp) - potential(pm)) / (2 * h));
  }
  return 0;
}
