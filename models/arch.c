/* arch.c: architecture files.  A table maps each "section.key" to a field
 * of ArchParams with its type and valid range; loading checks that the file
 * has every key and no unknown one, so a typo cannot silently fall back to
 * a default. */
#include "models/arch.h"

#include "sim/core/fileio.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

typedef enum {
    K_INT,
    K_DOUBLE,
    K_STRING,
    K_BOOL,
    K_POLICY,
    K_SOURCE
} KeyType;

typedef struct {
    const char *section;
    const char *key;
    KeyType type;
    size_t offset;
    double lo, hi;     /* valid range for numbers */
    const char *help;
} KeyDef;

#define F(field) offsetof(ArchParams, field)

/* sched.policy's values, in SchedPolicy's order. */
static const char *const policy_names[] = { "lrr", "gto", "oldest", "greedy" };

static const KeyDef keys[] = {
    { "arch", "name", K_STRING, F(name), 0, 0, "architecture name" },
    { "arch", "sm_version", K_INT, F(sm_version), 80, 120, "compute capability x10 (80 = A100, 90 = H100)" },
    { "arch", "clock_mhz", K_DOUBLE, F(clock_mhz), 100, 5000, "SM clock used to convert cycles to time" },
    { "arch", "mma_clock_ratio", K_DOUBLE, F(mma_clock_ratio), 0, 1,
      "SM clock of a kernel that issues tensor-core instructions (hmma), as a fraction of clock_mhz; 0: clock_mhz" },
    { "sm", "subpartitions", K_INT, F(subpartitions), 1, 8, "warp schedulers per SM" },
    { "sm", "max_warps", K_INT, F(max_warps), 1, 128, "resident warps per SM" },
    { "sm", "max_threads", K_INT, F(max_threads), 32, 4096, "resident threads per SM" },
    { "sm", "max_blocks", K_INT, F(max_blocks), 1, 64, "resident blocks per SM" },
    { "sm", "smem_bytes", K_INT, F(smem_bytes), 1024, 1 << 20, "shared memory per SM" },
    { "sm", "smem_per_block", K_INT, F(smem_per_block), 1024, 1 << 20, "most shared memory one block may use" },
    { "sm", "smem_reserved_per_block", K_INT, F(smem_reserved), 0, 65536, "shared memory the system reserves per block" },
    { "sm", "registers", K_INT, F(registers), 1024, 1 << 20, "32-bit registers per SM" },
    { "sm", "regs_per_thread", K_INT, F(regs_per_thread), 1, 255, "registers the simulated kernel uses per thread" },
    { "sm", "blocks", K_INT, F(blocks), 1, 64, "resident blocks of the program on the SM (run option)" },
    { "gpu", "sms", K_INT, F(sms), 1, 1024, "SMs on the chip" },
    { "launch", "grid", K_INT, F(grid), 0, 1 << 30, "blocks in the launch, spread over gpu.sms SMs with sm.blocks on each; 0 = only the blocks resident on the simulated SM (run option)" },
    { "launch", "overhead_us", K_DOUBLE, F(launch_overhead_us), 0, 1e6, "microseconds that CUDA events time around a launch beyond its SMs' busy span: launch latency and block dispatch; added to the whole-launch estimate" },
    { "sched", "policy", K_POLICY, F(policy), 0, 0, "warp scheduling policy: lrr (loose round-robin), gto (greedy then oldest), oldest (oldest first) or greedy (a warp that issued in the cycle before keeps the slot while it can issue math, else loose round-robin)" },
    { "sched", "control_issue", K_INT, F(control_issue), 0, 16, "issue slots per control statement (assignment, branch)" },
    { "sched", "control_latency", K_INT, F(control_latency), 0, 1000, "cycles from the start of a control statement (assignment, branch, loop step) until the warp's next operation may start: its instructions form a dependent chain; hidden when other warps issue" },
    { "sched", "addr_issue", K_INT, F(addr_issue), 0, 64, "integer instructions a load or store spends computing its address before the memory instruction" },
    { "sched", "unroll_max", K_INT, F(unroll_max), 0, 100000, "a loop whose trip count the compiler knows, of at most this many passes, is unrolled: its control and the assignments that only add multiples of its counter to loop invariants issue nothing (0: no loop is)" },
    { "sched", "unroll_entry_issue", K_INT, F(unroll_entry_issue), 0, 1000, "instructions nvcc spends at the entry of a loop it unrolls with a computed trip count (an innermost loop of straight-line code it cannot unroll fully): the passes left and their remainder" },
    { "sched", "chain_overlap", K_BOOL, F(chain_overlap), 0, 0, "a warp issues independent compute chains interleaved, as the compiler schedules them" },
    { "sched", "wait_yields", K_BOOL, F(wait_yields), 0, 0, "a path of a diverged warp waiting on an mbarrier yields the warp: its other paths run past their reconvergence point and rejoin it later" },
    { "sched", "block_calls_drain", K_BOOL, F(block_calls_drain), 0, 0,
      "a block-scope pipeline call (acquire, commit, wait, release) waits for the warp's compute chains in flight, where a thread-scope one does not" },
    { "sched", "mma_shadow", K_BOOL, F(mma_shadow), 0, 0, "the issue slots a warp's tensor-core (hmma) chain leaves between its links take the warp's following control statements and library calls, as nvcc interleaves them" },
    { "sched", "older_blocks_first", K_BOOL, F(older_blocks_first), 0, 0, "a sub-partition's scheduler issues the ready warps of the oldest resident block first (sched.policy orders each block's own)" },
    { "sched", "div_cycles", K_INT, F(div_cycles), 0, 1000, "issue slots of an integer division or modulo by anything but a constant power of two" },
    { "sched", "div_latency", K_INT, F(div_latency), 0, 1000, "cycles from a division's first instruction until its result can be used" },
    { "sched", "pipe_call_issue", K_INT, F(pipe_call_issue), 1, 1000, "issue slots of a block-scope pipeline call (acquire, commit, wait, release): its SASS instructions" },
    { "sched", "memcpy_call_issue", K_INT, F(memcpy_call_issue), 0, 1000, "issue slots of memcpy_async's dispatch before its copy instructions: its SASS instructions" },
    { "sched", "thread_wait_issue", K_INT, F(thread_wait_issue), 0, 1000, "instructions of a thread-scope consumer_wait beyond the wait itself (the library's wait_prior switch): its SASS instructions" },
    { "sched", "int_cpi", K_DOUBLE, F(int_cpi), 1, 4, "cycles a sub-partition spends per instruction of integer and control code (statements, the library's calls): the ALU and FMA pipes take 2 cycles a warp-instruction each" },
    { "sched", "int_cpi_alone", K_DOUBLE, F(int_cpi_alone), 1, 4, "the same for a warp alone on its sub-partition, which cannot fill the pipes' gaps with another warp's instructions" },
    { "smem", "banks", K_INT, F(smem_banks), 1, 64, "shared-memory banks" },
    { "smem", "bank_bytes", K_INT, F(smem_bank_bytes), 1, 16, "bytes per bank" },
    { "smem", "latency", K_INT, F(smem_latency), 1, 1000, "shared-memory load latency (cycles)" },
    { "smem", "wavefront_bytes", K_INT, F(smem_wavefront_bytes), 16, 1024, "bytes one wavefront moves" },
    { "smem", "warp_interval", K_INT, F(smem_warp_interval), 0, 64, "least cycles between one warp's shared-memory loads or stores (0: no limit)" },
    { "smem", "warp_wave_cycles", K_INT, F(smem_warp_wave_cycles), 0, 64, "cycles a wavefront on a warp's own path to the shared-memory port (0: none)" },
    { "smem", "fill_port", K_BOOL, F(smem_fill_port), 0, 0, "async-copy fills (cp.async, bulk copies) write shared memory through a port of their own, a wavefront a cycle, instead of taking the warps' port" },
    { "l1", "latency", K_INT, F(l1_latency), 1, 1000, "L1 hit latency (cycles)" },
    { "l1", "lines", K_INT, F(l1_lines), 1, 1 << 20, "L1 data-cache lines" },
    { "l1", "line_bytes", K_INT, F(line_bytes), 32, 1024, "cache line size" },
    { "l1", "sector_bytes", K_INT, F(sector_bytes), 8, 1024, "sector size" },
    { "l1", "store_bytes_per_clk", K_DOUBLE, F(l1_store_bytes_per_clk), 0, 4096,
      "bytes of global stores the SM's L1 request port takes a cycle; 0: no port (neither stores nor cp.async wait for it)" },
    { "l1", "copy_bytes_per_clk", K_DOUBLE, F(l1_copy_bytes_per_clk), 0, 4096,
      "bytes of cp.async line requests the same port takes a cycle (0: they do not use it)" },
    { "l1", "port_queue_cycles", K_INT, F(l1_port_queue_cycles), 0, 1 << 20,
      "cycles of requests the port holds before a warp's store or cp.async waits for room" },
    { "l2", "latency", K_INT, F(l2_latency), 1, 10000, "L2 hit latency (cycles)" },
    { "l2", "bytes_per_clk_sm", K_DOUBLE, F(l2_bytes_per_clk_sm), 0.1, 4096, "L2-to-SM bytes per cycle, one SM" },
    { "l2", "bytes_per_clk", K_DOUBLE, F(l2_bytes_per_clk), 1, 1e6, "whole-L2 bytes per SM cycle" },
    { "l2", "bytes", K_INT, F(l2_bytes), 1024, (double) (INT64_C(1) << 40), "L2 capacity" },
    { "l2", "dirty_fraction", K_DOUBLE, F(l2_dirty_fraction), 0, 1, "share of L2's lines that may be dirty: beyond it the oldest dirty line is written back before eviction" },
    { "l2", "assoc", K_INT, F(l2_assoc), 1, 64, "ways per set of L2's tag array: the SM's share of L2 (l2.bytes / mem.active_sms) is kept as sets of this many lines, each evicting its oldest" },
    { "dram", "latency", K_INT, F(dram_latency), 1, 100000, "DRAM access latency (cycles)" },
    { "dram", "bytes_per_clk", K_DOUBLE, F(dram_bytes_per_clk), 0.1, 1e6, "DRAM bytes per SM cycle, whole chip" },
    { "dram", "queue_cycles", K_DOUBLE, F(dram_queue_cycles), 0, 1e5, "loaded latency below the peak rate: a DRAM read waits queue_cycles x rho / (1 - rho) more at utilisation rho of the SM's share" },
    { "dram", "write_cost", K_DOUBLE, F(dram_write_cost), 1, 4, "DRAM time a written-back byte takes, in read bytes: the bus turns around between reads and writes" },
    { "dram", "write_queue_cycles", K_DOUBLE, F(dram_write_queue), 0, 1e7, "cycles a DRAM read waits more when the SM's share of DRAM bandwidth is all taken by written-back bytes, in proportion to the share they take (reads queue behind the stores' write-back)" },
    { "dram", "latency_p10", K_INT, F(dram_quantile[0]), 1, 100000, "a lone line's DRAM latency at its 10th percentile (cycles): with the other quantiles, the spread each read's latency takes around dram.latency (all equal: none)" },
    { "dram", "latency_p25", K_INT, F(dram_quantile[1]), 1, 100000, "the same at the 25th percentile" },
    { "dram", "latency_p50", K_INT, F(dram_quantile[2]), 1, 100000, "the same at the median" },
    { "dram", "latency_p75", K_INT, F(dram_quantile[3]), 1, 100000, "the same at the 75th percentile" },
    { "dram", "latency_p90", K_INT, F(dram_quantile[4]), 1, 100000, "the same at the 90th percentile" },
    { "dram", "latency_p99", K_INT, F(dram_quantile[5]), 1, 100000, "the same at the 99th percentile (and above)" },
    { "dram", "spread_bytes", K_INT, F(dram_spread_bytes), 1, 1 << 30, "aligned bytes of memory whose DRAM reads share one draw of the latency spread (a power of two)" },
    { "dram", "queue_p10", K_DOUBLE, F(dram_queue_quantile[0]), 0, 100, "the factor a DRAM read's queueing delay (its wait for the bandwidth servers and the loaded latency) is scaled by, at its 10th percentile: with the other quantiles, the spread of the delay under load, normalised to a mean of 1 (all equal: none)" },
    { "dram", "queue_p25", K_DOUBLE, F(dram_queue_quantile[1]), 0, 100, "the same at the 25th percentile" },
    { "dram", "queue_p50", K_DOUBLE, F(dram_queue_quantile[2]), 0, 100, "the same at the median" },
    { "dram", "queue_p75", K_DOUBLE, F(dram_queue_quantile[3]), 0, 100, "the same at the 75th percentile" },
    { "dram", "queue_p90", K_DOUBLE, F(dram_queue_quantile[4]), 0, 100, "the same at the 90th percentile" },
    { "dram", "queue_p99", K_DOUBLE, F(dram_queue_quantile[5]), 0, 100, "the same at the 99th percentile (and above)" },
    { "dram", "queue_spread_bytes", K_INT, F(dram_queue_spread_bytes), 1, 1 << 30, "aligned bytes of memory whose DRAM reads share one draw of the queueing spread (a power of two)" },
    { "mem", "source", K_SOURCE, F(source), 0, 0, "where source data lives at start: dram or l2 (run option)" },
    { "mem", "active_sms", K_INT, F(active_sms), 1, 1024, "SMs sharing L2 and DRAM bandwidth (run option)" },
    { "mem", "flushed", K_BOOL, F(flushed), 0, 0, "the L2 was written back and emptied before a cold launch (true), or the launch follows others that left dirty lines behind (run option)" },
    { "cp_async", "warp_issue_cycles", K_INT, F(cp_async_warp_issue), 1, 1000, "cycles between two cp.async warp instructions of one warp" },
    { "cp_async", "issue_cycles", K_INT, F(cp_async_issue), 1, 1000, "LSU cycles per cp.async warp instruction" },
    { "cp_async", "call_cycles", K_INT, F(cp_async_call), 0, 10000, "latency of a group memcpy_async call's library code" },
    { "cp_async", "group_loop_cycles", K_INT, F(cp_async_group_loop), 0, 10000,
      "cycles one pass of a group memcpy_async's per-thread copy loop (one cp.async a pass) takes a warp; 0: warp_issue_cycles" },
    { "cp_async", "wait_cycles", K_INT, F(cp_async_wait), 0, 10000, "latency of a thread-scope consumer_wait call" },
    { "cp_async", "wait_prior_cycles", K_INT, F(cp_async_wait_prior), 0, 10000,
      "latency of a wait whose count is the constant 0 (pipeline_consumer_wait_prior<0>, cooperative_groups::wait): wait_group 0 drains" },
    { "cp_async", "wait_prior_n_cycles", K_INT, F(cp_async_wait_prior_n), 0, 10000,
      "latency of a wait whose count is a constant of 1 or more (wait_prior<N>) and whose groups have landed" },
    { "cp_async", "max_inflight", K_INT, F(cp_async_max_inflight), 1, 1 << 20, "line requests in flight per SM" },
    { "cp_async", "max_inflight_ca", K_INT, F(cp_async_max_inflight_ca), 1, 1 << 20, "line requests of 4- and 8-byte copies (cp.async.ca, allocating in L1) in flight per SM" },
    { "cp_async", "extra_latency", K_INT, F(cp_async_extra_latency), 0, 10000, "cp.async latency beyond a load's" },
    { "cp_async", "warp_shared_groups", K_BOOL, F(cp_async_warp_groups), 0, 0, "commit groups shared by a warp (sm_80)" },
    { "bulk", "issue_latency", K_INT, F(bulk_issue_latency), 0, 100000, "bulk copy set-up latency (cycles)" },
    { "bulk", "issue_cycles", K_INT, F(bulk_issue_cycles), 0, 100000, "cycles the issuing warp spends on each bulk copy (the elected thread's copy code)" },
    { "bulk", "bytes_per_clk", K_DOUBLE, F(bulk_bytes_per_clk), 0.1, 4096, "bulk copy engine bytes per cycle" },
    { "bulk", "chunk_bytes", K_INT, F(bulk_chunk_bytes), 16, 1 << 20, "bytes per bulk memory request" },
    { "barrier", "syncthreads_base", K_INT, F(syncthreads_base), 0, 100000, "__syncthreads cost, fixed part" },
    { "barrier", "syncthreads_per_warp", K_INT, F(syncthreads_per_warp), 0, 10000, "__syncthreads cost per warp" },
    { "barrier", "mbarrier_arrive", K_INT, F(mbar_arrive), 1, 10000, "mbarrier arrive latency" },
    { "barrier", "mbarrier_arrive_interval", K_INT, F(mbar_arrive_interval), 0, 10000, "cycles between two warp-wide arrives in the SM's mbarrier unit" },
    { "barrier", "mbarrier_wait_interval", K_INT, F(mbar_wait_interval), 0, 10000, "cycles a try_wait takes the SM's mbarrier unit" },
    { "barrier", "mbarrier_wake_per_waiter", K_INT, F(mbar_wake_per_waiter), 0, 10000, "try_wait: how much later each further waiter of a phase resumes" },
    { "barrier", "mbarrier_wake_diverged", K_INT, F(mbar_wake_diverged), 0, 10000, "try_wait: how much later a path resumes while another path of its warp waits on an mbarrier" },
    { "barrier", "mbarrier_wake", K_INT, F(mbar_wake), 0, 10000, "try_wait wake-up after the phase completes" },
    { "barrier", "mbarrier_poll", K_INT, F(mbar_poll), 1, 100000, "test_wait polling period (sm_80)" },
    { "barrier", "wait_call", K_INT, F(mbar_test), 1, 10000, "a libcudacxx wait on an already completed phase (clock read, try_wait, branch)" },
    { "barrier", "wait_call_copies", K_INT, F(mbar_test_copies), 1, 10000, "the same wait while the warp has cp.async in flight" },
    { "opencl", "max_active_reservations", K_INT, F(cl_max_active), 1, 1024, "CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS: open pipe reservations per work-item and pipe (a work-group's count for each of its work-items)" },
};

