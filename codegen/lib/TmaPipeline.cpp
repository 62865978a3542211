// TMA pipelines (sm_90a): when every load a loop's tensor-core dot reads is a rectangle of a
// row-major matrix under exactly its bounds (RectangularAccess.h), one thread copies each
// stage with TMA instead of every thread with cp.async, and mbarriers replace the barrier of
// the whole program in the loop:
//
//   before       full[s] expects one arrival plus the stage's bytes, empty[s] one arrival per
//                warp; the elected thread copies iterations 0 .. D-1 into stages 0 .. D-1
//   iteration k  every thread waits for full[k % S] (phase parity (k / S) % 2) and the dot
//                reads stage k % S; each warp releases the stage whose MMAs it finished on
//                empty (k - 1's when the MMAs stay in flight, else k's); the elected thread
//                waits for empty of the stage iteration k + D fills (parity flipped: the first
//                S fills find their stages free), expects its bytes on full and copies; D is
//                S - 1, or S - 2 with the MMAs in flight and S >= 4 (the stage k - 2 released)
//   after        the MMAs' wait, then a barrier, before the epilogue reuses the rings' bytes
//
// When the loads feed different dots and no MMAs stay in flight (attention: K feeds S = QK^T,
// V feeds O += PV), each load has barriers of its own: a dot waits only for its own operand
// (S starts while V is still on its way) and each stage is released as soon as its dot's
// results are used (K's before the softmax, so that the next K's copy starts earlier).
//
// Loop-invariant operands copied once before the loop (attention's Q) that are rectangles too are
// copied by TMA on a barrier of their own, which the consumers wait for before the loop: by the
// producer warpgroup when there is one (in a loop over tiles, after the consumers released the
// previous tile's copy at their loop's end, so the next tile's Q lands during this one's
// epilogue), else by one elected thread where the cp.async copy was.
//
// The coordinates of iteration k + D are built from the rectangle's polynomials with the
// induction variable advanced; the pointer tiles, masks and carried pointers are dropped.
//
// On clusters of 2 CTAs (`cluster_size: 2`, a producer over a persistent loop whose programs
// differ in their tiles only), programs 2k and 2k + 1 run on cluster k (with two programs a
// CTA also 2k + C and 2k + 1 + C, C CTAs; program p's counterpart p xor 1), and at the r-th
// tile of each program and its counterpart the two producers both compute both tiles'
// coordinates: a copy whose coordinates are the same for the two tiles (B's columns, for two
// tiles of one column) is made once, each CTA copying half of its rows into both CTAs' stage
// (TMA multicast), the others each CTA for itself. Every consumer warp then releases a stage
// on both CTAs' empty barriers (which count both CTAs' warps), so that neither producer
// refills a stage the other CTA still reads; where the other CTA has no r-th tile (the last
// wave's odd tile), a warp arrives twice on its own instead. The rings stay in step: both
// CTAs' tiles have the same k-steps, in the same order of positions, and where one CTA has a
// tile the other has not (CTA 0's last one; with two programs a CTA, its program 0's or
// program 1's), every later position is that CTA's alone.
#include "DotLoadPipelines.h"
#include "ProducerSlice.h"
#include "ProgramsPerCta.h"
#include "IndexArithmetic.h"
#include "MemoryTypes.h"
#include "RectangularAccess.h"
#include "Swizzle.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tk-pipeline-dot-loads"

using namespace mlir;

namespace tk::codegen {
namespace {

/// (value + 1) mod stages, and the parity flipped when it wraps.
std::pair<Value, Value> nextStage(OpBuilder &b, Location loc, Value stage, Value parity, int64_t stages) {
  Value plusOne = arith::AddIOp::create(b, loc, stage, i32Constant(b, loc, 1));
  Value wraps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, plusOne, i32Constant(b, loc, stages));
  Value flipped = arith::XOrIOp::create(b, loc, parity, i32Constant(b, loc, 1));
  return {arith::SelectOp::create(b, loc, wraps, i32Constant(b, loc, 0), plusOne),
          arith::SelectOp::create(b, loc, wraps, flipped, parity)};
}

Value flip(OpBuilder &b, Location loc, Value parity) {
  return arith::XOrIOp::create(b, loc, parity, i32Constant(b, loc, 1));
}

class TmaPipeliner {
public:
  /// A loop-invariant operand's copy that TMA makes instead.
  struct InvariantCopy {
    AsyncCopyOp copy; // (erased once TMA replaces it: read `buffer`, kept apart, after that)
    RectangularAccess access;
    Value buffer; // the copy's destination
    EvictionPolicy evict; // the copy's L2 eviction priority
  };

  TmaPipeliner(scf::ForOp loop, LoopPlan &plan, int64_t stages, DotOp inFlight, RectangularAccessAnalysis &analysis,
               SmallVector<RectangularAccess, 2> accesses, SmallVector<InvariantCopy, 1> invariants, bool specialized,
               bool tilePingPong, bool cluster)
      : loop_(loop), plan_(plan), stages_(stages), inFlight_(inFlight), analysis_(analysis),
        accesses_(std::move(accesses)), invariants_(std::move(invariants)), specialized_(specialized),
        tilePingPong_(tilePingPong), cluster_(cluster),
        barriersPerLoad_(!inFlight && plan.loads.size() > 1 && feedDifferentDots(plan.loads)) {
    // With the MMAs in flight, the stage iteration k refills is the one iteration k - 1 released
    // (k - 2's): the elected thread rarely waits for the other warps, which measured 4-5% faster
    // than refilling k - 1's stage at 4096^3, 8192^3 and 2048x4096x11008 (H200, 4 stages and
    // more). With 3 stages that would copy one iteration ahead, too little to cover a copy's
    // latency: the loop refills k - 1's stage, two ahead.
    distance_ = inFlight && stages >= 4 ? stages - 2 : stages - 1;
  }

