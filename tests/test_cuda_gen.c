/* test_cuda_gen.c: the CUDA backend without a GPU: the generator (every
 * bundled trace, refusals, determinism, the embedded reference), the value
 * lists of `validate --vary`, and `calibrate`'s rewriting of an
 * architecture file.  Compiling the generated code is the `cuda` suite
 * (tests/test_cuda_build.sh), which needs nvcc. */
#include "test_util.h"

#include "models/sm.h"
#include "sim/drivers/calibrate.h"
#include "sim/drivers/cuda_gen.h"
#include "sim/drivers/validate.h"

static const char *bundled[] = {
    "traces/with_staging.trace",
    "traces/with_staging_unified.trace",
    "traces/with_specialized_staging_unified.trace",
    "traces/with_staging_scope_thread.trace",
    "traces/pipeline_reference_example.trace",
    "traces/gemm_tiles.trace",
    "traces/gemm_tiles_bulk.trace",
    NULL
};

/* Generates the program of a trace text; returns it or NULL with *msg. */
static char *generate(const char *name, const char *text, const char *arch, const char *const *sets, char **msg)
{
    GError *err = NULL;
    Trace *t = trace_parse_string(name, text, strlen(text), &err);
    ck_assert_msg(t != NULL, "%s", err ? err->message : "");
    GPtrArray *sl = g_ptr_array_new();
    for (int i = 0; sets && sets[i]; i++) {
        g_ptr_array_add(sl, (gpointer) sets[i]);
    }
    char *out = NULL;
    CudaGenPoint *p = cuda_gen_point_new(t, arch, sl, "", &err);
    if (p != NULL) {
        GString *s = g_string_new(NULL);
        CudaGenOptions opt = { name, "test.cu", true, 3, 1 };
        if (cuda_gen_program(&p, 1, &opt, s, &err)) {
            out = g_string_free(s, FALSE);
        } else {
            g_string_free(s, TRUE);
        }
        cuda_gen_point_free(p);
    }
    if (out == NULL) {
        ck_assert_ptr_nonnull(err);
        *msg = g_strdup(err->message);
        ck_assert_int_eq(sim_error_exit_status(err), SIM_EXIT_BAD_INPUT);
        g_error_free(err);
    }
    g_ptr_array_free(sl, TRUE);
    trace_free(t);
    return out;
}

static char *generate_ok(const char *name, const char *text, const char *const *sets)
{
    char *msg = NULL;
    char *out = generate(name, text, NULL, sets, &msg);
    ck_assert_msg(out != NULL, "%s: %s", name, msg ? msg : "");
    return out;
}

START_TEST(every_bundled_trace_generates_deterministically)
{
    for (int i = 0; bundled[i]; i++) {
        g_autofree char *text = read_source(bundled[i]);
        g_autofree char *a = generate_ok(bundled[i], text, NULL);
        g_autofree char *b = generate_ok(bundled[i], text, NULL);
        ck_assert_msg(strcmp(a, b) == 0, "%s: two generations differ", bundled[i]);
        ck_assert_msg(strstr(a, "int main(") != NULL && strstr(a, "__global__ void kernel(") != NULL, "%s", bundled[i]);
        ck_assert_msg(strstr(a, "cuda::memcpy_async(") != NULL, "%s: no memcpy_async", bundled[i]);
    }
}
END_TEST

START_TEST(primitives_are_the_traces_own)
{
    g_autofree char *t1 = read_source("traces/with_staging_unified.trace");
    g_autofree char *a = generate_ok("wsu", t1, NULL);
    ck_assert_ptr_nonnull(strstr(a, "cuda::pipeline<cuda::thread_scope_block> pipeline = cuda::make_pipeline(block, &shared_state);"));
    ck_assert_ptr_nonnull(strstr(a, "pipeline.producer_acquire();"));
    ck_assert_ptr_nonnull(strstr(a, "pipeline.consumer_wait();"));
    /* Shared memory at the simulator's offsets: shared at 0, the state after. */
    ck_assert_ptr_nonnull(strstr(a, "reinterpret_cast<int *>(smp_smem + 0)"));
    ck_assert_ptr_nonnull(strstr(a, "pipeline_shared_state<cuda::thread_scope_block, 2> *>(smp_smem + 1024)"));
    g_autofree char *t2 = read_source("traces/with_staging_scope_thread.trace");
    g_autofree char *b = generate_ok("wst", t2, NULL);
    ck_assert_ptr_nonnull(strstr(b, "cuda::pipeline<cuda::thread_scope_thread> pipeline = cuda::make_pipeline();"));
    ck_assert_ptr_nonnull(strstr(b, "__syncthreads();"));
    g_autofree char *t3 = read_source("traces/with_specialized_staging_unified.trace");
    g_autofree char *c = generate_ok("wss", t3, NULL);
    ck_assert_ptr_nonnull(strstr(c, "cuda::make_pipeline(block, &shared_state, thread_role)"));
    ck_assert_ptr_nonnull(strstr(c, "cuda::pipeline_role::producer"));
    g_autofree char *t4 = read_source("traces/gemm_tiles_bulk.trace");
    g_autofree char *d = generate_ok("gtb", t4, NULL);
    ck_assert_ptr_nonnull(strstr(d, "init(&full0, 128);"));
    ck_assert_ptr_nonnull(strstr(d, "cuda::aligned_size_t<16>((size_t) 4096), full0);"));
    ck_assert_ptr_nonnull(strstr(d, "full0.arrive_and_wait();"));
}
END_TEST

