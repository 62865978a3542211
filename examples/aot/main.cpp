// Kernels compiled ahead of time (vector_add.h and matmul.h, from `tkc --emit=header`): no
// compiler at run time, only libtkc-runtime. Exit status 0 when the results are right, 77 when there
// is no GPU.
#include "matmul.h"
#include "vector_add.h"

#include <tk/Support/FloatFormats.h>

#include <cmath>
#include <iostream>

namespace {

/// examples/matmul.tk's first config (128x256x64 tiles, TMA on sm_90a) and its
/// warp-specialized one, on a 200x272x144 product (M ragged), against a sum in doubles.
bool matmulOnHopper(tk::Context &context) {
  const int M = 200, N = 272, K = 144; // row strides divisible by 16, as the header was compiled for
  std::vector<uint16_t> a(size_t(M) * K), b(size_t(K) * N);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = tk::fp::floatToHalf(float(int(i % 7) - 3) * 0.25f);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = tk::fp::floatToHalf(float(int(i % 5) - 2) * 0.5f);
  tk::Buffer da(context, tk::Scalar::F16, a.size()), db(context, tk::Scalar::F16, b.size()),
      dc(context, tk::Scalar::F16, size_t(M) * N);
  da.upload(a.data(), a.size() * 2);
  db.upload(b.data(), b.size() * 2);
  auto check = [&](const char *name) {
    std::vector<uint16_t> c = dc.toVector<uint16_t>();
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double want = 0;
        for (int k = 0; k < K; ++k)
          want += double(tk::fp::halfToFloat(a[size_t(i) * K + k])) * tk::fp::halfToFloat(b[size_t(k) * N + j]);
        if (std::abs(tk::fp::halfToFloat(c[size_t(i) * N + j]) - want) > 1e-2 * (1 + std::abs(want))) {
          std::cerr << "aot: " << name << " element (" << i << ", " << j << ") is "
                    << tk::fp::halfToFloat(c[size_t(i) * N + j]) << ", expected " << want << "\n";
          return false;
        }
      }
    return true;
  };
  using Tma = tk_aot::matmul::matmul; // 128x256x64, 8 warps, 4 stages
  Tma::launch(context, tk::Grid(((M + Tma::BM - 1) / Tma::BM) * ((N + Tma::BN - 1) / Tma::BN)), da, db, dc, M, N, K, K,
              N, N);
  if (!check("matmul (TMA)"))
    return false;
  using Specialized = tk_aot::matmul::matmul__BM_64__BN_128__BK_128__GROUP_M_8__num_warps_4__num_stages_4__warp_specialize_1;
  dc.upload(std::vector<uint16_t>(size_t(M) * N, 0).data(), size_t(M) * N * 2);
  Specialized::launch(context, tk::Grid(((M + 63) / 64) * ((N + 127) / 128)), da, db, dc, M, N, K, K, N, N);
  return check("matmul (TMA, producer warpgroup)");
}

} // namespace

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
    if (context.device().sm == 90) {
      if (!matmulOnHopper(context))
        return 1;
      std::cout << "aot: matmul by TMA (sm_90a), with and without a producer warpgroup: ok\n";
    }
    return 0;
  } catch (const tk::Error &e) {
    std::cerr << "aot: " << e.what() << "\n";
    return 1;
  }
}
