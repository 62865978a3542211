// Hugging Face checkpoints (Checkpoint.h). A safetensors file is an 8-byte little-endian
// header length N, N bytes of JSON ({"name": {"dtype", "shape", "data_offsets": [begin, end]},
// "__metadata__": {...}}), then the data, offsets relative to its start
// (https://huggingface.co/docs/safetensors). The file is mapped read-only and every entry is
// checked against it before a tensor is handed out: a header that does not fit, offsets past
// the data, a byte count that disagrees with dtype x shape, tensors that overlap.
#include "tk/Graph/Checkpoint.h"
#include "tk/Runtime/Error.h"
#include "tk/Support/JsonText.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <fcntl.h>
#include <map>
#include <set>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tk::llm {
namespace {

using json = nlohmann::json;

// Limits on what a file may ask for: safetensors' own header cap, and sizes no LLaMA reaches.
constexpr uint64_t kMaxHeaderBytes = 100u << 20;
constexpr size_t kMaxJsonFileBytes = 64u << 20; // config.json and the index: kilobytes in practice
constexpr int64_t kMaxDim = int64_t(1) << 40;
constexpr size_t kMaxRank = 8;
// Shards an index may name (LLaMA 3.1 405B has 191).
constexpr size_t kMaxShards = 4096;

[[noreturn]] void fail(const std::string &what, const std::string &message) { throw Error(what + ": " + message); }

/// A JSON value as a message shows it: scalars as written (strings cut at 64 characters), an
/// array by its first four elements (an array or object among them by kind only), an object by
/// kind. (nlohmann's dump() recurses: a value nested 200000 deep would overflow the stack while
/// the message is made.)
std::string shown(const json &v, bool inArray = false) {
  if (v.is_string()) {
    std::string text = v.get<std::string>();
    if (text.size() > 64) {
      size_t cut = 64; // (at a character's first byte: half a UTF-8 sequence made dump() throw)
      while (cut && (uint8_t(text[cut]) & 0xC0) == 0x80)
        --cut;
      text = text.substr(0, cut) + "...";
    }
    return json(text).dump();
  }
  if (v.is_array() && !inArray) {
    std::string out = "[";
    for (size_t i = 0; i < v.size() && i < 4; ++i)
      out += (i ? ", " : "") + shown(v[i], true);
    return out + (v.size() > 4 ? ", ...]" : "]");
  }
  if (v.is_array())
    return "an array";
  if (v.is_object())
    return "an object";
  return v.dump();
}

/// A regular file opened without blocking (a FIFO would wait for a writer), or an error.
int openRegular(const std::string &path, struct stat &st) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    fail(path, "cannot open it");
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(path, "not a regular file");
  }
  return fd;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

/// A read-only mapping of a whole file (none for an empty one), unmapped on destruction.
class MappedFile {
public:
  explicit MappedFile(const std::string &path) : path_(path) {
    struct stat st;
    int fd = openRegular(path, st);
    identity_ = {st.st_dev, st.st_ino};
    size_ = size_t(st.st_size);
    if (size_) {
      void *p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        ::close(fd);
        fail(path, "cannot map it");
      }
      data_ = static_cast<const uint8_t *>(p);
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_)
      munmap(const_cast<uint8_t *>(data_), size_);
  }
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;

  const uint8_t *data() const { return data_; }
  size_t size() const { return size_; }
  const std::string &path() const { return path_; }
  /// The file itself (device and inode), whatever name reached it.
  std::pair<dev_t, ino_t> identity() const { return identity_; }

private:
  std::string path_;
  std::pair<dev_t, ino_t> identity_{};
  const uint8_t *data_ = nullptr;
  size_t size_ = 0;
};

/// A JSON file's text: a regular file of at most kMaxJsonFileBytes.
std::string readText(const std::string &path) {
  struct stat st;
  int fd = openRegular(path, st);
  if (size_t(st.st_size) > kMaxJsonFileBytes) {
    ::close(fd);
    fail(path, std::to_string(st.st_size) + " bytes, more than the " + std::to_string(kMaxJsonFileBytes >> 20) +
                   " MiB a config or index file may have");
  }
  std::string text(size_t(st.st_size), '\0');
  size_t done = 0;
  while (done < text.size()) {
    ssize_t got = ::read(fd, text.data() + done, text.size() - done);
    if (got <= 0)
      break; // the file shrank: parse what was there
    done += size_t(got);
  }
  ::close(fd);
  text.resize(done);
  return text;
}

