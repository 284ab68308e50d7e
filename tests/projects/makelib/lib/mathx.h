#ifndef MATHX_H
#define MATHX_H

/* Horner evaluation of c[0] + c[1] x + ... + c[n-1] x^(n-1). */
double mathx_poly(const double *c, int n, double x);
/* Derivative of that polynomial. */
double mathx_poly_prime(const double *c, int n, double x);

/* Analytic derivatives the application checks gozyme's against. */
double mathx_relu3_prime(double x);  /* 3x^2 for x > 0, else 0 */
double mathx_square_prime(double x); /* 2x */

#endif
