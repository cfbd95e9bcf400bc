/* test_sm.c: the SM (models/sm.c, sm_batch.c) through its public
 * interface (sm.h): the occupancy check names the resource that does not
 * fit, shared memory per block includes the system's reserve, the deadlock
 * report names the waiting threads, their line and what they wait for,
 * every warp-cycle is in exactly one state, and a closed sub-partition's
 * batch gives what the cycle-stepped engine gives, with invariant checks
 * and without. */
#include "test_util.h"

#include "models/sm.h"

/* Runs text with one "key=value" set; returns the error message (to free)
 * or NULL when the run succeeds. */
static char *run_error(const char *text, const char *set, int *status)
{
    const char *sets[] = { set, NULL };
    TestRun tr;
    bool ok = run_text(&tr, text, set ? sets : NULL);
    char *msg = ok ? NULL : g_strdup(tr.msg);
    *status = tr.status;
    test_run_clear(&tr);
    return msg;
}

#define BIG_BLOCK "smpipe 1\nblock 1024\n__syncthreads()\n"

START_TEST(occupancy_names_the_limit)
{
    int status;
    g_autofree char *ok = run_error(BIG_BLOCK, "sm.blocks=2", &status);
    ck_assert_ptr_null(ok);
    /* h100: 2048 threads. */
    g_autofree char *threads = run_error(BIG_BLOCK, "sm.blocks=3", &status);
    ck_assert_ptr_nonnull(threads);
    ck_assert_msg(strstr(threads, "sm.blocks=3 blocks of 1024 threads need 3072 threads, but the SM of h100 holds"
                                  " 2048") != NULL, "%s", threads);
    ck_assert_int_eq(status, SIM_EXIT_BAD_INPUT);
    /* 120000 bytes + 1024 reserved per block: one fits, two do not. */
    const char *smem = "smpipe 1\nblock 32\nshared char s[120000]\n__syncthreads()\n";
    g_autofree char *one = run_error(smem, "sm.blocks=1", &status);
    ck_assert_ptr_null(one);
    g_autofree char *two = run_error(smem, "sm.blocks=2", &status);
    ck_assert_ptr_nonnull(two);
    ck_assert_msg(strstr(two, "need 242048 bytes of shared memory") != NULL, "%s", two);
}
END_TEST

START_TEST(shared_memory_per_block_includes_the_reserve)
{
    TestRun tr;
    ck_assert(run_text(&tr, "smpipe 1\nblock 32\nshared int s[100]\n__syncthreads()\n", NULL));
    ck_assert_int_eq(sm_smem_per_block(tr.run.prog, &tr.run.arch), 400 + tr.run.arch.smem_reserved);
    test_run_clear(&tr);
}
END_TEST

/* A barrier that expects 64 arrivals from a block of 32 threads. */
#define NEVER_COMPLETES                                                                                                \
    "smpipe 1\nblock 32\nbarrier bar\nif threadIdx.x == 0\n    init(bar, 64)\nend\n__syncthreads()\n"               \
    "bar.arrive_and_wait()\n"

START_TEST(deadlock_report_names_the_waiters)
{
    int status;
    g_autofree char *msg = run_error(NEVER_COMPLETES, NULL, &status);
    ck_assert_ptr_nonnull(msg);
    ck_assert_int_eq(status, SIM_EXIT_INVALID_PROGRAM);
    ck_assert_msg(g_str_has_prefix(msg, "deadlock at cycle "), "%s", msg);
    ck_assert_msg(strstr(msg, "1 warp(s) still have live threads and nothing pending can wake them") != NULL, "%s",
                  msg);
    ck_assert_msg(strstr(msg, "test.trace:8") != NULL, "the waiters' line: %s", msg);
    ck_assert_msg(strstr(msg, "bar.arrive_and_wait()") != NULL, "the line's text: %s", msg);
}
END_TEST

/* Divergent warps, a barrier and compute: warps x cycles warp-cycles, each
 * in one state. */
START_TEST(every_warp_cycle_in_one_state)
{
    TestRun tr;
    ck_assert(run_text(&tr,
                       "smpipe 1\nblock 96\nshared int s[96]\nif threadIdx.x % 3 == 0\n    var x = load(s + threadIdx.x)\n"
                       "    x = compute(x, 20)\n    s[threadIdx.x] = x\nelse\n    compute(imad, 50)\nend\n"
                       "__syncthreads()\n",
                       NULL));
    const SimStats *st = tr_stats(&tr);
    uint64_t sum = 0;
    for (int k = 0; k < WS__COUNT; k++) {
        sum += st->state_total[k];
    }
    ck_assert_uint_eq(sum, (uint64_t) st->warps * st->cycles);
    test_run_clear(&tr);
}
END_TEST

