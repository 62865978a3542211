// RUN: tk-opt %s -tk-threads-to-llvm | FileCheck %s

// Math on f32 becomes NVVM's approximations; % keeps fmod's sign (and goes through f32 for
// bf16); kernels get nvvm.kernel and their thread count; tk attributes are dropped.
// CHECK-LABEL: llvm.func @kernel(%arg0: f32, %arg1: bf16) -> f32 attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>}
// CHECK: %[[LOG2E:.*]] = llvm.mlir.constant(1.44269{{[0-9]*}} : f32)
// CHECK: %[[SCALED:.*]] = llvm.fmul %arg0, %[[LOG2E]]
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[SCALED]])
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// CHECK: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"
// CHECK: %[[REM:.*]] = llvm.frem %arg0, %{{.*}} : f32
// CHECK: llvm.intr.copysign(%[[REM]], %arg0)
// CHECK: llvm.fpext %arg1 : bf16 to f32
// CHECK: llvm.frem
// CHECK: llvm.intr.copysign
// CHECK: llvm.fptrunc %{{.*}} : f32 to bf16
// CHECK-NOT: tk.
func.func @kernel(%x: f32 {tk.name = "x"}, %h: bf16) -> f32 attributes {tk.kernel, tk.num_warps = 8 : i32} {
  %e = math.exp %x : f32
  %l = math.log %e : f32
  %r = math.rsqrt %l : f32
  %m = arith.remf %x, %r : f32
  %hm = arith.remf %h, %h : bf16
  %he = arith.extf %hm : bf16 to f32
  %s = arith.addf %m, %he : f32
  return %s : f32
}

// `exp2(x, ftz = true)` and `exp(x, ftz = true)` (tk.ftz): ex2.approx.ftz, one MUFU.EX2 with no
// rescaling around it for subnormal results; without the attribute, ex2.approx.
// CHECK-LABEL: llvm.func @flush_to_zero
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%arg0)
// CHECK: %[[SCALED2:.*]] = llvm.fmul %arg0, %{{.*}}
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[SCALED2]])
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%arg0)
func.func @flush_to_zero(%x: f32) -> f32 attributes {tk.kernel} {
  %a = math.exp2 %x {tk.ftz} : f32
  %b = math.exp %x {tk.ftz} : f32
  %c = math.exp2 %x : f32
  %s = arith.addf %a, %b : f32
  %t = arith.addf %s, %c : f32
  return %t : f32
}
