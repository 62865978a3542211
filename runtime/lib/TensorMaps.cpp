#include "TensorMaps.h"

#include "ModuleGlobals.h"

#include "tk/Runtime/Error.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>

namespace tk::tensormaps {

namespace {

constexpr int kMaxRecipeBytes = 1 << 16, kMaxCachedMaps = 4096;
constexpr int kDataTypeU8 = 0, kDataTypeU16 = 1, kDataTypeU32 = 2, kL2Promotion256B = 3;

std::mutex registryMutex;
std::unordered_map<cuda::CUfunction, std::vector<Recipe>> registry;

/// Encoded maps by everything that determines them.
using Key = std::array<unsigned long long, 20>;
std::mutex cacheMutex;
std::map<Key, std::array<unsigned char, 128>> cache;

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);)
    parts.push_back(part);
  return parts;
}

long long number(const std::string &text, const std::string &what) {
  char *end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end)
    throw Error(what);
  return value;
}

/// 64 KiB of zeroed device memory, more than a box holds (256 rows of at most 128 bytes), for
/// the maps of empty tensors: one buffer per CUDA context, since a map must point into its own
/// GPU's memory (threads driving several GPUs, as tensor parallelism's ranks do).
unsigned long long zeros() {
  static std::mutex mutex;
  static std::map<cuda::CUcontext, cuda::CUdeviceptr> buffers;
  cuda::Driver &d = cuda::Driver::get();
  cuda::CUcontext current = nullptr;
  d.check(d.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  std::lock_guard<std::mutex> lock(mutex);
  cuda::CUdeviceptr &buffer = buffers[current];
  if (!buffer) {
    cuda::CUdeviceptr fresh = 0;
    d.check(d.cuMemAlloc(&fresh, 1 << 16), "allocating the zeros that empty TMA tensors read");
    if (cuda::CUresult failed = d.cuMemsetD8(fresh, 0, 1 << 16)) {
      d.cuMemFree(fresh); // (not kept half-made: the next launch tries again)
      d.check(failed, "zeroing the memory that empty TMA tensors read");
    }
    buffer = fresh;
  }
  return buffer;
}

} // namespace

std::vector<Recipe> parse(const std::string &text, const std::string &kernel) {
  std::string bad = "kernel '" + kernel + "': malformed tensor-map recipe in its module";
  std::vector<Recipe> recipes;
  for (const std::string &line : split(text, '\n')) {
    if (line.empty() || line[0] == '\0')
      continue;
    Recipe recipe;
    bool hasParam = false;
    for (const std::string &field : split(line, ' ')) {
      size_t eq = field.find('=');
      if (eq == std::string::npos)
        throw Error(bad);
      std::string key = field.substr(0, eq), value = field.substr(eq + 1);
      auto values = [&] {
        std::vector<LaunchValue> list;
        for (const std::string &item : split(value, ',')) {
          bool argument = !item.empty() && item[0] == 'a';
          size_t times = item.find('*');
          bool hasFactor = times != std::string::npos;
          std::string factor = hasFactor ? item.substr(times + 1) : "";
          bool factorArgument = !factor.empty() && factor[0] == 'a';
          // Argument indices are checked before they narrow to int (a4294967302 is no a6).
          auto index = [&](const std::string &text) {
            long long n = number(text, bad);
            if (n < 0 || n > 4096)
              throw Error(bad);
            return int(n);
          };
          LaunchValue v = argument ? LaunchValue{index(item.substr(1, hasFactor ? times - 1 : std::string::npos)),
                                                 hasFactor && !factorArgument ? number(factor, bad) : 0,
                                                 factorArgument ? index(factor.substr(1)) : -1}
                                   : LaunchValue{-1, number(item, bad)};
          // An argument's index (with a positive factor of at most 2^32, or another argument),
          // or a positive constant.
          bool badFactor = hasFactor && (factorArgument ? v.factorArg < 0 : v.value < 1 || v.value > (1ll << 32));
          if (argument ? v.arg < 0 || badFactor : v.value < 1 || hasFactor)
            throw Error(bad);
          list.push_back(v);
        }
        return list;
      };
      if (key == "param") {
        long long param = number(value, bad);
        if (param < 0 || param > 4096)
          throw Error(bad);
        recipe.param = unsigned(param);
        hasParam = true;
      }
      else if (key == "base") {
        long long base = number(value, bad);
        if (base < 0)
          throw Error(bad);
        recipe.base = unsigned(base);
      }
      else if (key == "shape")
        recipe.shape = values();
      else if (key == "strides")
        recipe.strides = values();
      else if (key == "box")
        for (const LaunchValue &b : values()) {
          if (b.arg >= 0 || b.value > 256)
            throw Error(bad);
          recipe.box.push_back(unsigned(b.value));
        }
      else if (key == "swizzle") {
        recipe.swizzle = int(number(value, bad));
        if (recipe.swizzle != 0 && recipe.swizzle != 32 && recipe.swizzle != 64 && recipe.swizzle != 128)
          throw Error(bad);
      }
      else if (key == "bytes")
        recipe.elementBytes = int(number(value, bad));
      else
        throw Error(bad);
    }
    size_t rank = recipe.shape.size();
    if (!hasParam || rank < 1 || rank > 5 || recipe.box.size() != rank || recipe.strides.size() + 1 != rank ||
        recipe.param <= recipe.base || (recipe.elementBytes != 1 && recipe.elementBytes != 2 && recipe.elementBytes != 4))
      throw Error(bad);
    for (const LaunchValue &v : recipe.shape)
      if (v.arg >= int(recipe.param) || v.factorArg >= int(recipe.param))
        throw Error(bad);
    for (const LaunchValue &v : recipe.strides)
      if (v.arg >= int(recipe.param) || v.factorArg >= int(recipe.param))
        throw Error(bad);
    recipes.push_back(std::move(recipe));
  }
  for (size_t i = 0; i < recipes.size(); ++i)
    if (recipes[i].param != recipes[0].param + i)
      throw Error(bad);
  return recipes;
}