/* Divisions charge sched.div_cycles issue slots each time they run, except
 * that nvcc hoists one whose operands the innermost loop around it never
 * changes: it then runs once each time that loop is entered, once however
 * many statements repeat it.  Outer loop of 10, inner of 8: the varying
 * j % 3 runs 80 times, the invariant y % 3 (in two statements) 10. */
START_TEST(invariant_divisions_leave_the_loop)
{
    const char *text = "smpipe 1\nblock 32\nvar x = 0\nvar z = 0\nfor (var i = 0; i < 10; ++i)\n"
                       "    var y = i + 7\n    for (var j = 0; j < 8; ++j)\n        x = x + y % 3\n"
                       "        z = z + j % 3\n        x = x - y % 3\n    end\nend\n";
    const char *none[] = { "sched.div_cycles=0", NULL };
    const char *some[] = { "sched.div_cycles=100", NULL };
    ck_assert_uint_eq(issuing_cycles(text, some) - issuing_cycles(text, none), (80 + 10) * 100);
}
END_TEST

/* Runs the 8-warp program text (two warps a sub-partition: warp w beside
 * warp w + 4) under sched.policy = policy and writes the cycle each warp
 * ends (the run's cycles less its exited warp-cycles) to ends[0..7]. */
static void warp_ends(const char *text, const char *policy, int64_t ends[8])
{
    g_autofree char *set = g_strdup_printf("sched.policy=%s", policy);
    const char *sets[] = { set, NULL };
    TestRun tr;
    ck_assert_msg(run_text(&tr, text, sets), "%s", tr.msg ? tr.msg : "");
    const SimStats *st = tr_stats(&tr);
    for (int w = 0; w < 8; w++) {
        ends[w] = (int64_t) st->cycles - (int64_t) st->warp_state[w * WS__COUNT + WS_EXITED];
    }
    test_run_clear(&tr);
}

/* The scheduler's policy: each of the 8 warps issues 64 FFMAs in 8
 * independent chains.  Oldest first runs warps 0-3 to their ends before
 * 4-7 issue (scripts/calib/sched.cu: the older warp ends a whole run
 * earlier), loose round-robin interleaves them (both end together).
 * Returns how much later warps 4-7 end than warps 0-3, summed. */
static int64_t earlier_end(const char *policy)
{
    int64_t ends[8];
    warp_ends("smpipe 1\nblock 256\ncompute(ffma, 64, 8)\n", policy, ends);
    int64_t d = 0;
    for (int w = 0; w < 8; w++) {
        d += (w < 4 ? -1 : 1) * ends[w];
    }
    return d;
}

START_TEST(oldest_first_runs_the_oldest_warp_to_its_end)
{
    /* Each of warps 0-3 waits 64 cycles less for the end. */
    ck_assert_int_ge(earlier_end("oldest"), 4 * 60);
    ck_assert_int_le(earlier_end("lrr"), 4 * 4);
}
END_TEST

/* Greedy (the files' policy, scripts/calib/schedmix.cu): an FFMA warp
 * issuing back to back keeps its sub-partition's slot beside an older warp
 * whose IMADs wait for the half-rate pipe, so it ends as if alone; round-
 * robin gives the older warp every other slot.  Warps 0-3 run 128 IMADs,
 * warps 4-7 (one beside each) 128 FFMAs in 8 chains.  Returns the cycle
 * warp 4 ends. */
static int64_t ffma_end_beside_imad(const char *policy)
{
    int64_t ends[8];
    warp_ends("smpipe 1\nblock 256\nif warp_id < 4\n    compute(imad, 128)\nelse\n    compute(ffma, 128, 8)\nend\n",
              policy, ends);
    return ends[4];
}

START_TEST(greedy_keeps_a_warp_issuing_back_to_back)
{
    int64_t greedy = ffma_end_beside_imad("greedy"), lrr = ffma_end_beside_imad("lrr");
    /* Alone: 128 FFMAs at one a cycle and a few cycles around them. */
    ck_assert_msg(greedy < 128 + 40, "greedy: the FFMA warp ends at %" G_GINT64_FORMAT, greedy);
    ck_assert_msg(lrr > greedy + 30, "round-robin %" G_GINT64_FORMAT " vs greedy %" G_GINT64_FORMAT, lrr, greedy);
}
END_TEST

/* Greedy holds the slot for math only (pipedrift.cu): FFMA warps that run
 * a loop of short FFMA batches go on to the loop's control after each and
 * take their turn there, so the IMAD warps beside them (warps 0-3) end
 * nearly when round-robin has them end (under the twentieth round's rule,
 * which kept a warp through its control, 26% later).  Returns when the
 * IMAD warps end. */
static int64_t imad_end_beside_ffma_loop(const char *policy)
{
    int64_t ends[8];
    warp_ends("smpipe 1\nblock 256\nif warp_id < 4\n    compute(imad, 128)\nelse\n"
              "    for (var i = 0; i < 40; ++i)\n        compute(ffma, 4, 4)\n    end\nend\n",
              policy, ends);
    return ends[0];
}

