// TMA pipelines (TmaPipeline.cpp) in per-thread code: mbarriers are 8-byte words of the
// kernel's shared buffer at the byte offset tk-allocate-shared gave their `barrier_alloc`;
// their operations and the TMA copies are inline PTX (the forms CUTLASS's ClusterBarrier and
// SM90_TMA_LOAD issue), each in the thread that the pipeline's `tkg.elect` branch chose or, for
// waits, in every thread.
#include "IndexArithmetic.h"
#include "MatrixStores.h"
#include "MemoryAccess.h"
#include "MemoryTypes.h"
#include "Patterns.h"
#include "SharedRegion.h"
#include "StageRings.h"
#include "Swizzle.h"
#include "TensorCoreOperands.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tk::codegen {
namespace {

/// Side-effecting inline PTX without results.
void ptx(OpBuilder &b, Location loc, const std::string &text, ValueRange operands, StringRef constraints) {
  inlinePtx(b, loc, TypeRange{}, operands, text, constraints, /*sideEffects=*/true);
}

/// The 32-bit shared-memory address of barrier `index` of the array at `barriers`.
Value barrierAddress(OpBuilder &b, Location loc, Value barriers, Value index) {
  Value at = LLVM::GEPOp::create(b, loc, barriers.getType(), b.getI64Type(), barriers, ValueRange{index});
  return LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), at);
}

/// Thread 0 of the program (each program of a CTA issues its own TMA stores).
Value isThreadZero(OpBuilder &b, Location loc) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, threadId(b, loc), i32Constant(b, loc, 0));
}

/// Thread 0, or the producer warpgroup's first thread in a warp-specialized kernel.
struct ElectPattern : public OpConversionPattern<ElectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ElectOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t first = producerWarpsOf(op) ? threadsOf(op) * programsPerCtaOf(op) : 0;
    rewriter.replaceOp(op, arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, ctaThreadId(rewriter, loc),
                                                 i32Constant(rewriter, loc, first)));
    return success();
  }
};

struct IsProducerPattern : public OpConversionPattern<IsProducerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(IsProducerOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOp(op, arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge, ctaThreadId(rewriter, loc),
                                                 i32Constant(rewriter, loc, threadsOf(op) * programsPerCtaOf(op))));
    return success();
  }
};

struct ProgramInCtaPattern : public OpConversionPattern<ProgramInCtaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ProgramInCtaOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, programInCta(rewriter, op.getLoc()));
    return success();
  }
};

struct SetMaxRegistersPattern : public OpConversionPattern<SetMaxRegistersOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SetMaxRegistersOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::SetMaxRegisterOp>(
        op, op.getCount(), op.getIncrease() ? NVVM::SetMaxRegisterAction::increase : NVVM::SetMaxRegisterAction::decrease);
    return success();
  }
};

struct BarrierAllocPattern : public OpConversionPattern<BarrierAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BarrierAllocOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value base = SharedRegion(rewriter, loc, op).base();
    // (Once a CTA: thread 0 of its first program.)
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, ctaThreadId(rewriter, loc),
                                        i32Constant(rewriter, loc, 0));
    auto init = scf::IfOp::create(rewriter, loc, TypeRange{}, first, false);
    OpBuilder b = init.getThenBodyBuilder();
    for (int64_t i = 0; i < op.getType().getCount(); ++i)
      ptx(b, loc, "mbarrier.init.shared::cta.b64 [$0], " + std::to_string(op.getArrivals()) + ";",
          barrierAddress(b, loc, base, i32Constant(b, loc, i)), "r");
    // The TMA unit (another proxy) and the other threads see the barriers initialized.
    ptx(b, loc, "fence.mbarrier_init.release.cluster;", {}, "");
    NVVM::Barrier0Op::create(rewriter, loc);
    // On clusters, the other CTA's threads too (its copies and releases reach these barriers),
    // once all of the kernel's are initialized: after the last of them in its block.
    auto laterAlloc = [&] {
      for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
        if (isa<BarrierAllocOp>(next))
          return true;
      return false;
    };
    if (clusterCtasOf(op) > 1 && !laterAlloc())
      ptx(rewriter, loc, "barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;", {}, "");
    rewriter.replaceOp(op, base);
    return success();
  }
};

