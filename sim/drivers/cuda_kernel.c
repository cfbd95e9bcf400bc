/* cuda_kernel.c: the CUDA backend's kernel bodies (see cuda_gen_internal.h):
 * C++ names for the trace's objects, expressions from the compiled
 * ExprNode trees, and the Program's operations as structured C++ (an
 * OP_BRANCH with its join an if/else, an OP_LOOP_ENTER..OP_JUMP range a
 * while loop).  cuda_gen.c's opening comment says how a point is laid out. */
#include "sim/drivers/cuda_gen_internal.h"

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
char *gen_unique_name(GHashTable *used, const char *name)
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
bool gen_block_is_multi_dim(const Program *p)
{
    return p->block_dim[1] > 1 || p->block_dim[2] > 1;
}

bool gen_grid_is_multi_dim(const Program *p)
{
    return p->grid_dim[1] > 1 || p->grid_dim[2] > 1;
}

/* The thread's rank in its block (the block's rank in the grid) as the
 * kernel spells it: threadIdx.x in a one-dimensional block, else smp_rank,
 * which the kernel computes in CUDA's order (x fastest). */
const char *gen_thread_rank_text(const Program *p)
{
    return gen_block_is_multi_dim(p) ? "smp_rank" : "threadIdx.x";
}

const char *gen_block_rank_text(const Program *p)
{
    return gen_grid_is_multi_dim(p) ? "smp_block_rank" : "blockIdx.x";
}

void gen_line(Gen *g, const char *fmt, ...)
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
    gen_line(g, "// %u: %s", loc.line, t);
}

/* Walks the syntax tree for `var NAME = <call at loc>`. */
static const char *find_var_name_in(const Stmt *s, SrcLoc loc)
{
    if (s == NULL) {
        return NULL;
    }
    if (s->kind == ST_VAR && s->a != NULL && s->a->loc.line == loc.line && s->a->loc.col == loc.col) {
        return s->name;
    }
    const char *n = gen_find_var_name(s->body, loc);
    if (n == NULL) {
        n = gen_find_var_name(s->orelse, loc);
    }
    return n != NULL ? n : find_var_name_in(s->init, loc);
}

const char *gen_find_var_name(GPtrArray *stmts, SrcLoc loc)
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

const char *gen_pipe_name(Gen *g, int32_t make_op)
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
            g_string_append_printf(s, "(long long) %s", gen_thread_rank_text(g->prog));
        }
        return;
    case EN_LANE:
        g_string_append_printf(s, "(long long) (%s %% 32)", gen_thread_rank_text(g->prog));
        return;
    case EN_WARP:
        g_string_append_printf(s, "(long long) (%s / 32)", gen_thread_rank_text(g->prog));
        return;
    case EN_BLOCK_ID:
        if (n->value > 0) {
            g_string_append_printf(s, "(long long) blockIdx.%c", "xyz"[n->value - 1]);
        } else {
            g_string_append_printf(s, "(long long) %s", gen_block_rank_text(g->prog));
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

const char *gen_group_name(int32_t group)
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

bool gen_is_tx_op(OpCode code)
{
    return code == OP_MEMCPY_TX || code == OP_BAR_ARRIVE_TX || code == OP_BAR_EXPECT_TX;
}

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
        gen_line(g, "cuda::device::memcpy_async_tx(%s, %s, cuda::aligned_size_t<%" G_GINT64_FORMAT ">((size_t) %s), %s);",
             dst, src, MAX(op->value, (int64_t) 16), n, g->bar_name[op->obj]);
        return;
    }
    if (op->aux == SYNC_NONE) {
        gen_line(g, "cg::memcpy_async(%s, %s, %s, %s);", gen_group_name(op->sub), dst, src, size);
        return;
    }
    const char *sync = op->aux == SYNC_PIPE ? gen_pipe_name(g, op->obj) : g->bar_name[op->obj];
    if (op->sub == GROUP_THREAD) {
        gen_line(g, "cuda::memcpy_async(%s, %s, %s, %s);", dst, src, size, sync);
    } else {
        gen_line(g, "cuda::memcpy_async(%s, %s, %s, %s, %s);", gen_group_name(op->sub), dst, src, size, sync);
    }
}

