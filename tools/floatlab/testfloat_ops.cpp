// tools/floatlab/testfloat_ops.cpp: evaluate() of testfloat_ops.hpp, compiled once.
#include "testfloat_ops.hpp"

namespace floatlab {

std::uint64_t evaluate(const operation& op, std::span<const std::uint64_t> in, const eval_options& o,
                       lf::status& st) {
  const lf::env& e = o.env;
  const bool daz = e.policy.inputs == lf::subnormal_inputs::treat_as_zero;
  const lf::format f = op.operands.front().fmt;
  switch (op.kind) {
    case op_kind::add: return lf::add(f, in[0], in[1], e, st);
    case op_kind::sub: return lf::sub(f, in[0], in[1], e, st);
    case op_kind::mul: return lf::mul(f, in[0], in[1], e, st);
    case op_kind::div: return lf::div(f, in[0], in[1], e, st);
    case op_kind::sqrt: return lf::sqrt(f, in[0], e, st);
    case op_kind::mul_add: return lf::fma(f, in[0], in[1], in[2], e, st);
    case op_kind::rem: return lf::rem(f, in[0], in[1], e, st);
    case op_kind::round_to_int: return lf::round_to_integral(f, in[0], e, o.exact, st);
    case op_kind::eq: return lf::eq(f, in[0], in[1], st, daz);
    case op_kind::le: return lf::le(f, in[0], in[1], st, daz);
    case op_kind::lt: return lf::lt(f, in[0], in[1], st, daz);
    case op_kind::eq_signaling: return lf::eq_signaling(f, in[0], in[1], st, daz);
    case op_kind::le_quiet: return lf::le_quiet(f, in[0], in[1], st, daz);
    case op_kind::lt_quiet: return lf::lt_quiet(f, in[0], in[1], st, daz);
    case op_kind::convert: return lf::convert(op.result.fmt, f, in[0], e, st);
    case op_kind::to_int:
      switch (op.result.integer) {
        case int_type::i32: return static_cast<std::uint32_t>(lf::to_int<std::int32_t>(f, in[0], e, o.exact, st));
        case int_type::i64: return static_cast<std::uint64_t>(lf::to_int<std::int64_t>(f, in[0], e, o.exact, st));
        case int_type::ui32: return lf::to_int<std::uint32_t>(f, in[0], e, o.exact, st);
        case int_type::ui64: return lf::to_int<std::uint64_t>(f, in[0], e, o.exact, st);
        case int_type::none: break;
      }
      return 0;
    case op_kind::from_dec:
    case op_kind::to_dec: break;  // not encodings in and out: parse_decimal, print_decimal
    case op_kind::from_int: {
      const lf::format g = op.result.fmt;
      switch (op.operands.front().integer) {
        case int_type::i32: return lf::from_int(g, static_cast<std::int32_t>(static_cast<std::uint32_t>(in[0])), e, st);
        case int_type::i64: return lf::from_int(g, static_cast<std::int64_t>(in[0]), e, st);
        case int_type::ui32: return lf::from_int(g, static_cast<std::uint32_t>(in[0]), e, st);
        case int_type::ui64: return lf::from_int(g, in[0], e, st);
        case int_type::none: break;
      }
      return 0;
    }
  }
  return 0;
}

}  // namespace floatlab
