// burst.cu - what one SM's burst of copies costs when every SM of the GPU
// runs the same loop at its own phase (issue 16: "what the busy GPU
// shares").  A block of 128 threads (one block an SM: it asks for 128 KiB of
// shared memory) repeats: every thread issues K cp.async.cg of 16 bytes
// (a burst of 2 K KiB), commit, wait_group 0, __syncthreads, then spins Z
// cycles on clock64 (no memory traffic), __syncthreads.  Per SM: cycles a
// batch (the block's span over the batches) and the burst, from the issue to
// the end of the wait (thread 0's clock, the mean over the batches); the
// median over the SMs holding one block and over 5 runs.
//   burst.<src>.K*.Z*.<grid>.batch   cycles a batch
//   burst.<src>.K*.Z*.<grid>.burst   cycles from the first issue to the wait's end
// src:  dram (every batch a fresh chunk, L2 flushed before each launch), l2
//       (chunks wrap in a 16 MiB window, warmed by a launch first).
// grid: alone (one block on the GPU), gpu1 (one block on every SM).
// With Z = 0 every SM streams; as Z grows the SMs' bursts overlap less and
// each finds the chip's bandwidth less shared.
// `burst occ` instead runs B = 1, 2 or 4 blocks on every SM (each asks for
// 200 / B KiB of shared memory, so that B fit) at more gaps, 16 KiB and (B
// < 4) 64 KiB bursts:
//   burst.occ.<src>.K*.Z*.B*.batch / .burst   as above, blocks' medians
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o burst burst.cu
#include "common.cuh"

constexpr int kThreads = 128;
constexpr int kBatches = 64;
constexpr size_t kSmem = 128u << 10;
constexpr size_t kL2Window = 16u << 20;

template <int K>
__global__ void k_burst(const char *src, size_t wrap, long long z, unsigned long long *out)
{
    extern __shared__ __align__(128) char ring[];
    const size_t chunk = (size_t) kThreads * 16 * K;
    const uint32_t base = smem_u32(ring) + threadIdx.x * 16;
    unsigned long long burst = 0;
    __syncthreads();
    unsigned long long t0 = clk();
    for (int b = 0; b < kBatches; ++b) {
        size_t c = (size_t) b * gridDim.x + blockIdx.x;
        const char *from = src + (wrap ? c % wrap : c) * chunk + threadIdx.x * 16;
        unsigned long long ti = clk();
#pragma unroll
        for (int k = 0; k < K; ++k) {
            cpa_cg16(base + (uint32_t) (k * kThreads * 16), from + (size_t) k * kThreads * 16);
        }
        cpa_commit();
        cpa_wait<0>();
        __syncthreads();
        burst += clk() - ti;
        if (z > 0) {
            unsigned long long ts = clk();
            while ((long long) (clk() - ts) < z) {
            }
        }
        __syncthreads();
    }
    unsigned long long t1 = clk();
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x] = t1 - t0;
        out[3 * blockIdx.x + 1] = burst;
        out[3 * blockIdx.x + 2] = smid();
    }
}

static L2Flusher g_flush;

template <int K>
static void row(const char *src, int sms, unsigned long long *d_out, std::vector<unsigned long long> &h)
{
    const size_t chunk = (size_t) kThreads * 16 * K;
    CK(cudaFuncSetAttribute(k_burst<K>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) kSmem));
    for (int dram = 1; dram >= 0; --dram) {
        const size_t wrap = dram ? 0 : kL2Window / chunk;
        for (long long z : {0LL, 250LL, 500LL, 1000LL, 2000LL, 4000LL, 8000LL}) {
            for (int gpu = 0; gpu <= 1; ++gpu) {
                const int grid = gpu ? sms : 1;
                if (!dram) {
                    k_burst<K><<<grid, kThreads, kSmem>>>(src, wrap, z, d_out);  // warm the window
                    CKL();
                }
                std::vector<double> per, bur;
                for (int r = 0; r < 5; ++r) {
                    if (dram) {
                        g_flush.flush();
                    }
                    k_burst<K><<<grid, kThreads, kSmem>>>(src, wrap, z, d_out);
                    CKL();
                    CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 3 * grid, cudaMemcpyDeviceToHost));
                    std::vector<int> nb(1024, 0);
                    for (int k = 0; k < grid; ++k) {
                        nb[h[3 * k + 2] % 1024]++;
                    }
                    std::vector<double> v, w;
                    for (int k = 0; k < grid; ++k) {
                        if (nb[h[3 * k + 2] % 1024] == 1) {
                            v.push_back((double) h[3 * k] / kBatches);
                            w.push_back((double) h[3 * k + 1] / kBatches);
                        }
                    }
                    per.push_back(median_of(v));
                    bur.push_back(median_of(w));
                }
                std::string key = strf("burst.%s.K%d.Z%lld.%s", dram ? "dram" : "l2", K, z, gpu ? "gpu1" : "alone");
                result(key + ".batch", median_of(per), "cycles",
                       "%zu-byte burst (128 threads x %d cp.async.cg of 16 B), wait, spin %lld cycles; %s, %s; "
                       "median over SMs and 5 runs", chunk, K, z, dram ? "fresh chunks, L2 flushed" : "16 MiB window warm in L2",
                       gpu ? "one block on every SM" : "one block alone");
                result(key + ".burst", median_of(bur), "cycles", "the burst: first issue to the end of wait_group 0");
            }
        }
    }
}