/* A whole-GPU launch runs launch.grid blocks and is not checked element by
 * element (the functional model simulates one SM); one SM's blocks are. */
START_TEST(whole_gpu_launch_is_unchecked)
{
    g_autofree char *text = read_source("traces/with_staging_unified.trace");
    const char *one[] = { "sm.blocks=2", NULL };
    const char *grid[] = { "sm.blocks=2", "launch.grid=264", NULL };
    g_autofree char *a = generate_ok("wsu", text, one);
    g_autofree char *b = generate_ok("wsu", text, grid);
    ck_assert_ptr_nonnull(strstr(a, "smp_p0::launch },"));
    ck_assert_ptr_nonnull(strstr(b, "smp_p0::launch, 1 },"));
    ck_assert_ptr_nonnull(strstr(b, "128, 264, "));
    ck_assert_ptr_nonnull(strstr(a, "128, 2, "));
}
END_TEST

START_TEST(barriers_tx_and_classes)
{
    const char *text =
        "smpipe 1\nblock 64\nshared int4 s[64]\nglobal int4 g[64]\nbarrier bar\n"
        "if (threadIdx.x == 0)\n    init(bar, 1)\nend\n__syncthreads()\n"
        "if (threadIdx.x == 0)\n"
        "    memcpy_async_tx(s, g, aligned_size_t<16>(1024), bar)\n"
        "    var t = barrier_arrive_tx(bar, 1, 1024)\n"
        "    bar.wait(t)\n"
        "end\n__syncthreads()\n"
        "compute(ffma, 10, 4)\ncompute(hmma, 3)\n"
        "var x = load(s + threadIdx.x)\nx = compute(x, 5)\nstore(g + threadIdx.x, x)\n";
    g_autofree char *a = generate_ok("tx", text, NULL);
    ck_assert_ptr_nonnull(strstr(a, "cuda::device::memcpy_async_tx(s, g, cuda::aligned_size_t<16>((size_t) 1024), bar);"));
    ck_assert_ptr_nonnull(strstr(a, "smp_barrier::arrival_token t = cuda::device::barrier_arrive_tx(bar, 1, 1024);"));
    ck_assert_ptr_nonnull(strstr(a, "bar.wait(cuda::std::move(t));"));
    ck_assert_ptr_nonnull(strstr(a, "__CUDA_ARCH__ < 900"));
    /* Without operands the chains run on the kernel's accumulators of
     * their class and count, started once from the block's index (nothing
     * computed before them delays them, and ptxas cannot compute them) and
     * folded once after the trace, as a mainloop keeps its accumulators. */
    ck_assert_ptr_nonnull(strstr(a, "float smp_acc_ffma_4[4];\n"));
    ck_assert_ptr_nonnull(strstr(a, "smp_start_ffma(smp_acc_ffma_4, blockIdx.x);"));
    ck_assert_ptr_nonnull(strstr(a, "float smp_acc_hmma_1[1][4];\n"));
    ck_assert_ptr_nonnull(strstr(a, "smp_chains_ffma(smp_acc_ffma_4, 10);"));
    ck_assert_ptr_nonnull(strstr(a, "smp_chains_hmma(smp_acc_hmma_1, 3);"));
    const char *body = strstr(a, "smp_chains_hmma(smp_acc_hmma_1, 3);");
    const char *fold = strstr(a, "smp_fold_hmma(smp_acc_hmma_1, smp_sink);");
    ck_assert_ptr_nonnull(fold);
    ck_assert(fold > body);
    ck_assert_ptr_null(strstr(a, "smp_seq"));
    ck_assert_ptr_null(strstr(a, "(sink & 255u)"));
    ck_assert_ptr_nonnull(strstr(a, "x = smp_compute(x, 5);"));
    /* memcpy_async_tx needs sm_90: refused on the A100. */
    char *msg = NULL;
    ck_assert_ptr_null(generate("tx", text, "a100", NULL, &msg));
    ck_assert_msg(strstr(msg, "tx.trace:11:") != NULL || strstr(msg, "tx:11:") != NULL, "%s", msg);
    ck_assert_msg(strstr(msg, "compute capability 9.0") != NULL, "%s", msg);
    g_free(msg);
}
END_TEST

