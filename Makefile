# gozyme: build, test and demo.
#   make deps   install clang-14, llvm-14, lld-14, cmake, gcc, valgrind with apt-get (only what is missing)
#               and flang-16 (make deps-fortran: gozyme-fc's compiler, only when missing)
#               and libomp-14-dev (make deps-openmp: gozyme-cc -fopenmp, only when missing)
#   make build  bin/gozyme-cc, bin/gozyme-c++, bin/gozyme-fc, bin/gozyme-ld
#   make bazel-deps  bazel-bootstrap, bazel-skylib, bazel-platforms (apt-get) and rules_go + the Go modules (Go module cache)
#   make test   deps + bazel-deps + build + gofmt check + go vet + go test ./... (end-to-end tests included) + fuzz
#               (go test -short ./...: a quicker check: the AD tests at -O0 and -O2 only and without valgrind,
#               no Bazel, cgo + SQLite or generated-program builds)
#   make demo   deps + build + compile and run examples/relu3
#   make bench  deps + build + the benchmark kernels and workloads (bench/results/summary.md, *.png)
#   make test-gpu   the CUDA tests (tests/gpu): gradients on an emulated GPU here, on the GPU where one is reachable
#   make bench-gpu  the CUDA programs built for a GPU (build/bench-gpu), run and reported (bench/results/gpu.md)
#                   where a GPU is reachable, else left with their run.sh for a GPU machine
#   make bench-remote  the workloads built statically (build/bench-remote) with a run.sh for a quiet machine
#                   with many cores (no clang, LLVM or Go there): one per physical core, in parallel;
#                   then go run ./bench/remote -report results.txt writes bench/results/remote.md
#   make fuzz-ad N=1000   random self-checking programs through bin/ at FUZZ_LEVELS (tests/adfuzz)
#   make enzyme-suite     Enzyme's integration suite through bin/ at LEVELS (counts and failures);
#                         SUITE_ARGS=-run-flags builds each program with its own RUN line's flags

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

# Go lives in /usr/local/go on the build machines; its tools in $(HOME)/go/bin.
export PATH := /usr/local/go/bin:$(HOME)/go/bin:$(PATH)

GO       ?= go
BIN      := bin
FUZZTIME ?= 10s
# The end-to-end tests (SQLite through cgo) take a few minutes on 2 cores;
# the default per-binary limit of 10 minutes is too tight on a slow machine.
TESTTIMEOUT ?= 40m
# Test binaries run at once (go's default: one per CPU). The long packages
# (tests/e2e's Bazel builds, tests/adfuzz, ad) then start together instead
# of queueing behind each other, and the cores stay busy while a package
# waits on its subprocesses; each runs its parallel tests -parallel at a
# time (default: GOMAXPROCS). Together they used at most about 2 GiB of
# memory (2026-11-27, 2 cores).
GOTESTP     ?= 4

# Command each tool is checked with, and the Debian package that provides it.
DEPS := clang-14:clang-14 clang++-14:clang-14 opt-14:llvm-14 llc-14:llvm-14 \
        llvm-dis-14:llvm-14 llvm-as-14:llvm-14 llvm-link-14:llvm-14 llvm-ar-14:llvm-14 \
        ld.lld-14:lld-14 cmake:cmake gcc:gcc llvm-objcopy-14:llvm-14 \
        valgrind:valgrind

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# apt-get as every target runs it: waiting for another apt-get's lock.
APT  := $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600

.PHONY: all deps deps-fortran deps-openmp deps-blas adolc json bazel-deps build test fmt-check vet gotest fuzz demo bench clean \
        test-gpu bench-gpu bench-remote \
        fuzz-deps fuzz-ad suite-deps enzyme-suite

all: build

deps: deps-fortran deps-openmp deps-blas
	@missing=""; \
	for dep in $(DEPS); do \
	  tool=$${dep%%:*}; pkg=$${dep##*:}; \
	  if ! command -v "$$tool" >/dev/null 2>&1; then \
	    case " $$missing " in *" $$pkg "*) ;; *) missing="$$missing $$pkg";; esac; \
	  fi; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  $(APT) update; \
	  $(APT) install -y --no-install-recommends $$missing; \
	else \
	  echo "make deps: clang-14, llvm-14, lld-14, cmake, gcc and valgrind are installed"; \
	fi

