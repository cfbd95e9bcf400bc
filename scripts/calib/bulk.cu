// bulk.cu - Hopper bulk copies (cp.async.bulk global->shared, 1-D TMA) completing on an
// mbarrier via complete_tx.  sm_90 only (the kernels are empty stubs on older targets and
// the host prints SKIP there).
//
// Latency: one thread: clock64; mbarrier.arrive.expect_tx(bytes); cp.async.bulk ...
//   mbarrier::complete_tx::bytes; spin on mbarrier.try_wait.parity until the phase flips;
//   clock64.  64 iterations with a fresh source address each (stride max(size, 64 KiB)),
//   median.  L2-resident (region written just before) and cold (L2 flushed before).
// Bandwidth: one block on the GPU, one producer thread, S stages (S mbarriers, S buffers of
//   `size` bytes): before reusing stage s it waits for that stage's previous completion.
//   Bytes per SM cycle over the whole stream (L2-resident 8 MiB x 4 passes, or 128 MiB cold).
#include "common.cuh"
#include "mbarrier.cuh"

__global__ void k_bulk_lat(const char* src, uint32_t size, int iters, size_t stride,
                           unsigned long long* cyc, int* err) {
  extern __shared__ __align__(1024) unsigned char dsm[];
  __shared__ __align__(8) unsigned long long bar;
  uint32_t b = smem_u32(&bar);
  if (threadIdx.x == 0) {
    mbar_init(b, 1);
    fence_init();
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  uint32_t dst = smem_u32(dsm);
  uint32_t ph = 0;
  for (int it = 0; it < iters; ++it) {
    const char* g = src + (size_t)it * stride;
    unsigned long long t0 = clk();
    mbar_arrive_tx(b, size);
    bulk_g2s(dst, g, size, b);
    mbar_wait(b, ph, err);
    unsigned long long t1 = clk();
    ph ^= 1;
    cyc[it] = t1 - t0;
  }
}

__global__ void k_bulk_bw(const char* src, uint32_t size, int stages, size_t nchunks,
                          size_t region_chunks, unsigned long long* out, int* err) {
  extern __shared__ __align__(1024) unsigned char dsm[];
  __shared__ __align__(8) unsigned long long bars[4];
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) mbar_init(smem_u32(&bars[s]), 1);
    fence_init();
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  uint32_t dst0 = smem_u32(dsm);
  unsigned long long t0 = clk();
  int s = 0;
  size_t k = 0, rc = 0;  // k = i / stages, rc = i % region_chunks
  for (size_t i = 0; i < nchunks; ++i) {
    uint32_t b = smem_u32(&bars[s]);
    if (k > 0) mbar_wait(b, (uint32_t)((k - 1) & 1), err);
    mbar_arrive_tx(b, size);
    bulk_g2s(dst0 + s * size, src + rc * size, size, b);
    if (++rc == region_chunks) rc = 0;
    if (++s == stages) {
      s = 0;
      ++k;
    }
  }
  size_t first = nchunks > (size_t)stages ? nchunks - stages : 0;
  for (size_t i = first; i < nchunks; ++i)
    mbar_wait(smem_u32(&bars[i % stages]), (uint32_t)((i / stages) & 1), err);
  unsigned long long t1 = clk();
  out[0] = t1 - t0;
}

