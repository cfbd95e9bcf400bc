// waitn.cu - what cp.async.wait_group N costs when nothing it waits for is
// in flight, by N.  extra.cu times an empty commit_group + wait_group 0 at
// 51 cycles a pair (arch cp_async.wait_prior_cycles); loadedl2.cu's lone warp
// with 16 groups in flight, whose oldest landed long before each wait, turns
// a copy loop (wait_group 15, cp.async, commit) in about 46 cycles.
//   waitn.empty.N*   one warp: commit_group (no copies) + wait_group N, per
//                    pair, N = 0, 1, 2, 4, 7 (cycles, median of 7 launches)
//   waitn.copy.N*    one warp: wait_group N, one 16-byte-a-lane cp.async.cg
//                    from a line in L2, commit_group, per iteration, with
//                    N + 1 groups in flight after the first N + 1 iterations
//                    (N = 0: the copy's round trip; N = 7 and up: the wait
//                    finds its group landed if the round trip is under
//                    N x the iteration)
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o waitn waitn.cu
#include "common.cuh"

constexpr int kPairs = 256;

template <int N>
__global__ void k_empty(unsigned long long *out)
{
    for (int i = 0; i < N; ++i) {
        cpa_commit();
    }
    __syncwarp();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = 0; i < kPairs; ++i) {
        cpa_commit();
        cpa_wait<N>();
    }
    unsigned long long t1 = clk();
    if (threadIdx.x == 0) {
        out[0] = t1 - t0;
    }
}

template <int N>
__global__ void k_copy(const char *src, unsigned long long *out)
{
    __shared__ __align__(16) char ring[(N + 1) * 512];
    const uint32_t dst = smem_u32(ring + threadIdx.x * 16);
    const char *from = src + threadIdx.x * 16;
    for (int i = 0; i <= N; ++i) {
        cpa_cg16(dst + (i % (N + 1)) * 512, from + (size_t) (i % 64) * 512);
        cpa_commit();
    }
    __syncwarp();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = N + 1; i < N + 1 + kPairs; ++i) {
        cpa_wait<N>();
        cpa_cg16(dst + (i % (N + 1)) * 512, from + (size_t) (i % 64) * 512);
        cpa_commit();
    }
    cpa_wait<0>();
    unsigned long long t1 = clk();
    if (threadIdx.x == 0) {
        out[0] = t1 - t0;
    }
}

template <int N>
static void rows(const char *d_src, unsigned long long *d_out)
{
    unsigned long long h = 0;
    std::vector<double> e, c;
    for (int r = 0; r < 8; ++r) {
        k_empty<N><<<1, 32>>>(d_out);
        CKL();
        CK(cudaMemcpy(&h, d_out, sizeof h, cudaMemcpyDeviceToHost));
        if (r > 0) {
            e.push_back((double) h / kPairs);
        }
        k_copy<N><<<1, 32>>>(d_src, d_out);
        CKL();
        CK(cudaMemcpy(&h, d_out, sizeof h, cudaMemcpyDeviceToHost));
        if (r > 0) {
            c.push_back((double) h / kPairs);
        }
    }
    char key[64];
    snprintf(key, sizeof key, "waitn.empty.N%d", N);
    result(key, median_of(e), "cycles", "1 warp: cp.async.commit_group (no copies) + cp.async.wait_group %d, per pair", N);
    snprintf(key, sizeof key, "waitn.copy.N%d", N);
    result(key, median_of(c), "cycles",
           "1 warp: wait_group %d, one cp.async.cg of 16 B a lane from L2 (64 lines reused), commit_group, per iteration", N);
}

int main()
{
    char *d_src;
    CK(cudaMalloc(&d_src, 64 * 512));
    CK(cudaMemset(d_src, 1, 64 * 512));
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, sizeof(unsigned long long)));
    rows<0>(d_src, d_out);
    rows<1>(d_src, d_out);
    rows<2>(d_src, d_out);
    rows<4>(d_src, d_out);
    rows<7>(d_src, d_out);
    rows<15>(d_src, d_out);
    CK(cudaFree(d_src));
    CK(cudaFree(d_out));
    return 0;
}