/* Instruction classes: [inst.NAME] latency, interval. */
static const char *const class_names[] = { "imad", "iadd", "lop", "ffma", "fadd", "fmul", "mufu", "dfma", "hmma" };

static const char *const bundled[] = { "a100", "h100", "h200", NULL };

const char *const *arch_bundled(void)
{
    return bundled;
}

static const KeyDef *find_key(const char *section, const char *key)
{
    for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
        if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].key, key) == 0) {
            return &keys[i];
        }
    }
    return NULL;
}

static int class_slot(const char *section)
{
    if (!g_str_has_prefix(section, "inst.")) {
        return -1;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(class_names); i++) {
        if (strcmp(section + 5, class_names[i]) == 0) {
            return (int) i;
        }
    }
    return -1;
}

bool arch_has_key(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (dot == NULL) {
        return false;
    }
    g_autofree char *section = g_strndup(name, dot - name);
    if (class_slot(section) >= 0) {
        return strcmp(dot + 1, "latency") == 0 || strcmp(dot + 1, "interval") == 0;
    }
    return find_key(section, dot + 1) != NULL;
}

/* True when s is printable ASCII (tabs allowed). */
static bool printable(const char *s)
{
    for (; *s != '\0'; s++) {
        if (*s != '\t' && !(*s >= 0x20 && *s < 0x7f)) {
            return false;
        }
    }
    return true;
}

