// What a producer warpgroup computes by itself (ProducerSlice.h).
#include "ProducerSlice.h"
#include "tk/Dialect/TkGpu/IR/TkGpu.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace tk::codegen {
using namespace ::tk::gpu;

scf::IfOp existingSplit(func::FuncOp kernel) {
  for (auto branch : kernel.front().getOps<scf::IfOp>())
    if (branch.getCondition().getDefiningOp<IsProducerOp>())
      return branch;
  return scf::IfOp();
}

Block *topBlock(func::FuncOp kernel) {
  scf::IfOp split = existingSplit(kernel);
  return split ? &split.getElseRegion().front() : &kernel.front();
}

SmallVector<Value> producerInputs(scf::ForOp loop, ArrayRef<RectangularAccess> accesses,
                                  const RectangularAccessAnalysis &analysis) {
  SmallVector<Value> inputs{loop.getLowerBound(), loop.getUpperBound(), loop.getStep()};
  for (const RectangularAccess &access : accesses)
    for (const Polynomial *p :
         {&access.rowStart, &access.colStart, access.stackIndex ? &*access.stackIndex : &access.colStart})
      for (auto &[monomial, coefficient] : p->terms)
        for (int atom : monomial)
          if (analysis.atomValue(atom) != loop.getInductionVar())
            inputs.push_back(analysis.atomValue(atom));
  return inputs;
}

bool collectScalarSlice(Value v, func::FuncOp kernel, scf::ForOp loop, llvm::SetVector<Operation *> &slice,
                        unsigned depth) {
  auto outer = dyn_cast<scf::ForOp>(loop->getParentOp());
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() == &kernel.front() || (outer && arg == outer.getInductionVar());
  Operation *def = v.getDefiningOp();
  if (slice.contains(def))
    return true;
  if (depth > 128) // a chain of scalar ops that long is not worth a producer
    return false;
  // Side-effect free is enough (a division need not be speculatable): the producer computes
  // what every thread of the kernel computes at its start (or the tile's) anyway.
  bool placed = def->getBlock() == &kernel.front() || def->getBlock() == topBlock(kernel) ||
                (outer && def->getBlock() == outer.getBody() && def->isBeforeInBlock(loop));
  if (!placed || !isMemoryEffectFree(def) || def->getNumRegions() ||
      llvm::any_of(def->getResultTypes(), [](Type t) { return isa<ShapedType>(t); }))
    return false;
  for (Value operand : def->getOperands())
    if (!collectScalarSlice(operand, kernel, loop, slice, depth + 1))
      return false;
  slice.insert(def);
  return true;
}

bool producerCanRun(scf::ForOp loop, ArrayRef<RectangularAccess> accesses, const RectangularAccessAnalysis &analysis) {
  auto kernel = loop->getParentOfType<func::FuncOp>();
  auto outer = dyn_cast<scf::ForOp>(loop->getParentOp());
  Block *top = topBlock(kernel);
  if (loop->getBlock() != top && !(outer && outer->getBlock() == top))
    return false;
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> inputs = producerInputs(loop, accesses, analysis);
  if (outer)
    inputs.append({outer.getLowerBound(), outer.getUpperBound(), outer.getStep()});
  for (Value v : inputs)
    if (!collectScalarSlice(v, kernel, loop, slice))
      return false;
  return true;
}

} // namespace tk::codegen
