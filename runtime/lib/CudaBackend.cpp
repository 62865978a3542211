#include "tk/Runtime/CudaBackend.h"
#include "tk/Support/FloatFormats.h"

#include "tk/Runtime/Aot.h"
#include "tk/Runtime/Context.h"
#include "tk/Runtime/CudaDriver.h"

#include <cstring>

namespace tk {

// `tkc run` on the GPU: the C++ API's pieces (a Context, RAII buffers, loadFunction, timing)
// with the buffers copied in from and back to the host.
Timing runOnCuda(const CudaLaunch &launch) {
  Context context(Backend::Cuda);
  LoadedFunction function = loadFunction(launch.ptx.c_str(), launch.kernel, launch.sharedBytes);
  if (launch.resources) {
    launch.resources->registers = functionRegisters(function.function);
    launch.resources->localBytes = functionLocalBytes(function.function);
  }
  std::vector<Buffer> device;
  device.reserve(launch.buffers->size());
  for (const HostBuffer &host : *launch.buffers) {
    size_t count = host.bytes.size() / Buffer::elementBytes(host.elem);
    device.emplace_back(context, host.elem, count);
    try {
      device.back().upload(host.bytes.data(), host.bytes.size());
    } catch (const Error &e) {
      throw Error("copying '" + host.name + "' to the GPU: " + e.what());
    }
  }
  // One 8-byte slot per parameter, holding the value in its type's width.
  std::vector<uint64_t> storage(launch.params.size(), 0);
  std::vector<void *> pointers;
  for (size_t k = 0; k < launch.params.size(); ++k) {
    const Type &type = launch.params[k].second;
    const ArgValue &arg = launch.args[k];
    if (type.isPtr()) {
      storage[k] = device[arg.buffer].devicePointer();
    } else if (type.isFloatValue()) {
      if (type.elem.scalar == Scalar::F64) {
        std::memcpy(&storage[k], &arg.f, 8);
      } else if (type.elem.scalar == Scalar::F32) {
        float f = float(arg.f);
        std::memcpy(&storage[k], &f, 4);
      } else if (type.elem.scalar == Scalar::F16 || type.elem.scalar == Scalar::BF16) {
        // One rounding, as the interpreter's.
        storage[k] = type.elem.scalar == Scalar::F16 ? fp::toHalfRoundedOnce(arg.f) : fp::toBf16RoundedOnce(arg.f);
      } else {
        throw Error("parameter '" + launch.params[k].first + "': " + type.str() +
                    " scalars are not supported by the CUDA backend yet");
      }
    } else {
      storage[k] = uint64_t(arg.i);
    }
    pointers.push_back(&storage[k]);
  }
  Grid grid(launch.grid[0], launch.grid[1], launch.grid[2]);
  auto launchOnce = [&] {
    context.launchFunction(function, launch.kernel, grid, launch.threads, launch.sharedBytes, pointers.data(), Stream());
  };
  launchOnce();
  context.synchronize();
  // The results of the first run are the ones returned: timed reruns may not be idempotent.
  for (size_t b = 0; b < launch.buffers->size(); ++b) {
    HostBuffer &host = (*launch.buffers)[b];
    device[b].download(host.bytes.data(), host.bytes.size());
  }
  // Each run timed per call starts with a cold L2, as Triton's do_bench does.
  return launch.timedRuns > 0 ? context.time(launchOnce, 1, launch.timedRuns) : Timing();
}

} // namespace tk
