// libfloat/models/detail/fp_range.hpp: lf::fp_range, the typed models' contiguous ranges of lf::fp<F>
// (models/accumulate.hpp, models/exact.hpp). Written on std::data and std::size, which <span>
// declares, rather than on <ranges>' concepts: the models then need not include <ranges> (and
// <algorithm>, about 0.2 s of GCC 12's time in every translation unit that includes them).
#pragma once

#include <span>
#include <type_traits>
#include <utility>

#include <libfloat/core/format.hpp>
#include <libfloat/core/fp.hpp>

namespace lf {

namespace detail {
template <class R>
struct fp_range_format {
  static constexpr bool is_fp = false;
};
template <format F>
struct fp_range_format<fp<F>> {
  static constexpr bool is_fp = true;
  static constexpr format fmt = F;
};
/// The element type of a range with data(): the one std::data gives, without const.
template <class R>
using fp_range_value_t = std::remove_cvref_t<decltype(*std::data(std::declval<R&>()))>;
}  // namespace detail

/// A contiguous range of lf::fp<F> values (std::vector<lf::fp16>, std::span<const lf::bf16>, a
/// std::array or a C array of them, ...): std::data and std::size apply, and the elements are fp<F>.
template <class R>
concept fp_range = requires(R& r) {
  std::data(r);
  std::size(r);
} && detail::fp_range_format<detail::fp_range_value_t<R>>::is_fp;

/// The format F of an fp_range of lf::fp<F>.
template <fp_range R>
inline constexpr format fp_range_format_v = detail::fp_range_format<detail::fp_range_value_t<R>>::fmt;

}  // namespace lf
