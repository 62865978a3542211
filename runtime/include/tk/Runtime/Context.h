// The device side of the C++ API, in the small runtime library (libtkc-runtime, no LLVM inside):
// a Context on one GPU (or on the CPU interpreter), streams, RAII buffers, grids. The JIT
// (tk/Runtime/Jit.h) and AOT headers (tk/Runtime/Aot.h) launch kernels on it.
#ifndef TK_RUNTIME_CONTEXT_H
#define TK_RUNTIME_CONTEXT_H

#include "tk/Support/Types.h"
#include "tk/Runtime/Error.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tk {

namespace cuda {
struct CUstream_st;
struct CUfunc_st;
struct CUctx_st;
struct CUgraphExec_st;
struct CUmod_st;
} // namespace cuda

enum class Backend { Cuda, Interpreter };

/// A loaded kernel and what its module says about launching it, read once at load.
struct LoadedFunction {
  cuda::CUfunc_st *function = nullptr;
  /// The kernel calls gdc_wait (its module carries `tk_grid_dependent_<kernel>`): it is launched
  /// as a programmatic dependent of the kernel before it in its stream.
  bool waitsForGrid = false;
  /// Programs a CTA (its module carries `tk_programs_per_cta_<kernel>`: `warp_specialize: 3`):
  /// a grid of N programs launches cdiv(N, programsPerCta) CTAs.
  int programsPerCta = 1;
  /// CTAs a cluster (its module carries `tk_cluster_ctas_<kernel>`: `cluster_size: 2`; its
  /// PTX says `.reqnctapercluster`): the CTAs along x are rounded up to a multiple of it (the
  /// kernel's programs share its tiles among however many there are).
  int clusterCtas = 1;
};

/// What the tuner and the launcher need to know of the GPU.
struct DeviceInfo {
  std::string name;   // "NVIDIA H200"; "interpreter" on the CPU
  int sm = 0;         // compute capability, 90 for sm_90
  int multiprocessors = 0;
  int64_t sharedBytesPerBlock = 0; // the opt-in maximum of dynamic shared memory
  int64_t registersPerBlock = 0;
  int maxThreadsPerBlock = 1024;
  int64_t totalMemory = 0;
  int64_t l2Bytes = 0;
};

/// A launch grid: x up to 2^31 - 1, y and z up to 65535, each at least 1.
struct Grid {
  int64_t x = 1, y = 1, z = 1;
  Grid(int64_t x = 1, int64_t y = 1, int64_t z = 1) : x(x), y(y), z(z) {}
  /// Throws tk::Error naming `kernel` unless every dimension is in range (0 included).
  void check(const std::string &kernel) const;
  /// A dimension of 0: the launch runs no program and does nothing, as Triton's launcher
  /// skips a grid of no programs (a kernel over an empty tensor).
  bool empty() const { return x == 0 || y == 0 || z == 0; }
};

/// A CUDA stream (owned: destroyed with the object, unless borrowed). A default-constructed
/// Stream is the context's default stream, and the only stream of the interpreter.
class Stream {
public:
  Stream() = default;
  ~Stream();
  Stream(Stream &&other) noexcept : handle_(other.handle_), owned_(other.owned_) { other.handle_ = nullptr; }
  /// A stream the program (or a framework: torch.cuda.current_stream().cuda_stream) made and
  /// keeps: launched on, never destroyed by tk.
  static Stream borrowed(cuda::CUstream_st *handle) {
    Stream stream(handle);
    stream.owned_ = false;
    return stream;
  }
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  cuda::CUstream_st *handle() const { return handle_; }
  /// Waits for the work queued on this stream; throws tk::Error if a kernel on it faulted. The
  /// default stream (a null handle: the interpreter's streams too) waits for the CUDA context
  /// current on this thread, and with none there is nothing to wait for.
  void synchronize() const;
  /// CUDA graphs: beginCapture() makes the work later enqueued on this stream (a stream of its
  /// own, CUDA backend) be recorded instead of run, in relaxed mode; endCapture() instantiates
  /// what was recorded. Both throw tk::Error. abandonCapture() ends a capture that failed
  /// halfway and discards it.
  void beginCapture() const;
  class CudaGraph endCapture() const;
  void abandonCapture() const noexcept;

private:
  friend class Context;
  explicit Stream(cuda::CUstream_st *handle) : handle_(handle) {}
  cuda::CUstream_st *handle_ = nullptr;
  bool owned_ = true;
};

