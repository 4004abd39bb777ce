// quiz/runner.cpp: the quiz's screens and the guide generator (see runner.hpp).
#include "runner.hpp"

#include <iostream>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "demos/demos.hpp"
#include "demos/facts.hpp"

namespace mpq {

namespace {

/// A quiz string with the library's numbers filled in.
std::string fill(const std::string& s) { return substitute(s, demo::facts()); }

char letter(int i) { return static_cast<char>('A' + i); }

void put(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
}

std::string total_str() { return std::to_string(question_count); }

std::string header(const run_options& o) {
  const language& l = *o.lang;
  std::string out = o.colors.bold + l.get("title") + " · " + l.get("level") + o.colors.reset + "\n";
  out += wrap(fill(l.raw("intro")));
  out += wrap(l.get("guide_intro", {{"file", l.guide_file()}}));
  return out + '\n';
}

std::string question_block(const run_options& o, const question& q, const std::array<int, option_count>& order) {
  const language& l = *o.lang;
  std::string out = o.colors.bold + o.colors.cyan +
                    l.get("question_of", {{"n", std::to_string(q.number)}, {"total", total_str()}}) + " · " + q.topic +
                    o.colors.reset + '\n';
  out += wrap(fill(q.text));
  for (int i = 0; i < option_count; ++i)
    out += wrap(std::string(1, letter(i)) + ") " + fill(q.options[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])]),
                5, screen_width, 2);
  return out;
}

/// The explanation: why the answer is right, then one line per wrong option, then the guide link.
std::string explanation_block(const run_options& o, const question& q, const std::array<int, option_count>& order) {
  const language& l = *o.lang;
  std::string out = wrap(fill(q.explanation));
  out += l.get("why_not") + '\n';
  for (int i = 0; i < option_count; ++i) {
    const int orig = order[static_cast<std::size_t>(i)];
    if (orig == q.answer) continue;
    out += wrap(std::string(1, letter(i)) + ") " + fill(q.why[static_cast<std::size_t>(orig)]), 5, screen_width, 2);
  }
  out += o.colors.dim + l.get("guide_link", {{"link", l.guide_link(q)}}) + o.colors.reset + '\n';
  return out;
}

std::string demo_block(const run_options& o, const question& q) {
  const language& l = *o.lang;
  std::string out = o.colors.bold + l.get("demo_heading") + o.colors.reset + '\n';
  return out + demo::show(q.number, l, o.seed, true);
}

int displayed_answer(const question& q, const std::array<int, option_count>& order) {
  for (int i = 0; i < option_count; ++i)
    if (order[static_cast<std::size_t>(i)] == q.answer) return i;
  return -1;
}

}  // namespace

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        else out += c;
    }
  }
  return out + "\"";
}

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
  for (int n = 1; n <= question_count; ++n) all.push_back(n);
  return all;
}

