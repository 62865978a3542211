// The tk-tma-stores pass: on sm_90a, a persistent kernel whose dot operands come by TMA (a
// tensor map among its arguments: a matmul's pipeline) stores its 16-bit result tiles by TMA
// too, when a store writes a rectangle of a row-major matrix under exactly its bounds
// (RectangularAccess.h, the analysis the loads use). Its threads write the tile into a staging
// buffer of its own and go on while one thread's bulk copy writes it out: the next tile's
// mainloop overlaps this one's global writes, which otherwise hold every thread of the
// epilogue (at 8192x8192x4096 FP8 the store took 9-10% of the kernel on the H200, all programs
// writing at once).
//
// It runs after tk-assign-layouts, so that it knows what else needs shared memory: the tile
// keeps its layout (the conversion the store would have needed goes), and the staging buffer,
// which lives through the whole kernel (the copy reads it after the store returns), must fit
// beside the stage rings and the exchanges of the kernel's other ops (as tk-allocate-shared
// will place them: one after another up to 48 KiB from the rings, or taking turns behind
// barriers where the kernel has less left); a config with no room keeps its ordinary store.
//
// A store qualifies directly in a loop over tiles at the kernel's top level (in a
// warp-specialized kernel, in the consumers' branch), where every thread of the tile runs it,
// without an eviction hint; its rows a multiple of 8 (each 128-byte column block of the buffer
// then starts on the 1024-byte period of TMA's swizzle) and at least 16 bytes wide (a box's
// smallest row). The copy completes after the program went on, so nothing else in the kernel
// may touch that memory: no other access through the same argument, but for a plain store
// after every loop with such copies, which first waits until they have written (stream-K's
// finishing parts after the whole waves' tiles, which that store kept from TMA before;
// bench/results/2026-12-07-session42, run 8). An atomic that releases
// (acq_rel or release: it could tell another program the tile is there, as stream-K's and
// split-K's counters tell of their partials) first waits until the program's copies have
// written (`tkg.tma_store_wait written`); in a loop over tiles that is the previous tile's copy,
// which had this tile's mainloop to finish. A copy runs only when the rectangle is not empty
// (the launcher gives an empty tensor's map the zeros its loads read).

#include "RectangularAccess.h"
#include "SharedAllocation.h"
#include "tk/Codegen/Passes.h"

#include "IndexArithmetic.h"
#include "ProducerSlice.h"
#include "Swizzle.h"

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

/// Whether `store` is a persistent kernel's, run by every thread of the tile: directly in the
/// loop over tiles, whose ancestors up to the kernel are at most the warp-specialized split's
/// consumer branch. (A program that stores once and ends has no next tile to overlap: the
/// staging and the wait before it returns cost fp8_matmul 5-10% at M = 32, and 2-3% with
/// 128x128 and 128x256 tiles.)
bool storesEachTile(StoreOp store, func::FuncOp kernel) {
  auto tiles = dyn_cast<scf::ForOp>(store->getParentOp());
  if (!tiles)
    return false;
  for (Operation *op = tiles->getParentOp(); op != kernel; op = op->getParentOp()) {
    auto branch = dyn_cast<scf::IfOp>(op);
    if (!branch || !branch.getCondition().getDefiningOp<IsProducerOp>() || !branch.getElseRegion().isAncestor(tiles->getParentRegion()))
      return false;
  }
  return true;
}

/// Whether `op` is a plain store that runs after every loop of the kernel's top level holding a
/// store in `tmaStores` or one already by TMA: it then writes after their copies have (the
/// wait before it, below), whatever it overlaps (stream-K's finishing parts after the whole
/// waves' tiles).
bool storesAfterTheCopies(func::FuncOp kernel, const llvm::SmallPtrSetImpl<Operation *> &tmaStores, Operation *op) {
  Block *top = topBlock(kernel);
  Operation *own = isa<StoreOp>(op) ? top->findAncestorOpInBlock(*op) : nullptr;
  if (!own)
    return false;
  auto before = [&](Operation *copy) {
    Operation *loop = top->findAncestorOpInBlock(*copy);
    return loop && loop != own && loop->isBeforeInBlock(own);
  };
  WalkResult copies = kernel.walk([&](TmaStoreOp copy) { return before(copy) ? WalkResult::advance() : WalkResult::interrupt(); });
  return !copies.wasInterrupted() && llvm::all_of(tmaStores, before);
}

