// inst.cu - IMAD and FFMA latency and issue interval per SM sub-partition (SMSP).
//
// Method: each thread runs C independent dependent chains  x = x*a + b  (a, b kernel
// arguments, inline PTX mad.lo.u32 / fma.rn.f32, so nothing folds; SASS checked to be
// IMAD / FFMA).  Inner loop unrolled 64x.  Each warp's lane 0 records clock64 before/after;
// elapsed = max(end) - min(start) over the block (one block, one SM).
//   latency  = elapsed / (64*n)                with 1 warp, C = 1
//   interval = elapsed / (C*64*n*warps_per_smsp) with 4 warps (1 per SMSP; warps are assigned
//              to SMSPs by warp id % 4) or 32 warps (8 per SMSP).
#include "common.cuh"

template <int OP, int C>
__global__ void k_inst(int n, uint32_t a, uint32_t b, float fa, float fb,
                       unsigned long long* times, uint32_t* sink) {
  uint32_t x[C];
  float f[C];
#pragma unroll
  for (int c = 0; c < C; ++c) {
    x[c] = threadIdx.x * 7 + c;
    f[c] = (float)(threadIdx.x + c) * 0.5f;
  }
  __syncthreads();
  unsigned long long t0 = clk();
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
#pragma unroll
    for (int u = 0; u < 64; ++u) {
#pragma unroll
      for (int c = 0; c < C; ++c) {
        if (OP == 0)
          asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x[c]) : "r"(a), "r"(b));
        else
          asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f[c]) : "f"(fa), "f"(fb));
      }
    }
  }
  unsigned long long t1 = clk();
  uint32_t acc = 0;
#pragma unroll
  for (int c = 0; c < C; ++c) acc ^= (OP == 0) ? x[c] : __float_as_uint(f[c]);
  sink[threadIdx.x] = acc;
  if ((threadIdx.x & 31) == 0) {
    times[2 * (threadIdx.x / 32)] = t0;
    times[2 * (threadIdx.x / 32) + 1] = t1;
  }
}

template <int OP, int C>
static double run_inst(int threads, int n, unsigned long long* dt, uint32_t* ds) {
  k_inst<OP, C><<<1, threads>>>(n, 0x9E3779B1u, 12345u, 0.999f, 0.001f, dt, ds);
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

template <int OP>
static void family(const char* name, unsigned long long* dt, uint32_t* ds) {
  const int n = 256;  // 64*256 = 16384 instructions per chain
  const double per = 64.0 * n;
  auto med = [&](auto fn) {
    std::vector<double> v;
    for (int r = 0; r < 5; ++r) v.push_back(fn());
    return median_of(v);
  };
  char key[96];
  double lat = med([&] { return run_inst<OP, 1>(32, n, dt, ds); }) / per;
  snprintf(key, sizeof key, "inst.%s.latency", name);
  result(key, lat, "cycles", "1 warp, one dependent chain, 16384 ops, median of 5");

  double i1 = med([&] { return run_inst<OP, 1>(128, n, dt, ds); }) / (1 * per);
  double i2 = med([&] { return run_inst<OP, 2>(128, n, dt, ds); }) / (2 * per);
  double i4 = med([&] { return run_inst<OP, 4>(128, n, dt, ds); }) / (4 * per);
  double i8 = med([&] { return run_inst<OP, 8>(128, n, dt, ds); }) / (8 * per);
  snprintf(key, sizeof key, "inst.%s.interval_1w_c1", name);
  result(key, i1, "cycles", "4 warps (1/SMSP), 1 chain each: cycles per warp instr per SMSP");
  snprintf(key, sizeof key, "inst.%s.interval_1w_c2", name);
  result(key, i2, "cycles", "4 warps (1/SMSP), 2 chains");
  snprintf(key, sizeof key, "inst.%s.interval_1w_c4", name);
  result(key, i4, "cycles", "4 warps (1/SMSP), 4 chains");
  snprintf(key, sizeof key, "inst.%s.interval_1w_c8", name);
  result(key, i8, "cycles", "4 warps (1/SMSP), 8 chains");
  double im = med([&] { return run_inst<OP, 4>(1024, n, dt, ds); }) / (8 * 4 * per);
  snprintf(key, sizeof key, "inst.%s.interval_8w_c4", name);
  result(key, im, "cycles", "32 warps (8/SMSP) x 4 chains: cycles per warp instr per SMSP");
  double single8 = med([&] { return run_inst<OP, 8>(32, n, dt, ds); }) / (8 * per);
  snprintf(key, sizeof key, "inst.%s.interval_single_warp_c8", name);
  result(key, single8, "cycles", "1 warp total, 8 chains");
  double best = std::min(std::min(i4, i8), im);
  snprintf(key, sizeof key, "inst.%s.interval", name);
  result(key, best, "cycles",
         "min over {1 warp/SMSP x 4 or 8 chains, 8 warps/SMSP x 4 chains}: issue interval of independent warp instrs on one SMSP");
}

int main() {
  print_device();
  unsigned long long* dt;
  uint32_t* ds;
  CK(cudaMalloc(&dt, 64 * sizeof(unsigned long long)));
  CK(cudaMalloc(&ds, 1024 * sizeof(uint32_t)));
  // warm up clocks
  k_inst<1, 4><<<1, 1024>>>(4096, 3, 5, 0.999f, 0.001f, dt, ds);
  CKL();
  family<0>("imad", dt, ds);
  family<1>("ffma", dt, ds);
  CK(cudaFree(dt));
  CK(cudaFree(ds));
  printf("DONE inst\n");
  return 0;
}
