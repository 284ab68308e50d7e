// A layer applies an activation held in a std::function while building its
// output vector: the call through the function object's invoker is an
// invoke (push_back may throw and unwind past it), and the activations are
// a plain function and a lambda chosen per layer at run time.
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <vector>

extern "C" double __enzyme_autodiff(void *, ...);
extern "C" double __enzyme_fwddiff(void *, ...);

double squash(double v) { return 1.0 / (1.0 + std::exp(-v)); }

__attribute__((noinline)) std::vector<double>
apply_layer(const std::vector<double> &in, const double *w, int rows,
            const std::function<double(double)> &act) {
  std::vector<double> out;
  out.reserve(rows);
  for (int i = 0; i < rows; i++) {
    double s = std::inner_product(in.begin(), in.end(), w + i * in.size(), 0.0);
    out.push_back(act(s));
  }
  return out;
}

double net(const double *w) {
  std::function<double(double)> acts[2] = {squash, [](double v) { return std::tanh(v) * 1.5; }};
  std::vector<double> x = {0.4, -1.2, 0.7};
  const int rows[2] = {4, 2};
  for (int l = 0; l < 2; l++) {
    x = apply_layer(x, w, rows[l], acts[l]);
    w += rows[l] * (l == 0 ? 3 : 4);
  }
  return x[0] * x[0] + std::sin(x[1]);
}

int main() {
  enum { N = 4 * 3 + 2 * 4 };
  double w[N], dw[N] = {0};
  for (int i = 0; i < N; i++)
    w[i] = 0.3 * std::sin(1.7 * i + 0.4);
  __enzyme_autodiff((void *)net, w, dw);
  int bad = 0;
  for (int i = 0; i < N; i++) {
    double s = w[i], h = 1e-6;
    w[i] = s + h;
    double fp = net(w);
    w[i] = s - h;
    double fm = net(w);
    w[i] = s;
    double fd = (fp - fm) / (2 * h);
    double t[N] = {0};
    t[i] = 1;
    double fw = __enzyme_fwddiff((void *)net, w, t);
    if (std::fabs(fd - dw[i]) > 1e-6 * (1 + std::fabs(fd)) || std::fabs(fd - fw) > 1e-6 * (1 + std::fabs(fd))) {
      printf("WRONG d/dw%d: reverse %.12g forward %.12g central difference %.12g\n", i, dw[i], fw, fd);
      bad = 1;
    }
  }
  if (!bad)
    printf("ok %.9g\n", dw[0]);
  return bad;
}
