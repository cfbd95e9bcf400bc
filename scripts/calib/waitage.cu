// waitage.cu - does an mbarrier try_wait on a completed phase cost the same
// whatever the barrier's last change?  pipecopy.cu's four pipeline calls
// take 150 cycles a batch with one stage (each wait on a barrier the warp
// arrived on just before) and 249-267 from two stages on (each wait on a
// barrier completed stages - 1 batches earlier).  One block of T threads,
// N iterations; each iteration arrives on barrier i mod R (count T: the
// arrive completes its phase) and then waits, with the library's loop
// (try_wait.parity until true), on a completed phase of barrier
// (i - A) mod R, that is A iterations after it completed (A = 0: the one
// just arrived on).  An empty iteration (no wait) is the baseline.
//   waitage.R<r>.A<a>.T<t>   cycles an iteration (block span / N, median of 7)
//   waitage.nowait.R<r>.T<t> the same without the wait
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o waitage waitage.cu
#include "common.cuh"

constexpr int N = 2048;
constexpr int RMAX = 8;

// R a power of two and A compile-time constants: the barrier indices are
// masks, the same few instructions whatever the wait.
template <int R, int A, bool WAIT>
__global__ void k_age(unsigned long long *out)
{
    __shared__ __align__(8) unsigned long long bars[RMAX];
    const int t = threadIdx.x;
    if (t < R) {
        unsigned b = (unsigned) __cvta_generic_to_shared(&bars[t]);
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(b), "r"((int) blockDim.x));
    }
    __syncthreads();
    // Complete one phase of every barrier first, so that the waits of the
    // first A iterations find a completed phase too.
    for (int r = 0; r < R; ++r) {
        unsigned b = (unsigned) __cvta_generic_to_shared(&bars[r]);
        unsigned long long st;
        asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(st) : "r"(b) : "memory");
    }
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = 0; i < N; ++i) {
        const int ra = i & (R - 1);
        unsigned b = (unsigned) __cvta_generic_to_shared(&bars[ra]);
        unsigned long long st;
        asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(st) : "r"(b) : "memory");
        if (WAIT) {
            // Barrier (i - A) mod R completed its phase number k = (i - A) / R + 1
            // (phase 0 before the loop), whose parity is (k - 1) & 1... the
            // phase that completed last: wait on its parity.
            const int j = i - A;
            const int rw = j & (R - 1);
            const int done = j >= 0 ? (j >> __builtin_ctz(R)) + 1 : 0;  // phases completed at iteration j (0: only the prologue's)
            const unsigned parity = (unsigned) (done & 1);
            unsigned bw = (unsigned) __cvta_generic_to_shared(&bars[rw]);
            unsigned ok = 0;
            while (!ok) {
                asm volatile(
                    "{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                    : "=r"(ok)
                    : "r"(bw), "r"(parity)
                    : "memory");
            }
        }
    }
    unsigned long long t1 = clk();
    __syncthreads();
    if (t == 0) {
        out[0] = t0;
        out[1] = t1;
    }
}

template <int R, int A, bool WAIT>
static double run(int T, unsigned long long *d_out)
{
    std::vector<double> per;
    for (int r = 0; r < 8; ++r) {
        k_age<R, A, WAIT><<<1, T>>>(d_out);
        CKL();
        unsigned long long h[2];
        CK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
        if (r > 0) {
            per.push_back((double) (h[1] - h[0]) / N);
        }
    }
    return median_of(per);
}

template <int R, int A>
static void ages(int T, unsigned long long *d_out)
{
    if constexpr (A < R) {
        result(strf("waitage.R%d.A%d.T%d", R, A, T), run<R, A, true>(T, d_out), "cycles",
               "arrive on barrier i mod %d, then wait on the phase barrier (i - %d) mod %d completed", R, A, R);
        ages<R, A + 1>(T, d_out);
    }
}

template <int R>
static void rows(int T, unsigned long long *d_out)
{
    result(strf("waitage.nowait.R%d.T%d", R, T), run<R, 0, false>(T, d_out), "cycles",
           "arrive on one of %d barriers an iteration, no wait", R);
    ages<R, 0>(T, d_out);
}

int main()
{
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 2));
    for (int T : {32, 128}) {
        rows<1>(T, d_out);
        rows<2>(T, d_out);
        rows<4>(T, d_out);
        rows<8>(T, d_out);
    }
    CK(cudaFree(d_out));
    return 0;
}
