#include "tk/Runtime/CudaBackend.h"

#include "tk/Runtime/CudaDriver.h"

#include <algorithm>
#include <cstring>

namespace tk {

double runOnCuda(const CudaLaunch &launch) {
  cuda::Driver &d = cuda::Driver::get();
  cuda::Device::current();

  // Load the PTX; the driver's JIT log explains a rejection.
  char log[8192] = {0};
  int options[] = {5 /*CU_JIT_ERROR_LOG_BUFFER*/, 6 /*CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES*/};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
  cuda::CUmodule module = nullptr;
  cuda::CUresult loaded = d.cuModuleLoadDataEx(&module, launch.ptx.c_str(), 2, options, values);
  if (loaded != 0)
    throw Error("the CUDA driver rejected the PTX of kernel '" + launch.kernel + "': " + log);
  cuda::CUfunction function = nullptr;
  d.check(d.cuModuleGetFunction(&function, module, launch.kernel.c_str()), "cuModuleGetFunction");
  // Beyond 48 KiB a kernel must opt in to its dynamic shared memory.
  if (launch.sharedBytes > 48 * 1024)
    d.check(d.cuFuncSetAttribute(function, 8 /*CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES*/, int(launch.sharedBytes)),
            "asking for " + std::to_string(launch.sharedBytes) + " bytes of shared memory for kernel '" + launch.kernel + "'");

  std::vector<cuda::CUdeviceptr> device(launch.buffers->size(), 0);
  cuda::CUdeviceptr flush = 0;
  auto release = [&] {
    for (auto ptr : device)
      if (ptr)
        d.cuMemFree(ptr);
    if (flush)
      d.cuMemFree(flush);
    d.cuModuleUnload(module);
  };
  try {
    for (size_t b = 0; b < launch.buffers->size(); ++b) {
      const HostBuffer &buffer = (*launch.buffers)[b];
      d.check(d.cuMemAlloc(&device[b], std::max<size_t>(buffer.bytes.size(), 16)), "cuMemAlloc of '" + buffer.name + "'");
      if (!buffer.bytes.empty())
        d.check(d.cuMemcpyHtoD(device[b], buffer.bytes.data(), buffer.bytes.size()), "copying '" + buffer.name + "' to the GPU");
    }
    // One 8-byte slot per parameter, holding the value in its type's width.
    std::vector<uint64_t> storage(launch.params.size(), 0);
    std::vector<void *> pointers;
    for (size_t k = 0; k < launch.params.size(); ++k) {
      const Type &type = launch.params[k].second;
      const ArgValue &arg = launch.args[k];
      if (type.isPtr()) {
        storage[k] = device[arg.buffer];
      } else if (type.isFloatValue()) {
        if (type.elem.scalar == Scalar::F64) {
          std::memcpy(&storage[k], &arg.f, 8);
        } else if (type.elem.scalar == Scalar::F32) {
          float f = float(arg.f);
          std::memcpy(&storage[k], &f, 4);
        } else {
          throw Error("parameter '" + launch.params[k].first + "': " + type.str() +
                      " scalars are not supported by the CUDA backend yet");
        }
      } else {
        storage[k] = uint64_t(arg.i);
      }
      pointers.push_back(&storage[k]);
    }
    auto launchOnce = [&] {
      d.check(d.cuLaunchKernel(function, unsigned(launch.grid[0]), unsigned(launch.grid[1]), unsigned(launch.grid[2]),
                               unsigned(launch.threads), 1, 1, unsigned(launch.sharedBytes), nullptr, pointers.data(), nullptr),
              "launching kernel '" + launch.kernel + "'");
    };
    launchOnce();
    d.check(d.cuCtxSynchronize(), "running kernel '" + launch.kernel + "'");
    // The results of the first run are the ones returned: timed reruns may not be idempotent.
    for (size_t b = 0; b < launch.buffers->size(); ++b) {
      HostBuffer &buffer = (*launch.buffers)[b];
      if (!buffer.bytes.empty())
        d.check(d.cuMemcpyDtoH(buffer.bytes.data(), device[b], buffer.bytes.size()), "copying '" + buffer.name + "' back");
    }
    double median = 0;
    if (launch.timedRuns > 0) {
      // Each timed run starts with a cold L2 (as Triton's do_bench does): 256 MiB written
      // between runs, outside the timed range.
      constexpr size_t kFlushBytes = 256 << 20;
      d.check(d.cuMemAlloc(&flush, kFlushBytes), "cuMemAlloc of the L2 flush buffer");
      std::vector<float> times;
      cuda::CUevent start, stop;
      d.check(d.cuEventCreate(&start, 0), "cuEventCreate");
      d.check(d.cuEventCreate(&stop, 0), "cuEventCreate");
      for (int r = 0; r < launch.timedRuns; ++r) {
        d.check(d.cuMemsetD8(flush, 0, kFlushBytes), "flushing the L2 cache");
        d.check(d.cuEventRecord(start, nullptr), "cuEventRecord");
        launchOnce();
        d.check(d.cuEventRecord(stop, nullptr), "cuEventRecord");
        d.check(d.cuEventSynchronize(stop), "running kernel '" + launch.kernel + "'");
        float ms = 0;
        d.check(d.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
        times.push_back(ms);
      }
      d.cuEventDestroy(start);
      d.cuEventDestroy(stop);
      std::sort(times.begin(), times.end());
      median = times[times.size() / 2];
    }
    release();
    return median;
  } catch (...) {
    release();
    throw;
  }
}

} // namespace tk
