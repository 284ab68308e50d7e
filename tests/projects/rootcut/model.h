/* The roots' cut (lto/cut.go): a gradient in grad.c of energy (model.c),
   which calls into util.c; main.c, outside the rewrite group, calls the
   gradient and counts the calls through globals that must stay single. */
double energy(const double *x, int n);
double scale_factor(int i);
double unrelated_work(int n);
void gradient(const double *x, double *dx, int n);
int gradient_calls(void);
extern int energy_calls;