/* consumer_wait_until's time point (a cycle of the run) becomes the
 * block's start time plus that many cycles at the clock, as
 * consumer_wait_for's duration; kernels without it have no smp_tp0. */
START_TEST(wait_until_is_mapped_from_the_block_start)
{
    g_autofree char *text = read_source("tests/cuda/wait_until.trace");
    g_autofree char *a = generate_ok("wu", text, NULL);
    ck_assert_ptr_nonnull(strstr(a, "const auto smp_tp0 = cuda::std::chrono::system_clock::now();"));
    ck_assert_ptr_nonnull(strstr(a, "long long ok = p.consumer_wait_until(smp_tp0 + cuda::std::chrono::nanoseconds("
                                    "(long long) ((double) 100000 * 1000.0 / 1980.0)));"));
    g_autofree char *t2 = read_source("traces/with_staging_unified.trace");
    g_autofree char *b = generate_ok("wsu", t2, NULL);
    ck_assert_ptr_null(strstr(b, "smp_tp0"));
}
END_TEST

/* Issue 20: every direction generates (it crashed on all but global to
 * shared), and the reference holds the bytes each copy moved: the output
 * buffers hold the source's initial words. */
START_TEST(every_copy_direction_generates)
{
    static const char *const files[] = { "tests/cuda/global_to_global.trace", "tests/cuda/directions.trace" };
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        g_autofree char *text = read_source(files[i]);
        g_autofree char *a = generate_ok(files[i], text, NULL);
        ck_assert_ptr_nonnull(strstr(a, "cuda::memcpy_async("));
    }
    GError *err = NULL;
    g_autofree char *text = read_source("tests/cuda/directions.trace");
    Trace *t = trace_parse_string("d", text, strlen(text), &err);
    ck_assert_ptr_nonnull(t);
    CudaGenPoint *p = cuda_gen_point_new(t, NULL, NULL, "", &err);
    ck_assert_msg(p != NULL, "%s", err ? err->message : "");
    /* Buffers: s, s2, g (2), out (3), out2 (4), out3 (5); each output is g. */
    ck_assert_uint_eq(p->checks->len, 3);
    for (guint k = 0; k < p->checks->len; k++) {
        const CudaGenCheck *c = &g_array_index(p->checks, CudaGenCheck, k);
        gsize n;
        const uint32_t *words = g_bytes_get_data(c->data, &n);
        ck_assert_uint_eq(n, 1024);
        for (gsize w = 0; w < n / 4; w++) {
            ck_assert_msg(words[w] == sm_initial_word(2, (int64_t) w), "check %u word %zu", k, w);
        }
    }
    cuda_gen_point_free(p);
    trace_free(t);
}
END_TEST

START_TEST(refusals)
{
    char *msg = NULL;
    /* OpenCL pipes have no CUDA equivalent. */
    ck_assert_ptr_null(generate("cl", "smpipe 1\nblock 32\npipe int p[16]\nglobal int g[32]\n", NULL, NULL, &msg));
    ck_assert_msg(strstr(msg, "cl:3:") != NULL && strstr(msg, "OpenCL") != NULL, "%s", msg);
    g_clear_pointer(&msg, g_free);
    ck_assert_ptr_null(generate("cls", "smpipe 1\nblock 32\ncompute(frobnicate, 4)\n", NULL, NULL, &msg));
    ck_assert_msg(strstr(msg, "frobnicate") != NULL, "%s", msg);
    g_clear_pointer(&msg, g_free);
    ck_assert_ptr_null(generate("ilp", "smpipe 1\nblock 32\ncompute(imad, 4, threadIdx.x + 1)\n", NULL, NULL, &msg));
    ck_assert_msg(strstr(msg, "constant") != NULL, "%s", msg);
    g_clear_pointer(&msg, g_free);
    /* A program that deadlocks has no reference output: exit 1. */
    GError *err = NULL;
    g_autofree char *text = read_source("tests/programs/deadlock_full_pipeline.trace");
    Trace *t = trace_parse_string("dl", text, strlen(text), &err);
    ck_assert_ptr_nonnull(t);
    ck_assert_ptr_null(cuda_gen_point_new(t, NULL, NULL, "", &err));
    ck_assert_int_eq(sim_error_exit_status(err), SIM_EXIT_INVALID_PROGRAM);
    ck_assert_ptr_nonnull(strstr(err->message, "no reference output"));
    g_error_free(err);
    trace_free(t);
}
END_TEST

