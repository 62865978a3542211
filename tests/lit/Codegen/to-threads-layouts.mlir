// RUN: tk-opt %s -split-input-file -tk-to-threads -canonicalize -verify-diagnostics | FileCheck %s
// RUN: tk-opt %s -split-input-file -tk-to-threads=sm=80 -canonicalize -verify-diagnostics | FileCheck %s --check-prefix=SM80
//
// tk-to-threads is a conversion that reads every decision from the IR: each tile becomes the
// scalars its thread holds under the layout in its type, and exchanges use the byte ranges
// tk-allocate-shared wrote.

#acc = #tkg.linear<slots = [0, 8, 3], lanes = [1, 2, 5, 6, 7], warps = [4, 9]>
#b4 = #tkg.blocked<per_thread = 4, threads = 128>

// A 32x32 tile in the mma.sync accumulator layout is 2^3 = 8 scalars per thread (its three
// slot bits); in the blocked layout 1024 / 128 = 8 as well, as two runs of 4. The move writes
// each thread's 8 elements at their element index in shared memory (`tk_smem`, sized by the
// module's tkg.shared_bytes), waits for every thread, and reads back the runs of 4 for the
// store.
// CHECK: llvm.mlir.global external @tk_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: func.func @convert(%arg0: !llvm.ptr<1>, %arg1: f32, %arg2: f32, %arg3: f32, %arg4: f32, %arg5: f32, %arg6: f32, %arg7: f32, %arg8: f32)
// CHECK-COUNT-8: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-COUNT-8: llvm.store %{{.*}} : f32, !llvm.ptr<1>
module attributes {tkg.shared_bytes = 4096 : i32} {
func.func @convert(%c: !tk.ptr<f32>, %x: tensor<32x32xf32, #acc>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %r = tk.make_range 0, 1024 : tensor<1024xi32, #tkg.blocked<per_thread = 4, threads = 128>>
  %rs = tk.reshape %r : tensor<1024xi32, #tkg.blocked<per_thread = 4, threads = 128>> -> tensor<32x32xi32, #b4>
  %cs = tk.splat %c : !tk.ptr<f32> -> tensor<32x32x!tk.ptr<f32>, #b4>
  %cp = tk.addptr %cs, %rs : tensor<32x32x!tk.ptr<f32>, #b4>, tensor<32x32xi32, #b4>
  %e = tkg.convert_layout %x {tkg.shared_offset = 0 : i32} : tensor<32x32xf32, #acc> -> tensor<32x32xf32, #b4>
  tk.store %cp, %e : tensor<32x32x!tk.ptr<f32>, #b4>, tensor<32x32xf32, #b4>
  return
}
}

// -----

// A 16-bit tile goes from the accumulator layout to the blocked one by stmatrix (sm_90): the
// thread's 8 elements are four b32 pairs, one per 8x8 matrix (row + 8 = index bit 8, the next
// 8 columns = bit 3); lane l gives the address of row l % 8 (index bits 5-7) of matrix l / 8.
// 16-byte chunks are swizzled: the rows' bits 6 and 7 are XORed into bits 3 and 4 (bit 5 is
// already a chunk's low bit), so the 8 rows of a matrix land in 8 bank groups. The reads are
// one 16-byte vector per run. Without stmatrix (sm_80), elements are stored one by one.
// CHECK-LABEL: func.func @convert16
// CHECK-COUNT-4: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK: %[[INDEX:.*]] = arith.xori %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[PTR:.*]] = llvm.getelementptr %{{.*}}[%[[INDEX]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK: nvvm.stmatrix %[[PTR]], {{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// CHECK-NOT: llvm.store %{{.*}} !llvm.ptr<3>
// CHECK-COUNT-8: llvm.store %{{.*}} : f16, !llvm.ptr<1>
// SM80-LABEL: func.func @convert16
// SM80-NOT: nvvm.stmatrix
// SM80-COUNT-8: llvm.store %{{.*}} : f16, !llvm.ptr<3>
#acc16 = #tkg.linear<slots = [0, 8, 3], lanes = [1, 2, 5, 6, 7], warps = [4, 9]>
#b8 = #tkg.blocked<per_thread = 8, threads = 128>
module attributes {tkg.shared_bytes = 2048 : i32} {
func.func @convert16(%c: !tk.ptr<f16>, %x: tensor<32x32xf16, #acc16>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %r = tk.make_range 0, 1024 : tensor<1024xi32, #b8>
  %rs = tk.reshape %r : tensor<1024xi32, #b8> -> tensor<32x32xi32, #b8>
  %cs = tk.splat %c : !tk.ptr<f16> -> tensor<32x32x!tk.ptr<f16>, #b8>
  %cp = tk.addptr %cs, %rs : tensor<32x32x!tk.ptr<f16>, #b8>, tensor<32x32xi32, #b8>
  %e = tkg.convert_layout %x {tkg.shared_offset = 0 : i32} : tensor<32x32xf16, #acc16> -> tensor<32x32xf16, #b8>
  tk.store %cp, %e : tensor<32x32x!tk.ptr<f16>, #b8>, tensor<32x32xf16, #b8>
  return
}
}

// -----

// Layouts are tk-assign-layouts' decision, never made here.
func.func @unassigned(%x: !tk.ptr<f32>) attributes {tk.kernel} {
  // expected-error @+1 {{tile 'tensor<128xi32>' has no layout; run tk-assign-layouts first}}
  %r = tk.make_range 0, 128 : tensor<128xi32>
  return
}

// -----

// A layout over another number of threads than the kernel's (8 warps here) is refused.
func.func @other_threads(%x: !tk.ptr<f32>) attributes {tk.kernel, tk.num_warps = 8 : i32} {
  // expected-error @+1 {{is laid out over 128 threads, but the kernel has 256}}
  %r = tk.make_range 0, 128 : tensor<128xi32, #tkg.blocked<per_thread = 1, threads = 128>>
  return
}

// -----

// Hand-written IR may put a tensor-core layout where a lowering needs the blocked one (an
// atomic here); the pass fails with that said, instead of aborting.
#acc2 = #tkg.linear<slots = [0, 8, 3], lanes = [1, 2, 5, 6, 7], warps = [4, 9]>
// expected-error @+1 {{reached an op that takes tiles only in the blocked layout}}
func.func @atomic_in_mma_layout(%c: !tk.ptr<f32>, %x: tensor<32x32xf32, #acc2>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %cs = tk.splat %c : !tk.ptr<f32> -> tensor<32x32x!tk.ptr<f32>, #acc2>
  %old = tk.atomic_rmw add %cs, %x : (tensor<32x32x!tk.ptr<f32>, #acc2>, tensor<32x32xf32, #acc2>) -> tensor<32x32xf32, #acc2>
  return
}
