// fillport.cu - do async copies landing in shared memory slow a warp's shared loads?
//
// tiles.cu shows a block's consume phase (shared loads of the stage it waited
// for, then two stores) taking 60-190 cycles longer a batch when the next
// stage's copies are in flight (stages >= 2) than when none are (one stage).
// The simulator lets async-copy fills and warp accesses share one shared-memory
// port, one cycle per 128-byte wavefront (models/smem.h).  This benchmark
// measures what a fill costs a reader:
//
//  * One block of 64 threads alone on an SM: warp 0 copies, warp 1 reads (the
//    two warps sit on different sub-partitions, so they share only the memory
//    pipe and the shared-memory port).
//  * The copier (kind cpa16: cp.async.cg 16 bytes a lane, 512 bytes a warp
//    instruction; cpa4: cp.async.ca 4 bytes a lane, 128 bytes; bulk:
//    cp.async.bulk onto an mbarrier, one elected lane) keeps B instructions (or
//    B bulk copies of 512 bytes) in flight from an L2-resident 4 MiB buffer (read twice before each launch)
//    into its own 32 KiB of shared memory, commits, waits, and goes on, until
//    the reader has finished.  B = 0: the copier only waits for the flag.
//  * The reader starts once the copier has finished four batches and runs R rounds of 16 independent ld.shared.u32 (conflict-free,
//    lane-consecutive words) XORed together and times them with clock64.
//
//  * self: one warp issues B cp.async.cg and times 16 loads right after the
//    commit (D0) or about an L2 latency later (D300), while the fills land.
//
//  * .alone: the same copier while the reader spins on the clock (no loads).
//  * copier.B<b>: one warp alone with a lean, unrolled copy loop: how fast one
//    warp's copies can land at all (about 20 bytes a cycle on an H100).
//
// Results: fillport.<kind>.B<b>.lds (reader cycles per warp ld.shared) and
// .rate (bytes the copier landed per cycle during the reader's window).  The
// extra cycles per load against B0, divided by the fills per load (rate / 128
// per cycle), is what one fill wavefront costs a load.
#include "common.cuh"
#include "mbarrier.cuh"

constexpr int kRounds = 2048;
constexpr int kLds = 16;
constexpr int kRing = 32 * 1024;  // copier's shared ring (a power of two, as is the source: masks, not 64-bit divisions)

__global__ void k_fill(const char* src, size_t src_bytes, int kind, int B, int read, unsigned long long* out, int* err) {
  __shared__ __align__(128) char ring[kRing];
  __shared__ __align__(128) uint32_t rd[kLds * 32];
  __shared__ __align__(8) unsigned long long bar;
  __shared__ volatile int done, started;
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int i = threadIdx.x; i < kLds * 32; i += blockDim.x) rd[i] = i * 2654435761u;
  if (threadIdx.x == 0) {
    done = 0;
    started = B == 0;
    mbar_init(smem_u32(&bar), 1);
    fence_init();
  }
  __syncthreads();
  if (warp == 1) {
    uint32_t base = smem_u32(rd) + lane * 4;
    uint32_t acc = 0;
    unsigned long long t0, t1;
    while (!started) {
    }
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0)::"memory");
#pragma unroll 1
    for (int r = 0; r < kRounds; ++r) {
      if (!read) {  // the same window with no loads: the copier alone
        unsigned long long c0, c1;
        asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0)::"memory");
        do {
          asm volatile("mov.u64 %0, %%clock64;" : "=l"(c1)::"memory");
        } while (c1 - c0 < 40);
        continue;
      }
#pragma unroll
      for (int j = 0; j < kLds; ++j) {
        uint32_t v;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(base + j * 128) : "memory");
        acc ^= v;
      }
    }
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1)::"memory");
    if (lane == 0) {
      out[0] = t0;
      out[1] = t1;
      done = 1;
    }
    if (acc == 0x12345678u) out[7] = acc;
    return;
  }
  // warp 0: the copier.  Copies land in its ring; bytes landed and the clock of
  // each completed batch go to out[2..]: the host keeps those in the window.
  unsigned long long landed = 0;
  size_t off = 0;  // the warp's next source offset
  uint32_t ring0 = smem_u32(ring), parity = 0;
  uint32_t rpos = 0;
  unsigned long long t_start, t_end;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t_start)::"memory");
  while (!done) {
    if (B == 0) {
      continue;
    }
    unsigned long long a;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(a)::"memory");
    int bytes_batch = 0;
    if (kind == 0 || kind == 1) {
      int per = kind == 0 ? 16 : 4;
      for (int b = 0; b < B; ++b) {
        uint32_t dst = ring0 + ((rpos + lane * per) & (kRing - 1));
        const char* g = src + ((off + (size_t)lane * per) & (src_bytes - 1));
        if (kind == 0) {
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(g) : "memory");
        } else {
          asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(g) : "memory");
        }
        rpos = (rpos + 32 * per) & (kRing - 1);
        off += 32 * per;
        bytes_batch += 32 * per;
      }
      asm volatile("cp.async.commit_group;" ::: "memory");
      asm volatile("cp.async.wait_group 0;" ::: "memory");
    } else {
#if HAS_SM90
      if (lane == 0) {
        mbar_arrive_tx(smem_u32(&bar), 512u * B);
        for (int b = 0; b < B; ++b) {
          bulk_g2s(ring0 + rpos, src + (off & (src_bytes - 1)), 512, smem_u32(&bar));
          rpos = (rpos + 512) & (kRing - 1);
          off += 512;
        }
      }
      mbar_wait(smem_u32(&bar), parity, err);
      parity ^= 1;
      bytes_batch = 512 * B;
      rpos = __shfl_sync(0xffffffffu, rpos, 0);
      off = __shfl_sync(0xffffffffu, off, 0);
#endif
    }
    unsigned long long b;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(b)::"memory");
    landed += bytes_batch;
    if (landed >= 4ull * bytes_batch) {
      started = 1;  // the reader starts once the copier runs steadily
    }
    // each batch's start and end clocks; the host keeps those inside the
    // reader's window
    if (lane == 0 && landed / bytes_batch < 4096) {
      out[8 + 2 * (landed / bytes_batch - 1)] = a;
      out[8 + 2 * (landed / bytes_batch - 1) + 1] = b;
    }
  }
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t_end)::"memory");
  if (lane == 0) {
    out[2] = t_start;
    out[3] = t_end;
    out[4] = B ? landed / (unsigned long long)(kind == 2 ? 512 * B : 32 * (kind == 0 ? 16 : 4) * B) : 0;
  }
}

