// quiz/runner.cpp: the quiz's screens and the guide generator (see runner.hpp).
#include "runner.hpp"

#include <iostream>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "demos/demos.hpp"
#include "demos/facts.hpp"
#include "tryit.hpp"

namespace mpq {

namespace {

/// A quiz string with the library's numbers filled in.
std::string fill(const std::string& s, const language& l) { return substitute(s, localized(demo::facts(), l)); }

char letter(int i) { return static_cast<char>('A' + i); }

/// A prompt: styled() without its last line break, the cursor left after a space.
std::string prompt(const std::string& style, const std::string& reset, const std::string& text);

/// A line of text in a style, wrapped to the screen (the escape sequences go around each line:
/// they take no columns).
std::string styled(const std::string& style, const std::string& reset, const std::string& text) {
  const std::string w = wrap(text);
  if (style.empty()) return w;
  std::string out;
  std::size_t start = 0;
  while (start < w.size()) {
    const std::size_t nl = w.find('\n', start);
    out += style + w.substr(start, nl - start) + reset + '\n';
    start = nl + 1;
  }
  return out;
}

std::string prompt(const std::string& style, const std::string& reset, const std::string& text) {
  std::string p = styled(style, reset, text);
  p.pop_back();
  return p + ' ';
}

/// Where to read more about q: the command that prints its guide section, then the guide file's
/// address when it fits on a line of its own at this indent (a path is never split).
std::string guide_ref(const language& l, const question& q, int indent) {
  std::string s = "mixed-precision-quiz --guide " + std::to_string(q.number);
  const std::string link = l.guide_link(q);
  if (indent + display_width(link) <= screen_width()) s += " · " + link;
  return s;
}

void put(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
}

/// The questions of the quiz being taken: 8 at the medium level, 16 at the hard level (questions are
/// numbered through both levels, so --question 12 and --guide 12 name the same one).
int total_of(const run_options& o) { return level_last(o.only_question != 0 ? level_of(o.only_question) : o.level); }
std::string total_str(const run_options& o) { return std::to_string(total_of(o)); }
/// The level's name in the language ("Medium", "Hard").
std::string level_text(const run_options& o) {
  const level v = o.only_question != 0 ? level_of(o.only_question) : o.level;
  return o.lang->get(std::string("level.") + level_name(v));
}

std::string header(const run_options& o) {
  const language& l = *o.lang;
  std::string out = styled(o.colors.bold, o.colors.reset, l.get("title") + " · " + level_text(o));
  const level v = o.only_question != 0 ? level_of(o.only_question) : o.level;
  out += wrap(fill(l.raw(v == level::hard ? "intro_hard" : "intro"), l));
  out += wrap(l.get("guide_intro", {{"file", l.guide_file()}}));
  if (o.shuffle) out += wrap(l.get("shuffled", {{"seed", std::to_string(o.seed)}}));
  return out + '\n';
}

std::string question_block(const run_options& o, const question& q, const std::array<int, option_count>& order) {
  const language& l = *o.lang;
  // (wrapped before the colours go in: escape sequences take no columns)
  std::string out = o.colors.bold + o.colors.cyan;
  out += wrap(l.get("question_of", {{"n", std::to_string(q.number)}, {"total", total_str(o)}}) + " · " + q.topic, 0,
              screen_width(), 0);
  out.insert(out.size() - 1, o.colors.reset);
  out += wrap(fill(q.text, l));
  for (int i = 0; i < option_count; ++i)
    out += wrap(std::string(1, letter(i)) + ") " + fill(q.options[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])], l),
                5, screen_width(), 2);
  return out;
}

/// The explanation: why the answer is right, then one line per wrong option, then the guide link.
std::string explanation_block(const run_options& o, const question& q, const std::array<int, option_count>& order) {
  const language& l = *o.lang;
  std::string out = wrap(fill(q.explanation, l));
  out += wrap(l.get("why_not"));
  for (int i = 0; i < option_count; ++i) {
    const int orig = order[static_cast<std::size_t>(i)];
    if (orig == q.answer) continue;
    out += wrap(std::string(1, letter(i)) + ") " + fill(q.why[static_cast<std::size_t>(orig)], l), 5, screen_width(), 2);
  }
  out += o.colors.dim + wrap(l.get("guide_link", {{"link", guide_ref(l, q, 0)}})) + o.colors.reset;
  return out;
}

