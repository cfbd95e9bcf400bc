// launchov.cu - what CUDA events measure around a whole-GPU launch beyond the
// SMs' own busy time: the launch overhead of smpipe's whole-launch estimate.
//
// The campaign (`smpipe cuda` programs, sim/drivers/cuda_harness.c) times each
// launch with cudaEventRecord before and after it, right after an L2 flush
// kernel, and also reads every block's clock64 span; the simulator predicts
// the SMs' cycles.  Here every thread of G blocks of T threads spins N cycles
// of clock64, so the SMs' busy span is known; the same harness steps (flush,
// event, launch, event; 2 warm-up and 7 timed launches, medians) give
// kernel_ms.  overhead = kernel_ms - (median SM span) / clock: launch latency,
// the block dispatcher's spread over the SMs (reported separately from
// %globaltimer at the blocks' starts) and the kernel's end.
#include "common.cuh"

__global__ void k_flush(const int4* p, size_t n, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    acc ^= p[i].x;
  if (acc == 0x7ffffff1) sink[0] = acc;
}

// out[4 * b ...]: block b's start and end clock64, its SM, its start %globaltimer.
__global__ void k_spin(long long n, unsigned long long* out) {
  extern __shared__ int dyn[];
  unsigned long long g = gtimer();
  unsigned long long t0 = clk(), t;
  do {
    t = clk();
  } while ((long long)(t - t0) < n);
  if (n < 0) dyn[threadIdx.x] = (int)t;  // never: keeps the dynamic shared memory
  __syncthreads();
  if (threadIdx.x == 0) {
    out[4 * blockIdx.x] = t0;
    out[4 * blockIdx.x + 1] = clk();
    out[4 * blockIdx.x + 2] = smid();
    out[4 * blockIdx.x + 3] = g;
  }
}

int main() {
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount;
  double ev_mhz = 0;
  double mhz = measure_clock_mhz(5, 100000000LL, &ev_mhz);
  info("device=%s sms=%d clock_mhz=%.1f (events %.1f)", prop.name, sms, mhz, ev_mhz);
  result("launchov.clock_mhz", mhz, "MHz", "clock64 over %%globaltimer");
  const size_t flush_bytes = 2 * (size_t)prop.l2CacheSize * 4;
  int4* flush;
  int* sink;
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&sink, sizeof(int)));
  CK(cudaMemset(flush, 1, flush_bytes));
  unsigned long long* d_out;
  CK(cudaMalloc(&d_out, 4 * sizeof(unsigned long long) * sms * 8));
  CK(cudaFuncSetAttribute(k_spin, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> all;
  for (int B : {1, 2, 4}) {
    for (int T : {128, 256}) {
      for (int smem_kib : {0, 48}) {
        for (long long n : {100000LL, 400000LL, 1600000LL}) {
          int G = B * sms;
          std::vector<double> ms, span, skew;
          for (int r = 0; r < 9; ++r) {
            k_flush<<<1024, 256>>>(flush, flush_bytes / sizeof(int4), sink);
            CK(cudaEventRecord(e0));
            k_spin<<<G, T, smem_kib * 1024>>>(n, d_out);
            CK(cudaGetLastError());
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            if (r < 2) continue;
            float t = 0;
            CK(cudaEventElapsedTime(&t, e0, e1));
            ms.push_back(t);
            std::vector<unsigned long long> h(4 * (size_t)G);
            CK(cudaMemcpy(h.data(), d_out, h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost));
            std::vector<unsigned long long> lo(1024, ~0ull), hi(1024, 0);
            unsigned long long g_lo = ~0ull, g_hi = 0;
            for (int b = 0; b < G; ++b) {
              unsigned s = (unsigned)h[4 * b + 2] % 1024;
              lo[s] = std::min(lo[s], h[4 * b]);
              hi[s] = std::max(hi[s], h[4 * b + 1]);
              g_lo = std::min(g_lo, h[4 * b + 3]);
              g_hi = std::max(g_hi, h[4 * b + 3]);
            }
            std::vector<double> spans;
            for (int s = 0; s < 1024; ++s)
              if (hi[s] > 0) spans.push_back((double)(hi[s] - lo[s]));
            span.push_back(median_of(spans));
            skew.push_back((double)(g_hi - g_lo) / 1000.0);
          }
          double k_ms = median_of(ms), s = median_of(span);
          double ov = k_ms * 1000.0 - s / mhz;
          all.push_back(ov);
          std::string key = strf("launchov.B%d.T%d.S%d.N%lld", B, T, smem_kib, n);
          result(key + ".overhead", ov, "us",
                 "%d blocks of %d threads (%d KiB dynamic shared), spin %lld cycles: kernel %.4f ms, SM span %.0f cycles",
                 G, T, smem_kib, n, k_ms, s);
          result(key + ".start_skew", median_of(skew), "us", "last block's start minus the first's (%%globaltimer)");
        }
      }
    }
  }
  result("launchov.overhead", median_of(all), "us", "median over the %zu configurations (min %.2f, max %.2f)",
         all.size(), min_of(all), max_of(all));
  return 0;
}
