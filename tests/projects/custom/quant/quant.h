#ifndef QUANT_H
#define QUANT_H
/* Rounding to a grid of 1/4 has derivative 0 almost everywhere; training
   through it uses the straight-through estimator, declared here once. */
double quantize_grad(double x, double d_ret);
__attribute__((enzyme("gradient", quantize_grad)))
double quantize(double x);
extern int quantize_grad_calls;
#endif