  void run() {
    MLIRContext *context = loop_.getContext();
    IRRewriter rewriter(context);
    Location loc = loop_.getLoc();
    auto kernel = loop_->getParentOfType<func::FuncOp>();
    // A producer warpgroup needs the rings and barriers before the kernel splits; a loop inside
    // a loop over tiles (a persistent kernel) keeps one set of barriers, whose phases go on
    // from tile to tile (initializing a barrier again while copies may be pending is not allowed).
    auto outer = dyn_cast<scf::ForOp>(loop_->getParentOp());
    if (specialized_ || outer)
      rewriter.setInsertionPointToStart(&kernel.front());
    else if (!invariants_.empty())
      rewriter.setInsertionPoint(invariants_.front().copy); // the first of them, in the loop's block
    else
      rewriter.setInsertionPoint(loop_);
    groupBytes_.assign(barriersPerLoad_ ? plan_.loads.size() : 1, 0);
    for (auto [loadIndex, load, access] : llvm::enumerate(plan_.loads, accesses_)) {
      auto type = cast<RankedTensorType>(load.getType());
      SmallVector<int64_t> shape{stages_};
      llvm::append_range(shape, type.getShape());
      buffers_.push_back(LocalAllocOp::create(rewriter, load.getLoc(), SharedBufferType::get(context, shape, type.getElementType())));
      groupBytes_[groupOf(loadIndex)] += type.getNumElements() * elementBytes(type.getElementType());
      maps_.push_back(addTensorMap(kernel, access, type, load.getLoc()));
      evicts_.push_back(load.getEvict());
      // On clusters also a map of half-row boxes (a CTA's half of a shared copy).
      if (cluster_)
        halfMaps_.push_back(addTensorMap(
            kernel, access, RankedTensorType::get({type.getShape()[0] / 2, type.getShape()[1]}, type.getElementType()),
            load.getLoc()));
    }
    for (InvariantCopy &invariant : invariants_) {
      // A producer copies into the buffer too: it is made before the kernel splits.
      if (specialized_ || outer)
        rewriter.moveOpBefore(invariant.buffer.getDefiningOp(), rewriter.getInsertionBlock(),
                              rewriter.getInsertionPoint());
      auto type = cast<SharedBufferType>(invariant.buffer.getType());
      auto tile = RankedTensorType::get(type.tileShape(), type.getElementType());
      invariantBytes_ += tile.getNumElements() * elementBytes(tile.getElementType());
      invariantMaps_.push_back(addTensorMap(kernel, invariant.access, tile, invariant.copy.getLoc()));
    }
    auto barriers = BarriersType::get(context, stages_);
    for (size_t group = 0; group < groupBytes_.size(); ++group) {
      full_.push_back(BarrierAllocOp::create(rewriter, loc, barriers, rewriter.getI64IntegerAttr(1)));
      empty_.push_back(BarrierAllocOp::create(rewriter, loc, barriers,
                                              rewriter.getI64IntegerAttr(numWarpsOf(kernel) * (cluster_ ? 2 : 1))));
    }
    if (specialized_ && existingSplit(kernel)) {
      // (Every consumer warp arrives: both programs' with two a CTA.)
      auto handoff = BarrierAllocOp::create(rewriter, loc, BarriersType::get(context, 1),
                                            rewriter.getI64IntegerAttr(numWarpsOf(kernel) * programsPerCtaOf(kernel)));
      handoff->setAttr(TkgDialect::kRingsHandoff, rewriter.getUnitAttr());
      handoff_ = handoff;
    }
    if (!invariants_.empty()) {
      auto one = BarriersType::get(context, 1);
      invariantFull_ = BarrierAllocOp::create(rewriter, loc, one, rewriter.getI64IntegerAttr(1));
      // A producer refilling them for the next tile waits for the consumers' release.
      if (specialized_ && outer)
        invariantEmpty_ = BarrierAllocOp::create(rewriter, loc, one, rewriter.getI64IntegerAttr(numWarpsOf(kernel)));
    }
    Value oldInduction = loop_.getInductionVar();
    Value zero = i32Constant(rewriter, loc, 0);
    // The ring position the loop starts reading at: stage 0 of phase 0, or in a loop over
    // tiles, where the previous tile's loop stopped (carried by the outer loop).
    // (A loop over tiles also carries the phase of the invariants' barrier.)
    Value firstStage = zero, firstParity = zero, invariantParity = zero;
    unsigned outerCarried = invariants_.empty() ? 2 : 3;
    // Two programs a CTA on their own tiles (`warp_specialize: 3`): program w's r-th tile reads
    // the ring from position (2r + w) * KT (the producer fills the two programs' tiles in
    // turn), kept modulo 2S (stage and parity) as `tileSkip_` = KT mod 2S.
    SmallVector<Value> outerStarts(outerCarried, zero);
    if (tilePingPong_) {
      rewriter.setInsertionPoint(outer);
      tileSkip_ = positionsPerTile(rewriter, loc);
      // w: a constant in each program's copy of the code (tk-specialize-programs), where
      // program_id(0) >= C would be a select at run time.
      Value program = ProgramInCtaOp::create(rewriter, loc, rewriter.getI32Type());
      std::tie(outerStarts[0], outerStarts[1]) =
          advancePosition(rewriter, loc, zero, zero, arith::MulIOp::create(rewriter, loc, program, tileSkip_));
    }
    if (outer) {
      rewriter.setInsertionPoint(outer);
      auto grownOuter = outer.replaceWithAdditionalYields(
          rewriter, outerStarts, /*replaceInitOperandUsesInLoop=*/false,
          [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) { return SmallVector<Value>(args.begin(), args.end()); });
      outer = cast<scf::ForOp>(grownOuter->getOperation());
      auto carried = outer.getRegionIterArgs().take_back(outerCarried);
      firstStage = carried[0];
      firstParity = carried[1];
      if (!invariants_.empty())
        invariantParity = carried[2];
      if (cluster_) {
        rewriter.setInsertionPointToStart(outer.getBody());
        peerActive_ = peerTile(rewriter, loc, outer.getLowerBound(), outer.getInductionVar(), outer.getUpperBound()).second;
      }
    }
    if (specialized_) {
      rewriter.setInsertionPointAfter((invariantEmpty_ ? invariantEmpty_ : invariantFull_ ? invariantFull_ : empty_.back()).getDefiningOp());
      buildProducer(rewriter, kernel, oldInduction, outer);
      if (handoff_) { // every consumer warp is done with the earlier loop's stages here
        rewriter.setInsertionPoint(outer ? outer.getOperation() : loop_.getOperation());
        BarrierArriveOp::create(rewriter, loc, handoff_, zero, ValueRange{});
      }
    } else {
      // The invariants' copies where cp.async's were.
      for (InvariantCopy &invariant : invariants_) {
        rewriter.setInsertionPoint(invariant.copy);
        Value elected = ElectOp::create(rewriter, loc, rewriter.getI1Type());
        OpBuilder inside = scf::IfOp::create(rewriter, loc, TypeRange{}, elected, false).getThenBodyBuilder();
        if (&invariant == &invariants_.front())
          BarrierExpectOp::create(inside, loc, invariantFull_, zero, inside.getI64IntegerAttr(invariantBytes_));
        issueInvariant(inside, loc, invariant, IRMapping());
      }
    }
    eraseInvariantCopies(rewriter);
    rewriter.setInsertionPoint(loop_);
    if (!specialized_) {
      leader_ = ElectOp::create(rewriter, loc, rewriter.getI1Type());
      // Iterations 0 .. D-1 go to the D positions from the first; each waits for its stage's
      // release by the reads S positions earlier (parity flipped: at once on a fresh barrier).
      // Outside a loop over tiles, the first D positions are stages 0 .. D-1, never filled.
      Value stage = firstStage, parity = firstParity;
      for (int64_t i = 0; i < distance_; ++i) {
        Value iv = advance(rewriter, loc, loop_, loop_.getLowerBound(), i);
        issue(rewriter, loc, oldInduction, iv, outer ? stage : i32Constant(rewriter, loc, i),
              outer ? flip(rewriter, loc, parity) : Value());
        if (outer)
          std::tie(stage, parity) = nextStage(rewriter, loc, stage, parity, stages_);
      }
      fillStart_ = outer ? std::make_pair(stage, parity) : std::make_pair(i32Constant(rewriter, loc, distance_), zero);
    }
    // The loop reads the invariants from its first iteration (its first stages are on their way).
    if (!invariants_.empty())
      BarrierWaitOp::create(rewriter, loc, invariantFull_, zero, invariantParity);

    // Carried: the stage this iteration reads and its phase (and without a producer, the stage
    // it fills and its phase, D positions ahead).
    SmallVector<Value> starts{firstStage, firstParity};
    if (!specialized_)
      starts.append({fillStart_.first, fillStart_.second});
    auto grown = loop_.replaceWithAdditionalYields(
        rewriter, starts, /*replaceInitOperandUsesInLoop=*/false, [&](OpBuilder &b, Location, ArrayRef<BlockArgument> args) {
          SmallVector<Value> next;
          for (size_t i = 0; i < args.size(); i += 2) {
            auto [stage, parity] = nextStage(b, loc, args[i], args[i + 1], stages_);
            next.append({stage, parity});
          }
          return next;
        });
    loop_ = cast<scf::ForOp>(grown->getOperation());
    auto carried = loop_.getRegionIterArgs().take_back(starts.size());
    Value readStage = carried[0], readParity = carried[1];

    rewriter.setInsertionPointToStart(loop_.getBody());
    SmallVector<Value> stageReads;
    if (!barriersPerLoad_) {
      BarrierWaitOp::create(rewriter, loc, full_[0], readStage, readParity);
      for (auto [load, buffer] : llvm::zip(plan_.loads, buffers_))
        stageReads.push_back(readFromStage(rewriter, load, buffer, readStage));
    } else {
      // Each load's wait just before its first use.
      for (auto [index, load, buffer] : llvm::enumerate(plan_.loads, buffers_)) {
        Operation *use = firstUseInBody(stagedValue(load));
        rewriter.setInsertionPoint(use);
        BarrierWaitOp::create(rewriter, loc, full_[index], readStage, readParity);
        stageReads.push_back(readFromStage(rewriter, load, buffer, readStage, use));
      }
    }

    auto yield = cast<scf::YieldOp>(loop_.getBody()->getTerminator());
    rewriter.setInsertionPoint(yield);
    Value iv = loop_.getInductionVar();
    if (inFlight_) {
      // The MMAs of iteration k - 1 are done once iteration k's dot has waited for all but its own.
      Value last = i32Constant(rewriter, loc, stages_ - 1);
      Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, readStage, zero);
      Value previous = arith::SelectOp::create(rewriter, loc, first, last,
                                               arith::SubIOp::create(rewriter, loc, readStage, i32Constant(rewriter, loc, 1)));
      Value notFirst = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne, iv, loop_.getLowerBound());
      auto release = scf::IfOp::create(rewriter, loc, TypeRange{}, notFirst, false);
      OpBuilder inside = release.getThenBodyBuilder();
      BarrierArriveOp::create(inside, loc, empty_[0], previous, buffers_, peerActive_);
    } else if (!barriersPerLoad_) {
      BarrierArriveOp::create(rewriter, loc, empty_[0], readStage, buffers_, peerActive_);
    } else {
      // A stage is free once the results of the last dot reading it are used: whatever waits
      // for that dot's MMAs (tk-async-dots puts the wait before the first use) has waited.
      for (auto [index, read] : llvm::enumerate(stageReads)) {
        Operation *lastDot = nullptr;
        for (Operation *user : read.getUsers())
          if (Operation *inBody = loop_.getBody()->findAncestorOpInBlock(*user);
              inBody && (!lastDot || lastDot->isBeforeInBlock(inBody)))
            lastDot = inBody;
        Operation *use = !lastDot ? yield.getOperation() : lastDot->getNumResults() ? firstUseInBody(lastDot->getResults()) : lastDot;
        if (use == yield.getOperation())
          rewriter.setInsertionPoint(yield);
        else
          rewriter.setInsertionPointAfter(use);
        BarrierArriveOp::create(rewriter, loc, empty_[index], readStage, ValueRange{buffers_[index]});
      }
      rewriter.setInsertionPoint(yield);
    }
    if (!specialized_) {
      Value ahead = advance(rewriter, loc, loop_, iv, distance_);
      issue(rewriter, loc, oldInduction, ahead, carried[2], flip(rewriter, loc, carried[3]));
    }
    // The carried pointers now only feed their own updates: they stay as they start (and fold away).
    for (unsigned arg : plan_.addressArgs)
      yield->setOperand(arg, loop_.getRegionIterArgs()[arg]);
    for (Operation *op : llvm::reverse(plan_.addressOps))
      if (op->use_empty())
        rewriter.eraseOp(op);

