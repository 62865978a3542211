// The layouts the GPU backend puts on tile types print and parse back as they were, and their
// verifiers reject layouts that do not describe the tile.
// RUN: tk-opt %s -split-input-file -verify-diagnostics | tk-opt | FileCheck %s

// CHECK: func.func @encoded(%arg0: tensor<64xf32, #tkg.linear<slots = [3, 4], lanes = [-1, -1, 0, 1, 2], warps = [5]>>, %arg1: tensor<1024xf16, #tkg.blocked<per_thread = 8, threads = 128>>)
func.func @encoded(%x: tensor<64xf32, #tkg.linear<slots = [3, 4], lanes = [-1, -1, 0, 1, 2], warps = [5]>>,
                   %y: tensor<1024xf16, #tkg.blocked<per_thread = 8, threads = 128>>) {
  return
}

// -----

// expected-error @+1 {{element-index bit 5 is held by no slot, lane or warp}}
func.func @uncovered(%x: tensor<64xf32, #tkg.linear<slots = [3, 4], lanes = [-1, -1, 0, 1, 2], warps = [-1]>>) {
  return
}

// -----

// expected-error @+1 {{element-index bit 3 is set by two bits of the layout}}
func.func @twice(%x: tensor<64xf32, #tkg.linear<slots = [3, 3], lanes = [4, -1, 0, 1, 2], warps = [5]>>) {
  return
}

// -----

// expected-error @+1 {{a linear layout names 5 lane bits, not 2}}
func.func @lanes(%x: tensor<4xf32, #tkg.linear<slots = [], lanes = [0, 1], warps = []>>) {
  return
}

// -----

// expected-error @+1 {{blocked layout needs powers of two, at least one warp, at most 1024 threads (per_thread = 3, threads = 128)}}
func.func @blocked(%x: tensor<1024xf16, #tkg.blocked<per_thread = 3, threads = 128>>) {
  return
}

// -----

// expected-error @+1 {{a layout needs static dimensions of 2^k elements, at most 1048576 in all}}
func.func @dynamic(%x: tensor<?xf32, #tkg.blocked<per_thread = 4, threads = 128>>) {
  return
}

// -----

// expected-error @+1 {{a layout needs static dimensions of 2^k elements, at most 1048576 in all}}
func.func @huge(%x: tensor<4294967296x4294967296xf32, #tkg.linear<slots = [], lanes = [0, 1, 2, 3, 4], warps = []>>) {
  return
}

// -----

// expected-error @+1 {{a layout needs static dimensions of 2^k elements, at most 1048576 in all}}
func.func @empty(%x: tensor<0x8xf32, #tkg.blocked<per_thread = 4, threads = 128>>) {
  return
}

// -----

// expected-error @+1 {{blocked layout needs powers of two, at least one warp, at most 1024 threads (per_thread = 4611686018427387904, threads = 128)}}
func.func @runs(%x: tensor<4xf32, #tkg.blocked<per_thread = 4611686018427387904, threads = 128>>) {
  return
}

// -----

// expected-error @+1 {{every slot bit of a linear layout sets an element-index bit (no -1)}}
func.func @replica_slot(%x: tensor<64xf32, #tkg.linear<slots = [3, -1], lanes = [4, 5, 0, 1, 2], warps = []>>) {
  return
}

// -----

// expected-error @+1 {{a linear layout names at most 5 warp bits (1024 threads), not 6}}
func.func @warps(%x: tensor<64xf32, #tkg.linear<slots = [], lanes = [0, 1, 2, 3, 4], warps = [5, -1, -1, -1, -1, -1]>>) {
  return
}
