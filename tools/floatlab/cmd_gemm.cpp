// floatlab gemm: C = A*B under several accumulation models and matrix units side by side, each
// model's largest error over C against the exact products. Shared code: accum_cli.hpp.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "accum_cli.hpp"
#include "commands.hpp"

namespace floatlab {

namespace {

struct gemm_options {
  std::vector<std::string> files;
  std::size_t m = 64, n = 64, k = 256;
  accum::dist_options dist;
  std::string input_format = "fp16";
  std::string models = "fp16-acc,fp32-acc,ampere_fp16,hopper_fp8,exact";
  std::string rounding;
  std::string fp8_scaling = "current";
  bool json = false;
};

/// Largest M*N*K accepted (the models run at 5-50 ns per multiply-add).
constexpr std::size_t max_work = std::size_t{1} << 30;

struct matrix {
  std::size_t rows = 0, cols = 0;
  accum::vec v;
};

/// A matrix from a text file: one row per line, the same count of numbers on every line.
matrix read_matrix(const std::string& path, const lf::format& f, const char* which) {
  const accum::table_file t = accum::read_table(path, f);
  matrix out;
  out.rows = t.rows.size();
  out.cols = t.rows[0].size();
  const std::string name = path == "-" ? "<stdin>" : path;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    if (t.rows[r].size() != out.cols)
      throw usage_error(fmt::format("{}:{}: {} numbers on the line, but the first row of {} has {}; every row of a "
                                    "matrix needs the same count",
                                    name, t.line_of_row[r], t.rows[r].size(), which, out.cols));
    out.v.bits.insert(out.v.bits.end(), t.rows[r].begin(), t.rows[r].end());
  }
  out.v.flags = t.flags;
  out.v.changed = t.changed;
  return out;
}

/// NaN-propagating maximum.
double max_nan(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }

struct model_run {
  std::vector<lf::bits_t> c;
  lf::format fmt = lf::binary32;
  lf::status flags{};
  std::string note;
  lf::error_measures max{0, 0, 0, 0};
  std::size_t worst = 0;
  double worst_ulps = -1;
};

int run_gemm(const CLI::App& cmd, const gemm_options& o) {
  if (o.models == "list") {
    output_buffer out;
    out << accum::model_list_text();
    return exit_success;
  }
  const lf::format data = accum::input_format_or_throw(o.input_format);
  const auto rounding = accum::rounding_or_throw(o.rounding);
  const std::vector<accum::model_spec> models = accum::parse_models(o.models, rounding, o.dist.seed, accum::fp8_scaling_or_throw(o.fp8_scaling));

  std::size_t M, N, K;
  matrix A, B;
  if (o.files.empty()) {
    accum::check_dist_options(cmd, o.dist);
    M = o.m, N = o.n, K = o.k;
    if (M < 1 || N < 1 || K < 1)
      throw usage_error(fmt::format("bad sizes --m {} --n {} --k {}: each must be at least 1", M, N, K));
    if (M > max_work / N || M * N > max_work / K)
      throw usage_error(fmt::format("bad sizes --m {} --n {} --k {}: M*N*K must be at most {}", M, N, K, max_work));
    accum::generator g(o.dist);
    A = {M, K, accum::generate(g, M * K, data)};
    B = {K, N, accum::generate(g, K * N, data)};
  } else {
    accum::check_generated_or_file(cmd, true,
                                   {"--m", "--n", "--k", "--dist", "--mean", "--stddev", "--low", "--high", "--value",
                                    "--seed"});
    if (o.files.size() != 2) throw usage_error("gemm reads two FILEs, A (M rows of K numbers) and B (K rows of N)");
    if (o.files[0] == "-" && o.files[1] == "-") throw usage_error("only one FILE can be '-' (stdin)");
    A = read_matrix(o.files[0], data, "A");
    B = read_matrix(o.files[1], data, "B");
    if (A.cols != B.rows)
      throw usage_error(fmt::format("bad sizes: A ({}) is {} x {}, so B ({}) needs K = {} rows, but it has {} rows "
                                    "(of {} numbers)",
                                    o.files[0], A.rows, A.cols, o.files[1], A.cols, B.rows, B.cols));
    M = A.rows, K = A.cols, N = B.cols;
    if (M > max_work / N || M * N > max_work / K)
      throw usage_error(fmt::format("bad sizes: M*N*K = {}*{}*{} is more than {}", M, N, K, max_work));
  }

  // Every model's C (C starts at +0).
  std::vector<model_run> runs(models.size());
  for (std::size_t t = 0; t < models.size(); ++t) {
    const auto& s = models[t];
    auto& r = runs[t];
    if (s.kind == accum::model_kind::exact) continue;
    r.fmt = s.accumulator();
    if (s.uses_scaling(data)) {
      accum::scaled_gemm_result g = accum::run_scaled_gemm(s, data, A.v.bits, B.v.bits, M, N, K);
      r.c = std::move(g.c);
      r.flags = g.flags;
      r.note = std::move(g.note);
      continue;
    }
    const lf::format in = s.input(data);
    const accum::vec a = accum::convert_all(data, in, A.v.bits, s.input_env()),
                     b = accum::convert_all(data, in, B.v.bits, s.input_env());
    r.note = accum::conversion_note(s, data, a.changed + b.changed, a.flags | b.flags, M * K + K * N);
    r.c.assign(M * N, 0);
    if (s.kind == accum::model_kind::accumulation) {
      lf::gemm(s.acc, M, N, K, a.bits, b.bits, r.c, &r.flags);
    } else {
      std::vector<lf::bits_t> col(K);
      for (std::size_t j = 0; j < N; ++j) {
        for (std::size_t q = 0; q < K; ++q) col[q] = b.bits[q * N + j];
        for (std::size_t i = 0; i < M; ++i)
          r.c[i * N + j] = lf::dot(s.mu, in, std::span(a.bits).subspan(i * K, K), in, col, 0, r.flags);
      }
    }
  }

  // The exact products, element by element, and every model's errors.
  std::vector<double> exact_c(M * N);
  std::vector<char> exact_in_fp64(M * N);
  lf::status exact_flags{};
  const lf::bits_t abs_mask = ~data.sign_mask();
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      lf::exact_accumulator ex, mag;
      for (std::size_t q = 0; q < K; ++q) {
        const lf::bits_t x = A.v.bits[i * K + q], y = B.v.bits[q * N + j];
        ex.add_product(data, x, data, y);
        mag.add_product(data, x & abs_mask, data, y & abs_mask);
      }
      lf::status display{};
      exact_c[i * N + j] = std::bit_cast<double>(ex.round_to(lf::binary64, lf::env{}, display));
      exact_in_fp64[i * N + j] = !lf::has(display, lf::status::inexact);
      exact_flags |= ex.flags();
      for (std::size_t t = 0; t < models.size(); ++t) {
        auto& r = runs[t];
        if (models[t].kind == accum::model_kind::exact) continue;
        const lf::error_measures e = lf::measure_error(r.fmt, r.c[i * N + j], ex, K, &mag);
        r.max = {max_nan(r.max.absolute, e.absolute), max_nan(r.max.relative, e.relative),
                 max_nan(r.max.ulps, e.ulps), max_nan(r.max.bound_ratio, e.bound_ratio)};
        if (e.ulps > r.worst_ulps || (std::isnan(e.ulps) && !std::isnan(r.worst_ulps))) {
          r.worst_ulps = e.ulps;
          r.worst = i * N + j;
        }
      }
    }
  for (std::size_t t = 0; t < models.size(); ++t)
    if (models[t].kind == accum::model_kind::exact) runs[t].flags = exact_flags;

