// quiz/demos/hard/hard.hpp: the hard level's questions (9-16), beyond the seed's 8. Each question
// N has its own files, qNN_<topic>.hpp/.cpp, with the same parts as the seed's demos:
//   qN_result run_qN(std::uint64_t seed)      computes with libfloat (the tests check its numbers)
//   page page_qN(const qN_result&, language)   the demo as a page (text, tables)
//   try_outcome try_qN(language, line)         "try it yourself" on the learner's values
//   void facts_qN(vars&)                       the numbers its question text and guide section quote
// and its text in quiz/content/hard/qNN_<topic>.<lang>.txt.
#pragma once

#include "q09_tf32.hpp"
#include "q10_fp8_formats.hpp"
#include "q11_delayed_scaling.hpp"
#include "q12_unscale_clipping.hpp"
#include "q13_stochastic_rounding.hpp"
#include "q14_kahan.hpp"
#include "q15_growth_interval.hpp"
#include "q16_block_scaling.hpp"

namespace mpq::demo {

/// The demo of hard question n (9..16), computed, before layout.
page hard_page(int n, const language& l, std::uint64_t seed);
/// "Try it" of hard question n (9..16).
try_outcome hard_try(int n, const language& l, std::string_view line);
/// Every hard question's facts (facts_q9 ... facts_q16) added to v.
void hard_facts(vars& v);

}  // namespace mpq::demo