START_TEST(reference_is_the_functional_model)
{
    g_autofree char *text = read_source("traces/with_staging_unified.trace");
    GError *err = NULL;
    Trace *t = trace_parse_string("wsu", text, strlen(text), &err);
    const char *sets[] = { "batches=3", "stages=2" };
    GPtrArray *sl = g_ptr_array_new();
    g_ptr_array_add(sl, (gpointer) sets[0]);
    g_ptr_array_add(sl, (gpointer) sets[1]);
    CudaGenPoint *p = cuda_gen_point_new(t, NULL, sl, "stages=2", &err);
    ck_assert_msg(p != NULL, "%s", err ? err->message : "");
    /* Only global_out (buffer 1) is written; it is compute(in, 16). */
    ck_assert_uint_eq(p->checks->len, 1);
    const CudaGenCheck *c = &g_array_index(p->checks, CudaGenCheck, 0);
    ck_assert_int_eq(c->buffer, 1);
    ck_assert_int_eq(c->bytes, 3 * 128 * 4);
    gsize len = 0;
    const uint8_t *data = g_bytes_get_data(c->data, &len);
    for (int64_t w = 0; w < 3 * 128; w++) {
        uint32_t x = sm_initial_word(0, w), got;
        for (int k = 0; k < 16; k++) {
            x = x * SM_COMPUTE_A + SM_COMPUTE_B;
        }
        memcpy(&got, data + w * 4, 4);
        ck_assert_uint_eq(got, x);
    }
    ck_assert(c->hash == cuda_gen_hash(data, len));
    GString *s = g_string_new(NULL);
    CudaGenOptions opt = { "wsu", "out.cu", false, 5, 0 };
    ck_assert(cuda_gen_program(&p, 1, &opt, s, &err));
    g_autofree char *hash = g_strdup_printf("0x%016" G_GINT64_MODIFIER "xull", c->hash);
    ck_assert_ptr_nonnull(strstr(s->str, hash));
    ck_assert_ptr_nonnull(strstr(s->str, "#define SMP_DEFAULT_REPEATS 5"));
    ck_assert_ptr_nonnull(strstr(s->str, "#define SMP_REF_NAME \"out.cu.ref\""));
    GByteArray *ref = g_byte_array_new();
    cuda_gen_reference(&p, 1, ref);
    ck_assert_uint_eq(ref->len, 8 + 16 + len);
    ck_assert(memcmp(ref->data, "SMPREF1\n", 8) == 0);
    ck_assert(memcmp(ref->data + 24, data, len) == 0);
    g_byte_array_free(ref, TRUE);
    g_string_free(s, TRUE);
    cuda_gen_point_free(p);
    g_ptr_array_free(sl, TRUE);
    trace_free(t);
}
END_TEST

/* The words a generated program's check expects in buffer `buffer`. */
static const uint32_t *check_words(const CudaGenPoint *p, int32_t buffer, gsize *words)
{
    for (guint i = 0; i < p->checks->len; i++) {
        const CudaGenCheck *c = &g_array_index(p->checks, CudaGenCheck, i);
        if (c->buffer == buffer) {
            gsize len = 0;
            const uint32_t *data = g_bytes_get_data(c->data, &len);
            *words = len / 4;
            return data;
        }
    }
    ck_abort_msg("no check of buffer %d", buffer);
    return NULL;
}

