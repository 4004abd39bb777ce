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

TEST_CASE("both languages parse, with 16 questions of 4 options, the original quiz's answers and the hard level's") {
  // The original quiz: Q1 A, Q2 B, Q3 C, Q4 D, Q5 A, Q6 B, Q7 C, Q8 D; then the hard level, 9-16.
  const char* answers = "ABCDABCD" "BCACBCBA";
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

TEST_CASE("no French string is the English one, except terms French ML engineers keep in English") {
  // Each exception and why: format and recipe names (fp16, torch.amp fp16, apex O2 fp16, "fp16,
  // Kahan"); Python code (q6.demo.api*) and math (fp16(max g x S), Q K^T, u); words spelled the
  // same in French (normal, format, epsilon, gradients, total, accumulation, OPTIONS); jargon kept
  // in English (underflow, overflow, NaN, torch.amp, Autocast). Anything else identical is a string left untranslated.
  const std::set<std::string> kept{
      "help.options",   "q1.demo.bf16",   "q1.demo.fp16",        "q2.demo.normal", "q3.demo.epsilon",
      "q3.demo.format", "q3.demo.overflow", "q3.demo.underflow", "q5.demo.amp",    "q5.demo.c.gradients",
      "q5.demo.fp32",   "q5.demo.o2",     "q5.demo.total",       "q6.demo.api1",   "q6.demo.api2",
      "q6.demo.api3",   "q6.demo.api4",   "q6.demo.api5",        "q6.demo.api7",   "q6.demo.api8",
      "q6.demo.largest", "q6.topic",      "q7.demo.format",      "q8.demo.nan",    "q8.demo.role.scores",
      "q8.topic",       "try.format",     "try.q1.update",       "try.q2.normal",  "try.q2.overflow",
      "try.q4.bf16",    "try.q4.fp16",    "try.q4.fp32",         "try.q4.kahan",   "try.q4.model",
      // The hard level: Transformer Engine's recipe names and its variable (scale), Python code,
      // format names, a PyTorch argument, the word accumulation.
      "q11.demo.group.current", "q11.demo.group.delayed", "q11.demo.head.scale", "try.q11.product",
      "q12.demo.code1", "q12.demo.code2", "q12.demo.code3", "q12.demo.code4", "q12.demo.code6",
      "q14.demo.fp32", "q14.demo.kahan", "q14.demo.model", "q14.demo.plain", "q15.demo.interval",
      "q16.demo.recipe.mxfp8", "q16.demo.recipe.nvfp4"};
  const language& en = *find_language("en");
  const language& fr = *find_language("fr");
  std::set<std::string> same;
  for (const auto& [k, v] : en.strings())
    if (fr.has(k) && fr.raw(k) == v && !k.ends_with(".guide") && !k.ends_with(".answer")) same.insert(k);
  CHECK(same == kept);
  // French typography: a no-break space (U+00A0), never an ordinary one, before ; : ? ! in prose.
  for (const auto& [k, v] : fr.strings()) {
    if (k.rfind("q6.demo.api", 0) == 0) continue;  // Python code
    CAPTURE(k);
    for (const char* p : {" ;", " :", " ?", " !"}) CHECK(v.find(p) == std::string::npos);
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
  CHECK(fr.get("level.medium") == "Niveau moyen");
  CHECK(find_language("en")->get("level.medium") == "Medium");
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

TEST_CASE("wrap: the screen width counted in characters, never breaking at a no-break space") {
  const std::string fr = "Quelle est la question\u00a0? " + std::string(200, 'x');
  const std::string w = wrap("mot " + fr + " fin", 2);
  std::istringstream in(w);
  std::string line;
  while (std::getline(in, line)) CHECK((display_width(line) <= screen_width() || line.find(' ', 2) == std::string::npos));
  CHECK(w.find("question\u00a0?") != std::string::npos);
  CHECK(display_width("é\u00a0à") == 3);
  CHECK(wrap("a\\nb") == "a\\nb\n");  // wrap does not interpret escapes; substitute does
  CHECK(wrap("a\nb", 2) == "  a\n  b\n");
}

TEST_CASE("tables: in columns when they fit, stacked otherwise, nothing cut") {
  table t({"name", "value", "note"}, {false, true, false});
  t.rows = {{"one", "1", "first"}, {"", "22", ""}};
  t.keys = 1;
  // In columns: each as wide as its widest cell, two spaces apart; right-aligned numbers; no
  // trailing spaces.
  CHECK(render(t, 40) == "  name  value  note\n  one       1  first\n           22\n");
  // 18 columns: one space between columns fits exactly (2 + 4 + 1 + 5 + 1 + 5).
  CHECK(render(t, 18) == "  name value note\n  one      1 first\n          22\n");
  // 17: one block per row, the key repeated from the row above when empty, empty cells left out.
  CHECK(render(t, 17) == "  one\n    value: 1\n    note: first\n  one\n    value: 22\n");
  t.colon = "\u00a0:";
  CHECK(render(t, 17).find("    value\u00a0: 1\n") != std::string::npos);
  // Groups: a title over a run of columns, one more space where a group starts; stacked, a
  // group's cells share a line.
  table g({"k", "a", "b", "a", "b"}, {false, true, true, true, true});
  g.groups = {{"at 1", 1}, {"at 2", 3}};
  g.rows = {{"x", "1", "2", "3", "4"}};
  CHECK(render(g, 40) == "      at 1   at 2\n  k   a  b   a  b\n  x   1  2   3  4\n");
  table h({"key", "alpha", "beta", "alpha", "beta"});
  h.groups = {{"at 1", 1}, {"at 2", 3}};
  h.rows = {{"x", "1", "2", "3", "4"}};
  CHECK(render(h, 29) == "       at 1        at 2\n  key  alpha beta  alpha beta\n  x    1     2     3     4\n");
  CHECK(render(h, 28) == "  x\n    at 1: alpha\u00a01, beta\u00a02\n    at 2: alpha\u00a03, beta\u00a04\n");
  // A long cell is never cut: stacked, it wraps between words.
  table w({"k", "text"});
  w.rows = {{"r", "a long cell that needs two lines"}};
  const std::string s = render(w, 24);
  CHECK(s == "  r\n    text: a long cell\n      that needs two\n      lines\n");
  table bad({"a", "b"});
  bad.rows = {{"only one"}};
  CHECK_THROWS_AS(render(bad, 40), std::invalid_argument);
}

TEST_CASE("page::json: text with its key and values (numbers as JSON numbers), code, tables") {
  const language& en = *find_language("en");
  page p(en);
  p.say(en, "score", {{"score", "3"}, {"asked", "4"}});
  table t({"x", "y"});
  t.rows = {{"1.5e-3", "2^-14"}, {"-0", "36.67%"}};
  p.verbatim("code()").blank().add(t);
  CHECK(p.json() ==
        "[{\"key\": \"score\", \"text\": \"Score: 3/4\", \"values\": {\"asked\": 4, \"score\": 3}}, "
        "{\"code\": \"code()\"}, {\"blank\": true}, "
        "{\"table\": {\"columns\": [\"x\", \"y\"], \"rows\": [[1.5e-3, \"2^-14\"], [-0, \"36.67%\"]]}}]");
  // Strings that only look like numbers stay strings: JSON has no leading zeros, "+", "inf" or "1.".
  page q(en);
  table u({"v"});
  u.rows = {{"01"}, {"+1"}, {"inf"}, {"1."}, {".5"}, {"1e"}};
  q.add(u);
  CHECK(q.json().find("[[\"01\"], [\"+1\"], [\"inf\"], [\"1.\"], [\".5\"], [\"1e\"]]") != std::string::npos);
}

TEST_CASE("numbers in French: decimal comma, digits grouped by a narrow no-break space, a space before %") {
  const language& fr = *find_language("fr");
  const language& en = *find_language("en");
  const std::string thin = "\u202f";
  CHECK(localize_number("36.67%", fr) == "36,67" + thin + "%");
  CHECK(localize_number("65504", fr) == "65" + thin + "504");
  CHECK(localize_number("1000000000", fr) == "1" + thin + "000" + thin + "000" + thin + "000");
  CHECK(localize_number("2048", fr) == "2048");  // four digits stay together
  CHECK(localize_number("-7.0e-02", fr) == "-7,0e-02");
  CHECK(localize_number("+1.4e-07", fr) == "+1,4e-07");
  CHECK(localize_number("100.0213623046875", fr) == "100,0213623046875");
  CHECK(localize_number("300405527047390987276260395623357874176", fr) == "300405527047390987276260395623357874176");
  for (const char* kept : {"2^-14", "inf", "NaN", "fp16", "1.", ".5", "1e", "4 B (fp32)", "-", ""})
    CHECK(localize_number(kept, fr) == kept);
  CHECK(localize_number("36.67%", en) == "36.67%");
  CHECK(localized({{"a", "0.5"}, {"b", "x"}}, fr) == vars{{"a", "0,5"}, {"b", "x"}});
}

TEST_CASE("the screen width: at least 40 columns; a scope restores it") {
  const int before = screen_width();
  {
    const columns_scope narrow(20);
    CHECK(screen_width() == min_columns);
    const columns_scope wide(132);
    CHECK(screen_width() == 132);
  }
  CHECK(screen_width() == before);
  CHECK(detect_columns(false) == default_columns);  // not a terminal: 80, whatever COLUMNS says
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
  CHECK_THROWS_WITH(regenerate_guide("<!-- generated: q17 -->\n<!-- end generated -->\n", en), doctest::Contains("q17"));
  CHECK_THROWS(regenerate_guide("<!-- generated: q1 -->\n", en));
}
