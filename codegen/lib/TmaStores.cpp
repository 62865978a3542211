// The tk-tma-stores pass: on sm_90a, a kernel whose dot operands come by TMA (a tensor map
// among its arguments: a matmul's or attention's pipeline) stores its 16-bit result tiles by
// TMA too, when a store writes a rectangle of a row-major matrix under exactly its bounds
// (RectangularAccess.h, the analysis the loads use). Its threads write the tile into a staging
// buffer of its own and go on while one thread's bulk copy writes it out: the next tile's
// mainloop of a persistent kernel overlaps this one's global writes, which otherwise hold every
// thread of the epilogue (at 8192x8192x4096 FP8 the store took 9-10% of the kernel on the
// H200, all programs writing at once).
//
// A store qualifies directly in a loop over tiles at the kernel's top level (in a
// warp-specialized kernel, in the consumers' branch), where every thread of the tile runs it;
// not with an eviction hint. The staging buffer lives through the whole kernel (the copy
// reads it after the store returns) and must fit beside the stage rings: a config whose rings
// leave no room keeps its ordinary store.
#include "RectangularAccess.h"
#include "SharedAllocation.h"
#include "tk/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tk-tma-stores"

namespace tk {
#define GEN_PASS_DEF_TKTMASTORES
#include "tk/Codegen/Passes.h.inc"
} // namespace tk

using namespace mlir;

namespace tk::codegen {
namespace {

/// Shared memory left for the exchanges of a kernel whose rings and staging buffers are pinned
/// (its epilogue's scale broadcasts, reductions).
constexpr int64_t kExchangeReserve = 4096;

int64_t alignedTo1024(int64_t bytes) { return (bytes + 1023) / 1024 * 1024; }

/// Whether `store` is a persistent kernel's, run by every thread of the tile: directly in the
/// loop over tiles, whose ancestors up to the kernel are at most the warp-specialized split's
/// consumer branch. (A program that stores once and ends has no next tile to overlap: the
/// staging and the wait before it returns cost fp8_matmul 5-10% at M = 32.)
bool storesEachTile(StoreOp store, func::FuncOp kernel) {
  auto tiles = dyn_cast<scf::ForOp>(store->getParentOp());
  if (!tiles)
    return false;
  for (Operation *op = tiles->getParentOp(); op != kernel; op = op->getParentOp()) {
    auto branch = dyn_cast<scf::IfOp>(op);
    if (!branch || !branch.getCondition().getDefiningOp<IsProducerOp>())
      return false;
  }
  return true;
}

/// Bytes pinned for the whole kernel so far: its barriers and rings, each ring from a
/// 1024-byte boundary (AllocateShared.cpp).
int64_t pinnedBytes(func::FuncOp kernel) {
  int64_t bytes = 0;
  kernel.walk([&](BarrierAllocOp alloc) { bytes += 8 * alloc.getType().getCount(); });
  bytes = alignedTo1024(bytes);
  kernel.walk([&](LocalAllocOp alloc) { bytes += alignedTo1024(localAllocBytes(alloc)); });
  return bytes;
}

void storeByTma(func::FuncOp kernel) {
  if (!llvm::any_of(kernel.getArgumentTypes(), [](Type t) { return isa<TensorMapType>(t); }))
    return;
  SmallVector<StoreOp> stores;
  kernel.walk([&](StoreOp store) { stores.push_back(store); });
  MLIRContext *context = kernel.getContext();
  int64_t pinned = pinnedBytes(kernel);
  bool stored = false;
  for (StoreOp store : stores) {
    auto type = dyn_cast<RankedTensorType>(store.getValue().getType());
    auto why = [&](StringRef reason) {
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] store at " << store.getLoc() << ": " << reason << "\n");
    };
    if (!type || type.getRank() != 2 || type.getElementTypeBitWidth() != 16 || store.getEvict() != EvictionPolicy::normal ||
        !storesEachTile(store, kernel)) {
      why("not a 16-bit tile a loop over tiles stores, without hints");
      continue;
    }
    RectangularAccessAnalysis analysis;
    std::optional<RectangularAccess> access = analysis.match(store.getPtr(), store.getMask(), type);
    TensorMapAttr map = access && !access->stackIndex && type.getShape()[0] <= 256
                            ? tensorMapFor(*access, type, analysis)
                            : TensorMapAttr();
    if (!map) {
      why("not a rectangle under exactly its bounds");
      continue;
    }
    int64_t bytes = alignedTo1024(type.getNumElements() * 2);
    if (pinned + bytes + kExchangeReserve > maxSharedBytes(90)) {
      why("its staging buffer does not fit beside the rings");
      continue;
    }
    pinned += bytes;
    OpBuilder b(context);
    b.setInsertionPointToStart(&kernel.front());
    Location loc = store.getLoc();
    SmallVector<int64_t> shape{1};
    llvm::append_range(shape, type.getShape());
    Value buffer = LocalAllocOp::create(b, loc, SharedBufferType::get(context, shape, type.getElementType()));
    unsigned index = kernel.getNumArguments();
    NamedAttribute recipe(StringAttr::get(context, TkgDialect::kTensorMap), map);
    (void)kernel.insertArgument(index, TensorMapType::get(context), DictionaryAttr::get(context, {recipe}), loc);
    b.setInsertionPoint(store);
    Value row = analysis.build(b, loc, access->rowStart, IRMapping());
    Value col = analysis.build(b, loc, access->colStart, IRMapping());
    TmaStoreOp::create(b, loc, store.getValue(), kernel.getArgument(index), ValueRange{row, col}, buffer);
    store.erase();
    stored = true;
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] store at " << loc << ": by TMA\n");
  }
  if (stored)
    kernel.walk([](func::ReturnOp ret) {
      OpBuilder b(ret);
      TmaStoreWaitOp::create(b, ret.getLoc());
    });
}

struct TmaStores : public tk::impl::TkTmaStoresBase<TmaStores> {
  using TkTmaStoresBase::TkTmaStoresBase;

  void runOnOperation() override {
    if (!wgmma)
      return;
    for (auto kernel : getOperation().getOps<func::FuncOp>())
      if (kernel->hasAttr(TkDialect::kKernel))
        storeByTma(kernel);
  }
};

} // namespace
} // namespace tk::codegen
