// contend.cu - what warps and resident blocks share on one SM (issue 16's
// mechanisms), each measured alone:
//   mbar.arrive_same.W*     W warps, every thread arriving on ONE mbarrier
//                            (never completing): cycles per warp-arrive.
//   mbar.arrive_own.W*      the same, each warp on its own mbarrier (another
//                            shared-memory word): tells serialisation on the
//                            word from the unit's throughput.
//   mbar.arrive_cp.W*       W warps on ONE mbarrier, each thread per iteration
//                            one 4-byte cp.async (L1-resident line), a
//                            cp.async.mbarrier.arrive and an mbarrier.arrive,
//                            as pipeline<block>::producer_commit after a copy:
//                            cycles per warp-iteration (what the copy's
//                            completion arrive adds to the plain arrive).
//   mbar.wake.W*            W warps in a try_wait loop on one phase, a
//                            separate warp completes it: cycles from the
//                            completing arrive to the last (and median) waiter
//                            resuming.
//   ldgsts.issue.B*.W*      B blocks on one SM (B x 132 blocks), W warps each,
//                            64 back-to-back 4-byte cp.async.ca per warp on
//                            L1-resident lines: SM cycles per warp instruction
//                            (the queue cp.async issues through).
//   pipe.batch.B*.T*        cuda::pipeline<thread_scope_block> (unified, two
//                            stages) acquire/commit/wait/release without
//                            copies, T threads, B blocks per SM: cycles per
//                            batch (the protocol's own cost as blocks grow).
//   ilp.ffma.C*.W*          W warps, each thread running C independent FFMA
//                            chains of 256 links in one loop body: cycles per
//                            warp-link (does the SM overlap independent
//                            chains of one thread, as ptxas interleaves them?)
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o contend contend.cu
#include <cooperative_groups.h>
#include <cuda/pipeline>

#include "common.cuh"
#include "mbarrier.cuh"

namespace cg = cooperative_groups;

constexpr int kIters = 64;

// ---------------------------------------------------------------- mbarrier arrivals
__global__ void k_arrive(int own, const int *src, unsigned long long *out)
{
    __shared__ alignas(8) unsigned long long bars[32];
    __shared__ alignas(16) int dst[1024];
    const int warp = threadIdx.x / 32;
    if (threadIdx.x < 32) {
        mbar_init(smem_u32(&bars[threadIdx.x]), (1u << 20) - 1);  // the largest count
    }
    fence_init();
    __syncthreads();
    const uint32_t bar = smem_u32(&bars[own ? warp : 0]);
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = 0; i < kIters; ++i) {
        if (own == 2) {
            asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_u32(&dst[threadIdx.x])),
                         "l"(src + threadIdx.x % 32)
                         : "memory");
            asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
        }
        mbar_arrive(bar);
    }
    __syncwarp();
    if (own == 2) {
        asm volatile("cp.async.wait_all;" ::: "memory");
    }
    unsigned long long t1 = clk();
    __syncthreads();
    if (threadIdx.x % 32 == 0) {
        out[2 * warp] = t0;
        out[2 * warp + 1] = t1;
    }
}

// ---------------------------------------------------------------- try_wait wake-up
// Warp 0 spins 4000 cycles, then completes the phase (count 1) and records
// the time; warps 1..W wait for parity 0 and record when they resume.
__global__ void k_wake(unsigned long long *out)
{
    __shared__ alignas(8) unsigned long long bar;
    if (threadIdx.x == 0) {
        mbar_init(smem_u32(&bar), 1);
    }
    fence_init();
    __syncthreads();
    const uint32_t b = smem_u32(&bar);
    const int warp = threadIdx.x / 32;
    if (warp == 0) {
        unsigned long long s = clk();
        while (clk() - s < 4000) {
        }
        if (threadIdx.x == 0) {
            unsigned long long t = clk();
            mbar_arrive(b);
            out[0] = t;
        }
    } else {
        while (!mbar_try_wait(b, 0)) {
        }
        unsigned long long t = clk();
        if (threadIdx.x % 32 == 0) {
            out[warp] = t;
        }
    }
}

