// RUN: tk-opt %s -split-input-file -verify-diagnostics

func.func @grid_axis() {
  // expected-error @+1 {{'tk.program_id' op grid axis must be 0, 1 or 2, got 3}}
  %0 = tk.program_id 3 : i32
  return
}

// -----

func.func @num_programs_axis() {
  // expected-error @+1 {{'tk.num_programs' op grid axis must be 0, 1 or 2, got -1}}
  %0 = tk.num_programs -1 : i32
  return
}

// -----

func.func @range_empty() {
  // expected-error @+1 {{'tk.make_range' op end 0 must be greater than start 4}}
  %0 = tk.make_range 4, 0 : tensor<4xi32>
  return
}

// -----

func.func @range_count() {
  // expected-error @+1 {{'tk.make_range' op range [0, 128) has 128 elements but the result has shape [64]}}
  %0 = tk.make_range 0, 128 : tensor<64xi32>
  return
}

// -----

func.func @splat_type(%x: i32) {
  // expected-error @+1 {{'tk.splat' op result element type 'f32' differs from the scalar type 'i32'}}
  %0 = tk.splat %x : i32 -> tensor<8xf32>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tk.broadcast' op source rank 1 differs from result rank 2}}
  %0 = tk.broadcast %x : tensor<8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_dim(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'tk.broadcast' op cannot broadcast dimension 0 of size 2 to 4}}
  %0 = tk.broadcast %x : tensor<2x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @expand_axis(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tk.expand_dims' op axis 2 is out of range for a tile of rank 1}}
  %0 = tk.expand_dims %x, 2 : tensor<8xf32> -> tensor<8x1xf32>
  return
}

// -----

func.func @expand_shape(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tk.expand_dims' op result shape [8, 1] should be [1, 8]}}
  %0 = tk.expand_dims %x, 0 : tensor<8xf32> -> tensor<8x1xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{'tk.reshape' op cannot reshape 64 elements into [32] (32 elements)}}
  %0 = tk.reshape %x : tensor<8x8xf32> -> tensor<32xf32>
  return
}

// -----

func.func @trans_order(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'tk.trans' op order is not a permutation of 0..1}}
  %0 = tk.trans %x, [0, 0] : tensor<8x4xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @trans_rank(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'tk.trans' op order has 3 entries for a tile of rank 2}}
  %0 = tk.trans %x, [0, 1, 2] : tensor<8x4xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @trans_shape(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'tk.trans' op result shape [8, 4] should be [4, 8]}}
  %0 = tk.trans %x, [1, 0] : tensor<8x4xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @bitcast_width(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tk.bitcast' op cannot bitcast 'f32' (32 bits) to 'f16' (16 bits)}}
  %0 = tk.bitcast %x : tensor<8xf32> -> tensor<8xf16>
  return
}

// -----

func.func @bitcast_shape(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tk.bitcast' op cannot change the shape from [8] to [4]}}
  %0 = tk.bitcast %x : tensor<8xf32> -> tensor<4xi32>
  return
}

// -----

func.func @bitcast_pointer(%p: !tk.ptr<f32>) {
  // expected-error @+1 {{'tk.bitcast' op cannot bitcast between a pointer and 'i64'}}
  %0 = tk.bitcast %p : !tk.ptr<f32> -> i64
  return
}

// -----

func.func @addptr_shape(%p: tensor<8x!tk.ptr<f32>>, %o: tensor<4xi32>) {
  // expected-error @+1 {{'tk.addptr' op offset has shape [4] but the pointers have shape [8]}}
  %0 = tk.addptr %p, %o : tensor<8x!tk.ptr<f32>>, tensor<4xi32>
  return
}

// -----

func.func @load_type(%p: tensor<8x!tk.ptr<f32>>) {
  // expected-error @+1 {{'tk.load' op result has type 'tensor<8xf16>' but pointers of type 'tensor<8x!tk.ptr<f32>>' need 'tensor<8xf32>'}}
  %0 = tk.load %p : (tensor<8x!tk.ptr<f32>>) -> tensor<8xf16>
  return
}

// -----

func.func @load_mask(%p: tensor<8x!tk.ptr<f32>>, %m: tensor<4xi1>) {
  // expected-error @+1 {{'tk.load' op mask has shape [4] but the pointers have shape [8]}}
  %0 = tk.load %p mask %m : (tensor<8x!tk.ptr<f32>>, tensor<4xi1>) -> tensor<8xf32>
  return
}

// -----

