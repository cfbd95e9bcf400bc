// mixq.cu - does a warp's shared-memory load wait behind its own cp.async?
//
// A CUTLASS-style mainloop issues a k-tile's cp.async (LDGSTS) and then its
// fragment loads (LDS) back to back in each warp.  ldsq.cu times the loads
// alone (one 16-byte ld.shared every 9.1 cycles for a lone warp) and
// contend.cu the copies alone (one cp.async every 6.3 cycles).  This asks
// whether the two share the warp's path: each round a warp issues K
// cp.async.cg of 16 bytes a lane (L2-resident source, commit, then a
// wait_group 1 at the next round's start, so one round's copies stay in
// flight, as in the mainloop) and K ld.shared.v4 at immediate offsets whose
// XOR the next round's load base waits for.  Cycles a round (the warps'
// mean, median of 7 launches), one block of W warps alone:
//
//  * mixq.cp.K<k>.W<w>:    the copies alone (and the wait)
//  * mixq.ld.K<k>.W<w>:    the loads alone
//  * mixq.cpld.K<k>.W<w>:  the copies, then the loads
//  * mixq.ldcp.K<k>.W<w>:  the loads, then the copies
//
// If the round of cpld is about cp + ld, the warp pays both in turn; if it is
// nearer max(cp, ld), the loads issue while the copies drain.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o mixq mixq.cu
#include "common.cuh"

constexpr int kRounds = 256;

enum { CP = 1, LD = 2, CPLD = 3, LDCP = 4 };

template <int K, int MODE>
__global__ void k_mix(const uint4 *src, int zero, unsigned long long *out)
{
    __shared__ __align__(128) uint4 dst[2][8][128];
    __shared__ __align__(128) uint32_t buf[4096];
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) {
        buf[i] = i * 2654435761u;
    }
    __syncthreads();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t lbase = smem_u32(buf) + lane * 16;
    uint32_t sink = 0;
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int r = 0; r < kRounds; ++r) {
        if (MODE != LD) {
            asm volatile("cp.async.wait_group 1;" ::: "memory");
        }
        const uint4 *g = src + ((size_t) (r * 8 + warp) % 4096) * 32 * K + lane;
        auto copies = [&]() {
#pragma unroll
            for (int j = 0; j < K; ++j) {
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                                 smem_u32(&dst[r & 1][j % 8][(warp % 4) * 32 + lane])),
                             "l"(g + j * 32)
                             : "memory");
            }
            asm volatile("cp.async.commit_group;" ::: "memory");
        };
        uint32_t x = 0;
        auto loads = [&]() {
            uint32_t b = lbase + (((uint32_t) r & 1u) << 12) + (sink & (uint32_t) zero);
            uint32_t v[K][4];
#pragma unroll
            for (int j = 0; j < K; ++j) {
                asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                             : "=r"(v[j][0]), "=r"(v[j][1]), "=r"(v[j][2]), "=r"(v[j][3])
                             : "r"(b + j * 512)
                             : "memory");
            }
#pragma unroll
            for (int j = 0; j < K; ++j) {
                x ^= v[j][0] ^ v[j][1] ^ v[j][2] ^ v[j][3];
            }
        };
        if (MODE == CP) {
            copies();
        } else if (MODE == LD) {
            loads();
        } else if (MODE == CPLD) {
            copies();
            loads();
        } else {
            loads();
            copies();
        }
        sink += x;
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    unsigned long long t1 = clk();
    warp_times(out, t0, t1);
    if ((sink ^ dst[0][0][threadIdx.x % 128].x) == 0x12345u + (uint32_t) zero) {
        out[1023] = sink;
    }
}

template <int K, int MODE>
static double rounds(int w, const uint4 *src, unsigned long long *d_out)
{
    std::vector<double> per;
    std::vector<unsigned long long> h(2 * w);
    for (int rep = 0; rep < 7; ++rep) {
        k_mix<K, MODE><<<1, 32 * w>>>(src, 0, d_out);
        CKL();
        CK(cudaMemcpy(h.data(), d_out, h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost));
        double sum = 0;
        for (int i = 0; i < w; ++i) {
            sum += (double) (h[2 * i + 1] - h[2 * i]);
        }
        per.push_back(sum / w / kRounds);
    }
    return median_of(per);
}

template <int K>
static void rows(int w, const uint4 *src, unsigned long long *d_out)
{
    const char *n = "1 block of %d warps alone; cycles a round of %d 16-byte %s";
    result(strf("mixq.cp.K%d.W%d", K, w), rounds<K, CP>(w, src, d_out), "cycles", n, w, K,
           "cp.async.cg (commit; wait_group 1 at the round's start)");
    result(strf("mixq.ld.K%d.W%d", K, w), rounds<K, LD>(w, src, d_out), "cycles", n, w, K,
           "ld.shared.v4 whose XOR the next round's base waits for");
    result(strf("mixq.cpld.K%d.W%d", K, w), rounds<K, CPLD>(w, src, d_out), "cycles", n, w, K,
           "cp.async.cg then as many ld.shared.v4");
    result(strf("mixq.ldcp.K%d.W%d", K, w), rounds<K, LDCP>(w, src, d_out), "cycles", n, w, K,
           "ld.shared.v4 then as many cp.async.cg");
}

int main()
{
    CK(cudaSetDevice(0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    info("device=%s sms=%d", prop.name, prop.multiProcessorCount);
    unsigned long long *d_out;
    uint4 *src;
    const size_t n = (size_t) 4096 * 32 * 8 + 8 * 32;
    CK(cudaMalloc(&d_out, 1024 * sizeof(unsigned long long)));
    CK(cudaMalloc(&src, n * sizeof(uint4)));
    CK(cudaMemset(src, 3, n * sizeof(uint4)));
    for (int w : {1, 4, 8}) {
        rows<4>(w, src, d_out);
        rows<8>(w, src, d_out);
    }
    return 0;
}
