// TMA tensor maps: the recipes the compiler leaves in `tk_tensor_maps_<kernel>` and the runtime
// parses (runtime/lib/TensorMaps.h), and the boxes they name against the swizzled stage layout
// the tensor cores read (codegen/lib/Swizzle.h): a box of column block b, copied with the
// recipe's swizzle to byte b * blockStride() * 2 of its stage, puts every element where
// SwizzleParams::index says it is.
#include "Swizzle.h"
#include "TensorMaps.h"

#include "ModuleGlobals.h"
#include "TestUtil.h"
#include "tk/Runtime/Error.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>

namespace tk {
namespace {

using tensormaps::LaunchValue;
using tensormaps::Recipe;

std::string parseError(const std::string &text, const std::string &kernel = "matmul") {
  return test::messageOf<Error>([&] { tensormaps::parse(text, kernel); });
}

void expectValue(const LaunchValue &v, int arg, long long value) {
  EXPECT_EQ(v.arg, arg);
  if (arg < 0)
    EXPECT_EQ(v.value, value);
}

TEST(TensorMapRecipe, TwoLinesParseToTheirFields) {
  // What tk-threads-to-llvm writes for examples/matmul.tk (A: M x K, B: K x N), then a zero
  // byte as a C string would end (the runtime reads the global's every byte).
  std::string text = "param=9 base=0 shape=a3,a5 strides=a6 box=128,64 swizzle=128 bytes=2\n"
                     "param=10 base=1 shape=a5,a4 strides=a7 box=64,64 swizzle=128 bytes=2\n";
  text.push_back('\0');
  std::vector<Recipe> recipes = tensormaps::parse(text, "matmul");
  ASSERT_EQ(recipes.size(), 2u);
  // Every field of a 2-D recipe whose shape and row stride are kernel arguments.
  auto expectMatrix = [](const Recipe &r, unsigned param, unsigned base, int rows, int cols, int stride,
                         std::vector<unsigned> box) {
    EXPECT_EQ(r.param, param);
    EXPECT_EQ(r.base, base);
    ASSERT_EQ(r.shape.size(), 2u);
    expectValue(r.shape[0], rows, 0);
    expectValue(r.shape[1], cols, 0);
    ASSERT_EQ(r.strides.size(), 1u);
    expectValue(r.strides[0], stride, 0);
    EXPECT_EQ(r.box, box);
    EXPECT_EQ(r.swizzle, 128);
    EXPECT_EQ(r.elementBytes, 2);
  };
  expectMatrix(recipes[0], 9, 0, 3, 5, 6, {128, 64});
  expectMatrix(recipes[1], 10, 1, 5, 4, 7, {64, 64});
}

TEST(TensorMapRecipe, ConstantsAndOtherRanks) {
  // Numbers are values (arg -1), `aN` arguments; 1 to 5 dimensions; no recipes at all is fine.
  std::vector<Recipe> recipes =
      tensormaps::parse("param=3 base=0 shape=64,a2 strides=4096 box=64,32 swizzle=64 bytes=2\n"
                        "param=4 base=1 shape=a2 strides= box=256 swizzle=0 bytes=4\n"
                        "param=5 base=0 shape=2,3,4,5,a2 strides=a1,8,16,32 box=1,1,1,1,8 swizzle=32 bytes=1\n",
                        "k");
  ASSERT_EQ(recipes.size(), 3u);
  expectValue(recipes[0].shape[0], -1, 64);
  expectValue(recipes[0].shape[1], 2, 0);
  expectValue(recipes[0].strides[0], -1, 4096);
  EXPECT_EQ(recipes[0].swizzle, 64);
  EXPECT_EQ(recipes[1].shape.size(), 1u);
  EXPECT_TRUE(recipes[1].strides.empty());
  EXPECT_EQ(recipes[1].box, (std::vector<unsigned>{256}));
  EXPECT_EQ(recipes[1].elementBytes, 4);
  EXPECT_EQ(recipes[2].shape.size(), 5u);
  EXPECT_EQ(recipes[2].strides.size(), 4u);
  expectValue(recipes[2].strides[0], 1, 0);
  expectValue(recipes[2].strides[3], -1, 32);
  EXPECT_EQ(recipes[2].elementBytes, 1);
  // A stack of matrices (attention's heads): its stride an argument times a factor.
  std::vector<Recipe> stack = tensormaps::parse(
      "param=6 base=1 shape=2147483648,a4,128 strides=a4*128,128 box=1,128,64 swizzle=128 bytes=2\n", "k");
  ASSERT_EQ(stack.size(), 1u);
  expectValue(stack[0].shape[0], -1, 2147483648ll);
  expectValue(stack[0].strides[0], 4, 0);
  EXPECT_EQ(stack[0].strides[0].value, 128); // the factor
  // The graph's strided heads: rows times a row stride that is an argument too.
  std::vector<Recipe> strided = tensormaps::parse(
      "param=16 base=1 shape=2147483648,a4,a8 strides=a4*a8,a8 box=1,64,64 swizzle=128 bytes=2\n", "k");
  ASSERT_EQ(strided.size(), 1u);
  expectValue(strided[0].strides[0], 4, 0);
  EXPECT_EQ(strided[0].strides[0].factorArg, 8);
  EXPECT_EQ(strided[0].strides[1].factorArg, -1);
  expectValue(stack[0].strides[1], -1, 128);
  EXPECT_TRUE(tensormaps::parse("", "k").empty());
  EXPECT_TRUE(tensormaps::parse(std::string(1, '\0'), "k").empty());
}

TEST(TensorMapRecipe, MalformedRecipesThrowNamingTheKernel) {
  const std::string good = "param=9 base=0 shape=a3,a5 strides=a6 box=128,64 swizzle=128 bytes=2";
  ASSERT_EQ(parseError(good), "");
  struct Case {
    const char *what, *text;
  } cases[] = {
      {"an unknown key", "param=9 base=0 shape=a3,a5 strides=a6 box=128,64 swizzle=128 bytes=2 oob=0"},
      {"a field without '='", "param=9 base=0 shape=a3,a5 strides=a6 box=128,64 swizzle 128 bytes=2"},
      {"a number that is not one", "param=9 base=0 shape=a3,a5 strides=a6 box=128,64 swizzle=1x8 bytes=2"},
      {"an argument that is not one", "param=9 base=0 shape=ax,a5 strides=a6 box=128,64 swizzle=128 bytes=2"},
      {"an argument times zero", "param=9 base=0 shape=a3,a5 strides=a6*0 box=128,64 swizzle=128 bytes=2"},
      {"an argument times nothing", "param=9 base=0 shape=a3,a5 strides=a6* box=128,64 swizzle=128 bytes=2"},
      {"an argument times a word", "param=9 base=0 shape=a3,a5 strides=a6*x box=128,64 swizzle=128 bytes=2"},
      {"a factor argument past the parameters", "param=9 base=0 shape=a3,a5 strides=a6*a9 box=128,64 swizzle=128 bytes=2"},
      {"an argument index past int", "param=9 base=0 shape=a3,a5 strides=a4294967302 box=128,64 swizzle=128 bytes=2"},
      {"a factor argument past int", "param=9 base=0 shape=a3,a5 strides=a6*a4294967302 box=128,64 swizzle=128 bytes=2"},
      {"a number times something", "param=9 base=0 shape=a3,a5 strides=64*a2 box=128,64 swizzle=128 bytes=2"},
      {"rank 0", "param=9 base=0 shape= strides= box= swizzle=128 bytes=2"},
      {"no shape at all", "param=9 base=0 box=128 swizzle=128 bytes=2"},
      {"rank 6", "param=9 base=0 shape=1,1,1,1,1,a3 strides=1,1,1,1,a6 box=1,1,1,1,1,8 swizzle=0 bytes=2"},
      {"fewer box entries than dimensions", "param=9 base=0 shape=a3,a5 strides=a6 box=128 swizzle=128 bytes=2"},
      {"more box entries than dimensions", "param=9 base=0 shape=a3,a5 strides=a6 box=128,64,1 swizzle=128 bytes=2"},
      {"a stride for the last dimension", "param=9 base=0 shape=a3,a5 strides=a6,1 box=128,64 swizzle=128 bytes=2"},
      {"no strides for two dimensions", "param=9 base=0 shape=a3,a5 box=128,64 swizzle=128 bytes=2"},
      {"a shape argument at the map's index", "param=9 base=0 shape=a9,a5 strides=a6 box=128,64 swizzle=128 bytes=2"},
      {"a shape argument after the maps", "param=9 base=0 shape=a3,a12 strides=a6 box=128,64 swizzle=128 bytes=2"},
      {"a stride argument after the maps", "param=9 base=0 shape=a3,a5 strides=a10 box=128,64 swizzle=128 bytes=2"},
      {"a base after the maps", "param=9 base=10 shape=a3,a5 strides=a6 box=128,64 swizzle=128 bytes=2"},
      {"bytes=3", "param=9 base=0 shape=a3,a5 strides=a6 box=128,64 swizzle=128 bytes=3"},
      {"bytes=8", "param=9 base=0 shape=a3,a5 strides=a6 box=128,64 swizzle=128 bytes=8"},
      {"a second map that skips a parameter",
       "param=9 base=0 shape=a3,a5 strides=a6 box=128,64 swizzle=128 bytes=2\n"
       "param=11 base=1 shape=a5,a4 strides=a7 box=64,64 swizzle=128 bytes=2"},
      {"a second map at the first's parameter",
       "param=9 base=0 shape=a3,a5 strides=a6 box=128,64 swizzle=128 bytes=2\n"
       "param=9 base=1 shape=a5,a4 strides=a7 box=64,64 swizzle=128 bytes=2"},
      {"a base at the map's index", "param=9 base=9 shape=a3,a5 strides=a6 box=128,64 swizzle=128 bytes=2"},
      {"a box of 0", "param=9 base=0 shape=a3,a5 strides=a6 box=0,64 swizzle=128 bytes=2"},
      {"a box over 256", "param=9 base=0 shape=a3,a5 strides=a6 box=300,64 swizzle=128 bytes=2"},
      {"a box from an argument", "param=9 base=0 shape=a3,a5 strides=a6 box=a3,64 swizzle=128 bytes=2"},
      {"a swizzle of 48 bytes", "param=9 base=0 shape=a3,a5 strides=a6 box=128,64 swizzle=48 bytes=2"},
      {"a negative argument", "param=9 base=0 shape=a-1,a5 strides=a6 box=128,64 swizzle=128 bytes=2"},
      {"a zero constant extent", "param=9 base=0 shape=0,a5 strides=a6 box=128,64 swizzle=128 bytes=2"},
      {"no param", "base=0 shape=a3,a5 strides=a6 box=128,64 swizzle=128 bytes=2"},
      {"maps out of order",
       "param=10 base=0 shape=a3,a5 strides=a6 box=128,64 swizzle=128 bytes=2\n"
       "param=9 base=1 shape=a5,a4 strides=a7 box=64,64 swizzle=128 bytes=2"},
  };
  for (const Case &c : cases) {
    std::string message = parseError(c.text, "my_kernel");
    EXPECT_NE(message, "") << c.what << " parsed: " << c.text;
    EXPECT_NE(message.find("kernel 'my_kernel'"), std::string::npos) << c.what << ": " << message;
  }
}

//===----------------------------------------------------------------------===//
// The boxes of the pipeline's stages
//===----------------------------------------------------------------------===//

/// A matmul whose loads TMA copies (a row-major M x K times K x N, masked by their bounds).
const char *kMatmul = R"(
kernel mm(a: ptr<f16>, b: ptr<f16>, c: ptr<f32>, M: i32, N: i32, K: i32, lda: i32, ldb: i32,
          const BM: i32, const BN: i32, const BK: i32) {
    let rm = program_id(0) * BM + arange(0, BM);
    let rn = program_id(1) * BN + arange(0, BN);
    let rk = arange(0, BK);
    var pa = a + rm[:, None] * lda + rk[None, :];
    var pb = b + rk[:, None] * ldb + rn[None, :];
    var acc = zeros([BM, BN], f32);
    for k in range(0, cdiv(K, BK)) {
        let k_left = K - k * BK;
        let ta = load(pa, mask = rm[:, None] < M && rk[None, :] < k_left, other = 0.0);
        let tb = load(pb, mask = rk[:, None] < k_left && rn[None, :] < N, other = 0.0);
        acc += dot(ta, tb);
        pa = pa + BK;
        pb = pb + BK * ldb;
    }
    store(c + rm[:, None] * N + rn[None, :], acc, mask = rm[:, None] < M && rn[None, :] < N);
}
)";

/// The text of `tk_tensor_maps_mm` in the LLVM dialect the compiler emits for sm_90a ("" when
/// there is none), its escapes (`\0A`) undone.
std::string recipesOf(int64_t bm, int64_t bn, int64_t bk, std::string &diagnostics) {
  CompileOptions options;
  options.kernel = "mm";
  options.sm = 90;
  options.archSpecific = true;
  options.defines = {{"BM", std::to_string(bm)}, {"BN", std::to_string(bn)}, {"BK", std::to_string(bk)},
                     {"num_warps", "4"}, {"num_stages", "3"}};
  options.divisibility = {{"lda", 16}, {"ldb", 16}};
  Compiler compiler(options);
  std::ostringstream out;
  std::string source = kMatmul;
  if (!compiler.load("mm.tk", &source) || !compiler.emit(EmitKind::TkGpu, out)) {
    diagnostics = compiler.diagnosticsText();
    return "";
  }
  std::string ir = out.str();
  size_t at = ir.find("@tk_tensor_maps_mm(\"");
  if (at == std::string::npos)
    return "";
  std::string text;
  for (size_t i = ir.find('"', at) + 1; i < ir.size() && ir[i] != '"'; ++i) {
    if (ir[i] == '\\' && i + 2 < ir.size() && std::isxdigit(ir[i + 1]) && std::isxdigit(ir[i + 2])) {
      text.push_back(char(std::stoi(ir.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      text.push_back(ir[i]);
    }
  }
  return text;
}

/// Where TMA puts byte `offset` of a box whose rows are `swizzle` bytes (0: as it is): the
/// 16-byte chunk index (bits [4, 7)) XOR the 128-byte line's index (bits [7, 10)), both cut to
/// the swizzle's chunks per row (8, 4 or 2), within each 8 rows of `swizzle` bytes.
int64_t tmaSwizzled(int64_t offset, int64_t swizzle) {
  if (swizzle == 0)
    return offset;
  int64_t chunks = swizzle / 16; // 8, 4, 2
  int64_t chunk = (offset / 16) % chunks, line = (offset / 128) % chunks;
  return offset - chunk * 16 + (chunk ^ line) * 16;
}

TEST(TensorMapRecipe, TheLoaderAsksTheDriverOnlyForGlobalsAPtxImageNames) {
  // A missing global was looked up in every module, an API error (CUDA_ERROR_NOT_FOUND) that
  // compute-sanitizer reported for every kernel without tensor maps or a grid-dependency
  // marker: PTX text names every global it defines, so one it lacks is not asked for.
  std::string ptx = ".version 8.0\n.target sm_90a\n.visible .global .align 1 .b8 tk_grid_dependent_k[1] = {1};\n"
                    ".visible .entry k()\n{\n\tret;\n}\n";
  EXPECT_TRUE(imageMayDefine(ptx.c_str(), "tk_grid_dependent_k"));
  EXPECT_FALSE(imageMayDefine(ptx.c_str(), "tk_tensor_maps_k"));
  EXPECT_FALSE(imageMayDefine("", "tk_tensor_maps_k"));
  EXPECT_FALSE(imageMayDefine(ptx.c_str(), "tk_grid_dependent_")); // a prefix of a name is not the name
  // A binary image (cubin, fatbin) may define anything: the driver is asked.
  const char cubin[] = "\x7f" "ELF\x02\x01";
  const unsigned char fatbin[] = {0x50, 0xed, 0x55, 0xba, 0x01, 0x00};
  EXPECT_TRUE(imageMayDefine(cubin, "tk_tensor_maps_k"));
  EXPECT_TRUE(imageMayDefine(fatbin, "tk_tensor_maps_k"));
}

TEST(TensorMapRecipe, TmaBoxesLandWhereTheSwizzledStagesHoldTheirElements) {
  struct Config {
    int64_t bm, bn, bk;
  } configs[] = {{128, 256, 64}, {64, 128, 32}, {128, 128, 128}};
  std::set<std::pair<int64_t, int64_t>> stages;
  for (const Config &config : configs) {
    std::string diagnostics;
    std::string text = recipesOf(config.bm, config.bn, config.bk, diagnostics);
    ASSERT_NE(text, "") << "BM=" << config.bm << " BN=" << config.bn << " BK=" << config.bk
                        << ": no tensor-map recipes\n" << diagnostics;
    std::vector<Recipe> recipes = tensormaps::parse(text, "mm");
    ASSERT_EQ(recipes.size(), 2u) << text;
    // Arguments: a, b, c, M, N, K, lda, ldb; then the maps of A and B.
    EXPECT_EQ(recipes[0].param, 8u);
    EXPECT_EQ(recipes[0].base, 0u);
    EXPECT_EQ(recipes[1].base, 1u);
    for (auto [recipe, rows, cols] : {std::tuple(recipes[0], config.bm, config.bk),
                                      std::tuple(recipes[1], config.bk, config.bn)}) {
      stages.insert({rows, cols});
      SCOPED_TRACE("stage " + std::to_string(rows) + "x" + std::to_string(cols));
      codegen::SwizzleParams swizzle(rows, cols);
      ASSERT_EQ(recipe.box, (std::vector<unsigned>{unsigned(rows), unsigned(swizzle.blockLength)}));
      int64_t rowBytes = swizzle.blockLength * 2;
      EXPECT_EQ(recipe.swizzle, rowBytes >= 32 ? rowBytes : 0);
      EXPECT_EQ(recipe.elementBytes, 2);
      EXPECT_EQ(cols % swizzle.blockLength, 0);
      // The swizzle works on shared-memory address bits: each box starts on a whole pattern
      // (8 rows of `swizzle` bytes) when stages do.
      int64_t pattern = 8 * std::max<int64_t>(recipe.swizzle, 16);
      EXPECT_EQ(rows * cols * 2 % pattern, 0);
      for (int64_t block = 0; block < cols / swizzle.blockLength; ++block) {
        int64_t boxByte = block * swizzle.blockStride() * 2;
        EXPECT_EQ(boxByte % pattern, 0);
        for (int64_t row = 0; row < rows; ++row)
          for (int64_t inBox = 0; inBox < swizzle.blockLength; ++inBox) {
            int64_t col = block * swizzle.blockLength + inBox;
            int64_t byte = boxByte + tmaSwizzled((row * swizzle.blockLength + inBox) * 2, recipe.swizzle);
            ASSERT_EQ(swizzle.index(row, col) * 2, byte) << "row " << row << ", column " << col;
          }
      }
    }
  }
  std::set<std::pair<int64_t, int64_t>> wanted{{128, 64}, {64, 256}, {64, 32}, {128, 128}};
  for (auto stage : wanted)
    EXPECT_TRUE(stages.count(stage)) << stage.first << "x" << stage.second;
}

TEST(TensorMapRecipe, EveryStageShapeOfTwoByteElementsMatchesTmaSwizzle) {
  // The same without the compiler, for every stage shape a tensor-core operand may have (rows
  // up to TMA's 256, rows of 16 to 512 elements): boxes [rows, blockLength] with the swizzle
  // of blockLength * 2 bytes (none below 32) tile the stage as SwizzleParams lays it out.
  for (int64_t rows : {16, 32, 64, 128, 256})
    for (int64_t cols : {8, 16, 32, 64, 128, 256, 512}) {
      codegen::SwizzleParams swizzle(rows, cols);
      int64_t rowBytes = swizzle.blockLength * 2, mode = rowBytes >= 32 ? rowBytes : 0;
      for (int64_t row = 0; row < rows; ++row)
        for (int64_t col = 0; col < cols; ++col) {
          int64_t block = col / swizzle.blockLength, inBox = col % swizzle.blockLength;
          int64_t byte = block * swizzle.blockStride() * 2 + tmaSwizzled((row * swizzle.blockLength + inBox) * 2, mode);
          ASSERT_EQ(swizzle.index(row, col) * 2, byte) << rows << "x" << cols << ": row " << row << ", column " << col;
        }
    }
}

} // namespace
} // namespace tk
