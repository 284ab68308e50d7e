/* Links libmathx.a built by gozyme-cc with a plain compiler: the fat
 * objects must behave as ordinary objects. Exits 1 on a wrong value. */
#include <stdio.h>

#include "mathx.h"

int main(void) {
    const double c[3] = {1, 2, 3}; /* 1 + 2x + 3x^2 */
    int ok = mathx_poly(c, 3, 2) == 17 && mathx_poly_prime(c, 3, 2) == 14 &&
             mathx_relu3_prime(2) == 12 && mathx_relu3_prime(-1) == 0 && mathx_square_prime(1.5) == 3;
    printf("plain %s\n", ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
