// The tkg dialect: layouts (their verifiers and the helpers passes read them through), the
// shared buffer type, the verifiers of its ops and of the attributes its passes set.
#include "tk/Dialect/TkGpu/IR/TkGpu.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tk::gpu;

#include "tk/Dialect/TkGpu/IR/TkgDialect.cpp.inc"

/// `[b0, b1, ...]`, possibly empty (a layout with one slot per thread, or one warp).
static ParseResult parseBitList(AsmParser &parser, SmallVector<int32_t> &bits) {
  SmallVector<int32_t> parsed;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        int32_t bit;
        if (parser.parseInteger(bit))
          return failure();
        parsed.push_back(bit);
        return success();
      }))
    return failure();
  bits = std::move(parsed);
  return success();
}

static void printBitList(AsmPrinter &printer, ArrayRef<int32_t> bits) {
  printer << '[';
  llvm::interleaveComma(bits, printer);
  printer << ']';
}

#define GET_TYPEDEF_CLASSES
#include "tk/Dialect/TkGpu/IR/TkgTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tk/Dialect/TkGpu/IR/TkgAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "tk/Dialect/TkGpu/IR/TkgOps.cpp.inc"

void TkgDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tk/Dialect/TkGpu/IR/TkgTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tk/Dialect/TkGpu/IR/TkgAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tk/Dialect/TkGpu/IR/TkgOps.cpp.inc"
      >();
}

namespace {
constexpr int64_t kMaxThreads = 1024;
bool isPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

/// The elements of a static shape whose count is a power of two (layouts spread 2^k elements),
/// or an error: dynamic or empty dimensions and tiles beyond kMaxLayoutElements have no layout.
FailureOr<int64_t> layoutElementCount(ArrayRef<int64_t> shape, function_ref<InFlightDiagnostic()> emitError) {
  int64_t size = 1;
  for (int64_t d : shape) {
    if (!isPowerOfTwo(d) || size > kMaxLayoutElements / d)
      return emitError() << "a layout needs static dimensions of 2^k elements, at most " << kMaxLayoutElements
                         << " in all";
    size *= d;
  }
  return size;
}
constexpr int64_t kLanes = 32;
} // namespace

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

LogicalResult BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t perThread,
                                        int64_t threads) {
  if (!isPowerOfTwo(perThread) || !isPowerOfTwo(threads) || threads < kLanes || threads > kMaxThreads ||
      perThread > kMaxLayoutElements)
    return emitError() << "blocked layout needs powers of two, at least one warp, at most " << kMaxThreads
                       << " threads (per_thread = " << perThread << ", threads = " << threads << ")";
  return success();
}

LogicalResult BlockedLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                                function_ref<InFlightDiagnostic()> emitError) const {
  return failure(failed(layoutElementCount(shape, emitError)));
}

LogicalResult LinearLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, ArrayRef<int32_t> slots,
                                       ArrayRef<int32_t> lanes, ArrayRef<int32_t> warps) {
  if (lanes.size() != 5)
    return emitError() << "a linear layout names 5 lane bits, not " << lanes.size();
  if (warps.size() > 5)
    return emitError() << "a linear layout names at most 5 warp bits (1024 threads), not " << warps.size();
  if (llvm::is_contained(slots, -1))
    return emitError() << "every slot bit of a linear layout sets an element-index bit (no -1)";
  return success();
}

/// Each element-index bit below the tile's is set by at most one slot, lane or warp bit (one
/// element per slot of a thread), and every bit by one of them (every element somewhere).
LogicalResult LinearLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                               function_ref<InFlightDiagnostic()> emitError) const {
  FailureOr<int64_t> size = layoutElementCount(shape, emitError);
  if (failed(size))
    return failure();
  int bits = log2Of(*size);
  std::vector<int> seen(bits, 0);
  for (ArrayRef<int32_t> group : {getSlots(), getLanes(), getWarps()})
    for (int32_t bit : group) {
      if (bit < -1 || bit >= bits)
        return emitError() << "layout bit " << bit << " is outside a tile of " << *size << " elements";
      if (bit >= 0 && seen[bit]++)
        return emitError() << "element-index bit " << bit << " is set by two bits of the layout";
    }
  for (int bit = 0; bit < bits; ++bit)
    if (!seen[bit])
      return emitError() << "element-index bit " << bit << " is held by no slot, lane or warp";
  return success();
}

int64_t tk::gpu::threadsOf(Operation *op) { return tk::numWarpsOf(op) * kLanes; }

