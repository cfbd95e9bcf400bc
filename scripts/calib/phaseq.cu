// phaseq.cu - where does one stage lose time when several blocks share an SM?
// The campaign's gemm_tiles (128 threads, 16-byte elements, 4 KiB tiles, a
// block-scope cuda::pipeline, compute_iters multiply-adds on each word) runs
// one stage 8-10% slower than two at four blocks per SM on the GPU, where
// smpipe hides the copies behind the other blocks.  phase.cu's timing by
// block could not say why (its four-block periods are shorter than the IMAD
// pipe allows).  This kernel is the campaign's gemm_tiles loop as
// `smpipe cuda` writes it (the same pipeline calls, copies, loads, compute
// and XOR sink), with lane 0 of every warp timestamping each batch: before
// consumer_wait, after it, and after consumer_release.  Per SM that holds
// exactly B blocks (grid B x SMs, data streamed from DRAM):
//   phaseq.S*.B*.C*.batch    SM span / batches: the campaign's cycles a batch
//   phaseq.S*.B*.C*.wait     mean cycles a warp spends in consumer_wait a batch
//   phaseq.S*.B*.C*.work     mean cycles from consumer_wait's return to the
//                            release's (loads, compute, stores, release)
//   phaseq.S*.B*.C*.cycle    mean cycles from one release to the next
//                            consumer_wait's start (acquire, copies, commit)
//   phaseq.S*.B*.C*.nowork   share of the SM span during which no warp of the
//                            SM is between consumer_wait's return and its
//                            release (every warp waits or fetches)
//   phaseq.S*.B*.C*.together share of a warp's waiting during which every
//                            other block of its SM has a warp waiting too
// median over SMs and 3 runs.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o phaseq phaseq.cu
#include "common.cuh"

#include <cooperative_groups.h>
#include <cuda/pipeline>

#include <algorithm>
#include <map>

namespace cg = cooperative_groups;

constexpr int kT = 128;
constexpr int kWarps = kT / 32;
constexpr int kBatches = 512;
constexpr int kTile = 256;  // int4 of A (and of B) a stage: 4 KiB

template <int C>
__device__ __forceinline__ int4 compute(int4 x)
{
    unsigned w[4] = {(unsigned) x.x, (unsigned) x.y, (unsigned) x.z, (unsigned) x.w};
    for (int i = 0; i < C; ++i) {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(w[k]) : "r"(1664525u), "r"(1013904223u));
        }
    }
    return make_int4((int) w[0], (int) w[1], (int) w[2], (int) w[3]);
}

__device__ __forceinline__ void keep(unsigned &sink, int4 v)
{
    sink ^= (unsigned) v.x ^ (unsigned) v.y ^ (unsigned) v.z ^ (unsigned) v.w;
}

template <int S, int C>
__global__ void k_phaseq(const int4 *A, const int4 *B, int4 *Cout, unsigned long long *marks, unsigned *smids,
                         unsigned *sinks)
{
    __shared__ int4 As[S * kTile];
    __shared__ int4 Bs[S * kTile];
    __shared__ SmemObj<cuda::pipeline_shared_state<cuda::thread_scope_block, S>> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, state.get());
    const int t = threadIdx.x;
    const int lane = t % 32;
    unsigned long long *mine = marks + ((size_t) blockIdx.x * kWarps + t / 32) * kBatches * 3;
    unsigned sink = 0;
    int fetch = 0;
    for (int k = 0; k < kBatches; ++k) {
        for (; fetch < kBatches && fetch < k + S; ++fetch) {
            pipe.producer_acquire();
            const int s = fetch % S;
            const size_t panel = ((size_t) blockIdx.x * kBatches + fetch) * kTile;
            for (int i = 0; i < 2; ++i) {
                const int e = i * kT + t;
                cuda::memcpy_async(As + s * kTile + e, A + panel + e, sizeof(int4), pipe);
                cuda::memcpy_async(Bs + s * kTile + e, B + panel + e, sizeof(int4), pipe);
            }
            pipe.producer_commit();
        }
        const unsigned long long w0 = clk();
        pipe.consumer_wait();
        const unsigned long long w1 = clk();
        const int s = k % S;
        int4 a = As[s * kTile + t];
        int4 b = Bs[s * kTile + (t * 5) % kTile];
        a = compute<C>(a);
        keep(sink, a);
        b = compute<C>(b);
        keep(sink, b);
        a = As[s * kTile + kT + t];
        b = Bs[s * kTile + (kT + t * 5) % kTile];
        a = compute<C>(a);
        keep(sink, a);
        b = compute<C>(b);
        keep(sink, b);
        const size_t out = ((size_t) blockIdx.x * kBatches + k) * 2 * kT;
        Cout[out + t] = a;
        Cout[out + kT + t] = b;
        pipe.consumer_release();
        const unsigned long long r1 = clk();
        if (lane == 0) {
            mine[3 * k] = w0;
            mine[3 * k + 1] = w1;
            mine[3 * k + 2] = r1;
        }
    }
    sinks[blockIdx.x * kT + t] = sink;
    if (t == 0) {
        smids[blockIdx.x] = smid();
    }
}

