// Sema's rules: each one reported with its exact message and location.
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace tk::test {
namespace {

/// Wraps statements in a kernel whose body starts on line 2.
std::string kernel(const std::string &body) {
  return "kernel k(p: ptr<f32>, n: i32, x: f32, const B: i32 = 16) {\n" + body + "\n}\n";
}

TEST(SemaRules, TileShapesArePowersOfTwo) {
  EXPECT_EQ(firstError(kernel("let t = zeros([3, 4], f32);")), "2:15: tile dimension 3 is not a power of two (shape [3, 4])");
  EXPECT_EQ(firstError(kernel("let r = arange(0, 48);")), "2:9: arange(0, 48) has 48 elements, which is not a power of two");
  EXPECT_EQ(firstError(kernel("let t: f32[6] = zeros([8], f32);")), "2:8: tile dimension 6 is not a power of two (shape [6])");
}

TEST(SemaRules, TileElementLimit) {
  EXPECT_EQ(firstError(kernel("let t = zeros([2048, 1024], f32);")),
            "2:15: tile [2048, 1024] has more than 1048576 elements");
}

TEST(SemaRules, TileRankLimit) {
  // Each `None` adds a dimension: 50,000 of them made 50,000 ever larger types (quadratic
  // memory, then an abort) before the limit.
  std::string many = "let t = arange(0, 16)[";
  for (int k = 0; k < 50000; ++k)
    many += "None, ";
  EXPECT_EQ(firstError(kernel(many + ":];")), "2:9: tile of rank 50001: tiles have at most 16 dimensions");
  std::string sixteen = "let t = arange(0, 16)[";
  for (int k = 0; k < 15; ++k)
    sixteen += "None, ";
  EXPECT_EQ(firstError(kernel(sixteen + ":];")), "");
  EXPECT_EQ(firstError(kernel("let t = zeros([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2], f32);")),
            "2:15: tile of rank 17: tiles have at most 16 dimensions");
}

TEST(SemaRules, CompilerHintsAre32BitPowersOfTwo) {
  // 2^31 passed Sema and reached the IR as -2^31 (an internal compiler error).
  EXPECT_EQ(firstError(kernel("let m = multiple_of(n, 1073741824);")), "");
  EXPECT_EQ(firstError(kernel("let m = multiple_of(n, 2147483648);")),
            "2:24: multiple_of: 2147483648 is larger than 2^30, the largest hint");
  EXPECT_EQ(firstError(kernel("let m = max_contiguous(n, 4294967296);")),
            "2:27: max_contiguous: 4294967296 is larger than 2^30, the largest hint");
}

TEST(SemaRules, CommandLineIntegersAreTheLanguagesLiterals) {
  // `-D N=010` meant 8 (C's octal), where `010` in source is ten.
  auto valueOf = [](const std::string &text) {
    std::optional<ConstValue> v = parseConstText(text, Type::scalar(Scalar::I32));
    return v ? std::to_string(v->i) : std::string("invalid");
  };
  EXPECT_EQ(valueOf("010"), "10");
  EXPECT_EQ(valueOf("0x10"), "16");
  EXPECT_EQ(valueOf("0b101"), "5");
  EXPECT_EQ(valueOf("1_000"), "1000");
  EXPECT_EQ(valueOf("-2147483648"), "-2147483648");
  EXPECT_EQ(valueOf("+4"), "4");
  EXPECT_EQ(valueOf("-"), "invalid");
  EXPECT_EQ(valueOf("2147483648"), "invalid");
  EXPECT_EQ(valueOf("0o7"), "invalid");
  EXPECT_EQ(valueOf(" 5"), "invalid");
  EXPECT_EQ(valueOf("_5"), "invalid");
  std::optional<ConstValue> top = parseConstText("18446744073709551615", Type::scalar(Scalar::U64));
  ASSERT_TRUE(top);
  EXPECT_EQ(uint64_t(top->i), UINT64_MAX);
  EXPECT_FALSE(parseConstText("-1", Type::scalar(Scalar::U32)));
}

TEST(SemaRules, IfNeedsAScalarBool) {
  EXPECT_EQ(firstError(kernel("if n { }")), "2:4: if condition must be a scalar i1, found i32");
  EXPECT_EQ(firstError(kernel("if arange(0, 16) < n { }")), "2:4: if condition must be a scalar i1, found i1[16]");
  EXPECT_EQ(firstError(kernel("while x { }")), "2:7: while condition must be a scalar i1, found f32");
}

TEST(SemaRules, LetIsImmutable) {
  std::string source = kernel("let a = n + 1;\na = 3;");
  CompileOptions options;
  Compiler compiler(options);
  std::ostringstream out;
  ASSERT_TRUE(compiler.load("test.tk", &source));
  EXPECT_FALSE(compiler.emit(EmitKind::Tk, out));
  ASSERT_EQ(compiler.diagnostics().diagnostics().size(), 1u);
  const Diagnostic &d = compiler.diagnostics().diagnostics()[0];
  EXPECT_EQ(d.message, "cannot assign to 'a': it is declared with 'let'");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].message, "'a' declared here");
  EXPECT_EQ(d.notes[0].range.begin.line, 2u);
  EXPECT_EQ(firstError(kernel("B = 4;")), "2:1: cannot assign to 'B': it is a constant");
  // A parameter or a loop's variable said so (both were "declared with 'let'").
  EXPECT_EQ(firstError(kernel("n = 4;")), "2:1: cannot assign to 'n': it is a parameter (copy it into a 'var' to change it)");
  EXPECT_EQ(firstError(kernel("for i in range(0, 4) { i = 2; }")), "2:24: cannot assign to 'i': it is the loop's variable");
  EXPECT_EQ(firstError(kernel("q = 4;")), "2:1: unknown variable 'q'");
}

