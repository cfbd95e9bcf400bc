/* smem.c: bank-conflict degree and the shared-memory port calendar (see
 * smem.h).  Numbers: arch/NAME.ini smem.banks, smem.bank_bytes and
 * smem.wavefront_bytes (the CUDA guide's 32 x 4 bytes, 128 a wavefront, on
 * sm_80 and sm_90); smem.latency, smem.warp_interval and
 * smem.warp_wave_cycles for the warps' paths.  scripts/calib/ldsq.cu (H200,
 * docs/validation/campaign/microbench/ldsq_h200.txt): one warp's loads of
 * 4, 8 and 16 bytes a lane follow one another 4.0, 5.1 and 9.1 cycles apart
 * (1, 2 and 4 wavefronts), its stores of 4 and 16 bytes 4.0-4.6 and 8.8-11;
 * two warps on one sub-partition each keep that rate.  lat_mem.cu: a lone
 * warp's dependent load takes 23 cycles, 2 more a conflict way. */
#include "models/smem.h"

#include "sim/out/stats.h"

void smem_init(Smem *s, int64_t banks, int64_t bank_bytes, int64_t wavefront_bytes)
{
    memset(s, 0, sizeof *s);
    s->banks = banks;
    s->bank_bytes = bank_bytes;
    s->wavefront_bytes = wavefront_bytes;
    s->slot = g_new0(uint64_t, SMEM_CALENDAR);
}

void smem_clear(Smem *s)
{
    g_free(s->slot);
    s->slot = NULL;
    g_free(s->fill_slot);
    s->fill_slot = NULL;
    g_free(s->warp_next);
    s->warp_next = NULL;
}

void smem_init_warps(Smem *s, int32_t nwarps, int64_t latency, int64_t interval, int64_t wave_cycles)
{
    g_free(s->warp_next);
    s->warp_next = g_new0(SimCycle, (size_t) MAX(nwarps, 1));
    s->latency = latency;
    s->warp_interval = interval;
    s->warp_wave_cycles = wave_cycles;
}

/* Lanes served together: as many as fit one wavefront's bytes. */
static inline int64_t lanes_per_phase(const Smem *s, int64_t size)
{
    return MAX(1, MIN(32, s->wavefront_bytes / MAX(size, (int64_t) 4)));
}

/* Whether lanes moving `size` bytes at consecutive, size-aligned
 * addresses are conflict free: one wavefront per phase with active lanes. */
static inline bool contiguous_free(const Smem *s, int64_t size)
{
    return size >= 4 && size <= 16 && (size & (size - 1)) == 0 && s->wavefront_bytes == s->banks * s->bank_bytes;
}

/* The phases of per_phase lanes each that have a lane in mask. */
static int64_t contiguous_phases(uint32_t mask, int64_t per_phase)
{
    int64_t phases = 0;
    for (int64_t p = 0; p < 32; p += per_phase) {
        uint32_t lanes = per_phase >= 32 ? 0xffffffffu : (uint32_t) (((1ull << per_phase) - 1) << p);
        phases += (mask & lanes) != 0;
    }
    return phases;
}

bool smem_run_wavefronts(const Smem *s, int64_t addr0, uint32_t mask, int64_t size, int64_t *waves,
                         int64_t *ideal)
{
    if (mask == 0) {
        *waves = *ideal = 0;
        return true;
    }
    /* smem_wavefronts' fast path, whose contiguity test a run passes by
     * construction (its first lane is lane 0, at addr0). */
    if (!contiguous_free(s, size) || addr0 % size != 0) {
        return false;
    }
    *waves = *ideal = contiguous_phases(mask, lanes_per_phase(s, size));
    return true;
}

int64_t smem_wavefronts(const Smem *s, const int64_t *addr, uint32_t mask, int64_t size, int64_t *ideal)
{
    if (mask == 0) {
        *ideal = 0;
        return 0;
    }
    int64_t per_phase = lanes_per_phase(s, size);
    /* Fast path, the common case: lanes at consecutive, size-aligned
     * addresses never conflict: one wavefront per phase with active lanes. */
    if (contiguous_free(s, size)) {
        int first = __builtin_ctz(mask);
        bool contiguous = addr[first] % size == 0;
        if (mask == 0xffffffffu) {
            /* A converged warp: one pass without a branch per lane (the
             * compiler vectorises it). */
            uint64_t apart = 0;
            uint64_t expect = (uint64_t) addr[0] + (uint64_t) size;
            for (int l = 1; l < 32; l++, expect += (uint64_t) size) {
                apart |= (uint64_t) addr[l] ^ expect;
            }
            contiguous = contiguous && apart == 0;
        }
        for (int l = first + 1; l < 32 && contiguous && mask != 0xffffffffu; l++) {
            if ((mask & (1u << l)) && addr[l] != addr[first] + (l - first) * size) {
                contiguous = false;
            }
        }
        if (contiguous) {
            int64_t phases = contiguous_phases(mask, per_phase);
            *ideal = phases;
            return phases;
        }
    }
    int64_t total = 0;
    int64_t ideal_total = 0;
    for (int64_t first = 0; first < 32; first += per_phase) {
        /* Distinct words per bank within this phase. */
        int64_t words[32 * 4];
        int64_t nwords = 0;
        int64_t lanes = 0;
        for (int64_t l = first; l < first + per_phase && l < 32; l++) {
            if (!(mask & (1u << l))) {
                continue;
            }
            lanes++;
            int64_t w0 = addr[l] / s->bank_bytes;
            int64_t w1 = (addr[l] + MAX(size, (int64_t) 1) - 1) / s->bank_bytes;
            for (int64_t w = w0; w <= w1 && nwords < (int64_t) G_N_ELEMENTS(words); w++) {
                bool dup = false;
                for (int64_t k = 0; k < nwords; k++) {
                    if (words[k] == w) {
                        dup = true;
                        break;
                    }
                }
                if (!dup) {
                    words[nwords++] = w;
                }
            }
        }
        if (lanes == 0) {
            continue;
        }
        int64_t worst = 0;
        for (int64_t i = 0; i < nwords; i++) {
            int64_t bank = words[i] % s->banks;
            int64_t n = 0;
            for (int64_t k = 0; k < nwords; k++) {
                if (words[k] % s->banks == bank) {
                    n++;
                }
            }
            worst = MAX(worst, n);
        }
        /* The bytes of the phase need at least this many wavefronts. */
        int64_t need = (nwords * s->bank_bytes + s->wavefront_bytes - 1) / s->wavefront_bytes;
        total += MAX(worst, need);
        ideal_total += MAX((int64_t) 1, need);
    }
    *ideal = ideal_total;
    return total;
}

