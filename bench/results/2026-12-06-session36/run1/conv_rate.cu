// Session 36: how fast can one H100/H200 turn FP8 weights into products, with no memory traffic?
// Each thread holds 16 bytes of e4m3 weights in registers (changed every iteration so nothing is
// hoisted) and forms their products with an f32 activation in one of several ways; the rate is
// reported as the weight bytes a second it would sustain (compare with the DRAM read rate: a
// GEMV whose products run below it cannot stream at it).
//   nvcc -O3 -arch=sm_90a -std=c++17 -o conv_rate conv_rate.cu
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cstdio>

__device__ __forceinline__ __half2 e4m3x2_to_half2(unsigned short pair) {
  __half2_raw raw = __nv_cvt_fp8x2_to_halfraw2(pair, __NV_E4M3); // cvt.rn.f16x2.e4m3x2
  return *reinterpret_cast<__half2*>(&raw);
}

// MODE 0: gemv_row's form: e4m3x2 -> f16x2, each f16 -> f32, an f32 FMA each.
// MODE 1: e4m3x2 -> f16x2, products and sums in f16x2 (HFMA2), no f32 conversions.
// MODE 2: e4m3x2 -> f16x2 alone (results folded by XOR).
// MODE 3: f16 -> f32 alone (the 16 bytes read as eight f16x2), an f32 add each.
// MODE 4: the f32 FMAs alone (16 bytes read as four f32... 16 FMAs on them).
template <int MODE>
__global__ void products(const unsigned* seed, float* out, int iters) {
  unsigned w[4];
  for (int j = 0; j < 4; ++j) w[j] = seed[(threadIdx.x * 4 + j) & 1023];
  float acc[8] = {};
  __half2 hacc[4];
  for (int j = 0; j < 4; ++j) hacc[j] = __float2half2_rn(0.f);
  unsigned xacc = 0;
  const float x = 1.0f + threadIdx.x * 1e-3f;
  const __half2 hx = __float2half2_rn(x);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const unsigned v = w[j];
      if (MODE == 0 || MODE == 1 || MODE == 2) {
        __half2 lo = e4m3x2_to_half2(v & 0xffff), hi = e4m3x2_to_half2(v >> 16);
        if (MODE == 0) {
          acc[2 * j] = fmaf(x, __low2float(lo), acc[2 * j]);
          acc[2 * j + 1] = fmaf(x, __high2float(lo), acc[2 * j + 1]);
          acc[2 * j] = fmaf(x, __low2float(hi), acc[2 * j]);
          acc[2 * j + 1] = fmaf(x, __high2float(hi), acc[2 * j + 1]);
        } else if (MODE == 1) {
          hacc[j] = __hfma2(hx, lo, hacc[j]);
          hacc[j] = __hfma2(hx, hi, hacc[j]);
        } else {
          xacc ^= *reinterpret_cast<unsigned*>(&lo) ^ *reinterpret_cast<unsigned*>(&hi);
        }
      } else if (MODE == 3) {
        __half2 h = *reinterpret_cast<const __half2*>(&v);
        acc[2 * j] += __low2float(h);
        acc[2 * j + 1] += __high2float(h);
      } else {
        const float f = __uint_as_float(v & 0x3fffffff);
        acc[2 * j] = fmaf(x, f, acc[2 * j]);
        acc[2 * j + 1] = fmaf(f, x, acc[2 * j + 1]);
        acc[2 * j] = fmaf(f, f, acc[2 * j]);
        acc[2 * j + 1] = fmaf(x, x, acc[2 * j + 1]);
      }
      w[j] = v + 0x01030507u;
    }
  }
  float s = 0;
  for (int j = 0; j < 8; ++j) s += acc[j];
  for (int j = 0; j < 4; ++j) s += __low2float(hacc[j]) + __high2float(hacc[j]);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s + xacc;
}

template <int MODE>
void time_mode(const char* name, const unsigned* seed, float* out, int sms) {
  const int threads = 256, blocks = sms * 8, iters = 4096;
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  products<MODE><<<blocks, threads>>>(seed, out, iters);
  float best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a);
    products<MODE><<<blocks, threads>>>(seed, out, iters);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    best = ms < best ? ms : best;
  }
  const double bytes = double(blocks) * threads * iters * 16; // weight bytes (MODE 3: f16 bytes / 2)
  printf("%-44s %7.3f ms  %6.2f TB/s of e4m3 weights\n", name, best, bytes / (best * 1e-3) / 1e12);
}

int main() {
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  unsigned* seed;
  float* out;
  cudaMalloc(&seed, 1024 * 4);
  cudaMalloc(&out, sms * 8 * 256 * 4);
  unsigned host[1024];
  for (int i = 0; i < 1024; ++i) host[i] = 0x3a3b3c3du + i * 0x01010101u;
  cudaMemcpy(seed, host, sizeof host, cudaMemcpyHostToDevice);
  time_mode<0>("f32 products (cvt e4m3x2, cvt.f32.f16, FFMA)", seed, out, sms);
  time_mode<1>("f16x2 products (cvt e4m3x2, HFMA2)", seed, out, sms);
  time_mode<2>("cvt e4m3x2 alone", seed, out, sms);
  time_mode<3>("cvt.f32.f16 alone (per 16 weight bytes: 16)", seed, out, sms);
  time_mode<4>("FFMA alone (16 per 16 weight bytes)", seed, out, sms);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
