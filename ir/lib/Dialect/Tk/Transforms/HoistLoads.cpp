#include "tk/Dialect/Tk/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace tk {
#define GEN_PASS_DEF_TKHOISTLOADS
#include "tk/Dialect/Tk/Transforms/Passes.h.inc"
} // namespace tk

using namespace mlir;

namespace {

/// The earliest op of the block after which `op` may go: the last definition of one of its
/// operands (or of anything they nest), and for a load also the last op that may write memory.
Operation *earliestPoint(Operation *op, bool isLoad) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    bool definesOperand = llvm::any_of(op->getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && (def == prev || prev->isProperAncestor(def));
    });
    if (definesOperand || (isLoad && tk::mayWriteMemory(prev)))
      return prev;
  }
  return nullptr;
}

void moveEarly(Operation *op, bool isLoad) {
  Operation *after = earliestPoint(op, isLoad);
  if (after) {
    if (after->getNextNode() != op)
      op->moveAfter(after);
  } else if (op->getPrevNode()) {
    op->moveBefore(&op->getBlock()->front());
  }
}

struct HoistLoads : public tk::impl::TkHoistLoadsBase<HoistLoads> {
  void runOnOperation() override {
    SmallVector<tk::LoadOp> loads;
    getOperation().walk([&](tk::LoadOp load) { loads.push_back(load); });
    for (tk::LoadOp load : loads) {
      // The pure ops of the block that compute the load's operands move up with it, in order.
      Block *block = load->getBlock();
      llvm::SetVector<Operation *> slice;
      SmallVector<Operation *> work{load};
      bool movable = true;
      while (!work.empty() && movable) {
        Operation *op = work.pop_back_val();
        for (Value operand : op->getOperands()) {
          Operation *def = operand.getDefiningOp();
          if (!def || def->getBlock() != block || slice.contains(def))
            continue;
          if (!isPure(def) || def->getNumRegions()) {
            movable = def->isBeforeInBlock(load) ; // impure definitions stay where they are
            continue;
          }
          slice.insert(def);
          work.push_back(def);
        }
      }
      SmallVector<Operation *> ordered(slice.begin(), slice.end());
      llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
      for (Operation *op : ordered)
        moveEarly(op, false);
      moveEarly(load, true);
    }
  }
};

} // namespace
