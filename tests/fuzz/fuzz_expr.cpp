// libFuzzer target: `floatlab calc`'s expression parser (tools/floatlab/expr.hpp) and evaluator.
// Besides crashes and sanitizer reports it checks: an error has a position inside the text and a
// message; every node's span lies inside the text and inside its parent's; a parsed expression
// evaluates (without recursion: nodes come children first); and each + - * / step's result lies
// between the same operation rounded down and up, which enclose the exact value of the operation
// on its operands (big rationals, not the library's arithmetic).
//
// Input: byte 0 picks the format and rounding, the rest is the expression.
#include <cstddef>
#include <cstdint>
#include <string>

#include "floatlab/explore.hpp"
#include "floatlab/expr.hpp"
#include "fuzz_common.hpp"

namespace {

const lf::format formats[] = {lf::binary16, lf::bfloat16, lf::binary32, lf::float8_e4m3fn, lf::float8_e5m2, lf::binary64};

}  // namespace

using fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 2000) return 0;
  const lf::format f = fuzz::pick(formats, data[0]);
  const lf::env e{fuzz::pick(lf::deterministic_roundings, data[0] >> 4)};
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);

  const floatlab::expr::parsed p = floatlab::expr::parse(text);
  if (!p) {
    check(p.errors.size() == 1 && p.nodes.empty(), "one error, no nodes");
    check(p.errors[0].position <= text.size() && !p.errors[0].message.empty(), "the error has a position and a message");
    (void)floatlab::expr::caret_message(text, p.errors[0]);
    return 0;
  }
  check(!p.nodes.empty(), "a parsed expression has nodes");
  // `calc --json` reports each step's place in the text as its span [begin, end): it must lie in
  // the text, and each operand's inside its node's.
  for (std::size_t k = 0; k < p.nodes.size(); ++k) {
    const floatlab::expr::node& n = p.nodes[k];
    check(n.begin < n.end && n.end <= text.size(), "a node's span lies inside the text");
    for (int a : n.args) {
      check(a < static_cast<int>(k), "operands come before their node");
      if (a < 0) continue;
      const floatlab::expr::node& c = p.nodes[static_cast<std::size_t>(a)];
      check(n.begin <= c.begin && c.end <= n.end, "an operand's span lies inside its node's");
    }
  }
  std::uint32_t r = 1;
  const floatlab::expr::evaluation ev = floatlab::expr::evaluate(p, f, e, [&] { return r = r * 1664525u + 1013904223u; });
  check(ev.steps.size() == p.nodes.size(), "one step per node");
  for (std::size_t k = 0; k < p.nodes.size(); ++k) {
    const floatlab::expr::node& n = p.nodes[k];
    const floatlab::expr::step& s = ev.steps[k];
    using floatlab::expr::op;
    if (n.kind != op::add && n.kind != op::sub && n.kind != op::mul && n.kind != op::div) continue;
    const lf::bits_t a = s.operands[0], b = s.operands[1];
    if (!floatlab::is_finite(f, a) || !floatlab::is_finite(f, b) || !floatlab::is_finite(f, s.result)) continue;
    const floatlab::rational x = floatlab::value_of(f, a), y = floatlab::value_of(f, b);
    if (n.kind == op::div && y == 0) continue;
    floatlab::rational exact;
    switch (n.kind) {
      case op::add: exact = x + y; break;
      case op::sub: exact = x - y; break;
      case op::mul: exact = x * y; break;
      default: exact = x / y; break;
    }
    lf::status ignored{};
    auto directed = [&](lf::rounding m) {
      const lf::env d{m};
      switch (n.kind) {
        case op::add: return lf::add(f, a, b, d, ignored);
        case op::sub: return lf::sub(f, a, b, d, ignored);
        case op::mul: return lf::mul(f, a, b, d, ignored);
        default: return lf::div(f, a, b, d, ignored);
      }
    };
    const lf::bits_t lo = directed(lf::rounding::downward), hi = directed(lf::rounding::upward);
    check(s.result == lo || s.result == hi || floatlab::value_of(f, lo) == floatlab::value_of(f, hi),
          "the result is the exact value rounded down or up");
    if (floatlab::is_finite(f, lo)) check(floatlab::value_of(f, lo) <= exact, "rounded down is not above the exact value");
    if (floatlab::is_finite(f, hi)) check(floatlab::value_of(f, hi) >= exact, "rounded up is not below the exact value");
    (void)floatlab::measure(f, s.result, floatlab::exact_real{exact});
  }
  return 0;
}
