// pipedrift.cu - how far apart do the warps of a partitioned pipeline run?
// The guide's with_specialized_staging_unified (even lanes produce, odd lanes
// consume; 4-byte elements, a chain of 16 dependent IMADs on each consumed
// word, 512 batches: the campaign's compute_iters=16), 256 threads (two warps a sub-partition), one block alone or one
// block on every SM (cold: a 256 MiB read evicts L2 first).  Block 0's warps
// timestamp every iteration: lane 0 around producer_acquire, lane 1 around
// consumer_wait.
//   pipedrift.S*.<alone|gpu1>.batch     cycles a batch (block 0's span / 512,
//                                       median of 5 launches)
//   pipedrift....acquire.p50, .p90      producer_acquire call to return over
//                                       warps and iterations 16-495
//   pipedrift....wait.p50, .p90         consumer_wait call to return
//   pipedrift....drift.p50, .max        per iteration, the latest warp's
//                                       consumer_wait return less the
//                                       earliest's (cycles)
//   pipedrift....lead.max               the most iterations one warp's
//                                       consumers were ahead of another's
// With no drift a warp's acquire would cost what an unblocked call costs
// (spec.cu: 116-150 cycles); sched.policy decides how far the model's
// warps drift (docs/validation.md, twenty-first round).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o pipedrift pipedrift.cu
#include <cooperative_groups.h>
#include <cuda/pipeline>

#include "common.cuh"

namespace cg = cooperative_groups;

constexpr int kBatches = 512;
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kIters = 16;  // dependent IMADs a consumed word
enum { EV_ACQ_CALL, EV_ACQ, EV_WAIT_CALL, EV_WAIT, EV_COUNT };

template <int S>
__global__ void k_drift(const int *global_in, int *global_out, unsigned long long *ts, unsigned long long *span)
{
    extern __shared__ __align__(128) unsigned char smem[];
    auto block = cg::this_thread_block();
    const int per_block = kThreads / 2;
    int *shared = reinterpret_cast<int *>(smem);
    auto &state = *reinterpret_cast<cuda::pipeline_shared_state<cuda::thread_scope_block, S> *>(
        smem + ((S * per_block * sizeof(int) + 127) / 128) * 128);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const bool producer = threadIdx.x % 2 == 0;
    const int idx = threadIdx.x / 2;
    const bool rec = blockIdx.x == 0 && lane < 2;
    unsigned long long *my = ts + (size_t) warp * EV_COUNT * kBatches;
    auto pipeline = cuda::make_pipeline(block, &state, producer ? cuda::pipeline_role::producer
                                                                : cuda::pipeline_role::consumer);
    const size_t stride = (size_t) per_block * gridDim.x;
    const int *in = global_in + (size_t) blockIdx.x * per_block;
    int *out = global_out + (size_t) blockIdx.x * per_block;
    __syncthreads();
    const unsigned long long t0 = clk();
    int fetch = 0;
    for (int c = 0; c < kBatches; ++c) {
        for (; fetch < kBatches && fetch < c + S; ++fetch) {
            if (producer) {
                unsigned long long a = clk();
                pipeline.producer_acquire();
                if (rec) {
                    my[EV_ACQ_CALL * kBatches + fetch] = a;
                    my[EV_ACQ * kBatches + fetch] = clk();
                }
                const int s = fetch % S;
                cuda::memcpy_async(shared + s * per_block + idx, in + stride * fetch + idx, sizeof(int), pipeline);
                pipeline.producer_commit();
            }
        }
        if (!producer) {
            unsigned long long a = clk();
            pipeline.consumer_wait();
            if (rec) {
                my[EV_WAIT_CALL * kBatches + c] = a;
                my[EV_WAIT * kBatches + c] = clk();
            }
            const int s = c % S;
            int x = shared[s * per_block + idx];
#pragma unroll
            for (int k = 0; k < kIters; ++k) {
                x = x * 1664525 + 1013904223;
            }
            out[stride * c + idx] = x;
            pipeline.consumer_release();
        }
    }
    __syncthreads();
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        span[0] = clk() - t0;
    }
}

static double pct(std::vector<double> v, double q)
{
    if (v.empty()) {
        return -1.0;
    }
    std::sort(v.begin(), v.end());
    return v[(size_t) (q * (double) (v.size() - 1))];
}

