/* A record keeps a header of counts and its data after it in one
 * allocation, reached through &header[1] (the layout of a spline library's
 * control points), and is copied by a byte count: the whole block
 * (WHOLE_BLOCK), or the header and the data apart. The header's type holds
 * integers only; the bytes after it hold the active doubles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);

struct header {
  size_t dim, count;
};
typedef struct {
  struct header *h;
} record;

static double *values(const record *r) { return (double *)&r->h[1]; }

__attribute__((noinline)) int record_new(size_t count, record *r) {
  r->h = malloc(sizeof(struct header) + count * sizeof(double));
  if (!r->h)
    return 1;
  r->h->dim = 1;
  r->h->count = count;
  return 0;
}

__attribute__((noinline)) int record_copy(const record *src, record *dst) {
  size_t size = sizeof(struct header) + src->h->count * sizeof(double);
  dst->h = malloc(size);
  if (!dst->h)
    return 1;
#ifdef WHOLE_BLOCK
  memcpy(dst->h, src->h, size);
#else
  memcpy(dst->h, src->h, sizeof(struct header));
  memcpy(dst->h + 1, src->h + 1, size - sizeof(struct header));
#endif
  return 0;
}

double energy(const double *x) {
  record a, b;
  if (record_new(3, &a))
    return -1;
  memmove(values(&a), x, 3 * sizeof(double));
  if (record_copy(&a, &b))
    return -1;
  const double *v = values(&b);
  double e = v[0] * v[1] + sin(v[2]);
  free(a.h);
  free(b.h);
  return e;
}

int main(void) {
  double x[3] = {0.5, 1.5, 0.3}, dx[3] = {0};
  __enzyme_autodiff((void *)energy, x, dx);
  int bad = 0;
  for (int i = 0; i < 3; i++) {
    double s = x[i], h = 1e-6;
    x[i] = s + h;
    double fp = energy(x);
    x[i] = s - h;
    double fm = energy(x);
    x[i] = s;
    double fd = (fp - fm) / (2 * h);
    if (fabs(fd - dx[i]) > 1e-6 * (1 + fabs(fd))) {
      printf("WRONG d/dx%d = %.12g, central difference %.12g\n", i, dx[i], fd);
      bad = 1;
    }
  }
  if (!bad)
    printf("ok %.9g %.9g %.9g\n", dx[0], dx[1], dx[2]);
  return bad;
}