/* A copy of s with every byte that is not printable ASCII shown as '?', for
 * messages: they must be UTF-8 and carry no terminal control codes.  Newly
 * allocated. */
static char *printable_copy(const char *s)
{
    char *c = g_strdup(s);
    for (char *p = c; *p != '\0'; p++) {
        if (*p != '\t' && !(*p >= 0x20 && *p < 0x7f)) {
            *p = '?';
        }
    }
    return c;
}

static bool parse_number(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = g_ascii_strtod(s, &end);
    if (errno != 0 || end == s) {
        return false;
    }
    while (*end == ' ' || *end == '\t') {
        end++;
    }
    if (*end != '\0') {
        return false;
    }
    *out = v;
    return true;
}

/* A relative value "xFACTOR" (x2, x0.5) scales the value a key has before
 * it is applied.  Returns false when value is not one; otherwise *factor is
 * set, or *error when the factor is malformed (then *bad is set). */
static bool relative_factor(const char *value, const char *where, const char *section, const char *key,
                            double *factor, bool *bad, GError **error)
{
    *bad = false;
    if (value[0] != 'x') {
        return false;
    }
    if (!parse_number(value + 1, factor) || !isfinite(*factor) || *factor < 0.0 || g_ascii_isspace(value[1])) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s.%s: '%s' is not a relative value: write x and a"
                    " factor, e.g. x2 or x0.5", where, section, key, value);
        *bad = true;
    }
    return true;
}

