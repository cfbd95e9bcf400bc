// divmod.cu - what an integer modulo costs a warp, and how fast one warp's
// integer multiply-add chains issue (the two statement costs the campaign's
// stage and GEMM errors point at, docs/validation.md):
//   mod.D3.W*    W warps in one block, each thread a dependent chain
//                x = x % 3 + i (64-bit signed, as `smpipe cuda` declares trace
//                variables): cycles per warp-iteration per sub-partition (span
//                x 4 / (iterations x W)); with one warp, the chain's latency;
//                with 8 warps a sub-partition, its issue slots.
//   mod.D4.W*    the same with % 4 (a power of two: a mask and a fix-up).
//   mod.Dvar.W*  the same with a divisor read at run time (3): the division
//                routine.
//   mod.none.W*  the loop alone (x = x + i): what the three above include.
//   imad.C*.W*   W warps, each thread C independent chains of the
//                `mad.lo.u32` the generated CUDA's compute(x, n) runs on every
//                32-bit word: cycles per warp-link per sub-partition.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o divmod divmod.cu
#include "common.cuh"

constexpr int kIters = 512;

// MODE 0: % 3, 1: % 4, 2: % d (run time), 3: no modulo.
template <int MODE>
__global__ void k_mod(long long start, long long d, long long *sink, unsigned long long *out)
{
    long long x = start + threadIdx.x;
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (long long i = 0; i < kIters; ++i) {
        if (MODE == 0) {
            x = x % 3 + i;
        } else if (MODE == 1) {
            x = x % 4 + i;
        } else if (MODE == 2) {
            x = x % d + i;
        } else {
            x = x + i;
        }
    }
    unsigned long long t1 = clk();
    sink[blockDim.x * blockIdx.x + threadIdx.x] = x;
    warp_times(out, t0, t1);
}

template <int C>
__global__ void k_imad(unsigned seed, unsigned *sink, unsigned long long *out)
{
    unsigned w[C];
#pragma unroll
    for (int c = 0; c < C; ++c) {
        w[c] = seed + threadIdx.x * 7u + (unsigned) c;
    }
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = 0; i < 256 / 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
#pragma unroll
            for (int c = 0; c < C; ++c) {
                asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(w[c]) : "r"(1664525u), "r"(1013904223u));
            }
        }
    }
    unsigned long long t1 = clk();
    unsigned s = 0;
#pragma unroll
    for (int c = 0; c < C; ++c) {
        s ^= w[c];
    }
    sink[threadIdx.x] = s;
    warp_times(out, t0, t1);
}

template <int MODE>
static void mod_row(const char *name, const char *op, long long *d_sink, unsigned long long *d_out, std::vector<unsigned long long> &h)
{
    sched_row(strf("mod.%s", name),
              strf("dependent 64-bit x = x%s + i: span per warp-iteration per sub-partition, median of 7", op), kIters,
              [&](int w) { k_mod<MODE><<<1, 32 * w>>>(1000003, 3, d_sink, d_out); }, d_out, h);
}

template <int C>
static void imad_row(unsigned *d_sink, unsigned long long *d_out, std::vector<unsigned long long> &h)
{
    sched_row(strf("imad.C%d", C),
              strf("%d independent mad.lo.u32 chains of 256 links per thread: span per warp-link per sub-partition, median of 7",
                   C),
              256.0 * C, [&](int w) { k_imad<C><<<1, 32 * w>>>(12345u, d_sink, d_out); }, d_out, h);
}

int main()
{
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 2 * 32));
    std::vector<unsigned long long> h(2 * 32);
    long long *d_sink;
    CK(cudaMalloc(&d_sink, sizeof(long long) * 1024));
    unsigned *d_usink;
    CK(cudaMalloc(&d_usink, sizeof(unsigned) * 1024));

    mod_row<0>("D3", " % 3", d_sink, d_out, h);
    mod_row<1>("D4", " % 4", d_sink, d_out, h);
    mod_row<2>("Dvar", " % d (d = 3 at run time)", d_sink, d_out, h);
    mod_row<3>("none", "", d_sink, d_out, h);
    imad_row<1>(d_usink, d_out, h);
    imad_row<2>(d_usink, d_out, h);
    imad_row<4>(d_usink, d_out, h);
    imad_row<8>(d_usink, d_out, h);
    CK(cudaFree(d_out));
    CK(cudaFree(d_sink));
    CK(cudaFree(d_usink));
    return 0;
}