func.func @load_other(%p: tensor<8x!tk.ptr<f32>>, %m: tensor<8xi1>, %o: tensor<8xf16>) {
  // expected-error @+1 {{'tk.load' op 'other' has type 'tensor<8xf16>' but the result is 'tensor<8xf32>'}}
  %0 = tk.load %p mask %m other %o : (tensor<8x!tk.ptr<f32>>, tensor<8xi1>, tensor<8xf16>) -> tensor<8xf32>
  return
}

// -----

func.func @load_other_without_mask(%p: tensor<8x!tk.ptr<f32>>, %o: tensor<8xf32>) {
  // expected-error @+1 {{'tk.load' op 'other' needs a mask}}
  %0 = "tk.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<8x!tk.ptr<f32>>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @store_type(%p: tensor<8x!tk.ptr<f32>>, %v: tensor<8xi32>) {
  // expected-error @+1 {{'tk.store' op stored value has type 'tensor<8xi32>' but pointers of type 'tensor<8x!tk.ptr<f32>>' need 'tensor<8xf32>'}}
  tk.store %p, %v : tensor<8x!tk.ptr<f32>>, tensor<8xi32>
  return
}

// -----

func.func @atomic_result(%p: !tk.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'tk.atomic_rmw' op result type 'f16' differs from the value type 'f32'}}
  %0 = tk.atomic_rmw add %p, %v : (!tk.ptr<f32>, f32) -> f16
  return
}

// -----

func.func @atomic_cas_types(%p: !tk.ptr<i32>, %c: i32, %v: i32) {
  // expected-error @+1 {{'tk.atomic_cas' op compare value, new value and result must share one type, got 'i32', 'i32' and 'i64'}}
  %0 = tk.atomic_cas %p, %c, %v : (!tk.ptr<i32>, i32, i32) -> i64
  return
}

// -----

func.func @dot_k(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tk.dot' op K dimension mismatch: a is 'tensor<16x32xf16>', b is 'tensor<16x16xf16>'}}
  %0 = tk.dot %a, %b, %c : tensor<16x32xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc(%a: tensor<16x16xf16>, %b: tensor<16x32xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tk.dot' op accumulator 'tensor<16x16xf32>' does not match the product shape [16, 32]}}
  %0 = tk.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x32xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_imprecise_not_fp8(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tk.dot' op max_num_imprecise_acc applies to FP8 operands, not 'f16'}}
  %0 = tk.dot %a, %b, %c max_num_imprecise_acc = 32 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_imprecise_below_k(%a: tensor<64x64xf8E4M3FN>, %b: tensor<64x64xf8E4M3FN>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tk.dot' op max_num_imprecise_acc = 32 is below the tile's K = 64 (only whole tiles are supported)}}
  %0 = tk.dot %a, %b, %c max_num_imprecise_acc = 32 : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  return
}

// -----

func.func @dot_types(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tk.dot' op operand element types differ: 'f16' and 'bf16' (only f8E4M3FN and f8E5M2 mix)}}
  %0 = tk.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_rank(%a: tensor<16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tk.dot' op operands must be 2-D tiles, got ranks 1, 2 and 2}}
  %0 = tk.dot %a, %b, %c : tensor<16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @reduce_axis(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tk.reduce' op axis 1 is out of range for a tile of rank 1}}
  %0 = tk.reduce %x axis = 1 : tensor<8xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    tk.yield %a : f32
  }
  return
}

// -----

func.func @reduce_result(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'tk.reduce' op result type 'tensor<4xf32>' should be 'tensor<8xf32>'}}
  %0 = tk.reduce %x axis = 1 : tensor<8x4xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    tk.yield %a : f32
  }
  return
}

// -----

func.func @reduce_region_args(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tk.reduce' op combine region needs 2 arguments for 1 operand(s), got 1}}
  %0 = tk.reduce %x axis = 0 : tensor<8xf32> -> f32 {
  ^bb0(%a: f32):
    tk.yield %a : f32
  }
  return
}

// -----

func.func @reduce_region_types(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tk.reduce' op combine argument #1 has type 'f16', expected 'f32'}}
  %0 = tk.reduce %x axis = 0 : tensor<8xf32> -> f32 {
  ^bb0(%a: f32, %b: f16):
    tk.yield %a : f32
  }
  return
}

// -----

func.func @reduce_yield(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tk.reduce' op combine region yields 2 value(s), expected 1}}
  %0 = tk.reduce %x axis = 0 : tensor<8xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    tk.yield %a, %b : f32, f32
  }
  return
}

// -----