struct Interval {
    double lo, hi;
};

// Length of [a0, a1) covered by the union of the (sorted, possibly
// overlapping) intervals in v.
static double covered_union(double a0, double a1, const std::vector<Interval> &v)
{
    double sum = 0, cur = a0;
    for (const Interval &i : v) {
        double lo = std::max(cur, i.lo), hi = std::min(a1, i.hi);
        if (hi > lo) {
            sum += hi - lo;
            cur = hi;
        }
    }
    return sum;
}

template <int S, int C>
static void row(int b, int sms, const int4 *dA, const int4 *dB, int4 *dC, unsigned long long *d_marks,
                unsigned *d_smids, unsigned *d_sinks)
{
    const int grid = b * sms;
    std::vector<unsigned long long> h((size_t) grid * kWarps * kBatches * 3);
    std::vector<unsigned> hs(grid);
    std::vector<double> batch, wait, work, cyc, nowork, together;
    for (int r = 0; r < 4; ++r) {
        k_phaseq<S, C><<<grid, kT>>>(dA, dB, dC, d_marks, d_smids, d_sinks);
        CKL();
        if (r == 0) {
            continue;  // warm-up launch
        }
        CK(cudaMemcpy(h.data(), d_marks, sizeof(unsigned long long) * h.size(), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hs.data(), d_smids, sizeof(unsigned) * grid, cudaMemcpyDeviceToHost));
        std::map<unsigned, std::vector<int>> on;
        for (int k = 0; k < grid; ++k) {
            on[hs[k]].push_back(k);
        }
        std::vector<double> v_batch, v_wait, v_work, v_cyc, v_nowork, v_together;
        if (r == 1) {
            // How the blocks of the first few SMs overlap: each block's
            // first consumer_wait and last release, from the SM's earliest.
            std::map<int, int> count;
            for (const auto &sm_blocks : on) {
                count[(int) sm_blocks.second.size()]++;
            }
            for (const auto &c : count) {
                info("phaseq.S%d.B%d.C%d: %d SMs hold %d blocks", S, b, C, c.second, c.first);
            }
            int shown = 0;
            for (const auto &sm_blocks : on) {
                if ((int) sm_blocks.second.size() != b || shown++ >= 3) {
                    continue;
                }
                double lo = 1e300;
                for (int blk : sm_blocks.second) {
                    lo = std::min(lo, (double) h[((size_t) blk * kWarps) * kBatches * 3]);
                }
                for (int blk : sm_blocks.second) {
                    for (int w = 0; w < kWarps; ++w) {
                        const unsigned long long *m = &h[((size_t) blk * kWarps + w) * kBatches * 3];
                        info("phaseq.S%d.B%d.C%d: sm %u block %d warp %d: batch 0 wait at %.0f, batch 256 at %.0f, "
                             "last release at %.0f", S, b, C, sm_blocks.first, blk, w, (double) m[0] - lo,
                             (double) m[3 * 256] - lo, (double) m[3 * (kBatches - 1) + 2] - lo);
                    }
                }
            }
        }
        for (const auto &sm_blocks : on) {
            const std::vector<int> &blocks = sm_blocks.second;
            if ((int) blocks.size() != b) {
                continue;
            }
            auto m = [&](int blk, int w, int k, int j) {
                return (double) h[(((size_t) blk * kWarps + w) * kBatches + k) * 3 + j];
            };
            double lo = 1e300, hi = 0, sw = 0, sk = 0, sc = 0;
            std::vector<Interval> working;
            for (int blk : blocks) {
                for (int w = 0; w < kWarps; ++w) {
                    lo = std::min(lo, m(blk, w, 0, 0));
                    hi = std::max(hi, m(blk, w, kBatches - 1, 2));
                    for (int k = 0; k < kBatches; ++k) {
                        sw += m(blk, w, k, 1) - m(blk, w, k, 0);
                        sk += m(blk, w, k, 2) - m(blk, w, k, 1);
                        if (k > 0) {
                            sc += m(blk, w, k, 0) - m(blk, w, k - 1, 2);
                        }
                        working.push_back({m(blk, w, k, 1), m(blk, w, k, 2)});
                    }
                }
            }
            const double n = (double) b * kWarps;
            std::sort(working.begin(), working.end(), [](const Interval &x, const Interval &y) { return x.lo < y.lo; });
            v_batch.push_back((hi - lo) / kBatches);
            v_wait.push_back(sw / n / kBatches);
            v_work.push_back(sk / n / kBatches);
            v_cyc.push_back(sc / n / (kBatches - 1));
            v_nowork.push_back(1.0 - covered_union(lo, hi, working) / (hi - lo));
            if (b > 1) {
                // For each warp's wait: the part during which every other
                // block has at least one warp in consumer_wait.
                double tw = 0, tt = 0;
                for (int blk : blocks) {
                    std::vector<std::vector<Interval>> others;
                    for (int o : blocks) {
                        if (o == blk) {
                            continue;
                        }
                        std::vector<Interval> iv;
                        for (int w = 0; w < kWarps; ++w) {
                            for (int k = 0; k < kBatches; ++k) {
                                iv.push_back({m(o, w, k, 0), m(o, w, k, 1)});
                            }
                        }
                        std::sort(iv.begin(), iv.end(), [](const Interval &x, const Interval &y) { return x.lo < y.lo; });
                        others.push_back(iv);
                    }
                    for (int w = 0; w < kWarps; ++w) {
                        for (int k = 0; k < kBatches; ++k) {
                            // Sample the wait at 16 points: cheap and enough for a share.
                            const double a0 = m(blk, w, k, 0), a1 = m(blk, w, k, 1);
                            for (int q = 0; q < 16; ++q) {
                                const double x = a0 + (a1 - a0) * (q + 0.5) / 16;
                                bool all = true;
                                for (const auto &iv : others) {
                                    auto it = std::upper_bound(iv.begin(), iv.end(), x,
                                                               [](double v, const Interval &i) { return v < i.lo; });
                                    bool in = false;
                                    // Intervals of one block's four warps overlap: look back a few.
                                    for (int back = 0; back < 8 && it != iv.begin(); ++back) {
                                        --it;
                                        if (it->hi > x) {
                                            in = true;
                                            break;
                                        }
                                    }
                                    all = all && in;
                                }
                                tw += (a1 - a0) / 16;
                                tt += all ? (a1 - a0) / 16 : 0;
                            }
                        }
                    }
                }
                v_together.push_back(tw > 0 ? tt / tw : 0);
            }
        }
        if (v_batch.empty()) {
            continue;
        }
        batch.push_back(median_of(v_batch));
        wait.push_back(median_of(v_wait));
        work.push_back(median_of(v_work));
        cyc.push_back(median_of(v_cyc));
        nowork.push_back(median_of(v_nowork));
        if (b > 1) {
            together.push_back(median_of(v_together));
        }
    }
    if (batch.empty()) {
        info("phaseq.S%d.B%d.C%d: no SM held exactly %d blocks", S, b, C, b);
        return;
    }
    const char *what = "%d SMs x %d blocks of %d threads, %d stage(s), gemm_tiles int4 4 KiB tiles, %d multiply-adds a "
                       "word, from DRAM: %s, median over SMs and 3 runs";
    result(strf("phaseq.S%d.B%d.C%d.batch", S, b, C), median_of(batch), "cycles", what, sms, b, kT, S, C,
           "SM span / batches");
    result(strf("phaseq.S%d.B%d.C%d.wait", S, b, C), median_of(wait), "cycles", what, sms, b, kT, S, C,
           "mean cycles a warp spends in consumer_wait a batch");
    result(strf("phaseq.S%d.B%d.C%d.work", S, b, C), median_of(work), "cycles", what, sms, b, kT, S, C,
           "mean cycles from consumer_wait's return to after consumer_release");
    result(strf("phaseq.S%d.B%d.C%d.cycle", S, b, C), median_of(cyc), "cycles", what, sms, b, kT, S, C,
           "mean cycles from after a release to the next consumer_wait's start");
    result(strf("phaseq.S%d.B%d.C%d.nowork", S, b, C), median_of(nowork), "ratio", what, sms, b, kT, S, C,
           "share of the SM span with no warp between consumer_wait's return and its release");
    if (b > 1) {
        result(strf("phaseq.S%d.B%d.C%d.together", S, b, C), median_of(together), "ratio", what, sms, b, kT, S, C,
               "share of a warp's waiting during which every other block of its SM has a warp waiting");
    }
}