START_TEST(operand_compute_values)
{
    /* compute(CLASS, n, x, y, z): word k is x[k] * A + B + y[k'] + z[k'']
     * whatever CLASS and n (k', k'' = k modulo the operand's words). */
    const char *text =
        "smpipe 1\nblock 64\nglobal int g[128]\nglobal int2 h[64]\nglobal int out[64]\nglobal int2 out2[64]\n"
        "var a = load(g + threadIdx.x)\nvar b = load(g + 64 + threadIdx.x)\nvar c = load(h + threadIdx.x)\n"
        "var r = compute(ffma, 7, a, b)\nstore(out + threadIdx.x, r)\n"
        "var m = compute(hmma, 3, c, a, b)\nstore(out2 + threadIdx.x, m)\n"
        "compute(dfma, 2, c)\n";
    GError *err = NULL;
    Trace *t = trace_parse_string("ops", text, strlen(text), &err);
    ck_assert_ptr_nonnull(t);
    CudaGenPoint *p = cuda_gen_point_new(t, NULL, NULL, "", &err);
    ck_assert_msg(p != NULL, "%s", err ? err->message : "");
    gsize n = 0;
    const uint32_t *out = check_words(p, 2, &n);
    ck_assert_uint_eq(n, 64);
    for (int64_t i = 0; i < 64; i++) {
        uint32_t want = sm_initial_word(0, i) * SM_COMPUTE_A + SM_COMPUTE_B + sm_initial_word(0, 64 + i);
        ck_assert_uint_eq(out[i], want);
    }
    const uint32_t *out2 = check_words(p, 3, &n);
    ck_assert_uint_eq(n, 128);
    for (int64_t i = 0; i < 128; i++) {
        uint32_t want = sm_initial_word(1, i) * SM_COMPUTE_A + SM_COMPUTE_B + sm_initial_word(0, i / 2) +
                        sm_initial_word(0, 64 + i / 2);
        ck_assert_uint_eq(out2[i], want);
    }
    GString *s = g_string_new(NULL);
    CudaGenOptions opt = { "ops", "out.cu", false, 5, 0 };
    ck_assert(cuda_gen_program(&p, 1, &opt, s, &err));
    /* n per chain: one chain of int, one MMA chain, one dfma chain of int2. */
    ck_assert_ptr_nonnull(strstr(s->str, "r = smp_op_ffma<1>(7, a, b, 0u);"));
    ck_assert_ptr_nonnull(strstr(s->str, "m = smp_op_hmma<1>(3, c, a, b);"));
    ck_assert_ptr_nonnull(strstr(s->str, "smp_keep(smp_sink, r);"));
    ck_assert_ptr_nonnull(strstr(s->str, "smp_keep(smp_sink, m);"));
    ck_assert_ptr_nonnull(strstr(s->str, "smp_keep(smp_sink, smp_op_dfma<1>(2, c, 0u, 0u));"));
    ck_assert_ptr_nonnull(strstr(s->str, "__device__ __forceinline__ T smp_op_hmma(long long n, T x, const U &y, const V &z)"));
    ck_assert_ptr_nonnull(strstr(s->str, "__device__ __forceinline__ void smp_chains_ffma(float (&acc)[K], long long n)"));
    ck_assert_ptr_nonnull(strstr(s->str, "__device__ __forceinline__ void smp_chains_hmma(float (&acc)[K][4], long long n)"));
    /* With operands the chains start from them (dep) and wait for them. */
    ck_assert_ptr_nonnull(strstr(s->str, "    float acc[K];\n    smp_start_ffma(acc, dep);\n    smp_chains_ffma(acc, n);\n"
                                         "    smp_fold_ffma(acc, dep);\n"));
    ck_assert_ptr_null(strstr(s->str, "smp_op_imad"));
    g_string_free(s, TRUE);
    cuda_gen_point_free(p);
    trace_free(t);
}
END_TEST

/* gemm_tiles' pattern: a result computed and then overwritten before it is
 * read is dead code to ptxas, which deleted the chains whenever it unrolled
 * the loop (the GPU timed less work than the trace says); every computed
 * result is folded into the sink right after its statement. */
START_TEST(overwritten_compute_results_stay_live)
{
    const char *text = "smpipe 1\nblock 32\nglobal int in[64]\nglobal int out[32]\n"
                       "var a = load(in + threadIdx.x)\na = compute(a, 16)\n"
                       "a = load(in + 32 + threadIdx.x)\na = compute(a, 16)\nstore(out + threadIdx.x, a)\n";
    g_autofree char *cu = generate_ok("dead.trace", text, NULL);
    int computes = 0;
    for (const char *p = strstr(cu, "smp_compute(a, 16);"); p != NULL; p = strstr(p + 1, "smp_compute(a, 16);")) {
        const char *next = strchr(p, '\n');
        ck_assert_ptr_nonnull(next);
        while (*next == '\n' || *next == ' ') {
            next++;
        }
        ck_assert_msg(strncmp(next, "smp_keep(smp_sink, a);", 22) == 0, "compute %d not kept: %.60s", computes, next);
        computes++;
    }
    ck_assert_int_eq(computes, 2);
}
END_TEST

