/* compile_ops.c: the trace compiler's operations (see compiler.h): emitting
 * them, and the statement forms with an effect that become them (copies,
 * barriers, pipelines, OpenCL pipes, loads, stores, compute, syncs). */
#include "sim/lang/compiler.h"

/* ----------------------------------------------------------- operations */

int comp_emit(Compiler *c, OpCode code, SrcLoc loc)
{
    if (c->prog->ops->len >= MAX_OPS) {
        comp_failf(c, loc, "the program compiles to more than %d operations", MAX_OPS);
        return -1;
    }
    if (code == OP_MAKE_PIPE_THREAD || code == OP_MAKE_PIPE_BLOCK) {
        if (++c->pipeline_sites > MAX_PIPELINE_SITES) {
            comp_failf(c, loc, "more than %d make_pipeline calls in the program", MAX_PIPELINE_SITES);
            return -1;
        }
    }
    Op op;
    memset(&op, 0, sizeof op);
    op.code = (uint16_t) code;
    op.var = -1;
    op.obj = -1;
    op.target = -1;
    op.join = -1;
    op.aux = -1;
    op.in[0] = -1;
    op.in[1] = -1;
    op.loc = loc;
    g_array_append_val(c->prog->ops, op);
    return (int) c->prog->ops->len - 1;
}

Op *comp_op_at(Compiler *c, int i)
{
    return &g_array_index(c->prog->ops, Op, i);
}

int comp_here(Compiler *c)
{
    return (int) c->prog->ops->len;
}

/* The name of the callee of a call expression, namespace stripped, or of
 * the method for member calls (with *object set). */
static const char *callee(const Expr *call, const Expr **object)
{
    *object = NULL;
    if (call->kind == EX_TEMPLATE) {
        return call->name;
    }
    if (call->a->kind == EX_MEMBER) {
        *object = call->a->a;
        return call->a->name;
    }
    if (call->a->kind == EX_NAME) {
        const char *f = parser_strip_ns(call->a->name);
        return g_str_has_prefix(f, "std::") ? f + 5 : f;
    }
    return "";
}

static Sym *object_sym(Compiler *c, const Expr *obj, SymKind kind)
{
    if (obj == NULL || obj->kind != EX_NAME) {
        return NULL;
    }
    Sym *s = comp_lookup(c, obj->name);
    return s != NULL && s->kind == kind ? s : NULL;
}

static bool nargs(Compiler *c, const Expr *call, const char *name, guint lo, guint hi)
{
    guint n = call->args ? call->args->len : 0;
    if (n < lo || n > hi) {
        if (lo == hi) {
            return comp_failf(c, call->loc, "%s takes %u argument%s, not %u", name, lo, lo == 1 ? "" : "s", n);
        }
        return comp_failf(c, call->loc, "%s takes %u to %u arguments, not %u", name, lo, hi, n);
    }
    return true;
}

static const Expr *arg(const Expr *call, guint i)
{
    return g_ptr_array_index(call->args, i);
}

static bool barrier_arg(Compiler *c, const Expr *e, int32_t *out)
{
    *out = -1;
    Sym *s = object_sym(c, e, SYM_BARRIER);
    if (s == NULL) {
        return comp_failf(c, e->loc, "expected a cuda::barrier declared with 'barrier NAME'");
    }
    *out = (int32_t) s->value;
    return true;
}

static bool pipeline_arg(Compiler *c, const Expr *e, int32_t *out)
{
    *out = -1;
    Sym *s = object_sym(c, e, SYM_PIPELINE);
    if (s == NULL) {
        return comp_failf(c, e->loc, "expected a pipeline made by make_pipeline");
    }
    *out = (int32_t) s->value;
    return true;
}

static ExprNode *int_arg(Compiler *c, const Expr *e, const char *what)
{
    ExprNode *n = comp_expr(c, e);
    if (n != NULL && !comp_want_int(c, n, what)) {
        return NULL;
    }
    return n;
}

static ExprNode *ptr_arg(Compiler *c, const Expr *e, const char *what)
{
    ExprNode *n = comp_expr(c, e);
    if (n != NULL && n->type.kind != TY_PTR) {
        comp_failf(c, e->loc, "%s must be a pointer into a shared or global buffer, not %s", what, comp_type_name(&n->type));
        return NULL;
    }
    return n;
}

/* A copy's pointer argument without its (void *) cast; sets *untyped when
 * it has one. */
static const Expr *untyped_arg(const Expr *e, bool *untyped)
{
    if (e->kind == EX_CALL && e->a->kind == EX_NAME && strcmp(e->a->name, PARSER_VOID_CAST) == 0) {
        *untyped = true;
        return g_ptr_array_index(e->args, 0);
    }
    return e;
}

