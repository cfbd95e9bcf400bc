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
//  * lds.stage.W<w>: loads at immediate offsets from a base that moves with the
//    round (a stage: (r & 1) x 16 KiB), as the campaign's gemm_tiles consume
//    loop has them (microbench/gemm_tiles_t64_s2.sass), folded into eight
//    sums. (lds.imm's base does not move: ptxas hoists its loads out of the
//    round loop, and those rows time the fold alone.)
//  * lds.keep.W<w>: the lds.stage loads, each XORed into one sink as soon as it
//    is loaded, as `smpipe cuda` keeps compute results (sim/drivers/
//    cuda_kernel.c keep_result; nvcc merges two into a LOP3 0x96): one
//    dependent chain through the loads, scheduled by nvcc.
//  * lds.fill<K>.W<w>.round: each round, each warp first issues K KiB of
//    cp.async.cg (16 bytes a lane, from an L2-resident buffer) into another
//    part of shared memory, then runs lds.stage's 32 loads and waits for the
//    copies: the copies' writes land in shared memory while the loads run, as
//    the next stages' do during a pipelined consume.  lds.fillonly<K>: the
//    copies and the wait without the loads; lds.stage.W<w>.round: the loads
//    alone.  Cycles a round, mean over the warps.
//
// Results: cycles per warp-LDS for one warp (the warp's own issue interval) and
// the SM's LDS per cycle with w warps (the shared-memory pipe's rate), medians of
// 7 launches; each warp's loop is timed with clock64 and the block's span is the
// first start to the last end.
#include "common.cuh"

constexpr int kRounds = 64;
constexpr int kPer = 32;

// MODE 0: immediate offsets, folded into eight sums; 1: computed addresses,
// the same; 2: a stage base, each load XORed into one sink (lds.keep); 3: a
// stage base, folded into eight sums (lds.stage).
template <int MODE>
__global__ void k_lds(int k, unsigned long long* out) {
  __shared__ __align__(128) uint32_t buf[8192];
  for (int i = threadIdx.x; i < 8192; i += blockDim.x) buf[i] = i * 2654435761u;
  __syncthreads();
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  uint32_t base = smem_u32(buf);
  uint32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // eight chains: the fold never waits on its own latency
  uint32_t sink = 0;                             // lds.keep's one chain
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0)::"memory");
#pragma unroll 1
  for (int r = 0; r < kRounds; ++r) {
    uint32_t v[kPer];
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      uint32_t a;
      if (MODE == 1) {
        a = base + ((((uint32_t)(r * kPer + j) * 32u + lane + k) & 8191u) << 2);
      } else if (MODE >= 2) {
        a = base + (((uint32_t) r & 1u) << 14) + lane * 4 + j * 128;
      } else {
        a = base + lane * 4 + j * 128;
      }
      asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v[j]) : "r"(a) : "memory");
      if (MODE == 2) {
        sink ^= v[j];
      }
    }
    if (MODE != 2) {
#pragma unroll
      for (int j = 0; j < kPer; ++j) acc[j % 8] += v[j] * (j + 1);
    }
  }
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1)::"memory");
  if (lane == 0) {
    out[2 * warp] = t0;
    out[2 * warp + 1] = t1;
  }
  uint32_t all = acc[0] ^ acc[1] ^ acc[2] ^ acc[3] ^ acc[4] ^ acc[5] ^ acc[6] ^ acc[7] ^ sink;
  if (all == 0x12345u) out[1023] = all;
}

// lds.fill / lds.fillonly: KIB x 1 KiB of copies a warp a round (2 x KIB
// cp.async of 512 bytes, unrolled: a trip count known at compile time, as
// the campaign's tile loops have), then the 32 loads when LDS, then the wait.
template <bool LDS, int KIB>
__global__ void k_fill(const char* src, unsigned long long* out) {
  const int kib = KIB;
  __shared__ __align__(128) uint32_t buf[8192];
  extern __shared__ __align__(128) char fill[];
  for (int i = threadIdx.x; i < 8192; i += blockDim.x) buf[i] = i * 2654435761u;
  __syncthreads();
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  uint32_t base = smem_u32(buf);
  uint32_t dst = smem_u32(fill) + (uint32_t)(warp * kib * 1024 + lane * 16);
  uint32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0)::"memory");
#pragma unroll 1
  for (int r = 0; r < kRounds; ++r) {
    const char* from = src + ((size_t)(r % 16) * 32 + warp) * 16384 + lane * 16;
#pragma unroll
    for (int c = 0; c < 2 * KIB; ++c) {
      cpa_cg16(dst + c * 512, from + c * 512);
    }
    cpa_commit();
    if (LDS) {
      uint32_t v[kPer];
#pragma unroll
      for (int j = 0; j < kPer; ++j) {
        uint32_t a = base + (((uint32_t) r & 1u) << 14) + lane * 4 + j * 128;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v[j]) : "r"(a) : "memory");
      }
