! dpotrf, dpotrs and dtrtrs on explicit-shape arrays (flang passes them as
! pointers to the array types), called from C (main.c) through bind(C).
function chol(a, b) bind(C, name="chol") result(s)
  use iso_c_binding
  real(c_double), intent(inout) :: a(4,3), b(3,2)
  real(c_double) :: s
  integer :: info, i, j
  call dpotrf('L', 3, a, 4, info)
  call dpotrs('L', 3, 2, a, 4, b, 3, info)
  call dtrtrs('L', 'T', 'N', 3, 2, a, 4, b, 3, info)
  s = 0
  do j = 1, 2
    do i = 1, 3
      s = s + (0.3d0 + i + 2*j) * b(i,j)
    end do
  end do
end function
