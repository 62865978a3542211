// The tuning database: one JSON file per tuned (kernel, key values, GPU, specialization)
// under <cache dir>/tuning/, written by rename, so a second process tunes nothing.
#ifndef TK_RUNTIME_TUNINGDATABASE_H
#define TK_RUNTIME_TUNINGDATABASE_H

#include "tk/Runtime/Jit.h"

#include <optional>
#include <string>

namespace tk {

struct TuningEntry {
  std::string kernel, kernelHash, gpu, specialization, keyValues; // keyValues: "M=4096, N=4096"
  Config config;
  double ms = 0;
};

/// The JSON text of an entry.
std::string tuningEntryJson(const TuningEntry &entry);
/// The largest entry read, and the deepest nesting of objects and arrays parsed (llvm::json
/// recurses once a level: deeper text is refused before parsing).
constexpr uint64_t kMaxTuningEntryBytes = 1u << 20;
constexpr int kMaxJsonNesting = 64;
/// Parses an entry; none (with `error`) when the text is not one.
std::optional<TuningEntry> parseTuningEntry(const std::string &text, std::string &error);

} // namespace tk

#endif
