/* bench/peers_cpfloat.c: CPFloat's cpfloatf() behind plain functions for bench_peers.cpp.
 *
 * CPFloat is header-only C (its headers define functions, and allocate with malloc without a cast,
 * which C++ rejects), so it is compiled here as C, in the build directory's copy of the peer
 * (bench/peers.cmake); this file only sets the fields its documentation names for a custom target
 * format and forwards the calls. */
#include <stddef.h>
#include <string.h>

#include "cpfloat_binary32.h"

/* Options for rounding binary32 values to a format with `precision` significand bits (hidden bit
 * included) and exponents emin..emax, with subnormals and infinities (CPFLOAT_INF_USE: without it
 * overflow gives NaN), no saturation, no soft errors. `round` is a cpfloat_rounding_t. */
void *bench_cpfloat_new(unsigned precision, int emin, int emax, int round) {
  optstruct *o = init_optstruct();
  if (o == NULL) return NULL;
  strcpy(o->format, "custom");
  o->precision = precision;
  o->emin = emin;
  o->emax = emax;
  o->explim = CPFLOAT_EXPRANGE_TARG;
  o->infinity = CPFLOAT_INF_USE;
  o->round = (cpfloat_rounding_t)round;
  o->saturation = CPFLOAT_SAT_NO;
  o->subnormal = CPFLOAT_SUBN_USE;
  o->flip = CPFLOAT_SOFTERR_NO;
  o->p = 0;
  return o;
}

void bench_cpfloat_free(void *o) { free_optstruct((optstruct *)o); }

/* out[i] = in[i] rounded (values of the target format, stored as binary32); CPFloat's return code
 * (0: valid options, negative: a warning, positive: an error). */
int bench_cpfloat_round(float *out, const float *in, size_t n, void *o) {
  return cpfloatf(out, in, n, (optstruct *)o);
}

/* out[i] = round(a[i] op b[i]) in the target format, op = 0 add, 1 mul, 2 div: the binary32
 * operation, then the rounding (exact for binary16 operands: 24 >= 2 * 11 + 2 bits). No flags. */
int bench_cpfloat_binary(int op, float *out, const float *a, const float *b, size_t n, void *o) {
  switch (op) {
    case 0: return cpf_addf(out, a, b, n, (optstruct *)o);
    case 1: return cpf_mulf(out, a, b, n, (optstruct *)o);
    default: return cpf_divf(out, a, b, n, (optstruct *)o);
  }
}