namespace {
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
        put(o.colors.bold + l.get("prompt") + o.colors.reset + " ");
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
      if (!o.json) put(o.colors.red + wrap(l.get("invalid")) + o.colors.reset);
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
    put(correct ? o.colors.green + l.get("correct") + o.colors.reset + '\n'
                : o.colors.red + l.get("wrong", {{"answer", std::string(1, letter(right))}}) + o.colors.reset + '\n');
    put(explanation_block(o, q, order));
    if (o.demos) put('\n' + demo_block(o, q));
    put("\n");
  }

  int score = 0;
  for (const record& r : results) score += r.correct ? 1 : 0;
  const bool complete = results.size() == asked.size();
  if (o.json) {
    std::string j = fmt::format("{{\"lang\": {}, \"seed\": {}, \"shuffle\": {}, \"total\": {}, \"asked\": {}, "
                                "\"answered\": {}, \"score\": {}, \"complete\": {}, \"questions\": [",
                                json_string(l.code()), o.seed, o.shuffle, question_count, asked.size(), results.size(),
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
  std::string s = o.colors.bold + l.get("summary_title") + o.colors.reset + '\n';
  s += l.get("score", {{"score", std::to_string(score)}, {"asked", std::to_string(results.size())}});
  // (only after at least one answer: then total > answered >= 1, so "questions" is a plural)
  if (!complete && !results.empty())
    s += ' ' + l.get("partial", {{"answered", std::to_string(results.size())}, {"total", std::to_string(asked.size())}});
  s += '\n';
  std::string missed;
  for (const record& r : results) {
    if (r.correct) continue;
    const question& q = l.questions()[static_cast<std::size_t>(r.number - 1)];
    missed += wrap(l.get("missed_line", {{"n", std::to_string(r.number)}, {"topic", q.topic}, {"link", l.guide_link(q)}}), 6,
                   screen_width, 2);
  }
  if (results.empty()) s += l.get("none_answered") + '\n';
  else if (missed.empty()) s += l.get(complete ? "perfect" : "perfect_partial") + '\n';
  else s += l.get("missed") + '\n' + missed;
  put(s);
  return gave_up ? give_up(l) : 0;
}

int run_preview(const run_options& o) {
  const language& l = *o.lang;
  if (o.json) {
    std::string j = fmt::format("{{\"lang\": {}, \"title\": {}, \"level\": {}, \"questions\": [", json_string(l.code()),
                                json_string(l.get("title")), json_string(l.get("level")));
    bool first = true;
    for (const int n : questions_asked(o)) {
      const question& q = l.questions()[static_cast<std::size_t>(n - 1)];
      const auto order = option_order(o.seed, n, o.shuffle);
      std::string opts;
      for (int i = 0; i < option_count; ++i)
        opts += (i ? ", " : "") + json_string(fill(q.options[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])]));
      j += fmt::format("{}{{\"number\": {}, \"topic\": {}, \"text\": {}, \"options\": [{}], \"guide\": {}}}", first ? "" : ", ",
                       n, json_string(q.topic), json_string(fill(q.text)), opts, json_string(l.guide_link(q)));
      first = false;
    }
    put(j + "]}\n");
    return 0;
  }
  put(header(o));
  put(wrap(l.get("preview_note", {{"total", total_str()}})) + '\n');
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
                                json_string(l.code()), json_string(l.get("title")), json_string(l.get("level")), o.seed);
    bool first = true;
    for (const int n : questions_asked(o)) {
      const question& q = l.questions()[static_cast<std::size_t>(n - 1)];
      const auto order = option_order(o.seed, n, o.shuffle);
      std::string opts, why;
      for (int i = 0; i < option_count; ++i) {
        const int orig = order[static_cast<std::size_t>(i)];
        opts += (i ? ", " : "") + json_string(fill(q.options[static_cast<std::size_t>(orig)]));
        if (orig != q.answer)
          why += (why.empty() ? "" : ", ") + fmt::format("\"{}\": {}", letter(i), json_string(fill(q.why[static_cast<std::size_t>(orig)])));
      }
      j += fmt::format("{}{{\"number\": {}, \"topic\": {}, \"text\": {}, \"options\": [{}], \"answer\": \"{}\", "
                       "\"explanation\": {}, \"why_not\": {{{}}}, \"guide\": {}",
                       first ? "" : ", ", n, json_string(q.topic), json_string(fill(q.text)), opts,
                       letter(displayed_answer(q, order)), json_string(fill(q.explanation)), why,
                       json_string(l.guide_link(q)));
      if (o.demos) j += ", \"demo\": " + json_string(demo::show(n, l, o.seed, true));
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
    put(o.colors.green + l.get("answer_is", {{"answer", std::string(1, letter(displayed_answer(q, order)))}}) + o.colors.reset +
        '\n');
    put(explanation_block(o, q, order));
    if (o.demos) put('\n' + demo_block(o, q));
    put("\n");
  }
  return 0;
}

std::string regenerate_guide(const std::string& guide, const language& l) {
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
      // <!-- generated: qN ... -->: replace everything up to the end marker with demo N.
      const std::string name = line.substr(begin.size(), line.find_first_of(" -", begin.size()) - begin.size());
      if (name.size() != 2 || name[0] != 'q' || name[1] < '1' || name[1] > '8')
        throw std::runtime_error("line " + std::to_string(line_no) + ": unknown generated block '" + name +
                                 "' (accepted: q1 to q8)");
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
      out += line + "\n```text\n" + demo::show(name[1] - '0', l, demo::default_seed, false) + "```\n" + end + "\n";
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
      rebuilt += line.substr(i, close + 3 - i) + it->second + "<!--/v-->";
      i = stop + 9;
    }
    out += rebuilt + line.substr(i) + (nl < guide.size() ? "\n" : "");
  }
  return out;
}

}  // namespace mpq
