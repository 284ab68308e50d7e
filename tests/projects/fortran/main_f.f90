! Fortran main calling AD through interfaces to __enzyme_autodiff: the
! entry point is matched by name, so each interface gets its own binding
! label that contains "__enzyme_autodiff". Differentiates Fortran code that
! calls C (chain) and the energy of energy.f90, on allocatable arrays.
program main_f
  use iso_c_binding, only: c_double, c_int, c_funptr, c_funloc
  use energy_mod, only: energy
  use chain_mod, only: chain
  implicit none
  interface
    ! x is duplicated (dx receives the gradient), n is an integer: constant.
    subroutine autodiff_array(fn, x, dx, n) bind(C, name="__enzyme_autodiff_array")
      import :: c_funptr, c_double, c_int
      type(c_funptr), value :: fn
      real(c_double), intent(in) :: x(*)
      real(c_double), intent(inout) :: dx(*)
      integer(c_int), value :: n
    end subroutine
  end interface
  integer, parameter :: n = 4
  real(c_double), allocatable :: x(:), dx(:)
  real(c_double) :: e, s, g, want
  integer :: i

  allocate(x(n), dx(n))
  x = [0.5d0, -1.5d0, 1.0d0, 2.5d0]

  dx = 0
  call autodiff_array(c_funloc(chain), x, dx, n)
  do i = 1, n
    e = exp(x(i))
    s = log(1d0 + e)
    g = e / (1d0 + e)
    want = s + x(i)*g
    write(*, '(a, 1x, i0, 2(1x, es24.16))') 'chain', i, dx(i), want
  end do

  dx = 0
  call autodiff_array(c_funloc(energy), x, dx, n)
  do i = 1, n
    write(*, '(a, 1x, i0, 2(1x, es24.16))') 'energy', i, dx(i), fd_energy(i)
  end do

contains
  real(c_double) function fd_energy(j)
    integer, intent(in) :: j
    real(c_double), allocatable :: xp(:), xm(:)
    real(c_double), parameter :: h = 1d-6
    xp = x
    xm = x
    xp(j) = xp(j) + h
    xm(j) = xm(j) - h
    fd_energy = (energy(xp, n) - energy(xm, n)) / (2*h)
  end function
end program
