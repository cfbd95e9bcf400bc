// commitcost.cu - what the instructions of a block-scope pipeline's
// producer_commit after a copy cost a warp.  pipecopy.cu finds that a copy
// adds about 85 cycles to a lone warp's batch whatever its size; its SASS
// shows the commit then issues three mbarrier operations where it issues one
// without a copy: SYNCS.ARRIVE.TRANS64.RED (one more arrival expected),
// ARRIVES.LDGSTSBAR (arrive once this thread's cp.async have landed) and the
// plain arrive.  Here each piece runs alone in a loop of N iterations, one
// block of T threads, one mbarrier in shared memory initialized with an
// arrival count that the loop never reaches (no phase completes), a 16-byte
// cp.async a thread an iteration into a ring of 8 slots, warm in L2:
//   commit.cp          cp.async + commit_group (no mbarrier)
//   commit.cp_ldgbar   cp.async + cp.async.mbarrier.arrive.noinc
//   commit.cp_full     cp.async + cp.async.mbarrier.arrive (the increment
//                      and the arrive once landed) + mbarrier.arrive
//   commit.full        the same three mbarrier operations without the copy
//   commit.arrive      mbarrier.arrive alone
//   commit.ldgbar      cp.async.mbarrier.arrive.noinc alone
// Rows: <name>.T<t> cycles an iteration (block span / N, median of 7).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o commitcost commitcost.cu
#include "common.cuh"

constexpr int N = 2048;

template <int MODE>
__global__ void k_commit(const int4 *src, unsigned long long *out)
{
    __shared__ __align__(16) int4 ring[8 * 128];
    __shared__ __align__(8) unsigned long long bar;
    const int t = threadIdx.x;
    const unsigned b = (unsigned) __cvta_generic_to_shared(&bar);
    if (t == 0) {
        // The largest arrival count: no phase completes in the loop.
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(b), "r"((1 << 20) - 1));
    }
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = 0; i < N; ++i) {
        const unsigned dst = (unsigned) __cvta_generic_to_shared(&ring[(i % 8) * 128 + t]);
        const int4 *g = src + (i % 64) * 128 + t;
        if (MODE == 0 || MODE == 1 || MODE == 2) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(g) : "memory");
        }
        if (MODE == 0) {
            asm volatile("cp.async.commit_group;" ::: "memory");
        }
        if (MODE == 1 || MODE == 5) {
            asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(b) : "memory");
        }
        if (MODE == 2 || MODE == 3) {
            asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" ::"r"(b) : "memory");
        }
        if (MODE == 2 || MODE == 3 || MODE == 4) {
            unsigned long long state;
            asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(b) : "memory");
        }
    }
    unsigned long long t1 = clk();
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        out[0] = t0;
        out[1] = t1;
    }
}

template <int MODE>
static void rows(const char *name, const int4 *src, unsigned long long *d_out)
{
    for (int T : {32, 128}) {
        std::vector<double> per;
        for (int r = 0; r < 8; ++r) {
            k_commit<MODE><<<1, T>>>(src, d_out);
            CKL();
            unsigned long long h[2];
            CK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
            if (r > 0) {
                per.push_back((double) (h[1] - h[0]) / N);
            }
        }
        result(strf("commit.%s.T%d", name, T), median_of(per), "cycles", "1 block of %d threads: cycles an iteration",
               T);
    }
}

int main()
{
    int4 *src;
    unsigned long long *d_out;
    CK(cudaMalloc(&src, sizeof(int4) * 64 * 128));
    CK(cudaMemset(src, 1, sizeof(int4) * 64 * 128));
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 2));
    rows<0>("cp", src, d_out);
    rows<1>("cp_ldgbar", src, d_out);
    rows<2>("cp_full", src, d_out);
    rows<3>("full", src, d_out);
    rows<4>("arrive", src, d_out);
    rows<5>("ldgbar", src, d_out);
    CK(cudaFree(src));
    CK(cudaFree(d_out));
    return 0;
}