/* The message for a relative value where there is nothing to scale. */
static void relative_refused(const char *where, const char *section, const char *key, const char *value,
                             GError **error)
{
    g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s.%s=%s: a relative value needs a value to scale: use it"
                " in --set, --vary or a file with [arch] base", where, section, key, value);
}

/* Stores value (text) into the field of def; where names the origin.  A
 * relative value (xFACTOR) scales the field's current value, rounded to the
 * nearest whole number for integer keys; it is refused unless relative_ok
 * (the field holds a value to scale) and for keys that are not quantities. */
static bool set_field(ArchParams *a, const KeyDef *def, const char *value, const char *where, bool relative_ok,
                      GError **error)
{
    void *field = (char *) a + def->offset;
    double v = 0;
    double factor = 1.0;
    bool bad = false;
    bool numeric = def->type == K_INT || def->type == K_DOUBLE;
    if (!numeric && def->type != K_STRING && value[0] == 'x' && parse_number(value + 1, &factor)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s.%s is not a number: a relative value (%s) applies to"
                    " numeric keys only", where, def->section, def->key, value);
        return false;
    }
    bool relative = numeric && relative_factor(value, where, def->section, def->key, &factor, &bad, error);
    if (bad) {
        return false;
    }
    if (relative && def->offset == F(sm_version)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: arch.sm_version is a version, not a quantity: give it"
                    " whole (80, 90)", where);
        return false;
    }
    if (relative && !relative_ok) {
        relative_refused(where, def->section, def->key, value, error);
        return false;
    }
    switch (def->type) {
    case K_STRING:
        /* The name is printed in reports and JSON: printable ASCII only. */
        if (strlen(value) >= sizeof a->name || strlen(value) == 0 || !printable(value)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s.%s: a name of 1 to %zu printable ASCII characters", where,
                        def->section, def->key, sizeof a->name - 1);
            return false;
        }
        g_strlcpy(field, value, sizeof a->name);
        return true;
    case K_BOOL:
        if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0) {
            *(bool *) field = strcmp(value, "true") == 0;
            return true;
        }
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s.%s must be true or false, not '%s'", where,
                    def->section, def->key, value);
        return false;
    case K_POLICY:
        for (size_t k = 0; k < G_N_ELEMENTS(policy_names); k++) {
            if (strcmp(value, policy_names[k]) == 0) {
                *(SchedPolicy *) field = (SchedPolicy) k;
                return true;
            }
        }
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: sched.policy must be lrr, gto, oldest or greedy, not '%s'", where,
                    value);
        return false;
    case K_SOURCE:
        if (strcmp(value, "dram") == 0 || strcmp(value, "l2") == 0) {
            *(MemSource *) field = strcmp(value, "dram") == 0 ? MEM_SOURCE_DRAM : MEM_SOURCE_L2;
            return true;
        }
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: mem.source must be dram or l2, not '%s'", where, value);
        return false;
    case K_INT:
    case K_DOUBLE:
        if (relative) {
            double now = def->type == K_INT ? (double) *(int64_t *) field : *(double *) field;
            v = now * factor;
            if (def->type == K_INT) {
                v = round(v);
            }
            if (!(v >= def->lo && v <= def->hi)) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s.%s=%s makes %g, out of range (%g..%g)", where,
                            def->section, def->key, value, v, def->lo, def->hi);
                return false;
            }
        } else if (!parse_number(value, &v)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s.%s: '%s' is not a number", where, def->section,
                        def->key, value);
            return false;
        }
        /* The range check comes first and is written so that NaN fails it:
         * converting a NaN or a huge double to int64_t is undefined. */
        if (!(v >= def->lo && v <= def->hi)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s.%s=%s is out of range (%g..%g)", where,
                        def->section, def->key, value, def->lo, def->hi);
            return false;
        }
        if (def->type == K_INT && v != (double) (int64_t) v) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s.%s must be a whole number, not %s", where,
                        def->section, def->key, value);
            return false;
        }
        if (def->type == K_INT) {
            *(int64_t *) field = (int64_t) v;
        } else {
            *(double *) field = v;
        }
        return true;
    }
    return false;
}

