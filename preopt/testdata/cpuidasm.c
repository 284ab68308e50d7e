/* One inline asm statement (a cpuid, as Eigen's cache-size query writes it)
   called from several functions that the inliner merges: the asm value's
   use-list order then differs from the order of its uses in the text. */
static void cpuid(int out[4], int leaf, int sub) {
  __asm__ __volatile__("xchgq %%rbx, %q1; cpuid; xchgq %%rbx, %q1"
                       : "=a"(out[0]), "=&r"(out[1]), "=c"(out[2]), "=d"(out[3])
                       : "0"(leaf), "2"(sub));
}
int z(int n);
int a(int n) { int r[4]; cpuid(r, n, 0); return r[1] + z(n); }
int y(int n) { int r[4]; cpuid(r, n, 3); return r[2]; }
int z(int n) { return y(n) + y(n + 1); }
int b(int n) { int r[4]; cpuid(r, 0, n); return r[0] + a(n) + y(n); }
