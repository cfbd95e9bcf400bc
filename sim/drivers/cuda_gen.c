/* cuda_gen.c: the CUDA backend's generator (see cuda_gen.h).
 *
 * Each point becomes a namespace smp_pK holding the kernel, its buffer
 * table and launch function.  The kernel body is written from the
 * Program's operations:
 *  - expressions are the compiled ExprNode trees, so constants are folded
 *    and parameters resolved exactly as the simulator sees them; integers
 *    are `long long` (the trace language's signed 64-bit integers);
 *  - pointers are typed (`T *`) into the buffers; the simulator's byte
 *    addresses become element offsets from the buffer's base;
 *  - an OP_BRANCH with its join is an if/else, an OP_LOOP_ENTER..OP_JUMP
 *    range a while loop (the Program has no other jumps);
 *  - a variable is declared at its first assignment, which is its `var`
 *    statement, so C++ scoping follows the trace's; variables get unique
 *    C++ names, so a later `var i` never clashes with an earlier one;
 *  - shared buffers, pipeline_shared_states and barriers live in one
 *    dynamic shared-memory buffer at the Program's offsets, so shared-memory
 *    banks match the simulation's;
 *  - the body is a lambda, so `return` ends the thread's work and the
 *    kernel still records its end time. */
#include "sim/drivers/cuda_gen.h"

#include "models/arch_features.h"
#include "models/sm.h"
#include "sim/drivers/cuda_gen_internal.h"
#include "sim/lang/parser.h"
#include "sim/out/jsonw.h"

/* ------------------------------------------------------- compute classes */

static const ClassDef class_defs[] = {
    { "imad", "unsigned", "seed + (unsigned) c", "mad.lo.u32 %0, %0, 1664525, 1013904223;", "+r", "acc[c]" },
    { "iadd", "unsigned", "seed + (unsigned) c", "add.u32 %0, %0, 1013904223;", "+r", "acc[c]" },
    { "lop", "unsigned", "seed + (unsigned) c", "xor.b32 %0, %0, 1013904223;", "+r", "acc[c]" },
    { "ffma", "float", "(float) (seed & 255u) + (float) c", "fma.rn.f32 %0, %0, 0f3F7FBE77, 0f3F000000;", "+f",
      "__float_as_uint(acc[c])" },
    { "fadd", "float", "(float) (seed & 255u) + (float) c", "add.f32 %0, %0, 0f3F000000;", "+f",
      "__float_as_uint(acc[c])" },
    { "fmul", "float", "(float) (seed & 255u) + (float) c", "mul.f32 %0, %0, 0f3F7FBE77;", "+f",
      "__float_as_uint(acc[c])" },
    { "mufu", "float", "(float) (seed & 255u) + (float) c + 1.0f", "rsqrt.approx.ftz.f32 %0, %0;", "+f",
      "__float_as_uint(acc[c])" },
    { "dfma", "double", "(double) (seed & 255u) + (double) c", "fma.rn.f64 %0, %0, 0d3FEFF7CED916872B, 0d3FE0000000000000;",
      "+d", "(unsigned) __double_as_longlong(acc[c])" },
    { "hmma", NULL, NULL, NULL, NULL, NULL },
};

const ClassDef *gen_class_def(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(class_defs); i++) {
        if (strcmp(class_defs[i].name, name) == 0) {
            return &class_defs[i];
        }
    }
    return NULL;
}

/* ------------------------------------------------------------- support */

