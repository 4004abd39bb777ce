// Shared by the libFuzzer targets tests/fuzz/fuzz_*.cpp (built by tests/fuzz/run_all.sh).
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace fuzz {

// Aborts with WHAT on stderr unless OK: libFuzzer reports the abort as a crash and keeps the input.
inline void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant violated: %s\n", what);
    std::abort();
  }
}

// The entry of TABLE (an array) that BYTE selects: BYTE modulo the table's size.
template <class Table>
const auto& pick(const Table& table, std::size_t byte) {
  return table[byte % std::size(table)];
}

}  // namespace fuzz