func.func @reduce_shapes(%x: tensor<8xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'tk.reduce' op operands have different shapes [8] and [4]}}
  %0:2 = tk.reduce %x, %y axis = 0 : tensor<8xf32>, tensor<4xi32> -> f32, i32 {
  ^bb0(%a: f32, %b: i32, %c: f32, %d: i32):
    tk.yield %a, %b : f32, i32
  }
  return
}

// -----

func.func @scan_result(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tk.scan' op result type 'tensor<8xf16>' should be 'tensor<8xf32>'}}
  %0 = tk.scan %x axis = 0 : tensor<8xf32> -> tensor<8xf16> {
  ^bb0(%a: f32, %b: f32):
    tk.yield %a : f32
  }
  return
}

// -----

func.func @scan_yield_type(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tk.scan' op combine region yields 'i32' for operand #0, expected 'f32'}}
  %0 = tk.scan %x axis = 0 : tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.constant 0 : i32
    tk.yield %c : i32
  }
  return
}

// -----

func.func @rand_shape(%s: i32, %o: tensor<8xi32>) {
  // expected-error @+1 {{'tk.rand' op offsets have shape [8] but the result has shape [4]}}
  %0 = tk.rand uniform %s, %o : i32, tensor<8xi32> -> tensor<4xf32>
  return
}

// -----

func.func @rand_narrow_offsets(%s: i32, %o: tensor<8xi8>) {
  // expected-error @+1 {{'tk.rand' op offsets of 'i8' are narrower than Philox's 32-bit counter: widen them first}}
  %0 = tk.rand uniform %s, %o : i32, tensor<8xi8> -> tensor<8xf32>
  return
}

// -----

func.func @hint_empty(%x: i32) {
  // expected-error @+1 {{'tk.hint' op needs multiple_of or max_contiguous}}
  %0 = tk.hint %x : i32
  return
}

// -----

func.func @hint_power(%x: i32) {
  // expected-error @+1 {{'tk.hint' op hint value 12 must be a positive power of two}}
  %0 = tk.hint %x {multiple_of = 12 : i32} : i32
  return
}

// -----

func.func @yield_parent(%x: f32) {
  // expected-error @+1 {{'tk.yield' op expects parent op to be one of 'tk.reduce, tk.scan'}}
  tk.yield %x : f32
}

// -----

func.func @async_copy_wrong_tile(%p: tensor<32x16x!tk.ptr<f16>>, %s: i32) {
  %buf = tkg.local_alloc : !tkg.shared<[2, 16, 32], f16>
  // expected-error @+1 {{'tkg.async_copy' op the copied tile ('tensor<32x16xf16>') is not a stage of '!tkg.shared<[2, 16, 32], f16>'}}
  tkg.async_copy %p, %buf[%s] : tensor<32x16x!tk.ptr<f16>>, !tkg.shared<[2, 16, 32], f16>
  return
}

// -----

func.func @async_copy_mask_shape(%p: tensor<16x32x!tk.ptr<f16>>, %m: tensor<16x16xi1>, %s: i32) {
  %buf = tkg.local_alloc : !tkg.shared<[2, 16, 32], f16>
  // expected-error @+1 {{'tkg.async_copy' op mask shape differs from the pointer tile's}}
  tkg.async_copy %p, %buf[%s] mask %m : tensor<16x16xi1> : tensor<16x32x!tk.ptr<f16>>, !tkg.shared<[2, 16, 32], f16>
  return
}

// -----

func.func @local_load_element(%s: i32) {
  %buf = tkg.local_alloc : !tkg.shared<[2, 16, 32], f16>
  // expected-error @+1 {{'tkg.local_load' op the result ('tensor<16x32xbf16>') is not a stage of '!tkg.shared<[2, 16, 32], f16>'}}
  %t = tkg.local_load %buf[%s] : !tkg.shared<[2, 16, 32], f16> -> tensor<16x32xbf16>
  return
}

// -----

func.func @local_load_trans_shape(%s: i32) {
  %buf = tkg.local_alloc : !tkg.shared<[2, 16, 32], f16>
  // expected-error @+1 {{'tkg.local_load' op the transposed result ('tensor<32x16xf16>') is not a stage of '!tkg.shared<[2, 16, 32], f16>'}}
  %t = tkg.local_load %buf[%s] trans : !tkg.shared<[2, 16, 32], f16> -> tensor<16x32xf16>
  return
}

// -----

func.func @local_load_trans_rank(%s: i32) {
  %buf = tkg.local_alloc : !tkg.shared<[2, 64], f16>
  // expected-error @+1 {{'tkg.local_load' op 'trans' needs a 2-D tile}}
  %t = tkg.local_load %buf[%s] trans : !tkg.shared<[2, 64], f16> -> tensor<64xf16>
  return
}
