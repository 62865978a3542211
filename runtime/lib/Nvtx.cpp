#include "tk/Runtime/Nvtx.h"

#if TK_HAVE_NVTX
// Header-only NVTX 3: the first call looks for a tool (NVTX_INJECTION64_PATH) and, finding
// none, points every entry at an empty function.
#include <nvtx3/nvToolsExt.h>
#endif

namespace tk {

#if TK_HAVE_NVTX
namespace {
nvtxDomainHandle_t domain() {
  static nvtxDomainHandle_t handle = nvtxDomainCreateA("tk");
  return handle;
}
} // namespace

NvtxRange::NvtxRange(const char *name) {
  nvtxEventAttributes_t attributes = {};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name;
  nvtxDomainRangePushEx(domain(), &attributes);
}

NvtxRange::~NvtxRange() { nvtxDomainRangePop(domain()); }

bool nvtxEnabled() { return true; }
#else
NvtxRange::NvtxRange(const char *) {}
NvtxRange::~NvtxRange() {}
bool nvtxEnabled() { return false; }
#endif

} // namespace tk
