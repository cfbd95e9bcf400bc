// barmem.cu - what a __syncthreads costs after the warps' memory operations.
//
// arch/h100.ini's barrier.syncthreads_base (60) was fitted in the first round
// over the guide kernels, where a bar.sync loop alone (sync.cu) takes 13.3 +
// 2.0 cycles a warp.  The guide kernels' barriers follow global stores and
// copies; a CUTLASS mainloop's follows only a cp.async wait.  If BAR.SYNC
// waits for the warp's outstanding memory operations, the fitted base stands
// in for that wait.  Each row: one block of W warps alone on one SM, 512
// iterations of [op] then __syncthreads(), cycles an iteration (the warps'
// mean, median of 7 launches):
//
//  * barmem.none.W<w>:    the barrier alone
//  * barmem.stg.W<w>:     each thread stores one word to global memory
//                         (coalesced, a new line each iteration) first
//  * barmem.stg_nobar.W<w>: the same stores, no barrier (their issue cost)
//  * barmem.stg4.W<w>:    four such stores a thread, then the barrier
//  * barmem.sts.W<w>:     one st.shared.u32 a thread, then the barrier
//  * barmem.ldg.W<w>:     one ld.global.cg a thread whose value is used only
//                         after the barrier (a load in flight across it)
//  * barmem.cpasync.W<w>: one 16-byte cp.async a thread, committed, not waited
//                         for, then the barrier (wait_all only after the loop)
//  * barmem.stg_delay.W<w>: the store, then about 400 cycles of dependent
//                         integer work, then the barrier; the same work alone
//                         is barmem.delay.W<w>: if the barrier waits for the
//                         stores, the delay hides that wait
//  * barmem.fence.W<w>:   the store, then __threadfence_block(), no barrier
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o barmem barmem.cu
#include "common.cuh"

constexpr int kIters = 512;

enum { NONE, STG, STG_NOBAR, STG4, STS, LDG, CPASYNC, STG_DELAY, DELAY, FENCE };

__device__ __forceinline__ uint32_t spin_work(uint32_t x, int n)
{
#pragma unroll 1
    for (int i = 0; i < n; ++i) {
        asm volatile("mad.lo.u32 %0, %0, 3, 1;" : "+r"(x));
    }
    return x;
}

template <int MODE>
__global__ void k_bar(uint32_t *gbuf, const uint4 *gsrc, int zero, unsigned long long *out)
{
    __shared__ __align__(16) uint32_t sbuf[8192];
    __shared__ __align__(16) uint4 sdst[1024];
    const int tid = threadIdx.x;
    const int n = blockDim.x;
    uint32_t acc = tid;
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int it = 0; it < kIters; ++it) {
        uint32_t *dst = gbuf + (size_t) it * n * 4 + tid;
        if (MODE == STG || MODE == STG_NOBAR || MODE == STG_DELAY || MODE == FENCE) {
            asm volatile("st.global.u32 [%0], %1;" ::"l"(dst), "r"(acc) : "memory");
        } else if (MODE == STG4) {
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                asm volatile("st.global.u32 [%0], %1;" ::"l"(dst + j * n), "r"(acc + j) : "memory");
            }
        } else if (MODE == STS) {
            asm volatile("st.shared.u32 [%0], %1;" ::"r"(smem_u32(sbuf + (it & 7) * n % 8192 + tid % 1024)), "r"(acc)
                         : "memory");
        } else if (MODE == CPASYNC) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_u32(sdst + tid % 1024)),
                         "l"(gsrc + ((size_t) it * n + tid) % 65536)
                         : "memory");
            asm volatile("cp.async.commit_group;" ::: "memory");
        }
        uint32_t v = 0;
        if (MODE == LDG) {
            asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(dst) : "memory");
        }
        if (MODE == STG_DELAY || MODE == DELAY) {
            acc = spin_work(acc, 100 + zero);
        }
        if (MODE == FENCE) {
            __threadfence_block();
        }
        if (MODE != STG_NOBAR && MODE != DELAY && MODE != FENCE) {
            __syncthreads();
        }
        if (MODE == LDG) {
            acc += v;
        }
    }
    if (MODE == CPASYNC) {
        asm volatile("cp.async.wait_all;" ::: "memory");
        acc += sdst[tid % 1024].x;
    }
    unsigned long long t1 = clk();
    warp_times(out, t0, t1);
    if (acc == 0x12345u + (uint32_t) zero) {
        out[1023] = acc;
    }
}

