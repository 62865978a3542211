// Can a kernel-per-GEMV decode step stream its weights across kernel boundaries? A chain of
// batch-1 W8A16 GEMVs (a LLaMA-7B step's 160: per layer 12288x4096, 4096x4096, 11008x4096 twice,
// 4096x11008; e4m3 weights, bf16 activations, f32 per-row scales), each a launch, in one CUDA
// graph, each reading the previous one's output:
//   pdl-l2    session 14's best hand-written form (as tk's fp8_gemv_row): warps of 2 rows, the
//             first 1024 bytes of each row prefetched into L2 before griddepcontrol.wait;
//   ring      one CTA per SM and a ring of STAGES 16 KB stages in shared memory filled by a
//             producer warp with cp.async.bulk (mbarriers) over the CTA's contiguous rows; the
//             producer never waits for the previous kernel (weights are no kernel's output), the
//             8 consumer warps do (griddepcontrol.wait) before reading x; the CTA triggers its
//             dependents at once, and two CTAs fit an SM, so the next GEMV's CTAs fill their
//             rings while this one runs;
//   ring-plain  the same kernel launched plainly (no overlap);
//   mega      the whole chain in one persistent kernel (one CTA an SM): its producer warp streams
//             every GEMV's rows through a ring of 12 stages without ever stopping, the consumers
//             wait for the previous GEMV's last CTA at a counter in global memory (one per GEMV).
// Against a plain read of the same bytes (one kernel). TB/s = weight bytes / step time. Run 3
// adds mega and times chains of one shape (32 launches) to tell a kernel's own rate from its
// boundaries. Run 4: the consumers of ring and mega take whole rows a warp where a stage holds
// 8 rows (mega's 32 KB stages at K=4096; x from shared memory), instead of every warp a slice of
// every row with a shuffle reduction a row a warp, which run 3 found latency-bound at K=4096.
// Run 5 adds mega-nodot: mega whose consumers only take the stages and hand them back (no
// products; its outputs are zeros): the persistent structure's own limit. Run 7 adds
// mega-nowait and mega-nodot-nowait: without the wait between GEMVs (the outputs are wrong;
// only their time counts): what the dependency itself costs. Run 8 builds it with 16 consumer
// warps too (-DCONSUMER_WARPS=16): do more warps take the products' cost away? And adds
// mega-queue (and mega-queue-nodot): the items taken from a queue by the producers (below).
// Session 35 (run 5) builds it with -DX_IN_REGISTERS=1 too: each consumer lane loads the
// activation vectors of its columns from shared memory once a GEMV and keeps them in registers
// for every row (a lane's columns are the same in every row), where each 16 weight bytes read
// 32 bytes of x from shared memory again (lanes 32 bytes apart: two-way bank conflicts), so
// that shared memory serves the ring's weights alone: is that the products' cost?
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s (line %d)\n", #x, cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

// ---- pdl-l2: session 14's gemv<2, PDL> with prefetch ----
template <int ROWS>
__global__ void __launch_bounds__(128) gemv_pdl(const __nv_bfloat16 *x, const uint8_t *w, const float *scale, __nv_bfloat16 *y, int N, int K, int prefetch) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int row0 = (blockIdx.x * 4 + warp) * ROWS;
  if (lane < ROWS && prefetch && row0 + lane < N)
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(w + (size_t)(row0 + lane) * K), "r"(min(prefetch, K)) : "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  float acc[ROWS] = {};
  for (int k0 = 0; k0 < K; k0 += 512) {
    int k = k0 + lane * 16;
    uint4 wv[ROWS], xv[2];
    bool in = k < K;
    xv[0] = in ? *(const uint4 *)(x + k) : make_uint4(0, 0, 0, 0);
    xv[1] = in ? *(const uint4 *)(x + k + 8) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
      wv[r] = in && row0 + r < N ? *(const uint4 *)(w + (size_t)(row0 + r) * K + k) : make_uint4(0, 0, 0, 0);
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
  for (int r = 0; r < ROWS; ++r) {
    float v = acc[r];
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
    if (lane == 0 && row0 + r < N) y[row0 + r] = __float2bfloat16(v * scale[row0 + r]);
  }
}

