#ifndef SNAP_H
#define SNAP_H
/* The rules of snap are given here only: snap.c, which defines snap, and
   rules.c, which defines the rules, do not include this header. The
   translation units that call snap register the rules. */
double snap_grad(double x, double d_ret);
double snap_fwd(double x, double dx);
__attribute__((enzyme("gradient", snap_grad), enzyme("forward", snap_fwd)))
double snap(double x);

/* The same for halves, with its rule in an object gcc built (no bitcode):
   its type comes from the rule's contract. */
double halve_grad(double x, double d_ret);
__attribute__((enzyme("gradient", halve_grad))) double halve(double x);
#endif
