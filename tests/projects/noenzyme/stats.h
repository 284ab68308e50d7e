#ifndef STATS_H
#define STATS_H

struct stats {
    int n;
    double mean, min, max;
};

struct stats stats_of(const double *v, int n);

#endif
