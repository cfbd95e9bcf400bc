// alu.cu - how fast a sub-partition issues the integer instructions that
// loop control, address arithmetic and the library's pipeline bookkeeping
// compile to (IADD3, LOP3, ISETP, SHF, SEL, LEA on the ALU pipe; IMAD and its
// aliases on the FMA pipe), when many warps run them:
//   alu.lop3.W*   W warps in one block, each thread 8 independent chains of
//                 lop3.b32 (ALU pipe only): cycles per warp-instruction per
//                 sub-partition (span x 4 / (instructions x W)).
//   alu.mix.W*    the same alternating lop3.b32 and mad.lo.u32 (ALU and FMA
//                 pipes in turn): do the two pipes issue in alternate cycles?
//   alu.imad.W*   mad.lo.u32 only (FMA pipe), for comparison with divmod.cu.
//   trywait.W*    W warps, each thread 8 try_waits a loop iteration on an
//                 mbarrier phase that has already completed (what a pipeline
//                 call's fast path does): SM cycles per warp-try_wait (span /
//                 (try_waits x W)); flat if try_waits do not pass one unit.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o alu alu.cu
#include "common.cuh"
#include "mbarrier.cuh"

constexpr int kLoops = 64;
constexpr int kChains = 8;
constexpr int kDepth = 8;  // instructions per chain per loop iteration

// MODE 0: lop3 only, 1: lop3 and mad alternating, 2: mad only.
template <int MODE>
__global__ void k_alu(unsigned seed, unsigned *sink, unsigned long long *out)
{
    unsigned v[kChains];
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
        v[c] = seed + threadIdx.x * 7u + (unsigned) c;
    }
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = 0; i < kLoops; ++i) {
#pragma unroll
        for (int d = 0; d < kDepth; ++d) {
#pragma unroll
            for (int c = 0; c < kChains; ++c) {
                if (MODE == 0 || (MODE == 1 && (c & 1) == 0)) {
                    asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(v[c]) : "r"(0x9e3779b9u), "r"((unsigned) d));
                } else {
                    asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(v[c]) : "r"(1664525u), "r"(1013904223u));
                }
            }
        }
    }
    unsigned long long t1 = clk();
    unsigned s = 0;
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
        s ^= v[c];
    }
    sink[threadIdx.x] = s;
    warp_times(out, t0, t1);
}

__global__ void k_trywait(unsigned *sink, unsigned long long *out)
{
    __shared__ alignas(8) unsigned long long bar;
    const uint32_t b = smem_u32(&bar);
    if (threadIdx.x == 0) {
        mbar_init(b, 1);
    }
    fence_init();
    __syncthreads();
    unsigned ok = 0;
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = 0; i < kLoops; ++i) {
#pragma unroll
        for (int d = 0; d < 8; ++d) {
            ok += mbar_try_wait(b, 1);  // parity 1: the phase before the current one, complete
        }
    }
    unsigned long long t1 = clk();
    sink[threadIdx.x] = ok;
    warp_times(out, t0, t1);
}

template <int MODE>
static void alu_row(const char *name, const char *what, unsigned *d_sink, unsigned long long *d_out,
                    std::vector<unsigned long long> &h)
{
    sched_row(strf("alu.%s", name),
              strf("%d independent chains of %s per thread: span per warp-instruction per sub-partition, median of 7",
                   kChains, what),
              (double) kLoops * kDepth * kChains, [&](int w) { k_alu<MODE><<<1, 32 * w>>>(12345u, d_sink, d_out); },
              d_out, h);
}

int main()
{
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 2 * 32));
    std::vector<unsigned long long> h(2 * 32);
    unsigned *d_sink;
    CK(cudaMalloc(&d_sink, sizeof(unsigned) * 1024));
    alu_row<0>("lop3", "lop3.b32", d_sink, d_out, h);
    alu_row<1>("mix", "lop3.b32 and mad.lo.u32 alternating", d_sink, d_out, h);
    alu_row<2>("imad", "mad.lo.u32", d_sink, d_out, h);
    for (int w : {1, 2, 4, 8, 16, 32}) {
        double s = warps_span([&] { k_trywait<<<1, 32 * w>>>(d_sink, d_out); }, w, d_out, h);
        char key[64];
        snprintf(key, sizeof key, "trywait.W%d", w);
        result(key, s / ((double) kLoops * 8 * w), "cycles",
               "1 block, %d warps, 8 try_waits a loop iteration on a completed phase: SM span per warp-try_wait, median of 7", w);
    }
    CK(cudaFree(d_out));
    CK(cudaFree(d_sink));
    return 0;
}
