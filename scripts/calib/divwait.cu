// divwait.cu - mbarrier waits in a diverged warp: does one path's suspended
// try_wait hold up the warp's other path?  One block of two warps; warp 1's
// lane 0 arrives on barrier Y at t0 + d and on barrier X at t0 + kLate; warp 0
// waits, its lanes split in two paths (even and odd lanes), in a loop on
// mbarrier.try_wait.parity (libcudacxx's sm_90 wait) or on the library's
// cuda::barrier wait_parity.
//   divwait.conv.d*        every lane of warp 0 waits on Y: cycles from the
//                          arrive to the wait returning (the converged wake)
//   divwait.div.d*         odd lanes wait on Y while even lanes wait on X
//                          (suspended until kLate): the same wake, diverged
//   divwait.divlib.d*      the same with cuda::barrier's wait_parity
//   divwait.spin.d*        odd lanes wait on Y while even lanes spin on clock64
//                          (no try_wait) until kLate
//   divwait.gap.*          even lanes wait on X until kLate while odd lanes
//                          read clock64 in a loop: the stalls of the odd
//                          lanes' loop (count, median and longest, cycles):
//                          how long one path's try_wait holds the other
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o divwait divwait.cu
#include <cuda/barrier>

#include "common.cuh"
#include "mbarrier.cuh"

constexpr long long kLate = 30000;

__device__ __forceinline__ unsigned long long clk64()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}
__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t) __cvta_generic_to_shared(p);
}

enum { CONV, DIV, DIVLIB, SPIN, GAP };

// out[0]: Y's arrive, out[1]: the odd lanes' (or every lane's) return on Y,
// out[2]: X's arrive, out[3]: the even lanes' return on X, out[4..6]: gap
// count, sum of gap lengths, longest gap; out[8 + k]: the first 64 gaps.
template <int MODE>
__global__ void k_div(long long d, unsigned long long *out)
{
    __shared__ uint64_t bars[2];
    using Bar = cuda::barrier<cuda::thread_scope_block>;
    __shared__ __align__(16) unsigned char lib_raw[2 * sizeof(Bar)];
    Bar *lib = reinterpret_cast<Bar *>(lib_raw);
    const uint32_t X = smem_addr(&bars[0]), Y = smem_addr(&bars[1]);
    if (threadIdx.x == 0) {
        mbar_init(X, 1);
        mbar_init(Y, 1);
        init(&lib[0], 1);
        init(&lib[1], 1);
        fence_init();
    }
    __syncthreads();
    const unsigned long long t0 = clk64();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (warp == 1) {
        if (lane == 0) {
            while (clk64() < t0 + d) {
            }
            out[0] = clk64();
            if (MODE == DIVLIB) {
                (void) lib[1].arrive();
            } else {
                mbar_arrive(Y);
            }
            while (clk64() < t0 + kLate) {
            }
            out[2] = clk64();
            if (MODE == DIVLIB) {
                (void) lib[0].arrive();
            } else {
                mbar_arrive(X);
            }
        }
        return;
    }
    const bool odd = lane % 2 == 1;
    if (MODE == CONV) {
        while (!mbar_try_wait(Y, 0)) {
        }
        if (lane == 0) {
            out[1] = clk64();
        }
    } else if (odd && MODE != GAP) {
        if (MODE == DIVLIB) {
            lib[1].wait_parity(false);
        } else {
            while (!mbar_try_wait(Y, 0)) {
            }
        }
        if (lane == 1) {
            out[1] = clk64();
        }
    } else if (odd) {
        unsigned long long last = clk64(), count = 0, sum = 0, longest = 0;
        while (last < t0 + kLate - 2000) {
            unsigned long long now = clk64();
            unsigned long long gap = now - last;
            if (gap > 100) {
                if (lane == 1 && count < 64) {
                    out[8 + count] = gap;
                }
                ++count;
                sum += gap;
                longest = gap > longest ? gap : longest;
            }
            last = now;
        }
        if (lane == 1) {
            out[4] = count;
            out[5] = sum;
            out[6] = longest;
        }
    } else if (MODE == SPIN) {
        while (clk64() < t0 + kLate) {
        }
    } else {
        if (MODE == DIVLIB) {
            lib[0].wait_parity(false);
        } else {
            while (!mbar_try_wait(X, 0)) {
            }
        }
        if (lane == 0) {
            out[3] = clk64();
        }
    }
}

template <int MODE>
static void row(const char *name, unsigned long long *d_out)
{
    std::vector<unsigned long long> h(72);
    for (long long d : {1000, 2000, 3000, 5000, 8000}) {
        std::vector<double> wake, late;
        for (int r = 0; r < 7; ++r) {
            CK(cudaMemset(d_out, 0, 72 * sizeof(unsigned long long)));
            k_div<MODE><<<1, 64>>>(d, d_out);
            CKL();
            CK(cudaMemcpy(h.data(), d_out, 72 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
            wake.push_back((double) h[1] - (double) h[0]);
            if (h[3] != 0) {
                late.push_back((double) h[3] - (double) h[2]);
            }
        }
        result(strf("divwait.%s.d%lld", name, d), median_of(wake), "cycles",
               "arrive on Y at %lld cycles to the wait on it returning (median of 7)", d);
        if (!late.empty()) {
            result(strf("divwait.%s.d%lld.late", name, d), median_of(late), "cycles",
                   "arrive on X to the other path's wait returning");
        }
    }
}

int main()
{
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, 72 * sizeof(unsigned long long)));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    info("device %s", p.name);
    row<CONV>("conv", d_out);
    row<DIV>("div", d_out);
    row<DIVLIB>("divlib", d_out);
    row<SPIN>("spin", d_out);
    std::vector<unsigned long long> h(72);
    k_div<GAP><<<1, 64>>>(kLate, d_out);
    CKL();
    CK(cudaMemcpy(h.data(), d_out, 72 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    std::vector<double> gaps;
    std::string list;
    for (unsigned long long k = 0; k < std::min<unsigned long long>(h[4], 64); ++k) {
        gaps.push_back((double) h[8 + k]);
        list += strf(" %llu", h[8 + k]);
    }
    result("divwait.gap.count", (double) h[4], "stalls", "stalls over 100 cycles of the odd lanes' clock loop");
    result("divwait.gap.median", median_of(gaps), "cycles", "median stall");
    result("divwait.gap.longest", (double) h[6], "cycles", "longest stall");
    result("divwait.gap.total", (double) h[5], "cycles", "cycles stalled of %lld", kLate - 2000);
    info("first stalls:%s", list.c_str());
    return 0;
}
