! Compiled and linked in one gozyme-fc call: a module and the main program
! in one file, a bind(C) derived type differentiated as active data (the
! shadow array db receives d energy / d body), character concatenation.
module springs
  use iso_c_binding, only: c_double, c_int
  implicit none
  type, bind(C) :: body
    real(c_double) :: pos(2)
    real(c_double) :: mass
  end type
contains
  function spring_energy(b, n) bind(C, name="spring_energy") result(e)
    integer(c_int), value :: n
    type(body), intent(in) :: b(n)
    real(c_double) :: e
    integer :: i
    e = 0
    do i = 1, n - 1
      e = e + b(i)%mass * b(i+1)%mass * sum((b(i+1)%pos - b(i)%pos)**2)
    end do
  end function
end module

program onecall
  use iso_c_binding, only: c_double, c_int, c_funptr, c_funloc
  use springs
  implicit none
  interface
    subroutine autodiff_bodies(fn, b, db, n) bind(C, name="__enzyme_autodiff_bodies")
      import :: c_funptr, c_int, body
      type(c_funptr), value :: fn
      type(body), intent(in) :: b(*)
      type(body), intent(inout) :: db(*)
      integer(c_int), value :: n
    end subroutine
  end interface
  integer, parameter :: n = 3
  type(body) :: b(n), db(n)
  real(c_double) :: wpos(2, n), wmass(n), d(2), k
  character(len=:), allocatable :: pos_tag, mass_tag
  integer :: i, c

  b(1) = body([0.0d0, 0.0d0], 1.0d0)
  b(2) = body([1.0d0, 0.5d0], 2.0d0)
  b(3) = body([1.5d0, 2.0d0], 0.5d0)
  do i = 1, n
    db(i) = body([0.0d0, 0.0d0], 0.0d0)
  end do
  call autodiff_bodies(c_funloc(spring_energy), b, db, n)

  wpos = 0
  wmass = 0
  do i = 1, n - 1
    d = b(i+1)%pos - b(i)%pos
    k = b(i)%mass * b(i+1)%mass
    wpos(:, i) = wpos(:, i) - 2*k*d
    wpos(:, i+1) = wpos(:, i+1) + 2*k*d
    wmass(i) = wmass(i) + b(i+1)%mass * sum(d**2)
    wmass(i+1) = wmass(i+1) + b(i)%mass * sum(d**2)
  end do
  pos_tag = 'spring' // '_pos'
  mass_tag = 'spring' // '_mass'
  do i = 1, n
    do c = 1, 2
      write(*, '(a, 1x, i0, 2(1x, es24.16))') pos_tag, 10*i + c, db(i)%pos(c), wpos(c, i)
    end do
    write(*, '(a, 1x, i0, 2(1x, es24.16))') mass_tag, i, db(i)%mass, wmass(i)
  end do
end program
