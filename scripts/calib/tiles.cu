// tiles.cu - where a batch of the campaign's tile-streaming kernels goes: gemm_tiles
// (pipeline<block>, one cp.async per thread and 4-byte element) and gemm_tiles_bulk
// (one elected thread issues two 4 KiB bulk copies onto the stage's cuda::barrier,
// every thread arrive_and_wait()s on it, block.sync() frees the stage), written as
// `smpipe cuda` writes them (64-bit loop variables, `% stages`, the if-chain over
// eight barriers), one block alone, 512 batches, 4-byte elements, 4 KiB tiles.
//   tiles.<bulk|cpa>.S*.T*.C*.<cold|warm>.batch   cycles a batch of the plain kernel
//                                                (block span / batches, median of 7)
//   tiles....<step>   the instrumented kernel's medians over warps and 64 steady
//                     iterations (lane 0 of every warp timestamps each step):
//     period    iteration start to the next iteration's start
//     issue     iteration start to the end of its fetch loop (acquire, copies,
//               commit; only thread 0 copies in the bulk kernel)
//     wait      fetch loop end to the wait's return (arrive_and_wait or
//               consumer_wait)
//     consume   wait return to the stores' end (loads, compute, stores)
//     release   stores' end to the end of the iteration (block.sync or
//               consumer_release)
// Cold: a 256 MiB read evicts the data from L2 before each launch.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o tiles tiles.cu
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>

#include "common.cuh"

namespace cg = cooperative_groups;

constexpr int kBatches = 512;
constexpr int kTile = 1024;   // 4-byte elements of A (and of B) a stage
constexpr int kI0 = 128;      // first instrumented iteration
constexpr int kNI = 64;       // instrumented iterations
constexpr int kEv = 5;        // events an iteration
enum { EV_TOP, EV_ISSUED, EV_WAITED, EV_CONSUMED, EV_END };

using Bar = cuda::barrier<cuda::thread_scope_block>;

__device__ __forceinline__ unsigned long long clk64()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

__device__ __forceinline__ int tcompute(int x, long long n)
{
    unsigned w = (unsigned) x;
    for (long long i = 0; i < n; ++i) {
        asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(w) : "r"(1664525u), "r"(1013904223u));
    }
    return (int) w;
}

