/* __enzyme_virtualreverse: the shadow of a function pointer or of a
 * vtable, stored in a shadow object by the program. Calls through the
 * pointer and virtual calls in the differentiated function take the
 * callee's derivative; the shadow's own function pointers stay callable
 * as the functions themselves. */
#include "check.h"

extern int enzyme_dup, enzyme_const;
template <typename... T> double __enzyme_autodiff(void *, T...);
template <typename... T> double __enzyme_fwddiff(void *, T...);
template <typename T> T __enzyme_virtualreverse(T);

struct Shape {
  virtual double area(double s) const = 0;
  virtual ~Shape() {}
  double k;
};
struct Square : Shape {
  double area(double s) const override { return k * s * s; }
};
struct Circle : Shape {
  double area(double s) const override { return k * 3.0 * s * s * s; }
};

/* A virtual call on an object passed with a shadow object. */
double area_of(const Shape &sh, double s) { return sh.area(s); }

/* A call through a function pointer held in a struct with a shadow. */
struct Op {
  double (*fn)(double);
  double val;
};
static double cube(double x) { return x * x * x; }
static double twice(double x) { return 2 * x; }
double apply(Op *op) { return op->fn(op->val) + op->val; }

static void shadow_vtable(Shape *d) {
  *reinterpret_cast<void **>(d) = __enzyme_virtualreverse(*reinterpret_cast<void **>(d));
}

int main() {
  Square sq;
  sq.k = 2;
  Square dsq;
  shadow_vtable(&dsq);
  dsq.k = 0;
  double s = 1.5;
  double ds = __enzyme_autodiff((void *)area_of, enzyme_dup, (Shape *)&sq, (Shape *)&dsq, s);
  CHECK("virtual call, d/ds k s^2", ds, 2 * 2 * s);
  CHECK("virtual call, d/dk k s^2 in the shadow object", dsq.k, s * s);

  Circle ci;
  ci.k = 0.5;
  Shape *dci = new Circle();
  shadow_vtable(dci);
  dci->k = 0;
  ds = __enzyme_autodiff((void *)area_of, enzyme_dup, (Shape *)&ci, dci, s);
  CHECK("virtual call of another class, d/ds 3k s^3", ds, 9 * 0.5 * s * s);
  CHECK("virtual call of another class, d/dk", dci->k, 3 * s * s * s);
  CHECK("the shadow's vtable still dispatches", dci->area(2.0), dci->k * 3 * 8);
  delete dci;

  Circle fci, dfci;
  fci.k = 0.5;
  dfci.k = 1; /* tangent of k */
  shadow_vtable(&dfci);
  double t = __enzyme_fwddiff((void *)area_of, enzyme_dup, (Shape *)&fci, (Shape *)&dfci, s, 0.0);
  CHECK("virtual call, forward mode: tangent along k", t, 3 * s * s * s);

  for (int which = 0; which < 2; which++) {
    Op op = {which ? twice : cube, 1.25};
    Op dop = {__enzyme_virtualreverse(op.fn), 0};
    __enzyme_autodiff((void *)apply, &op, &dop);
    double want = which ? 2 + 1 : 3 * 1.25 * 1.25 + 1;
    CHECK(which ? "function pointer in a struct (twice)" : "function pointer in a struct (cube)", dop.val, want);
    CHECK("the shadow function pointer is callable", dop.fn(2.0), which ? 4.0 : 8.0);
  }
  return DONE();
}