template <int C>
static void rows(int sms, const int4 *dA, const int4 *dB, int4 *dC, unsigned long long *dm, unsigned *ds,
                 unsigned *dk)
{
    for (int b : {1, 2, 4}) {
        row<1, C>(b, sms, dA, dB, dC, dm, ds, dk);
        row<2, C>(b, sms, dA, dB, dC, dm, ds, dk);
    }
}

int main()
{
    print_device();
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const size_t blocks = (size_t) 4 * sms;
    const size_t n = blocks * kBatches * kTile;
    int4 *dA, *dB, *dC;
    CK(cudaMalloc(&dA, n * sizeof(int4)));
    CK(cudaMalloc(&dB, n * sizeof(int4)));
    CK(cudaMalloc(&dC, blocks * kBatches * 2 * kT * sizeof(int4)));
    CK(cudaMemset(dA, 1, n * sizeof(int4)));
    CK(cudaMemset(dB, 2, n * sizeof(int4)));
    unsigned long long *dm;
    unsigned *ds, *dk;
    CK(cudaMalloc(&dm, sizeof(unsigned long long) * blocks * kWarps * kBatches * 3));
    CK(cudaMalloc(&ds, sizeof(unsigned) * blocks));
    CK(cudaMalloc(&dk, sizeof(unsigned) * blocks * kT));
    rows<64>(sms, dA, dB, dC, dm, ds, dk);
    rows<16>(sms, dA, dB, dC, dm, ds, dk);
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
    CK(cudaFree(dm));
    CK(cudaFree(ds));
    CK(cudaFree(dk));
    return 0;
}
