// quiz/tryit.hpp: "try it yourself" after a question's demo. The learner types their own values
// and the library computes the same thing as the demo on them:
//   Q1        a weight and an update: the update in fp16, bf16 and fp32, half an ulp of the
//             weight, w + update, and whether the update is lost;
//   Q2, Q7    a gradient magnitude and a loss scale: what fp16 and bf16 store of g x S, its class
//             (zero, subnormal, normal, overflow) and its relative error;
//   Q3        any number: its value in fp16, bf16 and fp32, the stored value in full, the error;
//   Q4        a count n and a value x: the sum of n copies under fp16, bf16 and fp32 accumulation,
//             Kahan in fp16 and an A100 Tensor Core, and where each plain sum stalls;
//   Q6        a loss scale, a growth interval and an overflow step: GradScaler's scale step by step;
//   Q8        a logit z: exp and softmax of [z, z - 1, z - 2] in fp16 and in fp32.
// Q5 (memory and measured speed) has none. Questions 9-16 (the hard level): demos/hard/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <libfloat/libfloat.hpp>
#include <libfloat/models/exact.hpp>

#include "text.hpp"

namespace mpq {

/// Whether question n offers "try it".
bool has_try(int n);

/// The outcome of one line typed at the try-it prompt.
struct try_outcome {
  bool ok = false;
  std::optional<page> result;  ///< when ok: the computation, laid out like the demo
  std::string error;  ///< when not ok: what was wrong and the accepted form
};

/// Evaluates `line` for question n (has_try(n)) in language l.
try_outcome try_it(int n, const language& l, std::string_view line);

/// The helpers every question's try-it uses (the hard level's are in demos/hard/).
namespace tryit {
/// The input split into numbers (spaces, tabs, commas or semicolons between them): `count` of
/// them, each a decimal that binary64 holds as a finite value (the text kept, for parsing into
/// each format). Empty on any error.
std::vector<std::string> numbers(std::string_view line, std::size_t count);
/// The encoding of decimal text s in format f (nearest even).
lf::bits_t parse_in(const lf::format& f, const std::string& s);
bool is_finite(const lf::format& f, lf::bits_t b);
/// |stored - exact| / |exact| with both exact, rounded once, as demo::sci; "-" when exact is zero or
/// stored is infinite.
std::string relative_error(const lf::exact_accumulator& exact, const lf::format& f, lf::bits_t stored);
/// Input that does not have the accepted form: try.bad with what was typed, then try.qN.form.
try_outcome failure(const language& l, int n, std::string_view line);
}  // namespace tryit

}  // namespace mpq