bool cuda_gen_supported(const Program *prog, const ArchParams *arch, GError **error)
{
    const Trace *t = prog->trace;
    if (prog->pipes->len > 0) {
        const ProgPipe *p = &g_array_index(prog->pipes, ProgPipe, 0);
        trace_set_error(error, SIM_ERROR_INPUT, t, p->loc,
                        "OpenCL pipes have no CUDA equivalent: the CUDA backend cannot run this trace");
        return false;
    }
    for (guint i = 0; i < prog->ops->len; i++) {
        const Op *op = &g_array_index(prog->ops, Op, i);
        switch ((OpCode) op->code) {
        case OP_CL_RESERVE:
        case OP_CL_COMMIT:
        case OP_CL_RW_RESERVED:
        case OP_CL_RW:
        case OP_CL_IS_VALID:
        case OP_WG_BARRIER:
            trace_set_error(error, SIM_ERROR_INPUT, t, op->loc,
                            "%s is an OpenCL operation: the CUDA backend cannot run this trace",
                            op_code_name((OpCode) op->code));
            return false;
        case OP_COMPUTE:
            if (op->obj < 0 || op->sub == COMPUTE_OPERANDS) {
                const char *cls = g_ptr_array_index(prog->classes, op->value);
                if (gen_class_def(cls) == NULL) {
                    trace_set_error(error, SIM_ERROR_INPUT, t, op->loc,
                                    "compute(%s, ...): the CUDA backend knows the classes imad, iadd, lop, ffma,"
                                    " fadd, fmul, mufu, dfma and hmma", cls);
                    return false;
                }
                if (op->sub != COMPUTE_OPERANDS && op->e[1]->kind != EN_CONST) {
                    trace_set_error(error, SIM_ERROR_INPUT, t, op->loc,
                                    "compute(%s, n, k): the CUDA backend needs the number of chains k to be a"
                                    " constant expression of parameters (it becomes registers)", cls);
                    return false;
                }
            }
            break;
        case OP_ASSIGN: {
            const ProgVar *v = &g_array_index(prog->vars, ProgVar, op->var);
            if (v->type.kind != TY_INT && v->type.kind != TY_PTR && v->type.kind != TY_DATA &&
                v->type.kind != TY_ROLE && v->type.kind != TY_TOKEN) {
                trace_set_error(error, SIM_ERROR_INPUT, t, op->loc,
                                "the CUDA backend cannot copy %s into a variable ('%s')",
                                v->type.kind == TY_PIPE ? "a pipeline" : "this kind of value", v->name);
                return false;
            }
            break;
        }
        default:
            if (gen_is_tx_op((OpCode) op->code) &&
                !(op->code == OP_MEMCPY_TX ? arch_has_bulk_copy(arch) : arch_has_mbar_tx(arch))) {
                trace_set_error(error, SIM_ERROR_INPUT, t, op->loc,
                                "%s needs compute capability 9.0; the architecture %s is sm_%" G_GINT64_FORMAT,
                                op_code_name((OpCode) op->code), arch->name, arch->sm_version);
                return false;
            }
            break;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- points */

uint64_t cuda_gen_hash(const uint8_t *bytes, gsize len)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (gsize i = 0; i < len; i++) {
        h = (h ^ bytes[i]) * UINT64_C(0x100000001b3);
    }
    return h;
}

/* The global buffers a program writes: stored to, or a copy's destination. */
static bool *written_buffers(const Program *prog)
{
    bool *w = g_new0(bool, MAX(prog->buffers->len, 1u));
    for (guint i = 0; i < prog->ops->len; i++) {
        const Op *op = &g_array_index(prog->ops, Op, i);
        const ExprNode *p = op->code == OP_STORE || op->code == OP_MEMCPY || op->code == OP_MEMCPY_TX ? op->e[0] : NULL;
        if (p != NULL && p->type.buffer >= 0 &&
            g_array_index(prog->buffers, ProgBuffer, p->type.buffer).space == SPACE_GLOBAL) {
            w[p->type.buffer] = true;
        }
    }
    return w;
}

static void check_clear(gpointer p)
{
    g_bytes_unref(((CudaGenCheck *) p)->data);
}

void cuda_gen_point_free(CudaGenPoint *p)
{
    if (p == NULL) {
        return;
    }
    g_free(p->label);
    if (p->sets != NULL) {
        g_ptr_array_free(p->sets, TRUE);
    }
    sim_run_clear(&p->run);
    if (p->checks != NULL) {
        g_array_free(p->checks, TRUE);
    }
    g_free(p);
}

CudaGenPoint *cuda_gen_point_new(const Trace *t, const char *arch, const GPtrArray *sets, const char *label,
                                 GError **error)
{
    g_autoptr(CudaGenPoint) p = g_new0(CudaGenPoint, 1);
    p->label = g_strdup(label != NULL ? label : "");
    p->sets = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; sets != NULL && i < sets->len; i++) {
        g_ptr_array_add(p->sets, g_strdup(g_ptr_array_index(sets, i)));
    }
    p->checks = g_array_new(FALSE, TRUE, sizeof(CudaGenCheck));
    g_array_set_clear_func(p->checks, check_clear);
    SimRunOptions o;
    memset(&o, 0, sizeof o);
    o.arch = arch;
    o.sets = p->sets;
    o.sm.engine = SIM_ENGINE_EVENT;
    o.sm.race_check = false;
    o.sm.max_cycles = UINT64_C(2000000000);
    /* A whole-GPU launch (launch.grid): the simulator runs one SM's blocks,
     * so it has no reference for the other blocks' outputs (and their
     * buffers can reach gigabytes, which the functional model would
     * allocate).  The program times the launch and checks nothing. */
    if (!sim_run_prepare(t, &o, &p->run, error) || !cuda_gen_supported(p->run.prog, &p->run.arch, error)) {
        return NULL;
    }
    if (sim_grid_blocks(&p->run.arch) > p->run.arch.blocks) {
        p->unchecked = true;
        return g_steal_pointer(&p);
    }
    sim_run_clear(&p->run);
    o.sm.functional = true;
    if (!sim_run_prepare(t, &o, &p->run, error)) {
        return NULL;
    }
    GError *err = NULL;
    if (!sm_run(p->run.sm, &err)) {
        g_set_error(error, SIM_ERROR, err->code, "%s%s%s: the simulation fails, so there is no reference output: %s",
                    t->path, p->label[0] ? " " : "", p->label, err->message);
        g_error_free(err);
        return NULL;
    }
    const Program *prog = p->run.prog;
    g_autofree bool *written = written_buffers(prog);
    for (guint i = 0; i < prog->buffers->len; i++) {
        if (!written[i]) {
            continue;
        }
        int64_t bytes = 0;
        const uint8_t *data = sm_global_data(p->run.sm, (int32_t) i, &bytes);
        if (data == NULL) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: no functional data for buffer %s", t->path,
                        g_array_index(prog->buffers, ProgBuffer, i).name);
            return NULL;
        }
        CudaGenCheck c = { (int32_t) i, bytes, cuda_gen_hash(data, (gsize) bytes), g_bytes_new(data, (gsize) bytes) };
        g_array_append_val(p->checks, c);
    }
    return g_steal_pointer(&p);
}