// `burst occ`: B blocks on every SM, the median over the blocks of SMs
// holding B.
template <int K>
static void occ_row(const char *src, int sms, unsigned long long *d_out, std::vector<unsigned long long> &h)
{
    const size_t chunk = (size_t) kThreads * 16 * K;
    for (int b : {1, 2, 4}) {
        const size_t smem = ((size_t) 200 << 10) / b;
        if (chunk > smem) {
            continue;
        }
        CK(cudaFuncSetAttribute(k_burst<K>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));
        for (int dram = 1; dram >= 0; --dram) {
            const size_t wrap = dram ? 0 : kL2Window / chunk;
            for (long long z : {0LL, 1000LL, 1500LL, 2000LL, 2500LL, 3000LL, 4000LL, 6000LL}) {
                const int grid = b * sms;
                if (!dram) {
                    k_burst<K><<<grid, kThreads, smem>>>(src, wrap, z, d_out);
                    CKL();
                }
                std::vector<double> per, bur;
                for (int r = 0; r < 5; ++r) {
                    if (dram) {
                        g_flush.flush();
                    }
                    k_burst<K><<<grid, kThreads, smem>>>(src, wrap, z, d_out);
                    CKL();
                    CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 3 * grid, cudaMemcpyDeviceToHost));
                    std::vector<int> nb(1024, 0);
                    for (int k = 0; k < grid; ++k) {
                        nb[h[3 * k + 2] % 1024]++;
                    }
                    std::vector<double> v, w;
                    for (int k = 0; k < grid; ++k) {
                        if (nb[h[3 * k + 2] % 1024] == b) {
                            v.push_back((double) h[3 * k] / kBatches);
                            w.push_back((double) h[3 * k + 1] / kBatches);
                        }
                    }
                    per.push_back(median_of(v));
                    bur.push_back(median_of(w));
                }
                std::string key = strf("burst.occ.%s.K%d.Z%lld.B%d", dram ? "dram" : "l2", K, z, b);
                result(key + ".batch", median_of(per), "cycles",
                       "%zu-byte burst, wait, spin %lld cycles; %s; %d blocks on every SM; median over blocks and 5 runs",
                       chunk, z, dram ? "fresh chunks, L2 flushed" : "16 MiB window warm in L2", b);
                result(key + ".burst", median_of(bur), "cycles", "the burst: first issue to the end of wait_group 0");
            }
        }
    }
}

int main(int argc, char **argv)
{
    const bool occ = argc > 1 && std::string(argv[1]) == "occ";
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    print_device();
    // The largest launch: 2 x SMs blocks x 64 batches x 64 KiB.
    const size_t bytes = (size_t) 2 * sms * kBatches * kThreads * 16 * 32;
    char *src;
    CK(cudaMalloc(&src, bytes));
    CK(cudaMemset(src, 1, bytes));
    g_flush.init(256u << 20);
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 3 * 4 * sms));
    std::vector<unsigned long long> h(3 * 4 * sms);
    double ev = 0;
    double mhz = measure_clock_mhz(3, 50000000LL, &ev);
    result("burst.clock_mhz", mhz, "MHz", "SM clock from clock64 over globaltimer");
    if (occ) {
        occ_row<8>(src, sms, d_out, h);
        occ_row<32>(src, sms, d_out, h);
    } else {
        row<2>(src, sms, d_out, h);
        row<8>(src, sms, d_out, h);
        row<32>(src, sms, d_out, h);
    }
    CK(cudaFree(src));
    g_flush.release();
    CK(cudaFree(d_out));
    printf("DONE burst\n");
    return 0;
}