#pragma unroll
      for (int j = 0; j < kPer; ++j) acc[j % 8] += v[j] * (j + 1);
    }
    cpa_wait<0>();
  }
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1)::"memory");
  if (lane == 0) {
    out[2 * warp] = t0;
    out[2 * warp + 1] = t1;
  }
  uint32_t all = acc[0] ^ acc[1] ^ acc[2] ^ acc[3] ^ acc[4] ^ acc[5] ^ acc[6] ^ acc[7];
  if (all == 0x12345u) out[1023] = all;
}

// The mean over w warps of one warp's cycles a round (out as k_lds writes it).
static double round_cycles(const unsigned long long* d_out, int w) {
  std::vector<unsigned long long> h(2 * w);
  CK(cudaMemcpy(h.data(), d_out, h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost));
  double mean = 0;
  for (int i = 0; i < w; ++i) mean += (double)(h[2 * i + 1] - h[2 * i]) / w;
  return mean / kRounds;
}

// One k_fill launch of w warps: with the loads or without, kib KiB a warp.
static void launch_fill(bool lds, int kib, int w, const char* d_src, unsigned long long* d_out) {
  const size_t shmem = (size_t) w * kib * 1024;
  if (lds && kib == 1) {
    k_fill<true, 1><<<1, 32 * w, shmem>>>(d_src, d_out);
  } else if (lds) {
    k_fill<true, 4><<<1, 32 * w, shmem>>>(d_src, d_out);
  } else if (kib == 1) {
    k_fill<false, 1><<<1, 32 * w, shmem>>>(d_src, d_out);
  } else {
    k_fill<false, 4><<<1, 32 * w, shmem>>>(d_src, d_out);
  }
  CKL();
}

int main() {
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  info("device=%s sms=%d", prop.name, prop.multiProcessorCount);
  unsigned long long* d_out;
  CK(cudaMalloc(&d_out, 1024 * sizeof(unsigned long long)));
  for (int mode = 0; mode < 4; ++mode) {
    for (int w : {1, 2, 4, 8, 16, 32}) {
      std::vector<double> per_warp, sm_rate;
      for (int rep = 0; rep < 7; ++rep) {
        if (mode == 0) {
          k_lds<0><<<1, 32 * w>>>(0, d_out);
        } else if (mode == 1) {
          k_lds<1><<<1, 32 * w>>>(0, d_out);
        } else if (mode == 2) {
          k_lds<2><<<1, 32 * w>>>(0, d_out);
        } else {
          k_lds<3><<<1, 32 * w>>>(0, d_out);
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
      static const char* whats[] = {"imm", "addr", "keep", "stage"};
      static const char* hows[] = {"immediate offsets", "addresses computed in the loop",
                                   "immediate offsets from a moving base, each XORed into one sink",
                                   "immediate offsets from a moving base"};
      result(strf("lds.%s.W%d.warp", whats[mode], w), median_of(per_warp), "cycles",
             "1 block of %d warps, %d rounds of %d independent ld.shared.u32 (%s), cycles per LDS of one warp", w,
             kRounds, kPer, hows[mode]);
      result(strf("lds.%s.W%d.sm", whats[mode], w), median_of(sm_rate), "LDS/cycle",
             "the same: the SM's warp-LDS per cycle, first start to last end");
    }
  }
  // lds.fill rows: 1 and 4 KiB of copies a warp a round; w up to 8 (32 KiB of
  // fill space at 4 KiB a warp), the source 16 x 32 x 16 KiB, L2-resident
  // after the first launch
  char* d_src;
  CK(cudaMalloc(&d_src, (size_t) 16 * 32 * 16384));
  CK(cudaMemset(d_src, 1, (size_t) 16 * 32 * 16384));
  CK(cudaFuncSetAttribute(k_fill<true, 1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
  CK(cudaFuncSetAttribute(k_fill<false, 1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
  CK(cudaFuncSetAttribute(k_fill<true, 4>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
  CK(cudaFuncSetAttribute(k_fill<false, 4>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
  for (int kib : {1, 4}) {
    for (int w : {1, 2, 4, 8}) {
      std::vector<double> with, without;
      for (int rep = 0; rep < 8; ++rep) {
        launch_fill(true, kib, w, d_src, d_out);
        if (rep > 0) with.push_back(round_cycles(d_out, w));
        launch_fill(false, kib, w, d_src, d_out);
        if (rep > 0) without.push_back(round_cycles(d_out, w));
      }
      result(strf("lds.fill%d.W%d.round", kib, w), median_of(with), "cycles",
             "1 block of %d warps, each round %d KiB of cp.async.cg a warp from L2, then 32 ld.shared.u32 from a "
             "moving base, then wait_group 0: cycles a round of one warp (mean), median of 7 launches", w, kib);
      result(strf("lds.fillonly%d.W%d.round", kib, w), median_of(without), "cycles",
             "the same without the loads");
    }
  }
  for (int w : {1, 2, 4, 8}) {
    std::vector<double> alone;
    for (int rep = 0; rep < 7; ++rep) {
      k_lds<3><<<1, 32 * w>>>(0, d_out);
      CKL();
      alone.push_back(round_cycles(d_out, w));
    }
    result(strf("lds.stage.W%d.round", w), median_of(alone), "cycles",
           "lds.stage's 32 loads alone: cycles a round of one warp (mean), median of 7 launches");
  }
  CK(cudaFree(d_src));
  return 0;
}