    scf::ForOp pipelined = loop_;
    endPipeline(rewriter, loc, loop_, inFlight_, /*onlyIfRan=*/cluster_);
    if (tilePingPong_)
      takeTileTurns(pipelined, outer, /*afterAnother=*/bool(handoff_));
    if (outer) {
      // The next tile reads on from here; with the MMAs in flight, the last iteration's stage
      // was not released in the loop (its MMAs ended at the wait above).
      Value endStage = pipelined.getResults().take_back(starts.size())[0];
      Value endParity = pipelined.getResults().take_back(starts.size())[1];
      if (inFlight_) {
        Value ran = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, pipelined.getLowerBound(),
                                          pipelined.getUpperBound());
        auto release = scf::IfOp::create(rewriter, loc, TypeRange{}, ran, false);
        OpBuilder inside = release.getThenBodyBuilder();
        Value first = arith::CmpIOp::create(inside, loc, arith::CmpIPredicate::eq, endStage, zero);
        Value previous = arith::SelectOp::create(inside, loc, first, i32Constant(inside, loc, stages_ - 1),
                                                 arith::SubIOp::create(inside, loc, endStage, i32Constant(inside, loc, 1)));
        BarrierArriveOp::create(inside, loc, empty_[0], previous, buffers_, peerActive_);
      }
      if (tilePingPong_) // the other program's tile comes next in the ring
        std::tie(endStage, endParity) = advancePosition(rewriter, loc, endStage, endParity, tileSkip_);
      auto outerYield = cast<scf::YieldOp>(outer.getBody()->getTerminator());
      unsigned n = outerYield.getNumOperands() - outerCarried;
      outerYield->setOperand(n, endStage);
      outerYield->setOperand(n + 1, endParity);
      if (!invariants_.empty()) {
        // Every consumer is done with the invariants (the wait above ends in a barrier): the
        // producer may copy the next tile's.
        if (invariantEmpty_)
          BarrierArriveOp::create(rewriter, loc, invariantEmpty_, zero, invariantBuffers());
        outerYield->setOperand(n + 2, flip(rewriter, loc, invariantParity));
      }
    }
    dropDeadAddresses(kernel);
    if (specialized_)
      moveConsumers(kernel);
    if (cluster_) { // no CTA leaves while the other may copy into it or arrive on its barriers
      rewriter.setInsertionPoint(kernel.front().getTerminator());
      ClusterBarrierOp::create(rewriter, loc);
    }
  }

