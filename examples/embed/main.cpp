// The JIT from a C++ program: load examples/matmul.tk, let the autotuner pick the config for
// this shape (on the GPU; the interpreter runs the first config), check C = A * B against a
// plain CPU reference. Exit status 0 only within tolerance.
//   embed [--backend interp|cuda] [--size M,N,K]
#include <tk/tk.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

namespace {

/// $TK_EXAMPLES_DIR (a copy of the tree elsewhere), else the source tree this was built from.
std::string examplesDir() {
  const char *dir = std::getenv("TK_EXAMPLES_DIR");
  return dir && *dir ? dir : TK_EXAMPLES_DIR;
}

} // namespace

int main(int argc, char **argv) {
  tk::Backend backend = tk::Context::defaultBackend();
  int M = 0, N = 0, K = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--backend" && i + 1 < argc) {
      std::string name = argv[++i];
      backend = name == "interp" ? tk::Backend::Interpreter : tk::Backend::Cuda;
    } else if (arg == "--size" && i + 1 < argc) {
      std::sscanf(argv[++i], "%d,%d,%d", &M, &N, &K);
    } else {
      std::cerr << "usage: embed [--backend interp|cuda] [--size M,N,K]\n";
      return 2;
    }
  }
  bool gpu = backend == tk::Backend::Cuda;
  if (M == 0)
    M = gpu ? 2048 : 96, N = gpu ? 2048 : 80, K = gpu ? 2048 : 72;
  try {
    tk::Context context(backend);
    tk::Module module = tk::Module::fromFile(context, examplesDir() + "/matmul.tk");
    tk::Kernel matmul = module.kernel("matmul");

    std::mt19937 rng(7);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<uint16_t> a(size_t(M) * K), b(size_t(K) * N);
    for (auto &v : a) v = tk::fp::floatToHalf(uniform(rng));
    for (auto &v : b) v = tk::fp::floatToHalf(uniform(rng));
    tk::Buffer da = tk::Buffer::ofBits(context, tk::Scalar::F16, a);
    tk::Buffer db = tk::Buffer::ofBits(context, tk::Scalar::F16, b);
    tk::Buffer dc(context, tk::Scalar::F16, size_t(M) * N);

    // The grid follows the config the tuner picks.
    tk::GridSpec grid([&](const tk::Config &c) { return tk::Grid(((M + c["BM"] - 1) / c["BM"]) * ((N + c["BN"] - 1) / c["BN"])); });
    std::vector<tk::Arg> args{da, db, dc, M, N, K, K, N, N};
    tk::TuneReport report = matmul.tune(grid, args);
    std::cout << "matmul " << M << "x" << N << "x" << K << " on " << context.device().name << ":\n";
    for (size_t i = 0; i < report.results.size(); ++i)
      std::cout << (i == report.best ? "  * " : "    ") << report.results[i].config.str() << "  "
                << (report.results[i].ms ? std::to_string(*report.results[i].ms) + " ms" : report.results[i].status)
                << "\n";
    matmul.launch(grid, args); // the winner, from memory
    context.synchronize();

    // Every element at small sizes, 4096 sampled ones at large sizes, against a double-precision
    // dot product of the same f16 inputs.
    std::vector<uint16_t> c = dc.toVector<uint16_t>();
    std::vector<float> fa(a.size()), fb(b.size());
    for (size_t i = 0; i < a.size(); ++i) fa[i] = tk::fp::halfToFloat(a[i]);
    for (size_t i = 0; i < b.size(); ++i) fb[i] = tk::fp::halfToFloat(b[i]);
    bool all = double(M) * N * K <= 1e8;
    size_t samples = all ? size_t(M) * N : 4096;
    double worst = 0;
    for (size_t s = 0; s < samples; ++s) {
      size_t i = all ? s / N : rng() % M, j = all ? s % N : rng() % N;
      double reference = 0;
      for (int k = 0; k < K; ++k)
        reference += double(fa[i * K + k]) * fb[size_t(k) * N + j];
      double error = std::abs(tk::fp::halfToFloat(c[i * N + j]) - reference) / (1.0 + std::abs(reference));
      worst = std::max(worst, error);
    }
    bool ok = worst < 2e-2;
    std::cout << "max relative error " << worst << (ok ? " (ok)" : " (too large)") << "\n";
    return ok ? 0 : 1;
  } catch (const tk::Error &e) {
    std::cerr << "embed: " << e.what() << "\n";
    return 1;
  }
}
