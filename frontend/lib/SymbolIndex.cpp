#include "tk/Frontend/SymbolIndex.h"


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
  if (!range.begin.valid())
    return;
  auto [it, added] = hoverOf_.emplace(key(range), hovers_.size());
  if (added) {
    if (hovers_.size() >= kMaxEntries) {
      hoverOf_.erase(it);
      return;
    }
    hovers_.push_back({range, {}, 0, {}});
  }
  Hover &h = hovers_[it->second];
  if (h.seen.count(text))
    return;
  if (h.texts.size() < kMaxTextsPerRange) {
    h.seen.insert(text);
    h.texts.push_back(std::move(text));
  } else if (h.seen.size() < kMaxTextsPerRange * 64) { // counted exactly up to a bound
    h.seen.insert(std::move(text));
    ++h.dropped;
  }
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
  if (!innermost)
    return {};
  std::vector<std::string> texts = innermost->texts;
  if (innermost->dropped)
    texts.push_back("... " + std::to_string(innermost->dropped) +
                    (innermost->seen.size() >= kMaxTextsPerRange * 64 ? "+" : "") + " more");
  return texts;
}

std::optional<SrcRange> SymbolIndex::definitionAt(SrcLoc at) const {
  for (const auto &[use, decl] : references_)
    if (rangeHolds(use, at))
      return decl;
  return std::nullopt;
}

} // namespace tk
