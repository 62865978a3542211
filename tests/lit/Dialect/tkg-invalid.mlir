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

func.func @reread(%x: i32) {
  // expected-error @+1 {{'tkg.rereadable' belongs on a tk.broadcast}}
  %y = arith.addi %x, %x {tkg.rereadable} : i32
  return
}

// -----

func.func @reread_unit(%x: tensor<4x1xf32>) {
  // expected-error @+1 {{'tkg.rereadable' is a unit attribute}}
  %y = tk.broadcast %x {tkg.rereadable = 1 : i32} : tensor<4x1xf32> -> tensor<4x4xf32>
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

// -----

// TMA pipelines: the tensor-map recipes on kernel arguments, and the copies that read them.

// expected-error @+1 {{the swizzle is 0, 32, 64 or 128 bytes}}
#bad = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 96, element_bytes = 2>

// -----

// expected-error @+1 {{box dimensions are 1 to 256 elements}}
#bad = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [512, 64], swizzle = 128, element_bytes = 2>

// -----

// expected-error @+1 {{box dimensions are 1 to 256 elements}}
#bad = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [0, 64], swizzle = 128, element_bytes = 2>

// -----

// expected-error @+1 {{elements are 1, 2 or 4 bytes}}
#bad = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 3>

// -----

// Two dimensions have one stride (the last is contiguous), not two.
// expected-error @+1 {{a tensor map has 1 to 5 dimensions, with a shape, value and box entry for each and a stride for each but the last}}
#bad = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3, 4], stride_values = [0, 0], box = [128, 64], swizzle = 128, element_bytes = 2>

// -----

// expected-error @+1 {{a tensor map has 1 to 5 dimensions}}
#bad = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128], swizzle = 128, element_bytes = 2>

// -----

// expected-error @+1 {{a tensor map has 1 to 5 dimensions}}
#bad = #tkg.tensor_map<base = 0, shape = [1, 2, 3], shape_values = [0, 0], strides = [3, 4], stride_values = [0, 0], box = [1, 128, 64], swizzle = 128, element_bytes = 2>

// -----

// expected-error @+1 {{a shape or stride is an argument index (with a factor: a value in [0, 2^32] or -1 - an argument index) or (with -1) a value in [1, 2^32]}}
#bad = #tkg.tensor_map<base = 0, shape = [-1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

// -----

// expected-error @+1 {{the base must be a kernel argument}}
#bad = #tkg.tensor_map<base = -1, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

func.func @one_coordinate(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32) {
  %buf = tkg.local_alloc : !tkg.shared<[3, 128, 64], f16>
  %full = tkg.barrier_alloc arrivals = 1 : !tkg.barriers<3>
  // expected-error @+1 {{'tkg.tma_load' op has 1 coordinates for a 2-D stage}}
  tkg.tma_load %map[%i], %buf[%i], %full[%i] : !tkg.shared<[3, 128, 64], f16>, !tkg.barriers<3>
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

func.func @three_coordinates(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32) {
  %buf = tkg.local_alloc : !tkg.shared<[3, 128, 64], f16>
  %full = tkg.barrier_alloc arrivals = 1 : !tkg.barriers<3>
  // expected-error @+1 {{'tkg.tma_load' op has 3 coordinates for a map of 2 dimensions (a stack's box is 1 along the first)}}
  tkg.tma_load %map[%i, %i, %i], %buf[%i], %full[%i] : !tkg.shared<[3, 128, 64], f16>, !tkg.barriers<3>
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2, 3], shape_values = [0, 0, 0], strides = [3, 3], stride_values = [0, 0], box = [2, 128, 64], swizzle = 128, element_bytes = 2>

func.func @three_dimensions(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32) {
  %buf = tkg.local_alloc : !tkg.shared<[3, 2, 128, 64], f16>
  %full = tkg.barrier_alloc arrivals = 1 : !tkg.barriers<3>
  // expected-error @+1 {{'tkg.tma_load' op copies 2-D stages only}}
  tkg.tma_load %map[%i, %i, %i], %buf[%i], %full[%i] : !tkg.shared<[3, 2, 128, 64], f16>, !tkg.barriers<3>
  return
}

// -----

// A tensor-map argument without its recipe: the launcher would not know how to build it.
func.func @no_recipe(%a: !tk.ptr<f16>, %map: !tkg.tensor_map, %i: i32) {
  %buf = tkg.local_alloc : !tkg.shared<[3, 128, 64], f16>
  %full = tkg.barrier_alloc arrivals = 1 : !tkg.barriers<3>
  // expected-error @+1 {{'tkg.tma_load' op needs a kernel argument with a 'tkg.tensor_map' attribute as its map}}
  tkg.tma_load %map[%i, %i], %buf[%i], %full[%i] : !tkg.shared<[3, 128, 64], f16>, !tkg.barriers<3>
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

// A block argument of a region inside the kernel is not the kernel's argument.
func.func @not_a_kernel_argument(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32) {
  %buf = tkg.local_alloc : !tkg.shared<[3, 128, 64], f16>
  %full = tkg.barrier_alloc arrivals = 1 : !tkg.barriers<3>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %it = %c0 to %c1 step %c1 iter_args(%carried = %map) -> (!tkg.tensor_map) {
    // expected-error @+1 {{'tkg.tma_load' op needs a kernel argument with a 'tkg.tensor_map' attribute as its map}}
    tkg.tma_load %carried[%i, %i], %buf[%i], %full[%i] : !tkg.shared<[3, 128, 64], f16>, !tkg.barriers<3>
    scf.yield %carried : !tkg.tensor_map
  }
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 48], swizzle = 0, element_bytes = 2>

func.func @box_columns(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32) {
  %buf = tkg.local_alloc : !tkg.shared<[3, 128, 64], f16>
  %full = tkg.barrier_alloc arrivals = 1 : !tkg.barriers<3>
  // expected-error @+1 {{'tkg.tma_load' op copies a 128x64 stage, which boxes of 128x48 do not tile}}
  tkg.tma_load %map[%i, %i], %buf[%i], %full[%i] : !tkg.shared<[3, 128, 64], f16>, !tkg.barriers<3>
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [64, 64], swizzle = 128, element_bytes = 2>

// One box covers all the stage's rows: two boxes of 64 rows do not make a stage of 128.
func.func @box_rows(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32) {
  %buf = tkg.local_alloc : !tkg.shared<[3, 128, 64], f16>
  %full = tkg.barrier_alloc arrivals = 1 : !tkg.barriers<3>
  // expected-error @+1 {{'tkg.tma_load' op copies a 128x64 stage, which boxes of 64x64 do not tile}}
  tkg.tma_load %map[%i, %i], %buf[%i], %full[%i] : !tkg.shared<[3, 128, 64], f16>, !tkg.barriers<3>
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

// expected-error @+1 {{'tkg.tensor_map' belongs on a !tkg.tensor_map kernel argument}}
func.func @on_an_integer(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32 {tkg.tensor_map = #a}) {
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

// expected-error @+1 {{'tkg.tensor_map' belongs on a !tkg.tensor_map kernel argument}}
func.func @on_a_pointer(%a: !tk.ptr<f16> {tkg.tensor_map = #a}, %m: i32, %k: i32, %ld: i32) {
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

// expected-error @+1 {{'tkg.tensor_map' belongs on a !tkg.tensor_map kernel argument}}
func.func @on_a_float(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32, %x: f32 {tkg.tensor_map = #a}) {
  return
}

// -----

// expected-error @+1 {{'tkg.tensor_map' is a #tkg.tensor_map}}
func.func @not_a_recipe(%a: !tk.ptr<f16>, %map: !tkg.tensor_map {tkg.tensor_map = 128 : i64}) {
  return
}

// -----

// The shape names argument 7 of a kernel with 5.
#a = #tkg.tensor_map<base = 0, shape = [1, 7], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

// expected-error @+1 {{'tkg.tensor_map' names argument 7, which is not a kernel parameter}}
func.func @shape_out_of_range(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}) {
  return
}

// -----

// The base is another tensor map.
#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>
#b = #tkg.tensor_map<base = 4, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

// expected-error @+1 {{'tkg.tensor_map' names argument 4, which is not a kernel parameter}}
func.func @base_is_a_map(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %map2: !tkg.tensor_map {tkg.tensor_map = #b}) {
  return
}

// -----

// A stack stride's factor names argument 4 (-1 - 4 = -5), the tensor map itself.
#a = #tkg.tensor_map<base = 0, shape = [-1, 1, 2], shape_values = [2147483648, 0, 0], strides = [1, 3], stride_values = [-5, 0], box = [1, 128, 64], swizzle = 128, element_bytes = 2>

// expected-error @+1 {{'tkg.tensor_map' names argument 4, which is not a kernel parameter}}
func.func @factor_is_the_map(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}) {
  return
}

// -----

// A factor naming argument 2^31 - 1 (-1 - (2^31 - 1)).
#a = #tkg.tensor_map<base = 0, shape = [-1, 1, 2], shape_values = [2147483648, 0, 0], strides = [1, 3], stride_values = [-2147483648, 0], box = [1, 128, 64], swizzle = 128, element_bytes = 2>

// expected-error @+1 {{'tkg.tensor_map' names argument 2147483647, which is not a kernel parameter}}
func.func @factor_out_of_range(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}) {
  return
}

// -----

// expected-error @+1 {{unknown argument attribute 'tkg.tensormap' of the tkg dialect}}
func.func @misspelt(%a: !tk.ptr<f16>, %map: !tkg.tensor_map {tkg.tensormap = 0 : i64}) {
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

// A TMA store stages its tile in one stage of its rows and a part of its columns.
func.func @store_two_stages(%a: !tk.ptr<f16>, %m: i32, %n: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32, %t: tensor<128x128xf16>) {
  %buf = tkg.local_alloc : !tkg.shared<[2, 128, 128], f16>
  // expected-error @+1 {{'tkg.tma_store' op stores a 2-D tile through one stage of its rows, its element type and a part of its columns}}
  tkg.tma_store %t, %map[%i, %i] via %buf : tensor<128x128xf16>, !tkg.shared<[2, 128, 128], f16>
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

func.func @store_part_not_dividing(%a: !tk.ptr<f16>, %m: i32, %n: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32, %t: tensor<128x256xf16>) {
  %buf = tkg.local_alloc : !tkg.shared<[1, 128, 192], f16>
  // expected-error @+1 {{'tkg.tma_store' op stores a 2-D tile through one stage of its rows, its element type and a part of its columns}}
  tkg.tma_store %t, %map[%i, %i] via %buf : tensor<128x256xf16>, !tkg.shared<[1, 128, 192], f16>
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

func.func @store_part_of_no_columns(%a: !tk.ptr<f16>, %m: i32, %n: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32, %t: tensor<128x256xf16>) {
  %buf = tkg.local_alloc : !tkg.shared<[1, 128, 0], f16>
  // expected-error @+1 {{'tkg.tma_store' op stores a 2-D tile through one stage of its rows, its element type and a part of its columns}}
  tkg.tma_store %t, %map[%i, %i] via %buf : tensor<128x256xf16>, !tkg.shared<[1, 128, 0], f16>
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

func.func @store_part_not_power_of_two(%a: !tk.ptr<f16>, %m: i32, %n: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32, %t: tensor<128x384xf16>) {
  %buf = tkg.local_alloc : !tkg.shared<[1, 128, 192], f16>
  // expected-error @+1 {{'tkg.tma_store' op stages a part of 192 of a tile's 384 columns; parts need powers of two}}
  tkg.tma_store %t, %map[%i, %i] via %buf : tensor<128x384xf16>, !tkg.shared<[1, 128, 192], f16>
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

func.func @store_other_type(%a: !tk.ptr<f16>, %m: i32, %n: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32, %t: tensor<128x128xf16>) {
  %buf = tkg.local_alloc : !tkg.shared<[1, 128, 128], bf16>
  // expected-error @+1 {{'tkg.tma_store' op stores a 2-D tile through one stage of its rows, its element type and a part of its columns}}
  tkg.tma_store %t, %map[%i, %i] via %buf : tensor<128x128xf16>, !tkg.shared<[1, 128, 128], bf16>
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

func.func @store_one_coordinate(%a: !tk.ptr<f16>, %m: i32, %n: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32, %t: tensor<128x128xf16>) {
  %buf = tkg.local_alloc : !tkg.shared<[1, 128, 128], f16>
  // expected-error @+1 {{'tkg.tma_store' op has 1 coordinates for a 2-D tile (2)}}
  tkg.tma_store %t, %map[%i] via %buf : tensor<128x128xf16>, !tkg.shared<[1, 128, 128], f16>
  return
}

// -----

// A tensor-map argument without its recipe.
func.func @store_no_recipe(%a: !tk.ptr<f16>, %map: !tkg.tensor_map, %i: i32, %t: tensor<128x128xf16>) {
  %buf = tkg.local_alloc : !tkg.shared<[1, 128, 128], f16>
  // expected-error @+1 {{'tkg.tma_store' op needs a kernel argument with a 'tkg.tensor_map' attribute as its map}}
  tkg.tma_store %t, %map[%i, %i] via %buf : tensor<128x128xf16>, !tkg.shared<[1, 128, 128], f16>
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [64, 64], swizzle = 128, element_bytes = 2>

// The map's boxes must tile the stored tile: 64 rows for a 128-row tile do not.
func.func @store_box_rows(%a: !tk.ptr<f16>, %m: i32, %n: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32, %t: tensor<128x128xf16>) {
  %buf = tkg.local_alloc : !tkg.shared<[1, 128, 128], f16>
  // expected-error @+1 {{'tkg.tma_store' op stores a 128x128 tile, which boxes of 64x64 do not tile}}
  tkg.tma_store %t, %map[%i, %i] via %buf : tensor<128x128xf16>, !tkg.shared<[1, 128, 128], f16>
  return
}

// -----

// Dot counts are two per kernel: [tensor cores, FMA].
// expected-error @+1 {{'tkg.dot_placement' is a dictionary of kernel name to [tensor cores, FMA] dot counts on a module}}
module attributes {tkg.dot_placement = {k = array<i64: 1>}} {
}

// -----

func.func @placement_on_a_function() attributes {tkg.dot_placement = {k = array<i64: 1, 0>}} {
  // expected-error @-1 {{'tkg.dot_placement' is a dictionary of kernel name to [tensor cores, FMA] dot counts on a module}}
  return
}

// -----

// The rings' handoff between two loops over tiles is one barrier.
func.func @handoff_of_three() {
  // expected-error @+1 {{'tkg.rings_handoff' is a unit attribute on a tkg.barrier_alloc of one barrier}}
  %b = tkg.barrier_alloc arrivals = 4 {tkg.rings_handoff} : !tkg.barriers<3>
  return
}

// -----

// A copy a cluster's two CTAs share: `shared` and `halves` together (the generic form could
// give one alone: before, a verifier crash), in a kernel on clusters, by half-row boxes.
#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

func.func @shared_without_halves(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32, %p: i1) {
  %buf = tkg.local_alloc : !tkg.shared<[3, 128, 64], f16>
  %full = tkg.barrier_alloc arrivals = 1 : !tkg.barriers<3>
  // expected-error @+1 {{'tkg.tma_load' op takes `shared` and `halves` together}}
  "tkg.tma_load"(%map, %i, %i, %buf, %i, %full, %i, %p) <{operandSegmentSizes = array<i32: 1, 2, 1, 1, 1, 1, 1, 0>}> : (!tkg.tensor_map, i32, i32, !tkg.shared<[3, 128, 64], f16>, i32, !tkg.barriers<3>, i32, i1) -> ()
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>
#h = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [64, 64], swizzle = 128, element_bytes = 2>

func.func @shared_not_on_clusters(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %half: !tkg.tensor_map {tkg.tensor_map = #h}, %i: i32, %p: i1) {
  %buf = tkg.local_alloc : !tkg.shared<[3, 128, 64], f16>
  %full = tkg.barrier_alloc arrivals = 1 : !tkg.barriers<3>
  // expected-error @+1 {{'tkg.tma_load' op is shared by a cluster's CTAs in a kernel not on clusters ('tkg.cluster_ctas')}}
  tkg.tma_load %map[%i, %i], %buf[%i], %full[%i] shared %p halves %half : !tkg.shared<[3, 128, 64], f16>, !tkg.barriers<3>
  return
}

// -----

#a = #tkg.tensor_map<base = 0, shape = [1, 2], shape_values = [0, 0], strides = [3], stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>

func.func @halves_of_whole_boxes(%a: !tk.ptr<f16>, %m: i32, %k: i32, %ld: i32, %map: !tkg.tensor_map {tkg.tensor_map = #a}, %i: i32, %p: i1) attributes {tkg.producer_warps = 4 : i32, tkg.cluster_ctas = 2 : i32} {
  %buf = tkg.local_alloc : !tkg.shared<[3, 128, 64], f16>
  %full = tkg.barrier_alloc arrivals = 1 : !tkg.barriers<3>
  // expected-error @+1 {{'tkg.tma_load' op copies a 128x64 stage in halves, which needs 2 coordinates, a multiple of 16 rows and a map of half-row boxes}}
  tkg.tma_load %map[%i, %i], %buf[%i], %full[%i] shared %p halves %map : !tkg.shared<[3, 128, 64], f16>, !tkg.barriers<3>
  return
}

// -----

// expected-error @+1 {{'tkg.cluster_ctas' is 2 on a kernel with a producer warpgroup}}
func.func @clusters_without_producer() attributes {tkg.cluster_ctas = 2 : i32} {
  return
}