static bool set_class(ArchParams *a, int slot, const char *key, const char *value, const char *where,
                      bool relative_ok, GError **error)
{
    double v;
    bool lat = strcmp(key, "latency") == 0;
    if (!lat && strcmp(key, "interval") != 0) {
        /* where shows the key, made printable; key itself may not be. */
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: inst.%s has keys latency and interval only", where,
                    class_names[slot]);
        return false;
    }
    InstClass *c = &a->classes[slot];
    g_autofree char *section = g_strdup_printf("inst.%s", class_names[slot]);
    double factor = 1.0;
    bool bad = false;
    bool relative = relative_factor(value, where, section, key, &factor, &bad, error);
    if (bad) {
        return false;
    }
    if (relative && !relative_ok) {
        relative_refused(where, section, key, value, error);
        return false;
    }
    if (relative) {
        v = round((double) (lat ? c->latency : c->interval) * factor);
        if (!(v >= 1 && v <= 10000)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s.%s=%s makes %g, out of range (%g..%g)", where,
                        section, key, value, v, 1.0, 10000.0);
            return false;
        }
    } else if (!parse_number(value, &v) || !(v >= 1 && v <= 10000) || v != (double) (int64_t) v) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: inst.%s.%s must be a whole number of cycles in 1..10000,"
                    " not '%s'", where, class_names[slot], key, value);
        return false;
    }
    if (lat) {
        c->latency = (int64_t) v;
    } else {
        c->interval = (int64_t) v;
    }
    return true;
}

char *arch_find_file(const char *name_or_path)
{
    if (strchr(name_or_path, '/') != NULL || g_str_has_suffix(name_or_path, ".ini")) {
        return g_file_test(name_or_path, G_FILE_TEST_IS_REGULAR) ? g_strdup(name_or_path) : NULL;
    }
    /* $SMPIPE_DATADIR, then the installed data directory or the source tree,
     * whichever belongs to this executable first (sim_data_dirs). */
    g_auto(GStrv) dirs = sim_data_dirs();
    g_autofree char *file = g_strconcat(name_or_path, ".ini", NULL);
    for (size_t i = 0; dirs[i] != NULL; i++) {
        char *p = g_build_filename(dirs[i], "arch", file, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_REGULAR)) {
            return p;
        }
        g_free(p);
    }
    return NULL;
}

/* Keys in one numbering: the table's, then each class's latency and interval. */
#define NTABLE G_N_ELEMENTS(keys)
#define NKEYS (NTABLE + 2 * G_N_ELEMENTS(class_names))

struct ArchSources {
    char *top;                 /* the file loaded (owned) */
    const char *src[NKEYS];    /* where each key's value came from (interned) */
};

ArchSources *arch_sources_new(void)
{
    return g_new0(ArchSources, 1);
}

void arch_sources_free(ArchSources *s)
{
    if (s != NULL) {
        g_free(s->top);
        g_free(s);
    }
}

const char *arch_sources_get(const ArchSources *s, guint key)
{
    return key < NKEYS && s->src[key] != NULL ? s->src[key] : "";
}

static guint class_key(int slot, const char *key)
{
    return (guint) (NTABLE + 2 * (guint) slot + (strcmp(key, "latency") == 0 ? 0 : 1));
}

static bool apply_override(ArchParams *a, const char *assign, const char **sources, GError **error)
{
    if (!printable(assign)) {
        g_autofree char *shown = printable_copy(assign);
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--set %s: holds a byte that is not printable ASCII", shown);
        return false;
    }
    const char *eq = strchr(assign, '=');
    if (eq == NULL) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--set %s: expected section.key=value", assign);
        return false;
    }
    g_autofree char *name = g_strndup(assign, eq - assign);
    const char *dot = strrchr(name, '.');
    if (dot == NULL) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--set %s: not an architecture key", assign);
        return false;
    }
    g_autofree char *section = g_strndup(name, dot - name);
    g_autofree char *where = g_strdup_printf("--set %s", assign);
    int slot = class_slot(section);
    if (slot >= 0) {
        if (!set_class(a, slot, dot + 1, eq + 1, where, true, error)) {
            return false;
        }
        sources[class_key(slot, dot + 1)] = g_intern_string(where);
        return true;
    }
    const KeyDef *def = find_key(section, dot + 1);
    if (def == NULL) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--set %s: unknown architecture key '%s' (smpipe arch show h100"
                    " lists them)", assign, name);
        return false;
    }
    if (!set_field(a, def, eq + 1, where, true, error)) {
        return false;
    }
    sources[def - keys] = g_intern_string(where);
    return true;
}

