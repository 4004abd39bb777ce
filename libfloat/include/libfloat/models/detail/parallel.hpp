// libfloat/models/detail/parallel.hpp: the threads behind gemm (models/accumulate.hpp). No
// rounding here: parallel_for only runs the caller's task once for each index, some of them on
// other threads.
//
// Why a header of its own, with the work passed as a function pointer: <thread> (and what it
// brings) costs every translation unit that includes the models about 0.2 s of GCC 12's time. A
// program that links libfloat::runtime (LIBFLOAT_SEPARATE_RUNTIME) sees only the declarations
// below and the explicit instantiation that libfloat/src/models_instances.cpp compiles; a
// header-only program compiles the definitions too. The functions are templates on a parameter
// that is always void so that both ways are the same definition (an extern template, as the
// run-time operations of core/detail/runtime_entry.hpp).
#pragma once

#include <cstddef>

namespace lf::detail {

/// The number of threads `threads` asks for: itself when nonzero, else
/// std::thread::hardware_concurrency() (at least 1).
template <class Lazy = void>
unsigned parallel_threads(unsigned threads);

/// Runs task(context, t) for every t in [0, count): t = 0 on the calling thread, the others on
/// threads of their own, or on the calling thread when one cannot be started (the same calls, the
/// same results). Returns once every call has returned.
template <class Lazy = void>
void parallel_for(std::size_t count, void (*task)(void*, std::size_t), void* context);

}  // namespace lf::detail

#if !defined(LIBFLOAT_SEPARATE_RUNTIME) || defined(LIBFLOAT_DEFINE_RUNTIME)
#include <system_error>
#include <thread>
#include <vector>

namespace lf::detail {

template <class Lazy>
unsigned parallel_threads(unsigned threads) {
  if (threads != 0) return threads;
  const unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 1u : h;
}

template <class Lazy>
void parallel_for(std::size_t count, void (*task)(void*, std::size_t), void* context) {
  std::vector<std::thread> workers;
  for (std::size_t t = 1; t < count; ++t) {
    try {
      workers.emplace_back(task, context, t);
    } catch (const std::system_error&) {
      task(context, t);  // no thread available: the same call on this thread
    }
  }
  if (count > 0) task(context, 0);
  for (auto& w : workers) w.join();
}

}  // namespace lf::detail
#endif

#if defined(LIBFLOAT_SEPARATE_RUNTIME)
namespace lf::detail {
extern template unsigned parallel_threads<void>(unsigned);
extern template void parallel_for<void>(std::size_t, void (*)(void*, std::size_t), void*);
}  // namespace lf::detail
#endif
