// An XSBench-style macroscopic cross-section lookup (after the public
// description of the XSBench proxy app, event-based mode): each thread
// takes one (energy, material) pair; for each nuclide of the material it
// finds the energy interval on the nuclide's grid by binary search,
// interpolates the five microscopic cross sections (total, elastic,
// absorption, fission, nu-fission) and adds them, weighted by the
// nuclide's concentration, into the material's macroscopic cross
// sections. The gradient with respect to the concentrations and the
// microscopic data (tables every thread reads: atomic adds) and to the
// lookup energies.
#include "gpucheck.h"

constexpr int NUCLIDES = 24, GRID = 48, XS = 5, MATERIALS = 4, PER_MAT = 6;

// Lookup t: macro[t][k] = Σ_j conc[m][j] · interp(xs[nuc j], E_t)[k].
__device__ void lookup(const double *energy, const int *mats, const double *conc, const double *egrid,
                       const double *xs, const double *E, const int *mat, double *macro, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  double e = E[t];
  int m = mat[t];
  double acc[XS] = {0, 0, 0, 0, 0};
  for (int j = 0; j < PER_MAT; j++) {
    int nuc = mats[m * PER_MAT + j];
    const double *g = egrid + nuc * GRID;
    int lo = 0, hi = GRID - 1;
    while (hi - lo > 1) {
      int mid = (lo + hi) / 2;
      if (g[mid] > e) hi = mid;
      else lo = mid;
    }
    double f = (e - g[lo]) / (g[lo + 1] - g[lo]);
    const double *x0 = xs + (nuc * GRID + lo) * XS, *x1 = x0 + XS;
    double c = conc[m * PER_MAT + j];
    for (int k = 0; k < XS; k++) acc[k] += c * (x0[k] + f * (x1[k] - x0[k]));
  }
  for (int k = 0; k < XS; k++) macro[t * XS + k] = acc[k];
}

__global__ void primal(const double *energy, const int *mats, const double *conc, const double *egrid,
                       const double *xs, const double *E, const int *mat, double *macro, int n) {
  lookup(energy, mats, conc, egrid, xs, E, mat, macro, n);
}

__global__ void gradient(const int *mats, const double *conc, double *dconc, const double *egrid, const double *xs,
                         double *dxs, const double *E, double *dE, const int *mat, double *macro, double *dmacro,
                         int n) {
  __enzyme_autodiff((void *)lookup, enzyme_const, (const double *)nullptr, enzyme_const, mats, enzyme_dup, conc, dconc,
                    enzyme_const, egrid, enzyme_dup, xs, dxs, enzyme_dup, E, dE, enzyme_const, mat, enzyme_dup, macro,
                    dmacro, enzyme_const, n);
}

int main(int argc, char **argv) {
  bool timing = argc > 1 && !strcmp(argv[1], "bench");
  int n = timing ? 1 << 20 : 500, block = 128, grid = (n + block - 1) / block;
  unsigned seed = 23;
  std::vector<double> egrid(NUCLIDES * GRID), xs = randoms<double>(NUCLIDES * GRID * XS, 29, 0.1, 10);
  for (int u = 0; u < NUCLIDES; u++) { // sorted energies in (0, 1)
    double e = 0;
    for (int g = 0; g < GRID; g++) egrid[u * GRID + g] = (e += rnd(seed, 0.5, 1.5) / GRID / 1.05);
  }
  std::vector<int> mats(MATERIALS * PER_MAT), mat(n);
  for (auto &u : mats) u = (int)rnd(seed, 0, NUCLIDES);
  for (auto &m : mat) m = (int)rnd(seed, 0, MATERIALS);
  std::vector<double> conc = randoms<double>(MATERIALS * PER_MAT, 31, 0.5, 2), E = randoms<double>(n, 37, 0.05, 0.9);
  std::vector<double> w = randoms<double>(n * XS, 41, -1, 1);
  int *mats_ = dev(mats), *mat_ = dev(mat);
  double *conc_ = dev(conc), *dconc_ = dev(std::vector<double>(conc.size(), 0)), *egrid_ = dev(egrid), *xs_ = dev(xs),
         *dxs_ = dev(std::vector<double>(xs.size(), 0)), *E_ = dev(E), *dE_ = dev(std::vector<double>(n, 0)),
         *macro_ = dev(std::vector<double>(n * XS, 0)), *dmacro_ = dev(w);
  gradient<<<grid, block>>>(mats_, conc_, dconc_, egrid_, xs_, dxs_, E_, dE_, mat_, macro_, dmacro_, n);
  std::vector<double> dconc = get(dconc_, conc.size()), dxs = get(dxs_, xs.size()), dE = get(dE_, n);
  auto loss = [&] {
    primal<<<grid, block>>>(nullptr, mats_, conc_, egrid_, xs_, E_, mat_, macro_, n);
    std::vector<double> macro = get(macro_, n * XS);
    double l = 0;
    for (int i = 0; i < n * XS; i++) l += w[i] * macro[i];
    return l;
  };
  std::vector<double> got, want;
  for (size_t j = 0; j < conc.size() && !timing; j++) {
    got.push_back(dconc[j]);
    want.push_back(central(conc, j, loss, [&](const std::vector<double> &v) { put(conc_, v); }));
  }
  if (!timing) report("xsbench-dconc", got, want, 1e-7);
  got.clear(), want.clear();
  // Microscopic data a lookup interpolated (the others have gradient 0).
  for (size_t i = 0; i < xs.size() && !timing; i += xs.size() / 40) {
    got.push_back(dxs[i]);
    want.push_back(central(xs, i, loss, [&](const std::vector<double> &v) { put(xs_, v); }));
  }
  if (!timing) report("xsbench-dxs", got, want, 1e-7);
  got.clear(), want.clear();
  for (int t : {0, 1, n / 2, n - 1}) {
    if (timing) break; // checked at the small size
    got.push_back(dE[t]);
    want.push_back(central(E, t, loss, [&](const std::vector<double> &v) { put(E_, v); }));
  }
  if (!timing) report("xsbench-dE", got, want, 1e-6);
  if (timing) {
    double tp = timeit([&] { primal<<<grid, block>>>(nullptr, mats_, conc_, egrid_, xs_, E_, mat_, macro_, n); }, 20);
    bench("xsbench", tp, timeit([&] {
            gradient<<<grid, block>>>(mats_, conc_, dconc_, egrid_, xs_, dxs_, E_, dE_, mat_, macro_, dmacro_, n);
          }, 20));
  }
  return finish();
}