TEST(SemaRules, AssignmentsKeepTheVariableType) {
  EXPECT_EQ(firstError(kernel("var acc = zeros([16], f32);\nacc = zeros([16], f16);")),
            "3:7: cannot assign to 'acc': expected f32[16], found f16[16]; convert with 'as f32'");
  EXPECT_EQ(firstError(kernel("var acc = zeros([16], f32);\nacc = acc * 2;\nacc += 1;\nacc = x;")), "");
  EXPECT_EQ(firstError(kernel("var i = 0;\ni = x;")), "3:5: cannot assign to 'i': expected i32, found f32; convert with 'as i32'");
}

TEST(SemaRules, DotShapes) {
  EXPECT_EQ(firstError(kernel("let c = dot(zeros([64, 32], f16), zeros([64, 128], f16));")),
            "2:9: dot: K dimension mismatch: a is f16[64, 32], b is f16[64, 128]");
  EXPECT_EQ(firstError(kernel("let c = dot(zeros([8, 32], f16), zeros([32, 16], f16));")),
            "2:9: dot: tiles must have M >= 16, K >= 16 and N >= 8, got M = 8, K = 32, N = 16");
  EXPECT_EQ(firstError(kernel("let c = dot(zeros([16, 16], f16), zeros([16, 16], f32));")),
            "2:9: dot: operand types differ: a is f16[16, 16], b is f32[16, 16] (only f8e4m3 and f8e5m2 mix)");
  EXPECT_EQ(firstError(kernel("let c = dot(zeros([16, 32], f8e4m3), zeros([32, 16], f8e5m2));")), "");
  EXPECT_EQ(firstError(kernel("let c = dot(zeros([16, 32], f8e4m3), zeros([32, 16], bf16));")),
            "2:9: dot: operand types differ: a is f8e4m3[16, 32], b is bf16[32, 16] (only f8e4m3 and f8e5m2 mix)");
  EXPECT_EQ(firstError(kernel("let c = dot(zeros([16, 16], f16), zeros([16, 16], f16), acc = zeros([16, 16], i32));")),
            "2:63: dot: accumulator must be f32[16, 16] or f16[16, 16], found i32[16, 16]");
}

