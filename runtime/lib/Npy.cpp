#include "tk/Runtime/Npy.h"

#include "tk/Frontend/FileIO.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

namespace tk {

std::string npyDescriptor(Scalar elem) {
  switch (elem) {
  case Scalar::I1: return "|b1";
  case Scalar::I8: return "|i1";
  case Scalar::U8: case Scalar::F8E4M3: case Scalar::F8E5M2: return "|u1";
  case Scalar::I16: return "<i2";
  case Scalar::U16: case Scalar::BF16: return "<u2";
  case Scalar::I32: return "<i4";
  case Scalar::U32: return "<u4";
  case Scalar::I64: return "<i8";
  case Scalar::U64: return "<u8";
  case Scalar::F16: return "<f2";
  case Scalar::F32: return "<f4";
  case Scalar::F64: return "<f8";
  }
  return "<f4";
}

std::string npyTypeName(const std::string &d) {
  static const std::pair<const char *, const char *> names[] = {
      {"|b1", "bool"}, {"|i1", "int8"}, {"|u1", "uint8"}, {"<i2", "int16"}, {"<u2", "uint16"},
      {"<i4", "int32"}, {"<u4", "uint32"}, {"<i8", "int64"}, {"<u8", "uint64"}, {"<f2", "float16"},
      {"<f4", "float32"}, {"<f8", "float64"}};
  for (auto &[descr, name] : names)
    if (d == descr)
      return name;
  return "dtype '" + d + "'";
}

namespace {
[[noreturn]] void fail(const std::string &path, const std::string &what) {
  throw std::runtime_error(path + ": " + what);
}

/// The value of `'key': ...` in the header dict, up to the next top-level comma or brace.
std::string headerField(const std::string &header, const std::string &key, const std::string &path) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    fail(path, "the .npy header has no '" + key + "'");
  size_t colon = header.find(':', at);
  size_t begin = colon + 1, depth = 0, end = begin;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}'))
      break;
  }
  std::string value = header.substr(begin, end - begin);
  size_t first = value.find_first_not_of(" "), last = value.find_last_not_of(" ");
  return first == std::string::npos ? "" : value.substr(first, last - first + 1);
}
} // namespace

