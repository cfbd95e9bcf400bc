// spec.cu - where a partitioned pipeline's batch goes: the CUDA guide's
// with_specialized_staging_unified (one block alone, 512 batches, no compute),
// timed whole and with each warp's calls timestamped, to see which of the
// protocol's steps sets its period at each stage count.
//   spec.<roles>.S*.E*.T*.<cold|warm>.batch   cycles a batch of the plain kernel
//                                            (block span / batches, median of 7)
//   spec....<step>                            the instrumented kernel's medians
//                                            over warps and 64 steady iterations:
//     period   consumer_wait returns, iteration to iteration
//     land     producer_commit of a batch to the consumers' wait returning on it
//     acquire  producer_acquire call to return (blocked when the stage's
//              consumers had not all released it)
//     wait     consumer_wait call to return
//     fetch    producer_acquire's return to producer_commit's return (the copy's
//              address arithmetic, memcpy_async, commit)
//     consume  consumer_wait's return to consumer_release's return
//   roles: lane (the guide: even lanes produce, odd consume, so every warp
//   runs both halves) or warp (even warps produce, odd warps consume: the
//   same threads and bytes without divergence inside a warp).
// Cold: a 256 MiB read evicts the data from L2 before each launch.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o spec spec.cu
#include <cooperative_groups.h>
#include <cuda/pipeline>

#include "common.cuh"

namespace cg = cooperative_groups;

constexpr int kBatches = 512;
constexpr int kI0 = 128;   // first instrumented iteration
constexpr int kNI = 64;    // instrumented iterations
constexpr int kEv = 6;     // events recorded per iteration
enum { EV_ACQ_CALL, EV_ACQ, EV_COMMIT, EV_WAIT_CALL, EV_WAIT, EV_REL };

__device__ __forceinline__ unsigned long long clk64()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