template <int S>
static void config(int *in, int *out, unsigned long long *ts, unsigned long long *span, int4 *flush,
                   size_t flush_n, int *sink, int blocks)
{
    const size_t smem = ((S * (kThreads / 2) * sizeof(int) + 127) / 128) * 128 +
                        sizeof(cuda::pipeline_shared_state<cuda::thread_scope_block, S>);
    const std::string key = strf("pipedrift.S%d.%s", S, blocks == 1 ? "alone" : "gpu1");
    std::vector<double> batch, acq, wait, drift, lead;
    std::vector<unsigned long long> h((size_t) kWarps * EV_COUNT * kBatches);
    for (int r = 0; r < 5; ++r) {
        k_flush_read<<<1024, 256>>>(flush, flush_n, sink);
        CKL();
        k_drift<S><<<blocks, kThreads, smem>>>(in, out, ts, span);
        CKL();
        unsigned long long sp;
        CK(cudaMemcpy(&sp, span, sizeof sp, cudaMemcpyDeviceToHost));
        batch.push_back((double) sp / kBatches);
        CK(cudaMemcpy(h.data(), ts, h.size() * sizeof h[0], cudaMemcpyDeviceToHost));
        auto at = [&](int w, int ev, int i) { return (double) h[((size_t) w * EV_COUNT + ev) * kBatches + i]; };
        for (int i = 16; i < kBatches - 16; ++i) {
            double lo = 1e300, hi = -1e300;
            for (int w = 0; w < kWarps; ++w) {
                acq.push_back(at(w, EV_ACQ, i) - at(w, EV_ACQ_CALL, i));
                wait.push_back(at(w, EV_WAIT, i) - at(w, EV_WAIT_CALL, i));
                lo = std::min(lo, at(w, EV_WAIT, i));
                hi = std::max(hi, at(w, EV_WAIT, i));
            }
            drift.push_back(hi - lo);
        }
        // Lead: at the time warp v's consumers return from iteration i's wait,
        // how many more iterations warp w's consumers have returned from.
        double most = 0;
        for (int v = 0; v < kWarps; ++v) {
            for (int w = 0; w < kWarps; ++w) {
                int j = 0;
                for (int i = 0; i < kBatches; ++i) {
                    while (j + 1 < kBatches && at(w, EV_WAIT, j + 1) <= at(v, EV_WAIT, i)) {
                        ++j;
                    }
                    most = std::max(most, (double) (j - i));
                }
            }
        }
        lead.push_back(most);
    }
    result(key + ".batch", median_of(batch), "cycles", "block 0's span / %d batches, median of 5", kBatches);
    result(key + ".acquire.p50", pct(acq, 0.5), "cycles", "producer_acquire call to return");
    result(key + ".acquire.p90", pct(acq, 0.9), "cycles", "the same, 90th percentile");
    result(key + ".wait.p50", pct(wait, 0.5), "cycles", "consumer_wait call to return");
    result(key + ".wait.p90", pct(wait, 0.9), "cycles", "the same, 90th percentile");
    result(key + ".drift.p50", pct(drift, 0.5), "cycles", "an iteration's latest warp's wait return less the earliest's");
    result(key + ".drift.max", pct(drift, 1.0), "cycles", "the same, largest");
    result(key + ".lead.max", max_of(lead), "iterations", "most iterations one warp's consumers ran ahead of another's");
}

int main()
{
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const size_t elems = (size_t) kBatches * (kThreads / 2) * sms;
    int *in, *out, *sink;
    unsigned long long *ts, *span;
    int4 *flush;
    CK(cudaMalloc(&in, elems * sizeof(int)));
    CK(cudaMalloc(&out, elems * sizeof(int)));
    CK(cudaMemset(in, 1, elems * sizeof(int)));
    CK(cudaMalloc(&ts, sizeof(unsigned long long) * kWarps * EV_COUNT * kBatches));
    CK(cudaMalloc(&span, sizeof(unsigned long long)));
    const size_t flush_n = (256u << 20) / sizeof(int4);
    CK(cudaMalloc(&flush, flush_n * sizeof(int4)));
    CK(cudaMemset(flush, 1, flush_n * sizeof(int4)));
    CK(cudaMalloc(&sink, sizeof(int)));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    info("device %s, %d SMs", p.name, sms);
    for (int blocks : {1, sms}) {
        config<2>(in, out, ts, span, flush, flush_n, sink, blocks);
        config<3>(in, out, ts, span, flush, flush_n, sink, blocks);
        config<4>(in, out, ts, span, flush, flush_n, sink, blocks);
        config<8>(in, out, ts, span, flush, flush_n, sink, blocks);
    }
    return 0;
}
