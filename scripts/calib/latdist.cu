// latdist.cu - how a memory latency is spread over lines and warps, not only its mean.
//
// The pointer chase of lat_mem.cu gives a mean (284 cycles for an L2 hit on the
// H100).  A block that waits for all its warps' copies before it goes on
// (consumer_wait then block.sync, or a cuda::barrier) waits for the slowest of
// them, so what sets a one- or two-stage pipeline's period is the spread.
//
//  * line.l2 / line.dram: one thread on SM `sm` follows a random cyclic chain of
//    4096 lines (4 MiB footprint, ld.global.cg; for DRAM a fresh 256 MiB region
//    after a 512 MiB flush read, one line per 64 KiB) and times each hop:
//    clock64, ld, st.shared of the loaded pointer (which waits for it), clock64.
//    The same chain is followed twice (L2: both passes warm) to see whether a
//    line's latency is its own (the L2 slice it lives in) or noise; quantiles of
//    the per-line latency, minus the clock-to-clock cost of a shared store.
//    Run on two SMs (0 and the one the driver places a 132-block grid's block
//    131 on) because a slice's distance depends on the SM.
//  * warps.l2 / warps.dram: one block of W warps; every lane copies 16 bytes with
//    cp.async.cg (a warp 512 bytes, 4 lines), commit, wait_group 0, then
//    __syncthreads.  Per iteration: each warp's issue-to-wait latency and the
//    block's span (first issue to the last warp past the barrier).  64
//    iterations on fresh lines; L2: the buffer read once before; DRAM: after a
//    flush.  The mean warp latency against the mean block span says how much a
//    block-wide wait loses to the slowest warp.
#include "common.cuh"

__global__ void k_build_chain(char* base, size_t stride, const uint32_t* perm, size_t m) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < m; i += (size_t)gridDim.x * blockDim.x) {
    size_t cur = perm[i], nxt = perm[(i + 1) % m];
    *reinterpret_cast<unsigned long long*>(base + cur * stride) =
        reinterpret_cast<unsigned long long>(base + nxt * stride);
  }
}

constexpr int kHops = 4096;

// One thread of the block on SM `sm` times kHops hops twice; out[2 * kHops].
// The other blocks leave at once.  clock64 / ld / st.shared / clock64 in
// volatile asm keep their order; the st.shared waits for the load.
__global__ void k_hops(unsigned long long start, unsigned sm, int passes, unsigned long long* out,
                       unsigned long long* overhead) {
  if (smid() != sm || threadIdx.x != 0) return;
  __shared__ unsigned long long sink[1];
  uint32_t s = smem_u32(sink);
  // the cost of clock, store, clock with nothing to wait for
  unsigned long long best = ~0ull;
  for (int i = 0; i < 64; ++i) {
    unsigned long long a, b;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(a)::"memory");
    asm volatile("st.shared.u64 [%0], %1;" ::"r"(s), "l"(a) : "memory");
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(b)::"memory");
    best = min(best, b - a);
  }
  *overhead = best;
  unsigned long long p = start;
  for (int pass = 0; pass < passes; ++pass) {
#pragma unroll 1
    for (int i = 0; i < kHops; ++i) {
      unsigned long long a, b;
      asm volatile("mov.u64 %0, %%clock64;" : "=l"(a)::"memory");
      asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(p) : "l"(p) : "memory");
      asm volatile("st.shared.u64 [%0], %1;" ::"r"(s), "l"(p) : "memory");
      asm volatile("mov.u64 %0, %%clock64;" : "=l"(b)::"memory");
      out[pass * kHops + i] = b - a;
    }
  }
}

