// Kernels compiled ahead of time (vector_add.h, from `tkc --emit=header`): no compiler at run
// time, only libtkrt. Exit status 0 when the sums are right, 77 when there is no GPU.
#include "vector_add.h"

#include <iostream>

int main() {
  if (tk::Context::defaultBackend() != tk::Backend::Cuda) {
    std::cout << "aot: no GPU or CUDA driver here; AOT kernels run on the GPU only\n";
    return 77;
  }
  try {
    using Add = tk_aot::vector_add::vector_add; // its first (only) config
    const int n = 1 << 20;                      // compiled with --divisibility n=16
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i)
      x[i] = float(i), y[i] = 0.5f * float(n - i);
    tk::Context context;
    tk::Buffer dx = tk::Buffer::of(context, x), dy = tk::Buffer::of(context, y), out(context, tk::Scalar::F32, n);
    Add::launch(context, tk::Grid((n + Add::BLOCK - 1) / Add::BLOCK), dx, dy, out, n);
    std::vector<float> sum = out.toVector<float>();
    for (int i = 0; i < n; ++i)
      if (sum[i] != x[i] + y[i]) {
        std::cerr << "aot: element " << i << " is " << sum[i] << ", expected " << x[i] + y[i] << "\n";
        return 1;
      }
    // A size the header was not compiled for is an error, not a wrong answer.
    try {
      Add::launch(context, tk::Grid(1), dx, dy, out, 1000);
      std::cerr << "aot: n=1000 should have been refused\n";
      return 1;
    } catch (const tk::Error &e) {
      std::cout << "refused as expected: " << e.what() << "\n";
    }
    std::cout << "aot: vector_add of " << n << " elements on " << context.device().name << ": ok\n";
    return 0;
  } catch (const tk::Error &e) {
    std::cerr << "aot: " << e.what() << "\n";
    return 1;
  }
}
