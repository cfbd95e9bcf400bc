// stream.cu - the bandwidth copies reach when every SM streams (issue 16's
// "DRAM and L2 bandwidth that cp.async streaming from every SM actually
// reaches, not the data-sheet peak"), and what one SM reaches alone.
//
// Every block streams `batches` chunks of T x E bytes through an S-stage ring
// in shared memory, chunk c = batch * gridDim.x + blockIdx.x (the campaign's
// traces interleave blocks the same way).  Per SM: bytes of its blocks over
// the span from its first block's start to its last block's end (clock64), the
// median over the SMs holding B blocks; and the whole launch's GB/s from CUDA
// events.
//   stream.<engine>.E*.T*.B*.S*.<src>  bytes per SM cycle
//   stream.<engine>....<src>.gbs        GB/s of the whole launch
// engine: cpasync (cp.async E bytes a thread, commit/wait_group, no mbarrier
//         protocol, so that the protocol's own cost stays out), ldg (plain
//         E-byte loads, S in flight a thread, for comparison), bulk (one thread
//         a block issuing T x E-byte cp.async.bulk onto full mbarriers).
// src:    dram (distinct chunks, footprint far above L2, L2 flushed before
//         each launch), l2 (chunks wrap in a 16 MiB window, warmed by a
//         launch first).
// B: blocks per SM, the grid B x SMs; B = 0 is one block alone on the GPU.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o stream stream.cu
#include "common.cuh"
#include "mbarrier.cuh"

constexpr size_t kL2Window = 16u << 20;

template <int E>
__device__ __forceinline__ void cp_async(uint32_t dst, const char *src)
{
    if constexpr (E == 16) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
    } else {
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(src), "n"(E) : "memory");
    }
}

__device__ __forceinline__ size_t chunk_of(int batch, size_t wrap)
{
    size_t c = (size_t) batch * gridDim.x + blockIdx.x;
    return wrap ? c % wrap : c;
}

__device__ __forceinline__ void stamp(unsigned long long *out, unsigned long long t0, int sink)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x] = t0;
        out[3 * blockIdx.x + 1] = clk();
        out[3 * blockIdx.x + 2] = smid() | ((unsigned long long) (sink == 0x7fffffff) << 32);
    }
}

template <int E, int S>
__global__ void k_cpasync(const char *src, int batches, size_t wrap, unsigned long long *out)
{
    extern __shared__ __align__(128) char ring[];
    const size_t chunk = (size_t) blockDim.x * E;
    const uint32_t base = smem_u32(ring) + threadIdx.x * E;
    __syncthreads();
    unsigned long long t0 = clk();
    for (int i = 0; i < S - 1; ++i) {
        if (i < batches) {
            cp_async<E>(base + (uint32_t) ((i % S) * chunk), src + chunk_of(i, wrap) * chunk + threadIdx.x * E);
        }
        asm volatile("cp.async.commit_group;" ::: "memory");
    }
    int sink = 0;
    for (int i = 0; i < batches; ++i) {
        int f = i + S - 1;
        if (f < batches) {
            cp_async<E>(base + (uint32_t) ((f % S) * chunk), src + chunk_of(f, wrap) * chunk + threadIdx.x * E);
        }
        asm volatile("cp.async.commit_group;" ::: "memory");
        asm volatile("cp.async.wait_group %0;" ::"n"(S - 1) : "memory");
        sink += *(volatile int *) (ring + (i % S) * chunk + threadIdx.x * E);
    }
    stamp(out, t0, sink);
}

template <int E, int S>
__global__ void k_ldg(const char *src, int batches, size_t wrap, unsigned long long *out)
{
    const size_t chunk = (size_t) blockDim.x * E;
    __syncthreads();
    unsigned long long t0 = clk();
    int sink = 0;
    for (int i = 0; i < batches; i += S) {
        int v[S];
#pragma unroll
        for (int k = 0; k < S; ++k) {
            const char *p = src + chunk_of(min(i + k, batches - 1), wrap) * chunk + threadIdx.x * E;
            if constexpr (E == 16) {
                int4 x = __ldcg((const int4 *) p);
                v[k] = x.x ^ x.w;
            } else {
                v[k] = __ldcg((const int *) p);
            }
        }
#pragma unroll
        for (int k = 0; k < S; ++k) {
            sink += v[k];
        }
    }
    stamp(out, t0, sink);
}

template <int S>
__global__ void k_bulk(const char *src, int batches, size_t wrap, uint32_t chunk, unsigned long long *out)
{
    extern __shared__ __align__(128) char ring[];
    __shared__ alignas(8) unsigned long long full[S];
    if (threadIdx.x < S) {
        mbar_init(smem_u32(&full[threadIdx.x]), 1);
    }
    fence_init();
    __syncthreads();
    unsigned long long t0 = clk();
    if (threadIdx.x == 0) {
        for (int i = 0; i < S - 1 && i < batches; ++i) {
            mbar_arrive_tx(smem_u32(&full[i]), chunk);
            bulk_g2s(smem_u32(ring + i * chunk), src + chunk_of(i, wrap) * chunk, chunk, smem_u32(&full[i]));
        }
    }
    int sink = 0;
    for (int i = 0; i < batches; ++i) {
        int f = i + S - 1;
        if (threadIdx.x == 0 && f < batches) {
            /* Slot f % S was consumed at batch i - 1, before the block's last sync. */
            mbar_arrive_tx(smem_u32(&full[f % S]), chunk);
            bulk_g2s(smem_u32(ring + (f % S) * chunk), src + chunk_of(f, wrap) * chunk, chunk, smem_u32(&full[f % S]));
        }
        while (!mbar_try_wait(smem_u32(&full[i % S]), (uint32_t) ((i / S) & 1))) {
        }
        sink += *(volatile int *) (ring + (i % S) * chunk + (threadIdx.x * 4) % chunk);
        __syncthreads();
    }
    stamp(out, t0, sink);
}