/// An operation on barrier `index` of an array, as inline PTX whose $0 is the barrier's
/// address and $1.. the `extra` operands; lane 0 of each warp only with `perWarp`.
template <typename Op> struct BarrierPtxPattern : public OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using OpAdaptor = typename Op::Adaptor;
  virtual std::string text(Op op) const = 0;
  virtual SmallVector<Value> extra(OpAdaptor) const { return {}; }
  virtual bool perWarp() const { return false; }

  LogicalResult matchAndRewrite(Op op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto emit = [&](OpBuilder &b) {
      SmallVector<Value> operands{barrierAddress(b, loc, adaptor.getBarriers(), adaptor.getIndex())};
      for (Value value : extra(adaptor)) // (inline PTX takes 32-bit registers: a predicate as 0 or 1)
        operands.push_back(value.getType().isInteger(1) ? arith::ExtUIOp::create(b, loc, b.getI32Type(), value).getResult()
                                                        : value);
      ptx(b, loc, text(op), operands, StringRef(operands.size() == 1 ? "r" : "r,r"));
    };
    if (perWarp()) {
      Value lane = arith::AndIOp::create(rewriter, loc, threadId(rewriter, loc), i32Constant(rewriter, loc, 31));
      Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, lane, i32Constant(rewriter, loc, 0));
      OpBuilder inside = scf::IfOp::create(rewriter, loc, TypeRange{}, first, false).getThenBodyBuilder();
      emit(inside);
    } else {
      emit(rewriter);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierExpectPattern : public BarrierPtxPattern<BarrierExpectOp> {
  using BarrierPtxPattern::BarrierPtxPattern;
  std::string text(BarrierExpectOp op) const override {
    return "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], " + std::to_string(op.getBytes()) + ";";
  }
};

struct BarrierWaitPattern : public BarrierPtxPattern<BarrierWaitOp> {
  using BarrierPtxPattern::BarrierPtxPattern;
  // Labels in a { } block are local to it, so the loop may be inlined any number of times.
  std::string text(BarrierWaitOp) const override {
    return "{\n\t.reg .pred tk_ready;\n\ttk_wait:\n\tmbarrier.try_wait.parity.shared::cta.b64 tk_ready, [$0], $1;\n\t"
           "@!tk_ready bra tk_wait;\n\t}";
  }
  SmallVector<Value> extra(OpAdaptor adaptor) const override { return {adaptor.getParity()}; }
};

/// Lane 0 of every warp arrives once the warp got here. With `peer` (clusters of 2): on the
/// other CTA's barrier too where it holds (its address in the cluster's shared window by
/// `mapa`; release at the CTA's scope, as CUTLASS's ClusterBarrier arrives: what the arrival
/// orders is the warp's reads of the stage, and a cluster-scope release would also wait for
/// its earlier global writes), else twice on its own.
struct BarrierArrivePattern : public BarrierPtxPattern<BarrierArriveOp> {
  using BarrierPtxPattern::BarrierPtxPattern;
  std::string text(BarrierArriveOp op) const override {
    if (!op.getPeer())
      return "mbarrier.arrive.shared::cta.b64 _, [$0];";
    return "{\n\t.reg .pred tk_peer;\n\t.reg .b32 tk_rank, tk_remote;\n\t"
           "setp.ne.b32 tk_peer, $1, 0;\n\t"
           "@tk_peer mbarrier.arrive.shared::cta.b64 _, [$0];\n\t"
           "@!tk_peer mbarrier.arrive.shared::cta.b64 _, [$0], 2;\n\t"
           "mov.u32 tk_rank, %cluster_ctarank;\n\t"
           "xor.b32 tk_rank, tk_rank, 1;\n\t"
           "@tk_peer mapa.shared::cluster.u32 tk_remote, $0, tk_rank;\n\t"
           "@tk_peer mbarrier.arrive.shared::cluster.b64 _, [tk_remote];\n\t}";
  }
  SmallVector<Value> extra(OpAdaptor adaptor) const override {
    if (!adaptor.getPeer())
      return {};
    return {adaptor.getPeer()}; // (i1, widened below)
  }
  bool perWarp() const override { return true; }
};

struct ClusterBarrierPattern : public OpConversionPattern<ClusterBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ClusterBarrierOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    ptx(rewriter, op.getLoc(), "barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;", {}, "");
    rewriter.eraseOp(op);
    return success();
  }
};