/// Whether anything but the stores in `tmaStores` (those by TMA: `store` and the others this
/// pass takes, all writes the issuing thread orders) may read or write `base`'s memory: an
/// access through it (or through a pointer of unknown origin) other than a plain store after
/// the copies, a load's TMA map of it.
bool touchedOtherwise(func::FuncOp kernel, const llvm::SmallPtrSetImpl<Operation *> &tmaStores, BlockArgument base) {
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
    if (auto map = kernel.getArgAttrOfType<TensorMapAttr>(i, TkgDialect::kTensorMap);
        map && map.getBase() == base.getArgNumber() &&
        !llvm::all_of(kernel.getArgument(i).getUsers(), llvm::IsaPred<TmaStoreOp>))
      return true;
  WalkResult walk = kernel.walk([&](Operation *op) {
    Value ptr = tmaStores.contains(op) ? Value() : globalAccessOf(op).ptr;
    if (!ptr)
      return WalkResult::advance();
    BlockArgument other = baseArgument(ptr);
    if (other && other != base)
      return WalkResult::advance();
    return other && storesAfterTheCopies(kernel, tmaStores, op) ? WalkResult::advance() : WalkResult::interrupt();
  });
  return walk.wasInterrupted();
}

/// The most shared memory the kernel's exchanges (reductions, conversions, ...) take beyond the
/// pinned buffers as tk-allocate-shared places them one after another, wrapping at 48 KiB, a
/// loop of the kernel's top level after another from the same offset (and an op after it above
/// them all); the ops in `dropped` will not be there.
int64_t exchangeBytes(func::FuncOp kernel, const ThreadTypeConverter &converter,
                      const llvm::SmallPtrSetImpl<Operation *> &dropped) {
  int64_t bytes = 0, run = 0, highest = 0;
  ExchangeRuns runs(kernel);
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    int64_t own = dropped.contains(op) ? 0 : sharedBytesOf(op, converter);
    if (!own)
      return;
    ExchangeRuns::Step step = runs.next(op);
    run = step == ExchangeRuns::Step::Restart ? 0 : step == ExchangeRuns::Step::AboveAll ? highest : run;
    run += roundUp16(own) + (isa<DotOp>(op) ? 1023 : 0); // a dot's staging from a 1024-byte boundary
    highest = std::max(highest, run);
    bytes = std::max(bytes, std::min(run, kSharedLimit + 1023));
  });
  return bytes;
}

/// The most shared memory one exchange of the kernel takes (a dot's from a 1024-byte
/// boundary): what the exchanges need at least, one after another behind barriers
/// (tk-allocate-shared starts them again from the rings' end where they would not fit).
int64_t largestExchange(func::FuncOp kernel, const ThreadTypeConverter &converter,
                        const llvm::SmallPtrSetImpl<Operation *> &dropped) {
  int64_t bytes = 0;
  kernel.walk([&](Operation *op) {
    int64_t own = dropped.contains(op) ? 0 : sharedBytesOf(op, converter);
    if (own)
      bytes = std::max(bytes, roundUp16(own) + (isa<DotOp>(op) ? 1023 : 0));
  });
  return bytes;
}

/// The kernel's shared memory with one more staging buffer of `staging` bytes for a store
/// inside `owner` (an op of the kernel's top level) and `exchanges` bytes of exchanges a
/// program, as tk-allocate-shared places them (AllocateShared.cpp): its barriers, its rings,
/// and each program of a CTA's own staging and exchanges (with two programs, in whole KiB: a
/// program's stride).
int64_t requiredBytes(func::FuncOp kernel, Operation *owner, int64_t staging, int64_t exchanges) {
  int64_t barriers = 0;
  kernel.walk([&](BarrierAllocOp alloc) { barriers += 8 * alloc.getType().getCount(); });
  int64_t programs = programsPerCtaOf(kernel);
  int64_t own = groupedBytes(kernel, /*staging=*/true, owner, staging) + exchanges;
  return roundUp1024(barriers) + groupedBytes(kernel, false) + (programs > 1 ? programs * roundUp1024(own) : own);
}

