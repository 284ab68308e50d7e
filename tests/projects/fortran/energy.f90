! Energy of a chain of coordinates: loops, intrinsics (sin, exp, sqrt, SUM,
! DOT_PRODUCT) and an assumed-shape helper from another file (bonds.f90),
! callable from C (bind(C)).
module energy_mod
  use iso_c_binding, only: c_double, c_int
  use bonds_mod, only: bonds
  implicit none
contains
  function energy(x, n) bind(C, name="energy") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e
    integer :: i
    e = 0
    do i = 1, n
      e = e + sin(x(i))**2 + exp(0.1d0*x(i)) * sqrt(x(i)*x(i) + 1d0)
    end do
    e = e + sum(x) + 0.5d0*dot_product(x, x) + bonds(x)
  end function
end module