TEST(SemaRules, NoRecursion) {
  std::string source = "fn f(v) { return g(v); }\nfn g(v) { return f(v); }\n" + kernel("let y = f(x);");
  EXPECT_EQ(firstError(source), "2:18: recursive call of 'f' is not allowed");
}

TEST(SemaRules, NoDuplicateNames) {
  EXPECT_EQ(firstError(kernel("let a = n;\nlet a = n;")), "3:5: 'a' is already declared in this scope");
  EXPECT_EQ(firstError("kernel k(a: i32, a: i32) { }"), "1:18: duplicate parameter 'a'");
  EXPECT_EQ(firstError("fn f(v) { return v; }\nfn f(v) { return v; }\nkernel k() { }"), "2:4: 'f' is already defined");
  EXPECT_EQ(firstError(kernel("let a = n;\n{ let a = n + 1; }")), ""); // shadowing in an inner block
}

TEST(SemaRules, UnrollAndNestingLimits) {
  EXPECT_EQ(firstError(kernel("for i in static_range(0, 2000) { }")),
            "2:10: static_range unrolls 2000 iterations; the limit is 1024");
  std::string deep;
  for (int i = 0; i < 70; ++i)
    deep += "{";
  deep += std::string(70, '}');
  EXPECT_EQ(firstError(kernel(deep)), "2:64: blocks are nested too deeply (limit 64)");
}

TEST(SemaRules, StaticRangeUnrollsWithConstantInductionVariable) {
  EXPECT_EQ(firstError(kernel("for i in static_range(0, 4) { let r = arange(0, 3 + i); }")),
            "2:39: arange(0, 3) has 3 elements, which is not a power of two");
}

TEST(SemaRules, ReturnPlacement) {
  EXPECT_EQ(firstError(kernel("for i in range(0, n) { return; }")), "2:24: return inside a loop is not supported");
  EXPECT_EQ(firstError(kernel("return;\nlet a = 1;")), "3:1: unreachable code after return");
  EXPECT_EQ(firstError(kernel("return 1;")), "2:8: a kernel cannot return a value");
  EXPECT_EQ(firstError(kernel("if n > 0 { return; }\nstore(p, x);")), "");
  EXPECT_EQ(firstError("fn f(v) { if v > 0 { return 1; } }\n" + kernel("let y = f(n);")),
            "1:4: 'f' does not return a value on every path");
  EXPECT_EQ(firstError("fn f(v) { if v > 0 { return 1; } return 2.0; }\n" + kernel("let y = f(n);")),
            "1:34: returns f32 but an earlier return gives i32");
}

TEST(SemaRules, CallArguments) {
  EXPECT_EQ(firstError(kernel("let v = load(p, maks = n > 0);")), "2:17: load() has no parameter named 'maks'; did you mean 'mask'?");
  EXPECT_EQ(firstError(kernel("let v = zeros([16]);")), "2:9: zeros() is missing argument 'dtype'");
  EXPECT_EQ(firstError(kernel("let v = program_id(0, 1);")), "2:23: program_id() takes 1 argument, got 2");
  EXPECT_EQ(firstError(kernel("let v = load(p, mask = n > 0, mask = n > 1);")), "2:31: argument 'mask' given twice");
  EXPECT_EQ(firstError(kernel("let v = load(ptrs = p, n > 0);")), "2:24: positional argument after keyword argument");
  EXPECT_EQ(firstError(kernel("let v = lod(p);")), "2:9: unknown function 'lod'");
  EXPECT_EQ(firstError(kernel("let v = m + 1;")), "2:9: unknown name 'm'");
  EXPECT_EQ(firstError(kernel("let v = load(p, other = 0.0);")), "2:25: load: 'other' needs a mask");
  EXPECT_EQ(firstError(kernel("let v = program_id(3);")), "2:20: program_id axis must be 0, 1 or 2, got 3");
  EXPECT_EQ(firstError(kernel("let v = load(p, cache = \"xx\");")), "2:25: load 'cache' must be \"\", \"ca\" or \"cg\"");
}

