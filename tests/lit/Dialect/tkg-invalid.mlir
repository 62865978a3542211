// RUN: tk-opt %s -split-input-file -verify-diagnostics
//
// The tkg dialect's verifiers: a layout conversion changes only the layout, and the attributes
// the GPU backend's passes set are checked where they stand.

#b4 = #tkg.blocked<per_thread = 4, threads = 128>
#b8 = #tkg.blocked<per_thread = 8, threads = 128>

func.func @same_layout(%x: tensor<1024xf32, #b4>) {
  // expected-error @+1 {{converts 'tensor<1024xf32, #tkg.blocked<per_thread = 4, threads = 128>>' to the layout it already has}}
  %y = tkg.convert_layout %x : tensor<1024xf32, #b4> -> tensor<1024xf32, #b4>
  return
}

// -----

#b4 = #tkg.blocked<per_thread = 4, threads = 128>
#b8 = #tkg.blocked<per_thread = 8, threads = 128>

func.func @other_tile(%x: tensor<1024xf32, #b4>) {
  // expected-error @+1 {{only its layout may change}}
  %y = tkg.convert_layout %x : tensor<1024xf32, #b4> -> tensor<1024xf16, #b8>
  return
}

// -----

func.func @in_flight(%x: i32) {
  // expected-error @+1 {{'tkg.mma_in_flight' belongs on a tk.dot}}
  %y = arith.addi %x, %x {tkg.mma_in_flight} : i32
  return
}

// -----

func.func @offset(%x: i32) {
  // expected-error @+1 {{'tkg.shared_offset' must be a non-negative integer (bytes)}}
  %y = arith.addi %x, %x {tkg.shared_offset = -16 : i32} : i32
  return
}

// -----

func.func @unknown(%x: i32) {
  // expected-error @+1 {{unknown attribute 'tkg.smem_offset' of the tkg dialect}}
  %y = arith.addi %x, %x {tkg.smem_offset = 0 : i32} : i32
  return
}
