#include "tk/Runtime/CudaDriver.h"

#include <dlfcn.h>

namespace tk::cuda {

namespace {
template <typename F> void bind(void *library, F &slot, const char *name, const char *versioned = nullptr) {
  void *symbol = versioned ? dlsym(library, versioned) : nullptr;
  if (!symbol)
    symbol = dlsym(library, name);
  if (!symbol)
    throw Error(std::string("the CUDA driver has no ") + name + " (driver too old?)");
  slot = reinterpret_cast<F>(symbol);
}

Driver load() {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    throw Error("no CUDA driver: cannot load libcuda.so.1 (is an NVIDIA driver installed?); use --backend=interp");
  Driver d{};
  bind(library, d.cuInit, "cuInit");
  bind(library, d.cuDeviceGetCount, "cuDeviceGetCount");
  bind(library, d.cuDeviceGet, "cuDeviceGet");
  bind(library, d.cuDeviceGetName, "cuDeviceGetName");
  bind(library, d.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  bind(library, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  bind(library, d.cuCtxSetCurrent, "cuCtxSetCurrent");
  bind(library, d.cuCtxGetCurrent, "cuCtxGetCurrent");
  bind(library, d.cuCtxSynchronize, "cuCtxSynchronize");
  bind(library, d.cuModuleLoadDataEx, "cuModuleLoadDataEx");
  bind(library, d.cuModuleUnload, "cuModuleUnload");
  bind(library, d.cuModuleGetFunction, "cuModuleGetFunction");
  bind(library, d.cuFuncSetAttribute, "cuFuncSetAttribute");
  bind(library, d.cuLaunchKernel, "cuLaunchKernel");
  bind(library, d.cuMemAlloc, "cuMemAlloc", "cuMemAlloc_v2");
  bind(library, d.cuMemFree, "cuMemFree", "cuMemFree_v2");
  bind(library, d.cuMemcpyHtoD, "cuMemcpyHtoD", "cuMemcpyHtoD_v2");
  bind(library, d.cuMemcpyDtoH, "cuMemcpyDtoH", "cuMemcpyDtoH_v2");
  bind(library, d.cuMemsetD8, "cuMemsetD8", "cuMemsetD8_v2");
  bind(library, d.cuEventCreate, "cuEventCreate");
  bind(library, d.cuEventRecord, "cuEventRecord");
  bind(library, d.cuEventSynchronize, "cuEventSynchronize");
  bind(library, d.cuEventElapsedTime, "cuEventElapsedTime", "cuEventElapsedTime_v2");
  bind(library, d.cuEventDestroy, "cuEventDestroy", "cuEventDestroy_v2");
  bind(library, d.cuGetErrorString, "cuGetErrorString");
  bind(library, d.cuDriverGetVersion, "cuDriverGetVersion");
  bind(library, d.cuDeviceTotalMem, "cuDeviceTotalMem", "cuDeviceTotalMem_v2");
  bind(library, d.cuMemGetInfo, "cuMemGetInfo", "cuMemGetInfo_v2");
  bind(library, d.cuModuleLoadData, "cuModuleLoadData");
  bind(library, d.cuFuncGetAttribute, "cuFuncGetAttribute");
  bind(library, d.cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  bind(library, d.cuStreamCreate, "cuStreamCreate");
  bind(library, d.cuStreamDestroy, "cuStreamDestroy", "cuStreamDestroy_v2");
  bind(library, d.cuStreamSynchronize, "cuStreamSynchronize");
  bind(library, d.cuMemsetD8Async, "cuMemsetD8Async");
  bind(library, d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_v2");
  bind(library, d.cuStreamBeginCapture, "cuStreamBeginCapture", "cuStreamBeginCapture_v2");
  bind(library, d.cuStreamEndCapture, "cuStreamEndCapture");
  bind(library, d.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
  bind(library, d.cuGraphLaunch, "cuGraphLaunch");
  bind(library, d.cuGraphExecDestroy, "cuGraphExecDestroy");
  bind(library, d.cuGraphDestroy, "cuGraphDestroy");
  bind(library, d.cuModuleGetGlobal, "cuModuleGetGlobal", "cuModuleGetGlobal_v2");
  d.cuLaunchKernelEx = reinterpret_cast<decltype(d.cuLaunchKernelEx)>(dlsym(library, "cuLaunchKernelEx"));
  d.cuTensorMapEncodeTiled = reinterpret_cast<decltype(d.cuTensorMapEncodeTiled)>(dlsym(library, "cuTensorMapEncodeTiled"));
  d.check(d.cuInit(0), "cuInit");
  int count = 0;
  d.check(d.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0)
    throw Error("the CUDA driver found no GPU; use --backend=interp");
  return d;
}
} // namespace

Driver &Driver::get() {
  static Driver driver = load();
  return driver;
}

void Driver::check(CUresult result, const std::string &what) const {
  if (result == 0)
    return;
  const char *message = nullptr;
  if (cuGetErrorString)
    cuGetErrorString(result, &message);
  throw Error(what + " failed: " + (message ? message : "CUDA error " + std::to_string(result)));
}

bool Driver::findGlobal(CUmodule module, const std::string &name, CUdeviceptr *address, size_t *bytes,
                        const std::string &what) const {
  constexpr CUresult kNotFound = 500; // CUDA_ERROR_NOT_FOUND
  CUresult result = cuModuleGetGlobal(address, bytes, module, name.c_str());
  if (result == kNotFound)
    return false;
  check(result, what);
  return true;
}

bool available() {
  try {
    Driver::get();
    return true;
  } catch (const Error &) {
    return false;
  }
}

} // namespace tk::cuda
