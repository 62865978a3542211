// RUN: tk-opt %s -split-input-file -allow-unregistered-dialect -tk-assign-layouts -verify-diagnostics | FileCheck %s
//
// tk-assign-layouts writes every tile's layout into its type: #tkg.blocked for the default,
// #tkg.linear for a tensor-core accumulator and what follows from it without moving data, and
// a tkg.convert_layout where a tile meets an op that does not take its layout.

// The default: 4 warps (128 threads) hold runs of 16 bytes of the narrowest element the kernel
// moves through memory (f16: 8 elements), so that each run is one vector access; a tile too
// small for 128 runs of 8 gets shorter runs (64 elements: one per thread).
// CHECK-LABEL: func.func @blocked
// CHECK: tk.make_range 0, 1024 : tensor<1024xi32, #tkg.blocked<per_thread = 8, threads = 128>>
// CHECK: tk.load {{.*}} -> tensor<1024xf16, #tkg.blocked<per_thread = 8, threads = 128>>
// CHECK: arith.extf {{.*}} to tensor<1024xf32, #tkg.blocked<per_thread = 8, threads = 128>>
// CHECK: tk.make_range 0, 64 : tensor<64xi32, #tkg.blocked<per_thread = 1, threads = 128>>
func.func @blocked(%x: !tk.ptr<f16>, %y: !tk.ptr<f32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %r = tk.make_range 0, 1024 : tensor<1024xi32>
  %xs = tk.splat %x : !tk.ptr<f16> -> tensor<1024x!tk.ptr<f16>>
  %xp = tk.addptr %xs, %r : tensor<1024x!tk.ptr<f16>>, tensor<1024xi32>
  %v = tk.load %xp : (tensor<1024x!tk.ptr<f16>>) -> tensor<1024xf16>
  %w = arith.extf %v : tensor<1024xf16> to tensor<1024xf32>
  %ys = tk.splat %y : !tk.ptr<f32> -> tensor<1024x!tk.ptr<f32>>
  %yp = tk.addptr %ys, %r : tensor<1024x!tk.ptr<f32>>, tensor<1024xi32>
  tk.store %yp, %w : tensor<1024x!tk.ptr<f32>>, tensor<1024xf32>
  %s = tk.make_range 0, 64 : tensor<64xi32>
  return
}

// -----

// A matmul epilogue with a residual whose pointers are not broadcasts of rows and columns (a
// reshaped range): the f16 residual, loaded in the default layout and widened for the add, is
// converted into the accumulator's layout before it widens (half the bytes of converting the
// f32 accumulator out of it); the sum is rounded in that layout, and only the rounded f16 tile
// moves to the default layout for the store.
// CHECK-LABEL: func.func @residual
// CHECK: %[[D:.*]] = tk.dot {{.*}} -> tensor<32x32xf32, #tkg.linear<[[ACC:.*]]>>
// CHECK: %[[R:.*]] = tk.load {{.*}} -> tensor<32x32xf16, #tkg.blocked<per_thread = 8, threads = 128>>
// CHECK: %[[RC:.*]] = tkg.convert_layout %[[R]] : tensor<32x32xf16, #tkg.blocked<per_thread = 8, threads = 128>> -> tensor<32x32xf16, #tkg.linear<[[ACC]]>>
// CHECK: %[[RW:.*]] = arith.extf %[[RC]] : tensor<32x32xf16, #tkg.linear<[[ACC]]>> to tensor<32x32xf32, #tkg.linear<[[ACC]]>>
// CHECK: %[[S:.*]] = arith.addf %[[D]], %[[RW]] : tensor<32x32xf32, #tkg.linear<[[ACC]]>>
// CHECK: %[[H:.*]] = arith.truncf %[[S]] : tensor<32x32xf32, #tkg.linear<[[ACC]]>> to tensor<32x32xf16, #tkg.linear<[[ACC]]>>
// CHECK: %[[HC:.*]] = tkg.convert_layout %[[H]] : tensor<32x32xf16, #tkg.linear<[[ACC]]>> -> tensor<32x32xf16, #tkg.blocked<per_thread = 8, threads = 128>>
// CHECK: tk.store %{{.*}}, %[[HC]]
// CHECK-NOT: tkg.convert_layout
func.func @residual(%a: tensor<32x16xf16>, %b: tensor<16x32xf16>, %r: !tk.ptr<f16>, %c: !tk.ptr<f16>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %d = tk.dot %a, %b, %zero : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  %i = tk.make_range 0, 1024 : tensor<1024xi32>
  %i2 = tk.reshape %i : tensor<1024xi32> -> tensor<32x32xi32>
  %rs = tk.splat %r : !tk.ptr<f16> -> tensor<32x32x!tk.ptr<f16>>
  %rp = tk.addptr %rs, %i2 : tensor<32x32x!tk.ptr<f16>>, tensor<32x32xi32>
  %rv = tk.load %rp : (tensor<32x32x!tk.ptr<f16>>) -> tensor<32x32xf16>
  %rw = arith.extf %rv : tensor<32x32xf16> to tensor<32x32xf32>
  %sum = arith.addf %d, %rw : tensor<32x32xf32>
  %h = arith.truncf %sum : tensor<32x32xf32> to tensor<32x32xf16>
  %cs = tk.splat %c : !tk.ptr<f16> -> tensor<32x32x!tk.ptr<f16>>
  %cp = tk.addptr %cs, %i2 : tensor<32x32x!tk.ptr<f16>>, tensor<32x32xi32>
  tk.store %cp, %h : tensor<32x32x!tk.ptr<f16>>, tensor<32x32xf16>
  return
}

