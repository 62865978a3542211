// Shared memory for the exchanges between threads: one buffer per module (`tk_smem`), byte
// ranges given to ops by `assignShared`, and `redistribute`, which moves a tile's elements to
// the threads that need them under another shape.
#include "ThreadLowering.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace tk::codegen {

int64_t roundUp16(int64_t bytes) { return (bytes + 15) / 16 * 16; }

int64_t elementBytes(Type type) {
  Type element = tk::elementTypeOf(type);
  if (isa<PtrType, LLVM::LLVMPointerType>(element))
    return 8;
  return std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
}

BitMap identityMap(int bits) {
  BitMap map(bits);
  for (int bit = 0; bit < bits; ++bit)
    map[bit] = bit;
  return map;
}

BlockedLayout ThreadTypeConverter::layoutOf(Type type) const {
  if (!isa<RankedTensorType>(type))
    return BlockedLayout{1, threads_, 1};
  std::optional<BlockedLayout> blocked = blockedLayoutOf(type);
  if (!blocked) {
    std::string text;
    llvm::raw_string_ostream(text) << "tk-to-threads: a blocked layout was expected, not " << type;
    llvm::report_fatal_error(llvm::StringRef(text));
  }
  return *blocked;
}

Distribution distributionOf(Value tile) {
  Type type = tile.getType();
  if (hasLinearLayout(type))
    return Distribution{*layoutBitsOf(type), std::nullopt};
  if (std::optional<BlockedLayout> blocked = blockedLayoutOf(type))
    return Distribution::of(*blocked);
  // A scalar: the one element every thread holds.
  return Distribution::of(BlockedLayout{1, threadsOf(tile.getParentBlock()->getParentOp()), 1});
}

Value remapIndex(OpBuilder &b, Location loc, Value index, const BitMap &map) {
  Value result;
  for (size_t bit = 0; bit < map.size();) {
    if (map[bit] < 0) {
      ++bit;
      continue;
    }
    size_t length = 1;
    while (bit + length < map.size() && map[bit + length] == map[bit] + int(length))
      ++length;
    Value piece = index;
    if (bit)
      piece = arith::ShRUIOp::create(b, loc, piece, i32Constant(b, loc, bit));
    piece = arith::AndIOp::create(b, loc, piece, i32Constant(b, loc, (int64_t(1) << length) - 1));
    if (map[bit])
      piece = arith::ShLIOp::create(b, loc, piece, i32Constant(b, loc, map[bit]));
    result = result ? (Value)arith::OrIOp::create(b, loc, result, piece) : piece;
    bit += length;
  }
  return result ? result : i32Constant(b, loc, 0);
}

BitMap dropAxis(ArrayRef<int64_t> shape, int64_t axis) {
  int low = 0;
  for (int64_t d = axis + 1; d < (int64_t)shape.size(); ++d)
    low += log2Of(shape[d]);
  int width = log2Of(shape[axis]), total = log2Of(llvm::product_of(shape));
  BitMap map;
  for (int bit = 0; bit < total; ++bit)
    map.push_back(bit < low ? bit : bit < low + width ? -1 : bit - width);
  return map;
}

Value isOwner(OpBuilder &b, Location loc, const BlockedLayout &layout, Value tid) {
  if (layout.owners() >= layout.threads)
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid, i32Constant(b, loc, layout.owners()));
}

Value elementIndex(OpBuilder &b, Location loc, const Distribution &d, int64_t slot, Value tid) {
  if (d.blocked)
    return elementIndex(b, loc, *d.blocked, slot, tid);
  BitMap threadMap(d.bits.thread.begin(), d.bits.thread.end());
  int64_t constant = 0;
  for (size_t bit = 0; bit < d.bits.slot.size(); ++bit)
    if ((slot >> bit & 1) && d.bits.slot[bit] >= 0)
      constant |= int64_t(1) << d.bits.slot[bit];
  Value index = remapIndex(b, loc, tid, threadMap);
  return constant ? (Value)arith::OrIOp::create(b, loc, index, i32Constant(b, loc, constant)) : index;
}

Value isOwner(OpBuilder &b, Location loc, const Distribution &d, Value tid) {
  if (d.blocked)
    return isOwner(b, loc, *d.blocked, tid);
  int64_t replicas = 0;
  for (size_t bit = 0; bit < d.bits.thread.size(); ++bit)
    if (d.bits.thread[bit] < 0)
      replicas |= int64_t(1) << bit;
  if (!replicas)
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, arith::AndIOp::create(b, loc, tid, i32Constant(b, loc, replicas)),
                               i32Constant(b, loc, 0));
}

SharedRegion::SharedRegion(OpBuilder &b, Location loc, Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  auto buffer = module.lookupSymbol<LLVM::GlobalOp>("tk_smem");
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  base_ = LLVM::AddressOfOp::create(b, loc, ptrType, buffer.getSymName());
  if (auto offset = op->getAttrOfType<IntegerAttr>(TkgDialect::kSharedOffset); offset && offset.getInt())
    base_ = LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), base_, ArrayRef<LLVM::GEPArg>{int32_t(offset.getInt())});
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
    NVVM::Barrier0Op::create(b, loc); // an earlier use of these bytes may still be read
}

void SharedRegion::endWrites(OpBuilder &b, Location loc) const { NVVM::Barrier0Op::create(b, loc); }

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
                                 const Distribution &sourceLayout, const Distribution &resultLayout, const BitMap &map) {
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
  SmallVector<Value> result(resultLayout.perThread());
  for (int64_t round = 0; round < (int64_t(1) << rounds.size()); ++round) {
    if (round)
      NVVM::Barrier0Op::create(b, loc); // the previous round's reads
    else
      region.beginWrites(b, loc);
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
                                const Distribution &sourceLayout, const Distribution &resultLayout, const BitMap &map) {
  if (auto slots = slotsInThread(resultLayout.bits, sourceLayout.bits, map)) {
    SmallVector<Value> result;
    for (int64_t slot : *slots)
      result.push_back(source[slot]);
    return result;
  }
  return throughShared(b, loc, op, source, sourceLayout, resultLayout, map);
}

} // namespace tk::codegen