/// Whether a store's staging buffer of `width` of the `columns` of its `rows`x`columns` tile
/// (`value`, in the layout it is computed in) may halve: parts no narrower than one box's
/// column block, each slot of every thread lying in one part alone.
bool stagingHalves(Value value, int64_t rows, int64_t columns, int64_t width) {
  int64_t smallest = std::min<int64_t>(columns, SwizzleParams::ofElements(rows, columns, 2).blockLength);
  return width > smallest && partsChosenBySlots(distributionOf(value), columns, width / 2);
}

void storeByTma(func::FuncOp kernel) {
  if (!llvm::any_of(kernel.getArgumentTypes(), [](Type t) { return isa<TensorMapType>(t); }))
    return;
  SmallVector<StoreOp> stores;
  kernel.walk([&](StoreOp store) { stores.push_back(store); });
  MLIRContext *context = kernel.getContext();
  ThreadTypeConverter converter(context, threadsOf(kernel));
  // As tk-allocate-shared and tk-to-threads see sm_90a.
  converter.setWarpgroupMma(true);
  converter.setMatrixStores(true);
  bool stored = false;
  // The stores that could go by TMA, as far as their own tiles tell: several of them may write
  // one matrix (a loop over whole waves' tiles and one over the rest).
  auto qualifies = [&](StoreOp store) -> StringRef {
    auto type = dyn_cast<RankedTensorType>(store.getValue().getType());
    if (!type || type.getRank() != 2 || type.getElementTypeBitWidth() != 16 || store.getEvict() != EvictionPolicy::normal ||
        !storesEachTile(store, kernel))
      return "not a 16-bit tile a loop over tiles stores, without hints";
    if (type.getShape()[0] % 8 || type.getShape()[0] > 256 || type.getShape()[1] < 8)
      return "rows not a multiple of 8 up to 256, or rows narrower than 16 bytes";
    RectangularAccessAnalysis analysis;
    std::optional<RectangularAccess> access = analysis.match(store.getPtr(), store.getMask(), type);
    if (!access || access->stackIndex || !tensorMapFor(*access, type, analysis))
      return "not a rectangle under exactly its bounds";
    return "";
  };
  llvm::SmallPtrSet<Operation *, 4> tmaStores;
  for (StoreOp store : stores)
    if (qualifies(store).empty())
      tmaStores.insert(store);
  // A candidate whose matrix something else accesses stays, and so then do the others to it.
  auto baseOf = [](Operation *store) { return baseArgument(cast<StoreOp>(store).getPtr()); };
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation *store : SmallVector<Operation *>(tmaStores.begin(), tmaStores.end()))
      if (BlockArgument base = baseOf(store); !base || touchedOtherwise(kernel, tmaStores, base)) {
        tmaStores.erase(store);
        changed = true;
      }
  }
  // The conversion to a store's layout goes with the store when nothing else uses it.
  auto conversionOf = [](StoreOp store) {
    auto convert = store.getValue().getDefiningOp<ConvertLayoutOp>();
    return convert && store.getValue().hasOneUse() ? convert : ConvertLayoutOp();
  };
  // Whether all of them fit at once (their conversions gone, each loop's staging buffers
  // sharing the bytes of another loop's): then each goes by TMA without the one-by-one
  // estimate below, which counts the conversions of the stores after it.
  llvm::SmallPtrSet<Operation *, 4> conversions;
  llvm::DenseMap<Operation *, int64_t> stagingByLoop;
  for (Operation *op : tmaStores) {
    auto store = cast<StoreOp>(op);
    if (ConvertLayoutOp convert = conversionOf(store))
      conversions.insert(convert);
    auto type = cast<RankedTensorType>(store.getValue().getType());
    stagingByLoop[topBlock(kernel)->findAncestorOpInBlock(*store)] += roundUp1024(type.getNumElements() * 2);
  }
  int64_t allStaging = 0;
  for (auto &loop : stagingByLoop)
    allStaging = std::max(allStaging, loop.second);
  bool allFit = requiredBytes(kernel, nullptr, 0, allStaging + exchangeBytes(kernel, converter, conversions)) <=
                maxSharedBytes(90);
  // Else whether they would all fit staged in their smallest parts: then the estimate of each
  // below leaves out the others' conversions too, as they go by TMA as well. (Two programs a
  // CTA with TAIL_SPLIT: each program's conversions of both loops' tiles, counted while the
  // other store is not yet decided, would leave both stores element by element, whose
  // conversions then need more than all of it.)
  bool allFitInParts = allFit;
  llvm::DenseMap<Operation *, int64_t> smallestOf; // each candidate's smallest staging
  if (!allFit) {
    llvm::DenseMap<Operation *, int64_t> smallestByLoop;
    for (Operation *op : tmaStores) {
      auto store = cast<StoreOp>(op);
      ConvertLayoutOp convert = conversionOf(store);
      auto type = cast<RankedTensorType>(store.getValue().getType());
      int64_t rows = type.getShape()[0], columns = type.getShape()[1], width = columns;
      while (stagingHalves(convert ? convert.getSrc() : store.getValue(), rows, columns, width))
        width /= 2;
      smallestOf[op] = roundUp1024(rows * width * 2);
      smallestByLoop[topBlock(kernel)->findAncestorOpInBlock(*store)] += smallestOf[op];
    }
    int64_t smallestStaging = 0;
    for (auto &loop : smallestByLoop)
      smallestStaging = std::max(smallestStaging, loop.second);
    // (The exchanges taking turns behind barriers where they do not fit one after another.)
    allFitInParts = !tmaStores.empty() &&
                    requiredBytes(kernel, nullptr, 0, smallestStaging + largestExchange(kernel, converter, conversions)) <=
                        maxSharedBytes(90);
  }
  for (StoreOp store : stores) {
    auto type = dyn_cast<RankedTensorType>(store.getValue().getType());
    auto why = [&](StringRef reason) {
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] store at " << store.getLoc() << ": " << reason << "\n");
    };
    if (StringRef reason = qualifies(store); !reason.empty()) {
      why(reason);
      continue;
    }
    RectangularAccessAnalysis analysis;
    std::optional<RectangularAccess> access = analysis.match(store.getPtr(), store.getMask(), type);
    TensorMapAttr map = tensorMapFor(*access, type, analysis);
    if (touchedOtherwise(kernel, tmaStores, access->base)) {
      why("its matrix is accessed otherwise");
      continue;
    }
    // The tile as computed: the conversion to the store's layout goes.
    Value value = store.getValue();
    ConvertLayoutOp convert = conversionOf(store);
    if (convert)
      value = convert.getSrc();
    llvm::SmallPtrSet<Operation *, 4> dropped;
    if (convert)
      dropped.insert(convert);
    if (allFitInParts)
      dropped.insert(conversions.begin(), conversions.end());
    // The staging buffer holds the whole tile, or, where that does not fit, a part of its
    // columns (halved down to one box's column block) that each slot of every thread lies in
    // alone: the parts are staged and copied in turn, each after the copy of the one before
    // has read the buffer (128x256 tiles beside four stages of 128x256 operands: 192 KiB of
    // rings, and 32 KiB of staging instead of 64).
    int64_t rows = type.getShape()[0], columns = type.getShape()[1], width = columns;
    Operation *owner = topBlock(kernel)->findAncestorOpInBlock(*store);
    // Where they all fit only in parts, the stores of this loop not yet decided keep room for
    // their smallest staging: else this one could take it and leave the next one element by
    // element, with the conversion the estimate left out (two 128x256 stores beside 4 stages
    // of rings failed to compile so).
    int64_t othersSmallest = 0;
    if (allFitInParts && !allFit)
      for (Operation *other : tmaStores)
        if (other != store.getOperation() && topBlock(kernel)->findAncestorOpInBlock(*other) == owner)
          othersSmallest += smallestOf.lookup(other);
    auto neededFor = [&](int64_t w, int64_t exchanges) {
      return requiredBytes(kernel, owner, roundUp1024(rows * w * 2) + othersSmallest, exchanges);
    };
    // The widest staging (the whole tile, or halved down to one box's column block) that fits
    // beside `exchanges` bytes of exchanges a program; `needed` what it then takes.
    int64_t needed = 0;
    auto widestFitting = [&](int64_t exchanges) {
      needed = neededFor(width = columns, exchanges);
      while (needed > maxSharedBytes(90) && stagingHalves(value, rows, columns, width))
        needed = neededFor(width /= 2, exchanges);
    };
    if (allFit) {
      needed = neededFor(width, exchangeBytes(kernel, converter, dropped));
    } else {
      widestFitting(exchangeBytes(kernel, converter, dropped));
      // Still too much: the exchanges taking turns behind barriers, each where the one before
      // was, cost a barrier each but no more than the largest of them (bench/results/
      // 2026-12-07-session45: fp8_matmul_persistent's 128x128 ws 3 s6 config with a bias, which
      // was 1024 bytes over and kept its plain store, whose conversion was 34 KiB over).
      if (needed > maxSharedBytes(90))
        widestFitting(largestExchange(kernel, converter, dropped));
    }
    if (!allFit && needed > maxSharedBytes(90)) {
      why("its staging buffer does not fit beside the rings and exchanges");
      continue;
    }
    OpBuilder b(context);
    b.setInsertionPointToStart(&kernel.front());
    Location loc = store.getLoc();
    SmallVector<int64_t> shape{1, rows, width};
    Value buffer = LocalAllocOp::create(b, loc, SharedBufferType::get(context, shape, type.getElementType()));
    unsigned index = kernel.getNumArguments();
    NamedAttribute recipe(StringAttr::get(context, TkgDialect::kTensorMap), map);
    (void)kernel.insertArgument(index, TensorMapType::get(context), DictionaryAttr::get(context, {recipe}), loc);
    b.setInsertionPoint(store);
    // An empty rectangle copies nothing (its map is the launcher's zeros).
    auto positive = [&](const Polynomial &extent) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, analysis.build(b, loc, extent, IRMapping()),
                                   i32Constant(b, loc, 0));
    };
    Value rowsLeft = positive(access->rowExtent);
    Value nonEmpty = arith::AndIOp::create(b, loc, rowsLeft, positive(access->colExtent));
    b.setInsertionPointToStart(scf::IfOp::create(b, loc, TypeRange{}, nonEmpty, false).thenBlock());
    Value row = analysis.build(b, loc, access->rowStart, IRMapping());
    Value col = analysis.build(b, loc, access->colStart, IRMapping());
    TmaStoreOp::create(b, loc, value, kernel.getArgument(index), ValueRange{row, col}, buffer);
    tmaStores.erase(store);
    store.erase();
    if (convert)
      convert.erase();
    stored = true;
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] store at " << loc << ": by TMA in " << columns / width << " part(s), "
                            << needed << " bytes of shared memory\n");
  }
  if (!stored)
    return;
  // A store left beside TMA stores to its matrix (one whose staging did not fit, or a plain
  // store after their loops) writes after their copies have (a wait of the issuing thread,
  // then a barrier of the program).
  llvm::SmallPtrSet<Value, 4> tmaStored;
  kernel.walk([&](TmaStoreOp store) {
    auto map = kernel.getArgAttrOfType<TensorMapAttr>(cast<BlockArgument>(store.getMap()).getArgNumber(),
                                                      TkgDialect::kTensorMap);
    tmaStored.insert(kernel.getArgument(map.getBase()));
  });
  SmallVector<StoreOp> plain;
  kernel.walk([&](StoreOp store) { plain.push_back(store); });
  for (StoreOp store : plain) {
    if (!tmaStored.contains(baseArgument(store.getPtr())))
      continue;
    OpBuilder b(store);
    TmaStoreWaitOp::create(b, store.getLoc(), /*written=*/true);
    AsyncWaitOp::create(b, store.getLoc(), 0);
  }
  kernel.walk([](func::ReturnOp ret) {
    OpBuilder b(ret);
    TmaStoreWaitOp::create(b, ret.getLoc());
  });
  // An atomic that releases tells other programs about what came before it, the copies too.
  kernel.walk([](Operation *op) {
    if (globalAccessOf(op).releases) {
      OpBuilder b(op);
      TmaStoreWaitOp::create(b, op->getLoc(), /*written=*/true);
    }
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
