// flashq.cu - where flash_attention's producer time goes (the thirty-second
// round).  flashparts.trace found that the tile's two group memcpy_async (8 KiB
// each, 128 threads, a pipeline<thread_scope_block>) add about 380 cycles a
// tile at 2 and at 4 stages, in series with the warps' compute, where
// ldgstsq.cu shows the SM taking 16-byte cp.async.cg at 1.7-2.2 cycles a warp
// instruction.  This kernel is that loop without compute or fragment loads,
// written as `smpipe cuda` writes it (libcudacxx's memcpy_async(block, ...)),
// one block alone, 512 tiles, L2-resident (an untimed launch first).  Rows
// for tiles of 2, 4, 8 and 16 KiB (each of K and V) at 128 threads, copies
// by the library (on), left out (off: acquire, empty commit, wait, release)
// or issued as the same chunks in unrolled cp.async.cg (asm), 2 and 4
// stages; and the 8 KiB tiles with 32 to 512 threads (.T*):
//   flashq.<on|off|asm>.B*.S*[.T*].period   cycles a tile of the plain kernel
//   flashq.<...>.<step>   the instrumented kernel's medians over warps and 64
//                         steady tiles (lane 0 of every warp reads the clock
//                         at each step; the reads add about 10 cycles a step):
//     acquire   tile start to producer_acquire's return
//     copy      to the second memcpy_async's return
//     commit    to producer_commit's return
//     wait      to consumer_wait's return
//     release   to consumer_release's return (the tile's end)
// What it shows (docs/validation.md): the library's copy step costs a warp 63
// cycles a call and 37 a pass of its per-thread loop (one cp.async a pass),
// whatever the warps around it; unrolled, 6-11 cycles a cp.async.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o flashq flashq.cu
#include <cooperative_groups.h>
#include <cuda/pipeline>

#include "common.cuh"

namespace cg = cooperative_groups;

constexpr int kTiles = 512;
constexpr int kI0 = 128;   // first instrumented tile
constexpr int kNI = 64;    // instrumented tiles
constexpr int kEv = 6;     // clock reads a tile
enum { EV_TOP, EV_ACQ, EV_COPY, EV_COMMIT, EV_WAIT, EV_END };
static const char *const kStep[] = {"acquire", "copy", "commit", "wait", "release"};

template <int T, int TILE, int S, int COPIES, bool INSTR>
__global__ void k_flash(const int4 *K, const int4 *V, unsigned long long *out)
{
    extern __shared__ __align__(128) int4 smem[];
    int4 *Ks = smem;
    int4 *Vs = smem + S * TILE;
    __shared__ SmemObj<cuda::pipeline_shared_state<cuda::thread_scope_block, S>> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, state.get());
    const bool rec = INSTR && threadIdx.x % 32 == 0;
    unsigned long long *o = out + (size_t) (threadIdx.x / 32) * kNI * kEv;
    unsigned long long t0 = clk();
    int fetch = 0;
#pragma unroll 1
    for (int j = 0; j < kTiles; ++j) {
        const bool on = rec && j >= kI0 && j < kI0 + kNI;
        unsigned long long *e = o + (j - kI0) * kEv;
        if (on) {
            e[EV_TOP] = clk();
        }
#pragma unroll 1
        for (; fetch < kTiles && fetch < j + S; ++fetch) {
            pipe.producer_acquire();
            if (on) {
                e[EV_ACQ] = clk();
            }
            const int s = fetch % S;
            if (COPIES == 1) {
                cuda::memcpy_async(block, Ks + s * TILE, K + (size_t) fetch * TILE, sizeof(int4) * TILE, pipe);
                cuda::memcpy_async(block, Vs + s * TILE, V + (size_t) fetch * TILE, sizeof(int4) * TILE, pipe);
            } else if (COPIES == 2) {
                /* the same chunks as unrolled cp.async.cg, without the library's loop */
#pragma unroll
                for (int c = 0; c < TILE / T; ++c) {
                    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_u32(Ks + s * TILE + c * T + threadIdx.x)),
                                 "l"(K + (size_t) fetch * TILE + c * T + threadIdx.x) : "memory");
                }
#pragma unroll
                for (int c = 0; c < TILE / T; ++c) {
                    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_u32(Vs + s * TILE + c * T + threadIdx.x)),
                                 "l"(V + (size_t) fetch * TILE + c * T + threadIdx.x) : "memory");
                }
            }
            if (on) {
                e[EV_COPY] = clk();
            }
            pipe.producer_commit();
            if (on) {
                e[EV_COMMIT] = clk();
            }
        }
        pipe.consumer_wait();
        if (on) {
            e[EV_WAIT] = clk();
        }
        pipe.consumer_release();
        if (on) {
            e[EV_END] = clk();
        }
    }
    unsigned long long t1 = clk();
    if (!INSTR && threadIdx.x % 32 == 0) {
        out[2 * (threadIdx.x / 32)] = t0;
        out[2 * (threadIdx.x / 32) + 1] = t1;
    }
}