// -----

// The usual epilogue: the residual's pointers and bounds mask are broadcasts of rows and
// columns, so the load is done in the accumulator's layout (each thread reads the elements it
// adds); the mask, shared with the store, is copied for the load, and the store's copy stays
// in the default layout with the converted result.
// CHECK-LABEL: func.func @adopted
// CHECK: %[[D:.*]] = tk.dot {{.*}} -> tensor<32x32xf32, #tkg.linear<[[ACC:.*]]>>
// CHECK-NOT: tkg.convert_layout
// CHECK: %[[P:.*]] = tk.addptr {{.*}} : tensor<32x32x!tk.ptr<f16>, #tkg.linear<[[ACC]]>>, tensor<32x32xi32, #tkg.linear<[[ACC]]>>
// CHECK: %[[M:.*]] = arith.andi {{.*}} : tensor<32x32xi1, #tkg.linear<[[ACC]]>>
// CHECK: %[[R:.*]] = tk.load %[[P]] mask %[[M]] {{.*}} -> tensor<32x32xf16, #tkg.linear<[[ACC]]>>
// CHECK: arith.extf %[[R]] : tensor<32x32xf16, #tkg.linear<[[ACC]]>> to tensor<32x32xf32, #tkg.linear<[[ACC]]>>
// CHECK: %[[H:.*]] = arith.truncf {{.*}} to tensor<32x32xf16, #tkg.linear<[[ACC]]>>
// CHECK: %[[HC:.*]] = tkg.convert_layout %[[H]] : {{.*}} -> tensor<32x32xf16, #tkg.blocked<per_thread = 8, threads = 128>>
// CHECK: tk.store %{{.*}}, %[[HC]] mask %{{.*}} : {{.*}}, tensor<32x32xi1, #tkg.blocked<per_thread = 8, threads = 128>>
// CHECK-NOT: tkg.convert_layout
func.func @adopted(%a: tensor<32x16xf16>, %b: tensor<16x32xf16>, %r: !tk.ptr<f16>, %c: !tk.ptr<f16>, %n: i32) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %d = tk.dot %a, %b, %zero : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  %i = tk.make_range 0, 32 : tensor<32xi32>
  %rows = tk.expand_dims %i, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tk.expand_dims %i, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %s32 = arith.constant dense<32> : tensor<32x1xi32>
  %rowoff = arith.muli %rows, %s32 : tensor<32x1xi32>
  %ns = tk.splat %n : i32 -> tensor<1x32xi32>
  %colin = arith.cmpi slt, %cols, %ns : tensor<1x32xi32>
  %mask = tk.broadcast %colin : tensor<1x32xi1> -> tensor<32x32xi1>
  %ones = arith.constant dense<true> : tensor<32x32xi1>
  %inb = arith.andi %mask, %ones : tensor<32x32xi1>
  %rs = tk.splat %r : !tk.ptr<f16> -> tensor<32x1x!tk.ptr<f16>>
  %rrow = tk.addptr %rs, %rowoff : tensor<32x1x!tk.ptr<f16>>, tensor<32x1xi32>
  %rb = tk.broadcast %rrow : tensor<32x1x!tk.ptr<f16>> -> tensor<32x32x!tk.ptr<f16>>
  %cb = tk.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %rp = tk.addptr %rb, %cb : tensor<32x32x!tk.ptr<f16>>, tensor<32x32xi32>
  %rv = tk.load %rp mask %inb : (tensor<32x32x!tk.ptr<f16>>, tensor<32x32xi1>) -> tensor<32x32xf16>
  %rw = arith.extf %rv : tensor<32x32xf16> to tensor<32x32xf32>
  %sum = arith.addf %d, %rw : tensor<32x32xf32>
  %h = arith.truncf %sum : tensor<32x32xf32> to tensor<32x32xf16>
  %cs = tk.splat %c : !tk.ptr<f16> -> tensor<32x1x!tk.ptr<f16>>
  %crow = tk.addptr %cs, %rowoff : tensor<32x1x!tk.ptr<f16>>, tensor<32x1xi32>
  %cbp = tk.broadcast %crow : tensor<32x1x!tk.ptr<f16>> -> tensor<32x32x!tk.ptr<f16>>
  %cb2 = tk.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %cp = tk.addptr %cbp, %cb2 : tensor<32x32x!tk.ptr<f16>>, tensor<32x32xi32>
  tk.store %cp, %h mask %inb : tensor<32x32x!tk.ptr<f16>>, tensor<32x32xf16>, tensor<32x32xi1>
  return
}

