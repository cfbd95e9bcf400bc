// extra.cu - follow-up measurements added after the first H100 run:
//  A. bulk-copy issue cost: one thread issues K cp.async.bulk copies of `size` bytes
//     back-to-back (distinct smem buffers, one mbarrier, expect_tx = K*size), or K lanes of
//     one warp issue one copy each.  Reports cycles to issue all K and to completion.
//  B. cp.async issue cost: one warp issues K cp.async (16 B .cg or 4 B .ca per lane)
//     back-to-back, commit, wait_group 0 (L2-resident); cycles to issue and to completion.
//     Also empty commit_group + wait_group 0 round trip.
//  C. cp.async completing on an mbarrier (cp.async.mbarrier.arrive.noinc): latency of one
//     warp's 4-B-per-lane copy -> barrier phase flip (L2-resident).
//  D. mbarrier wake-up: warp 0 waits (try_wait loop or test_wait spin) on a phase that warp 1
//     completes later; wake latency = waiter's clock64 after the wait - arriver's clock64
//     just before its arrive (clock64 is SM-wide).
//  E. Timeline of the guide's with_staging_unified kernel (1 block x 128 threads,
//     batch_sz 32, stages 1/2/4, cold and warm): per batch, clock64 of threads 0 and 127
//     after producer_acquire / producer_commit / consumer_wait / compute / consumer_release.
//  F. plain ld.global.cg (LDG.128) one-block streaming bandwidth, L2-resident and cold DRAM,
//     as a comparison for the cp.async-based l2/dram bytes-per-clock numbers.
#include <cooperative_groups.h>

#include <cassert>
#include <cuda/pipeline>

#include "common.cuh"
#include "mbarrier.cuh"

namespace cg = cooperative_groups;

// ---------------------------------------------------------------- A. bulk issue
__global__ void k_bulk_issue(const char* src, uint32_t size, int K, int multi,
                             unsigned long long* out, int* err) {
  extern __shared__ __align__(1024) unsigned char dsm[];
  __shared__ __align__(8) unsigned long long bar;
  uint32_t b = smem_u32(&bar);
  int tid = threadIdx.x;
  if (tid == 0) {
    mbar_init(b, 1);
    fence_init();
  }
  __syncthreads();
  uint32_t d0 = smem_u32(dsm);
  if (!multi) {
    if (tid == 0) {
      unsigned long long t0 = clk();
      mbar_arrive_tx(b, K * size);
      for (int k = 0; k < K; ++k) bulk_g2s(d0 + k * size, src + (size_t)k * size, size, b);
      unsigned long long t1 = clk();
      mbar_wait(b, 0, err);
      unsigned long long t2 = clk();
      out[0] = t1 - t0;
      out[1] = t2 - t0;
    }
  } else if (tid < 32) {
    unsigned long long t0 = clk();
    if (tid == 0) mbar_arrive_tx(b, K * size);
    __syncwarp();
    if (tid < K) bulk_g2s(d0 + tid * size, src + (size_t)tid * size, size, b);
    __syncwarp();
    unsigned long long t1 = clk();
    if (tid == 0) {
      mbar_wait(b, 0, err);
      unsigned long long t2 = clk();
      out[0] = t1 - t0;
      out[1] = t2 - t0;
    }
  }
}

// ---------------------------------------------------------------- B. cp.async issue
template <int K, int SZ>
__global__ void k_cpa_issue(const char* src, unsigned long long* out) {
  __shared__ __align__(16) char sm[32 * 16 * 32];
  int lane = threadIdx.x & 31;
  unsigned long long t0 = clk();
#pragma unroll
  for (int k = 0; k < K; ++k) {
    uint32_t dst = smem_u32(sm + k * 32 * SZ + lane * SZ);
    const char* g = src + (size_t)k * 4096 + lane * SZ;
    if (SZ == 16)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(g) : "memory");
    else
      asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(g) : "memory");
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
  unsigned long long t1 = clk();
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  unsigned long long t2 = clk();
  if (lane == 0) {
    out[0] = t1 - t0;
    out[1] = t2 - t0;
  }
}
__global__ void k_empty_group(int n, unsigned long long* out) {
  unsigned long long t0 = clk();
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
  }
  unsigned long long t1 = clk();
  if (threadIdx.x == 0) out[0] = t1 - t0;
}