/// How deep a config, index or safetensors header may nest its objects and arrays (theirs nest
/// three or four levels): deeper is refused before the parser sees it, whose memory grew by
/// about 78 bytes a byte of '[' (7.9 GB for a 100 MiB header).
constexpr size_t kMaxJsonNesting = 64;

/// How many values (objects, arrays and the members and elements after a comma) a config,
/// index or header may hold: a header takes about ten a tensor, so 4 Mi is 400 000 tensors,
/// and the parsed document at most a few hundred MB.
constexpr size_t kMaxJsonValues = size_t(1) << 22;

json parseJson(const std::string &text, const std::string &what) {
  if (size_t at = jsonNestedTooDeep(text, kMaxJsonNesting); at != std::string::npos)
    fail(what, "not valid JSON: nested more than " + std::to_string(kMaxJsonNesting) + " levels deep at byte " +
                   std::to_string(at));
  if (size_t at = jsonValuesMoreThan(text, kMaxJsonValues); at != std::string::npos)
    fail(what, "more than " + std::to_string(kMaxJsonValues) + " JSON values (at byte " + std::to_string(at) +
                   "), more than a checkpoint's file holds");
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    fail(what, "not valid JSON");
  if (!doc.is_object())
    fail(what, "not a JSON object");
  return doc;
}

/// A non-negative integer of at most `limit`, or an error naming `what`.
int64_t count(const json &value, const std::string &what, int64_t limit) {
  if (!value.is_number_integer() || value.get<int64_t>() < 0 || value.get<int64_t>() > limit)
    throw Error(what + " must be an integer from 0 to " + std::to_string(limit));
  return value.get<int64_t>();
}

