// numpy .npy files (format versions 1.0, 2.0 and 3.0; little-endian, C order). bf16 and f8
// have no numpy type: their buffers travel as raw bits (uint16, uint8).
#ifndef TK_RUNTIME_NPY_H
#define TK_RUNTIME_NPY_H

#include "tk/Runtime/Interpreter.h"

#include <string>

namespace tk {

/// The numpy dtype descriptor of a buffer of `elem` ("<f4", "|b1"; "<u2" for bf16).
std::string npyDescriptor(Scalar elem);
/// numpy's name of that dtype, for messages ("float32").
std::string npyTypeName(const std::string &descriptor);

/// Reads a .npy file into `buffer` (bytes, shape, and elem from the descriptor when it maps to
/// one type). Throws std::runtime_error with a message naming what is wrong.
struct NpyArray {
  std::string descriptor;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};
/// Only a regular file is read, and only when its size is exactly what its header describes.
NpyArray readNpy(const std::string &path);
constexpr uint64_t kMaxNpyHeaderBytes = 1u << 20;

/// The bytes of a .npy file holding `buffer`.
std::string npyBytes(const HostBuffer &buffer);
/// Writes through a temporary file and a rename. Throws std::runtime_error.
void writeNpy(const std::string &path, const HostBuffer &buffer);

} // namespace tk

#endif
