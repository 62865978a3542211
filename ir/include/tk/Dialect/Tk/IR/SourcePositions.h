//===- SourcePositions.h - where an op came from in the .tk source ---------------------------===//
//
// The front end inlines every `fn` call, giving the inlined ops callsite(place in the fn at the
// call) locations. Whatever reports an op's location to the user (the interpreter's faults,
// GPU code generation's errors, device assertions) names the innermost place and the calls
// it came through, through these helpers, rather than only plain file:line:col locations.
//
//===----------------------------------------------------------------------------------------===//
#ifndef TK_DIALECT_TK_IR_SOURCEPOSITIONS_H
#define TK_DIALECT_TK_IR_SOURCEPOSITIONS_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace tk {

/// The source positions `loc` names, innermost first: an op of an inlined `fn` its place in the
/// fn, then each call it was inlined through, innermost call first. Empty when it names none.
llvm::SmallVector<mlir::FileLineColLoc> sourcePositions(mlir::Location loc);

/// "file:line:col: " of the innermost position, "" when there is none.
std::string positionPrefix(mlir::Location loc);

/// "\nfile:line:col: note: in the call to the fn from here" for each call `loc` was inlined
/// through, innermost first ("" for an op written in the kernel itself).
std::string callNotes(mlir::Location loc);

} // namespace tk

#endif