/// An instantiated CUDA graph (Stream::endCapture), destroyed with the object: launch() replays
/// every kernel captured, in one call.
class CudaGraph {
public:
  CudaGraph() = default;
  ~CudaGraph();
  CudaGraph(CudaGraph &&other) noexcept : exec_(other.exec_) { other.exec_ = nullptr; }
  CudaGraph &operator=(CudaGraph &&other) noexcept;
  CudaGraph(const CudaGraph &) = delete;
  CudaGraph &operator=(const CudaGraph &) = delete;

  explicit operator bool() const { return exec_ != nullptr; }
  /// Enqueues the graph on `stream`; throws tk::Error.
  void launch(const Stream &stream) const;

private:
  friend class Stream;
  cuda::CUgraphExec_st *exec_ = nullptr;
};

/// A kernel's (or a sequence's) time by the benchmarks' two methods, in milliseconds.
struct Timing {
  double perCallMs = 0;     // median of single runs between events, each synchronized
  double backToBackMs = 0;  // mean of runs enqueued back to back, median over three batches
  int repetitions = 0;
  bool flushedL2 = false;   // each per-call run started with a cold L2
  int restMicroseconds = 0; // ... and after the GPU rested this long
  /// "0.1234 ms per call (median of 100, L2 flushed, 200 us rest), 0.1200 ms back to back (mean of 100)":
  /// the line bench/peers.py parses.
  std::string str() const;
};

class Context {
public:
  /// A context on GPU `device` (the CUDA backend) or on the CPU interpreter. Throws tk::Error
  /// saying what is missing when there is no driver or no such GPU.
  explicit Context(Backend backend = Backend::Cuda, int device = 0);
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  /// The CUDA backend when a driver and a GPU are present, else the interpreter.
  static Backend defaultBackend();

  Backend backend() const { return backend_; }
  const DeviceInfo &device() const { return info_; }
  Stream createStream();
  /// Makes this context current on the calling thread (worker threads that call the driver).
  void makeCurrent() const;
  /// Waits for all queued work; throws tk::Error naming the last kernel launched when one
  /// faulted. After a fault such as an illegal address CUDA's context is unusable: every later
  /// call fails, and only a new process recovers (CUDA's rule, not tk's).
  void synchronize();

  /// Per-call timing lets the GPU rest this long before each run (after the L2 flush: a
  /// one-thread kernel that sleeps), as bench/peers.py's per call spins before each: a run then
  /// starts at the clocks a kernel between other work gets, not at the power cap that runs one
  /// after the other reach. At that cap configs can time alike that differ rested: on an H100,
  /// fp8_matmul_persistent at 8192x8192x4096 took 0.375 ms a call rested against 0.424 with its
  /// tiles in another order, and 0.429 both without the rest (bench/results/2026-12-07-session44).
  static constexpr int kRestMicroseconds = 200;

  /// The median time in milliseconds of `launch` over `repetitions` runs after `warmup` runs,
  /// each timed with CUDA events and (with flushL2) preceded by a write of twice the L2 size,
  /// so every run starts with a cold L2 (as Triton's do_bench does), then by a rest of
  /// `restMicroseconds` (kRestMicroseconds, above; only with the flush). CUDA backend only.
  double timeMedian(const std::function<void()> &launch, int warmup, int repetitions, const Stream &stream = Stream(),
                    bool flushL2 = true, int restMicroseconds = kRestMicroseconds);

  /// Several launches timed against each other: `rounds` rounds, each timing one run of every
  /// launch as timeMedian does (events, a cold L2 with flushL2, the rest), the order rotated by one from
  /// round to round, after one warm-up run each; each launch's median in milliseconds. A GPU at
  /// its power cap changes clocks over tens of milliseconds, which a block of one launch's runs
  /// followed by a block of the other's charges to whichever ran in the slower moment;
  /// interleaved, the drift falls on all of them alike. CUDA backend only.
  std::vector<double> timeInterleaved(const std::vector<std::function<void()>> &launches, int rounds,
                                      const Stream &stream = Stream(), bool flushL2 = true,
                                      int restMicroseconds = kRestMicroseconds);