int64_t tk::gpu::producerWarpsOf(Operation *op) {
  auto kernel = isa<func::FuncOp>(op) ? cast<func::FuncOp>(op) : op->getParentOfType<func::FuncOp>();
  auto warps = kernel ? kernel->getAttrOfType<IntegerAttr>(TkgDialect::kProducerWarps) : IntegerAttr();
  return warps ? warps.getInt() : 0;
}

int64_t tk::gpu::programsPerCtaOf(Operation *op) {
  auto kernel = isa<func::FuncOp>(op) ? cast<func::FuncOp>(op) : op->getParentOfType<func::FuncOp>();
  auto programs = kernel ? kernel->getAttrOfType<IntegerAttr>(TkgDialect::kProgramsPerCta) : IntegerAttr();
  return programs ? programs.getInt() : 1;
}

int64_t tk::gpu::clusterCtasOf(Operation *op) {
  auto kernel = isa<func::FuncOp>(op) ? cast<func::FuncOp>(op) : op->getParentOfType<func::FuncOp>();
  auto ctas = kernel ? kernel->getAttrOfType<IntegerAttr>(TkgDialect::kClusterCtas) : IntegerAttr();
  return ctas ? ctas.getInt() : 1;
}

int64_t tk::gpu::launchThreadsOf(Operation *op) {
  return threadsOf(op) * programsPerCtaOf(op) + producerWarpsOf(op) * kLanes;
}

std::optional<BlockedLayout> tk::gpu::blockedLayoutOf(Type type) {
  auto tile = dyn_cast<RankedTensorType>(type);
  auto blocked = tile ? dyn_cast_or_null<BlockedLayoutAttr>(tile.getEncoding()) : BlockedLayoutAttr();
  if (!blocked)
    return std::nullopt;
  return BlockedLayout{tile.getNumElements(), blocked.getThreads(), blocked.getPerThread()};
}

std::optional<LayoutBits> tk::gpu::layoutBitsOf(Type type) {
  if (std::optional<BlockedLayout> blocked = blockedLayoutOf(type))
    return bitsOf(*blocked);
  auto tile = dyn_cast<RankedTensorType>(type);
  auto linear = tile ? dyn_cast_or_null<LinearLayoutAttr>(tile.getEncoding()) : LinearLayoutAttr();
  if (!linear)
    return std::nullopt;
  LayoutBits bits;
  bits.slot.assign(linear.getSlots().begin(), linear.getSlots().end());
  bits.thread.assign(linear.getLanes().begin(), linear.getLanes().end());
  bits.thread.insert(bits.thread.end(), linear.getWarps().begin(), linear.getWarps().end());
  return bits;
}

bool tk::gpu::hasLinearLayout(Type type) {
  auto tile = dyn_cast<RankedTensorType>(type);
  return tile && isa_and_nonnull<LinearLayoutAttr>(tile.getEncoding());
}

int64_t tk::gpu::scalarsPerThread(Type type) {
  if (std::optional<BlockedLayout> blocked = blockedLayoutOf(type))
    return blocked->perThread();
  if (std::optional<LayoutBits> bits = layoutBitsOf(type))
    return int64_t(1) << bits->slot.size();
  return 1;
}

LinearLayoutAttr tk::gpu::linearLayout(MLIRContext *context, const LayoutBits &bits) {
  SmallVector<int32_t> slots(bits.slot.begin(), bits.slot.end());
  SmallVector<int32_t> lanes(bits.thread.begin(), bits.thread.begin() + std::min<size_t>(5, bits.thread.size()));
  SmallVector<int32_t> warps(bits.thread.begin() + lanes.size(), bits.thread.end());
  return LinearLayoutAttr::get(context, slots, lanes, warps);
}

RankedTensorType tk::gpu::withLayout(Type type, Attribute encoding) {
  auto tile = cast<RankedTensorType>(type);
  return RankedTensorType::get(tile.getShape(), tile.getElementType(), encoding);
}