/* ------------------------------------------------------------- program */

/* s as a C++ string literal's contents. */
static void c_escape(GString *out, const char *s)
{
    for (const char *c = s; *c; c++) {
        if (*c == '"' || *c == '\\') {
            g_string_append_c(out, '\\');
            g_string_append_c(out, *c);
        } else if ((unsigned char) *c < 0x20) {
            g_string_append_printf(out, "\\%03o", (unsigned char) *c);
        } else {
            g_string_append_c(out, *c);
        }
    }
}

static void define_string(GString *o, const char *name, const char *value)
{
    g_string_append_printf(o, "#define %s \"", name);
    c_escape(o, value);
    g_string_append(o, "\"\n");
}

/* Bits of emit_class_helpers' used[]: the class runs as compute(CLASS, n,
 * k), as compute(CLASS, n, x, ...). */
enum {
    CLASS_USED = 1,
    CLASS_USED_OPERANDS = 2
};

const char *gen_class_acc_suffix(const ClassDef *d)
{
    return d->type == NULL ? "[4]" : "";
}

const char *gen_class_acc_type(const ClassDef *d)
{
    return d->type == NULL ? "float" : d->type;
}

/* The wrapper of compute(CLASS, n, x [, y [, z]]): the chains start from
 * the operands folded together, so they wait for every operand; the value
 * is smp_mix's (the functional model's), tied to the end of the chains. */
static void emit_operand_helper(GString *o, const ClassDef *d)
{
    g_string_append_printf(o, "\n/* compute(%s, n, x [, y [, z]]): n %s instructions over K chains that wait for"
                           " every operand;\n * the value is smp_mix's. */\n"
                           "template <int K, class T, class U, class V>\n"
                           "__device__ __forceinline__ T smp_op_%s(long long n, T x, const U &y, const V &z)\n{\n"
                           "    unsigned dep = 0u;\n"
                           "    smp_keep(dep, x);\n    smp_keep(dep, y);\n    smp_keep(dep, z);\n"
                           "    %s acc[K]%s;\n    smp_start_%s(acc, dep);\n    smp_chains_%s(acc, n);\n"
                           "    smp_fold_%s(acc, dep);\n"
                           "    return smp_mix(dep, x, y, z);\n}\n",
                           d->name, d->name, d->name, gen_class_acc_type(d), gen_class_acc_suffix(d), d->name, d->name, d->name);
}

