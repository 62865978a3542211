// Collectives (Parallel.h): an in-process group of threads on the interpreter, and NCCL loaded at
// run time for the CUDA backend.
#include "tk/Graph/Parallel.h"
#include "tk/Graph/Graph.h"
#include "tk/Runtime/Error.h"
#include "tk/Support/FloatFormats.h"

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace tk::graph {

namespace {

enum class Collective { AllReduce, AllGather };

const char *collectiveName(Collective c) { return c == Collective::AllReduce ? "all_reduce" : "all_gather"; }

/// The element types the collectives take (the graph's bf16 and f16, and f32).
void requireCollectiveType(const char *who, Scalar dtype) {
  if (dtype != Scalar::BF16 && dtype != Scalar::F16 && dtype != Scalar::F32)
    throw Error(std::string(who) + ": collectives take bf16, f16 or f32 buffers, not " + scalarName(dtype));
}

/// That `in` holds `count` elements and `out` `outCount` of the same type.
void requireSizes(const char *who, const Buffer &in, const Buffer &out, size_t count, size_t outCount) {
  requireCollectiveType(who, in.elem());
  if (out.elem() != in.elem() || in.count() < count || out.count() < outCount)
    throw Error(std::string(who) + ": " + std::to_string(count) + " elements in, " + std::to_string(outCount) +
                " out, of one type; the buffers hold " + std::to_string(in.count()) + " " + scalarName(in.elem()) +
                " and " + std::to_string(out.count()) + " " + scalarName(out.elem()));
}

float loadElement(Scalar dtype, const uint8_t *at) {
  if (dtype == Scalar::F32) {
    float f;
    std::memcpy(&f, at, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, at, 2);
  return dtype == Scalar::BF16 ? fp::bf16ToFloat(h) : fp::halfToFloat(h);
}

void storeElement(Scalar dtype, float value, uint8_t *at) {
  if (dtype == Scalar::F32) {
    std::memcpy(at, &value, 4);
    return;
  }
  uint16_t h = dtype == Scalar::BF16 ? fp::floatToBf16(value) : fp::floatToHalf(value);
  std::memcpy(at, &h, 2);
}

} // namespace

/// What the ranks of an InProcessGroup share: the collective being assembled (each rank's
/// bytes, copied in), the result of the last one completed, and a generation counter that
/// wakes the ranks waiting for it.
struct InProcessGroup::State {
  explicit State(int size) : size(size), contributions(size_t(size)) {}
  const int size;
  std::mutex mutex;
  std::condition_variable completed;
  uint64_t generation = 0; // collectives completed
  int arrived = 0;         // ranks in the collective being assembled
  int departed = 0;        // ranks whose run() body returned
  bool aborted = false;
  std::string why;
  Collective kind = Collective::AllReduce;
  Scalar dtype = Scalar::F32;
  size_t count = 0;
  std::vector<std::vector<uint8_t>> contributions;
  /// Read by each rank after it wakes; replaced only when every rank has arrived at the next
  /// collective, so after all of them have read it.
  std::shared_ptr<const std::vector<uint8_t>> result;

  std::string abortedMessage() const { return "in-process group: aborted: " + why; }
  void abortLocked(const std::string &reason) {
    if (!aborted) {
      aborted = true;
      why = reason;
    }
    completed.notify_all();
  }

  /// Rank `rank`'s part of one collective: returns the whole result once every rank gave its part.
  std::shared_ptr<const std::vector<uint8_t>> join(int rank, Collective c, Scalar type, size_t elements,
                                                   std::vector<uint8_t> bytes) {
    std::unique_lock<std::mutex> lock(mutex);
    if (!aborted && departed)
      abortLocked("rank " + std::to_string(rank) + " called " + collectiveName(c) + " after another rank finished");
    if (!aborted && arrived && (c != kind || type != dtype || elements != count))
      abortLocked("rank " + std::to_string(rank) + " called " + collectiveName(c) + " of " + std::to_string(elements) +
                  " " + scalarName(type) + " elements where another called " + collectiveName(kind) + " of " +
                  std::to_string(count) + " " + scalarName(dtype));
    if (aborted)
      throw Error(abortedMessage());
    if (!arrived) {
      kind = c;
      dtype = type;
      count = elements;
    }
    contributions[size_t(rank)] = std::move(bytes);
    uint64_t mine = generation;
    if (++arrived == size) {
      result = std::make_shared<const std::vector<uint8_t>>(combine());
      arrived = 0;
      ++generation;
      completed.notify_all();
      return result;
    }
    completed.wait(lock, [&] { return generation != mine || aborted; });
    if (generation == mine)
      throw Error(abortedMessage());
    return result;
  }

  /// The sum in rank order (f32, rounded once) or the concatenation, of the contributions.
  std::vector<uint8_t> combine() const {
    if (kind == Collective::AllGather) {
      std::vector<uint8_t> all;
      for (const std::vector<uint8_t> &part : contributions)
        all.insert(all.end(), part.begin(), part.end());
      return all;
    }
    size_t width = Buffer::elementBytes(dtype);
    std::vector<uint8_t> sum(count * width);
    for (size_t i = 0; i < count; ++i) {
      float total = loadElement(dtype, contributions[0].data() + i * width);
      for (size_t r = 1; r < contributions.size(); ++r)
        total += loadElement(dtype, contributions[r].data() + i * width);
      storeElement(dtype, total, sum.data() + i * width);
    }
    return sum;
  }
};

namespace {

/// One rank of an InProcessGroup: copies its buffer's bytes in and the result out, each under
/// its own context's host-memory lock (never held while it waits for the others).
class InProcessRank : public Communicator {
public:
  InProcessRank(std::shared_ptr<InProcessGroup::State> state, int rank) : state_(std::move(state)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return state_->size; }
  void allReduceSum(Buffer &in, Buffer &out, size_t count, const Stream &) override {
    requireSizes("all_reduce", in, out, count, count);
    finish(out, state_->join(rank_, Collective::AllReduce, in.elem(), count, bytesOf(in, count)));
  }
  void allGather(Buffer &in, Buffer &out, size_t count, const Stream &) override {
    requireSizes("all_gather", in, out, count, count * size_t(size()));
    finish(out, state_->join(rank_, Collective::AllGather, in.elem(), count, bytesOf(in, count)));
  }

private:
  static void requireInterpreter(const Buffer &b) {
    if (b.context().backend() != Backend::Interpreter)
      throw Error("in-process group: its ranks run on the interpreter; this buffer is on the GPU (use NCCL)");
  }
  static std::vector<uint8_t> bytesOf(Buffer &in, size_t count) {
    requireInterpreter(in);
    auto lock = in.context().lockHostMemory();
    const uint8_t *data = in.hostBytes().data();
    return std::vector<uint8_t>(data, data + count * Buffer::elementBytes(in.elem()));
  }
  static void finish(Buffer &out, const std::shared_ptr<const std::vector<uint8_t>> &result) {
    requireInterpreter(out);
    auto lock = out.context().lockHostMemory();
    std::memcpy(out.hostBytes().data(), result->data(), result->size());
  }
  std::shared_ptr<InProcessGroup::State> state_;
  int rank_;
};

} // namespace

InProcessGroup::InProcessGroup(int size) {
  // (A thread per rank, each holding a copy of every collective's input: a bound, not
  // whatever a caller's number allows.)
  if (size < 1 || size > kMaxRanks)
    throw Error("in-process group: " + std::to_string(size) + " ranks (1 to " + std::to_string(kMaxRanks) + ")");
  state_ = std::make_shared<State>(size);
  for (int r = 0; r < size; ++r)
    ranks_.push_back(std::make_unique<InProcessRank>(state_, r));
}

InProcessGroup::~InProcessGroup() = default;

int InProcessGroup::size() const { return state_->size; }

Communicator &InProcessGroup::rank(int rank) {
  if (rank < 0 || rank >= size())
    throw Error("in-process group: rank " + std::to_string(rank) + " of " + std::to_string(size()));
  return *ranks_[size_t(rank)];
}

void InProcessGroup::abort(const std::string &why) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->abortLocked(why);
}

void InProcessGroup::run(const std::function<void(Communicator &)> &body) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->departed = 0;
  }
  std::mutex firstMutex;
  std::exception_ptr first;
  auto fail = [&](int r, const std::string &what) {
    {
      // Recorded before the abort: the errors the abort causes in other ranks come after it.
      std::lock_guard<std::mutex> lock(firstMutex);
      if (!first)
        first = std::current_exception();
    }
    abort("rank " + std::to_string(r) + " failed: " + what);
  };
  std::vector<std::thread> threads;
  // A thread that cannot start fails its rank (and so aborts the others), and the ones
  // started are still joined: a joinable std::thread destroyed would terminate the process.
  for (int r = 0; r < size(); ++r) {
    try {
      threads.emplace_back([&, r] {
        try {
          body(*ranks_[size_t(r)]);
          std::lock_guard<std::mutex> lock(state_->mutex);
          ++state_->departed;
          if (state_->arrived) // they wait for a collective this rank will never call
            state_->abortLocked("rank " + std::to_string(r) + " finished while " + std::to_string(state_->arrived) +
                                " rank(s) wait in a collective");
        } catch (const std::exception &e) {
          fail(r, e.what());
        } catch (...) {
          fail(r, "an exception that is no std::exception");
        }
      });
    } catch (const std::system_error &e) {
      fail(r, std::string("its thread did not start: ") + e.what());
      break;
    }
  }
  for (std::thread &t : threads)
    t.join();
  if (first)
    std::rethrow_exception(first);
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->aborted) // (a rank returned while others waited: they threw, and were recorded first)
    throw Error(state_->abortedMessage());
}

