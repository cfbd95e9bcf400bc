// schedblk.cu - do the blocks of one SM share its schedulers in turn, or does
// the oldest block go first?  schedpipe.cu: warps of one block that wait only
// for the IMAD pipe share it in turn.  phaseq.cu: four gemm_tiles blocks on
// one SM end about a quarter of the span apart, the first at nearly its alone
// rate.  Here B blocks of 128 threads on every SM (grid B x SMs, one warp of
// each block on each sub-partition) run the same N independent IMAD chains
// of K / N links (schedpipe.cu's loop) and record %clock64 at their start
// and end.  Per SM that holds exactly B blocks, its blocks sorted by start:
//   schedblk.N*.B*.end<i>  cycles from the SM's first start to the end of
//                          the block that started i-th (i = 1..B), median
//                          over SMs: about equal when blocks share in turn,
//                          about i / B of the last when the oldest goes first
//   schedblk.pipe.T*.B*.end<i>  the same for B blocks of T threads running
//                          256 batches of contend.cu's pipe.batch loop (a
//                          block-scope cuda::pipeline's acquire, commit, wait
//                          and release without copies: integer code and
//                          mbarrier waits, bound by the issue slots)
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o schedblk schedblk.cu
#include <cooperative_groups.h>
#include <cuda/pipeline>

#include "common.cuh"

#include <algorithm>
#include <map>

namespace cg = cooperative_groups;

constexpr int kK = 8192;

template <int N>
__global__ void k_blk(int seed, unsigned long long *out, unsigned *smids, int *sink)
{
    int x[N];
#pragma unroll
    for (int c = 0; c < N; ++c) {
        x[c] = seed + threadIdx.x + c;
    }
    unsigned long long t0 = clk();
#pragma unroll
    for (int c = 0; c < N; ++c) {
        x[c] += (int) (t0 >> 62);
    }
    const int a = 1664525 + seed, b = 1013904223;
    for (int i = 0; i < kK / N / 8; ++i) {
#pragma unroll
        for (int u = 0; u < 8; ++u) {
#pragma unroll
            for (int c = 0; c < N; ++c) {
                asm volatile("mad.lo.s32 %0, %0, %1, %2;" : "+r"(x[c]) : "r"(a), "r"(b));
            }
        }
    }
    int s = 0;
#pragma unroll
    for (int c = 0; c < N; ++c) {
        s ^= x[c];
    }
    unsigned long long t1;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1) : "r"(s) : "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = t0;
        out[2 * blockIdx.x + 1] = t1;
        smids[blockIdx.x] = smid();
    }
    if (s == 12345) {
        *sink = s;
    }
}

__global__ void k_pipe(int batches, unsigned long long *out, unsigned *smids)
{
    using State = cuda::pipeline_shared_state<cuda::thread_scope_block, 2>;
    __shared__ SmemObj<State> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, state.get());
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int b = 0; b < batches; ++b) {
        pipe.producer_acquire();
        pipe.producer_commit();
        pipe.consumer_wait();
        pipe.consumer_release();
    }
    unsigned long long t1 = clk();
    __syncthreads();
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = t0;
        out[2 * blockIdx.x + 1] = t1;
        smids[blockIdx.x] = smid();
    }
}

// The ends of the blocks of each SM that holds exactly b of them, in the
// order they started, from the SM's first start: launch() runs the grid of
// b x sms blocks; ends[i] collects the i-th block's over SMs and runs.
template <class Launch>
static void block_ends(int b, int sms, Launch launch, unsigned long long *d_out, unsigned *d_sm,
                       std::vector<std::vector<double>> &ends)
{
    const int grid = b * sms;
    std::vector<unsigned long long> h(2 * grid);
    std::vector<unsigned> hs(grid);
    ends.assign(b, {});
    for (int r = 0; r < 4; ++r) {
        launch(grid);
        CKL();
        if (r == 0) {
            continue;
        }
        CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 2 * grid, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hs.data(), d_sm, sizeof(unsigned) * grid, cudaMemcpyDeviceToHost));
        std::map<unsigned, std::vector<int>> on;
        for (int k = 0; k < grid; ++k) {
            on[hs[k]].push_back(k);
        }
        for (auto &sm_blocks : on) {
            std::vector<int> &bl = sm_blocks.second;
            if ((int) bl.size() != b) {
                continue;
            }
            std::sort(bl.begin(), bl.end(), [&](int x, int y) { return h[2 * x] < h[2 * y]; });
            const double lo = (double) h[2 * bl[0]];
            for (int i = 0; i < b; ++i) {
                ends[i].push_back((double) h[2 * bl[i] + 1] - lo);
            }
        }
    }
}

template <int N>
static void rows(int sms, unsigned long long *d_out, unsigned *d_sm, int *d_sink)
{
    for (int b : {1, 2, 4}) {
        std::vector<std::vector<double>> ends;
        block_ends(b, sms, [&](int grid) { k_blk<N><<<grid, 128>>>(1, d_out, d_sm, d_sink); }, d_out, d_sm, ends);
        for (int i = 0; i < b; ++i) {
            result(strf("schedblk.N%d.B%d.end%d", N, b, i + 1), median_of(ends[i]), "cycles",
                   "%d SMs x %d blocks of 4 warps, %d independent IMAD chains of %d a warp: from the SM's first start "
                   "to the end of the block that started %d-th, median over SMs and 3 runs", sms, b, N, kK / N, i + 1);
        }
    }
}

static void pipe_rows(int sms, unsigned long long *d_out, unsigned *d_sm)
{
    for (int t : {128, 256}) {
        for (int b : {1, 2, 4}) {
            std::vector<std::vector<double>> ends;
            block_ends(b, sms, [&](int grid) { k_pipe<<<grid, t>>>(256, d_out, d_sm); }, d_out, d_sm, ends);
            for (int i = 0; i < b; ++i) {
                result(strf("schedblk.pipe.T%d.B%d.end%d", t, b, i + 1), median_of(ends[i]), "cycles",
                       "%d SMs x %d blocks of %d threads, 256 batches of pipeline<block> acquire/commit/wait/release "
                       "without copies: from the SM's first start to the end of the block that started %d-th, median "
                       "over SMs and 3 runs", sms, b, t, i + 1);
            }
        }
    }
}

int main()
{
    print_device();
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    unsigned long long *d_out;
    unsigned *d_sm;
    int *d_sink;
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 2 * 4 * sms));
    CK(cudaMalloc(&d_sm, sizeof(unsigned) * 4 * sms));
    CK(cudaMalloc(&d_sink, sizeof(int)));
    rows<1>(sms, d_out, d_sm, d_sink);
    rows<2>(sms, d_out, d_sm, d_sink);
    rows<4>(sms, d_out, d_sm, d_sink);
    pipe_rows(sms, d_out, d_sm);
    CK(cudaFree(d_out));
    CK(cudaFree(d_sm));
    CK(cudaFree(d_sink));
    return 0;
}