std::string demo_block(const run_options& o, const question& q) {
  const language& l = *o.lang;
  std::string out = styled(o.colors.bold, o.colors.reset, l.get("demo_heading"));
  return out + demo::show(q.number, l, o.seed, true);
}

int displayed_answer(const question& q, const std::array<int, option_count>& order) {
  for (int i = 0; i < option_count; ++i)
    if (order[static_cast<std::size_t>(i)] == q.answer) return i;
  return -1;
}

}  // namespace

std::array<int, option_count> option_order(std::uint64_t seed, int n, bool shuffle) {
  std::array<int, option_count> order{0, 1, 2, 3};
  if (!shuffle) return order;
  std::mt19937_64 gen(seed + static_cast<std::uint64_t>(n));
  for (int i = option_count - 1; i > 0; --i) {
    const int j = static_cast<int>(gen() % static_cast<std::uint64_t>(i + 1));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  }
  return order;
}

int parse_answer(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  if (s == "q" || s == "Q" || s == "quit") return -2;
  if (s.size() != 1) return -1;
  const char c = s[0];
  if (c >= 'A' && c <= 'D') return c - 'A';
  if (c >= 'a' && c <= 'd') return c - 'a';
  if (c >= '1' && c <= '4') return c - '1';
  return -1;
}

std::vector<int> questions_asked(const run_options& o) {
  if (o.only_question != 0) return {o.only_question};
  std::vector<int> all;
  for (int n = level_first(o.level); n <= level_last(o.level); ++n) all.push_back(n);
  return all;
}

