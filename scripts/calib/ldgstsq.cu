// ldgstsq.cu - how fast one SM takes cp.async warp instructions of each size
// from L2 (issue 16: "the queue that cp.async issues through"; the thirty-
// second round).  contend.cu's ldgsts.issue measured 4-byte cp.async.ca on one
// L1-resident line (one line a warp instruction); flash_attention's group
// memcpy_async issues 16-byte cp.async.cg, four lines a warp instruction, from
// L2, and flashparts.trace finds its copies in series with the warps' other
// work.  Rows, one block of W warps alone on the GPU (grid 1), every warp N
// back-to-back cp.async on distinct lines of an L2-resident buffer (warmed by
// an untimed launch), median of 7 launches:
//   ldgstsq.issue.E*.N*.W*   SM cycles from the first warp's start to the last
//                            warp's last issue, per warp instruction
//   ldgstsq.land.E*.N*.W*    bytes a cycle from the first issue to the last
//                            warp's wait_all returning
//   ldgstsq.issue.l1.W*      contend.cu's case (4-byte .ca, one L1 line)
// E is the bytes a lane (4 and 8: .ca; 16: .cg, as libcudacxx issues them).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o ldgstsq ldgstsq.cu
#include "common.cuh"

constexpr int kMaxWarps = 16;

template <int E, int N, bool L1>
__global__ void k_copy(const char *src, unsigned long long *out)
{
    __shared__ alignas(16) char dst[2 * kMaxWarps * 32 * E];
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    const uint32_t d0 = smem_u32(dst + (warp * 32 + lane) * E);
    const char *s0 = L1 ? src + lane * E : src + ((size_t) warp * N * 32 + lane) * E;
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll
    for (int i = 0; i < N; ++i) {
        const uint32_t d = d0 + (i & 1) * kMaxWarps * 32 * E;
        const char *s = L1 ? s0 : s0 + (size_t) i * 32 * E;
        if (E == 16) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(s) : "memory");
        } else {
            asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(d), "l"(s), "n"(E) : "memory");
        }
    }
    unsigned long long t1 = clk();
    asm volatile("cp.async.wait_all;" ::: "memory");
    unsigned long long t2 = clk();
    if (lane == 0) {
        out[3 * warp] = t0;
        out[3 * warp + 1] = t1;
        out[3 * warp + 2] = t2;
    }
}

template <int E, int N, bool L1>
static void row(const char *d_src, unsigned long long *d_out)
{
    std::vector<unsigned long long> h(3 * kMaxWarps);
    for (int w : {1, 2, 4, 8, 16}) {
        std::vector<double> issue, land;
        k_copy<E, N, L1><<<1, 32 * w>>>(d_src, d_out);  // warms L2 (and L1)
        CKL();
        for (int r = 0; r < 7; ++r) {
            k_copy<E, N, L1><<<1, 32 * w>>>(d_src, d_out);
            CKL();
            CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 3 * w, cudaMemcpyDeviceToHost));
            unsigned long long lo = ~0ull, hi1 = 0, hi2 = 0;
            for (int i = 0; i < w; ++i) {
                lo = std::min(lo, h[3 * i]);
                hi1 = std::max(hi1, h[3 * i + 1]);
                hi2 = std::max(hi2, h[3 * i + 2]);
            }
            issue.push_back((double) (hi1 - lo) / (N * w));
            land.push_back((double) N * w * 32 * E / (double) (hi2 - lo));
        }
        if (L1) {
            result(strf("ldgstsq.issue.l1.W%d", w), median_of(issue), "cycles",
                   "1 block alone, %d warps, %d cp.async.ca %dB on one L1-resident line: SM issue span per warp instruction",
                   w, N, E);
        } else {
            result(strf("ldgstsq.issue.E%d.N%d.W%d", E, N, w), median_of(issue), "cycles",
                   "1 block alone, %d warps, %d cp.async.%s %dB a lane on distinct L2-resident lines: SM issue span per warp instruction",
                   w, N, E == 16 ? "cg" : "ca", E);
            result(strf("ldgstsq.land.E%d.N%d.W%d", E, N, w), median_of(land), "B/clk",
                   "the same: bytes a cycle from the first issue to the last wait_all", 0);
        }
    }
}

int main()
{
    char *d_src;
    unsigned long long *d_out;
    CK(cudaMalloc(&d_src, (size_t) kMaxWarps * 64 * 32 * 16));
    CK(cudaMemset(d_src, 1, (size_t) kMaxWarps * 64 * 32 * 16));
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 3 * kMaxWarps));
    row<4, 32, true>(d_src, d_out);
    row<4, 32, false>(d_src, d_out);
    row<8, 32, false>(d_src, d_out);
    row<16, 32, false>(d_src, d_out);
    row<16, 8, false>(d_src, d_out);
    row<16, 64, false>(d_src, d_out);
    CK(cudaFree(d_src));
    CK(cudaFree(d_out));
    return 0;
}
