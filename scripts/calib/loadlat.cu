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
// `loadlat together` has G probe warps copy 512 bytes each at once (a
// named barrier among them, then one 16-byte copy a lane, consecutive
// lines: a G x 512-byte tile issued by G warps, as a block's k-tile is;
// rows G*K*: K copies a lane, K x G x 512 bytes) while W other warps
// stream with S groups in flight, to see how far the delays of lines
// issued together are one draw: each warp times its own copy, so a round
// gives G latencies.  Rows `loadlat.togl.*`: every SM's rounds, and every
// streaming warp's copies, in one contiguous run, as a mainloop's k-tiles
// are, where the other rows scatter them over SMs.  `loadlat togb` (rows
// `loadlat.togbB.*`): 16 KiB rounds on B SMs only, no streaming warps.
// `loadlat togj` (rows `loadlat.togjJ.*`): the same rounds on every SM, each
// SM waiting its own pseudo-random 0 .. J - 1 cycles before each round, so
// that the SMs' rounds fall out of step (J = 1: no wait, the control).
//   loadlat.tog.G*[K*].W*.S*.pNN / .mean  one warp's copy latency (all rounds)
//   loadlat.tog.G*.W*.S*.round_mean   the round's span, first issue to last
//                                     arrival (what a tile waits for)
//   loadlat.tog.G*.W*.S*.round_p50 / round_p90
//   loadlat.tog.G*.W*.S*.icc          the share of the latencies' variance
//                                     between rounds: 1 - mean variance
//                                     within a round / total variance
//   loadlat.tog.G*.W*.S*.lag1         the correlation of a round's mean
//                                     latency with the next round's
// Every copy reads lines no copy of the run read before (a 1 GiB window for
// the streams, another for the probes, each launch further on), so every
// copy misses the L2.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o loadlat loadlat.cu
#include "common.cuh"

constexpr int kS = 4;                   // groups in flight a streaming warp
constexpr int kSamples = 64;            // probe copies a block
constexpr int kMaxIters = 1 << 16;      // a streaming warp's bound (never reached)
constexpr size_t kWindow = 1ull << 30;  // bytes of each window
constexpr size_t kLocalWindow = 4ull << 30;  // `together`'s contiguous streams: 132 x 16 MiB and more

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

// `loadlat together`: warps 0 .. G-1 probe in rounds (see the header);
// warps G .. G+W-1 stream with S groups in flight until the probes are done.
// lat[(block * rounds + r) * G + g] and issue[...] are warp g's copy latency
// and its issue time from the block's start.
constexpr int kRounds = 128;

