! Fortran main calling AD through interfaces to __enzyme_autodiff: the
! entry point is matched by name, so each interface gets its own binding
! label that contains "__enzyme_autodiff". Differentiates Fortran code that
! calls C (chain) and the energy of energy.f90, on allocatable arrays.
module enzyme_markers
  use iso_c_binding, only: c_int
  implicit none
  ! Enzyme's activity markers: globals whose loaded value tags the next
  ! argument. (flang-16 has no BIND(C) module variables; BIND(C) common
  ! blocks give the same C globals.)
  integer(c_int) :: enzyme_dup, enzyme_const
  common /enzyme_dup/ enzyme_dup
  common /enzyme_const/ enzyme_const
  bind(C, name="enzyme_dup") :: /enzyme_dup/
  bind(C, name="enzyme_const") :: /enzyme_const/
end module

program main_f
  use iso_c_binding, only: c_double, c_int, c_funptr, c_funloc
  use energy_mod, only: energy
  use chain_mod, only: chain
  use enzyme_markers
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
    ! The same with explicit markers: enzyme_dup x, dx, enzyme_const n.
    subroutine autodiff_marked(fn, mdup, x, dx, mconst, n) bind(C, name="__enzyme_autodiff_marked")
      import :: c_funptr, c_double, c_int
      type(c_funptr), value :: fn
      integer(c_int), value :: mdup, mconst
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
    want = s + x(i)*g + merge(1d0, 0d0, x(i) > 0.2d0) + 1.5d0*sqrt(abs(x(i)))*sign(1d0, x(i))
    write(*, '(a, 1x, i0, 2(1x, es24.16))') 'chain', i, dx(i), want
  end do

  dx = 0
  call autodiff_marked(c_funloc(energy), enzyme_dup, x, dx, enzyme_const, n)
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
