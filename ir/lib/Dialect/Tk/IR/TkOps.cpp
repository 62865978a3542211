// Verifiers and interfaces of the tk operations. Messages name the numbers involved, so a
// malformed module says exactly what disagrees.
#include "tk/Dialect/Tk/IR/Tk.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace tk;

namespace {
std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

/// The type a tile of `shape` over `elementType` has (a scalar when the shape is empty), in
/// the layout `encoding` (the GPU backend's; none before it assigns layouts).
Type tileOf(ArrayRef<int64_t> shape, Type elementType, Attribute encoding = {}) {
  if (shape.empty())
    return elementType;
  return RankedTensorType::get(shape, elementType, encoding);
}

/// The layout encoding of a tile type (null for scalars and before layout assignment).
Attribute encodingOf(Type type) {
  auto tile = dyn_cast<RankedTensorType>(type);
  return tile ? tile.getEncoding() : Attribute();
}

LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank, StringRef what = "axis") {
  if (axis < 0 || axis >= rank)
    return op->emitOpError() << what << " " << axis << " is out of range for a tile of rank "
                             << rank;
  return success();
}

LogicalResult verifyGridAxis(Operation *op, int32_t axis) {
  if (axis < 0 || axis > 2)
    return op->emitOpError() << "grid axis must be 0, 1 or 2, got " << axis;
  return success();
}

/// `mask` must be an i1 value of exactly the pointer operand's shape.
LogicalResult verifyMask(Operation *op, Value ptr, Value mask) {
  if (!mask)
    return success();
  if (shapeOf(mask.getType()) != shapeOf(ptr.getType()))
    return op->emitOpError() << "mask has shape " << shapeString(shapeOf(mask.getType()))
                             << " but the pointers have shape "
                             << shapeString(shapeOf(ptr.getType()));
  return success();
}

/// The value loaded or stored through `ptr` must have the pointee type and the pointers' shape.
LogicalResult verifyPointeeValue(Operation *op, Value ptr, Type valueType, StringRef what) {
  auto ptrType = cast<PtrType>(elementTypeOf(ptr.getType()));
  // Loaded and stored values sit in the threads that hold their pointers.
  Type expected = tileOf(shapeOf(ptr.getType()), ptrType.getPointee(), encodingOf(ptr.getType()));
  if (valueType != expected)
    return op->emitOpError() << what << " has type " << valueType << " but pointers of type "
                             << ptr.getType() << " need " << expected;
  return success();
}

/// The combine region of reduce and scan: 2 * N scalar block arguments of the N sources'
/// element types, and a yield of N values of those types.
LogicalResult verifyCombineRegion(Operation *op, Region &region, ValueRange srcs) {
  Block &block = region.front();
  size_t count = srcs.size();
  if (block.getNumArguments() != 2 * count)
    return op->emitOpError() << "combine region needs " << 2 * count << " arguments for "
                             << count << " operand(s), got " << block.getNumArguments();
  for (size_t i = 0; i < 2 * count; ++i) {
    Type expected = elementTypeOf(srcs[i % count].getType());
    if (block.getArgument(i).getType() != expected)
      return op->emitOpError() << "combine argument #" << i << " has type "
                               << block.getArgument(i).getType() << ", expected " << expected;
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError() << "combine region must end in tk.yield";
  if (yield.getValues().size() != count)
    return op->emitOpError() << "combine region yields " << yield.getValues().size()
                             << " value(s), expected " << count;
  for (size_t i = 0; i < count; ++i)
    if (yield.getValues()[i].getType() != elementTypeOf(srcs[i].getType()))
      return op->emitOpError() << "combine region yields " << yield.getValues()[i].getType()
                               << " for operand #" << i << ", expected "
                               << elementTypeOf(srcs[i].getType());
  return success();
}

/// Tiles reduced or scanned together must share one shape.
LogicalResult verifySameShapes(Operation *op, ValueRange srcs) {
  if (srcs.empty())
    return op->emitOpError() << "needs at least one operand";
  ArrayRef<int64_t> shape = shapeOf(srcs[0].getType());
  for (Value src : srcs.drop_front())
    if (shapeOf(src.getType()) != shape)
      return op->emitOpError() << "operands have different shapes "
                               << shapeString(shape) << " and "
                               << shapeString(shapeOf(src.getType()));
  return success();
}

void addGlobalMemoryEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects, bool read,
    bool write) {
  if (read)
    effects.emplace_back(MemoryEffects::Read::get(), SideEffects::DefaultResource::get());
  if (write)
    effects.emplace_back(MemoryEffects::Write::get(), SideEffects::DefaultResource::get());
}
} // namespace

