// stq.cu - how fast one SM's warps store to L2 (the thirty-second round).
// gemm_tiles at 512 and 1024 threads alone is simulated 20-27% too fast, and
// its batches there store as many bytes as they copy in (about 25 bytes a
// cycle of each on the GPU).  One block of W warps alone on the GPU (grid 1),
// every warp N back-to-back coalesced global stores on distinct lines of an
// L2-resident buffer (warmed by an untimed launch), or alternating a
// 16-byte-a-lane cp.async.cg and a store (mix), median of 7 launches:
//   stq.<st4|st16|mix16>.W*.issue   SM cycles from the first warp's start to
//                                   the last warp's last issue, per warp
//                                   instruction
//   stq.<...>.W*.rate               bytes a cycle stored (mix: stored and
//                                   copied) from the first issue to the last
//                                   warp's end (a release fence after the
//                                   stores; cp.async.wait_all after copies)
// st4: st.global.b32 (128 bytes a warp instruction), st16: st.global.v4.b32
// (512 bytes).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o stq stq.cu
#include "common.cuh"

constexpr int kMaxWarps = 32;
constexpr int kN = 64;

template <int E, bool MIX>
__global__ void k_store(char *dstg, const char *src, unsigned long long *out)
{
    __shared__ alignas(16) char dsts[kMaxWarps * 32 * 16];
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    char *d0 = dstg + ((size_t) warp * kN * 32 + lane) * E;
    const char *s0 = src + ((size_t) warp * kN * 32 + lane) * 16;
    const uint32_t ds = smem_u32(dsts + (warp * 32 + lane) * 16);
    const unsigned v = threadIdx.x;
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll
    for (int i = 0; i < kN; ++i) {
        char *d = d0 + (size_t) i * 32 * E;
        if (MIX) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(ds), "l"(s0 + (size_t) i * 32 * 16)
                         : "memory");
        }
        if (E == 16) {
            asm volatile("st.global.v4.b32 [%0], {%1, %1, %1, %1};" ::"l"(d), "r"(v) : "memory");
        } else {
            asm volatile("st.global.b32 [%0], %1;" ::"l"(d), "r"(v) : "memory");
        }
    }
    unsigned long long t1 = clk();
    asm volatile("cp.async.wait_all;" ::: "memory");
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    unsigned long long t2 = clk();
    if (lane == 0) {
        out[3 * warp] = t0;
        out[3 * warp + 1] = t1;
        out[3 * warp + 2] = t2;
    }
}

template <int E, bool MIX>
static void row(const char *name, char *dstg, const char *src, unsigned long long *d_out)
{
    std::vector<unsigned long long> h(3 * kMaxWarps);
    for (int w : {1, 2, 4, 8, 16, 32}) {
        std::vector<double> issue, rate;
        k_store<E, MIX><<<1, 32 * w>>>(dstg, src, d_out);  // warms L2
        CKL();
        for (int r = 0; r < 7; ++r) {
            k_store<E, MIX><<<1, 32 * w>>>(dstg, src, d_out);
            CKL();
            CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 3 * w, cudaMemcpyDeviceToHost));
            unsigned long long lo = ~0ull, hi1 = 0, hi2 = 0;
            for (int i = 0; i < w; ++i) {
                lo = std::min(lo, h[3 * i]);
                hi1 = std::max(hi1, h[3 * i + 1]);
                hi2 = std::max(hi2, h[3 * i + 2]);
            }
            issue.push_back((double) (hi1 - lo) / (kN * w));
            rate.push_back((double) kN * w * 32 * (E + (MIX ? 16 : 0)) / (double) (hi2 - lo));
        }
        result(strf("stq.%s.W%d.issue", name, w), median_of(issue), "cycles",
               "1 block alone, %d warps, %d %s a warp: SM issue span per warp instruction%s", w, kN,
               E == 16 ? "st.global.v4 (512 B)" : "st.global.b32 (128 B)", MIX ? " (each after a 512-byte cp.async.cg)" : "");
        result(strf("stq.%s.W%d.rate", name, w), median_of(rate), "B/clk",
               "the same: bytes a cycle%s to the last warp's fence", MIX ? " stored and copied" : " stored");
    }
}

int main()
{
    char *dstg, *src;
    unsigned long long *d_out;
    const size_t n = (size_t) kMaxWarps * kN * 32 * 16;
    CK(cudaMalloc(&dstg, n));
    CK(cudaMalloc(&src, n));
    CK(cudaMemset(dstg, 0, n));
    CK(cudaMemset(src, 1, n));
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 3 * kMaxWarps));
    row<4, false>("st4", dstg, src, d_out);
    row<16, false>("st16", dstg, src, d_out);
    row<16, true>("mix16", dstg, src, d_out);
    CK(cudaFree(dstg));
    CK(cudaFree(src));
    CK(cudaFree(d_out));
    return 0;
}
