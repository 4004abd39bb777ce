// tests/quiz/exact_decimal.hpp: the exact rational value of a decimal number as the quiz prints it
// (positional or with an exponent, optionally negative), for claims tests that compare every
// printed digit with an exact model (Boost.Multiprecision, no libfloat code).
#pragma once

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace claims {

inline boost::multiprecision::cpp_rational rational_of_decimal(std::string s) {
  using boost::multiprecision::cpp_int;
  using boost::multiprecision::cpp_rational;
  const bool neg = !s.empty() && s[0] == '-';
  if (neg) s.erase(0, 1);
  std::string digits;
  long exp10 = 0;
  bool point = false;
  std::size_t i = 0;
  for (; i < s.size() && s[i] != 'e'; ++i) {
    if (s[i] == '.') point = true;
    else {
      digits += s[i];
      if (point) --exp10;
    }
  }
  if (i < s.size()) exp10 += std::stol(s.substr(i + 1));
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));  // no leading 0: octal
  cpp_rational r{cpp_int(digits)};
  const cpp_int p = boost::multiprecision::pow(cpp_int(10), static_cast<unsigned>(std::labs(exp10)));
  r = exp10 >= 0 ? cpp_rational(r * p) : cpp_rational(r / p);
  return neg ? cpp_rational(-r) : r;
}

}  // namespace claims