LogicalResult ProgramIdOp::verify() { return verifyGridAxis(*this, getAxis()); }
LogicalResult NumProgramsOp::verify() { return verifyGridAxis(*this, getAxis()); }

LogicalResult MakeRangeOp::verify() {
  int64_t start = getStart(), end = getEnd();
  auto shape = getType().getShape();
  if (end <= start)
    return emitOpError() << "end " << end << " must be greater than start " << start;
  if (shape.size() != 1 || shape[0] != end - start)
    return emitOpError() << "range [" << start << ", " << end << ") has " << end - start
                         << " elements but the result has shape " << shapeString(shape);
  return success();
}

LogicalResult SplatOp::verify() {
  if (getType().getElementType() != getSrc().getType())
    return emitOpError() << "result element type " << getType().getElementType()
                         << " differs from the scalar type " << getSrc().getType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto srcShape = getSrc().getType().getShape();
  auto dstShape = getType().getShape();
  if (srcShape.size() != dstShape.size())
    return emitOpError() << "source rank " << srcShape.size() << " differs from result rank "
                         << dstShape.size();
  for (size_t i = 0; i < srcShape.size(); ++i)
    if (srcShape[i] != 1 && srcShape[i] != dstShape[i])
      return emitOpError() << "cannot broadcast dimension " << i << " of size " << srcShape[i]
                           << " to " << dstShape[i];
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  auto srcShape = getSrc().getType().getShape();
  int64_t axis = getAxis();
  if (axis < 0 || axis > (int64_t)srcShape.size())
    return emitOpError() << "axis " << axis << " is out of range for a tile of rank "
                         << srcShape.size();
  SmallVector<int64_t> expected(srcShape);
  expected.insert(expected.begin() + axis, 1);
  if (getType().getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape " << shapeString(getType().getShape())
                         << " should be " << shapeString(expected);
  return success();
}

LogicalResult ReshapeOp::verify() {
  int64_t srcCount = getSrc().getType().getNumElements();
  int64_t dstCount = getType().getNumElements();
  if (srcCount != dstCount)
    return emitOpError() << "cannot reshape " << srcCount << " elements into "
                         << shapeString(getType().getShape()) << " (" << dstCount
                         << " elements)";
  return success();
}

LogicalResult TransOp::verify() {
  auto srcShape = getSrc().getType().getShape();
  ArrayRef<int32_t> order = getOrder();
  if (order.size() != srcShape.size())
    return emitOpError() << "order has " << order.size() << " entries for a tile of rank "
                         << srcShape.size();
  llvm::SmallSet<int32_t, 4> seen;
  SmallVector<int64_t> expected;
  for (int32_t dim : order) {
    if (dim < 0 || dim >= (int32_t)srcShape.size() || !seen.insert(dim).second)
      return emitOpError() << "order is not a permutation of 0.." << srcShape.size() - 1;
    expected.push_back(srcShape[dim]);
  }
  if (getType().getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape " << shapeString(getType().getShape())
                         << " should be " << shapeString(expected);
  return success();
}

LogicalResult BitcastOp::verify() {
  Type src = getSrc().getType(), dst = getType();
  if (shapeOf(src) != shapeOf(dst))
    return emitOpError() << "cannot change the shape from " << shapeString(shapeOf(src))
                         << " to " << shapeString(shapeOf(dst));
  Type srcElem = elementTypeOf(src), dstElem = elementTypeOf(dst);
  bool srcPtr = isa<PtrType>(srcElem), dstPtr = isa<PtrType>(dstElem);
  if (srcPtr || dstPtr) {
    if (srcPtr != dstPtr)
      return emitOpError() << "cannot bitcast between a pointer and " << (srcPtr ? dstElem : srcElem);
    return success();
  }
  if (srcElem.getIntOrFloatBitWidth() != dstElem.getIntOrFloatBitWidth())
    return emitOpError() << "cannot bitcast " << srcElem << " (" << srcElem.getIntOrFloatBitWidth()
                         << " bits) to " << dstElem << " (" << dstElem.getIntOrFloatBitWidth()
                         << " bits)";
  return success();
}

LogicalResult AddPtrOp::verify() {
  if (shapeOf(getOffset().getType()) != shapeOf(getPtr().getType()))
    return emitOpError() << "offset has shape " << shapeString(shapeOf(getOffset().getType()))
                         << " but the pointers have shape "
                         << shapeString(shapeOf(getPtr().getType()));
  return success();
}

LogicalResult LoadOp::verify() {
  if (failed(verifyPointeeValue(*this, getPtr(), getType(), "result")) ||
      failed(verifyMask(*this, getPtr(), getMask())))
    return failure();
  if (!llvm::is_contained({0u, 64u, 128u, 256u}, getPrefetchSize()))
    return emitOpError() << "prefetch_size " << getPrefetchSize() << " is not 64, 128 or 256 bytes (or 0: none)";
  if (getOther() && !getMask())
    return emitOpError() << "'other' needs a mask";
  if (getOther() && getOther().getType() != getType())
    return emitOpError() << "'other' has type " << getOther().getType() << " but the result is "
                         << getType();
  return success();
}

LogicalResult StoreOp::verify() {
  if (failed(verifyPointeeValue(*this, getPtr(), getValue().getType(), "stored value")))
    return failure();
  return verifyMask(*this, getPtr(), getMask());
}

LogicalResult AtomicRMWOp::verify() {
  if (failed(verifyPointeeValue(*this, getPtr(), getValue().getType(), "value")) ||
      failed(verifyMask(*this, getPtr(), getMask())))
    return failure();
  if (getType() != getValue().getType())
    return emitOpError() << "result type " << getType() << " differs from the value type "
                         << getValue().getType();
  Type elem = elementTypeOf(getType());
  if (getKind() != AtomicKind::xchg && !elem.isIntOrFloat())
    return emitOpError() << "atomic " << stringifyAtomicKind(getKind()) << " needs numbers, got "
                         << elem;
  return success();
}

LogicalResult AtomicCASOp::verify() {
  if (failed(verifyPointeeValue(*this, getPtr(), getValue().getType(), "value")))
    return failure();
  if (getCmp().getType() != getValue().getType() || getType() != getValue().getType())
    return emitOpError() << "compare value, new value and result must share one type, got "
                         << getCmp().getType() << ", " << getValue().getType() << " and "
                         << getType();
  return success();
}

LogicalResult DotOp::verify() {
  auto a = getA().getType(), b = getB().getType(), acc = getAcc().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError() << "operands must be 2-D tiles, got ranks " << a.getRank() << ", "
                         << b.getRank() << " and " << acc.getRank();
  auto fp8 = [](Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); };
  if (a.getElementType() != b.getElementType() && !(fp8(a.getElementType()) && fp8(b.getElementType())))
    return emitOpError() << "operand element types differ: " << a.getElementType() << " and "
                         << b.getElementType() << " (only f8E4M3FN and f8E5M2 mix)";
  if (a.getDimSize(1) != b.getDimSize(0))
    return emitOpError() << "K dimension mismatch: a is " << a << ", b is " << b;
  if (acc.getDimSize(0) != a.getDimSize(0) || acc.getDimSize(1) != b.getDimSize(1))
    return emitOpError() << "accumulator " << acc << " does not match the product shape ["
                         << a.getDimSize(0) << ", " << b.getDimSize(1) << "]";
  if (int32_t limit = getMaxNumImpreciseAcc()) {
    if (!fp8(a.getElementType()))
      return emitOpError() << "max_num_imprecise_acc applies to FP8 operands, not " << a.getElementType();
    if (limit < a.getDimSize(1))
      return emitOpError() << "max_num_imprecise_acc = " << limit << " is below the tile's K = " << a.getDimSize(1)
                           << " (only whole tiles are supported)";
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  if (failed(verifySameShapes(*this, getSrcs())))
    return failure();
  auto shape = shapeOf(getSrcs()[0].getType());
  if (failed(verifyAxis(*this, getAxis(), shape.size())))
    return failure();
  if (getResults().size() != getSrcs().size())
    return emitOpError() << "has " << getResults().size() << " results for "
                         << getSrcs().size() << " operands";
  SmallVector<int64_t> reduced(shape);
  reduced.erase(reduced.begin() + getAxis());
  for (auto [src, result] : llvm::zip(getSrcs(), getResults())) {
    // A reduction may leave its result in any layout (the GPU backend's slices).
    Type expected = tileOf(reduced, elementTypeOf(src.getType()));
    if (!sameIgnoringLayout(result.getType(), expected))
      return emitOpError() << "result type " << result.getType() << " should be " << expected;
  }
  return verifyCombineRegion(*this, getCombine(), getSrcs());
}

LogicalResult ScanOp::verifyRegions() {
  if (failed(verifySameShapes(*this, getSrcs())))
    return failure();
  if (failed(verifyAxis(*this, getAxis(), shapeOf(getSrcs()[0].getType()).size())))
    return failure();
  if (getResults().size() != getSrcs().size())
    return emitOpError() << "has " << getResults().size() << " results for "
                         << getSrcs().size() << " operands";
  for (auto [src, result] : llvm::zip(getSrcs(), getResults()))
    if (src.getType() != result.getType())
      return emitOpError() << "result type " << result.getType() << " should be "
                           << src.getType();
  return verifyCombineRegion(*this, getCombine(), getSrcs());
}

LogicalResult RandOp::verify() {
  if (shapeOf(getOffsets().getType()) != shapeOf(getType()))
    return emitOpError() << "offsets have shape " << shapeString(shapeOf(getOffsets().getType()))
                         << " but the result has shape " << shapeString(shapeOf(getType()));
  // Philox's counter is 32 bits; a narrower offset's signedness is the front end's to apply
  // (the IR's integers are signless).
  if (getElementTypeOrSelf(getOffsets().getType()).getIntOrFloatBitWidth() < 32)
    return emitOpError() << "offsets of " << getElementTypeOrSelf(getOffsets().getType())
                         << " are narrower than Philox's 32-bit counter: widen them first";
  return success();
}

LogicalResult HintOp::verify() {
  if (!getMultipleOf() && !getMaxContiguous())
    return emitOpError() << "needs multiple_of or max_contiguous";
  for (auto attr : {getMultipleOfAttr(), getMaxContiguousAttr()})
    if (attr && (attr.getInt() <= 0 || !llvm::isPowerOf2_64(attr.getInt())))
      return emitOpError() << "hint value " << attr.getInt() << " must be a positive power of two";
  return success();
}

void LoadOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &e) {
  addGlobalMemoryEffects(e, true, false);
}
void StoreOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &e) {
  addGlobalMemoryEffects(e, false, true);
}
void AtomicRMWOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &e) {
  addGlobalMemoryEffects(e, true, true);
}
void AtomicCASOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &e) {
  addGlobalMemoryEffects(e, true, true);
}
void PrintOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &e) {
  addGlobalMemoryEffects(e, true, true);
}
void AssertOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &e) {
  addGlobalMemoryEffects(e, true, true);
}
// A prefetch reads memory (so it stays on its side of a gdc_wait) and is kept alive.
void PrefetchL2Op::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &e) {
  addGlobalMemoryEffects(e, true, false);
  e.emplace_back(MemoryEffects::Write::get(), tk::KeepAliveResource::get());
}
LogicalResult PrefetchL2Op::verify() { return verifyMask(*this, getPtr(), getMask()); }

void ProgressOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &e) {
  e.emplace_back(MemoryEffects::Write::get(), tk::KeepAliveResource::get());
}

// The wait orders every memory access with it; launching dependents orders none, but has an
// effect so that it is kept where it was written.
void GridDependencyWaitOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &e) {
  e.emplace_back(MemoryEffects::Read::get());
  e.emplace_back(MemoryEffects::Write::get());
}
void LaunchDependentsOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &e) {
  e.emplace_back(MemoryEffects::Write::get(), tk::KeepAliveResource::get());
}

#define GET_OP_CLASSES
#include "tk/Dialect/Tk/IR/TkOps.cpp.inc"