static void emit_class_helpers(GString *o, const int *used)
{
    for (size_t i = 0; i < G_N_ELEMENTS(class_defs); i++) {
        const ClassDef *d = &class_defs[i];
        if (!used[i]) {
            continue;
        }
        /* The chains run on accumulators the caller owns: a kernel keeps
         * one set per class and chain count across every statement, as a
         * real mainloop keeps its MMA accumulators across k-tiles, so that
         * starting and folding them is paid once a thread, not once a
         * statement (cutlass_multistage's SASS spent 64 of 195 mainloop
         * instructions a k-tile on that, docs/validation.md). */
        g_string_append_printf(o, "\n/* compute(%s, n, K): n %s instructions round robin over the K independent"
                               " chains in acc. */\n"
                               "template <int K>\n__device__ __forceinline__ void smp_chains_%s(%s (&acc)[K]%s,"
                               " long long n)\n{\n    long long i = 0;\n",
                               d->name, d->name, d->name, gen_class_acc_type(d), gen_class_acc_suffix(d));
        if (d->type == NULL) {
            /* hmma: one warp-wide m16n8k16 f16 MMA with f32 accumulators per
             * instruction; the warp must be converged.  The f16 inputs are
             * constants: no chain waits for anything but itself. */
            g_string_append(o,
                "    const unsigned a = 0x3c003c00u;\n"
                "#define SMP_HMMA(c) asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, \" \\\n"
                "                                 \"{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\" \\\n"
                "                                 : \"+f\"(acc[c][0]), \"+f\"(acc[c][1]), \"+f\"(acc[c][2]), \"+f\"(acc[c][3]) \\\n"
                "                                 : \"r\"(a), \"r\"(a), \"r\"(a), \"r\"(a), \"r\"(a), \"r\"(a))\n");
            g_string_append(o, "    for (; i + K <= n; i += K) {\n#pragma unroll\n        for (int c = 0; c < K; ++c) {\n"
                               "            SMP_HMMA(c);\n        }\n    }\n"
                               "#pragma unroll\n    for (int c = 0; c < K; ++c) {\n        if (i + c < n) {\n"
                               "            SMP_HMMA(c);\n        }\n    }\n#undef SMP_HMMA\n}\n");
        } else {
            g_string_append_printf(o, "    for (; i + K <= n; i += K) {\n#pragma unroll\n        for (int c = 0; c < K; ++c) {\n"
                                   "            asm volatile(\"%s\" : \"%s\"(acc[c]));\n        }\n    }\n"
                                   "#pragma unroll\n    for (int c = 0; c < K; ++c) {\n        if (i + c < n) {\n"
                                   "            asm volatile(\"%s\" : \"%s\"(acc[c]));\n        }\n    }\n}\n",
                                   d->asm_text, d->cons, d->asm_text, d->cons);
        }
        /* Starting chains (the kernel's accumulators, and each call of the
         * operand form) and folding them into a sink. */
        g_string_append_printf(o, "\ntemplate <int K>\n__device__ __forceinline__ void smp_start_%s(%s (&acc)[K]%s,"
                               " unsigned seed)\n{\n#pragma unroll\n    for (int c = 0; c < K; ++c) {\n",
                               d->name, gen_class_acc_type(d), gen_class_acc_suffix(d));
        if (d->type == NULL) {
            g_string_append(o, "        acc[c][0] = acc[c][1] = acc[c][2] = acc[c][3] = (float) (seed & 255u) + (float) c;\n"
                               "    }\n}\n");
        } else {
            g_string_append_printf(o, "        acc[c] = %s;\n    }\n}\n", d->init);
        }
        g_string_append_printf(o, "\ntemplate <int K>\n__device__ __forceinline__ void smp_fold_%s(const %s (&acc)[K]%s,"
                               " unsigned &sink)\n{\n#pragma unroll\n    for (int c = 0; c < K; ++c) {\n",
                               d->name, gen_class_acc_type(d), gen_class_acc_suffix(d));
        if (d->type == NULL) {
            g_string_append(o, "        sink ^= __float_as_uint(acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3]);\n    }\n}\n");
        } else {
            g_string_append_printf(o, "        sink ^= %s;\n    }\n}\n", d->fold);
        }
        if (used[i] & CLASS_USED_OPERANDS) {
            emit_operand_helper(o, d);
        }
    }
}

static bool uses_group(const Program *prog, int32_t group)
{
    for (guint i = 0; i < prog->ops->len; i++) {
        const Op *op = &g_array_index(prog->ops, Op, i);
        if ((op->code == OP_MEMCPY || op->code == OP_CG_WAIT) && op->sub == group) {
            return true;
        }
        if (op->code == OP_SYNCWARP && op->value > 0 && op->value == program_group_lanes(group)) {
            return true;
        }
    }
    return false;
}

static void gen_clear(Gen *g)
{
    g_strfreev(g->buf_name);
    g_strfreev(g->bar_name);
    g_strfreev(g->ps_name);
    g_strfreev(g->var_name);
    g_free(g->declared);
    g_free(g->read);
    g_free(g->named);
    g_free(g->slot_var);
    if (g->pipe_name != NULL) {
        g_hash_table_unref(g->pipe_name);
    }
    if (g->used != NULL) {
        g_hash_table_unref(g->used);
    }
}

