// RUN: tk-opt %s -tk-combine-dot-add | FileCheck %s

// CHECK-LABEL: func.func @accumulate
// CHECK: %[[D:.*]] = tk.dot %arg0, %arg1, %arg2 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
// CHECK-NOT: arith.addf
// CHECK: return %[[D]]
func.func @accumulate(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tk.dot %a, %b, %zero : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %s = arith.addf %acc, %d : tensor<16x16xf32>
  return %s : tensor<16x16xf32>
}

// Integer dots fold the same way; the precision attribute is kept.
// CHECK-LABEL: func.func @accumulate_int
// CHECK: tk.dot %arg0, %arg1, %arg2 : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
// CHECK-NOT: arith.addi
func.func @accumulate_int(%a: tensor<16x32xi8>, %b: tensor<32x16xi8>, %acc: tensor<16x16xi32>) -> tensor<16x16xi32> {
  %zero = arith.constant dense<0> : tensor<16x16xi32>
  %d = tk.dot %a, %b, %zero : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
  %s = arith.addi %d, %acc : tensor<16x16xi32>
  return %s : tensor<16x16xi32>
}

// CHECK-LABEL: func.func @keeps_ieee
// CHECK: tk.dot %arg0, %arg1, %arg2 precision = ieee
func.func @keeps_ieee(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %acc: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tk.dot %a, %b, %zero precision = ieee : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %s = arith.addf %d, %acc : tensor<16x16xf32>
  return %s : tensor<16x16xf32>
}

// A dot whose accumulator is not zero, or whose result has other users, stays as it is.
// CHECK-LABEL: func.func @not_zero
// CHECK: tk.dot %arg0, %arg1, %arg2
// CHECK: arith.addf
func.func @not_zero(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = tk.dot %a, %b, %acc : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %s = arith.addf %d, %acc : tensor<16x16xf32>
  return %s : tensor<16x16xf32>
}

// CHECK-LABEL: func.func @two_users
// CHECK: %[[D:.*]] = tk.dot
// CHECK: arith.addf %arg2, %[[D]]
func.func @two_users(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tk.dot %a, %b, %zero : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %s = arith.addf %acc, %d : tensor<16x16xf32>
  return %s, %d : tensor<16x16xf32>, tensor<16x16xf32>
}

// An FP8 dot with max_num_imprecise_acc keeps its add: the product is promoted to f32 there.
// CHECK-LABEL: func.func @keeps_promotion
// CHECK: %[[P:.*]] = tk.dot %arg0, %arg1, %{{.*}} max_num_imprecise_acc = 64 :
// CHECK: arith.addf %arg2, %[[P]]
func.func @keeps_promotion(%a: tensor<64x64xf8E4M3FN>, %b: tensor<64x64xf8E4M3FN>, %acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tk.dot %a, %b, %zero max_num_imprecise_acc = 64 : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  %s = arith.addf %acc, %d : tensor<64x64xf32>
  return %s : tensor<64x64xf32>
}
