// loadlat.cu - the spread of a copy's DRAM latency when every SM streams
// (issue 16: why a busy GPU still gains from stages the mean latency says it
// does not need).  loaded.cu gives the mean latency under load by Little's
// law; this gives its distribution.  One block on every SM: warps 1..W stream
// cp.async.cg copies of 512 bytes (16 a lane) from DRAM, S groups in flight a
// warp (loaded.cu's loop), for as long as warp 0, the probe, measures: 64
// times it copies a fresh 512 bytes, commits, waits for the group
// (wait_group 0) and records the cycles from before the issue to after the
// wait (clock64, lane 0).
//   loadlat.W*.rate      bytes the W streaming warps read a cycle an SM
//                        during the probe (median over SMs and runs)
//   loadlat.W*.pNN       the probe copies' latency, NN-th percentile over
//                        every SM's samples and 5 runs (p10 .. p99)
//   loadlat.W*.mean      their mean
//   loadlat.alone.*      one block on the GPU, probe only (W = 0)
// `loadlat burst` instead has the probe copy K x 512 bytes at once (each lane
// K copies of 16 bytes, 512 bytes apart; one group), K = 1, 4, 16, 64, to
// see whether a group's lines wait independently (the group waits for the
// slowest of many draws) or together (one draw):
//   loadlat.burst.K*.W*.pNN / .mean   as above, the whole group's latency
// Every copy reads lines no copy of the run read before (a 1 GiB window for
// the streams, another for the probes, each launch further on), so every
// copy misses the L2.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o loadlat loadlat.cu
#include "common.cuh"

constexpr int kS = 4;                   // groups in flight a streaming warp
constexpr int kSamples = 64;            // probe copies a block
constexpr int kMaxIters = 1 << 16;      // a streaming warp's bound (never reached)
constexpr size_t kWindow = 1ull << 30;  // bytes of each window

