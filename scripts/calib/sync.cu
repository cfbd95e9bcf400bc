// sync.cu - __syncthreads, mbarrier (cuda::barrier<thread_scope_block> and raw PTX) and
// cuda::pipeline bookkeeping costs, all with no data movement.
//
// Method: one block on the GPU; per-warp lane-0 clock64 before/after a loop of N operations
// (unrolled by 8); cost per iteration = (max end - min start)/N; median of 5 launches.
//  * syncthreads: loop of __syncthreads(), block 32..1024; fit cost = base + per_warp*warps.
//  * mbarrier arrive: 1 warp, all 32 lanes call arrive() back-to-back on a barrier whose
//    expected count is never reached (cuda::barrier and raw mbarrier.arrive.shared::cta.b64).
//    Also arrive followed by test_wait on the returned state (dependent round trip).
//  * arrive_and_wait: cuda::barrier (count = blockDim) loop of arrive_and_wait(), 32..1024.
//  * try_wait / test_wait on an already-completed phase: dependent chain
//    (parity ^= !done) so each poll waits for the previous one's result; reported as
//    cycles per poll (includes ~2 dependent ALU ops of the chain).
//  * pipeline: (a) pipeline<thread_scope_block> from make_pipeline(block, &state<block,2>),
//    all threads producer+consumer; loop of producer_acquire/producer_commit/consumer_wait/
//    consumer_release with no copies ("serial"), and a 2-deep variant (acquire+commit for
//    iteration i, wait+release for iteration i-1); (b) pipeline<thread_scope_thread>.
#include <cooperative_groups.h>

#include <cuda/barrier>
#include <cuda/pipeline>

#include "common.cuh"

namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

__device__ __forceinline__ void record(unsigned long long* times, unsigned long long t0,
                                       unsigned long long t1) {
  if ((threadIdx.x & 31) == 0) {
    times[2 * (threadIdx.x / 32)] = t0;
    times[2 * (threadIdx.x / 32) + 1] = t1;
  }
}

// ---------------------------------------------------------------- __syncthreads
__global__ void k_sync(int n, unsigned long long* times) {
  __syncthreads();
  unsigned long long t0 = clk();
#pragma unroll 1
  for (int i = 0; i < n; i += 8) {
#pragma unroll
    for (int j = 0; j < 8; ++j) __syncthreads();
  }
  unsigned long long t1 = clk();
  record(times, t0, t1);
}

// ---------------------------------------------------------------- mbarrier arrive
__global__ void k_arrive_lib(int n, unsigned long long* times, unsigned long long* sink) {
  __shared__ SmemObj<block_barrier> sb;
  block_barrier* bar = sb.get();
  if (threadIdx.x == 0) init(bar, blockDim.x * (n + 16) + 1);  // never completes
  __syncthreads();
  unsigned long long t0 = clk();
#pragma unroll 1
  for (int i = 0; i < n; i += 8) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      auto tok = bar->arrive();
      (void)tok;
    }
  }
  unsigned long long t1 = clk();
  record(times, t0, t1);
  (void)sink;
}

__global__ void k_arrive_raw(int n, int dependent, unsigned long long* times,
                             unsigned long long* sink) {
  __shared__ __align__(8) unsigned long long bar;
  uint32_t b = smem_u32(&bar);
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(blockDim.x * (n + 16) + 1)
                 : "memory");
  __syncthreads();
  unsigned long long acc = 0;
  uint32_t okacc = 0;
  unsigned long long t0 = clk();
  if (!dependent) {
#pragma unroll 1
    for (int i = 0; i < n; i += 8) {
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        unsigned long long st;
        asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(b) : "memory");
        acc ^= st;
      }
    }
  } else {
#pragma unroll 1
    for (int i = 0; i < n; i += 8) {
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        unsigned long long st;
        uint32_t ok;
        asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(b) : "memory");
        asm volatile(
            "{ .reg .pred p; mbarrier.test_wait.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
            : "=r"(ok)
            : "r"(b), "l"(st)
            : "memory");
        okacc += ok;
      }
    }
  }
  unsigned long long t1 = clk();
  record(times, t0, t1);
  if (threadIdx.x == 0) sink[0] = acc + okacc;
}

// ---------------------------------------------------------------- arrive_and_wait
__global__ void k_arrive_wait(int n, unsigned long long* times) {
  __shared__ SmemObj<block_barrier> sb;
  block_barrier* bar = sb.get();
  if (threadIdx.x == 0) init(bar, blockDim.x);
  __syncthreads();
  unsigned long long t0 = clk();
#pragma unroll 1
  for (int i = 0; i < n; i += 8) {
#pragma unroll
    for (int j = 0; j < 8; ++j) bar->arrive_and_wait();
  }
  unsigned long long t1 = clk();
  record(times, t0, t1);
}

