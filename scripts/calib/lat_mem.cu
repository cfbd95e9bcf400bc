// lat_mem.cu - SM clock, pointer-chase load latency (L1 / L2 / DRAM), shared-memory latency
// and shared-memory bank-conflict cost.
//
// Method:
//  * clock: one thread spins for 1e8 clock64 cycles; MHz = cycles / %globaltimer ns (also
//    reported against CUDA events).
//  * pointer chase: a random cyclic permutation of elements (one 8-byte pointer per element,
//    elements `stride` bytes apart) is built on the device; one thread follows it with
//    dependent 64-bit loads (ld.global.ca for L1, ld.global.cg for L2/DRAM).  Cycles per load =
//    (clock64 after N loads - clock64 before) / N, N >= 8192, unrolled by 16 (no address
//    arithmetic in the chain: each element holds the next element's absolute address).
//    L1: 8 KiB footprint, warmed by one full pass.  L2: 1..32 MiB footprint, warmed by one
//    pass, ld.cg.  DRAM: 256 MiB / 1 GiB footprint, L2 flushed (512 MiB streamed read),
//    then the TLB warmed by touching one word per 64 KiB of the footprint, then the chase.
//  * smem latency: one thread, dependent ld.shared.u32 chain where each word holds the
//    shared address of the next word.
//  * bank conflicts: lane l reads word l*k (k-way conflict, k = 1..32).  Latency: one warp, one
//    dependent chain (each word holds its own address).  Throughput: 32 warps x 4 independent
//    dependent chains; cycles per warp-wide LDS per SM = elapsed / (warps*chains*N).
#include "common.cuh"

// ---------------------------------------------------------------- pointer chase
__global__ void k_build_chain(char* base, size_t stride, const uint32_t* perm, size_t m) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < m;
       i += (size_t)gridDim.x * blockDim.x) {
    size_t cur = perm[i], nxt = perm[(i + 1) % m];
    *reinterpret_cast<unsigned long long*>(base + cur * stride) =
        reinterpret_cast<unsigned long long>(base + nxt * stride);
  }
}

__global__ void k_touch(const char* base, size_t bytes, size_t step, int* sink) {
  int acc = 0;
  for (size_t off = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * step; off < bytes;
       off += (size_t)gridDim.x * blockDim.x * step)
    acc ^= __ldcg(reinterpret_cast<const int*>(base + off));
  if (acc == 0x7ffffff1) sink[0] = acc;
}

template <int MODE>
__device__ __forceinline__ unsigned long long ldp(unsigned long long p) {
  unsigned long long r;
  if (MODE == 0)
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  else
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}

// MODE 0: ld.global.ca, MODE 1: ld.global.cg.  warm and n are multiples of 16.
template <int MODE>
__global__ void k_chase(unsigned long long start, int warm, int n, unsigned long long* out) {
  unsigned long long p = start;
#pragma unroll 1
  for (int i = 0; i < warm; i += 16) {
#pragma unroll
    for (int j = 0; j < 16; ++j) p = ldp<MODE>(p);
  }
  unsigned long long t0 = clk();
#pragma unroll 1
  for (int i = 0; i < n; i += 16) {
#pragma unroll
    for (int j = 0; j < 16; ++j) p = ldp<MODE>(p);
  }
  unsigned long long t1 = clk();
  out[0] = t1 - t0;
  out[1] = p;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static inline uint64_t rng() {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

struct Chain {
  char* base;
  size_t stride, m;
  std::vector<uint32_t> perm;
  void build(char* b, size_t footprint, size_t str) {
    base = b;
    stride = str;
    m = footprint / stride;
    perm.resize(m);
    std::iota(perm.begin(), perm.end(), 0u);
    for (size_t i = m - 1; i > 0; --i) std::swap(perm[i], perm[rng() % (i + 1)]);
    uint32_t* dperm;
    CK(cudaMalloc(&dperm, m * sizeof(uint32_t)));
    CK(cudaMemcpy(dperm, perm.data(), m * sizeof(uint32_t), cudaMemcpyHostToDevice));
    k_build_chain<<<1024, 256>>>(base, stride, dperm, m);
    CKL();
    CK(cudaFree(dperm));
  }
  unsigned long long addr(size_t i) const {
    return reinterpret_cast<unsigned long long>(base + (size_t)perm[i % m] * stride);
  }
};

static double run_chase(int mode, unsigned long long start, int warm, int n,
                        unsigned long long* dout) {
  if (mode == 0)
    k_chase<0><<<1, 1>>>(start, warm, n, dout);
  else
    k_chase<1><<<1, 1>>>(start, warm, n, dout);
  CKL();
  unsigned long long h[2];
  CK(cudaMemcpy(h, dout, sizeof(h), cudaMemcpyDeviceToHost));
  return (double)h[0] / n;
}

// ---------------------------------------------------------------- shared memory
__global__ void k_smem_chase(int n, unsigned long long* out) {
  __shared__ uint32_t s[1024];
  uint32_t base = smem_u32(s);
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = base + ((i * 97 + 13) % 1024) * 4;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t a = base;
#pragma unroll 1
    for (int i = 0; i < 256; i += 16) {
#pragma unroll
      for (int j = 0; j < 16; ++j) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a)::"memory");
    }
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = 0; i < n; i += 16) {
#pragma unroll
      for (int j = 0; j < 16; ++j) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a)::"memory");
    }
    unsigned long long t1 = clk();
    out[0] = t1 - t0;
    out[1] = a;
  }
}