/// Reads and checks one safetensors file's header; the tensors point into `file`'s mapping.
std::vector<CheckpointTensor> readSafetensors(const MappedFile &file) {
  const std::string &path = file.path();
  if (file.size() < 8)
    fail(path, "truncated: " + std::to_string(file.size()) + " bytes, less than the 8 of a header length");
  uint64_t headerBytes = 0;
  for (int i = 7; i >= 0; --i)
    headerBytes = headerBytes << 8 | file.data()[i];
  if (headerBytes > kMaxHeaderBytes)
    fail(path, "a header of " + std::to_string(headerBytes) + " bytes, more than safetensors allows (100 MiB)");
  if (headerBytes > file.size() - 8)
    fail(path, "truncated: the header says " + std::to_string(headerBytes) + " bytes, the file has " +
                   std::to_string(file.size() - 8) + " after the length");
  json header = parseJson(std::string(reinterpret_cast<const char *>(file.data()) + 8, headerBytes), path + ": header");
  const uint8_t *dataStart = file.data() + 8 + headerBytes;
  uint64_t dataBytes = file.size() - 8 - headerBytes;

  std::vector<CheckpointTensor> tensors;
  for (auto &[name, entry] : header.items()) {
    if (name == "__metadata__")
      continue;
    std::string what = path + ": tensor '" + name + "'";
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets"))
      fail(what, "needs dtype, shape and data_offsets");
    CheckpointTensor t;
    t.name = name;
    t.file = path;
    const json &dtype = entry["dtype"];
    std::string dtypeName = dtype.is_string() ? dtype.get<std::string>() : shown(dtype);
    size_t elementBytes;
    if (dtypeName == "BF16")
      t.dtype = Scalar::BF16, elementBytes = 2;
    else if (dtypeName == "F16")
      t.dtype = Scalar::F16, elementBytes = 2;
    else if (dtypeName == "F32")
      t.dtype = Scalar::F32, elementBytes = 4;
    else if (dtypeName == "F8_E4M3")
      t.dtype = Scalar::F8E4M3, elementBytes = 1;
    else
      fail(what, "dtype " + (dtypeName.size() <= 64 ? dtypeName : shown(dtype)) +
                     " is not supported (BF16, F16, F32, F8_E4M3)");
    const json &shape = entry["shape"];
    if (!shape.is_array() || shape.size() > kMaxRank)
      fail(what, "shape must be a list of at most " + std::to_string(kMaxRank) + " sizes");
    // Elements, checked against overflow: every size is below 2^40 and the product is capped.
    unsigned __int128 bytes = elementBytes;
    for (const json &dim : shape) {
      t.shape.push_back(count(dim, what + ": each size", kMaxDim));
      bytes *= uint64_t(t.shape.back());
      if (bytes > dataBytes)
        bytes = dataBytes + 1; // more than the data holds: reported below
    }
    const json &offsets = entry["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2)
      fail(what, "data_offsets must be [begin, end]");
    int64_t begin = count(offsets[0], what + ": data_offsets", INT64_MAX), end = count(offsets[1], what + ": data_offsets", INT64_MAX);
    std::string range = "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "]";
    if (begin > end)
      fail(what, range + " end before they begin");
    if (uint64_t(end) > dataBytes)
      fail(what, range + " lie outside the " + std::to_string(dataBytes) + " bytes of data");
    if (bytes != static_cast<unsigned __int128>(end - begin))
      fail(what, dtypeName + shapeText(t.shape) + " does not take the " + std::to_string(end - begin) +
                     " bytes its data_offsets give");
    t.data = dataStart + begin;
    t.bytes = size_t(end - begin);
    tensors.push_back(std::move(t));
  }
  // A header that lies about where tensors lie: two of them sharing bytes (an empty tensor
  // has none to share, wherever its offsets point).
  std::vector<const CheckpointTensor *> order;
  for (const CheckpointTensor &t : tensors)
    if (t.bytes)
      order.push_back(&t);
  std::sort(order.begin(), order.end(), [](auto *a, auto *b) { return a->data < b->data; });
  for (size_t i = 1; i < order.size(); ++i)
    if (static_cast<const uint8_t *>(order[i - 1]->data) + order[i - 1]->bytes > order[i]->data)
      fail(path, "tensors '" + order[i - 1]->name + "' and '" + order[i]->name + "' overlap");
  return tensors;
}

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

} // namespace

//===----------------------------------------------------------------------===//
// config.json
//===----------------------------------------------------------------------===//

