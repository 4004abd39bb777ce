// tools/floatlab/common.hpp: what every floatlab subcommand shares. Exit codes and error
// reporting, colour, the rounding/policy options, numbers given on the command line, fast line
// input and buffered output.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

#include <libfloat/training.hpp>

namespace floatlab {

// ---- exit codes and errors -------------------------------------------------------------------

inline constexpr int exit_success = 0;
/// The command ran to the end and reports a failure (check: at least one case mismatched).
inline constexpr int exit_failure = 1;
/// Bad command line (CLI11's errors included) or malformed input: nothing trustworthy was computed.
inline constexpr int exit_usage = 2;

/// A problem with the command line or the input. main() prints "floatlab: <what()>" on stderr
/// and exits with exit_usage; the message says what was expected ("line 3: expected ...").
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- colour ----------------------------------------------------------------------------------

inline bool is_terminal(std::FILE* stream) {
#ifdef _WIN32
  return _isatty(_fileno(stream)) != 0;
#else
  return ::isatty(::fileno(stream)) == 1;
#endif
}

/// ANSI colours, empty unless `stream` is a terminal and NO_COLOR (https://no-color.org) is
/// unset or empty, so piped and redirected output is always plain text.
struct palette {
  std::string_view red, green, bold, reset;

  static palette for_stream(std::FILE* stream) {
    const char* no_color = std::getenv("NO_COLOR");
    const bool on = is_terminal(stream) && (no_color == nullptr || *no_color == '\0');
    if (!on) return {};
    return {"\x1b[31m", "\x1b[32m", "\x1b[1m", "\x1b[0m"};
  }
};

// ---- subcommand registration -----------------------------------------------------------------

/// A registered subcommand: its CLI11 App (options attached) and what runs it after a successful
/// parse. `run` returns the exit code and may throw usage_error.
struct command {
  CLI::App* app;
  std::function<int()> run;
};

// ---- whole numbers on the command line ---------------------------------------------------------

/// "accepted: a whole number from MIN to MAX", for messages.
inline std::string whole_number_accepted(std::uint64_t min, std::uint64_t max) {
  return "accepted: a whole number from " + std::to_string(min) + " to " + std::to_string(max);
}

/// A count, size or seed given on the command line, read by parse_whole_number.
struct whole_number {
  std::uint64_t value = 0;
  std::string error;  ///< empty on success; otherwise "'TEXT' is ... (accepted: ...)"
  explicit operator bool() const { return error.empty(); }
};

/// Reads `text` as a whole number in [min, max]: decimal digits only, nothing before or after them.
/// Every integer option goes through here, never through CLI11's own conversion, which reads "-1"
/// into an unsigned option as 2^64 - 1 (strtoull negates in unsigned arithmetic, C11 7.22.1.4),
/// and "010" as octal 8 and "0x10" as 16 (base 0). The error quotes the text as typed.
inline whole_number parse_whole_number(std::string_view text, std::uint64_t min, std::uint64_t max) {
  whole_number out;
  const std::string quoted = "'" + std::string(text) + "'";
  const std::string accepted = " (" + whole_number_accepted(min, max) + ")";
  const bool negative = !text.empty() && text[0] == '-';
  const std::string_view digits = negative ? text.substr(1) : text;
  bool all_digits = !digits.empty();
  for (char c : digits) all_digits = all_digits && c >= '0' && c <= '9';
  if (!all_digits) {
    out.error = quoted + " is not a whole number" + accepted;
    return out;
  }
  std::uint64_t v = 0;
  bool too_large = false;
  for (char c : digits) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) too_large = true;
    else v = v * 10 + d;
  }
  if (negative && (too_large || v != 0)) out.error = quoted + " is negative" + accepted;
  else if (too_large || v > max) out.error = quoted + " is too large" + accepted;
  else if (v < min) out.error = quoted + " is too small" + accepted;
  else out.value = v;
  return out;
}

