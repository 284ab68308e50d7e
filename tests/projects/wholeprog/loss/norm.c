#include "model.h"

/* The seed's example: mag lives in another translation unit (lib/mag.c). */
void norm(double *out, const double *in, int n) {
	for (int i = 0; i < n; i++) out[i] = in[i] / mag(in, n);
}