// -----

// An f32 partial (split-K's, stream-K's) stored through pointers of broadcast rows and
// columns, and read back into a running sum from the same start: the store takes the
// accumulator's layout as it is (each thread writes its two adjacent columns, a quad of lanes a
// 32-byte sector), its pointers made there; the loop's sum starts in that layout and the load
// adds into it where it is. Nothing crosses shared memory.
// CHECK-LABEL: func.func @partial
// CHECK: %[[D:.*]] = tk.dot {{.*}} -> tensor<32x32xf32, #tkg.linear<[[ACC:.*]]>>
// CHECK-NOT: tkg.convert_layout
// CHECK: tk.store %{{.*}}, %[[D]] : tensor<32x32x!tk.ptr<f32>, #tkg.linear<[[ACC]]>>, tensor<32x32xf32, #tkg.linear<[[ACC]]>>
// CHECK: scf.for {{.*}} -> (tensor<32x32xf32, #tkg.linear<[[ACC]]>>)
// CHECK: tk.load {{.*}} -> tensor<32x32xf32, #tkg.linear<[[ACC]]>>
// CHECK-NOT: tkg.convert_layout
func.func @partial(%a: tensor<32x16xf16>, %b: tensor<16x32xf16>, %w: !tk.ptr<f32>, %n: i32) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %d = tk.dot %a, %b, %zero : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  %i = tk.make_range 0, 32 : tensor<32xi32>
  %rows = tk.expand_dims %i, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tk.expand_dims %i, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %s32 = arith.constant dense<32> : tensor<32x1xi32>
  %rowoff = arith.muli %rows, %s32 : tensor<32x1xi32>
  %ws = tk.splat %w : !tk.ptr<f32> -> tensor<32x1x!tk.ptr<f32>>
  %wrow = tk.addptr %ws, %rowoff : tensor<32x1x!tk.ptr<f32>>, tensor<32x1xi32>
  %wb = tk.broadcast %wrow : tensor<32x1x!tk.ptr<f32>> -> tensor<32x32x!tk.ptr<f32>>
  %cb = tk.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %wp = tk.addptr %wb, %cb : tensor<32x32x!tk.ptr<f32>>, tensor<32x32xi32>
  tk.store %wp, %d : tensor<32x32x!tk.ptr<f32>>, tensor<32x32xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %d) -> (tensor<32x32xf32>) : i32 {
    %ws2 = tk.splat %w : !tk.ptr<f32> -> tensor<32x1x!tk.ptr<f32>>
    %wrow2 = tk.addptr %ws2, %rowoff : tensor<32x1x!tk.ptr<f32>>, tensor<32x1xi32>
    %wb2 = tk.broadcast %wrow2 : tensor<32x1x!tk.ptr<f32>> -> tensor<32x32x!tk.ptr<f32>>
    %cb2 = tk.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
    %wp2 = tk.addptr %wb2, %cb2 : tensor<32x32x!tk.ptr<f32>>, tensor<32x32xi32>
    %v = tk.load %wp2 : (tensor<32x32x!tk.ptr<f32>>) -> tensor<32x32xf32>
    %next = arith.addf %acc, %v : tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  %wp3 = tk.addptr %wb, %cb : tensor<32x32x!tk.ptr<f32>>, tensor<32x32xi32>
  tk.store %wp3, %sum : tensor<32x32x!tk.ptr<f32>>, tensor<32x32xf32>
  return
}

// -----

