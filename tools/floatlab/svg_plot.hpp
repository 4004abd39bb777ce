// tools/floatlab/svg_plot.hpp: the charts of `floatlab grads --plot` as SVG files.
//
// write_histogram_svg: one bar per binary exponent floor(log2|x*S|); each format's window is shaded
// over the plot (subnormal part lighter) and drawn again as a labelled band under the x axis; a
// legend names the formats.
// write_error_steps_svg (grads --recipe): one step line per recipe, the error of each run of blocks
// along the tensor on a log10 axis.
// Plain SVG 1.1, no script, no external resources.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include <libfloat/training/range_report.hpp>

namespace floatlab {

struct svg_window {
  std::string name;
  lf::training::range_window window;
};

/// Text made safe for XML character data and attribute values.
inline std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // control characters are not allowed in XML 1.0
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') out += '?';
        else out += c;
    }
  }
  return out;
}

/// Writes the chart; returns false (errno set) when the file cannot be written.
/// bins: (exponent, count) pairs, any order, counts > 0. The x axis spans the data (with a margin of
/// 4 binades; the windows only when there is no data), and windows beyond it are cut at its ends,
/// marked with an arrow. log_y: counts on a log10 axis (each bar's height log10(1 + count)).
inline bool write_histogram_svg(const std::string& path, const std::string& title, const std::string& x_label,
                                const std::vector<std::pair<int, std::uint64_t>>& bins,
                                const std::vector<svg_window>& windows, bool log_y = false) {
  static constexpr const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"};
  const int n_windows = static_cast<int>(windows.size());
  std::uint64_t max_count = 0;
  for (const auto& [e, n] : bins) max_count = std::max(max_count, n);
  // y ticks: 0, max/4, ..., max (linear), or 1, 10, 100, ... up to the max (log).
  std::vector<std::pair<double, std::string>> y_ticks;
  const auto height_of = [&](double c) { return log_y ? std::log10(1.0 + c) : c; };
  const double y_top = max_count ? height_of(static_cast<double>(max_count)) : 1.0;
  if (log_y) {
    y_ticks.push_back({0.0, "0"});
    for (double p = 1; p <= static_cast<double>(std::max<std::uint64_t>(max_count, 1)); p *= 10)
      y_ticks.push_back({p, fmt::format("{:.0f}", p)});
  } else {
    for (int i = 0; i <= 4; ++i) {
      const double c = static_cast<double>(max_count) * i / 4;
      y_ticks.push_back({c, fmt::format("{:.0f}", c)});
    }
  }
  std::size_t widest = 1;
  for (const auto& t : y_ticks) widest = std::max(widest, t.second.size());
  // The y axis title sits left of the widest tick label (about 7 px a character), never on it.
  const double W = 960, right = 30, top = 70;
  const double left = std::max(80.0, 44.0 + 7.0 * static_cast<double>(widest));
  const double plot_h = 320, lane_h = 18;
  const double bottom_axis = top + plot_h;
  const double lanes_top = bottom_axis + 44;
  const double H = lanes_top + lane_h * n_windows + 50;
  const double plot_w = W - left - right;

  int lo = 0, hi = 0;
  bool first = true;
  auto widen = [&](int a, int b) {
    if (first) {
      lo = a;
      hi = b;
      first = false;
    } else {
      lo = std::min(lo, a);
      hi = std::max(hi, b);
    }
  };
  for (const auto& [e, n] : bins) widen(e, e);
  if (bins.empty())
    for (const svg_window& w : windows) widen(w.window.min_subnormal_exp, w.window.max_exp);
  lo -= 4;
  hi += 5;  // hi is exclusive: the last bin [hi-1, hi)
  const double span = hi - lo;
  auto X = [&](double e) { return left + (std::clamp(e, double(lo), double(hi)) - lo) / span * plot_w; };
  auto Y = [&](double c) { return bottom_axis - height_of(c) / y_top * plot_h; };

  std::string s;
  s += fmt::format(R"(<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{:.0f}" height="{:.0f}" viewBox="0 0 {:.0f} {:.0f}" font-family="sans-serif" font-size="12">
<title>{}</title>
<rect x="0" y="0" width="{:.0f}" height="{:.0f}" fill="white"/>
<text x="{:.1f}" y="28" font-size="16" text-anchor="middle">{}</text>
)",
                   W, H, W, H, xml_escape(title), W, H, W / 2, xml_escape(title));
  // Windows shaded over the plot: subnormal range lighter, normal range darker.
  for (int i = 0; i < n_windows; ++i) {
    const auto& w = windows[static_cast<std::size_t>(i)].window;
    const char* col = colours[i % 7];
    s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" fill-opacity="0.05"/>
<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" fill-opacity="0.10"/>
)",
                     X(w.min_subnormal_exp), top, X(w.min_normal_exp) - X(w.min_subnormal_exp), plot_h, col,
                     X(w.min_normal_exp), top, X(w.max_exp + 1) - X(w.min_normal_exp), plot_h, col);
  }
  // Bars.
  for (const auto& [e, n] : bins)
    s += fmt::format(R"(<rect x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="#444444"><title>2^{}: {} values</title></rect>
)",
                     X(e) + 0.5, Y(static_cast<double>(n)), std::max(0.5, X(e + 1) - X(e) - 1),
                     bottom_axis - Y(static_cast<double>(n)), e, n);
  // Axes.
  s += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}" stroke="black"/>