template <int S, int T, bool BULK, bool INSTR, int CI>
__global__ void k_tiles(const int *A, const int *B, int *C, unsigned long long *ts, unsigned long long *span)
{
    extern __shared__ __align__(128) unsigned char smem[];
    auto block = cg::this_thread_block();
    int *As = reinterpret_cast<int *>(smem);
    int *Bs = As + S * kTile;
    Bar *full = reinterpret_cast<Bar *>(Bs + S * kTile);
    auto *state = reinterpret_cast<cuda::pipeline_shared_state<cuda::thread_scope_block, S> *>(full + 8);
    constexpr long long PT = kTile / T > 1 ? kTile / T : 1;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    unsigned long long *my = ts + (size_t) warp * kEv * kNI;
    auto mark = [&](long long k, int ev) {
        if (INSTR && lane == 0 && k >= kI0 && k < kI0 + kNI) {
            my[ev * kNI + (k - kI0)] = clk64();
        }
    };
    unsigned sink = 0;
    if (BULK && threadIdx.x == 0) {
        for (int i = 0; i < 8; ++i) {
            init(&full[i], T);
        }
    }
    __syncthreads();
    auto pipeline = cuda::make_pipeline(block, state);
    const unsigned long long t0 = clk64();
    long long fetch = 0;
    for (long long k = 0; k < kBatches; ++k) {
        mark(k, EV_TOP);
        while (fetch < kBatches && fetch < k + S) {
            long long s = fetch % S;
            if (BULK) {
                // The generated if-chain: one branch a barrier.
#define TILES_BULK(N)                                                                                      \
    if (s == N) {                                                                                          \
        cuda::memcpy_async(block, As + s * kTile, A + fetch * kTile, cuda::aligned_size_t<16>(4096), full[N]); \
        cuda::memcpy_async(block, Bs + s * kTile, B + fetch * kTile, cuda::aligned_size_t<16>(4096), full[N]); \
    }
                TILES_BULK(0) else TILES_BULK(1) else TILES_BULK(2) else TILES_BULK(3) else TILES_BULK(4)
                else TILES_BULK(5) else TILES_BULK(6) else TILES_BULK(7)
#undef TILES_BULK
            } else {
                pipeline.producer_acquire();
                for (long long i = 0; i < PT; ++i) {
                    long long e = i * T + threadIdx.x;
                    cuda::memcpy_async(As + s * kTile + e, A + fetch * kTile + e, sizeof(int), pipeline);
                    cuda::memcpy_async(Bs + s * kTile + e, B + fetch * kTile + e, sizeof(int), pipeline);
                }
                pipeline.producer_commit();
            }
            fetch = fetch + 1;
        }
        mark(k, EV_ISSUED);
        long long s = k % S;
        if (BULK) {
            if (s == 0) full[0].arrive_and_wait();
            if (s == 1) full[1].arrive_and_wait();
            if (s == 2) full[2].arrive_and_wait();
            if (s == 3) full[3].arrive_and_wait();
            if (s == 4) full[4].arrive_and_wait();
            if (s == 5) full[5].arrive_and_wait();
            if (s == 6) full[6].arrive_and_wait();
            if (s == 7) full[7].arrive_and_wait();
        } else {
            pipeline.consumer_wait();
        }
        mark(k, EV_WAITED);
        int a = As[s * kTile + (long long) threadIdx.x % kTile];
        int b = Bs[s * kTile + ((long long) threadIdx.x * 5) % kTile];
        a = tcompute(a, CI);
        sink ^= (unsigned) a;
        b = tcompute(b, CI);
        sink ^= (unsigned) b;
        for (long long i = 1; i < PT; ++i) {
            a = As[s * kTile + (i * T + (long long) threadIdx.x) % kTile];
            b = Bs[s * kTile + (i * T + (long long) threadIdx.x * 5) % kTile];
            a = tcompute(a, CI);
            sink ^= (unsigned) a;
            b = tcompute(b, CI);
            sink ^= (unsigned) b;
        }
        C[k * 2 * T + threadIdx.x] = a;
        C[k * 2 * T + T + threadIdx.x] = b;
        mark(k, EV_CONSUMED);
        if (BULK) {
            __syncthreads();
        } else {
            pipeline.consumer_release();
        }
        mark(k, EV_END);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        span[0] = clk64() - t0;
    }
    if (sink == 0x7fffffffu) {
        C[0] = (int) sink;
    }
}

struct Ctx {
    int *A, *B, *C;
    unsigned long long *ts, *span;
    int4 *flush;
    size_t flush_n;
    int *sink;
};

