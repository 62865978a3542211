// What an editor asks of a checked program (`tkc lsp`): the type of each expression and
// declaration at a position, and where the name at a position was declared. Sema fills one
// when it is given one (Sema::setIndex); a program checked without one pays nothing.
#ifndef TK_FRONTEND_SYMBOLINDEX_H
#define TK_FRONTEND_SYMBOLINDEX_H

#include "tk/Frontend/Diagnostics.h"

#include <optional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace tk {

class SymbolIndex {
public:
  /// `text` describes what lies at `range` ("x: f32[128]", a signature). One range may get
  /// several texts (a function checked per argument types, an unrolled loop's variable per
  /// iteration): the first kMaxTextsPerRange are kept, the rest counted.
  void addHover(SrcRange range, std::string text);
  /// The name used at `use` was declared at `decl`.
  void addReference(SrcRange use, SrcRange decl);

  /// The texts of the innermost range holding `at` (distinct, in the order first added; "... N
  /// more" last when some were not kept).
  std::vector<std::string> hoverAt(SrcLoc at) const;
  /// Where the name at `at` was declared.
  std::optional<SrcRange> definitionAt(SrcLoc at) const;

  /// Beyond this many entries the rest are dropped: unrolled loops and instances repeat ranges,
  /// which are kept once, so only a huge program reaches it.
  static constexpr size_t kMaxEntries = size_t(1) << 20;
  static constexpr size_t kMaxTextsPerRange = 8;

private:
  using Key = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>; // file, begin, end
  static Key key(SrcRange r) { return {r.begin.fileId, r.begin.line, r.begin.col, r.end.line, r.end.col}; }
  struct Hover {
    SrcRange range;
    std::vector<std::string> texts; // distinct, at most kMaxTextsPerRange
    size_t dropped = 0;             // distinct texts past those
    std::set<std::string> seen;
  };
  std::vector<Hover> hovers_;
  std::map<Key, size_t> hoverOf_; // range -> its entry in hovers_
  std::vector<std::pair<SrcRange, SrcRange>> references_;
  std::set<Key> seenReferences_;
};

/// Whether `at` lies in `range` (its end is one past the last character; an empty range holds
/// its begin).
bool rangeHolds(SrcRange range, SrcLoc at);

} // namespace tk

#endif
