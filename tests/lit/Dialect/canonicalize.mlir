// RUN: tk-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @splat_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<3> : tensor<16xi32>
// CHECK-NEXT: return %[[C]]
func.func @splat_of_constant() -> tensor<16xi32> {
  %c = arith.constant 3 : i32
  %0 = tk.splat %c : i32 -> tensor<16xi32>
  return %0 : tensor<16xi32>
}

// -----

// CHECK-LABEL: func.func @expand_and_broadcast_of_splat
// CHECK-NEXT: %[[S:.*]] = tk.splat %arg0 : i32 -> tensor<16x32xi32>
// CHECK-NEXT: return %[[S]]
func.func @expand_and_broadcast_of_splat(%x: i32) -> tensor<16x32xi32> {
  %0 = tk.splat %x : i32 -> tensor<16xi32>
  %1 = tk.expand_dims %0, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %2 = tk.broadcast %1 : tensor<16x1xi32> -> tensor<16x32xi32>
  return %2 : tensor<16x32xi32>
}

// -----

// CHECK-LABEL: func.func @broadcast_of_broadcast
// CHECK-NEXT: %[[B:.*]] = tk.broadcast %arg0 : tensor<1x1xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_of_broadcast(%x: tensor<1x1xf32>) -> tensor<8x8xf32> {
  %0 = tk.broadcast %x : tensor<1x1xf32> -> tensor<1x8xf32>
  %1 = tk.broadcast %0 : tensor<1x8xf32> -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----

// CHECK-LABEL: func.func @identity_shapes
// CHECK-NEXT: return %arg0
func.func @identity_shapes(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = tk.broadcast %x : tensor<8x4xf32> -> tensor<8x4xf32>
  %1 = tk.reshape %0 : tensor<8x4xf32> -> tensor<8x4xf32>
  %2 = tk.trans %1, [0, 1] : tensor<8x4xf32> -> tensor<8x4xf32>
  return %2 : tensor<8x4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_chain
// CHECK-NEXT: %[[R:.*]] = tk.reshape %arg0 : tensor<8x4xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain(%x: tensor<8x4xf32>) -> tensor<2x16xf32> {
  %0 = tk.reshape %x : tensor<8x4xf32> -> tensor<32xf32>
  %1 = tk.reshape %0 : tensor<32xf32> -> tensor<2x16xf32>
  return %1 : tensor<2x16xf32>
}

// -----

// trans(trans(x, [1, 2, 0]), [2, 0, 1]) is the identity.
// CHECK-LABEL: func.func @trans_of_trans
// CHECK-NEXT: return %arg0
func.func @trans_of_trans(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = tk.trans %x, [1, 2, 0] : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  %1 = tk.trans %0, [2, 0, 1] : tensor<4x8x2xf32> -> tensor<2x4x8xf32>
  return %1 : tensor<2x4x8xf32>
}

// -----

// CHECK-LABEL: func.func @addptr_zero
// CHECK-NEXT: return %arg0
func.func @addptr_zero(%p: tensor<16x!tk.ptr<f16>>) -> tensor<16x!tk.ptr<f16>> {
  %z = arith.constant dense<0> : tensor<16xi32>
  %0 = tk.addptr %p, %z : tensor<16x!tk.ptr<f16>>, tensor<16xi32>
  return %0 : tensor<16x!tk.ptr<f16>>
}

// -----

// Stores have effects and stay.
// CHECK-LABEL: func.func @keeps_stores
// CHECK: tk.store
func.func @keeps_stores(%p: !tk.ptr<f32>, %v: f32) {
  tk.store %p, %v : !tk.ptr<f32>, f32
  return
}