template <int MODE>
static double iter_cycles(int w, uint32_t *gbuf, const uint4 *gsrc, unsigned long long *d_out)
{
    std::vector<double> per;
    std::vector<unsigned long long> h(2 * w);
    for (int rep = 0; rep < 7; ++rep) {
        k_bar<MODE><<<1, 32 * w>>>(gbuf, gsrc, 0, d_out);
        CKL();
        CK(cudaMemcpy(h.data(), d_out, h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost));
        double sum = 0;
        for (int i = 0; i < w; ++i) {
            sum += (double) (h[2 * i + 1] - h[2 * i]);
        }
        per.push_back(sum / w / kIters);
    }
    return median_of(per);
}

int main()
{
    CK(cudaSetDevice(0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    info("device=%s sms=%d", prop.name, prop.multiProcessorCount);
    unsigned long long *d_out;
    uint32_t *gbuf;
    uint4 *gsrc;
    CK(cudaMalloc(&d_out, 1024 * sizeof(unsigned long long)));
    CK(cudaMalloc(&gbuf, (size_t) kIters * 1024 * 4 * sizeof(uint32_t)));
    CK(cudaMalloc(&gsrc, 65536 * sizeof(uint4)));
    CK(cudaMemset(gbuf, 0, (size_t) kIters * 1024 * 4 * sizeof(uint32_t)));
    CK(cudaMemset(gsrc, 1, 65536 * sizeof(uint4)));
    for (int w : {1, 2, 4, 8, 16, 32}) {
        const char *b = "1 block of %d warps alone, 512 iterations; cycles an iteration: ";
        result(strf("barmem.none.W%d", w), iter_cycles<NONE>(w, gbuf, gsrc, d_out), "cycles",
               (std::string(b) + "__syncthreads alone").c_str(), w);
        result(strf("barmem.stg.W%d", w), iter_cycles<STG>(w, gbuf, gsrc, d_out), "cycles",
               (std::string(b) + "one st.global.u32 a thread, then __syncthreads").c_str(), w);
        result(strf("barmem.stg_nobar.W%d", w), iter_cycles<STG_NOBAR>(w, gbuf, gsrc, d_out), "cycles",
               (std::string(b) + "one st.global.u32 a thread, no barrier").c_str(), w);
        result(strf("barmem.stg4.W%d", w), iter_cycles<STG4>(w, gbuf, gsrc, d_out), "cycles",
               (std::string(b) + "four st.global.u32 a thread, then __syncthreads").c_str(), w);
        result(strf("barmem.sts.W%d", w), iter_cycles<STS>(w, gbuf, gsrc, d_out), "cycles",
               (std::string(b) + "one st.shared.u32 a thread, then __syncthreads").c_str(), w);
        result(strf("barmem.ldg.W%d", w), iter_cycles<LDG>(w, gbuf, gsrc, d_out), "cycles",
               (std::string(b) + "one ld.global.cg a thread in flight across __syncthreads").c_str(), w);
        result(strf("barmem.cpasync.W%d", w), iter_cycles<CPASYNC>(w, gbuf, gsrc, d_out), "cycles",
               (std::string(b) + "one 16-byte cp.async a thread, committed, then __syncthreads").c_str(), w);
        result(strf("barmem.stg_delay.W%d", w), iter_cycles<STG_DELAY>(w, gbuf, gsrc, d_out), "cycles",
               (std::string(b) + "the store, 100 dependent mad.lo, then __syncthreads").c_str(), w);
        result(strf("barmem.delay.W%d", w), iter_cycles<DELAY>(w, gbuf, gsrc, d_out), "cycles",
               (std::string(b) + "100 dependent mad.lo alone").c_str(), w);
        result(strf("barmem.fence.W%d", w), iter_cycles<FENCE>(w, gbuf, gsrc, d_out), "cycles",
               (std::string(b) + "the store, then __threadfence_block, no barrier").c_str(), w);
    }
    return 0;
}
