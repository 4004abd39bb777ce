// The quiz text (quiz/content/<lang>.txt, embedded): both languages have the same structure (keys,
// placeholders, answers, guide sections), every placeholder has a value, the guide has every
// section the quiz links to, and the text helpers (answers, shuffle, wrapping) behave.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "demos/facts.hpp"
#include "runner.hpp"
#include "text.hpp"

using namespace mpq;

namespace {
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("both languages parse, with 8 questions of 4 options and the original quiz's answers") {
  const char* answers = "ABCDABCD";  // the original quiz: Q1 A, Q2 B, Q3 C, Q4 D, Q5 A, Q6 B, Q7 C, Q8 D
  for (const char* code : {"en", "fr"}) {
    CAPTURE(code);
    const language* l = find_language(code);
    REQUIRE(l != nullptr);
    REQUIRE(l->questions().size() == question_count);
    for (const question& q : l->questions()) {
      CAPTURE(q.number);
      CHECK(q.answer == answers[q.number - 1] - 'A');
      CHECK(!q.text.empty());
      CHECK(!q.explanation.empty());
      CHECK(!q.topic.empty());
      for (int i = 0; i < option_count; ++i) {
        CHECK(!q.options[static_cast<std::size_t>(i)].empty());
        CHECK(q.why[static_cast<std::size_t>(i)].empty() == (i == q.answer));  // one line per wrong option
      }
    }
  }
  CHECK(find_language("de") == nullptr);
  CHECK(language_codes() == "en, fr");
}

TEST_CASE("en and fr have the same keys, the same placeholders per key, the same answers and guide sections") {
  const language& en = *find_language("en");
  const language& fr = *find_language("fr");
  std::set<std::string> ken, kfr;
  for (const auto& [k, v] : en.strings()) ken.insert(k);
  for (const auto& [k, v] : fr.strings()) kfr.insert(k);
  CHECK(ken == kfr);
  for (const auto& [k, v] : en.strings()) {
    if (!fr.has(k)) continue;
    CAPTURE(k);
    CHECK(placeholders(v) == placeholders(fr.raw(k)));
    // Answers and guide anchors are data, not prose: identical in both.
    if (k.ends_with(".answer") || k.ends_with(".guide")) CHECK(v == fr.raw(k));
  }
  for (std::size_t i = 0; i < en.questions().size(); ++i) {
    CHECK(en.questions()[i].answer == fr.questions()[i].answer);
    CHECK(en.questions()[i].guide == fr.questions()[i].guide);
  }
}

TEST_CASE("the question text uses only placeholders that libfloat's facts fill") {
  for (const char* code : {"en", "fr"}) {
    const language& l = *find_language(code);
    for (const question& q : l.questions()) {
      CAPTURE(code);
      CAPTURE(q.number);
      std::vector<std::string> all{q.text, q.explanation};
      for (int i = 0; i < option_count; ++i) {
        all.push_back(q.options[static_cast<std::size_t>(i)]);
        all.push_back(q.why[static_cast<std::size_t>(i)]);
      }
      for (const std::string& s : all) CHECK_NOTHROW(substitute(s, demo::facts()));
    }
  }
}

TEST_CASE("the French text is French: entraînement, never the mistranslation 'formation'") {
  const language& fr = *find_language("fr");
  const std::regex formation("\\bformations?\\b", std::regex::icase);
  bool entrainement = false;
  for (const auto& [k, v] : fr.strings()) {
    CAPTURE(k);
    CHECK_FALSE(std::regex_search(v, formation));
    entrainement = entrainement || v.find("entraînement") != std::string::npos;
  }
  CHECK(entrainement);
  CHECK(fr.get("level") == "Niveau moyen");
  CHECK(find_language("en")->get("level") == "Medium");
  CHECK(fr.get("question_of", {{"n", "3"}, {"total", "8"}}) == "Question 3 sur 8");
  CHECK(find_language("en")->get("question_of", {{"n", "3"}, {"total", "8"}}) == "Question 3 of 8");
}

TEST_CASE("every guide section the quiz links to exists in that language's guide") {
  for (const char* code : {"en", "fr"}) {
    const language& l = *find_language(code);
    const std::string guide = read_file(std::string(LIBFLOAT_SOURCE_DIR) + "/" + l.guide_file());
    REQUIRE_MESSAGE(!guide.empty(), l.guide_file());
    for (const question& q : l.questions()) {
      CAPTURE(code);
      CAPTURE(q.guide);
      CHECK(guide.find("<a id=\"" + q.guide + "\"></a>") != std::string::npos);
    }
  }
}

TEST_CASE("answers: A-D or 1-4 in any case, q quits, anything else is invalid") {
  CHECK(parse_answer("A") == 0);
  CHECK(parse_answer("d") == 3);
  CHECK(parse_answer(" 2 ") == 1);
  CHECK(parse_answer("4\r") == 3);
  CHECK(parse_answer("q") == -2);
  CHECK(parse_answer("Q") == -2);
  CHECK(parse_answer("E") == -1);
  CHECK(parse_answer("5") == -1);
  CHECK(parse_answer("") == -1);
  CHECK(parse_answer("AB") == -1);
}

TEST_CASE("--shuffle: a seeded permutation of the options, the identity without it") {
  for (int n = 1; n <= question_count; ++n) {
    CHECK(option_order(7, n, false) == std::array<int, option_count>{0, 1, 2, 3});
    auto o = option_order(7, n, true);
    CHECK(o == option_order(7, n, true));  // reproducible
    std::sort(o.begin(), o.end());
    CHECK(o == std::array<int, option_count>{0, 1, 2, 3});
  }
  bool any_moved = false;
  for (int n = 1; n <= question_count; ++n) any_moved = any_moved || option_order(7, n, true) != option_order(7, n, false);
  CHECK(any_moved);
}

TEST_CASE("substitute: values, literal braces, line breaks, and an error naming a missing placeholder") {
  CHECK(substitute("a {x} b", {{"x", "1"}}) == "a 1 b");
  CHECK(substitute("{{x}}\\n", {}) == "{x}\n");
  CHECK_THROWS_WITH_AS(substitute("{nope}", {}), doctest::Contains("{nope}"), std::out_of_range);
  CHECK(placeholders("{b} {{c}} {a}") == std::vector<std::string>{"a", "b"});
}

TEST_CASE("wrap: 79 columns counted in characters, never breaking at a no-break space") {
  const std::string fr = "Quelle est la question\u00a0? " + std::string(200, 'x');
  const std::string w = wrap("mot " + fr + " fin", 2);
  std::istringstream in(w);
  std::string line;
  while (std::getline(in, line)) CHECK((display_width(line) <= screen_width || line.find(' ', 2) == std::string::npos));
  CHECK(w.find("question\u00a0?") != std::string::npos);
  CHECK(display_width("é\u00a0à") == 3);
  CHECK(wrap("a\\nb") == "a\\nb\n");  // wrap does not interpret escapes; substitute does
  CHECK(wrap("a\nb", 2) == "  a\n  b\n");
}

TEST_CASE("language from LC_ALL, LC_MESSAGES, LANG") {
  // Only checks the precedence rule through setenv on this process.
  ::setenv("LC_ALL", "", 1);
  ::setenv("LC_MESSAGES", "fr_FR.UTF-8", 1);
  ::setenv("LANG", "en_US.UTF-8", 1);
  CHECK(language_from_environment() == "fr");
  ::setenv("LC_ALL", "C", 1);
  CHECK(language_from_environment() == "en");
  ::unsetenv("LC_ALL");
  ::unsetenv("LC_MESSAGES");
  ::setenv("LANG", "fr_CA", 1);
  CHECK(language_from_environment() == "fr");
  ::unsetenv("LANG");
  CHECK(language_from_environment() == "en");
}

TEST_CASE("the guide generator: blocks and values are replaced, unknown names are errors") {
  const language& en = *find_language("en");
  const std::string in = "x <!--v:fp16_max-->old<!--/v--> y\n<!-- generated: q3 -->\nstale\n<!-- end generated -->\nend\n";
  const std::string out = regenerate_guide(in, en);
  CHECK(out.find("<!--v:fp16_max-->65504<!--/v-->") != std::string::npos);
  CHECK(out.find("stale") == std::string::npos);
  CHECK(out.find("```text\n") != std::string::npos);
  CHECK(out.ends_with("<!-- end generated -->\nend\n"));
  CHECK(regenerate_guide(out, en) == out);  // a fixed point
  CHECK_THROWS_WITH(regenerate_guide("<!--v:nope-->1<!--/v-->\n", en), doctest::Contains("nope"));
  CHECK_THROWS_WITH(regenerate_guide("<!-- generated: q9 -->\n<!-- end generated -->\n", en), doctest::Contains("q9"));
  CHECK_THROWS(regenerate_guide("<!-- generated: q1 -->\n", en));
}
