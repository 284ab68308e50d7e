#include "stats.h"

struct stats stats_of(const double *v, int n) {
    struct stats s = {n, 0, v[0], v[0]};
    for (int i = 0; i < n; i++) {
        s.mean += v[i] / n;
        if (v[i] < s.min)
            s.min = v[i];
        if (v[i] > s.max)
            s.max = v[i];
    }
    return s;
}
