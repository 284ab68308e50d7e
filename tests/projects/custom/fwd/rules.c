/* Forward rules of fwd/main.c, in another translation unit. */
int stair_fwd_calls, square_all_fwd_calls;

double stair_fwd(double x, double dx) {
	(void)x;
	stair_fwd_calls++;
	return dx;
}

void square_all(const double *x, double *y, int n);
void square_all_fwd(const double *x, const double *dx, double *y, double *dy, int n) {
	(void)y;
	square_all_fwd_calls++;
	for (int i = 0; i < n; i++) dy[i] = 2 * x[i] * dx[i];
}
void *__enzyme_register_derivative_square_all[2] = {(void *)square_all, (void *)square_all_fwd};
