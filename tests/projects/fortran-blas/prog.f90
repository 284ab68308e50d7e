! r = |2 A x|^2 through dgemv and ddot; gradient_c (grad.c) differentiates it
! with __enzyme_autodiff. Checked against the analytic gradient:
! dr/dx = 4 A^T y, dr/dA = 4 y x^T with y = 2 A x.
subroutine f(n, a, x, y, r)
  integer :: n
  real(8) :: a(n, n), x(n), y(n), r
  real(8), external :: ddot
  call dgemv('N', n, n, 2.0d0, a, n, x, 1, 0.0d0, y, 1)
  r = ddot(n, y, 1, y, 1)
end subroutine

program main
  implicit none
  integer, parameter :: n = 3
  real(8) :: a(n, n), x(n), y(n), dx(n), da(n, n), dy(n), r, dr, err
  integer :: i, j
  do j = 1, n
    do i = 1, n
      a(i, j) = 0.1d0 * i + 0.3d0 * j
    end do
    x(j) = 1.0d0 / j
  end do
  dx = 0; da = 0; dy = 0; dr = 1.0d0
  call gradient(a, da, x, dx, y, dy, r, dr)
  call f(n, a, x, y, r)
  err = maxval(abs(dx - 4.0d0 * matmul(transpose(a), y)))
  do j = 1, n
    do i = 1, n
      err = max(err, abs(da(i, j) - 4.0d0 * y(i) * x(j)))
    end do
  end do
  print '(a, es10.2)', 'max error ', err
  if (err > 1.0d-10) stop 1
end program
