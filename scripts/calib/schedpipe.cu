// schedpipe.cu - does a warp that waits only for its pipe keep the scheduler?
// sched.cu measured two kinds of warps: independent FFMAs (one a cycle; the
// warps of a sub-partition end one after another) and one dependent IMAD
// chain (an IMAD waits 4 cycles for the last; they end together).  Between
// them is a warp with N independent IMAD chains: from N = 2 on, its next
// IMAD is ready whenever the half-rate pipe takes one (every 2 cycles), so
// it never waits for a result, only for the pipe.  phaseq.cu's gemm_tiles
// (4 chains a thread) ends the blocks of one SM far apart.  One block of
// 4 x W warps (W a sub-partition); every warp runs N chains of K / N IMADs
// (mad.lo, volatile, interleaved) and records %clock64 at its start and end.
//   schedpipe.N*.W*.span        median over warps of end - start (cycles)
//   schedpipe.N*.W*.end_spread  latest minus earliest end among one
//                               sub-partition's warps, median over them:
//                               about 0 if they share the pipe in turn,
//                               about (W - 1) / W of the span if the warp
//                               that has the pipe keeps it
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o schedpipe schedpipe.cu
#include "common.cuh"

template <int N, int K>
__global__ void k_chains(int seed, unsigned long long *out)
{
    int x[N];
#pragma unroll
    for (int c = 0; c < N; ++c) {
        x[c] = seed + threadIdx.x + c;
    }
    __syncthreads();
    unsigned long long t0 = clk();
    // (t0 >> 62) is 0, but the compiler cannot know: the chains start after the read.
#pragma unroll
    for (int c = 0; c < N; ++c) {
        x[c] += (int) (t0 >> 62);
    }
    const int a = 1664525 + seed, b = 1013904223;
#pragma unroll
    for (int i = 0; i < K / N; ++i) {
#pragma unroll
        for (int c = 0; c < N; ++c) {
            asm volatile("mad.lo.s32 %0, %0, %1, %2;" : "+r"(x[c]) : "r"(a), "r"(b));
        }
    }
    int s = 0;
#pragma unroll
    for (int c = 0; c < N; ++c) {
        s ^= x[c];
    }
    unsigned long long t1;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1) : "r"(s) : "memory");
    if (threadIdx.x % 32 == 0) {
        int w = threadIdx.x / 32;
        out[3 * w] = t0;
        out[3 * w + 1] = t1;
        out[3 * w + 2] = (unsigned long long) (s == 12345);
    }
}

template <int N, int K>
static void rows(unsigned long long *d_out, std::vector<unsigned long long> &h)
{
    for (int w : {1, 2, 4, 8}) {
        const int warps = 4 * w;
        std::vector<double> span, end_spread;
        for (int r = 0; r < 8; ++r) {
            k_chains<N, K><<<1, 32 * warps>>>(1, d_out);
            CKL();
            CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 3 * warps, cudaMemcpyDeviceToHost));
            if (r == 0) {
                continue;
            }
            for (int sp = 0; sp < 4; ++sp) {
                unsigned long long e_lo = ~0ull, e_hi = 0;
                for (int j = sp; j < warps; j += 4) {
                    span.push_back((double) (h[3 * j + 1] - h[3 * j]));
                    e_lo = std::min(e_lo, h[3 * j + 1]);
                    e_hi = std::max(e_hi, h[3 * j + 1]);
                }
                end_spread.push_back((double) (e_hi - e_lo));
            }
        }
        result(strf("schedpipe.N%d.W%d.span", N, w), median_of(span), "cycles",
               "%d warps a sub-partition, %d independent IMAD chains of %d a warp: start to end", w, N, K / N);
        result(strf("schedpipe.N%d.W%d.end_spread", N, w), median_of(end_spread), "cycles",
               "latest minus earliest end among a sub-partition's warps");
    }
}

int main()
{
    print_device();
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 3 * 32));
    std::vector<unsigned long long> h(3 * 32);
    rows<1, 512>(d_out, h);
    rows<2, 512>(d_out, h);
    rows<4, 512>(d_out, h);
    rows<8, 512>(d_out, h);
    CK(cudaFree(d_out));
    return 0;
}
