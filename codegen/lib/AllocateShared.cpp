// The tk-allocate-shared pass: each op that exchanges values between threads gets its byte
// range of the kernel's one shared buffer (`tkg.shared_offset`), stage rings first.
#include "SharedAllocation.h"
#include "ProducerSlice.h"
#include "ThreadTypeConverter.h"
#include "tk/Codegen/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tk-allocate-shared"

namespace tk {
#define GEN_PASS_DEF_TKALLOCATESHARED
#include "tk/Codegen/Passes.h.inc"
} // namespace tk

using namespace mlir;

namespace tk::codegen {

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

bool isStaging(LocalAllocOp alloc) { return llvm::any_of(alloc->getUsers(), llvm::IsaPred<TmaStoreOp>); }

SmallVector<SharedGroup> sharedGroups(func::FuncOp kernel, bool staging) {
  Block &body = kernel.getBody().front();
  // Each buffer's user: the op of the kernel's top level that holds every use (a ring made at
  // the kernel's start for a pipeline inside a loop over tiles is that loop's), or none.
  SmallVector<std::pair<Operation *, LocalAllocOp>> buffers;
  bool whole = false;
  kernel.walk([&](LocalAllocOp alloc) {
    if (isStaging(alloc) != staging)
      return;
    Operation *owner = nullptr;
    for (Operation *user : alloc->getUsers()) {
      Operation *ancestor = body.findAncestorOpInBlock(*user);
      // In a warp-specialized kernel, the consumers' op: the producer fills a later loop's
      // stages only once the consumers handed the earlier loop's over (kRingsHandoff).
      if (auto split = dyn_cast<scf::IfOp>(ancestor); split && split.getCondition().getDefiningOp<IsProducerOp>()) {
        if (split.getThenRegion().isAncestor(user->getParentRegion()))
          continue;
        ancestor = split.getElseRegion().front().findAncestorOpInBlock(*user);
      }
      owner = !owner || owner == ancestor ? ancestor : alloc.getOperation();
    }
    whole |= !owner || owner == alloc.getOperation() || owner->getNumRegions() == 0;
    buffers.push_back({owner, alloc});
  });
  SmallVector<SharedGroup> groups;
  if (!whole) // (and owners in different blocks: the kernel's entry and the consumers' branch)
    whole = llvm::any_of(buffers, [&](auto &buffer) { return buffer.first->getBlock() != buffers.front().first->getBlock(); });
  if (whole) { // (a buffer used at the top level, or by several of its ops, lives through them all)
    if (!buffers.empty())
      groups.push_back({nullptr, {}});
    for (auto &buffer : buffers)
      groups.back().buffers.push_back(buffer.second);
    return groups;
  }
  llvm::stable_sort(buffers, [](auto &x, auto &y) { return x.first != y.first && x.first->isBeforeInBlock(y.first); });
  for (auto [i, buffer] : llvm::enumerate(buffers)) {
    if (i == 0 || buffer.first != buffers[i - 1].first)
      groups.push_back({buffer.first, {}});
    groups.back().buffers.push_back(buffer.second);
  }
  return groups;
}

int64_t groupedBytes(func::FuncOp kernel, bool staging, Operation *extraOwner, int64_t extraBytes) {
  SmallVector<SharedGroup> groups = sharedGroups(kernel, staging);
  bool placed = !extraOwner;
  int64_t bytes = 0;
  for (const SharedGroup &group : groups) {
    int64_t own = 0;
    for (LocalAllocOp buffer : group.buffers)
      own += roundUp1024(localAllocBytes(buffer));
    // (An extra buffer whose op has none of these joins the group of every buffer when the
    // groups cannot share, else stands alone.)
    if (!placed && (group.owner == extraOwner || !group.owner)) {
      own += roundUp1024(extraBytes);
      placed = true;
    }
    bytes = std::max(bytes, own);
  }
  return placed ? bytes : std::max(bytes, roundUp1024(extraBytes));
}

ExchangeRuns::ExchangeRuns(func::FuncOp kernel)
    : body_(programsPerCtaOf(kernel) > 1 ? *topBlock(kernel) : kernel.getBody().front()) {}

ExchangeRuns::Step ExchangeRuns::next(Operation *op) {
  top_ = body_.findAncestorOpInBlock(*op);
  if (isa<scf::ForOp, scf::WhileOp>(top_)) {
    bool restart = lastLoop_ && top_ != lastLoop_;
    lastLoop_ = top_;
    restarted_ |= restart;
    return restart ? Step::Restart : Step::Go;
  }
  if (!restarted_)
    return Step::Go;
  restarted_ = false;
  return Step::AboveAll;
}

FailureOr<int64_t> assignShared(func::FuncOp kernel, const ThreadTypeConverter &converter, int sm) {
  MLIRContext *context = kernel.getContext();
  auto offsetAttr = [&](int64_t offset) { return IntegerAttr::get(IntegerType::get(context, 32), offset); };
  // Stage rings live through the whole kernel: they come first, and the exchanges of other ops
  // share the range after them.
  // mbarriers come first and are never reused: memory that was a barrier may only serve
  // another purpose after an mbarrier.inval.
  int64_t barriers = 0;
  kernel.walk([&](BarrierAllocOp alloc) {
    alloc->setAttr(TkgDialect::kSharedOffset, offsetAttr(barriers));
    barriers += 8 * alloc.getType().getCount();
  });
  barriers = roundUp16(barriers);
  // Each group's buffers one after another from `start` (a 1024-byte boundary each: the
  // swizzle's period); the end of the largest group.
  auto place = [&](ArrayRef<SharedGroup> groups, int64_t start) {
    int64_t end = start;
    for (const SharedGroup &group : groups) {
      int64_t next = start;
      for (LocalAllocOp buffer : group.buffers) {
        next = roundUp1024(next);
        buffer->setAttr(TkgDialect::kSharedOffset, offsetAttr(next));
        next += roundUp16(localAllocBytes(buffer));
      }
      end = std::max(end, next);
    }
    return end;
  };
  // TMA stores' staging buffers next: their copies read them after the op returned (the
  // epilogue's, while the next tile's mainloop runs), so nothing else ever reuses their bytes.
  // Those of stores in different loops over tiles share them: a store first waits until the
  // issuing thread's earlier copies, whichever store's, have read (TmaToThreads.cpp).
  // With two programs a CTA (which share the rings) the rings come first, then the bytes each
  // program has to itself: its staging, then its exchanges, which never reuse the rings (the
  // other program or the producer may be using them); program 1's copy follows program 0's.
  bool twoPrograms = programsPerCtaOf(kernel) > 1;
  Block &body = kernel.getBody().front();
  SmallVector<SharedGroup> groups = sharedGroups(kernel, /*staging=*/false);
  SmallVector<SharedGroup> stagingGroups = sharedGroups(kernel, /*staging=*/true);
  Operation *firstRing = groups.empty() ? nullptr : groups.front().buffers.front().getOperation();
  int64_t privateStart = twoPrograms ? place(groups, barriers) : 0;
  int64_t kept = place(stagingGroups, twoPrograms ? privateStart : barriers);
  int64_t pinned = twoPrograms ? kept : place(groups, kept);
  // A later group of rings reuses the earlier ones' bytes once every thread is done with them.
  for (size_t i = 1; i < groups.size(); ++i) {
    OpBuilder b(groups[i].owner);
    AsyncWaitOp::create(b, groups[i].owner->getLoc(), 0);
  }
  // The rings are dead after the kernel's last wait for every copy group and the last op that
  // reads a stage (the dot of a stage waited for before it, a wait for MMAs still reading):
  // exchanges after it (the epilogue's accumulator conversion) may reuse their bytes.
  Operation *ringsEnd = nullptr;
  auto extend = [&](Operation *op) {
    Operation *inBody = body.findAncestorOpInBlock(*op);
    if (inBody && (!ringsEnd || ringsEnd->isBeforeInBlock(inBody)))
      ringsEnd = inBody;
  };
  kernel.walk([&](Operation *op) {
    if (auto wait = dyn_cast<AsyncWaitOp>(op); wait && wait.getPending() == 0)
      extend(op);
    else if (isa<LocalLoadOp>(op))
      llvm::for_each(op->getUsers(), extend);
    else if (isa<DotWaitOp, DotWaitAllOp>(op))
      extend(op);
  });
  bool ringsEndBarrier = isa_and_nonnull<AsyncWaitOp>(ringsEnd);
  // The exchanges after `from` go on until 48 KiB, or until the bytes the kernel has left,
  // then start again from `from` behind a barrier: a kernel whose rings and staging leave
  // less than its exchanges take one after another still fits when each fits alone (two
  // programs a CTA, 128x128 tiles in 6 stages with a bias: three 512-byte broadcasts a
  // program, 1024 bytes over). With two programs, a program has half of what follows the
  // rings, in whole KiB (its stride), less its staging.
  auto exchangeWindow = [&](int64_t from) {
    int64_t left = twoPrograms ? (maxSharedBytes(sm) - privateStart) / 2 / 1024 * 1024 - (from - privateStart)
                               : maxSharedBytes(sm) - from;
    return std::min(kSharedLimit, left);
  };
  int64_t next = pinned, size = pinned;
  bool wrapped = false, ringsReleased = false, ringsBarrierPending = false, loopBarrierPending = false;
  int64_t placedEnd = next; // the end of the exchanges placed since the rings' bytes were
  SmallVector<Operation *> exchanges;
  ExchangeRuns runs(kernel);
  WalkResult walk = kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    int64_t bytes = sharedBytesOf(op, converter);
    if (!bytes)
      return WalkResult::advance();
    // A later loop's run starts again, its first op that surely runs each iteration (and every
    // op before it) behind a barrier.
    switch (runs.next(op)) {
    case ExchangeRuns::Step::Restart:
      next = pinned;
      wrapped = false;
      loopBarrierPending = true;
      break;
    case ExchangeRuns::Step::AboveAll:
      next = std::max(next, placedEnd);
      break;
    case ExchangeRuns::Step::Go:
      break;
    }
    bool barrierForLoop = loopBarrierPending;
    if (loopBarrierPending && op->getParentOp() == runs.topOf())
      loopBarrierPending = false;
    // After a wait that ends in a barrier the rings' bytes are free at once; otherwise only
    // when the op would not fit after them, and then every op placed from there on starts with
    // a barrier until one of the kernel's top level has (it runs on every path; one in a branch
    // or a loop that may not run orders nothing after it).
    bool afterRings = ringsEnd && ringsEnd->isBeforeInBlock(body.findAncestorOpInBlock(*op));
    if (!ringsReleased && pinned > kept && afterRings &&
        (ringsEndBarrier || roundUp16(std::max(next, pinned)) + 1024 + bytes > maxSharedBytes(sm))) {
      ringsReleased = true;
      pinned = next = placedEnd = kept;
      wrapped = false;
      ringsBarrierPending = !ringsEndBarrier;
    }
    bool barrierForRings = ringsBarrierPending;
    if (ringsBarrierPending && op->getBlock() == &body)
      ringsBarrierPending = false;
    if (bytes > kSharedLimit) {
      op->emitError() << "'" << op->getName() << "' needs " << bytes << " bytes of shared memory on the GPU, more than "
                      << kSharedLimit << "; use smaller tiles";
      return WalkResult::interrupt();
    }
    // A dot stages swizzled tiles, whose pattern (wgmma's too) repeats from 1024-byte boundaries.
    auto aligned = [&](int64_t offset) { return isa<DotOp>(op) ? roundUp1024(offset) : offset; };
    next = aligned(next);
    if (next + bytes > pinned + exchangeWindow(pinned)) {
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
    op->setAttr(TkgDialect::kSharedOffset, offsetAttr(next));
    exchanges.push_back(op);
    if (wrapped || inLoop || barrierForRings || barrierForLoop || isa<ScanOp>(op))
      op->setAttr(TkgDialect::kSharedBarrier, UnitAttr::get(context));
    next += roundUp16(bytes);
    size = std::max(size, next);
    placedEnd = std::max(placedEnd, next);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (twoPrograms && size > privateStart) {
    int64_t stride = roundUp1024(size - privateStart);
    auto strideAttr = IntegerAttr::get(IntegerType::get(context, 32), stride);
    for (const SharedGroup &group : stagingGroups)
      for (LocalAllocOp buffer : group.buffers)
        buffer->setAttr(TkgDialect::kSharedProgramStride, strideAttr);
    for (Operation *op : exchanges)
      op->setAttr(TkgDialect::kSharedProgramStride, strideAttr);
    size = privateStart + 2 * stride;
  }
  if (size > maxSharedBytes(sm)) {
    (firstRing ? firstRing : kernel.getOperation())->emitError()
        << "the software pipeline (num_stages = " << numStagesOf(kernel) << ") needs " << size
        << " bytes of shared memory, more than the " << maxSharedBytes(sm) << " of sm_" << sm
        << "; use fewer stages or smaller tiles";
    return failure();
  }
  return size;
}


namespace {

struct AllocateShared : public tk::impl::TkAllocateSharedBase<AllocateShared> {
  using TkAllocateSharedBase::TkAllocateSharedBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    int64_t sharedBytes = 0;
    for (auto kernel : module.getOps<func::FuncOp>()) {
      ThreadTypeConverter converter(&getContext(), threadsOf(kernel));
      converter.setWarpgroupMma(wgmma);
      FailureOr<int64_t> bytes = assignShared(kernel, converter, sm);
      if (failed(bytes))
        return signalPassFailure();
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] @" << kernel.getSymName() << ": " << *bytes << " bytes\n");
      sharedBytes = std::max(sharedBytes, *bytes);
    }
    if (sharedBytes)
      module->setAttr(TkgDialect::kSharedBytes, IntegerAttr::get(IntegerType::get(&getContext(), 32), sharedBytes));
  }
};

} // namespace
} // namespace tk::codegen
