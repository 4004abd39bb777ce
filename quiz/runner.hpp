// quiz/runner.hpp: the quiz's screens (ask, preview, reveal, summary, JSON) and the guide
// generator. main.cpp parses the command line into run_options and calls these.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "text.hpp"

namespace mpq {

/// ANSI styles, empty when colour is off.
struct palette {
  std::string bold, green, red, dim, cyan, reset;
  static palette on() { return {"\x1b[1m", "\x1b[32m", "\x1b[31m", "\x1b[2m", "\x1b[36m", "\x1b[0m"}; }
};

struct run_options {
  const language* lang = nullptr;
  std::uint64_t seed = 0;
  bool shuffle = false;
  bool demos = true;
  bool json = false;
  mpq::level level = mpq::level::medium;  ///< --level: the questions asked when --question is not given
  int only_question = 0;                  ///< 0: every question of the level
  std::optional<std::string> answers;     ///< --answers, validated: one of A-D/1-4 per question asked
  palette colors;
  bool echo_answers = false;              ///< stdin is not a terminal: show what was read after the prompt
  bool pause = false;                     ///< wait for Enter after each answer's feedback (a terminal)
};

/// The option order shown for question n: shown[i] is the original index of the option displayed
/// as letter i. Identity unless shuffle; otherwise a permutation drawn from std::mt19937_64(seed
/// + n) by a Fisher-Yates shuffle written out here (std::shuffle's algorithm is unspecified).
std::array<int, option_count> option_order(std::uint64_t seed, int n, bool shuffle);

/// Reads one answer: "A"-"D" or "1"-"4" in any case, surrounding spaces ignored -> 0..3;
/// "q"/"Q" (or "quit") -> -2; anything else -> -1.
int parse_answer(std::string_view s);

/// The questions asked, in order (the level's, or the one of --question).
std::vector<int> questions_asked(const run_options& o);

/// Invalid answers in a row after which a quiz reading input that is not a terminal stops (exit 2).
inline constexpr int max_invalid_in_a_row = 20;

/// The interactive (or piped) quiz. Returns the process exit code: 0, or 2 when input that is not
/// a terminal gave max_invalid_in_a_row invalid answers in a row.
int run_quiz(const run_options& o, std::istream& in);
/// --preview: every question and its options, no answers.
int run_preview(const run_options& o);
/// --reveal: every question with its answer, explanation, guide link and demo.
int run_reveal(const run_options& o);

/// The sections of the guide, in order: each section's name (its anchor, e.g. "master-weights").
std::vector<std::string> guide_sections(const language& l);
/// --guide [topic]: the guide in the quiz's language, laid out at the screen width (paragraphs
/// rewrapped, Markdown marks dropped, each generated block recomputed at that width): the section
/// of `topic` (a question number 1-16 or a section name), or all of it when topic is empty.
/// Returns 0, or 2 after a message on stderr naming the accepted topics.
int run_guide(const run_options& o, std::string_view topic);

/// The guide's generated parts for language l (docs/guide/<l>.md): the text of `guide` with each
/// <!-- generated: qN --> ... <!-- end generated --> block holding demo N's output (without
/// live measurements) and each <!--v:name-->...<!--/v--> holding the value of a named fact.
/// Throws std::runtime_error naming an unknown block, value or an unclosed marker.
std::string regenerate_guide(const std::string& guide, const language& l);


}  // namespace mpq