// ---- ring and mega: one consumer ----
#ifndef CONSUMER_WARPS
#define CONSUMER_WARPS 8 // (run 8 builds 16 too)
#endif
constexpr int kConsumerWarps = CONSUMER_WARPS, kConsumers = 32 * kConsumerWarps, kMaxRowsPerCta = 168, kMaxK = 11008;
__device__ __forceinline__ uint32_t smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t ok = 0;
  while (!ok)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
}
#ifndef X_IN_REGISTERS
#define X_IN_REGISTERS 0
#endif
// 16 e4m3 weights times 16 bf16 activations (xa, xb: 8 each), in f32.
__device__ __forceinline__ float dot16(uint4 wv, uint4 xa, uint4 xb) {
  const __nv_fp8x2_storage_t *wp = (const __nv_fp8x2_storage_t *)&wv;
  const __nv_bfloat162 *xp0 = (const __nv_bfloat162 *)&xa, *xp1 = (const __nv_bfloat162 *)&xb;
  float acc = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(wp[i], __NV_E4M3);
    float2 f = __half22float2(*(__half2 *)&h);
    float2 x = __bfloat1622float2(i < 4 ? xp0[i] : xp1[i - 4]);
    acc = fmaf(x.x, f.x, acc);
    acc = fmaf(x.y, f.y, acc);
  }
  return acc;
}
// The same with the activations in shared memory.
__device__ __forceinline__ float dot16(uint4 wv, const __nv_bfloat16 *xs) {
  return dot16(wv, *(const uint4 *)xs, *(const uint4 *)(xs + 8));
}

// A CTA's share of one GEMV: rows [r0, r0 + rows) of w, in chunks of chunkRows rows a stage.
struct Share {
  int r0, rows, chunkRows, chunks;
  __device__ Share(int N, int K, int stageBytes) {
    r0 = (int)((long)blockIdx.x * N / gridDim.x);
    rows = (int)((long)(blockIdx.x + 1) * N / gridDim.x) - r0;
    chunkRows = max(1, stageBytes / K);
    chunks = (rows + chunkRows - 1) / chunkRows;
  }
};

// The producer (one thread): the share's chunks into the ring, `chunk` counting every stage use.
__device__ __forceinline__ void produce(const uint8_t *w, int K, const Share &sh, int &chunk, uint8_t *ring, int stages,
                                        int stageBytes, uint64_t *full, uint64_t *empty) {
  for (int i = 0; i < sh.chunks; ++i, ++chunk) {
    int s = chunk % stages;
    if (chunk >= stages) mbar_wait(smem_addr(empty + s), ((chunk / stages) - 1) & 1);
    uint32_t bytes = (uint32_t)(min(sh.chunkRows, sh.rows - i * sh.chunkRows) * K);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(full + s)), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(smem_addr(ring + s * stageBytes)), "l"(w + (size_t)(sh.r0 + i * sh.chunkRows) * K), "r"(bytes),
                 "r"(smem_addr(full + s)) : "memory");
  }
}

