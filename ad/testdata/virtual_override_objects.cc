/* A virtual call in the differentiated function whose override lives only
   behind a vtable that code outside the derivative's call graph fills in:
   the derived primal and shadow objects are made in main, in a caller,
   or by a factory function. The override's body must be the one
   differentiated (not a stand-in) and the vtable must survive the roots'
   cut. Gradients (this's field and the argument) against central
   differences. */
#include <cmath>
#include <cstdio>
extern int enzyme_dup, enzyme_out;
extern "C" double __enzyme_autodiff(void *, ...);
struct Base {
  double w;
  virtual double f(double v) const { return v * w; }
  virtual ~Base() {}
};
struct Derived : Base {
  double f(double v) const override { return v * w * w + std::sin(v); }
};
struct Other : Base {
  double f(double v) const override { return v / w; }
};
double obj(Base *b, double x) { return b->f(x) * x; }
static int failures;
__attribute__((noinline)) void check(Base *b, Base *db, const char *where) {
  double x = 0.7, h = 1e-6;
  db->w = 0;
  double g = __enzyme_autodiff((void *)obj, enzyme_dup, b, db, enzyme_out, x);
  double fx = (obj(b, x + h) - obj(b, x - h)) / (2 * h);
  double w = b->w;
  b->w = w + h;
  double fp = obj(b, x);
  b->w = w - h;
  double fm = obj(b, x);
  b->w = w;
  double fw = (fp - fm) / (2 * h);
  if (!(std::fabs(g - fx) < 1e-6 * std::fmax(1, std::fabs(fx))) || !(std::fabs(db->w - fw) < 1e-6 * std::fmax(1, std::fabs(fw)))) {
    std::printf("FAIL %s: dx %.17g want %.17g, dw %.17g want %.17g\n", where, g, fx, db->w, fw);
    failures++;
  }
}
__attribute__((noinline)) void caller() {
  Other o, od;
  o.w = 1.5;
  check(&o, &od, "caller");
}
__attribute__((noinline)) Base *factory(int k) {
  if (k == 0) return new Derived;
  return new Other;
}
int main() {
  Derived d, dd;
  d.w = 2;
  check(&d, &dd, "main");
  caller();
  for (int k = 0; k < 2; k++) {
    Base *p = factory(k), *dp = factory(k);
    p->w = 1.25 + k;
    check(p, dp, "factory");
    delete p;
    delete dp;
  }
  if (failures == 0) std::printf("ok\n");
  return failures != 0;
}
