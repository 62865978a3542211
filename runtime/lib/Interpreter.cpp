// The interpreter's core: tiles, the environment, control flow (scf, func), memory
// resolution with bounds checks, and the program loop over the grid.
#include "Interp.h"

#include "tk/Runtime/Nvtx.h"
#include "tk/Support/FloatFormats.h"
#include "tk/Dialect/Tk/IR/SourcePositions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tk::interp {

DType dtypeOf(mlir::Type type) {
  type = tk::elementTypeOf(type);
  if (isa<PtrType>(type))
    return DType::Ptr;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1: return DType::I1;
    case 8: return DType::I8;
    case 16: return DType::I16;
    case 32: return DType::I32;
    default: return DType::I64;
    }
  }
  if (type.isIndex())
    return DType::I64;
  if (isa<Float8E4M3FNType>(type)) return DType::F8E4M3;
  if (isa<Float8E5M2Type>(type)) return DType::F8E5M2;
  if (type.isF16()) return DType::F16;
  if (type.isBF16()) return DType::BF16;
  if (type.isF64()) return DType::F64;
  return DType::F32;
}

bool isFloat(DType t) { return t >= DType::F8E4M3 && t <= DType::F64; }

int bitsOf(DType t) {
  switch (t) {
  case DType::I1: return 1;
  case DType::I8: case DType::F8E4M3: case DType::F8E5M2: return 8;
  case DType::I16: case DType::F16: case DType::BF16: return 16;
  case DType::I32: case DType::F32: return 32;
  default: return 64;
  }
}

