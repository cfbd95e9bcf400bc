// mmashadow.cu - does integer work between a warp's MMAs cost it anything?
// scripts/calib/cutparts.trace found the GPU's cutlass_multistage k-tile
// without copies as long as its 16 MMAs alone: the loop's control and the
// pipeline calls (about 120 cycles in the model) cost it 4.  Here W warps a
// sub-partition (one block of 4 x W warps) each run 64 iterations of M
// independent mma.sync m16n8k16 f16->f32 (M accumulators, as mma.cu), with A
// integer adds after each MMA (add.s32, volatile, so ptxas keeps them in
// place), on A x M registers of their own (ind) or all on one (dep).
//   mmashadow.M*.A*.W*.ind   cycles an iteration (the median warp's span /
//   mmashadow.M*.A*.W*.dep   64); a W = 4 row whose registers do not fit is
//                            left out (an INFO line says so)
// A = 0 is the MMAs alone (about M x 6.1 from four warps a sub-partition,
// mma.cu); if the adds fill the slots the MMAs leave, the cycles stay flat
// until A + 1 issue slots an MMA exceed them.  (A first version placed X / M
// adds with a loop ptxas did not unroll from 8 a MMA on, and its registers
// went to local memory: not kept.)
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o mmashadow mmashadow.cu
#include "common.cuh"

constexpr int kIters = 64;

template <int M, int A, bool DEP>
__global__ void k_shadow(unsigned seed, float *sink, unsigned long long *out)
{
    unsigned a[4], b[2];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        a[i] = seed ^ (threadIdx.x * 2654435761u + i);
    }
    b[0] = seed + threadIdx.x;
    b[1] = seed - threadIdx.x;
    float d[M][4];
#pragma unroll
    for (int c = 0; c < M; ++c) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            d[c][i] = 0.0f;
        }
    }
    constexpr int X = A * M > 0 ? A * M : 1;
    int r[X];
#pragma unroll
    for (int k = 0; k < X; ++k) {
        r[k] = (int) (seed + threadIdx.x + k);
    }
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = 0; i < kIters; ++i) {
#pragma unroll
        for (int c = 0; c < M; ++c) {
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                         "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                         : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#pragma unroll
            for (int k = 0; k < A; ++k) {
                if (DEP) {
                    asm volatile("add.s32 %0, %0, %1;" : "+r"(r[0]) : "r"(k + 1));
                } else {
                    asm volatile("add.s32 %0, %0, %1;" : "+r"(r[c * A + k]) : "r"(k + 1));
                }
            }
        }
    }
    unsigned long long t1 = clk();
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < M; ++c) {
        s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
    }
    int q = 0;
#pragma unroll
    for (int k = 0; k < X; ++k) {
        q ^= r[k];
    }
    sink[threadIdx.x] = s + (float) q;
    warp_times(out, t0, t1);
}

template <int M, int A, bool DEP>
static void row(float *d_sink, unsigned long long *d_out, std::vector<unsigned long long> &h)
{
    cudaFuncAttributes attr;
    CK(cudaFuncGetAttributes(&attr, k_shadow<M, A, DEP>));
    if (attr.localSizeBytes > 0) {
        info("mmashadow.M%d.A%d.%s: %zu bytes of local memory, left out", M, A, DEP ? "dep" : "ind",
             (size_t) attr.localSizeBytes);
        return;
    }
    for (int w : {1, 4}) {
        const int warps = 4 * w;
        if (attr.numRegs * 32 * warps > 65536) {
            info("mmashadow.M%d.A%d.W%d.%s: %d registers a thread do not fit %d warps, left out", M, A, w,
                 DEP ? "dep" : "ind", attr.numRegs, warps);
            continue;
        }
        std::vector<double> per;
        for (int r = 0; r < 7; ++r) {
            k_shadow<M, A, DEP><<<1, 32 * warps>>>(1u, d_sink, d_out);
            CKL();
            CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 2 * warps, cudaMemcpyDeviceToHost));
            std::vector<double> spans;
            for (int j = 0; j < warps; ++j) {
                spans.push_back((double) (h[2 * j + 1] - h[2 * j]));
            }
            per.push_back(median_of(spans));
        }
        result(strf("mmashadow.M%d.A%d.W%d.%s", M, A, w, DEP ? "dep" : "ind"), median_of(per) / kIters, "cycles",
               "1 block, %d warps a sub-partition, %d independent mma.sync with %d %s adds after each: cycles an "
               "iteration (median warp's span / %d, median of 7 launches)", w, M, A, DEP ? "dependent" : "independent",
               kIters);
    }
}

template <int M>
static void rows(float *d_sink, unsigned long long *d_out, std::vector<unsigned long long> &h)
{
    row<M, 0, false>(d_sink, d_out, h);
    row<M, 1, false>(d_sink, d_out, h);
    row<M, 2, false>(d_sink, d_out, h);
    row<M, 4, false>(d_sink, d_out, h);
    row<M, 6, false>(d_sink, d_out, h);
    row<M, 8, false>(d_sink, d_out, h);
    row<M, 1, true>(d_sink, d_out, h);
    row<M, 2, true>(d_sink, d_out, h);
    row<M, 4, true>(d_sink, d_out, h);
    row<M, 8, true>(d_sink, d_out, h);
}

int main()
{
    print_device();
    float *d_sink;
    unsigned long long *d_out;
    CK(cudaMalloc(&d_sink, sizeof(float) * 1024));
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 2 * 32));
    std::vector<unsigned long long> h(2 * 32);
    rows<4>(d_sink, d_out, h);
    rows<8>(d_sink, d_out, h);
    rows<16>(d_sink, d_out, h);
    CK(cudaFree(d_sink));
    CK(cudaFree(d_out));
    return 0;
}
