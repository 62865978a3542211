// An NVTX tool for tests: loaded by NVTX itself from NVTX_INJECTION64_PATH (as Nsight Systems'
// is), it writes every range pushed or popped in any domain to the file $TK_NVTX_RECORD, one
// line each: `push DOMAIN MESSAGE` or `pop DOMAIN`.
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace {
std::mutex mutex;

void record(const std::string &line) {
  std::lock_guard<std::mutex> lock(mutex);
  if (const char *path = std::getenv("TK_NVTX_RECORD"))
    if (FILE *f = std::fopen(path, "a")) {
      std::fprintf(f, "%s\n", line.c_str());
      std::fclose(f);
    }
}

std::string nameOf(nvtxDomainHandle_t domain) {
  return domain ? *reinterpret_cast<const std::string *>(domain) : std::string("(default)");
}

nvtxDomainHandle_t domainCreateA(const char *name) {
  return reinterpret_cast<nvtxDomainHandle_t>(new std::string(name)); // lives as the process does
}

int domainRangePushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attributes) {
  std::string message = attributes && attributes->messageType == NVTX_MESSAGE_TYPE_ASCII && attributes->message.ascii
                            ? attributes->message.ascii
                            : "?";
  record("push " + nameOf(domain) + " " + message);
  return 0;
}

int domainRangePop(nvtxDomainHandle_t domain) {
  record("pop " + nameOf(domain));
  return 0;
}
} // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t getExportTable) {
  auto *callbacks = static_cast<const NvtxExportTableCallbacks *>(getExportTable(NVTX_ETID_CALLBACKS));
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (!callbacks || !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) ||
      size <= NVTX_CBID_CORE2_DomainCreateA)
    return 0;
  *table[NVTX_CBID_CORE2_DomainCreateA] = reinterpret_cast<NvtxFunctionPointer>(&domainCreateA);
  *table[NVTX_CBID_CORE2_DomainRangePushEx] = reinterpret_cast<NvtxFunctionPointer>(&domainRangePushEx);
  *table[NVTX_CBID_CORE2_DomainRangePop] = reinterpret_cast<NvtxFunctionPointer>(&domainRangePop);
  return 1;
}