namespace {
std::string trim_lower(std::string_view s) {
  std::string out;
  for (const char c : s)
    if (c != ' ' && c != '\t' && c != '\r') out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

/// "Try it yourself" after question n's demo: the learner's values, the library's results, until
/// an empty line. Returns false at the end of input (the quiz then stops with its summary).
bool try_yourself(const run_options& o, int n, std::istream& in) {
  const language& l = *o.lang;
  put('\n' + wrap(l.get("try.q" + std::to_string(n) + ".intro")));
  while (true) {
    put(prompt(o.colors.bold, o.colors.reset, l.get("try.prompt")));
    std::fflush(stdout);
    std::string line;
    if (!std::getline(in, line)) return false;
    if (trim_lower(line).empty()) {
      put("\n");
      return true;
    }
    const try_outcome r = try_it(n, l, line);
    if (r.ok) put(r.result->render());
    else put(styled(o.colors.red, o.colors.reset, r.error));
  }
}

/// After max_invalid_in_a_row invalid answers from input that is not a terminal: the message on
/// stderr and exit 2.
int give_up(const language& l) {
  std::fflush(stdout);
  std::fprintf(stderr, "mixed-precision-quiz: %s\n",
               l.get("too_many_invalid", {{"count", std::to_string(max_invalid_in_a_row)}}).c_str());
  return 2;
}
}  // namespace

int run_quiz(const run_options& o, std::istream& in) {
  const language& l = *o.lang;
  struct record {
    int number, given, answer;
    bool correct;
  };
  std::vector<record> results;
  const std::vector<int> asked = questions_asked(o);
  if (!o.json) put(header(o));
  bool quit = false, gave_up = false;
  int invalid_in_a_row = 0;
  std::size_t next_scripted = 0;
  for (const int n : asked) {
    const question& q = l.questions()[static_cast<std::size_t>(n - 1)];
    const auto order = option_order(o.seed, n, o.shuffle);
    if (!o.json) put(question_block(o, q, order));
    int given = -1;
    while (given < 0) {
      std::string line;
      if (!o.json) {
        put(prompt(o.colors.bold, o.colors.reset, l.get("prompt")));
        std::fflush(stdout);
      }
      if (o.answers) {
        line = std::string(1, (*o.answers)[next_scripted++]);
      } else if (!std::getline(in, line)) {
        if (!o.json) put("\n");
        quit = true;
        break;
      }
      if (!o.json && (o.answers || o.echo_answers)) put(line + "\n");
      given = parse_answer(line);
      if (given == -2) {
        quit = true;
        break;
      }
      if (given != -1) break;
      if (!o.json) put(styled(o.colors.red, o.colors.reset, l.get("invalid")));
      // Input that is not a terminal cannot be corrected by a person: a run of invalid answers
      // (`yes x | mixed-precision-quiz`) stops the quiz instead of looping for ever.
      if (o.echo_answers && ++invalid_in_a_row >= max_invalid_in_a_row) {
        gave_up = quit = true;
        break;
      }
    }
    if (quit) break;
    invalid_in_a_row = 0;
    const int right = displayed_answer(q, order);
    const bool correct = given == right;
    results.push_back({n, given, right, correct});
    if (o.json) continue;
    put(correct ? styled(o.colors.green, o.colors.reset, l.get("correct"))
                : styled(o.colors.red, o.colors.reset, l.get("wrong", {{"answer", std::string(1, letter(right))}})));
    put(explanation_block(o, q, order));
    if (o.demos) put('\n' + demo_block(o, q));
    put("\n");
    // On a terminal, the feedback stays on screen until the learner asks for the next question;
    // t there lets them try the demo's computation on their own values first.
    const bool last = n == asked.back();
    const bool can_try = o.demos && has_try(n);
    if (o.pause && (!last || can_try)) {
      bool stop = false;
      while (true) {
        put(prompt(o.colors.dim, o.colors.reset, l.get(can_try ? (last ? "pause_try_last" : "pause_try") : "pause")));
        std::fflush(stdout);
        std::string line;
        if (!std::getline(in, line) || parse_answer(line) == -2) {
          stop = true;
          break;
        }
        if (!can_try || trim_lower(line) != "t") break;
        if (!try_yourself(o, n, in)) {
          stop = true;
          break;
        }
      }
      if (stop) break;
      put("\n");
    }
  }

  int score = 0;
  for (const record& r : results) score += r.correct ? 1 : 0;
  const bool complete = results.size() == asked.size();
  if (o.json) {
    std::string j = fmt::format("{{\"lang\": {}, \"level\": \"{}\", \"seed\": {}, \"shuffle\": {}, \"total\": {}, \"asked\": {}, "
                                "\"answered\": {}, \"score\": {}, \"complete\": {}, \"questions\": [",
                                json_string(l.code()), level_name(o.only_question != 0 ? level_of(o.only_question) : o.level), o.seed, o.shuffle, total_of(o), asked.size(), results.size(),
                                score, complete);
    std::string missed;
    for (std::size_t i = 0; i < results.size(); ++i) {
      const record& r = results[i];
      const question& q = l.questions()[static_cast<std::size_t>(r.number - 1)];
      j += fmt::format("{}{{\"number\": {}, \"topic\": {}, \"given\": \"{}\", \"answer\": \"{}\", \"correct\": {}, "
                       "\"guide\": {}}}",
                       i ? ", " : "", r.number, json_string(q.topic), letter(r.given), letter(r.answer), r.correct,
                       json_string(l.guide_link(q)));
      if (!r.correct) missed += (missed.empty() ? "" : ", ") + std::to_string(r.number);
    }
    put(j + "], \"missed\": [" + missed + "]}\n");
    return gave_up ? give_up(l) : 0;
  }
  std::string s = styled(o.colors.bold, o.colors.reset, l.get("summary_title"));
  std::string score_line = l.get("score", {{"score", std::to_string(score)}, {"asked", std::to_string(results.size())}});
  // (only after at least one answer: then total > answered >= 1, so "questions" is a plural)
  if (!complete && !results.empty())
    score_line +=
        ' ' + l.get("partial", {{"answered", std::to_string(results.size())}, {"total", std::to_string(asked.size())}});
  s += wrap(score_line);
  std::string missed;
  for (const record& r : results) {
    if (r.correct) continue;
    const question& q = l.questions()[static_cast<std::size_t>(r.number - 1)];
    missed += wrap(l.get("missed_line", {{"n", std::to_string(r.number)}, {"topic", q.topic}, {"link", guide_ref(l, q, 6)}}), 6,
                   screen_width(), 2);
  }
  if (results.empty()) s += wrap(l.get("none_answered"));
  else if (missed.empty()) s += wrap(l.get(complete ? "perfect" : "perfect_partial"));
  else s += wrap(l.get("missed")) + missed;
  put(s);
  return gave_up ? give_up(l) : 0;
}

int run_preview(const run_options& o) {
  const language& l = *o.lang;
  if (o.json) {
    std::string j = fmt::format("{{\"lang\": {}, \"title\": {}, \"level\": {}, \"questions\": [", json_string(l.code()),
                                json_string(l.get("title")), json_string(level_text(o)));
    bool first = true;
    for (const int n : questions_asked(o)) {
      const question& q = l.questions()[static_cast<std::size_t>(n - 1)];
      const auto order = option_order(o.seed, n, o.shuffle);
      std::string opts;
      for (int i = 0; i < option_count; ++i)
        opts += (i ? ", " : "") + json_string(fill(q.options[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])], l));
      j += fmt::format("{}{{\"number\": {}, \"topic\": {}, \"text\": {}, \"options\": [{}], \"guide\": {}}}", first ? "" : ", ",
                       n, json_string(q.topic), json_string(fill(q.text, l)), opts, json_string(l.guide_link(q)));
      first = false;
    }
    put(j + "]}\n");
    return 0;
  }
  put(header(o));
  put(wrap(l.get("preview_note", {{"total", std::to_string(questions_asked(o).size())}})) + '\n');
  for (const int n : questions_asked(o)) {
    const question& q = l.questions()[static_cast<std::size_t>(n - 1)];
    put(question_block(o, q, option_order(o.seed, n, o.shuffle)) + '\n');
  }
  return 0;
}

