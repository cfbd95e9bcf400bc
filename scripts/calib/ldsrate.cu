// ldsrate.cu - how fast warps issue shared-memory loads, alone and together.
//
// The campaign's consume loops (gemm_tiles: 16 unrolled passes of two LDS, each
// after a LOP3 and a LEA for its address) take about 7 cycles an LDS for a warp
// alone on its sub-partition (tiles.cu), where issuing one instruction a cycle
// would take 3.  This measures the pieces:
//
//  * lds.imm.W<w>: one block of w warps; each warp runs 64 rounds of 32
//    independent ld.shared.u32 at immediate offsets from one base register
//    (conflict-free: lane-consecutive words), into 32 registers, then folds them
//    with one IMAD each into eight independent sums (no chain waits on itself).
//  * lds.addr.W<w>: the same loads, each at an address computed in the loop
//    ((i * 32 + lane + k) & mask, scaled and added to the base: the LOP3/IADD and
//    LEA the gemm consume loop has), k a runtime zero the compiler cannot fold.
//
// Results: cycles per warp-LDS for one warp (the warp's own issue interval) and
// the SM's LDS per cycle with w warps (the shared-memory pipe's rate), medians of
// 7 launches; each warp's loop is timed with clock64 and the block's span is the
// first start to the last end.
#include "common.cuh"

constexpr int kRounds = 64;
constexpr int kPer = 32;

template <bool ADDR>
__global__ void k_lds(int k, unsigned long long* out) {
  __shared__ __align__(128) uint32_t buf[8192];
  for (int i = threadIdx.x; i < 8192; i += blockDim.x) buf[i] = i * 2654435761u;
  __syncthreads();
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  uint32_t base = smem_u32(buf);
  uint32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // eight chains: the fold never waits on its own latency
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0)::"memory");
#pragma unroll 1
  for (int r = 0; r < kRounds; ++r) {
    uint32_t v[kPer];
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      uint32_t a;
      if (ADDR) {
        a = base + ((((uint32_t)(r * kPer + j) * 32u + lane + k) & 8191u) << 2);
      } else {
        a = base + lane * 4 + j * 128;
      }
      asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v[j]) : "r"(a) : "memory");
    }
#pragma unroll
    for (int j = 0; j < kPer; ++j) acc[j % 8] += v[j] * (j + 1);
  }
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1)::"memory");
  if (lane == 0) {
    out[2 * warp] = t0;
    out[2 * warp + 1] = t1;
  }
  uint32_t all = acc[0] ^ acc[1] ^ acc[2] ^ acc[3] ^ acc[4] ^ acc[5] ^ acc[6] ^ acc[7];
  if (all == 0x12345u) out[1023] = all;
}

int main() {
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  info("device=%s sms=%d", prop.name, prop.multiProcessorCount);
  unsigned long long* d_out;
  CK(cudaMalloc(&d_out, 1024 * sizeof(unsigned long long)));
  for (int addr = 0; addr < 2; ++addr) {
    for (int w : {1, 2, 4, 8, 16, 32}) {
      std::vector<double> per_warp, sm_rate;
      for (int rep = 0; rep < 7; ++rep) {
        if (addr) {
          k_lds<true><<<1, 32 * w>>>(0, d_out);
        } else {
          k_lds<false><<<1, 32 * w>>>(0, d_out);
        }
        CKL();
        std::vector<unsigned long long> h(2 * w);
        CK(cudaMemcpy(h.data(), d_out, h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost));
        unsigned long long first = ~0ull, last = 0;
        double mean = 0;
        for (int i = 0; i < w; ++i) {
          first = std::min(first, h[2 * i]);
          last = std::max(last, h[2 * i + 1]);
          mean += (double)(h[2 * i + 1] - h[2 * i]) / w;
        }
        per_warp.push_back(mean / (kRounds * kPer));
        sm_rate.push_back((double)w * kRounds * kPer / (double)(last - first));
      }
      const char* what = addr ? "addr" : "imm";
      result(strf("lds.%s.W%d.warp", what, w), median_of(per_warp), "cycles",
             "1 block of %d warps, %d rounds of %d independent ld.shared.u32 (%s), cycles per LDS of one warp", w,
             kRounds, kPer, addr ? "addresses computed in the loop" : "immediate offsets");
      result(strf("lds.%s.W%d.sm", what, w), median_of(sm_rate), "LDS/cycle",
             "the same: the SM's warp-LDS per cycle, first start to last end");
    }
  }
  return 0;
}
