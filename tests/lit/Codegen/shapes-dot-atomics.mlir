// RUN: tk-opt %s -split-input-file -tk-assign-layouts -tk-allocate-shared -tk-to-threads -canonicalize -verify-diagnostics | FileCheck %s
// RUN: tk-opt %s -split-input-file -tk-assign-layouts -tk-allocate-shared -tk-to-threads=debug=true -canonicalize -verify-diagnostics | FileCheck %s --check-prefix=DEBUG

// Tiles of any rank use the blocked layout of their row-major index, so expand_dims (and
// reshape) keep every element in its thread: no shared memory, no barrier.
// CHECK-LABEL: func.func @expand_is_free
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @expand_is_free(%x: !tk.ptr<i32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %r = tk.make_range 0, 512 : tensor<512xi32>
  %e = tk.expand_dims %r, 1 : tensor<512xi32> -> tensor<512x1xi32>
  %p = tk.splat %x : !tk.ptr<i32> -> tensor<512x1x!tk.ptr<i32>>
  %q = tk.addptr %p, %e : tensor<512x1x!tk.ptr<i32>>, tensor<512x1xi32>
  tk.store %q, %e : tensor<512x1x!tk.ptr<i32>>, tensor<512x1xi32>
  return
}

// -----

// A column broadcast to [16, 32]: the 16 owners (threads 0-15) write the column to shared
// memory; each thread's 4 slots lie in one row, so it reads that row's value once. (A loaded
// tile is reread by each thread only when broadcast into a tensor-core layout: lit
// broadcast-reread.tk.)
// CHECK: module attributes {tkg.shared_bytes = 64 : i32}
// CHECK: llvm.mlir.global external @tk_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: func.func @broadcast_through_shared
// CHECK: %[[OWNER:.*]] = arith.cmpi ult, %{{.*}}, %c16_i32 : i32
// CHECK-NEXT: scf.if %[[OWNER]] {
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load
// CHECK-COUNT-4: llvm.store %[[V]], %{{.*}} : f32, !llvm.ptr<1>
// CHECK: return
func.func @broadcast_through_shared(%x: !tk.ptr<f32>, %out: !tk.ptr<f32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %r = tk.make_range 0, 16 : tensor<16xi32>
  %xs = tk.splat %x : !tk.ptr<f32> -> tensor<16x!tk.ptr<f32>>
  %xp = tk.addptr %xs, %r : tensor<16x!tk.ptr<f32>>, tensor<16xi32>
  %v = tk.load %xp : (tensor<16x!tk.ptr<f32>>) -> tensor<16xf32>
  %col = tk.expand_dims %v, 1 : tensor<16xf32> -> tensor<16x1xf32>
  %b = tk.broadcast %col : tensor<16x1xf32> -> tensor<16x32xf32>
  %o = tk.splat %out : !tk.ptr<f32> -> tensor<16x32x!tk.ptr<f32>>
  tk.store %o, %b : tensor<16x32x!tk.ptr<f32>>, tensor<16x32xf32>
  return
}

// -----

// Row sums of [16, 32] f32: each thread adds its 4 slots (one row), lanes 0-7 of a row group
// combine by butterfly (offsets 4, 2, 1), then the per-row results move through shared memory
// to the layout of the [16] result.
// CHECK-LABEL: func.func @row_sums
// CHECK-COUNT-3: arith.addf
// CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %c4_i32, %c31_i32
// CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %c2_i32, %c31_i32
// CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %c1_i32, %c31_i32
// CHECK-NOT: nvvm.shfl.sync
// CHECK: scf.if
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
func.func @row_sums(%x: !tk.ptr<f32>, %out: !tk.ptr<f32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %r = tk.make_range 0, 512 : tensor<512xi32>
  %xs = tk.splat %x : !tk.ptr<f32> -> tensor<512x!tk.ptr<f32>>
  %xp = tk.addptr %xs, %r : tensor<512x!tk.ptr<f32>>, tensor<512xi32>
  %v = tk.load %xp : (tensor<512x!tk.ptr<f32>>) -> tensor<512xf32>
  %t = tk.reshape %v : tensor<512xf32> -> tensor<16x32xf32>
  %s = tk.reduce %t axis = 1 : tensor<16x32xf32> -> tensor<16xf32> {
  ^bb0(%a: f32, %b: f32):
    %sum = arith.addf %a, %b : f32
    tk.yield %sum : f32
  }
  %o = tk.splat %out : !tk.ptr<f32> -> tensor<16x!tk.ptr<f32>>
  %or = tk.make_range 0, 16 : tensor<16xi32>
  %op = tk.addptr %o, %or : tensor<16x!tk.ptr<f32>>, tensor<16xi32>
  tk.store %op, %s : tensor<16x!tk.ptr<f32>>, tensor<16xf32>
  return
}

// -----

