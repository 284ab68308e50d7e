/* Shared by the enzymeapi programs: each compares values with CHECK and
 * ends with "failures N". */
#include <math.h>
#include <stdio.h>

static int failures;

#define CHECK(what, got, want)                                                           \
  do {                                                                                   \
    double g_ = (got), w_ = (want);                                                      \
    if (!(fabs(g_ - w_) <= 1e-9 * (1 + fabs(w_)))) {                                     \
      printf("FAIL %s: got %.17g, want %.17g\n", what, g_, w_);                          \
      failures++;                                                                        \
    } else {                                                                             \
      printf("ok %s\n", what);                                                           \
    }                                                                                    \
  } while (0)

#define DONE() (printf("failures %d\n", failures), failures != 0)