template <int S, int T, bool BULK, int CI>
static void config(const Ctx &c, bool cold)
{
    constexpr int warps = T / 32;
    const size_t smem = 2 * S * kTile * sizeof(int) + 8 * sizeof(Bar) +
                        sizeof(cuda::pipeline_shared_state<cuda::thread_scope_block, S>);
    CK(cudaFuncSetAttribute(k_tiles<S, T, BULK, false, CI>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200000));
    CK(cudaFuncSetAttribute(k_tiles<S, T, BULK, true, CI>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200000));
    auto prep = [&] {
        if (cold) {
            k_flush_read<<<1024, 256>>>(c.flush, c.flush_n, c.sink);
        } else {
            k_tiles<S, T, BULK, false, CI><<<1, T, smem>>>(c.A, c.B, c.C, c.ts, c.span);
        }
        CKL();
    };
    const std::string key = strf("tiles.%s.S%d.T%d.C%d.%s", BULK ? "bulk" : "cpa", S, T, CI, cold ? "cold" : "warm");
    std::vector<double> per;
    for (int r = 0; r < 7; ++r) {
        prep();
        k_tiles<S, T, BULK, false, CI><<<1, T, smem>>>(c.A, c.B, c.C, c.ts, c.span);
        CKL();
        unsigned long long s;
        CK(cudaMemcpy(&s, c.span, sizeof s, cudaMemcpyDeviceToHost));
        per.push_back((double) s / kBatches);
    }
    result(key + ".batch", median_of(per), "cycles", "1 block of %d threads, %s, %d IMADs a word, %s", T,
           BULK ? "bulk copies" : "cp.async", CI, cold ? "cold" : "warm");
    std::vector<double> period, issue, wait, consume, release, ibatch;
    std::vector<unsigned long long> h((size_t) warps * kEv * kNI);
    for (int r = 0; r < 3; ++r) {
        prep();
        CK(cudaMemset(c.ts, 0, h.size() * sizeof h[0]));
        k_tiles<S, T, BULK, true, CI><<<1, T, smem>>>(c.A, c.B, c.C, c.ts, c.span);
        CKL();
        unsigned long long s;
        CK(cudaMemcpy(&s, c.span, sizeof s, cudaMemcpyDeviceToHost));
        ibatch.push_back((double) s / kBatches);
        CK(cudaMemcpy(h.data(), c.ts, h.size() * sizeof h[0], cudaMemcpyDeviceToHost));
        auto at = [&](int w, int ev, int i) { return (double) h[((size_t) w * kEv + ev) * kNI + i]; };
        for (int w = 0; w < warps; ++w) {
            for (int i = 0; i + 1 < kNI; ++i) {
                period.push_back(at(w, EV_TOP, i + 1) - at(w, EV_TOP, i));
                issue.push_back(at(w, EV_ISSUED, i) - at(w, EV_TOP, i));
                wait.push_back(at(w, EV_WAITED, i) - at(w, EV_ISSUED, i));
                consume.push_back(at(w, EV_CONSUMED, i) - at(w, EV_WAITED, i));
                release.push_back(at(w, EV_END, i) - at(w, EV_CONSUMED, i));
            }
        }
        if (r == 0) {
            const double base = at(0, EV_TOP, 0);
            for (int w = 0; w < (warps < 2 ? warps : 2); ++w) {
                for (int i = 0; i < 3; ++i) {
                    info("%s warp %d iteration %d: top=%.0f issued=%.0f waited=%.0f consumed=%.0f end=%.0f", key.c_str(),
                         w, kI0 + i, at(w, EV_TOP, i) - base, at(w, EV_ISSUED, i) - base, at(w, EV_WAITED, i) - base,
                         at(w, EV_CONSUMED, i) - base, at(w, EV_END, i) - base);
                }
            }
        }
    }
    result(key + ".ibatch", median_of(ibatch), "cycles", "the instrumented kernel, cycles a batch");
    result(key + ".period", median_of(period), "cycles", "iteration start to start");
    result(key + ".issue", median_of(issue), "cycles", "iteration start to the fetch loop's end");
    result(key + ".wait", median_of(wait), "cycles", "fetch loop end to the wait's return");
    result(key + ".consume", median_of(consume), "cycles", "wait return to the stores' end");
    result(key + ".release", median_of(release), "cycles", "stores' end to the iteration's end");
}

template <int S, int T>
static void stage(const Ctx &c)
{
    for (bool cold : {false, true}) {
        config<S, T, true, 0>(c, cold);
        config<S, T, false, 0>(c, cold);
        config<S, T, true, 16>(c, cold);
        config<S, T, false, 16>(c, cold);
    }
}

template <int T>
static void threads(const Ctx &c)
{
    stage<1, T>(c);
    stage<2, T>(c);
    stage<3, T>(c);
    stage<4, T>(c);
    stage<8, T>(c);
}

int main()
{
    Ctx c;
    const size_t tiles = (size_t) kBatches * kTile;
    CK(cudaMalloc(&c.A, tiles * sizeof(int)));
    CK(cudaMalloc(&c.B, tiles * sizeof(int)));
    CK(cudaMalloc(&c.C, (size_t) kBatches * 2 * 1024 * sizeof(int)));
    CK(cudaMemset(c.A, 1, tiles * sizeof(int)));
    CK(cudaMemset(c.B, 2, tiles * sizeof(int)));
    CK(cudaMalloc(&c.ts, sizeof(unsigned long long) * 32 * kEv * kNI));
    CK(cudaMalloc(&c.span, sizeof(unsigned long long)));
    c.flush_n = (256u << 20) / sizeof(int4);
    CK(cudaMalloc(&c.flush, c.flush_n * sizeof(int4)));
    CK(cudaMemset(c.flush, 1, c.flush_n * sizeof(int4)));
    CK(cudaMalloc(&c.sink, sizeof(int)));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    info("device %s, %d SMs", p.name, p.multiProcessorCount);
    threads<64>(c);
    threads<128>(c);
    threads<512>(c);
    return 0;
}
