// loop.cu with a trip count known only at run time: the gradient would
// have to cache a run-time number of values per thread, an error naming
// the loop unless GOZYME_GPU_LOOP_RECORDS gives a capacity.
#include "gpucheck.h"

__device__ void iterate(double *x, const double *p, int n, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = 0; k < steps; k++) {
    double v = x[i];
    x[i] = sin(v) * p[k % 4] + 0.25 * v * v;
  }
}

__global__ void primal(double *x, const double *p, int n, int steps) { iterate(x, p, n, steps); }
__global__ void gradient(double *x, double *dx, const double *p, double *dp, int n, int steps) {
  __enzyme_autodiff((void *)iterate, enzyme_dup, x, dx, enzyme_dup, p, dp, enzyme_const, n, enzyme_const, steps);
}

int main() {
  int n = 300, block = 64, grid = (n + block - 1) / block, steps = 12;
  std::vector<double> x0 = randoms<double>(n, 17, -0.5, 0.5), p = {0.9, -0.4, 0.7, 0.3},
                      w = randoms<double>(n, 19, -1, 1);
  double *x_ = dev(x0), *dx_ = dev(w), *p_ = dev(p), *dp_ = dev(std::vector<double>(4, 0));
  gradient<<<grid, block>>>(x_, dx_, p_, dp_, n, steps);
  std::vector<double> dx = get(dx_, n);
  auto loss = [&] {
    put(x_, x0);
    primal<<<grid, block>>>(x_, p_, n, steps);
    std::vector<double> x = get(x_, n);
    double l = 0;
    for (int i = 0; i < n; i++) l += w[i] * x[i];
    return l;
  };
  std::vector<double> got, want;
  for (int i : {0, 5, n - 1}) {
    got.push_back(dx[i]);
    want.push_back(central(x0, i, loss, [](const std::vector<double> &) {}));
  }
  report("loop-dynamic-dx", got, want, 1e-7);
  return finish();
}
