// floatlab table: every encoding of a small format, or the values of a range of a wider one, with
// their fields, exact values and classes.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <fmt/core.h>

#include "commands.hpp"
#include "explore.hpp"

namespace floatlab {

namespace {

struct table_options {
  std::string format;
  std::optional<std::string> from, to;
  std::optional<std::uint64_t> count;
  bool bits = false;
  bool json = false;
};

/// Formats this wide or narrower are listed whole by default (at most 256 encodings).
constexpr int whole_table_max_bits = 8;
/// The most rows one table prints.
constexpr std::uint64_t max_rows = std::uint64_t{1} << 20;

// Non-NaN encodings in value order as integers: +x -> its magnitude bits, -x -> -(magnitude) - 1,
// so -0 comes just before +0 and the next value is always ordinal + 1. (In a fnuz format the -0
// slot, ordinal -1, is the NaN: the listing skips it. An unsigned format has no negative ordinals.)
std::int64_t ordinal(const lf::format& f, lf::bits_t b) {
  const auto mag = static_cast<std::int64_t>(b & ~f.sign_mask());
  return (b & f.sign_mask()) ? -mag - 1 : mag;
}
lf::bits_t from_ordinal(const lf::format& f, std::int64_t o) {
  return o >= 0 ? static_cast<lf::bits_t>(o) : f.sign_mask() | static_cast<lf::bits_t>(-(o + 1));
}

/// An endpoint: with --bits the encoding; else the value rounded (upward for --from, downward
/// for --to) so that the range holds exactly the values between the two numbers.
lf::bits_t endpoint(const lf::format& f, const std::string& text, bool raw, lf::rounding r, std::string_view name) {
  const number_argument n = parse_number_argument(f, text, raw, lf::env{r}, name);
  if (!n) throw usage_error(n.error);
  if (is_nan(f, n.bits)) {
    const bool no_encoding = !raw && lf::has(n.flags, lf::status::invalid) && !lf::has(n.flags, lf::status::overflow);
    throw usage_error(std::string(name) + " '" + text + "' is " +
                      (raw           ? "a NaN encoding"
                       : no_encoding ? "not a value of " + lf::format_name(f) + " (unsigned, no zero)"
                                     : "beyond the range of " + lf::format_name(f)) +
                      ": a range needs numbers (" + std::string(number_argument_accepted) + ")");
  }
  return n.bits;
}

std::string row_text(const lf::format& f, lf::bits_t b) {
  return hex_of(f, b) + "  " + fields_of(f, b).grouped() + "  " + fmt::format("{:<24}", value_text(f, b, 40)) + "  " +
         class_of(f, b) + "\n";
}

void write_json_row(json_writer& j, const lf::format& f, lf::bits_t b) {
  const fields p = fields_of(f, b);
  j.begin_object().field("bits", hex_of(f, b)).field("sign", p.sign).field("exponent", p.exponent)
      .field("fraction", p.fraction).field("exact", lf::to_exact_decimal(f, b)).field("shortest", lf::to_shortest(f, b))
      .field("class", class_of(f, b)).end_object();
}

int run_table(const table_options& o) {
  const lf::format f = format_or_throw(o.format, "FORMAT");
  const bool ranged = o.from || o.to || o.count;
  if (o.bits && !o.from && !o.to)
    throw usage_error("--bits says --from and --to are encodings; give at least one of them");
  if (!ranged && f.bits() > whole_table_max_bits)
    throw usage_error(fmt::format(
        "{} has 2^{} encodings, too many to list whole (only formats of up to {} bits are): give a range, "
        "--from X --to Y (the values between two numbers) or --from X --count N (N values from X up), "
        "e.g. floatlab table {} --from 1 --to 2",
        lf::format_name(f), f.bits(), whole_table_max_bits, o.format));
  if (o.count && *o.count == 0) throw usage_error("--count must be at least 1");
  if (o.count && o.to) throw usage_error("give --to or --count, not both");

  std::int64_t first = 0, last = 0;
  bool whole = !ranged;
  if (ranged) {
    // -inf, or -max finite; an unsigned format starts at its smallest value.
    const lf::bits_t lowest = !f.has_sign()     ? f.min_normal_bits()
                              : f.has_infinity() ? f.sign_mask() | f.infinity_bits()
                                                 : f.sign_mask() | f.max_finite_bits();
    const lf::bits_t highest = f.has_infinity() ? f.infinity_bits() : f.max_finite_bits();
    first = ordinal(f, o.from ? endpoint(f, *o.from, o.bits, lf::rounding::upward, "--from") : lowest);
    if (o.to) {
      last = ordinal(f, endpoint(f, *o.to, o.bits, lf::rounding::downward, "--to"));
      if (last < first)
        throw usage_error("--from " + *o.from + " is above --to " + *o.to + " in " + lf::format_name(f) +
                          " (no value lies between them)");
    } else {
      const std::int64_t top = ordinal(f, highest);
      const auto want = static_cast<std::int64_t>(std::min<std::uint64_t>(o.count ? *o.count : max_rows + 1, max_rows + 1));
      last = std::min(top, first + want - 1);
    }
    if (static_cast<std::uint64_t>(last - first) + 1 > max_rows)
      throw usage_error(fmt::format("that range holds more than {} values; narrow it, or use --count N", max_rows));
  }

  output_buffer out;
  json_writer j;
  if (o.json) j.begin_object().field("command", "table").field("format", lf::format_name(f)).key("rows").begin_array();
  else
    out << fmt::format("{} ({}): encoding, {}, exact value, class\n", lf::format_name(f), format_citation(f),
                       fields_label(f));
  auto emit = [&](lf::bits_t b) {
    if (o.json) write_json_row(j, f, b);
    else out << row_text(f, b);
  };
  if (whole) {
    for (lf::bits_t b = 0; b <= f.encoding_mask(); ++b) emit(b);
  } else {
    // Value order skips a NaN in the -0 slot (fnuz); --count still lists N values.
    std::uint64_t listed = 0;
    const std::int64_t end = o.count ? ordinal(f, f.has_infinity() ? f.infinity_bits() : f.max_finite_bits()) : last;
    for (std::int64_t k = first; k <= end && (!o.count || listed < *o.count); ++k) {
      const lf::bits_t b = from_ordinal(f, k);
      if (is_nan(f, b)) continue;
      emit(b);
      ++listed;
    }
  }
  if (o.json) {
    j.end_array().end_object();
    out << j.str() << '\n';
  }
  return exit_success;
}

}  // namespace

command register_table(CLI::App& app) {
  auto o = std::make_shared<table_options>();
  CLI::App* cmd = app.add_subcommand("table", "Every encoding of a format of up to 8 bits, or the values in a range of "
                                              "a wider one: hex, fields, exact value, class");
  cmd->add_option("FORMAT,-f,--format", o->format,
                  "The format (as an argument or after -f); known: " + lf::known_format_names())
      ->required();
  cmd->add_option("--from", o->from, "First value: the smallest value of FORMAT at or above X")->type_name("X");
  cmd->add_option("--to", o->to, "Last value: the largest value of FORMAT at or below Y")->type_name("Y");
  add_whole_number_option(*cmd, "--count", o->count, "List N values (from --from, or from the lowest value)", 1,
                          max_rows)
      ->type_name("N");
  cmd->add_flag("--bits", o->bits, "--from and --to are raw encodings in hex (0x prefix optional)");
  cmd->add_flag("--json", o->json, std::string(json_option_help));
  cmd->footer([] {
    std::string e5m2_first;
    for (lf::bits_t b = 0x3C; b <= 0x3E; ++b) {
      e5m2_first += "    " + row_text(lf::float8_e5m2, b);
    }
    return fmt::format(R"(Without a range, a format of up to {} bits is listed whole, in encoding order (NaNs
included): 16 rows for fp4, 64 for the FP6 formats, 256 for the FP8 ones and e8m0. A wider
one needs a range: --from X with --to Y or --count N, listed in value order
(-0 before +0; NaNs are not values). X and Y are numbers ({}); with --bits, encodings.
Values are exact; one longer than 40 characters is shown rounded to 20 significant digits, marked ≈.
--json prints {{"command":"table","format","rows":[{{"bits", "sign", "exponent", "fraction",
"exact", "shortest", "class"}}...]}} (fields as binary digits; "" for a field the format lacks:
e8m0 has no sign and no fraction).
At most {} rows. Exit status: 0 success, 2 bad usage: an unknown format, a malformed number,
no range for a wide format, an empty range.

Examples:
  floatlab table e5m2          # all 256 encodings; these are three of them:
{}  floatlab table -f fp4        # the 16 encodings of OCP MX FP4 (E2M1)
  floatlab table fp16 --from 1 --to 2
  floatlab table bf16 --bits --from 3F80 --count 16
  floatlab table e4m3 --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["rows"]))')",
                       whole_table_max_bits, number_syntax_help, max_rows, e5m2_first);
  });
  return {cmd, [o] { return run_table(*o); }};
}

const register_command registered_table{30, register_table};

}  // namespace floatlab
