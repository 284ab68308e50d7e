#ifndef SHAPES_H
#define SHAPES_H

double shapes_circle_area(double r);
double shapes_circle_area_prime(double r); /* analytic d/dr: 2 pi r */

#endif