  const lf::status input_flags = A.v.flags | B.v.flags;
  const std::size_t changed = A.v.changed + B.v.changed;
  output_buffer out;
  auto exact_text = [&](std::size_t idx) {
    return fmt::format("{}{}", exact_in_fp64[idx] ? "" : "~", accum::shortest(exact_c[idx]));
  };
  auto elem = [&](std::size_t t, std::size_t idx) {
    if (models[t].kind == accum::model_kind::exact) return exact_text(idx);
    return lf::to_shortest(runs[t].fmt, runs[t].c[idx]);
  };
  if (o.json) {
    out << fmt::format(R"({{"schema":"floatlab-accum/1","command":"gemm","m":{},"n":{},"k":{},"input_format":{},"data":)",
                       M, N, K, accum::json_string(lf::format_name(data)));
    if (o.files.empty()) {
      out << fmt::format(R"({{"source":"generated","dist":{},"seed":{}}})", accum::json_string(o.dist.dist),
                         o.dist.seed);
    } else {
      out << fmt::format(R"({{"source":"file","files":[{},{}]}})", accum::json_string(o.files[0]),
                         accum::json_string(o.files[1]));
    }
    out << fmt::format(R"(,"input_flags":{},"inputs_changed":{},"models":[)", accum::json_flags(input_flags), changed);
    for (std::size_t t = 0; t < models.size(); ++t) {
      const auto& s = models[t];
      const auto& r = runs[t];
      const bool ex = s.kind == accum::model_kind::exact;
      out << fmt::format(
          R"({}{{"name":{},"kind":{},"description":{},"input_format":{},"accumulator_format":{},"input_conversion":{},"flags":{},"max_error":{},"worst":{{"i":{},"j":{},"result":{},"exact":{}}},"c":[)",
          t ? "," : "", accum::json_string(s.name), accum::json_string(s.kind_name()),
          accum::json_string(s.description), accum::json_string(lf::format_name(s.input(data))),
          accum::json_string(lf::format_name(ex ? lf::binary64 : r.fmt)), accum::json_string(r.note),
          accum::json_flags(r.flags), accum::json_errors(r.max), r.worst / N, r.worst % N,
          accum::json_string(elem(t, r.worst)), accum::json_string(exact_text(r.worst)));
      for (std::size_t idx = 0; idx < M * N; ++idx) {
        if (idx) out << ',';
        out << accum::json_string(elem(t, idx));
      }
      out << "]}";
    }
    out << "]}\n";
    return exit_success;
  }

