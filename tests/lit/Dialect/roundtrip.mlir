// RUN: tk-opt %s | tk-opt | FileCheck %s
// RUN: tk-opt %s --mlir-print-op-generic | tk-opt | FileCheck %s

// CHECK-LABEL: func.func @every_op
func.func @every_op(%p: !tk.ptr<f32>, %q: !tk.ptr<f16>, %n: i32, %seed: i32) {
  // CHECK: tk.program_id 0 : i32
  %pid = tk.program_id 0 : i32
  // CHECK: tk.num_programs 2 : i32
  %np = tk.num_programs 2 : i32
  // CHECK: tk.make_range 0, 64 : tensor<64xi32>
  %r = tk.make_range 0, 64 : tensor<64xi32>
  // CHECK: tk.splat %{{.*}} : !tk.ptr<f32> -> tensor<64x!tk.ptr<f32>>
  %ps = tk.splat %p : !tk.ptr<f32> -> tensor<64x!tk.ptr<f32>>
  // CHECK: tk.addptr %{{.*}}, %{{.*}} : tensor<64x!tk.ptr<f32>>, tensor<64xi32>
  %pa = tk.addptr %ps, %r : tensor<64x!tk.ptr<f32>>, tensor<64xi32>
  %ns = tk.splat %n : i32 -> tensor<64xi32>
  %mask = arith.cmpi slt, %r, %ns : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  // CHECK: tk.load %{{.*}} mask %{{.*}} other %{{.*}} cache = ca evict = last : (tensor<64x!tk.ptr<f32>>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf32>
  %v = tk.load %pa mask %mask other %zero cache = ca evict = last : (tensor<64x!tk.ptr<f32>>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf32>
  // CHECK: tk.load %{{.*}} : (!tk.ptr<f32>) -> f32
  %s = tk.load %p : (!tk.ptr<f32>) -> f32
  // CHECK: tk.store %{{.*}}, %{{.*}} mask %{{.*}} evict = first : tensor<64x!tk.ptr<f32>>, tensor<64xf32>, tensor<64xi1>
  tk.store %pa, %v mask %mask evict = first : tensor<64x!tk.ptr<f32>>, tensor<64xf32>, tensor<64xi1>
  // CHECK: tk.expand_dims %{{.*}}, 1 : tensor<64xf32> -> tensor<64x1xf32>
  %e = tk.expand_dims %v, 1 : tensor<64xf32> -> tensor<64x1xf32>
  // CHECK: tk.broadcast %{{.*}} : tensor<64x1xf32> -> tensor<64x32xf32>
  %b = tk.broadcast %e : tensor<64x1xf32> -> tensor<64x32xf32>
  // CHECK: tk.reshape %{{.*}} : tensor<64x32xf32> -> tensor<2048xf32>
  %flat = tk.reshape %b : tensor<64x32xf32> -> tensor<2048xf32>
  // CHECK: tk.trans %{{.*}}, [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  %t = tk.trans %b, [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  // CHECK: tk.bitcast %{{.*}} : tensor<64xf32> -> tensor<64xi32>
  %bits = tk.bitcast %v : tensor<64xf32> -> tensor<64xi32>
  %a16 = arith.constant dense<1.0> : tensor<32x16xf16>
  %b16 = arith.constant dense<1.0> : tensor<16x64xf16>
  %acc = arith.constant dense<0.0> : tensor<32x64xf32>
  // CHECK: tk.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x16xf16> * tensor<16x64xf16> -> tensor<32x64xf32>
  %d = tk.dot %a16, %b16, %acc : tensor<32x16xf16> * tensor<16x64xf16> -> tensor<32x64xf32>
  %f32a = arith.constant dense<1.0> : tensor<32x16xf32>
  %f32b = arith.constant dense<1.0> : tensor<16x64xf32>
  // CHECK: tk.dot %{{.*}}, %{{.*}}, %{{.*}} precision = ieee : tensor<32x16xf32> * tensor<16x64xf32> -> tensor<32x64xf32>
  %d2 = tk.dot %f32a, %f32b, %acc precision = ieee : tensor<32x16xf32> * tensor<16x64xf32> -> tensor<32x64xf32>
  // CHECK: tk.reduce %{{.*}} axis = 1 : tensor<64x32xf32> -> tensor<64xf32>
  // CHECK: tk.yield %{{.*}} : f32
  %red = tk.reduce %b axis = 1 : tensor<64x32xf32> -> tensor<64xf32> {
  ^bb0(%x: f32, %y: f32):
    %m = arith.maximumf %x, %y : f32
    tk.yield %m : f32
  }
  // CHECK: tk.reduce %{{.*}}, %{{.*}} axis = 0 : tensor<64xf32>, tensor<64xi32> -> f32, i32
  %rv, %ri = tk.reduce %v, %r axis = 0 : tensor<64xf32>, tensor<64xi32> -> f32, i32 {
  ^bb0(%va: f32, %ia: i32, %vb: f32, %ib: i32):
    tk.yield %va, %ia : f32, i32
  }
  // CHECK: tk.scan %{{.*}} axis = 0 {reverse = true} : tensor<64xf32> -> tensor<64xf32>
  %scan = tk.scan %v axis = 0 {reverse = true} : tensor<64xf32> -> tensor<64xf32> {
  ^bb0(%x: f32, %y: f32):
    %s2 = arith.addf %x, %y : f32
    tk.yield %s2 : f32
  }
  // CHECK: tk.atomic_rmw add %{{.*}}, %{{.*}} mask %{{.*}} : (tensor<64x!tk.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> tensor<64xf32>
  %old = tk.atomic_rmw add %pa, %v mask %mask : (tensor<64x!tk.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> tensor<64xf32>
  // CHECK: tk.atomic_rmw xchg %{{.*}}, %{{.*}} : (!tk.ptr<f32>, f32) -> f32
  %old2 = tk.atomic_rmw xchg %p, %s : (!tk.ptr<f32>, f32) -> f32
  // CHECK: tk.atomic_cas %{{.*}}, %{{.*}}, %{{.*}} : (!tk.ptr<f32>, f32, f32) -> f32
  %old3 = tk.atomic_cas %p, %s, %s : (!tk.ptr<f32>, f32, f32) -> f32
  // CHECK: tk.rand uniform %{{.*}}, %{{.*}} : i32, tensor<64xi32> -> tensor<64xf32>
  %u = tk.rand uniform %seed, %r : i32, tensor<64xi32> -> tensor<64xf32>
  // CHECK: tk.rand normal %{{.*}}, %{{.*}} : i32, tensor<64xi32> -> tensor<64xf32>
  %g = tk.rand normal %seed, %r : i32, tensor<64xi32> -> tensor<64xf32>
  // CHECK: tk.hint %{{.*}} {multiple_of = 16 : i32} : i32
  %h = tk.hint %n {multiple_of = 16 : i32} : i32
  // CHECK: tk.hint %{{.*}} {max_contiguous = 64 : i32} : tensor<64xi32>
  %h2 = tk.hint %r {max_contiguous = 64 : i32} : tensor<64xi32>
  // CHECK: tk.print "values" %{{.*}}, %{{.*}} : i32, tensor<64xf32>
  tk.print "values" %pid, %v : i32, tensor<64xf32>
  // CHECK: tk.print "just a label"
  tk.print "just a label"
  // CHECK: tk.assert %{{.*}}, "in bounds" : tensor<64xi1>
  tk.assert %mask, "in bounds" : tensor<64xi1>
  return
}

// The pipeliner's ops (made by tk-pipeline-dot-loads, never by the front end).
// CHECK-LABEL: func.func @stage_rings
func.func @stage_rings(%p: tensor<16x32x!tk.ptr<f16>>, %m: tensor<16x32xi1>, %s: i32) {
  // CHECK: %[[BUF:.*]] = tkg.local_alloc : !tkg.shared<[3, 16, 32], f16>
  %buf = tkg.local_alloc : !tkg.shared<[3, 16, 32], f16>
  // CHECK: tkg.async_copy %{{.*}}, %[[BUF]][%{{.*}}] mask %{{.*}} : tensor<16x32xi1> : tensor<16x32x!tk.ptr<f16>>, !tkg.shared<[3, 16, 32], f16>
  tkg.async_copy %p, %buf[%s] mask %m : tensor<16x32xi1> : tensor<16x32x!tk.ptr<f16>>, !tkg.shared<[3, 16, 32], f16>
  // CHECK: tkg.async_copy %{{.*}}, %[[BUF]][%{{.*}}] evict = first : tensor<16x32x!tk.ptr<f16>>, !tkg.shared<[3, 16, 32], f16>
  tkg.async_copy %p, %buf[%s] evict = first : tensor<16x32x!tk.ptr<f16>>, !tkg.shared<[3, 16, 32], f16>
  // CHECK: tkg.async_commit
  tkg.async_commit
  // CHECK: tkg.async_wait 1
  tkg.async_wait 1
  // CHECK: tkg.local_load %[[BUF]][%{{.*}}] : !tkg.shared<[3, 16, 32], f16> -> tensor<16x32xf16>
  %t = tkg.local_load %buf[%s] : !tkg.shared<[3, 16, 32], f16> -> tensor<16x32xf16>
  // CHECK: tkg.local_load %[[BUF]][%{{.*}}] trans : !tkg.shared<[3, 16, 32], f16> -> tensor<32x16xf16>
  %u = tkg.local_load %buf[%s] trans : !tkg.shared<[3, 16, 32], f16> -> tensor<32x16xf16>
  // A wait for MMAs in flight over the values it makes valid, and one that ties nothing.
  // CHECK: tkg.dot_wait %{{.*}} {pending = 1 : i32} : tensor<16x32xf16>
  %w = tkg.dot_wait %t {pending = 1 : i32} : tensor<16x32xf16>
  // CHECK-NEXT: tkg.dot_wait_all
  // CHECK-NEXT: tkg.local_load
  tkg.dot_wait_all
  %v = tkg.local_load %buf[%s] : !tkg.shared<[3, 16, 32], f16> -> tensor<16x32xf16>
  return
}

// The TMA pipeline's ops and types (made by tk-pipeline-dot-loads on sm_90a): tensor-map
// arguments with the launcher's recipes (argument indices, -1 for a constant value), mbarrier
// arrays, and the copies and waits between them.
// CHECK-LABEL: func.func @tma_rings
// CHECK-SAME: %[[MAP:[^:]*]]: !tkg.tensor_map {tkg.tensor_map = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>}
// CHECK-SAME: %[[MAPB:[^:]*]]: !tkg.tensor_map {tkg.tensor_map = #tkg.tensor_map<base = 0, shape = [-1, 2], shape_values = [64, 0], strides = [-1], stride_values = [4096], box = [64, 32], swizzle = 64, element_bytes = 2>}
func.func @tma_rings(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32,
    %map: !tkg.tensor_map {tkg.tensor_map = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>},
    %mapb: !tkg.tensor_map {tkg.tensor_map = #tkg.tensor_map<base = 0, shape = [-1, 2], shape_values = [64, 0], strides = [-1], stride_values = [4096], box = [64, 32], swizzle = 64, element_bytes = 2>},
    %s: i32, %parity: i32, %row: i32, %col: i32) {
  // CHECK: %[[BUF:.*]] = tkg.local_alloc : !tkg.shared<[3, 128, 64], f16>
  %buf = tkg.local_alloc : !tkg.shared<[3, 128, 64], f16>
  // CHECK: %[[BUFB:.*]] = tkg.local_alloc : !tkg.shared<[3, 64, 128], f16>
  %bufb = tkg.local_alloc : !tkg.shared<[3, 64, 128], f16>
  // CHECK: %[[FULL:.*]] = tkg.barrier_alloc arrivals = 1 : !tkg.barriers<3>
  %full = tkg.barrier_alloc arrivals = 1 : !tkg.barriers<3>
  // CHECK: %[[EMPTY:.*]] = tkg.barrier_alloc arrivals = 8 : !tkg.barriers<3>
  %empty = tkg.barrier_alloc arrivals = 8 : !tkg.barriers<3>
  // CHECK: tkg.elect : i1
  %leader = tkg.elect : i1
  // CHECK: tkg.barrier_wait %[[EMPTY]][%{{.*}}], %{{.*}} : !tkg.barriers<3>
  tkg.barrier_wait %empty[%s], %parity : !tkg.barriers<3>
  // CHECK: tkg.barrier_expect %[[FULL]][%{{.*}}], 32768 : !tkg.barriers<3>
  tkg.barrier_expect %full[%s], 32768 : !tkg.barriers<3>
  // CHECK: tkg.tma_load %[[MAP]][%{{.*}}, %{{.*}}], %[[BUF]][%{{.*}}], %[[FULL]][%{{.*}}] : !tkg.shared<[3, 128, 64], f16>, !tkg.barriers<3>
  tkg.tma_load %map[%row, %col], %buf[%s], %full[%s] : !tkg.shared<[3, 128, 64], f16>, !tkg.barriers<3>
  // CHECK: tkg.tma_load %[[MAPB]][%{{.*}}, %{{.*}}], %[[BUFB]][%{{.*}}], %[[FULL]][%{{.*}}] : !tkg.shared<[3, 64, 128], f16>, !tkg.barriers<3>
  tkg.tma_load %mapb[%col, %row], %bufb[%s], %full[%s] : !tkg.shared<[3, 64, 128], f16>, !tkg.barriers<3>
  // CHECK: tkg.tma_load %[[MAPB]][%{{.*}}, %{{.*}}], %[[BUFB]][%{{.*}}], %[[FULL]][%{{.*}}] evict = last : !tkg.shared<[3, 64, 128], f16>, !tkg.barriers<3>
  tkg.tma_load %mapb[%col, %row], %bufb[%s], %full[%s] evict = last : !tkg.shared<[3, 64, 128], f16>, !tkg.barriers<3>
  // CHECK: tkg.barrier_wait %[[FULL]][%{{.*}}], %{{.*}} : !tkg.barriers<3>
  tkg.barrier_wait %full[%s], %parity : !tkg.barriers<3>
  // CHECK: tkg.local_load %[[BUF]][%{{.*}}] : !tkg.shared<[3, 128, 64], f16> -> tensor<128x64xf16>
  %t = tkg.local_load %buf[%s] : !tkg.shared<[3, 128, 64], f16> -> tensor<128x64xf16>
  // CHECK: tkg.barrier_arrive %[[EMPTY]][%{{.*}}] : !tkg.barriers<3>
  tkg.barrier_arrive %empty[%s] : !tkg.barriers<3>
  return
}