// ---- NCCL, loaded at run time (no nccl.h needed to build: the few declarations it takes) ----

namespace {

using NcclResult = int; // ncclResult_t; 0 is ncclSuccess
struct NcclUniqueId {
  char internal[128];
};
constexpr int kNcclFloat16 = 6, kNcclFloat32 = 7, kNcclBfloat16 = 9, kNcclSum = 0;

struct Nccl {
  const char *(*getErrorString)(NcclResult);
  NcclResult (*getUniqueId)(NcclUniqueId *);
  NcclResult (*commInitRank)(void **comm, int ranks, NcclUniqueId id, int rank);
  NcclResult (*commDestroy)(void *comm);
  NcclResult (*allReduce)(const void *in, void *out, size_t count, int dtype, int op, void *comm, void *stream);
  NcclResult (*allGather)(const void *in, void *out, size_t count, int dtype, void *comm, void *stream);

  void check(NcclResult result, const char *what) const {
    if (result != 0)
      throw Error(std::string("NCCL: ") + what + " failed: " + getErrorString(result));
  }

  static const Nccl &get() {
    static const Nccl nccl = load();
    return nccl;
  }

private:
  template <typename F> static void bind(void *library, F &slot, const char *name) {
    slot = reinterpret_cast<F>(dlsym(library, name));
    if (!slot)
      throw Error(std::string("NCCL: libnccl.so.2 has no ") + name);
  }
  static Nccl load() {
    // NVLink multicast stays off (the GPU machines require it), unless the environment says
    // otherwise; set before NCCL reads its environment, once, before any thread calls NCCL.
    setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
    void *library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!library)
      throw Error("NCCL: cannot load libnccl.so.2 (looked for it on the library path: LD_LIBRARY_PATH, the "
                  "system's; PyTorch ships one in site-packages/nvidia/nccl/lib): " +
                  std::string(dlerror()));
    Nccl n{};
    bind(library, n.getErrorString, "ncclGetErrorString");
    bind(library, n.getUniqueId, "ncclGetUniqueId");
    bind(library, n.commInitRank, "ncclCommInitRank");
    bind(library, n.commDestroy, "ncclCommDestroy");
    bind(library, n.allReduce, "ncclAllReduce");
    bind(library, n.allGather, "ncclAllGather");
    return n;
  }
};