private:
  /// At the kernel's start: the producer warpgroup gives registers back (and waits for the
  /// kernel ahead when the kernel has a gdc_wait) and one of its threads fills every
  /// iteration's stage, waiting for the consumers to release it (parity flipped: the first
  /// round of stages is free); the consumers take the registers (else branch, which
  /// moveConsumers fills with the rest of the kernel).
  void buildProducer(IRRewriter &rewriter, func::FuncOp kernel, Value induction, scf::ForOp outer) {
    Location loc = loop_.getLoc();
    MLIRContext *context = kernel.getContext();
    // A later loop over tiles (the kernel split for an earlier one): its fills follow the
    // earlier loop's in the producer's branch, once the consumers have handed that loop's
    // stages over (see `handoff_`).
    split_ = existingSplit(kernel);
    bool later = bool(split_);
    OpBuilder producer(context);
    if (later) {
      producer.setInsertionPoint(split_.getThenRegion().front().getTerminator());
    } else {
      kernel->setAttr(TkgDialect::kProducerWarps, IntegerAttr::get(IntegerType::get(context, 32), 4));
      if (tilePingPong_)
        kernel->setAttr(TkgDialect::kProgramsPerCta, IntegerAttr::get(IntegerType::get(context, 32), 2));
      if (cluster_)
        kernel->setAttr(TkgDialect::kClusterCtas, IntegerAttr::get(IntegerType::get(context, 32), 2));
      Value isProducer = IsProducerOp::create(rewriter, loc, rewriter.getI1Type());
      split_ = scf::IfOp::create(rewriter, loc, TypeRange{}, isProducer, /*withElseRegion=*/true);
      // 128 producer threads keep 40 registers; the consumers share the rest (at most 240 each).
      int64_t consumers = threadsOf(kernel) * programsPerCtaOf(kernel);
      int64_t consumerRegisters = std::min<int64_t>(240, (65536 - 128 * 40) / consumers / 8 * 8);
      OpBuilder consumer = split_.getElseBodyBuilder();
      SetMaxRegistersOp::create(consumer, loc, consumerRegisters, /*increase=*/true);
      producer = split_.getThenBodyBuilder();
      SetMaxRegistersOp::create(producer, loc, 40, /*increase=*/false);
      // Programmatic dependent launch: a gdc_wait of the kernel's goes to the consumers' branch
      // with the rest of it, yet the producer's copies read memory an earlier kernel may write,
      // so the producer waits too, before its first copy (griddepcontrol.wait is per thread;
      // gdc_launch_dependents counts once a program, so the consumers' is enough). At once, even
      // when the kernel waits later (after its loop): never too late, at worst less overlap.
      if (kernel.walk([](GridDependencyWaitOp) { return WalkResult::interrupt(); }).wasInterrupted())
        GridDependencyWaitOp::create(producer, loc);
    }
    auto issuer = scf::IfOp::create(producer, loc, TypeRange{}, ElectOp::create(producer, loc, producer.getI1Type()), false);
    OpBuilder b = issuer.getThenBodyBuilder();
    if (later) // the earlier loop's stages, whose bytes this loop's rings may reuse, all read
      BarrierWaitOp::create(b, loc, handoff_, i32Constant(b, loc, 0), i32Constant(b, loc, 0));
    llvm::SetVector<Operation *> slice;
    SmallVector<Value> inputs = producerInputs(loop_, allAccesses(), analysis_);
    if (outer)
      inputs.append({outer.getLowerBound(), outer.getUpperBound(), outer.getStep()});
    for (Value v : inputs)
      (void)collectScalarSlice(v, kernel, loop_, slice);
    // The kernel's top-level ops first, then (in a persistent kernel) the tile loop's, inside
    // the producer's own loop over the same tiles.
    SmallVector<Operation *> top, perTile;
    Block *consumersTop = topBlock(kernel);
    for (Operation *op : slice)
      (op->getBlock() == &kernel.front() || op->getBlock() == consumersTop ? top : perTile).push_back(op);
    // (The kernel's entry before the consumers' branch, when both hold some.)
    auto inOrder = [](Operation *x, Operation *y) {
      return x->getBlock() == y->getBlock() ? x->isBeforeInBlock(y) : !isa<scf::IfOp>(x->getParentOp());
    };
    llvm::sort(top, inOrder);
    llvm::sort(perTile, inOrder);
    IRMapping mapping;
    for (Operation *op : top) {
      Operation *copy = b.clone(*op, mapping);
      // The tile loop starts from program 0 of the CTA's (program 1's are nctaid on: programsApart).
      if (tilePingPong_ && isa<ProgramIdOp>(copy))
        copy->setAttr(TkgDialect::kProgramInCta, b.getI32IntegerAttr(0));
    }
    Value zero = i32Constant(b, loc, 0);
    scf::ForOp tiles;
    // Carried by the loop over tiles: the rings' position, and the invariants' barrier phase.
    SmallVector<Value> position{zero, zero};
    Value invariantParity;
    if (outer) {
      SmallVector<Value> carried{zero, zero};
      if (!invariants_.empty())
        carried.push_back(zero);
      tiles = scf::ForOp::create(b, loc, mapping.lookupOrDefault(outer.getLowerBound()),
                                 mapping.lookupOrDefault(outer.getUpperBound()), mapping.lookupOrDefault(outer.getStep()),
                                 carried);
      b.setInsertionPointToStart(tiles.getBody());
      position.assign(tiles.getRegionIterArgs().begin(), tiles.getRegionIterArgs().begin() + 2);
      if (tilePingPong_) {
        // Program 0's tile, then program 1's (programsApart later) when there is one.
        IRMapping first = mapping;
        first.map(outer.getInductionVar(), tiles.getInductionVar());
        for (Operation *op : perTile)
          b.clone(*op, first);
        if (cluster_)
          mapPeer(b, loc, first, tiles.getLowerBound(), tiles.getInductionVar(), tiles.getUpperBound(), perTile,
                  outer.getInductionVar());
        scf::ForOp firstFills = fillTile(b, loc, first, induction, position);
        Value next = arith::AddIOp::create(b, loc, tiles.getInductionVar(), programsApart(b, loc, tiles.getStep()));
        Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, next, tiles.getUpperBound());
        auto second = scf::IfOp::create(b, loc, firstFills.getResultTypes(), inRange, /*withElseRegion=*/true);
        OpBuilder then = OpBuilder::atBlockBegin(&second.getThenRegion().front());
        IRMapping secondMapping = mapping;
        secondMapping.map(outer.getInductionVar(), next);
        for (Operation *op : perTile)
          then.clone(*op, secondMapping);
        if (cluster_)
          mapPeer(then, loc, secondMapping, tiles.getLowerBound(), next, tiles.getUpperBound(), perTile,
                  outer.getInductionVar());
        scf::YieldOp::create(then, loc, fillTile(then, loc, secondMapping, induction, firstFills.getResults()).getResults());
        OpBuilder otherwise = OpBuilder::atBlockBegin(&second.getElseRegion().front());
        scf::YieldOp::create(otherwise, loc, firstFills.getResults());
        scf::YieldOp::create(b, loc, second.getResults());
        return;
      }
      mapping.map(outer.getInductionVar(), tiles.getInductionVar());
      for (Operation *op : perTile)
        b.clone(*op, mapping);
      if (!invariants_.empty())
        invariantParity = tiles.getRegionIterArgs()[2];
      if (cluster_) // the other CTA's tile at this step, whose coordinates this producer computes too
        mapPeer(b, loc, mapping, tiles.getLowerBound(), tiles.getInductionVar(), tiles.getUpperBound(), perTile,
                outer.getInductionVar());
    }
    // The invariants first: the consumers wait for them before their loop (in a loop over
    // tiles, once the consumers released the previous tile's).
    if (!invariants_.empty()) {
      if (invariantEmpty_)
        BarrierWaitOp::create(b, loc, invariantEmpty_, zero, flip(b, loc, invariantParity));
      BarrierExpectOp::create(b, loc, invariantFull_, zero, b.getI64IntegerAttr(invariantBytes_));
      for (InvariantCopy &invariant : invariants_)
        issueInvariant(b, loc, invariant, mapping);
    }
    scf::ForOp fills = fillTile(b, loc, mapping, induction, position);
    if (tiles) {
      SmallVector<Value> next(fills.getResults());
      if (invariantParity)
        next.push_back(flip(b, loc, invariantParity));
      scf::YieldOp::create(b, loc, next);
    }
  }

  /// The producer's loop filling one tile's k-loop from ring position `from` (stage, parity),
  /// after the builder's point; its results are the position after it.
  scf::ForOp fillTile(OpBuilder &b, Location loc, IRMapping &mapping, Value induction, ValueRange from) {
    auto fills = scf::ForOp::create(b, loc, mapping.lookupOrDefault(loop_.getLowerBound()),
                                    mapping.lookupOrDefault(loop_.getUpperBound()), mapping.lookupOrDefault(loop_.getStep()),
                                    from);
    OpBuilder body = OpBuilder::atBlockBegin(fills.getBody());
    Value stage = fills.getRegionIterArgs()[0], parity = fills.getRegionIterArgs()[1];
    mapping.map(induction, fills.getInductionVar());
    if (peer_)
      peer_->mapping.map(induction, fills.getInductionVar());
    fill(body, loc, mapping, stage, arith::XOrIOp::create(body, loc, parity, i32Constant(body, loc, 1)));
    auto [nextStageValue, nextParity] = nextStage(body, loc, stage, parity, stages_);
    scf::YieldOp::create(body, loc, ValueRange{nextStageValue, nextParity});
    return fills;
  }

  /// The rest of the kernel runs in the consumers' branch.
  void moveConsumers(func::FuncOp kernel) {
    Block &entry = kernel.front();
    Operation *yield = split_.getElseRegion().front().getTerminator();
    for (Operation &op : llvm::make_early_inc_range(llvm::make_range(std::next(split_->getIterator()), entry.end())))
      if (!op.hasTrait<OpTrait::IsTerminator>())
        op.moveBefore(yield);
  }