  std::string source;
  if (o.files.empty()) {
    source = accum::generated_text(o.dist);
  } else {
    source = "read from " + o.files[0] + " " + o.files[1];
  }
  out << fmt::format("floatlab gemm: C = A*B, C starting at +0; M x N x K = {} x {} x {}; {} data {}; rounding to {} "
                     "changed {} values{}\n\n",
                     M, N, K, lf::format_name(data), source, lf::format_name(data), changed,
                     input_flags == lf::status::none ? "" : " (flags " + accum::flags_text(input_flags) + ")");
  std::vector<std::vector<std::string>> rows{{"model", "accumulator", "max abs err", "max rel err", "max ulps",
                                              "max err/(K*u)", "flags", "worst C_ij: result vs exact"}};
  for (std::size_t t = 0; t < models.size(); ++t) {
    const auto& r = runs[t];
    const bool ex = models[t].kind == accum::model_kind::exact;
    rows.push_back({models[t].name, ex ? "exact" : lf::format_name(r.fmt), accum::short_number(r.max.absolute),
                    accum::short_number(r.max.relative), accum::short_number(r.max.ulps),
                    accum::short_number(r.max.bound_ratio), accum::flags_text(r.flags),
                    ex ? "" : fmt::format("C[{}][{}]: {} vs {}", r.worst / N, r.worst % N, elem(t, r.worst),
                                          exact_text(r.worst))});
  }
  out << accum::text_table(rows);
  bool any_note = false;
  for (std::size_t t = 0; t < models.size(); ++t) {
    if (runs[t].note.empty()) continue;
    if (!any_note) out << "\n";
    any_note = true;
    out << fmt::format("  {}: {}\n", models[t].name, runs[t].note);
  }
  return exit_success;
}

}  // namespace

command register_gemm(CLI::App& app) {
  auto o = std::make_shared<gemm_options>();
  CLI::App* cmd = app.add_subcommand("gemm", "Matrix product C = A*B under several accumulation models and matrix "
                                             "units side by side, with each model's largest error over C");
  cmd->add_option("FILE", o->files,
                  "Data: A (M rows of K numbers, one row per line) and B (K rows of N numbers); without FILEs, "
                  "A and B are generated (--m, --n, --k, --dist, --seed)")
      ->expected(0, 2);
  add_whole_number_option(*cmd, "--m", o->m, "Generated data: rows of A and C", 1, max_work)
      ->type_name("M")
      ->capture_default_str();
  add_whole_number_option(*cmd, "--n", o->n, "Generated data: columns of B and C", 1, max_work)
      ->type_name("N")
      ->capture_default_str();
  add_whole_number_option(*cmd, "--k", o->k, "Generated data: columns of A, rows of B (the dot-product length)", 1,
                          max_work)
      ->type_name("K")
      ->capture_default_str();
  accum::add_dist_options(*cmd, o->dist);
  accum::add_model_options(*cmd, o->models, o->input_format, o->rounding, o->json, o->fp8_scaling);
  cmd->footer([] {
    return std::string(accum::error_columns_help) + R"(
gemm: every C_ij is a dot product of length K starting at +0; the table shows each measure's
largest value over C (n = K in the bound) and the element with the largest ulps error. The
accumulation models run on both cores (the result does not depend on the thread count).
Generated data: A is drawn first (row-major), then B.
Exit status: 0 success; 2 bad usage or input (an unknown model or format, a line that is not a
number ("FILE:LINE: ..."), rows of different lengths, A's columns != B's rows, an empty file,
bad sizes).

)" + std::string(accum::json_schema_help) + R"(

Examples:
  floatlab gemm --m 32 --n 32 --k 1024 --model fp32-acc,ampere_fp16,hopper_fp16,exact
  floatlab gemm --m 16 --n 16 --k 4096 --dist uniform --model hopper_fp8,deepseek_fp8_promote128,exact
  floatlab gemm --m 16 --n 16 --k 1024 --stddev 1e-3 --model fp32-acc,hopper_fp8,mxfp8,nvfp4,exact
  floatlab gemm A.txt B.txt --input-format bf16 --model bf16-fp32-acc,ampere_bf16,exact --json)";
  });
  return {cmd, [cmd, o] { return run_gemm(*cmd, *o); }};
}

const register_command registered_gemm{72, register_gemm};

}  // namespace floatlab
