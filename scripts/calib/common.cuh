// common.cuh - shared helpers for the smpipe calibration microbenchmarks.
//
// Every benchmark prints machine-readable lines:
//   RESULT key=<key> value=<number> unit=<unit> note=<free text to end of line>
//   INFO   <free text>
//   ERROR  <free text>
// All timings inside kernels use %clock64 (SM cycles) unless the note says otherwise.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#define CK(call)                                                                     \
  do {                                                                               \
    cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                         \
      printf("ERROR cuda_error=%s at=%s:%d call=%s\n", cudaGetErrorString(e_),       \
             __FILE__, __LINE__, #call);                                             \
      fflush(stdout);                                                                \
      fprintf(stderr, "CUDA error %s at %s:%d (%s)\n", cudaGetErrorString(e_),       \
              __FILE__, __LINE__, #call);                                            \
      exit(2);                                                                       \
    }                                                                                \
  } while (0)

// check launch + completion of the previous kernel
#define CKL()                          \
  do {                                 \
    CK(cudaGetLastError());            \
    CK(cudaDeviceSynchronize());       \
  } while (0)

static inline double median_of(std::vector<double> v) {
  if (v.empty()) return -1.0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return (n & 1) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
static inline double min_of(const std::vector<double>& v) {
  return v.empty() ? -1.0 : *std::min_element(v.begin(), v.end());
}
static inline double max_of(const std::vector<double>& v) {
  return v.empty() ? -1.0 : *std::max_element(v.begin(), v.end());
}

static inline void result(const std::string& key, double value, const char* unit,
                          const char* fmt = "", ...) {
  char note[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(note, sizeof(note), fmt, ap);
  va_end(ap);
  printf("RESULT key=%s value=%.3f unit=%s note=%s\n", key.c_str(), value, unit, note);
  fflush(stdout);
}
static inline void info(const char* fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  printf("INFO %s\n", buf);
  fflush(stdout);
}

// The span of one block's w warps (first start to last end), median of 7
// launches: launch() runs the kernel, which writes each warp's clock64 start
// and end to d_out[2 * warp] and d_out[2 * warp + 1]; h holds 2 * w values.
template <class Launch>
static double warps_span(Launch launch, int w, unsigned long long* d_out,
                         std::vector<unsigned long long>& h) {
  std::vector<double> per;
  for (int r = 0; r < 7; ++r) {
    launch();
    CKL();
    CK(cudaMemcpy(h.data(), d_out, sizeof(unsigned long long) * 2 * w, cudaMemcpyDeviceToHost));
    unsigned long long lo = ~0ull, hi = 0;
    for (int i = 0; i < w; ++i) {
      lo = std::min(lo, h[2 * i]);
      hi = std::max(hi, h[2 * i + 1]);
    }
    per.push_back((double)(hi - lo));
  }
  return median_of(per);
}

// The RESULT rows of one block of 1 to 32 warps: launch(w) runs the block
// with w warps (each recording its clocks with warp_times), and the span
// (warps_span) is reported per `units` of work a warp and per sub-partition
// (with fewer than four warps, one each): with eight warps a scheduler, the
// cycles a unit takes when the issue slots are the limit.  Keys are
// KEY_PREFIX.W<w>; notes read "1 block, <w> warps, <what>".
template <class Launch>
static void sched_row(const std::string& key_prefix, const std::string& what, double units, Launch launch,
                      unsigned long long* d_out, std::vector<unsigned long long>& h) {
  for (int w : {1, 2, 4, 8, 16, 32}) {
    double s = warps_span([&] { launch(w); }, w, d_out, h);
    double per_sched = w < 4 ? 1.0 : w / 4.0;
    result(key_prefix + ".W" + std::to_string(w), s / (units * per_sched), "cycles",
           "1 block, %d warps, %s", w, what.c_str());
  }
}

// printf into a std::string (the notes and keys above).
static inline std::string strf(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return buf;
}

// least-squares fit y = a + b x
static inline void linfit(const std::vector<double>& x, const std::vector<double>& y, double* a,
                          double* b) {
  double n = (double)x.size(), sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  double den = n * sxx - sx * sx;
  *b = den != 0 ? (n * sxy - sx * sy) / den : 0;
  *a = (sy - *b * sx) / n;
}

// ---------------------------------------------------------------- device helpers
// Volatile moves through eight FFMA accumulators: the FFMAs after it cannot
// be hoisted above the clock read before it (sched.cu, schedmix.cu).
__device__ __forceinline__ void pin8(float& a0, float& a1, float& a2, float& a3, float& a4, float& a5, float& a6,
                                     float& a7) {
  asm volatile("" : "+f"(a0), "+f"(a1), "+f"(a2), "+f"(a3), "+f"(a4), "+f"(a5), "+f"(a6), "+f"(a7));
}
__device__ __forceinline__ unsigned long long clk() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
// A warp's first-start and last-end clocks for warps_span: after every
// thread of the block is done, lane 0 of each warp writes them to
// out[2 * warp] and out[2 * warp + 1].
__device__ __forceinline__ void warp_times(unsigned long long* out, unsigned long long t0,
                                           unsigned long long t1) {
  __syncthreads();
  if (threadIdx.x % 32 == 0) {
    out[2 * (threadIdx.x / 32)] = t0;
    out[2 * (threadIdx.x / 32) + 1] = t1;
  }
}
__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

// One lane's 16-byte cp.async.cg into shared memory, the commit of the
// thread's group and the wait until at most N groups are pending
// (loaded.cu, rwmix.cu).
__device__ __forceinline__ void cpa_cg16(uint32_t dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cpa_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cpa_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// Raw, constructor-less shared storage for library objects (cuda::barrier, pipeline state) so
// that no "dynamic initialization of __shared__ variable" warning is produced; the objects
// are initialised explicitly (init(), make_pipeline()).
template <class T>
struct SmemObj {
  alignas(T) unsigned char raw[sizeof(T)];
  __device__ T* get() { return reinterpret_cast<T*>(raw); }
};

// ---------------------------------------------------------------- clock measurement
__global__ void k_clock_spin(long long cycles, unsigned long long* out) {
  unsigned long long g0 = gtimer();
  unsigned long long c0 = clk();
  unsigned long long c;
  do {
    c = clk();
  } while ((long long)(c - c0) < cycles);
  unsigned long long g1 = gtimer();
  out[0] = c - c0;
  out[1] = g1 - g0;
}

// Returns SM clock in MHz (median of reps), from clock64 cycles over %globaltimer ns, and
// also reports the CUDA-event based number through *event_mhz.
static inline double measure_clock_mhz(int reps = 5, long long cycles = 100000000LL,
                                       double* event_mhz = nullptr) {
  unsigned long long* d;
  CK(cudaMalloc(&d, 2 * sizeof(unsigned long long)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  k_clock_spin<<<1, 1>>>(cycles / 4, d);  // warm-up (lets clocks ramp)
  CKL();
  std::vector<double> gt, ev;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(e0));
    k_clock_spin<<<1, 1>>>(cycles, d);
    CK(cudaEventRecord(e1));
    CKL();
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    unsigned long long h[2];
    CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    gt.push_back((double)h[0] / (double)h[1] * 1000.0);
    ev.push_back((double)h[0] / (ms * 1000.0));
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  CK(cudaFree(d));
  if (event_mhz) *event_mhz = median_of(ev);
  return median_of(gt);
}

// ---------------------------------------------------------------- L2 flush
// Streams a large buffer through L2 with L1-bypassing loads (clean lines) after writing it
// once at allocation, so that previously cached data (also dirty data) is evicted.
__global__ void k_flush_read(const int4* __restrict__ p, size_t n, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    int4 v = __ldcg(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7fffffff) sink[0] = acc;  // practically never; keeps the loads
}
__global__ void k_fill_int4(int4* p, size_t n, int v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = make_int4(v, v + 1, v + 2, (int)i);
}

struct L2Flusher {
  int4* buf = nullptr;
  size_t n = 0;
  int* sink = nullptr;
  void init(size_t bytes) {
    n = bytes / sizeof(int4);
    CK(cudaMalloc(&buf, n * sizeof(int4)));
    CK(cudaMalloc(&sink, sizeof(int)));
    k_fill_int4<<<1024, 256>>>(buf, n, 1);
    CKL();
  }
  void flush() {
    k_flush_read<<<2048, 256>>>(buf, n, sink);
    CKL();
  }
  void release() {
    if (buf) CK(cudaFree(buf));
    if (sink) CK(cudaFree(sink));
    buf = nullptr;
    sink = nullptr;
  }
};

static inline cudaDeviceProp print_device() {
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, dev));
  int clk_khz = 0, mem_khz = 0;
  CK(cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, dev));
  CK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev));
  int drv = 0, rt = 0;
  CK(cudaDriverGetVersion(&drv));
  CK(cudaRuntimeGetVersion(&rt));
  info("device name=\"%s\" cc=%d.%d sms=%d l2_bytes=%d smem_per_sm=%zu smem_optin_per_block=%zu "
       "clock_khz=%d mem_clock_khz=%d mem_bus_bits=%d global_mem=%zu driver=%d runtime=%d",
       p.name, p.major, p.minor, p.multiProcessorCount, p.l2CacheSize,
       p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin, clk_khz, mem_khz,
       p.memoryBusWidth, p.totalGlobalMem, drv, rt);
  return p;
}

// Reads `bytes` from base through L2 (ld.global.cg, 16 bytes a thread a step):
// twice over a buffer that fits, it leaves the buffer resident in L2; over a
// larger one, it flushes what was there.  sink is written only to keep the
// loads alive.
__global__ void k_read(const char* base, size_t bytes, int* sink) {
  int acc = 0;
  for (size_t off = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * 16; off < bytes;
       off += (size_t)gridDim.x * blockDim.x * 16)
    acc ^= __ldcg(reinterpret_cast<const int*>(base + off));
  if (acc == 0x7ffffff1) sink[0] = acc;
}