static double lat_run(const char* src, uint32_t size, int iters, size_t stride,
                      unsigned long long* dcyc, int* err, double* mn) {
  CK(cudaFuncSetAttribute(k_bulk_lat, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)size));
  k_bulk_lat<<<1, 32, size>>>(src, size, iters, stride, dcyc, err);
  CKL();
  std::vector<unsigned long long> h(iters);
  CK(cudaMemcpy(h.data(), dcyc, iters * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  std::vector<double> v(h.begin(), h.end());
  if (mn) *mn = min_of(v);
  return median_of(v);
}

static double bw_run(const char* src, uint32_t size, int stages, size_t nchunks,
                     size_t region_chunks, unsigned long long* dt, int* err) {
  size_t smem = (size_t)size * stages;
  CK(cudaFuncSetAttribute(k_bulk_bw, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  k_bulk_bw<<<1, 32, smem>>>(src, size, stages, nchunks, region_chunks, dt, err);
  CKL();
  unsigned long long h;
  CK(cudaMemcpy(&h, dt, sizeof(h), cudaMemcpyDeviceToHost));
  return (double)nchunks * size / (double)h;
}

int main() {
  cudaDeviceProp prop = print_device();
  if (prop.major < 9) {
    printf("SKIP bulk: needs sm_90 (device is sm_%d%d)\n", prop.major, prop.minor);
    return 0;
  }
  const size_t BUF = 1ull << 30;
  char* buf;
  CK(cudaMalloc(&buf, BUF));
  k_fill_int4<<<2048, 256>>>(reinterpret_cast<int4*>(buf), BUF / 16, 11);
  CKL();
  L2Flusher fl;
  fl.init(512ull << 20);
  unsigned long long* dt;
  CK(cudaMalloc(&dt, 1024 * sizeof(unsigned long long)));
  int* err;
  CK(cudaMalloc(&err, sizeof(int)));
  CK(cudaMemset(err, 0, sizeof(int)));
  size_t maxsmem = prop.sharedMemPerBlockOptin;

  const uint32_t sizes[] = {1024, 4096, 16384, 65536};
  char key[128];
  for (uint32_t sz : sizes) {
    const int iters = 64;
    size_t stride = std::max<size_t>(sz, 65536);
    double mn;
    std::vector<double> v;
    for (int r = 0; r < 3; ++r) {
      k_fill_int4<<<256, 256>>>(reinterpret_cast<int4*>(buf), (iters * stride) / 16, r);
      CKL();
      v.push_back(lat_run(buf, sz, iters, stride, dt, err, &mn));
    }
    snprintf(key, sizeof key, "bulk.latency_l2.%uB", sz);
    result(key, median_of(v), "cycles",
           "1 thread: arrive.expect_tx + cp.async.bulk %u B -> try_wait.parity done, L2-resident, median of 3x64 (last-run min %.0f)",
           sz, mn);
    v.clear();
    for (int r = 0; r < 3; ++r) {
      fl.flush();
      v.push_back(lat_run(buf + (64ull << 20) * (r + 1), sz, iters, stride, dt, err, &mn));
    }
    snprintf(key, sizeof key, "bulk.latency_dram.%uB", sz);
    result(key, median_of(v), "cycles",
           "1 thread, %u B bulk copy after L2 flush, median of 3x64 (last-run min %.0f)", sz, mn);
  }
  for (uint32_t sz : sizes) {
    double best_l2 = 0, best_dram = 0;
    for (int st = 1; st <= 4; ++st) {
      if ((size_t)sz * st > maxsmem) {
        info("bulk bw size=%u stages=%d skipped: %zu B > smem opt-in %zu", sz, st,
             (size_t)sz * st, maxsmem);
        continue;
      }
      // L2-resident: 8 MiB region written just before, 4 passes
      size_t region = 8u << 20;
      k_fill_int4<<<256, 256>>>(reinterpret_cast<int4*>(buf), region / 16, st);
      CKL();
      std::vector<double> v;
      for (int r = 0; r < 3; ++r) v.push_back(bw_run(buf, sz, st, 4 * region / sz, region / sz, dt, err));
      double m = median_of(v);
      best_l2 = std::max(best_l2, m);
      snprintf(key, sizeof key, "bulk.bw_l2.%uB.S%d", sz, st);
      result(key, m, "B/clk", "1 block, 1 producer thread, %d stages of %u B, 8MiB L2-resident x4, median of 3", st, sz);
      // cold DRAM: 256 MiB stream
      size_t dregion = 128u << 20;
      v.clear();
      for (int r = 0; r < 2; ++r) {
        fl.flush();
        v.push_back(bw_run(buf + (512ull << 20), sz, st, dregion / sz, dregion / sz, dt, err));
      }
      m = median_of(v);
      best_dram = std::max(best_dram, m);
      snprintf(key, sizeof key, "bulk.bw_dram.%uB.S%d", sz, st);
      result(key, m, "B/clk", "1 block, %d stages of %u B, 128MiB cold stream, median of 2", st, sz);
    }
    snprintf(key, sizeof key, "bulk.bytes_per_clk_l2.%uB", sz);
    result(key, best_l2, "B/clk", "max over 1..4 stages, one block, L2-resident");
    snprintf(key, sizeof key, "bulk.bytes_per_clk_dram.%uB", sz);
    result(key, best_dram, "B/clk", "max over 1..4 stages, one block, cold DRAM");
  }
  int herr = 0;
  CK(cudaMemcpy(&herr, err, sizeof(int), cudaMemcpyDeviceToHost));
  if (herr) printf("ERROR bulk watchdog fired %d times\n", herr);
  CK(cudaFree(buf));
  CK(cudaFree(dt));
  CK(cudaFree(err));
  fl.release();
  printf("DONE bulk\n");
  return 0;
}