int run_reveal(const run_options& o) {
  const language& l = *o.lang;
  if (o.json) {
    std::string j = fmt::format("{{\"lang\": {}, \"title\": {}, \"level\": {}, \"seed\": {}, \"questions\": [",
                                json_string(l.code()), json_string(l.get("title")), json_string(level_text(o)), o.seed);
    bool first = true;
    for (const int n : questions_asked(o)) {
      const question& q = l.questions()[static_cast<std::size_t>(n - 1)];
      const auto order = option_order(o.seed, n, o.shuffle);
      std::string opts, why;
      for (int i = 0; i < option_count; ++i) {
        const int orig = order[static_cast<std::size_t>(i)];
        opts += (i ? ", " : "") + json_string(fill(q.options[static_cast<std::size_t>(orig)], l));
        if (orig != q.answer)
          why += (why.empty() ? "" : ", ") + fmt::format("\"{}\": {}", letter(i), json_string(fill(q.why[static_cast<std::size_t>(orig)], l)));
      }
      j += fmt::format("{}{{\"number\": {}, \"topic\": {}, \"text\": {}, \"options\": [{}], \"answer\": \"{}\", "
                       "\"explanation\": {}, \"why_not\": {{{}}}, \"guide\": {}",
                       first ? "" : ", ", n, json_string(q.topic), json_string(fill(q.text, l)), opts,
                       letter(displayed_answer(q, order)), json_string(fill(q.explanation, l)), why,
                       json_string(l.guide_link(q)));
      if (o.demos) j += ", \"demo\": " + demo::show_page(n, l, o.seed, true).json();
      j += "}";
      first = false;
    }
    put(j + "]}\n");
    return 0;
  }
  put(header(o));
  for (const int n : questions_asked(o)) {
    const question& q = l.questions()[static_cast<std::size_t>(n - 1)];
    const auto order = option_order(o.seed, n, o.shuffle);
    put(question_block(o, q, order));
    put(styled(o.colors.green, o.colors.reset,
               l.get("answer_is", {{"answer", std::string(1, letter(displayed_answer(q, order)))}})));
    put(explanation_block(o, q, order));
    if (o.demos) put('\n' + demo_block(o, q));
    put("\n");
  }
  return 0;
}

namespace {

constexpr std::string_view anchor_open = "<a id=\"";

}  // namespace

/// The text of a guide's generated block from its marker line (<!-- generated: ... -->): a demo or
/// a "try it" session. nullopt for an unknown block when line_no is 0 (--guide skips it); with a
/// line number, an unknown block throws std::runtime_error naming it (--guide-check, --guide-update).
std::optional<std::string> generated_block(const std::string& marker, const language& l, int line_no);

