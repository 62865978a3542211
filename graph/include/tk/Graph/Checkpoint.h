// Hugging Face checkpoints for the graph layer: a LLaMA `config.json` and the weights of
// `model.safetensors` (or the shards `model.safetensors.index.json` names), memory-mapped and
// checked before anything reads them. Every defect of a file gives a tk::Error that names the
// file and, where there is one, the tensor.
#ifndef TK_GRAPH_CHECKPOINT_H
#define TK_GRAPH_CHECKPOINT_H

#include "tk/Runtime/Jit.h"

#include <memory>
#include <string>
#include <vector>

namespace tk::llm {

/// A `LlamaForCausalLM` config.json: the sizes the model is built from.
struct LlamaConfig {
  int64_t hiddenSize = 0, intermediateSize = 0, numHeads = 0, numKvHeads = 0, numLayers = 0, vocabSize = 0;
  int64_t maxPositions = 2048;
  double rmsNormEps = 1e-6, ropeTheta = 10000.0;
  bool tieWordEmbeddings = false;

  int64_t headDim() const { return hiddenSize / numHeads; }
  /// Parses and checks `text` (named `what` in errors): the sizes are positive and within
  /// limits, the heads divide the hidden size and the key/value heads divide the heads.
  /// `num_key_value_heads` defaults to `num_attention_heads`, as in transformers.
  static LlamaConfig parse(const std::string &text, const std::string &what);
  static LlamaConfig load(const std::string &path);
};

/// One tensor of a checkpoint, read in place from its file's mapping.
struct CheckpointTensor {
  std::string name, file;
  Scalar dtype = Scalar::BF16; // BF16, F16, F32, or F8E4M3 (an FP8 checkpoint's projections)
  std::vector<int64_t> shape;
  const void *data = nullptr;
  size_t bytes = 0;
};

/// The tensors of a folder's `model.safetensors`, or of the shards its
/// `model.safetensors.index.json` maps them to (file names within the folder only).
class Checkpoint {
public:
  static Checkpoint open(const std::string &folder);
  ~Checkpoint();
  Checkpoint(Checkpoint &&) noexcept;
  Checkpoint &operator=(Checkpoint &&) noexcept;

  /// The tensor, or a tk::Error naming the folder and the tensor.
  const CheckpointTensor &get(const std::string &name) const;
  /// The tensor, checked to have `shape` (the error names both shapes).
  const CheckpointTensor &get(const std::string &name, const std::vector<int64_t> &shape) const;
  bool has(const std::string &name) const;
  std::vector<std::string> names() const; // sorted

private:
  struct Impl;
  explicit Checkpoint(std::unique_ptr<Impl> impl);
  Impl &self() const; // throws tk::Error for a moved-from Checkpoint
  std::unique_ptr<Impl> impl_;
};

} // namespace tk::llm

#endif
