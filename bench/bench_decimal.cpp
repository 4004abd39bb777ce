// bench/bench_decimal.cpp: decimal text in and out (core/decimal.hpp), beside the standard library's
// std::from_chars / std::to_chars for float in the same run (docs/performance.md, "Decimal parsing
// and printing"; bench/run.sh runs it).
//
// Every benchmark handles N = 4096 short strings (or values) per iteration; items_per_second is
// strings parsed or values printed per second.
//
// Names: <what>/<format>/<data set>
//   parse/...            lf::parse<F>(text): nearest even, no flags (typed, format folded)
//   parse_runtime/...    lf::parse(f, text, env, &st): run-time format and env, with flags
//                        (what `floatlab eval <f>_from_dec` does), f and env opaque to the optimiser
//   print/...            lf::to_shortest(x) -> std::string
//   std/from_chars/...   std::from_chars(first, last, float&) on the same strings as parse/<format>
//   std/to_chars/...     std::to_chars(first, last, float) of the same values (widened exactly to
//                        float), into a char buffer; prints the shortest text for *float*, which for
//                        fp16/bf16 values is usually longer than theirs (0.1 in fp16 -> "0.099975586")
//   std/to_chars_string/...  the same, then a std::string of the text, as lf::to_shortest returns
// Data sets, N strings each:
//   random     lf::to_shortest of uniformly random finite encodings of <format> (all exponents,
//              subnormals included): at most 5 significant digits for fp16, 4 for bf16, 9 for fp32
//   literals   typical hand-written literals ("0.1", "1e-4", "65504", ...), cycled; each format
//              reads the same strings (print/ prints the values they round to)
#include <benchmark/benchmark.h>

#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "bench_data.hpp"
#include <libfloat/core/decimal.hpp>

namespace {

using bench_data::N;

enum class data { random, literals };

/// Short literals as people type them; every one is finite in fp16, bf16 and fp32.
constexpr const char* literal_strings[] = {
    "0.1",  "1e-4",  "65504", "0.5",   "1",       "2.5",    "3.14159", "-0.001", "100",  "0.25",
    "1e-3", "0.3",   "-2",    "7.5",   "0.0625",  "1e4",    "0.01",    "-0.75",  "1024", "6.1e-05",
    "0.2",  "1.5",   "-1",    "0.001", "2.71828", "1e-2",   "42",      "0.125",  "-3.5", "0.9",
    "10",   "0.05",
};

using bench_data::random_finite_bits;

/// The strings of a data set for format F, stored back to back (one buffer, as text read from a file).
struct strings {
  std::string buffer;
  std::vector<std::string_view> views;
};

template <lf::format F>
strings make_strings(data d) {
  std::vector<std::string> texts;
  if (d == data::random) {
    for (auto b : random_finite_bits(F, 1)) texts.push_back(lf::to_shortest(F, b));
  } else {
    for (std::size_t i = 0; i < N; ++i) texts.emplace_back(literal_strings[i % std::size(literal_strings)]);
  }
  strings s;
  for (const auto& t : texts) s.buffer += t;
  std::size_t at = 0;
  for (const auto& t : texts) {
    s.views.emplace_back(s.buffer.data() + at, t.size());
    at += t.size();
  }
  return s;
}

/// The values of a data set: the encodings the strings parse to (nearest even).
template <lf::format F>
std::vector<lf::fp<F>> make_values(data d) {
  std::vector<lf::fp<F>> v;
  for (auto t : make_strings<F>(d).views) v.push_back(lf::parse<F>(t).value);
  return v;
}

/// x widened to float: exact for fp16, bf16 and fp32.
template <lf::format F>
float to_float(lf::fp<F> x) {
  lf::status st{};
  return std::bit_cast<float>(static_cast<std::uint32_t>(lf::convert(lf::binary32, F, x.bits(), lf::env{}, st)));
}

template <typename Fn>
void run(benchmark::State& s, Fn body) {
  for (auto _ : s) body();
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * N));
}

// ---- parsing ---------------------------------------------------------------------------------

template <lf::format F>
void bm_parse(benchmark::State& s, data d) {
  using S = typename lf::fp<F>::storage_type;
  const strings in = make_strings<F>(d);
  std::vector<S> out(N);
  run(s, [&] {
    for (std::size_t i = 0; i < N; ++i) out[i] = lf::parse<F>(in.views[i]).value.bits();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  });
}

