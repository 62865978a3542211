// Atomics: only the thread that owns an element performs its read-modify-write (replicas of a
// small tile, and every thread but one for a scalar pointer, would repeat it); the old values
// reach the replicas through shared memory when the result is used. Ordering acq_rel at GPU
// scope, as Triton's defaults; an atomic of fewer owners than threads, or one that another
// thread's global write may precede (a store or atomic earlier in the kernel, or in a loop
// around it), is preceded by a barrier of the program, so it orders every thread's earlier
// accesses (the shared-memory exchange of its result orders the later ones).

#include "IndexArithmetic.h"
#include "MemoryTypes.h"
#include "Patterns.h"
#include "RectangularAccess.h"
#include "SharedAllocation.h"
#include "SharedRegion.h"
#include "ThreadTypeConverter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace tk::codegen {

namespace {

LLVM::AtomicBinOp binOpFor(AtomicKind kind, Type type) {
  bool isFloat = isa<FloatType>(type);
  switch (kind) {
  case AtomicKind::add: return isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
  case AtomicKind::max: return isFloat ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
  case AtomicKind::min: return isFloat ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
  case AtomicKind::umax: return LLVM::AtomicBinOp::umax;
  case AtomicKind::umin: return LLVM::AtomicBinOp::umin;
  case AtomicKind::xchg: return LLVM::AtomicBinOp::xchg;
  }
  return LLVM::AtomicBinOp::xchg;
}

Value zeroOf(OpBuilder &b, Location loc, Type type) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0.0));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
}

constexpr llvm::StringLiteral kScope = "device";

/// The LLVM ordering of `sem` (what cmpxchg keeps through NVPTX).
LLVM::AtomicOrdering orderingOf(MemorySemantic sem) {
  switch (sem) {
  case MemorySemantic::relaxed: return LLVM::AtomicOrdering::monotonic;
  case MemorySemantic::acquire: return LLVM::AtomicOrdering::acquire;
  case MemorySemantic::release: return LLVM::AtomicOrdering::release;
  case MemorySemantic::acq_rel: return LLVM::AtomicOrdering::acq_rel;
  }
  return LLVM::AtomicOrdering::acq_rel;
}

// A TMA store writes global memory too (through its issuing thread's copy, which a releasing
// atomic's `tkg.tma_store_wait written` waits for in that thread only: the barrier then orders
// it before every thread's release).
bool writesGlobal(Operation *op) { return isa<StoreOp, TmaStoreOp, AtomicRMWOp, AtomicCASOp>(op); }

/// The kernel's atomics that a global write of another thread may precede: one earlier in the
/// kernel (pre-order), or any in a loop around the atomic (the atomic itself included: its
/// previous iteration's). Computed before the conversion replaces the ops.
llvm::DenseSet<Operation *> atomicsAfterWrites(func::FuncOp kernel) {
  llvm::DenseSet<Operation *> after;
  bool written = false;
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!writesGlobal(op))
      return;
    bool inLoop = false;
    for (Operation *parent = op->getParentOp(); parent && parent != kernel; parent = parent->getParentOp())
      inLoop |= isa<scf::ForOp, scf::WhileOp>(parent);
    if (!isa<StoreOp, TmaStoreOp>(op) && (written || inLoop))
      after.insert(op);
    written = true;
  });
  return after;
}

