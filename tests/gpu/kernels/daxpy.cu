// The seeds' daxpy: every thread reads the shared scalar a[0], so in the
// gradient every thread adds into da[0] (atomically, summed per warp
// first); y[i] = a[0]·x[i] + sin(x[i]) has its adjoint in dx[i] (device
// math: libdevice's sin, whose derivative calls __nv_cos). Double and
// float, reverse and forward mode.
#include "gpucheck.h"

template <typename T> __device__ void axpy(const T *a, const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a[0] * x[i] + sin(x[i]);
}

template <typename T> __global__ void primal(const T *a, const T *x, T *y, int n) { axpy<T>(a, x, y, n); }

template <typename T> __global__ void gradient(const T *a, T *da, const T *x, T *dx, T *y, T *dy, int n) {
  __enzyme_autodiff((void *)axpy<T>, enzyme_dup, a, da, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
}

template <typename T> __global__ void tangent(const T *a, const T *ta, const T *x, const T *tx, T *y, T *ty, int n) {
  __enzyme_fwddiff<void>((void *)axpy<T>, enzyme_dup, a, ta, enzyme_dup, x, tx, enzyme_dup, y, ty, enzyme_const, n);
}

// The gradient of L = Σ w_i y_i (w the seed in dy) against the analytic
// one, and forward mode's Σ w_i ẏ_i against the reverse's dot product.
template <typename T> static void check(const char *name, int n, int block, double tol, bool timing) {
  std::vector<T> a = {(T)1.5}, x = randoms<T>(n, 7, -2, 2), w = randoms<T>(n, 11, -1, 1);
  T *da_ = dev(std::vector<T>{0}), *a_ = dev(a), *x_ = dev(x), *dx_ = dev(std::vector<T>(n, 0));
  T *y_ = dev(std::vector<T>(n, 0)), *dy_ = dev(w);
  int grid = (n + block - 1) / block;
  gradient<T><<<grid, block>>>(a_, da_, x_, dx_, y_, dy_, n);
  CU(cudaDeviceSynchronize());
  std::vector<T> dx = get(dx_, n), da = get(da_, 1);
  std::vector<double> got(n + 1), want(n + 1, 0);
  for (int i = 0; i < n; i++) {
    got[i] = dx[i];
    want[i] = (double)w[i] * ((double)a[0] + cos((double)x[i]));
    want[n] += (double)w[i] * x[i];
  }
  got[n] = da[0];
  report(name, got, want, tol);
  // Forward mode along (ta, tx): Σ w ẏ = ta·Σ w x + Σ w tx (a + cos x).
  std::vector<T> ta = {(T)0.25}, tx = randoms<T>(n, 13, -1, 1);
  T *ta_ = dev(ta), *tx_ = dev(tx), *ty_ = dev(std::vector<T>(n, 0));
  tangent<T><<<grid, block>>>(a_, ta_, x_, tx_, y_, ty_, n);
  std::vector<T> ty = get(ty_, n);
  double fwd = 0, rev = ta[0] * want[n];
  for (int i = 0; i < n; i++) {
    fwd += (double)w[i] * ty[i];
    rev += tx[i] * want[i];
  }
  char fname[64];
  snprintf(fname, sizeof fname, "%s-forward", name);
  report(fname, {fwd}, {rev}, tol);
  if (timing) {
    auto p = [&] { primal<T><<<grid, block>>>(a_, x_, y_, n); };
    auto g = [&] { gradient<T><<<grid, block>>>(a_, da_, x_, dx_, y_, dy_, n); };
    auto t = [&] { tangent<T><<<grid, block>>>(a_, ta_, x_, tx_, y_, ty_, n); };
    double tp = timeit(p, 20);
    bench(name, tp, timeit(g, 20));
    bench(fname, tp, timeit(t, 20));
  }
}

int main(int argc, char **argv) {
  bool timing = argc > 1 && !strcmp(argv[1], "bench");
  int n = timing ? 1 << 22 : 4099;
  check<double>("daxpy-f64", n, 128, 1e-10, timing);
  check<float>("daxpy-f32", n, 256, 2e-3, timing);
  return finish();
}