// ---------------------------------------------------------------- C. cp.async -> mbarrier
__global__ void k_cpa_mbar(const char* src, int iters, unsigned long long* cyc, int* err) {
  __shared__ __align__(16) int sm[32];
  __shared__ __align__(8) unsigned long long bar;
  uint32_t b = smem_u32(&bar);
  int lane = threadIdx.x & 31;
  if (lane == 0) mbar_init(b, 32);
  __syncthreads();
  uint32_t dst = smem_u32(&sm[lane]);
  for (int it = 0; it < iters; ++it) {
    const char* g = src + (size_t)it * 4096 + lane * 4;
    __syncwarp();
    unsigned long long t0 = clk();
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(g) : "memory");
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(b) : "memory");
    uint32_t spins = 0;
    while (!mbar_test_wait(b, it & 1)) {
      if (++spins > 40000000u) {
        atomicAdd(err, 1);
        __trap();
      }
    }
    unsigned long long t1 = clk();
    if (lane == 0) cyc[it] = t1 - t0;
  }
}

// ---------------------------------------------------------------- D. wake-up latency
__global__ void k_wake(int iters, int mode, unsigned long long* out, int* err) {
  __shared__ __align__(8) unsigned long long bar;
  uint32_t b = smem_u32(&bar);
  if (threadIdx.x == 0) mbar_init(b, 1);
  __syncthreads();
  for (int it = 0; it < iters; ++it) {
    uint32_t parity = it & 1;
    if (threadIdx.x == 0) {
      uint32_t spins = 0;
      if (mode == 0) {
        while (!mbar_try_wait(b, parity))
          if (++spins > 40000000u) {
            atomicAdd(err, 1);
            __trap();
          }
      } else {
        while (!mbar_test_wait(b, parity))
          if (++spins > 40000000u) {
            atomicAdd(err, 1);
            __trap();
          }
      }
      unsigned long long tw = clk();
      out[2 * it + 1] = tw;
    } else if (threadIdx.x == 32) {
      unsigned long long t = clk();
      while (clk() - t < 3000) {
      }
      unsigned long long ta = clk();
      mbar_arrive(b);
      out[2 * it] = ta;
    }
    __syncthreads();
  }
}

// ---------------------------------------------------------------- E. guide timeline
__device__ __forceinline__ void compute(int* global_out, const int* shared_in, uint32_t a,
                                        uint32_t b) {
  auto block = cg::this_thread_block();
  uint32_t v = (uint32_t)shared_in[block.thread_rank()];
#pragma unroll
  for (int k = 0; k < 16; ++k) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(v) : "r"(a), "r"(b));
  global_out[block.thread_rank()] = (int)v;
}

