// phase.cu - do two blocks on one SM hide each other's copies?  With one
// stage, a block waits for its copy, then computes; a second block on the SM
// can compute while the first waits (their phases alternate) or wait at the
// same time (their phases lock).  The campaign's compute-heavy kernels at two
// and four blocks per SM run one stage 10-19% slower than two on the GPU,
// where smpipe hides the copies behind the other blocks' work.
//
// Every block of 128 threads loops over 64 batches (after 8 untimed): 16 bytes
// a thread copied with cp.async.cg into a stage of its ring (S stages, S - 1
// batches ahead), wait_group, __syncthreads, then C dependent multiply-adds on each of
// the 4 words (4 chains a thread), __syncthreads.  Thread 0 timestamps each
// batch's wait (from after its copies issued to after the barrier) and its
// compute.  Per SM with B blocks (grid B x SMs, L2 flushed, data from DRAM):
//   phase.S*.B*.C*.wait     mean cycles a block waits a batch
//   phase.S*.B*.C*.period   mean cycles a batch, per block
//   phase.S*.B*.C*.overlap  share of a block's waiting during which the other
//                           blocks of its SM wait too (1: the phases lock; 0:
//                           they alternate); B = 1: not reported
// median over SMs and 3 runs.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o phase phase.cu
#include "common.cuh"

#include <algorithm>
#include <map>

constexpr int kT = 128;
constexpr int kIters = 64;             // batches timed, after kWarm
constexpr int kWarm = 8;

template <int S, int C>
__global__ void k_phase(const int4 *src, int4 *sink, unsigned long long *ts)
{
    __shared__ int4 ring[S][kT];
    const int t = threadIdx.x;
    const size_t stride = (size_t) gridDim.x * kT;
    const int4 *from = src + (size_t) blockIdx.x * kT + t;
    for (int i = 0; i < S - 1; ++i) {
        cpa_cg16(smem_u32(&ring[i % S][t]), from + (size_t) i * stride);
        cpa_commit();
    }
    int4 acc = make_int4(t, 1, 2, 3);
    unsigned long long *mine = ts + (size_t) blockIdx.x * kIters * 3;
    for (int i = 0; i < kWarm + kIters; ++i) {
        const int f = i + S - 1;
        cpa_cg16(smem_u32(&ring[f % S][t]), from + (size_t) f * stride);
        cpa_commit();
        unsigned long long w0 = clk();
        cpa_wait<S - 1>();
        __syncthreads();
        unsigned long long w1 = clk();
        int4 v = ring[i % S][t];
#pragma unroll 4
        for (int k = 0; k < C; ++k) {
            acc.x = acc.x * v.x + k;
            acc.y = acc.y * v.y + k;
            acc.z = acc.z * v.z + k;
            acc.w = acc.w * v.w + k;
        }
        __syncthreads();
        unsigned long long c1 = clk();
        if (t == 0 && i >= kWarm) {
            mine[3 * (i - kWarm)] = w0;
            mine[3 * (i - kWarm) + 1] = w1;
            mine[3 * (i - kWarm) + 2] = c1;
        }
    }
    cpa_wait<0>();
    sink[(size_t) blockIdx.x * kT + t] = acc;
    if (t == 0) {
        ts[(size_t) gridDim.x * kIters * 3 + blockIdx.x] = smid();
    }
}

// Length of [a0, a1) covered by the union of the intervals in `other`.
static double covered(double a0, double a1, const std::vector<std::pair<double, double>> &other)
{
    double sum = 0;
    for (const auto &o : other) {
        double lo = std::max(a0, o.first), hi = std::min(a1, o.second);
        if (hi > lo) {
            sum += hi - lo;
        }
    }
    return std::min(sum, a1 - a0);
}

