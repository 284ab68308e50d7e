#ifndef LOSS_H
#define LOSS_H
extern int enzyme_dup, enzyme_const, enzyme_width;
double loss(double *x, int n);
void grad_loss(double *x, double *dx, int n);
double energy(double *x, int n);
extern int soft_fwd_calls;
#endif