namespace {

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    out.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

/// One line of Markdown prose as text: computed values filled in, links as their text (with the
/// address when it is not an anchor of the page), ** and ` dropped.
std::string plain(const std::string& line, const language& l) {
  std::string s;
  for (std::size_t i = 0; i < line.size();) {
    if (line.compare(i, 6, "<!--v:") == 0) {  // <!--v:name-->committed<!--/v--> -> the value now
      const std::size_t close = line.find("-->", i), stop = line.find("<!--/v-->", i);
      if (close != std::string::npos && stop != std::string::npos) {
        const auto it = demo::facts().find(line.substr(i + 6, close - i - 6));
        s += it != demo::facts().end() ? localize_number(it->second, l) : line.substr(close + 3, stop - close - 3);
        i = stop + 9;
        continue;
      }
    }
    if (line[i] == '[') {  // [text](target)
      const std::size_t mid = line.find("](", i), end = mid == std::string::npos ? mid : line.find(')', mid);
      if (mid != std::string::npos && end != std::string::npos && line.find('[', i + 1) > mid) {
        const std::string target = line.substr(mid + 2, end - mid - 2);
        s += plain(line.substr(i + 1, mid - i - 1), l);
        if (!target.empty() && target[0] != '#') s += " (" + target + ")";
        i = end + 1;
        continue;
      }
    }
    if (line.compare(i, 2, "**") == 0) {
      i += 2;
      continue;
    }
    if (line[i] != '`') s += line[i];
    ++i;
  }
  return s;
}

/// The guide's lines from `first` to `last` (exclusive) laid out at the screen width.
std::string render_guide(const run_options& o, const std::vector<std::string>& g, std::size_t first, std::size_t last) {
  const language& l = *o.lang;
  std::string out, para;
  int para_indent = 0, para_first = 0;
  auto flush = [&] {
    if (!para.empty()) out += wrap(para, para_indent, screen_width(), para_first);
    para.clear();
  };
  for (std::size_t i = first; i < last; ++i) {
    const std::string& line = g[i];
    if (line.rfind("<!-- generated: ", 0) == 0) {  // the demo, computed now at this width
      flush();
      while (i + 1 < last && g[i + 1] != "<!-- end generated -->") ++i;
      ++i;
      out += generated_block(line, l, 0).value_or("");
      continue;
    }
    if (line.rfind("```", 0) == 0) {  // code: as it is
      flush();
      while (++i < last && g[i].rfind("```", 0) != 0) out += "  " + g[i] + '\n';
      continue;
    }
    // Anchors and comment lines are not shown; a line that starts with a value (<!--v:name-->) is text.
    if (line.rfind(anchor_open, 0) == 0 || (line.rfind("<!--", 0) == 0 && line.rfind("<!--v:", 0) != 0)) continue;
    if (line.empty()) {
      flush();
      if (!out.empty() && !out.ends_with("\n\n")) out += '\n';
      continue;
    }
    if (line[0] == '#') {
      flush();
      const std::size_t text = line.find_first_not_of("# ");
      // (wrapped like any text: a heading wider than the screen is broken between words)
      out += styled(o.colors.bold, o.colors.reset, plain(line.substr(text == std::string::npos ? line.size() : text), l));
      continue;
    }
    if (line[0] == '|') {  // a table row: as it is
      flush();
      out += plain(line, l) + '\n';
      continue;
    }
    if (line.rfind("- ", 0) == 0) {  // a list item: a hanging indent
      flush();
      para = plain(line.substr(2), l);
      para_first = 0;
      para_indent = 2;
      para = "- " + para;
      continue;
    }
    if (para.empty()) {
      para_first = para_indent = 0;
      para = plain(line, l);
    } else {
      para += ' ' + plain(line.substr(line.find_first_not_of(' ')), l);
    }
  }
  flush();
  return out;
}

}  // namespace

std::optional<std::string> generated_block(const std::string& marker, const language& l, int line_no) {
  const std::string begin = "<!-- generated: ";
  const std::size_t close = marker.find(" -->");
  const std::string spec = marker.substr(begin.size(), close == std::string::npos ? std::string::npos : close - begin.size());
  if (spec.size() >= 2 && spec[0] == 'q')
    if (const auto n = question_number(std::string_view(spec).substr(1))) return demo::show(*n, l, demo::default_seed, false);
  const std::size_t try_end = spec.find(' ', 4);  // "try N VALUES | VALUES"
  const auto try_n = spec.rfind("try ", 0) == 0
                         ? question_number(std::string_view(spec).substr(4, try_end == std::string::npos ? std::string::npos : try_end - 4))
                         : std::nullopt;
  if (try_n && has_try(*try_n)) {
    const int n = *try_n;
    std::string out = wrap(l.get("try.q" + std::to_string(n) + ".intro"));
    std::string inputs = try_end == std::string::npos ? "" : spec.substr(try_end + 1);
    std::size_t start = 0;
    while (start <= inputs.size()) {  // inputs separated by " | "
      const std::size_t bar = inputs.find(" | ", start);
      const std::string input = inputs.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
      const try_outcome r = try_it(n, l, input);
      out += prompt("", "", l.get("try.prompt")) + input + '\n';
      out += r.ok ? r.result->render() : wrap(r.error);
      if (bar == std::string::npos) break;
      start = bar + 3;
    }
    return out;
  }
  if (line_no == 0) return std::nullopt;
  throw std::runtime_error("line " + std::to_string(line_no) + ": unknown generated block '" + spec +
                           "' (accepted: q1 to q16, or try N VALUES | VALUES for a question with try it)");
}