// dot by FMA: both operands go to shared memory (a at byte 0, b after a's 1024 bytes), then
// a loop over k = 0..31 accumulates in f32 from f16 values.
// CHECK-LABEL: func.func @fma_dot
// CHECK: nvvm.barrier0
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[K:.*]] = %c0_i32 to %c32_i32 step %c1_i32 iter_args
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: scf.yield
func.func @fma_dot(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>, %out: !tk.ptr<f32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %c = tk.dot %a, %b, %zero : tensor<16x32xf16> * tensor<32x16xf16> -> tensor<16x16xf32>
  %o = tk.splat %out : !tk.ptr<f32> -> tensor<16x16x!tk.ptr<f32>>
  tk.store %o, %c : tensor<16x16x!tk.ptr<f32>>, tensor<16x16xf32>
  return
}

// -----

// Atomics: 16 counters, 128 threads: after a barrier of the program (so the owners' acq_rel
// orders every thread's earlier writes), only the 16 owners add, between fences (NVPTX
// writes the atomicrmw itself as a relaxed atom); the old values reach the replicas through
// shared memory.
// CHECK-LABEL: func.func @counters
// CHECK: nvvm.barrier0
// CHECK: %[[OWNER:.*]] = arith.cmpi ult, %{{.*}}, %c16_i32 : i32
// CHECK: scf.if %[[OWNER]] -> (i32)
// CHECK-NEXT: llvm.fence syncscope("device") release
// CHECK-NEXT: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") acq_rel : !llvm.ptr<1>, i32
// CHECK-NEXT: llvm.fence syncscope("device") acquire
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
func.func @counters(%c: !tk.ptr<i32>, %olds: !tk.ptr<i32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %one = arith.constant dense<1> : tensor<16xi32>
  %r = tk.make_range 0, 16 : tensor<16xi32>
  %cs = tk.splat %c : !tk.ptr<i32> -> tensor<16x!tk.ptr<i32>>
  %cp = tk.addptr %cs, %r : tensor<16x!tk.ptr<i32>>, tensor<16xi32>
  %old = tk.atomic_rmw add %cp, %one : (tensor<16x!tk.ptr<i32>>, tensor<16xi32>) -> tensor<16xi32>
  %os = tk.splat %olds : !tk.ptr<i32> -> tensor<16x!tk.ptr<i32>>
  %op = tk.addptr %os, %r : tensor<16x!tk.ptr<i32>>, tensor<16xi32>
  tk.store %op, %old : tensor<16x!tk.ptr<i32>>, tensor<16xi32>
  return
}

// -----

// Atomics whose elements each have an owner (128 counters on 128 threads, one per row of a
// split-K partial): the rows were stored by other threads, so a barrier of the program comes
// before the owners' increments (else one could release its row before another thread's store
// of it). An atomic that no global write may precede (a histogram) needs none.
// CHECK-LABEL: func.func @row_counters
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<1>
// CHECK: nvvm.barrier0
// CHECK-NEXT: llvm.fence syncscope("device") release
// CHECK-NEXT: llvm.atomicrmw add
func.func @row_counters(%part: !tk.ptr<f32>, %c: !tk.ptr<i32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %v = arith.constant dense<1.0> : tensor<128x64xf32>
  %one = arith.constant dense<1> : tensor<128xi32>
  %c64 = arith.constant dense<64> : tensor<128x1xi32>
  %r = tk.make_range 0, 128 : tensor<128xi32>
  %n = tk.make_range 0, 64 : tensor<64xi32>
  %r2 = tk.expand_dims %r, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %rows = arith.muli %r2, %c64 : tensor<128x1xi32>
  %rb = tk.broadcast %rows : tensor<128x1xi32> -> tensor<128x64xi32>
  %n2 = tk.expand_dims %n, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %nb = tk.broadcast %n2 : tensor<1x64xi32> -> tensor<128x64xi32>
  %offs = arith.addi %rb, %nb : tensor<128x64xi32>
  %ps = tk.splat %part : !tk.ptr<f32> -> tensor<128x64x!tk.ptr<f32>>
  %pp = tk.addptr %ps, %offs : tensor<128x64x!tk.ptr<f32>>, tensor<128x64xi32>
  tk.store %pp, %v : tensor<128x64x!tk.ptr<f32>>, tensor<128x64xf32>
  %cs = tk.splat %c : !tk.ptr<i32> -> tensor<128x!tk.ptr<i32>>
  %cp = tk.addptr %cs, %r : tensor<128x!tk.ptr<i32>>, tensor<128xi32>
  %old = tk.atomic_rmw add %cp, %one : (tensor<128x!tk.ptr<i32>>, tensor<128xi32>) -> tensor<128xi32>
  return
}

// CHECK-LABEL: func.func @histogram
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.atomicrmw add
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @histogram(%x: !tk.ptr<i32>, %bins: !tk.ptr<i32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %one = arith.constant dense<1> : tensor<1024xi32>
  %r = tk.make_range 0, 1024 : tensor<1024xi32>
  %xs = tk.splat %x : !tk.ptr<i32> -> tensor<1024x!tk.ptr<i32>>
  %xp = tk.addptr %xs, %r : tensor<1024x!tk.ptr<i32>>, tensor<1024xi32>
  %v = tk.load %xp : (tensor<1024x!tk.ptr<i32>>) -> tensor<1024xi32>
  %bs = tk.splat %bins : !tk.ptr<i32> -> tensor<1024x!tk.ptr<i32>>
  %bp = tk.addptr %bs, %v : tensor<1024x!tk.ptr<i32>>, tensor<1024xi32>
  %old = tk.atomic_rmw add %bp, %one : (tensor<1024x!tk.ptr<i32>>, tensor<1024xi32>) -> tensor<1024xi32>
  return
}