/* A load whose value nothing reads (a mainloop's fragments, which the trace
 * feeds to no compute statement): in shared memory one volatile ld.shared of
 * the element's width and nothing more, where folding it into the sink cost
 * a LOP3 a word (cutlass_multistage: 32 a k-tile); a global one is still
 * folded (a volatile global load would bypass L1). */
START_TEST(unread_loads_cost_one_load)
{
    const char *text = "smpipe 1\nblock 32\nshared int4 s[32]\nshared int w[32]\nglobal int4 g[32]\n"
                       "var a = load(s + threadIdx.x)\nvar b = load(w + threadIdx.x)\nvar c = load(g + threadIdx.x)\n";
    g_autofree char *cu = generate_ok("unread.trace", text, NULL);
    ck_assert_ptr_nonnull(strstr(cu, "smp_touch_shared((s + (long long) threadIdx.x));"));
    ck_assert_ptr_nonnull(strstr(cu, "smp_touch_shared((w + (long long) threadIdx.x));"));
    ck_assert_ptr_nonnull(strstr(cu, "smp_keep(smp_sink, *(g + (long long) threadIdx.x));"));
    ck_assert_ptr_nonnull(strstr(cu, "asm volatile(\"ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];\""));
}
END_TEST

START_TEST(stores_fills_and_expects)
{
    /* Integer stores, fill and memset write what the functional model
     * holds; each becomes one element store (smp_element), expect a device
     * check reported as its line. */
    g_autofree char *text = read_source("tests/cuda/stores_expect.trace");
    GError *err = NULL;
    Trace *t = trace_parse_string("stores", text, strlen(text), &err);
    ck_assert_ptr_nonnull(t);
    CudaGenPoint *p = cuda_gen_point_new(t, NULL, NULL, "", &err);
    ck_assert_msg(p != NULL, "%s", err ? err->message : "");
    gsize n = 0;
    const uint32_t *src = check_words(p, 0, &n);
    ck_assert_uint_eq(n, 64);
    const uint32_t *out = check_words(p, 1, &n);
    for (int64_t i = 0; i < 64; i++) {
        ck_assert_uint_eq(src[i], (uint32_t) (i * 3 - 5));
        ck_assert_uint_eq(out[i], (uint32_t) (i * 3 - 5));
    }
    const uint8_t *bytes = (const uint8_t *) check_words(p, 2, &n);
    ck_assert_uint_eq(n, 32);
    for (int i = 0; i < 128; i++) {
        ck_assert_uint_eq(bytes[i], i < 64 ? (uint8_t) (i + 250) : 0xab);
    }
    GString *s = g_string_new(NULL);
    CudaGenOptions opt = { "stores", "out.cu", false, 5, 0 };
    ck_assert(cuda_gen_program(&p, 1, &opt, s, &err));
    const char *want[] = {
        "*(src + (long long) threadIdx.x) = smp_element<int>((long long) ((((long long) threadIdx.x * 3) - 5)));",
        "*(bytes + (long long) threadIdx.x) = smp_element<char>((long long) (((long long) threadIdx.x + 250)));",
        "smp_fill(v, (long long) (-7), (long long) (3));",
        "smp_fill(s, (long long) (4294967295LL), (long long) (32));",
        "smp_expect((s + (long long) threadIdx.x), (long long) ((((long long) threadIdx.x * 3) - 5)), smp_fail, 16);",
        "__device__ __forceinline__ void smp_expect(const T *p, long long v, int *fail, int line)",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        ck_assert_msg(strstr(s->str, want[i]) != NULL, "no '%s'", want[i]);
    }
    g_string_free(s, TRUE);
    cuda_gen_point_free(p);
    trace_free(t);
    /* (void *) pointers: the void* overloads, aligned_size_t kept. */
    g_autofree char *u = read_source("tests/cuda/untyped_copies.trace");
    g_autofree char *c = generate_ok("untyped", u, NULL);
    ck_assert_ptr_nonnull(strstr(c, "cuda::memcpy_async((void *) ((dst + ((long long) threadIdx.x * 4))), (const void *)"
                                    " ((src + ((long long) threadIdx.x * 4))), cuda::aligned_size_t<16>((size_t) 16),"
                                    " pipe);"));
    ck_assert_ptr_nonnull(strstr(c, "cg::memcpy_async(warp, (void *) (odd), (const void *) (src), (size_t) 255);"));
}
END_TEST

/* Issue 20: tiled_partition<N>(block) for N = 2..16 is cg's tile: one
 * declaration per size used, the rank within the tile (the lane modulo N),
 * meta_group_rank (the tile's index), copies by the tile and its sync. */
