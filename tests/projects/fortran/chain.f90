! Fortran calling C (cfuncs.c) inside differentiated code; MAX, ABS, **.
module chain_mod
  use iso_c_binding, only: c_double, c_int
  implicit none
  interface
    function softplus(x) bind(C, name="softplus") result(y)
      import :: c_double
      real(c_double), value :: x
      real(c_double) :: y
    end function
  end interface
contains
  function chain(x, n) bind(C, name="chain") result(s)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: s
    integer :: i
    s = 0
    do i = 1, n
      s = s + x(i) * softplus(x(i)) + max(x(i), 0.2d0) + abs(x(i))**1.5d0
    end do
  end function
end module
