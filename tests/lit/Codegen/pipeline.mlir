// RUN: tk-opt %s -split-input-file -tk-pipeline-dot-loads | FileCheck %s --check-prefix=PIPE
// RUN: tk-opt %s -split-input-file -tk-pipeline-dot-loads -tk-assign-layouts -tk-allocate-shared -tk-to-threads -canonicalize | FileCheck %s --check-prefix=THREADS

// A k-loop of a 64x64 f16 matmul with 3 stages: the loads of A and B (pointers bumped each
// iteration, K masked) become rings of 3 stages. The prologue starts iterations 0 and 1; each
// iteration waits for its own group, starts iteration i + 2 into the stage iteration i - 1
// read (masked off past the end), and the dot reads stage i % 3.
// PIPE-LABEL: func.func @k_loop
// PIPE: %[[A:.*]] = tkg.local_alloc : !tkg.shared<[3, 64, 32], f16>
// PIPE: %[[B:.*]] = tkg.local_alloc : !tkg.shared<[3, 32, 64], f16>
// PIPE: tkg.async_copy %{{.*}}, %[[A]][%c0_i32{{.*}}] mask
// PIPE: tkg.async_copy %{{.*}}, %[[B]][%c0_i32{{.*}}] mask
// PIPE-NEXT: tkg.async_commit
// PIPE: tkg.async_copy %{{.*}}, %[[A]][%c1_i32{{.*}}] mask
// PIPE: tkg.async_copy %{{.*}}, %[[B]][%c1_i32{{.*}}] mask
// PIPE-NEXT: tkg.async_commit
// PIPE: scf.for %[[I:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[PA:.*]] = %{{.*}}, %[[PB:.*]] = %{{.*}}, %[[READ:.*]] = %c0_i32{{.*}}, %[[FILL:.*]] = %c2_i32)
// PIPE-NEXT: tkg.async_wait 1
// PIPE: %[[AHEAD:.*]] = arith.addi %[[I]], %{{.*}} : i32
// PIPE: %[[IN:.*]] = arith.cmpi slt, %[[AHEAD]], %{{.*}} : i32
// PIPE: tk.splat %[[IN]] : i1 -> tensor<64x32xi1>
// PIPE: tkg.async_copy %[[PA]], %[[A]][%[[FILL]]] mask
// PIPE: tkg.async_copy %[[PB]], %[[B]][%[[FILL]]] mask
// PIPE-NEXT: tkg.async_commit
// PIPE-NEXT: %[[TA:.*]] = tkg.local_load %[[A]][%[[READ]]] : !tkg.shared<[3, 64, 32], f16> -> tensor<64x32xf16>
// PIPE-NEXT: %[[TB:.*]] = tkg.local_load %[[B]][%[[READ]]] : !tkg.shared<[3, 32, 64], f16> -> tensor<32x64xf16>
// PIPE-NEXT: tk.dot %[[TA]], %[[TB]], %[[ACC]]
// PIPE: scf.yield
// PIPE-NEXT: }
// PIPE-NEXT: tkg.async_wait 0
//
// Per thread: 16-byte cp.async.cg (2 per operand), the mask as the source size; a wait that
// ends in the iteration's only barrier (the K mask's broadcast is recomputed in each thread);
// ldmatrix straight from the stage; no staging stores.
// THREADS-LABEL: func.func @k_loop
// THREADS: scf.for
// THREADS: nvvm.cp.async.wait.group 1
// THREADS-NEXT: nvvm.barrier0
// THREADS-NOT: nvvm.barrier0
// THREADS: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// THREADS-NOT: nvvm.barrier0
// THREADS: nvvm.cp.async.commit.group
// THREADS-NOT: llvm.store
// THREADS-NOT: nvvm.barrier0
// THREADS: nvvm.ldmatrix
// THREADS-NOT: nvvm.barrier0
// THREADS: nvvm.mma.sync
// THREADS-NOT: nvvm.barrier0
// THREADS: scf.yield
// THREADS: nvvm.cp.async.wait.group 0
func.func @k_loop(%a: !tk.ptr<f16> {tk.divisibility = 16 : i64}, %b: !tk.ptr<f16> {tk.divisibility = 16 : i64},
                  %c: !tk.ptr<f32> {tk.divisibility = 16 : i64}, %n: i32, %kmax: i32 {tk.divisibility = 16 : i64})
    attributes {tk.kernel, tk.num_warps = 4 : i32, tk.num_stages = 3 : i32} {
  %c64k = arith.constant dense<64> : tensor<32x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %step32 = arith.constant dense<32> : tensor<64x32xi32>
  %step2k = arith.constant dense<2048> : tensor<32x64xi32>
  %c32s = arith.constant 32 : i32
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
  %pa0 = tk.addptr %apb, %krb : tensor<64x32x!tk.ptr<f16>>, tensor<64x32xi32>
  %bs = tk.splat %b : !tk.ptr<f16> -> tensor<32x1x!tk.ptr<f16>>
  %kc = tk.expand_dims %k, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %kb = arith.muli %kc, %c64k : tensor<32x1xi32>
  %bp = tk.addptr %bs, %kb : tensor<32x1x!tk.ptr<f16>>, tensor<32x1xi32>
  %bpb = tk.broadcast %bp : tensor<32x1x!tk.ptr<f16>> -> tensor<32x64x!tk.ptr<f16>>
  %rr = tk.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rrb = tk.broadcast %rr : tensor<1x64xi32> -> tensor<32x64xi32>
  %pb0 = tk.addptr %bpb, %rrb : tensor<32x64x!tk.ptr<f16>>, tensor<32x64xi32>
  %acc:3 = scf.for %i = %zero to %n step %one iter_args(%sum = %init, %pa = %pa0, %pb = %pb0)
      -> (tensor<64x64xf32>, tensor<64x32x!tk.ptr<f16>>, tensor<32x64x!tk.ptr<f16>>) : i32 {
    %done = arith.muli %i, %c32s : i32
    %left = arith.subi %kmax, %done : i32
    %lefts = tk.splat %left : i32 -> tensor<1x32xi32>
    %kin = arith.cmpi slt, %kr, %lefts : tensor<1x32xi32>
    %ma = tk.broadcast %kin : tensor<1x32xi1> -> tensor<64x32xi1>
    %leftc = tk.splat %left : i32 -> tensor<32x1xi32>
    %kinc = arith.cmpi slt, %kc, %leftc : tensor<32x1xi32>
    %mb = tk.broadcast %kinc : tensor<32x1xi1> -> tensor<32x64xi1>
    %ta = tk.load %pa mask %ma : (tensor<64x32x!tk.ptr<f16>>, tensor<64x32xi1>) -> tensor<64x32xf16>
    %tb = tk.load %pb mask %mb : (tensor<32x64x!tk.ptr<f16>>, tensor<32x64xi1>) -> tensor<32x64xf16>
    %d = tk.dot %ta, %tb, %sum : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %pa1 = tk.addptr %pa, %step32 : tensor<64x32x!tk.ptr<f16>>, tensor<64x32xi32>
    %pb1 = tk.addptr %pb, %step2k : tensor<32x64x!tk.ptr<f16>>, tensor<32x64xi32>
    scf.yield %d, %pa1, %pb1 : tensor<64x64xf32>, tensor<64x32x!tk.ptr<f16>>, tensor<32x64x!tk.ptr<f16>>
  }
  %cs = tk.splat %c : !tk.ptr<f32> -> tensor<64x64x!tk.ptr<f32>>
  tk.store %cs, %acc#0 : tensor<64x64x!tk.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// B as K's rows (dot(q, trans(k))): the stage keeps the rows as loaded and the dot reads it
// transposed (ldmatrix without .trans). A load whose pointers are loop-carried and also
// stored stays as it is.
// PIPE-LABEL: func.func @rows_of_n
// PIPE: %[[K:.*]] = tkg.local_alloc : !tkg.shared<[2, 32, 16], f16>
// PIPE-NOT: tkg.local_alloc
// PIPE: scf.for
// PIPE-NEXT: tkg.async_wait 0
// PIPE: tkg.local_load %[[K]][%{{.*}}] trans : !tkg.shared<[2, 32, 16], f16> -> tensor<16x32xf16>
// PIPE: tk.load %{{.*}} : (tensor<16x32x!tk.ptr<f16>>) -> tensor<16x32xf16>
// THREADS-LABEL: func.func @rows_of_n
// THREADS: scf.for
// THREADS: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32
// THREADS-NOT: layout = #nvvm.mma_layout<col>
// THREADS: nvvm.mma.sync
func.func @rows_of_n(%q: tensor<16x16xf16>, %kp: tensor<32x16x!tk.ptr<f16>>, %other: tensor<16x32x!tk.ptr<f16>>, %n: i32)
    attributes {tk.kernel, tk.num_warps = 1 : i32, tk.num_stages = 2 : i32} {
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %init = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
  %res:2 = scf.for %i = %zero to %n step %one iter_args(%sum = %init, %p = %other) -> (tensor<16x32xf32>, tensor<16x32x!tk.ptr<f16>>) : i32 {
    %kt = tk.load %kp : (tensor<32x16x!tk.ptr<f16>>) -> tensor<32x16xf16>
    %t = tk.trans %kt, [1, 0] : tensor<32x16xf16> -> tensor<16x32xf16>
    %d = tk.dot %q, %t, %sum : tensor<16x16xf16> * tensor<16x32xf16> -> tensor<16x32xf32>
    %x = tk.load %p : (tensor<16x32x!tk.ptr<f16>>) -> tensor<16x32xf16>
    tk.store %p, %x : tensor<16x32x!tk.ptr<f16>>, tensor<16x32xf16>
    scf.yield %d, %p : tensor<16x32xf32>, tensor<16x32x!tk.ptr<f16>>
  }
  return
}

// -----

// A tile loaded before the loop and used only by the loop's tensor-core dot (attention's Q) is
// copied once into a one-stage buffer; without loads to pipeline in the loop, a wait for it
// comes right before the loop, and one after it (an enclosing loop may copy into it again).
// PIPE-LABEL: func.func @invariant_operand
// PIPE: %[[Q:.*]] = tkg.local_alloc : !tkg.shared<[1, 16, 16], f16>
// PIPE-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// PIPE-NEXT: tkg.async_copy %{{.*}}, %[[Q]][%[[ZERO]]] : tensor<16x16x!tk.ptr<f16>>, !tkg.shared<[1, 16, 16], f16>
// PIPE-NEXT: tkg.async_commit
// PIPE: tkg.async_wait 0
// PIPE-NEXT: scf.for
// PIPE: tkg.local_load %[[Q]][%[[ZERO]]] : !tkg.shared<[1, 16, 16], f16> -> tensor<16x16xf16>
// PIPE: scf.yield
// PIPE-NEXT: }
// PIPE-NEXT: tkg.async_wait 0
func.func @invariant_operand(%qp: tensor<16x16x!tk.ptr<f16>>, %b: tensor<16x32xf16>, %n: i32)
    attributes {tk.kernel, tk.num_warps = 1 : i32, tk.num_stages = 3 : i32} {
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %init = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
  %q = tk.load %qp : (tensor<16x16x!tk.ptr<f16>>) -> tensor<16x16xf16>
  %res = scf.for %i = %zero to %n step %one iter_args(%sum = %init) -> (tensor<16x32xf32>) : i32 {
    %d = tk.dot %q, %b, %sum : tensor<16x16xf16> * tensor<16x32xf16> -> tensor<16x32xf32>
    scf.yield %d : tensor<16x32xf32>
  }
  return
}