LlamaConfig LlamaConfig::parse(const std::string &text, const std::string &what) {
  json doc = parseJson(text, what);
  // (transformers writes a list, or null; a name alone was taken for a LLaMA whatever it said)
  if (doc.contains("architectures") && !doc["architectures"].is_array() && !doc["architectures"].is_null())
    fail(what, "architectures " + shown(doc["architectures"]) + " must be a list of model names");
  if (doc.contains("architectures") && doc["architectures"].is_array()) {
    bool llama = false;
    for (const json &a : doc["architectures"])
      llama |= a.is_string() && a.get<std::string>() == "LlamaForCausalLM";
    if (!llama)
      fail(what, "architectures " + shown(doc["architectures"]) + " does not name LlamaForCausalLM");
  }
  auto size = [&](const char *key, int64_t limit, std::optional<int64_t> fallback = std::nullopt) {
    if (!doc.contains(key)) {
      if (fallback)
        return *fallback;
      fail(what, std::string("has no ") + key);
    }
    int64_t v = count(doc[key], what + ": " + key, limit);
    if (v == 0)
      fail(what, std::string(key) + " must be positive");
    return v;
  };
  auto real = [&](const char *key, double fallback) {
    if (!doc.contains(key))
      return fallback;
    if (!doc[key].is_number() || !(doc[key].get<double>() > 0) || !std::isfinite(doc[key].get<double>()))
      fail(what, std::string(key) + " must be a positive number");
    return doc[key].get<double>();
  };
  LlamaConfig c;
  c.hiddenSize = size("hidden_size", 1 << 16);
  c.intermediateSize = size("intermediate_size", 1 << 18);
  c.numHeads = size("num_attention_heads", 1 << 10);
  c.numKvHeads = size("num_key_value_heads", 1 << 10, c.numHeads);
  c.numLayers = size("num_hidden_layers", 1 << 10);
  c.vocabSize = size("vocab_size", 1 << 22);
  c.maxPositions = size("max_position_embeddings", 1 << 24, c.maxPositions);
  c.rmsNormEps = real("rms_norm_eps", c.rmsNormEps);
  c.ropeTheta = real("rope_theta", c.ropeTheta);
  // What tk's LLaMA does not implement is an error, never a silently different model: RoPE
  // scaling (LLaMA-3.1's "llama3", "linear", "dynamic", "yarn"...), biases, another activation
  // or head size. transformers 5 writes RoPE's settings as rope_parameters, 4 as rope_scaling.
  for (const char *key : {"rope_parameters", "rope_scaling"}) {
    if (!doc.contains(key) || doc[key].is_null())
      continue;
    const json &rope = doc[key];
    if (!rope.is_object())
      fail(what, std::string(key) + " must be an object or null");
    bool typed = false;
    for (const char *typeKey : {"rope_type", "type"})
      if (rope.contains(typeKey)) {
        typed = true;
        if (!(rope[typeKey].is_string() && rope[typeKey].get<std::string>() == "default"))
          fail(what, std::string(key) + "." + typeKey + " " + shown(rope[typeKey]) +
                         " is not supported (tk's LLaMA implements the default RoPE only)");
      }
    if (!typed && rope.size() > (rope.contains("rope_theta") ? 1u : 0u))
      fail(what, std::string(key) + " names no rope_type (tk's LLaMA implements the default RoPE only)");
    if (rope.contains("rope_theta") && !doc.contains("rope_theta")) {
      const json &theta = rope["rope_theta"];
      if (!theta.is_number() || !(theta.get<double>() > 0) || !std::isfinite(theta.get<double>()))
        fail(what, std::string(key) + ".rope_theta must be a positive number");
      c.ropeTheta = theta.get<double>();
    }
  }
  for (const char *key : {"attention_bias", "mlp_bias"})
    if (doc.contains(key) && !(doc[key].is_boolean() && !doc[key].get<bool>()))
      fail(what, std::string(key) + " " + shown(doc[key]) + " is not supported (tk's LLaMA has no biases)");
  if (doc.contains("hidden_act") && !(doc["hidden_act"].is_string() && doc["hidden_act"].get<std::string>() == "silu"))
    fail(what, "hidden_act " + shown(doc["hidden_act"]) + " is not supported (tk's LLaMA uses silu)");
  if (doc.contains("tie_word_embeddings")) {
    if (!doc["tie_word_embeddings"].is_boolean())
      fail(what, "tie_word_embeddings must be true or false");
    c.tieWordEmbeddings = doc["tie_word_embeddings"].get<bool>();
  }
  if (c.hiddenSize % c.numHeads)
    fail(what, "num_attention_heads (" + std::to_string(c.numHeads) + ") does not divide hidden_size (" +
                   std::to_string(c.hiddenSize) + ")");
  if (doc.contains("head_dim") && !doc["head_dim"].is_null() &&
      !(doc["head_dim"].is_number() && doc["head_dim"].get<double>() == double(c.hiddenSize / c.numHeads)))
    fail(what, "head_dim " + shown(doc["head_dim"]) + " is not hidden_size / num_attention_heads (" +
                   std::to_string(c.hiddenSize / c.numHeads) + "), which tk's LLaMA requires");
  if (c.numHeads % c.numKvHeads)
    fail(what, "num_key_value_heads (" + std::to_string(c.numKvHeads) + ") does not divide num_attention_heads (" +
                   std::to_string(c.numHeads) + ")");
  return c;
}

LlamaConfig LlamaConfig::load(const std::string &path) { return parse(readText(path), path); }

//===----------------------------------------------------------------------===//
// Checkpoint
//===----------------------------------------------------------------------===//

struct Checkpoint::Impl {
  std::string folder;
  std::vector<std::unique_ptr<MappedFile>> files;
  std::map<std::string, CheckpointTensor> tensors;
  // Each file's tensors, read once however many names (links, or an index's spellings of one
  // name) reach it: an index of a million names for one shard read its header a million times.
  std::map<std::pair<dev_t, ino_t>, std::vector<CheckpointTensor>> readByIdentity;