// tl layout: [thread sel 0/1][event 0..4][batch 0..31], plus [2][5][32] -> start at [320]
template <size_t stages_count>
__global__ void guide_traced(int* global_out, const int* global_in, size_t size, size_t batch_sz,
                             uint32_t a, uint32_t b, unsigned long long* tl_out) {
  unsigned long long t_start = clk();
  auto grid = cg::this_grid();
  auto block = cg::this_thread_block();
  assert(size == batch_sz * grid.size());
  (void)size;
  __shared__ unsigned long long tl[2][5][32];
  const int sel = threadIdx.x == 0 ? 0 : (threadIdx.x == blockDim.x - 1 ? 1 : -1);

  extern __shared__ int shared[];
  size_t shared_offset[stages_count];
  for (int s = 0; s < (int)stages_count; ++s) shared_offset[s] = s * block.size();
  __shared__ SmemObj<cuda::pipeline_shared_state<cuda::thread_scope::thread_scope_block, stages_count>>
      shared_state;
  auto pipeline = cuda::make_pipeline(block, shared_state.get());
  auto block_batch = [&](size_t batch) -> int {
    return block.group_index().x * block.size() + grid.size() * batch;
  };
  for (size_t compute_batch = 0, fetch_batch = 0; compute_batch < batch_sz; ++compute_batch) {
    for (; fetch_batch < batch_sz && fetch_batch < (compute_batch + stages_count); ++fetch_batch) {
      pipeline.producer_acquire();
      if (sel >= 0) tl[sel][0][fetch_batch] = clk();
      size_t shared_idx = fetch_batch % stages_count;
      size_t block_batch_idx = block_batch(fetch_batch);
      cuda::memcpy_async(block, shared + shared_offset[shared_idx], global_in + block_batch_idx,
                         sizeof(int) * block.size(), pipeline);
      pipeline.producer_commit();
      if (sel >= 0) tl[sel][1][fetch_batch] = clk();
    }
    pipeline.consumer_wait();
    if (sel >= 0) tl[sel][2][compute_batch] = clk();
    int shared_idx = compute_batch % stages_count;
    compute(global_out + block_batch(compute_batch), shared + shared_offset[shared_idx], a, b);
    if (sel >= 0) tl[sel][3][compute_batch] = clk();
    pipeline.consumer_release();
    if (sel >= 0) tl[sel][4][compute_batch] = clk();
  }
  unsigned long long t_end = clk();
  if (sel >= 0) {
    for (int e = 0; e < 5; ++e)
      for (int i = 0; i < 32; ++i) tl_out[sel * 160 + e * 32 + i] = tl[sel][e][i] - t_start;
    tl_out[320 + sel * 2] = t_start;
    tl_out[320 + sel * 2 + 1] = t_end;
  }
}

