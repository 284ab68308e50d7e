/* C++ virtual calls on a vector of shapes: the derivative dispatches
   over the program's overriders; reverse and forward mode against a
   central difference. */
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>
extern "C" double __enzyme_autodiff(void*, ...);
extern "C" double __enzyme_fwddiff(void*, ...);
struct Shape { virtual ~Shape() {} virtual double area(double s) const = 0; };
struct Square : Shape { double area(double s) const override { return s * s; } };
struct Circle : Shape { double r; Circle(double r) : r(r) {} double area(double s) const override { return M_PI * r * r * s; } };
struct Wave : Shape { double area(double s) const override { return std::sin(s) * s; } };
__attribute__((noinline)) double total(const std::vector<Shape*>& v, double s) {
  double t = 0;
  for (const Shape* p : v) t += p->area(s);
  return t;
}
static std::vector<Shape*> shapes;
double f(double s) { return total(shapes, s) * s; }
int main() {
  shapes = {new Square, new Circle(0.5), new Wave, new Square};
  double s = 0.9, h = 1e-6;
  double fd = (f(s + h) - f(s - h)) / (2 * h);
  double r = __enzyme_autodiff((void*)f, s), fw = __enzyme_fwddiff((void*)f, s, 1.0);
  printf("%g %g %g\n", r, fw, fd);
  for (auto p : shapes) delete p;
  return !(std::fabs(r - fd) < 1e-6 && std::fabs(fw - fd) < 1e-6);
}
