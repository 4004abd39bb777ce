// quiz/demos/hard/hard.cpp: the dispatch to the hard level's questions (see hard.hpp).
#include "hard.hpp"

#include <stdexcept>

namespace mpq::demo {

page hard_page(int n, const language& l, std::uint64_t seed) {
  switch (n) {
    case 9: return page_q9(run_q9(seed), l);
    case 10: return page_q10(run_q10(seed), l);
    case 11: return page_q11(run_q11(seed), l);
    case 12: return page_q12(run_q12(seed), l);
    case 13: return page_q13(run_q13(seed), l);
    case 14: return page_q14(run_q14(seed), l);
    case 15: return page_q15(run_q15(seed), l);
    case 16: return page_q16(run_q16(seed), l);
    default: throw std::out_of_range("no hard demo for question " + std::to_string(n));
  }
}

try_outcome hard_try(int n, const language& l, std::string_view line) {
  switch (n) {
    case 9: return try_q9(l, line);
    case 10: return try_q10(l, line);
    case 11: return try_q11(l, line);
    case 12: return try_q12(l, line);
    case 13: return try_q13(l, line);
    case 14: return try_q14(l, line);
    case 15: return try_q15(l, line);
    case 16: return try_q16(l, line);
    default: return {false, std::nullopt, {}};
  }
}

void hard_facts(vars& v) {
  facts_q9(v);
  facts_q10(v);
  facts_q11(v);
  facts_q12(v);
  facts_q13(v);
  facts_q14(v);
  facts_q15(v);
  facts_q16(v);
}

}  // namespace mpq::demo
