// tests/fast/proof_selection.hpp: which part of an enumerated domain one proof process checks (also
// the exhaustive pair tests, tests/core/pairs_common.hpp).
//
// A domain is 2^16 chunks c (a chunk: 65536 floats, or the 65536 pairs with one first operand).
//   LIBFLOAT_EXHAUSTIVE_SHARDS / LIBFLOAT_EXHAUSTIVE_SHARD: the process takes chunks c with
//       c % SHARDS == SHARD (default 1 / 0); ctest runs single-threaded shards in parallel.
//   LIBFLOAT_PROOF_PART: all | auto | a day number d. Of its chunks, a rotation of n parts checks
//       those with (c / SHARDS) % n == d % n; auto (the default) takes d = days since 1970-01-01 UTC,
//       so n consecutive days cover the whole domain; all checks every chunk.
// Each test says which rotations (n) it uses for what, and prints the selection it ran.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

namespace proof {

inline std::string env_str(const char* name, const char* fallback) {
  const char* s = std::getenv(name);
  return s && *s ? std::string(s) : std::string(fallback);
}

/// A comma-separated list of names from the environment (LIBFLOAT_PROOF_FORMATS, _MODES, _POLICIES,
/// _OPS): "all", or the names it lets through.
struct name_filter {
  std::string list;
  bool operator()(const std::string& name) const {
    return list == "all" || ("," + list + ",").find("," + name + ",") != std::string::npos;
  }
  /// The names in the list that are not in `known` (empty when the list is "all").
  std::string unknown(const std::vector<std::string>& known) const {
    if (list == "all") return {};
    std::string bad, item;
    for (std::size_t i = 0; i <= list.size(); ++i) {
      if (i < list.size() && list[i] != ',') {
        item += list[i];
        continue;
      }
      bool found = false;
      for (const auto& k : known) found |= k == item;
      if (!found) bad += (bad.empty() ? "" : ", ") + ("'" + item + "'");
      item.clear();
    }
    return bad;
  }
};

inline std::size_t env_num(const char* name, std::size_t fallback) {
  const char* s = std::getenv(name);
  return s && *s ? static_cast<std::size_t>(std::strtoull(s, nullptr, 10)) : fallback;
}

struct selection {
  std::size_t shards = 1, shard = 0;
  bool all = false;
  long long day = 0;
  std::string how;

  /// Whether chunk c is checked by a rotation of n parts.
  bool selected(std::size_t c, int n) const {
    if (c % shards != shard) return false;
    return all || static_cast<long long>((c / shards) % static_cast<std::size_t>(n)) == day % n;
  }
  /// "part k of n" (or "all of it") for a message.
  std::string part_text(int n) const {
    return all ? std::string("all of it") : "part " + std::to_string(day % n) + " of " + std::to_string(n);
  }
};

inline selection select_chunks() {
  selection s;
  s.shards = std::max<std::size_t>(1, env_num("LIBFLOAT_EXHAUSTIVE_SHARDS", 1));
  s.shard = env_num("LIBFLOAT_EXHAUSTIVE_SHARD", 0) % s.shards;
  const std::string part = env_str("LIBFLOAT_PROOF_PART", "auto");
  if (part == "all") {
    s.all = true;
    s.how = "everything (LIBFLOAT_PROOF_PART=all)";
  } else if (part == "auto") {
    s.day = static_cast<long long>(std::time(nullptr)) / 86400;
    s.how = "day " + std::to_string(s.day) + " since 1970-01-01 UTC (LIBFLOAT_PROOF_PART=auto; all runs everything)";
  } else {
    s.day = std::max(0LL, std::strtoll(part.c_str(), nullptr, 10));
    s.how = "day " + std::to_string(s.day) + " (LIBFLOAT_PROOF_PART=" + part + "; all runs everything)";
  }
  return s;
}

}  // namespace proof