/// parse_whole_number for an option read as text: throws usage_error("OPTION: 'TEXT' is ...").
inline std::uint64_t whole_number_or_throw(std::string_view text, std::string_view option, std::uint64_t min,
                                           std::uint64_t max) {
  const whole_number n = parse_whole_number(text, min, max);
  if (!n) throw usage_error(std::string(option) + ": " + n.error);
  return n.value;
}

/// A CLI11 transform for an integer option: checks the text with parse_whole_number and hands
/// CLI11 the plain decimal digits of the value, so its conversion cannot wrap or read octal. A bad
/// value fails the parse as "OPTION: 'TEXT' is ... (accepted: ...)".
inline CLI::Validator whole_number_check(std::uint64_t min, std::uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        const whole_number n = parse_whole_number(text, min, max);
        if (!n) return n.error;
        text = std::to_string(n.value);
        return {};
      },
      "", "whole number");
}

/// Adds an integer option that only takes a whole number in [min, max] (see whole_number_check).
template <typename T>
CLI::Option* add_whole_number_option(CLI::App& cmd, const std::string& names, T& target, const std::string& help,
                                     std::uint64_t min, std::uint64_t max) {
  return cmd.add_option(names, target, help)->transform(whole_number_check(min, max));
}

// ---- rounding and policy options -------------------------------------------------------------

/// The options that decide how a result is rounded: -r, --tininess, --ftz, --daz, --saturate,
/// --seed. Every subcommand that rounds adds them with add_rounding_options().
struct rounding_options {
  std::string rounding = "near_even";
  std::string tininess = "after";
  bool ftz = false;
  bool daz = false;
  bool saturate = false;
  std::uint32_t seed = 1;

  lf::env env() const {
    lf::env e{*lf::rounding_by_name(rounding)};  // validated by the option's check
    e.policy.tininess = tininess == "before" ? lf::tininess::before_rounding : lf::tininess::after_rounding;
    if (ftz) e.policy.results = lf::subnormal_results::flush_to_zero;
    if (daz) e.policy.inputs = lf::subnormal_inputs::treat_as_zero;
    if (saturate) e.policy.overflow = lf::overflow_policy::saturate;
    return e;
  }
};

