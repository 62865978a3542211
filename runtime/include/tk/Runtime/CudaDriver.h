// The CUDA driver API, loaded with dlopen("libcuda.so.1") at first use: nothing links against
// the driver, and a machine without one gets a tk::Error that says so.
#ifndef TK_RUNTIME_CUDADRIVER_H
#define TK_RUNTIME_CUDADRIVER_H

#include "tk/Runtime/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tk::cuda {

using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
struct CUstream_st;
struct CUfunc_st;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUevent = struct CUevent_st *;
using CUdeviceptr = unsigned long long;
using CUgraph = struct CUgraph_st *;
struct CUgraphExec_st;
using CUgraphExec = CUgraphExec_st *;

/// cuLaunchKernelEx's attribute and configuration, laid out as cuda.h lays out CUlaunchAttribute
/// and CUlaunchConfig (CUDA 12 and 13; the asserts below hold cuda.h's sizes).
struct alignas(8) LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int value; // programmaticStreamSerializationAllowed, for kProgrammaticStreamSerialization
  } value;
};
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  CUstream hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};
// cuda.h's sizes and offsets (CUDA 12 and 13 on x86-64), so that the driver reads these as its own.
static_assert(sizeof(LaunchAttribute) == 72 && alignof(LaunchAttribute) == 8 && offsetof(LaunchAttribute, value) == 8,
              "CUlaunchAttribute's layout");
static_assert(sizeof(LaunchConfig) == 56 && offsetof(LaunchConfig, hStream) == 32 && offsetof(LaunchConfig, numAttrs) == 48,
              "CUlaunchConfig's layout");
/// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION.
constexpr int kProgrammaticStreamSerialization = 6;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void **, void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
  CUresult (*cuMemGetInfo)(size_t *, size_t *);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuStreamBeginCapture)(CUstream, int);
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
  CUresult (*cuModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule, const char *);
  /// CUDA 12+ (programmatic dependent launch); null on an older driver.
  CUresult (*cuLaunchKernelEx)(const LaunchConfig *, CUfunction, void **, void **);
  /// CUDA 12+ (TMA tensor maps); null on an older driver.
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *, const unsigned long long *,
                                     const unsigned long long *, const unsigned *, const unsigned *, int, int, int, int);

  /// The loaded driver; throws tk::Error when libcuda.so.1 or a GPU is missing.
  static Driver &get();
  /// Throws tk::Error naming `what` and the driver's message unless `result` is success.
  void check(CUresult result, const std::string &what) const;
  /// The module's global `name` (its address and bytes), or false when it has none; other
  /// failures throw as check(), naming `what`.
  bool findGlobal(CUmodule module, const std::string &name, CUdeviceptr *address, size_t *bytes,
                  const std::string &what) const;
};

/// True when a driver and at least one GPU are present (never throws).
bool available();

} // namespace tk::cuda

#endif
