// pipecopy.cu - what a copy adds to a block-scope pipeline's batch.
// contend.cu's pipe.batch times the four calls without copies; spec.cu the
// guide's partitioned kernel with a copy and a load and store a batch, where
// the model is 20-25% too fast from four stages on.  This kernel is the
// unified pipeline of with_staging_unified, one block alone, data warm in
// L2, S stages with S - 1 batches fetched ahead:
//   for b: producer_acquire; [memcpy_async of E bytes a thread]; producer_commit;
//          consumer_wait; [load the element from shared, store it to global];
//          consumer_release
// Rows: pipecopy.<variant>.S<s>.T<t>  cycles a batch (block span / batches,
// median of 7 launches after a warm-up), variants:
//   calls   the four calls alone
//   cp4     with a 4-byte memcpy_async a thread (cp.async.ca 4)
//   cp16    with a 16-byte memcpy_async a thread (cp.async.cg 16)
//   cp16ls  cp16, and the consumer loads its 16 bytes from shared memory and
//           stores them to global memory
//   callsc  calls, with a chain of 64 dependent IMADs between the producer's
//           commit and the consumer's wait
//   cp16c   cp16 with the same chain: whether the copy's 85 cycles are issue
//           (they add to the chain) or latency (the chain hides them)
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o pipecopy pipecopy.cu
#include <cooperative_groups.h>
#include <cuda/pipeline>

#include "common.cuh"

namespace cg = cooperative_groups;

constexpr int kBatches = 512;

template <int S, int MODE>  // MODE 0 calls, 1 cp4, 2 cp16, 3 cp16ls, 4 callsc, 5 cp16c
__global__ void k_pc(const int4 *src, int4 *dst, int batches, unsigned long long *out)
{
    extern __shared__ __align__(128) unsigned char smem[];
    using State = cuda::pipeline_shared_state<cuda::thread_scope_block, S>;
    auto block = cg::this_thread_block();
    const int t = threadIdx.x, T = blockDim.x;
    int4 *sh = reinterpret_cast<int4 *>(smem);
    // make_pipeline initializes the state's barriers (as spec.cu relies on).
    State *state = reinterpret_cast<State *>(smem + S * T * sizeof(int4));
    auto pipe = cuda::make_pipeline(block, state);
    // The source wraps every 64 batches: 64 x T x 16 bytes, warm in L2.
    auto fetch = [&](int b) {
        pipe.producer_acquire();
        const int s = b % S;
        const size_t g = (size_t) (b % 64) * T + t;
        if (MODE == 1) {
            cuda::memcpy_async(reinterpret_cast<int *>(sh + s * T + t), reinterpret_cast<const int *>(src + g),
                               sizeof(int), pipe);
        } else if (MODE == 2 || MODE == 3 || MODE == 5) {
            cuda::memcpy_async(sh + s * T + t, src + g, sizeof(int4), pipe);
        }
        pipe.producer_commit();
    };
    int acc = t;
    unsigned long long t0 = clk();
    for (int b = 0; b < S - 1 && b < batches; ++b) {
        fetch(b);
    }
#pragma unroll 1
    for (int b = 0; b < batches; ++b) {
        if (b + S - 1 < batches) {
            fetch(b + S - 1);
        }
        if (MODE >= 4) {
#pragma unroll
            for (int k = 0; k < 64; ++k) {
                asm volatile("mad.lo.s32 %0, %0, %1, %2;" : "+r"(acc) : "r"(b), "r"(k));
            }
        }
        pipe.consumer_wait();
        if (MODE == 3) {
            dst[(size_t) (b % 64) * T + t] = sh[(b % S) * T + t];
        }
        pipe.consumer_release();
    }
    unsigned long long t1 = clk();
    __syncthreads();
    if (t == 0) {
        out[0] = t0;
        out[1] = t1;
    }
    if (acc == 12345) {
        dst[t] = make_int4(acc, 0, 0, 0);
    }
}

template <int S, int MODE>
static void row(const char *name, const int4 *src, int4 *dst, unsigned long long *d_out)
{
    for (int T : {32, 128, 512}) {
        size_t smem = S * T * sizeof(int4) + sizeof(cuda::pipeline_shared_state<cuda::thread_scope_block, S>);
        CK(cudaFuncSetAttribute(k_pc<S, MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));
        std::vector<double> per;
        for (int r = 0; r < 8; ++r) {
            k_pc<S, MODE><<<1, T, smem>>>(src, dst, kBatches, d_out);
            CKL();
            unsigned long long h[2];
            CK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
            if (r > 0) {
                per.push_back((double) (h[1] - h[0]) / kBatches);
            }
        }
        result(strf("pipecopy.%s.S%d.T%d", name, S, T), median_of(per), "cycles",
               "1 block of %d threads, unified block pipeline, %d stages, %s: cycles a batch", T, S, name);
    }
}

template <int S>
static void stage_rows(const int4 *src, int4 *dst, unsigned long long *d_out)
{
    row<S, 0>("calls", src, dst, d_out);
    row<S, 1>("cp4", src, dst, d_out);
    row<S, 2>("cp16", src, dst, d_out);
    row<S, 3>("cp16ls", src, dst, d_out);
    row<S, 4>("callsc", src, dst, d_out);
    row<S, 5>("cp16c", src, dst, d_out);
}

int main()
{
    int4 *src, *dst;
    unsigned long long *d_out;
    CK(cudaMalloc(&src, sizeof(int4) * 64 * 512));
    CK(cudaMalloc(&dst, sizeof(int4) * 64 * 512));
    CK(cudaMemset(src, 1, sizeof(int4) * 64 * 512));
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 2));
    stage_rows<1>(src, dst, d_out);
    stage_rows<2>(src, dst, d_out);
    stage_rows<4>(src, dst, d_out);
    stage_rows<8>(src, dst, d_out);
    CK(cudaFree(src));
    CK(cudaFree(dst));
    CK(cudaFree(d_out));
    return 0;
}