int ncclType(Scalar dtype) {
  requireCollectiveType("NCCL", dtype);
  return dtype == Scalar::BF16 ? kNcclBfloat16 : dtype == Scalar::F16 ? kNcclFloat16 : kNcclFloat32;
}

void *pointer(const Buffer &b) { return reinterpret_cast<void *>(b.devicePointer()); }

} // namespace

NcclCommunicator::UniqueId NcclCommunicator::uniqueId() {
  const Nccl &nccl = Nccl::get();
  NcclUniqueId id;
  nccl.check(nccl.getUniqueId(&id), "ncclGetUniqueId");
  UniqueId out;
  std::memcpy(out.data(), id.internal, out.size());
  return out;
}

NcclCommunicator::NcclCommunicator(Context &context, int rank, int size, const UniqueId &id)
    : context_(&context), rank_(rank), size_(size) {
  if (context.backend() != Backend::Cuda)
    throw Error("NCCL: its communicators run on the CUDA backend (the interpreter has InProcessGroup)");
  if (size < 1 || rank < 0 || rank >= size)
    throw Error("NCCL: rank " + std::to_string(rank) + " of " + std::to_string(size));
  const Nccl &nccl = Nccl::get();
  NcclUniqueId nid;
  std::memcpy(nid.internal, id.data(), id.size());
  context.makeCurrent(); // NCCL takes the calling thread's current device
  nccl.check(nccl.commInitRank(&comm_, size, nid, rank), "ncclCommInitRank");
}

NcclCommunicator::~NcclCommunicator() {
  if (comm_)
    Nccl::get().commDestroy(comm_);
}

void NcclCommunicator::allReduceSum(Buffer &in, Buffer &out, size_t count, const Stream &stream) {
  requireSizes("NCCL all_reduce", in, out, count, count);
  const Nccl &nccl = Nccl::get();
  context_->makeCurrent();
  nccl.check(nccl.allReduce(pointer(in), pointer(out), count, ncclType(in.elem()), kNcclSum, comm_, stream.handle()),
             "ncclAllReduce");
}

void NcclCommunicator::allGather(Buffer &in, Buffer &out, size_t count, const Stream &stream) {
  requireSizes("NCCL all_gather", in, out, count, count * size_t(size_));
  const Nccl &nccl = Nccl::get();
  context_->makeCurrent();
  nccl.check(nccl.allGather(pointer(in), pointer(out), count, ncclType(in.elem()), comm_, stream.handle()),
             "ncclAllGather");
}

} // namespace tk::graph