// ---------------------------------------------------------------- cp.async issue
__global__ void k_ldgsts(const int *src, unsigned long long *out)
{
    __shared__ alignas(16) int dst[1024 * 2];
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    const int *s = src + lane;  // 128 bytes a warp: one L1-resident line
    // Warm the line into L1.
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_u32(&dst[threadIdx.x])), "l"(s) : "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll
    for (int i = 0; i < kIters; ++i) {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_u32(&dst[threadIdx.x + (i & 1) * 1024])),
                     "l"(s)
                     : "memory");
    }
    unsigned long long t1 = clk();
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    if (lane == 0) {
        out[2 * (blockIdx.x * 32 + warp)] = t0;
        out[2 * (blockIdx.x * 32 + warp) + 1] = t1;
    }
    if (threadIdx.x == 0) {
        out[2 * 32 * gridDim.x + blockIdx.x] = smid();
    }
}

// ---------------------------------------------------------------- pipeline protocol
__global__ void k_pipe(int batches, unsigned long long *out)
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
        out[3 * blockIdx.x] = t0;
        out[3 * blockIdx.x + 1] = t1;
        out[3 * blockIdx.x + 2] = smid();
    }
}

// ---------------------------------------------------------------- independent chains
template <int C>
__global__ void k_ilp(float seed, float *sink, unsigned long long *out)
{
    float acc[C];
#pragma unroll
    for (int c = 0; c < C; ++c) {
        acc[c] = seed + (float) (threadIdx.x + c);
    }
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = 0; i < 256 / 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
#pragma unroll
            for (int c = 0; c < C; ++c) {
                acc[c] = fmaf(acc[c], 1.000001f, 0.5f);
            }
        }
    }
    unsigned long long t1 = clk();
    float s = 0.f;
#pragma unroll
    for (int c = 0; c < C; ++c) {
        s += acc[c];
    }
    sink[threadIdx.x] = s;
    warp_times(out, t0, t1);
}

template <int C>
static void ilp_row(float *d_sink, unsigned long long *d_out, std::vector<unsigned long long> &h)
{
    for (int w : {1, 4, 8, 16, 32}) {
        double s = warps_span([&] { k_ilp<C><<<1, 32 * w>>>(1.0f, d_sink, d_out); }, w, d_out, h);
        char key[64];
        snprintf(key, sizeof key, "ilp.ffma.C%d.W%d", C, w);
        result(key, s / (256.0 * C * w), "cycles", "1 block, %d warps, %d independent FFMA chains of 256 links per thread: span per warp-link, median of 7",
               w, C);
    }
}

