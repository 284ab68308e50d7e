/* The gradient of the Fortran subroutine f (prog.f90) with respect to a,
   x (and through y, r), for n = 3. */
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void f_(int *n, double *a, double *x, double *y, double *r);

void gradient_(double *a, double *da, double *x, double *dx, double *y, double *dy, double *r, double *dr) {
  static int n = 3;
  __enzyme_autodiff((void *)f_, enzyme_const, &n, enzyme_dup, a, da, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_dup, r, dr);
}