// One block of blockDim.x threads; iteration it copies 16 bytes a lane from
// src + (it * blockDim.x + threadIdx.x) * 16.  Lane 0 of warp w writes its
// issue and wait clocks to lat[(it * W + w) * 2 ...]; thread 0 the clock past the
// barrier to span[it].
__global__ void k_warps(const char* src, int iters, unsigned long long* lat, unsigned long long* span) {
  __shared__ __align__(16) char buf[1024 * 16];
  int W = blockDim.x / 32, w = threadIdx.x / 32;
  uint32_t dst = smem_u32(buf + threadIdx.x * 16);
  for (int it = 0; it < iters; ++it) {
    __syncthreads();
    const char* g = src + ((size_t)it * blockDim.x + threadIdx.x) * 16;
    unsigned long long a, b, c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(a)::"memory");
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(g) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(b)::"memory");
    __syncthreads();
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
    if (threadIdx.x % 32 == 0) {
      lat[((size_t)it * W + w) * 2] = a;
      lat[((size_t)it * W + w) * 2 + 1] = b;
    }
    if (threadIdx.x == 0) span[it] = c;
  }
}

static double quant(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, (size_t)(q * (double)(v.size() - 1) + 0.5));
  return v[i];
}

static void quantiles(const std::string& key, const std::vector<double>& v, const char* what) {
  const double qs[] = {0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0};
  const char* names[] = {"min", "p10", "p25", "p50", "p75", "p90", "p99", "max"};
  double mean = std::accumulate(v.begin(), v.end(), 0.0) / (double)v.size();
  result(key + ".mean", mean, "cycles", "%s, %zu samples", what, v.size());
  for (int i = 0; i < 8; ++i) result(key + "." + names[i], quant(v, qs[i]), "cycles", "%s", what);
}

