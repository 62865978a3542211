// RUN: tk-opt %s -split-input-file -tk-allocate-shared | FileCheck %s
//
// tk-allocate-shared gives each op that exchanges values between threads its byte range of the
// kernel's one shared buffer, from the layouts in the types: nothing is shared between ops
// while they fit in 48 KiB (so ops that run once need no barrier before writing), and ops in a
// loop, whose previous iteration may still read their bytes, get tkg.shared_barrier.

#acc = #tkg.linear<slots = [0, 8, 3], lanes = [1, 2, 5, 6, 7], warps = [4, 9]>
#b1 = #tkg.blocked<per_thread = 1, threads = 128>
#b4 = #tkg.blocked<per_thread = 4, threads = 128>

// The module's buffer is the largest any kernel needs: 6400 bytes here.
// CHECK: module attributes {tkg.shared_bytes = 6400 : i32}
// The dot stages A (32x16 f16, 1 KiB) and B (1 KiB) swizzled, from offset 0 (a multiple of
// 1024, where the swizzle pattern starts).
// CHECK: tk.dot {{.*}} {tkg.shared_offset = 0 : i32}
// The row maximum crosses warps (warps hold column bit 4): 256 bytes after the dot's 2 KiB.
// CHECK: tk.reduce {{.*}} {tkg.shared_offset = 2048 : i32}
// The accumulator's move to the default layout for the store: 4 KiB after that.
// CHECK: tkg.convert_layout {{.*}} {tkg.shared_offset = 2304 : i32}
// CHECK-NOT: tkg.shared_barrier
func.func @mma(%a: tensor<32x16xf16, #b4>, %b: tensor<16x32xf16, #b4>, %c: !tk.ptr<f32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #acc>
  %d = tk.dot %a, %b, %zero : tensor<32x16xf16, #b4> * tensor<16x32xf16, #b4> -> tensor<32x32xf32, #acc>
  %m = tk.reduce %d axis = 1 : tensor<32x32xf32, #acc> -> tensor<32xf32, #b1> {
  ^bb0(%p: f32, %q: f32):
    %mx = arith.maximumf %p, %q : f32
    tk.yield %mx : f32
  }
  %cs = tk.splat %c : !tk.ptr<f32> -> tensor<32x32x!tk.ptr<f32>, #b4>
  %e = tkg.convert_layout %d : tensor<32x32xf32, #acc> -> tensor<32x32xf32, #b4>
  tk.store %cs, %e : tensor<32x32x!tk.ptr<f32>, #b4>, tensor<32x32xf32, #b4>
  %ms = tk.splat %c : !tk.ptr<f32> -> tensor<32x!tk.ptr<f32>, #b1>
  tk.store %ms, %m : tensor<32x!tk.ptr<f32>, #b1>, tensor<32xf32, #b1>
  return
}

// -----

#b8 = #tkg.blocked<per_thread = 8, threads = 128>

// A sum across warps in a loop: its partials' bytes may still be read by the previous
// iteration's threads, so it starts with a barrier.
// CHECK-LABEL: func.func @loop_sum
// CHECK: scf.for
// CHECK: tk.reduce {{.*}} {tkg.shared_barrier, tkg.shared_offset = 0 : i32}
func.func @loop_sum(%x: tensor<1024xf32, #b8>, %n: index) -> f32 attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f32
  %t = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %s = tk.reduce %x axis = 0 : tensor<1024xf32, #b8> -> f32 {
    ^bb0(%p: f32, %q: f32):
      %a = arith.addf %p, %q : f32
      tk.yield %a : f32
    }
    %next = arith.addf %acc, %s : f32
    scf.yield %next : f32
  }
  return %t : f32
}

// -----

// Rings used inside different loops of the kernel's top level (a persistent kernel's loop over
// its whole waves' tiles, then one over the rest in narrower tiles) are never in use at once:
// the second loop's rings start where the first loop's do, after a wait for every copy and a
// barrier (tkg.async_wait 0) before that loop, so that no thread still reads the first rings
// when copies refill their bytes. The rings were made at the kernel's start (as a TMA pipeline
// in a loop over tiles makes them); the module needs the larger group's 24 KiB.
// CHECK-LABEL: module attributes {tkg.shared_bytes = 24576 : i32}
// CHECK: %[[A1:.*]] = tkg.local_alloc {tkg.shared_offset = 0 : i32} : !tkg.shared<[2, 64, 64], f16>
// CHECK: %[[B1:.*]] = tkg.local_alloc {tkg.shared_offset = 16384 : i32} : !tkg.shared<[2, 64, 32], f16>
// CHECK: %[[A2:.*]] = tkg.local_alloc {tkg.shared_offset = 0 : i32} : !tkg.shared<[2, 64, 32], f16>
// CHECK: %[[B2:.*]] = tkg.local_alloc {tkg.shared_offset = 8192 : i32} : !tkg.shared<[2, 64, 32], f16>
// CHECK: scf.for
// CHECK: tkg.local_load %[[A1]]
// CHECK: tkg.local_load %[[B1]]
// CHECK: }
// CHECK-NEXT: tkg.async_wait 0
// CHECK-NEXT: scf.for
// CHECK: tkg.local_load %[[A2]]
// CHECK: tkg.local_load %[[B2]]
func.func @ring_groups(%n: i32) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %a1 = tkg.local_alloc : !tkg.shared<[2, 64, 64], f16>
  %b1 = tkg.local_alloc : !tkg.shared<[2, 64, 32], f16>
  %a2 = tkg.local_alloc : !tkg.shared<[2, 64, 32], f16>
  %b2 = tkg.local_alloc : !tkg.shared<[2, 64, 32], f16>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %x = tkg.local_load %a1[%c0] : !tkg.shared<[2, 64, 64], f16> -> tensor<64x64xf16>
    %y = tkg.local_load %b1[%c0] : !tkg.shared<[2, 64, 32], f16> -> tensor<64x32xf16>
  }
  scf.for %i = %c0 to %n step %c1 : i32 {
    %x = tkg.local_load %a2[%c0] : !tkg.shared<[2, 64, 32], f16> -> tensor<64x32xf16>
    %y = tkg.local_load %b2[%c0] : !tkg.shared<[2, 64, 32], f16> -> tensor<64x32xf16>
  }
  return
}

// -----

// A ring the kernel's top level uses itself lives through every loop: no group shares bytes.
// CHECK-LABEL: module attributes {tkg.shared_bytes = 32768 : i32}
// CHECK: tkg.local_alloc {tkg.shared_offset = 0 : i32}
// CHECK: tkg.local_alloc {tkg.shared_offset = 16384 : i32}
// CHECK-NOT: tkg.async_wait
func.func @ring_for_the_whole_kernel(%n: i32) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %a1 = tkg.local_alloc : !tkg.shared<[2, 64, 64], f16>
  %a2 = tkg.local_alloc : !tkg.shared<[2, 64, 64], f16>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %q = tkg.local_load %a2[%c0] : !tkg.shared<[2, 64, 64], f16> -> tensor<64x64xf16>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %x = tkg.local_load %a1[%c0] : !tkg.shared<[2, 64, 64], f16> -> tensor<64x64xf16>
  }
  scf.for %i = %c0 to %n step %c1 : i32 {
    %x = tkg.local_load %a2[%c0] : !tkg.shared<[2, 64, 64], f16> -> tensor<64x64xf16>
  }
  return
}
