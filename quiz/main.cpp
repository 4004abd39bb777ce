// mixed-precision-quiz: the 8 questions of the mixed-precision training quiz, each answered by a
// live libfloat computation. This file parses the command line; runner.cpp has the screens,
// demos/ one demonstration per question, content/ the text in each language.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>
#include <unistd.h>

#include "demos/demos.hpp"
#include "runner.hpp"

namespace {

constexpr int exit_usage = 2;

int usage_error(const std::string& what) {
  std::fflush(stdout);
  std::fprintf(stderr, "mixed-precision-quiz: %s\n", what.c_str());
  return exit_usage;
}

/// --guide-update FILE / --guide-check FILE: the language is the file's stem (docs/guide/en.md).
int guide(const std::string& path, bool update) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return usage_error("cannot read '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string current = ss.str();
  std::string stem = path.substr(path.find_last_of('/') + 1);
  stem = stem.substr(0, stem.find('.'));
  const mpq::language* l = mpq::find_language(stem);
  if (l == nullptr) return usage_error("'" + path + "': the file name must be <lang>.md with lang one of " + mpq::language_codes());
  std::string fresh;
  try {
    fresh = mpq::regenerate_guide(current, *l);
  } catch (const std::exception& e) {
    return usage_error(path + ": " + e.what());
  }
  if (update) {
    if (fresh != current) {
      std::ofstream(path, std::ios::binary) << fresh;
      std::printf("%s: generated blocks updated\n", path.c_str());
    } else {
      std::printf("%s: up to date\n", path.c_str());
    }
    return 0;
  }
  if (fresh == current) {
    std::printf("%s: generated blocks match the library\n", path.c_str());
    return 0;
  }
  // Name the first differing line so the failure says where to look.
  std::istringstream a(current), b(fresh);
  std::string la, lb;
  int n = 0;
  while (true) {
    const bool ga = static_cast<bool>(std::getline(a, la)), gb = static_cast<bool>(std::getline(b, lb));
    ++n;
    if (!ga && !gb) break;
    if (!ga || !gb || la != lb) {
      std::printf("%s:%d differs from the generator:\n  committed: %s\n  generated: %s\n", path.c_str(), n,
                  ga ? la.c_str() : "(end of file)", gb ? lb.c_str() : "(end of file)");
      break;
    }
  }
  std::printf("run: mixed-precision-quiz --guide-update %s\n", path.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mixed-precision-quiz: the mixed-precision training quiz. After each answer,\n"
               "libfloat computes the reason live: numbers are computed, never typed in.",
               "mixed-precision-quiz"};
  app.set_version_flag("--version", "mixed-precision-quiz " LIBFLOAT_VERSION " (libfloat)");
  app.get_formatter()->column_width(28);

  std::string lang, color = "auto", answers;
  std::uint64_t seed = mpq::demo::default_seed;
  int question = 0;
  bool preview = false, reveal = false, no_demo = false, shuffle = false, json = false;
  std::string guide_update, guide_check;

  app.add_option("--lang", lang, "en, fr, a locale (fr_FR.UTF-8); default: the locale")->type_name("LANG");
  app.add_flag("--preview", preview, "List the questions and options, no answers");
  app.add_flag("--reveal", reveal, "Study mode: answers, explanations, demos");
  app.add_option("--answers", answers, "Answer without asking: A-D or 1-4 per question")
      ->type_name("ABCD...");
  app.add_option("--question", question, "Ask only question N (1-8)")->type_name("N");
  app.add_flag("--no-demo", no_demo, "Skip the live demonstrations");
  app.add_option("--seed", seed, "Seed of the demos' data and of --shuffle")->type_name("N")->capture_default_str();
  app.add_flag("--shuffle", shuffle, "Shuffle each question's options (seeded)");
  app.add_flag("--json", json, "Machine-readable output (JSON)");
  app.add_option("--color", color, "auto (a terminal, NO_COLOR unset), always, never")
      ->type_name("WHEN")
      ->capture_default_str();
  // Maintainers: rewrite or check the generated parts of docs/guide/<lang>.md.
  app.add_option("--guide-update", guide_update)->group("");
  app.add_option("--guide-check", guide_check)->group("");
  app.footer(
      "Examples:\n"
      "  mixed-precision-quiz                      # the quiz, interactive\n"
      "  mixed-precision-quiz --lang fr            # en français\n"
      "  mixed-precision-quiz --reveal --question 2    # study one answer and its demo\n"
      "  mixed-precision-quiz --answers ABCDABCD --no-demo --json\n"
      "  printf 'a\\nb\\n' | mixed-precision-quiz     # piped answers; q or end of input\n"
      "                                             # stops with the summary so far\n"
      "Answers: A-D or 1-4 in any case; an invalid entry asks again; q quits.\n"
      "Exit status: 0 normal; 1 the output could not be written (a full disk);\n"
      "2 bad usage (the message says what is accepted), or 20 invalid answers\n"
      "in a row from input that is not a terminal.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : exit_usage;
  }

  if (!guide_update.empty()) return guide(guide_update, true);
  if (!guide_check.empty()) return guide(guide_check, false);

  mpq::run_options o;
  if (lang.empty()) lang = mpq::language_from_environment();
  const std::optional<std::string> code = mpq::language_of_locale(lang);
  o.lang = code ? mpq::find_language(*code) : nullptr;
  if (o.lang == nullptr)
    return usage_error("--lang '" + lang + "' is not a language of the quiz (accepted: " + mpq::language_codes() +
                       ", or a locale name such as fr_FR.UTF-8 or en_GB)");
  if (color != "auto" && color != "always" && color != "never")
    return usage_error("--color '" + color + "' is not accepted (accepted: auto, always, never)");
  if (app.count("--question") && (question < 1 || question > mpq::question_count))
    return usage_error("--question " + std::to_string(question) + " is out of range (accepted: 1 to " +
                       std::to_string(mpq::question_count) + ")");
  if (preview + reveal + (app.count("--answers") > 0) > 1)
    return usage_error("--preview, --reveal and --answers are alternatives: give at most one");
  o.seed = seed;
  o.shuffle = shuffle;
  o.demos = !no_demo;
  o.json = json;
  o.only_question = app.count("--question") ? question : 0;
  if (app.count("--answers")) {
    const std::size_t expected = mpq::questions_asked(o).size();
    for (std::size_t i = 0; i < answers.size(); ++i)
      if (const int a = mpq::parse_answer(std::string_view(&answers[i], 1)); a < 0)
        return usage_error("--answers '" + answers + "': '" + std::string(1, answers[i]) + "' at position " +
                           std::to_string(i + 1) + " is not an answer (accepted: A-D or 1-4, any case)");
    if (answers.size() != expected)
      return usage_error("--answers '" + answers + "' has " + std::to_string(answers.size()) + " answers; " +
                         std::to_string(expected) + " expected (one per question asked, A-D or 1-4)");
    o.answers = answers;
  }
  const bool tty_out = ::isatty(::fileno(stdout)) == 1;
  const char* no_color = std::getenv("NO_COLOR");
  const bool colour = color == "always" || (color == "auto" && tty_out && (no_color == nullptr || *no_color == '\0'));
  if (colour && !json) o.colors = mpq::palette::on();
  o.echo_answers = ::isatty(::fileno(stdin)) != 1;

  try {
    const int rc = preview ? mpq::run_preview(o) : reveal ? mpq::run_reveal(o) : mpq::run_quiz(o, std::cin);
    // A full disk or a closed pipe (`--reveal > /dev/full`): say so and exit 1, not 0.
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      std::fprintf(stderr, "mixed-precision-quiz: %s\n",
                   o.lang->get("write_error", {{"reason", std::strerror(errno)}}).c_str());
      return 1;
    }
    return rc;
  } catch (const std::exception& e) {
    // A defect, not a usage error: the language tests check every string and placeholder.
    std::fflush(stdout);
    std::fprintf(stderr, "mixed-precision-quiz: internal error: %s\n", e.what());
    return 1;
  }
}