// The 8 consumer warps: x (already in xs) times the share's rows as they arrive, y written.
// Each row is summed by warpsPerRow warps (the warps / the chunk's rows, at least 1), each over its
// part of the columns: a warp's 32 lanes take 16-byte vectors in turn (independent loads).
template <bool COMPUTE = true>
__device__ __forceinline__ void consume(const float *scale, __nv_bfloat16 *y, int K, const Share &sh, int &chunk,
                                        const uint8_t *ring, int stages, int stageBytes, uint64_t *full, uint64_t *empty,
                                        const __nv_bfloat16 *xs, float *partial) {
  int t = threadIdx.x, warp = t >> 5, lane = t & 31, vecs = K / 16;
  int warpsPerRow = max(1, kConsumerWarps / sh.chunkRows), rowsAtOnce = kConsumerWarps / warpsPerRow, q = warp % warpsPerRow;
  int v0 = q * vecs / warpsPerRow, v1 = (q + 1) * vecs / warpsPerRow;
#if X_IN_REGISTERS
  // This lane's columns, v0 + lane + 32 j: at most kXVecs of them (K 4096 with a warp a row: 8;
  // K 11008, 4 warps a row: 6).
  constexpr int kXVecs = 8;
  uint4 xr[2 * kXVecs];
#pragma unroll
  for (int j = 0; j < kXVecs; ++j) {
    int v = v0 + lane + 32 * j;
    xr[2 * j] = v < v1 ? *(const uint4 *)(xs + v * 16) : make_uint4(0, 0, 0, 0);
    xr[2 * j + 1] = v < v1 ? *(const uint4 *)(xs + v * 16 + 8) : make_uint4(0, 0, 0, 0);
  }
  if (v1 - v0 > 32 * kXVecs) __trap(); // (a shape this form does not hold)
#endif
  for (int i = 0; i < sh.chunks; ++i, ++chunk) {
    int s = chunk % stages, n = min(sh.chunkRows, sh.rows - i * sh.chunkRows);
    mbar_wait(smem_addr(full + s), (chunk / stages) & 1);
    const uint8_t *stage = ring + s * stageBytes;
    for (int r = warp / warpsPerRow; COMPUTE && r < n; r += rowsAtOnce) {
      const uint8_t *row = stage + (size_t)r * K;
      float a0 = 0, a1 = 0, a2 = 0, a3 = 0; // four independent chains of FMAs
#if X_IN_REGISTERS
      float parts[4] = {0, 0, 0, 0};
#pragma unroll
      for (int j = 0; j < kXVecs; ++j) {
        int v = v0 + lane + 32 * j;
        if (v < v1) parts[j % 4] += dot16(*(const uint4 *)(row + v * 16), xr[2 * j], xr[2 * j + 1]);
      }
      a0 = parts[0]; a1 = parts[1]; a2 = parts[2]; a3 = parts[3];
      int v = v1; // (nothing left for the loops below)
#else
      int v = v0 + lane;
#endif
      for (; v + 96 < v1; v += 128) {
        a0 += dot16(*(const uint4 *)(row + v * 16), xs + v * 16);
        a1 += dot16(*(const uint4 *)(row + (v + 32) * 16), xs + (v + 32) * 16);
        a2 += dot16(*(const uint4 *)(row + (v + 64) * 16), xs + (v + 64) * 16);
        a3 += dot16(*(const uint4 *)(row + (v + 96) * 16), xs + (v + 96) * 16);
      }
      for (; v < v1; v += 32) a0 += dot16(*(const uint4 *)(row + v * 16), xs + v * 16);
      float acc = (a0 + a1) + (a2 + a3);
      for (int o = 16; o; o >>= 1) acc += __shfl_xor_sync(~0u, acc, o);
      if (lane == 0) partial[q * kMaxRowsPerCta + i * sh.chunkRows + r] = acc;
    }
    __syncwarp();
    if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(empty + s)) : "memory");
  }
  asm volatile("bar.sync 1, %0;" ::"r"(kConsumers) : "memory");
  for (int r = t; r < sh.rows; r += kConsumers) {
    float sum = 0;
    for (int p = 0; COMPUTE && p < warpsPerRow; ++p) sum += partial[p * kMaxRowsPerCta + r];
    y[sh.r0 + r] = __float2bfloat16(sum * scale[sh.r0 + r]);
  }
}

// x into shared memory (after whatever made it visible), the consumers together.
__device__ __forceinline__ void load_x(const __nv_bfloat16 *x, int K, __nv_bfloat16 *xs) {
  for (int v = threadIdx.x; v < K / 8; v += kConsumers) ((uint4 *)xs)[v] = __ldcg((const uint4 *)x + v);
  asm volatile("bar.sync 1, %0;" ::"r"(kConsumers) : "memory");
}

// Shared memory: the ring, x, the partial sums, the barriers.
struct Layout {
  uint8_t *ring; __nv_bfloat16 *xs; float *partial; uint64_t *full, *empty;
  __device__ Layout(uint8_t *smem, int stages, int stageBytes) {
    ring = smem; xs = (__nv_bfloat16 *)(smem + stages * stageBytes); partial = (float *)(xs + kMaxK);
    full = (uint64_t *)(partial + kConsumerWarps * kMaxRowsPerCta); empty = full + stages;
  }
  static size_t bytes(int stages, int stageBytes) { return (size_t)stages * stageBytes + kMaxK * 2 + kConsumerWarps * kMaxRowsPerCta * 4 + 16 * stages; }
  __device__ void init(int stages) {
    if (threadIdx.x == 0) {
      for (int s = 0; s < stages; ++s) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(full + s)));
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(empty + s)), "r"(kConsumerWarps));
      }
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
  }
};

