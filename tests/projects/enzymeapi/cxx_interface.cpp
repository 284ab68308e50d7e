// The C++ interface <enzyme/enzyme> that gozyme ships: reverse and forward
// mode, with and without the primal result, Active, Duplicated (by
// reference, by pointer, by value in forward mode), DuplicatedNoNeed and
// Const arguments, plain functions, functors, a struct passed by value and
// a std::vector result. Every value is checked against its analytic
// derivative.
#include <enzyme/enzyme>
#include <vector>

#include "check.h"

static double poly(double x, double y) { return x * x * y + 3 * y; }
static float polyf(float x) { return x * x * x; }
static double norm2(const std::vector<double> &v) {
  double s = 0;
  for (double e : v)
    s += e * e;
  return s;
}
static double dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}
static double by_ref(const double &x, double &y) {
  y = x * x; // an output through a reference
  return 2 * x;
}
struct point {
  double x, y;
};
static double area(point p) { return p.x * p.y; }
struct scaled {
  double k;
  double operator()(double x) const { return k * x * x; }
};
static std::vector<double> squares(const std::vector<double> &v) {
  std::vector<double> r(v.size());
  for (size_t i = 0; i < v.size(); i++)
    r[i] = v[i] * v[i];
  return r;
}

int main() {
  const double x = 1.5, y = -2.0;
  {
    auto d = enzyme::autodiff<enzyme::Reverse>(poly, enzyme::Active{x}, enzyme::Active{y});
    CHECK("reverse Active x", enzyme::get<0>(enzyme::get<0>(d)), 2 * x * y);
    CHECK("reverse Active y", enzyme::get<1>(enzyme::get<0>(d)), x * x + 3);
  }
  {
    auto d = enzyme::autodiff<enzyme::ReverseWithPrimal>(poly, enzyme::Active{x}, enzyme::Const<double>{y});
    CHECK("ReverseWithPrimal derivative", enzyme::get<0>(enzyme::get<0>(d)), 2 * x * y);
    CHECK("ReverseWithPrimal result", enzyme::get<1>(d), poly(x, y));
  }
  {
    float d = enzyme::get<0>(enzyme::get<0>(enzyme::autodiff<enzyme::Reverse>(polyf, enzyme::Active<float>(2.0f))));
    CHECK("reverse float", d, 12.0);
  }
  {
    std::vector<double> v{1.0, -2.0, 0.5}, dv(3, 0.0);
    enzyme::autodiff<enzyme::Reverse>(norm2, enzyme::Duplicated<const std::vector<double> &>{v, dv});
    for (int i = 0; i < 3; i++)
      CHECK("reverse Duplicated std::vector", dv[i], 2 * v[i]);
  }
  {
    double a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, da[3] = {0, 0, 0};
    enzyme::autodiff<enzyme::Reverse>(dot, enzyme::Duplicated<const double *>{a, da}, enzyme::Const<const double *>{b}, 3);
    for (int i = 0; i < 3; i++)
      CHECK("reverse Duplicated pointer, Const pointer, plain int", da[i], b[i]);
  }
  {
    double yv = 0, dx = 0, dy = 1.0; // seed of the output y
    auto d = enzyme::autodiff<enzyme::Reverse>(by_ref, enzyme::Duplicated<const double &>{x, dx},
                                               enzyme::Duplicated<double &>{yv, dy});
    (void)d;
    CHECK("reverse through a reference output", dx, 2 + 2 * x);
    CHECK("primal output written", yv, x * x);
  }
  {
    auto t = enzyme::autodiff<enzyme::Forward>(poly, enzyme::Duplicated{x, 1.0}, enzyme::Const<double>{y});
    CHECK("forward tangent", enzyme::get<0>(t), 2 * x * y);
    auto u = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(poly, enzyme::Duplicated{x, 0.0},
                                                                           enzyme::Duplicated{y, 1.0});
    CHECK("forward Duplicated result value", enzyme::get<0>(u), poly(x, y));
    CHECK("forward Duplicated result tangent", enzyme::get<1>(u), x * x + 3);
    auto c = enzyme::autodiff<enzyme::Forward, enzyme::Const<double>>(poly, enzyme::Duplicated{x, 1.0}, y);
    CHECK("forward Const result", enzyme::get<0>(c), poly(x, y));
  }
  {
    auto t = enzyme::autodiff<enzyme::Forward>(area, enzyme::Duplicated{point{2, 3}, point{0.5, 0.25}});
    CHECK("forward struct by value", enzyme::get<0>(t), 2 * 0.25 + 3 * 0.5);
  }
  {
    auto d = enzyme::autodiff<enzyme::Reverse>(scaled{0.5}, enzyme::Active{x});
    CHECK("reverse functor", enzyme::get<0>(enzyme::get<0>(d)), 0.5 * 2 * x);
  }
  {
    std::vector<double> v{1.0, 2.0, 3.0}, dv{1.0, 0.5, -1.0};
    auto t = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<std::vector<double>>>(
        squares, enzyme::Duplicated<const std::vector<double> &>{v, dv});
    for (int i = 0; i < 3; i++) {
      CHECK("forward std::vector result", enzyme::get<0>(t)[i], v[i] * v[i]);
      CHECK("forward std::vector tangent", enzyme::get<1>(t)[i], 2 * v[i] * dv[i]);
    }
  }
  return DONE();
}