/// "1 value", "2 values": a count with its noun in the right number.
inline std::string count_of(std::uint64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

/// The names -r accepts: every rounding, or (deterministic_only) all but stochastic.
inline std::string rounding_names_accepted(bool deterministic_only) {
  std::string names(lf::rounding_names_help);
  const std::string_view sr = ", stochastic|sr";
  if (deterministic_only && names.size() >= sr.size() && names.ends_with(sr)) names.resize(names.size() - sr.size());
  return names;
}

/// `no_stochastic`: why this subcommand cannot round stochastically ("" when it can): -r stochastic
/// is then refused with that reason, and the help lists the deterministic modes only.
inline void add_rounding_options(CLI::App& cmd, rounding_options& o, std::string_view no_stochastic = {}) {
  const bool deterministic_only = !no_stochastic.empty();
  const std::string accepted = rounding_names_accepted(deterministic_only);
  const CLI::Validator rounding_name(
      [accepted, why = std::string(no_stochastic)](std::string& s) -> std::string {
        const auto r = lf::rounding_by_name(s);
        if (r && (why.empty() || *r != lf::rounding::stochastic)) return {};
        if (r) return why + "; accepted: " + accepted;
        return "unknown rounding '" + s + "' (accepted: " + accepted + ")";
      },
      "", "rounding");
  cmd.add_option("-r,--rounding", o.rounding,
                 "Rounding direction: TestFloat's names (near_even, minMag, min, max, near_maxMag, odd) "
                 "or IEEE 754 words; accepted: " + accepted)
      ->check(rounding_name)
      ->type_name("MODE")
      ->capture_default_str();
  cmd.add_option("--tininess", o.tininess,
                 "When a result is tiny for underflow (IEEE 754-2019 7.5): after or before rounding")
      ->check(CLI::IsMember({"before", "after"}))
      ->type_name("WHEN")
      ->capture_default_str();
  cmd.add_flag("--ftz", o.ftz, "Flush tiny results to zero, raising underflow and inexact (x86 MXCSR.FTZ)");
  cmd.add_flag("--daz", o.daz, "Read subnormal operands as zero, no flag (x86 MXCSR.DAZ)");
  cmd.add_flag("--saturate", o.saturate, "Overflow gives the largest finite value, never infinity or NaN");
  add_whole_number_option(cmd, "--seed", o.seed,
                          "Seed for -r stochastic, 0 to 4294967295: case k (from 1) gets the k-th output of "
                          "std::mt19937(seed) as its 32 random bits, so a seed always gives the same results; "
                          "other modes ignore it",
                          0, UINT32_MAX)
      ->type_name("N")
      ->capture_default_str();
}

/// The 32 random bits stochastic rounding consumes, one draw per case: std::mt19937's output
/// sequence is fixed by the C++ standard, so results are reproducible across platforms.
class random_source {
 public:
  explicit random_source(std::uint32_t seed) : gen_(seed) {}
  std::uint32_t next() { return static_cast<std::uint32_t>(gen_()); }

 private:
  std::mt19937 gen_;
};

// ---- numbers written out -----------------------------------------------------------------------

/// What floatlab accepts where a number is written out (lf::parse's grammar), for messages.
inline constexpr std::string_view number_syntax_help =
    "accepted: a decimal like 0.1 or 1e-8, a hex float like 0x1.8p-3, inf/nan";

/// The same for a command-line argument, which may also be a raw encoding, for messages.
inline constexpr std::string_view number_argument_accepted =
    "accepted: a decimal like 0.1 or 1e-8, a hex float like 0x1.8p-3, inf/nan, or --bits HEX for a raw encoding";

/// A paragraph for the --help of every command that takes a number as an argument.
inline constexpr std::string_view number_argument_help =
    R"(Numbers: a decimal of any length and exponent (0.1, -1e-8, .5, 123456789012345678901234567890e-5),
a hex float (0x1.8p-3; the p exponent is optional), inf, infinity, nan or snan, in any case. A
number is rounded once, directly to the format, under -r and the policy options (flags as for
any operation). With --bits, the argument is the raw encoding in hex instead (--bits 3C00 is
fp16 1.0; 0x prefix optional), taken as is: never rounded, no flags.)";

/// A number given on the command line, as an encoding of a format.
struct number_argument {
  lf::bits_t bits = 0;
  lf::status flags{};  ///< raised by rounding a decimal or hex float into the format; none for --bits
  std::string error;   ///< empty on success; otherwise what is wrong and what is accepted
  explicit operator bool() const { return error.empty(); }
};

/// Reads `text`, the command-line argument `name` ("X", "--value"), as a number of format f: with
/// is_bits, a raw encoding in hex (optional 0x, at most f.bits() bits); otherwise lf::parse's
/// grammar, rounded once under e. Errors name the argument, quote it, say which character is
/// wrong and what is accepted, e.g. "X '1.2.3' is not a number: unexpected character '.' at
/// position 3; expected the end of the input (accepted: ...)". Never throws.
inline number_argument parse_number_argument(const lf::format& f, std::string_view text, bool is_bits,
                                             const lf::env& e, std::string_view name = "NUMBER") {
  number_argument out;
  const std::string quoted = std::string(name) + " '" + std::string(text) + "'";
  if (!is_bits) {
    const lf::parsed<lf::bits_t> r = lf::parse(f, text, e, &out.flags);
    if (r) out.bits = r.value;
    else out.error = quoted + " is not a number: " + r.error.message() + " (" + std::string(number_argument_accepted) + ")";
    return out;
  }
  auto fail = [&](std::string_view why) {
    out.error = quoted + " is not a raw " + lf::format_name(f) + " encoding: " + std::string(why) + " (--bits takes hex digits, " +
                "optionally after 0x, at most " + std::to_string(f.bits()) + " bits; without --bits, " +
                std::string(number_syntax_help.substr(std::string_view("accepted: ").size())) + ")";
    out.flags = {};
    return out;
  };
  std::string_view digits = text;
  if (digits.size() >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) digits.remove_prefix(2);
  if (digits.empty()) return fail("no hex digits");
  std::uint64_t v = 0;
  for (char c : digits) {
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0) return fail(std::string("'") + c + "' is not a hex digit");
    if (v >> 60) return fail("too wide");
    v = v << 4 | static_cast<std::uint64_t>(d);
  }
  if (v > f.encoding_mask()) return fail("too wide");
  out.bits = v;
  return out;
}

