#ifndef MODEL_H
#define MODEL_H
extern double model_scale;                      /* a global defined in lib/model.c */
double model(const double *w, const double *x, int n);
double mag(const double *x, int n);
void norm(double *out, const double *in, int n);
double loss(const double *w, int n);
double loss_dw0(const double *w, int n);
double lib_grad(double x);
#endif
