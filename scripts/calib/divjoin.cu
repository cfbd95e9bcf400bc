// divjoin.cu - when may a diverged warp's path pass its reconvergence point
// while the warp's other path waits on an mbarrier?  One block of two warps.
// Warp 0 splits by lane parity at an `if`: even lanes wait on barrier X (a
// try_wait.parity loop, libcudacxx's sm_90 wait, or cuda::barrier's
// wait_parity), odd lanes spin on clock64 until t0 + e; both then read
// clock64 after the `if`, where nvcc reconverges them (BSSY/BSYNC,
// divjoin_h200.sass).  Warp 1's lane 0 arrives on X at t0 + d.
//   divjoin.<wait>.d*.e*.pass    cycles from t0 to the odd lanes' clock read
//                                after the join (median of 7 launches)
//   divjoin.<wait>.d*.e*.even    the same for the even lanes
//   divjoin.<wait>.d*.e*.arrive  cycles from t0 to the arrive on X
// pass near e: the odd path goes on while the even one waits
// (sched.wait_yields); pass near even: it waits for them at the join.  e
// just after d asks whether a path whose phase has completed, but which has
// not yet woken from its try_wait, still lets the other go on.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o divjoin divjoin.cu
#include <cuda/barrier>

#include "common.cuh"
#include "mbarrier.cuh"

// out[0]: arrive, out[1]: even lanes after the join, out[2]: odd lanes after
// the join; all relative to t0.
template <bool LIB>
__global__ void k_join(long long d, long long e, unsigned long long *out)
{
    __shared__ uint64_t bar;
    using Bar = cuda::barrier<cuda::thread_scope_block>;
    __shared__ __align__(16) unsigned char lib_raw[sizeof(Bar)];
    Bar *lib = reinterpret_cast<Bar *>(lib_raw);
    const uint32_t X = smem_u32(&bar);
    if (threadIdx.x == 0) {
        mbar_init(X, 1);
        init(lib, 1);
        fence_init();
    }
    __syncthreads();
    const unsigned long long t0 = clk();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (warp == 1) {
        if (lane == 0) {
            while (clk() < t0 + (unsigned long long) d) {
            }
            out[0] = clk() - t0;
            if (LIB) {
                (void) lib->arrive();
            } else {
                mbar_arrive(X);
            }
        }
        return;
    }
    if (lane % 2 == 0) {
        if (LIB) {
            lib->wait_parity(false);
        } else {
            while (!mbar_try_wait(X, 0)) {
            }
        }
    } else {
        while (clk() < t0 + (unsigned long long) e) {
        }
    }
    const unsigned long long t = clk() - t0;
    if (lane < 2) {
        out[lane == 0 ? 1 : 2] = t;
    }
}

template <bool LIB>
static void row(const char *name, unsigned long long *d_out)
{
    std::vector<unsigned long long> h(4);
    const long long d = 2000;
    for (long long e : {0, 500, 1500, 1900, 2000, 2050, 2100, 2150, 2200, 2250, 2300, 2400, 2600, 3000}) {
        std::vector<double> pass, even, arrive;
        for (int r = 0; r < 7; ++r) {
            CK(cudaMemset(d_out, 0, 4 * sizeof(unsigned long long)));
            k_join<LIB><<<1, 64>>>(d, e, d_out);
            CKL();
            CK(cudaMemcpy(h.data(), d_out, 4 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
            pass.push_back((double) h[2]);
            even.push_back((double) h[1]);
            arrive.push_back((double) h[0]);
        }
        const std::string key = strf("divjoin.%s.d%lld.e%lld", name, d, e);
        result(key + ".pass", median_of(pass), "cycles", "t0 to the odd lanes' read after the join");
        result(key + ".even", median_of(even), "cycles", "t0 to the even lanes' read after the join");
        result(key + ".arrive", median_of(arrive), "cycles", "t0 to the arrive on X");
    }
}

int main()
{
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, 4 * sizeof(unsigned long long)));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    info("device %s", p.name);
    row<false>("raw", d_out);
    row<true>("lib", d_out);
    return 0;
}
