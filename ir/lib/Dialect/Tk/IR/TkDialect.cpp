#include "tk/Dialect/Tk/IR/Tk.h"

#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

#include "tk/Dialect/Tk/IR/TkDialect.cpp.inc"
#include "tk/Dialect/Tk/IR/TkEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tk/Dialect/Tk/IR/TkTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tk/Dialect/Tk/IR/TkAttrs.cpp.inc"

namespace {
/// Every tk op may be inlined: device functions are always inlined into kernels.
struct TkInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final { return true; }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final { return true; }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final { return true; }
};
} // namespace

void tk::TkDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tk/Dialect/Tk/IR/TkTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tk/Dialect/Tk/IR/TkAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tk/Dialect/Tk/IR/TkOps.cpp.inc"
      >();
  addInterfaces<TkInlinerInterface>();
}

Type tk::elementTypeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getElementType();
  return type;
}

ArrayRef<int64_t> tk::shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  return {};
}

bool tk::sameIgnoringLayout(Type a, Type b) {
  auto tileA = dyn_cast<RankedTensorType>(a), tileB = dyn_cast<RankedTensorType>(b);
  if (tileA && tileB)
    return tileA.getShape() == tileB.getShape() && tileA.getElementType() == tileB.getElementType();
  return a == b;
}

namespace {
/// The kernel function `op` is or is in (null outside one).
func::FuncOp kernelOf(Operation *op) {
  return isa<func::FuncOp>(op) ? cast<func::FuncOp>(op) : op->getParentOfType<func::FuncOp>();
}
} // namespace

int64_t tk::numWarpsOf(Operation *kernelOrInside) {
  func::FuncOp kernel = kernelOf(kernelOrInside);
  auto warps = kernel ? kernel->getAttrOfType<IntegerAttr>(TkDialect::kNumWarps) : IntegerAttr();
  return warps ? warps.getInt() : TkDialect::kDefaultNumWarps;
}

int64_t tk::numStagesOf(Operation *kernelOrInside) {
  func::FuncOp kernel = kernelOf(kernelOrInside);
  auto stages = kernel ? kernel->getAttrOfType<IntegerAttr>(TkDialect::kNumStages) : IntegerAttr();
  return stages ? stages.getInt() : 1;
}

bool tk::mayWriteMemory(Operation *op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects = getEffectsRecursively(op);
  return !effects || llvm::any_of(*effects, [](const MemoryEffects::EffectInstance &effect) {
    return isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()) &&
           !isa<KeepAliveResource>(effect.getResource());
  });
}

void tk::registerTkDialects(DialectRegistry &registry) {
  registry.insert<tk::TkDialect, arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                  func::FuncDialect>();
  func::registerInlinerExtension(registry);
}

/// Folded shape ops (a splat of a constant, say) become arith constants.
Operation *tk::TkDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                             Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}
