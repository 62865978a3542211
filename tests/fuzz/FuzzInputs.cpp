// libFuzzer target: the readers of untrusted input besides the front end. The first byte picks
// one (the rest is the input): 0 the .npy reader, 1 the tuning database's JSON, 2 the --grid
// expression evaluator, and a checkpoint's readers (the graph layer's, which tk-llama runs on
// downloaded files): 3 a LLaMA config.json, 4 model.safetensors (each tensor's first and last
// byte read from the mapping), 5 model.safetensors.index.json beside a shard of one tensor.
// An error (an exception, a false return) is the right answer to bad input; a crash, a hang or
// a sanitizer report is a bug. Built as tk-fuzz-inputs by tools/fuzz, and as
// tk-fuzz-inputs-replay in every build, which ctest runs over tests/fuzz/inputs/.
#include "../unit/TestUtil.h"
#include "TuningDatabase.h"
#include "tk/Driver/Compiler.h"
#include "tk/Graph/Checkpoint.h"
#include "tk/Runtime/Npy.h"

#include <cstdio>
#include <exception>
#include <fstream>
#include <map>
#include <string>

namespace {
/// This process's folder for the files it reads back: made once by mkdtemp (no other process's
/// file or link can stand in for them), removed with them at exit.
const std::string &scratchFolder() {
  static const tk::test::TempDir folder("tk-fuzz-inputs");
  if (folder.path().empty())
    std::abort();
  return folder.path();
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), std::streamsize(bytes.size()));
}

void readNpyBytes(const std::string &bytes) {
  std::string path = scratchFolder() + "/input.npy";
  writeFile(path, bytes);
  try {
    tk::readNpy(path);
  } catch (const std::exception &) {
  }
}

/// Opens the checkpoint of `file`'s bytes (the only checkpoint file of the folder, beside the
/// index's shard) and reads each tensor's first and last byte, as loading a model would.
void openCheckpoint(const std::string &file, const std::string &bytes) {
  const std::string &folder = scratchFolder();
  for (const char *name : {"model.safetensors", "model.safetensors.index.json", "shard.safetensors"})
    std::remove((folder + "/" + name).c_str());
  writeFile(folder + "/" + file, bytes);
  if (file != "model.safetensors")
    writeFile(folder + "/shard.safetensors",
              tk::test::safetensors(R"({"w":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]}})", std::string(8, '\1')));
  try {
    tk::llm::Checkpoint checkpoint = tk::llm::Checkpoint::open(folder);
    unsigned sum = 0;
    for (const std::string &name : checkpoint.names()) {
      const tk::llm::CheckpointTensor &tensor = checkpoint.get(name);
      if (tensor.bytes)
        sum += static_cast<const unsigned char *>(tensor.data)[0] +
               static_cast<const unsigned char *>(tensor.data)[tensor.bytes - 1];
    }
    volatile unsigned sink = sum;
    (void)sink;
  } catch (const std::exception &) {
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string rest(reinterpret_cast<const char *>(data) + 1, size - 1);
  switch (data[0] % 6) {
  case 0:
    readNpyBytes(rest);
    break;
  case 1: {
    std::string error;
    tk::parseTuningEntry(rest, error);
    break;
  }
  case 3:
    try {
      tk::llm::LlamaConfig::parse(rest, "config.json");
    } catch (const std::exception &) {
    }
    break;
  case 4:
    openCheckpoint("model.safetensors", rest);
    break;
  case 5:
    openCheckpoint("model.safetensors.index.json", rest);
    break;
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