constexpr int kRingStages = 5, kRingStageBytes = 16384;   // two CTAs an SM
constexpr int kMegaStages = 6, kMegaStageBytes = 32768;   // one CTA an SM
__global__ void __launch_bounds__(kConsumers + 32, kConsumerWarps == 8 ? 2 : 1) gemv_ring(const __nv_bfloat16 *x, const uint8_t *w, const float *scale, __nv_bfloat16 *y, int N, int K) {
  extern __shared__ __align__(128) uint8_t smem[];
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  Layout l(smem, kRingStages, kRingStageBytes);
  l.init(kRingStages);
  Share sh(N, K, kRingStageBytes);
  int chunk = 0;
  if (threadIdx.x >= kConsumers) { // the producer: never waits for the previous kernel
    if (threadIdx.x == kConsumers) produce(w, K, sh, chunk, l.ring, kRingStages, kRingStageBytes, l.full, l.empty);
    return;
  }
  asm volatile("griddepcontrol.wait;" ::: "memory"); // x is the previous kernel's output
  load_x(x, K, l.xs);
  consume(scale, y, K, sh, chunk, l.ring, kRingStages, kRingStageBytes, l.full, l.empty, l.xs, l.partial);
}

struct Desc { int N, K; const uint8_t *w; const float *scale; const __nv_bfloat16 *x; __nv_bfloat16 *y; };
template <bool COMPUTE, bool BARRIER = true>
__global__ void __launch_bounds__(kConsumers + 32, 1) gemv_mega(const Desc *descs, int count, int *done) {
  extern __shared__ __align__(128) uint8_t smem[];
  Layout l(smem, kMegaStages, kMegaStageBytes);
  l.init(kMegaStages);
  int chunk = 0;
  if (threadIdx.x >= kConsumers) { // the producer streams every GEMV's share without stopping
    if (threadIdx.x == kConsumers)
      for (int g = 0; g < count; ++g) {
        Desc d = descs[g];
        produce(d.w, d.K, Share(d.N, d.K, kMegaStageBytes), chunk, l.ring, kMegaStages, kMegaStageBytes, l.full, l.empty);
      }
    return;
  }
  for (int g = 0; g < count; ++g) {
    Desc d = descs[g];
    if (BARRIER && g > 0 && threadIdx.x == 0) { // the previous GEMV done by every CTA
      int seen = 0;
      do asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(seen) : "l"(done + g - 1) : "memory");
      while (seen < (int)gridDim.x);
    }
    asm volatile("bar.sync 1, %0;" ::"r"(kConsumers) : "memory");
    load_x(d.x, d.K, l.xs);
    consume<COMPUTE>(d.scale, d.y, d.K, Share(d.N, d.K, kMegaStageBytes), chunk, l.ring, kMegaStages, kMegaStageBytes, l.full,
            l.empty, l.xs, l.partial);
    __threadfence();
    asm volatile("bar.sync 1, %0;" ::"r"(kConsumers) : "memory");
    if (threadIdx.x == 0) asm volatile("red.release.gpu.global.add.s32 [%0], 1;" ::"l"(done + g) : "memory");
  }
}
static size_t megaSmem() { return Layout::bytes(kMegaStages, kMegaStageBytes); }