START_TEST(tiles_are_cg_tiles)
{
    g_autofree char *text = read_source("tests/cuda/tiled_partition_tiles.trace");
    g_autofree char *a = generate_ok("tiles", text, NULL);
    const char *want[] = {
        "auto tile2 = cg::tiled_partition<2>(block);",
        "auto tile4 = cg::tiled_partition<4>(block);",
        "auto tile8 = cg::tiled_partition<8>(block);",
        "auto tile16 = cg::tiled_partition<16>(block);",
        "(((long long) threadIdx.x / 2) * 6) + (((long long) (threadIdx.x % 32) % 2) * 3)",
        "cg::memcpy_async(tile4, (s + (((long long) threadIdx.x / 4) * 4)),",
        "cg::wait(tile4);",
        "tile4.sync();",
        "cuda::memcpy_async(tile8, ",
        "tile16.sync();",
        "tile2.sync();",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        ck_assert_msg(strstr(a, want[i]) != NULL, "no '%s'", want[i]);
    }
    ck_assert_ptr_null(strstr(a, "auto warp = "));
}
END_TEST

START_TEST(block_and_grid_shapes)
{
    /* A 3-D block and a 2-D grid: a dim3 launch, CUDA's own indices, and
     * the linear rank (x fastest) wherever the simulator uses it. */
    g_autofree char *text = read_source("tests/cuda/block_grid_dims.trace");
    g_autofree char *a = generate_ok("dims", text, NULL);
    ck_assert_ptr_nonnull(strstr(a, "kernel<<<dim3(1, 2, 1), dim3(8, 4, 2), "));
    ck_assert_ptr_nonnull(strstr(a, "const unsigned smp_rank = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);"));
    ck_assert_ptr_nonnull(strstr(a, "const unsigned smp_block_rank = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);"));
    ck_assert_ptr_nonnull(strstr(a, "long long row = ((long long) threadIdx.y + ((long long) threadIdx.z * 4));"));
    ck_assert_ptr_nonnull(strstr(a, "long long base = ((long long) blockIdx.y * 64);"));
    ck_assert_ptr_nonnull(strstr(a, "(long long) (smp_rank % 32)"));
    ck_assert_ptr_nonnull(strstr(a, "(long long) (smp_rank / 32)"));
    ck_assert_ptr_nonnull(strstr(a, "const unsigned smp_gtid = smp_block_rank * (blockDim.x * blockDim.y * blockDim.z) + smp_rank;"));
    /* One-dimensional blocks keep the plain launch and threadIdx.x. */
    g_autofree char *t2 = read_source("traces/with_staging_unified.trace");
    g_autofree char *b = generate_ok("wsu", t2, NULL);
    ck_assert_ptr_nonnull(strstr(b, "kernel<<<1, 128, "));
    ck_assert_ptr_nonnull(strstr(b, "const unsigned smp_gtid = blockIdx.x * blockDim.x + threadIdx.x;"));
    ck_assert_ptr_null(strstr(b, "smp_rank"));
}
END_TEST

static void list_is(const char *text, const int64_t *want, guint n)
{
    GArray *a = g_array_new(FALSE, FALSE, sizeof(int64_t));
    GError *err = NULL;
    ck_assert_msg(validate_parse_list(text, a, &err), "%s: %s", text, err ? err->message : "");
    ck_assert_uint_eq(a->len, n);
    for (guint i = 0; i < n; i++) {
        ck_assert_int_eq(g_array_index(a, int64_t, i), want[i]);
    }
    g_array_free(a, TRUE);
}

