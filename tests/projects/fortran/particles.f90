! A module with allocatable module arrays (allocated by setup, read by the
! differentiated function) and a derived type.
module particles
  use iso_c_binding, only: c_double, c_int
  implicit none
  type :: particle
    real(8) :: pos(3)
    real(8) :: mass
  end type
  type(particle), allocatable :: parts(:)
  real(8), allocatable :: weights(:)
contains
  subroutine setup(n) bind(C, name="setup")
    integer(c_int), value :: n
    integer :: i
    if (allocated(parts)) deallocate(parts, weights)
    allocate(parts(n), weights(n))
    do i = 1, n
      parts(i)%pos = [0.3d0*i, -0.2d0*i, 0.1d0*i*i]
      parts(i)%mass = 1d0 + 0.25d0*i
      weights(i) = 1d0 / i
    end do
  end subroutine

  ! Potential at the point x(3) of all particles.
  function potential(x) bind(C, name="potential") result(u)
    real(c_double), intent(in) :: x(3)
    real(c_double) :: u, r2
    integer :: i
    u = 0
    do i = 1, size(parts)
      r2 = sum((parts(i)%pos - x)**2)
      u = u + parts(i)%mass * weights(i) * (r2 + exp(-r2))
    end do
  end function
end module
