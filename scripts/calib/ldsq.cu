// ldsq.cu - how many shared-memory loads one warp keeps in flight.
//
// ldsrate.cu's lone warp issues an LDS every 5.4-5.8 cycles when it loads 32
// words a round from a moving base (lds.stage, lds.keep), though one warp can
// issue an instruction a cycle and the shared-memory port takes one warp-LDS a
// cycle.  Either a warp's loads wait for a slot (a bounded number in flight) or
// nvcc's interleaving of the folds makes them wait for their latency.  Here the
// fold waits for all of a round's loads, so only the loads are timed:
//
//  * ldsq.u32.K<k>.W<w>.round: one block of w warps; each round a warp issues k
//    independent ld.shared.u32 (lane-consecutive words, conflict-free) at
//    immediate offsets from a base that moves with the round, XORs them into
//    one value, and the next round's base depends on that value (through a
//    runtime zero), so a round is: k loads, the last result, the fold.
//    Cycles a round, mean over the warps, median of 7 launches.  If a warp keeps
//    at most n loads in flight, the round grows by about the load latency every
//    n loads; if not, by the issue interval a load.
//  * ldsq.v4.K<k>.W<w>.round: the same with ld.shared.v4.u32 (16 bytes a lane,
//    four wavefronts a load).
//  * ldsq.v2.K<k>.W<w>.round: the same with ld.shared.v2.u32 (8 bytes a lane).
//  * ldsq.stu32.K<k>.W<w>.round, ldsq.stv4...: k st.shared.u32 (.v4.u32) a
//    round, rounds independent (nothing waits for a store).
//  * ldsq.free.K32.W<w>.round: u32, k = 32, rounds independent (the base does
//    not wait for the fold): the loads' rate when nothing waits for them.
//  * ldsq.set.<mask>.round: u32, k = 32, one block of 8 warps of which only
//    those in mask run the rounds (warp w on sub-partition w % 4): 0x11 puts
//    two warps on one sub-partition, 0x03 on two; whether the interval
//    belongs to the warp or to its sub-partition.
//  * ldsq.mix.M<m>.round: one warp, u32, k = 16, each load followed by m
//    integer adds that wait for nothing it loads: meant to show whether the
//    warp issues other instructions while its next load waits, but ptxas
//    merges the adds into IADD3s and moves most of them ahead of the loads
//    (ldsq_h200.sass), so these rows do not answer it.
//
// Results (H200, microbench/ldsq_h200.txt): one warp's round grows 4.0 cycles
// a u32 load, 5.1 a v2 and 9.1 a v4 (its stores 4.0-4.6 and 8.8-11); two warps
// on one sub-partition keep 4 each (ldsq.set.0x11), eight reach the port's one
// wavefront a cycle.  arch/h100.ini smem.warp_interval, warp_wave_cycles.
#include "common.cuh"

constexpr int kRounds = 256;

template <int K, int V, bool CHAIN, int M = 0>
__global__ void k_q(int zero, unsigned long long* out, unsigned active = 0xffffffffu) {
  __shared__ __align__(128) uint32_t buf[8192];
  for (int i = threadIdx.x; i < 8192; i += blockDim.x) buf[i] = i * 2654435761u;
  __syncthreads();
  const int lane = threadIdx.x % 32;
  constexpr int WIDTH = V % 100;  // words a lane; V >= 100: stores
  const uint32_t base = smem_u32(buf) + lane * 4 * WIDTH;
  uint32_t sink = 0;
  uint32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const int rounds = (active >> (threadIdx.x / 32)) & 1u ? kRounds : 0;
  unsigned long long t0 = clk();
#pragma unroll 1
  for (int r = 0; r < rounds; ++r) {
    uint32_t b = base + (((uint32_t) r & 1u) << 14);
    if (CHAIN) b += sink & (uint32_t) zero;
    uint32_t x = 0;
    if (V == 1) {
      uint32_t v[K];
#pragma unroll
      for (int j = 0; j < K; ++j) {
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v[j]) : "r"(b + j * 128) : "memory");
#pragma unroll
        for (int i = 0; i < M; ++i) asm volatile("add.u32 %0, %0, %1;" : "+r"(acc[(j * M + i) % 8]) : "r"(r));
      }
#pragma unroll
      for (int j = 0; j < K; ++j) x ^= v[j];
    } else if (V == 2) {
      uint32_t v[K][2];
#pragma unroll
      for (int j = 0; j < K; ++j) {
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v[j][0]), "=r"(v[j][1]) : "r"(b + j * 256) : "memory");
      }
#pragma unroll
      for (int j = 0; j < K; ++j) x ^= v[j][0] ^ v[j][1];
    } else if (V == 101) {
#pragma unroll
      for (int j = 0; j < K; ++j) {
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(b + j * 128), "r"(r + j) : "memory");
      }
    } else if (V == 104) {
#pragma unroll
      for (int j = 0; j < K; ++j) {
        asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(b + j * 512), "r"(r), "r"(j), "r"(r + j),
                     "r"(r ^ j)
                     : "memory");
      }
    } else {
      uint32_t v[K][4];
#pragma unroll
      for (int j = 0; j < K; ++j) {
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v[j][0]), "=r"(v[j][1]), "=r"(v[j][2]), "=r"(v[j][3])
                     : "r"(b + j * 512)
                     : "memory");
      }