  /// The benchmarks' second method: after `warmup` runs, `repetitions` runs enqueued back to
  /// back between two CUDA events with one synchronization, no L2 flush between them; the mean
  /// time of one run in milliseconds, the median over three such batches (`bench/peers.py` times
  /// the peers the same way). CUDA backend only.
  double timeBackToBack(const std::function<void()> &launch, int warmup, int repetitions,
                        const Stream &stream = Stream());

  /// Both methods, as `tkc run --time`, `tkc tune --time` and the benchmarks report them: per
  /// call (timeMedian after `warmup` runs) and back to back (timeBackToBack).
  Timing time(const std::function<void()> &launch, int warmup, int repetitions, const Stream &stream = Stream(),
              bool flushL2 = true, int restMicroseconds = kRestMicroseconds);

  /// The time of each of `count` consecutive pieces of work, enqueued back to back on `stream`
  /// as one run would (`step(i)` enqueues piece i): milliseconds per piece, between CUDA events
  /// recorded before each piece and after the last, with one synchronization at the end (where
  /// the GPU runs ahead of the host, a piece's time includes the wait for its launch). Under
  /// the interpreter, whose launches run as they are enqueued, the wall-clock time of each.
  std::vector<double> timeSteps(int count, const std::function<void(int)> &step, const Stream &stream = Stream());

  /// Zeroes a buffer, in order on `stream`.
  void zero(const class Buffer &buffer, const Stream &stream);
  /// Copies `from` into `to` (buffers of as many bytes), in order on `stream`.
  void copy(const class Buffer &to, const class Buffer &from, const Stream &stream);
  /// Launch bookkeeping for error messages: the kernel enqueued last. With TK_LAUNCH_BLOCKING=1
  /// every launch synchronizes, so a fault names exactly the kernel that caused it.
  void noteLaunch(const std::string &kernel, const Stream &stream);
  /// Enqueues a compiled function (the JIT and AOT launchers share this). Throws tk::Error
  /// naming `kernel`.
  void launchFunction(const LoadedFunction &function, const std::string &kernel, const Grid &grid, int threads,
                      int64_t sharedBytes, void **params, const Stream &stream);

  /// Under the interpreter, buffers live in host memory that launches, uploads, downloads and
  /// zeroing of this context reach only while holding this lock, so threads may share buffers
  /// (launches of one interpreter context run one at a time).
  std::unique_lock<std::mutex> lockHostMemory() const { return std::unique_lock<std::mutex>(hostMemory_); }
  /// Expires when the context is destroyed: buffers, modules and kernels hold it, and say so
  /// with a tk::Error when used after their context is gone.
  std::weak_ptr<const bool> lifetime() const { return lifetime_; }

private:
  Backend backend_;
  DeviceInfo info_;
  cuda::CUctx_st *context_ = nullptr;
  std::mutex launches_; // launches and timing from several threads
  std::string lastKernel_;
  int launchesSinceSync_ = 0;
  bool blocking_ = false;
  std::atomic<bool> dependentLaunch_{true}; // TK_DEPENDENT_LAUNCH=0: every kernel launched as a plain one
  unsigned long long flush_ = 0; // the L2 flush buffer (device pointer), allocated on first use
  cuda::CUmod_st *restModule_ = nullptr; // the rest kernel's (beforeRun), loaded on first use
  cuda::CUfunc_st *rest_ = nullptr;
  bool restUnavailable_ = false; // its load failed: timing goes on without the rest
  mutable std::mutex hostMemory_;
  std::shared_ptr<const bool> lifetime_ = std::make_shared<const bool>(true);
  void checkSync(int result, const std::string &what);
  /// `samples` runs of `between(i)`, each between two CUDA events on `stream` and synchronized,
  /// `before(i)` first (outside the events): the elapsed milliseconds, in order.
  std::vector<float> eventTimes(int samples, const std::function<void(int)> &before,
                                const std::function<void(int)> &between, const Stream &stream);
  /// What runs before each timed run on `stream`: with flushL2, a write of twice the L2 size
  /// (the buffer allocated once), then, for restMicroseconds > 0, a one-thread kernel that
  /// sleeps that long (none, with a warning once, where the driver cannot compile it). Without
  /// the flush nothing, as bench/peers.py spins only after its flush.
  std::function<void(int)> beforeRun(const Stream &stream, bool flushL2, int restMicroseconds);
  /// Loads the rest kernel (rest_), or marks it unavailable; under launches_.
  void loadRest();
  /// The rest beforeRun takes for these arguments, in microseconds.
  int restTaken(bool flushL2, int restMicroseconds);
};

