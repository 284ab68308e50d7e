#include "model.h"

static double weight(int i) { return 0.5 / (1 + i); }

double scale_factor(int i) { return weight(i) + 0.125; }

/* Nothing the roots reach calls it: it stays native code. */
double unrelated_work(int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) s += (double)((i * 31 + j * 17) % 13) / (1 + i + j);
	return s;
}