  void addFile(const std::string &name, const std::vector<std::string> *only) {
    auto file = std::make_unique<MappedFile>(folder + "/" + name);
    auto [at, fresh] = readByIdentity.try_emplace(file->identity());
    if (fresh) {
      at->second = readSafetensors(*file);
      files.push_back(std::move(file));
    }
    const std::vector<CheckpointTensor> &read = at->second;
    std::set<std::string> mapped;
    if (only)
      mapped.insert(only->begin(), only->end());
    for (const CheckpointTensor &t : read) {
      if (only && !mapped.count(t.name))
        continue; // the index maps it elsewhere
      auto [it, inserted] = tensors.emplace(t.name, t);
      if (!inserted)
        fail(t.file, "tensor '" + t.name + "' is also in " + it->second.file);
    }
    if (only)
      for (const std::string &wanted : *only)
        if (!tensors.count(wanted))
          fail(folder + "/model.safetensors.index.json", "tensor '" + wanted + "' is mapped to " + name +
                                                             ", which does not hold it");
  }
};

Checkpoint::Checkpoint(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Checkpoint::Impl &Checkpoint::self() const {
  if (!impl_)
    throw Error("checkpoint: an empty Checkpoint (moved from)");
  return *impl_;
}
Checkpoint::~Checkpoint() = default;
Checkpoint::Checkpoint(Checkpoint &&) noexcept = default;
Checkpoint &Checkpoint::operator=(Checkpoint &&) noexcept = default;

Checkpoint Checkpoint::open(const std::string &folder) {
  auto impl = std::make_unique<Impl>();
  impl->folder = folder;
  if (exists(folder + "/model.safetensors")) {
    impl->addFile("model.safetensors", nullptr);
    return Checkpoint(std::move(impl));
  }
  std::string indexPath = folder + "/model.safetensors.index.json";
  if (!exists(indexPath))
    fail(folder, "has neither model.safetensors nor model.safetensors.index.json");
  json index = parseJson(readText(indexPath), indexPath);
  if (!index.contains("weight_map") || !index["weight_map"].is_object())
    fail(indexPath, "has no weight_map object");
  std::map<std::string, std::vector<std::string>> byFile;
  for (auto &[name, file] : index["weight_map"].items()) {
    // Shards are files of the folder: no directories, no way out of it, no control characters
    // (a NUL ended the name the system opened, and each spelling after it opened it again).
    std::string text = file.is_string() ? file.get<std::string>() : "";
    if (text.empty() || text.find('/') != std::string::npos || text == "." || text == ".." ||
        std::any_of(text.begin(), text.end(), [](char c) { return (unsigned char)c < 0x20 || c == 0x7f; }))
      fail(indexPath, "tensor '" + name + "' maps to " + shown(file) + ", not a file name in the folder");
    byFile[text].push_back(name);
  }
  if (byFile.size() > kMaxShards)
    fail(indexPath, "maps its tensors to " + std::to_string(byFile.size()) + " files, more than " +
                        std::to_string(kMaxShards));
  for (auto &[file, names] : byFile)
    impl->addFile(file, &names);
  return Checkpoint(std::move(impl));
}

const CheckpointTensor &Checkpoint::get(const std::string &name) const {
  auto it = self().tensors.find(name);
  if (it == self().tensors.end())
    fail(self().folder, "the checkpoint has no tensor '" + name + "'");
  return it->second;
}

const CheckpointTensor &Checkpoint::get(const std::string &name, const std::vector<int64_t> &shape) const {
  const CheckpointTensor &t = get(name);
  if (t.shape != shape)
    fail(t.file, "tensor '" + name + "' is " + shapeText(t.shape) + ", the config needs " + shapeText(shape));
  return t;
}

bool Checkpoint::has(const std::string &name) const { return self().tensors.count(name) != 0; }

std::vector<std::string> Checkpoint::names() const {
  std::vector<std::string> names;
  for (auto &[name, t] : self().tensors)
    names.push_back(name);
  return names;
}

} // namespace tk::llm
