! OpenMP in Fortran, differentiated from C (main.c): a parallel do
! filling an automatic array, and a parallel do with a reduction.
function energy(x, n) bind(C, name="energy") result(e)
  use iso_c_binding
  integer(c_int), value :: n
  real(c_double), intent(in) :: x(n)
  real(c_double) :: e, y(n)
  integer :: i
  !$omp parallel do
  do i = 1, n
    y(i) = sin(x(i)) * x(i)
  end do
  !$omp end parallel do
  e = 0
  do i = 1, n
    e = e + y(i) * y(i)
  end do
end function

function total(x, n) bind(C, name="total") result(e)
  use iso_c_binding
  integer(c_int), value :: n
  real(c_double), intent(in) :: x(n)
  real(c_double) :: e
  integer :: i
  e = 0
  !$omp parallel do reduction(+:e)
  do i = 1, n
    e = e + exp(0.1d0 * x(i)) * x(i)
  end do
  !$omp end parallel do
end function
