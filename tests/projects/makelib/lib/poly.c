#include "mathx.h"

double mathx_poly(const double *c, int n, double x) {
    double y = 0;
    for (int i = n - 1; i >= 0; i--)
        y = y * x + c[i];
    return y;
}

double mathx_poly_prime(const double *c, int n, double x) {
    double y = 0;
    for (int i = n - 1; i >= 1; i--)
        y = y * x + i * c[i];
    return y;
}