/* Folds a compute statement's result into the thread's sink.  A result the
 * trace overwrites before reading (gemm_tiles' a = compute(a, n) in a loop
 * that reloads a) is dead code to the compiler, and ptxas deletes the chain
 * whenever it unrolls the loop, inline asm or not: the GPU would then time a
 * program with less work than the trace describes.  One XOR a word. */
static void keep_result(Gen *g, int32_t var)
{
    gen_line(g, "smp_keep(smp_sink, %s);", g->var_name[var]);
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
            gen_line(g, "%s%s;", l, call);
            keep_result(g, op->var);
        } else {
            gen_line(g, "smp_keep(smp_sink, %s);", call);
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
            gen_line(g, "%ssmp_compute(%s, %s);", l, g->var_name[op->obj], count);
            keep_result(g, op->var);
        } else {
            gen_line(g, "smp_keep(smp_sink, smp_compute(%s, %s));", g->var_name[op->obj], count);
        }
        return;
    }
    /* No operands: the chains wait for nothing the trace computes; they
     * run on the kernel's accumulators of their class and count
     * (gen_class_accumulators). */
    const char *cls = g_ptr_array_index(g->prog->classes, op->value);
    count = ex_str(g, op->e[0]);
    gen_line(g, "smp_chains_%s(smp_acc_%s_%" G_GINT64_FORMAT ", %s);", cls, cls, gen_class_chains(op), count);
}

int64_t gen_class_chains(const Op *op)
{
    return op->e[1]->kind == EN_CONST ? CLAMP(op->e[1]->value, 1, CUDA_GEN_MAX_CHAINS) : 1;
}

void gen_class_accumulators(Gen *g, bool fold)
{
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = 0; i < g->prog->ops->len; i++) {
        const Op *op = &g_array_index(g->prog->ops, Op, i);
        if (op->code != OP_COMPUTE || op->obj >= 0 || op->sub == COMPUTE_OPERANDS) {
            continue;
        }
        const char *cls = g_ptr_array_index(g->prog->classes, op->value);
        const ClassDef *d = gen_class_def(cls);
        int64_t k = gen_class_chains(op);
        char *name = g_strdup_printf("smp_acc_%s_%" G_GINT64_FORMAT, cls, k);
        if (d == NULL || g_hash_table_contains(seen, name)) {
            g_free(name);
            continue;
        }
        g_hash_table_add(seen, name);
        if (fold) {
            gen_line(g, "smp_fold_%s(%s, smp_sink);", cls, name);
            continue;
        }
        /* Started from the block's index: known only at run time, so
         * that ptxas cannot compute the chains. */
        gen_line(g, "%s %s[%" G_GINT64_FORMAT "]%s;", gen_class_acc_type(d), name, k, gen_class_acc_suffix(d));
        gen_line(g, "smp_start_%s(%s, blockIdx.x);", cls, name);
    }
}

/* Whether a load whose value nothing reads can be smp_touch_shared: an
 * element of 4, 8 or 16 bytes in shared memory (one ld.shared). */