// ---------------------------------------------------------------- try_wait / test_wait polls
// MODE 0: test_wait.parity, MODE 1: try_wait.parity (sm_90)
template <int MODE>
__global__ void k_poll(int n, unsigned long long* times, unsigned long long* sink) {
  __shared__ __align__(8) unsigned long long bar;
  uint32_t b = smem_u32(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
    unsigned long long st;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(b) : "memory");
  }
  __syncthreads();  // phase 0 complete; polling parity 0 returns true
  uint32_t par = 0, fails = 0;
  unsigned long long t0 = clk();
#pragma unroll 1
  for (int i = 0; i < n; i += 8) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      uint32_t ok;
      if (MODE == 0) {
        asm volatile(
            "{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
            : "=r"(ok)
            : "r"(b), "r"(par)
            : "memory");
      } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        asm volatile(
            "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
            : "=r"(ok)
            : "r"(b), "r"(par)
            : "memory");
#else
        ok = 1;
#endif
      }
      par ^= ok ^ 1u;  // stays 0 while polls succeed; creates the dependency
      fails += ok ^ 1u;
    }
  }
  unsigned long long t1 = clk();
  record(times, t0, t1);
  if (threadIdx.x == 0) sink[0] = fails;
}

// ---------------------------------------------------------------- pipeline costs
template <int VARIANT>  // 0: serial acquire/commit/wait/release, 1: 2-deep
__global__ void k_pipe_block(int n, unsigned long long* times) {
  auto block = cg::this_thread_block();
  __shared__ SmemObj<cuda::pipeline_shared_state<cuda::thread_scope_block, 2>> ss;
  auto pipe = cuda::make_pipeline(block, ss.get());
  unsigned long long t0 = clk();
  if (VARIANT == 0) {
#pragma unroll 1
    for (int i = 0; i < n; i += 4) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        pipe.producer_acquire();
        pipe.producer_commit();
        pipe.consumer_wait();
        pipe.consumer_release();
      }
    }
  } else {
    pipe.producer_acquire();
    pipe.producer_commit();
#pragma unroll 1
    for (int i = 1; i < n; ++i) {
      pipe.producer_acquire();
      pipe.producer_commit();
      pipe.consumer_wait();
      pipe.consumer_release();
    }
    pipe.consumer_wait();
    pipe.consumer_release();
  }
  unsigned long long t1 = clk();
  record(times, t0, t1);
}

__global__ void k_pipe_thread(int n, unsigned long long* times) {
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  unsigned long long t0 = clk();
#pragma unroll 1
  for (int i = 0; i < n; i += 4) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      pipe.producer_acquire();
      pipe.producer_commit();
      pipe.consumer_wait();
      pipe.consumer_release();
    }
  }
  unsigned long long t1 = clk();
  record(times, t0, t1);
}