static bool validate(const ArchParams *a, const char *where, GError **error)
{
    if (a->smem_per_block > a->smem_bytes) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: sm.smem_per_block exceeds sm.smem_bytes", where);
        return false;
    }
    if (a->max_warps * 32 < a->max_threads) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: sm.max_threads exceeds 32 x sm.max_warps", where);
        return false;
    }
    if (a->line_bytes % a->sector_bytes != 0 || a->line_bytes / a->sector_bytes > 32) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: l1.line_bytes must be a multiple of l1.sector_bytes,"
                    " at most 32 sectors", where);
        return false;
    }
    for (int q = 1; q < ARCH_DRAM_QUANTILES; q++) {
        if (a->dram_quantile[q] < a->dram_quantile[q - 1]) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: dram.latency_p10 ... dram.latency_p99 are quantiles:"
                        " each must be at least the one before", where);
            return false;
        }
    }
    for (int q = 1; q < ARCH_DRAM_QUANTILES; q++) {
        if (a->dram_queue_quantile[q] < a->dram_queue_quantile[q - 1]) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: dram.queue_p10 ... dram.queue_p99 are quantiles:"
                        " each must be at least the one before", where);
            return false;
        }
    }
    if (a->dram_queue_quantile[ARCH_DRAM_QUANTILES - 1] <= 0.0) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: dram.queue_p99 must be above 0", where);
        return false;
    }
    const struct {
        const char *key;
        int64_t value;
    } blocks[] = { { "spread_bytes", a->dram_spread_bytes }, { "queue_spread_bytes", a->dram_queue_spread_bytes } };
    for (size_t k = 0; k < G_N_ELEMENTS(blocks); k++) {
        if ((blocks[k].value & (blocks[k].value - 1)) != 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: dram.%s must be a power of two, not %" G_GINT64_FORMAT,
                        where, blocks[k].key, blocks[k].value);
            return false;
        }
    }
    if (a->smem_banks * a->smem_bank_bytes > 4096) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: smem.banks x smem.bank_bytes too large", where);
        return false;
    }
    return true;
}

/* The bundled names, "a100, h100, h200" (newly allocated). */
static char *bundled_list(void)
{
    GString *names = g_string_new(NULL);
    for (const char *const *b = bundled; *b; b++) {
        g_string_append_printf(names, "%s%s", names->len ? ", " : "", *b);
    }
    return g_string_free(names, FALSE);
}

bool arch_load(const char *name_or_path, const GPtrArray *overrides, ArchParams *out, GError **error)
{
    return arch_load_sourced(name_or_path, overrides, out, NULL, error);
}

bool arch_load_sourced(const char *name_or_path, const GPtrArray *overrides, ArchParams *out, ArchSources *sources,
                       GError **error)
{
    g_autofree char *path = arch_find_file(name_or_path);
    if (path == NULL) {
        g_autofree char *names = bundled_list();
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "--arch %s: no such architecture (bundled: %s; or give a path"
                    " to an .ini file)", name_or_path, names);
        return false;
    }
    g_autofree char *text = NULL;
    gsize len = 0;
    if (!sim_read_file(path, ARCH_MAX_FILE_BYTES, &text, &len, error)) {
        return false;
    }
    return arch_load_data_sourced(path, text, len, overrides, out, sources, error);
}

bool arch_load_data(const char *path, const char *data, gsize len, const GPtrArray *overrides, ArchParams *out,
                    GError **error)
{
    return arch_load_data_sourced(path, data, len, overrides, out, NULL, error);
}

static bool load_file(const char *path, const char *data, gsize len, GPtrArray *chain, ArchParams *out,
                      const char **sources, GError **error);

/* Loads the base a derived file names (base: a bundled name, or a path
 * relative to the file's directory) into *a.  chain holds the canonical
 * paths of the files being loaded, outermost first. */
static bool load_base(const char *path, const char *base, GPtrArray *chain, ArchParams *a, const char **sources,
                      GError **error)
{
    g_autofree char *file = NULL;
    if (strchr(base, '/') != NULL || g_str_has_suffix(base, ".ini")) {
        g_autofree char *dir = g_path_get_dirname(path);
        file = g_path_is_absolute(base) ? g_strdup(base) : g_build_filename(dir, base, NULL);
        if (!g_file_test(file, G_FILE_TEST_IS_REGULAR)) {
            g_clear_pointer(&file, g_free);
        }
    } else if (*base != '\0') {
        file = arch_find_file(base);
    }
    if (file == NULL) {
        g_autofree char *names = bundled_list();
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: [arch] base = %s: no such architecture (bundled: %s; or a"
                    " path to an .ini file, relative to this one)", path, base, names);
        return false;
    }
    g_autofree char *canon = g_canonicalize_filename(file, NULL);
    for (guint i = 0; i < chain->len; i++) {
        if (strcmp(g_ptr_array_index(chain, i), canon) == 0) {
            g_autoptr(GString) loop = g_string_new(NULL);
            for (guint k = i; k < chain->len; k++) {
                g_autofree char *b = g_path_get_basename(g_ptr_array_index(chain, k));
                g_string_append_printf(loop, "%s -> ", b);
            }
            g_autofree char *b = g_path_get_basename(canon);
            g_string_append(loop, b);
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: [arch] base = %s: circular base (%s)", path, base,
                        loop->str);
            return false;
        }
    }
    if (chain->len > ARCH_MAX_BASE_DEPTH) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: [arch] base = %s: more than %d levels of base files", path,
                    base, ARCH_MAX_BASE_DEPTH);
        return false;
    }
    g_autofree char *text = NULL;
    gsize len = 0;
    if (!sim_read_file(file, ARCH_MAX_FILE_BYTES, &text, &len, error)) {
        g_prefix_error(error, "%s: [arch] base = %s: ", path, base);
        return false;
    }
    g_ptr_array_add(chain, g_steal_pointer(&canon));
    bool ok = load_file(file, text, len, chain, a, sources, error);
    g_ptr_array_remove_index(chain, chain->len - 1);
    return ok;
}

/* Loads one file, and the chain of bases it names, into *out; sources
 * (NKEYS entries) receive where each value came from.  Without a base the
 * file must have every key; with one it overrides some of the base's. */
