// What an editor asks of a checked program (`tkc lsp`): the type of each expression and
// declaration at a position, and where the name at a position was declared. Sema fills one
// when it is given one (Sema::setIndex); a program checked without one pays nothing.
#ifndef TK_FRONTEND_SYMBOLINDEX_H
#define TK_FRONTEND_SYMBOLINDEX_H

#include "tk/Frontend/Diagnostics.h"

#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace tk {

class SymbolIndex {
public:
  /// `text` describes what lies at `range` ("x: f32[128]", a signature). One range may get
  /// several texts: a function checked per argument types, a kernel per config.
  void addHover(SrcRange range, std::string text);
  /// The name used at `use` was declared at `decl`.
  void addReference(SrcRange use, SrcRange decl);

  /// The texts of the innermost range holding `at` (distinct, in the order first added).
  std::vector<std::string> hoverAt(SrcLoc at) const;
  /// Where the name at `at` was declared.
  std::optional<SrcRange> definitionAt(SrcLoc at) const;

  /// Beyond this many entries the rest are dropped: unrolled loops and instances repeat ranges,
  /// which are kept once, so only a huge program reaches it.
  static constexpr size_t kMaxEntries = size_t(1) << 20;

private:
  using Key = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>; // file, begin, end
  static Key key(SrcRange r) { return {r.begin.fileId, r.begin.line, r.begin.col, r.end.line, r.end.col}; }
  struct Hover {
    SrcRange range;
    std::string text;
  };
  std::vector<Hover> hovers_;
  std::set<std::pair<Key, std::string>> seenHovers_;
  std::vector<std::pair<SrcRange, SrcRange>> references_;
  std::set<Key> seenReferences_;
};

/// Whether `at` lies in `range` (its end is one past the last character; an empty range holds
/// its begin).
bool rangeHolds(SrcRange range, SrcLoc at);

} // namespace tk

#endif
