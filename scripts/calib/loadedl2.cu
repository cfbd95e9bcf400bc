// loadedl2.cu - L2 latency under load: loaded.cu's copies from an L2-resident
// window instead of DRAM.  Every warp keeps S groups of one 512-byte
// cp.async.cg (16 bytes a lane) in flight (commit, then wait_group S-1);
// the achieved rate gives the loaded latency by Little's law.
//   loadedl2.W*.S*.rate         one block of W warps on every SM: bytes a
//                               cycle an SM (block span, median over SMs and
//                               5 runs)
//   loadedl2.W*.S*.latency      W x S x 512 / rate
//   loadedl2.alone.W*.S*.*      the same with one block on the whole GPU
// The copies wrap in a 16 MiB window (a third of the L2) with a mask, not a
// modulo: stream.cu's l2 rows wrap with a 64-bit `%` in the copy loop, whose
// cost makes them slower than its DRAM rows, so they do not time the L2.
// The first launch of each row warms the window and is not counted.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o loadedl2 loadedl2.cu
#include "common.cuh"

constexpr int kIters = 96;                 // copies a warp measures, after S to fill the pipe
constexpr size_t kWindow = 16ull << 20;    // bytes, a power of two

template <int S>
__global__ void k_loaded_l2(const char *buf, unsigned long long *out)
{
    extern __shared__ __align__(16) char smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warps = blockDim.x / 32;
    // This warp's copies: consecutive 512-byte chunks, warps and blocks
    // interleaved, as loaded.cu, wrapped into the window.
    const size_t first = ((size_t) blockIdx.x * warps + warp) * 512;
    const size_t stride = (size_t) gridDim.x * warps * 512;
    const size_t mask = kWindow - 1;
    const char *src = buf + lane * 16;
    const uint32_t ring = smem_u32(smem + warp * S * 512 + lane * 16);
    for (int i = 0; i < S; ++i) {
        cpa_cg16(ring + (i % S) * 512, src + ((first + (size_t) i * stride) & mask));
        cpa_commit();
    }
    __syncthreads();
    unsigned long long t0 = clk();
#pragma unroll 1
    for (int i = S; i < S + kIters; ++i) {
        cpa_wait<S - 1>();
        cpa_cg16(ring + (i % S) * 512, src + ((first + (size_t) i * stride) & mask));
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

template <int S>
static void row(const char *d_buf, unsigned long long *d_out, int sms, std::vector<unsigned long long> &h, bool alone)
{
    CK(cudaFuncSetAttribute(k_loaded_l2<S>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    const int grid = alone ? 1 : sms;
    for (int w : {1, 2, 4, 8, 16, 32}) {
        if (w * S * 512 > 200 * 1024) {
            continue;  // more shared memory than a block may have
        }
        std::vector<double> per;
        for (int r = 0; r < 6; ++r) {
            k_loaded_l2<S><<<grid, 32 * w, w * S * 512>>>(d_buf, d_out);
            CKL();
            if (r == 0) {
                continue;  // warms the window
            }
            CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 3 * grid, cudaMemcpyDeviceToHost));
            std::vector<double> spans;
            for (int b = 0; b < grid; ++b) {
                spans.push_back((double) (h[3 * b + 1] - h[3 * b]));
            }
            per.push_back(median_of(spans));
        }
        double span = median_of(per);
        double rate = (double) w * 512 * kIters / span;
        char key[64];
        snprintf(key, sizeof key, "loadedl2.%sW%d.S%d.rate", alone ? "alone." : "", w, S);
        result(key, rate, "bytes/cycle",
               "%d block(s) of %d warps, %s, %d cp.async.cg groups of 512 B in flight a warp, from a 16 MiB window warm in"
               " L2: bytes read a cycle an SM, median over SMs and 5 runs",
               grid, w, alone ? "one block alone" : "one on every SM", S);
        snprintf(key, sizeof key, "loadedl2.%sW%d.S%d.latency", alone ? "alone." : "", w, S);
        result(key, (double) w * S * 512 / rate, "cycles", "the same: bytes in flight (%d) / rate, Little's law",
               w * S * 512);
    }
}

int main()
{
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    char *d_buf;
    CK(cudaMalloc(&d_buf, kWindow));
    CK(cudaMemset(d_buf, 1, kWindow));
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 3 * sms));
    std::vector<unsigned long long> h(3 * sms);
    for (bool alone : {false, true}) {
        row<1>(d_buf, d_out, sms, h, alone);
        row<2>(d_buf, d_out, sms, h, alone);
        row<4>(d_buf, d_out, sms, h, alone);
        row<8>(d_buf, d_out, sms, h, alone);
        row<16>(d_buf, d_out, sms, h, alone);
    }
    CK(cudaFree(d_buf));
    CK(cudaFree(d_out));
    return 0;
}