__global__ void k_loadlat(const char *stream, const char *probe, size_t base, int k_copies, unsigned *lat,
                          unsigned long long *bytes_span)
{
    extern __shared__ __align__(16) char smem[];
    __shared__ volatile int stop;
    __shared__ unsigned long long t_start, t_end;
    __shared__ unsigned long long copies;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int streams = blockDim.x / 32 - 1;
    if (threadIdx.x == 0) {
        stop = 0;
        copies = 0;
    }
    __syncthreads();
    if (warp == 0) {
        const uint32_t dst = smem_u32(smem + lane * 16);
        t_start = clk();
        for (int k = 0; k < kSamples; ++k) {
            size_t off = (base + ((size_t) k * gridDim.x + blockIdx.x) * 512 * k_copies + lane * 16) % kWindow;
            unsigned long long t0 = clk();
            for (int c = 0; c < k_copies; ++c) {
                cpa_cg16(dst + c * 512, probe + (off + (size_t) c * 512) % kWindow);
            }
            cpa_commit();
            cpa_wait<0>();
            __syncwarp();
            unsigned long long t1 = clk();
            if (lane == 0) {
                lat[blockIdx.x * kSamples + k] = (unsigned) (t1 - t0);
            }
        }
        t_end = clk();
        if (lane == 0) {
            stop = 1;
        }
    } else {
        const int j = warp - 1;
        const uint32_t ring = smem_u32(smem + 512 * k_copies + (j * kS) * 512 + lane * 16);
        auto src = [&](int i) {
            return stream + (base + (((size_t) i * gridDim.x + blockIdx.x) * streams + j) * 512 + lane * 16) % kWindow;
        };
        for (int i = 0; i < kS; ++i) {
            cpa_cg16(ring + (i % kS) * 512, src(i));
            cpa_commit();
        }
        int i = kS;
        for (; i < kMaxIters && !stop; ++i) {
            cpa_wait<kS - 1>();
            cpa_cg16(ring + (i % kS) * 512, src(i));
            cpa_commit();
        }
        cpa_wait<0>();
        if (lane == 0) {
            atomicAdd(&copies, (unsigned long long) (i - kS));
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        bytes_span[2 * blockIdx.x] = copies * 512;
        bytes_span[2 * blockIdx.x + 1] = t_end - t_start;
    }
}

static double quantile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    size_t i = (size_t) (q * (double) (v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

static void rows(const char *prefix, int k_copies, const std::vector<int> &ws, bool alone, const char *d_stream,
                 const char *d_probe, unsigned *d_lat, unsigned long long *d_bs, int sms, size_t *base)
{
    std::vector<unsigned> lat(sms * kSamples);
    std::vector<unsigned long long> bs(2 * sms);
    std::vector<std::pair<std::string, std::pair<int, int>>> list;
    if (alone) {
        list.push_back({ "alone", { 0, 1 } });
    }
    for (int w : ws) {
        list.push_back({ "W" + std::to_string(w), { w, sms } });
    }
    for (const auto &row : list) {
        const int w = row.second.first, grid = row.second.second;
        std::vector<double> samples, rates;
        for (int run = 0; run < 6; ++run) {
            k_loadlat<<<grid, 32 * (w + 1), 512 * k_copies + w * kS * 512>>>(d_stream, d_probe, *base, k_copies,
                                                                             d_lat, d_bs);
            CKL();
            *base = (*base + ((size_t) 256 << 20)) % kWindow;
            if (run == 0) {
                continue;  // warm-up launch (TLB)
            }
            CK(cudaMemcpy(lat.data(), d_lat, sizeof(unsigned) * grid * kSamples, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(bs.data(), d_bs, sizeof(unsigned long long) * 2 * grid, cudaMemcpyDeviceToHost));
            std::vector<double> per;
            for (int b = 0; b < grid; ++b) {
                per.push_back((double) bs[2 * b] / (double) bs[2 * b + 1]);
                for (int k = 0; k < kSamples; ++k) {
                    samples.push_back(lat[b * kSamples + k]);
                }
            }
            rates.push_back(median_of(per));
        }
        std::string key = std::string(prefix) + row.first;
        const char *who = grid == 1 ? "one block alone" : "one block on every SM";
        result(key + ".rate", median_of(rates), "bytes/cycle",
               "%s, %d streaming warps with %d groups of 512 B in flight each: bytes they read a cycle an SM during "
               "the probe, median over SMs and 5 runs", who, w, kS);
        static const double qs[] = { 0.10, 0.25, 0.50, 0.75, 0.90, 0.99 };
        static const char *qn[] = { "p10", "p25", "p50", "p75", "p90", "p99" };
        for (int q = 0; q < 6; ++q) {
            result(key + "." + qn[q], quantile(samples, qs[q]), "cycles",
                   "the same: the probe warp's %d-byte cp.async.cg group from issue to wait_group 0, %s of %zu "
                   "samples", 512 * k_copies, qn[q], samples.size());
        }
        double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / (double) samples.size();
        result(key + ".mean", mean, "cycles", "the same: the mean");
    }
}

int main(int argc, char **argv)
{
    const bool burst = argc > 1 && std::string(argv[1]) == "burst";
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    char *d_stream, *d_probe;
    CK(cudaMalloc(&d_stream, kWindow));
    CK(cudaMalloc(&d_probe, kWindow));
    CK(cudaMemset(d_stream, 1, kWindow));
    CK(cudaMemset(d_probe, 1, kWindow));
    unsigned *d_lat;
    unsigned long long *d_bs;
    CK(cudaMalloc(&d_lat, sizeof(unsigned) * sms * kSamples));
    CK(cudaMalloc(&d_bs, sizeof(unsigned long long) * 2 * sms));
    CK(cudaFuncSetAttribute(k_loadlat, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    size_t base = 0;
    if (burst) {
        for (int k : { 1, 4, 16, 64 }) {
            std::string prefix = "loadlat.burst.K" + std::to_string(k) + ".";
            rows(prefix.c_str(), k, { 0, 8, 16, 24, 31 }, false, d_stream, d_probe, d_lat, d_bs, sms, &base);
        }
    } else {
        rows("loadlat.", 1, { 0, 1, 2, 4, 8, 12, 16, 24, 31 }, true, d_stream, d_probe, d_lat, d_bs, sms, &base);
    }
    CK(cudaFree(d_stream));
    CK(cudaFree(d_probe));
    CK(cudaFree(d_lat));
    CK(cudaFree(d_bs));
    return 0;
}