/* The size argument of a copy: n, or aligned_size_t<A>(n). */
static ExprNode *size_arg(Compiler *c, const Expr *e, int64_t *align)
{
    *align = 1;
    if (e->kind == EX_TEMPLATE && strcmp(e->name, "aligned_size_t") == 0) {
        if (e->args->len != 1) {
            comp_failf(c, e->loc, "aligned_size_t<A>(n) takes one argument");
            return NULL;
        }
        if (!comp_const_value(c, e->targ, "the alignment of aligned_size_t", align)) {
            return NULL;
        }
        if (*align <= 0 || (*align & (*align - 1)) != 0) {
            comp_failf(c, e->targ->loc, "aligned_size_t's alignment must be a power of two, not %" G_GINT64_FORMAT,
                  *align);
            return NULL;
        }
        return int_arg(c, g_ptr_array_index(e->args, 0), "the size");
    }
    return int_arg(c, e, "the size");
}

/* The index of an instruction class name in Program.classes, added once. */
static int64_t class_index(Compiler *c, const char *name)
{
    for (guint i = 0; i < c->prog->classes->len; i++) {
        if (strcmp(g_ptr_array_index(c->prog->classes, i), name) == 0) {
            return i;
        }
    }
    g_ptr_array_add(c->prog->classes, g_strdup(name));
    return (int64_t) c->prog->classes->len - 1;
}

/* ------------------------------------------------------- OpenCL pipes */