int main() {
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  info("device=%s sms=%d", prop.name, prop.multiProcessorCount);
  const size_t kFlush = 512ull << 20, kRegion = 256ull << 20;
  char *flush, *region;
  int* sink;
  unsigned long long *d_out, *d_ovh, *d_lat, *d_span;
  CK(cudaMalloc(&flush, kFlush));
  CK(cudaMalloc(&region, kRegion));
  CK(cudaMalloc(&sink, 4));
  CK(cudaMalloc(&d_out, 2 * kHops * sizeof(unsigned long long)));
  CK(cudaMalloc(&d_ovh, sizeof(unsigned long long)));
  CK(cudaMemset(flush, 1, kFlush));
  uint32_t* d_perm;
  CK(cudaMalloc(&d_perm, kHops * sizeof(uint32_t)));
  std::vector<uint32_t> perm(kHops);
  std::iota(perm.begin(), perm.end(), 0u);
  srand(12345);
  for (int i = kHops - 1; i > 0; --i) std::swap(perm[i], perm[rand() % (i + 1)]);
  CK(cudaMemcpy(d_perm, perm.data(), kHops * sizeof(uint32_t), cudaMemcpyHostToDevice));
  int sms = prop.multiProcessorCount;

  // ---- per line: L2 (4 MiB footprint, stride 1 KiB so 4096 lines) and DRAM (stride 64 KiB)
  for (int mode = 0; mode < 2; ++mode) {
    size_t stride = mode == 0 ? 1024 : 65536;
    for (unsigned sm : {0u, (unsigned)(sms / 2 + 1)}) {
      k_build_chain<<<64, 256>>>(region, stride, d_perm, kHops);
      CKL();
      if (mode == 0) {
        k_read<<<sms * 4, 256>>>(region, kHops * stride, sink);
        k_read<<<sms * 4, 256>>>(region, kHops * stride, sink);
      } else {
        k_read<<<sms * 4, 256>>>(flush, kFlush, sink);
      }
      CKL();
      unsigned long long start = (unsigned long long)(region + (size_t)perm[0] * stride);
      k_hops<<<sms * 2, 32>>>(start, sm, mode == 0 ? 2 : 1, d_out, d_ovh);
      CKL();
      std::vector<unsigned long long> h(2 * kHops);
      unsigned long long ovh;
      CK(cudaMemcpy(h.data(), d_out, h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(&ovh, d_ovh, sizeof ovh, cudaMemcpyDeviceToHost));
      int passes = mode == 0 ? 2 : 1;
      std::vector<double> lat;
      // skip the first 16 hops (instruction cache, first TLB miss)
      for (int p = 0; p < passes; ++p)
        for (int i = 16; i < kHops; ++i) lat.push_back((double)h[p * kHops + i] - (double)ovh);
      std::string key = strf("latdist.line.%s.sm%u", mode == 0 ? "l2" : "dram", sm);
      quantiles(key, lat, strf("one thread, ld.global.cg chain over %d lines (%s), per hop minus %llu cycles of "
                               "clock/st.shared/clock", kHops, mode == 0 ? "4 MiB, warm" : "256 MiB after a flush", ovh)
                              .c_str());
      if (mode == 0) {
        // does a line keep its latency? both passes visit the lines in the same order
        double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, close = 0;
        int n = 0;
        for (int i = 16; i < kHops; ++i, ++n) {
          double x = (double)h[i], y = (double)h[kHops + i];
          sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y;
          close += fabs(x - y) <= 8.0;
        }
        double r = (n * sxy - sx * sy) / sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
        result(key + ".repeat_corr", r, "ratio", "correlation of a line's latency in pass 1 and pass 2");
        result(key + ".repeat_within8", close / n, "ratio", "share of lines whose two passes differ by <= 8 cycles");
      }
    }
  }

  // ---- per warp and per block: cp.async 16 B a lane, wait, __syncthreads
  const int kIters = 64;
  CK(cudaMalloc(&d_lat, (size_t)kIters * 32 * 2 * sizeof(unsigned long long)));
  CK(cudaMalloc(&d_span, kIters * sizeof(unsigned long long)));
  for (int mode = 0; mode < 2; ++mode) {
    for (int W : {1, 2, 4, 8, 16, 32}) {
      std::vector<double> warp_lat, block_span, max_lat;
      for (int rep = 0; rep < 3; ++rep) {
        const char* src = region + (size_t)rep * (kIters * 1024 * 16);
        if (mode == 0) {
          k_read<<<sms * 4, 256>>>(src, (size_t)kIters * W * 32 * 16, sink);
        } else {
          k_read<<<sms * 4, 256>>>(flush, kFlush, sink);
        }
        CKL();
        k_warps<<<1, 32 * W>>>(src, kIters, d_lat, d_span);
        CKL();
        std::vector<unsigned long long> lat((size_t)kIters * W * 2), span(kIters);
        CK(cudaMemcpy(lat.data(), d_lat, lat.size() * sizeof(lat[0]), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(span.data(), d_span, span.size() * sizeof(span[0]), cudaMemcpyDeviceToHost));
        for (int it = 1; it < kIters; ++it) {
          unsigned long long first = ~0ull;
          double mx = 0;
          for (int w = 0; w < W; ++w) {
            unsigned long long a = lat[((size_t)it * W + w) * 2], b = lat[((size_t)it * W + w) * 2 + 1];
            warp_lat.push_back((double)(b - a));
            mx = std::max(mx, (double)(b - a));
            first = std::min(first, a);
          }
          max_lat.push_back(mx);
          block_span.push_back((double)(span[it] - first));
        }
      }
      std::string key = strf("latdist.warps.%s.W%d", mode == 0 ? "l2" : "dram", W);
      const char* where = mode == 0 ? "L2-resident" : "after a flush";
      quantiles(key + ".warp", warp_lat,
                strf("1 block of %d warps, 16 B cp.async.cg a lane, issue to wait_group 0, %s", W, where).c_str());
      result(key + ".max_warp", std::accumulate(max_lat.begin(), max_lat.end(), 0.0) / (double)max_lat.size(), "cycles",
             "mean over iterations of the slowest warp's issue-to-wait latency");
      result(key + ".block", median_of(block_span), "cycles",
             "median over iterations of first issue to past __syncthreads (mean %.1f)",
             std::accumulate(block_span.begin(), block_span.end(), 0.0) / (double)block_span.size());
    }
  }
  return 0;
}
