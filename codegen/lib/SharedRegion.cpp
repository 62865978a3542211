// Shared memory for the exchanges between threads: one buffer per module (`tk_smem`), byte
// ranges given to ops by `assignShared`, and `redistribute`, which moves a tile's elements to
// the threads that need them under another shape.
#include "SharedRegion.h"
#include "IndexArithmetic.h"
#include "MatrixStores.h"
#include "MemoryTypes.h"
#include "SharedAllocation.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace tk::codegen {

void programBarrier(OpBuilder &b, Location loc) {
  Operation *at = b.getInsertionBlock()->getParentOp();
  if (producerWarpsOf(at) == 0) {
    NVVM::Barrier0Op::create(b, loc);
    return;
  }
  // Named barrier 1 of the consumers; with two programs a CTA, 1 + w of program w's.
  Value id = programsPerCtaOf(at) == 1 ? i32Constant(b, loc, 1)
                                       : (Value)arith::AddIOp::create(b, loc, programInCta(b, loc), i32Constant(b, loc, 1));
  NVVM::BarrierOp::create(b, loc, TypeRange{}, id, i32Constant(b, loc, threadsOf(at)), {}, Value());
}

SharedRegion::SharedRegion(OpBuilder &b, Location loc, Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  auto buffer = module.lookupSymbol<LLVM::GlobalOp>("tk_smem");
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  base_ = LLVM::AddressOfOp::create(b, loc, ptrType, buffer.getSymName());
  if (auto offset = op->getAttrOfType<IntegerAttr>(TkgDialect::kSharedOffset); offset && offset.getInt())
    base_ = LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), base_, ArrayRef<LLVM::GEPArg>{int32_t(offset.getInt())});
  // Each program's own copy (two programs a CTA): program w's `w * stride` bytes on.
  if (auto stride = op->getAttrOfType<IntegerAttr>(TkgDialect::kSharedProgramStride)) {
    Value bytes = arith::MulIOp::create(b, loc, programInCta(b, loc), i32Constant(b, loc, stride.getInt()));
    base_ = LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), base_, ValueRange{bytes});
  }
  leadingBarrier_ = op->hasAttr(TkgDialect::kSharedBarrier);
}

Value SharedRegion::address(OpBuilder &b, Location loc, Type type, Value index, int64_t byteOffset) const {
  Value base = base_;
  if (byteOffset)
    base = LLVM::GEPOp::create(b, loc, base_.getType(), b.getI8Type(), base, ArrayRef<LLVM::GEPArg>{int32_t(byteOffset)});
  return LLVM::GEPOp::create(b, loc, base_.getType(), memoryType(type), base, ValueRange{index});
}

void SharedRegion::store(OpBuilder &b, Location loc, Value value, Value index, int64_t byteOffset) const {
  value = toMemory(b, loc, value);
  LLVM::StoreOp::create(b, loc, value, address(b, loc, value.getType(), index, byteOffset));
}

Value SharedRegion::load(OpBuilder &b, Location loc, Type type, Value index, int64_t byteOffset) const {
  Type stored = memoryType(type);
  Value value = LLVM::LoadOp::create(b, loc, stored, address(b, loc, stored, index, byteOffset));
  return fromMemory(b, loc, value, type);
}

Value SharedRegion::slot(OpBuilder &b, Location loc, int64_t group, Value index) const {
  return address(b, loc, b.getI64Type(), index, group * 256);
}

void SharedRegion::beginWrites(OpBuilder &b, Location loc) const {
  if (leadingBarrier_)
    programBarrier(b, loc); // an earlier use of these bytes may still be read
}

void SharedRegion::endWrites(OpBuilder &b, Location loc) const { programBarrier(b, loc); }

void SharedRegion::publish(OpBuilder &b, Location loc, Value writer, ValueRange values, Value index) const {
  beginWrites(b, loc);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, writer, false);
  OpBuilder thenBuilder = ifOp.getThenBodyBuilder();
  for (size_t k = 0; k < values.size(); ++k)
    LLVM::StoreOp::create(thenBuilder, loc, values[k], slot(thenBuilder, loc, k, index));
  endWrites(b, loc);
}

std::vector<int> roundBits(const Distribution &source, const Distribution &result, int64_t bytes) {
  std::vector<int> bits;
  for (int bit = 30; bit >= 0 && bytes > kSharedLimit; --bit) {
    auto inSlots = [&](const Distribution &d) { return llvm::is_contained(d.bits.slot, bit); };
    if (inSlots(source) && inSlots(result)) {
      bits.push_back(bit);
      bytes /= 2;
    }
  }
  return bits;
}