// ---------------------------------------------------------------- host
static unsigned long long* g_times;
static double elapsed(int threads) {
  int w = (threads + 31) / 32;
  std::vector<unsigned long long> h(2 * w);
  CK(cudaMemcpy(h.data(), g_times, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  unsigned long long mn = ~0ULL, mx = 0;
  for (int i = 0; i < w; ++i) {
    mn = std::min(mn, h[2 * i]);
    mx = std::max(mx, h[2 * i + 1]);
  }
  return (double)(mx - mn);
}
template <class F>
static double med5(int threads, int n, F launch) {
  std::vector<double> v;
  for (int r = 0; r < 5; ++r) {
    launch();
    CKL();
    v.push_back(elapsed(threads) / n);
  }
  return median_of(v);
}

int main() {
  cudaDeviceProp prop = print_device();
  CK(cudaMalloc(&g_times, 128 * sizeof(unsigned long long)));
  unsigned long long* sink;
  CK(cudaMalloc(&sink, 8 * sizeof(unsigned long long)));
  const int n = 4096;
  char key[96];
  // warm up
  k_sync<<<1, 1024>>>(n, g_times);
  CKL();

  // syncthreads
  {
    const int bs[] = {32, 64, 128, 256, 512, 1024};
    std::vector<double> xs, ys;
    for (int b : bs) {
      double c = med5(b, n, [&] { k_sync<<<1, b>>>(n, g_times); });
      xs.push_back(b / 32);
      ys.push_back(c);
      snprintf(key, sizeof key, "barrier.syncthreads.%d", b);
      result(key, c, "cycles", "loop of __syncthreads(), block %d, cycles per barrier, median of 5", b);
    }
    double a, s;
    linfit(xs, ys, &a, &s);
    result("barrier.syncthreads_base", a, "cycles", "least-squares fit cost = base + per_warp*warps over 1..32 warps");
    result("barrier.syncthreads_per_warp", s, "cycles", "slope of the same fit");
  }
  // mbarrier arrive (1 warp)
  {
    double c = med5(32, n, [&] { k_arrive_lib<<<1, 32>>>(n, g_times, sink); });
    result("mbarrier.arrive_cycles", c, "cycles",
           "1 warp (32 lanes) cuda::barrier<block>::arrive() back-to-back, cycles per warp-wide arrive");
    double r = med5(32, n, [&] { k_arrive_raw<<<1, 32>>>(n, 0, g_times, sink); });
    result("mbarrier.arrive_cycles_raw", r, "cycles", "same with raw mbarrier.arrive.shared::cta.b64");
    double d = med5(32, n, [&] { k_arrive_raw<<<1, 32>>>(n, 1, g_times, sink); });
    result("mbarrier.arrive_test_wait_roundtrip", d, "cycles",
           "1 warp: mbarrier.arrive then test_wait on the returned state (dependent), per pair");
    double c4 = med5(128, n, [&] { k_arrive_lib<<<1, 128>>>(n, g_times, sink); });
    result("mbarrier.arrive_cycles_4warps", c4, "cycles",
           "4 warps each arriving back-to-back on one barrier: elapsed per loop iteration (4 warp-arrives)");
  }
  // arrive_and_wait
  {
    const int bs[] = {32, 64, 128, 256, 512, 1024};
    std::vector<double> xs, ys;
    for (int b : bs) {
      double c = med5(b, n, [&] { k_arrive_wait<<<1, b>>>(n, g_times); });
      xs.push_back(b / 32);
      ys.push_back(c);
      snprintf(key, sizeof key, "mbarrier.arrive_wait_cycles.%d", b);
      result(key, c, "cycles", "cuda::barrier<block> arrive_and_wait loop, block %d, per iteration", b);
      if (b == 128) result("mbarrier.arrive_wait_cycles", c, "cycles", "= block 128 value");
    }
    double a, s;
    linfit(xs, ys, &a, &s);
    result("mbarrier.arrive_wait_base", a, "cycles", "fit base + per_warp*warps");
    result("mbarrier.arrive_wait_per_warp", s, "cycles", "fit slope");
  }
  // polls on a completed phase
  {
    double t = med5(32, n, [&] { k_poll<0><<<1, 32>>>(n, g_times, sink); });
    result("mbarrier.test_wait_cycles", t, "cycles",
           "1 warp, dependent chain of test_wait.parity on a completed phase (+2 ALU ops), per poll");
    if (prop.major >= 9) {
      double w = med5(32, n, [&] { k_poll<1><<<1, 32>>>(n, g_times, sink); });
      result("mbarrier.try_wait_cycles", w, "cycles",
             "1 warp, dependent chain of try_wait.parity on a completed phase (+2 ALU ops), per poll");
    }
    unsigned long long f;
    CK(cudaMemcpy(&f, sink, sizeof(f), cudaMemcpyDeviceToHost));
    if (f) printf("ERROR poll on completed phase failed %llu times\n", f);
  }
  // pipeline
  {
    const int bs[] = {128, 256};
    for (int b : bs) {
      double c = med5(b, n, [&] { k_pipe_block<0><<<1, b>>>(n, g_times); });
      snprintf(key, sizeof key, "pipeline.block_iter_cycles.%d", b);
      result(key, c, "cycles",
             "pipeline<block> state<block,2>, %d thr unified, acquire/commit/wait/release, no copies, per iteration", b);
      if (b == 128) result("pipeline.block_iter_cycles", c, "cycles", "= 128-thread serial value");
      double d = med5(b, n, [&] { k_pipe_block<1><<<1, b>>>(n, g_times); });
      snprintf(key, sizeof key, "pipeline.block_iter_cycles_2deep.%d", b);
      result(key, d, "cycles", "same, one stage kept in flight (acquire/commit i, wait/release i-1)");
    }
    double t = med5(128, n, [&] { k_pipe_thread<<<1, 128>>>(n, g_times); });
    result("pipeline.thread_iter_cycles", t, "cycles",
           "pipeline<thread> make_pipeline(), 128 thr, acquire/commit/wait/release with no copies, per iteration");
    double t1 = med5(32, n, [&] { k_pipe_thread<<<1, 32>>>(n, g_times); });
    result("pipeline.thread_iter_cycles.32", t1, "cycles", "same with one warp");
  }
  CK(cudaFree(g_times));
  CK(cudaFree(sink));
  printf("DONE sync\n");
  return 0;
}