// ---- mega-queue: the producers take the items (a GEMV's next chunk of rows) from one queue ----
// Items are numbered GEMV after GEMV; a fast SM takes more of them, so the CTAs end a GEMV
// together instead of all waiting for the slowest static share. The producer writes each
// stage's item (GEMV, first row, rows) beside it; the consumers meet the GEMVs in order and
// wait for GEMV g - 1's items (all taken before any of g's) before g's first. A stage of GEMV
// -1 ends the work. (The smallest unfinished item belongs to a CTA that waits for nothing
// unfinished, so the waits always end.)
struct Item { int g, r0, n, pad; };
template <bool COMPUTE>
__global__ void __launch_bounds__(kConsumers + 32, 1) gemv_mega_queue(const Desc *descs, const int *firstItem, int count,
                                                                       int *queue, int *done) {
  extern __shared__ __align__(128) uint8_t smem[];
  Layout l(smem, kMegaStages, kMegaStageBytes);
  __shared__ Item items[kMegaStages];
  l.init(kMegaStages);
  int total = firstItem[count];
  if (threadIdx.x >= kConsumers) {
    if (threadIdx.x == kConsumers) {
      int g = 0;
      for (int chunk = 0;; ++chunk) {
        int i = atomicAdd(queue, 1), s = chunk % kMegaStages;
        if (chunk >= kMegaStages) mbar_wait(smem_addr(l.empty + s), ((chunk / kMegaStages) - 1) & 1);
        if (i >= total) { // the end: one stage of no GEMV
          items[s] = Item{-1, 0, 0, 0};
          asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(l.full + s)) : "memory");
          break;
        }
        while (i >= firstItem[g + 1]) ++g;
        Desc d = descs[g];
        int rowsPerItem = max(1, kMegaStageBytes / d.K), r0 = (i - firstItem[g]) * rowsPerItem, n = min(rowsPerItem, d.N - r0);
        items[s] = Item{g, r0, n, 0};
        uint32_t bytes = (uint32_t)(n * d.K);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(l.full + s)), "r"(bytes) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     ::"r"(smem_addr(l.ring + s * kMegaStageBytes)), "l"(d.w + (size_t)r0 * d.K), "r"(bytes),
                     "r"(smem_addr(l.full + s)) : "memory");
      }
    }
    return;
  }
  int t = threadIdx.x, warp = t >> 5, lane = t & 31, current = -1;
  for (int chunk = 0;; ++chunk) {
    int s = chunk % kMegaStages;
    mbar_wait(smem_addr(l.full + s), (chunk / kMegaStages) & 1);
    Item it = items[s];
    if (it.g < 0) break;
    Desc d = descs[it.g];
    if (it.g != current) { // GEMV g - 1 done by every CTA, then its output is g's x
      if (it.g > 0 && t == 0) {
        int seen = 0, need = firstItem[it.g] - firstItem[it.g - 1];
        do asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(seen) : "l"(done + it.g - 1) : "memory");
        while (seen < need);
      }
      asm volatile("bar.sync 1, %0;" ::"r"(kConsumers) : "memory");
      load_x(d.x, d.K, l.xs);
      current = it.g;
    }
    int vecs = d.K / 16, rowsPerItem = max(1, kMegaStageBytes / d.K);
    int warpsPerRow = max(1, kConsumerWarps / rowsPerItem), rowsAtOnce = kConsumerWarps / warpsPerRow, q = warp % warpsPerRow;
    int v0 = q * vecs / warpsPerRow, v1 = (q + 1) * vecs / warpsPerRow;
    const uint8_t *stage = l.ring + s * kMegaStageBytes;
    for (int r = warp / warpsPerRow; COMPUTE && r < it.n; r += rowsAtOnce) {
      const uint8_t *row = stage + (size_t)r * d.K;
      float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      int v = v0 + lane;
      for (; v + 96 < v1; v += 128) {
        a0 += dot16(*(const uint4 *)(row + v * 16), l.xs + v * 16);
        a1 += dot16(*(const uint4 *)(row + (v + 32) * 16), l.xs + (v + 32) * 16);
        a2 += dot16(*(const uint4 *)(row + (v + 64) * 16), l.xs + (v + 64) * 16);
        a3 += dot16(*(const uint4 *)(row + (v + 96) * 16), l.xs + (v + 96) * 16);
      }
      for (; v < v1; v += 32) a0 += dot16(*(const uint4 *)(row + v * 16), l.xs + v * 16);
      float acc = (a0 + a1) + (a2 + a3);
      for (int o = 16; o; o >>= 1) acc += __shfl_xor_sync(~0u, acc, o);
      if (lane == 0) l.partial[q * kMaxRowsPerCta + r] = acc;
    }
    __syncwarp();
    if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(l.empty + s)) : "memory");
    asm volatile("bar.sync 1, %0;" ::"r"(kConsumers) : "memory");
    if (t < it.n) {
      float sum = 0;
      for (int p = 0; COMPUTE && p < warpsPerRow; ++p) sum += l.partial[p * kMaxRowsPerCta + t];
      d.y[it.r0 + t] = __float2bfloat16(sum * d.scale[it.r0 + t]);
    }
    __threadfence();
    asm volatile("bar.sync 1, %0;" ::"r"(kConsumers) : "memory"); // (the partial sums read before the next item's)
    if (t == 0) asm volatile("red.release.gpu.global.add.s32 [%0], 1;" ::"l"(done + it.g) : "memory");
  }
}


__global__ void read_all(const uint4 *p, size_t n, unsigned *sink) {
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint4 v = __ldcs(p + i); acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w;
  }
  if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x12345678u) *sink = 1;
}

struct Gemv { int N, K; uint8_t *w; float *scale; };
static size_t ringSmem() { return Layout::bytes(kRingStages, kRingStageBytes); }
static int sms;