START_TEST(greedy_gives_the_slot_up_at_control)
{
    int64_t greedy = imad_end_beside_ffma_loop("greedy"), lrr = imad_end_beside_ffma_loop("lrr");
    ck_assert_msg(greedy * 100 <= lrr * 115, "greedy %" G_GINT64_FORMAT " vs round-robin %" G_GINT64_FORMAT, greedy,
                  lrr);
}
END_TEST

/* A loop whose passes the compiler knows, up to sched.unroll_max of them,
 * loses its control (head, step, back jump) and the assignments that only
 * add multiples of its counter to invariants; a longer loop, or one whose
 * bound the loop changes, keeps them. */
static char *counted_loop(const char *bound)
{
    return g_strdup_printf("smpipe 1\nblock 32\nvar x = 0\nfor (var i = 0; i < %s; ++i)\n"
                           "    var e = i * 4 + threadIdx.x\n    x = x * 3 + e\nend\n", bound);
}

START_TEST(constant_trip_loops_unroll)
{
    const char *kept[] = { "sched.control_issue=10", "sched.int_cpi_alone=1", "sched.unroll_max=0",
                           "sched.unroll_entry_issue=0", NULL };
    const char *unrolled[] = { "sched.control_issue=10", "sched.int_cpi_alone=1", "sched.unroll_max=32",
                               "sched.unroll_entry_issue=0", NULL };
    g_autofree char *short_loop = counted_loop("8");
    /* Per pass: head, e, step and jump (10 cycles each); and the last head. */
    ck_assert_uint_eq(issuing_cycles(short_loop, kept) - issuing_cycles(short_loop, unrolled), 8 * 4 * 10 + 10);
    g_autofree char *long_loop = counted_loop("33");
    ck_assert_uint_eq(issuing_cycles(long_loop, kept), issuing_cycles(long_loop, unrolled));
    g_autofree char *moving = counted_loop("8 + x % 2");
    ck_assert_uint_eq(issuing_cycles(moving, kept), issuing_cycles(moving, unrolled));
    /* Counting a loop's passes never overflows (the program itself fails
     * when its counter would). */
    TestRun tr;
    ck_assert(!run_text(&tr, "smpipe 1\nblock 32\nfor (var i = 9223372036854775800; i > 0; i = i + 100)\nend\n",
                        unrolled));
    test_run_clear(&tr);
}
END_TEST

/* A branch on a constant (a parameter's test) is gone from the compiled
 * kernel: it issues nothing, whichever side it keeps; the same test on a
 * variable issues its control. */
static char *flag_branch(const char *cond)
{
    return g_strdup_printf("smpipe 1\nparam write = 0 in 0..1\nblock 32\nvar w = write\n"
                           "for (var i = 0; i < 40; ++i)\n    if %s\n        compute(imad, 1)\n    end\nend\n", cond);
}

START_TEST(branches_on_constants_fold)
{
    const char *sets[] = { "sched.control_issue=10", "sched.int_cpi_alone=1", "sched.unroll_max=0", NULL };
    g_autofree char *constant = flag_branch("write == 1");
    g_autofree char *variable = flag_branch("w == 1");
    /* 40 passes of the branch, 10 cycles each. */
    ck_assert_uint_eq(issuing_cycles(variable, sets) - issuing_cycles(constant, sets), 40 * 10);
}
END_TEST

/* A loop nvcc cannot unroll fully but whose body is straight-line code is
 * unrolled with a trip count computed at each entry: every entry pays
 * sched.unroll_entry_issue; a loop with a branch or a barrier in it, and a
 * loop of known passes, do not. */
static char *entered_loop(const char *body)
{
    return g_strdup_printf("smpipe 1\nblock 32\nvar x = 0\nvar n = 2\nfor (var k = 0; k < 3; ++k)\n"
                           "    for (var i = 0; i < n + k; ++i)\n%s    end\nend\n", body);
}