template <lf::format F>
void bm_parse_runtime(benchmark::State& s, data d) {
  const strings in = make_strings<F>(d);
  std::vector<lf::bits_t> out(N);
  lf::format f = F;
  lf::env e{};
  benchmark::DoNotOptimize(f);
  benchmark::DoNotOptimize(e);
  lf::status st{};
  run(s, [&] {
    for (std::size_t i = 0; i < N; ++i) out[i] = lf::parse(f, in.views[i], e, &st).value;
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  });
  benchmark::DoNotOptimize(st);
}

template <lf::format F>
void bm_std_from_chars(benchmark::State& s, data d) {
  const strings in = make_strings<F>(d);
  std::vector<float> out(N);
  run(s, [&] {
    for (std::size_t i = 0; i < N; ++i) {
      const std::string_view t = in.views[i];
      std::from_chars(t.data(), t.data() + t.size(), out[i]);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  });
}

// ---- printing --------------------------------------------------------------------------------

template <lf::format F>
void bm_print(benchmark::State& s, data d) {
  const auto in = make_values<F>(d);
  std::size_t total = 0;
  run(s, [&] {
    for (std::size_t i = 0; i < N; ++i) {
      const std::string t = lf::to_shortest(in[i]);
      total += t.size() + static_cast<unsigned char>(t[0]);
    }
    benchmark::DoNotOptimize(total);
  });
}

template <lf::format F, bool to_string>
void bm_std_to_chars(benchmark::State& s, data d) {
  std::vector<float> in;
  for (auto x : make_values<F>(d)) in.push_back(to_float(x));
  std::size_t total = 0;
  run(s, [&] {
    for (std::size_t i = 0; i < N; ++i) {
      char buf[64];
      const auto r = std::to_chars(buf, buf + sizeof buf, in[i]);
      if constexpr (to_string) {
        const std::string t(buf, r.ptr);
        total += t.size() + static_cast<unsigned char>(t[0]);
      } else {
        total += static_cast<std::size_t>(r.ptr - buf) + static_cast<unsigned char>(buf[0]);
      }
    }
    benchmark::DoNotOptimize(total);
  });
}

// ---- sanity: the two sides do the same work ------------------------------------------------------

/// binary32: lf::parse and std::from_chars agree on every string, lf::to_shortest and std::to_chars
/// on every value (decimal.hpp promises the same text for binary32). A benchmark of a wrong result
/// would mean nothing, so a mismatch stops the program.
bool binary32_agrees() {
  for (data d : {data::random, data::literals}) {
    const strings in = make_strings<lf::binary32>(d);
    for (auto t : in.views) {
      float f = 0;
      std::from_chars(t.data(), t.data() + t.size(), f);
      const auto x = lf::parse<lf::binary32>(t).value;
      if (x.bits() != std::bit_cast<std::uint32_t>(f)) return false;
      char buf[64];
      const auto r = std::to_chars(buf, buf + sizeof buf, f);
      if (lf::to_shortest(x) != std::string_view(buf, static_cast<std::size_t>(r.ptr - buf))) return false;
    }
  }
  return true;
}

// ---- registration ------------------------------------------------------------------------------

template <typename Fn, typename... Args>
void reg(const std::string& name, Fn fn, Args... args) {
  benchmark::RegisterBenchmark(name.c_str(), fn, args...);
}

template <lf::format F>
void register_format(const std::string& fname) {
  for (data d : {data::random, data::literals}) {
    const std::string ds = d == data::random ? "/random" : "/literals";
    reg("parse/" + fname + ds, bm_parse<F>, d);
    reg("parse_runtime/" + fname + ds, bm_parse_runtime<F>, d);
    reg("std/from_chars/" + fname + ds, bm_std_from_chars<F>, d);
    reg("print/" + fname + ds, bm_print<F>, d);
    reg("std/to_chars/" + fname + ds, bm_std_to_chars<F, false>, d);
    reg("std/to_chars_string/" + fname + ds, bm_std_to_chars<F, true>, d);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (!binary32_agrees()) {
    std::fputs("bench_decimal: lf::parse / lf::to_shortest disagree with std::from_chars / std::to_chars "
               "on binary32; not measuring\n", stderr);
    return 1;
  }
  register_format<lf::binary16>("fp16");
  register_format<lf::bfloat16>("bf16");
  register_format<lf::binary32>("fp32");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
