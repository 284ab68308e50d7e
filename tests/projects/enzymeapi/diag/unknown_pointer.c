/* The function to differentiate is a pointer chosen at run time. */
double __enzyme_autodiff(void *, ...);
double (*table[4])(double);

int main(int argc, char **argv) {
  (void)argv;
  return (int)__enzyme_autodiff((void *)table[argc], 1.0);
}