// ---------------------------------------------------------------- F. plain LDG stream
// One block; each thread keeps U independent 16-B ld.global.cg loads in flight per step.
template <int U>
__global__ void k_ldg_bw(const int4* __restrict__ src, size_t n, int passes,
                         unsigned long long* out, int* sink) {
  const int T = blockDim.x, tid = threadIdx.x;
  int acc = 0;
  __syncthreads();
  unsigned long long t0 = clk();
  for (int p = 0; p < passes; ++p) {
    for (size_t i = tid; i + (size_t)(U - 1) * T < n; i += (size_t)T * U) {
      int4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = __ldcg(src + i + (size_t)u * T);
#pragma unroll
      for (int u = 0; u < U; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
  }
  __syncthreads();
  unsigned long long t1 = clk();
  if (tid == 0) out[0] = t1 - t0;
  if (acc == 0x7ffffff3) sink[0] = acc;
}

// ---------------------------------------------------------------- host
template <size_t S>
static void guide_trace(int* out, const int* in, L2Flusher& fl, unsigned long long* dt,
                        bool cold) {
  const int threads = 128;
  const size_t batch = 32, size = batch * threads;
  const uint32_t a = 0x01000193u, b = 7u;
  std::vector<double> total, interval;
  std::vector<unsigned long long> h(324), keep;
  for (int r = 0; r < 5; ++r) {
    if (cold) fl.flush();
    guide_traced<S><<<1, threads, S * threads * sizeof(int)>>>(out, in, size, batch, a, b, dt);
    CKL();
    CK(cudaMemcpy(h.data(), dt, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    unsigned long long st = std::min(h[320], h[322]);
    unsigned long long en = std::max(h[321], h[323]);
    total.push_back((double)(en - st));
    std::vector<double> d;
    for (int i = 5; i < 31; ++i) d.push_back((double)(h[4 * 32 + i + 1] - h[4 * 32 + i]));
    interval.push_back(median_of(d));
    if (r == 2) keep = h;
  }
  // dump the median-ish run (rep 2)
  for (int sel = 0; sel < 2; ++sel)
    for (int i = 0; i < 32; ++i)
      printf("TRACE guide stages=%zu %s thr=%d batch=%d acq=%llu commit=%llu wait=%llu compute=%llu release=%llu\n",
             S, cold ? "cold" : "warm", sel ? 127 : 0, i, keep[sel * 160 + 0 * 32 + i],
             keep[sel * 160 + 1 * 32 + i], keep[sel * 160 + 2 * 32 + i],
             keep[sel * 160 + 3 * 32 + i], keep[sel * 160 + 4 * 32 + i]);
  char key[96];
  snprintf(key, sizeof key, "guide.traced_%s.stages%zu", cold ? "cold" : "warm", S);
  result(key, median_of(total), "cycles", "instrumented kernel (threads 0/127 timestamps) total, median of 5");
  snprintf(key, sizeof key, "guide.batch_interval_%s.stages%zu", cold ? "cold" : "warm", S);
  result(key, median_of(interval), "cycles", "thread 0 steady-state cycles between consumer_release of batches 5..31, median of 5");
}

int main() {
  cudaDeviceProp prop = print_device();
  const bool sm90 = prop.major >= 9;
  unsigned long long* dt;
  CK(cudaMalloc(&dt, 4096 * sizeof(unsigned long long)));
  int* err;
  CK(cudaMalloc(&err, sizeof(int)));
  CK(cudaMemset(err, 0, sizeof(int)));
  char* buf;
  const size_t BUF = 64u << 20;
  CK(cudaMalloc(&buf, BUF));
  k_fill_int4<<<256, 256>>>(reinterpret_cast<int4*>(buf), BUF / 16, 1);
  CKL();
  L2Flusher fl;
  fl.init(512ull << 20);
  char key[128];
  std::vector<unsigned long long> h(2 * 64 + 8);

  // ---- A. bulk issue
  if (sm90) {
    const uint32_t sizes[] = {256, 1024, 4096};
    const int Ks[] = {1, 2, 4, 8, 16, 32};
    for (int multi = 0; multi < 2; ++multi)
      for (uint32_t sz : sizes) {
        std::vector<double> xs, yi, yc;
        for (int K : Ks) {
          size_t smem = (size_t)K * sz;
          CK(cudaFuncSetAttribute(k_bulk_issue, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
          std::vector<double> vi, vc;
          for (int r = 0; r < 7; ++r) {
            k_fill_int4<<<64, 256>>>(reinterpret_cast<int4*>(buf), (256u << 10) / 16, r);
            CKL();
            k_bulk_issue<<<1, 32, smem>>>(buf, sz, K, multi, dt, err);
            CKL();
            CK(cudaMemcpy(h.data(), dt, 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
            if (r > 0) {  // rep 0 only warms clocks / instruction cache
              vi.push_back((double)h[0]);
              vc.push_back((double)h[1]);
            }
          }
          xs.push_back(K);
          yi.push_back(median_of(vi));
          yc.push_back(median_of(vc));
          snprintf(key, sizeof key, "bulk.issue_%s.%uB.K%d", multi ? "lanes" : "1thr", sz, K);
          result(key, yc.back(), "cycles",
                 "K=%d bulk copies of %u B on one mbarrier, L2-resident: issue took %.0f cycles, completion %.0f",
                 K, sz, yi.back(), yc.back());
        }
        double a0, s0, a1, s1;
        linfit(xs, yi, &a0, &s0);
        linfit(xs, yc, &a1, &s1);
        snprintf(key, sizeof key, "bulk.issue_interval_%s.%uB", multi ? "lanes" : "1thr", sz);
        result(key, s0, "cycles", "slope of issue time vs K (intercept %.1f)", a0);
        snprintf(key, sizeof key, "bulk.completion_per_copy_%s.%uB", multi ? "lanes" : "1thr", sz);
        result(key, s1, "cycles", "slope of completion time vs K (intercept %.1f) -> %.2f B/clk", a1,
               sz / s1);
      }
  }
  // ---- B. cp.async issue
  {
    auto run = [&](auto kern, int K, int SZ) {
      std::vector<double> vi, vc;
      for (int r = 0; r < 7; ++r) {
        k_fill_int4<<<64, 256>>>(reinterpret_cast<int4*>(buf), (256u << 10) / 16, r);
        CKL();
        kern<<<1, 32>>>(buf, dt);
        CKL();
        CK(cudaMemcpy(h.data(), dt, 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        if (r > 0) {
          vi.push_back((double)h[0]);
          vc.push_back((double)h[1]);
        }
      }
      snprintf(key, sizeof key, "cp_async.issue_%dB.K%d", SZ, K);
      result(key, median_of(vc), "cycles",
             "1 warp issues K=%d cp.async of %d B/lane back-to-back (L2-resident): issue %.0f cycles, wait_group 0 done at %.0f",
             K, SZ, median_of(vi), median_of(vc));
      return std::make_pair(median_of(vi), median_of(vc));
    };
    std::vector<double> xs, y16i, y16c, y4i, y4c;
    std::pair<double, double> p;
#define CPA_K(K)                                   \
  p = run(k_cpa_issue<K, 16>, K, 16);             \
  y16i.push_back(p.first);                        \
  y16c.push_back(p.second);                       \
  p = run(k_cpa_issue<K, 4>, K, 4);               \
  y4i.push_back(p.first);                         \
  y4c.push_back(p.second);                        \
  xs.push_back(K);
    CPA_K(1) CPA_K(2) CPA_K(4) CPA_K(8) CPA_K(16) CPA_K(32)
#undef CPA_K
    double a, s;
    linfit(xs, y16i, &a, &s);
    result("cp_async.issue_interval_16B", s, "cycles", "per warp-wide 16B cp.async.cg, slope of issue time (intercept %.1f)", a);
    linfit(xs, y16c, &a, &s);
    result("cp_async.completion_per_instr_16B", s, "cycles", "slope of completion vs K (intercept %.1f): %.1f B/clk for one warp", a, 512.0 / s);
    linfit(xs, y4i, &a, &s);
    result("cp_async.issue_interval_4B", s, "cycles", "per warp-wide 4B cp.async.ca, slope of issue time (intercept %.1f)", a);
    linfit(xs, y4c, &a, &s);
    result("cp_async.completion_per_instr_4B", s, "cycles", "slope of completion vs K (intercept %.1f)", a);
    std::vector<double> v;
    for (int r = 0; r < 5; ++r) {
      k_empty_group<<<1, 32>>>(1024, dt);
      CKL();
      CK(cudaMemcpy(h.data(), dt, sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      v.push_back((double)h[0] / 1024);
    }
    result("cp_async.empty_commit_wait_cycles", median_of(v), "cycles",
           "1 warp: cp.async.commit_group (no copies) + cp.async.wait_group 0, per pair");
  }
  // ---- C. cp.async -> mbarrier
  {
    std::vector<unsigned long long> hc(64);
    std::vector<double> v;
    k_fill_int4<<<256, 256>>>(reinterpret_cast<int4*>(buf), (1u << 20) / 16, 3);
    CKL();
    for (int r = 0; r < 3; ++r) {
      k_cpa_mbar<<<1, 32>>>(buf + (size_t)r * 64, 64, dt, err);
      CKL();
      CK(cudaMemcpy(hc.data(), dt, 64 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      for (auto x : hc) v.push_back((double)x);
    }
    result("cp_async.latency_l2_mbarrier.4B", median_of(v), "cycles",
           "1 warp: cp.async.ca 4B/lane + cp.async.mbarrier.arrive.noinc, spin test_wait until phase flips; L2-resident; median of 192");
  }
  // ---- D. wake-up latency
  {
    for (int mode = 0; mode < 2; ++mode) {
      if (mode == 0 && !sm90) continue;
      std::vector<double> v;
      std::vector<unsigned long long> hw(128);
      for (int r = 0; r < 3; ++r) {
        k_wake<<<1, 64>>>(64, mode, dt, err);
        CKL();
        CK(cudaMemcpy(hw.data(), dt, 128 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        for (int i = 0; i < 64; ++i) v.push_back((double)(long long)(hw[2 * i + 1] - hw[2 * i]));
      }
      result(mode == 0 ? "mbarrier.wake_latency_try_wait" : "mbarrier.wake_latency_test_wait_spin",
             median_of(v), "cycles",
             "waiter (warp 0) clock64 after its wait loop - arriver (warp 1) clock64 just before mbarrier.arrive; median of 192 (min %.0f max %.0f)",
             min_of(v), max_of(v));
    }
  }
  // ---- F. plain LDG streaming, one block (comparison for l2/dram bytes per SM clock)
  {
    int* sink;
    CK(cudaMalloc(&sink, sizeof(int)));
    auto go = [&](auto kern, int T, int U, bool cold) {
      size_t region = cold ? BUF : (8u << 20);
      size_t n = region / 16 / ((size_t)T * U) * ((size_t)T * U);
      int passes = cold ? 1 : 4;
      std::vector<double> v;
      for (int r = 0; r < 3; ++r) {
        if (cold)
          fl.flush();
        else {
          k_fill_int4<<<256, 256>>>(reinterpret_cast<int4*>(buf), region / 16, r);
          CKL();
        }
        kern<<<1, T>>>(reinterpret_cast<const int4*>(buf), n, passes, dt, sink);
        CKL();
        CK(cudaMemcpy(h.data(), dt, sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        v.push_back((double)n * 16 * passes / (double)h[0]);
      }
      snprintf(key, sizeof key, "ldg.bw_%s_1blk.T%d.U%d", cold ? "dram" : "l2", T, U);
      result(key, median_of(v), "B/clk",
             "1 block, %d thr x %d independent 16B ld.global.cg in flight, %s, median of 3", T, U,
             cold ? "64MiB cold stream" : "8MiB L2-resident x4");
      return median_of(v);
    };
    double l2a = go(k_ldg_bw<4>, 1024, 4, false);
    double l2b = go(k_ldg_bw<8>, 1024, 8, false);
    double l2c = go(k_ldg_bw<8>, 512, 8, false);
    double da = go(k_ldg_bw<4>, 1024, 4, true);
    double db = go(k_ldg_bw<8>, 1024, 8, true);
    double dc = go(k_ldg_bw<8>, 512, 8, true);
    result("l2.bytes_per_clk_sm_ldg", std::max(l2a, std::max(l2b, l2c)), "B/clk",
           "max of the LDG.128 one-block L2-resident streams (compare l2.bytes_per_clk_sm from cp.async)");
    result("dram.bytes_per_clk_sm_alone_ldg", std::max(da, std::max(db, dc)), "B/clk",
           "max of the LDG.128 one-block cold streams");
    CK(cudaFree(sink));
  }
  // ---- E. guide timeline
  {
    const size_t size = 32 * 128;
    int *in, *out;
    CK(cudaMalloc(&in, size * sizeof(int)));
    CK(cudaMalloc(&out, size * sizeof(int)));
    std::vector<int> hin(size);
    for (size_t i = 0; i < size; ++i) hin[i] = (int)(i * 2654435761u);
    CK(cudaMemcpy(in, hin.data(), size * sizeof(int), cudaMemcpyHostToDevice));
    guide_trace<1>(out, in, fl, dt, true);
    guide_trace<2>(out, in, fl, dt, true);
    guide_trace<4>(out, in, fl, dt, true);
    guide_trace<1>(out, in, fl, dt, false);
    guide_trace<2>(out, in, fl, dt, false);
    guide_trace<4>(out, in, fl, dt, false);
    CK(cudaFree(in));
    CK(cudaFree(out));
  }
  int herr = 0;
  CK(cudaMemcpy(&herr, err, sizeof(int), cudaMemcpyDeviceToHost));
  if (herr) printf("ERROR extra watchdog fired %d times\n", herr);
  fl.release();
  CK(cudaFree(buf));
  CK(cudaFree(dt));
  CK(cudaFree(err));
  printf("DONE extra\n");
  return 0;
}