static bool is_cl_pipe_call(const char *f)
{
    static const char *names[] = {
        "work_group_reserve_write_pipe", "work_group_reserve_read_pipe", "reserve_write_pipe", "reserve_read_pipe",
        "work_group_commit_write_pipe",  "work_group_commit_read_pipe",  "commit_write_pipe",  "commit_read_pipe",
        "write_pipe",                    "read_pipe",                    "work_group_barrier",
        /* not OpenCL, but named so that the error can say why */
        "work_group_write_pipe",         "work_group_read_pipe",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        if (strcmp(f, names[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* The flags of work_group_barrier: CLK_*_MEM_FENCE names joined by '|'
 * (first argument) and a memory_scope_* name (second). */
static bool cl_fence_arg(Compiler *c, const Expr *e, bool scope)
{
    if (!scope && e->kind == EX_BINARY && e->op == '|') {
        return cl_fence_arg(c, e->a, false) && cl_fence_arg(c, e->b, false);
    }
    if (e->kind == EX_NAME && (scope ? g_str_has_prefix(e->name, "memory_scope_")
                                     : g_str_has_prefix(e->name, "CLK_") && g_str_has_suffix(e->name, "_MEM_FENCE"))) {
        return true;
    }
    return comp_failf(c, e->loc, scope ? "work_group_barrier's second argument is a memory_scope_* name"
                                  : "work_group_barrier takes CLK_LOCAL_MEM_FENCE, CLK_GLOBAL_MEM_FENCE or"
                                    " CLK_IMAGE_MEM_FENCE, joined with '|'");
}

/* A reserve_id_t argument. */
static ExprNode *cl_rid_arg(Compiler *c, const Expr *e)
{
    ExprNode *n = comp_expr(c, e);
    if (n != NULL && n->type.kind != TY_RESERVE) {
        comp_failf(c, e->loc, "expected a reserve_id_t (var rid = reserve_write_pipe(p, n)), not %s", comp_type_name(&n->type));
        return NULL;
    }
    return n;
}

/* A packet pointer: into a shared or global buffer of the pipe's packet type. */
static ExprNode *cl_ptr_arg(Compiler *c, const Expr *e, const ProgPipe *pp, const char *f)
{
    ExprNode *n = ptr_arg(c, e, "the packet pointer");
    if (n != NULL && n->type.elem.size != pp->elem.size) {
        /* SPEC clpipe-packet-1: ptr points to the pipe's gentype. */
        comp_failf(c, e->loc, "%s: the pointer's element is %s (%u bytes) but pipe '%s' holds %s packets (%u bytes)"
              " (SPEC clpipe-packet-1)", f, n->type.elem.name, n->type.elem.size, pp->name, pp->elem.name,
              pp->elem.size);
        return NULL;
    }
    return n;
}

/* The OpenCL C pipe built-ins and work_group_barrier (docs/opencl-pipes.md). */
static bool compile_cl_pipe(Compiler *c, const Expr *call, const char *f, int dest, ValueType *result_type)
{
    SrcLoc loc = call->loc;
    guint n = call->args ? call->args->len : 0;
    if (strcmp(f, "work_group_barrier") == 0) {
        if (!nargs(c, call, f, 1, 2) || !cl_fence_arg(c, arg(call, 0), false) ||
            (n == 2 && !cl_fence_arg(c, arg(call, 1), true))) {
            return false;
        }
        return comp_emit(c, OP_WG_BARRIER, loc) >= 0;
    }
    bool group = g_str_has_prefix(f, "work_group_");
    const char *base = group ? f + strlen("work_group_") : f;
    uint16_t sub = (uint16_t) ((strstr(base, "write") != NULL ? CL_WRITE : 0) | (group ? CL_WORK_GROUP : 0));
    if (n < 1) {
        return comp_failf(c, loc, "%s takes a pipe first", f);
    }
    Sym *ps = object_sym(c, arg(call, 0), SYM_PIPE);
    if (ps == NULL) {
        return comp_failf(c, arg(call, 0)->loc, "%s: expected an OpenCL pipe declared with 'pipe T name[capacity]'", f);
    }
    const ProgPipe *pp = &g_array_index(c->prog->pipes, ProgPipe, ps->value);
    int k;
    if (g_str_has_prefix(base, "reserve_")) {
        if (!nargs(c, call, f, 2, 2) || (k = comp_emit(c, OP_CL_RESERVE, loc)) < 0) {
            return false;
        }
        comp_op_at(c, k)->e[0] = int_arg(c, arg(call, 1), "num_packets");
        result_type->kind = TY_RESERVE;
    } else if (g_str_has_prefix(base, "commit_")) {
        if (!nargs(c, call, f, 2, 2) || (k = comp_emit(c, OP_CL_COMMIT, loc)) < 0) {
            return false;
        }
        comp_op_at(c, k)->e[0] = cl_rid_arg(c, arg(call, 1));
    } else if (group) {
        return comp_failf(c, loc, "'%s' is not an OpenCL built-in: read_pipe and write_pipe have no work_group_ form", f);
    } else if (n == 2) {
        if ((k = comp_emit(c, OP_CL_RW, loc)) < 0) {
            return false;
        }
        comp_op_at(c, k)->e[0] = cl_ptr_arg(c, arg(call, 1), pp, f);
        result_type->kind = TY_INT;
    } else {
        if (n != 4) {
            return comp_failf(c, loc, "%s takes 2 or 4 arguments, not %u: %s(p, ptr) or %s(p, reserve_id, index, ptr)", f,
                         n, f, f);
        }
        if ((k = comp_emit(c, OP_CL_RW_RESERVED, loc)) < 0) {
            return false;
        }
        Op *op = comp_op_at(c, k);
        op->e[0] = cl_rid_arg(c, arg(call, 1));
        op->e[1] = op->e[0] ? int_arg(c, arg(call, 2), "the packet index") : NULL;
        op->e[2] = op->e[1] ? cl_ptr_arg(c, arg(call, 3), pp, f) : NULL;
        if (op->e[2] == NULL) {
            return false;
        }
        result_type->kind = TY_INT;
    }
    Op *op = comp_op_at(c, k);
    if (op->e[0] == NULL) {
        return false;
    }
    op->obj = (int32_t) ps->value;
    op->sub = sub;
    op->var = dest;
    return true;
}

/* The variable that expression e names when it is a variable holding a
 * loaded value, otherwise -1. */
static int32_t data_var_of(Compiler *c, const Expr *e)
{
    Sym *vs = e->kind == EX_NAME ? comp_lookup(c, e->name) : NULL;
    if (vs == NULL || vs->kind != SYM_VAR ||
        g_array_index(c->prog->vars, ProgVar, vs->value).type.kind != TY_DATA) {
        return -1;
    }
    return (int32_t) vs->value;
}

/* compute(CLASS, n, x [, y [, z]]): n dependent instructions of CLASS per
 * chain that start when every operand is ready.  A lane-wise class runs one
 * chain per 32-bit word of x (per 64-bit word for dfma); hmma, a warp-wide
 * MMA on the whole fragment, runs one chain.  The result has x's element
 * type (COMPUTE_OPERANDS in trace-format.md). */
static bool compile_compute_operands(Compiler *c, const Expr *call, Op *op, ExprNode *cnt, const char *cls,
                                     int dest, ValueType *result_type)
{
    SrcLoc loc = call->loc;
    int32_t in[3] = { -1, -1, -1 };
    for (guint i = 2; i < call->args->len; i++) {
        in[i - 2] = data_var_of(c, arg(call, i));
        if (in[i - 2] < 0) {
            return comp_failf(c, arg(call, i)->loc, "compute(CLASS, n, x, ...) takes loaded values as its operands"
                         " (var x = load(p))");
        }
    }
    const ProgVar *x = &g_array_index(c->prog->vars, ProgVar, in[0]);
    int64_t width = strcmp(parser_strip_ns(cls), "dfma") == 0 ? 8 : 4;
    int64_t chains = strcmp(parser_strip_ns(cls), "hmma") == 0 ? 1 : MAX(1, x->type.elem.size / width);
    op->sub = COMPUTE_OPERANDS;
    op->obj = in[0];
    op->in[0] = in[1];
    op->in[1] = in[2];
    op->var = dest;
    op->e[0] = comp_fold_binary(c, loc, '*', cnt, comp_const_node(c, loc, chains));
    op->e[1] = comp_const_node(c, loc, chains);
    result_type->kind = TY_DATA;
    result_type->elem = x->type.elem;
    return op->e[0] != NULL;
}

/* group.sync() and cooperative_groups::sync(group): __syncthreads for the
 * block, __syncwarp for the warp, the tile's lanes for tiled_partition<N>
 * (OP_SYNCWARP with value N), nothing for the thread. */
static bool group_sync(Compiler *c, GroupKind g, SrcLoc loc)
{
    if (g == GROUP_THREAD) {
        return true;
    }
    if (g == GROUP_GRID) {
        return comp_failf(c, loc, "grid.sync() is not simulated: one SM holds the block's threads only");
    }
    int k = comp_emit(c, g == GROUP_BLOCK ? OP_SYNCTHREADS : OP_SYNCWARP, loc);
    if (k >= 0 && g != GROUP_WARP && g != GROUP_BLOCK) {
        comp_op_at(c, k)->value = program_group_lanes(g);
    }
    return k >= 0;
}

/* The statement forms that have an effect.  dest is the variable receiving
 * the result (-1 when the result is dropped); *result_type is set for
 * declarations.  Returns false on error. */
bool compile_effect(Compiler *c, const Expr *call, int dest, ValueType *result_type, bool *handled)
{
    const Expr *obj;
    const char *f = callee(call, &obj);
    *handled = true;
    result_type->kind = TY_VOID;
    result_type->buffer = -1;
    SrcLoc loc = call->loc;

    /* --- pipeline methods */
    Sym *ps = object_sym(c, obj, SYM_PIPELINE);
    if (ps != NULL) {
        static const struct {
            const char *name;
            OpCode code;
            int args;
            TypeKind ret;
        } m[] = {
            { "producer_acquire", OP_PIPE_ACQUIRE, 0, TY_VOID },
            { "producer_commit", OP_PIPE_COMMIT, 0, TY_VOID },
            { "consumer_wait", OP_PIPE_WAIT, 0, TY_VOID },
            { "consumer_release", OP_PIPE_RELEASE, 0, TY_VOID },
            { "consumer_wait_for", OP_PIPE_WAIT_FOR, 1, TY_INT },
            { "consumer_wait_until", OP_PIPE_WAIT_FOR, 1, TY_INT },
            { "quit", OP_PIPE_QUIT, 0, TY_INT },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(m); i++) {
            if (strcmp(f, m[i].name) != 0) {
                continue;
            }
            if (!nargs(c, call, f, (guint) m[i].args, (guint) m[i].args)) {
                return false;
            }
            int k = comp_emit(c, m[i].code, loc);
            if (k < 0) {
                return false;
            }
            comp_op_at(c, k)->obj = (int32_t) ps->value;
            comp_op_at(c, k)->var = dest;
            if (m[i].args == 1) {
                ExprNode *d = int_arg(c, arg(call, 0), "the time-out (cycles)");
                if (d == NULL) {
                    return false;
                }
                comp_op_at(c, k)->e[1] = d;
                comp_op_at(c, k)->sub = strcmp(f, "consumer_wait_until") == 0;
            }
            result_type->kind = m[i].ret;
            return true;
        }
        return comp_failf(c, loc, "a pipeline has no method '%s' (producer_acquire, producer_commit,"
                     " consumer_wait, consumer_wait_for, consumer_wait_until, consumer_release, quit)", f);
    }

    /* --- barrier methods */
    Sym *bs = object_sym(c, obj, SYM_BARRIER);
    if (bs != NULL) {
        int k;
        if (strcmp(f, "arrive") == 0) {
            if (!nargs(c, call, "arrive", 0, 1) || (k = comp_emit(c, OP_BAR_ARRIVE, loc)) < 0) {
                return false;
            }
            comp_op_at(c, k)->e[0] = call->args->len ? int_arg(c, arg(call, 0), "the arrival count") : comp_const_node(c, loc, 1);
            if (comp_op_at(c, k)->e[0] == NULL) {
                return false;
            }
            result_type->kind = TY_TOKEN;
        } else if (strcmp(f, "wait") == 0) {
            if (!nargs(c, call, "wait", 1, 1) || (k = comp_emit(c, OP_BAR_WAIT, loc)) < 0) {
                return false;
            }
            ExprNode *t = comp_expr(c, arg(call, 0));
            if (t == NULL) {
                return false;
            }
            if (t->type.kind != TY_TOKEN) {
                return comp_failf(c, arg(call, 0)->loc, "barrier::wait takes the token returned by arrive()");
            }
            comp_op_at(c, k)->e[0] = t;
        } else if (strcmp(f, "wait_parity") == 0) {
            if (!nargs(c, call, "wait_parity", 1, 1) || (k = comp_emit(c, OP_BAR_WAIT_PARITY, loc)) < 0) {
                return false;
            }
            if ((comp_op_at(c, k)->e[0] = int_arg(c, arg(call, 0), "the parity")) == NULL) {
                return false;
            }
        } else if (strcmp(f, "arrive_and_wait") == 0) {
            if (!nargs(c, call, f, 0, 0) || (k = comp_emit(c, OP_BAR_ARRIVE_WAIT, loc)) < 0) {
                return false;
            }
        } else if (strcmp(f, "arrive_and_drop") == 0) {
            if (!nargs(c, call, f, 0, 0) || (k = comp_emit(c, OP_BAR_ARRIVE_DROP, loc)) < 0) {
                return false;
            }
        } else {
            return comp_failf(c, loc, "a barrier has no method '%s' (arrive, wait, wait_parity, arrive_and_wait,"
                         " arrive_and_drop)", f);
        }
        comp_op_at(c, k)->obj = (int32_t) bs->value;
        comp_op_at(c, k)->var = dest;
        return true;
    }

    /* --- group methods */
    GroupKind g;
    if (obj != NULL && comp_group_of(c, obj, &g)) {
        if (strcmp(f, "sync") == 0) {
            if (!nargs(c, call, "sync", 0, 0)) {
                return false;
            }
            return group_sync(c, g, loc);
        }
        *handled = false;
        return true;
    }

    /* --- functions */
    if (strcmp(f, "make_pipeline") == 0) {
        if (!nargs(c, call, "make_pipeline", 0, 3)) {
            return false;
        }
        result_type->kind = TY_PIPE;
        if (call->args->len == 0) {
            return comp_emit(c, OP_MAKE_PIPE_THREAD, loc) >= 0;
        }
        if (call->args->len == 1) {
            return comp_failf(c, loc, "make_pipeline(group, &shared_state [, producer_count | role])");
        }
        GroupKind gk;
        if (!comp_group_of(c, arg(call, 0), &gk)) {
            return comp_failf(c, arg(call, 0)->loc, "the first argument of make_pipeline must be a thread group (block)");
        }
        if (gk != GROUP_BLOCK) {
            return comp_failf(c, arg(call, 0)->loc, "only the thread block group is simulated in make_pipeline");
        }
        Sym *st = object_sym(c, arg(call, 1), SYM_PSTATE);
        if (st == NULL) {
            return comp_failf(c, arg(call, 1)->loc, "expected a pipeline_shared_state");
        }
        int k = comp_emit(c, OP_MAKE_PIPE_BLOCK, loc);
        if (k < 0) {
            return false;
        }
        comp_op_at(c, k)->obj = (int32_t) st->value;
        comp_op_at(c, k)->sub = PIPE_MODE_UNIFIED;
        if (call->args->len == 3) {
            ExprNode *third = comp_expr(c, arg(call, 2));
            if (third == NULL) {
                return false;
            }
            if (third->type.kind == TY_ROLE) {
                comp_op_at(c, k)->sub = PIPE_MODE_ROLE;
            } else if (third->type.kind == TY_INT) {
                comp_op_at(c, k)->sub = PIPE_MODE_PRODUCER_COUNT;
            } else {
                return comp_failf(c, arg(call, 2)->loc, "the third argument must be a producer count or a pipeline_role");
            }
            comp_op_at(c, k)->e[0] = third;
        }
        return true;
    }
    if (strcmp(f, "memcpy_async") == 0 || strcmp(f, "memcpy_async_tx") == 0) {
        bool tx = strcmp(f, "memcpy_async_tx") == 0;
        guint n = call->args->len;
        if (!nargs(c, call, f, 4, 5)) {
            return false;
        }
        GroupKind gk = GROUP_THREAD;
        guint first = 0;
        bool has_group = n == 5 || (n == 4 && comp_group_of(c, arg(call, 0), &gk));
        if (n == 5 && !comp_group_of(c, arg(call, 0), &gk)) {
            return comp_failf(c, arg(call, 0)->loc, "the first of five arguments must be a thread group");
        }
        if (has_group) {
            first = 1;
            if (tx) {
                return comp_failf(c, loc, "memcpy_async_tx(dst, src, size, barrier) has no group argument");
            }
        }
        if (gk == GROUP_GRID) {
            return comp_failf(c, loc, "memcpy_async over the grid is not simulated");
        }
        int k = comp_emit(c, tx ? OP_MEMCPY_TX : OP_MEMCPY, loc);
        if (k < 0) {
            return false;
        }
        int64_t align;
        /* (void *) p: the void* overloads, which assume no alignment beyond
         * aligned_size_t's (either pointer untyped makes the call untyped,
         * as T* converts to void* in C++). */
        bool untyped = false;
        const Expr *dst_e = untyped_arg(arg(call, first), &untyped);
        const Expr *src_e = untyped_arg(arg(call, first + 1), &untyped);
        if (tx && untyped) {
            return comp_failf(c, loc, "memcpy_async_tx copies typed pointers: leave out the (void *) cast");
        }
        ExprNode *dst = ptr_arg(c, dst_e, "the destination");
        ExprNode *src = dst ? ptr_arg(c, src_e, "the source") : NULL;
        ExprNode *size = src ? size_arg(c, arg(call, first + 2), &align) : NULL;
        if (size == NULL) {
            return false;
        }
        if (!untyped &&
            (dst->type.elem.size != src->type.elem.size || dst->type.elem.align != src->type.elem.align)) {
            return comp_failf(c, loc, "memcpy_async copies between one element type: the destination holds %s, the"
                         " source %s", dst->type.elem.name, src->type.elem.name);
        }
        Op *op = comp_op_at(c, k);
        op->sub = (uint16_t) gk;
        op->e[0] = dst;
        op->e[1] = src;
        op->e[2] = size;
        /* SPEC memcpy-1: the alignment the library assumes is the larger of
         * alignof(T) and aligned_size_t's N (a plain size counts as 1);
         * void* has no alignof. */
        op->value = untyped ? align : MAX((int64_t) dst->type.elem.align, align);
        op->untyped = untyped;
        op->size_align = arg(call, first + 2)->kind == EX_TEMPLATE ? (int32_t) MIN(align, (int64_t) INT32_MAX) : 0;
        if (n - first == 3) {
            if (tx) {
                return comp_failf(c, loc, "memcpy_async_tx needs a barrier");
            }
            op->aux = SYNC_NONE; /* cooperative_groups::memcpy_async */
            return true;
        }
        const Expr *sync = arg(call, first + 3);
        Sym *pl = object_sym(c, sync, SYM_PIPELINE);
        Sym *bar = object_sym(c, sync, SYM_BARRIER);
        if (pl != NULL && !tx) {
            op->aux = SYNC_PIPE;
            op->obj = (int32_t) pl->value;
        } else if (bar != NULL) {
            op->aux = SYNC_BARRIER;
            op->obj = (int32_t) bar->value;
            if (op->value >= 16) {
                c->prog->uses_bulk = true;
            }
        } else {
            return comp_failf(c, sync->loc, "the last argument of %s must be a %s", f,
                         tx ? "cuda::barrier" : "pipeline or a cuda::barrier");
        }
        if (tx) {
            const ProgBuffer *db = &g_array_index(c->prog->buffers, ProgBuffer, dst->type.buffer);
            const ProgBuffer *sb = &g_array_index(c->prog->buffers, ProgBuffer, src->type.buffer);
            if (db->space != SPACE_SHARED || sb->space != SPACE_GLOBAL) {
                /* lib memcpy_async_tx.h asserts a shared destination and a
                 * global source (SPEC memcpy-7). */
                return comp_failf(c, loc, "memcpy_async_tx copies global to shared memory only; this copies %s to %s"
                             " memory (SPEC memcpy-7)", sb->space == SPACE_SHARED ? "shared" : "global",
                             db->space == SPACE_SHARED ? "shared" : "global");
            }
            if (align < 16) {
                /* The library's static_assert is on aligned_size_t's N. */
                return comp_failf(c, loc, "memcpy_async_tx needs aligned_size_t<16> or more (the library's static_assert)");
            }
            c->prog->uses_bulk = true;
        }
        return true;
    }
    if (strcmp(f, "init") == 0) {
        int32_t b;
        if (!nargs(c, call, "init", 2, 2) || !barrier_arg(c, arg(call, 0), &b)) {
            return false;
        }
        int k = comp_emit(c, OP_BAR_INIT, loc);
        ExprNode *cnt = k >= 0 ? int_arg(c, arg(call, 1), "the expected arrival count") : NULL;
        if (cnt == NULL) {
            return false;
        }
        comp_op_at(c, k)->obj = b;
        comp_op_at(c, k)->e[0] = cnt;
        return true;
    }
    if (strcmp(f, "barrier_arrive_tx") == 0 || strcmp(f, "barrier_expect_tx") == 0) {
        bool arrive = strcmp(f, "barrier_arrive_tx") == 0;
        int32_t b;
        if (!nargs(c, call, f, arrive ? 3 : 2, arrive ? 3 : 2) || !barrier_arg(c, arg(call, 0), &b)) {
            return false;
        }
        int k = comp_emit(c, arrive ? OP_BAR_ARRIVE_TX : OP_BAR_EXPECT_TX, loc);
        if (k < 0) {
            return false;
        }
        comp_op_at(c, k)->obj = b;
        comp_op_at(c, k)->var = dest;
        if (arrive) {
            comp_op_at(c, k)->e[0] = int_arg(c, arg(call, 1), "the arrival count");
            comp_op_at(c, k)->e[1] = comp_op_at(c, k)->e[0] ? int_arg(c, arg(call, 2), "the transaction bytes") : NULL;
            result_type->kind = TY_TOKEN;
            return comp_op_at(c, k)->e[1] != NULL;
        }
        comp_op_at(c, k)->e[0] = int_arg(c, arg(call, 1), "the transaction bytes");
        return comp_op_at(c, k)->e[0] != NULL;
    }
    if (strcmp(f, "__syncthreads") == 0 || strcmp(f, "__syncwarp") == 0) {
        if (!nargs(c, call, f, 0, 1)) {
            return false;
        }
        return comp_emit(c, strcmp(f, "__syncthreads") == 0 ? OP_SYNCTHREADS : OP_SYNCWARP, loc) >= 0;
    }
    if (strcmp(f, "sync") == 0 && call->args->len == 1) {
        GroupKind gk;
        if (!comp_group_of(c, arg(call, 0), &gk)) {
            return comp_failf(c, arg(call, 0)->loc, "sync(group) takes a thread group");
        }
        return group_sync(c, gk, loc);
    }
    if (strcmp(f, "wait") == 0 || strcmp(f, "wait_prior") == 0) {
        GroupKind gk;
        if (!nargs(c, call, f, 1, 1) || !comp_group_of(c, arg(call, 0), &gk)) {
            return comp_failf(c, loc, "%s(group) takes a thread group", f);
        }
        int k = comp_emit(c, OP_CG_WAIT, loc);
        if (k < 0) {
            return false;
        }
        comp_op_at(c, k)->sub = (uint16_t) gk;
        if (call->kind == EX_TEMPLATE) {
            int64_t prior;
            if (!comp_const_value(c, call->targ, "wait_prior's count", &prior)) {
                return false;
            }
            if (prior < 0 || prior > 8) {
                return comp_failf(c, call->targ->loc, "wait_prior<N> takes N in 0..8");
            }
            comp_op_at(c, k)->value = prior;
        }
        return true;
    }
    if (strcmp(f, "pipeline_consumer_wait_prior") == 0) {
        int32_t p;
        int64_t prior;
        if (call->kind != EX_TEMPLATE) {
            return comp_failf(c, loc, "write pipeline_consumer_wait_prior<N>(pipeline)");
        }
        if (!nargs(c, call, f, 1, 1) || !pipeline_arg(c, arg(call, 0), &p) ||
            !comp_const_value(c, call->targ, "the count of pipeline_consumer_wait_prior", &prior)) {
            return false;
        }
        if (prior < 0 || prior > 255) {
            return comp_failf(c, call->targ->loc, "pipeline_consumer_wait_prior<N> takes N in 0..255 (uint8_t)");
        }
        int k = comp_emit(c, OP_PIPE_WAIT_PRIOR, loc);
        if (k < 0) {
            return false;
        }
        comp_op_at(c, k)->obj = p;
        comp_op_at(c, k)->value = prior;
        return true;
    }
    if (strcmp(f, "pipeline_producer_commit") == 0) {
        int32_t p, b;
        if (!nargs(c, call, f, 2, 2) || !pipeline_arg(c, arg(call, 0), &p) || !barrier_arg(c, arg(call, 1), &b)) {
            return false;
        }
        if (!object_sym(c, arg(call, 0), SYM_PIPELINE)->thread_scope) {
            return comp_failf(c, arg(call, 0)->loc, "pipeline_producer_commit takes a pipeline<thread_scope_thread>"
                         " (made by make_pipeline())");
        }
        int k = comp_emit(c, OP_PIPE_COMMIT_BAR, loc);
        if (k < 0) {
            return false;
        }
        comp_op_at(c, k)->obj = p;
        comp_op_at(c, k)->value = b;
        return true;
    }
    if (strcmp(f, "compute") == 0) {
        if (!nargs(c, call, "compute", 2, 5)) {
            return false;
        }
        const Expr *first_arg = arg(call, 0);
        int32_t first_data = data_var_of(c, first_arg);
        int k = comp_emit(c, OP_COMPUTE, loc);
        if (k < 0) {
            return false;
        }
        if (first_data >= 0) {
            /* compute(x, n): n dependent IMADs x = x * a + b on each 32-bit
             * word of x (the guide's compute()). */
            const ProgVar *v = &g_array_index(c->prog->vars, ProgVar, first_data);
            if (call->args->len != 2) {
                return comp_failf(c, loc, "compute(value, n) takes two arguments");
            }
            comp_op_at(c, k)->obj = first_data;
            comp_op_at(c, k)->var = dest;
            ExprNode *cnt = int_arg(c, arg(call, 1), "the instruction count");
            if (cnt == NULL) {
                return false;
            }
            int64_t words = MAX(1, v->type.elem.size / 4);
            comp_op_at(c, k)->e[0] = comp_fold_binary(c, loc, '*', cnt, comp_const_node(c, loc, words));
            comp_op_at(c, k)->e[1] = comp_const_node(c, loc, words);
            result_type->kind = TY_DATA;
            result_type->elem = v->type.elem;
            comp_op_at(c, k)->value = class_index(c, "imad");
            return comp_op_at(c, k)->e[0] != NULL;
        }
        if (first_arg->kind != EX_NAME) {
            return comp_failf(c, first_arg->loc, "compute's first argument is an instruction class (imad, ffma, ...)"
                         " or a loaded value");
        }
        comp_op_at(c, k)->value = class_index(c, first_arg->name);
        ExprNode *cnt = int_arg(c, arg(call, 1), "the instruction count");
        if (cnt == NULL) {
            return false;
        }
        if (call->args->len >= 3 && data_var_of(c, arg(call, 2)) >= 0) {
            return compile_compute_operands(c, call, comp_op_at(c, k), cnt, first_arg->name, dest, result_type);
        }
        if (call->args->len > 3) {
            return comp_failf(c, arg(call, 2)->loc, "compute(CLASS, n, x, ...) takes loaded values as its operands"
                         " (var x = load(p))");
        }
        ExprNode *ilp = call->args->len == 3 ? int_arg(c, arg(call, 2), "the independent chains")
                                             : comp_const_node(c, loc, 1);
        if (ilp == NULL) {
            return false;
        }
        comp_op_at(c, k)->e[0] = cnt;
        comp_op_at(c, k)->e[1] = ilp;
        return true;
    }
    if (strcmp(f, "load") == 0) {
        if (!nargs(c, call, "load", 1, 1)) {
            return false;
        }
        int k = comp_emit(c, OP_LOAD, loc);
        ExprNode *p = k >= 0 ? ptr_arg(c, arg(call, 0), "load's address") : NULL;
        if (p == NULL) {
            return false;
        }
        comp_op_at(c, k)->e[0] = p;
        comp_op_at(c, k)->var = dest;
        result_type->kind = TY_DATA;
        result_type->elem = p->type.elem;
        return true;
    }
    if (strcmp(f, "store") == 0) {
        if (!nargs(c, call, "store", 2, 2)) {
            return false;
        }
        int k = comp_emit(c, OP_STORE, loc);
        ExprNode *p = k >= 0 ? ptr_arg(c, arg(call, 0), "store's address") : NULL;
        if (p == NULL) {
            return false;
        }
        const Expr *ve = arg(call, 1);
        Sym *vs = ve->kind == EX_NAME ? comp_lookup(c, ve->name) : NULL;
        if (vs == NULL || vs->kind != SYM_VAR ||
            g_array_index(c->prog->vars, ProgVar, vs->value).type.kind != TY_DATA) {
            /* An integer: p[i] = 5, store(p, i * 2). */
            ExprNode *v = comp_expr(c, ve);
            if (v == NULL) {
                return false;
            }
            if (v->type.kind != TY_INT) {
                return comp_failf(c, ve->loc, "store's value must be an integer or a variable holding a loaded value"
                             " (var x = load(p))");
            }
            comp_op_at(c, k)->e[0] = p;
            comp_op_at(c, k)->e[1] = v;
            comp_op_at(c, k)->sub = STORE_VALUE;
            return true;
        }
        const ProgVar *v = &g_array_index(c->prog->vars, ProgVar, vs->value);
        if (v->type.elem.size != p->type.elem.size) {
            return comp_failf(c, loc, "store writes %s values into a %s buffer", v->type.elem.name, p->type.elem.name);
        }
        comp_op_at(c, k)->e[0] = p;
        comp_op_at(c, k)->obj = (int32_t) vs->value;
        return true;
    }
    if (strcmp(f, "fill") == 0 || strcmp(f, "memset") == 0) {
        /* fill(p, v, n): n elements set to v; memset(p, byte, bytes): the
         * elements bytes covers set to byte in each of their bytes. */
        bool is_memset = strcmp(f, "memset") == 0;
        if (!nargs(c, call, f, 3, 3)) {
            return false;
        }
        int k = comp_emit(c, OP_STORE, loc);
        ExprNode *p = k >= 0 ? ptr_arg(c, arg(call, 0), is_memset ? "memset's address" : "fill's address") : NULL;
        ExprNode *v = p != NULL ? int_arg(c, arg(call, 1), is_memset ? "memset's byte" : "fill's value") : NULL;
        ExprNode *n = v != NULL ? int_arg(c, arg(call, 2), is_memset ? "memset's byte count" : "fill's count")
                                : NULL;
        if (n == NULL) {
            return false;
        }
        Op *op = comp_op_at(c, k);
        op->sub = STORE_FILL;
        op->e[0] = p;
        op->e[1] = v;
        op->e[2] = n;
        if (is_memset) {
            ExprNode *byte = comp_fold_binary(c, loc, '&', v, comp_const_node(c, loc, 255));
            op->e[1] = byte != NULL ? comp_fold_binary(c, loc, '*', byte, comp_const_node(c, loc, 0x01010101)) : NULL;
            op->e[2] = comp_fold_binary(c, loc, '/', n, comp_const_node(c, loc, p->type.elem.size));
            op->e[3] = n;
        }
        return op->e[1] != NULL && op->e[2] != NULL;
    }
    if (strcmp(f, "expect") == 0) {
        /* expect p[i] == v (the parser's expect(p + i, v)). */
        if (!nargs(c, call, "expect", 2, 2)) {
            return false;
        }
        int k = comp_emit(c, OP_ASSERT, loc);
        ExprNode *p = k >= 0 ? ptr_arg(c, arg(call, 0), "expect's element") : NULL;
        ExprNode *v = p != NULL ? int_arg(c, arg(call, 1), "expect's value") : NULL;
        if (v == NULL) {
            return false;
        }
        comp_op_at(c, k)->sub = ASSERT_EXPECT;
        comp_op_at(c, k)->e[0] = p;
        comp_op_at(c, k)->e[1] = v;
        c->prog->uses_expect = true;
        return true;
    }
    if (obj == NULL && is_cl_pipe_call(f)) {
        return compile_cl_pipe(c, call, f, dest, result_type);
    }
    if (obj == NULL && g_str_has_prefix(f, "sub_group_") && g_str_has_suffix(f, "_pipe")) {
        return comp_failf(c, loc, "%s: sub-group pipe functions are not simulated (use the work_group_ form)", f);
    }
    if (strcmp(f, "assert") == 0) {
        if (!nargs(c, call, "assert", 1, 1)) {
            return false;
        }
        int k = comp_emit(c, OP_ASSERT, loc);
        ExprNode *cond = k >= 0 ? int_arg(c, arg(call, 0), "assert's condition") : NULL;
        if (cond == NULL) {
            return false;
        }
        comp_op_at(c, k)->e[0] = cond;
        return true;
    }
    *handled = false;
    return true;
}
