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
#include "sim/cuda_gen.h"

#include "models/sm.h"
#include "sim/cuda_gen_internal.h"
#include "sim/jsonw.h"
#include "sim/parser.h"

#include <stdarg.h>
#include <string.h>

/* compute(CLASS, n, k) clamps k as the simulator does (MAX_CHAINS). */
#define CUDA_GEN_MAX_CHAINS 64

/* ---------------------------------------------------------------- names */

/* C++ keywords and names the generated code uses itself. */
static const char *const reserved_names[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
    "char", "char16_t", "char32_t", "char8_t", "class", "compl", "concept", "const", "consteval", "constexpr",
    "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
    "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
    "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
    "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
    "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "cg", "cuda", "std", "block", "warp", "thread",
    "kernel", "launch", "prepare", "buffers", "main", "min", "max", "memcpy", "printf", "assert", "init",
    "size_t", "ptrdiff_t", "int2", "int4", "uint4", "float2", "float4", "double2", "int8_t", "uint8_t",
    "int16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "NULL", "atomicCAS", "clock", "clock64",
};

static bool name_reserved(const char *s)
{
    if (g_str_has_prefix(s, "smp_") || g_str_has_prefix(s, "SMP_") || strstr(s, "__") != NULL || s[0] == '_') {
        return true;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(reserved_names); i++) {
        if (strcmp(reserved_names[i], s) == 0) {
            return true;
        }
    }
    return false;
}

/* A C++ identifier for a trace name, unique among `used` (which takes it).
 * Returns a newly allocated string. */
static char *unique_name(GHashTable *used, const char *name)
{
    GString *s = g_string_new(NULL);
    for (const char *c = name; *c; c++) {
        g_string_append_c(s, g_ascii_isalnum(*c) || *c == '_' ? *c : '_');
    }
    if (s->len == 0 || g_ascii_isdigit(s->str[0]) || name_reserved(s->str)) {
        g_string_prepend(s, "t_");
    }
    g_autofree char *base = g_strdup(s->str);
    for (int k = 2; g_hash_table_contains(used, s->str); k++) {
        g_string_printf(s, "%s_%d", base, k);
    }
    g_hash_table_add(used, g_strdup(s->str));
    return g_string_free(s, FALSE);
}

/* ------------------------------------------------------------ generator */

typedef struct {
    const Trace *trace;
    const Program *prog;
    const ArchParams *arch;
    GString *o;              /* output (not owned) */
    GError **error;
    int depth;               /* indentation, in levels of 4 spaces */
    char **buf_name;         /* per buffer (owned) */
    char **bar_name;         /* per barrier (owned) */
    char **ps_name;          /* per pipeline_shared_state (owned) */
    char **var_name;         /* per variable (owned) */
    bool *declared;          /* per variable: its C++ declaration is written */
    bool *read;              /* per variable: some operation reads it */
    bool *named;             /* per variable: some expression reads it (else [[maybe_unused]]) */
    int32_t *slot_var;       /* value slot -> variable index */
    GHashTable *pipe_name;   /* make_pipeline op index -> name (owned) */
    GHashTable *used;        /* C++ names taken */
    uint32_t last_line;      /* the trace line last quoted in a comment */
    bool ok;
} Gen;

