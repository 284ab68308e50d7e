/* A shadow function for a call through a function pointer. */
void *__enzyme_virtualreverse(void *);
double square(double x) { return x * x; }

int main(void) { return __enzyme_virtualreverse((void *)square) != 0; }