NpyArray readNpy(const std::string &path) {
  std::string error, data;
  std::unique_ptr<RegularFile> file = RegularFile::open(path, error);
  if (!file)
    throw std::runtime_error(error);
  // The header first (at most 10 + 4 GiB by the format; refused past kMaxNpyHeaderBytes), then
  // exactly the data it describes: the file must hold that and nothing more.
  if (!file->read(0, std::min<uint64_t>(file->size(), 12), data, error) || data.size() < 10 ||
      data.compare(0, 6, "\x93NUMPY") != 0)
    fail(path, "not a .npy file (bad magic)");
  int major = (unsigned char)data[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = (unsigned char)data[8] | ((unsigned char)data[9] << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12)
      fail(path, "truncated .npy header");
    headerLength = 0;
    for (int k = 0; k < 4; ++k)
      headerLength |= size_t((unsigned char)data[8 + k]) << (8 * k);
    headerStart = 12;
  } else {
    fail(path, ".npy format version " + std::to_string(major) + " is not supported (1.0, 2.0, 3.0)");
  }
  if (headerLength > kMaxNpyHeaderBytes)
    fail(path, "the .npy header is " + std::to_string(headerLength) + " bytes long; at most " +
                   std::to_string(kMaxNpyHeaderBytes) + " are read");
  if (headerStart + headerLength > file->size())
    fail(path, "truncated .npy header");
  if (!file->read(0, headerStart + headerLength, data, error))
    throw std::runtime_error(error);
  std::string header = data.substr(headerStart, headerLength);
  NpyArray array;
  std::string descr = headerField(header, "descr", path);
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"'))
    fail(path, "unsupported dtype " + descr + " (structured arrays are not supported)");
  descr = descr.substr(1, descr.size() - 2);
  if (!descr.empty() && descr[0] == '>' && descr.substr(1) != "i1" && descr.substr(1) != "u1" && descr.substr(1) != "b1")
    fail(path, "big-endian data (dtype '" + descr + "') is not supported; save it little-endian");
  if (!descr.empty() && (descr[0] == '=' || descr[0] == '>' || descr[0] == '|'))
    descr[0] = descr.size() == 3 && descr[2] == '1' ? '|' : '<';
  if (descr.size() == 3 && descr[2] == '1')
    descr[0] = '|';
  array.descriptor = descr;
  std::string fortran = headerField(header, "fortran_order", path);
  if (fortran != "False") {
    if (fortran == "True")
      fail(path, "Fortran-order arrays are not supported; save a C-order (row-major) array");
    fail(path, "bad fortran_order value '" + fortran + "'");
  }
  std::string shape = headerField(header, "shape", path);
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
    fail(path, "bad shape " + shape);
  // Sizes between commas, none left out but after the last comma of numpy's "(8,)"; "()" is
  // one element.
  llvm::SmallVector<llvm::StringRef> dims;
  llvm::StringRef inner = llvm::StringRef(shape).drop_front().drop_back();
  if (!inner.trim().empty())
    inner.split(dims, ',', -1, /*KeepEmpty=*/true);
  if (dims.size() > 1 && dims.back().trim().empty())
    dims.pop_back();
  uint64_t count = 1;
  for (llvm::StringRef part : dims) {
    uint64_t size;
    if (part.trim(' ').getAsInteger(10, size)) // (decimal digits only, in range)
      fail(path, "bad shape " + shape);
    std::optional<uint64_t> product = llvm::checkedMulUnsigned<uint64_t>(count, size);
    if (!product || *product > kMaxBufferElements)
      fail(path, "the shape " + shape + " has more than " + std::to_string(kMaxBufferElements) +
                     " elements, the limit of a buffer");
    // (Each size on its own too: beside a 0, a size past 2^63 was kept as a negative one, and
    // --save wrote a shape that no reader takes.)
    if (size > kMaxBufferElements)
      fail(path, "the shape " + shape + " has a size past " + std::to_string(kMaxBufferElements) +
                     ", the limit of a buffer");
    array.shape.push_back(int64_t(size));
    count = *product;
  }
  int itemSize = descr.size() >= 3 ? std::atoi(descr.c_str() + 2) : 0;
  if (npyTypeName(descr).rfind("dtype", 0) == 0)
    fail(path, "unsupported dtype '" + descr + "'");
  uint64_t expected = count * uint64_t(itemSize), dataStart = headerStart + headerLength;
  if (file->size() - dataStart != expected)
    fail(path, std::string(file->size() - dataStart < expected ? "the file is truncated" : "the file is too long") +
                   ": " + std::to_string(expected) + " bytes of data expected, " +
                   std::to_string(file->size() - dataStart) + " found");
  std::string bytes;
  if (!file->read(dataStart, expected, bytes, error))
    throw std::runtime_error(error);
  array.bytes.assign(bytes.begin(), bytes.end());
  return array;
}
std::string npyBytes(const HostBuffer &buffer) {
  std::string shape = "(";
  for (size_t k = 0; k < buffer.shape.size(); ++k)
    shape += std::to_string(buffer.shape[k]) + (buffer.shape.size() == 1 || k + 1 < buffer.shape.size() ? ", " : "");
  shape += ")";
  std::string header = "{'descr': '" + npyDescriptor(buffer.elem) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  bool large = header.size() + 11 > 65535;
  size_t prefix = large ? 12 : 10;
  size_t total = prefix + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string out = std::string("\x93NUMPY") + char(large ? 2 : 1) + char(0);
  size_t length = header.size();
  for (size_t k = 0; k < (large ? 4u : 2u); ++k)
    out += char((length >> (8 * k)) & 0xFF);
  out += header;
  out.append(reinterpret_cast<const char *>(buffer.bytes.data()), buffer.bytes.size());
  return out;
}

void writeNpy(const std::string &path, const HostBuffer &buffer) {
  std::string error;
  if (!writeAtomically(path, npyBytes(buffer), error))
    throw std::runtime_error(error);
}

} // namespace tk