/* Names every object of the program. */
static void gen_names(Gen *g)
{
    const Program *p = g->prog;
    g->used = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g->buf_name = g_new0(char *, p->buffers->len + 1);
    for (guint i = 0; i < p->buffers->len; i++) {
        g->buf_name[i] = gen_unique_name(g->used, g_array_index(p->buffers, ProgBuffer, i).name);
    }
    g->ps_name = g_new0(char *, p->pstates->len + 1);
    for (guint i = 0; i < p->pstates->len; i++) {
        g->ps_name[i] = gen_unique_name(g->used, g_array_index(p->pstates, ProgPState, i).name);
    }
    g->bar_name = g_new0(char *, p->barriers->len + 1);
    for (guint i = 0; i < p->barriers->len; i++) {
        g->bar_name[i] = gen_unique_name(g->used, g_array_index(p->barriers, ProgBarrier, i).name);
    }
    g->var_name = g_new0(char *, p->vars->len + 1);
    g->declared = g_new0(bool, p->vars->len + 1);
    g->slot_var = g_new(int32_t, MAX(p->value_slots, 1));
    for (int32_t s = 0; s < MAX(p->value_slots, 1); s++) {
        g->slot_var[s] = -1;
    }
    for (guint i = 0; i < p->vars->len; i++) {
        const ProgVar *v = &g_array_index(p->vars, ProgVar, i);
        g->var_name[i] = gen_unique_name(g->used, v->name);
        if (v->slot >= 0 && v->slot < p->value_slots) {
            g->slot_var[v->slot] = (int32_t) i;
        }
    }
    /* Loaded values are read only by compute and store; one nothing reads
     * still costs its load, so it is folded into the sink. */
    g->read = g_new0(bool, p->vars->len + 1);
    g->named = g_new0(bool, p->vars->len + 1);
    for (guint i = 0; i < p->nodes->len; i++) {
        const ExprNode *n = g_ptr_array_index(p->nodes, i);
        if (n->kind == EN_VAR && n->var >= 0 && n->var < p->value_slots && g->slot_var[n->var] >= 0) {
            g->named[g->slot_var[n->var]] = true;
        }
    }
    g->pipe_name = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    for (guint i = 0; i < p->ops->len; i++) {
        const Op *op = &g_array_index(p->ops, Op, i);
        if ((op->code == OP_STORE || op->code == OP_COMPUTE) && op->obj >= 0) {
            g->read[op->obj] = true;
        }
        for (int k = 0; k < 2 && op->code == OP_COMPUTE; k++) {
            if (op->in[k] >= 0) {
                g->read[op->in[k]] = true;
            }
        }
        if (op->code == OP_MAKE_PIPE_THREAD || op->code == OP_MAKE_PIPE_BLOCK) {
            const char *n = gen_find_var_name(g->trace->body, op->loc);
            g_hash_table_insert(g->pipe_name, GINT_TO_POINTER(i), gen_unique_name(g->used, n != NULL ? n : "pipe"));
        }
    }
}

static bool uses_wait_until(const Program *prog)
{
    for (guint i = 0; i < prog->ops->len; i++) {
        const Op *op = &g_array_index(prog->ops, Op, i);
        if (op->code == OP_PIPE_WAIT_FOR && op->sub == 1) {
            return true;
        }
    }
    return false;
}

static bool program_uses_tx(const Program *prog)
{
    for (guint i = 0; i < prog->ops->len; i++) {
        if (gen_is_tx_op((OpCode) g_array_index(prog->ops, Op, i).code)) {
            return true;
        }
    }
    return false;
}

