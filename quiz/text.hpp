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
#include <utility>
#include <map>
#include <stdexcept>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpq {

/// Every question of the quiz: 1-8 are the seed's (level medium), 9-16 the hard level's.
inline constexpr int question_count = 16;
inline constexpr int option_count = 4;
/// The levels: medium asks the seed's 8 questions (1-8), hard the 8 beyond it (9-16), in the same
/// form (quiz/content/hard/).
enum class level { medium, hard };
inline constexpr int level_first(level v) { return v == level::medium ? 1 : 9; }
inline constexpr int level_last(level v) { return v == level::medium ? 8 : 16; }
/// The level question n belongs to.
inline constexpr level level_of(int n) { return n <= 8 ? level::medium : level::hard; }
/// "medium", "hard": what --level accepts (its language key is "level.<name>").
inline constexpr const char* level_name(level v) { return v == level::medium ? "medium" : "hard"; }
/// A question number written in decimal digits only ("12"), in 1..question_count; nullopt otherwise.
std::optional<int> question_number(std::string_view s);
/// The terminal widths the quiz lays out for: at least min_columns; default_columns when the
/// output is not a terminal (a pipe, a file, the guide, the tests).
inline constexpr int min_columns = 40;
inline constexpr int default_columns = 80;
/// The width lines are laid out at: the terminal's columns (a line of exactly that many
/// characters does not make a terminal add a line of its own: the cursor waits at the margin).
/// set_columns() sets it once, at start-up; columns_scope sets it for a while (the guide is always
/// generated at 80 columns).
int screen_width();
void set_columns(int columns);
class columns_scope {
 public:
  explicit columns_scope(int columns) : saved_(screen_width()) { set_columns(columns); }
  ~columns_scope() { set_columns(saved_); }
  columns_scope(const columns_scope&) = delete;
  columns_scope& operator=(const columns_scope&) = delete;
 private:
  int saved_;
};
/// The columns to lay out for when --width is not given: on a terminal, COLUMNS when it is a
/// positive number, else the terminal's size (TIOCGWINSZ), else default_columns; not on a
/// terminal, default_columns. Never less than min_columns.
int detect_columns(bool stdout_is_terminal);

/// A named set of values substituted into {name} placeholders.
using vars = std::map<std::string, std::string, std::less<>>;

struct question {
  int number = 0;                              ///< 1..16
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
  /// The guide's Markdown, embedded at build time (docs/guide/<code>.md).
  std::string_view guide_text() const;
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
std::string wrap(std::string_view text, int indent = 0, int width = screen_width(), int first_indent = -1);
/// Pads s with spaces on the right to `cols` display columns (no truncation).
std::string pad(std::string_view s, int cols);
/// Pads on the left (right-aligned numbers).
std::string lpad(std::string_view s, int cols);

/// A number as language l writes it. French: a decimal comma, the integer part in groups of three
/// digits separated by a narrow no-break space (U+202F) from five digits up to twelve (a longer
/// exact expansion stays in one piece, so that it can be copied), and a narrow no-break space
/// before "%": "36.67%" -> "36,67 %", "65504" -> "65 504", "1.0e-04" -> "1,0e-04". English, and text
/// that is not a plain decimal number ("2^-14", "inf", "fp16"), are returned as they are.
std::string localize_number(std::string_view s, const language& l);
/// Every value of v through localize_number.
vars localized(const vars& v, const language& l);

/// A table laid out at the screen's width: in aligned columns when they fit (each as wide as its
/// widest cell), otherwise stacked, one block per row: the row's key cells on a line, then one
/// "heading: value" line per other nonempty cell. Nothing is cut: every cell is shown whole.
struct table {
  table() = default;
  explicit table(std::vector<std::string> headings, std::vector<bool> right_aligned = {})
      : head(std::move(headings)), right(std::move(right_aligned)) {}
  std::vector<std::string> head;               ///< one heading per column
  std::vector<std::vector<std::string>> rows;  ///< each as many cells as head
  std::vector<bool> right;                     ///< right-aligned columns (numbers); absent: left
  /// Titles over runs of columns: {title, first column}; a run ends where the next begins or at
  /// the last column. Stacked, a cell's heading becomes "title, heading".
  std::vector<std::pair<std::string, std::size_t>> groups;
  int keys = 1;    ///< leading columns that name the row; stacked, an empty one repeats the row above
  int indent = 2;
  std::string colon = ":";  ///< stacked, between a heading and its value (French: no-break space, ':')
};
/// The table as text at `width` columns (see table). Throws std::invalid_argument when a row's
/// length differs from the heading's.
std::string render(const table& t, int width = screen_width());

/// What a demonstration shows, before layout: text (wrapped at the width), lines kept as they
/// are (code), and tables. render() lays it out at a width; json() gives it to scripts, each text
/// with its language key and the values filled into it, each table as columns and rows.
class page {
 public:
  /// A page in language l (its tables take the language's colon).
  explicit page(const language& l) : lang_(&l) {}
  /// The text of `key` in language l with `v` filled in, wrapped with these indents.
  page& say(const language& l, std::string_view key, const vars& v = {}, int indent = 0, int first_indent = -1);
  /// Text already made (an option letter and its text, say), wrapped with these indents;
  /// `values` are the numbers in it, for json().
  page& text(std::string s, int indent = 0, int first_indent = -1, vars values = {});
  /// Lines shown exactly as given (code); not wrapped.
  page& verbatim(std::string s);
  page& blank();
  page& add(table t);
  std::string render(int width = screen_width()) const;
  /// A JSON array: {"key": ..., "text": ..., "values": {...}} for say(), {"text": ...} for text(),
  /// {"code": ...} for verbatim(), {"blank": true}, {"table": {"columns": [...], "rows": [[...]]}}
  /// (a cell that is a JSON number is written as one, others as strings).
  std::string json() const;

 private:
  enum class kind { text, verbatim, blank, table };
  struct item {
    kind k;
    std::string s, key;
    vars values;
    int indent = 0, first_indent = -1;
    mpq::table t;
  };
  const language* lang_;
  std::vector<item> items_;
};

/// JSON string literal with escapes.
std::string json_string(std::string_view s);

}  // namespace mpq
