// mma.cu - what a warp's mma.sync chain costs (inst.hmma; the
// cutlass_multistage and flash_attention traces' compute(hmma, ...)):
//   hmma.C*.W*   W warps in one block, each warp C independent chains of
//                mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 (the
//                instruction `smpipe cuda` generates for the hmma class), each
//                link accumulating into the chain's own f32 fragment: cycles
//                per warp-link per sub-partition.  C1.W1 is the dependent
//                latency; W16-32 (4-8 warps a scheduler) the issue interval.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o mma mma.cu
#include "common.cuh"

constexpr int kLinks = 256;

template <int C>
__global__ void k_hmma(unsigned seed, float *sink, unsigned long long *out)
{
    unsigned a[4], b[2];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        a[i] = seed ^ (threadIdx.x * 2654435761u + i);
    }
    b[0] = seed + threadIdx.x;
    b[1] = seed - threadIdx.x;
    float d[C][4];
#pragma unroll
    for (int c = 0; c < C; ++c) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            d[c][i] = 0.0f;
        }
    }
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = 0; i < kLinks / 4; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
#pragma unroll
            for (int c = 0; c < C; ++c) {
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                             "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                             : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
            }
        }
    }
    unsigned long long t1 = clk();
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < C; ++c) {
        s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
    }
    sink[threadIdx.x] = s;
    warp_times(out, t0, t1);
}

template <int C>
static void row(float *d_sink, unsigned long long *d_out, std::vector<unsigned long long> &h)
{
    sched_row(strf("hmma.C%d", C),
              strf("%d independent m16n8k16 f16->f32 mma.sync chains of %d links per warp: span per warp-link per "
                   "sub-partition, median of 7", C, kLinks),
              (double) kLinks * C, [&](int w) { k_hmma<C><<<1, 32 * w>>>(12345u, d_sink, d_out); }, d_out, h);
}

int main()
{
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 2 * 32));
    std::vector<unsigned long long> h(2 * 32);
    float *d_sink;
    CK(cudaMalloc(&d_sink, sizeof(float) * 1024));
    row<1>(d_sink, d_out, h);
    row<2>(d_sink, d_out, h);
    row<4>(d_sink, d_out, h);
    row<8>(d_sink, d_out, h);
    CK(cudaFree(d_out));
    CK(cudaFree(d_sink));
    return 0;
}