// ---- input -----------------------------------------------------------------------------------

/// An input stream opened from a path ("-" is stdin), closed on destruction.
class input_file {
 public:
  explicit input_file(const std::string& path) {
    if (path == "-") {
      file_ = stdin;
      return;
    }
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) throw usage_error("cannot open '" + path + "': " + std::strerror(errno));
    owned_ = true;
  }
  ~input_file() {
    if (owned_) std::fclose(file_);
  }
  input_file(const input_file&) = delete;
  input_file& operator=(const input_file&) = delete;
  std::FILE* get() const { return file_; }

 private:
  std::FILE* file_ = nullptr;
  bool owned_ = false;
};

/// Reads lines in big blocks (no per-line allocation, no iostream). A line is returned without
/// its '\n'; the last line needs no '\n'. line_number() is the 1-based number of the last line.
class line_reader {
 public:
  explicit line_reader(std::FILE* file) : file_(file), buf_(1 << 16) {}

  bool next(std::string_view& line) {
    for (;;) {
      const char* start = buf_.data() + pos_;
      if (const void* nl = std::memchr(start, '\n', end_ - pos_)) {
        const auto len = static_cast<std::size_t>(static_cast<const char*>(nl) - start);
        line = {start, len};
        pos_ += len + 1;
        ++number_;
        return true;
      }
      if (eof_) {
        if (pos_ == end_) return false;
        line = {start, end_ - pos_};
        pos_ = end_;
        ++number_;
        return true;
      }
      refill();
    }
  }
  std::size_t line_number() const { return number_; }

 private:
  void refill() {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
    if (end_ == buf_.size()) buf_.resize(buf_.size() * 2);  // a line longer than the buffer
    const std::size_t n = std::fread(buf_.data() + end_, 1, buf_.size() - end_, file_);
    if (n == 0) {
      if (std::ferror(file_)) throw usage_error(std::string("read error: ") + std::strerror(errno));
      eof_ = true;
    }
    end_ += n;
  }

  std::FILE* file_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, end_ = 0, number_ = 0;
  bool eof_ = false;
};

// ---- output ----------------------------------------------------------------------------------

/// Output collected in memory and written to stdout in large blocks; flushed on destruction, so
/// what was produced before an error still appears (before the error message).
class output_buffer {
 public:
  ~output_buffer() { flush(); }
  output_buffer() { buf_.reserve(limit + 256); }
  output_buffer(const output_buffer&) = delete;
  output_buffer& operator=(const output_buffer&) = delete;

  output_buffer& operator<<(std::string_view s) {
    buf_ += s;
    if (buf_.size() >= limit) flush();
    return *this;
  }
  output_buffer& operator<<(char c) {
    buf_ += c;
    return *this;
  }
  /// Appends v as exactly `digits` uppercase hex digits (v must fit).
  output_buffer& hex(std::uint64_t v, int digits) {
    char tmp[16];
    for (int i = digits - 1; i >= 0; --i, v >>= 4) tmp[i] = "0123456789ABCDEF"[v & 0xF];
    buf_.append(tmp, static_cast<std::size_t>(digits));
    return *this;
  }
  void flush() {
    if (!buf_.empty()) std::fwrite(buf_.data(), 1, buf_.size(), stdout);
    buf_.clear();
    std::fflush(stdout);
  }

 private:
  static constexpr std::size_t limit = 1 << 16;
  std::string buf_;
};

}  // namespace floatlab
