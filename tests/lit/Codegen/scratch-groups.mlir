// RUN: tk-opt %s -tk-to-threads -canonicalize | FileCheck %s

// A scan, then a sum over 1024 elements on 4 warps. Both pass warp partials through shared
// memory. The sum writes without a leading barrier, so it must not use the scan's slots
// (group 0): it gets group 1, slots 32 and up.
// CHECK-LABEL: func.func @scan_then_sum
// CHECK: %[[C32:.*]] = arith.constant 32 : i32
// The scan's 4 repetitions each write slot `warp` of group 0 behind a barrier.
// CHECK: nvvm.barrier0
// CHECK-NEXT: scf.if
// CHECK-NEXT: %[[SCAN_PTR:.*]] = llvm.getelementptr %{{.*}}[%{{[0-9]+}}] : (!llvm.ptr<3>, i32)
// CHECK-NEXT: llvm.store %{{.*}}, %[[SCAN_PTR]] : i32, !llvm.ptr<3>
// The sum's writers (lane 0 of each warp) store at slot `warp + 32` (group 1), with no
// barrier between their condition and the store.
// CHECK: %[[WRITER:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: scf.if %[[WRITER]]
// CHECK-NEXT: %[[SLOT:.*]] = arith.addi %{{.*}}, %[[C32]] : i32
// CHECK-NEXT: %[[PTR:.*]] = llvm.getelementptr %{{.*}}[%[[SLOT]]]
// CHECK-NEXT: llvm.store %{{.*}}, %[[PTR]] : i32, !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier0
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