static bool gen_fail(Gen *g, SrcLoc loc, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static bool gen_fail(Gen *g, SrcLoc loc, const char *fmt, ...)
{
    if (g->ok) {
        va_list ap;
        va_start(ap, fmt);
        g_autofree char *msg = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        if (loc.line > 0) {
            trace_set_error(g->error, SIM_ERROR_INPUT, g->trace, loc, "%s", msg);
        } else {
            g_set_error(g->error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s", g->trace->path, msg);
        }
    }
    g->ok = false;
    return false;
}

static void indent(Gen *g)
{
    for (int i = 0; i < g->depth; i++) {
        g_string_append(g->o, "    ");
    }
}

/* Whether the program's blocks (grid) have more than one dimension. */
static bool block_is_multi_dim(const Program *p)
{
    return p->block_dim[1] > 1 || p->block_dim[2] > 1;
}

static bool grid_is_multi_dim(const Program *p)
{
    return p->grid_dim[1] > 1 || p->grid_dim[2] > 1;
}

/* The thread's rank in its block (the block's rank in the grid) as the
 * kernel spells it: threadIdx.x in a one-dimensional block, else smp_rank,
 * which the kernel computes in CUDA's order (x fastest). */
static const char *thread_rank_text(const Program *p)
{
    return block_is_multi_dim(p) ? "smp_rank" : "threadIdx.x";
}

static const char *block_rank_text(const Program *p)
{
    return grid_is_multi_dim(p) ? "smp_block_rank" : "blockIdx.x";
}

static void line(Gen *g, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void line(Gen *g, const char *fmt, ...)
{
    indent(g);
    va_list ap;
    va_start(ap, fmt);
    g_string_append_vprintf(g->o, fmt, ap);
    va_end(ap);
    g_string_append_c(g->o, '\n');
}

/* Quotes the trace line an operation comes from, once per line. */
static void src_comment(Gen *g, SrcLoc loc)
{
    if (loc.line == 0 || loc.line == g->last_line || loc.line > g->trace->lines->len) {
        return;
    }
    g->last_line = loc.line;
    const char *text = g_ptr_array_index(g->trace->lines, loc.line - 1);
    g_autofree char *t = g_strstrip(g_strdup(text));
    /* A backslash at the end would continue the // comment. */
    for (char *c = t; *c; c++) {
        if (*c == '\\' || (unsigned char) *c < 0x20) {
            *c = ' ';
        }
    }
    line(g, "// %u: %s", loc.line, t);
}

/* Walks the syntax tree for `var NAME = <call at loc>`. */
static const char *find_var_name(GPtrArray *stmts, SrcLoc loc);

static const char *find_var_name_in(const Stmt *s, SrcLoc loc)
{
    if (s == NULL) {
        return NULL;
    }
    if (s->kind == ST_VAR && s->a != NULL && s->a->loc.line == loc.line && s->a->loc.col == loc.col) {
        return s->name;
    }
    const char *n = find_var_name(s->body, loc);
    if (n == NULL) {
        n = find_var_name(s->orelse, loc);
    }
    return n != NULL ? n : find_var_name_in(s->init, loc);
}

static const char *find_var_name(GPtrArray *stmts, SrcLoc loc)
{
    for (guint i = 0; stmts != NULL && i < stmts->len; i++) {
        const char *n = find_var_name_in(g_ptr_array_index(stmts, i), loc);
        if (n != NULL) {
            return n;
        }
    }
    return NULL;
}

/* Walks the syntax tree for the call expression at loc. */
static const Expr *find_call(GPtrArray *stmts, SrcLoc loc);

static const Expr *find_call_in(const Stmt *s, SrcLoc loc)
{
    if (s == NULL) {
        return NULL;
    }
    if (s->a != NULL && (s->a->kind == EX_CALL || s->a->kind == EX_TEMPLATE) && s->a->loc.line == loc.line &&
        s->a->loc.col == loc.col) {
        return s->a;
    }
    const Expr *e = find_call(s->body, loc);
    if (e == NULL) {
        e = find_call(s->orelse, loc);
    }
    if (e == NULL) {
        e = find_call_in(s->init, loc);
    }
    return e != NULL ? e : find_call_in(s->step, loc);
}

static const Expr *find_call(GPtrArray *stmts, SrcLoc loc)
{
    for (guint i = 0; stmts != NULL && i < stmts->len; i++) {
        const Expr *e = find_call_in(g_ptr_array_index(stmts, i), loc);
        if (e != NULL) {
            return e;
        }
    }
    return NULL;
}

/* Whether the trace wrote the copy at loc with cuda::aligned_size_t. */
static bool copy_uses_aligned_size(Gen *g, SrcLoc loc)
{
    const Expr *call = find_call(g->trace->body, loc);
    for (guint i = 0; call != NULL && call->args != NULL && i < call->args->len; i++) {
        const Expr *a = g_ptr_array_index(call->args, i);
        if (a->kind == EX_TEMPLATE && strcmp(a->name, "aligned_size_t") == 0) {
            return true;
        }
    }
    return false;
}

static const char *pipe_name(Gen *g, int32_t make_op)
{
    const char *n = g_hash_table_lookup(g->pipe_name, GINT_TO_POINTER(make_op));
    return n != NULL ? n : "smp_missing_pipeline";
}

/* ---------------------------------------------------------- expressions */

static void ex(Gen *g, GString *s, const ExprNode *n);
static void ex_ptr(Gen *g, GString *s, const ExprNode *n);

static void ex_int(GString *s, int64_t v)
{
    if (v == INT64_MIN) {
        g_string_append(s, "(-9223372036854775807LL - 1)");
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        g_string_append_printf(s, "%" G_GINT64_FORMAT, v);
    } else {
        g_string_append_printf(s, "%" G_GINT64_FORMAT "LL", v);
    }
}

static const char *op_text(int op)
{
    switch (op) {
    case TK_EQ: return "==";
    case TK_NE: return "!=";
    case TK_LE: return "<=";
    case TK_GE: return ">=";
    case TK_SHL: return "<<";
    case TK_SHR: return ">>";
    case TK_ANDAND: return "&&";
    case TK_OROR: return "||";
    case '+': return "+";
    case '-': return "-";
    case '*': return "*";
    case '/': return "/";
    case '%': return "%";
    case '<': return "<";
    case '>': return ">";
    case '&': return "&";
    case '|': return "|";
    case '^': return "^";
    case '!': return "!";
    case '~': return "~";
    default: return NULL;
    }
}

static const ProgBuffer *buffer_of(Gen *g, const ExprNode *n)
{
    return &g_array_index(g->prog->buffers, ProgBuffer, n->type.buffer);
}

static const char *var_of_slot(Gen *g, int32_t slot)
{
    if (slot < 0 || slot >= g->prog->value_slots || g->slot_var[slot] < 0) {
        return "smp_missing_variable";
    }
    return g->var_name[g->slot_var[slot]];
}

/* A typed pointer T* into the node's buffer. */
static void ex_ptr(Gen *g, GString *s, const ExprNode *n)
{
    if (n->type.buffer < 0 || n->type.buffer >= (int32_t) g->prog->buffers->len) {
        gen_fail(g, n->loc, "internal error: a pointer without a buffer");
        return;
    }
    const ProgBuffer *b = buffer_of(g, n);
    const char *name = g->buf_name[n->type.buffer];
    int64_t size = b->elem.size;
    switch ((ExprNodeKind) n->kind) {
    case EN_CONST: {
        int64_t off = n->value - b->base;
        if (off == 0) {
            g_string_append(s, name);
        } else if (off % size == 0) {
            g_string_append_printf(s, "(%s + ", name);
            ex_int(s, off / size);
            g_string_append_c(s, ')');
        } else {
            g_string_append_printf(s, "smp_byte_offset(%s, ", name);
            ex_int(s, off);
            g_string_append_c(s, ')');
        }
        return;
    }
    case EN_VAR:
        g_string_append(s, var_of_slot(g, n->var));
        return;
    case EN_TERNARY:
        g_string_append(s, "(");
        ex(g, s, n->a);
        g_string_append(s, " ? ");
        ex_ptr(g, s, n->b);
        g_string_append(s, " : ");
        ex_ptr(g, s, n->c);
        g_string_append(s, ")");
        return;
    case EN_BINARY:
        if ((n->op == '+' || n->op == '-') && n->a->type.kind == TY_PTR && n->b->type.kind == TY_INT) {
            const ExprNode *r = n->b;
            if (r->kind == EN_BINARY && r->op == '*' && r->b->kind == EN_CONST && r->b->value == size) {
                g_string_append(s, "(");
                ex_ptr(g, s, n->a);
                g_string_append_printf(s, " %c ", n->op);
                ex(g, s, r->a);
                g_string_append(s, ")");
            } else if (r->kind == EN_CONST && r->value % size == 0) {
                g_string_append(s, "(");
                ex_ptr(g, s, n->a);
                g_string_append_printf(s, " %c ", n->op);
                ex_int(s, r->value / size);
                g_string_append(s, ")");
            } else {
                g_string_append(s, "smp_byte_offset(");
                ex_ptr(g, s, n->a);
                g_string_append_printf(s, ", %s", n->op == '-' ? "-" : "");
                ex(g, s, r);
                g_string_append(s, ")");
            }
            return;
        }
        break;
    default:
        break;
    }
    gen_fail(g, n->loc, "internal error: a pointer expression the CUDA backend does not know");
}

/* An integer (or boolean, or pipeline_role) expression. */
static void ex(Gen *g, GString *s, const ExprNode *n)
{
    if (n->type.kind == TY_PTR) {
        ex_ptr(g, s, n);
        return;
    }
    switch ((ExprNodeKind) n->kind) {
    case EN_CONST:
        if (n->type.kind == TY_ROLE) {
            g_string_append(s, n->value == 0 ? "cuda::pipeline_role::producer" : "cuda::pipeline_role::consumer");
        } else {
            ex_int(s, n->value);
        }
        return;
    case EN_VAR:
        g_string_append(s, var_of_slot(g, n->var));
        return;
    case EN_TID:
        if (n->value > 0) {
            g_string_append_printf(s, "(long long) threadIdx.%c", "xyz"[n->value - 1]);
        } else {
            g_string_append_printf(s, "(long long) %s", thread_rank_text(g->prog));
        }
        return;
    case EN_LANE:
        g_string_append_printf(s, "(long long) (%s %% 32)", thread_rank_text(g->prog));
        return;
    case EN_WARP:
        g_string_append_printf(s, "(long long) (%s / 32)", thread_rank_text(g->prog));
        return;
    case EN_BLOCK_ID:
        if (n->value > 0) {
            g_string_append_printf(s, "(long long) blockIdx.%c", "xyz"[n->value - 1]);
        } else {
            g_string_append_printf(s, "(long long) %s", block_rank_text(g->prog));
        }
        return;
    case EN_UNARY: {
        const char *t = op_text(n->op);
        g_string_append_printf(s, "(%s", t ? t : "?");
        ex(g, s, n->a);
        g_string_append(s, ")");
        return;
    }
    case EN_BINARY: {
        const char *t = op_text(n->op);
        if (t == NULL) {
            gen_fail(g, n->loc, "internal error: operator %d", n->op);
            return;
        }
        if (n->a->type.kind == TY_PTR && n->b->type.kind == TY_PTR && n->op == '-') {
            /* The simulator subtracts byte addresses (and divides by the
             * element size afterwards). */
            g_string_append(s, "((long long) (reinterpret_cast<const char *>(");
            ex_ptr(g, s, n->a);
            g_string_append(s, ") - reinterpret_cast<const char *>(");
            ex_ptr(g, s, n->b);
            g_string_append(s, ")))");
            return;
        }
        g_string_append(s, "(");
        ex(g, s, n->a);
        g_string_append_printf(s, " %s ", t);
        ex(g, s, n->b);
        g_string_append(s, ")");
        return;
    }
    case EN_TERNARY:
        g_string_append(s, "(");
        ex(g, s, n->a);
        g_string_append(s, " ? ");
        ex(g, s, n->b);
        g_string_append(s, " : ");
        ex(g, s, n->c);
        g_string_append(s, ")");
        return;
    }
    gen_fail(g, n->loc, "internal error: expression kind %d", n->kind);
}

static char *ex_str(Gen *g, const ExprNode *n)
{
    GString *s = g_string_new(NULL);
    ex(g, s, n);
    return g_string_free(s, FALSE);
}

static char *ptr_str(Gen *g, const ExprNode *n)
{
    GString *s = g_string_new(NULL);
    ex_ptr(g, s, n);
    return g_string_free(s, FALSE);
}

/* ----------------------------------------------------------- statements */

static bool var_ctype(Gen *g, int var, GString *out)
{
    const ProgVar *v = &g_array_index(g->prog->vars, ProgVar, var);
    switch (v->type.kind) {
    case TY_INT:
        g_string_append(out, "long long");
        return true;
    case TY_PTR:
        g_string_append_printf(out, "%s *",
                               g_array_index(g->prog->buffers, ProgBuffer, v->type.buffer).elem.name);
        return true;
    case TY_DATA:
        g_string_append(out, v->type.elem.name);
        return true;
    case TY_ROLE:
        g_string_append(out, "cuda::pipeline_role");
        return true;
    case TY_TOKEN:
        g_string_append(out, "smp_barrier::arrival_token");
        return true;
    default:
        return gen_fail(g, v->loc, "the CUDA backend cannot hold %s in a variable ('%s')",
                        v->type.kind == TY_PIPE ? "a pipeline" : "this kind of value", v->name);
    }
}

/* "TYPE name = " for the first assignment of a variable, "name = " after. */
static char *lhs(Gen *g, int var)
{
    GString *s = g_string_new(NULL);
    if (!g->declared[var]) {
        if (!g->named[var] && !g->read[var]) {
            /* var x = ... that nothing reads: nvcc -Werror all-warnings
             * refuses an unused variable. */
            g_string_append(s, "[[maybe_unused]] ");
        }
        var_ctype(g, var, s);
        if (s->len > 0 && s->str[s->len - 1] != '*') {
            g_string_append_c(s, ' ');
        }
        g->declared[var] = true;
    }
    g_string_append_printf(s, "%s = ", g->var_name[var]);
    return g_string_free(s, FALSE);
}

static const char *group_name(int32_t group)
{
    switch (group) {
    case GROUP_BLOCK: return "block";
    case GROUP_WARP: return "warp";
    case GROUP_THREAD: return "cg::this_thread()";
    case GROUP_TILE2: return "tile2";
    case GROUP_TILE4: return "tile4";
    case GROUP_TILE8: return "tile8";
    case GROUP_TILE16: return "tile16";
    case GROUP_GRID: break;
    }
    return "block";
}

static bool is_tx_op(OpCode code)
{
    return code == OP_MEMCPY_TX || code == OP_BAR_ARRIVE_TX || code == OP_BAR_EXPECT_TX;
}

/* The instruction classes compute(CLASS, n, k) can run as real
 * instructions: the PTX of one instruction on the accumulator %0. */
typedef struct {
    const char *name;
    const char *type;     /* accumulator type */
    const char *init;     /* start value of chain c */
    const char *asm_text; /* one instruction */
    const char *cons;     /* asm constraint of the accumulator */
    const char *fold;     /* the accumulator as 32 bits */
} ClassDef;

static const ClassDef class_defs[] = {
    { "imad", "unsigned", "sink + (unsigned) c", "mad.lo.u32 %0, %0, 1664525, 1013904223;", "+r", "acc[c]" },
    { "iadd", "unsigned", "sink + (unsigned) c", "add.u32 %0, %0, 1013904223;", "+r", "acc[c]" },
    { "lop", "unsigned", "sink + (unsigned) c", "xor.b32 %0, %0, 1013904223;", "+r", "acc[c]" },
    { "ffma", "float", "(float) (sink & 255u) + (float) c", "fma.rn.f32 %0, %0, 0f3F7FBE77, 0f3F000000;", "+f",
      "__float_as_uint(acc[c])" },
    { "fadd", "float", "(float) (sink & 255u) + (float) c", "add.f32 %0, %0, 0f3F000000;", "+f",
      "__float_as_uint(acc[c])" },
    { "fmul", "float", "(float) (sink & 255u) + (float) c", "mul.f32 %0, %0, 0f3F7FBE77;", "+f",
      "__float_as_uint(acc[c])" },
    { "mufu", "float", "(float) (sink & 255u) + (float) c + 1.0f", "rsqrt.approx.ftz.f32 %0, %0;", "+f",
      "__float_as_uint(acc[c])" },
    { "dfma", "double", "(double) (sink & 255u) + (double) c", "fma.rn.f64 %0, %0, 0d3FEFF7CED916872B, 0d3FE0000000000000;",
      "+d", "(unsigned) __double_as_longlong(acc[c])" },
    { "hmma", NULL, NULL, NULL, NULL, NULL },
};

static const ClassDef *class_def(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(class_defs); i++) {
        if (strcmp(class_defs[i].name, name) == 0) {
            return &class_defs[i];
        }
    }
    return NULL;
}

static void emit_range(Gen *g, int from, int to);

static void emit_memcpy(Gen *g, const Op *op)
{
    g_autofree char *dst_t = ptr_str(g, op->e[0]);
    g_autofree char *src_t = ptr_str(g, op->e[1]);
    /* (void *) p in the trace: the void* overloads. */
    g_autofree char *dst = op->untyped ? g_strdup_printf("(void *) (%s)", dst_t) : g_strdup(dst_t);
    g_autofree char *src = op->untyped ? g_strdup_printf("(const void *) (%s)", src_t) : g_strdup(src_t);
    g_autofree char *n = ex_str(g, op->e[2]);
    const ElemType *elem = &op->e[0]->type.elem;
    /* SPEC memcpy-1: the alignment is max(alignof(T), N); aligned_size_t<N>
     * is written with that maximum, which libcudacxx treats the same. */
    bool aligned = op->value > (int64_t) elem->align || copy_uses_aligned_size(g, op->loc);
    g_autofree char *size = aligned && op->aux != SYNC_NONE
                                ? g_strdup_printf("cuda::aligned_size_t<%" G_GINT64_FORMAT ">((size_t) %s)", op->value, n)
                                : g_strdup_printf("(size_t) %s", n);
    if (op->code == OP_MEMCPY_TX) {
        line(g, "cuda::device::memcpy_async_tx(%s, %s, cuda::aligned_size_t<%" G_GINT64_FORMAT ">((size_t) %s), %s);",
             dst, src, MAX(op->value, (int64_t) 16), n, g->bar_name[op->obj]);
        return;
    }
    if (op->aux == SYNC_NONE) {
        line(g, "cg::memcpy_async(%s, %s, %s, %s);", group_name(op->sub), dst, src, size);
        return;
    }
    const char *sync = op->aux == SYNC_PIPE ? pipe_name(g, op->obj) : g->bar_name[op->obj];
    if (op->sub == GROUP_THREAD) {
        line(g, "cuda::memcpy_async(%s, %s, %s, %s);", dst, src, size, sync);
    } else {
        line(g, "cuda::memcpy_async(%s, %s, %s, %s, %s);", group_name(op->sub), dst, src, size, sync);
    }
}

/* Folds a compute statement's result into the thread's sink.  A result the
 * trace overwrites before reading (gemm_tiles' a = compute(a, n) in a loop
 * that reloads a) is dead code to the compiler, and ptxas deletes the chain
 * whenever it unrolls the loop, inline asm or not: the GPU would then time a
 * program with less work than the trace describes.  One XOR a word. */
static void keep_result(Gen *g, int32_t var)
{
    line(g, "smp_keep(smp_sink, %s);", g->var_name[var]);
}

static void emit_compute(Gen *g, const Op *op)
{
    g_autofree char *count = NULL;
    if (op->sub == COMPUTE_OPERANDS) {
        /* compute(CLASS, n, x [, y [, z]]): the Program counts n per chain. */
        const char *cls = g_ptr_array_index(g->prog->classes, op->value);
        int64_t chains = op->e[1]->value;
        count = ex_str(g, op->e[0]);
        g_autofree char *call = g_strdup_printf("smp_op_%s<%" G_GINT64_FORMAT ">(%s, %s, %s, %s)", cls, chains, count,
                                                g->var_name[op->obj], op->in[0] >= 0 ? g->var_name[op->in[0]] : "0u",
                                                op->in[1] >= 0 ? g->var_name[op->in[1]] : "0u");
        if (op->var >= 0 && g->read[op->var]) {
            g_autofree char *l = lhs(g, op->var);
            line(g, "%s%s;", l, call);
            keep_result(g, op->var);
        } else {
            line(g, "smp_keep(smp_sink, %s);", call);
        }
        return;
    }
    if (op->obj >= 0) {
        /* compute(x, n): the Program counts n instructions per 32-bit word. */
        const ProgVar *v = &g_array_index(g->prog->vars, ProgVar, op->obj);
        int64_t words = MAX(1, (int64_t) v->type.elem.size / 4);
        const ExprNode *e = op->e[0];
        if (e->kind == EN_CONST) {
            count = g_strdup_printf("%" G_GINT64_FORMAT, e->value / words);
        } else if (e->kind == EN_BINARY && e->op == '*' && e->b->kind == EN_CONST && e->b->value == words) {
            count = ex_str(g, e->a);
        } else {
            g_autofree char *all = ex_str(g, e);
            count = g_strdup_printf("%s / %" G_GINT64_FORMAT, all, words);
        }
        if (op->var >= 0 && g->read[op->var]) {
            g_autofree char *l = lhs(g, op->var);
            line(g, "%ssmp_compute(%s, %s);", l, g->var_name[op->obj], count);
            keep_result(g, op->var);
        } else {
            line(g, "smp_keep(smp_sink, smp_compute(%s, %s));", g->var_name[op->obj], count);
        }
        return;
    }
    const char *cls = g_ptr_array_index(g->prog->classes, op->value);
    int64_t chains = op->e[1]->kind == EN_CONST ? CLAMP(op->e[1]->value, 1, CUDA_GEN_MAX_CHAINS) : 1;
    count = ex_str(g, op->e[0]);
    line(g, "smp_class_%s<%" G_GINT64_FORMAT ">(smp_sink, %s);", cls, chains, count);
}

static void emit_op(Gen *g, const Op *op, int index)
{
    g_autofree char *l = NULL;
    g_autofree char *a = NULL;
    g_autofree char *b = NULL;
    switch ((OpCode) op->code) {
    case OP_NOP:
    case OP_EXIT:
        return;
    case OP_ASSIGN:
        l = lhs(g, op->var);
        a = ex_str(g, op->e[0]);
        line(g, "%s%s;", l, a);
        return;
    case OP_RETURN:
        line(g, "return;");
        return;
    case OP_ASSERT:
        if (op->sub == ASSERT_EXPECT) {
            a = ptr_str(g, op->e[0]);
            b = ex_str(g, op->e[1]);
            line(g, "smp_expect(%s, (long long) (%s), smp_fail, %u);", a, b, op->loc.line);
            return;
        }
        a = ex_str(g, op->e[0]);
        line(g, "if (!%s) {", a);
        line(g, "    smp_assert_failed(smp_fail, %u);", op->loc.line);
        line(g, "}");
        return;
    case OP_MAKE_PIPE_THREAD:
        line(g, "cuda::pipeline<cuda::thread_scope_thread> %s = cuda::make_pipeline();", pipe_name(g, index));
        return;
    case OP_MAKE_PIPE_BLOCK:
        if (op->sub == PIPE_MODE_UNIFIED) {
            line(g, "cuda::pipeline<cuda::thread_scope_block> %s = cuda::make_pipeline(block, &%s);",
                 pipe_name(g, index), g->ps_name[op->obj]);
        } else {
            a = ex_str(g, op->e[0]);
            line(g, "cuda::pipeline<cuda::thread_scope_block> %s = cuda::make_pipeline(block, &%s, %s%s);",
                 pipe_name(g, index), g->ps_name[op->obj], op->sub == PIPE_MODE_PRODUCER_COUNT ? "(size_t) " : "", a);
        }
        return;
    case OP_PIPE_ACQUIRE:
        line(g, "%s.producer_acquire();", pipe_name(g, op->obj));
        return;
    case OP_PIPE_COMMIT:
        line(g, "%s.producer_commit();", pipe_name(g, op->obj));
        return;
    case OP_PIPE_WAIT:
        line(g, "%s.consumer_wait();", pipe_name(g, op->obj));
        return;
    case OP_PIPE_RELEASE:
        line(g, "%s.consumer_release();", pipe_name(g, op->obj));
        return;
    case OP_PIPE_WAIT_FOR:
        /* The simulator's time-out is in cycles; libcudacxx takes a
         * duration.  consumer_wait_until's time point is a cycle of the
         * run: the same duration after the block's start (smp_tp0). */
        a = ex_str(g, op->e[1]);
        l = op->var >= 0 ? lhs(g, op->var) : g_strdup("(void) ");
        if (op->sub == 1) {
            line(g, "%s%s.consumer_wait_until(smp_tp0 + cuda::std::chrono::nanoseconds((long long) ((double) %s *"
                 " 1000.0 / %.1f)));", l, pipe_name(g, op->obj), a, g->arch->clock_mhz);
        } else {
            line(g, "%s%s.consumer_wait_for(cuda::std::chrono::nanoseconds((long long) ((double) %s * 1000.0 / %.1f)));",
                 l, pipe_name(g, op->obj), a, g->arch->clock_mhz);
        }
        return;
    case OP_PIPE_QUIT:
        if (op->sub == 1) {
            /* The block's closing brace, just below, runs the destructor. */
            line(g, "// ~pipeline() of %s at the end of its block", pipe_name(g, op->obj));
            return;
        }
        l = op->var >= 0 ? lhs(g, op->var) : g_strdup("(void) ");
        line(g, "%s%s.quit();", l, pipe_name(g, op->obj));
        return;
    case OP_PIPE_WAIT_PRIOR:
        line(g, "cuda::pipeline_consumer_wait_prior<%" G_GINT64_FORMAT ">(%s);", op->value, pipe_name(g, op->obj));
        return;
    case OP_PIPE_COMMIT_BAR:
        line(g, "cuda::pipeline_producer_commit(%s, %s);", pipe_name(g, op->obj), g->bar_name[op->value]);
        return;
    case OP_MEMCPY:
    case OP_MEMCPY_TX:
        emit_memcpy(g, op);
        return;
    case OP_BAR_INIT:
        a = ex_str(g, op->e[0]);
        line(g, "init(&%s, %s);", g->bar_name[op->obj], a);
        return;
    case OP_BAR_ARRIVE:
        a = ex_str(g, op->e[0]);
        l = op->var >= 0 ? lhs(g, op->var) : g_strdup("(void) ");
        line(g, "%s%s.arrive(%s);", l, g->bar_name[op->obj], a);
        return;
    case OP_BAR_ARRIVE_TX:
        a = ex_str(g, op->e[0]);
        b = ex_str(g, op->e[1]);
        l = op->var >= 0 ? lhs(g, op->var) : g_strdup("(void) ");
        line(g, "%scuda::device::barrier_arrive_tx(%s, %s, %s);", l, g->bar_name[op->obj], a, b);
        return;
    case OP_BAR_EXPECT_TX:
        a = ex_str(g, op->e[0]);
        line(g, "cuda::device::barrier_expect_tx(%s, %s);", g->bar_name[op->obj], a);
        return;
    case OP_BAR_WAIT:
        a = ex_str(g, op->e[0]);
        line(g, "%s.wait(cuda::std::move(%s));", g->bar_name[op->obj], a);
        return;
    case OP_BAR_WAIT_PARITY:
        a = ex_str(g, op->e[0]);
        line(g, "%s.wait_parity(%s != 0);", g->bar_name[op->obj], a);
        return;
    case OP_BAR_ARRIVE_WAIT:
        line(g, "%s.arrive_and_wait();", g->bar_name[op->obj]);
        return;
    case OP_BAR_ARRIVE_DROP:
        line(g, "%s.arrive_and_drop();", g->bar_name[op->obj]);
        return;
    case OP_SYNCTHREADS:
        line(g, "__syncthreads();");
        return;
    case OP_SYNCWARP:
        if (op->value > 0) {
            /* tiled_partition<value>'s sync */
            line(g, "tile%" G_GINT64_FORMAT ".sync();", op->value);
        } else {
            line(g, "__syncwarp();");
        }
        return;
    case OP_CG_WAIT:
        if (op->value > 0) {
            line(g, "cg::wait_prior<%" G_GINT64_FORMAT ">(%s);", op->value, group_name(op->sub));
        } else {
            line(g, "cg::wait(%s);", group_name(op->sub));
        }
        return;
    case OP_COMPUTE:
        emit_compute(g, op);
        return;
    case OP_LOAD:
        a = ptr_str(g, op->e[0]);
        if (op->var >= 0 && g->read[op->var]) {
            l = lhs(g, op->var);
            line(g, "%s*%s;", l, a);
        } else {
            line(g, "smp_keep(smp_sink, *%s);", a);
        }
        return;
    case OP_STORE:
        a = ptr_str(g, op->e[0]);
        if (op->sub == STORE_VALUE) {
            b = ex_str(g, op->e[1]);
            line(g, "*%s = smp_element<%s>((long long) (%s));", a, op->e[0]->type.elem.name, b);
            return;
        }
        if (op->sub == STORE_FILL) {
            b = ex_str(g, op->e[1]);
            l = ex_str(g, op->e[2]);
            line(g, "smp_fill(%s, (long long) (%s), (long long) (%s));", a, b, l);
            return;
        }
        line(g, "*%s = %s;", a, g->var_name[op->obj]);
        return;
    default:
        gen_fail(g, op->loc, "the CUDA backend cannot express %s", op_code_name((OpCode) op->code));
        return;
    }
}

/* Writes ops [from, to) as structured C++. */
static void emit_range(Gen *g, int from, int to)
{
    const GArray *ops = g->prog->ops;
    int i = from;
    while (i < to && g->ok) {
        const Op *op = &g_array_index(ops, Op, i);
        src_comment(g, op->loc);
        if (op->code == OP_BRANCH) {
            int t = op->target, j = op->join;
            const Op *jump = t - 1 > i ? &g_array_index(ops, Op, t - 1) : NULL;
            bool has_else = t < j;
            if (t <= i || j < t || j >= to || (has_else && (jump == NULL || jump->code != OP_JUMP || jump->target != j))) {
                gen_fail(g, op->loc, "internal error: an 'if' the CUDA backend cannot rebuild");
                return;
            }
            g_autofree char *cond = ex_str(g, op->e[0]);
            line(g, "if (%s) {", cond);
            g->depth++;
            emit_range(g, i + 1, has_else ? t - 1 : t);
            g->depth--;
            if (has_else) {
                line(g, "} else {");
                g->depth++;
                emit_range(g, t, j);
                g->depth--;
            }
            line(g, "}");
            i = j + 1;
            continue;
        }
        if (op->code == OP_LOOP_ENTER) {
            int exit = op->join, head = i + 1;
            const Op *h = head < to ? &g_array_index(ops, Op, head) : NULL;
            const Op *back = exit - 1 > head ? &g_array_index(ops, Op, exit - 1) : NULL;
            if (h == NULL || h->code != OP_LOOP || exit >= to || back == NULL || back->code != OP_JUMP ||
                back->target != head) {
                gen_fail(g, op->loc, "internal error: a loop the CUDA backend cannot rebuild");
                return;
            }
            g_autofree char *cond = ex_str(g, h->e[0]);
            line(g, "while (%s) {", cond);
            g->depth++;
            emit_range(g, head + 1, exit - 1);
            g->depth--;
            line(g, "}");
            i = exit + 1;
            continue;
        }
        if (op->code == OP_JUMP || op->code == OP_LOOP) {
            gen_fail(g, op->loc, "internal error: a jump outside a loop or branch");
            return;
        }
        emit_op(g, op, i);
        i++;
    }
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
                if (class_def(cls) == NULL) {
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
            if (is_tx_op((OpCode) op->code) && arch->sm_version < 90) {
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

/* The wrapper of compute(CLASS, n, x [, y [, z]]): the chains start from
 * the operands folded together, so they wait for every operand; the value
 * is smp_mix's (the functional model's), tied to the end of the chains. */
static void emit_operand_helper(GString *o, const char *cls)
{
    g_string_append_printf(o, "\n/* compute(%s, n, x [, y [, z]]): n %s instructions over K chains that wait for"
                           " every operand;\n * the value is smp_mix's. */\n"
                           "template <int K, class T, class U, class V>\n"
                           "__device__ __forceinline__ T smp_op_%s(long long n, T x, const U &y, const V &z)\n{\n"
                           "    unsigned dep = 0u;\n"
                           "    smp_keep(dep, x);\n    smp_keep(dep, y);\n    smp_keep(dep, z);\n"
                           "    smp_class_%s<K>(dep, n);\n"
                           "    return smp_mix(dep, x, y, z);\n}\n", cls, cls, cls, cls);
}

static void emit_class_helpers(GString *o, const int *used)
{
    for (size_t i = 0; i < G_N_ELEMENTS(class_defs); i++) {
        const ClassDef *d = &class_defs[i];
        if (!used[i]) {
            continue;
        }
        g_string_append_printf(o, "\n/* compute(%s, n, K): n %s instructions round robin over K independent chains. */\n"
                               "template <int K>\n__device__ __forceinline__ void smp_class_%s(unsigned &sink, long long n)\n{\n",
                               d->name, d->name, d->name);
        if (d->type == NULL) {
            /* hmma: one warp-wide m16n8k16 f16 MMA with f32 accumulators per
             * instruction; the warp must be converged. */
            g_string_append(o,
                "    float acc[K][4];\n"
                "    const unsigned a = 0x3c003c00u | (sink & 1u);\n"
                "#pragma unroll\n"
                "    for (int c = 0; c < K; ++c) {\n"
                "        acc[c][0] = acc[c][1] = acc[c][2] = acc[c][3] = (float) c;\n"
                "    }\n"
                "    long long i = 0;\n"
                "#define SMP_HMMA(c) asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, \" \\\n"
                "                                 \"{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\" \\\n"
                "                                 : \"+f\"(acc[c][0]), \"+f\"(acc[c][1]), \"+f\"(acc[c][2]), \"+f\"(acc[c][3]) \\\n"
                "                                 : \"r\"(a), \"r\"(a), \"r\"(a), \"r\"(a), \"r\"(a), \"r\"(a))\n"
                "    for (; i + K <= n; i += K) {\n"
                "#pragma unroll\n"
                "        for (int c = 0; c < K; ++c) {\n"
                "            SMP_HMMA(c);\n"
                "        }\n"
                "    }\n"
                "#pragma unroll\n"
                "    for (int c = 0; c < K; ++c) {\n"
                "        if (i + c < n) {\n"
                "            SMP_HMMA(c);\n"
                "        }\n"
                "    }\n"
                "#undef SMP_HMMA\n"
                "#pragma unroll\n"
                "    for (int c = 0; c < K; ++c) {\n"
                "        sink ^= __float_as_uint(acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3]);\n"
                "    }\n}\n");
        } else {
            g_string_append_printf(o, "    %s acc[K];\n#pragma unroll\n    for (int c = 0; c < K; ++c) {\n"
                                   "        acc[c] = %s;\n    }\n    long long i = 0;\n"
                                   "    for (; i + K <= n; i += K) {\n#pragma unroll\n        for (int c = 0; c < K; ++c) {\n"
                                   "            asm volatile(\"%s\" : \"%s\"(acc[c]));\n        }\n    }\n"
                                   "#pragma unroll\n    for (int c = 0; c < K; ++c) {\n        if (i + c < n) {\n"
                                   "            asm volatile(\"%s\" : \"%s\"(acc[c]));\n        }\n    }\n"
                                   "#pragma unroll\n    for (int c = 0; c < K; ++c) {\n        sink ^= %s;\n    }\n}\n",
                                   d->type, d->init, d->asm_text, d->cons, d->asm_text, d->cons, d->fold);
        }
        if (used[i] & CLASS_USED_OPERANDS) {
            emit_operand_helper(o, d->name);
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
        g->buf_name[i] = unique_name(g->used, g_array_index(p->buffers, ProgBuffer, i).name);
    }
    g->ps_name = g_new0(char *, p->pstates->len + 1);
    for (guint i = 0; i < p->pstates->len; i++) {
        g->ps_name[i] = unique_name(g->used, g_array_index(p->pstates, ProgPState, i).name);
    }
    g->bar_name = g_new0(char *, p->barriers->len + 1);
    for (guint i = 0; i < p->barriers->len; i++) {
        g->bar_name[i] = unique_name(g->used, g_array_index(p->barriers, ProgBarrier, i).name);
    }
    g->var_name = g_new0(char *, p->vars->len + 1);
    g->declared = g_new0(bool, p->vars->len + 1);
    g->slot_var = g_new(int32_t, MAX(p->value_slots, 1));
    for (int32_t s = 0; s < MAX(p->value_slots, 1); s++) {
        g->slot_var[s] = -1;
    }
    for (guint i = 0; i < p->vars->len; i++) {
        const ProgVar *v = &g_array_index(p->vars, ProgVar, i);
        g->var_name[i] = unique_name(g->used, v->name);
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
            const char *n = find_var_name(g->trace->body, op->loc);
            g_hash_table_insert(g->pipe_name, GINT_TO_POINTER(i), unique_name(g->used, n != NULL ? n : "pipe"));
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
        if (is_tx_op((OpCode) g_array_index(prog->ops, Op, i).code)) {
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
    line(g, "const unsigned long long smp_t0 = smp_clock();");
    if (uses_wait_until(p)) {
        /* Cycle 0 of the simulation, for consumer_wait_until. */
        line(g, "const auto smp_tp0 = cuda::std::chrono::system_clock::now();");
    }
    line(g, "extern __shared__ __align__(128) unsigned char smp_smem[];");
    line(g, "unsigned smp_sink = 0;");
    if (block_is_multi_dim(p)) {
        line(g, "const unsigned smp_rank = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);");
    }
    if (grid_is_multi_dim(p)) {
        line(g, "const unsigned smp_block_rank = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);");
    }
    line(g, "[&]() {");
    g->depth = 2;
    if (tx) {
        g_string_append(o, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900\n");
        line(g, "__trap(); /* memcpy_async_tx and barrier_*_tx need sm_90 */");
        g_string_append(o, "#else\n");
    }
    line(g, "[[maybe_unused]] auto block = cg::this_thread_block();");
    static const GroupKind tiles[] = { GROUP_TILE2, GROUP_TILE4, GROUP_TILE8, GROUP_TILE16, GROUP_WARP };
    for (guint i = 0; i < G_N_ELEMENTS(tiles); i++) {
        if (uses_group(p, tiles[i])) {
            line(g, "[[maybe_unused]] auto %s = cg::tiled_partition<%" G_GINT64_FORMAT ">(block);",
                 group_name(tiles[i]), program_group_lanes(tiles[i]));
        }
    }
    line(g, "// Shared memory: the simulator's layout, in one dynamic buffer.");
    for (guint i = 0; i < p->buffers->len; i++) {
        const ProgBuffer *b = &g_array_index(p->buffers, ProgBuffer, i);
        if (b->space == SPACE_SHARED) {
            line(g, "[[maybe_unused]] %s *const %s = reinterpret_cast<%s *>(smp_smem + %" G_GINT64_FORMAT "); // %s[%"
                 G_GINT64_FORMAT "]", b->elem.name, g->buf_name[i], b->elem.name, b->base, b->name, b->count);
        }
    }
    for (guint i = 0; i < p->pstates->len; i++) {
        const ProgPState *s = &g_array_index(p->pstates, ProgPState, i);
        line(g, "[[maybe_unused]] auto &%s = *reinterpret_cast<cuda::pipeline_shared_state<cuda::thread_scope_block, %"
             G_GINT64_FORMAT "> *>(smp_smem + %" G_GINT64_FORMAT ");", g->ps_name[i], s->stages, s->smem_offset);
    }
    for (guint i = 0; i < p->barriers->len; i++) {
        const ProgBarrier *b = &g_array_index(p->barriers, ProgBarrier, i);
        line(g, "[[maybe_unused]] smp_barrier &%s = *reinterpret_cast<smp_barrier *>(smp_smem + %" G_GINT64_FORMAT ");",
             g->bar_name[i], b->smem_offset);
    }
    line(g, "// The trace.");
    emit_range(g, 0, (int) p->ops->len);
    if (tx) {
        g_string_append(o, "#endif\n");
    }
    g->depth = 1;
    line(g, "}();");
    line(g, "const unsigned long long smp_t1 = smp_clock();");
    line(g, "const unsigned smp_gtid = %s * %s + %s;", block_rank_text(p),
         block_is_multi_dim(p) ? "(blockDim.x * blockDim.y * blockDim.z)" : "blockDim.x", thread_rank_text(p));
    line(g, "smp_times[2 * smp_gtid] = smp_t0;");
    line(g, "smp_times[2 * smp_gtid + 1] = smp_t1;");
    line(g, "smp_sinks[smp_gtid] = smp_sink;");
    line(g, "if (%s == 0) {", thread_rank_text(p));
    line(g, "    smp_smids[%s] = smp_smid();", block_rank_text(p));
    line(g, "}");
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
    if (block_is_multi_dim(p) || grid_is_multi_dim(p)) {
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
                const ClassDef *d = class_def(g_ptr_array_index(p->classes, op->value));
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
