#include "tk/Frontend/SymbolIndex.h"

#include <algorithm>

namespace tk {

namespace {
bool before(uint32_t lineA, uint32_t colA, uint32_t lineB, uint32_t colB) {
  return lineA < lineB || (lineA == lineB && colA < colB);
}

/// Whether `a` lies inside `b` (the smaller of two nested ranges).
bool inside(SrcRange a, SrcRange b) {
  return !before(a.begin.line, a.begin.col, b.begin.line, b.begin.col) &&
         !before(b.end.line, b.end.col, a.end.line, a.end.col);
}
} // namespace

bool rangeHolds(SrcRange range, SrcLoc at) {
  if (!range.begin.valid() || range.begin.fileId != at.fileId)
    return false;
  if (before(at.line, at.col, range.begin.line, range.begin.col))
    return false;
  bool empty = !before(range.begin.line, range.begin.col, range.end.line, range.end.col);
  return empty ? at.line == range.begin.line && at.col == range.begin.col
               : before(at.line, at.col, range.end.line, range.end.col);
}

void SymbolIndex::addHover(SrcRange range, std::string text) {
  if (!range.begin.valid() || hovers_.size() >= kMaxEntries)
    return;
  if (seenHovers_.emplace(key(range), text).second)
    hovers_.push_back({range, std::move(text)});
}

void SymbolIndex::addReference(SrcRange use, SrcRange decl) {
  if (!use.begin.valid() || !decl.begin.valid() || references_.size() >= kMaxEntries)
    return;
  if (seenReferences_.insert(key(use)).second)
    references_.emplace_back(use, decl);
}

std::vector<std::string> SymbolIndex::hoverAt(SrcLoc at) const {
  const Hover *innermost = nullptr;
  for (const Hover &h : hovers_)
    if (rangeHolds(h.range, at) && (!innermost || inside(h.range, innermost->range)))
      innermost = &h;
  std::vector<std::string> texts;
  if (!innermost)
    return texts;
  for (const Hover &h : hovers_)
    if (key(h.range) == key(innermost->range) && std::find(texts.begin(), texts.end(), h.text) == texts.end())
      texts.push_back(h.text);
  return texts;
}

std::optional<SrcRange> SymbolIndex::definitionAt(SrcLoc at) const {
  for (const auto &[use, decl] : references_)
    if (rangeHolds(use, at))
      return decl;
  return std::nullopt;
}

} // namespace tk
