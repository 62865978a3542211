// stmatrix moves of 16-bit tiles from a tensor-core accumulator layout to the blocked layout
// (MatrixStores.h).
#include "MatrixStores.h"
#include "MemoryTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

namespace tk::codegen {

std::optional<MatrixFragments> MatrixFragments::of(const Distribution &source,
                                                   llvm::function_ref<bool(int)> mayPickMatrix) {
  const LayoutBits &s = source.bits;
  if (s.slot.size() < 3 || s.slot[0] != 0 || s.thread.size() < 5 || s.thread[0] != 1 || s.thread[1] != 2 ||
      llvm::is_contained(s.slot, -1) || llvm::is_contained(s.thread, -1))
    return std::nullopt;
  MatrixFragments f;
  int found = 0;
  for (size_t bit = 1; bit < s.slot.size(); ++bit) {
    if (found < 2 && mayPickMatrix(int(bit)))
      f.matrixSlots[found++] = int(bit);
    else
      f.instructionSlots.push_back(int(bit));
  }
  if (found < 2)
    return std::nullopt;
  LayoutBits &rows = f.rowAddresses.bits;
  rows.thread = {s.thread[2], s.thread[3], s.thread[4], s.slot[f.matrixSlots[0]], s.slot[f.matrixSlots[1]]};
  rows.thread.insert(rows.thread.end(), s.thread.begin() + 5, s.thread.end());
  for (int bit : f.instructionSlots)
    rows.slot.push_back(s.slot[bit]);
  return f;
}

int64_t MatrixFragments::slot(int64_t instruction, int matrix) const {
  int64_t first = 0;
  for (size_t bit = 0; bit < instructionSlots.size(); ++bit)
    if (instruction >> bit & 1)
      first |= int64_t(1) << instructionSlots[bit];
  return first | int64_t(matrix & 1) << matrixSlots[0] | int64_t(matrix >> 1) << matrixSlots[1];
}

std::optional<MatrixStores> MatrixStores::plan(const Distribution &source, const Distribution &result, Type type,
                                               const BitMap &packed) {
  if (elementBytes(type) != 2 || source.blocked || !result.blocked)
    return std::nullopt;
  const LayoutBits &s = source.bits;
  // The matrices of an x4: the first two slot bits a round does not split. (First: it checks
  // the source's shape, which the reads of `packed` below rely on.)
  std::optional<MatrixFragments> fragments =
      MatrixFragments::of(source, [&](int bit) { return packed[s.slot[bit]] >= 0; });
  if (!fragments)
    return std::nullopt;
  // A matrix row (index bits 0-2) and the rows' bits stay bits of the region's index.
  for (int bit = 0; bit < 3; ++bit)
    if (packed[bit] != bit)
      return std::nullopt;
  for (int lane = 2; lane < 5; ++lane)
    if (packed[s.thread[lane]] < 3)
      return std::nullopt;
  // The blocked result holds every element once, in runs that start at index bit 0.
  const BlockedLayout &r = *result.blocked;
  if (r.size < r.threads * r.sizePerThread)
    return std::nullopt;

  MatrixStores plan;
  plan.source_ = source;
  plan.result_ = result;
  plan.packed_ = packed;
  plan.readWidth_ = std::min<int64_t>(r.sizePerThread, 8);
  plan.fragments_ = *fragments;

  // The swizzle: each row bit above the chunk's low three bits is XORed into one of those
  // bits that no row bit is already (the rows of a narrow tile share a 128-byte line).
  int regionBits = int(llvm::count_if(packed, [](int bit) { return bit >= 0; }));
  plan.swizzle_.assign(regionBits, -1);
  bool lowTaken[3] = {false, false, false};
  std::vector<int> high;
  for (int lane = 2; lane < 5; ++lane) {
    int bit = packed[s.thread[lane]];
    if (bit < 6)
      lowTaken[bit - 3] = true;
    else
      high.push_back(bit);
  }
  int target = 0;
  for (int bit : high) {
    while (lowTaken[target])
      ++target;
    plan.swizzle_[bit] = 3 + target++;
  }
  return plan;
}

Value MatrixStores::place(OpBuilder &b, Location loc, Value index) const {
  if (packed_ != identityMap(packed_.size()))
    index = remapIndex(b, loc, index, packed_);
  return arith::XOrIOp::create(b, loc, index, remapIndex(b, loc, index, swizzle_));
}

void MatrixStores::store(OpBuilder &b, Location loc, const SharedRegion &region, ValueRange source, Value tid,
                         llvm::function_ref<bool(int64_t)> inRound) const {
  Type element = memoryType(source[0].getType());
  auto pairType = VectorType::get({2}, element);
  // Slots s and s + 1 (index bits 0) as one b32, the lower column in the low half.
  auto pair = [&](int64_t slot) -> Value {
    Value pair = LLVM::PoisonOp::create(b, loc, pairType);
    for (int k = 0; k < 2; ++k)
      pair = LLVM::InsertElementOp::create(b, loc, pair, toMemory(b, loc, source[slot | k]), i32Constant(b, loc, k));
    return LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair);
  };
  for (int64_t instruction = 0; instruction < fragments_.rowAddresses.perThread(); ++instruction) {
    if (!inRound(fragments_.slot(instruction, 0)))
      continue;
    SmallVector<Value, 4> registers;
    for (int matrix = 0; matrix < 4; ++matrix)
      registers.push_back(pair(fragments_.slot(instruction, matrix)));
    Value row = place(b, loc, elementIndex(b, loc, fragments_.rowAddresses, instruction, tid));
    NVVM::StMatrixOp::create(b, loc, region.address(b, loc, element, row), registers, NVVM::MMALayout::row,
                             NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8), NVVM::LdStMatrixEltType::B16);
  }
}

void MatrixStores::load(OpBuilder &b, Location loc, const SharedRegion &region, Type type, Value tid,
                        llvm::function_ref<bool(int64_t)> inRound, llvm::MutableArrayRef<Value> result) const {
  Type element = memoryType(type);
  auto runType = VectorType::get({readWidth_}, element);
  for (int64_t slot = 0; slot < result_.perThread(); slot += readWidth_) {
    if (!inRound(slot))
      continue;
    // A run starts on a multiple of its length (at most a chunk), which the swizzle keeps whole.
    Value address = region.address(b, loc, element, place(b, loc, elementIndex(b, loc, result_, slot, tid)));
    Value run = LLVM::LoadOp::create(b, loc, runType, address, readWidth_ * elementBytes(type));
    for (int64_t k = 0; k < readWidth_; ++k)
      result[slot + k] =
          fromMemory(b, loc, LLVM::ExtractElementOp::create(b, loc, run, i32Constant(b, loc, k)), type);
  }
}

} // namespace tk::codegen
