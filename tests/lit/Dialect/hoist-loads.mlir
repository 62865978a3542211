// RUN: tk-opt %s -tk-hoist-loads | FileCheck %s

// The weight load and its address arithmetic move above the reduction; the load after the
// store stays behind it.
// CHECK-LABEL: func.func @norm
// CHECK-COUNT-2: tk.load
// CHECK: tk.reduce
// CHECK: tk.store
// CHECK: tk.load
func.func @norm(%x: !tk.ptr<f32>, %w: !tk.ptr<f32>, %y: !tk.ptr<f32>) {
  %r = tk.make_range 0, 16 : tensor<16xi32>
  %xs = tk.splat %x : !tk.ptr<f32> -> tensor<16x!tk.ptr<f32>>
  %xp = tk.addptr %xs, %r : tensor<16x!tk.ptr<f32>>, tensor<16xi32>
  %v = tk.load %xp : (tensor<16x!tk.ptr<f32>>) -> tensor<16xf32>
  %s = tk.reduce %v axis = 0 : tensor<16xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tk.yield %c : f32
  }
  %ws = tk.splat %w : !tk.ptr<f32> -> tensor<16x!tk.ptr<f32>>
  %wp = tk.addptr %ws, %r : tensor<16x!tk.ptr<f32>>, tensor<16xi32>
  %wv = tk.load %wp : (tensor<16x!tk.ptr<f32>>) -> tensor<16xf32>
  %ss = tk.splat %s : f32 -> tensor<16xf32>
  %o = arith.mulf %wv, %ss : tensor<16xf32>
  tk.store %xp, %o : tensor<16x!tk.ptr<f32>>, tensor<16xf32>
  %again = tk.load %xp : (tensor<16x!tk.ptr<f32>>) -> tensor<16xf32>
  %ys = tk.splat %y : !tk.ptr<f32> -> tensor<16x!tk.ptr<f32>>
  %yp = tk.addptr %ys, %r : tensor<16x!tk.ptr<f32>>, tensor<16xi32>
  tk.store %yp, %again : tensor<16x!tk.ptr<f32>>, tensor<16xf32>
  return
}

// A prefetch hint or gdc_launch_dependents writes no memory: a load moves above them (it once
// stayed behind, their keep-alive effect taken for a write); gdc_wait stops it.
// CHECK-LABEL: func.func @hints
// CHECK: tk.gdc_wait
// CHECK-NEXT: tk.load
// CHECK-NEXT: tk.prefetch_l2
// CHECK-NEXT: tk.gdc_launch_dependents
func.func @hints(%x: !tk.ptr<f32>, %w: !tk.ptr<f32>, %n: i64) {
  tk.gdc_wait
  tk.prefetch_l2 %w, %n : !tk.ptr<f32>
  tk.gdc_launch_dependents
  %v = tk.load %x : (!tk.ptr<f32>) -> f32
  tk.store %w, %v : !tk.ptr<f32>, f32
  return
}