START_TEST(computed_trip_loops_pay_their_prologue)
{
    const char *none[] = { "sched.int_cpi_alone=1", "sched.unroll_max=32", "sched.unroll_entry_issue=0", NULL };
    const char *some[] = { "sched.int_cpi_alone=1", "sched.unroll_max=32", "sched.unroll_entry_issue=16", NULL };
    g_autofree char *plain = entered_loop("        x = x * 3 + i\n");
    ck_assert_uint_eq(issuing_cycles(plain, some) - issuing_cycles(plain, none), 3 * 16);
    g_autofree char *branchy = entered_loop("        if (x % 2 == 0)\n            x = x + 1\n        end\n");
    ck_assert_uint_eq(issuing_cycles(branchy, some), issuing_cycles(branchy, none));
    g_autofree char *synced = entered_loop("        __syncthreads()\n");
    ck_assert_uint_eq(issuing_cycles(synced, some), issuing_cycles(synced, none));
    /* A while loop has no step: its last statement is the body's. */
    const char *spin = "smpipe 1\nblock 32\nvar n = 2\nvar i = 0\nwhile (i < n)\n    i = i + 1\n    __syncthreads()\nend\n";
    ck_assert_uint_eq(issuing_cycles(spin, some), issuing_cycles(spin, none));
    /* Known passes, more than unroll_max: unrolled by four without a
     * prologue; unroll_max 0 turns unrolling off altogether. */
    g_autofree char *known = counted_loop("34");
    ck_assert_uint_eq(issuing_cycles(known, some), issuing_cycles(known, none));
    const char *off[] = { "sched.int_cpi_alone=1", "sched.unroll_max=0", "sched.unroll_entry_issue=16", NULL };
    const char *off0[] = { "sched.int_cpi_alone=1", "sched.unroll_max=0", "sched.unroll_entry_issue=0", NULL };
    ck_assert_uint_eq(issuing_cycles(plain, off), issuing_cycles(plain, off0));
}
END_TEST

/* A kernel with an hmma compute statement runs its SM at arch.clock_mhz x
 * arch.mma_clock_ratio (sm_arch_for_program), with or without operands,
 * also at a clock set with --set; any other class leaves the clock alone. */
START_TEST(mma_kernels_run_at_their_clock)
{
    const char *operands = "smpipe 1\nblock 32\nglobal int g[32]\nvar x = load(g + threadIdx.x)\n"
                           "x = compute(hmma, 4, x)\nstore(g + threadIdx.x, x)\n";
    const char *texts[] = {
        "smpipe 1\nblock 32\ncompute(ffma, 16, 4)\n",
        "smpipe 1\nblock 32\ncompute(hmma, 16, 4)\n",
        operands,
    };
    g_autoptr(GPtrArray) slower = g_ptr_array_new();
    g_ptr_array_add(slower, (gpointer) "arch.clock_mhz=1500");
    for (int k = 0; k < 6; k++) {
        GError *err = NULL;
        g_autoptr(Trace) t = trace_parse_string("test.trace", texts[k % 3], strlen(texts[k % 3]), &err);
        ck_assert_msg(t != NULL, "%s", err ? err->message : "");
        SimRunOptions o;
        memset(&o, 0, sizeof o);
        o.arch = "h100";
        o.sets = k < 3 ? NULL : slower;
        o.sm.engine = SIM_ENGINE_EVENT;
        SimRun run;
        ck_assert_msg(sim_run_prepare(t, &o, &run, &err), "%s", err ? err->message : "");
        ArchParams h100;
        ck_assert(arch_load("h100", o.sets, &h100, NULL));
        ck_assert_double_eq_tol(h100.clock_mhz, k < 3 ? 1980.0 : 1500.0, 1e-9);
        double ratio = k % 3 == 0 ? 1.0 : h100.mma_clock_ratio;
        ck_assert_double_eq_tol(run.arch.clock_mhz, h100.clock_mhz * ratio, 1e-9);
        ck_assert_int_eq(run.arch.dram_latency, llround((double) h100.dram_latency * ratio));
        sim_run_clear(&run);
    }
}
END_TEST

/* --by line charges each operation's issue cycles to its own line, also
 * when one issue runs through several: the thread-scope acquire on line 4
 * issues nothing and lets the assignment on line 5 issue at once. */
START_TEST(issue_cycles_go_to_their_own_line)
{
    const char *text = "smpipe 1\nblock 32\nvar p = cuda::make_pipeline()\np.producer_acquire()\nvar x = 1\n";
    const char *sets[] = { "sched.control_issue=10", "sched.int_cpi_alone=1", NULL };
    GError *err = NULL;
    g_autoptr(Trace) t = trace_parse_string("test.trace", text, strlen(text), &err);
    ck_assert_ptr_nonnull(t);
    GPtrArray *sl = test_set_list(sets);
    SimRunOptions o;
    memset(&o, 0, sizeof o);
    o.sets = sl;
    o.sm.engine = SIM_ENGINE_EVENT;
    o.sm.race_check = true;
    o.sm.check_invariants = true;
    o.sm.by_line = true;
    SimRun run;
    ck_assert_msg(sim_run_trace(t, &o, &run, &err), "%s", err ? err->message : "");
    g_ptr_array_free(sl, TRUE);
    const SimStats *st = sm_stats(run.sm);
    ck_assert_uint_eq(st->line_state[4 * WS__COUNT + WS_ISSUING], 0);
    ck_assert_uint_eq(st->line_state[5 * WS__COUNT + WS_ISSUING], 10);
    sim_run_clear(&run);
}
END_TEST