static bool load_file(const char *path, const char *data, gsize len, GPtrArray *chain, ArchParams *out,
                      const char **sources, GError **error)
{
    if (len > ARCH_MAX_FILE_BYTES) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: the file is larger than the limit of %d bytes", path,
                    ARCH_MAX_FILE_BYTES);
        return false;
    }
    g_autoptr(GKeyFile) kf = g_key_file_new();
    GError *err = NULL;
    if (!g_key_file_load_from_data(kf, data, len, G_KEY_FILE_NONE, &err)) {
        /* GLib quotes the offending line, whatever bytes it holds. */
        g_autofree char *valid = g_utf8_make_valid(err->message, -1);
        for (char *c = valid; *c != '\0'; c++) {
            if ((unsigned char) *c < 0x20 || *c == 0x7f) {
                *c = '?';
            }
        }
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s", path, valid);
        g_error_free(err);
        return false;
    }
    ArchParams a;
    memset(&a, 0, sizeof a);
    const char *here = g_intern_string(path);
    g_autofree char *raw_base = g_key_file_get_value(kf, "arch", "base", NULL);
    bool derived = raw_base != NULL;
    if (derived) {
        g_autofree char *base = g_strstrip(g_strdup(raw_base));
        if (!printable(base)) {
            g_autofree char *where = g_strdup_printf("%s: [arch] base", path);
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: the value holds a byte that is not printable"
                        " ASCII", where);
            return false;
        }
        if (!load_base(path, base, chain, &a, sources, error)) {
            return false;
        }
    }
    bool seen[NTABLE] = { false };
    bool class_seen[G_N_ELEMENTS(class_names)][2] = { { false } };
    gsize ngroups = 0;
    g_auto(GStrv) groups = g_key_file_get_groups(kf, &ngroups);
    for (gsize g = 0; g < ngroups; g++) {
        gsize nkeys = 0;
        g_auto(GStrv) ks = g_key_file_get_keys(kf, groups[g], &nkeys, NULL);
        int slot = class_slot(groups[g]);
        for (gsize k = 0; k < nkeys; k++) {
            if (strcmp(groups[g], "arch") == 0 && strcmp(ks[k], "base") == 0) {
                continue;
            }
            g_autofree char *raw = g_key_file_get_value(kf, groups[g], ks[k], NULL);
            g_autofree char *value = g_strstrip(g_strdup(raw ? raw : ""));
            g_autofree char *group_text = printable_copy(groups[g]);
            g_autofree char *key_text = printable_copy(ks[k]);
            g_autofree char *where = g_strdup_printf("%s: [%s] %s", path, group_text, key_text);
            if (!printable(value)) {
                /* Values are quoted in messages and names printed in
                 * reports: a byte that is not printable ASCII is refused
                 * rather than echoed (reliability review). */
                g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: the value holds a byte that is not printable"
                            " ASCII", where);
                return false;
            }
            if (slot >= 0) {
                if (!set_class(&a, slot, ks[k], value, where, derived, error)) {
                    return false;
                }
                class_seen[slot][strcmp(ks[k], "latency") == 0 ? 0 : 1] = true;
                sources[class_key(slot, ks[k])] = here;
                continue;
            }
            const KeyDef *def = find_key(groups[g], ks[k]);
            if (def == NULL) {
                g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: unknown key", where);
                return false;
            }
            if (!set_field(&a, def, value, where, derived, error)) {
                return false;
            }
            seen[def - keys] = true;
            sources[def - keys] = here;
        }
    }
    for (size_t i = 0; i < NTABLE && !derived; i++) {
        if (!seen[i]) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: missing key [%s] %s (%s)", path, keys[i].section,
                        keys[i].key, keys[i].help);
            return false;
        }
    }
    for (size_t i = 0; i < G_N_ELEMENTS(class_names); i++) {
        g_strlcpy(a.classes[i].name, class_names[i], sizeof a.classes[i].name);
        if (!derived && (!class_seen[i][0] || !class_seen[i][1])) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: missing [inst.%s] latency and interval", path,
                        class_names[i]);
            return false;
        }
    }
    a.nclasses = (int) G_N_ELEMENTS(class_names);
    if (derived && !seen[0]) {
        /* A derived architecture is not its base: it is named after its
         * file unless [arch] name says otherwise. */
        g_autofree char *stem = g_path_get_basename(path);
        if (g_str_has_suffix(stem, ".ini")) {
            stem[strlen(stem) - 4] = '\0';
        }
        if (*stem == '\0' || strlen(stem) >= sizeof a.name || !printable(stem)) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: a derived architecture whose file name is not a valid"
                        " name (1 to %zu printable ASCII characters) needs [arch] name", path, sizeof a.name - 1);
            return false;
        }
        g_strlcpy(a.name, stem, sizeof a.name);
        sources[0] = here;
    }
    *out = a;
    return true;
}

bool arch_load_data_sourced(const char *path, const char *data, gsize len, const GPtrArray *overrides,
                            ArchParams *out, ArchSources *sources, GError **error)
{
    const char *local[NKEYS] = { NULL };
    const char **src = sources != NULL ? sources->src : local;
    g_autoptr(GPtrArray) chain = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(chain, g_canonicalize_filename(path, NULL));
    ArchParams a;
    if (!load_file(path, data, len, chain, &a, src, error)) {
        return false;
    }
    if (overrides != NULL) {
        for (guint i = 0; i < overrides->len; i++) {
            if (!apply_override(&a, g_ptr_array_index(overrides, i), src, error)) {
                return false;
            }
        }
    }
    if (!validate(&a, path, error)) {
        return false;
    }
    if (sources != NULL) {
        g_free(sources->top);
        sources->top = g_strdup(path);
    }
    *out = a;
    return true;
}

