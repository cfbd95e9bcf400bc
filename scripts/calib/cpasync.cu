// cpasync.cu - cp.async (LDGSTS) latency and streaming bandwidth.
//
// Latency: one warp (one block of 32 threads on the GPU).  Per iteration: clock64;
//   every lane issues one cp.async of SZ bytes (lane l -> src + it*stride + l*SZ);
//   cp.async.commit_group; cp.async.wait_group 0; clock64.  256 iterations, median.
//   L2 case: source region written by a previous kernel (resident in L2), stride 4 KiB so
//   every iteration touches new lines.  DRAM case: L2 flushed (512 MiB streamed) right
//   before, same addressing.  L1 case (.ca only): stride 0, i.e. the same 32*SZ bytes again.
// Bandwidth: each of T threads copies one 16-B chunk per stage with cp.async.cg; a ring of
//   S stages; per stage: issue, commit_group, wait_group S-1 (so S groups are in flight).
//   No consumer.  One block on the GPU (gridDim=1) or one block per SM (gridDim = #SMs).
//   Bytes per SM cycle = bytes / (clock64 cycles of the block);  whole chip: total bytes /
//   ((max end - min start) %globaltimer ns * MHz/1000).
#include "common.cuh"

template <int SZ, bool CG>
__device__ __forceinline__ void cp_async(uint32_t dst, const void* src) {
  if (CG)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(src), "n"(SZ)
                 : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

template <int SZ, bool CG>
__global__ void k_cpa_lat(const char* src, int iters, size_t stride, unsigned long long* cyc,
                          int* sink) {
  __shared__ __align__(16) char sm[32 * 16];
  int lane = threadIdx.x & 31;
  uint32_t dst = smem_u32(sm + lane * SZ);
  int acc = 0;
  for (int it = 0; it < iters; ++it) {
    const char* g = src + (size_t)it * stride + lane * SZ;
    __syncwarp();
    unsigned long long t0 = clk();
    cp_async<SZ, CG>(dst, g);
    cp_commit();
    cp_wait<0>();
    unsigned long long t1 = clk();
    acc += sm[lane * SZ];
    if (lane == 0) cyc[it] = t1 - t0;
  }
  if (acc == 0x12345) sink[0] = acc;
}

template <int STAGES>
__global__ void k_cpa_bw(const int4* __restrict__ src, size_t chunks_per_block, int passes,
                         unsigned long long* times) {
  extern __shared__ __align__(16) int4 ring[];
  const int T = blockDim.x, tid = threadIdx.x;
  const int4* base = src + blockIdx.x * chunks_per_block;
  const size_t groups = chunks_per_block / T;
  const size_t total = groups * passes;
  __syncthreads();
  unsigned long long t0 = clk(), g0 = gtimer();
  size_t gg = 0;
  int slot = 0;
  for (size_t i = 0; i < total; ++i) {
    uint32_t dst = smem_u32(ring + slot * T + tid);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(base + gg * T + tid)
                 : "memory");
    cp_commit();
    cp_wait<STAGES - 1>();
    if (++slot == STAGES) slot = 0;
    if (++gg == groups) gg = 0;
  }
  cp_wait<0>();
  __syncthreads();
  unsigned long long t1 = clk(), g1 = gtimer();
  if (tid == 0) {
    times[4 * blockIdx.x + 0] = t1 - t0;
    times[4 * blockIdx.x + 1] = g0;
    times[4 * blockIdx.x + 2] = g1;
    times[4 * blockIdx.x + 3] = smid();
  }
}

typedef void (*bwk_t)(const int4*, size_t, int, unsigned long long*);
static bwk_t bw_kernel(int s) {
  switch (s) {
    case 1: return k_cpa_bw<1>;
    case 2: return k_cpa_bw<2>;
    case 4: return k_cpa_bw<4>;
    default: return k_cpa_bw<8>;
  }
}

