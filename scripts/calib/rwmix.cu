// rwmix.cu - what DRAM delivers when a stream both reads and writes: every SM
// streams cp.async copies from DRAM (one block of W warps, each warp keeping S
// groups of one 512-byte cp.async.cg in flight, as loaded.cu) for long enough
// that the L2 must write back what the warps store (each launch reads and
// writes ten times the L2), and stores a share of the landed bytes to a second
// buffer (ld.shared, st.global.cg), as the guide kernels store their results:
//   rwmix.W*.S*.M0.total  reads only: bytes a cycle an SM (block span, median
//                         over SMs and 3 runs)
//   rwmix.W*.S*.M2.total  every second copy's bytes stored again: a third of
//                         the DRAM traffic writes; bytes read + written a
//                         cycle an SM
//   rwmix.W*.S*.M1.total  every copy's bytes stored again: half of it writes
//   rwmix.W*.S*.M*.read   the bytes read a cycle an SM alone
// loaded.cu's loadedw runs 96 copies a warp, short enough for the L2 to hold
// many of the stores it measures; this one runs 1024.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o rwmix rwmix.cu
#include "common.cuh"

constexpr int kIters = 1024;           // copies a warp measures, after S to fill the pipe
constexpr size_t kBuf = 3ull << 30;    // bytes of each buffer

// MODE 0: no stores; 1: every copy stored again; 2: every second copy.
// The streaming loop is loaded.cu's k_loaded with the store share as a
// parameter. It is not shared with loaded.cu: folding both into one helper
// changes k_loaded's compiled timed loop (instruction order and one more
// instruction, cuobjdump of both on the H100), and loaded_*.txt must stay
// what that program measured.
template <int S, int MODE>
__global__ void k_rw(const char *buf, char *dst, unsigned long long *out)
{
    extern __shared__ __align__(16) char smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warps = blockDim.x / 32;
    const size_t stride = (size_t) gridDim.x * warps * 512;
    const char *src = buf + ((size_t) blockIdx.x * warps + warp) * 512 + lane * 16;
    char *to = dst + ((size_t) blockIdx.x * warps + warp) * 512 + lane * 16;
    const int4 *slot = (const int4 *) (smem + warp * S * 512 + lane * 16);
    const uint32_t ring = smem_u32(smem + warp * S * 512 + lane * 16);
    for (int i = 0; i < S; ++i) {
        cpa_cg16(ring + (i % S) * 512, src + (size_t) i * stride);
        cpa_commit();
    }
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = S; i < S + kIters; ++i) {
        cpa_wait<S - 1>();
        if (MODE == 1 || (MODE == 2 && (i & 1))) {
            int4 v = slot[((i - S) % S) * 32];
            asm volatile("st.global.cg.v4.s32 [%0], {%1, %2, %3, %4};" ::"l"(to + (size_t) (i - S) * stride),
                         "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
        }
        cpa_cg16(ring + (i % S) * 512, src + (size_t) i * stride);
        cpa_commit();
    }
    cpa_wait<0>();
    __syncthreads();
    unsigned long long t1 = clk();
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = t0;
        out[2 * blockIdx.x + 1] = t1;
    }
}

template <int S, int MODE>
static void row(const char *d_buf, char *d_dst, unsigned long long *d_out, int sms, std::vector<unsigned long long> &h,
                L2Flusher &fl)
{
    CK(cudaFuncSetAttribute(k_rw<S, MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    for (int w : {8, 16, 32}) {
        if (w * S * 512 > 200 * 1024) {
            continue;
        }
        if ((size_t) sms * w * 512 * (S + kIters) > kBuf) {
            continue;
        }
        std::vector<double> per;
        for (int r = 0; r < 4; ++r) {
            fl.flush();
            k_rw<S, MODE><<<sms, 32 * w, w * S * 512>>>(d_buf, d_dst, d_out);
            CKL();
            if (r == 0) {
                continue;  // warm-up launch
            }
            CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 2 * sms, cudaMemcpyDeviceToHost));
            std::vector<double> spans;
            for (int b = 0; b < sms; ++b) {
                spans.push_back((double) (h[2 * b + 1] - h[2 * b]));
            }
            per.push_back(median_of(spans));
        }
        double span = median_of(per);
        double read = (double) w * 512 * kIters / span;
        double written = MODE == 1 ? read : MODE == 2 ? read / 2 : 0.0;
        const char *share = MODE == 1 ? "every copy stored again (half the traffic writes)"
                            : MODE == 2 ? "every second copy stored again (a third of the traffic writes)"
                                        : "reads only";
        result(strf("rwmix.W%d.S%d.M%d.total", w, S, MODE), read + written, "bytes/cycle",
               "%d SMs x 1 block of %d warps, %d cp.async.cg groups of 512 B in flight a warp, %d copies a warp from "
               "DRAM, %s: bytes read and written a cycle an SM, median over SMs and 3 runs",
               sms, w, S, kIters, share);
        result(strf("rwmix.W%d.S%d.M%d.read", w, S, MODE), read, "bytes/cycle", "the same: bytes read alone");
    }
}

int main()
{
    print_device();
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    char *d_buf, *d_dst;
    CK(cudaMalloc(&d_buf, kBuf));
    CK(cudaMalloc(&d_dst, kBuf));
    CK(cudaMemset(d_buf, 1, kBuf));
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 2 * sms));
    std::vector<unsigned long long> h(2 * sms);
    L2Flusher fl;
    fl.init(128ull << 20);
    row<4, 0>(d_buf, d_dst, d_out, sms, h, fl);
    row<4, 1>(d_buf, d_dst, d_out, sms, h, fl);
    row<4, 2>(d_buf, d_dst, d_out, sms, h, fl);
    row<8, 0>(d_buf, d_dst, d_out, sms, h, fl);
    row<8, 1>(d_buf, d_dst, d_out, sms, h, fl);
    row<8, 2>(d_buf, d_dst, d_out, sms, h, fl);
    CK(cudaFree(d_buf));
    CK(cudaFree(d_dst));
    CK(cudaFree(d_out));
    fl.release();
    return 0;
}