// Bank conflicts.  4 regions of 1024 words; region c, word w holds its own shared address.
// Lane l uses word (l*k) % 1024 -> k-way conflict for k = 1,2,4,..,32 (one bank for k=32).
// CH independent dependent chains per thread.
template <int CH>
__global__ void k_bank(int k, int n, unsigned long long* times, uint32_t* sink) {
  __shared__ uint32_t s[4 * 1024];
  uint32_t base = smem_u32(s);
  for (int i = threadIdx.x; i < 4 * 1024; i += blockDim.x) s[i] = base + i * 4;
  __syncthreads();
  int lane = threadIdx.x & 31;
  uint32_t a[CH];
#pragma unroll
  for (int c = 0; c < CH; ++c) a[c] = base + (c * 1024 + (lane * k) % 1024) * 4;
  // warm-up
#pragma unroll
  for (int c = 0; c < CH; ++c) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a[c])::"memory");
  __syncthreads();
  unsigned long long t0 = clk();
#pragma unroll 1
  for (int i = 0; i < n; i += 8) {
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int c = 0; c < CH; ++c)
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a[c])::"memory");
  }
  unsigned long long t1 = clk();
  uint32_t acc = 0;
#pragma unroll
  for (int c = 0; c < CH; ++c) acc ^= a[c];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  if (lane == 0) {
    times[2 * (threadIdx.x / 32)] = t0;
    times[2 * (threadIdx.x / 32) + 1] = t1;
  }
}

