// tests/quiz/claims_text.hpp: reading the quiz's printed text in the claims tests (seed and hard
// level): the language by code, the text flattened for sentence matching, its lines and a line's
// fields, French number typography undone (unlocalize.hpp).
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "text.hpp"
#include "unlocalize.hpp"

namespace claims {

inline const mpq::language& lang(const char* code) {
  const mpq::language* l = mpq::find_language(code);
  REQUIRE(l != nullptr);
  return *l;
}

/// The text with every run of whitespace (newlines of the word wrap, indentation, no-break spaces)
/// made one space and none at either end, French numbers undone: a wrapped paragraph becomes one
/// line that a sentence can be searched in, whatever the width.
inline std::string flat(const std::string& raw) {
  std::string s = unlocalize(raw);
  for (std::size_t i = 0; (i = s.find("\u00a0", i)) != std::string::npos;) s.replace(i, 2, " ");
  std::string out;
  bool space = false;
  for (const char c : s) {
    if (c == ' ' || c == '\n' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

/// The lines of the text, French numbers undone (no final empty line).
inline std::vector<std::string> lines_of(const std::string& raw) {
  const std::string s = unlocalize(raw);
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t nl; (nl = s.find('\n', start)) != std::string::npos; start = nl + 1) out.push_back(s.substr(start, nl - start));
  if (start < s.size()) out.push_back(s.substr(start));
  return out;
}

/// The space-separated fields of a table line (a cell like "4 B (fp32)" is three fields).
inline std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : line + " ") {
    if (c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

}  // namespace claims
