// How fast can a chain of batch-1 W8A16 GEMVs (a LLaMA-7B decode step's weights, 32 layers)
// stream on this GPU? One launch per GEMV, each over its own weights, as a decode step runs them:
// plain launches, programmatic dependent launch (PDL: the next kernel's blocks start as this
// one's retire, prefetch their first weights into L2, then wait), PDL with the first k-step's
// weights loaded into registers before the wait, each captured in a CUDA graph; and the
// layer's gate and up projections as one GEMV. Effective TB/s = weight bytes / step time.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cstdint>
#include <cstdio>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

enum Mode { PLAIN = 0, PDL = 1, PDL_EARLY = 2, PDL_LATE = 3 };

template <int ROWS, int MODE>
__global__ void __launch_bounds__(128) gemv(const __nv_bfloat16 *x, const uint8_t *w, __nv_bfloat16 *y, int N, int K, int prefetch) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int row0 = (blockIdx.x * 4 + warp) * ROWS;
  if (MODE != PLAIN) {
    if (lane < ROWS && prefetch)
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(w + (size_t)(row0 + lane) * K), "r"(min(prefetch, K)) : "memory");
  }
  uint4 first[ROWS];
  int k = lane * 16;
  if (MODE == PDL_EARLY) {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) first[r] = k < K ? *(const uint4 *)(w + (size_t)(row0 + r) * K + k) : make_uint4(0, 0, 0, 0);
  }
  if (MODE != PLAIN) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    if (MODE != PDL_LATE) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  }
  float acc[ROWS] = {};
  for (int k0 = 0; k0 < K; k0 += 512) {
    int k = k0 + lane * 16;
    uint4 wv[ROWS], xv[2];
    bool in = k < K;
    xv[0] = in ? *(const uint4 *)(x + k) : make_uint4(0, 0, 0, 0);
    xv[1] = in ? *(const uint4 *)(x + k + 8) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
      wv[r] = (MODE == PDL_EARLY && k0 == 0) ? first[r] : in ? *(const uint4 *)(w + (size_t)(row0 + r) * K + k) : make_uint4(0, 0, 0, 0);
    float xf[16];
    const __nv_bfloat162 *xp = (const __nv_bfloat162 *)xv;
#pragma unroll
    for (int i = 0; i < 8; ++i) { float2 f = __bfloat1622float2(xp[i]); xf[2 * i] = f.x; xf[2 * i + 1] = f.y; }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const __nv_fp8x2_storage_t *wp = (const __nv_fp8x2_storage_t *)&wv[r];
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(wp[i], __NV_E4M3);
        float2 f = __half22float2(*(__half2 *)&h);
        acc[r] = fmaf(xf[2 * i], f.x, acc[r]);
        acc[r] = fmaf(xf[2 * i + 1], f.y, acc[r]);
      }
    }
  }
#pragma unroll
  if (MODE == PDL_LATE) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    float v = acc[r];
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
    if (lane == 0 && row0 + r < N) y[row0 + r] = __float2bfloat16(v);
  }
}

struct Gemv { int N, K; uint8_t *w; };

template <int MODE>
void launch(const Gemv &g, const __nv_bfloat16 *x, __nv_bfloat16 *y, int prefetch, cudaStream_t s) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(g.N / 8); cfg.blockDim = dim3(128); cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr; cfg.numAttrs = MODE == PLAIN ? 0 : 1;
  CK(cudaLaunchKernelEx(&cfg, gemv<2, MODE>, x, (const uint8_t *)g.w, y, g.N, g.K, prefetch));
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main() {
  const int layers = 32;
  std::vector<std::pair<int, int>> split = {{12288, 4096}, {4096, 4096}, {11008, 4096}, {11008, 4096}, {4096, 11008}};
  std::vector<std::pair<int, int>> merged = {{12288, 4096}, {4096, 4096}, {22016, 4096}, {4096, 11008}};
  size_t perLayer = 0; for (auto [n, k] : split) perLayer += (size_t)n * k;
  uint8_t *pool; CK(cudaMalloc(&pool, perLayer * layers));
  CK(cudaMemset(pool, 0x38, perLayer * layers)); // e4m3 1.0
  __nv_bfloat16 *x, *y; CK(cudaMalloc(&x, 22016 * 2)); CK(cudaMalloc(&y, 22016 * 2)); CK(cudaMemset(x, 0, 22016 * 2));
  cudaStream_t s; CK(cudaStreamCreate(&s));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int useMerged = 0; useMerged < 2; ++useMerged) {
    std::vector<Gemv> chain; size_t off = 0;
    for (int l = 0; l < layers; ++l)
      for (auto [n, k] : useMerged ? merged : split) { chain.push_back({n, k, pool + off}); off += (size_t)n * k; }
    for (int mode = 0; mode < 4; ++mode)
      for (int prefetch : {0, 512, 1024}) {
        if (mode == PLAIN && prefetch) continue;
        for (int graph = 0; graph < 2; ++graph) {
          auto step = [&] {
            for (auto &g : chain) {
              if (mode == PLAIN) launch<PLAIN>(g, x, y, prefetch, s);
              else if (mode == PDL) launch<PDL>(g, x, y, prefetch, s);
              else if (mode == PDL_EARLY) launch<PDL_EARLY>(g, x, y, prefetch, s);
              else launch<PDL_LATE>(g, x, y, prefetch, s);
            }
          };
          cudaGraphExec_t exec = nullptr;
          if (graph) {
            cudaGraph_t gr; CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal)); step(); CK(cudaStreamEndCapture(s, &gr));
            CK(cudaGraphInstantiate(&exec, gr, 0));
          }
          std::vector<float> t;
          for (int rep = 0; rep < 9; ++rep) {
            CK(cudaEventRecord(a, s));
            if (graph) CK(cudaGraphLaunch(exec, s)); else step();
            CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b));
            float ms; cudaEventElapsedTime(&ms, a, b); if (rep) t.push_back(ms);
          }
          float ms = median(t);
          printf("%-12s %-10s prefetch %4d B/row %-6s: %.3f ms per %d-layer step, %.2f TB/s, %.2f us per launch\n",
                 useMerged ? "gate+up one" : "gate, up", mode == PLAIN ? "plain" : mode == PDL ? "pdl" : mode == PDL_EARLY ? "pdl-early" : "pdl-late", prefetch,
                 graph ? "graph" : "stream", ms, layers, perLayer * layers / ms / 1e9, ms * 1000 / chain.size());
        }
      }
  }
}
