/* C++ objects built by constructors and returned by operators (sret at -O0),
   a lambda capturing by reference and a std::vector filled from active
   values: reverse and forward mode against a central difference. */
#include <cmath>
#include <cstdio>
#include <vector>
extern "C" double __enzyme_autodiff(void*, ...);
extern "C" double __enzyme_fwddiff(void*, ...);
struct V3 { double x, y, z; int tag;
  V3(double a, double b, double c) : x(a), y(b), z(c), tag(1) {}
  V3 operator+(const V3& o) const { return V3(x + o.x, y + o.y, z + o.z); }
  V3 operator*(double s) const { return V3(x * s, y * s, z * s); }
  double dot(const V3& o) const { return x * o.x + y * o.y + z * o.z; } };
__attribute__((noinline)) V3 make(double t) { return V3(std::sin(t), t * t, std::cos(t)); }
double f(double t) {
  V3 a = make(t), b(1.0, 2.0, t);
  V3 c = (a + b) * t;
  double acc = 0;
  auto add = [&](double w) { acc += w * c.dot(a); };
  add(1.0); add(t);
  std::vector<double> v(3);
  for (int i = 0; i < 3; i++) v[i] = acc * (i + 1);
  return v[0] + v[2];
}
int main() {
  double t = 0.7, h = 1e-6;
  double fd = (f(t + h) - f(t - h)) / (2 * h);
  double r = __enzyme_autodiff((void*)f, t), fw = __enzyme_fwddiff((void*)f, t, 1.0);
  printf("rev %g fwd %g fd %g\n", r, fw, fd);
  return !(std::fabs(r - fd) < 1e-5 && std::fabs(fw - fd) < 1e-5);
}