// One warp copies and reads: each round issues B cp.async.cg (16 bytes a lane)
// into its ring, commits, spins `delay` cycles (0, or about the L2 latency so
// that the fills land during the loads), times 16 independent ld.shared.u32,
// then waits for its group.  out[0] = cycles of the timed loads over all rounds.
__global__ void k_self(const char* src, size_t src_bytes, int B, int delay, unsigned long long* out) {
  __shared__ __align__(128) char ring[kRing];
  __shared__ __align__(128) uint32_t rd[kLds * 32];
  int lane = threadIdx.x;
  for (int i = lane; i < kLds * 32; i += 32) rd[i] = i * 2654435761u;
  __syncwarp();
  uint32_t base = smem_u32(rd) + lane * 4, ring0 = smem_u32(ring), rpos = 0, acc = 0;
  size_t off = 0;
  unsigned long long total = 0;
#pragma unroll 1
  for (int r = 0; r < kRounds / 8; ++r) {
    for (int b = 0; b < B; ++b) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(ring0 + ((rpos + lane * 16) & (kRing - 1))),
                   "l"(src + ((off + (size_t)lane * 16) & (src_bytes - 1)))
                   : "memory");
      rpos = (rpos + 512) & (kRing - 1);
      off += 512;
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
    unsigned long long s0, t0, t1;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(s0)::"memory");
    do {
      asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0)::"memory");
    } while (t0 - s0 < (unsigned long long)delay);
#pragma unroll
    for (int j = 0; j < kLds; ++j) {
      uint32_t v;
      asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(base + j * 128) : "memory");
      acc ^= v;
    }
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(base), "r"(acc) : "memory");  // waits for the loads
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1)::"memory");
    total += t1 - t0;
    asm volatile("cp.async.wait_group 0;" ::: "memory");
  }
  if (lane == 0) out[0] = total;
}

// One warp copying alone, as lean as it gets: B cp.async.cg of 512 bytes
// (fully unrolled), commit, wait_group 0, 64 times, from L2.  out[0] = the
// loop's cycles.  It says how fast one warp's copies can land, the most the
// copier above can reach.
template <int B>
__global__ void k_copier(const char* src, size_t src_bytes, unsigned long long* out) {
  __shared__ __align__(128) char ring[kRing];
  int lane = threadIdx.x;
  uint32_t r0 = smem_u32(ring), off = 0;
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0)::"memory");
#pragma unroll 1
  for (int it = 0; it < 64; ++it) {
#pragma unroll
    for (int b = 0; b < B; ++b) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(r0 + ((b * 512 + lane * 16) & (kRing - 1))),
                   "l"(src + ((off + b * 512 + lane * 16) & (src_bytes - 1)))
                   : "memory");
    }
    off += B * 512;
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
  }
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1)::"memory");
  if (lane == 0) out[0] = t1 - t0;
}

template <int B>
static void copier_alone(const char* src, size_t bytes, int* sink, unsigned long long* d_out, int sms) {
  std::vector<double> rate;
  for (int rep = 0; rep < 7; ++rep) {
    k_read<<<sms * 4, 256>>>(src, bytes, sink);
    k_read<<<sms * 4, 256>>>(src, bytes, sink);
    k_copier<B><<<1, 32>>>(src, bytes, d_out);
    CKL();
    unsigned long long h;
    CK(cudaMemcpy(&h, d_out, sizeof h, cudaMemcpyDeviceToHost));
    rate.push_back(64.0 * B * 512 / (double)h);
  }
  result(strf("fillport.copier.B%d.rate", B), median_of(rate), "B/cycle",
         "one warp alone: %d unrolled cp.async.cg of 512 B, commit, wait_group 0, 64 times, L2-resident, median of 7", B);
}

