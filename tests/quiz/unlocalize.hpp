// tests/quiz/unlocalize.hpp: French number typography undone, for the claims tests that read the
// quiz's text in both languages with the same number patterns.
#pragma once

#include <cctype>
#include <string>

/// The narrow no-break spaces of digit groups and before '%' dropped, and a decimal comma between
/// two digits made a point (the reverse of quiz/text.cpp localize_number, written here apart).
inline std::string unlocalize(std::string s) {
  for (std::size_t i = 0; (i = s.find("\u202f", i)) != std::string::npos;) s.erase(i, 3);
  for (std::size_t i = 1; i + 1 < s.size(); ++i)
    if (s[i] == ',' && std::isdigit(static_cast<unsigned char>(s[i - 1])) && std::isdigit(static_cast<unsigned char>(s[i + 1])))
      s[i] = '.';
  return s;
}