template <int S>
__global__ void k_together(const char *stream, const char *probe, size_t base, int g_warps, int k_copies,
                           int local, unsigned *lat, unsigned *issue, int jitter)
{
    extern __shared__ __align__(16) char smem[];
    __shared__ volatile int stop;
    __shared__ unsigned long long t_start;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int streams = blockDim.x / 32 - g_warps;
    if (threadIdx.x == 0) {
        stop = 0;
        t_start = clk();
    }
    __syncthreads();
    if (warp < g_warps) {
        for (int r = 0; r < kRounds; ++r) {
            if (jitter > 0) {
                // `togj`: every SM waits its own pseudo-random 0 .. jitter - 1
                // cycles before each round (the same for its probe warps), so
                // that the SMs' rounds fall out of step
                unsigned h = (unsigned) (blockIdx.x * kRounds + r) * 2654435761u;
                h ^= h >> 15;
                h *= 2246822519u;
                h ^= h >> 13;
                const unsigned long long until = clk() + h % (unsigned) jitter;
                while (clk() < until) {
                }
            }
            asm volatile("bar.sync 1, %0;" ::"r"(g_warps * 32) : "memory");
            unsigned long long t0 = clk();
            for (int c = 0; c < k_copies; ++c) {
                // copy c of warp g is 512-byte chunk c * G + g of the round's
                // tile, as a CUTLASS-style mainloop's instruction c covers
                const size_t round = local ? (size_t) blockIdx.x * kRounds + r : (size_t) r * gridDim.x + blockIdx.x;
                const size_t chunk = round * g_warps * k_copies + c * g_warps + warp;
                cpa_cg16(smem_u32(smem + (c * g_warps + warp) * 512 + lane * 16),
                         probe + (base + chunk * 512 + lane * 16) % kWindow);
            }
            cpa_commit();
            cpa_wait<0>();
            __syncwarp();
            unsigned long long t1 = clk();
            if (lane == 0) {
                size_t i = ((size_t) blockIdx.x * kRounds + r) * g_warps + warp;
                lat[i] = (unsigned) (t1 - t0);
                issue[i] = (unsigned) (t0 - t_start);
            }
        }
        asm volatile("bar.sync 1, %0;" ::"r"(g_warps * 32) : "memory");
        if (threadIdx.x == 0) {
            stop = 1;
        }
    } else {
        const int j = warp - g_warps;
        const uint32_t ring = smem_u32(smem + 512 * g_warps * k_copies + (j * S) * 512 + lane * 16);
        auto src = [&](int i) {
            // local: each warp reads its own 1 MiB run, wrapping (132 x 16
            // warps' runs are 40 L2s: gone by the time it wraps)
            const size_t chunk = local ? ((size_t) blockIdx.x * streams + j) * 2048 + i % 2048
                                       : ((size_t) i * gridDim.x + blockIdx.x) * streams + j;
            return stream + (base + chunk * 512 + lane * 16) % (local ? kLocalWindow : kWindow);
        };
        for (int i = 0; i < S; ++i) {
            cpa_cg16(ring + (i % S) * 512, src(i));
            cpa_commit();
        }
        for (int i = S; i < kMaxIters && !stop; ++i) {
            cpa_wait<S - 1>();
            cpa_cg16(ring + (i % S) * 512, src(i));
            cpa_commit();
        }
        cpa_wait<0>();
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

// `loadlat together`'s rows for G probe warps and W warps streaming with S
// groups in flight (W = 0: the probes alone), every SM, 5 runs after a
// warm-up launch.
static void together_rows(int g, int k_copies, int w, int s, int local, const char *d_stream, const char *d_probe, unsigned *d_lat,
                          unsigned *d_issue, int sms, size_t *base, int blocks = 0, int jitter = 0)
{
    const int grid_blocks = blocks > 0 ? blocks : sms;
    const size_t n = (size_t) grid_blocks * kRounds * g;
    std::vector<unsigned> lat(n), issue(n);
    std::vector<double> all, spans, round_means;
    double within = 0.0;
    for (int run = 0; run < 6; ++run) {
        const size_t shmem = 512 * g * k_copies + (size_t) w * 512 * s;
        const dim3 grid(grid_blocks), block(32 * (g + w));
        switch (s) {
        case 4:
            k_together<4><<<grid, block, shmem>>>(d_stream, d_probe, *base, g, k_copies, local, d_lat, d_issue, jitter);
            break;
        default:
            k_together<8><<<grid, block, shmem>>>(d_stream, d_probe, *base, g, k_copies, local, d_lat, d_issue, jitter);
            break;
        }
        CKL();
        *base = (*base + ((size_t) 256 << 20)) % kWindow;
        if (run == 0) {
            continue;  // warm-up launch (TLB)
        }
        CK(cudaMemcpy(lat.data(), d_lat, sizeof(unsigned) * n, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(issue.data(), d_issue, sizeof(unsigned) * n, cudaMemcpyDeviceToHost));
        for (int b = 0; b < grid_blocks; ++b) {
            for (int r = 0; r < kRounds; ++r) {
                const size_t i0 = ((size_t) b * kRounds + r) * g;
                double first = 1e30, last = 0.0, sum = 0.0;
                for (int k = 0; k < g; ++k) {
                    first = std::min(first, (double) issue[i0 + k]);
                    last = std::max(last, (double) issue[i0 + k] + lat[i0 + k]);
                    sum += lat[i0 + k];
                    all.push_back(lat[i0 + k]);
                }
                const double mean = sum / g;
                for (int k = 0; k < g; ++k) {
                    within += (lat[i0 + k] - mean) * (lat[i0 + k] - mean);
                }
                spans.push_back(last - first);
                round_means.push_back(mean);
            }
        }
    }
    const double mean = std::accumulate(all.begin(), all.end(), 0.0) / (double) all.size();
    double total = 0.0;
    for (double x : all) {
        total += (x - mean) * (x - mean);
    }
    // lag-1 correlation of consecutive rounds' means, within each block's run
    double num = 0.0, den = 0.0;
    const double rm = std::accumulate(round_means.begin(), round_means.end(), 0.0) / (double) round_means.size();
    for (size_t i = 0; i < round_means.size(); ++i) {
        den += (round_means[i] - rm) * (round_means[i] - rm);
        if (i % kRounds != kRounds - 1) {
            num += (round_means[i] - rm) * (round_means[i + 1] - rm);
        }
    }
    char key[64];
    char mode[16];
    if (jitter > 0) {
        snprintf(mode, sizeof mode, "togj%d", jitter);
    } else if (blocks > 0) {
        snprintf(mode, sizeof mode, "togb%d", blocks);
    } else {
        snprintf(mode, sizeof mode, "%s", local ? "togl" : "tog");
    }
    if (k_copies == 1) {
        snprintf(key, sizeof key, "loadlat.%s.G%d.W%d.S%d.", mode, g, w, s);
    } else {
        snprintf(key, sizeof key, "loadlat.%s.G%dK%d.W%d.S%d.", mode, g, k_copies, w, s);
    }
    const std::string k(key);
    static const double qs[] = { 0.10, 0.25, 0.50, 0.75, 0.90, 0.99 };
    static const char *qn[] = { "p10", "p25", "p50", "p75", "p90", "p99" };
    for (int q = 0; q < 6; ++q) {
        result(k + qn[q], quantile(all, qs[q]), "cycles",
               "one block on every SM: %d probe warps copy %d B each at once (%d rounds), %d warps stream with %d "
               "groups of 512 B in flight%s; one warp's copy latency, %s of %zu", g, 512 * k_copies, kRounds, w, s,
               local ? ", every SM's probe rounds and every warp's stream each in a contiguous run" : "", qn[q],
               all.size());
    }
    result(k + "mean", mean, "cycles", "the same: the mean");
    result(k + "round_mean", std::accumulate(spans.begin(), spans.end(), 0.0) / (double) spans.size(), "cycles",
           "the same: a round's span, first issue to last arrival, mean");
    result(k + "round_p50", quantile(spans, 0.5), "cycles", "the same: its median");
    result(k + "round_p90", quantile(spans, 0.9), "cycles", "the same: its 90th percentile");
    result(k + "icc", g > 1 && total > 0.0 ? 1.0 - within / total : 1.0, "fraction",
           "the same: 1 - (variance within a round) / (total variance)");
    result(k + "lag1", den > 0.0 ? num / den : 0.0, "correlation", "the same: consecutive rounds' mean latencies");
}

int main(int argc, char **argv)
{
    const bool burst = argc > 1 && std::string(argv[1]) == "burst";
    const bool together = argc > 1 && std::string(argv[1]) == "together";
    const bool togb = argc > 1 && std::string(argv[1]) == "togb";
    const bool togj = argc > 1 && std::string(argv[1]) == "togj";
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    char *d_stream, *d_probe;
    CK(cudaMalloc(&d_stream, kLocalWindow));
    CK(cudaMalloc(&d_probe, kWindow));
    CK(cudaMemset(d_stream, 1, kLocalWindow));
    CK(cudaMemset(d_probe, 1, kWindow));
    unsigned *d_lat;
    unsigned long long *d_bs;
    CK(cudaMalloc(&d_lat, sizeof(unsigned) * sms * kSamples));
    CK(cudaMalloc(&d_bs, sizeof(unsigned long long) * 2 * sms));
    CK(cudaFuncSetAttribute(k_loadlat, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    size_t base = 0;
    if (together || togb || togj) {
        unsigned *d_issue;
        CK(cudaMalloc(&d_issue, sizeof(unsigned) * sms * kRounds * 32));
        CK(cudaFree(d_lat));
        CK(cudaMalloc(&d_lat, sizeof(unsigned) * sms * kRounds * 32));
        CK(cudaFuncSetAttribute(k_together<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
        CK(cudaFuncSetAttribute(k_together<8>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
        if (togj) {
            // `loadlat togj`, rows `loadlat.togj<J>`: `togb`'s 16 KiB rounds on
            // every SM, each SM waiting a pseudo-random 0 .. J - 1 cycles before
            // each round: whether the SMs' rounds keeping in step (they start
            // together and take the same time) is what makes them slow
            for (int j : { 1, 256, 1024, 4096 }) {
                together_rows(4, 8, 0, 4, 0, d_stream, d_probe, d_lat, d_issue, sms, &base, 0, j);
                together_rows(32, 1, 0, 4, 0, d_stream, d_probe, d_lat, d_issue, sms, &base, 0, j);
            }
        } else if (togb) {
            // `loadlat togb`, rows `loadlat.togb<B>`: a 16 KiB round of 4
            // warps x 8 copies or 32 x 1, no streaming warps, launched on B
            // SMs only: how a burst's span grows with the chip's load when
            // its own SM sends nothing else (all SMs: the `tog` rows at W = 0)
            for (int b : { 1, 8, 33, 66, 99, sms }) {
                together_rows(4, 8, 0, 4, 0, d_stream, d_probe, d_lat, d_issue, sms, &base, b);
                together_rows(32, 1, 0, 4, 0, d_stream, d_probe, d_lat, d_issue, sms, &base, b);
            }
        } else {
            // (W, S): none; 16 and 32 KiB in flight an SM (below and at loadlat's
            // knee); 48 and 64 KiB (past it, as loadlat's W24 and W31)
            static const int loads[][2] = { { 0, 4 }, { 8, 4 }, { 16, 4 }, { 12, 8 }, { 16, 8 } };
            for (int g : { 1, 4, 8, 16 }) {
                for (const auto &l : loads) {
                    together_rows(g, 1, l[0], l[1], 0, d_stream, d_probe, d_lat, d_issue, sms, &base);
                }
            }
            together_rows(32, 1, 0, 4, 0, d_stream, d_probe, d_lat, d_issue, sms, &base);  // a 16 KiB tile, unloaded
            // K copies a warp, as a CUTLASS-style mainloop's four warps issue a
            // k-tile (replay/loadtog.trace's K): 4-16 KiB by 4 warps, 16 KiB by 8
            for (int gk : { 402, 404, 408, 804, 1602 }) {
                for (int l = 0; l < 3; ++l) {
                    together_rows(gk / 100, gk % 100, loads[l][0], loads[l][1], 0, d_stream, d_probe, d_lat, d_issue,
                                  sms, &base);
                }
            }
            // `loadlat.togl`: the same with every SM's rounds contiguous, as a
            // mainloop's k-tiles are (DRAM pages opened once for several
            // lines), and every streaming warp reading a contiguous run
            for (int gk : { 101, 401, 1601, 3201, 408 }) {
                for (int l = 0; l < 5; ++l) {
                    if (gk / 100 + loads[l][0] <= 32) {
                        together_rows(gk / 100, gk % 100, loads[l][0], loads[l][1], 1, d_stream, d_probe, d_lat,
                                      d_issue, sms, &base);
                    }
                }
            }
        }
        CK(cudaFree(d_issue));
    } else if (burst) {
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