SmallVector<Value> throughShared(OpBuilder &b, Location loc, Operation *op, ValueRange source,
                                 const Distribution &sourceLayout, const Distribution &resultLayout, const BitMap &map,
                                 bool matrixStores) {
  SharedRegion region(b, loc, op);
  Type type = source[0].getType();
  Value tid = threadId(b, loc);
  // A tile larger than the buffer moves in rounds, split along index bits that are slot bits
  // of both layouts (only for same-shape moves), each round at the same bytes.
  bool sameShape = map == identityMap(map.size());
  std::vector<int> rounds =
      sameShape ? roundBits(sourceLayout, resultLayout, (int64_t(1) << map.size()) * elementBytes(type)) : std::vector<int>{};
  BitMap packed(map.size());
  for (size_t bit = 0, next = 0; bit < map.size(); ++bit)
    packed[bit] = llvm::is_contained(rounds, int(bit)) ? -1 : int(next++);
  auto roundOf = [&](const Distribution &d, int64_t slot) {
    int64_t r = 0;
    for (size_t j = 0; j < rounds.size(); ++j)
      for (size_t bit = 0; bit < d.bits.slot.size(); ++bit)
        if (d.bits.slot[bit] == rounds[j] && (slot >> bit & 1))
          r |= int64_t(1) << j;
    return r;
  };
  // Slots that differ only in bits the map drops hold the same source element: read it once.
  const std::vector<int> &slotBits = resultLayout.bits.slot;
  int64_t repeated = 0;
  for (size_t bit = 0; bit < slotBits.size(); ++bit)
    if (slotBits[bit] < 0 || map[slotBits[bit]] < 0)
      repeated |= int64_t(1) << bit;
  // A 16-bit accumulator goes by stmatrix into a swizzled arrangement and comes back in runs.
  std::optional<MatrixStores> matrices =
      matrixStores && sameShape ? MatrixStores::plan(sourceLayout, resultLayout, type, packed) : std::nullopt;
  SmallVector<Value> result(resultLayout.perThread());
  for (int64_t round = 0; round < (int64_t(1) << rounds.size()); ++round) {
    if (round)
      programBarrier(b, loc); // the previous round's reads
    else
      region.beginWrites(b, loc);
    if (matrices) {
      matrices->store(b, loc, region, source, tid, [&](int64_t slot) { return roundOf(sourceLayout, slot) == round; });
      region.endWrites(b, loc);
      matrices->load(b, loc, region, type, tid, [&](int64_t slot) { return roundOf(resultLayout, slot) == round; }, result);
      continue;
    }
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, isOwner(b, loc, sourceLayout, tid), false);
    OpBuilder writer = ifOp.getThenBodyBuilder();
    for (size_t slot = 0; slot < source.size(); ++slot) {
      if (roundOf(sourceLayout, slot) != round)
        continue;
      Value index = elementIndex(writer, loc, sourceLayout, slot, tid);
      region.store(writer, loc, source[slot], rounds.empty() ? index : remapIndex(writer, loc, index, packed));
    }
    region.endWrites(b, loc);
    for (int64_t slot = 0; slot < resultLayout.perThread(); ++slot) {
      if (roundOf(resultLayout, slot) != round || (slot & repeated))
        continue;
      Value index = remapIndex(b, loc, elementIndex(b, loc, resultLayout, slot, tid), map);
      result[slot] = region.load(b, loc, type, rounds.empty() ? index : remapIndex(b, loc, index, packed));
    }
  }
  for (int64_t slot = 0; slot < resultLayout.perThread(); ++slot)
    if (slot & repeated)
      result[slot] = result[slot & ~repeated];
  return result;
}

SmallVector<Value> redistribute(OpBuilder &b, Location loc, Operation *op, ValueRange source,
                                const Distribution &sourceLayout, const Distribution &resultLayout, const BitMap &map,
                                bool matrixStores) {
  if (auto slots = slotsInThread(resultLayout.bits, sourceLayout.bits, map)) {
    SmallVector<Value> result;
    for (int64_t slot : *slots)
      result.push_back(source[slot]);
    return result;
  }
  return throughShared(b, loc, op, source, sourceLayout, resultLayout, map, matrixStores);
}

} // namespace tk::codegen