template <int S, int C>
static void row(int b, int sms, const int4 *d_src, int4 *d_sink, unsigned long long *d_ts, L2Flusher &fl)
{
    const int grid = b * sms;
    std::vector<unsigned long long> h((size_t) grid * kIters * 3 + grid);
    std::vector<double> waits, periods, overlaps;
    for (int r = 0; r < 4; ++r) {
        fl.flush();
        k_phase<S, C><<<grid, kT>>>(d_src, d_sink, d_ts);
        CKL();
        if (r == 0) {
            continue;  // warm-up launch
        }
        CK(cudaMemcpy(h.data(), d_ts, sizeof(unsigned long long) * h.size(), cudaMemcpyDeviceToHost));
        std::map<unsigned long long, std::vector<int>> on;
        for (int k = 0; k < grid; ++k) {
            on[h[(size_t) grid * kIters * 3 + k]].push_back(k);
        }
        std::vector<double> w_sm, p_sm, o_sm;
        for (const auto &sm_blocks : on) {
            const std::vector<int> &blocks = sm_blocks.second;
            if ((int) blocks.size() != b) {
                continue;  // an SM that did not get exactly b blocks
            }
            double wsum = 0, psum = 0, osum = 0;
            for (int k : blocks) {
                const unsigned long long *m = &h[(size_t) k * kIters * 3];
                std::vector<std::pair<double, double>> others;
                for (int o : blocks) {
                    if (o == k) {
                        continue;
                    }
                    const unsigned long long *n = &h[(size_t) o * kIters * 3];
                    for (int i = 0; i < kIters; ++i) {
                        others.push_back({(double) n[3 * i], (double) n[3 * i + 1]});
                    }
                }
                double wk = 0, ok = 0;
                for (int i = 0; i < kIters; ++i) {
                    wk += (double) (m[3 * i + 1] - m[3 * i]);
                    ok += covered((double) m[3 * i], (double) m[3 * i + 1], others);
                }
                wsum += wk / kIters;
                psum += (double) (m[3 * (kIters - 1) + 2] - m[0]) / kIters;
                osum += wk > 0 ? ok / wk : 0;
            }
            w_sm.push_back(wsum / b);
            p_sm.push_back(psum / b);
            o_sm.push_back(osum / b);
        }
        if (w_sm.empty()) {
            continue;
        }
        waits.push_back(median_of(w_sm));
        periods.push_back(median_of(p_sm));
        overlaps.push_back(median_of(o_sm));
    }
    if (waits.empty()) {
        info("phase.S%d.B%d.C%d: no SM held exactly %d blocks", S, b, C, b);
        return;
    }
    const char *what = "%d SMs x %d blocks of %d threads, %d stage(s), %d dependent multiply-adds on 4 words a batch, "
                       "from DRAM: %s, median over SMs and 3 runs";
    result(strf("phase.S%d.B%d.C%d.wait", S, b, C), median_of(waits), "cycles",
           what, sms, b, kT, S, C, "mean cycles a block waits a batch");
    result(strf("phase.S%d.B%d.C%d.period", S, b, C), median_of(periods), "cycles",
           what, sms, b, kT, S, C, "mean cycles a batch per block");
    if (b > 1) {
        result(strf("phase.S%d.B%d.C%d.overlap", S, b, C), median_of(overlaps), "ratio",
               what, sms, b, kT, S, C, "share of a block's waiting during which other blocks of its SM wait too");
    }
}

template <int C>
static void rows(int sms, const int4 *d_src, int4 *d_sink, unsigned long long *d_ts, L2Flusher &fl)
{
    for (int b : {1, 2, 4}) {
        row<1, C>(b, sms, d_src, d_sink, d_ts, fl);
        row<2, C>(b, sms, d_src, d_sink, d_ts, fl);
    }
}

int main()
{
    print_device();
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const size_t n = (size_t) 4 * sms * kT * (kWarm + kIters + 4);
    int4 *d_src, *d_sink;
    CK(cudaMalloc(&d_src, n * sizeof(int4)));
    CK(cudaMemset(d_src, 1, n * sizeof(int4)));
    CK(cudaMalloc(&d_sink, (size_t) 4 * sms * kT * sizeof(int4)));
    unsigned long long *d_ts;
    CK(cudaMalloc(&d_ts, sizeof(unsigned long long) * ((size_t) 4 * sms * kIters * 3 + 4 * sms)));
    L2Flusher fl;
    fl.init(128ull << 20);
    rows<64>(sms, d_src, d_sink, d_ts, fl);
    rows<256>(sms, d_src, d_sink, d_ts, fl);
    CK(cudaFree(d_src));
    CK(cudaFree(d_sink));
    CK(cudaFree(d_ts));
    fl.release();
    return 0;
}
