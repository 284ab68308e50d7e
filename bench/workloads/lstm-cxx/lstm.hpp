// LSTM objective (ADBench: l layers of its diagonal LSTM cell over c
// characters of b values), written as C++ client code writes it: an input
// struct, templates over the scalar type, std::vector temporaries, the
// activations as lambdas. Parameters: main (per layer 4b weights then 4b
// biases), extra (input weights b, output weights b, output biases b).
#ifndef LSTM_CXX_HPP
#define LSTM_CXX_HPP
#include <cmath>
#include <vector>

struct LSTMInput {
	int l, c, b;
	std::vector<double> sequence; // c x b
	std::vector<double> state;    // initial hidden and cell of each layer, 2 l b
};

template <typename T> void lstm_model(int b, const T *weight, const T *bias, T *hidden, T *cell, const T *input) {
	using std::exp;
	using std::tanh;
	auto sigmoid = [](T x) { return 1 / (1 + exp(-x)); };
	std::vector<T> gates(4 * b);
	T *forget = &gates[0], *ingate = &gates[b], *outgate = &gates[2 * b], *change = &gates[3 * b];
	for (int i = 0; i < b; i++) {
		forget[i] = sigmoid(input[i] * weight[i] + bias[i]);
		ingate[i] = sigmoid(hidden[i] * weight[b + i] + bias[b + i]);
		outgate[i] = sigmoid(input[i] * weight[2 * b + i] + bias[2 * b + i]);
		change[i] = tanh(hidden[i] * weight[3 * b + i] + bias[3 * b + i]);
	}
	for (int i = 0; i < b; i++) cell[i] = cell[i] * forget[i] + ingate[i] * change[i];
	for (int i = 0; i < b; i++) hidden[i] = outgate[i] * tanh(cell[i]);
}

template <typename T>
void lstm_predict(int l, int b, const std::vector<T> &w, const std::vector<T> &w2, std::vector<T> &s, const T *x, T *out) {
	std::vector<T> x2(b);
	for (int i = 0; i < b; i++) x2[i] = x[i] * w2[i];
	const T *xp = x2.data();
	for (int i = 0; i < l; i++) {
		lstm_model(b, &w[i * 8 * b], &w[i * 8 * b + 4 * b], &s[i * 2 * b], &s[i * 2 * b + b], xp);
		xp = &s[i * 2 * b];
	}
	for (int i = 0; i < b; i++) out[i] = xp[i] * w2[b + i] + w2[2 * b + i];
}

template <typename T> T lstm_objective(const LSTMInput &in, const std::vector<T> &main_params, const std::vector<T> &extra) {
	using std::exp;
	using std::log;
	const int l = in.l, c = in.c, b = in.b;
	std::vector<T> state(in.state.begin(), in.state.end()), input(b), ypred(b);
	// ADBench's logsumexp: log(sum exp + 2).
	auto lse = [b](const std::vector<T> &y) {
		T s = 0;
		for (int i = 0; i < b; i++) s += exp(y[i]);
		return log(s + 2);
	};
	T total = 0;
	for (int t = 0; t < c - 1; t++) {
		for (int i = 0; i < b; i++) input[i] = in.sequence[t * b + i];
		lstm_predict(l, b, main_params, extra, state, input.data(), ypred.data());
		T z = lse(ypred);
		for (int i = 0; i < b; i++) total += in.sequence[(t + 1) * b + i] * (ypred[i] - z);
	}
	return -total / ((c - 1) * b);
}

// The ADOL-C version (adolc.cpp): tape at the parameters, then gradients
// on the tape (grad: main then extra).
void adolc_lstm_tape(int tag, const LSTMInput &in, const std::vector<double> &main_params, const std::vector<double> &extra);
void adolc_lstm_grad(int tag, const std::vector<double> &params, std::vector<double> &grad);
#endif