template <int SZ, bool CG>
static double lat_run(const char* src, int iters, size_t stride, unsigned long long* dcyc,
                      int* sink, double* mn) {
  k_cpa_lat<SZ, CG><<<1, 32>>>(src, iters, stride, dcyc, sink);
  CKL();
  std::vector<unsigned long long> h(iters);
  CK(cudaMemcpy(h.data(), dcyc, iters * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  std::vector<double> v(h.begin(), h.end());
  if (mn) *mn = min_of(v);
  return median_of(v);
}

template <int SZ, bool CG>
static void lat_family(char* buf, size_t bufbytes, L2Flusher& fl,
                       unsigned long long* dcyc, int* sink) {
  const int iters = 256;
  const size_t stride = 4096;
  // L2-resident: (re)write region, then measure (first kernel after write, L1 cold)
  char key[96];
  double mn;
  {
    k_fill_int4<<<256, 256>>>(reinterpret_cast<int4*>(buf), bufbytes / 16, 7);
    CKL();
    std::vector<double> v;
    for (int r = 0; r < 3; ++r) v.push_back(lat_run<SZ, CG>(buf + (size_t)r * (1u << 20), iters, stride, dcyc, sink, &mn));
    snprintf(key, sizeof key, "cp_async.latency_l2.%dB%s", SZ, CG ? "" : (SZ == 16 ? "_ca" : ""));
    result(key, median_of(v), "cycles",
           "1 warp, %dB/lane cp.async.%s, issue->wait_group 0, L2-resident, median over 3x256 iters (min %.0f)",
           SZ, CG ? "cg" : "ca", mn);
  }
  {
    std::vector<double> v;
    for (int r = 0; r < 3; ++r) {
      fl.flush();
      v.push_back(lat_run<SZ, CG>(buf + (size_t)r * (2u << 20), iters, stride, dcyc, sink, &mn));
    }
    snprintf(key, sizeof key, "cp_async.latency_dram.%dB%s", SZ, CG ? "" : (SZ == 16 ? "_ca" : ""));
    result(key, median_of(v), "cycles",
           "1 warp, %dB/lane cp.async.%s, issue->wait_group 0, after L2 flush, median over 3x256 iters (min %.0f)",
           SZ, CG ? "cg" : "ca", mn);
  }
  if (!CG) {
    std::vector<double> v;
    for (int r = 0; r < 3; ++r) v.push_back(lat_run<SZ, CG>(buf, 64, 0, dcyc, sink, &mn));
    snprintf(key, sizeof key, "cp_async.latency_l1.%dB%s", SZ, SZ == 16 ? "_ca" : "");
    result(key, median_of(v), "cycles",
           "1 warp, %dB/lane cp.async.ca, same addresses every iteration (L1 hit after the first), median",
           SZ);
  }
}

struct BwOut {
  double per_sm_bpc;    // median over blocks of bytes/block-cycles
  double total_bpc;     // total bytes / chip elapsed in SM cycles
  double gbps;          // total bytes / ns
  int distinct_sms;
};

static BwOut bw_run(const int4* src, int blocks, int T, int S, size_t chunks_per_block,
                    int passes, unsigned long long* dt, double mhz) {
  size_t smem = (size_t)S * T * 16;
  bwk_t k = bw_kernel(S);
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  k<<<blocks, T, smem>>>(src, chunks_per_block, passes, dt);
  CKL();
  std::vector<unsigned long long> h(4 * blocks);
  CK(cudaMemcpy(h.data(), dt, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  std::vector<double> per;
  unsigned long long gmin = ~0ULL, gmax = 0;
  std::vector<int> sms;
  double bytes_block = (double)chunks_per_block / T * T * 16.0 * passes;
  for (int b = 0; b < blocks; ++b) {
    per.push_back(bytes_block / (double)h[4 * b]);
    gmin = std::min(gmin, h[4 * b + 1]);
    gmax = std::max(gmax, h[4 * b + 2]);
    sms.push_back((int)h[4 * b + 3]);
  }
  std::sort(sms.begin(), sms.end());
  BwOut o;
  o.per_sm_bpc = median_of(per);
  double ns = (double)(gmax - gmin);
  o.total_bpc = bytes_block * blocks / (ns * mhz / 1000.0);
  o.gbps = bytes_block * blocks / ns;
  o.distinct_sms = (int)(std::unique(sms.begin(), sms.end()) - sms.begin());
  return o;
}

int main() {
  cudaDeviceProp prop = print_device();
  const int nsm = prop.multiProcessorCount;
  double mhz = measure_clock_mhz(3, 20000000LL);
  info("clock_mhz_for_conversions=%.1f", mhz);

  const size_t BUF = 2ull << 30;
  char* buf;
  CK(cudaMalloc(&buf, BUF));
  k_fill_int4<<<2048, 256>>>(reinterpret_cast<int4*>(buf), BUF / 16, 3);
  CKL();
  L2Flusher fl;
  fl.init(512ull << 20);
  unsigned long long* dt;
  CK(cudaMalloc(&dt, 4096 * sizeof(unsigned long long)));
  int* sink;
  CK(cudaMalloc(&sink, sizeof(int)));

  // ---------------- latency
  const size_t LATB = 8u << 20;
  lat_family<4, false>(buf, LATB, fl, dt, sink);
  lat_family<8, false>(buf, LATB, fl, dt, sink);
  lat_family<16, true>(buf, LATB, fl, dt, sink);
  lat_family<16, false>(buf, LATB, fl, dt, sink);

  // ---------------- bandwidth
  const int Ts[] = {128, 256, 512, 1024};
  const int Ss[] = {1, 2, 4, 8};
  double best_l2 = 0, best_dram1 = 0, best_dram_all = 0, best_l2_all = 0;
  char key[128];
  for (int T : Ts)
    for (int S : Ss) {
      // one block, L2-resident 8 MiB region (re-written before), 4 passes
      {
        size_t region = 8u << 20;
        k_fill_int4<<<256, 256>>>(reinterpret_cast<int4*>(buf), region / 16, 5);
        CKL();
        size_t cpb = region / 16 / T * T;
        std::vector<double> v;
        for (int r = 0; r < 3; ++r)
          v.push_back(bw_run(reinterpret_cast<int4*>(buf), 1, T, S, cpb, 4, dt, mhz).per_sm_bpc);
        double m = median_of(v);
        best_l2 = std::max(best_l2, m);
        snprintf(key, sizeof key, "cp_async.bw_l2_1blk.T%d.S%d", T, S);
        result(key, m, "B/clk", "1 block, %d thr x 16B cp.async.cg, %d groups in flight, 8MiB L2-resident x4 passes, median of 3", T, S);
      }
      // one block, cold DRAM 256 MiB stream
      {
        size_t region = 256u << 20;
        size_t cpb = region / 16 / T * T;
        std::vector<double> v;
        for (int r = 0; r < 2; ++r) {
          fl.flush();
          v.push_back(bw_run(reinterpret_cast<int4*>(buf + (512ull << 20)), 1, T, S, cpb, 1, dt, mhz).per_sm_bpc);
        }
        double m = median_of(v);
        best_dram1 = std::max(best_dram1, m);
        snprintf(key, sizeof key, "cp_async.bw_dram_1blk.T%d.S%d", T, S);
        result(key, m, "B/clk", "1 block, %d thr, %d groups in flight, 256MiB cold stream (L2 flushed), median of 2", T, S);
      }
      // all SMs, DRAM: 2 GiB / nsm per block
      {
        size_t cpb = BUF / 16 / nsm / T * T;
        fl.flush();
        BwOut o = bw_run(reinterpret_cast<int4*>(buf), nsm, T, S, cpb, 1, dt, mhz);
        best_dram_all = std::max(best_dram_all, o.total_bpc);
        snprintf(key, sizeof key, "cp_async.bw_dram_all.T%d.S%d", T, S);
        result(key, o.total_bpc, "B/clk",
               "grid=%d blocks (on %d distinct SMs), %d thr, %d in flight, 2GiB stream: chip total per SM clk; per-SM median %.2f B/clk; %.1f GB/s",
               nsm, o.distinct_sms, T, S, o.per_sm_bpc, o.gbps);
      }
      // all SMs, L2-resident: 16 MiB total, 32 passes
      {
        size_t region = 16u << 20;
        k_fill_int4<<<256, 256>>>(reinterpret_cast<int4*>(buf), region / 16, 9);
        CKL();
        size_t cpb = region / 16 / nsm / T * T;
        if (cpb >= (size_t)T) {
          BwOut o = bw_run(reinterpret_cast<int4*>(buf), nsm, T, S, cpb, 32, dt, mhz);
          best_l2_all = std::max(best_l2_all, o.total_bpc);
          snprintf(key, sizeof key, "cp_async.bw_l2_all.T%d.S%d", T, S);
          result(key, o.total_bpc, "B/clk",
                 "grid=%d (%d SMs), %d thr, %d in flight, 16MiB L2-resident x32 passes: chip total per SM clk; per-SM median %.2f; %.1f GB/s",
                 nsm, o.distinct_sms, T, S, o.per_sm_bpc, o.gbps);
        }
      }
    }
  result("l2.bytes_per_clk_sm", best_l2, "B/clk", "max over T,S of one-block cp.async.cg L2-resident stream");
  result("dram.bytes_per_clk_sm_alone", best_dram1, "B/clk", "max over T,S of one-block cold DRAM stream");
  result("dram.bytes_per_clk_total", best_dram_all, "B/clk",
         "max over T,S, all SMs streaming 2GiB; = %.1f GB/s at %.0f MHz; per SM share %.2f B/clk",
         best_dram_all * mhz / 1000.0, mhz, best_dram_all / nsm);
  result("l2.bytes_per_clk_total", best_l2_all, "B/clk", "max over T,S, all SMs, 16MiB L2-resident; per SM %.2f",
         best_l2_all / nsm);

  CK(cudaFree(buf));
  CK(cudaFree(dt));
  CK(cudaFree(sink));
  fl.release();
  printf("DONE cpasync\n");
  return 0;
}
