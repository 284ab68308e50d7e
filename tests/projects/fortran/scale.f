C     Fixed-form source: a scaled cube root of 1 + v**2, times v.
      DOUBLE PRECISION FUNCTION FSCALE(V)
      DOUBLE PRECISION V
      FSCALE = 1.5D0 * V * (1.0D0 + V*V)**(1.0D0/3.0D0)
      RETURN
      END
