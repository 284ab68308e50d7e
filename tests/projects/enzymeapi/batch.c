/* __enzyme_batch: a function evaluated on several lanes, each parameter
 * taking one value per lane (enzyme_vector, the default) or one value all
 * lanes share (enzyme_scalar); the results come back as a struct. */
#include "check.h"

extern int enzyme_width, enzyme_vector, enzyme_scalar;

typedef struct {
  double r[3];
} three;
three __enzyme_batch(void *, ...);
void __enzyme_batch_void(void *, ...);

double scaled_square(double x, double k) { return k * x * x; }

void accumulate(double *out, double v) { *out += v * v; }

int main(void) {
  three t = __enzyme_batch((void *)scaled_square, enzyme_width, 3, enzyme_vector, 1.0, 2.0, 3.0, enzyme_scalar, 0.5);
  for (int k = 0; k < 3; k++)
    CHECK("batch with a shared parameter", t.r[k], scaled_square(k + 1, 0.5));
  three u = __enzyme_batch((void *)scaled_square, enzyme_width, 3, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0);
  for (int k = 0; k < 3; k++)
    CHECK("batch, every parameter per lane", u.r[k], scaled_square(k + 1, k + 4));
  double a = 1, b = 2;
  __enzyme_batch_void((void *)accumulate, enzyme_width, 2, &a, &b, 3.0, 4.0);
  CHECK("batch through pointers, lane 1", a, 10);
  CHECK("batch through pointers, lane 2", b, 18);
  return DONE();
}
