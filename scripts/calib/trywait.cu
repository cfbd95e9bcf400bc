// trywait.cu - how a warp's two paths share it while both wait on mbarriers.
//
// spec.cu (the guide's partitioned pipeline, producer and consumer lanes in
// every warp) has each half of a warp return from its wait 360-470 cycles
// after its phase completes while the other half waits too, where divwait.cu
// times 173 cycles for a converged warp and 274 for a raw try_wait loop
// whose other half waits on a barrier that completes much later.  This
// times the try_wait loop itself.  One block of two warps: warp 1's lane 0
// arrives on Y at t0 + d and on X at t0 + d + e; warp 0 waits:
//
//  * trywait.solo.iter: every lane loops on try_wait.parity of X (arrive
//    at 20000 cycles), counting its iterations: cycles an iteration, that is
//    how long one try_wait suspends the warp before it returns false
//  * trywait.div.iter.even/odd: even lanes loop on X, odd lanes on Y, both
//    arriving at 20000: each path's cycles an iteration (if the two paths
//    suspend at once, each keeps the solo period; if they take turns, more)
//  * trywait.lib.conv.d<d>: every lane in cuda::barrier::wait_parity on Y
//    (nvcc 13's loop: try_wait, YIELD, from the 16th round a %globaltimer
//    read): cycles from Y's arrive to the return
//  * trywait.lib.div.d<d>.e<e>.y / .x: even lanes wait_parity on X, odd lanes
//    on Y; cycles from Y's arrive to the odd lanes' return (.y) and from X's
//    arrive to the even lanes' return (.x); e < 0: X arrives first
//  * trywait.sweep.raw.d<d>, trywait.sweep.lib.d<d>: the odd lanes' wake on
//    Y (arrive at d = 1,000 to 1,600 in steps of 25) while the even lanes
//    wait on X until 30,000, with raw try_wait loops and with wait_parity:
//    how the wake depends on when the phase completes (the turns' period)
//  * trywait.gap.raw.*, trywait.gap.lib.*: even lanes wait on X until
//    30,000 (raw loop or wait_parity) while odd lanes read clock64 in a loop
//    until 28,000; the odd loop's stalls over 20 cycles (count, median,
//    longest, total): whether a waiting half takes turns from a running one
//
// Medians of 7 launches.  Build: nvcc -O3 -std=c++17 -arch=sm_90 -o trywait trywait.cu
#include <cuda/barrier>

#include "common.cuh"
#include "mbarrier.cuh"

enum { SOLO, DIV, LIBCONV, LIBDIV, GAPRAW, GAPLIB };

