! A subroutine with an output array (explicit shape): y = F(x). Calls an
! external fixed-form function (scale.f) through its implicit interface.
! Preprocessed (.F90): the build defines COUPLED, and the embedded bitcode
! must see the same source as the native code.
subroutine forces(x, y, n) bind(C, name="forces")
  use iso_c_binding, only: c_double, c_int
  implicit none
  integer(c_int), value :: n
  real(c_double), intent(in) :: x(n)
  real(c_double), intent(out) :: y(n)
  real(8), external :: fscale
  integer :: i, j
  do i = 1, n
    j = mod(i, n) + 1
    y(i) = fscale(x(i))**2 * exp(-x(i))
#ifdef COUPLED
    y(i) = y(i) + x(i)*x(j)
#endif
  end do
end subroutine
