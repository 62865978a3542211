// Collectives for tensor parallelism: the ranks of a group each run the same graph on their
// shards of the weights and join the pieces with an all-reduce (sum) or an all-gather
// (Graph::allReduce, Graph::allGather; the Communicator reaches the executor through
// GraphOptions::communicator). Two implementations: InProcessGroup, N ranks as N threads of one
// process on the interpreter (CI's CPU path), and NcclCommunicator, NCCL on the CUDA backend.
#ifndef TK_GRAPH_PARALLEL_H
#define TK_GRAPH_PARALLEL_H

#include "tk/Runtime/Context.h"

#include <array>
#include <functional>
#include <memory>
#include <string>

namespace tk::graph {

/// One rank's end of a group. Collectives are called by every rank in the same order, on
/// buffers of bf16, f16 or f32 elements, and enqueued on `stream` (on the interpreter they are
/// done when they return). Throw tk::Error.
class Communicator {
public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// out[i] = the sum over ranks of their in[i], for i < count; every rank gets the same bits.
  /// `in` and `out` may be one buffer.
  virtual void allReduceSum(Buffer &in, Buffer &out, size_t count, const Stream &stream) = 0;
  /// out = rank 0's first `count` elements of `in`, then rank 1's, ... (count * size() elements).
  virtual void allGather(Buffer &in, Buffer &out, size_t count, const Stream &stream) = 0;
};

/// `size` ranks in one process, one thread each, each with its own interpreter Context. Sums
/// in rank order once, in f32, for every rank: the same bits everywhere, run after run.
class InProcessGroup {
public:
  explicit InProcessGroup(int size);
  ~InProcessGroup();
  InProcessGroup(const InProcessGroup &) = delete;
  InProcessGroup &operator=(const InProcessGroup &) = delete;

  int size() const;
  Communicator &rank(int rank);
  /// Fails the collectives that ranks wait in, and every later one, with a tk::Error that
  /// gives `why`: a rank that cannot go on calls it so that the others do not wait for it.
  void abort(const std::string &why);
  /// Runs body(communicator) for every rank on a thread of its own and joins them. A rank that
  /// throws, or returns while others wait in a collective, aborts the group; the first error
  /// (not the aborts it caused) is rethrown.
  void run(const std::function<void(Communicator &)> &body);

  struct State;

private:
  std::shared_ptr<State> state_;
  std::vector<std::unique_ptr<Communicator>> ranks_;
};

/// NCCL's communicator for one rank (one GPU: `context`'s), libnccl.so.2 loaded at run time
/// (a tk::Error says so when it is missing). Collectives run on the stream's CUstream, so that
/// a decode step's CUDA graph records them. NVLink multicast (NVLS) stays off: NCCL_NVLS_ENABLE
/// is set to 0 unless the environment sets it: that happens when NCCL is first loaded, by
/// uniqueId() or the first communicator, so make the id on the main thread before starting the
/// ranks' threads (setenv must not race other threads' getenv).
class NcclCommunicator : public Communicator {
public:
  using UniqueId = std::array<char, 128>; // ncclUniqueId
  /// What every rank passes to its communicator: made once (by rank 0) and shared.
  static UniqueId uniqueId();
  NcclCommunicator(Context &context, int rank, int size, const UniqueId &id);
  ~NcclCommunicator() override;
  // (One owner of the NCCL communicator: a copy would destroy it twice.)
  NcclCommunicator(const NcclCommunicator &) = delete;
  NcclCommunicator &operator=(const NcclCommunicator &) = delete;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void allReduceSum(Buffer &in, Buffer &out, size_t count, const Stream &stream) override;
  void allGather(Buffer &in, Buffer &out, size_t count, const Stream &stream) override;

private:
  Context *context_;
  int rank_, size_;
  void *comm_ = nullptr; // ncclComm_t
};

} // namespace tk::graph

#endif
