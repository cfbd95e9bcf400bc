// loaded.cu - DRAM latency under load: every SM streams cp.async copies from
// DRAM with a fixed number of bytes in flight, and the achieved rate gives the
// loaded latency by Little's law (latency = bytes in flight / bytes a cycle).
//   loaded.W*.S*.rate     one block of W warps on every SM, each warp keeping S
//                         groups of one 512-byte cp.async.cg (16 bytes a lane)
//                         in flight (commit, then wait_group S-1): bytes a
//                         cycle an SM (block span, median over SMs and 5 runs)
//   loaded.W*.S*.latency  W x S x 512 / rate: cycles from a copy's issue to
//                         its completion at that load
//   loadedw.W*.S*.*       the same, and each warp then stores the 512 bytes a
//                         copy brought (ld.shared, st.global.cg) to a second
//                         buffer, as the guide kernels do: DRAM carries writes
//                         too (rate counts the bytes read)
// Each launch reads a fresh part of a 2 GiB buffer (cold: no line is reused
// within a run, and 2 GiB is 40x L2), and writes a fresh part of another.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o loaded loaded.cu
#include "common.cuh"

constexpr int kIters = 96;             // copies a warp measures, after S to fill the pipe
constexpr size_t kBuf = 2ull << 30;    // bytes

template <int S, bool WRITE>
__global__ void k_loaded(const char *buf, char *dst, size_t base, unsigned long long *out)
{
    extern __shared__ __align__(16) char smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warps = blockDim.x / 32;
    // This warp's copies: consecutive 512-byte chunks, warps and blocks interleaved.
    const size_t stride = (size_t) gridDim.x * warps * 512;
    const char *src = buf + base + ((size_t) blockIdx.x * warps + warp) * 512 + lane * 16;
    char *to = dst + base + ((size_t) blockIdx.x * warps + warp) * 512 + lane * 16;
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
        if (WRITE) {
            // The copy i - S landed: store its bytes (before its slot is reused).
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
        out[3 * blockIdx.x] = t0;
        out[3 * blockIdx.x + 1] = t1;
        out[3 * blockIdx.x + 2] = smid();
    }
}

template <int S, bool WRITE>
static void row(const char *d_buf, char *d_dst, unsigned long long *d_out, int sms, std::vector<unsigned long long> &h,
                size_t *base)
{
    CK(cudaFuncSetAttribute(k_loaded<S, WRITE>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    const char *name = WRITE ? "loadedw" : "loaded";
    for (int w : {1, 2, 4, 8, 16, 32}) {
        if (w * S * 512 > 200 * 1024) {
            continue;  // more shared memory than a block may have
        }
        const size_t bytes_run = (size_t) sms * w * 512 * (S + kIters);
        std::vector<double> per;
        for (int r = 0; r < 6; ++r) {
            if (*base + bytes_run > kBuf) {
                *base = 0;
            }
            k_loaded<S, WRITE><<<sms, 32 * w, w * S * 512>>>(d_buf, d_dst, *base, d_out);
            CKL();
            *base += bytes_run;
            if (r == 0) {
                continue;  // warm-up launch
            }
            CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 3 * sms, cudaMemcpyDeviceToHost));
            std::vector<double> spans;
            for (int b = 0; b < sms; ++b) {
                spans.push_back((double) (h[3 * b + 1] - h[3 * b]));
            }
            per.push_back(median_of(spans));
        }
        double span = median_of(per);
        double rate = (double) w * 512 * kIters / span;
        char key[64];
        snprintf(key, sizeof key, "%s.W%d.S%d.rate", name, w, S);
        result(key, rate, "bytes/cycle",
               "%d SMs x 1 block of %d warps, %d cp.async.cg groups of 512 B in flight a warp, from DRAM%s: bytes read a cycle an SM, median over SMs and 5 runs",
               sms, w, S, WRITE ? ", each stored again" : "");
        snprintf(key, sizeof key, "%s.W%d.S%d.latency", name, w, S);
        result(key, (double) w * S * 512 / rate, "cycles",
               "the same: bytes in flight (%d) / rate, Little's law", w * S * 512);
    }
}

int main()
{
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    char *d_buf, *d_dst;
    CK(cudaMalloc(&d_buf, kBuf));
    CK(cudaMalloc(&d_dst, kBuf));
    CK(cudaMemset(d_buf, 1, kBuf));
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 3 * sms));
    std::vector<unsigned long long> h(3 * sms);
    size_t base = 0;
    row<1, false>(d_buf, d_dst, d_out, sms, h, &base);
    row<2, false>(d_buf, d_dst, d_out, sms, h, &base);
    row<4, false>(d_buf, d_dst, d_out, sms, h, &base);
    row<8, false>(d_buf, d_dst, d_out, sms, h, &base);
    row<16, false>(d_buf, d_dst, d_out, sms, h, &base);
    row<1, true>(d_buf, d_dst, d_out, sms, h, &base);
    row<2, true>(d_buf, d_dst, d_out, sms, h, &base);
    row<4, true>(d_buf, d_dst, d_out, sms, h, &base);
    row<8, true>(d_buf, d_dst, d_out, sms, h, &base);
    CK(cudaFree(d_buf));
    CK(cudaFree(d_dst));
    CK(cudaFree(d_out));
    return 0;
}