<line x1="{0:.1f}" y1="{3:.1f}" x2="{0:.1f}" y2="{1:.1f}" stroke="black"/>
)",
                   left, bottom_axis, left + plot_w, top);
  // x ticks: every 1, 2, 5, 10, 20, 50... exponents so that at most ~24 labels fit.
  int step = 1;
  for (int c : {1, 2, 5, 10, 20, 50, 100, 200, 500})
    if (span / c <= 24) {
      step = c;
      break;
    } else step = c;
  for (int e = lo - ((lo % step) + step) % step; e <= hi; e += step) {
    if (e < lo) continue;
    const double x = X(e);
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="black"/>
<text x="{0:.1f}" y="{3:.1f}" text-anchor="middle">{4}</text>
)",
                     x, bottom_axis, bottom_axis + 5, bottom_axis + 18, e);
  }
  s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>
)",
                   left + plot_w / 2, bottom_axis + 34, xml_escape(x_label));
  for (const auto& [c, label] : y_ticks) {
    const double y = Y(c);
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}" stroke="black"/>
<text x="{3:.1f}" y="{4:.1f}" text-anchor="end">{5}</text>
)",
                     left - 5, y, left, left - 8, y + 4, label);
  }
  s += fmt::format(R"svg(<text transform="translate(18 {:.1f}) rotate(-90)" text-anchor="middle">values per binary exponent{}</text>
)svg",
                   top + plot_h / 2, log_y ? " (log scale)" : "");
  // Window bands under the axis, labelled.
  for (int i = 0; i < n_windows; ++i) {
    const auto& nw = windows[static_cast<std::size_t>(i)];
    const char* col = colours[i % 7];
    const double y = lanes_top + lane_h * i;
    s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" fill-opacity="0.35"/>
<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" fill-opacity="0.85"/>
<text x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>
)",
                     X(nw.window.min_subnormal_exp), y + 2, X(nw.window.min_normal_exp) - X(nw.window.min_subnormal_exp),
                     lane_h - 4, col, X(nw.window.min_normal_exp), y + 2,
                     X(nw.window.max_exp + 1) - X(nw.window.min_normal_exp), lane_h - 4, col, left - 8, y + 13,
                     xml_escape(nw.name));
    // A window that goes on beyond the axis: an arrow at the cut end.
    if (nw.window.min_subnormal_exp < lo)
      s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="11">&#8592; 2^{}</text>
)",
                       left + 2, y + 12, nw.window.min_subnormal_exp);
    if (nw.window.max_exp + 1 > hi)
      s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="11" text-anchor="end">2^{} &#8594;</text>
)",
                       left + plot_w - 2, y + 12, nw.window.max_exp);
  }
  // Legend, top right.
  double ly = 44;
  double legend_w = 110;
  for (const svg_window& w : windows) legend_w += 30 + 7.0 * static_cast<double>(w.name.size());
  double lx = std::max(left, left + plot_w - legend_w);
  s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="12" height="12" fill="#444444"/><text x="{:.1f}" y="{:.1f}">values (bars)</text>
)",
                   lx, ly - 10, lx + 16, ly);
  lx += 110;
  for (int i = 0; i < n_windows; ++i) {
    s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="12" height="12" fill="{}" fill-opacity="0.85"/><text x="{:.1f}" y="{:.1f}">{}</text>
)",
                     lx, ly - 10, colours[i % 7], lx + 16, ly, xml_escape(windows[static_cast<std::size_t>(i)].name));
    lx += 30 + 7.0 * static_cast<double>(windows[static_cast<std::size_t>(i)].name.size());
  }
  s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" fill="#555555">windows: light = subnormal, dark = normal; left of a window values flush to zero, right of it they overflow</text>
)",
                   left, H - 14);
  s += "</svg>\n";

  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(s.data(), 1, s.size(), f) == s.size();
  return std::fclose(f) == 0 && ok;
}

