/* arch.h: the parameters of one GPU's SM and memory path, read from an
 * architecture file (arch/NAME.ini, a GKeyFile) and --set overrides.
 *
 * Every key is required in the file and every value there cites its source
 * in a comment (a datasheet, a paper, or our own measurement with the script
 * that made it); tests/arch_sources checks that.  The table in arch.c lists
 * the keys; `smpipe arch show NAME` prints them resolved. */
#pragma once

#include "sim/core/simtypes.h"

#define ARCH_MAX_CLASSES 12

typedef enum {
    SCHED_LRR,    /* loose round-robin */
    SCHED_GTO,    /* greedy then oldest */
    SCHED_OLDEST, /* oldest first: the lowest warp id that can issue */
    SCHED_GREEDY  /* a warp issuing math back to back keeps the slot, else loose round-robin */
} SchedPolicy;

typedef enum {
    MEM_SOURCE_DRAM,  /* first touch of a line misses L2 */
    MEM_SOURCE_L2     /* all source data already resident in L2 */
} MemSource;

/* DRAM latency quantiles an architecture gives (dram.latency_p10 ...). */
#define ARCH_DRAM_QUANTILES 6

typedef struct {
    char name[16];
    int64_t latency;   /* cycles from issue to a dependent instruction */
    int64_t interval;  /* cycles between two warp instructions on one sub-partition's pipe */
} InstClass;

