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

Layout1D ThreadTypeConverter::layoutOf(Type type) const {
  auto tile = dyn_cast<RankedTensorType>(type);
  return layout(tile ? tile.getNumElements() : 1);
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

Value isOwner(OpBuilder &b, Location loc, const Layout1D &layout, Value tid) {
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
  if (auto offset = op->getAttrOfType<IntegerAttr>("tkg.smem_offset"); offset && offset.getInt())
    base_ = LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), base_, ArrayRef<LLVM::GEPArg>{int32_t(offset.getInt())});
  leadingBarrier_ = op->hasAttr("tkg.smem_barrier");
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

int64_t sharedBytesOf(Operation *op, const ThreadTypeConverter &converter) {
  return llvm::TypeSwitch<Operation *, int64_t>(op)
      .Case([&](ReduceOp reduce) { return reduceSharedBytes(reduce, converter); })
      .Case([&](ScanOp scan) { return scanSharedBytes(scan, converter); })
      .Case([&](DotOp dot) { return dotSharedBytes(dot, converter); })
      .Case([&](ConvertLayoutOp convert) { return convertLayoutSharedBytes(convert, converter); })
      .Case<BroadcastOp, ExpandDimsOp, ReshapeOp, TransOp>([&](Operation *shape) { return shapeSharedBytes(shape, converter); })
      .Case<AtomicRMWOp, AtomicCASOp>([&](Operation *atomic) { return atomicSharedBytes(atomic, converter); })
      .Default([](Operation *) { return int64_t(0); });
}

int64_t maxSharedBytes(int sm) {
  if (sm >= 90)
    return 227 * 1024;
  return sm == 80 ? 163 * 1024 : 99 * 1024;
}

FailureOr<int64_t> assignShared(func::FuncOp kernel, const ThreadTypeConverter &converter, int sm) {
  MLIRContext *context = kernel.getContext();
  auto offsetAttr = [&](int64_t offset) { return IntegerAttr::get(IntegerType::get(context, 32), offset); };
  // Stage rings live through the whole kernel: they come first, and the exchanges of other ops
  // share the range after them.
  int64_t pinned = 0;
  LocalAllocOp firstRing;
  kernel.walk([&](LocalAllocOp alloc) {
    firstRing = firstRing ? firstRing : alloc;
    // wgmma's swizzle modes repeat every 1024 bytes (or 512, 256) from a multiple of it.
    pinned = (pinned + 1023) / 1024 * 1024;
    alloc->setAttr("tkg.smem_offset", offsetAttr(pinned));
    pinned += roundUp16(localAllocBytes(alloc));
  });
  // The rings are dead after the kernel's last wait for every copy group (which ends in a
  // barrier): exchanges after it (the epilogue's accumulator conversion) reuse their bytes.
  Block &body = kernel.getBody().front();
  Operation *ringsEnd = nullptr;
  kernel.walk([&](AsyncWaitOp wait) {
    if (wait.getPending() == 0)
      ringsEnd = body.findAncestorOpInBlock(*wait);
  });
  int64_t next = pinned, size = pinned;
  bool wrapped = false;
  WalkResult walk = kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    int64_t bytes = sharedBytesOf(op, converter);
    if (!bytes)
      return WalkResult::advance();
    if (pinned && ringsEnd && ringsEnd->isBeforeInBlock(body.findAncestorOpInBlock(*op))) {
      pinned = next = 0;
      wrapped = false;
    }
    if (bytes > kSharedLimit) {
      op->emitError() << "'" << op->getName() << "' needs " << bytes << " bytes of shared memory on the GPU, more than "
                      << kSharedLimit << "; use smaller tiles";
      return WalkResult::interrupt();
    }
    // A dot stages swizzled tiles, whose pattern (wgmma's too) repeats from 1024-byte boundaries.
    auto aligned = [&](int64_t offset) { return isa<DotOp>(op) ? (offset + 1023) / 1024 * 1024 : offset; };
    next = aligned(next);
    if (next + bytes > pinned + kSharedLimit) {
      next = aligned(pinned);
      wrapped = true;
    }
    // In a loop, the previous iteration may still read these bytes, unless a barrier starts
    // every iteration (a pipelined loop's wait) and no inner loop repeats the op.
    Operation *loop = op->getParentOp();
    while (loop && !isa<scf::ForOp, scf::WhileOp, func::FuncOp>(loop))
      loop = loop->getParentOp();
    bool barrierFirst = isa_and_nonnull<scf::ForOp>(loop) && isa<AsyncWaitOp>(cast<scf::ForOp>(loop).getBody()->front());
    bool inLoop = (op->getParentOfType<scf::ForOp>() || op->getParentOfType<scf::WhileOp>()) && !barrierFirst;
    op->setAttr("tkg.smem_offset", offsetAttr(next));
    if (wrapped || inLoop || isa<ScanOp>(op))
      op->setAttr("tkg.smem_barrier", UnitAttr::get(context));
    next += roundUp16(bytes);
    size = std::max(size, next);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (size > maxSharedBytes(sm)) {
    auto stages = kernel->getAttrOfType<IntegerAttr>("tk.num_stages");
    firstRing->emitError() << "the software pipeline (num_stages = " << (stages ? stages.getInt() : 0) << ") needs " << size
                           << " bytes of shared memory, more than the " << maxSharedBytes(sm) << " of sm_" << sm
                           << "; use fewer stages or smaller tiles";
    return failure();
  }
  return size;
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
