// A per-thread loop that overwrites its values: each thread iterates a
// map on its own element, writing x[i] back every step, with coefficients
// p[k % 4] every thread reads. The reverse sweep needs each step's value,
// overwritten by the next: the gradient caches them per thread in local
// memory (16 steps, a constant trip count), and adds into p's shadow
// atomically.
#include "gpucheck.h"

constexpr int STEPS = 16;

__device__ void iterate(double *x, const double *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = 0; k < STEPS; k++) {
    double v = x[i];
    x[i] = sin(v) * p[k % 4] + 0.25 * v * v;
  }
}

__global__ void primal(double *x, const double *p, int n) { iterate(x, p, n); }
__global__ void gradient(double *x, double *dx, const double *p, double *dp, int n) {
  __enzyme_autodiff((void *)iterate, enzyme_dup, x, dx, enzyme_dup, p, dp, enzyme_const, n);
}

int main(int argc, char **argv) {
  bool timing = argc > 1 && !strcmp(argv[1], "bench");
  int n = timing ? 1 << 20 : 777, block = 64, grid = (n + block - 1) / block;
  std::vector<double> x0 = randoms<double>(n, 17, -0.5, 0.5), p = {0.9, -0.4, 0.7, 0.3},
                      w = randoms<double>(n, 19, -1, 1);
  double *x_ = dev(x0), *dx_ = dev(w), *p_ = dev(p), *dp_ = dev(std::vector<double>(4, 0));
  gradient<<<grid, block>>>(x_, dx_, p_, dp_, n);
  std::vector<double> dx = get(dx_, n), dp = get(dp_, 4);
  // L = Σ w_i x_i after the loop, as a function of x0 and of p.
  auto loss = [&] {
    put(x_, x0);
    primal<<<grid, block>>>(x_, p_, n);
    std::vector<double> x = get(x_, n);
    double l = 0;
    for (int i = 0; i < n; i++) l += w[i] * x[i];
    return l;
  };
  std::vector<double> got, want;
  for (int i : {0, 1, 63, 64, n / 3, n - 1}) {
    if (timing) break; // checked at the small size
    got.push_back(dx[i]);
    want.push_back(central(x0, i, loss, [](const std::vector<double> &) {}));
  }
  if (!timing) report("loop-dx", got, want, 1e-7);
  got.clear(), want.clear();
  for (int k = 0; k < 4 && !timing; k++) {
    got.push_back(dp[k]);
    want.push_back(central(p, k, loss, [&](const std::vector<double> &v) { put(p_, v); }));
  }
  if (!timing) report("loop-dp", got, want, 1e-7);
  if (timing) {
    double tp = timeit([&] { primal<<<grid, block>>>(x_, p_, n); }, 20);
    bench("loop", tp, timeit([&] { gradient<<<grid, block>>>(x_, dx_, p_, dp_, n); }, 20));
  }
  return finish();
}
