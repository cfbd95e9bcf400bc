// branch.cu - what a loop's control and an `if` cost a warp, by how the
// compiler sees the condition.  The partitioned pipeline's `if (role ==
// producer)` varies by thread, so nvcc wraps it in a convergence barrier
// (BSSY ... BSYNC) even where, at run time, every lane of the warp agrees
// (roles by warp); a condition nvcc can prove uniform needs none.
// One block of W warps (W = 1, 4, 16: one a sub-partition up to four a
// sub-partition), each running N iterations of:
//   loop.empty      the loop alone (a volatile use of the counter)
//   loop.if_uniform if (i % 2 == 0) a = a * 3 + i; else a = a ^ i;
//                   (the condition is the same in every thread: no barrier)
//   loop.if_warp    the same with the condition (i + warp) % 2 == 0: the
//                   same in a warp's lanes, but nvcc cannot tell
//   loop.if_lane    the same with (i + thread) % 2 == 0: the warp diverges
//                   and runs both sides every iteration
//   loop.if_warp1   if (warp % 2 == 0) a = a * 3 + i;  one sided, warp
//                   uniform at run time, nvcc cannot tell (a producer's if);
//                   written (warp ^ (i >> 30)) % 2 so that nvcc cannot take
//                   the test out of the loop (i >> 30 is 0 here)
//   loop.if_lane1   the same on (thread % 2 == 0): diverged every iteration
//   loop.nested     the guide's inner fetch loop shape: for each i, a loop
//                   `for (; f < N && f < i + 4; ++f) if (warp % 2 == 0) a += f;`
// Rows: <name>.W<w> cycles an iteration (block span / N, median of 7).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o branch branch.cu
#include "common.cuh"

constexpr int N = 4096;

template <int MODE>
__global__ void k_loop(int n, int seed, unsigned *sink, unsigned long long *out)
{
    const int thread = threadIdx.x;
    const int warp = thread / 32;
    unsigned a = seed + thread;
    int f = 0;
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = 0; i < n; ++i) {
        if (MODE == 0) {
            asm volatile("" ::"r"(i));
        } else if (MODE == 1) {
            if (i % 2 == 0) {
                a = a * 3 + i;
            } else {
                a = a ^ i;
            }
        } else if (MODE == 2) {
            if ((i + warp) % 2 == 0) {
                a = a * 3 + i;
            } else {
                a = a ^ i;
            }
        } else if (MODE == 3) {
            if ((i + thread) % 2 == 0) {
                a = a * 3 + i;
            } else {
                a = a ^ i;
            }
        } else if (MODE == 4) {
            if ((warp ^ (i >> 30)) % 2 == 0) {
                a = a * 3 + i;
            }
        } else if (MODE == 5) {
            if ((thread ^ (i >> 30)) % 2 == 0) {
                a = a * 3 + i;
            }
        } else {
#pragma unroll 1
            for (; f < n && f < i + 4; ++f) {
                if ((warp ^ (f >> 30)) % 2 == 0) {
                    a += f;
                }
            }
        }
        asm volatile("" : "+r"(a));
    }
    unsigned long long t1 = clk();
    sink[blockIdx.x * blockDim.x + thread] = a;
    warp_times(out, t0, t1);
}

template <int MODE>
static void rows(const char *name, unsigned *sink, unsigned long long *d_out, std::vector<unsigned long long> &h)
{
    for (int w : {1, 4, 16}) {
        double s = warps_span([&] { k_loop<MODE><<<1, 32 * w>>>(N, 1, sink, d_out); }, w, d_out, h);
        result(strf("loop.%s.W%d", name, w), s / N, "cycles", "1 block, %d warps, cycles an iteration", w);
    }
}

int main()
{
    unsigned *sink;
    unsigned long long *d_out;
    CK(cudaMalloc(&sink, sizeof(unsigned) * 1024));
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 2 * 32));
    std::vector<unsigned long long> h(2 * 32);
    rows<0>("empty", sink, d_out, h);
    rows<1>("if_uniform", sink, d_out, h);
    rows<2>("if_warp", sink, d_out, h);
    rows<3>("if_lane", sink, d_out, h);
    rows<4>("if_warp1", sink, d_out, h);
    rows<5>("if_lane1", sink, d_out, h);
    rows<6>("nested", sink, d_out, h);
    CK(cudaFree(sink));
    CK(cudaFree(d_out));
    return 0;
}