LogicalResult tk::gpu::verifyLayoutShape(ArrayRef<int64_t> shape, function_ref<InFlightDiagnostic()> emitError) {
  return failure(failed(layoutElementCount(shape, emitError)));
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult ConvertLayoutOp::verify() {
  if (!tk::sameIgnoringLayout(getSrc().getType(), getType()))
    return emitOpError() << "changes the tile " << getSrc().getType() << " into " << getType()
                         << "; only its layout may change";
  if (getSrc().getType() == getType())
    return emitOpError() << "converts " << getType() << " to the layout it already has";
  return success();
}

/// A stage of `buffer` holds tiles of `shape` and `element`.
static LogicalResult verifyStageTile(Operation *op, SharedBufferType buffer, ArrayRef<int64_t> shape, Type element,
                                     StringRef what) {
  if (buffer.getShape().size() < 2 || buffer.tileShape() != shape || buffer.getElementType() != element)
    return op->emitOpError() << what << " (" << RankedTensorType::get(shape, element) << ") is not a stage of "
                             << buffer;
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  Type pointee = cast<tk::PtrType>(getPtr().getType().getElementType()).getPointee();
  if (getMask() && getMask().getType().getShape() != getPtr().getType().getShape())
    return emitOpError() << "mask shape differs from the pointer tile's";
  return verifyStageTile(*this, getBuffer().getType(), getPtr().getType().getShape(), pointee, "the copied tile");
}

LogicalResult DotWaitOp::verify() {
  if (getPending() < 0)
    return emitOpError() << "pending counts groups: it cannot be " << getPending();
  return success();
}

LogicalResult LocalLoadOp::verify() {
  auto result = cast<RankedTensorType>(getType());
  SmallVector<int64_t> shape(result.getShape());
  if (getTrans()) {
    if (shape.size() != 2)
      return emitOpError() << "'trans' needs a 2-D tile";
    std::swap(shape[0], shape[1]);
  }
  return verifyStageTile(*this, getBuffer().getType(), shape, result.getElementType(),
                         getTrans() ? "the transposed result" : "the result");
}

void LocalLoadOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), SideEffects::DefaultResource::get());
}

LogicalResult TensorMapAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t base, ArrayRef<int64_t> shape,
                                    ArrayRef<int64_t> shapeValues, ArrayRef<int64_t> strides,
                                    ArrayRef<int64_t> strideValues, ArrayRef<int64_t> box, int64_t swizzle,
                                    int64_t elementBytes) {
  size_t rank = shape.size();
  if (rank < 1 || rank > 5 || box.size() != rank || shapeValues.size() != rank || strides.size() + 1 != rank ||
      strideValues.size() + 1 != rank)
    return emitError() << "a tensor map has 1 to 5 dimensions, with a shape, value and box entry for each and a stride "
                          "for each but the last";
  if (base < 0)
    return emitError() << "the base must be a kernel argument";
  for (auto [arg, value] : llvm::zip(llvm::concat<const int64_t>(shape, strides),
                                     llvm::concat<const int64_t>(shapeValues, strideValues)))
    if (arg < -1 || (arg == -1 && (value < 1 || value > (int64_t(1) << 32))) ||
        (arg >= 0 && (value < -(int64_t(1) << 31) || value > (int64_t(1) << 32))))
      return emitError() << "a shape or stride is an argument index (with a factor: a value in [0, 2^32] or -1 - an "
                            "argument index) or (with -1) a value in [1, 2^32]";
  for (int64_t b : box)
    if (b < 1 || b > 256)
      return emitError() << "box dimensions are 1 to 256 elements";
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "the swizzle is 0, 32, 64 or 128 bytes";
  if (elementBytes != 1 && elementBytes != 2 && elementBytes != 4)
    return emitError() << "elements are 1, 2 or 4 bytes";
  return success();
}

/// The recipe of a TMA op's map: the tensor-map attribute of the kernel argument it is (null
/// for anything else).
static TensorMapAttr recipeOf(Value map) {
  auto arg = dyn_cast<BlockArgument>(map);
  auto kernel = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()) : func::FuncOp();
  return kernel ? kernel.getArgAttrOfType<TensorMapAttr>(arg.getArgNumber(), TkgDialect::kTensorMap) : TensorMapAttr();
}

