// mixed-precision-quiz: the 8 questions of the mixed-precision training quiz (and 8 more at
// --level hard), each answered by a live libfloat computation. This file parses the command line; runner.cpp has the screens,
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

/// The language of --help and of the messages before --lang is checked: --lang's value when it
/// names one, else the environment's.
const mpq::language& interface_language(int argc, char** argv) {
  std::string lang;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--lang" && i + 1 < argc) lang = argv[i + 1];
    else if (a.rfind("--lang=", 0) == 0) lang = std::string(a.substr(7));
  }
  if (const auto code = mpq::language_of_locale(lang); code && !lang.empty()) return *mpq::find_language(*code);
  return *mpq::find_language(mpq::language_from_environment());
}

}  // namespace

int main(int argc, char** argv) {
  const mpq::language& ui = interface_language(argc, argv);
  auto say = [&ui](std::string_view key, const mpq::vars& v = {}) { return ui.get(key, v); };
  CLI::App app{say("help.about"), "mixed-precision-quiz"};
  app.set_version_flag("--version", "mixed-precision-quiz " LIBFLOAT_VERSION " (libfloat)", say("help.version"));
  app.set_help_flag("-h,--help", say("help.help"));
  app.get_formatter()->column_width(28);
  app.get_formatter()->label("Usage", say("help.usage"));
  app.get_formatter()->label("OPTIONS", say("help.options"));

  std::string lang, color = "auto", answers, level_option = "medium";
  std::uint64_t seed = mpq::demo::default_seed;
  int question = 0;
  bool preview = false, reveal = false, no_demo = false, shuffle = false, json = false, no_pause = false;
  int width = 0;
  std::string guide_update, guide_check, guide_topic;

  app.add_option("--lang", lang, say("help.lang"))->type_name("LANG");
  app.add_flag("--preview", preview, say("help.preview"));
  app.add_flag("--reveal", reveal, say("help.reveal"));
  app.add_option("--answers", answers, say("help.answers"))->type_name("ABCD...");
  app.add_option("--level", level_option, say("help.level"))->type_name("LEVEL")->capture_default_str();
  app.add_option("--question", question, say("help.question"))->type_name("N");
  app.add_flag("--no-demo", no_demo, say("help.no_demo"));
  app.add_option("--seed", seed, say("help.seed"))->type_name("N")->capture_default_str();
  app.add_flag("--shuffle", shuffle, say("help.shuffle"));
  app.add_flag("--json", json, say("help.json"));
  app.add_flag("--no-pause", no_pause, say("help.no_pause"));
  app.add_option("--guide", guide_topic, say("help.guide_option"))->expected(0, 1)->type_name("[TOPIC]");
  app.add_option("--width", width, say("help.width"))->type_name("N");
  app.add_option("--color", color, say("help.color"))->type_name("WHEN")->capture_default_str();
  // Maintainers: rewrite or check the generated parts of docs/guide/<lang>.md.
  app.add_option("--guide-update", guide_update)->group("");
  app.add_option("--guide-check", guide_check)->group("");
  app.footer(say("help.footer"));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help, --version, and in English CLI11's own messages; in French the same facts in French
    // (the arguments it names are kept as typed).
    if (e.get_exit_code() == 0 || ui.code() == "en") return app.exit(e) == 0 ? 0 : exit_usage;
    const std::string what = e.what();
    const std::size_t colon = what.find(": ");
    const std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) return usage_error(say("err.unexpected", {{"args", detail}}));
    if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr) return usage_error(say("err.conversion", {{"what", detail}}));
    return usage_error(say("err.cli", {{"what", what}}));
  }

  if (!guide_update.empty()) return guide(guide_update, true);
  if (!guide_check.empty()) return guide(guide_check, false);

  mpq::run_options o;
  if (lang.empty()) lang = mpq::language_from_environment();
  const std::optional<std::string> code = mpq::language_of_locale(lang);
  o.lang = code ? mpq::find_language(*code) : nullptr;
  if (o.lang == nullptr)
    return usage_error(say("err.lang", {{"value", lang}, {"codes", mpq::language_codes()}}));
  if (app.count("--width") && width < mpq::min_columns)
    return usage_error(say("err.width", {{"value", std::to_string(width)}, {"min", std::to_string(mpq::min_columns)}}));
  if (color != "auto" && color != "always" && color != "never")
    return usage_error(say("err.color", {{"value", color}}));
  if (app.count("--question") && (question < 1 || question > mpq::question_count))
    return usage_error(
        say("err.question", {{"value", std::to_string(question)}, {"max", std::to_string(mpq::question_count)}}));
  if (level_option == "hard") o.level = mpq::level::hard;
  else if (level_option != "medium") return usage_error(say("err.level", {{"value", level_option}}));
  if (preview + reveal + (app.count("--answers") > 0) > 1)
    return usage_error(say("err.alternatives"));
  o.seed = seed;
  o.shuffle = shuffle;
  o.demos = !no_demo;
  o.json = json;
  o.only_question = app.count("--question") ? question : 0;
  if (app.count("--answers")) {
    const std::size_t expected = mpq::questions_asked(o).size();
    for (std::size_t i = 0; i < answers.size(); ++i)
      if (const int a = mpq::parse_answer(std::string_view(&answers[i], 1)); a < 0)
        return usage_error(say("err.answers_char",
                               {{"value", answers}, {"char", std::string(1, answers[i])}, {"pos", std::to_string(i + 1)}}));
    if (answers.size() != expected)
      return usage_error(say(answers.size() == 1 ? "err.answers_count_one" : "err.answers_count",
                             {{"value", answers}, {"count", std::to_string(answers.size())},
                              {"expected", std::to_string(expected)}}));
    o.answers = answers;
  }
  const bool tty_out = ::isatty(::fileno(stdout)) == 1;
  const char* no_color = std::getenv("NO_COLOR");
  const bool colour = color == "always" || (color == "auto" && tty_out && (no_color == nullptr || *no_color == '\0'));
  if (colour && !json) o.colors = mpq::palette::on();
  const bool tty_in = ::isatty(::fileno(stdin)) == 1;
  o.echo_answers = !tty_in;
  // Wait for Enter after each answer's feedback only when a person reads and types at a terminal.
  o.pause = !no_pause && tty_in && tty_out && !json && !o.answers;
  mpq::set_columns(app.count("--width") ? width : mpq::detect_columns(tty_out));
  if (app.count("--guide")) return mpq::run_guide(o, guide_topic);
  // --json on a terminal waits for answers like the quiz, but shows no questions: say so.
  if (json && tty_in && !o.answers && !preview && !reveal)
    std::fprintf(stderr, "mixed-precision-quiz: %s\n", o.lang->get("json_terminal").c_str());

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
