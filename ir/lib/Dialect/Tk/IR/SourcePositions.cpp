// Source positions of (possibly inlined) ops: SourcePositions.h.
#include "tk/Dialect/Tk/IR/SourcePositions.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tk {

namespace {
void collect(Location loc, llvm::SmallVector<FileLineColLoc> &out) {
  if (auto call = dyn_cast<CallSiteLoc>(loc)) { // callsite(callee at caller): the inner place first
    collect(call.getCallee(), out);
    collect(call.getCaller(), out);
  } else if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    out.push_back(file);
  } else if (auto name = dyn_cast<NameLoc>(loc)) {
    collect(name.getChildLoc(), out);
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) { // (the first place a fusion names)
    for (Location part : fused.getLocations()) {
      size_t before = out.size();
      collect(part, out);
      if (out.size() > before)
        break;
    }
  }
}

std::string text(FileLineColLoc loc) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << loc.getFilename().getValue() << ":" << loc.getLine() << ":" << loc.getColumn();
  return out;
}
} // namespace

llvm::SmallVector<FileLineColLoc> sourcePositions(Location loc) {
  llvm::SmallVector<FileLineColLoc> out;
  collect(loc, out);
  return out;
}

std::string positionPrefix(Location loc) {
  auto positions = sourcePositions(loc);
  return positions.empty() ? "" : text(positions.front()) + ": ";
}

std::string callNotes(Location loc) {
  std::string notes;
  auto positions = sourcePositions(loc);
  for (size_t k = 1; k < positions.size(); ++k)
    notes += "\n" + text(positions[k]) + ": note: in the call to the fn from here";
  return notes;
}

} // namespace tk