private:
  /// KT mod 2S, KT the k-loop's trip count (the same for every tile), before the tile loop.
  Value positionsPerTile(OpBuilder &b, Location loc) {
    return arith::RemUIOp::create(b, loc, tripCount(b, loc, loop_.getLowerBound(), loop_.getUpperBound(), loop_.getStep()),
                                  i32Constant(b, loc, 2 * stages_));
  }

  /// A new kernel argument: the tensor map TMA copies `tile`-sized boxes of `access` by.
  Value addTensorMap(func::FuncOp kernel, const RectangularAccess &access, RankedTensorType tile, Location loc) {
    MLIRContext *context = kernel.getContext();
    NamedAttribute recipe(StringAttr::get(context, TkgDialect::kTensorMap), tensorMapFor(access, tile, analysis_));
    unsigned index = kernel.getNumArguments();
    (void)kernel.insertArgument(index, TensorMapType::get(context), DictionaryAttr::get(context, {recipe}), loc);
    return kernel.getArgument(index);
  }

  /// On clusters: the tile the other CTA's program takes with `tile` (program p's tiles are
  /// p, p + P, ..., from `first` = p; the other CTA's program in p's place is p xor 1, with two
  /// programs a CTA too: program w of CTA c is w * C + c), and whether it has one (< `end`).
  /// C is even (the launcher rounds the CTAs up to whole clusters, `.reqnctapercluster 2`), so
  /// that bit 0 of p is the CTA's rank in its cluster, and P, num_programs(0) (C, or 2C), is
  /// even, so that p's counterpart stays p xor 1 from step to step.
  std::pair<Value, Value> peerTile(OpBuilder &b, Location loc, Value first, Value tile, Value end) {
    // The CTA's rank in its cluster: bit 0 of p (of c).
    Value rank = arith::AndIOp::create(b, loc, first, i32Constant(b, loc, 1));
    // tile + 1 - 2 * rank
    Value other = arith::SubIOp::create(b, loc, arith::AddIOp::create(b, loc, tile, i32Constant(b, loc, 1)),
                                        arith::ShLIOp::create(b, loc, rank, i32Constant(b, loc, 1)));
    return {other, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, other, end)};
  }

  /// On clusters, in the producer (`mapping` its tile's): the other CTA's tile in place of
  /// `tile` (scalar arithmetic only; `tile` itself where the other CTA has none, since a tile
  /// past the last could divide by zero in the tile's arithmetic: GROUP_M's rows of a group
  /// past the end), its per-tile ops cloned after the builder's point.
  void mapPeer(OpBuilder &b, Location loc, const IRMapping &mapping, Value first, Value tile, Value end,
               ArrayRef<Operation *> perTile, Value outerTile) {
    auto [other, active] = peerTile(b, loc, first, tile, end);
    peer_ = Peer{mapping, active};
    peer_->mapping.map(outerTile, arith::SelectOp::create(b, loc, active, other, tile));
    for (Operation *op : perTile)
      b.clone(*op, peer_->mapping);
  }

  std::pair<Value, Value> advancePosition(OpBuilder &b, Location loc, Value stage, Value parity, Value count) {
    return advanceRingPosition(b, loc, stage, parity, count, stages_);
  }

  /// Removes the carried pointers (now forwarded unchanged) and the pointer and mask tiles
  /// that only fed the copied loads.
  void dropDeadAddresses(func::FuncOp kernel) {
    RewritePatternSet patterns(kernel.getContext());
    scf::ForOp::getCanonicalizationPatterns(patterns, kernel.getContext());
    Operation *loop = loop_;
    (void)applyOpPatternsGreedily(ArrayRef<Operation *>{loop}, std::move(patterns),
                                  GreedyRewriteConfig().setStrictness(GreedyRewriteStrictness::ExistingOps));
    loop_ = scf::ForOp(); // replaced
    SmallVector<Operation *> ops;
    kernel.walk<WalkOrder::PreOrder>([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : llvm::reverse(ops))
      if (op != kernel && isOpTriviallyDead(op))
        op->erase();
  }

  /// The elected thread copies iteration `iv` (the loop's induction variable `induction` in
  /// the rectangles' polynomials) into `stage`, after waiting for its release with `emptyParity`
  /// (none: the stage was never filled), when `iv` is inside the loop.
  void issue(OpBuilder &b, Location loc, Value induction, Value iv, Value stage, Value emptyParity) {
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, loop_.getUpperBound());
    Value issuer = arith::AndIOp::create(b, loc, leader_, inRange);
    auto branch = scf::IfOp::create(b, loc, TypeRange{}, issuer, false);
    OpBuilder inside = branch.getThenBodyBuilder();
    IRMapping mapping;
    mapping.map(induction, iv);
    fill(inside, loc, mapping, stage, emptyParity);
  }

  /// Per barrier group: wait for the stage's release with `emptyParity` (none: never filled),
  /// expect its bytes and copy its loads (`mapping` gives the iteration's induction value).
  void fill(OpBuilder &b, Location loc, const IRMapping &mapping, Value stage, Value emptyParity) {
    for (size_t group = 0; group < groupBytes_.size(); ++group) {
      if (emptyParity)
        BarrierWaitOp::create(b, loc, empty_[group], stage, emptyParity);
      BarrierExpectOp::create(b, loc, full_[group], stage, b.getI64IntegerAttr(groupBytes_[group]));
      for (auto [index, access, map, buffer, evict] : llvm::enumerate(accesses_, maps_, buffers_, evicts_)) {
        if (groupOf(index) != group)
          continue;
        SmallVector<Value> coords = coordinates(b, loc, access, mapping);
        Value shared, halves;
        if (peer_) { // (both CTAs compute the same: the two tiles' coordinates agree, each has its tile)
          shared = peer_->active;
          for (auto [own, other] : llvm::zip(coords, coordinates(b, loc, access, peer_->mapping)))
            shared = arith::AndIOp::create(b, loc, shared, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, own, other));
          halves = halfMaps_[index];
        }
        TmaLoadOp::create(b, loc, map, coords, buffer, stage, full_[group], stage, shared, halves, evict);
      }
    }
  }

  /// The elected thread copies `invariant` (its full barrier's bytes expected already).
  void issueInvariant(OpBuilder &b, Location loc, InvariantCopy &invariant, const IRMapping &mapping) {
    Value zero = i32Constant(b, loc, 0);
    Value map = invariantMaps_[&invariant - invariants_.begin()];
    TmaLoadOp::create(b, loc, map, coordinates(b, loc, invariant.access, mapping), invariant.buffer, zero,
                      invariantFull_, zero, Value(), Value(), invariant.evict);
  }

  /// The cp.async copies TMA replaced, with the commit after each.
  void eraseInvariantCopies(RewriterBase &rewriter) {
    for (InvariantCopy &invariant : invariants_) {
      if (auto commit = dyn_cast_or_null<AsyncCommitOp>(invariant.copy->getNextNode()))
        rewriter.eraseOp(commit);
      rewriter.eraseOp(invariant.copy);
    }
  }

  SmallVector<Value> invariantBuffers() {
    return llvm::map_to_vector(invariants_, [](InvariantCopy &invariant) { return invariant.buffer; });
  }

  /// The rectangles the copies read: the loop's loads', then the invariants'.
  SmallVector<RectangularAccess, 3> allAccesses() const {
    SmallVector<RectangularAccess, 3> all(accesses_.begin(), accesses_.end());
    for (const InvariantCopy &invariant : invariants_)
      all.push_back(invariant.access);
    return all;
  }

  /// The barrier group of load `index`: its own, or the one all loads share.
  size_t groupOf(size_t index) const { return barriersPerLoad_ ? index : 0; }

  /// What a load's stage read replaces: the `trans` it feeds, if any, else the load.
  static Value stagedValue(LoadOp load) {
    auto trans = dyn_cast<TransOp>(*load->getUsers().begin());
    return trans ? trans.getResult() : load.getResult();
  }

  /// The first op of the loop's body that uses `values` (itself or through an op it contains);
  /// the terminator if none does.
  Operation *firstUseInBody(ValueRange values) {
    Operation *first = nullptr;
    for (Value value : values)
      for (Operation *user : value.getUsers())
        if (Operation *inBody = loop_.getBody()->findAncestorOpInBlock(*user);
            inBody && (!first || inBody->isBeforeInBlock(first)))
          first = inBody;
    return first ? first : loop_.getBody()->getTerminator();
  }

