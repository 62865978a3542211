// The swizzled arrangement of tensor-core operands in shared memory (no MLIR here: unit tests
// use it alone).
#ifndef TK_CODEGEN_SWIZZLE_H
#define TK_CODEGEN_SWIZZLE_H

#include <algorithm>
#include <cstdint>
#include <optional>

namespace tk::codegen {

/// The XOR swizzle of 16-byte chunks that tensor-core operands use in shared memory, the
/// layout Hopper's wgmma descriptors name (128-, 64- or 32-byte swizzle): a tile of `rows`
/// rows of `rowLength` elements is stored as column blocks of at most 128 bytes
/// (`blockLength` elements), block after block, each block `rows` rows of `blockLength`; in a
/// block, chunk c of row r is stored at chunk c ^ phase(r), so the 8 consecutive rows one
/// ldmatrix reads at one logical chunk land in 8 different 16-byte bank groups (a 128-byte
/// line holds `perPhase` rows).
struct SwizzleParams {
  int64_t rows, rowLength, chunk, blockLength, perPhase, maxPhase;
  /// `chunk` elements fill 16 bytes (8 for 2-byte elements, 4 for 4-byte ones).
  SwizzleParams(int64_t rows, int64_t rowLength, int64_t chunk = 8)
      : rows(rows), rowLength(rowLength), chunk(chunk), blockLength(std::min<int64_t>(rowLength, 8 * chunk)),
        perPhase(std::max<int64_t>(1, 8 * chunk / blockLength)),
        maxPhase(std::max<int64_t>(1, std::min<int64_t>(8, blockLength / chunk))) {}
  /// The layout of a stage (or a dot's staged operand) of `elementBytes`-byte elements: 16-byte
  /// chunks of 8 elements of 2 bytes, 16 of FP8's 1.
  static SwizzleParams ofElements(int64_t rows, int64_t rowLength, int64_t elementBytes) {
    return SwizzleParams(rows, rowLength, 16 / elementBytes);
  }
  /// Bytes of one column block (the swizzle mode's width: 128, 64 or 32).
  int64_t blockBytes() const { return blockLength * (16 / chunk); }
  int64_t phase(int64_t row) const { return (row / perPhase) % maxPhase; }
  /// Elements between consecutive column blocks.
  int64_t blockStride() const { return rows * blockLength; }
  /// Element index of (row, column) in the swizzled array.
  int64_t index(int64_t row, int64_t column) const {
    int64_t inBlock = column % blockLength;
    return column / blockLength * blockStride() + row * blockLength + (((inBlock / chunk) ^ phase(row)) * chunk) +
           inBlock % chunk;
  }

  /// index(row + rows, column + columns) = index(row, column + lowChunk * chunk) + offset for
  /// every (row, column), when `rows` is whole phase periods (the row's phase stays) and
  /// `columns` whole chunks: the chunks of `columns` above the phase bits are whole blocks
  /// (a block holds maxPhase chunks), which the XOR does not touch, so only its low chunk needs
  /// its own base.
  struct Fold {
    int64_t lowChunk, offset;
  };
  std::optional<Fold> fold(int64_t rows, int64_t columns) const {
    if (rows % (perPhase * maxPhase) || columns % chunk)
      return std::nullopt;
    int64_t chunks = columns / chunk, low = chunks % maxPhase;
    return Fold{low, rows * blockLength + (chunks - low) / maxPhase * blockStride()};
  }
};

} // namespace tk::codegen

#endif
