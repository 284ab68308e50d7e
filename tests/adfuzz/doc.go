// Package adfuzz is differential testing of gozyme's AD engine at scale: a
// generator of random, self-checking C and C++ programs (each seed gives one
// program text) that differentiate their functions through Enzyme's C ABI in
// reverse, forward, split and batch mode and compare every derivative with a
// central finite difference computed in the same program; a driver that
// builds each program with gozyme-cc / gozyme-c++ at several -O levels, runs
// it and classifies the outcome; and a runner for Enzyme's integration
// suite. fuzzad/ is the command-line front end (`make fuzz-ad`,
// `make enzyme-suite`).
package adfuzz