// The same running sum also used by another op of the body (rounded and stored as f16, which
// takes the default layout): it stays in the default layout, converted once before the loop,
// not at every iteration.
// CHECK-LABEL: func.func @partial_used
// CHECK: tkg.convert_layout
// CHECK: scf.for {{.*}} -> (tensor<32x32xf32, #tkg.blocked
// CHECK-NOT: tkg.convert_layout
// CHECK: scf.yield
func.func @partial_used(%a: tensor<32x16xf16>, %b: tensor<16x32xf16>, %w: !tk.ptr<f32>, %h: !tk.ptr<f16>, %n: i32) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %d = tk.dot %a, %b, %zero : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  %i = tk.make_range 0, 32 : tensor<32xi32>
  %rows = tk.expand_dims %i, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tk.expand_dims %i, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %s32 = arith.constant dense<32> : tensor<32x1xi32>
  %rowoff = arith.muli %rows, %s32 : tensor<32x1xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %d) -> (tensor<32x32xf32>) : i32 {
    %ws = tk.splat %w : !tk.ptr<f32> -> tensor<32x1x!tk.ptr<f32>>
    %wrow = tk.addptr %ws, %rowoff : tensor<32x1x!tk.ptr<f32>>, tensor<32x1xi32>
    %wb = tk.broadcast %wrow : tensor<32x1x!tk.ptr<f32>> -> tensor<32x32x!tk.ptr<f32>>
    %cb = tk.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
    %wp = tk.addptr %wb, %cb : tensor<32x32x!tk.ptr<f32>>, tensor<32x32xi32>
    %v = tk.load %wp : (tensor<32x32x!tk.ptr<f32>>) -> tensor<32x32xf32>
    %next = arith.addf %acc, %v : tensor<32x32xf32>
    %r = arith.truncf %acc : tensor<32x32xf32> to tensor<32x32xf16>
    %hs = tk.splat %h : !tk.ptr<f16> -> tensor<32x1x!tk.ptr<f16>>
    %hrow = tk.addptr %hs, %rowoff : tensor<32x1x!tk.ptr<f16>>, tensor<32x1xi32>
    %hb = tk.broadcast %hrow : tensor<32x1x!tk.ptr<f16>> -> tensor<32x32x!tk.ptr<f16>>
    %cb2 = tk.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
    %hp = tk.addptr %hb, %cb2 : tensor<32x32x!tk.ptr<f16>>, tensor<32x32xi32>
    tk.store %hp, %r : tensor<32x32x!tk.ptr<f16>>, tensor<32x32xf16>
    scf.yield %next : tensor<32x32xf32>
  }
  return
}

// -----

// A 32x32 f32 dot of f16 tiles on mma.sync: 4 warps split the result 2x2. In its layout,
// element (r, c) = 32r + c: slots hold c's bit 0 (the pair in a register), r's bit 3 (rows g
// and g + 8) and c's bit 3 (two n-tiles of 8); lanes hold c's bits 1-2 and r's bits 0-2;
// warps c's bit 4 and r's bit 4. The zero accumulator and the scale are uniform: copies of
// them take the layout; the product follows (elementwise); the store takes the default
// layout only, so a convert_layout moves the tile first. The row maximum crosses warps (the
// warps split columns), so its partials meet in shared memory and it lands in the default.
// CHECK-LABEL: func.func @mma
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #tkg.linear<slots = [0, 8, 3], lanes = [1, 2, 5, 6, 7], warps = [4, 9]>>
// CHECK: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<32x32xf32, #tkg.linear<slots = [0, 8, 3], lanes = [1, 2, 5, 6, 7], warps = [4, 9]>>
// CHECK: %[[D:.*]] = tk.dot %{{.*}}, %{{.*}}, %[[ZERO]] : {{.*}} -> tensor<32x32xf32, #tkg.linear<slots = [0, 8, 3], lanes = [1, 2, 5, 6, 7], warps = [4, 9]>>
// CHECK: %[[E:.*]] = arith.mulf %[[D]], %[[HALF]] : tensor<32x32xf32, #tkg.linear
// CHECK: tk.reduce %[[E]] axis = 1 : tensor<32x32xf32, #tkg.linear<{{.*}}>> -> tensor<32xf32, #tkg.blocked<per_thread = 1, threads = 128>>
// CHECK: %[[C:.*]] = tkg.convert_layout %[[E]] : tensor<32x32xf32, #tkg.linear<{{.*}}>> -> tensor<32x32xf32, #tkg.blocked<per_thread = 4, threads = 128>>
// CHECK: tk.store %{{.*}}, %[[C]]
func.func @mma(%a: tensor<32x16xf16>, %b: tensor<16x32xf16>, %c: !tk.ptr<f32>) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %half = arith.constant dense<5.000000e-01> : tensor<32x32xf32>
  %d = tk.dot %a, %b, %zero : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  %e = arith.mulf %d, %half : tensor<32x32xf32>
  %m = tk.reduce %e axis = 1 : tensor<32x32xf32> -> tensor<32xf32> {
  ^bb0(%p: f32, %q: f32):
    %mx = arith.maximumf %p, %q : f32
    tk.yield %mx : f32
  }
  %cs = tk.splat %c : !tk.ptr<f32> -> tensor<32x32x!tk.ptr<f32>>
  tk.store %cs, %e : tensor<32x32x!tk.ptr<f32>>, tensor<32x32xf32>
  %ms = tk.splat %c : !tk.ptr<f32> -> tensor<32x!tk.ptr<f32>>
  tk.store %ms, %m : tensor<32x!tk.ptr<f32>>, tensor<32xf32>
  return
}