/* A closed sub-partition's chain steps taken ahead of the clock
 * (models/sm_batch.c) give what the cycle-stepped engine, which never
 * batches, gives: the same cycles, instructions, overlap, and each warp's
 * and role's cycles in each state, under each policy (LRR, greedy and
 * oldest first run batches; GTO keeps a ready list, and none).  Eight
 * warps a sub-partition in FFMA chains long enough to batch, one of them
 * at a loop's control between short runs (the batch stops before it
 * picks that warp), then an IMAD tail on the half-rate pipe.  The
 * pipeline gives every thread its role, which a batch needs fixed. */
/* Runs text on the event engine and on the stepped one under each
 * policy and checks that they agree on cycles, instructions, busy cycles
 * and every warp's and role's state cycles; returns the event engine's
 * warp-cycles in `state` summed over the policies. */
static uint64_t engines_agree_with(const char *text, const char *extra, int32_t warps, SimWarpState state)
{
    const char *policies[] = { "lrr", "greedy", "oldest", "gto" };
    uint64_t in_state = 0;
    for (size_t p = 0; p < G_N_ELEMENTS(policies); p++) {
        g_autofree char *set = g_strdup_printf("sched.policy=%s", policies[p]);
        const char *sets[] = { set, extra, NULL };
        TestRun ev, st;
        ck_assert_msg(run_text_engine(&ev, text, sets, SIM_ENGINE_EVENT), "%s", ev.msg ? ev.msg : "");
        ck_assert_msg(run_text_engine(&st, text, sets, SIM_ENGINE_STEPPED), "%s", st.msg ? st.msg : "");
        const SimStats *a = tr_stats(&ev), *b = tr_stats(&st);
        ck_assert_uint_eq(a->cycles, b->cycles);
        ck_assert_uint_eq(a->instructions, b->instructions);
        ck_assert_uint_eq(a->compute_busy, b->compute_busy);
        ck_assert_int_eq(a->warps, warps);
        ck_assert_int_eq(b->warps, a->warps);
        ck_assert_msg(memcmp(a->warp_state, b->warp_state, (size_t) a->warps * WS__COUNT * sizeof *a->warp_state) == 0,
                      "%s: a warp's states differ", policies[p]);
        ck_assert_msg(memcmp(a->role_state, b->role_state, sizeof a->role_state) == 0, "%s: a role's states differ",
                      policies[p]);
        in_state += a->state_total[state];
        test_run_clear(&ev);
        test_run_clear(&st);
    }
    return in_state;
}

static uint64_t engines_agree(const char *text, int32_t warps, SimWarpState state)
{
    return engines_agree_with(text, NULL, warps, state);
}

START_TEST(closed_batches_match_the_stepped_engine)
{
    const char *text = "smpipe 1\nblock 1024\nshared pipeline_shared_state<block, 2> st\n"
                       "var p = make_pipeline(block, st)\nif warp_id % 8 == 0\n"
                       "    for (var i = 0; i < 30; ++i)\n        compute(ffma, 6, 2)\n    end\n"
                       "else\n    compute(ffma, 300, 4)\nend\ncompute(imad, 40, 2)\n";
    engines_agree(text, 32, WS_ISSUING);
}
END_TEST

/* Older blocks first (scripts/calib/schedblk.cu): two blocks of four
 * warps, one of each on every sub-partition, in 4 independent IMAD chains
 * that the half-rate pipe paces.  The older block's warps take every slot
 * they can use and end as if alone; without the rule the blocks share the
 * pipe in turn and end together.  Closed batches keep agreeing with the
 * stepped engine under each policy. */
