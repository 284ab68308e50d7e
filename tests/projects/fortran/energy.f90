! Energy of a chain of coordinates: loops, intrinsics (sin, exp, sqrt, SUM,
! DOT_PRODUCT) and an assumed-shape helper, callable from C (bind(C)).
module energy_mod
  use iso_c_binding, only: c_double, c_int
  implicit none
contains
  ! Sum of squared neighbour differences: an assumed-shape array.
  pure function bonds(x) result(b)
    real(c_double), intent(in) :: x(:)
    real(c_double) :: b
    integer :: i
    b = 0
    do i = 1, size(x) - 1
      b = b + (x(i+1) - x(i))**2
    end do
  end function

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
