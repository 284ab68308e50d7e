// A LULESH-style element loop (after the public description of the LULESH
// proxy app): each thread takes one hexahedral element, gathers its eight
// nodes' coordinates through the node list, computes the element volume
// with LULESH's CalcElemVolume formula, and adds the element's energy
// into the total with atomicAdd. The gradient of the total energy with
// respect to the node coordinates (the nodal forces, negated) scatters
// back into nodes up to eight elements share: atomic adds, and the
// primal's atomicAdd differentiated. Forward mode too.
#include "gpucheck.h"

#define TRIPLE_PRODUCT(x1, y1, z1, x2, y2, z2, x3, y3, z3)                                         \
  ((x1) * ((y2) * (z3) - (z2) * (y3)) + (x2) * ((z1) * (y3) - (y1) * (z3)) + (x3) * ((y1) * (z2) - (z1) * (y2)))

__device__ double elemVolume(const double *x, const double *y, const double *z) {
  double dx61 = x[6] - x[1], dy61 = y[6] - y[1], dz61 = z[6] - z[1];
  double dx70 = x[7] - x[0], dy70 = y[7] - y[0], dz70 = z[7] - z[0];
  double dx63 = x[6] - x[3], dy63 = y[6] - y[3], dz63 = z[6] - z[3];
  double dx20 = x[2] - x[0], dy20 = y[2] - y[0], dz20 = z[2] - z[0];
  double dx50 = x[5] - x[0], dy50 = y[5] - y[0], dz50 = z[5] - z[0];
  double dx64 = x[6] - x[4], dy64 = y[6] - y[4], dz64 = z[6] - z[4];
  double dx31 = x[3] - x[1], dy31 = y[3] - y[1], dz31 = z[3] - z[1];
  double dx72 = x[7] - x[2], dy72 = y[7] - y[2], dz72 = z[7] - z[2];
  double dx43 = x[4] - x[3], dy43 = y[4] - y[3], dz43 = z[4] - z[3];
  double dx57 = x[5] - x[7], dy57 = y[5] - y[7], dz57 = z[5] - z[7];
  double dx14 = x[1] - x[4], dy14 = y[1] - y[4], dz14 = z[1] - z[4];
  double dx25 = x[2] - x[5], dy25 = y[2] - y[5], dz25 = z[2] - z[5];
  double v = TRIPLE_PRODUCT(dx31 + dx72, dx63, dx20, dy31 + dy72, dy63, dy20, dz31 + dz72, dz63, dz20) +
             TRIPLE_PRODUCT(dx43 + dx57, dx64, dx70, dy43 + dy57, dy64, dy70, dz43 + dz57, dz64, dz70) +
             TRIPLE_PRODUCT(dx14 + dx25, dx61, dx50, dy14 + dy25, dy61, dy50, dz14 + dz25, dz61, dz50);
  return v / 12.0;
}

// total += Σ_e k·(V_e - V0)²/V0 - p·log(V_e/V0).
__device__ void energy(const double *x, const double *y, const double *z, const int *nodelist, double *total,
                       int elems, double v0) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= elems) return;
  double ex[8], ey[8], ez[8];
  for (int k = 0; k < 8; k++) {
    int n = nodelist[8 * e + k];
    ex[k] = x[n], ey[k] = y[n], ez[k] = z[n];
  }
  double v = elemVolume(ex, ey, ez);
  double d = v - v0;
  atomicAdd(total, 3.0 * d * d / v0 - 0.5 * log(v / v0));
}

__global__ void primal(const double *x, const double *y, const double *z, const int *nl, double *total, int elems,
                       double v0) {
  energy(x, y, z, nl, total, elems, v0);
}
__global__ void gradient(const double *x, double *dx, const double *y, double *dy, const double *z, double *dz,
                         const int *nl, double *total, double *dtotal, int elems, double v0) {
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_dup, z, dz, enzyme_const, nl,
                    enzyme_dup, total, dtotal, enzyme_const, elems, enzyme_const, v0);
}
__global__ void tangent(const double *x, const double *tx, const double *y, const double *ty, const double *z,
                        const double *tz, const int *nl, double *total, double *ttotal, int elems, double v0) {
  __enzyme_fwddiff<void>((void *)energy, enzyme_dup, x, tx, enzyme_dup, y, ty, enzyme_dup, z, tz, enzyme_const, nl,
                         enzyme_dup, total, ttotal, enzyme_const, elems, enzyme_const, v0);
}