struct Meas {
    double per_sm;  // bytes per SM cycle, median over SMs holding B blocks
    double gbs;     // GB/s of the whole launch
};

static L2Flusher g_flush;

template <class Launch>
static Meas measure(Launch launch, int grid, int b, double bytes_per_block, bool dram, unsigned long long *d_out,
                    std::vector<unsigned long long> &h)
{
    std::vector<double> per, gbs;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    if (!dram) {
        launch();  // warm the window into L2
        CKL();
    }
    for (int r = 0; r < 5; ++r) {
        if (dram) {
            g_flush.flush();
        }
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaEventRecord(e1));
        CKL();
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        gbs.push_back(bytes_per_block * grid / (ms * 1e6));
        CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 3 * grid, cudaMemcpyDeviceToHost));
        std::vector<unsigned long long> lo(1024, ~0ull), hi(1024, 0);
        std::vector<int> nb(1024, 0);
        for (int k = 0; k < grid; ++k) {
            unsigned sm = (unsigned) (h[3 * k + 2] & 0xffffffffu) % 1024;
            nb[sm]++;
            lo[sm] = std::min(lo[sm], h[3 * k]);
            hi[sm] = std::max(hi[sm], h[3 * k + 1]);
        }
        std::vector<double> v;
        for (int sm = 0; sm < 1024; ++sm) {
            if (nb[sm] == std::max(b, 1)) {
                v.push_back(bytes_per_block * std::max(b, 1) / (double) (hi[sm] - lo[sm]));
            }
        }
        per.push_back(median_of(v));
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return {median_of(per), median_of(gbs)};
}

static void report(const char *engine, int e, int t, int b, int s, bool dram, Meas m, const char *how)
{
    char key[96];
    snprintf(key, sizeof key, "stream.%s.E%d.T%d.B%d.S%d.%s", engine, e, t, b, s, dram ? "dram" : "l2");
    result(key, m.per_sm, "bytes/clk/SM", "%s, %d threads, %s, %d blocks per SM (0: one block alone), %d stages, median over SMs and 5 runs",
           how, t, dram ? "distinct chunks, L2 flushed" : "16 MiB window warm in L2", b, s);
    std::string k2 = std::string(key) + ".gbs";
    result(k2, m.gbs, "GB/s", "the whole launch, CUDA events");
}

template <int E, int S>
static void row(const char *src, int sms, unsigned long long *d_out, std::vector<unsigned long long> &h)
{
    const int batches = 256;
    for (int dram = 1; dram >= 0; --dram) {
        for (int b : {0, 1, 2, 4}) {
            for (int t : {128, 256, 512}) {
                const int grid = b == 0 ? 1 : b * sms;
                const size_t chunk = (size_t) t * E;
                const size_t wrap = dram ? 0 : kL2Window / chunk;
                const size_t smem = chunk * S;
                if (smem * std::max(b, 1) > 200u * 1024) {
                    continue;  // fewer than B blocks would fit on an SM
                }
                CK(cudaFuncSetAttribute(k_cpasync<E, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));
                Meas m = measure([&] { k_cpasync<E, S><<<grid, t, smem>>>(src, batches, wrap, d_out); }, grid, b,
                                 (double) chunk * batches, dram, d_out, h);
                report("cpasync", E, t, b, S, dram, m, E == 16 ? "cp.async.cg 16 B a thread" : "cp.async.ca 4 B a thread");
                m = measure([&] { k_ldg<E, S><<<grid, t>>>(src, batches, wrap, d_out); }, grid, b, (double) chunk * batches,
                            dram, d_out, h);
                report("ldg", E, t, b, S, dram, m, "ld.global.cg, S loads in flight a thread");
                if (E == 16) {
                    CK(cudaFuncSetAttribute(k_bulk<S>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));
                    m = measure([&] { k_bulk<S><<<grid, t, smem>>>(src, batches, wrap, (uint32_t) chunk, d_out); }, grid, b,
                                (double) chunk * batches, dram, d_out, h);
                    report("bulk", E, t, b, S, dram, m, "one thread, cp.async.bulk of T x 16 B a stage");
                }
            }
        }
    }
}

int main()
{
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    info("device %s, %d SMs, L2 %d bytes", prop.name, sms, prop.l2CacheSize);
    // The largest launch: 4 x SMs blocks x 256 batches x 512 threads x 16 B.
    const size_t bytes = (size_t) 4 * sms * 256 * 512 * 16;
    char *src;
    CK(cudaMalloc(&src, bytes));
    CK(cudaMemset(src, 1, bytes));
    g_flush.init(256u << 20);
    unsigned long long *d_out;
    CK(cudaMalloc(&d_out, sizeof(unsigned long long) * 3 * 4 * sms + 64));
    std::vector<unsigned long long> h(3 * 4 * sms + 64);
    double ev = 0;
    double mhz = measure_clock_mhz(3, 50000000LL, &ev);
    result("stream.clock_mhz", mhz, "MHz", "SM clock from clock64 over globaltimer");
    row<16, 4>(src, sms, d_out, h);
    row<16, 8>(src, sms, d_out, h);
    row<4, 8>(src, sms, d_out, h);
    CK(cudaFree(src));
    g_flush.release();
    CK(cudaFree(d_out));
    printf("DONE stream\n");
    return 0;
}
