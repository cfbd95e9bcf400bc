// wback.cu - when stores reach DRAM: after an L2 flush, or behind launches that
// left their own dirty lines.  Every SM streams N cp.async copies a warp from
// DRAM (one block of 16 warps, 4 cp.async.cg groups of 512 bytes in flight a
// warp, as rwmix.cu's M1) and stores each landed copy to a second buffer, so
// that an SM reads and writes N x 8 KiB.  Two ways to launch it:
//   wback.N*.flushed  the L2 flushed (written back and emptied) before each
//                     launch: a dirty line reaches DRAM only when a later line
//                     evicts it, so what a launch writes last stays in L2
//   wback.N*.stream   launches back to back without a flush, each on fresh
//                     addresses: each launch evicts the dirty lines the one
//                     before left, as many as it leaves
// value: bytes read a cycle an SM (block span, median over SMs and 5 runs).
// The L2 holds 50 MiB (H100): written bytes a launch pass it at N = 48.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o wback wback.cu
#include "common.cuh"

constexpr int kWarps = 16;
constexpr int kS = 4;                  // groups in flight a warp
constexpr size_t kBuf = 3ull << 30;    // bytes of each buffer

// k_rw<4, 1> of rwmix.cu with the copy count and a base address as
// arguments (both buffers advance together).  Not shared with rwmix.cu or
// loaded.cu, for rwmix.cu's reason: a common helper changes their compiled
// timed loops, and their committed results must stay what they measured.
__global__ void k_wback(const char *buf, char *dst, size_t base, int iters, unsigned long long *out)
{
    extern __shared__ __align__(16) char smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const size_t stride = (size_t) gridDim.x * kWarps * 512;
    const char *src = buf + base + ((size_t) blockIdx.x * kWarps + warp) * 512 + lane * 16;
    char *to = dst + base + ((size_t) blockIdx.x * kWarps + warp) * 512 + lane * 16;
    const int4 *slot = (const int4 *) (smem + warp * kS * 512 + lane * 16);
    const uint32_t ring = smem_u32(smem + warp * kS * 512 + lane * 16);
    for (int i = 0; i < kS; ++i) {
        cpa_cg16(ring + (i % kS) * 512, src + (size_t) i * stride);
        cpa_commit();
    }
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = kS; i < kS + iters; ++i) {
        cpa_wait<kS - 1>();
        int4 v = slot[((i - kS) % kS) * 32];
        asm volatile("st.global.cg.v4.s32 [%0], {%1, %2, %3, %4};" ::"l"(to + (size_t) (i - kS) * stride), "r"(v.x),
                     "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
        cpa_cg16(ring + (i % kS) * 512, src + (size_t) i * stride);
        cpa_commit();
    }
    cpa_wait<0>();
    __syncthreads();
    unsigned long long t1 = clk();
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = t0;
        out[2 * blockIdx.x + 1] = t1;
    }
}

int main()
{
    print_device();
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    char *d_buf, *d_dst;
    CK(cudaMalloc(&d_buf, kBuf));
    CK(cudaMalloc(&d_dst, kBuf));
    CK(cudaMemset(d_buf, 1, kBuf));
    CK(cudaMemset(d_dst, 0, kBuf));
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 2 * sms));
    std::vector<unsigned long long> h(2 * sms);
    L2Flusher fl;
    fl.init(128ull << 20);
    const int smem = kWarps * kS * 512;
    CK(cudaFuncSetAttribute(k_wback, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    size_t base = 0;
    for (int n : {16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024}) {
        const size_t bytes_run = (size_t) sms * kWarps * 512 * (kS + n);
        for (int flushed = 1; flushed >= 0; --flushed) {
            std::vector<double> per;
            for (int r = 0; r < 6; ++r) {
                if (base + bytes_run > kBuf) {
                    base = 0;
                }
                if (flushed) {
                    fl.flush();
                }
                k_wback<<<sms, 32 * kWarps, smem>>>(d_buf, d_dst, base, n, d_out);
                CKL();
                base += bytes_run;
                if (r == 0) {
                    continue;  // warm-up launch (and, back to back, the one whose lines the next evicts)
                }
                CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 2 * sms, cudaMemcpyDeviceToHost));
                std::vector<double> spans;
                for (int b = 0; b < sms; ++b) {
                    spans.push_back((double) (h[2 * b + 1] - h[2 * b]));
                }
                per.push_back(median_of(spans));
            }
            double rate = (double) kWarps * 512 * n / median_of(per);
            result(strf("wback.N%d.%s", n, flushed ? "flushed" : "stream"), rate, "bytes/cycle",
                   "%d SMs x 1 block of %d warps, %d cp.async.cg groups of 512 B in flight a warp, %d copies a warp "
                   "from DRAM, each stored again (%.1f MiB written a launch), %s: bytes read a cycle an SM, median over "
                   "SMs and 5 runs",
                   sms, kWarps, kS, n, (double) sms * kWarps * 512 * n / (1 << 20),
                   flushed ? "L2 flushed before each launch" : "launches back to back on fresh addresses");
        }
    }
    CK(cudaFree(d_buf));
    CK(cudaFree(d_dst));
    CK(cudaFree(d_out));
    fl.release();
    return 0;
}