LogicalResult TmaLoadOp::verify() {
  ArrayRef<int64_t> tile = getBuffer().getType().tileShape();
  if (tile.size() != 2)
    return emitOpError() << "copies 2-D stages only";
  // A third, leading coordinate picks one matrix of a stack (a box of 1 along it).
  if (getCoords().size() != 2 && getCoords().size() != 3)
    return emitOpError() << "has " << getCoords().size() << " coordinates for a 2-D stage (2, or 3 in a stack of matrices)";
  TensorMapAttr map = recipeOf(getMap());
  if (!map)
    return emitOpError() << "needs a kernel argument with a '" << TkgDialect::kTensorMap << "' attribute as its map";
  ArrayRef<int64_t> box = map.getBox();
  if (getCoords().size() != box.size() || (box.size() == 3 && box[0] != 1))
    return emitOpError() << "has " << getCoords().size() << " coordinates for a map of " << box.size()
                         << " dimensions (a stack's box is 1 along the first)";
  if (box.size() == 3)
    box = box.drop_front();
  if (box.size() != 2 || box[0] != tile[0] || tile[1] % box[1])
    return emitOpError() << "copies a " << tile[0] << "x" << tile[1] << " stage, which boxes of " << box[0] << "x"
                         << box.back() << " do not tile";
  if (!getShared() && !getHalves())
    return success();
  if (!getShared() || !getHalves())
    return emitOpError() << "takes `shared` and `halves` together";
  // Shared by a cluster's two CTAs: each copies half the rows by `halves` (8 of them at least:
  // the swizzle's period, so that the halves land as the whole would).
  if (clusterCtasOf(*this) < 2)
    return emitOpError() << "is shared by a cluster's CTAs in a kernel not on clusters ('" << TkgDialect::kClusterCtas << "')";
  TensorMapAttr halves = recipeOf(getHalves());
  if (!halves || getCoords().size() != 2 || tile[0] % 16 || halves.getBox().size() != 2 || halves.getBox()[0] * 2 != tile[0] ||
      halves.getBox()[1] != box[1])
    return emitOpError() << "copies a " << tile[0] << "x" << tile[1]
                         << " stage in halves, which needs 2 coordinates, a multiple of 16 rows and a map of half-row boxes";
  return success();
}

LogicalResult TmaStoreOp::verify() {
  auto type = cast<RankedTensorType>(getValue().getType());
  ArrayRef<int64_t> tile = getBuffer().getType().tileShape();
  // The buffer holds the whole tile, or a part of its columns at a time (column blocks
  // copied part after part).
  if (type.getRank() != 2 || getBuffer().getType().stages() != 1 || tile.size() != 2 || tile[0] != type.getShape()[0] ||
      tile[1] <= 0 || type.getShape()[1] % tile[1] || getBuffer().getType().getElementType() != type.getElementType())
    return emitOpError() << "stores a 2-D tile through one stage of its rows, its element type and a part of its columns";
  // Parts are told apart by column bits.
  if (tile[1] != type.getShape()[1] && (!llvm::isPowerOf2_64(tile[1]) || !llvm::isPowerOf2_64(type.getShape()[1])))
    return emitOpError() << "stages a part of " << tile[1] << " of a tile's " << type.getShape()[1]
                         << " columns; parts need powers of two";
  if (getCoords().size() != 2)
    return emitOpError() << "has " << getCoords().size() << " coordinates for a 2-D tile (2)";
  TensorMapAttr map = recipeOf(getMap());
  if (!map)
    return emitOpError() << "needs a kernel argument with a '" << TkgDialect::kTensorMap << "' attribute as its map";
  ArrayRef<int64_t> box = map.getBox();
  if (box.size() != 2 || box[0] != tile[0] || tile[1] % box[1])
    return emitOpError() << "stores a " << tile[0] << "x" << tile[1] << " tile, which boxes of " << box[0] << "x"
                         << box.back() << " do not tile";
  return success();
}

LogicalResult TkgDialect::verifyRegionArgAttribute(Operation *op, unsigned, unsigned argIndex, NamedAttribute attribute) {
  if (attribute.getName() != kTensorMap)
    return op->emitError() << "unknown argument attribute '" << attribute.getName().getValue() << "' of the tkg dialect";
  auto map = dyn_cast<TensorMapAttr>(attribute.getValue());
  if (!map)
    return op->emitError() << "'" << kTensorMap << "' is a #tkg.tensor_map";
  // Checked against the tile-level kernel; once tk-to-threads has made the argument an LLVM
  // pointer, the lowered kernel carries the recipe to the launcher as it is.
  auto kernel = dyn_cast<func::FuncOp>(op);
  if (!kernel)
    return success();
  Type type = kernel.getArgument(argIndex).getType();
  if (type.getDialect().getNamespace() == "llvm")
    return success();
  if (!isa<TensorMapType>(type))
    return op->emitError() << "'" << kTensorMap << "' belongs on a !tkg.tensor_map kernel argument";
  int64_t base = map.getBase();
  // An argument's factor may be another argument (-1 - its index): the same rule for it.
  SmallVector<int64_t> factors;
  for (auto [arg, value] : llvm::zip(llvm::concat<const int64_t>(map.getShape(), map.getStrides()),
                                     llvm::concat<const int64_t>(map.getShapeValues(), map.getStrideValues())))
    if (arg >= 0 && value < 0)
      factors.push_back(-1 - value);
  for (int64_t arg :
       llvm::concat<const int64_t>(ArrayRef<int64_t>(base), map.getShape(), map.getStrides(), ArrayRef<int64_t>(factors)))
    if (arg >= int64_t(kernel.getNumArguments()) || (arg >= 0 && isa<TensorMapType>(kernel.getArgument(arg).getType())))
      return op->emitError() << "'" << kTensorMap << "' names argument " << arg << ", which is not a kernel parameter";
  return success();
}