typedef struct {
    char name[32];
    int64_t sm_version;        /* 80, 90 */
    double clock_mhz;
    double mma_clock_ratio;    /* SM clock of a kernel that issues tensor-core MMAs, over clock_mhz; 0: clock_mhz */

    int64_t subpartitions;
    int64_t max_warps;
    int64_t max_threads;
    int64_t max_blocks;
    int64_t smem_bytes;          /* shared memory per SM */
    int64_t smem_per_block;      /* most a block may have */
    int64_t smem_reserved;       /* reserved per block by the system */
    int64_t registers;           /* 32-bit registers per SM */
    int64_t regs_per_thread;     /* the simulated kernel's register use */
    int64_t blocks;              /* resident blocks of the program (run option) */
    int64_t sms;                 /* SMs on the chip */
    int64_t grid;                /* blocks in the launch; 0 = the resident blocks alone (run option) */
    double launch_overhead_us;   /* what events time around a launch beyond its SMs' busy span */

    SchedPolicy policy;
    int64_t control_issue;       /* issue slots per control statement */
    int64_t control_latency;     /* cycles from a control statement's start until the warp's next may start */
    int64_t addr_issue;          /* integer instructions a load or store spends on its address */
    int64_t unroll_max;          /* passes up to which nvcc unrolls a loop of constant trip count */
    int64_t div_cycles;          /* issue slots of an integer division or modulo (emulated) */
    int64_t div_latency;         /* cycles until a division's result can be used */
    int64_t pipe_call_issue;     /* issue slots of a block-scope pipeline call (library SASS) */
    int64_t memcpy_call_issue;   /* issue slots of memcpy_async's dispatch (library SASS) */
    int64_t unroll_entry_issue;  /* instructions at the entry of a loop unrolled with a computed trip count */
    int64_t thread_wait_issue;   /* instructions of a thread-scope consumer_wait beyond the wait (library SASS) */
    double int_cpi;              /* cycles a sub-partition takes per integer/control instruction */
    double int_cpi_alone;        /* the same for a warp alone on its sub-partition */

    InstClass classes[ARCH_MAX_CLASSES];
    int nclasses;

    int64_t smem_banks;
    int64_t smem_bank_bytes;
    int64_t smem_latency;
    int64_t smem_wavefront_bytes; /* bytes one shared-memory wavefront moves */
    int64_t smem_warp_interval;   /* least cycles between one warp's shared-memory instructions */
    int64_t smem_warp_wave_cycles; /* a warp's own path's cycles a wavefront */
    bool smem_fill_port;          /* async-copy fills write through a port of their own */

    int64_t l1_latency;
    int64_t l1_lines;             /* 128-byte lines of L1 data cache */
    int64_t line_bytes;
    int64_t sector_bytes;

    double l1_store_bytes_per_clk;  /* L1 request port: global stores (0: no port) */
    double l1_copy_bytes_per_clk;   /* the same port: cp.async line requests (0: not on it) */
    int64_t l1_port_queue_cycles;   /* requests it holds before a warp waits */
    int64_t l2_latency;
    double l2_bytes_per_clk_sm;   /* SM <-> L2 link, one SM */
    double l2_bytes_per_clk;      /* whole L2, shared by active SMs */
    int64_t l2_bytes;
    int64_t l2_assoc;             /* ways per set of L2's tag array */
    double l2_dirty_fraction;     /* share of L2's lines that may be dirty */

    int64_t dram_latency;
    double dram_bytes_per_clk;    /* whole chip, in SM cycles */
    double dram_queue_cycles;     /* loaded latency: x rho / (1 - rho) below the peak rate */
    double dram_write_cost;       /* DRAM time of a written-back byte, in read bytes */
    double dram_write_queue;      /* read latency at the SM's DRAM share all written back */
    /* A lone line's DRAM latency at the quantiles 0.10, 0.25, 0.50, 0.75,
     * 0.90, 0.99 (dram.latency_p10 ... latency_p99): the shape of the
     * spread around dram.latency; all equal, no spread. */
    int64_t dram_quantile[ARCH_DRAM_QUANTILES];
    int64_t dram_spread_bytes;    /* aligned bytes that share one draw of the spread */
    /* The factor a read's queueing delay is scaled by, at the same
     * quantiles (dram.queue_p10 ... queue_p99; mean 1 once normalised):
     * the spread of the delay under load; all equal, none. */
    double dram_queue_quantile[ARCH_DRAM_QUANTILES];
    int64_t dram_queue_spread_bytes; /* aligned bytes that share one draw of it */

    MemSource source;
    int64_t active_sms;
    bool flushed;        /* mem.flushed: the L2 was flushed before a cold launch */

    int64_t cp_async_issue;       /* cycles the LSU spends per cp.async warp instruction */
    int64_t cp_async_warp_issue;  /* cycles between one warp's cp.async instructions */
    int64_t cp_async_call;        /* latency of a group memcpy_async call's library code */
    int64_t cp_async_group_loop;  /* one pass of a group call's per-thread copy loop (0: cp_async_warp_issue) */
    int64_t cp_async_wait;        /* latency of a thread-scope consumer_wait call (libcudacxx's switch) */
    int64_t cp_async_wait_prior;  /* latency of a wait with a compile-time count of 0 (wait_group 0) */
    int64_t cp_async_wait_prior_n; /* the same for a count of 1 or more, when it finds its groups landed */
    int64_t cp_async_max_inflight;/* 128-byte line requests in flight per SM */
    int64_t cp_async_max_inflight_ca; /* of them, 4- and 8-byte copies (.ca, allocating in L1) */
    int64_t cp_async_extra_latency;
    bool cp_async_warp_groups;    /* commit groups shared by the warp (sm_80) */
    bool chain_overlap;           /* independent compute chains overlap as ptxas schedules them */
    bool wait_yields;             /* a path waiting on an mbarrier lets its warp's other paths run past their join */
    bool older_blocks_first;      /* a scheduler issues the oldest resident block's ready warps before younger blocks' */
    bool mma_shadow;              /* control and library instructions after MMAs take the slots their links left */
    bool block_calls_drain;       /* block-scope pipeline calls wait for the warp's compute chains */

    int64_t bulk_issue_latency;
    int64_t bulk_issue_cycles;   /* the issuing warp's own cycles a bulk copy (elect loop, UBLKCP) */
    double bulk_bytes_per_clk;
    int64_t bulk_chunk_bytes;

    int64_t syncthreads_base;
    int64_t syncthreads_per_warp;
    int64_t mbar_arrive;          /* issue-to-done of an mbarrier arrive */
    int64_t mbar_arrive_interval; /* the SM's mbarrier unit: cycles between warp-wide arrives */
    int64_t mbar_wait_interval;   /* the same for a try_wait */
    int64_t mbar_wake_per_waiter; /* try_wait: each further waiter of a phase resumes this much later */
    int64_t mbar_wake_diverged;   /* ... and a path whose warp holds another waiting path this much later */
    int64_t mbar_wake;            /* try_wait: phase completion to the thread running (sm_90) */
    int64_t mbar_poll;            /* test_wait polling period (sm_80) */
    int64_t mbar_test;            /* a wait call on a completed phase (barrier.wait_call) */
    int64_t mbar_test_copies;     /* the same while the warp has cp.async in flight */


    int64_t cl_max_active;        /* CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS (per work-item and pipe) */
} ArchParams;

