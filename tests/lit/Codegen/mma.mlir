// RUN: tk-opt %s -tk-assign-layouts -tk-allocate-shared -tk-to-threads -canonicalize | FileCheck %s

// A loop-carried f16 dot into f32 runs on tensor cores: 4 warps split the 64x64 result 2x2,
// each owning 2x4 tiles of 16x8 (32 f32 accumulators per thread, carried through the loop in
// the mma layout). Per k-step of 16, A's fragments come by ldmatrix.x4, B's by ldmatrix.x4.trans
// from swizzled shared memory, staged with 16-byte stores. Only after the loop does the
// accumulator move to the default layout (through shared memory) for the store.
// CHECK-LABEL: func.func @loop_dot
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK: scf.yield
// CHECK-NOT: nvvm.mma.sync
// The epilogue: accumulators to shared memory, a barrier, then the default layout's reads.
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
func.func @loop_dot(%a: !tk.ptr<f16> {tk.divisibility = 16 : i64}, %b: !tk.ptr<f16> {tk.divisibility = 16 : i64},
                    %c: !tk.ptr<f32> {tk.divisibility = 16 : i64}, %n: i32) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %c64k = arith.constant dense<64> : tensor<32x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %init = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %r = tk.make_range 0, 64 : tensor<64xi32>
  %k = tk.make_range 0, 32 : tensor<32xi32>
  %as = tk.splat %a : !tk.ptr<f16> -> tensor<64x1x!tk.ptr<f16>>
  %rc = tk.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ra = arith.muli %rc, %c32 : tensor<64x1xi32>
  %ap = tk.addptr %as, %ra : tensor<64x1x!tk.ptr<f16>>, tensor<64x1xi32>
  %apb = tk.broadcast %ap : tensor<64x1x!tk.ptr<f16>> -> tensor<64x32x!tk.ptr<f16>>
  %kr = tk.expand_dims %k, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %krb = tk.broadcast %kr : tensor<1x32xi32> -> tensor<64x32xi32>
  %pa = tk.addptr %apb, %krb : tensor<64x32x!tk.ptr<f16>>, tensor<64x32xi32>
  %bs = tk.splat %b : !tk.ptr<f16> -> tensor<32x1x!tk.ptr<f16>>
  %kc = tk.expand_dims %k, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %kb = arith.muli %kc, %c64k : tensor<32x1xi32>
  %bp = tk.addptr %bs, %kb : tensor<32x1x!tk.ptr<f16>>, tensor<32x1xi32>
  %bpb = tk.broadcast %bp : tensor<32x1x!tk.ptr<f16>> -> tensor<32x64x!tk.ptr<f16>>
  %rr = tk.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rrb = tk.broadcast %rr : tensor<1x64xi32> -> tensor<32x64xi32>
  %pb = tk.addptr %bpb, %rrb : tensor<32x64x!tk.ptr<f16>>, tensor<32x64xi32>
  %acc = scf.for %i = %zero to %n step %one iter_args(%sum = %init) -> (tensor<64x64xf32>) : i32 {
    %ta = tk.load %pa : (tensor<64x32x!tk.ptr<f16>>) -> tensor<64x32xf16>
    %tb = tk.load %pb : (tensor<32x64x!tk.ptr<f16>>) -> tensor<32x64xf16>
    %d = tk.dot %ta, %tb, %sum : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %cs = tk.splat %c : !tk.ptr<f32> -> tensor<64x64x!tk.ptr<f32>>
  tk.store %cs, %acc : tensor<64x64x!tk.ptr<f32>>, tensor<64x64xf32>
  return
}

// f32 at tf32 precision: rounded to tf32 while staged (16-byte stores of 4), A by ldmatrix.x4
// on the 4-byte elements, B element by element (ldmatrix cannot transpose 4-byte elements),
// mma.sync m16n8k8.tf32. With precision = "ieee" the dot stays on FMA.
// CHECK-LABEL: func.func @tf32_dot
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>{{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 8>
// CHECK-LABEL: func.func @ieee_dot
// CHECK-NOT: nvvm.mma.sync
func.func @tf32_dot(%a: tensor<32x16xf32>, %b: tensor<16x32xf32>, %c: !tk.ptr<f32> {tk.divisibility = 16 : i64})
    attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %init = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %d = tk.dot %a, %b, %init : tensor<32x16xf32> * tensor<16x32xf32> -> tensor<32x32xf32>
  %cs = tk.splat %c : !tk.ptr<f32> -> tensor<32x32x!tk.ptr<f32>>
  tk.store %cs, %d : tensor<32x32x!tk.ptr<f32>>, tensor<32x32xf32>
  return
}

func.func @ieee_dot(%a: tensor<32x16xf32>, %b: tensor<16x32xf32>, %c: !tk.ptr<f32> {tk.divisibility = 16 : i64})
    attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %init = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %d = tk.dot %a, %b, %init precision = ieee : tensor<32x16xf32> * tensor<16x32xf32> -> tensor<32x32xf32>
  %cs = tk.splat %c : !tk.ptr<f32> -> tensor<32x32x!tk.ptr<f32>>
  tk.store %cs, %d : tensor<32x32x!tk.ptr<f32>>, tensor<32x32xf32>
  return
}