public:
  /// Whether no dot reads two of `loads` (each then gets barriers of its own).
  static bool feedDifferentDots(ArrayRef<LoadOp> loads) {
    llvm::SmallPtrSet<Operation *, 4> dots;
    for (LoadOp load : loads)
      for (Operation *user : stagedValue(load).getUsers())
        if (isa<DotOp>(user) && !dots.insert(user).second)
          return false;
    return true;
  }

private:
  /// A copy's coordinates, outer first: the matrix's index in a stack (if any), row, column.
  SmallVector<Value> coordinates(OpBuilder &b, Location loc, const RectangularAccess &access, const IRMapping &mapping) {
    SmallVector<Value> coords;
    if (access.stackIndex)
      coords.push_back(analysis_.build(b, loc, *access.stackIndex, mapping));
    coords.push_back(analysis_.build(b, loc, access.rowStart, mapping));
    coords.push_back(analysis_.build(b, loc, access.colStart, mapping));
    return coords;
  }

  scf::ForOp loop_; // replaced by the loop with stage counters halfway through run()
  LoopPlan &plan_;
  int64_t stages_, distance_;
  DotOp inFlight_;
  RectangularAccessAnalysis &analysis_;
  SmallVector<RectangularAccess, 2> accesses_;
  SmallVector<EvictionPolicy, 2> evicts_; // each load's L2 eviction priority, for its copies
  SmallVector<InvariantCopy, 1> invariants_;
  SmallVector<Value> buffers_, maps_, invariantMaps_;
  SmallVector<Value> halfMaps_; // on clusters: maps_'s accesses by boxes of half the rows
  Value invariantFull_, invariantEmpty_; // one barrier each; empty only for a producer over tiles
  int64_t invariantBytes_ = 0;
  SmallVector<Value, 2> full_, empty_; // one per barrier group
  SmallVector<int64_t, 2> groupBytes_;  // the bytes of a stage of each group
  Value leader_;
  bool specialized_, tilePingPong_, cluster_, barriersPerLoad_;
  /// On clusters: the consumers' `peer` of their releases (the other CTA has this step's tile).
  Value peerActive_;
  /// On clusters, in the producer: the other CTA's tile in place of the tile index, and
  /// whether it has one.
  struct Peer {
    IRMapping mapping;
    Value active;
  };
  std::optional<Peer> peer_;
  scf::IfOp split_; // producer / consumers
  Value handoff_;   // a later loop over tiles': the earlier loop's stages all read
  std::pair<Value, Value> fillStart_; // without a producer: the position the loop's copies start at
  Value tileSkip_; // two programs a CTA: the positions of a tile's k-loop, mod 2S
};

} // namespace