int main() {
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  info("device=%s sms=%d cc=%d.%d", prop.name, prop.multiProcessorCount, prop.major, prop.minor);
  const size_t kSrc = 4ull << 20;
  char* src;
  int* err;
  unsigned long long* d_out;
  const int kOut = 8 + 2 * 4096;
  CK(cudaMalloc(&src, kSrc));
  CK(cudaMalloc(&err, 2 * sizeof(int)));
  CK(cudaMalloc(&d_out, kOut * sizeof(unsigned long long)));
  CK(cudaMemset(src, 3, kSrc));
  CK(cudaMemset(err, 0, 2 * sizeof(int)));
  const char* kinds[] = {"cpa16", "cpa4", "bulk"};
  for (int kind = 0; kind < 3; ++kind) {
    if (kind == 2 && prop.major < 9) continue;
    for (int B : {0, 1, 4, 16, 32, 60}) {
     for (int read : {1, 0}) {
      if (B == 0 && read == 0) continue;
      std::vector<double> lds, rate;
      for (int rep = 0; rep < 7; ++rep) {
        CK(cudaMemset(d_out, 0, kOut * sizeof(unsigned long long)));
        k_read<<<prop.multiProcessorCount * 4, 256>>>(src, kSrc, err + 1);
        k_read<<<prop.multiProcessorCount * 4, 256>>>(src, kSrc, err + 1);
        k_fill<<<1, 64>>>(src, kSrc, kind, B, read, d_out, err);
        CKL();
        std::vector<unsigned long long> h(kOut);
        CK(cudaMemcpy(h.data(), d_out, kOut * sizeof(h[0]), cudaMemcpyDeviceToHost));
        unsigned long long r0 = h[0], r1 = h[1];
        lds.push_back((double)(r1 - r0) / (kRounds * kLds));
        if (B == 0) {
          rate.push_back(0.0);
          continue;
        }
        // bytes of the batches that completed inside the reader's window,
        // over the window from the first such batch's start to the last's end
        long n = (long)std::min<unsigned long long>(h[4], 4096);
        double bytes = 0, w0 = 0, w1 = 0;
        double per = kind == 2 ? 512.0 * B : 32.0 * (kind == 0 ? 16 : 4) * B;
        for (long i = 0; i < n; ++i) {
          unsigned long long a = h[8 + 2 * i], b = h[8 + 2 * i + 1];
          if (a >= r0 && b <= r1) {
            if (w0 == 0) w0 = (double)a;
            w1 = (double)b;
            bytes += per;
          }
        }
        rate.push_back(w1 > w0 ? bytes / (w1 - w0) : 0.0);
      }
      const char* tag = read ? "" : ".alone";
      if (read) {
        result(strf("fillport.%s.B%d.lds", kinds[kind], B), median_of(lds), "cycles",
               "reader warp: cycles per ld.shared.u32 (16 independent a round, %d rounds), median of 7", kRounds);
      }
      result(strf("fillport.%s.B%d%s.rate", kinds[kind], B, tag), median_of(rate), "B/cycle",
             "copier warp: bytes landed per cycle during the reader's window, %d %s in flight%s", B,
             kind == 2 ? "bulk copies of 512 B" : "warp cp.async instructions",
             read ? "" : ", the reader spinning on the clock instead of loading");
     }
    }
  }
  for (int delay : {0, 300}) {
    for (int B : {0, 1, 4, 16}) {
      std::vector<double> per;
      for (int rep = 0; rep < 7; ++rep) {
        k_read<<<prop.multiProcessorCount * 4, 256>>>(src, kSrc, err + 1);
        k_read<<<prop.multiProcessorCount * 4, 256>>>(src, kSrc, err + 1);
        k_self<<<1, 32>>>(src, kSrc, B, delay, d_out);
        CKL();
        unsigned long long h;
        CK(cudaMemcpy(&h, d_out, sizeof h, cudaMemcpyDeviceToHost));
        per.push_back((double)h / (kRounds / 8));
      }
      result(strf("fillport.self.D%d.B%d.block", delay, B), median_of(per), "cycles",
             "one warp: 16 independent ld.shared.u32 and a dependent st.shared, timed %d cycles after committing %d "
             "cp.async.cg of 512 B, median of 7", delay, B);
    }
  }
  copier_alone<1>(src, kSrc, err + 1, d_out, prop.multiProcessorCount);
  copier_alone<4>(src, kSrc, err + 1, d_out, prop.multiProcessorCount);
  copier_alone<16>(src, kSrc, err + 1, d_out, prop.multiProcessorCount);
  copier_alone<60>(src, kSrc, err + 1, d_out, prop.multiProcessorCount);
  int herr = 0;
  CK(cudaMemcpy(&herr, err, sizeof herr, cudaMemcpyDeviceToHost));
  if (herr) printf("ERROR mbarrier wait timed out %d times\n", herr);
  return 0;
}
