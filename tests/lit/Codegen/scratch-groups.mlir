// RUN: tk-opt %s -tk-assign-layouts -tk-allocate-shared -tk-to-threads -canonicalize | FileCheck %s

// A scan, then a sum over 1024 elements on 4 warps. Both pass warp partials through the
// shared buffer. The sum writes without a leading barrier, so it must not use the scan's
// bytes: the scan has bytes 0-255 (32 slots of 8 bytes), the sum starts at byte 256.
// CHECK: module attributes {tkg.shared_bytes = 272 : i32}
// CHECK: llvm.mlir.global external @tk_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: func.func @scan_then_sum
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @tk_smem
// The scan's 2 repetitions each write slot `warp` behind a barrier.
// CHECK: nvvm.barrier0
// CHECK-NEXT: scf.if
// CHECK-NEXT: %[[SCAN_PTR:.*]] = llvm.getelementptr %[[BASE]][%{{[0-9]+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: llvm.store %{{.*}}, %[[SCAN_PTR]] : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: scf.if
// The sum's writers (lane 0 of each warp) store partial `warp` at byte 256 on, with no
// barrier before them, then one barrier before the reads.
// CHECK: %[[SUM:.*]] = llvm.getelementptr %[[BASE]][256] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NOT: nvvm.barrier0
// CHECK: %[[WRITER:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: scf.if %[[WRITER]]
// CHECK: %[[PTR:.*]] = llvm.getelementptr %[[SUM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
// CHECK-NEXT: llvm.store %{{.*}}, %[[PTR]] : i32, !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.load %[[SUM]] : !llvm.ptr<3> -> i32
func.func @scan_then_sum(%x: !tk.ptr<i32> {tk.divisibility = 16 : i64}, %out: !tk.ptr<i32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %r = tk.make_range 0, 1024 : tensor<1024xi32>
  %xs = tk.splat %x : !tk.ptr<i32> -> tensor<1024x!tk.ptr<i32>>
  %xp = tk.addptr %xs, %r : tensor<1024x!tk.ptr<i32>>, tensor<1024xi32>
  %v = tk.load %xp : (tensor<1024x!tk.ptr<i32>>) -> tensor<1024xi32>
  %c = tk.scan %v axis = 0 : tensor<1024xi32> -> tensor<1024xi32> {
  ^bb0(%a: i32, %b: i32):
    %s = arith.addi %a, %b : i32
    tk.yield %s : i32
  }
  %t = tk.reduce %c axis = 0 : tensor<1024xi32> -> i32 {
  ^bb0(%a: i32, %b: i32):
    %s = arith.addi %a, %b : i32
    tk.yield %s : i32
  }
  tk.store %out, %t : !tk.ptr<i32>, i32
  return
}