/* Reserves n cycles of the calendar cal at or after `at` (smem_reserve). */
static SimCycle reserve(uint64_t *cal, SimCycle at, int64_t n)
{
    SimCycle c = at;
    SimCycle last = at;
    for (int64_t k = 0; k < n; k++) {
        /* Find the next free cycle; give up searching past the calendar. */
        int64_t probes = 0;
        while (cal[c % SMEM_CALENDAR] == c + 1 && probes < SMEM_CALENDAR) {
            c++;
            probes++;
        }
        cal[c % SMEM_CALENDAR] = c + 1;
        last = c;
        c++;
    }
    return n > 0 ? last + 1 : at;
}

SimCycle smem_reserve(Smem *s, SimCycle at, int64_t n)
{
    return reserve(s->slot, at, n);
}

void smem_init_fill_port(Smem *s, bool own)
{
    g_free(s->fill_slot);
    s->fill_slot = own ? g_new0(uint64_t, SMEM_CALENDAR) : NULL;
}

SimCycle smem_fill(Smem *s, SimCycle at, int64_t waves)
{
    s->fill_wavefronts += (uint64_t) waves;
    return reserve(s->fill_slot != NULL ? s->fill_slot : s->slot, at, waves);
}

/* smem_access once the access's wavefronts are counted. */
static SimCycle access_waves(Smem *s, SimCycle at, int64_t waves, int64_t ideal, int64_t *replays)
{
    s->accesses++;
    s->wavefronts += (uint64_t) waves;
    s->ideal_wavefronts += (uint64_t) ideal;
    /* A conflict-free access (the usual one) has degree 1 without the
     * division: (2 ideal - 1) / ideal is 1 for ideal > 0. */
    int64_t degree = waves == ideal ? 1 : ideal > 0 ? (waves + ideal - 1) / ideal : 1;
    if (waves > ideal) {
        s->conflict_accesses++;
    }
    s->degree_hist[MIN(degree, (int64_t) 32)]++;
    s->max_degree = MAX(s->max_degree, (uint64_t) degree);
    *replays = waves - ideal;
    return smem_reserve(s, at, waves);
}

SimCycle smem_access(Smem *s, SimCycle at, const int64_t *addr, uint32_t mask, int64_t size, int64_t *replays)
{
    int64_t ideal;
    int64_t waves = smem_wavefronts(s, addr, mask, size, &ideal);
    return access_waves(s, at, waves, ideal, replays);
}

/* The wavefronts of a warp access (and *ideal); `run`: the lanes are a
 * run, which smem_run_wavefronts may count in closed form. */
static int64_t count_waves(const Smem *s, const int64_t *addr, uint32_t mask, int64_t size, bool run, int64_t *ideal)
{
    int64_t waves;
    if (!run || !smem_run_wavefronts(s, addr[0], mask, size, &waves, ideal)) {
        waves = smem_wavefronts(s, addr, mask, size, ideal);
    }
    return waves;
}

SimCycle smem_access_run(Smem *s, SimCycle at, const int64_t *addr, uint32_t mask, int64_t size, int64_t *replays)
{
    int64_t ideal;
    int64_t waves = count_waves(s, addr, mask, size, true, &ideal);
    return access_waves(s, at, waves, ideal, replays);
}

SimCycle smem_warp_access(Smem *s, int32_t warp, SimCycle at, const int64_t *addr, uint32_t mask, int64_t size,
                          bool run, SimCycle *start, int64_t *replays)
{
    SimCycle go = MAX(at, s->warp_next[warp]);
    int64_t ideal;
    int64_t waves = count_waves(s, addr, mask, size, run, &ideal);
    SimCycle port = access_waves(s, go, waves, ideal, replays);
    int64_t path = s->warp_wave_cycles * waves;
    s->warp_next[warp] = go + (SimCycle) MAX(s->warp_interval, path + 1);
    *start = go;
    /* The port's last wavefront, or the path's when the port kept up. */
    return MAX(port - 1, go + (SimCycle) MAX(path - s->warp_wave_cycles, (int64_t) 0)) + (SimCycle) s->latency;
}

void smem_stats_merge(const Smem *s, SimStats *st)
{
    st->smem_accesses += s->accesses;
    st->smem_wavefronts += s->wavefronts;
    st->smem_ideal_wavefronts += s->ideal_wavefronts;
    st->smem_conflict_accesses += s->conflict_accesses;
    st->smem_fill_wavefronts += s->fill_wavefronts;
    st->smem_max_degree = MAX(st->smem_max_degree, s->max_degree);
    for (size_t k = 0; k < G_N_ELEMENTS(s->degree_hist); k++) {
        st->smem_degree_hist[k] += s->degree_hist[k];
    }
}
