// RUN: tk-opt %s -tk-threads-to-llvm -verify-diagnostics
// tk-threads-to-llvm on tile-level code (`tkc --emit=tk` output): one located error naming the
// passes that come first (before: "failed to legalize operation 'func.func'" and a dump).
func.func @kernel(%n: i32) attributes {tk.kernel, tk.num_warps = 4 : i32} {
  // expected-error @+1 {{'tk.make_range' yields a tile: tk-threads-to-llvm lowers per-thread code; run tk-assign-layouts and tk-to-threads first}}
  %r = tk.make_range 0, 128 : tensor<128xi32>
  return
}
