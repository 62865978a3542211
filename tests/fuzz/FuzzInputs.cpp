// libFuzzer target: the readers of untrusted input besides the front end. The first byte picks
// one: 0 the .npy reader (the rest is the file), 1 the tuning database's JSON, 2 the --grid
// expression evaluator. An error (an exception, a false return) is the right answer to bad
// input; a crash, a hang or a sanitizer report is a bug. Built as tk-fuzz-inputs by tools/fuzz,
// and as tk-fuzz-inputs-replay in every build, which ctest runs over tests/fuzz/inputs/.
#include "TuningDatabase.h"
#include "tk/Driver/Compiler.h"
#include "tk/Runtime/Npy.h"

#include <cstdio>
#include <exception>
#include <fstream>
#include <map>
#include <string>
#include <unistd.h>

namespace {
void readNpyBytes(const std::string &bytes) {
  static const std::string path = "/tmp/tk-fuzz-inputs-" + std::to_string(::getpid()) + ".npy";
  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(bytes.data(), std::streamsize(bytes.size()));
  }
  try {
    tk::readNpy(path);
  } catch (const std::exception &) {
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string rest(reinterpret_cast<const char *>(data) + 1, size - 1);
  switch (data[0] % 3) {
  case 0:
    readNpyBytes(rest);
    break;
  case 1: {
    std::string error;
    tk::parseTuningEntry(rest, error);
    break;
  }
  default: {
    static const std::map<std::string, int64_t> names = {{"n", 1000}, {"M", 4096}, {"N", 4096}, {"BM", 128},
                                                         {"BN", 256}, {"BLOCK", 1024}, {"seq_len", 4096}};
    int64_t value = 0;
    std::string error;
    tk::evaluateIntExpression(rest, names, value, error);
    break;
  }
  }
  return 0;
}