// out[0]: Y's arrive, out[1]: the odd lanes' (or all lanes') return,
// out[2]: X's arrive, out[3]: the even lanes' return, out[4]: even lanes'
// iterations, out[5]: odd lanes' iterations; GAP modes: out[4..6] the odd
// loop's stall count, summed length and longest, out[8 + k] its first 64
// stalls.
template <int MODE>
__global__ void k_tw(long long d, long long e, unsigned long long *out)
{
    __shared__ uint64_t bars[2];
    using Bar = cuda::barrier<cuda::thread_scope_block>;
    __shared__ __align__(16) unsigned char lib_raw[2 * sizeof(Bar)];
    Bar *lib = reinterpret_cast<Bar *>(lib_raw);
    const uint32_t X = smem_u32(&bars[0]), Y = smem_u32(&bars[1]);
    if (threadIdx.x == 0) {
        mbar_init(X, 1);
        mbar_init(Y, 1);
        init(&lib[0], 1);
        init(&lib[1], 1);
        fence_init();
    }
    __syncthreads();
    const unsigned long long t0 = clk();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const bool lib_mode = MODE == LIBCONV || MODE == LIBDIV || MODE == GAPLIB;
    if (warp == 1) {
        if (lane == 0) {
            const long long ty = d, tx = d + e;
            for (int k = 0; k < 2; ++k) {
                const bool y_now = (ty <= tx) == (k == 0);
                while ((long long) (clk() - t0) < (y_now ? ty : tx)) {
                }
                out[y_now ? 0 : 2] = clk();
                if (lib_mode) {
                    (void) lib[y_now ? 1 : 0].arrive();
                } else {
                    mbar_arrive(y_now ? Y : X);
                }
            }
        }
        return;
    }
    const bool odd = lane % 2 == 1;
    unsigned long long n = 0;
    if (MODE == GAPRAW || MODE == GAPLIB) {
        if (odd) {
            unsigned long long last = clk(), count = 0, sum = 0, longest = 0;
            while (last < t0 + 28000) {
                const unsigned long long now = clk();
                const unsigned long long gap = now - last;
                if (gap > 20) {
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
        } else if (MODE == GAPLIB) {
            lib[0].wait_parity(false);
        } else {
            while (!mbar_try_wait(X, 0)) {
            }
        }
        return;
    }
    if (MODE == SOLO) {
        while (!mbar_try_wait(X, 0)) {
            ++n;
        }
        if (lane == 0) {
            out[3] = clk();
            out[4] = n;
        }
    } else if (MODE == DIV) {
        if (odd) {
            while (!mbar_try_wait(Y, 0)) {
                ++n;
            }
            if (lane == 1) {
                out[1] = clk();
                out[5] = n;
            }
        } else {
            while (!mbar_try_wait(X, 0)) {
                ++n;
            }
            if (lane == 0) {
                out[3] = clk();
                out[4] = n;
            }
        }
    } else if (MODE == LIBCONV) {
        lib[1].wait_parity(false);
        if (lane == 0) {
            out[1] = clk();
        }
    } else {
        if (odd) {
            lib[1].wait_parity(false);
            if (lane == 1) {
                out[1] = clk();
            }
        } else {
            lib[0].wait_parity(false);
            if (lane == 0) {
                out[3] = clk();
            }
        }
    }
}

template <int MODE>
static std::vector<std::vector<double>> runs(long long d, long long e, unsigned long long *d_out)
{
    std::vector<std::vector<double>> v(6);
    std::vector<unsigned long long> h(8);
    for (int r = 0; r < 7; ++r) {
        CK(cudaMemset(d_out, 0, 72 * sizeof(unsigned long long)));
        k_tw<MODE><<<1, 64>>>(d, e, d_out);
        CKL();
        CK(cudaMemcpy(h.data(), d_out, 8 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        v[0].push_back((double) h[1] - (double) h[0]);  // Y's wake
        v[1].push_back((double) h[3] - (double) h[2]);  // X's wake
        v[2].push_back((double) h[4]);
        v[3].push_back((double) h[5]);
        v[4].push_back((double) h[2] - (double) h[0]);  // X's arrive after Y's
    }
    return v;
}

int main()
{
    CK(cudaSetDevice(0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    info("device=%s sms=%d", prop.name, prop.multiProcessorCount);
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, 72 * sizeof(unsigned long long)));
    const long long D = 20000;
    {
        auto v = runs<SOLO>(D, 0, d_out);
        result("trywait.solo.iter", (double) D / median_of(v[2]), "cycles",
               "one warp's try_wait.parity loop on a phase completing at %lld cycles: cycles an iteration", D);
        result("trywait.solo.wake", median_of(v[1]), "cycles", "from the arrive to the loop's return");
    }
    {
        auto v = runs<DIV>(D, 0, d_out);
        result("trywait.div.iter.even", (double) D / median_of(v[2]), "cycles",
               "even lanes loop on X, odd lanes on Y, both completing at %lld cycles: the even lanes' cycles an iteration", D);
        result("trywait.div.iter.odd", (double) D / median_of(v[3]), "cycles", "the odd lanes' cycles an iteration");
        result("trywait.div.wake.y", median_of(v[0]), "cycles", "from Y's arrive to the odd lanes' return");
        result("trywait.div.wake.x", median_of(v[1]), "cycles", "from X's arrive (right after Y's) to the even lanes' return");
    }
    for (long long d : {500, 1000, 2000, 4000}) {
        auto v = runs<LIBCONV>(d, 100000, d_out);
        result(strf("trywait.lib.conv.d%lld", d), median_of(v[0]), "cycles",
               "every lane in cuda::barrier wait_parity on Y, arriving at %lld cycles: arrive to return", d);
    }
    for (long long d : {1000, 2000, 4000}) {
        for (long long e : {-2000LL, -500LL, -100LL, 0LL, 100LL, 250LL, 500LL, 1000LL, 3000LL}) {
            if (d + e < 200) {
                continue;
            }
            auto v = runs<LIBDIV>(d, e, d_out);
            result(strf("trywait.lib.div.d%lld.e%lld.y", d, e), median_of(v[0]), "cycles",
                   "odd lanes wait_parity on Y (arrive at %lld), even lanes on X (arrive %lld later): Y's arrive to the "
                   "odd lanes' return", d, e);
            result(strf("trywait.lib.div.d%lld.e%lld.x", d, e), median_of(v[1]), "cycles",
                   "the same: X's arrive to the even lanes' return");
        }
    }
    for (long long d = 1000; d <= 1600; d += 25) {
        result(strf("trywait.sweep.raw.d%lld", d), median_of(runs<DIV>(d, 29000 - d, d_out)[0]), "cycles",
               "odd lanes' raw try_wait loop on Y (arrive at %lld) while the even lanes wait on X until 30000: "
               "Y's arrive to the odd lanes' return", d);
        result(strf("trywait.sweep.lib.d%lld", d), median_of(runs<LIBDIV>(d, 29000 - d, d_out)[0]), "cycles",
               "the same with wait_parity", d);
    }
    std::vector<unsigned long long> g(72);
    for (int lib_mode = 0; lib_mode < 2; ++lib_mode) {
        CK(cudaMemset(d_out, 0, 72 * sizeof(unsigned long long)));
        if (lib_mode) {
            k_tw<GAPLIB><<<1, 64>>>(30000, 0, d_out);
        } else {
            k_tw<GAPRAW><<<1, 64>>>(30000, 0, d_out);
        }
        CKL();
        CK(cudaMemcpy(g.data(), d_out, 72 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        const char *m = lib_mode ? "lib" : "raw";
        std::vector<double> stalls;
        std::string list;
        for (unsigned long long k = 0; k < std::min<unsigned long long>(g[4], 64); ++k) {
            stalls.push_back((double) g[8 + k]);
            list += strf(" %llu", g[8 + k]);
        }
        result(strf("trywait.gap.%s.count", m), (double) g[4], "stalls",
               "odd lanes' clock loop while the even lanes wait (%s): stalls over 20 cycles in 28000", m);
        result(strf("trywait.gap.%s.median", m), stalls.empty() ? 0.0 : median_of(stalls), "cycles",
               "median of the first 64 stalls");
        result(strf("trywait.gap.%s.longest", m), (double) g[6], "cycles", "longest stall");
        result(strf("trywait.gap.%s.total", m), (double) g[5], "cycles", "cycles stalled");
        info("trywait.gap.%s first stalls:%s", m, list.c_str());
    }
    return 0;
}