# flang-16 (flang-new-16 and the Fortran runtime) for gozyme-fc and the
# Fortran tests, which skip without it.
deps-fortran:
	@if command -v flang-new-16 >/dev/null 2>&1; then \
	  echo "make deps-fortran: flang-16 is installed"; \
	else \
	  echo "make deps-fortran: installing flang-16"; \
	  $(APT) update; \
	  $(APT) install -y --no-install-recommends flang-16; \
	fi

# libomp-14-dev: the OpenMP runtime and omp.h that clang-14 -fopenmp compiles
# and links with (gozyme-cc -fopenmp, the OpenMP tests and benchmark).
deps-openmp:
	@if [ -f /usr/lib/llvm-14/lib/libomp.so ] && ls /usr/lib/llvm-14/lib/clang/*/include/omp.h >/dev/null 2>&1; then \
	  echo "make deps-openmp: libomp-14-dev is installed"; \
	else \
	  echo "make deps-openmp: installing libomp-14-dev"; \
	  $(APT) update; \
	  $(APT) install -y --no-install-recommends libomp-14-dev; \
	fi

# libblas-dev: Debian's reference BLAS with its CBLAS interface (cblas.h),
# no bitcode: the BLAS rules' test against a real BLAS library, which skips
# without it. liblapack-dev: the reference LAPACK, for the LAPACK rules'
# test (skipped without it, unless run as root).
deps-blas:
	@if [ -f /usr/include/x86_64-linux-gnu/cblas.h ] && [ -f /usr/lib/x86_64-linux-gnu/libblas.so ]; then \
	  echo "make deps-blas: libblas-dev is installed"; \
	else \
	  echo "make deps-blas: installing libblas-dev"; \
	  $(APT) update; \
	  $(APT) install -y --no-install-recommends libblas-dev; \
	fi
	@if [ -f /usr/lib/x86_64-linux-gnu/liblapack.so ]; then \
	  echo "make deps-blas: liblapack-dev is installed"; \
	else \
	  echo "make deps-blas: installing liblapack-dev"; \
	  $(APT) update; \
	  $(APT) install -y --no-install-recommends liblapack-dev; \
	fi

# ADOL-C, the tape-based AD tool the benchmark workloads compare against.
adolc:
	@if [ ! -f /usr/include/adolc/adolc.h ]; then \
	  echo "make adolc: installing libadolc-dev"; \
	  $(APT) update; \
	  $(APT) install -y --no-install-recommends libadolc-dev; \
	fi

# nlohmann/json, with which the client build benchmark's GMM client
# (bench/builds/gmmjson.cpp) reads its input.
json:
	@if [ ! -f /usr/include/nlohmann/json.hpp ]; then \
	  echo "make json: installing nlohmann-json3-dev"; \
	  $(APT) update; \
	  $(APT) install -y --no-install-recommends nlohmann-json3-dev; \
	fi

# Only the Bazel tests (tests/e2e/bazel_test.go) need these. The workspace
# reads rules_go and the Go modules from the Go module cache, offline.
RULES_GO := github.com/bazelbuild/rules_go@v0.34.0

bazel-deps:
	@if ! command -v bazel >/dev/null 2>&1 || [ ! -d /usr/share/bazel/tools/skylib ] || [ ! -d /usr/share/bazel/tools/platforms ]; then \
	  echo "make bazel-deps: installing bazel-bootstrap bazel-skylib bazel-platforms"; \
	  $(APT) update; \
	  $(APT) install -y --no-install-recommends bazel-bootstrap bazel-skylib bazel-platforms; \
	else \
	  echo "make bazel-deps: bazel, bazel-skylib and bazel-platforms are installed"; \
	fi
	$(GO) mod download
	cd / && GOFLAGS= $(GO) mod download $(RULES_GO)

build:
	mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...

fmt-check:
	@out=$$(find . -name '*.go' -not -path './.git/*' -not -path '*/testdata/*' -print0 | xargs -0 gofmt -l); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

gotest:
	$(GO) test -p $(GOTESTP) -timeout $(TESTTIMEOUT) ./...

fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzClassify -fuzztime=$(FUZZTIME) ./wrapper
	$(GO) test -run='^$$' -fuzz=FuzzObjectReaders -fuzztime=$(FUZZTIME) -fuzzminimizetime=200x ./lto

test: deps adolc fuzz-deps bazel-deps build fmt-check vet gotest fuzz

demo: deps build
	mkdir -p build/demo
	$(BIN)/gozyme-cc -O2 examples/relu3/relu3.c -o build/demo/relu3 -lm
	./build/demo/relu3

bench: deps adolc json build
	$(GO) run ./bench -root . -out bench/results

# CUDA (tests/gpu, bench/gpu). libdevice: GOZYME_LIBDEVICE, else
# ../shared/cuda/libdevice.10.bc; without it the tests skip, saying so.
test-gpu: deps build
	$(GO) test -count=1 -timeout $(TESTTIMEOUT) ./tests/gpu

bench-gpu: deps build
	$(GO) run ./bench/gpu -root . -out build/bench-gpu -run -results bench/results

# The workloads built for another machine (bench/remote/run.sh runs them there).
bench-remote: deps adolc build
	$(GO) run ./bench/remote -root . -out build/bench-remote

# Differential testing of the AD engine: N generated programs (seeds SEED..SEED+N-1),
# each built with bin/gozyme-cc or gozyme-c++ at every level of FUZZ_LEVELS and run;
# failing programs go to build/fuzz-ad-failures/<seed>-O<level>/. FUZZ_J programs at
# a time (default: GOMAXPROCS). FUZZ_ARGS passes more flags (go run ./tests/adfuzz/fuzzad -h).
N           ?= 200
SEED        ?= 1
FUZZ_LEVELS ?= 0 1 2 3
FUZZ_J      ?= 0
FUZZ_ARGS   ?=

# The sanitizer runtimes clang-14 links with -fsanitize=address,undefined: the
# generator's programs are checked free of undefined behaviour with them.
fuzz-deps:
	@if ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.asan-x86_64.a >/dev/null 2>&1; then \
	  echo "make fuzz-deps: libclang-rt-14-dev is installed"; \
	else \
	  echo "make fuzz-deps: installing libclang-rt-14-dev"; \
	  $(APT) update; \
	  $(APT) install -y --no-install-recommends libclang-rt-14-dev; \
	fi

fuzz-ad: deps fuzz-deps build
	$(GO) run ./tests/adfuzz/fuzzad -bin $(BIN) -n $(N) -seed $(SEED) -levels "$(FUZZ_LEVELS)" \
	  -j $$( [ "$(FUZZ_J)" = 0 ] && nproc || echo $(FUZZ_J) ) -sanity -q -out build/fuzz-ad-failures $(FUZZ_ARGS)

# Enzyme's integration suite (self-checking C and C++ programs written for Enzyme),
# each built with bin/ at every level of LEVELS and run. Its folder is outside the
# repository; without it the target says so and does nothing.
ENZYME_SUITE ?= ../shared/enzyme-integration/Integration
LEVELS       ?= 0 2 3
SUITE_ARGS   ?=

suite-deps:
	@if [ -f /usr/include/eigen3/Eigen/Core ] && [ -f /usr/include/boost/version.hpp ]; then \
	  echo "make suite-deps: libeigen3-dev and libboost-dev are installed"; \
	else \
	  echo "make suite-deps: installing libeigen3-dev libboost-dev"; \
	  $(APT) update; \
	  $(APT) install -y --no-install-recommends libeigen3-dev libboost-dev; \
	fi

enzyme-suite: deps build
	@if [ ! -d "$(ENZYME_SUITE)" ]; then \
	  echo "make enzyme-suite: no suite at $(ENZYME_SUITE) (set ENZYME_SUITE=DIR); skipped"; \
	else \
	  $(MAKE) --no-print-directory suite-deps && \
	  $(GO) run ./tests/adfuzz/fuzzad -bin $(BIN) -suite "$(ENZYME_SUITE)" -levels "$(LEVELS)" \
	    -j $$( [ "$(FUZZ_J)" = 0 ] && nproc || echo $(FUZZ_J) ) -timeout 60s $(SUITE_ARGS); \
	fi

clean:
	rm -rf $(BIN) build
