// <math.h>: every function on a few inputs, printed exactly (%a) for the
// test to compare with the host's libm.
#include <math.h>
#include <stdio.h>

int main(void) {
  double In[] = {2.0, -1.5, 1e-300, 123456.789, 0.5};
  for (int I = 0; I < 5; ++I) {
    double X = In[I];
    float F = (float)X;
    printf("%a %a %a %a %a %a %a %a\n", fabs(X), sqrt(fabs(X)), floor(X),
           ceil(X), trunc(X), round(X), fma(X, 3.0, -1.0), fmod(X, 0.7));
    printf("%a %a %a %a %a %a\n", (double)fabsf(F), (double)sqrtf(fabsf(F)),
           (double)floorf(F), (double)ceilf(F), (double)roundf(F),
           (double)fmaf(F, 3.0f, -1.0f));
    printf("%a %a %a %a\n", fmin(X, 1.0), fmax(X, 1.0), copysign(3.0, X),
           ldexp(X, 7));
  }
  printf("%d %d %d\n", isnan(NAN) != 0, isinf(-INFINITY) != 0,
         isfinite(1.0) != 0);
  return 0;
}