TEST(SemaRules, OperatorsAndConversions) {
  EXPECT_EQ(firstError(kernel("let v = arange(0, 16) + arange(0, 32);")), "2:23: operator +: cannot broadcast i32[16] and i32[32]");
  EXPECT_EQ(firstError(kernel("let v = !n;")), "2:9: operator ! needs an i1 operand, found i32; use '~' for bitwise not");
  EXPECT_EQ(firstError(kernel("let v = p + x;")), "2:11: pointer offset must be an integer, found f32");
  EXPECT_EQ(firstError(kernel("let v = p * 2;")), "2:11: operator * cannot be applied to ptr<f32> and i32");
  EXPECT_EQ(firstError(kernel("let v = x << 1;")), "2:11: operator << needs integer operands, found f32 and i32");
  EXPECT_EQ(firstError(kernel("let v = n && true;")), "2:11: operator && needs i1 operands, found i32 and i1");
  EXPECT_EQ(firstError(kernel("let v = p as i64;")), "2:9: cannot convert ptr<f32> to i64 (pointers convert only to other pointers)");
  EXPECT_EQ(firstError(kernel("let v = 1 / 0;")), "2:11: division by zero in a constant expression");
  EXPECT_EQ(firstError(kernel("let v = exp(n);")), "2:13: exp needs a float operand, found i32; convert with 'as f32'");
  EXPECT_EQ(firstError(kernel("let v = arange(0, 16)[0];")), "2:23: tiles are indexed only with ':' and None (to add dimensions)");
  EXPECT_EQ(firstError(kernel("let v = bitcast(x, f16);")), "2:9: bitcast: f32 has 32 bits but f16 has 16");
  EXPECT_EQ(firstError(kernel("let v = p == p;")), "2:11: operator == cannot be applied to ptr<f32> and ptr<f32>");
  EXPECT_EQ(firstError(kernel("let v = reshape(arange(0, 1), []);")), "2:31: reshape: the shape needs at least one dimension");
  EXPECT_EQ(firstError(kernel("let v = permute(x, []);")), "2:17: permute needs a tile, found f32");
  EXPECT_EQ(firstError(kernel("let sum = 1;\nlet v = sum(arange(0, 16), 0);")), "3:9: 'sum' is a constant, not a function");
  EXPECT_EQ(firstError(kernel("let t: f32[16] = 1.0;\nstore(p + arange(0, 16), t);")), "");
  EXPECT_EQ(firstError("fn f(v, const C: f32[4]) { return v; }\n" + kernel("let y = f(x, 1.0);")),
            "3:14: const argument 'C' of 'f' must be a scalar, found f32[4]");
}

TEST(SemaRules, StaticAssertAndConstants) {
  EXPECT_EQ(firstError(kernel("static_assert(B % 32 == 0, \"B must be a multiple of 32\");")),
            "2:1: static assertion failed: B must be a multiple of 32");
  EXPECT_EQ(firstError(kernel("static_assert(n > 0);")), "2:15: static_assert: condition is not a compile-time constant");
  EXPECT_EQ(firstError("kernel k(const BLOCK: i32) { }"),
            "1:16: const parameter 'BLOCK' of kernel 'k' has no value; give it with -D BLOCK=VALUE, a default or @autotune");
  EXPECT_EQ(firstError("kernel k(const BLOCK: i32) { }", {{"BLOCK", "1x"}}), "1:16: -D BLOCK=1x is not a valid i32");
  EXPECT_EQ(firstError("kernel k(const BLOCK: i32) { let r = arange(0, BLOCK); }", {{"BLOCK", "64"}}), "");
  EXPECT_EQ(firstError("const A: i32 = B + 1;\nconst B: i32 = A;\nkernel k() { let v = A; }"),
            "1:7: constant 'A' depends on itself");
}