size_t Tile::size() const {
  size_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Tile Tile::make(DType dtype, std::vector<int64_t> shape) {
  Tile t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  size_t n = t.size();
  if (dtype == DType::F64)
    t.d.assign(n, 0);
  else if (isFloat(dtype))
    t.f.assign(n, 0);
  else
    t.i.assign(n, 0);
  return t;
}

int64_t wrapInt(int64_t value, int bits) {
  if (bits >= 64)
    return value;
  if (bits == 1)
    return value & 1;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t v = uint64_t(value) & mask;
  if (v >> (bits - 1))
    v |= ~mask;
  return int64_t(v);
}

uint64_t asUnsigned(int64_t value, int bits) {
  if (bits >= 64)
    return uint64_t(value);
  return uint64_t(value) & ((uint64_t(1) << bits) - 1);
}

float roundFloat(float value, DType dtype) {
  switch (dtype) {
  case DType::F16: return fp::halfToFloat(fp::floatToHalf(value));
  case DType::BF16: return fp::bf16ToFloat(fp::floatToBf16(value));
  case DType::F8E4M3: return fp::f8e4m3ToFloat(fp::floatToF8e4m3(value));
  case DType::F8E5M2: return fp::f8e5m2ToFloat(fp::floatToF8e5m2(value));
  default: return value;
  }
}

void writeRounded(Tile &t, size_t k, double value) {
  if (t.dtype == DType::F64)
    t.d[k] = value;
  else if (t.dtype == DType::F32)
    t.f[k] = float(value);
  else
    t.f[k] = roundFloat(fp::toFloatRoundToOdd(value), t.dtype);
}

void writeRoundedInteger(Tile &t, size_t k, int64_t value, int bits, bool isUnsigned) {
  long double exact = isUnsigned ? static_cast<long double>(asUnsigned(value, bits)) : static_cast<long double>(value);
  if (t.dtype == DType::F64)
    t.d[k] = double(exact);
  else if (t.dtype == DType::F32)
    t.f[k] = float(exact);
  else
    t.f[k] = roundFloat(fp::toFloatRoundToOdd(exact), t.dtype);
}

const Tile &Interpreter::get(Value value) const { return *env_.find(value)->second; }
TileRef Interpreter::ref(Value value) const { return env_.find(value)->second; }
void Interpreter::set(Value value, Tile tile) { env_[value] = std::make_shared<const Tile>(std::move(tile)); }

void Interpreter::fault(Operation *op, const std::string &message) const {
  throw RunFault(tk::positionPrefix(op->getLoc()) + "error: " + message + " (kernel '" + kernelName_ + "', program (" +
                 std::to_string(pid_[0]) + ", " + std::to_string(pid_[1]) + ", " + std::to_string(pid_[2]) + "))" +
                 tk::callNotes(op->getLoc()));
}

uint8_t *Interpreter::resolve(Operation *op, int64_t address, int bytes, size_t element, const char *access) {
  auto &all = buffers();
  if (address < 0) { // escaped (Interp.h)
    int64_t slot = address & ~INT64_MIN;
    if (slot < (int64_t)all.size())
      fault(op, "out-of-bounds " + std::string(access) + ": element " + std::to_string(element) +
                    " of the tile is 2^40 bytes or more outside buffer '" + all[slot].name + "', which has " +
                    std::to_string(all[slot].bytes.size() / bytes) +
                    (all[slot].bytes.size() / bytes == 1 ? " element" : " elements"));
  }
  int64_t index = address >> kSlotBits;
  int64_t offset = address - bufferBase(int(index));
  if (index < 0 || index >= (int64_t)all.size())
    fault(op, std::string(access) + " of element " + std::to_string(element) +
                  " of the tile does not point into any buffer");
  HostBuffer &buffer = all[index];
  if (offset < 0 || offset + bytes > (int64_t)buffer.bytes.size() || offset % bytes != 0) {
    std::string where = offset % bytes != 0 ? "misaligned byte offset " : "byte offset ";
    fault(op, "out-of-bounds " + std::string(access) + ": element " + std::to_string(element) +
                  " of the tile is at " + where + std::to_string(offset) + " (index " +
                  std::to_string(offset / bytes) + ") of buffer '" + buffer.name + "', which has " +
                  std::to_string(buffer.bytes.size() / bytes) +
                  (buffer.bytes.size() / bytes == 1 ? " element" : " elements"));
  }
  return buffer.bytes.data() + offset;
}

namespace {
bool isTileConstant(Operation *op) {
  return op->hasTrait<OpTrait::ConstantLike>() && op->getNumResults() == 1 && isa<RankedTensorType>(op->getResult(0).getType());
}
} // namespace

const Interpreter::BlockPlan &Interpreter::planOf(Block &block) {
  std::unique_ptr<BlockPlan> &plan = plans_[&block];
  if (plan)
    return *plan;
  // Each value of the block, by the position of the last op that reads it (the op itself, or
  // one nested in it: a loop's body reading a value from before the loop).
  DenseMap<Value, size_t> lastRead;
  size_t count = 0;
  for (Operation &op : block) {
    op.walk([&](Operation *reader) {
      for (Value operand : reader->getOperands())
        if (operand.getParentBlock() == &block)
          lastRead[operand] = count;
    });
    ++count;
  }
  auto made = std::make_unique<BlockPlan>();
  made->deaths.resize(count);
  made->constants.resize(count);
  made->deferred.resize(count);
  // (The terminator's operands, read last, stay: runRegion returns them.)
  for (auto [value, last] : lastRead)
    if (last < count - 1)
      made->deaths[last].push_back(value);
  size_t position = 0;
  for (Operation &op : block) {
    for (Value result : op.getResults())
      if (!lastRead.count(result))
        made->deaths[position].push_back(result); // never read
    made->deferred[position] = isTileConstant(&op);
    for (Value operand : op.getOperands())
      if (Operation *definer = operand.getDefiningOp(); definer && isTileConstant(definer))
        made->constants[position].push_back(definer);
    ++position;
  }
  plan = std::move(made); // (`plan` still refers to plans_'s entry: nothing was added since)
  return *plan;
}

void Interpreter::makeConstants(ArrayRef<Operation *> constants) {
  for (Operation *constant : constants)
    if (!env_.count(constant->getResult(0)))
      exec(constant);
}

std::vector<TileRef> Interpreter::runRegion(Region &region, const std::vector<TileRef> &args) {
  Block &block = region.front();
  const BlockPlan &plan = planOf(block);
  for (size_t k = 0; k < args.size(); ++k)
    env_[block.getArgument(k)] = args[k];
  size_t position = 0;
  for (Operation &op : block.without_terminator()) {
    if (!plan.deferred[position]) {
      makeConstants(plan.constants[position]);
      exec(&op);
    }
    for (Value dead : plan.deaths[position++])
      env_.erase(dead);
  }
  makeConstants(plan.constants[position]);
  std::vector<TileRef> results;
  for (Value operand : block.getTerminator()->getOperands())
    results.push_back(ref(operand));
  return results;
}

namespace {
int64_t scalarInt(const Tile &t) { return t.i.at(0); }
} // namespace

void Interpreter::execControlFlow(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    int bits = bitsOf(dtypeOf(loop.getInductionVar().getType()));
    int64_t lower = scalarInt(get(loop.getLowerBound())), upper = scalarInt(get(loop.getUpperBound()));
    int64_t step = scalarInt(get(loop.getStep()));
    if (step <= 0)
      fault(op, "for loop step must be positive, got " + std::to_string(step));
    std::vector<TileRef> carried;
    for (Value init : loop.getInitArgs())
      carried.push_back(ref(init));
    for (int64_t iv = lower; iv < upper; iv = wrapInt(iv + step, bits) <= iv ? upper : iv + step) {
      Tile index = Tile::make(dtypeOf(loop.getInductionVar().getType()), {});
      index.i[0] = iv;
      std::vector<TileRef> args{std::make_shared<const Tile>(std::move(index))};
      args.insert(args.end(), carried.begin(), carried.end());
      carried = runRegion(loop.getRegion(), args);
    }
    for (size_t k = 0; k < carried.size(); ++k)
      setRef(loop.getResult(k), carried[k]);
    return;
  }
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    bool taken = scalarInt(get(branch.getCondition())) != 0;
    Region &region = taken ? branch.getThenRegion() : branch.getElseRegion();
    if (region.empty())
      return;
    std::vector<TileRef> results = runRegion(region, {});
    for (size_t k = 0; k < results.size(); ++k)
      setRef(branch.getResult(k), results[k]);
    return;
  }
  if (auto loop = dyn_cast<scf::WhileOp>(op)) {
    std::vector<TileRef> carried;
    for (Value init : loop.getInits())
      carried.push_back(ref(init));
    while (true) {
      uint64_t changesBefore = memoryChanges_;
      std::vector<TileRef> before = runRegion(loop.getBefore(), carried);
      bool go = before[0]->i.at(0) != 0;
      std::vector<TileRef> forwarded(before.begin() + 1, before.end());
      if (!go) {
        for (size_t k = 0; k < forwarded.size(); ++k)
          setRef(loop.getResult(k), forwarded[k]);
        return;
      }
      std::vector<TileRef> next = runRegion(loop.getAfter(), forwarded);
      // The program runs alone and deterministically: an iteration that changed no byte of
      // memory and carries the same values on would repeat forever (a program waiting for a
      // later one, which the interpreter runs only after it).
      if (memoryChanges_ == changesBefore &&
          std::equal(next.begin(), next.end(), carried.begin(), carried.end(),
                     [](const TileRef &a, const TileRef &b) { return a == b || a->sameAs(*b); }))
        fault(op, "this while loop cannot end: an iteration changed neither memory nor its values (the interpreter "
                  "runs programs one after another, so a program that waits for a later one waits forever)");
      carried = std::move(next);
    }
  }
  if (auto call = dyn_cast<func::CallOp>(op)) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(op, call.getCalleeAttr());
    std::vector<TileRef> args;
    for (Value operand : call.getOperands())
      args.push_back(ref(operand));
    std::vector<TileRef> results = runRegion(callee.getBody(), args);
    for (size_t k = 0; k < results.size(); ++k)
      setRef(call.getResult(k), results[k]);
    return;
  }
  fault(op, "the interpreter does not support '" + op->getName().getStringRef().str() + "'");
}

