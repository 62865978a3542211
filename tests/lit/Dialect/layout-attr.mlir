// The layout encoding the GPU backend puts on tiles held in a slice of the mma accumulator's
// layout prints and parses back as it was.
// RUN: %tk-opt %s | %tk-opt | FileCheck %s
// CHECK: func.func @encoded(%arg0: tensor<64xf32, #tk.layout<slots = [3, 4], threads = [-1, -1, 0, 1, 2, 5, 6]>>)
func.func @encoded(%x: tensor<64xf32, #tk.layout<slots = [3, 4], threads = [-1, -1, 0, 1, 2, 5, 6]>>) {
  return
}