TEST(SemaRules, ConstantConditionsCheckOnlyTheTakenBranch) {
  // The else branch would be an error (bad shape), but B == 16 never takes it.
  EXPECT_EQ(firstError(kernel("if B == 16 { let t = zeros([B], f32); } else { let t = zeros([3], f32); }")), "");
  EXPECT_EQ(firstError(kernel("if B != 16 { let t = zeros([B], f32); } else { let t = zeros([3], f32); }")),
            "2:62: tile dimension 3 is not a power of two (shape [3])");
}

TEST(SemaRules, ConstantLogicalOperatorsShortCircuit) {
  // A constant left side that decides && or || leaves the right side unevaluated: a division
  // by zero there is no error (it was, before: both sides were folded).
  std::map<std::string, std::string> zero{{"B", "0"}};
  EXPECT_EQ(firstError(kernel("static_assert(B > 0 && 64 % B == 0, \"B divides 64\");"), zero),
            "2:1: static assertion failed: B divides 64");
  EXPECT_EQ(firstError(kernel("static_assert(B == 0 || 64 / B >= 1);"), zero), "");
  EXPECT_EQ(firstError(kernel("static_assert(B == 0 || cdiv(64, B) >= 1);"), zero), "");
  EXPECT_EQ(firstError(kernel("static_assert(!(B != 0 && (B > 100 || 64 % B == 1)));"), zero), "");
  EXPECT_EQ(firstError(kernel("let v = false && (1 / 0 == 0);\nstatic_assert(!v);")), "");
  // The right side is still checked, and evaluated when the left side does not decide.
  EXPECT_EQ(firstError(kernel("let v = false && 1;")), "2:15: operator && needs i1 operands, found i1 and i32");
  EXPECT_EQ(firstError(kernel("static_assert(B != 0 || 64 % B == 0);"), zero),
            "2:28: remainder by zero in a constant expression");
  // On tiles too: the result is the left side's value everywhere, the right side not emitted
  // (no division by zero reaches the IR).
  EXPECT_EQ(firstError(kernel("let m = false && (arange(0, 16) < 1 / B);"), zero), "");
  std::string ir = emitTk("kernel k(p: ptr<i32>, const Z: i32 = 0) {\n"
                          "  let r = arange(0, 16);\n"
                          "  store(p + r, (false && r < 1 / Z) as i32 + (true || r < 1 / Z) as i32 * 2);\n}\n");
  EXPECT_NE(ir.find("arith.constant dense<false> : tensor<16xi1>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.constant dense<true> : tensor<16xi1>"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("divsi"), std::string::npos) << ir;
  // An operator that is an error itself reports that alone.
  std::string source = kernel("let v = (false && (1 / 0)) == true;");
  EXPECT_EQ(firstError(source), "2:16: operator && needs i1 operands, found i1 and i32");
  CompileOptions options;
  Compiler compiler(options);
  std::ostringstream out;
  EXPECT_FALSE(compiler.load("test.tk", &source) && compiler.emit(EmitKind::Tk, out));
  const auto &diagnostics = compiler.diagnostics().diagnostics();
  EXPECT_EQ(std::count_if(diagnostics.begin(), diagnostics.end(),
                          [](const Diagnostic &d) { return d.severity == Severity::Error; }),
            1);
}

TEST(SemaRules, Autotune) {
  EXPECT_EQ(firstError("@autotune(key = [n], configs = [{ BM: 64 }, { BX: 32 }])\nkernel k(n: i32, const BM: i32) { }"),
            "1:47: @autotune: 'BX' is not a const parameter of 'k' (nor a launch option: num_warps, num_stages, warp_specialize, cluster_size)");
  EXPECT_EQ(firstError("@autotune(key = [q], configs = [{ BM: 64 }])\nkernel k(n: i32, const BM: i32) { }"),
            "1:18: @autotune: key entries must name integer parameters of 'k'");
  // Arguments the first of which was taken silently, a key of a pointer or twice, an empty space.
  EXPECT_EQ(firstError("@autotune(key = [n], key = [n], configs = [{ BM: 64 }])\nkernel k(n: i32, const BM: i32) { }"),
            "1:22: @autotune: 'key' is given twice");
  EXPECT_EQ(firstError("@autotune(key = [n], configs = [{ BM: 64 }], space = { BM: [128] })\nkernel k(n: i32, const BM: i32) { }"),
            "1:46: @autotune: configs and space both give the tuning space: give one");
  EXPECT_EQ(firstError("@autotune(key = [x], configs = [{ BM: 64 }])\nkernel k(x: ptr<f32>, n: i32, const BM: i32) { }"),
            "1:18: @autotune: key entries must name integer parameters of 'k'");
  EXPECT_EQ(firstError("@autotune(key = [n, n], configs = [{ BM: 64 }])\nkernel k(n: i32, const BM: i32) { }"),
            "1:21: @autotune: 'n' appears twice in key");
  EXPECT_EQ(firstError("@autotune(key = [n], space = {})\nkernel k(n: i32, const BM: i32 = 4) { }"),
            "1:30: @autotune: space names no parameter");
  EXPECT_EQ(firstError("@autotune(key = [n], space = { BM: [64, 128], num_warps: [3] })\nkernel k(n: i32, const BM: i32) { }"),
            "1:47: @autotune: num_warps must be a small positive integer and a power of two, got 3");
  EXPECT_EQ(firstError("@autotune(key = [n], configs = [{ BM: 64, cluster_size: 4 }])\nkernel k(n: i32, const BM: i32) { }"),
            "1:43: @autotune: cluster_size must be 1 or 2, got 4");
  EXPECT_EQ(firstError("@tune(key = [n])\nkernel k(n: i32) { }"), "1:1: unknown decorator '@tune' (tk knows @autotune)");
  // A name twice in a space (before: accepted, two identical configs of the second's value).
  EXPECT_EQ(firstError("@autotune(key = [n], space = { BM: [64, 128], BM: [32] })\nkernel k(n: i32, const BM: i32) { }"),
            "1:47: @autotune: 'BM' appears twice in the space");
}

TEST(SemaRules, EveryErrorOfARunIsReported) {
  std::string source = kernel("let a = zeros([3], f32);\nlet b = unknown + 1;\nlet c = dot(zeros([64, 32], f16), zeros([64, 128], f16));");
  Compiler compiler(CompileOptions{});
  std::ostringstream out;
  ASSERT_TRUE(compiler.load("test.tk", &source));
  EXPECT_FALSE(compiler.emit(EmitKind::Tk, out));
  EXPECT_EQ(compiler.diagnostics().errorCount(), 3u);
}

TEST(SemaRules, KernelParametersAreScalarsOrPointers) {
  EXPECT_EQ(firstError("kernel k(t: f32[16]) { }"), "1:13: a tile shape is not allowed here");
  EXPECT_EQ(firstError("kernel k(const P: ptr<f32>) { }"), "1:19: a const parameter must have a number type, found ptr<f32>");
  EXPECT_EQ(firstError("kernel k(q: ptr<tile>) { }"), "1:17: pointee must be a scalar type, found 'tile'");
}

TEST(SemaRules, DTypeParameters) {
  // A `const T: dtype` parameter is a scalar type wherever one is written.
  std::string axpy = "kernel axpy(x: ptr<T>, y: ptr<T>, a: T, n: i32, const BLOCK: i32 = 64, const T: dtype = bf16) {\n"
                     "  let i = program_id(0) * BLOCK + arange(0, BLOCK);\n"
                     "  let acc: f32[BLOCK] = zeros([BLOCK], f32) + (load(x + i, mask = i < n) as f32) * (a as f32);\n"
                     "  let t: T[BLOCK] = acc as T;\n"
                     "  store(y + i, t + zeros([BLOCK], T) + full([BLOCK], 0, T), mask = i < n);\n"
                     "}\n";
  EXPECT_EQ(firstError(axpy), "");
  EXPECT_EQ(firstError(axpy, {{"T", "f16"}}), "");
  EXPECT_EQ(firstError(axpy, {{"T", "f32"}}), "");
  EXPECT_NE(emitTk(axpy).find("!tk.ptr<bf16>"), std::string::npos) << emitTk(axpy);
  EXPECT_EQ(firstError(axpy, {{"T", "i7"}}),
            "1:78: -D T=i7 is not a valid dtype (one of i1, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64, "
            "f8e4m3 or f8e5m2)");
  EXPECT_EQ(firstError(axpy, {{"T", "foo"}}).substr(0, 35), "1:78: -D T=foo is not a valid dtype");
  EXPECT_EQ(firstError("kernel k(x: ptr<T>, const T: dtype) { }"),
            "1:27: const parameter 'T' of kernel 'k' has no value; give it with -D T=TYPE (such as f16), a default or "
            "@autotune");
  EXPECT_EQ(firstError("kernel k(x: ptr<T>, const T: dtype) { }", {{"T", "u8"}}), "");
  EXPECT_EQ(firstError("kernel k(x: ptr<T>, const T: dtype = 3) { }"),
            "1:38: the default of dtype parameter 'T' must be a scalar type such as bf16, found i32");
  EXPECT_EQ(firstError("kernel k(x: ptr<T>, const T: dtype = ptr) { }"),
            "1:38: 'ptr' needs a pointee type, as in ptr<f32>");
  EXPECT_EQ(firstError("kernel k(x: dtype) { }"),
            "1:13: 'dtype' is the type of a kernel's const parameters only, as in 'const T: dtype = bf16'");
  EXPECT_EQ(firstError("kernel k(x: ptr<B>, const B: i32 = 4) { }"), "1:17: pointee must be a scalar type, found 'B'");
  EXPECT_EQ(firstError("kernel k(n: i32, const T: dtype = f16) { let v = n as U; }"), "1:55: unknown type 'U'");
  EXPECT_EQ(firstError("kernel k(n: i32, const B: i32 = 4) { let v = n as B; }"),
            "1:51: unknown type 'B' (it is a constant of type i32; a type parameter is declared 'const B: dtype')");
  EXPECT_EQ(firstError("kernel k(n: i32, const T: dtype = f16) { let v = T + 1; }"),
            "1:52: operator + needs values, found type f16 and i32");
  // From @autotune: a type where a dtype is expected, and nowhere else.
  EXPECT_EQ(firstError("@autotune(key = [n], configs = [{ T: f16 }, { T: f32 }])\n"
                       "kernel k(x: ptr<T>, n: i32, const T: dtype) { }"),
            "");
  EXPECT_EQ(firstError("@autotune(key = [n], configs = [{ T: 4 }])\nkernel k(x: ptr<T>, n: i32, const T: dtype) { }"),
            "2:35: @autotune sets dtype parameter 'T' to 4, which is not a type (one of i1, i8, i16, i32, i64, u8, "
            "u16, u32, u64, f16, bf16, f32, f64, f8e4m3 or f8e5m2)");
  EXPECT_EQ(
      firstError("@autotune(key = [n], configs = [{ B: f16 }])\nkernel k(n: i32, const B: i32) { }"),
      "2:24: @autotune sets 'B' to the type f16; 'B' is of type i32 (a type parameter is declared 'const B: dtype')");
  // A float for an integer (once truncated: 2.5 compiled as 2), 2 for a bool; an integer for a
  // float is its value.
  EXPECT_EQ(firstError("@autotune(key = [n], configs = [{ B: 2.5 }])\nkernel k(n: i32, const B: i32) { }"),
            "2:24: @autotune sets 'B' to 2.5; 'B' is of type i32");
  EXPECT_EQ(firstError("@autotune(key = [n], configs = [{ B: 2 }])\nkernel k(n: i32, const B: i1) { }"),
            "2:24: @autotune sets 'B' to 2; 'B' is of type i1");
  EXPECT_EQ(firstError("@autotune(key = [n], configs = [{ B: 2 }, { B: true }])\nkernel k(n: i32, const B: f32) { }"), "");
}

} // namespace
} // namespace tk::test