// -----

// Every op with tiles needs a layout rule: one without (here an unknown op) is an error rather
// than a silent trip through shared memory.
func.func @no_rule(%x: !tk.ptr<f32>) attributes {tk.kernel} {
  %r = tk.make_range 0, 128 : tensor<128xi32>
  // expected-error @+1 {{'test.opaque' has no layout rule (LayoutRules.cpp)}}
  %s = "test.opaque"(%r) : (tensor<128xi32>) -> tensor<128xi32>
  return
}

// -----

// Hand-written IR the front end would refuse gets an error, not a crash or a layout that does
// not verify: a warp count that is no power of two, a tile of 3 elements.
// expected-error @+1 {{num_warps must be a power of two from 1 to 32, not 0}}
func.func @no_warps(%x: !tk.ptr<f32>) attributes {tk.kernel, tk.num_warps = 0 : i32} {
  return
}

// -----

func.func @odd_tile(%x: !tk.ptr<f32>, %v: f32) attributes {tk.kernel} {
  // expected-error @+1 {{a layout needs static dimensions of 2^k elements, at most 1048576 in all}}
  %t = tk.splat %v : f32 -> tensor<3xf32>
  return
}

// -----

// Pointers to pointers move as 8-byte elements.
// CHECK-LABEL: func.func @pointers
// CHECK: tk.load {{.*}} -> tensor<128x!tk.ptr<f32>, #tkg.blocked<per_thread = 1, threads = 128>>
func.func @pointers(%x: !tk.ptr<!tk.ptr<f32>>) attributes {tk.kernel} {
  %xs = tk.splat %x : !tk.ptr<!tk.ptr<f32>> -> tensor<128x!tk.ptr<!tk.ptr<f32>>>
  %v = tk.load %xs : (tensor<128x!tk.ptr<!tk.ptr<f32>>>) -> tensor<128x!tk.ptr<f32>>
  return
}

// -----

// A reduction takes the slice of a non-default layout only when all its operands are in it: an
// argmax of a dot result with indices in the default layout reduces in the default layout
// (one conversion in, none back), not in a slice it would then have to leave.
// CHECK-LABEL: func.func @argmax
// CHECK: %[[V:.*]] = tkg.convert_layout %{{.*}} : tensor<16x16xf32, #tkg.linear<{{.*}}>> -> tensor<16x16xf32, #tkg.blocked
// CHECK: tk.reduce %[[V]], %{{.*}} axis = 1 : tensor<16x16xf32, #tkg.blocked<{{.*}}>>, tensor<16x16xi32, #tkg.blocked<{{.*}}>> -> tensor<16xf32, #tkg.blocked<{{.*}}>>, tensor<16xi32, #tkg.blocked<{{.*}}>>
// CHECK-NOT: tkg.convert_layout
func.func @argmax(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: !tk.ptr<i32>) attributes {tk.kernel, tk.num_warps = 1 : i32} {
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %d = tk.dot %a, %b, %zero : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %r = tk.make_range 0, 16 : tensor<16xi32>
  %re = tk.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %rb = tk.broadcast %re : tensor<1x16xi32> -> tensor<16x16xi32>
  %m, %i = tk.reduce %d, %rb axis = 1 : tensor<16x16xf32>, tensor<16x16xi32> -> tensor<16xf32>, tensor<16xi32> {
  ^bb0(%v0: f32, %i0: i32, %v1: f32, %i1: i32):
    %gt = arith.cmpf ogt, %v1, %v0 : f32
    %v = arith.select %gt, %v1, %v0 : f32
    %k = arith.select %gt, %i1, %i0 : i32
    tk.yield %v, %k : f32, i32
  }
  %cs = tk.splat %c : !tk.ptr<i32> -> tensor<16x!tk.ptr<i32>>
  tk.store %cs, %i : tensor<16x!tk.ptr<i32>>, tensor<16xi32>
  return
}