/// The rectangles TMA copies for the plan's loads, or none when one is not such a rectangle.
std::optional<SmallVector<RectangularAccess, 2>> tmaRectangles(const LoopPlan &plan, RectangularAccessAnalysis &analysis) {
  SmallVector<RectangularAccess, 2> accesses;
  for (LoadOp load : plan.loads) {
    auto type = cast<RankedTensorType>(load.getType());
    std::optional<RectangularAccess> access = analysis.match(load);
    // A box has at most 256 rows, and the recipe must fit its attribute.
    if (!access || type.getShape()[0] > 256 || !tensorMapFor(*access, type, analysis)) {
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] load at " << load.getLoc() << ": not a TMA rectangle\n");
      return std::nullopt;
    }
    accesses.push_back(*access);
  }
  return accesses;
}

/// Whether `loop` (a loop of dots of `kernel`, not yet pipelined) plans with every load a TMA
/// rectangle and `fits` those rectangles.
static bool rectanglesFit(func::FuncOp kernel, scf::ForOp loop,
                          llvm::function_ref<bool(ArrayRef<RectangularAccess>, const RectangularAccessAnalysis &)> fits) {
  std::optional<LoopPlan> plan = planLoop(loop, threadsOf(kernel));
  RectangularAccessAnalysis analysis(loop);
  std::optional<SmallVector<RectangularAccess, 2>> accesses = plan ? tmaRectangles(*plan, analysis) : std::nullopt;
  return accesses && fits(*accesses, analysis);
}

/// Whether a producer warpgroup could fill every loop of `loops` (each a loop of dots): each
/// directly in its own loop over tiles at the kernel's top level, its loads TMA rectangles
/// whose coordinates and bounds the producer can compute.
bool producerCanFillEach(func::FuncOp kernel, ArrayRef<scf::ForOp> loops) {
  llvm::SmallPtrSet<Operation *, 2> tileLoops;
  for (scf::ForOp loop : loops) {
    auto tiles = dyn_cast<scf::ForOp>(loop->getParentOp());
    if (!tiles || tiles->getBlock() != &kernel.front() || !tileLoops.insert(tiles).second)
      return false;
    if (!rectanglesFit(kernel, loop, [&](ArrayRef<RectangularAccess> accesses, const RectangularAccessAnalysis &analysis) {
          return producerCanRun(loop, accesses, analysis);
        }))
      return false;
  }
  return true;
}