std::vector<std::string> guide_sections(const language& l) {
  std::vector<std::string> names;
  for (const std::string& line : lines_of(l.guide_text()))
    if (line.rfind(anchor_open, 0) == 0)
      names.push_back(line.substr(anchor_open.size(), line.find('"', anchor_open.size()) - anchor_open.size()));
  return names;
}

int run_guide(const run_options& o, std::string_view topic) {
  const language& l = *o.lang;
  const std::vector<std::string> g = lines_of(l.guide_text());
  if (topic.empty()) {
    put(render_guide(o, g, 0, g.size()));
    return 0;
  }
  // A question number names its section; otherwise the section's own name.
  std::string name(topic);
  if (const auto n = question_number(topic)) name = l.questions()[static_cast<std::size_t>(*n - 1)].guide;
  const std::string open = std::string(anchor_open) + name + "\"";
  std::size_t first = g.size();
  for (std::size_t i = 0; i < g.size(); ++i)
    if (g[i].rfind(open, 0) == 0) first = i;
  if (first == g.size()) {
    std::string names;
    for (const std::string& s : guide_sections(l)) names += (names.empty() ? "" : ", ") + s;
    std::fflush(stdout);
    std::fprintf(stderr, "mixed-precision-quiz: %s\n",
                 l.get("err.guide_topic", {{"value", std::string(topic)}, {"max", std::to_string(question_count)}, {"names", names}}).c_str());
    return 2;
  }
  // The section ends at the next section or the next heading of its level or above.
  std::size_t last = first + 1;
  bool heading_seen = false;
  for (; last < g.size(); ++last) {
    if (g[last].rfind(anchor_open, 0) == 0) break;
    if (g[last].rfind("## ", 0) == 0 || g[last].rfind("# ", 0) == 0) {
      if (heading_seen) break;
      heading_seen = true;
    }
  }
  put(render_guide(o, g, first, last));
  return 0;
}

std::string regenerate_guide(const std::string& guide, const language& l) {
  const columns_scope eighty(default_columns);  // the guide is read at 80 columns, whatever the terminal
  const std::string begin = "<!-- generated: ", end = "<!-- end generated -->";
  std::string out;
  std::size_t pos = 0;
  int line_no = 0;
  while (pos < guide.size()) {
    std::size_t nl = guide.find('\n', pos);
    if (nl == std::string::npos) nl = guide.size();
    std::string line = guide.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.rfind(begin, 0) == 0) {
      // <!-- generated: qN --> or <!-- generated: try N VALUES | VALUES --> : replace everything up
      // to the end marker with demo N, or with a "try it" session of question N on those values.
      const std::string name = line.substr(begin.size(), line.find_first_of(" -", begin.size()) - begin.size());
      const std::optional<std::string> block = generated_block(line, l, line_no);
      bool closed = false;
      while (pos < guide.size()) {
        std::size_t e = guide.find('\n', pos);
        if (e == std::string::npos) e = guide.size();
        const std::string inner = guide.substr(pos, e - pos);
        pos = e + 1;
        ++line_no;
        if (inner == end) {
          closed = true;
          break;
        }
      }
      if (!closed) throw std::runtime_error("generated block '" + name + "' has no '" + end + "' line");
      out += line + "\n```text\n" + *block + "```\n" + end + "\n";
      continue;
    }
    // Inline values: <!--v:name-->text<!--/v-->.
    std::string rebuilt;
    std::size_t i = 0;
    while (true) {
      const std::size_t v = line.find("<!--v:", i);
      if (v == std::string::npos) break;
      const std::size_t close = line.find("-->", v);
      const std::size_t stop = line.find("<!--/v-->", v);
      if (close == std::string::npos || stop == std::string::npos)
        throw std::runtime_error("line " + std::to_string(line_no) + ": unclosed <!--v:...--> value");
      const std::string name = line.substr(v + 6, close - v - 6);
      const auto it = demo::facts().find(name);
      if (it == demo::facts().end())
        throw std::runtime_error("line " + std::to_string(line_no) + ": unknown value '" + name + "'");
      rebuilt += line.substr(i, close + 3 - i) + localize_number(it->second, l) + "<!--/v-->";
      i = stop + 9;
    }
    out += rebuilt + line.substr(i) + (nl < guide.size() ? "\n" : "");
  }
  return out;
}

}  // namespace mpq