static bool loads_shared_word(const Gen *g, const ExprNode *ptr)
{
    const ProgBuffer *b = &g_array_index(g->prog->buffers, ProgBuffer, ptr->type.buffer);
    int64_t size = ptr->type.elem.size;
    return b->space == SPACE_SHARED && (size == 4 || size == 8 || size == 16);
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
        gen_line(g, "%s%s;", l, a);
        return;
    case OP_RETURN:
        gen_line(g, "return;");
        return;
    case OP_ASSERT:
        if (op->sub == ASSERT_EXPECT) {
            a = ptr_str(g, op->e[0]);
            b = ex_str(g, op->e[1]);
            gen_line(g, "smp_expect(%s, (long long) (%s), smp_fail, %u);", a, b, op->loc.line);
            return;
        }
        a = ex_str(g, op->e[0]);
        gen_line(g, "if (!%s) {", a);
        gen_line(g, "    smp_assert_failed(smp_fail, %u);", op->loc.line);
        gen_line(g, "}");
        return;
    case OP_MAKE_PIPE_THREAD:
        gen_line(g, "cuda::pipeline<cuda::thread_scope_thread> %s = cuda::make_pipeline();", gen_pipe_name(g, index));
        return;
    case OP_MAKE_PIPE_BLOCK:
        if (op->sub == PIPE_MODE_UNIFIED) {
            gen_line(g, "cuda::pipeline<cuda::thread_scope_block> %s = cuda::make_pipeline(block, &%s);",
                 gen_pipe_name(g, index), g->ps_name[op->obj]);
        } else {
            a = ex_str(g, op->e[0]);
            gen_line(g, "cuda::pipeline<cuda::thread_scope_block> %s = cuda::make_pipeline(block, &%s, %s%s);",
                 gen_pipe_name(g, index), g->ps_name[op->obj], op->sub == PIPE_MODE_PRODUCER_COUNT ? "(size_t) " : "", a);
        }
        return;
    case OP_PIPE_ACQUIRE:
        gen_line(g, "%s.producer_acquire();", gen_pipe_name(g, op->obj));
        return;
    case OP_PIPE_COMMIT:
        gen_line(g, "%s.producer_commit();", gen_pipe_name(g, op->obj));
        return;
    case OP_PIPE_WAIT:
        gen_line(g, "%s.consumer_wait();", gen_pipe_name(g, op->obj));
        return;
    case OP_PIPE_RELEASE:
        gen_line(g, "%s.consumer_release();", gen_pipe_name(g, op->obj));
        return;
    case OP_PIPE_WAIT_FOR:
        /* The simulator's time-out is in cycles; libcudacxx takes a
         * duration.  consumer_wait_until's time point is a cycle of the
         * run: the same duration after the block's start (smp_tp0). */
        a = ex_str(g, op->e[1]);
        l = op->var >= 0 ? lhs(g, op->var) : g_strdup("(void) ");
        if (op->sub == 1) {
            gen_line(g, "%s%s.consumer_wait_until(smp_tp0 + cuda::std::chrono::nanoseconds((long long) ((double) %s *"
                 " 1000.0 / %.1f)));", l, gen_pipe_name(g, op->obj), a, g->arch->clock_mhz);
        } else {
            gen_line(g, "%s%s.consumer_wait_for(cuda::std::chrono::nanoseconds((long long) ((double) %s * 1000.0 / %.1f)));",
                 l, gen_pipe_name(g, op->obj), a, g->arch->clock_mhz);
        }
        return;
    case OP_PIPE_QUIT:
        if (op->sub == 1) {
            /* The block's closing brace, just below, runs the destructor. */
            gen_line(g, "// ~pipeline() of %s at the end of its block", gen_pipe_name(g, op->obj));
            return;
        }
        l = op->var >= 0 ? lhs(g, op->var) : g_strdup("(void) ");
        gen_line(g, "%s%s.quit();", l, gen_pipe_name(g, op->obj));
        return;
    case OP_PIPE_WAIT_PRIOR:
        gen_line(g, "cuda::pipeline_consumer_wait_prior<%" G_GINT64_FORMAT ">(%s);", op->value, gen_pipe_name(g, op->obj));
        return;
    case OP_PIPE_COMMIT_BAR:
        gen_line(g, "cuda::pipeline_producer_commit(%s, %s);", gen_pipe_name(g, op->obj), g->bar_name[op->value]);
        return;
    case OP_MEMCPY:
    case OP_MEMCPY_TX:
        emit_memcpy(g, op);
        return;
    case OP_BAR_INIT:
        a = ex_str(g, op->e[0]);
        gen_line(g, "init(&%s, %s);", g->bar_name[op->obj], a);
        return;
    case OP_BAR_ARRIVE:
        a = ex_str(g, op->e[0]);
        l = op->var >= 0 ? lhs(g, op->var) : g_strdup("(void) ");
        gen_line(g, "%s%s.arrive(%s);", l, g->bar_name[op->obj], a);
        return;
    case OP_BAR_ARRIVE_TX:
        a = ex_str(g, op->e[0]);
        b = ex_str(g, op->e[1]);
        l = op->var >= 0 ? lhs(g, op->var) : g_strdup("(void) ");
        gen_line(g, "%scuda::device::barrier_arrive_tx(%s, %s, %s);", l, g->bar_name[op->obj], a, b);
        return;
    case OP_BAR_EXPECT_TX:
        a = ex_str(g, op->e[0]);
        gen_line(g, "cuda::device::barrier_expect_tx(%s, %s);", g->bar_name[op->obj], a);
        return;
    case OP_BAR_WAIT:
        a = ex_str(g, op->e[0]);
        gen_line(g, "%s.wait(cuda::std::move(%s));", g->bar_name[op->obj], a);
        return;
    case OP_BAR_WAIT_PARITY:
        a = ex_str(g, op->e[0]);
        gen_line(g, "%s.wait_parity(%s != 0);", g->bar_name[op->obj], a);
        return;
    case OP_BAR_ARRIVE_WAIT:
        gen_line(g, "%s.arrive_and_wait();", g->bar_name[op->obj]);
        return;
    case OP_BAR_ARRIVE_DROP:
        gen_line(g, "%s.arrive_and_drop();", g->bar_name[op->obj]);
        return;
    case OP_SYNCTHREADS:
        gen_line(g, "__syncthreads();");
        return;
    case OP_SYNCWARP:
        if (op->value > 0) {
            /* tiled_partition<value>'s sync */
            gen_line(g, "tile%" G_GINT64_FORMAT ".sync();", op->value);
        } else {
            gen_line(g, "__syncwarp();");
        }
        return;
    case OP_CG_WAIT:
        if (op->value > 0) {
            gen_line(g, "cg::wait_prior<%" G_GINT64_FORMAT ">(%s);", op->value, gen_group_name(op->sub));
        } else {
            gen_line(g, "cg::wait(%s);", gen_group_name(op->sub));
        }
        return;
    case OP_COMPUTE:
        emit_compute(g, op);
        return;
    case OP_LOAD:
        a = ptr_str(g, op->e[0]);
        if (op->var >= 0 && g->read[op->var]) {
            l = lhs(g, op->var);
            gen_line(g, "%s*%s;", l, a);
        } else if (loads_shared_word(g, op->e[0])) {
            gen_line(g, "smp_touch_shared(%s);", a);
        } else {
            gen_line(g, "smp_keep(smp_sink, *%s);", a);
        }
        return;
    case OP_STORE:
        a = ptr_str(g, op->e[0]);
        if (op->sub == STORE_VALUE) {
            b = ex_str(g, op->e[1]);
            gen_line(g, "*%s = smp_element<%s>((long long) (%s));", a, op->e[0]->type.elem.name, b);
            return;
        }
        if (op->sub == STORE_FILL) {
            b = ex_str(g, op->e[1]);
            l = ex_str(g, op->e[2]);
            gen_line(g, "smp_fill(%s, (long long) (%s), (long long) (%s));", a, b, l);
            return;
        }
        gen_line(g, "*%s = %s;", a, g->var_name[op->obj]);
        return;
    default:
        gen_fail(g, op->loc, "the CUDA backend cannot express %s", op_code_name((OpCode) op->code));
        return;
    }
}

/* Writes ops [from, to) as structured C++. */
void gen_emit_range(Gen *g, int from, int to)
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
            gen_line(g, "if (%s) {", cond);
            g->depth++;
            gen_emit_range(g, i + 1, has_else ? t - 1 : t);
            g->depth--;
            if (has_else) {
                gen_line(g, "} else {");
                g->depth++;
                gen_emit_range(g, t, j);
                g->depth--;
            }
            gen_line(g, "}");
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
            gen_line(g, "while (%s) {", cond);
            g->depth++;
            gen_emit_range(g, head + 1, exit - 1);
            g->depth--;
            gen_line(g, "}");
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