/// Whether two programs a CTA fit each of `loops` after the first (the kernel's loops of dots,
/// each in its own loop over tiles, which the producer can fill): TMA copies only, no copies of
/// invariant operands before the loop, and tilePingPongFits.
bool tilePingPongFitsEach(func::FuncOp kernel, ArrayRef<scf::ForOp> loops) {
  return llvm::all_of(loops.drop_front(), [&](scf::ForOp loop) {
    return invariantDotOperands(loop, threadsOf(kernel)).empty() &&
           rectanglesFit(kernel, loop, [&](ArrayRef<RectangularAccess> accesses, const RectangularAccessAnalysis &analysis) {
             return tilePingPongFits(loop, accesses, analysis);
           });
  });
}

namespace {
/// Whether the copies of `loop` (in a kernel with a producer) can run on clusters of 2 CTAs
/// (`cluster_size: 2`): `alone` (the kernel's only loop of dots, with no invariant copies and
/// every copy by TMA), one barrier group, programs that differ in their tiles only, and 2-D
/// copies of whole 16-row pairs of halves (the swizzle's 8-row period in each).
bool clustersFit(scf::ForOp loop, LoopPlan &plan, ArrayRef<RectangularAccess> accesses,
                 const RectangularAccessAnalysis &analysis, bool alone, bool inFlight) {
  auto why = [&](const char *reason) {
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] loop at " << loop.getLoc() << ": no clusters: " << reason << "\n");
    return false;
  };
  if (!alone)
    return why("not the kernel's only loop of dots, or it has copies before it or not by TMA");
  if (!inFlight && plan.loads.size() > 1 && TmaPipeliner::feedDifferentDots(plan.loads))
    return why("its copies feed different dots (barriers of their own)");
  for (auto [load, access] : llvm::zip(plan.loads, accesses)) {
    auto type = cast<RankedTensorType>(LoadOp(load).getType());
    auto half = RankedTensorType::get({type.getShape()[0] / 2, type.getShape()[1]}, type.getElementType());
    if (access.stackIndex || type.getShape()[0] % 16 || !tensorMapFor(access, half, analysis))
      return why("a copy of a stack of matrices, or of rows that do not halve into whole swizzle periods");
  }
  return programsDifferInTilesOnly(loop, accesses, analysis, "clusters");
}
} // namespace

bool pipelineByTma(scf::ForOp loop, LoopPlan &plan, int64_t stages, DotOp inFlight, ArrayRef<AsyncCopyOp> invariantCopies) {
  RectangularAccessAnalysis analysis(loop);
  std::optional<SmallVector<RectangularAccess, 2>> rectangles = tmaRectangles(plan, analysis);
  if (!rectangles)
    return false;
  SmallVector<RectangularAccess, 2> accesses = std::move(*rectangles);
  // The invariants that are rectangles too (the others stay cp.async copies).
  SmallVector<TmaPipeliner::InvariantCopy, 1> invariants;
  bool cpAsyncLeft = false;
  for (AsyncCopyOp copy : invariantCopies) {
    SharedBufferType type = copy.getBuffer().getType();
    auto tile = RankedTensorType::get(type.tileShape(), type.getElementType());
    std::optional<RectangularAccess> access = analysis.match(copy.getPtr(), copy.getMask(), tile);
    if (access && tile.getShape()[0] <= 256 && tensorMapFor(*access, tile, analysis))
      invariants.push_back({copy, *access, copy.getBuffer(), copy.getEvict()});
    else
      cpAsyncLeft = true;
  }
  // Inside other loops, only directly in one loop over tiles (a persistent kernel), whose
  // iterations carry the rings' position: deeper nests keep cp.async.
  auto enclosed = [](Operation *op) { return op->getParentOfType<scf::ForOp>() || op->getParentOfType<scf::WhileOp>(); };
  if (enclosed(loop)) {
    auto outer = dyn_cast<scf::ForOp>(loop->getParentOp());
    if (!outer || enclosed(outer))
      return false;
  }
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] loop at " << loop.getLoc() << ": " << plan.loads.size()
                          << " loads by TMA in " << stages << " stages\n");
  auto kernel = loop->getParentOfType<func::FuncOp>();
  // One producer warpgroup serves the pipelines of loops over tiles one after the other (each
  // loop of dots directly in its own loop over tiles): it fills them in turn. It is all or
  // none: the first loop splits the kernel only when every other one could be filled by the
  // producer too (a loop the consumers filled by TMA would have no thread to issue it, and one
  // filled before the split would share bytes with the producer's copies); a later loop the
  // producer cannot fill after all keeps cp.async (consumers only, after the first loop's
  // barrier). A kernel with other loops of dots keeps a single thread.
  SmallVector<scf::ForOp> loopsWithDots;
  kernel.walk([&](scf::ForOp other) {
    if (!other.getBody()->getOps<DotOp>().empty())
      loopsWithDots.push_back(other);
  });
  SmallVector<RectangularAccess, 3> all(accesses.begin(), accesses.end());
  for (auto &invariant : invariants)
    all.push_back(invariant.access);
  bool later = bool(existingSplit(kernel));
  bool specialized = kernel->hasAttr(TkDialect::kWarpSpecialize) &&
                     (loopsWithDots.size() == 1 || later ||
                      (loopsWithDots.front() == loop && producerCanFillEach(kernel, loopsWithDots))) &&
                     producerCanRun(loop, all, analysis);
  if (later && !specialized)
    return false;
  // Two programs a CTA is all or none too: the first loop decides for every loop over tiles
  // (TAIL_SPLIT's second), a later one follows.
  bool tilePingPong = specialized && kernel->hasAttr(TkDialect::kTilePingPong) && invariants.empty() && !cpAsyncLeft &&
                      (later ? programsPerCtaOf(kernel) > 1
                             : tilePingPongFits(loop, accesses, analysis) && tilePingPongFitsEach(kernel, loopsWithDots));
  assert((!later || programsPerCtaOf(kernel) == 1 || tilePingPong) && "a later loop of two programs a CTA without turns");
  bool cluster = specialized && kernel->hasAttr(TkDialect::kClusterSize) && clustersFit(loop, plan, accesses,
                 analysis, loopsWithDots.size() == 1 && invariants.empty() && !cpAsyncLeft, bool(inFlight));
  if (cpAsyncLeft) {
    OpBuilder b(loop);
    AsyncWaitOp::create(b, loop.getLoc(), 0);
  }
  TmaPipeliner(loop, plan, stages, inFlight, analysis, std::move(accesses), std::move(invariants), specialized,
               tilePingPong, cluster)
      .run();
  return true;
}

} // namespace tk::codegen
