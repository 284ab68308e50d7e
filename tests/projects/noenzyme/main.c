/* A program with no Enzyme calls: gozyme-cc must link it exactly as
 * clang-14 does. */
#include <stdio.h>

#include "stats.h"

int main(void) {
    const double v[] = {3, 1, 4, 1, 5, 9, 2, 6};
    struct stats s = stats_of(v, sizeof v / sizeof v[0]);
    printf("n=%d mean=%.6f min=%g max=%g\n", s.n, s.mean, s.min, s.max);
    return s.n == 8 && s.min == 1 && s.max == 9 ? 0 : 1;
}