enum Mode { PDL_L2, RING, RING_PLAIN, MEGA, MEGA_NOCOMPUTE, MEGA_NOWAIT, MEGA_NODOT_NOWAIT, MEGA_QUEUE, MEGA_QUEUE_NODOT };
static const char *names[] = {"pdl-l2", "ring", "ring-plain", "mega", "mega-nodot", "mega-nowait", "mega-nodot-nowait",
                              "mega-queue", "mega-queue-nodot"};
// mega: the chain's descriptors and counters (one launch for a whole chain).
// The chain's descriptors uploaded (before any capture), then a launch: the counters zeroed, the kernel.
// (mega-queue: also each GEMV's first item number, and the queue's counter just before `done`.)
struct MegaChain { Desc *descs; int *done; int count; int *firstItem; };
static MegaChain uploadMega(const std::vector<Desc> &chain) {
  MegaChain m{nullptr, nullptr, (int)chain.size(), nullptr};
  CK(cudaMalloc(&m.descs, chain.size() * sizeof(Desc))); CK(cudaMalloc(&m.done, (chain.size() + 1) * 4));
  CK(cudaMemcpy(m.descs, chain.data(), chain.size() * sizeof(Desc), cudaMemcpyHostToDevice));
  std::vector<int> first{0};
  for (const Desc &d : chain) {
    int rowsPerItem = std::max(1, kMegaStageBytes / d.K);
    first.push_back(first.back() + (d.N + rowsPerItem - 1) / rowsPerItem);
  }
  CK(cudaMalloc(&m.firstItem, first.size() * 4));
  CK(cudaMemcpy(m.firstItem, first.data(), first.size() * 4, cudaMemcpyHostToDevice));
  return m;
}
static size_t queueSmem() { return megaSmem(); } // (the items' table is static shared memory)
static void launchMegaQueue(const MegaChain &m, cudaStream_t s, bool compute) {
  CK(cudaMemsetAsync(m.done, 0, (m.count + 1) * 4, s));
  if (compute) gemv_mega_queue<true><<<sms, kConsumers + 32, queueSmem(), s>>>(m.descs, m.firstItem, m.count, m.done + m.count, m.done);
  else gemv_mega_queue<false><<<sms, kConsumers + 32, queueSmem(), s>>>(m.descs, m.firstItem, m.count, m.done + m.count, m.done);
  CK(cudaGetLastError());
}
static void launchMega(const MegaChain &m, cudaStream_t s, bool compute = true, bool barrier = true) {
  CK(cudaMemsetAsync(m.done, 0, m.count * 4, s));
  if (barrier && compute) gemv_mega<true><<<sms, kConsumers + 32, megaSmem(), s>>>(m.descs, m.count, m.done);
  else if (barrier) gemv_mega<false><<<sms, kConsumers + 32, megaSmem(), s>>>(m.descs, m.count, m.done);
  else if (compute) gemv_mega<true, false><<<sms, kConsumers + 32, megaSmem(), s>>>(m.descs, m.count, m.done);
  else gemv_mega<false, false><<<sms, kConsumers + 32, megaSmem(), s>>>(m.descs, m.count, m.done);
  CK(cudaGetLastError());
}