/// Device memory of `count` elements of one type (host memory under the interpreter), freed
/// with the object; zero-filled when allocated. Its context must outlive it: a buffer used after
/// its context was destroyed throws tk::Error. Threads may share a buffer (launches reading and
/// writing it, uploads, downloads); a buffer must not be moved or destroyed while another
/// thread uses it.
class Buffer {
public:
  Buffer(Context &context, Scalar elem, size_t count);
  ~Buffer();
  Buffer(Buffer &&other) noexcept;
  Buffer &operator=(Buffer &&other) noexcept;
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  /// A buffer holding a copy of `values` (element type from T: float is f32, int32_t i32...).
  template <typename T> static Buffer of(Context &context, const std::vector<T> &values);
  /// A buffer of raw bits of another element type (f16 and bf16 as uint16_t, f8 as uint8_t).
  template <typename T> static Buffer ofBits(Context &context, Scalar elem, const std::vector<T> &bits);

  Scalar elem() const { return elem_; }
  size_t count() const { return count_; }
  size_t bytes() const { return count_ * elementBytes(elem_); }
  /// Throws tk::Error when the context was destroyed.
  Context &context() const { return live("tk::Buffer::context"); }
  /// The device address (CUDA backend).
  unsigned long long devicePointer() const { return device_; }
  /// The bytes themselves (interpreter backend); hold the context's lockHostMemory() while
  /// other threads may launch on the buffer.
  std::vector<uint8_t> &hostBytes() { return host_; }

  /// Copies to and from the buffer (synchronously, after queued work): sizes must match.
  void upload(const void *data, size_t bytes);
  void download(void *data, size_t bytes) const;
  template <typename T> std::vector<T> toVector() const {
    std::vector<T> out(bytes() / sizeof(T));
    download(out.data(), out.size() * sizeof(T));
    return out;
  }

  static size_t elementBytes(Scalar elem) { return elem == Scalar::I1 ? 1 : size_t(bitWidth(elem) + 7) / 8; }

private:
  /// The context, or a tk::Error naming `what` when it was destroyed.
  Context &live(const char *what) const;
  Context *context_;
  std::weak_ptr<const bool> alive_;
  Scalar elem_;
  size_t count_;
  unsigned long long device_ = 0;
  std::vector<uint8_t> host_;
};

template <typename T> constexpr Scalar scalarOf();
template <> constexpr Scalar scalarOf<float>() { return Scalar::F32; }
template <> constexpr Scalar scalarOf<double>() { return Scalar::F64; }
template <> constexpr Scalar scalarOf<int8_t>() { return Scalar::I8; }
template <> constexpr Scalar scalarOf<int16_t>() { return Scalar::I16; }
template <> constexpr Scalar scalarOf<int32_t>() { return Scalar::I32; }
template <> constexpr Scalar scalarOf<int64_t>() { return Scalar::I64; }
template <> constexpr Scalar scalarOf<uint8_t>() { return Scalar::U8; }
template <> constexpr Scalar scalarOf<uint16_t>() { return Scalar::U16; }
template <> constexpr Scalar scalarOf<uint32_t>() { return Scalar::U32; }
template <> constexpr Scalar scalarOf<uint64_t>() { return Scalar::U64; }

template <typename T> Buffer Buffer::of(Context &context, const std::vector<T> &values) {
  return ofBits(context, scalarOf<T>(), values);
}

template <typename T> Buffer Buffer::ofBits(Context &context, Scalar elem, const std::vector<T> &bits) {
  if (sizeof(T) != elementBytes(elem))
    throw Error(std::string("Buffer::ofBits: ") + scalarName(elem) + " elements are " +
                std::to_string(elementBytes(elem)) + " bytes, the vector's are " + std::to_string(sizeof(T)));
  Buffer buffer(context, elem, bits.size());
  buffer.upload(bits.data(), bits.size() * sizeof(T));
  return buffer;
}

} // namespace tk

#endif