void load(const void *image, cuda::CUmodule module, cuda::CUfunction function, const std::string &kernel) {
  cuda::Driver &d = cuda::Driver::get();
  cuda::CUdeviceptr address = 0;
  size_t bytes = 0;
  if (!findModuleGlobal(image, module, "tk_tensor_maps_" + kernel, &address, &bytes,
                        "reading the tensor-map recipes of kernel '" + kernel + "'"))
    return;
  if (bytes == 0 || bytes > size_t(kMaxRecipeBytes))
    throw Error("kernel '" + kernel + "': tensor-map recipes of " + std::to_string(bytes) + " bytes");
  std::string text(bytes, '\0');
  d.check(d.cuMemcpyDtoH(text.data(), address, bytes), "reading the tensor-map recipes of kernel '" + kernel + "'");
  std::vector<Recipe> recipes = parse(text, kernel);
  if (!recipes.empty() && !d.cuTensorMapEncodeTiled)
    throw Error("kernel '" + kernel + "' copies by TMA, which needs a CUDA 12 driver (no cuTensorMapEncodeTiled)");
  std::lock_guard<std::mutex> lock(registryMutex);
  registry[function] = std::move(recipes);
}

LaunchParams::LaunchParams(cuda::CUfunction function, const std::string &kernel, void **params) : params_(params) {
  const std::vector<Recipe> *recipes = nullptr;
  {
    std::lock_guard<std::mutex> lock(registryMutex);
    if (registry.empty())
      return;
    auto it = registry.find(function);
    if (it == registry.end() || it->second.empty())
      return;
    recipes = &it->second; // entries are never erased
  }
  maps_.resize(recipes->size());
  all_.assign(params, params + recipes->front().param);
  for (size_t m = 0; m < recipes->size(); ++m) {
    const Recipe &r = (*recipes)[m];
    auto read = [&](const LaunchValue &v) -> long long {
      if (v.arg < 0)
        return v.value;
      long long factor = v.factorArg >= 0 ? *static_cast<const int *>(params[v.factorArg]) : std::max(v.value, 1ll);
      return *static_cast<const int *>(params[v.arg]) * factor;
    };
    size_t rank = r.shape.size();
    unsigned long long base = *static_cast<const cuda::CUdeviceptr *>(params[r.base]);
    // An empty tensor reads as zeros everywhere: a map over zeroed memory as large as the box.
    bool empty = std::any_of(r.shape.begin(), r.shape.end(), [&](const LaunchValue &v) { return read(v) <= 0; });
    if (empty)
      base = zeros();
    unsigned long long dims[5], strides[4];
    unsigned box[5], elementStrides[5] = {1, 1, 1, 1, 1};
    Key key{};
    key[0] = base;
    key[1] = (unsigned long long)(r.swizzle) << 32 | unsigned(r.elementBytes) << 8 | rank;
    // The driver's order is innermost first; an empty dimension (nothing is read) is one element.
    for (size_t i = 0; i < rank; ++i) {
      box[i] = r.box[rank - 1 - i];
      dims[i] = empty ? box[i] : (unsigned long long)read(r.shape[rank - 1 - i]);
      key[2 + i] = dims[i];
      key[7 + i] = box[i];
    }
    for (size_t i = 0; i + 1 < rank; ++i) {
      long long stride = 0;
      bool overflow = empty ? false : __builtin_mul_overflow(read(r.strides[rank - 2 - i]), (long long)r.elementBytes, &stride);
      if (empty)
        stride = (long long)(dims[i] * (i ? strides[i - 1] : r.elementBytes));
      if (overflow)
        throw Error("kernel '" + kernel + "': a row stride past 2^63 bytes for a TMA copy");
      if (stride <= 0 || stride % 16)
        throw Error("kernel '" + kernel + "': a row stride of " + std::to_string(stride) +
                    " bytes, but its TMA copies need a positive multiple of 16");
      strides[i] = (unsigned long long)stride;
      key[12 + i] = strides[i];
    }
    if (base % 16)
      throw Error("kernel '" + kernel + "': argument " + std::to_string(r.base) +
                  " must be 16-byte aligned for its TMA copies");
    {
      std::lock_guard<std::mutex> lock(cacheMutex);
      auto it = cache.find(key);
      if (it != cache.end()) {
        std::memcpy(maps_[m].bytes, it->second.data(), 128);
        all_.push_back(maps_[m].bytes);
        continue;
      }
    }
    int type = r.elementBytes == 1 ? kDataTypeU8 : r.elementBytes == 2 ? kDataTypeU16 : kDataTypeU32;
    int swizzle = r.swizzle == 128 ? 3 : r.swizzle == 64 ? 2 : r.swizzle == 32 ? 1 : 0;
    cuda::Driver &d = cuda::Driver::get();
    d.check(d.cuTensorMapEncodeTiled(maps_[m].bytes, type, unsigned(rank), reinterpret_cast<void *>(base), dims, strides,
                                     box, elementStrides, /*interleave=*/0, swizzle, kL2Promotion256B, /*oobFill=*/0),
            "encoding a TMA tensor map for kernel '" + kernel + "'");
    {
      std::lock_guard<std::mutex> lock(cacheMutex);
      if (cache.size() >= size_t(kMaxCachedMaps))
        cache.clear();
      std::memcpy(cache[key].data(), maps_[m].bytes, 128);
    }
    all_.push_back(maps_[m].bytes);
  }
}

} // namespace tk::tensormaps