static void launch(Mode mode, const Gemv &g, const __nv_bfloat16 *x, __nv_bfloat16 *y, cudaStream_t s) {
  cudaLaunchConfig_t cfg = {};
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr; cfg.numAttrs = mode == RING_PLAIN ? 0 : 1;
  if (mode == PDL_L2) {
    cfg.gridDim = dim3((g.N + 7) / 8); cfg.blockDim = dim3(128);
    CK(cudaLaunchKernelEx(&cfg, gemv_pdl<2>, x, (const uint8_t *)g.w, (const float *)g.scale, y, g.N, g.K, 1024));
  } else {
    cfg.gridDim = dim3(sms); cfg.blockDim = dim3(kConsumers + 32); cfg.dynamicSmemBytes = ringSmem();
    CK(cudaLaunchKernelEx(&cfg, gemv_ring, x, (const uint8_t *)g.w, (const float *)g.scale, y, g.N, g.K));
  }
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static float e4m3(uint8_t b) { __half_raw h = __nv_cvt_fp8_to_halfraw(b, __NV_E4M3); return __half2float(*(__half *)&h); }
static float bf(__nv_bfloat16 v) { return __bfloat162float(v); }

int main() {
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); sms = prop.multiProcessorCount;
  CK(cudaFuncSetAttribute(gemv_ring, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)ringSmem()));
  CK(cudaFuncSetAttribute(gemv_mega<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)megaSmem()));
  CK(cudaFuncSetAttribute(gemv_mega<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)megaSmem()));
  CK(cudaFuncSetAttribute(gemv_mega<true, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)megaSmem()));
  CK(cudaFuncSetAttribute(gemv_mega<false, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)megaSmem()));
  CK(cudaFuncSetAttribute(gemv_mega_queue<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)queueSmem()));
  CK(cudaFuncSetAttribute(gemv_mega_queue<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)queueSmem()));
  int perSm = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, gemv_ring, kConsumers + 32, ringSmem()));
  printf("%s, %d SMs, ring: %zu B shared, %d CTAs an SM\n", prop.name, sms, ringSmem(), perSm);
  cudaStream_t s; CK(cudaStreamCreate(&s));
  // Correctness: a chain of 4 small GEMVs (both K forms, rows not a multiple of the chunk) against the CPU.
  {
    std::vector<std::pair<int, int>> shapes = {{1000, 4096}, {11008, 4096}, {4096, 11008}, {300, 4096}};
    std::vector<uint8_t *> ws; std::vector<float *> ss; std::vector<std::vector<uint8_t>> hw; std::vector<std::vector<float>> hs;
    srand(7);
    for (auto [n, k] : shapes) {
      std::vector<uint8_t> w((size_t)n * k); for (auto &b : w) { b = rand() & 0xff; if ((b & 0x7f) == 0x7f) b = 0x38; }
      std::vector<float> sc(n); for (auto &v : sc) v = 0.01f + (rand() % 100) * 1e-4f;
      uint8_t *dw; float *ds; CK(cudaMalloc(&dw, w.size())); CK(cudaMalloc(&ds, n * 4));
      CK(cudaMemcpy(dw, w.data(), w.size(), cudaMemcpyHostToDevice)); CK(cudaMemcpy(ds, sc.data(), n * 4, cudaMemcpyHostToDevice));
      ws.push_back(dw); ss.push_back(ds); hw.push_back(w); hs.push_back(sc);
    }
    for (int mode : {PDL_L2, RING, RING_PLAIN, MEGA, MEGA_QUEUE}) {
      __nv_bfloat16 *buf[5]; for (auto &b : buf) { CK(cudaMalloc(&b, 11008 * 2)); CK(cudaMemset(b, 0, 11008 * 2)); }
      std::vector<__nv_bfloat16> x0(11008); for (auto &v : x0) v = __float2bfloat16((rand() % 200 - 100) * 0.01f);
      CK(cudaMemcpy(buf[0], x0.data(), 11008 * 2, cudaMemcpyHostToDevice));
      if (mode == MEGA || mode == MEGA_QUEUE) {
        std::vector<Desc> descs;
        for (size_t i = 0; i < shapes.size(); ++i) descs.push_back({shapes[i].first, shapes[i].second, ws[i], ss[i], buf[i], buf[i + 1]});
        if (mode == MEGA) launchMega(uploadMega(descs), s);
        else launchMegaQueue(uploadMega(descs), s, true);
      } else {
        for (size_t i = 0; i < shapes.size(); ++i) launch(Mode(mode), {shapes[i].first, shapes[i].second, ws[i], ss[i]}, buf[i], buf[i + 1], s);
      }
      CK(cudaStreamSynchronize(s));
      double worst = 0;
      for (size_t i = 0; i < shapes.size(); ++i) {
        auto [n, k] = shapes[i];
        std::vector<__nv_bfloat16> in(11008), out(11008);
        CK(cudaMemcpy(in.data(), buf[i], 11008 * 2, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(out.data(), buf[i + 1], 11008 * 2, cudaMemcpyDeviceToHost));
        for (int r = 0; r < n; ++r) {
          double ref = 0, mag = 0;
          for (int c = 0; c < k; ++c) { double p = (double)e4m3(hw[i][(size_t)r * k + c]) * bf(in[c]); ref += p; mag += fabs(p); }
          ref *= hs[i][r]; mag *= hs[i][r];
          worst = std::max(worst, fabs(bf(out[r]) - ref) / (fabs(ref) + 1e-3 * mag + 1e-6));
        }
      }
      printf("check %-10s: worst relative error %.2e %s\n", names[mode], worst, worst < 1e-2 ? "ok" : "FAILED");
    }
  }
  // The step: 32 layers of 5 GEMVs.
  const int layers = 32;
  std::vector<std::pair<int, int>> layer = {{12288, 4096}, {4096, 4096}, {11008, 4096}, {11008, 4096}, {4096, 11008}};
  size_t perLayer = 0; for (auto [n, k] : layer) perLayer += (size_t)n * k;
  size_t total = perLayer * layers;
  uint8_t *pool; CK(cudaMalloc(&pool, total)); CK(cudaMemset(pool, 0x30, total));
  float *scale; CK(cudaMalloc(&scale, 22016 * 4)); CK(cudaMemset(scale, 0, 22016 * 4));
  __nv_bfloat16 *buf[2]; for (auto &b : buf) { CK(cudaMalloc(&b, 22016 * 2)); CK(cudaMemset(b, 0, 22016 * 2)); }
  unsigned *sink; CK(cudaMalloc(&sink, 4));
  std::vector<Gemv> chain; size_t off = 0;
  for (int l = 0; l < layers; ++l) for (auto [n, k] : layer) { chain.push_back({n, k, pool + off, scale}); off += (size_t)n * k; }
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  auto timeIt = [&](auto &&step, int reps) {
    cudaGraph_t gr; cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal)); step(); CK(cudaStreamEndCapture(s, &gr));
    CK(cudaGraphInstantiate(&exec, gr, 0));
    std::vector<float> t;
    for (int rep = 0; rep < reps; ++rep) {
      CK(cudaEventRecord(a, s)); CK(cudaGraphLaunch(exec, s)); CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b));
      float ms; cudaEventElapsedTime(&ms, a, b); if (rep) t.push_back(ms);
    }
    return median(t);
  };
  // Chains: the step (32 layers of 5), and 32 GEMVs of one shape (each its own weights).
  struct Named { const char *name; std::vector<Gemv> gemvs; };
  std::vector<Named> chains = {{"step", chain}};
  for (auto [n, k] : std::vector<std::pair<int, int>>{{12288, 4096}, {4096, 4096}, {4096, 11008}}) {
    std::vector<Gemv> one; size_t o = 0;
    for (int l = 0; l < layers; ++l) { one.push_back({n, k, pool + o, scale}); o += (size_t)n * k; }
    static char label[3][32]; static int next = 0;
    snprintf(label[next], 32, "32 x %dx%d", n, k);
    chains.push_back({label[next++], one});
  }
  for (int round = 0; round < 2; ++round) {
    float readMs = timeIt([&] { read_all<<<sms * 8, 512, 0, s>>>((const uint4 *)pool, total / 16, sink); }, 11);
    printf("round %d: plain read of %.2f GB: %.3f ms, %.2f TB/s\n", round, total / 1e9, readMs, total / readMs / 1e9);
    double readRate = total / readMs / 1e9;
    for (auto &c : chains) {
      size_t bytes = 0; for (auto &g : c.gemvs) bytes += (size_t)g.N * g.K;
      std::vector<Desc> descs;
      for (size_t i = 0; i < c.gemvs.size(); ++i) descs.push_back({c.gemvs[i].N, c.gemvs[i].K, c.gemvs[i].w, c.gemvs[i].scale, buf[i % 2], buf[(i + 1) % 2]});
      MegaChain mega = uploadMega(descs);
      for (int mode = 0; mode < 9; ++mode) {
        if (round == 1 && mode < MEGA) continue; // (run 5 has them twice)
        float ms = timeIt([&] {
          if (mode >= MEGA_QUEUE) launchMegaQueue(mega, s, mode == MEGA_QUEUE);
          else if (mode >= MEGA) launchMega(mega, s, mode == MEGA || mode == MEGA_NOWAIT, mode < MEGA_NOWAIT);
          else for (size_t i = 0; i < c.gemvs.size(); ++i) launch(Mode(mode), c.gemvs[i], buf[i % 2], buf[(i + 1) % 2], s);
        }, 11);
        double ideal = bytes / readRate / 1e9;
        printf("round %d: %-16s %-10s %.3f ms, %.2f TB/s (%.0f%% of the read), %.2f us a GEMV beyond its bytes at the read's rate\n",
               round, c.name, names[mode], ms, bytes / ms / 1e9, 100 * ideal / ms, (ms - ideal) * 1e3 / c.gemvs.size());
      }
    }
  }
}
