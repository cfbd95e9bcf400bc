// guide.cu - end-to-end sanity kernel: the CUDA C++ Programming Guide's
// `with_staging_unified` pattern (block-scope cuda::pipeline, unified producer/consumer,
// cuda::memcpy_async(block, ...) of block.size() ints per batch), where compute() runs a
// dependent chain of 16 IMADs on each thread's element and stores it to global memory.
// ONE block of 128 threads, batch_sz = 32, stages 1..4, int elements.
// Timing: every thread records clock64 at kernel entry and after its last store;
// kernel cycles = max(end) - min(start).  Cold: L2 flushed (512 MiB streamed) before each
// timed launch.  Median of 9 launches (also a warm-L2 variant for comparison).
#include <cooperative_groups.h>
#include <cassert>

#include <cuda/pipeline>

#include "common.cuh"

namespace cg = cooperative_groups;

__device__ __forceinline__ void compute(int* global_out, const int* shared_in, uint32_t a,
                                        uint32_t b) {
  auto block = cg::this_thread_block();
  uint32_t v = (uint32_t)shared_in[block.thread_rank()];
#pragma unroll
  for (int k = 0; k < 16; ++k) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(v) : "r"(a), "r"(b));
  global_out[block.thread_rank()] = (int)v;
}

template <size_t stages_count>
__global__ void with_staging_unified(int* global_out, const int* global_in, size_t size,
                                     size_t batch_sz, uint32_t a, uint32_t b,
                                     unsigned long long* times) {
  unsigned long long t_start = clk();
  auto grid = cg::this_grid();
  auto block = cg::this_thread_block();
  assert(size == batch_sz * grid.size());
  (void)size;

  extern __shared__ int shared[];  // stages_count * block.size() * sizeof(int) bytes
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
      size_t shared_idx = fetch_batch % stages_count;
      size_t batch_idx = fetch_batch;
      size_t block_batch_idx = block_batch(batch_idx);
      cuda::memcpy_async(block, shared + shared_offset[shared_idx], global_in + block_batch_idx,
                         sizeof(int) * block.size(), pipeline);
      pipeline.producer_commit();
    }
    pipeline.consumer_wait();
    int shared_idx = compute_batch % stages_count;
    int batch_idx = compute_batch;
    compute(global_out + block_batch(batch_idx), shared + shared_offset[shared_idx], a, b);
    pipeline.consumer_release();
  }
  unsigned long long t_end = clk();
  times[2 * block.thread_rank()] = t_start;
  times[2 * block.thread_rank() + 1] = t_end;
}

template <size_t S>
static double run_once(int* out, const int* in, size_t size, size_t batch, uint32_t a, uint32_t b,
                       unsigned long long* dt, int threads) {
  size_t smem = S * threads * sizeof(int);
  with_staging_unified<S><<<1, threads, smem>>>(out, in, size, batch, a, b, dt);
  CKL();
  std::vector<unsigned long long> h(2 * threads);
  CK(cudaMemcpy(h.data(), dt, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  unsigned long long mn = ~0ULL, mx = 0;
  for (int i = 0; i < threads; ++i) {
    mn = std::min(mn, h[2 * i]);
    mx = std::max(mx, h[2 * i + 1]);
  }
  return (double)(mx - mn);
}

template <size_t S>
static void run_stage(int* out, const int* in, const std::vector<int>& hin, L2Flusher& fl,
                      unsigned long long* dt) {
  const int threads = 128;
  const size_t batch = 32, size = batch * threads;
  const uint32_t a = 0x01000193u, b = 7u;
  std::vector<double> cold, warm;
  for (int r = 0; r < 9; ++r) {
    CK(cudaMemset(out, 0xff, size * sizeof(int)));
    fl.flush();
    cold.push_back(run_once<S>(out, in, size, batch, a, b, dt, threads));
  }
  // correctness check
  std::vector<int> hout(size);
  CK(cudaMemcpy(hout.data(), out, size * sizeof(int), cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (size_t i = 0; i < size; ++i) {
    uint32_t v = (uint32_t)hin[i];
    for (int k = 0; k < 16; ++k) v = v * a + b;
    if ((int)v != hout[i]) ++bad;
  }
  if (bad) printf("ERROR guide stages=%zu: %zu wrong outputs\n", S, bad);
  for (int r = 0; r < 9; ++r) warm.push_back(run_once<S>(out, in, size, batch, a, b, dt, threads));
  char key[96];
  snprintf(key, sizeof key, "guide.with_staging_unified.stages%zu", S);
  result(key, median_of(cold), "cycles",
         "1 block x 128 thr, batch_sz=32, int, cold DRAM (L2 flushed), kernel max(end)-min(start), median of 9 (min %.0f max %.0f); check %s",
         min_of(cold), max_of(cold), bad ? "FAILED" : "ok");
  snprintf(key, sizeof key, "guide.with_staging_unified_warm.stages%zu", S);
  result(key, median_of(warm), "cycles", "same, input L2-resident (no flush), median of 9");
}

int main() {
  print_device();
  const size_t size = 32 * 128;
  int *in, *out;
  unsigned long long* dt;
  CK(cudaMalloc(&in, size * sizeof(int)));
  CK(cudaMalloc(&out, size * sizeof(int)));
  CK(cudaMalloc(&dt, 2 * 1024 * sizeof(unsigned long long)));
  std::vector<int> hin(size);
  for (size_t i = 0; i < size; ++i) hin[i] = (int)(i * 2654435761u);
  CK(cudaMemcpy(in, hin.data(), size * sizeof(int), cudaMemcpyHostToDevice));
  L2Flusher fl;
  fl.init(512ull << 20);
  run_stage<1>(out, in, hin, fl, dt);
  run_stage<2>(out, in, hin, fl, dt);
  run_stage<3>(out, in, hin, fl, dt);
  run_stage<4>(out, in, hin, fl, dt);
  fl.release();
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(dt));
  printf("DONE guide\n");
  return 0;
}
