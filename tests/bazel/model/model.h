#ifndef GOZYME_BAZEL_TEST_MODEL_H
#define GOZYME_BAZEL_TEST_MODEL_H

#ifdef __cplusplus
extern "C" {
#endif

/* loss returns the squared error of a one-neuron model
 * y = tanh(w[0]*x[i] + w[1]) * w[2] against targets t[i], i < n. */
double loss(const double *w, const double *x, const double *t, int n);

#ifdef __cplusplus
}
#endif

#endif