int main(int argc, char **argv) {
  bool timing = argc > 1 && !strcmp(argv[1], "bench");
  int s = timing ? 96 : 6, np = s + 1, nodes = np * np * np, elems = s * s * s, block = 64;
  int grid = (elems + block - 1) / block;
  double h = 1.0 / s, v0 = h * h * h;
  std::vector<double> x(nodes), y(nodes), z(nodes);
  unsigned seed = 43;
  for (int k = 0; k < np; k++)
    for (int j = 0; j < np; j++)
      for (int i = 0; i < np; i++) {
        int n = (k * np + j) * np + i;
        x[n] = h * (i + rnd(seed, -0.15, 0.15)), y[n] = h * (j + rnd(seed, -0.15, 0.15)),
        z[n] = h * (k + rnd(seed, -0.15, 0.15));
      }
  // LULESH's node order: the bottom face counter-clockwise, then the top.
  std::vector<int> nl(8 * elems);
  const int di[8] = {0, 1, 1, 0, 0, 1, 1, 0}, dj[8] = {0, 0, 1, 1, 0, 0, 1, 1}, dk[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  for (int k = 0; k < s; k++)
    for (int j = 0; j < s; j++)
      for (int i = 0; i < s; i++)
        for (int c = 0; c < 8; c++)
          nl[8 * ((k * s + j) * s + i) + c] = ((k + dk[c]) * np + j + dj[c]) * np + i + di[c];
  double *x_ = dev(x), *y_ = dev(y), *z_ = dev(z), *total_ = dev(std::vector<double>{0});
  double *dx_ = dev(std::vector<double>(nodes, 0)), *dy_ = dev(std::vector<double>(nodes, 0)),
         *dz_ = dev(std::vector<double>(nodes, 0)), *dtotal_ = dev(std::vector<double>{1});
  int *nl_ = dev(nl);
  gradient<<<grid, block>>>(x_, dx_, y_, dy_, z_, dz_, nl_, total_, dtotal_, elems, v0);
  std::vector<double> dx = get(dx_, nodes), dy = get(dy_, nodes), dz = get(dz_, nodes);
  auto loss = [&] {
    put(total_, std::vector<double>{0});
    primal<<<grid, block>>>(x_, y_, z_, nl_, total_, elems, v0);
    return get(total_, 1)[0];
  };
  std::vector<double> got, want;
  for (int n : {0, 1, np + 1, nodes / 2, nodes - 2, nodes - 1}) {
    if (timing) break; // checked at the small size
    got.push_back(dx[n]), want.push_back(central(x, n, loss, [&](const std::vector<double> &v) { put(x_, v); }));
    got.push_back(dy[n]), want.push_back(central(y, n, loss, [&](const std::vector<double> &v) { put(y_, v); }));
    got.push_back(dz[n]), want.push_back(central(z, n, loss, [&](const std::vector<double> &v) { put(z_, v); }));
  }
  if (!timing) report("lulesh-forces", got, want, 1e-6);
  // Forward mode along t: the total's tangent is Σ ∇E·t.
  std::vector<double> tx = randoms<double>(nodes, 47, -1, 1), ty = randoms<double>(nodes, 53, -1, 1),
                      tz = randoms<double>(nodes, 59, -1, 1);
  double *tx_ = dev(tx), *ty_ = dev(ty), *tz_ = dev(tz), *tt_ = dev(std::vector<double>{0});
  tangent<<<grid, block>>>(x_, tx_, y_, ty_, z_, tz_, nl_, total_, tt_, elems, v0);
  double dot = 0;
  for (int n = 0; n < nodes; n++) dot += dx[n] * tx[n] + dy[n] * ty[n] + dz[n] * tz[n];
  if (!timing) report("lulesh-forward", {get(tt_, 1)[0]}, {dot}, 1e-9);
  if (timing) {
    double tp = timeit([&] { primal<<<grid, block>>>(x_, y_, z_, nl_, total_, elems, v0); }, 20);
    bench("lulesh", tp, timeit([&] {
            gradient<<<grid, block>>>(x_, dx_, y_, dy_, z_, dz_, nl_, total_, dtotal_, elems, v0);
          }, 20));
    bench("lulesh-forward", tp, timeit([&] {
            tangent<<<grid, block>>>(x_, tx_, y_, ty_, z_, tz_, nl_, total_, tt_, elems, v0);
          }, 20));
  }
  return finish();
}