START_TEST(value_lists)
{
    const int64_t a[] = { 1, 2, 4 };
    list_is("1,2,4", a, 3);
    const int64_t b[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    list_is("1..8", b, 8);
    const int64_t c[] = { 64, 128, 192, 256, 320, 384, 448, 512 };
    list_is("64..512:64", c, 8);
    const int64_t d[] = { 1, 3, 5, 16 };
    list_is("1..6:2, 16", d, 4);
    const int64_t e[] = { -2, -1, 0 };
    list_is("-2..0", e, 3);
    const char *bad[] = { "", "1,,2", "a", "1..", "..4", "8..1", "1..8:0", "1..8:x", "0..1000000", NULL };
    for (int i = 0; bad[i]; i++) {
        GArray *v = g_array_new(FALSE, FALSE, sizeof(int64_t));
        GError *err = NULL;
        ck_assert_msg(!validate_parse_list(bad[i], v, &err), "'%s' was accepted", bad[i]);
        ck_assert_ptr_nonnull(strstr(err->message, "1..8"));
        g_error_free(err);
        g_array_free(v, TRUE);
    }
    GArray *v = g_array_new(FALSE, FALSE, sizeof(int64_t));
    GError *err = NULL;
    g_autofree char *name = validate_parse_vary("stages=1..3", v, &err);
    ck_assert_str_eq(name, "stages");
    ck_assert_uint_eq(v->len, 3);
    ck_assert_ptr_null(validate_parse_vary("=1,2", v, &err));
    g_clear_error(&err);
    ck_assert_ptr_null(validate_parse_vary("stages", v, &err));
    g_clear_error(&err);
    g_array_free(v, TRUE);
}
END_TEST

START_TEST(calibration_rewrites_measured_keys_only)
{
    g_autofree char *ini = read_source("arch/h100.ini");
    g_autofree char *res = read_source("tests/calib/fake_results.txt");
    GString *out = g_string_new(NULL);
    GString *report = g_string_new(NULL);
    GError *err = NULL;
    ck_assert_msg(calib_rewrite(ini, res, "fake_results.txt", out, report, &err), "%s", err ? err->message : "");
    /* Measured: l2.latency 300.4 -> 300, cp_async.extra_latency = 350 - 300.4. */
    ck_assert_ptr_nonnull(strstr(out->str, "# source: [CAL] measured 2030-01-02 by smpipe calibrate: l2.latency = 300.4"));
    ck_assert_ptr_nonnull(strstr(out->str, "\n[l2]\n# source: [CAL] measured 2030-01-02 by smpipe calibrate: l2.latency"));
    ck_assert_ptr_nonnull(strstr(out->str, "latency = 300\n"));
    ck_assert_ptr_nonnull(strstr(out->str, "extra_latency = 50\n"));
    ck_assert_ptr_nonnull(strstr(out->str, "clock_mhz = 1755.0\n"));
    ck_assert_ptr_nonnull(strstr(out->str, "smem_per_block = 101376\n"));
    /* Not measured: the sourced value and its comment stay. */
    ck_assert_ptr_nonnull(strstr(out->str, "# source: [FIT] issue slots per trace statement"));
    ck_assert_ptr_nonnull(strstr(out->str, "wait_call_copies = 114\n"));
    ck_assert_ptr_nonnull(strstr(out->str, "# source: [CAL] dependent LDS.32 chain: 23.0 cycles\nlatency = 23\n"));
    ck_assert_ptr_nonnull(strstr(report->str, "l2.latency"));
    ck_assert_ptr_null(strstr(report->str, "smem.latency"));
    g_string_free(out, TRUE);
    g_string_free(report, TRUE);
    /* Not a results file. */
    out = g_string_new(NULL);
    report = g_string_new(NULL);
    ck_assert(!calib_rewrite(ini, "hello\n", "x.txt", out, report, &err));
    ck_assert_ptr_nonnull(strstr(err->message, "no RESULT lines"));
    g_clear_error(&err);
    ck_assert(!calib_rewrite(ini, "RESULT key=l2.latency value=abc unit=cycles\n", "y.txt", out, report, &err));
    ck_assert_ptr_nonnull(strstr(err->message, "y.txt:1:"));
    g_clear_error(&err);
    g_string_free(out, TRUE);
    g_string_free(report, TRUE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda_gen");
    TCase *tc = tcase_create("generator");
    tcase_add_test(tc, every_bundled_trace_generates_deterministically);
    tcase_add_test(tc, primitives_are_the_traces_own);
    tcase_add_test(tc, whole_gpu_launch_is_unchecked);
    tcase_add_test(tc, barriers_tx_and_classes);
    tcase_add_test(tc, wait_until_is_mapped_from_the_block_start);
    tcase_add_test(tc, every_copy_direction_generates);
    tcase_add_test(tc, refusals);
    tcase_add_test(tc, reference_is_the_functional_model);
    tcase_add_test(tc, operand_compute_values);
    tcase_add_test(tc, block_and_grid_shapes);
    tcase_add_test(tc, tiles_are_cg_tiles);
    tcase_add_test(tc, stores_fills_and_expects);
    tcase_add_test(tc, overwritten_compute_results_stay_live);
    tcase_add_test(tc, unread_loads_cost_one_load);
    suite_add_tcase(s, tc);
    TCase *tv = tcase_create("validate");
    tcase_add_test(tv, value_lists);
    suite_add_tcase(s, tv);
    TCase *tk = tcase_create("calibrate");
    tcase_add_test(tk, calibration_rewrites_measured_keys_only);
    suite_add_tcase(s, tk);
    return run_suite(s);
}