template <int S, class T, bool BY_WARP, bool INSTR>
__global__ void k_spec(const T *global_in, T *global_out, unsigned long long *ts, unsigned long long *span)
{
    extern __shared__ __align__(128) unsigned char smem[];
    auto block = cg::this_thread_block();
    const int per_block = blockDim.x / 2;
    T *shared = reinterpret_cast<T *>(smem);
    auto &state = *reinterpret_cast<cuda::pipeline_shared_state<cuda::thread_scope_block, S> *>(
        smem + ((S * per_block * sizeof(T) + 127) / 128) * 128);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const bool producer = BY_WARP ? warp % 2 == 0 : threadIdx.x % 2 == 0;
    const long long idx = BY_WARP ? (warp / 2) * 32 + lane : threadIdx.x / 2;
    const bool rec = INSTR && lane == (BY_WARP ? 0 : (producer ? 0 : 1));
    unsigned long long *my = ts + (size_t) warp * kEv * kNI;
    auto mark = [&](long long c, int ev) {
        if (rec && c >= kI0 && c < kI0 + kNI) {
            my[ev * kNI + (c - kI0)] = clk64();
        }
    };
    auto pipeline = cuda::make_pipeline(block, &state, producer ? cuda::pipeline_role::producer
                                                                : cuda::pipeline_role::consumer);
    __syncthreads();
    const unsigned long long t0 = clk64();
    long long fetch = 0;
    for (long long c = 0; c < kBatches; ++c) {
        for (; fetch < kBatches && fetch < c + S; ++fetch) {
            if (producer) {
                mark(c, EV_ACQ_CALL);
                pipeline.producer_acquire();
                mark(c, EV_ACQ);
                long long s = fetch % S;
                cuda::memcpy_async(shared + s * per_block + idx, global_in + per_block * fetch + idx, sizeof(T),
                                   pipeline);
                pipeline.producer_commit();
                mark(c, EV_COMMIT);
            }
        }
        if (!producer) {
            mark(c, EV_WAIT_CALL);
            pipeline.consumer_wait();
            mark(c, EV_WAIT);
            long long s = c % S;
            T x = shared[s * per_block + idx];
            global_out[per_block * c + idx] = x;
            pipeline.consumer_release();
            mark(c, EV_REL);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        span[0] = clk64() - t0;
    }
}

__global__ void k_flush(const int4 *p, size_t n, int *sink)
{
    int acc = 0;
    for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x) {
        int4 v = __ldcg(p + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x7fffffff) {
        sink[0] = acc;
    }
}

struct Ctx {
    char *in, *out;
    unsigned long long *ts, *span;
    int4 *flush;
    size_t flush_n;
    int *sink;
};

static double med_ll(std::vector<double> v) { return median_of(v); }

template <int S, class T, bool BY_WARP>
static void config(const Ctx &c, int threads, bool cold)
{
    const int warps = threads / 32;
    const size_t smem = ((S * (threads / 2) * sizeof(T) + 127) / 128) * 128 +
                        sizeof(cuda::pipeline_shared_state<cuda::thread_scope_block, S>);
    CK(cudaFuncSetAttribute(k_spec<S, T, BY_WARP, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000));
    CK(cudaFuncSetAttribute(k_spec<S, T, BY_WARP, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000));
    auto prep = [&] {
        if (cold) {
            k_flush<<<1024, 256>>>(c.flush, c.flush_n, c.sink);
        } else {
            k_spec<S, T, BY_WARP, false><<<1, threads, smem>>>((const T *) c.in, (T *) c.out, c.ts, c.span);
        }
        CKL();
    };
    const std::string key = strf("spec.%s.S%d.E%d.T%d.%s", BY_WARP ? "warp" : "lane", S, (int) sizeof(T), threads,
                                 cold ? "cold" : "warm");
    const char *what = BY_WARP ? "even warps produce" : "even lanes produce";
    std::vector<double> per;
    for (int r = 0; r < 7; ++r) {
        prep();
        k_spec<S, T, BY_WARP, false><<<1, threads, smem>>>((const T *) c.in, (T *) c.out, c.ts, c.span);
        CKL();
        unsigned long long s;
        CK(cudaMemcpy(&s, c.span, sizeof s, cudaMemcpyDeviceToHost));
        per.push_back((double) s / kBatches);
    }
    result(key + ".batch", median_of(per), "cycles", "1 block of %d threads, %s, %s, plain kernel", threads, what,
           cold ? "cold" : "warm");
    // Instrumented: medians over warps, iterations and 3 launches.
    std::vector<double> period, land, acquire, wait, fetch, consume, ibatch;
    std::vector<unsigned long long> h((size_t) warps * kEv * kNI);
    for (int r = 0; r < 3; ++r) {
        prep();
        CK(cudaMemset(c.ts, 0, h.size() * sizeof h[0]));
        k_spec<S, T, BY_WARP, true><<<1, threads, smem>>>((const T *) c.in, (T *) c.out, c.ts, c.span);
        CKL();
        unsigned long long s;
        CK(cudaMemcpy(&s, c.span, sizeof s, cudaMemcpyDeviceToHost));
        ibatch.push_back((double) s / kBatches);
        CK(cudaMemcpy(h.data(), c.ts, h.size() * sizeof h[0], cudaMemcpyDeviceToHost));
        auto at = [&](int w, int ev, int i) { return (double) h[((size_t) w * kEv + ev) * kNI + i]; };
        for (int w = 0; w < warps; ++w) {
            // The warp holding this warp's consumers (lane roles: itself).
            const bool pw = BY_WARP ? w % 2 == 0 : true;
            const int cw = BY_WARP ? w + 1 : w;
            if (!pw) {
                continue;
            }
            for (int i = 0; i + 1 < kNI; ++i) {
                period.push_back(at(cw, EV_WAIT, i + 1) - at(cw, EV_WAIT, i));
                acquire.push_back(at(w, EV_ACQ, i) - at(w, EV_ACQ_CALL, i));
                wait.push_back(at(cw, EV_WAIT, i) - at(cw, EV_WAIT_CALL, i));
                fetch.push_back(at(w, EV_COMMIT, i) - at(w, EV_ACQ, i));
                consume.push_back(at(cw, EV_REL, i) - at(cw, EV_WAIT, i));
                // Iteration i fetched batch i + S - 1; the consumers waited on it in iteration i + S - 1.
                if (i + S - 1 < kNI) {
                    land.push_back(at(cw, EV_WAIT, i + S - 1) - at(w, EV_COMMIT, i));
                }
            }
        }
    }
    result(key + ".ibatch", median_of(ibatch), "cycles", "the instrumented kernel, cycles a batch");
    result(key + ".period", med_ll(period), "cycles", "consumer_wait return to return");
    result(key + ".land", med_ll(land), "cycles", "producer_commit return to the wait on that batch returning");
    result(key + ".acquire", med_ll(acquire), "cycles", "producer_acquire call to return");
    result(key + ".wait", med_ll(wait), "cycles", "consumer_wait call to return");
    result(key + ".fetch", med_ll(fetch), "cycles", "acquire return to commit return");
    result(key + ".consume", med_ll(consume), "cycles", "wait return to release return (load, store, release)");
    // One warp's first 6 instrumented iterations, relative to its first acquire call.
    if (threads == 128) {
        const double base = (double) h[0 * kNI + 0];
        for (int i = 0; i < 6; ++i) {
            std::string row;
            for (int ev = 0; ev < kEv; ++ev) {
                int w = (ev >= EV_WAIT_CALL && BY_WARP) ? 1 : 0;
                row += strf(" %s=%.0f", (const char *[]) { "acq_call", "acq", "commit", "wait_call", "wait", "rel" }[ev],
                            (double) h[((size_t) w * kEv + ev) * kNI + i] - base);
            }
            info("%s iteration %d:%s", key.c_str(), kI0 + i, row.c_str());
        }
    }
}

template <int S>
static void stage(const Ctx &c)
{
    for (int threads : {128, 512}) {
        for (bool cold : {true, false}) {
            config<S, int, false>(c, threads, cold);
            config<S, int4, false>(c, threads, cold);
            config<S, int, true>(c, threads, cold);
        }
    }
}

int main()
{
    Ctx c;
    const size_t bytes = (size_t) kBatches * 512 * 16;
    CK(cudaMalloc(&c.in, bytes));
    CK(cudaMalloc(&c.out, bytes));
    CK(cudaMemset(c.in, 1, bytes));
    CK(cudaMalloc(&c.ts, sizeof(unsigned long long) * 32 * kEv * kNI));
    CK(cudaMalloc(&c.span, sizeof(unsigned long long)));
    c.flush_n = (256u << 20) / sizeof(int4);
    CK(cudaMalloc(&c.flush, c.flush_n * sizeof(int4)));
    CK(cudaMemset(c.flush, 1, c.flush_n * sizeof(int4)));
    CK(cudaMalloc(&c.sink, sizeof(int)));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    info("device %s, %d SMs", p.name, p.multiProcessorCount);
    stage<1>(c);
    stage<2>(c);
    stage<3>(c);
    stage<4>(c);
    stage<8>(c);
    return 0;
}