int main()
{
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 2 * 32 * 4 * 132 * 2 + 4096));
    std::vector<unsigned long long> h(2 * 32 * 4 * 132 * 2 + 4096);

    int *d_src;
    CK(cudaMalloc(&d_src, 4096));
    CK(cudaMemset(d_src, 0, 4096));
    for (int own = 0; own <= 2; ++own) {
        for (int w : {1, 2, 4, 8, 16, 32}) {
            // The median of 7 spans, each over kIters x w warp-iterations.
            double span = warps_span([&] { k_arrive<<<1, 32 * w>>>(own, d_src, d_out); }, w, d_out, h);
            char key[64];
            static const char *const name[] = {"same", "own", "cp"};
            static const char *const what[] = {"mbarrier.arrive on one mbarrier", "mbarrier.arrive on one mbarrier per warp",
                                               "cp.async 4B + cp.async.mbarrier.arrive + mbarrier.arrive on one mbarrier"};
            snprintf(key, sizeof key, "mbar.arrive_%s.W%d", name[own], w);
            result(key, span / (kIters * w), "cycles", "1 block, %d warps, %d x %s per thread, span / warp-iterations, median of 7",
                   w, kIters, what[own]);
        }
    }

    for (int w : {1, 2, 4, 8, 16, 31}) {
        std::vector<double> last, med;
        for (int r = 0; r < 7; ++r) {
            k_wake<<<1, 32 * (w + 1)>>>(d_out);
            CKL();
            CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * (w + 1), cudaMemcpyDeviceToHost));
            std::vector<double> lat;
            for (int i = 1; i <= w; ++i) {
                lat.push_back((double) (h[i] - h[0]));
            }
            last.push_back(max_of(lat));
            med.push_back(median_of(lat));
        }
        char key[64];
        snprintf(key, sizeof key, "mbar.wake_last.W%d", w);
        result(key, median_of(last), "cycles", "%d warps in a try_wait loop, one arrive completes the phase: to the last waiter, median of 7", w);
        snprintf(key, sizeof key, "mbar.wake_median.W%d", w);
        result(key, median_of(med), "cycles", "the same, median waiter");
    }

    for (int b : {1, 2, 4}) {
        for (int w : {1, 4, 8, 16}) {
            if (b * w > 64) {
                continue;
            }
            std::vector<double> per;
            const int grid = b * sms;
            for (int r = 0; r < 7; ++r) {
                k_ldgsts<<<grid, 32 * w>>>(d_src, d_out);
                CKL();
                CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * (2 * 32 * grid + grid), cudaMemcpyDeviceToHost));
                // Per SM: issue span of all its warps over their instructions.
                std::vector<unsigned long long> lo(1024, ~0ull), hi(1024, 0);
                std::vector<int> nb(1024, 0);
                for (int k = 0; k < grid; ++k) {
                    unsigned sm = (unsigned) h[2 * 32 * grid + k] % 1024;
                    nb[sm]++;
                    for (int i = 0; i < w; ++i) {
                        lo[sm] = std::min(lo[sm], h[2 * (k * 32 + i)]);
                        hi[sm] = std::max(hi[sm], h[2 * (k * 32 + i) + 1]);
                    }
                }
                std::vector<double> v;
                for (int sm = 0; sm < 1024; ++sm) {
                    if (nb[sm] == b) {
                        v.push_back((double) (hi[sm] - lo[sm]) / (kIters * w * b));
                    }
                }
                per.push_back(median_of(v));
            }
            char key[64];
            snprintf(key, sizeof key, "ldgsts.issue.B%d.W%d", b, w);
            result(key, median_of(per), "cycles", "%d blocks per SM x %d warps, %d cp.async.ca 4B each on L1-resident lines: SM issue span per warp instruction, median over SMs and 7 runs",
                   b, w, kIters);
        }
    }

    float *d_sink;
    CK(cudaMalloc(&d_sink, 4096 * sizeof(float)));
    ilp_row<1>(d_sink, d_out, h);
    ilp_row<2>(d_sink, d_out, h);
    ilp_row<4>(d_sink, d_out, h);
    ilp_row<8>(d_sink, d_out, h);
    CK(cudaFree(d_sink));

    const int batches = 256;
    for (int b : {1, 2, 4}) {
        for (int t : {64, 128, 256, 512, 1024}) {
            if (b * t > 2048) {
                continue;
            }
            std::vector<double> per;
            const int grid = b * sms;
            for (int r = 0; r < 7; ++r) {
                k_pipe<<<grid, t>>>(batches, d_out);
                CKL();
                CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 3 * grid, cudaMemcpyDeviceToHost));
                std::vector<unsigned long long> lo(1024, ~0ull), hi(1024, 0);
                std::vector<int> nb(1024, 0);
                for (int k = 0; k < grid; ++k) {
                    unsigned sm = (unsigned) h[3 * k + 2] % 1024;
                    nb[sm]++;
                    lo[sm] = std::min(lo[sm], h[3 * k]);
                    hi[sm] = std::max(hi[sm], h[3 * k + 1]);
                }
                std::vector<double> v;
                for (int sm = 0; sm < 1024; ++sm) {
                    if (nb[sm] == b) {
                        v.push_back((double) (hi[sm] - lo[sm]) / batches);
                    }
                }
                per.push_back(median_of(v));
            }
            char key[64];
            snprintf(key, sizeof key, "pipe.batch.B%d.T%d", b, t);
            result(key, median_of(per), "cycles", "%d blocks per SM x %d threads, pipeline<block> 2 stages, acquire/commit/wait/release without copies: SM span per batch, median over SMs and 7 runs",
                   b, t);
        }
    }
    CK(cudaFree(d_src));
    CK(cudaFree(d_out));
    return 0;
}
