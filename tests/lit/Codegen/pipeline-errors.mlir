// RUN: tk-opt %s -tk-pipeline-dot-loads -tk-assign-layouts -tk-allocate-shared -tk-to-threads -verify-diagnostics

// 8 stages of a 128x128 A and a 128x128 B tile are 512 KiB: more than an sm_90 program has.
func.func @too_many_stages(%pa: tensor<128x128x!tk.ptr<f16>>, %pb: tensor<128x128x!tk.ptr<f16>>, %n: i32)
    attributes {tk.kernel, tk.num_warps = 4 : i32, tk.num_stages = 8 : i32} {
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %init = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %res = scf.for %i = %zero to %n step %one iter_args(%sum = %init) -> (tensor<128x128xf32>) : i32 {
    // expected-error @+1 {{the software pipeline (num_stages = 8) needs 524288 bytes of shared memory, more than the 232448 of sm_90; use fewer stages or smaller tiles}}
    %ta = tk.load %pa : (tensor<128x128x!tk.ptr<f16>>) -> tensor<128x128xf16>
    %tb = tk.load %pb : (tensor<128x128x!tk.ptr<f16>>) -> tensor<128x128xf16>
    %d = tk.dot %ta, %tb, %sum : tensor<128x128xf16> * tensor<128x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  return
}