/* The namespace smp_pK of one point. */
static bool emit_point(GString *o, const CudaGenPoint *pt, guint k, GError **error)
{
    const Program *p = pt->run.prog;
    Gen gen;
    memset(&gen, 0, sizeof gen);
    Gen *g = &gen;
    g->trace = p->trace;
    g->prog = p;
    g->arch = &pt->run.arch;
    g->o = o;
    g->error = error;
    g->ok = true;
    gen_names(g);
    bool tx = program_uses_tx(p);

    g_string_append_printf(o, "\n/* ---- point %u: %s%s%s */\nnamespace smp_p%u {\n\n", k, p->trace->path,
                           pt->label[0] ? ", " : "", pt->label, k);
    for (guint i = 0; i < p->pstates->len; i++) {
        const ProgPState *s = &g_array_index(p->pstates, ProgPState, i);
        g_string_append_printf(o, "static_assert(sizeof(cuda::pipeline_shared_state<cuda::thread_scope_block, %" G_GINT64_FORMAT
                               ">) <= %" G_GINT64_FORMAT ", \"the simulator's layout of %s\");\n",
                               s->stages, s->stages * 16 + 8, s->name);
    }
    if (p->barriers->len > 0) {
        g_string_append(o, "static_assert(sizeof(smp_barrier) == 8, \"the simulator's layout of a cuda::barrier\");\n");
    }
    g_string_append(o, "\n__global__ void kernel(");
    for (guint i = 0; i < p->buffers->len; i++) {
        const ProgBuffer *b = &g_array_index(p->buffers, ProgBuffer, i);
        if (b->space == SPACE_GLOBAL) {
            g_string_append_printf(o, "%s *%s, ", b->elem.name, g->buf_name[i]);
        }
    }
    g_string_append(o, "unsigned long long *smp_times, unsigned *smp_sinks,\n                       unsigned *smp_smids,"
                       " int *smp_fail)\n{\n");
    g->depth = 1;
    gen_line(g, "const unsigned long long smp_t0 = smp_clock();");
    if (uses_wait_until(p)) {
        /* Cycle 0 of the simulation, for consumer_wait_until. */
        gen_line(g, "const auto smp_tp0 = cuda::std::chrono::system_clock::now();");
    }
    gen_line(g, "extern __shared__ __align__(128) unsigned char smp_smem[];");
    gen_line(g, "unsigned smp_sink = 0;");
    gen_class_accumulators(g, false);
    if (gen_block_is_multi_dim(p)) {
        gen_line(g, "const unsigned smp_rank = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);");
    }
    if (gen_grid_is_multi_dim(p)) {
        gen_line(g, "const unsigned smp_block_rank = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);");
    }
    gen_line(g, "[&]() {");
    g->depth = 2;
    if (tx) {
        g_string_append(o, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900\n");
        gen_line(g, "__trap(); /* memcpy_async_tx and barrier_*_tx need sm_90 */");
        g_string_append(o, "#else\n");
    }
    gen_line(g, "[[maybe_unused]] auto block = cg::this_thread_block();");
    static const GroupKind tiles[] = { GROUP_TILE2, GROUP_TILE4, GROUP_TILE8, GROUP_TILE16, GROUP_WARP };
    for (guint i = 0; i < G_N_ELEMENTS(tiles); i++) {
        if (uses_group(p, tiles[i])) {
            gen_line(g, "[[maybe_unused]] auto %s = cg::tiled_partition<%" G_GINT64_FORMAT ">(block);",
                 gen_group_name(tiles[i]), program_group_lanes(tiles[i]));
        }
    }
    gen_line(g, "// Shared memory: the simulator's layout, in one dynamic buffer.");
    for (guint i = 0; i < p->buffers->len; i++) {
        const ProgBuffer *b = &g_array_index(p->buffers, ProgBuffer, i);
        if (b->space == SPACE_SHARED) {
            gen_line(g, "[[maybe_unused]] %s *const %s = reinterpret_cast<%s *>(smp_smem + %" G_GINT64_FORMAT "); // %s[%"
                 G_GINT64_FORMAT "]", b->elem.name, g->buf_name[i], b->elem.name, b->base, b->name, b->count);
        }
    }
    for (guint i = 0; i < p->pstates->len; i++) {
        const ProgPState *s = &g_array_index(p->pstates, ProgPState, i);
        gen_line(g, "[[maybe_unused]] auto &%s = *reinterpret_cast<cuda::pipeline_shared_state<cuda::thread_scope_block, %"
             G_GINT64_FORMAT "> *>(smp_smem + %" G_GINT64_FORMAT ");", g->ps_name[i], s->stages, s->smem_offset);
    }
    for (guint i = 0; i < p->barriers->len; i++) {
        const ProgBarrier *b = &g_array_index(p->barriers, ProgBarrier, i);
        gen_line(g, "[[maybe_unused]] smp_barrier &%s = *reinterpret_cast<smp_barrier *>(smp_smem + %" G_GINT64_FORMAT ");",
             g->bar_name[i], b->smem_offset);
    }
    gen_line(g, "// The trace.");
    gen_emit_range(g, 0, (int) p->ops->len);
    if (tx) {
        g_string_append(o, "#endif\n");
    }
    g->depth = 1;
    gen_line(g, "}();");
    gen_class_accumulators(g, true);
    gen_line(g, "const unsigned long long smp_t1 = smp_clock();");
    gen_line(g, "const unsigned smp_gtid = %s * %s + %s;", gen_block_rank_text(p),
         gen_block_is_multi_dim(p) ? "(blockDim.x * blockDim.y * blockDim.z)" : "blockDim.x", gen_thread_rank_text(p));
    gen_line(g, "smp_times[2 * smp_gtid] = smp_t0;");
    gen_line(g, "smp_times[2 * smp_gtid + 1] = smp_t1;");
    gen_line(g, "smp_sinks[smp_gtid] = smp_sink;");
    gen_line(g, "if (%s == 0) {", gen_thread_rank_text(p));
    gen_line(g, "    smp_smids[%s] = smp_smid();", gen_block_rank_text(p));
    gen_line(g, "}");
    g_string_append(o, "}\n\nstatic const SmpBuffer buffers[] = {\n");
    guint nglobal = 0;
    for (guint i = 0; i < p->buffers->len; i++) {
        const ProgBuffer *b = &g_array_index(p->buffers, ProgBuffer, i);
        if (b->space != SPACE_GLOBAL) {
            continue;
        }
        const CudaGenCheck *chk = NULL;
        for (guint c = 0; c < pt->checks->len; c++) {
            if (g_array_index(pt->checks, CudaGenCheck, c).buffer == (int32_t) i) {
                chk = &g_array_index(pt->checks, CudaGenCheck, c);
            }
        }
        g_string_append_printf(o, "    { \"%s\", %u, %" G_GINT64_FORMAT ", %u, %d, 0x%016" G_GINT64_MODIFIER "xull },\n",
                               g->buf_name[i], i, b->bytes, b->elem.size, chk != NULL, chk ? chk->hash : 0);
        nglobal++;
    }
    if (nglobal == 0) {
        g_string_append(o, "    { \"\", -1, 0, 1, 0, 0ull },\n");
    }
    g_string_append_printf(o, "};\n\nstatic cudaError_t prepare()\n{\n"
                           "    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, %"
                           G_GINT64_FORMAT ");\n}\n\n", p->smem_bytes);
    g_string_append(o, "static void launch(void *const *b, unsigned long long *times, unsigned *sinks, unsigned *smids,"
                       " int *fail)\n{\n");
    if (gen_block_is_multi_dim(p) || gen_grid_is_multi_dim(p)) {
        g_string_append_printf(o, "    kernel<<<dim3(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "), dim3(%"
                               G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "), %" G_GINT64_FORMAT ">>>(",
                               p->grid_dim[0], p->grid_dim[1], p->grid_dim[2], p->block_dim[0], p->block_dim[1],
                               p->block_dim[2], p->smem_bytes);
    } else {
        g_string_append_printf(o, "    kernel<<<%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ">>>(",
                               p->grid_blocks, p->block_threads, p->smem_bytes);
    }
    guint gi = 0;
    for (guint i = 0; i < p->buffers->len; i++) {
        const ProgBuffer *b = &g_array_index(p->buffers, ProgBuffer, i);
        if (b->space == SPACE_GLOBAL) {
            g_string_append_printf(o, "static_cast<%s *>(b[%u]), ", b->elem.name, gi++);
        }
    }
    g_string_append(o, "times, sinks, smids, fail);\n}\n\n} // namespace\n");
    bool ok = g->ok;
    gen_clear(g);
    return ok;
}

static void point_json(const CudaGenPoint *pt, GString *params, GString *sets)
{
    const Program *p = pt->run.prog;
    JsonW j;
    jsonw_init_string(&j, params, false);
    jsonw_begin_object(&j);
    for (guint i = 0; i < p->param_names->len; i++) {
        const char *n = g_ptr_array_index(p->param_names, i);
        jsonw_key(&j, n);
        jsonw_int(&j, program_param(p, n, 0));
    }
    jsonw_end_object(&j);
    jsonw_init_string(&j, sets, false);
    jsonw_begin_array(&j);
    for (guint i = 0; i < pt->sets->len; i++) {
        jsonw_string(&j, g_ptr_array_index(pt->sets, i));
    }
    jsonw_end_array(&j);
}

bool cuda_gen_program(CudaGenPoint *const *points, guint n, const CudaGenOptions *opt, GString *o, GError **error)
{
    g_return_val_if_fail(n > 0, false);
    const CudaGenPoint *first = points[0];
    g_autofree char *base = g_path_get_basename(opt->out_name ? opt->out_name : "smpipe.cu");
    g_autofree char *exe = g_str_has_suffix(base, ".cu") ? g_strndup(base, strlen(base) - 3) : g_strdup(base);
    g_string_append_printf(o, "// %s: generated by smpipe %s (`smpipe cuda`) from %s, architecture %s, %u point%s.\n",
                           base, SMPIPE_VERSION, opt->trace_path, first->run.arch.name, n, n == 1 ? "" : "s");
    g_string_append(o, "// Do not edit: regenerate it.  What it does and prints: docs/cuda-backend.md.\n//\n");
    g_string_append_printf(o, "// Build: nvcc -O3 -std=c++17 -arch=sm_%" G_GINT64_FORMAT " -o %s %s\n", first->run.arch.sm_version,
                           exe, base);
    g_string_append_printf(o, "// Run:   ./%s [--flush-l2 | --no-flush-l2] [--repeats N] [--warmup N] [--point K] [--ref FILE]\n//\n",
                           exe);
    g_string_append(o, "// Each kernel is the trace, statement by statement (the trace's line numbers are in the\n"
                       "// comments), with parameters resolved.  Global buffers start with the simulator's fill\n"
                       "// pattern; every buffer the kernel writes is compared with the simulator's functional\n"
                       "// model (FNV-1a hashes below; element by element with the .ref file).\n\n");
    g_string_append(o, "#include <cooperative_groups.h>\n#include <cooperative_groups/memcpy_async.h>\n"
                       "#include <cuda/barrier>\n#include <cuda/pipeline>\n#include <cuda_runtime.h>\n\n"
                       "#include <algorithm>\n#include <chrono>\n#include <cstdarg>\n#include <cstdint>\n#include <cstdio>\n"
                       "#include <cstdlib>\n#include <cstring>\n#include <string>\n#include <thread>\n#include <unistd.h>\n"
                       "#include <vector>\n\n");
    define_string(o, "SMP_PROGRAM", exe);
    g_autofree char *gen = g_strdup_printf("smpipe %s", SMPIPE_VERSION);
    define_string(o, "SMP_GENERATOR", gen);
    define_string(o, "SMP_TRACE", opt->trace_path);
    define_string(o, "SMP_ARCH", first->run.arch.name);
    g_autofree char *ref = g_strdup_printf("%s.ref", base);
    define_string(o, "SMP_REF_NAME", ref);
    g_string_append_printf(o, "#define SMP_DEFAULT_FLUSH %s\n#define SMP_DEFAULT_REPEATS %d\n#define SMP_DEFAULT_WARMUP %d\n"
                           "#define SMP_NPOINTS %u\n\n", opt->flush_l2 ? "true" : "false", MAX(opt->repeats, 1),
                           MAX(opt->warmup, 0), n);
    g_string_append(o, cuda_harness_device);
    int used[G_N_ELEMENTS(class_defs)];
    memset(used, 0, sizeof used);
    for (guint k = 0; k < n; k++) {
        const Program *p = points[k]->run.prog;
        for (guint i = 0; i < p->ops->len; i++) {
            const Op *op = &g_array_index(p->ops, Op, i);
            if (op->code == OP_COMPUTE && (op->obj < 0 || op->sub == COMPUTE_OPERANDS)) {
                const ClassDef *d = gen_class_def(g_ptr_array_index(p->classes, op->value));
                if (d != NULL) {
                    used[d - class_defs] |= op->sub == COMPUTE_OPERANDS ? CLASS_USED_OPERANDS : CLASS_USED;
                }
            }
        }
    }
    emit_class_helpers(o, used);
    g_string_append_c(o, '\n');
    g_string_append(o, cuda_harness_host);
    for (guint k = 0; k < n; k++) {
        if (!emit_point(o, points[k], k, error)) {
            return false;
        }
    }
    g_string_append(o, "\nstatic const SmpPoint smp_points[SMP_NPOINTS] = {\n");
    for (guint k = 0; k < n; k++) {
        const CudaGenPoint *pt = points[k];
        const Program *p = pt->run.prog;
        g_autoptr(GString) params = g_string_new(NULL);
        g_autoptr(GString) sets = g_string_new(NULL);
        point_json(pt, params, sets);
        guint nglobal = 0;
        for (guint i = 0; i < p->buffers->len; i++) {
            nglobal += g_array_index(p->buffers, ProgBuffer, i).space == SPACE_GLOBAL;
        }
        g_autoptr(GString) label = g_string_new(NULL);
        jsonw_escape(label, pt->label);
        g_autoptr(GString) trace = g_string_new(NULL);
        jsonw_escape(trace, p->trace->path);
        /* The strings go into the JSON as they are: JSON-escape, then C-escape. */
        g_string_append(o, "    { \"");
        g_autofree char *lab = g_strndup(label->str + 1, label->len - 2);
        c_escape(o, lab);
        g_string_append(o, "\", \"");
        g_autofree char *tr = g_strndup(trace->str + 1, trace->len - 2);
        c_escape(o, tr);
        g_string_append(o, "\",\n      \"");
        c_escape(o, params->str);
        g_string_append(o, "\",\n      \"");
        c_escape(o, sets->str);
        g_string_append_printf(o, "\",\n      %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                               ", %d, %u, smp_p%u::buffers, smp_p%u::prepare, smp_p%u::launch%s },\n",
                               p->block_threads, p->grid_blocks, p->smem_bytes, program_uses_tx(p) ? 90 : 80, nglobal, k,
                               k, k, pt->unchecked ? ", 1" : "");
    }
    g_string_append(o, "};\n\n");
    g_string_append(o, cuda_harness_main);
    return true;
}

void cuda_gen_reference(CudaGenPoint *const *points, guint n, GByteArray *out)
{
    g_byte_array_append(out, (const guint8 *) "SMPREF1\n", 8);
    for (guint k = 0; k < n; k++) {
        for (guint c = 0; c < points[k]->checks->len; c++) {
            const CudaGenCheck *chk = &g_array_index(points[k]->checks, CudaGenCheck, c);
            uint32_t hdr[2] = { k, (uint32_t) chk->buffer };
            uint64_t bytes = (uint64_t) chk->bytes;
            g_byte_array_append(out, (const guint8 *) hdr, sizeof hdr);
            g_byte_array_append(out, (const guint8 *) &bytes, sizeof bytes);
            gsize len = 0;
            const guint8 *data = g_bytes_get_data(chk->data, &len);
            g_byte_array_append(out, data, (guint) len);
        }
    }
}