//===----------------------------------------------------------------------===//
// Attributes the passes set on ops
//===----------------------------------------------------------------------===//

LogicalResult TkgDialect::verifyOperationAttribute(Operation *op, NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == kSharedOffset || name == kSharedBytes) {
    auto bytes = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!bytes || !bytes.getType().isSignlessInteger() || bytes.getType().getIntOrFloatBitWidth() > 64 ||
        bytes.getInt() < 0)
      return op->emitError() << "'" << name << "' must be a non-negative integer (bytes)";
    return success();
  }
  if (name == kDotPlacement) {
    auto kernels = dyn_cast<DictionaryAttr>(attribute.getValue());
    bool valid = kernels && isa<ModuleOp>(op) && llvm::all_of(kernels, [](NamedAttribute kernel) {
      auto counts = dyn_cast<DenseI64ArrayAttr>(kernel.getValue());
      return counts && counts.size() == 2 && counts[0] >= 0 && counts[1] >= 0;
    });
    if (!valid)
      return op->emitError() << "'" << name << "' is a dictionary of kernel name to [tensor cores, FMA] dot counts on a module";
    return success();
  }
  if (name == kProgramsPerCta) {
    auto programs = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!programs || !isa<func::FuncOp>(op) || programs.getInt() != 2 || !op->hasAttr(kProducerWarps))
      return op->emitError() << "'" << name << "' is 2 on a kernel with a producer warpgroup";
    return success();
  }
  if (name == kClusterCtas) {
    auto ctas = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!ctas || !isa<func::FuncOp>(op) || ctas.getInt() != 2 || !op->hasAttr(kProducerWarps))
      return op->emitError() << "'" << name << "' is 2 on a kernel with a producer warpgroup";
    return success();
  }
  if (name == kSharedProgramStride) {
    auto stride = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!stride || stride.getInt() <= 0 || stride.getInt() % 16 || !op->hasAttr(kSharedOffset))
      return op->emitError() << "'" << name << "' is a positive multiple of 16 bytes on an op with a shared offset";
    return success();
  }
  if (name == kProgramInCta) {
    auto program = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!program || (program.getInt() != 0 && program.getInt() != 1) || op->getName().getStringRef() != "tk.program_id")
      return op->emitError() << "'" << name << "' is 0 or 1 on a tk.program_id";
    return success();
  }
  if (name == kProgramsSplit) {
    // (By name: the dialect does not depend on SCF's.)
    bool isIfWithElse = op->getName().getStringRef() == "scf.if" && op->getNumRegions() == 2 && !op->getRegion(1).empty();
    if (!isa<UnitAttr>(attribute.getValue()) || !isIfWithElse)
      return op->emitError() << "'" << name << "' is a unit attribute on an scf.if with an else region";
    return success();
  }
  if (name == kProducerWarps) {
    auto warps = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!warps || !isa<func::FuncOp>(op) || warps.getInt() != 4)
      return op->emitError() << "'" << name << "' is 4 (one warpgroup) on a kernel";
    return success();
  }
  if (name == kRingsHandoff) {
    auto barriers = dyn_cast<BarrierAllocOp>(op);
    if (!isa<UnitAttr>(attribute.getValue()) || !barriers || barriers.getType().getCount() != 1)
      return op->emitError() << "'" << name << "' is a unit attribute on a tkg.barrier_alloc of one barrier";
    return success();
  }
  if (name == kSharedBarrier || name == kMmaInFlight || name == kMmaAsync || name == kRereadable) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << name << "' is a unit attribute";
    if ((name == kMmaInFlight || name == kMmaAsync) && !isa<tk::DotOp>(op))
      return op->emitError() << "'" << name << "' belongs on a tk.dot";
    if (name == kRereadable && !isa<tk::BroadcastOp>(op))
      return op->emitError() << "'" << name << "' belongs on a tk.broadcast";
    return success();
  }
  return op->emitError() << "unknown attribute '" << name << "' of the tkg dialect";
}