template <int T, int TILE, int S, int COPIES>
static void row(const int4 *K, const int4 *V, unsigned long long *d_out)
{
    const size_t shm = sizeof(int4) * 2 * S * TILE;
    CK(cudaFuncSetAttribute(k_flash<T, TILE, S, COPIES, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) shm));
    CK(cudaFuncSetAttribute(k_flash<T, TILE, S, COPIES, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) shm));
    const int w = T / 32;
    std::vector<unsigned long long> h((size_t) w * kNI * kEv);
    std::vector<double> period;
    k_flash<T, TILE, S, COPIES, false><<<1, T, shm>>>(K, V, d_out);  // warms L2
    CKL();
    for (int r = 0; r < 7; ++r) {
        k_flash<T, TILE, S, COPIES, false><<<1, T, shm>>>(K, V, d_out);
        CKL();
        CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 2 * w, cudaMemcpyDeviceToHost));
        unsigned long long lo = ~0ull, hi = 0;
        for (int i = 0; i < w; ++i) {
            lo = std::min(lo, h[2 * i]);
            hi = std::max(hi, h[2 * i + 1]);
        }
        period.push_back((double) (hi - lo) / kTiles);
    }
    static const char *const form[] = {"off", "on", "asm"};
    const std::string key = strf("flashq.%s.B%d.S%d%s", form[COPIES], TILE * 16 / 1024, S, T == 128 ? "" : strf(".T%d", T).c_str());
    result(key + ".period", median_of(period), "cycles",
           "1 block of %d threads alone, two %d-byte group memcpy_async a tile (%s), pipeline<block> of %d stages, "
           "L2-resident: cycles a tile", T, TILE * 16, COPIES == 1 ? "issued" : COPIES == 2 ? "as unrolled cp.async.cg" : "left out", S);
    std::vector<std::vector<double>> step(5);
    for (int r = 0; r < 3; ++r) {
        k_flash<T, TILE, S, COPIES, true><<<1, T, shm>>>(K, V, d_out);
        CKL();
        CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * h.size(), cudaMemcpyDeviceToHost));
        for (int i = 0; i < w; ++i) {
            for (int t = 0; t < kNI; ++t) {
                const unsigned long long *e = &h[((size_t) i * kNI + t) * kEv];
                for (int k = 0; k < 5; ++k) {
                    step[k].push_back((double) (e[k + 1] - e[k]));
                }
            }
        }
    }
    for (int k = 0; k < 5; ++k) {
        result(key + "." + kStep[k], median_of(step[k]), "cycles",
               "the same, instrumented: median over warps and %d tiles of the %s step", kNI, kStep[k]);
    }
}

template <int TILE>
static void rows(const int4 *K, const int4 *V, unsigned long long *d_out)
{
    row<128, TILE, 2, 1>(K, V, d_out);
    row<128, TILE, 2, 0>(K, V, d_out);
    row<128, TILE, 4, 1>(K, V, d_out);
    row<128, TILE, 2, 2>(K, V, d_out);
}

int main()
{
    int4 *K, *V;
    unsigned long long *d_out;
    const size_t n = (size_t) kTiles * 1024;
    CK(cudaMalloc(&K, n * sizeof(int4)));
    CK(cudaMalloc(&V, n * sizeof(int4)));
    CK(cudaMemset(K, 1, n * sizeof(int4)));
    CK(cudaMemset(V, 2, n * sizeof(int4)));
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 16 * kNI * kEv));
    rows<128>(K, V, d_out);
    rows<256>(K, V, d_out);
    rows<512>(K, V, d_out);
    rows<1024>(K, V, d_out);
    /* the 8 KiB tiles with 1 to 16 warps: a warp's cost or the SM's? */
    row<32, 512, 2, 1>(K, V, d_out);
    row<64, 512, 2, 1>(K, V, d_out);
    row<256, 512, 2, 1>(K, V, d_out);
    row<512, 512, 2, 1>(K, V, d_out);
    row<32, 512, 2, 2>(K, V, d_out);
    row<64, 512, 2, 2>(K, V, d_out);
    row<256, 512, 2, 2>(K, V, d_out);
    row<512, 512, 2, 2>(K, V, d_out);
    CK(cudaFree(K));
    CK(cudaFree(V));
    CK(cudaFree(d_out));
    return 0;
}