#pragma unroll
      for (int j = 0; j < K; ++j) x ^= v[j][0] ^ v[j][1] ^ v[j][2] ^ v[j][3];
    }
    sink += x;
  }
  unsigned long long t1 = clk();
  warp_times(out, t0, t1);
  if ((sink ^ acc[0] ^ acc[1] ^ acc[2] ^ acc[3] ^ acc[4] ^ acc[5] ^ acc[6] ^ acc[7]) == 0x12345u) out[1023] = sink;
}

// Cycles a round of one warp, mean over the running warps (those in
// active), median of 7 launches.
template <int K, int V, bool CHAIN, int M = 0>
static double rounds(int w, unsigned long long* d_out, unsigned active = 0xffffffffu) {
  std::vector<double> per;
  std::vector<unsigned long long> h(2 * w);
  for (int rep = 0; rep < 7; ++rep) {
    k_q<K, V, CHAIN, M><<<1, 32 * w>>>(0, d_out, active);
    CKL();
    CK(cudaMemcpy(h.data(), d_out, h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost));
    double sum = 0;
    int n = 0;
    for (int i = 0; i < w; ++i) {
      if ((active >> i) & 1u) {
        sum += (double)(h[2 * i + 1] - h[2 * i]);
        n++;
      }
    }
    per.push_back(sum / n / kRounds);
  }
  return median_of(per);
}

template <int K, int V>
static void row(int w, unsigned long long* d_out) {
  static const char* names[] = {"", "u32", "v2", "", "v4"};
  static const char* ptx[] = {"", ".u32", ".v2.u32", "", ".v4.u32"};
  if (V >= 100) {
    result(strf("ldsq.st%s.K%d.W%d.round", names[V - 100], K, w), rounds<K, V, false>(w, d_out), "cycles",
           "1 block of %d warps; a round: %d st.shared%s at immediate offsets from a moving base (rounds "
           "independent); cycles a round of one warp",
           w, K, ptx[V - 100]);
    return;
  }
  result(strf("ldsq.%s.K%d.W%d.round", names[V], K, w), rounds<K, V, true>(w, d_out), "cycles",
         "1 block of %d warps; a round: %d independent ld.shared%s at immediate offsets from a moving base, "
         "then their XOR, which the next round's base waits for; cycles a round of one warp",
         w, K, ptx[V]);
}

int main() {
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  info("device=%s sms=%d", prop.name, prop.multiProcessorCount);
  unsigned long long* d_out;
  CK(cudaMalloc(&d_out, 1024 * sizeof(unsigned long long)));
  for (int w : {1, 4, 8}) {
    row<1, 1>(w, d_out);
    row<2, 1>(w, d_out);
    row<3, 1>(w, d_out);
    row<4, 1>(w, d_out);
    row<6, 1>(w, d_out);
    row<8, 1>(w, d_out);
    row<12, 1>(w, d_out);
    row<16, 1>(w, d_out);
    row<24, 1>(w, d_out);
    row<32, 1>(w, d_out);
    row<1, 4>(w, d_out);
    row<2, 4>(w, d_out);
    row<4, 4>(w, d_out);
    row<8, 4>(w, d_out);
    row<16, 4>(w, d_out);
    row<1, 2>(w, d_out);
    row<2, 2>(w, d_out);
    row<4, 2>(w, d_out);
    row<8, 2>(w, d_out);
    row<16, 2>(w, d_out);
    row<4, 101>(w, d_out);
    row<8, 101>(w, d_out);
    row<16, 101>(w, d_out);
    row<32, 101>(w, d_out);
    row<4, 104>(w, d_out);
    row<8, 104>(w, d_out);
    row<16, 104>(w, d_out);
    result(strf("ldsq.free.K32.W%d.round", w), rounds<32, 1, false>(w, d_out), "cycles",
           "the u32 K32 rounds without the wait: the next round's loads do not wait for the fold");
  }
  for (unsigned mask : {0x01u, 0x11u, 0x03u, 0x33u, 0x0fu, 0xffu}) {
    result(strf("ldsq.set.0x%02x.round", mask), rounds<32, 1, true>(8, d_out, mask), "cycles",
           "1 block of 8 warps, those in the mask (warp w on sub-partition w %% 4) running the u32 K32 rounds; "
           "cycles a round, mean over them");
  }
  result("ldsq.mix.M0.round", rounds<16, 1, true, 0>(1, d_out), "cycles",
         "one warp, u32 K16 rounds, each load followed by 0 independent integer adds");
  result("ldsq.mix.M1.round", rounds<16, 1, true, 1>(1, d_out), "cycles", "the same, 1 add after each load");
  result("ldsq.mix.M2.round", rounds<16, 1, true, 2>(1, d_out), "cycles", "the same, 2 adds after each load");
  result("ldsq.mix.M3.round", rounds<16, 1, true, 3>(1, d_out), "cycles", "the same, 3 adds after each load");
  result("ldsq.mix.M4.round", rounds<16, 1, true, 4>(1, d_out), "cycles", "the same, 4 adds after each load");
  result("ldsq.mix.M6.round", rounds<16, 1, true, 6>(1, d_out), "cycles", "the same, 6 adds after each load");
  return 0;
}