/// Calls `copy` for each TMA box of a 2-D tile of `element`s held at `stage` as the column
/// blocks of its swizzled layout (Swizzle.h; one box a block): the box's 32-bit shared-memory
/// address and its first column, `col` being the tile's.
void forEachBox(OpBuilder &b, Location loc, Value stage, Value col, ArrayRef<int64_t> tile, Type element,
                function_ref<void(Value address, Value column)> copy) {
  int64_t bytes = elementBytes(element);
  auto swizzle = SwizzleParams::ofElements(tile[0], tile[1], bytes);
  for (int64_t block = 0; block < tile[1] / swizzle.blockLength; ++block) {
    Value at = LLVM::GEPOp::create(b, loc, stage.getType(), b.getI8Type(), stage,
                                   ArrayRef<LLVM::GEPArg>{int32_t(block * swizzle.blockStride() * bytes)});
    Value column = arith::AddIOp::create(b, loc, col, i32Constant(b, loc, block * swizzle.blockLength));
    copy(LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), at), column);
  }
}

/// A TMA copy's L2 eviction priority (`tkg.tma_load`'s `evict`): the policy, made once for the
/// op's boxes, and each copy's `.L2::cache_hint` with the policy as its last operand (the PTX
/// ISA's order: after `.multicast::cluster` and its CTA mask). Without a priority the copies
/// are as before.
struct CacheHint {
  Value policy;
  CacheHint(OpBuilder &b, Location loc, EvictionPolicy evict) : policy(l2EvictionPolicy(b, loc, evict)) {}
  /// `opcode operands;`, with the hint where there is one.
  void ptx(OpBuilder &b, Location loc, StringRef opcode, StringRef operands, SmallVector<Value> values,
           std::string constraints) const {
    std::string text = (opcode + (policy ? ".L2::cache_hint " : " ") + operands).str();
    if (policy) {
      text += ", $" + std::to_string(values.size());
      values.push_back(policy);
      constraints += ",l";
    }
    tk::codegen::ptx(b, loc, text + ";", values, constraints);
  }
};

struct TmaLoadPattern : public OpConversionPattern<TmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SharedBufferType type = op.getBuffer().getType();
    Value stage = stageBase(rewriter, loc, adaptor.getBuffer(), adaptor.getStage(), type);
    Value map = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(), adaptor.getMap());
    Value barrier = barrierAddress(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex());
    // (stack index,) row, column: the driver's order is innermost first.
    ValueRange coords = adaptor.getCoords();
    bool stacked = coords.size() == 3;
    Value row = coords[stacked], col = coords[stacked + 1];
    CacheHint hint(rewriter, loc, op.getEvict());
    // Shared by a cluster: this CTA's half into both CTAs where `shared` holds, else the whole
    // tile into its own, as without clusters (below).
    if (Value shared = adaptor.getShared()) {
      auto branch = scf::IfOp::create(rewriter, loc, TypeRange{}, shared, /*withElseRegion=*/true);
      rewriter.setInsertionPointToStart(&branch.getThenRegion().front());
      copyHalf(rewriter, loc, stage, LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(), adaptor.getHalves()),
               row, col, barrier, type, hint);
      rewriter.setInsertionPointToStart(&branch.getElseRegion().front());
    }
    forEachBox(rewriter, loc, stage, col, type.tileShape(), type.getElementType(), [&](Value dstAddress, Value column) {
      if (stacked)
        hint.ptx(rewriter, loc, "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes",
                 "[$0], [$1, {$2, $3, $4}], [$5]", {dstAddress, map, column, row, coords[0], barrier}, "r,l,r,r,r,r");
      else
        hint.ptx(rewriter, loc, "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
                 "[$0], [$1, {$2, $3}], [$4]", {dstAddress, map, column, row, barrier}, "r,l,r,r,r");
    });
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// This CTA's half of a stage two CTAs of a cluster share (rows from `%cluster_ctarank *
  /// rows / 2`, by `halves`' boxes) into both CTAs' stage and barrier (ctaMask 0b11). A half
  /// of a column block starts `rows / 2` rows in, as in the whole tile's layout: the halves
  /// are whole swizzle periods.
  static void copyHalf(OpBuilder &b, Location loc, Value stage, Value halves, Value row, Value col, Value barrier,
                       SharedBufferType type, const CacheHint &hint) {
    int64_t half = type.tileShape()[0] / 2, bytes = elementBytes(type.getElementType());
    int64_t halfBytes = half * SwizzleParams::ofElements(type.tileShape()[0], type.tileShape()[1], bytes).blockLength * bytes;
    Value rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
    Value offset = arith::MulIOp::create(b, loc, rank, i32Constant(b, loc, halfBytes));
    Value rowOf = arith::AddIOp::create(b, loc, row, arith::MulIOp::create(b, loc, rank, i32Constant(b, loc, half)));
    Value mask = arith::ConstantOp::create(b, loc, b.getI16IntegerAttr(3));
    forEachBox(b, loc, stage, col, type.tileShape(), type.getElementType(), [&](Value dstAddress, Value column) {
      hint.ptx(b, loc, "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster",
               "[$0], [$1, {$2, $3}], [$4], $5",
               {arith::AddIOp::create(b, loc, dstAddress, offset), halves, column, rowOf, barrier, mask}, "r,l,r,r,r,h");
    });
  }
};