void Interpreter::exec(Operation *op) {
  if (execArith(*this, op) || execTile(*this, op) || execMemory(*this, op))
    return;
  execControlFlow(op);
}

void Interpreter::runProgram(func::FuncOp kernel, std::array<int64_t, 3> pid) {
  pid_ = pid;
  env_.clear();
  std::vector<TileRef> args;
  for (size_t k = 0; k < kernel.getNumArguments(); ++k) {
    mlir::Type type = kernel.getArgument(k).getType();
    Tile t = Tile::make(dtypeOf(type), {});
    const ArgValue &arg = launch_.args[k];
    if (arg.buffer >= 0)
      t.i[0] = bufferBase(arg.buffer);
    else if (isFloat(t.dtype)) // one rounding, as the language's conversions
      writeRounded(t, 0, arg.f);
    else
      t.i[0] = wrapInt(arg.i, bitsOf(t.dtype));
    args.push_back(std::make_shared<const Tile>(std::move(t)));
  }
  runRegion(kernel.getBody(), args);
}

} // namespace tk::interp

void tk::interpretKernel(func::FuncOp kernel, const InterpreterLaunch &launch) {
  NvtxRange range(kernel.getSymName().str()); // as a GPU launch's (Context::launchFunction)
  interp::Interpreter interpreter(launch, kernel.getSymName().str());
  if (launch.args.size() != kernel.getNumArguments())
    throw RunFault("kernel '" + kernel.getSymName().str() + "' takes " + std::to_string(kernel.getNumArguments()) +
                   " runtime arguments, got " + std::to_string(launch.args.size()));
  for (int64_t z = 0; z < launch.grid[2]; ++z)
    for (int64_t y = 0; y < launch.grid[1]; ++y)
      for (int64_t x = 0; x < launch.grid[0]; ++x)
        interpreter.runProgram(kernel, {x, y, z});
}

void tk::interpretKernel(void *moduleOperation, const std::string &kernel, const InterpreterLaunch &launch) {
  auto module = mlir::ModuleOp(static_cast<mlir::Operation *>(moduleOperation));
  interpretKernel(module.lookupSymbol<func::FuncOp>(kernel), launch);
}