int arch_class_index(const ArchParams *a, const char *name)
{
    for (int i = 0; i < a->nclasses; i++) {
        if (strcmp(a->classes[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

guint arch_key_count(void)
{
    return NKEYS;
}

char *arch_key_name(guint i)
{
    g_return_val_if_fail(i < NKEYS, NULL);
    if (i < NTABLE) {
        return g_strdup_printf("%s.%s", keys[i].section, keys[i].key);
    }
    guint c = (i - NTABLE) / 2;
    return g_strdup_printf("inst.%s.%s", class_names[c], (i - NTABLE) % 2 == 0 ? "latency" : "interval");
}

int arch_key_find(const char *name)
{
    for (guint i = 0; i < NKEYS; i++) {
        g_autofree char *n = arch_key_name(i);
        if (strcmp(n, name) == 0) {
            return (int) i;
        }
    }
    return -1;
}

ArchKeyKind arch_key_kind(guint i)
{
    g_return_val_if_fail(i < NKEYS, ARCH_KEY_OTHER);
    if (i >= NTABLE) {
        return ARCH_KEY_INT;
    }
    if (keys[i].offset == F(sm_version)) {
        return ARCH_KEY_OTHER;
    }
    return keys[i].type == K_INT ? ARCH_KEY_INT : keys[i].type == K_DOUBLE ? ARCH_KEY_DOUBLE : ARCH_KEY_OTHER;
}

void arch_key_range(guint i, double *lo, double *hi)
{
    g_return_if_fail(i < NKEYS);
    *lo = i < NTABLE ? keys[i].lo : 1.0;
    *hi = i < NTABLE ? keys[i].hi : 10000.0;
}

double arch_key_number(const ArchParams *a, guint i)
{
    g_return_val_if_fail(i < NKEYS, 0.0);
    if (i >= NTABLE) {
        const InstClass *c = &a->classes[(i - NTABLE) / 2];
        return (double) ((i - NTABLE) % 2 == 0 ? c->latency : c->interval);
    }
    const void *field = (const char *) a + keys[i].offset;
    switch (keys[i].type) {
    case K_INT:
        return (double) *(const int64_t *) field;
    case K_DOUBLE:
        return *(const double *) field;
    default:
        return 0.0;
    }
}

char *arch_key_value(const ArchParams *a, guint i)
{
    g_return_val_if_fail(i < NKEYS, NULL);
    if (i >= NTABLE) {
        return g_strdup_printf("%" G_GINT64_FORMAT, (int64_t) arch_key_number(a, i));
    }
    const KeyDef *d = &keys[i];
    const void *field = (const char *) a + d->offset;
    switch (d->type) {
    case K_STRING:
        return g_strdup((const char *) field);
    case K_INT:
        return g_strdup_printf("%" G_GINT64_FORMAT, *(const int64_t *) field);
    case K_DOUBLE: {
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        return g_strdup(g_ascii_formatd(buf, sizeof buf, "%.6g", *(const double *) field));
    }
    case K_BOOL:
        return g_strdup(*(const bool *) field ? "true" : "false");
    case K_POLICY:
        return g_strdup(policy_names[*(const SchedPolicy *) field]);
    case K_SOURCE:
        return g_strdup(*(const MemSource *) field == MEM_SOURCE_DRAM ? "dram" : "l2");
    }
    return g_strdup("");
}

void arch_format(const ArchParams *a, GString *out)
{
    arch_format_sources(a, NULL, out);
}

/* True when some value did not come from the file loaded itself. */
static bool mixed_sources(const ArchSources *s)
{
    for (guint i = 0; s != NULL && i < NKEYS; i++) {
        if (s->src[i] != NULL && (s->top == NULL || strcmp(s->src[i], s->top) != 0)) {
            return true;
        }
    }
    return false;
}

void arch_format_sources(const ArchParams *a, const ArchSources *sources, GString *out)
{
    bool show = mixed_sources(sources);
    const char *section = "";
    for (size_t i = 0; i < NTABLE; i++) {
        const KeyDef *d = &keys[i];
        if (strcmp(section, d->section) != 0) {
            g_string_append_printf(out, "%s[%s]\n", i ? "\n" : "", d->section);
            section = d->section;
        }
        g_autofree char *value = arch_key_value(a, (guint) i);
        g_string_append_printf(out, "# %s\n", d->help);
        if (show) {
            g_string_append_printf(out, "# from %s\n", arch_sources_get(sources, (guint) i));
        }
        g_string_append_printf(out, "%s = %s\n", d->key, value);
    }
    for (int i = 0; i < a->nclasses; i++) {
        g_string_append_printf(out, "\n[inst.%s]\n", a->classes[i].name);
        for (int k = 0; k < 2; k++) {
            guint key = (guint) (NTABLE + 2 * (guint) i + (guint) k);
            if (show) {
                g_string_append_printf(out, "# from %s\n", arch_sources_get(sources, key));
            }
            g_string_append_printf(out, "%s = %" G_GINT64_FORMAT "\n", k == 0 ? "latency" : "interval",
                                   (int64_t) arch_key_number(a, key));
        }
    }
}

void arch_at_clock(ArchParams *a, double mhz)
{
    double f = mhz / a->clock_mhz;
    a->l2_latency = (int64_t) llround((double) a->l2_latency * f);
    a->dram_latency = (int64_t) llround((double) a->dram_latency * f);
    for (int q = 0; q < ARCH_DRAM_QUANTILES; q++) {
        a->dram_quantile[q] = (int64_t) llround((double) a->dram_quantile[q] * f);
    }
    a->dram_queue_cycles *= f;
    /* Cycles of latency per byte a cycle written back: both factors scale. */
    a->dram_write_queue *= f;
    a->l2_bytes_per_clk_sm /= f;
    a->l2_bytes_per_clk /= f;
    a->dram_bytes_per_clk /= f;
    a->clock_mhz = mhz;
}

void arch_sha256(const ArchParams *a, char out[65])
{
    g_autoptr(GString) text = g_string_new(NULL);
    arch_format(a, text);
    g_autoptr(GString) values = g_string_new(NULL);
    for (const char *line = text->str; *line != '\0';) {
        const char *nl = strchr(line, '\n');
        gsize n = nl ? (gsize) (nl - line) + 1 : strlen(line);
        if (line[0] != '#') {
            g_string_append_len(values, line, (gssize) n);
        }
        line += n;
    }
    g_autofree char *h = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *) values->str, values->len);
    g_strlcpy(out, h, 65);
}
