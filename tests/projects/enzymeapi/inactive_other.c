/* shift_of for inactive_attr.c: this translation unit does not see the
 * enzyme_inactive attribute its caller's declaration carries. */
double shift_of(double a) { return a + 1; }