/// The element offset that slot `slot` adds to a thread's first element under `bits`.
int64_t slotOffset(const LayoutBits &bits, int64_t slot) {
  int64_t offset = 0;
  for (auto [k, bit] : llvm::enumerate(bits.slot))
    if (bit >= 0 && (slot >> k & 1))
      offset |= int64_t(1) << bit;
  return offset;
}

/// The tile into its staging buffer, arranged as the map's boxes are (column blocks of the
/// swizzled layout, Swizzle.h), from the threads' own slots. An accumulator-like layout goes
/// by stmatrix.x4 (MatrixFragments: 8 slots an instruction, each matrix row a 16-byte chunk,
/// which the swizzle keeps whole); another by 4-byte stores of two 16-bit neighbours where slot
/// bit 0 is the column's bit 0, else 2-byte ones. Between the issuing thread's wait for its
/// earlier copies to read the buffer and the copy, barriers of the tile's threads; the async
/// proxy sees the writes through `fence.proxy.async`. A buffer of a part of the tile's columns
/// (tk-tma-stores' choice where the whole tile did not fit) takes the parts in turn: the
/// column blocks are contiguous in the swizzled arrangement, so a part's elements sit where
/// the whole tile's would, less the part's offset.
struct TmaStorePattern : public OpConversionPattern<TmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmaStoreOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SharedBufferType type = op.getBuffer().getType();
    ArrayRef<int64_t> tile = cast<RankedTensorType>(op.getValue().getType()).getShape();
    int64_t width = type.tileShape()[1], parts = tile[1] / width;
    Distribution d = distributionOf(op.getValue());
    if (parts > 1 && !partsChosenBySlots(d, tile[1], width))
      return rewriter.notifyMatchFailure(op, "a thread's slots span the staging parts unevenly");
    Type element = type.getElementType();
    auto swizzle = SwizzleParams::ofElements(tile[0], tile[1], elementBytes(element));
    Value base = stageBase(rewriter, loc, adaptor.getBuffer().front(), i32Constant(rewriter, loc, 0), type);
    Value issuer = isThreadZero(rewriter, loc);
    auto inIssuer = [&](auto emit) {
      OpBuilder inside = scf::IfOp::create(rewriter, loc, TypeRange{}, issuer, false).getThenBodyBuilder();
      emit(inside);
    };
    Value tid = threadId(rewriter, loc);
    int columnBits = llvm::Log2_64(tile[1]), partBits = llvm::Log2_64(width);
    auto partOf = [&](int64_t offset) { return (offset & (tile[1] - 1)) >> partBits; };
    auto inPart = [&](Value index, int64_t part) {
      return arith::SubIOp::create(rewriter, loc, index, i32Constant(rewriter, loc, part * width * tile[0]));
    };
    bool paired = !d.bits.slot.empty() && d.bits.slot[0] == 0;
    // Replicas write what the owner writes; only the owner does.
    bool replicated = llvm::is_contained(d.bits.slot, -1) || llvm::is_contained(d.bits.thread, -1);
    // An x4's four matrices lie in one part: their slot bits are no part's.
    std::optional<MatrixFragments> fragments =
        replicated ? std::nullopt : MatrixFragments::of(d, [&](int bit) {
          return d.bits.slot[bit] < partBits || d.bits.slot[bit] >= columnBits;
        });
    ValueRange values = adaptor.getValue();
    auto stagePart = [&](int64_t part) {
      if (fragments) {
        Value lane = elementIndex(rewriter, loc, fragments->rowAddresses, 0, tid);
        auto [row, col] = rowAndColumn(rewriter, loc, lane, tile[1]);
        SwizzledOffsets offsets(rewriter, loc, swizzle, row, col);
        for (int64_t instruction = 0; instruction < fragments->rowAddresses.perThread(); ++instruction) {
          if (partOf(slotOffset(d.bits, fragments->slot(instruction, 0))) != part)
            continue;
          int64_t offset = slotOffset(fragments->rowAddresses.bits, instruction);
          Value index = inPart(offsets.at(offset >> columnBits, offset & (tile[1] - 1)), part);
          SmallVector<Value, 4> registers;
          for (int matrix = 0; matrix < 4; ++matrix) {
            int64_t slot = fragments->slot(instruction, matrix);
            Value pair = packPair(rewriter, loc, {toMemory(rewriter, loc, slotOf(values, slot)),
                                                  toMemory(rewriter, loc, slotOf(values, slot + 1))}, 0);
            registers.push_back(LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(), pair));
          }
          Value at = LLVM::GEPOp::create(rewriter, loc, base.getType(), element, base, ValueRange{index});
          NVVM::StMatrixOp::create(rewriter, loc, at, registers, NVVM::MMALayout::row,
                                   NVVM::LdStMatrixShapeAttr::get(rewriter.getContext(), 8, 8),
                                   NVVM::LdStMatrixEltType::B16);
        }
        return;
      }
      auto [row, col] = rowAndColumn(rewriter, loc, elementIndex(rewriter, loc, d, 0, tid), tile[1]);
      SwizzledOffsets offsets(rewriter, loc, swizzle, row, col);
      Value owner = replicated ? isOwner(rewriter, loc, d, tid) : Value();
      for (int64_t slot = 0; slot < d.perThread(); slot += paired ? 2 : 1) {
        if (replicated && llvm::any_of(llvm::seq<size_t>(0, d.bits.slot.size()),
                                       [&](size_t k) { return d.bits.slot[k] < 0 && (slot >> k & 1); }))
          continue; // a slot that repeats slot 0's element
        int64_t offset = slotOffset(d.bits, slot);
        if (partOf(offset) != part)
          continue;
        Value index = inPart(offsets.at(offset >> columnBits, offset & (tile[1] - 1)), part);
        SmallVector<Value, 2> slots{toMemory(rewriter, loc, slotOf(values, slot))};
        if (paired)
          slots.push_back(toMemory(rewriter, loc, slotOf(values, slot + 1)));
        Value data = paired ? packPair(rewriter, loc, slots, 0) : slots[0];
        Value at = LLVM::GEPOp::create(rewriter, loc, base.getType(), element, base, ValueRange{index});
        auto emit = [&](OpBuilder &b) { LLVM::StoreOp::create(b, loc, data, at, paired ? 4 : 2); };
        if (owner) {
          OpBuilder inside = scf::IfOp::create(rewriter, loc, TypeRange{}, owner, false).getThenBodyBuilder();
          emit(inside);
        } else {
          emit(rewriter);
        }
      }
    };
    Value map = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(), adaptor.getMap().front());
    Value first = adaptor.getCoords()[0].front(), left = adaptor.getCoords()[1].front();
    for (int64_t part = 0; part < parts; ++part) {
      inIssuer([&](OpBuilder &b) { ptx(b, loc, "cp.async.bulk.wait_group.read 0;", {}, ""); });
      programBarrier(rewriter, loc);
      stagePart(part);
      ptx(rewriter, loc, "fence.proxy.async.shared::cta;", {}, "");
      programBarrier(rewriter, loc);
      Value partLeft = arith::AddIOp::create(rewriter, loc, left, i32Constant(rewriter, loc, part * width));
      inIssuer([&](OpBuilder &b) {
        forEachBox(b, loc, base, partLeft, type.tileShape(), element, [&](Value srcAddress, Value column) {
          ptx(b, loc, "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$0, {$1, $2}], [$3];",
              ValueRange{map, column, first, srcAddress}, "l,r,r,r");
        });
        ptx(b, loc, "cp.async.bulk.commit_group;", {}, "");
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaStoreWaitPattern : public OpConversionPattern<TmaStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmaStoreWaitOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder inside = scf::IfOp::create(rewriter, loc, TypeRange{}, isThreadZero(rewriter, loc), false).getThenBodyBuilder();
    ptx(inside, loc, op.getWritten() ? "cp.async.bulk.wait_group 0;" : "cp.async.bulk.wait_group.read 0;", {}, "");
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateTmaToThreads(ThreadTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ElectPattern, IsProducerPattern, ProgramInCtaPattern, SetMaxRegistersPattern, BarrierAllocPattern,
               BarrierExpectPattern, BarrierWaitPattern, BarrierArrivePattern, TmaLoadPattern, TmaStorePattern,
               TmaStoreWaitPattern, ClusterBarrierPattern>(converter, patterns.getContext());
}

} // namespace tk::codegen
