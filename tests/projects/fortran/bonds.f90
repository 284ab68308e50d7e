! An assumed-shape array argument (passed with its descriptor), in its own
! file so that flang cannot inline it into energy.f90: linked at -O0
! (cmain_O0), the gradient goes through the call and the descriptor.
module bonds_mod
  use iso_c_binding, only: c_double
  implicit none
contains
  ! Sum of squared neighbour differences.
  function bonds(x) result(b)
    real(c_double), intent(in) :: x(:)
    real(c_double) :: b
    integer :: i
    b = 0
    do i = 1, size(x) - 1
      b = b + (x(i+1) - x(i))**2
    end do
  end function
end module
