// A GMM client as clients write it: the input read from JSON with
// nlohmann/json, the gradient by __enzyme_autodiff, checked against central
// differences.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include "../workloads/gmm-cxx/gmm.hpp"

extern int enzyme_dup, enzyme_const;
template <typename R, typename... T> R __enzyme_autodiff(void *, T...);

using nlohmann::json;

struct Problem {
	GMMInput in;
	std::vector<double> alphas, means, icf;
};

static Problem read_problem(const std::string &path) {
	std::ifstream f(path);
	json j = json::parse(f);
	Problem p;
	p.in.d = j.at("d").get<int>();
	p.in.k = j.at("k").get<int>();
	p.in.n = j.at("n").get<int>();
	p.in.x = j.at("x").get<std::vector<double>>();
	p.in.wishart.gamma = j.at("gamma").get<double>();
	p.in.wishart.m = j.at("m").get<int>();
	p.alphas = j.at("alphas").get<std::vector<double>>();
	p.means = j.at("means").get<std::vector<double>>();
	p.icf = j.at("icf").get<std::vector<double>>();
	return p;
}

static void write_problem(const std::string &path, int d, int k, int n) {
	json j;
	j["d"] = d;
	j["k"] = k;
	j["n"] = n;
	j["gamma"] = 1.0;
	j["m"] = 0;
	auto fill = [](std::size_t m, double s) {
		std::vector<double> v(m);
		for (std::size_t i = 0; i < m; i++) v[i] = s * std::sin(1.0 + 0.37 * i);
		return v;
	};
	j["x"] = fill(std::size_t(n) * d, 1.0);
	j["alphas"] = fill(k, 0.5);
	j["means"] = fill(std::size_t(k) * d, 0.8);
	j["icf"] = fill(std::size_t(k) * icf_size(d), 0.1);
	std::ofstream(path) << j.dump(1);
}

static void gradient(const Problem &p, std::vector<double> &da, std::vector<double> &dm, std::vector<double> &di) {
	__enzyme_autodiff<void>((void *)gmm_objective<double>, enzyme_const, &p.in, enzyme_dup, &p.alphas, &da,
		enzyme_dup, &p.means, &dm, enzyme_dup, &p.icf, &di);
}

int main(int argc, char **argv) {
	std::string path = argc > 1 ? argv[1] : "gmm.json";
	write_problem(path, 5, 4, 50);
	Problem p = read_problem(path);
	std::vector<double> da(p.alphas.size()), dm(p.means.size()), di(p.icf.size());
	gradient(p, da, dm, di);
	int failures = 0;
	auto check = [&](std::vector<double> &v, const std::vector<double> &g, const char *name) {
		for (std::size_t i = 0; i < v.size(); i += 3) {
			double s = v[i], h = 1e-6;
			v[i] = s + h;
			double fp = gmm_objective(p.in, p.alphas, p.means, p.icf);
			v[i] = s - h;
			double fm = gmm_objective(p.in, p.alphas, p.means, p.icf);
			v[i] = s;
			double fd = (fp - fm) / (2 * h);
			if (std::fabs(fd - g[i]) > 1e-5 * (1 + std::fabs(fd))) {
				std::printf("%s[%zu]: %g, finite differences %g\n", name, i, g[i], fd);
				failures++;
			}
		}
	};
	check(p.alphas, da, "alphas");
	check(p.means, dm, "means");
	check(p.icf, di, "icf");
	json out = {{"dalphas", da}, {"failures", failures}};
	std::cout << out.dump() << "\n";
	return failures != 0;
}
