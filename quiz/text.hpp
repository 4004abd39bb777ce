// quiz/text.hpp: the quiz's language data (quiz/content/<lang>.txt, embedded at build time) and
// the text helpers every screen uses: {name} substitution, UTF-8 aware word wrapping to the
// terminal width.
//
// Content format (one file per language, parsed here, no dependency):
//   # comment                      ignored, as are blank lines
//   key = value                    one line per value; "\n" in a value is a line break
//   key = |    code                a leading '|' keeps the spaces after it (indented code)
//   q3.answer = C                  the correct option of question 3 (A-D)
// Values may hold {name} placeholders, filled from a vars map when shown (numbers computed by
// libfloat at run time, never typed into the text). "{{" and "}}" are literal braces.
#pragma once

#include <array>
#include <map>
#include <stdexcept>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpq {

inline constexpr int question_count = 8;
inline constexpr int option_count = 4;
/// Output width: everything the quiz prints fits an 80-column terminal.
inline constexpr int screen_width = 79;

/// A named set of values substituted into {name} placeholders.
using vars = std::map<std::string, std::string, std::less<>>;

struct question {
  int number = 0;                              ///< 1..8
  std::string topic;                           ///< short title, e.g. "Master weights"
  std::string guide;                           ///< guide section anchor, e.g. "master-weights"
  std::string text;                            ///< the question
  std::array<std::string, option_count> options;  ///< A..D in the original order
  int answer = 0;                              ///< index of the correct option (0 = A)
  std::string explanation;                     ///< why the answer is right
  std::array<std::string, option_count> why;   ///< why each wrong option is wrong (empty for the answer)
};

/// One language: every string of the quiz and of its demos.
class language {
 public:
  /// Parses content text; throws std::runtime_error naming the line on malformed input or when a
  /// question field is missing.
  static language parse(std::string_view code, std::string_view content);

  const std::string& code() const { return code_; }
  /// The raw value of `key`; throws std::out_of_range naming the key when it is missing.
  const std::string& raw(std::string_view key) const;
  bool has(std::string_view key) const { return strings_.find(key) != strings_.end(); }
  /// The value with its placeholders filled from `v` (and "\n" made a line break).
  std::string get(std::string_view key, const vars& v = {}) const;
  const std::map<std::string, std::string, std::less<>>& strings() const { return strings_; }
  const std::vector<question>& questions() const { return questions_; }
  /// The guide file for this language, relative to the source tree: docs/guide/<code>.md
  std::string guide_file() const { return "docs/guide/" + code_ + ".md"; }
  std::string guide_link(const question& q) const { return guide_file() + "#" + q.guide; }

 private:
  std::string code_;
  std::map<std::string, std::string, std::less<>> strings_;
  std::vector<question> questions_;
};

/// The embedded languages, by code ("en", "fr"); nullptr when unknown.
const language* find_language(std::string_view code);
/// "en, fr": what --lang accepts.
std::string language_codes();
/// The language named by LC_ALL, LC_MESSAGES, LANG (the first that is set and non-empty, as POSIX
/// orders them): "fr" when it starts with "fr", otherwise "en".
/// The quiz language of a language or locale name ("fr", "fr_FR.UTF-8", "en_GB", "FR", "fr-FR"),
/// or nullopt when it names no language of the quiz.
std::optional<std::string> language_of_locale(std::string_view name);
std::string language_from_environment();

/// Fills {name} placeholders from v; "{{" / "}}" are literal braces; "\n" (backslash, n) is a
/// line break. Throws std::out_of_range naming a placeholder that v lacks.
std::string substitute(std::string_view text, const vars& v);
/// The placeholder names used in text, sorted (for the language structure test).
std::vector<std::string> placeholders(std::string_view text);

/// Display width in columns: UTF-8 code points (the quiz's text is Latin script, one column each).
int display_width(std::string_view s);
/// Word-wraps `text` to `width` columns; every line starts with `indent` spaces, the first with
/// `first_indent` (default: the same). Paragraphs ("\n" in text) are kept. Breaks only at ASCII
/// spaces, so a no-break space (French "? :") never starts a line. Ends with a newline.
std::string wrap(std::string_view text, int indent = 0, int width = screen_width, int first_indent = -1);
/// Pads s with spaces on the right to `cols` display columns (no truncation).
std::string pad(std::string_view s, int cols);
/// Pads on the left (right-aligned numbers).
std::string lpad(std::string_view s, int cols);

}  // namespace mpq