static double run_bank(int ch, int threads, int k, int n, unsigned long long* dt, uint32_t* dsink) {
  if (ch == 1)
    k_bank<1><<<1, threads>>>(k, n, dt, dsink);
  else
    k_bank<4><<<1, threads>>>(k, n, dt, dsink);
  CKL();
  int w = threads / 32;
  std::vector<unsigned long long> h(2 * w);
  CK(cudaMemcpy(h.data(), dt, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  unsigned long long mn = ~0ULL, mx = 0;
  for (int i = 0; i < w; ++i) {
    mn = std::min(mn, h[2 * i]);
    mx = std::max(mx, h[2 * i + 1]);
  }
  return (double)(mx - mn);
}

int main() {
  cudaDeviceProp prop = print_device();
  unsigned long long* dout;
  CK(cudaMalloc(&dout, 4096 * sizeof(unsigned long long)));

  // ---- clock
  double ev_mhz = 0;
  double mhz = measure_clock_mhz(5, 100000000LL, &ev_mhz);
  result("arch.clock_mhz", mhz, "MHz",
         "clock64 cycles / globaltimer ns over a 1e8-cycle spin, median of 5; cuda-event based %.1f MHz",
         ev_mhz);
  result("arch.clock_mhz_events", ev_mhz, "MHz", "clock64 cycles / cudaEvent time (includes launch)");

  const size_t BIG = 1ull << 30;
  char* buf;
  CK(cudaMalloc(&buf, BIG));
  CK(cudaMemset(buf, 0, BIG));
  L2Flusher fl;
  fl.init(512ull << 20);
  int* sink;
  CK(cudaMalloc(&sink, sizeof(int)));

  // ---- L1 hit (ld.global.ca), 8 KiB footprint, stride 64
  {
    Chain c;
    c.build(buf, 8 << 10, 64);
    std::vector<double> v;
    for (int r = 0; r < 5; ++r) v.push_back(run_chase(0, c.addr(r), 1024, 16384, dout));
    result("l1.latency", median_of(v), "cycles",
           "pointer chase ld.global.ca.u64, 8KiB footprint stride 64B, warm pass, N=16384, median of 5 (min %.2f)",
           min_of(v));
    // same footprint with ld.cg (always L2) for reference
    std::vector<double> v2;
    for (int r = 0; r < 5; ++r) v2.push_back(run_chase(1, c.addr(r), 1024, 16384, dout));
    result("l2.latency_small_8KiB", median_of(v2), "cycles",
           "pointer chase ld.global.cg.u64 over the same 8KiB (L1 bypassed), median of 5");
  }
  // ---- L2 hit (ld.global.cg)
  {
    const size_t fps[] = {1u << 20, 4u << 20, 16u << 20, 32u << 20};
    for (size_t fp : fps) {
      Chain c;
      c.build(buf, fp, 128);
      std::vector<double> v;
      int warm = (int)std::min<size_t>(c.m, 262144) / 16 * 16;
      for (int r = 0; r < 3; ++r) v.push_back(run_chase(1, c.addr(r * 1000), warm, 16384, dout));
      char key[64];
      snprintf(key, sizeof key, "l2.latency_fp%zuMiB", fp >> 20);
      result(key, median_of(v), "cycles",
             "pointer chase ld.global.cg.u64 random perm, stride 128B, footprint %zu MiB, warm pass, N=16384, median of 3",
             fp >> 20);
      if (fp == (4u << 20))
        result("l2.latency", median_of(v), "cycles",
               "= l2.latency_fp4MiB (random lines over both L2 partitions: near/far average)");
    }
  }
  // ---- DRAM (flush L2, warm TLB, chase)
  {
    const size_t fps[] = {256ull << 20, 1ull << 30};
    for (size_t fp : fps) {
      Chain c;
      c.build(buf, fp, 256);
      std::vector<double> v, vcold;
      for (int r = 0; r < 3; ++r) {
        fl.flush();
        k_touch<<<256, 256>>>(buf, fp, 65536, sink);  // TLB warm: 1 word / 64 KiB
        CKL();
        v.push_back(run_chase(1, c.addr(r * 100003), 0, 8192, dout));
      }
      for (int r = 0; r < 2; ++r) {
        fl.flush();
        vcold.push_back(run_chase(1, c.addr(r * 100003 + 55555), 0, 8192, dout));
      }
      char key[64];
      snprintf(key, sizeof key, "dram.latency_fp%zuMiB", fp >> 20);
      result(key, median_of(v), "cycles",
             "chase ld.cg random perm stride 256B over %zu MiB after L2 flush + TLB warm (1 word/64KiB), N=8192, median of 3; without TLB warm: %.1f",
             fp >> 20, median_of(vcold));
      if (fp == (256ull << 20))
        result("dram.latency", median_of(v), "cycles",
               "= dram.latency_fp256MiB (TLB warm); ~%.0f ns at %.0f MHz", median_of(v) / mhz * 1000,
               mhz);
    }
  }
  CK(cudaFree(buf));
  fl.release();

  // ---- shared memory latency
  {
    std::vector<double> v;
    for (int r = 0; r < 5; ++r) {
      k_smem_chase<<<1, 32>>>(16384, dout);
      CKL();
      unsigned long long h[2];
      CK(cudaMemcpy(h, dout, sizeof(h), cudaMemcpyDeviceToHost));
      v.push_back((double)h[0] / 16384);
    }
    result("smem.latency", median_of(v), "cycles",
           "one thread, dependent ld.shared.u32 chain (word holds next address), N=16384, median of 5");
  }
  // ---- bank conflicts
  {
    uint32_t* dsink;
    CK(cudaMalloc(&dsink, 1024 * sizeof(uint32_t)));
    const int ks[] = {1, 2, 4, 8, 16, 32};
    std::vector<double> xs, lat, thr;
    for (int k : ks) {
      std::vector<double> vl, vt;
      for (int r = 0; r < 3; ++r) {
        vl.push_back(run_bank(1, 32, k, 4096, dout, dsink) / 4096);
        vt.push_back(run_bank(4, 1024, k, 1024, dout, dsink) / (32.0 * 4 * 1024));
      }
      xs.push_back(k);
      lat.push_back(median_of(vl));
      thr.push_back(median_of(vt));
      char key[64];
      snprintf(key, sizeof key, "smem.bank_latency_%dway", k);
      result(key, lat.back(), "cycles", "one warp, dependent LDS.32 chain, lane l -> word l*%d", k);
      snprintf(key, sizeof key, "smem.bank_interval_%dway", k);
      result(key, thr.back(), "cycles/warp-access",
             "32 warps x 4 independent chains, elapsed/(warp LDS count) per SM");
    }
    double a, b;
    linfit(xs, thr, &a, &b);
    result("smem.conflict_cycles_per_way", b, "cycles",
           "slope of throughput interval vs ways (fit over 1..32): interval ~= %.2f + %.3f*ways", a, b);
    linfit(xs, lat, &a, &b);
    result("smem.conflict_latency_per_way", b, "cycles",
           "slope of dependent-chain latency vs ways: latency ~= %.2f + %.3f*ways", a, b);
    CK(cudaFree(dsink));
  }
  (void)prop;
  CK(cudaFree(dout));
  CK(cudaFree(sink));
  printf("DONE lat_mem\n");
  return 0;
}
