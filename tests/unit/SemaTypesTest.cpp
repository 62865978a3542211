// Sema's types: promotion and weak literals, broadcasting, and the result type of every
// builtin (one case per builtin of the table, keyword arguments included).
#include "TestUtil.h"

#include <gtest/gtest.h>

namespace tk::test {
namespace {


struct Case {
  const char *expr;
  const char *type;
};

void expectTypes(const std::vector<Case> &cases) {
  for (const Case &c : cases)
    EXPECT_EQ(typeOf(c.expr), c.type) << "expression: " << c.expr;
}

TEST(SemaTypes, LiteralsAreWeak) {
  expectTypes({{"1", "i32 (weak)"}, {"1.5", "f32 (weak)"}, {"5000000000", "i64 (weak)"},
               {"true", "i1"}, {"1 + 2", "i32 (weak)"}, {"1 + 2.0", "f32 (weak)"}, {"-inf", "f32 (weak)"}});
}

TEST(SemaTypes, PromotionFollowsTriton) {
  expectTypes({{"h * 2", "f16"},      {"h * 2.0", "f16"},     {"n * 2.0", "f32"},  {"h + f", "f32"},
               {"h + bf", "f32"},     {"f + d", "f64"},       {"n + m", "i64"},    {"n + u", "u32"},
               {"n + h", "f16"},      {"m * 3", "i64"},       {"u >> 1", "u32"},   {"flag && flag", "i1"},
               {"n < 3", "i1"},       {"h == 1.0", "i1"},     {"n % 7", "i32"},    {"~n", "i32"},
               {"2 << n", "i32"},     {"B * 2", "i32"}});
}

TEST(SemaTypes, BroadcastingAndIndexing) {
  expectTypes({{"r16 + 1", "i32[16]"},
               {"r16[:, None]", "i32[16, 1]"},
               {"r16[None, :]", "i32[1, 16]"},
               {"r16[:, None] + r32[None, :]", "i32[16, 32]"},
               {"r16[:, None] < n", "i1[16, 1]"},
               {"t16x32 * h", "f16[16, 32]"},
               {"t16x32 + t16x16[:, 0:1] ", "parse error: unexpected ':', expected one of ',', ']'"},
               {"n[None]", "i32[1]"}});
}

TEST(SemaTypes, PointerArithmetic) {
  expectTypes({{"pf32 + r16", "ptr<f32>[16]"},
               {"pf16 + r16[:, None] * n + r32[None, :]", "ptr<f16>[16, 32]"},
               {"pf32 - 4", "ptr<f32>"},
               {"pf32 + m", "ptr<f32>"}});
}

TEST(SemaTypes, Casts) {
  expectTypes({{"h as f32", "f32"}, {"f as i8", "i8"}, {"r16 as f16", "f16[16]"},
               {"pf32 as ptr<f16>", "ptr<f16>"}, {"n as f32 * f", "f32"}, {"3.7 as i32", "i32"}});
}

TEST(SemaTypes, ProgramAndCreationBuiltins) {
  expectTypes({{"program_id(0)", "i32"}, {"num_programs(axis = 2)", "i32"}, {"arange(0, 128)", "i32[128]"},
               {"arange(16, 32)", "i32[16]"}, {"zeros([16, 32], f16)", "f16[16, 32]"},
               {"full([8], 1.5, bf16)", "bf16[8]"}, {"full([4, 4], n, i64)", "i64[4, 4]"}});
}

TEST(SemaTypes, MemoryBuiltins) {
  expectTypes({{"load(pf16 + r16)", "f16[16]"},
               {"load(pf16 + r16, mask = r16 < n, other = 0.0)", "f16[16]"},
               {"load(pf32)", "f32"},
               {"load(pf32 + r16[:, None] + r32[None, :], mask = r16[:, None] < n, cache = \"cg\", evict = \"last\")", "f32[16, 32]"},
               {"atomic_add(pf32 + r16, 1.0)", "f32[16]"},
               {"atomic_max(pu32, u)", "u32"},
               {"atomic_min(pf32 + r16, f, mask = r16 < 4)", "f32[16]"},
               {"atomic_xchg(pf16 + r16, h)", "f16[16]"},
               {"atomic_cas(pu32, u, u)", "u32"}});
}

TEST(SemaTypes, TensorDescriptors) {
  const std::string d = "let d = tensor_desc(pf16, shape = [n, 64], strides = [n, 1], block = [16, 32]);";
  EXPECT_EQ(typeOf("tensor_desc(pf16, shape = [n, 64], strides = [n, 1], block = [16, 32])"), "desc<f16, [16, 32]>");
  EXPECT_EQ(typeOf("tensor_desc(pi8, [n], [2], [B])"), "desc<i8, [64]>");
  EXPECT_EQ(typeOf("tensor_desc(pf32, [n, n, n, n, n], [1, 1, 1, 1, 1], [2, 2, 2, 2, 2])"), "desc<f32, [2, 2, 2, 2, 2]>");
  EXPECT_EQ(typeOf("load(d, [n, 3 - n])", d), "f16[16, 32]");
  EXPECT_EQ(typeOf("load(offsets = [0, 0], desc = d)", d), "f16[16, 32]");
  EXPECT_EQ(typeOf("load(tensor_desc(pu32, [n], [1], [8]), [-4])"), "u32[8]");
}

TEST(SemaTypes, DotBuiltin) {
  expectTypes({{"dot(t16x32, t32x16)", "f32[16, 16]"},
               {"dot(t16x32, t32x16, acc = zeros([16, 16], f16))", "f16[16, 16]"},
               {"dot(t16x32, t32x16, t16x16)", "f32[16, 16]"},
               {"dot(zeros([16, 32], i8), zeros([32, 16], i8))", "i32[16, 16]"},
               {"dot(t16x16, t16x16, precision = \"ieee\")", "f32[16, 16]"},
               {"dot(zeros([16, 16], bf16), zeros([16, 8], bf16))", "f32[16, 8]"}});
}

TEST(SemaTypes, ReductionsAndScans) {
  expectTypes({{"sum(t16x32, 1)", "f32[16]"},
               {"sum(r16)", "i32"},
               {"sum(zeros([16], i8), 0)", "i32"},
               {"max(t16x32, 0)", "f16[32]"},
               {"min(r16)", "i32"},
               {"argmax(t16x32, 1)", "i32[16]"},
               {"argmin(x = t16x16, axis = 0)", "i32[16]"},
               {"sum(t16x32, -1)", "f32[16]"},
               {"reduce(t16x16, 1, add2)", "f32[16]"},
               {"cumsum(r16, 0)", "i32[16]"},
               {"cumprod(t16x16, 1, reverse = true)", "f32[16, 16]"},
               {"scan(t16x16, 0, add2)", "f32[16, 16]"}});
}

TEST(SemaTypes, ShapeBuiltins) {
  expectTypes({{"reshape(t16x32, [512])", "f16[512]"},
               {"reshape(t16x32, [2, 16, 16])", "f16[2, 16, 16]"},
               {"trans(t16x32)", "f16[32, 16]"},
               {"permute(reshape(t16x32, [2, 16, 16]), [2, 0, 1])", "f16[16, 2, 16]"},
               {"broadcast_to(r16[None, :], [4, 16])", "i32[4, 16]"},
               {"expand_dims(r16, 0)", "i32[1, 16]"},
               {"expand_dims(r16, -1)", "i32[16, 1]"}});
}

TEST(SemaTypes, MathBuiltins) {
  for (const char *fn : {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid",
                         "erf", "floor", "ceil", "abs"}) {
    EXPECT_EQ(typeOf(std::string(fn) + "(t16x16)"), "f32[16, 16]") << fn;
    EXPECT_EQ(typeOf(std::string(fn) + "(h)"), "f16") << fn;
  }
  expectTypes({{"abs(n)", "i32"}, {"fma(f, f, h)", "f32"}, {"fma(h, h, h)", "f16"}, {"maximum(h, 2)", "f16"},
               {"minimum(r16, n)", "i32[16]"}, {"clamp(t16x16, 0.0, 1.0)", "f32[16, 16]"},
               {"where(r16 < 4, r16, 0)", "i32[16]"}, {"where(flag, h, f)", "f32"},
               {"where(r16 < 4, pf32 + r16, pf32)", "ptr<f32>[16]"},
               {"cdiv(n, 16)", "i32"}, {"cdiv(10, 3)", "i32 (weak)"}, {"cdiv(m, n)", "i64"}});
}

TEST(SemaTypes, HintRandomAndBitcastBuiltins) {
  expectTypes({{"multiple_of(n, 16)", "i32"}, {"max_contiguous(r16, 16)", "i32[16]"},
               {"multiple_of(pf32, 16)", "ptr<f32>"},
               {"rand(n, r16)", "f32[16]"}, {"randn(7, r64)", "f32[64]"},
               {"bitcast(f, i32)", "i32"}, {"bitcast(t16x32, i16)", "i16[16, 32]"}});
}

TEST(SemaTypes, GenericFunctionsInstantiatePerType) {
  expectTypes({{"twice(h)", "f16"}, {"twice(r16)", "i32[16]"}, {"twice(2)", "i32 (weak)"},
               {"pick(flag, h, f)", "f32"}, {"twice(twice(t16x16))", "f32[16, 16]"}});
}

TEST(SemaTypes, ConstantsFold) {
  // Folded values show up as compile-time shapes.
  expectTypes({{"arange(0, B * 2)", "i32[128]"}, {"arange(0, (1 << 5) + 0)", "i32[32]"},
               {"arange(0, cdiv(100, 10) + 6)", "i32[16]"}, {"zeros([B / 4, -(-4)], f32)", "f32[16, 4]"}});
}

TEST(SemaTypes, WeakIntegerConstantsFoldExactly) {
  // Two literals fold as Triton's constexprs do: past i32 the result widens to i64 (it wrapped:
  // `1 << 40` was 0), past i64 it is an error. A typed operand keeps its type and wraps.
  expectTypes({{"1 << 40", "i64 (weak)"}, {"2147483647 + 1", "i64 (weak)"}, {"65536 * 65536", "i64 (weak)"},
               {"-2147483648 - 1", "i64 (weak)"}, {"1 << 30", "i32 (weak)"}, {"n << 40", "i32"},
               {"arange(0, (1 << 40) >> 35)", "i32[32]"}, {"arange(0, (65536 * 65536) >> 27)", "i32[32]"},
               {"arange(0, (2147483647 + 1) >> 26)", "i32[32]"}, {"18446744073709551615 - 1", "u64 (weak)"},
               {"7 / 2", "i32 (weak)"}});
  EXPECT_EQ(typeOf("1 << 64"), "integer overflow in a constant expression: the result does not fit in i64");
  EXPECT_EQ(typeOf("9223372036854775807 + 1"), "integer overflow in a constant expression: the result does not fit in i64");
  EXPECT_EQ(typeOf("1 << -1"), "shift amount -1 is negative in a constant expression");
  EXPECT_EQ(typeOf("0", "let x: i32 = 1 << 40;"), "'x': 1099511627776 does not fit in i32; convert with 'as i32' to wrap it");
  // A quotient, a negation and cdiv of weak constants fold exactly too: MIN / -1 is no i64
  // (these three wrapped to MIN), and an i32's MIN widens as a sum does.
  expectTypes({{"(-2147483647 - 1) / -1", "i64 (weak)"}, {"-(-2147483647 - 1)", "i64 (weak)"},
               {"cdiv(-2147483647 - 1, -1)", "i64 (weak)"}, {"cdiv(7, -2)", "i32 (weak)"}, {"-(1 << 40)", "i64 (weak)"}});
  for (const char *expr : {"(-9223372036854775807 - 1) / -1", "-(-9223372036854775807 - 1)",
                           "cdiv(-9223372036854775807 - 1, -1)"})
    EXPECT_EQ(typeOf(expr), "integer overflow in a constant expression: the result does not fit in i64") << expr;
  EXPECT_EQ(typeOf("n / -1"), "i32"); // typed: wraps at run time, as C's does not define and GPUs do
  // A u64 constant over a negative one is neither type's quotient (it folded to 1): the exact one.
  EXPECT_EQ(typeOf("18446744073709551614 / -2", "", true), "-9223372036854775807 i64 (weak)");
  EXPECT_EQ(typeOf("-1 / 18446744073709551615", "", true), "0 u64 (weak)");
  EXPECT_EQ(typeOf("cdiv(18446744073709551614, -2)", "", true), "-9223372036854775807 i64 (weak)");
  EXPECT_EQ(typeOf("-(18446744073709551615 / 3)", "", true), "-6148914691236517205 i64 (weak)");
}

} // namespace
} // namespace tk::test