template <typename Op> struct AtomicPattern : public OpConversionPattern<Op> {
  AtomicPattern(ThreadTypeConverter &converter, MLIRContext *context, const llvm::DenseSet<Operation *> &afterWrites)
      : OpConversionPattern<Op>(converter, context), converter(converter), afterWrites(afterWrites) {}

  LogicalResult matchAndRewrite(Op op, typename OpConversionPattern<Op>::OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    BlockedLayout l = converter.layoutOf(op.getPtr().getType());
    ValueRange ptrs = adaptor.getPtr();
    // An atomic's release covers another thread's earlier writes only when they happen before
    // it: without the barrier, another thread's store of a split-K partial could follow the
    // owner's increment. That holds for an atomic only some threads perform (a scalar pointer:
    // a program's flag or counter), and for one whose elements each have an owner (a counter
    // per row) when the rows' data were stored by other threads.
    // A relaxed or acquire-only atomic orders no earlier writes: no barrier.
    MemorySemantic sem = op.getSem();
    if (releases(sem) && (l.owners() < l.threads || afterWrites.contains(op.getOperation())))
      programBarrier(rewriter, loc);
    Value tid = threadId(rewriter, loc);
    Value owner = isOwner(rewriter, loc, l, tid);
    Type type = converter.convertType(tk::elementTypeOf(op.getResult().getType()));
    SmallVector<Value> old;
    for (int64_t slot = 0; slot < l.perThread(); ++slot) {
      Value pred = owner;
      if constexpr (std::is_same_v<Op, AtomicRMWOp>)
        if (op.getMask())
          pred = arith::AndIOp::create(rewriter, loc, pred, slotOf(adaptor.getMask(), slot));
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{type}, pred, true);
      OpBuilder b = ifOp.getThenBodyBuilder();
      // LLVM's NVPTX backend (22) writes an atomicrmw of any ordering as a relaxed `atom`: the
      // fences around it give the ordering the op carries (`sem`). A cmpxchg keeps its ordering
      // (`atom.acq_rel.gpu.cas`), so it needs none.
      constexpr bool fenced = std::is_same_v<Op, AtomicRMWOp>;
      if (fenced && releases(sem))
        LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, kScope);
      Value result = atomic(b, loc, op, adaptor, ptrs[slot], slot, type);
      if (fenced && acquires(sem))
        LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire, kScope);
      scf::YieldOp::create(b, loc, result);
      OpBuilder otherwise = ifOp.getElseBodyBuilder();
      scf::YieldOp::create(otherwise, loc, zeroOf(otherwise, loc, type));
      old.push_back(ifOp.getResult(0));
    }
    if (op->hasAttr(TkgDialect::kSharedOffset))
      old = throughShared(rewriter, loc, op, old, Distribution::of(l), Distribution::of(l), identityMap(log2Of(l.size)));
    else if (acquires(sem) && l.owners() < l.threads)
      // An acquire that only some threads perform orders the others' later reads only through
      // a barrier after it: the exchange of its old value has one, and an unused old value
      // (a wait's final acquire) gets one of its own.
      programBarrier(rewriter, loc);
    rewriter.replaceOpWithMultiple(op, {old});
    return success();
  }

  static Value atomic(OpBuilder &b, Location loc, Op op, typename OpConversionPattern<Op>::OneToNOpAdaptor adaptor, Value ptr,
                      int64_t slot, Type type) {
    if constexpr (std::is_same_v<Op, AtomicRMWOp>) {
      return LLVM::AtomicRMWOp::create(b, loc, binOpFor(op.getKind(), type), ptr, slotOf(adaptor.getValue(), slot),
                                       orderingOf(op.getSem()), kScope);
    } else {
      // cmpxchg compares bits: floats go through integers of their width.
      Type bits = b.getIntegerType(type.getIntOrFloatBitWidth());
      auto asBits = [&](Value v) { return v.getType() == bits ? v : (Value)arith::BitcastOp::create(b, loc, bits, v); };
      auto cas = LLVM::AtomicCmpXchgOp::create(b, loc, ptr, asBits(slotOf(adaptor.getCmp(), slot)),
                                               asBits(slotOf(adaptor.getValue(), slot)), orderingOf(op.getSem()),
                                               acquires(op.getSem()) ? LLVM::AtomicOrdering::acquire
                                                                     : LLVM::AtomicOrdering::monotonic,
                                               kScope);
      Value old = LLVM::ExtractValueOp::create(b, loc, cas, ArrayRef<int64_t>{0});
      return old.getType() == type ? old : (Value)arith::BitcastOp::create(b, loc, type, old);
    }
  }

  ThreadTypeConverter &converter;
  llvm::DenseSet<Operation *> afterWrites;
};

} // namespace

int64_t atomicSharedBytes(Operation *op, const ThreadTypeConverter &converter) {
  BlockedLayout l = converter.layoutOf(op->getOperand(0).getType());
  if (op->getResult(0).use_empty() || l.owners() >= l.threads)
    return 0;
  return l.size * elementBytes(op->getResult(0).getType());
}

void populateAtomicToThreads(ThreadTypeConverter &converter, func::FuncOp kernel, RewritePatternSet &patterns) {
  llvm::DenseSet<Operation *> afterWrites = atomicsAfterWrites(kernel);
  patterns.add<AtomicPattern<AtomicRMWOp>, AtomicPattern<AtomicCASOp>>(converter, patterns.getContext(), afterWrites);
}

} // namespace tk::codegen