/* Loads an architecture by name (arch/NAME.ini in the data or source
 * directory) or by path, applies overrides (array of char* "section.key=value",
 * in order; a value xFACTOR scales the value before it) and validates.
 *
 * A file with `[arch] base = NAME|PATH` is derived: it starts from its base
 * (a bundled name, or an .ini path relative to the file) and sets only the
 * keys it has, which may be relative (xFACTOR, scaling the base's value);
 * its name is its file's name unless it sets [arch] name.  A file without a
 * base must have every key, and absolute values.  Returns TRUE, or FALSE with *error set (SIM_ERROR_INPUT). */
bool arch_load(const char *name_or_path, const GPtrArray *overrides, ArchParams *out, GError **error);

/* The largest architecture file read (the bundled ones have 8 KiB). */
#define ARCH_MAX_FILE_BYTES (1 << 20)

/* The same from a file's contents in memory (data, len bytes; need not be
 * NUL-terminated); path names it in messages. */
bool arch_load_data(const char *path, const char *data, gsize len, const GPtrArray *overrides, ArchParams *out,
                    GError **error);

/* Writes the resolved parameters as an .ini file (arch show). */
void arch_format(const ArchParams *a, GString *out);
/* The SHA-256 (hex) of an architecture's resolved values: of arch_format's
 * text without its comment lines, so that only values count. */
void arch_sha256(const ArchParams *a, char out[65]);
/* Runs the SM of *a at mhz instead of clock_mhz: the memory system beyond
 * the SM (L2 and DRAM) keeps its nanoseconds, so its latencies and
 * queueing in SM cycles scale by mhz / clock_mhz and its bandwidths in
 * bytes a cycle by the inverse; then clock_mhz = mhz.  Everything inside
 * the SM (instructions, shared memory, L1, the copy engines) keeps its
 * cycles. */
void arch_at_clock(ArchParams *a, double mhz);

/* Where each key's value came from: the file that set it (a derived file or
 * one of its bases) or the --set assignment ("--set dram.latency=x2"). */
typedef struct ArchSources ArchSources;
/* Returns a new, empty record; free with arch_sources_free. */
ArchSources *arch_sources_new(void);
void arch_sources_free(ArchSources *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ArchSources, arch_sources_free)
/* The source of key i (arch_key_name numbering); static or interned, "" if
 * none was recorded. */
const char *arch_sources_get(const ArchSources *s, guint key);

/* arch_load, also recording in *sources (may be NULL) where each value
 * came from. */
bool arch_load_sourced(const char *name_or_path, const GPtrArray *overrides, ArchParams *out, ArchSources *sources,
                       GError **error);
bool arch_load_data_sourced(const char *path, const char *data, gsize len, const GPtrArray *overrides,
                            ArchParams *out, ArchSources *sources, GError **error);

/* arch_format with a "# from SOURCE" line for every key when some value
 * came from elsewhere than the file itself (a base or a --set); sources
 * may be NULL. */
void arch_format_sources(const ArchParams *a, const ArchSources *sources, GString *out);

/* Every key in one numbering, 0..arch_key_count()-1: the [section] keys in
 * the order arch show prints them, then inst.CLASS.latency and .interval. */
typedef enum {
    ARCH_KEY_INT,     /* a whole quantity: cycles, bytes, counts */
    ARCH_KEY_DOUBLE,  /* a fractional quantity: bytes per cycle, MHz */
    ARCH_KEY_OTHER    /* a name, a choice, a boolean, or arch.sm_version: no quantity to scale */
} ArchKeyKind;

guint arch_key_count(void);
/* "section.key" (newly allocated). */
char *arch_key_name(guint i);
/* The index of a "section.key", or -1. */
int arch_key_find(const char *name);
ArchKeyKind arch_key_kind(guint i);
/* The key's valid range (numeric keys). */
void arch_key_range(guint i, double *lo, double *hi);
/* The value of a numeric key (0 for others). */
double arch_key_number(const ArchParams *a, guint i);
/* The value as arch show writes it (newly allocated). */
char *arch_key_value(const ArchParams *a, guint i);

/* Most levels of [arch] base a derived file may chain. */
#define ARCH_MAX_BASE_DEPTH 16

/* True when `name` (section.key) is an architecture key. */
bool arch_has_key(const char *name);

/* The file an architecture name resolves to; newly allocated, NULL if none. */
char *arch_find_file(const char *name_or_path);

/* Index of an instruction class, or -1. */
int arch_class_index(const ArchParams *a, const char *name);

/* Names of the bundled architectures, NULL-terminated static array. */
const char *const *arch_bundled(void);