START_TEST(older_blocks_run_first)
{
    const char *text = "smpipe 1\nblock 128\ncompute(imad, 256, 4)\n";
    const char *on[] = { "sm.blocks=2", "sched.older_blocks_first=true", NULL };
    const char *off[] = { "sm.blocks=2", "sched.older_blocks_first=false", NULL };
    const char *alone[] = { "sm.blocks=1", NULL };
    int64_t end_on[2], end_off[2], end_alone = 0;
    const char **sets[] = { on, off, alone };
    for (int k = 0; k < 3; k++) {
        TestRun tr;
        ck_assert_msg(run_text(&tr, text, sets[k]), "%s", tr.msg ? tr.msg : "");
        const SimStats *st = tr_stats(&tr);
        for (int b = 0; b < (k < 2 ? 2 : 1); b++) {
            /* Warp 4b + 0's end: the run's cycles less its exited ones. */
            int64_t end = (int64_t) st->cycles - (int64_t) st->warp_state[4 * b * WS__COUNT + WS_EXITED];
            if (k == 0) {
                end_on[b] = end;
            } else if (k == 1) {
                end_off[b] = end;
            } else {
                end_alone = end;
            }
        }
        test_run_clear(&tr);
    }
    ck_assert_msg(end_on[0] <= end_alone + 8, "older block %" G_GINT64_FORMAT " vs alone %" G_GINT64_FORMAT,
                  end_on[0], end_alone);
    ck_assert_msg(end_on[1] >= 2 * end_alone - 64, "younger block %" G_GINT64_FORMAT, end_on[1]);
    ck_assert_msg(end_off[1] - end_off[0] <= 16 && end_off[0] > end_alone + end_alone / 2,
                  "in turn: %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT, end_off[0], end_off[1]);
    engines_agree_with("smpipe 1\nblock 128\nif warp_id % 2 == 0\n    compute(imad, 200, 4)\nelse\n"
                       "    for (var i = 0; i < 20; ++i)\n        compute(ffma, 12, 2)\n    end\nend\n",
                       "sm.blocks=3", 12, WS_ISSUING);
}
END_TEST

/* sched.mma_shadow (scripts/calib/mmashadow.cu, cutparts.trace): a loop's
 * control and the statements after an hmma chain take the slots its links
 * left, so each pass costs its MMAs alone; after an IMAD chain (two cycles
 * a link, one slot left) nothing changes, and a load between the chain
 * and the statements ends the credit.  Returns the run's cycles. */
static uint64_t shadow_cycles(const char *cls, bool load, bool on)
{
    g_autofree char *text = g_strdup_printf("smpipe 1\nblock 32\nshared int s[32]\nvar r = 0\n"
                                            "for (var i = 0; i < 40; ++i)\n    compute(%s, 8, 8)\n%s"
                                            "    r = r * 3 + i\n    r = r + 1\nend\n", cls,
                                            load ? "    var v = load(s + threadIdx.x)\n" : "");
    const char *sets[] = { on ? "sched.mma_shadow=true" : "sched.mma_shadow=false", NULL };
    return valid_run_cycles(text, sets);
}

START_TEST(control_takes_the_slots_mmas_leave)
{
    uint64_t on = shadow_cycles("hmma", false, true), off = shadow_cycles("hmma", false, false);
    /* 40 passes of two statements and the loop's control, each 3 slots and
     * a dependent 12 cycles without the credit (8 links x 5 slots). */
    ck_assert_msg(on + 40 * 20 <= off, "hmma: %" G_GUINT64_FORMAT " with the shadow, %" G_GUINT64_FORMAT " without", on,
                  off);
    ck_assert_uint_eq(shadow_cycles("imad", false, true), shadow_cycles("imad", false, false));
    ck_assert_uint_eq(shadow_cycles("hmma", true, true), shadow_cycles("hmma", true, false));
}
END_TEST

/* sched.block_calls_drain (scripts/calib/flashparts.trace): a block-scope
 * pipeline's calls wait for the warp's MMAs in flight, so each pass pays
 * its chain's latency; a thread-scope pipeline's calls go on beside them
 * (cutparts.trace).  Returns the run's cycles. */
static uint64_t drain_cycles(bool block_scope, bool on)
{
    g_autofree char *text = g_strdup_printf(
        "smpipe 1\nblock 32\n%s"
        "for (var i = 0; i < 40; ++i)\n    compute(hmma, 8, 8)\n    p.producer_acquire()\n    p.producer_commit()\n"
        "    p.consumer_wait()\n    p.consumer_release()\nend\n",
        block_scope ? "shared pipeline_shared_state<block, 2> st\nvar p = make_pipeline(block, st)\n"
                    : "var p = make_pipeline()\n");
    const char *sets[] = { on ? "sched.block_calls_drain=true" : "sched.block_calls_drain=false", NULL };
    return valid_run_cycles(text, sets);
}

START_TEST(block_scope_calls_wait_for_the_mmas)
{
    uint64_t on = drain_cycles(true, true), off = drain_cycles(true, false);
    /* Each of 40 passes waits at least for its last link's latency. */
    ck_assert_msg(on >= off + 40 * 10, "block scope: %" G_GUINT64_FORMAT " draining, %" G_GUINT64_FORMAT " not", on,
                  off);
    ck_assert_uint_eq(drain_cycles(false, true), drain_cycles(false, false));
}
END_TEST

START_TEST(shared_path_matches_the_stepped_engine)
{
    /* Warps whose shared-memory loads, stores and fills wait for their
     * path (smem.h), diverged by lane and by warp, between compute chains:
     * the ready cache, a run of statements and the closed batches all ask
     * the path's floor, and the engines must agree. */
    const char *text = "smpipe 1\nblock 256\ntype T = elem(16)\nshared T v[1024]\nshared int w[4096]\n"
                       "var a = load(v + threadIdx.x)\n"
                       "for (var i = 0; i < 6; ++i)\n"
                       "    if threadIdx.x % 32 < 16\n"
                       "        a = load(v + (threadIdx.x + i * 256) % 1024)\n"
                       "        var b = load(v + (threadIdx.x * 3 + i) % 1024)\n"
                       "        a = compute(a, 2)\n"
                       "        store(v + threadIdx.x, b)\n"
                       "    else\n"
                       "        fill(w + threadIdx.x * 3, i, 3)\n"
                       "    end\n"
                       "    if warp_id % 2 == 0\n"
                       "        compute(imad, 12, 2)\n"
                       "    end\n"
                       "end\n";
    ck_assert_uint_gt(engines_agree(text, 8, WS_MIO_THROTTLE), 0);
}
END_TEST

/* Runs text on h100 with sets, the engine given, without
 * check_invariants (the closed batch's unchecked copy, sm_batch.c);
 * fails the test if the run fails. */
static void run_unchecked(TestRun *tr, const char *text, const char *const *sets, SimEngineKind engine)
{
    SimRunOptions o;
    memset(&o, 0, sizeof o);
    o.sm.engine = engine;
    o.sm.max_cycles = 100000000;
    ck_assert_msg(run_text_options(tr, "test.trace", text, sets, &o), "%s", tr->msg ? tr->msg : "");
}

/* Without check_invariants a closed batch writes its steps' compute marks
 * as they issue and notes them together at its end
 * (sm_note_compute_many), finalising the overlap once past
 * SM_MARKS_PENDING_MAX: the same compute and overlap cycles as the stepped
 * engine's one mark an instruction, and the same cycles in each warp's and
 * role's states.  bench.trace's loop at 32 warps: its
 * batches cross that bound many times, with copies in flight. */
START_TEST(closed_batches_mark_their_steps_together)
{
    const char *text = "smpipe 1\nblock 1024\nglobal int4 src[1024 * 64]\nglobal int4 dst[1024 * 64]\n"
                       "shared int4 buf[2 * 1024]\nshared pipeline_shared_state<block, 2> st\n"
                       "var p = make_pipeline(block, st)\nvar fetch = 0\n"
                       "for (var i = 0; i < 60; ++i)\n"
                       "    while fetch < 60 && fetch < i + 2\n"
                       "        p.producer_acquire()\n"
                       "        memcpy_async(block, buf + (fetch % 2) * block.size(), src + (fetch % 64) * block.size(), "
                       "sizeof(int4) * block.size(), p)\n"
                       "        p.producer_commit()\n        fetch += 1\n    end\n"
                       "    p.consumer_wait()\n    var x = load(buf + (i % 2) * block.size() + threadIdx.x)\n"
                       "    x = compute(x, 16)\n    store(dst + (i % 64) * block.size() + threadIdx.x, x)\n"
                       "    p.consumer_release()\nend\n";
    const char *policies[] = { "greedy", "lrr" };
    for (size_t p = 0; p < G_N_ELEMENTS(policies); p++) {
        g_autofree char *set = g_strdup_printf("sched.policy=%s", policies[p]);
        const char *sets[] = { set, NULL };
        TestRun ev, st;
        run_unchecked(&ev, text, sets, SIM_ENGINE_EVENT);
        run_unchecked(&st, text, sets, SIM_ENGINE_STEPPED);
        const SimStats *a = tr_stats(&ev), *b = tr_stats(&st);
        ck_assert_uint_gt(a->compute_instructions, 4 * 4096);
        ck_assert_uint_eq(a->cycles, b->cycles);
        ck_assert_uint_eq(a->instructions, b->instructions);
        ck_assert_uint_eq(a->compute_instructions, b->compute_instructions);
        ck_assert_uint_eq(a->compute_busy, b->compute_busy);
        ck_assert_uint_eq(a->both_busy, b->both_busy);
        ck_assert_uint_gt(a->both_busy, 0);
        ck_assert_int_eq(b->warps, a->warps);
        ck_assert_msg(memcmp(a->warp_state, b->warp_state, (size_t) a->warps * WS__COUNT * sizeof *a->warp_state) == 0,
                      "%s: a warp's states differ", policies[p]);
        ck_assert_msg(memcmp(a->role_state, b->role_state, sizeof a->role_state) == 0, "%s: a role's states differ",
                      policies[p]);
        test_run_clear(&ev);
        test_run_clear(&st);
    }
}
END_TEST

/* A batch beside warps blocked on an mbarrier (the pipeline's waits) or at
 * __syncthreads takes its decisions only before the earliest cycle one of
 * them could join (sm_batch.c's batch_wake_bound): under check_invariants
 * request_arbitration fails the run if anything asks a sub-partition
 * whose batch still replays.  Both waits, where an mbarrier wait suspends
 * (h100, h200) and where it polls (a100), under two policies, 16 warps
 * with some of them blocked while the others run their chains: the
 * stepped engine's statistics. */
START_TEST(batches_beside_blocked_warps)
{
    const char *text = "smpipe 1\nparam sync = 0 in 0..1\nblock 512\nglobal int4 src[512 * 64]\n"
                       "global int4 dst[512 * 64]\nshared int4 buf[2 * 512]\n"
                       "shared pipeline_shared_state<block, 2> st\n"
                       "var p = make_pipeline(block, st)\nvar fetch = 0\n"
                       "for (var i = 0; i < 24; ++i)\n"
                       "    while fetch < 24 && fetch < i + 2\n"
                       "        p.producer_acquire()\n"
                       "        memcpy_async(block, buf + (fetch % 2) * block.size(), src + (fetch % 64) * block.size(), "
                       "sizeof(int4) * block.size(), p)\n"
                       "        p.producer_commit()\n        fetch += 1\n    end\n"
                       "    p.consumer_wait()\n    var x = load(buf + (i % 2) * block.size() + threadIdx.x)\n"
                       "    x = compute(x, 40 + threadIdx.x / 32 % 4 * 20)\n"
                       "    store(dst + (i % 64) * block.size() + threadIdx.x, x)\n"
                       "    p.consumer_release()\n"
                       "    if sync == 1\n        __syncthreads()\n    end\nend\n";
    const char *arches[] = { "h100", "a100", "h200" };
    const char *policies[] = { "greedy", "lrr" };
    const char *syncs[] = { "sync=0", "sync=1" };
    for (size_t a = 0; a < G_N_ELEMENTS(arches); a++) {
        for (size_t p = 0; p < G_N_ELEMENTS(policies); p++) {
            for (size_t y = 0; y < G_N_ELEMENTS(syncs); y++) {
                g_autofree char *set = g_strdup_printf("sched.policy=%s", policies[p]);
                const char *sets[] = { set, syncs[y], NULL };
                TestRun ev, st;
                ck_assert_msg(run_text_arch_full(&ev, "test.trace", text, arches[a], sets, SIM_ENGINE_EVENT,
                                                 100000000, 0, false),
                              "%s", ev.msg ? ev.msg : "");
                ck_assert_msg(run_text_arch_full(&st, "test.trace", text, arches[a], sets, SIM_ENGINE_STEPPED,
                                                 100000000, 0, false),
                              "%s", st.msg ? st.msg : "");
                const SimStats *e = tr_stats(&ev), *d = tr_stats(&st);
                ck_assert_uint_eq(e->cycles, d->cycles);
                ck_assert_uint_eq(e->instructions, d->instructions);
                ck_assert_uint_eq(e->compute_busy, d->compute_busy);
                ck_assert_uint_eq(e->both_busy, d->both_busy);
                ck_assert_int_eq(e->warps, d->warps);
                ck_assert_msg(memcmp(e->warp_state, d->warp_state,
                                     (size_t) e->warps * WS__COUNT * sizeof *e->warp_state) == 0,
                              "%s %s %s: a warp's states differ", arches[a], policies[p], syncs[y]);
                test_run_clear(&ev);
                test_run_clear(&st);
            }
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sm");
    TCase *ta = tcase_create("assembly");
    tcase_add_test(ta, occupancy_names_the_limit);
    tcase_add_test(ta, shared_memory_per_block_includes_the_reserve);
    suite_add_tcase(s, ta);
    TCase *tr = tcase_create("diagnosis");
    tcase_add_test(tr, deadlock_report_names_the_waiters);
    suite_add_tcase(s, tr);
    TCase *tc = tcase_create("accounting");
    tcase_add_test(tc, every_warp_cycle_in_one_state);
    tcase_add_test(tc, invariant_divisions_leave_the_loop);
    tcase_add_test(tc, constant_trip_loops_unroll);
    tcase_add_test(tc, branches_on_constants_fold);
    tcase_add_test(tc, computed_trip_loops_pay_their_prologue);
    tcase_add_test(tc, issue_cycles_go_to_their_own_line);
    tcase_add_test(tc, mma_kernels_run_at_their_clock);
    tcase_add_test(tc, oldest_first_runs_the_oldest_warp_to_its_end);
    tcase_add_test(tc, greedy_keeps_a_warp_issuing_back_to_back);
    tcase_add_test(tc, greedy_gives_the_slot_up_at_control);
    tcase_add_test(tc, closed_batches_match_the_stepped_engine);
    tcase_add_test(tc, older_blocks_run_first);
    tcase_add_test(tc, control_takes_the_slots_mmas_leave);
    tcase_add_test(tc, block_scope_calls_wait_for_the_mmas);
    tcase_add_test(tc, shared_path_matches_the_stepped_engine);
    tcase_add_test(tc, closed_batches_mark_their_steps_together);
    tcase_add_test(tc, batches_beside_blocked_warps);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