// -----

// A compare-and-swap keeps its acq_rel through NVPTX (atom.acq_rel.gpu.cas), so no fences
// surround it; the barrier before it (a scalar: one owner) stays.
// CHECK-LABEL: func.func @lock
// CHECK: nvvm.barrier0
// CHECK-NOT: llvm.fence
// CHECK: llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} syncscope("device") acq_rel acquire
// CHECK-NOT: llvm.fence
// CHECK: return
func.func @lock(%l: !tk.ptr<i32>, %out: !tk.ptr<i32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %old = tk.atomic_cas %l, %c0, %c1 : (!tk.ptr<i32>, i32, i32) -> i32
  tk.store %out, %old : !tk.ptr<i32>, i32
  return
}

// -----

// sem = relaxed (a histogram that needs no ordering, as Triton's sem="relaxed"): no fences and
// no barrier, though a store precedes it; sem = acquire: only the fence after; release: the
// barrier and the fence before. cmpxchg carries its ordering.
// CHECK-LABEL: func.func @semantics
// CHECK: llvm.store
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: llvm.fence
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") monotonic
// CHECK-NOT: llvm.fence release
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") acquire
// CHECK-NEXT: llvm.fence syncscope("device") acquire
// CHECK: nvvm.barrier0
// CHECK: llvm.fence syncscope("device") release
// CHECK-NEXT: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") release
// CHECK-NOT: llvm.fence syncscope("device") acquire
// CHECK: llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} syncscope("device") monotonic monotonic
// CHECK: return
func.func @semantics(%x: !tk.ptr<i32>, %bins: !tk.ptr<i32>, %l: !tk.ptr<i32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %one = arith.constant dense<1> : tensor<1024xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tk.make_range 0, 1024 : tensor<1024xi32>
  %xs = tk.splat %x : !tk.ptr<i32> -> tensor<1024x!tk.ptr<i32>>
  %xp = tk.addptr %xs, %r : tensor<1024x!tk.ptr<i32>>, tensor<1024xi32>
  tk.store %xp, %one : tensor<1024x!tk.ptr<i32>>, tensor<1024xi32>
  %bs = tk.splat %bins : !tk.ptr<i32> -> tensor<1024x!tk.ptr<i32>>
  %bp = tk.addptr %bs, %r : tensor<1024x!tk.ptr<i32>>, tensor<1024xi32>
  %a = tk.atomic_rmw add %bp, %one sem = relaxed : (tensor<1024x!tk.ptr<i32>>, tensor<1024xi32>) -> tensor<1024xi32>
  %b = tk.atomic_rmw add %bp, %one sem = acquire : (tensor<1024x!tk.ptr<i32>>, tensor<1024xi32>) -> tensor<1024xi32>
  %c = tk.atomic_rmw add %bp, %one sem = release : (tensor<1024x!tk.ptr<i32>>, tensor<1024xi32>) -> tensor<1024xi32>
  %d = tk.atomic_cas %l, %c0, %c1 sem = relaxed : (!tk.ptr<i32>, i32, i32) -> i32
  return
}

// -----

// print: one vprintf per owned element in the interpreter's format; assert is dropped
// unless debug is on, where a failing element calls __assertfail with file, line and kernel.
// CHECK: llvm.mlir.global internal constant @tk_str_{{[0-9]+}}("pid (%d, %d, %d) idx (%d) v = %d\0A\00")
// CHECK-LABEL: func.func @debug_ops
// CHECK: llvm.call @vprintf
// CHECK-NOT: __assertfail
// DEBUG-LABEL: func.func @debug_ops
// DEBUG: llvm.call @vprintf
// DEBUG: scf.if
// DEBUG: llvm.call @__assertfail(%{{.*}}, %{{.*}}, %c{{[0-9]+}}_i32, %{{.*}}, %c1_i64) : (!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64) -> ()
func.func @debug_ops(%v: tensor<4xi32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %zero = arith.constant dense<0> : tensor<4xi32>
  tk.print "v = " %v : tensor<4xi32>
  %ok = arith.cmpi sge, %v, %zero : tensor<4xi32>
  tk.assert %ok, "non-negative" : tensor<4xi1>
  return
}

// -----

// A tile that needs more shared memory than a program can have statically is a located error.
func.func @too_big(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  // expected-error @+1 {{'tk.dot' needs 131072 bytes of shared memory on the GPU, more than 49152; use smaller tiles}}
  %c = tk.dot %a, %b, %zero : tensor<128x128xf32> * tensor<128x128xf32> -> tensor<128x128xf32>
  return
}