/// One line of write_error_steps_svg: a value per interval [x0, x1) of [0, 1]; NaN leaves a gap.
struct svg_steps {
  std::string name;
  struct step {
    double x0, x1, value;
  };
  std::vector<step> steps;
};

/// Writes a step chart of positive values on a log10 axis: each series is drawn as horizontal
/// segments over its intervals; values at or below `floor` (0 included) are drawn at the floor.
/// Returns false (errno set) when the file cannot be written.
inline bool write_error_steps_svg(const std::string& path, const std::string& title, const std::string& x_label,
                                  const std::string& y_label, const std::vector<svg_steps>& series,
                                  double floor = 1e-9) {
  static constexpr const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"};
  const double W = 960, H = 520, left = 80, right = 30, top = 70, plot_h = 340;
  const double plot_w = W - left - right, bottom_axis = top + plot_h;
  // 1. The decades the values span (at least one).
  double lo = 0, hi = 0;
  bool any = false;
  for (const svg_steps& s : series)
    for (const auto& st : s.steps) {
      if (std::isnan(st.value)) continue;
      const double l = std::log10(std::max(st.value, floor));
      lo = any ? std::min(lo, l) : l;
      hi = any ? std::max(hi, l) : l;
      any = true;
    }
  const int d_lo = static_cast<int>(std::floor(lo)), d_hi = std::max(d_lo + 1, static_cast<int>(std::ceil(hi)));
  auto X = [&](double x) { return left + x * plot_w; };
  auto Y = [&](double v) {
    const double l = std::log10(std::max(v, floor));
    return bottom_axis - (l - d_lo) / (d_hi - d_lo) * plot_h;
  };
  // 2. Title, axes, ticks (every decade; every tenth of the x range).
  std::string s = fmt::format(R"(<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}" font-family="sans-serif" font-size="12">
<title>{2}</title>
<rect x="0" y="0" width="{0:.0f}" height="{1:.0f}" fill="white"/>
<text x="{3:.1f}" y="28" font-size="16" text-anchor="middle">{2}</text>
<line x1="{4:.1f}" y1="{5:.1f}" x2="{6:.1f}" y2="{5:.1f}" stroke="black"/>
<line x1="{4:.1f}" y1="{7:.1f}" x2="{4:.1f}" y2="{5:.1f}" stroke="black"/>
)",
                              W, H, xml_escape(title), W / 2, left, bottom_axis, left + plot_w, top);
  const int every = std::max(1, (d_hi - d_lo + 9) / 10);
  for (int d = d_lo; d <= d_hi; d += every)
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}" stroke="#dddddd"/>
<text x="{3:.1f}" y="{4:.1f}" text-anchor="end">1e{5}</text>
)",
                     left, Y(std::pow(10.0, d)), left + plot_w, left - 8, Y(std::pow(10.0, d)) + 4, d);
  for (int i = 0; i <= 10; ++i)
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="black"/>
<text x="{0:.1f}" y="{3:.1f}" text-anchor="middle">{4:.1f}</text>
)",
                     X(i / 10.0), bottom_axis, bottom_axis + 5, bottom_axis + 18, i / 10.0);
  s += fmt::format(R"svg(<text x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>
<text transform="translate(18 {:.1f}) rotate(-90)" text-anchor="middle">{}</text>
)svg",
                   left + plot_w / 2, bottom_axis + 36, xml_escape(x_label), top + plot_h / 2, xml_escape(y_label));
  // 3. One path per series (a gap at each NaN), and the legend.
  for (std::size_t i = 0; i < series.size(); ++i) {
    std::string d;
    bool open = false;
    for (const auto& st : series[i].steps) {
      if (std::isnan(st.value)) {
        open = false;
        continue;
      }
      d += fmt::format("{}{:.2f} {:.2f} H{:.2f} ", open ? "L" : "M", X(st.x0), Y(st.value), X(st.x1));
      open = true;
    }
    const char* col = colours[i % 7];
    if (!d.empty())
      s += fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="1.5"><title>{}</title></path>
)",
                       d, col, xml_escape(series[i].name));
    const double lx = left + 10 + 130.0 * static_cast<double>(i % 6), ly = 50 + 16.0 * static_cast<double>(i / 6);
    s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="12" height="12" fill="{}"/><text x="{:.1f}" y="{:.1f}">{}</text>
)",
                     lx, ly - 10, col, lx + 16, ly, xml_escape(series[i].name));
  }
  s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" fill="#555555">values at or below {:g} (exact blocks included) are drawn at {:g}</text>
</svg>
)",
                   left, H - 14, floor, floor);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(s.data(), 1, s.size(), f) == s.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace floatlab
