/* program.c: instantiation of a parsed trace (parameters, types, buffers)
 * and its compilation into the operations warps interpret.
 *
 * Uniformity: a variable is `varying` (one value per lane) when any
 * assignment to it has a lane-dependent value or happens under
 * lane-dependent control flow.  Since that depends on the other variables,
 * the body is compiled repeatedly until no variable changes class (each pass
 * can only turn variables from uniform to varying, so this terminates). */
#include "sim/program.h"

#include "sim/expr_eval.h"
#include "sim/parser.h"

#include <stdarg.h>
#include <string.h>

/* Limits that turn abuse into errors (docs/errors.md). */
#define MAX_INLINE_DEPTH 16
#define MAX_VARS 4096
#define MAX_OPS 1000000
/* Expression nodes one compilation pass may create, and nodes one
 * evaluation of an expression may visit: a def that uses its parameter
 * twice, nested, doubles both at each level (fuzz finding: compiling or
 * running such a trace never ended). */
#define MAX_NODES 1000000
#define MAX_EXPR_COST 100000
/* Operations compiled over all passes of the uniformity analysis: a chain
 * of assignments running backwards through a loop needs a pass per link
 * (fuzz finding: minutes of compilation). */
#define MAX_COMPILED_OPS 4000000
/* The SM keeps per-thread state for every make_pipeline call site and every
 * mbarrier (the race detector too): 20000 call sites took 400 MB, the 16 MiB
 * a trace may have would take gigabytes (reliability review). */
#define MAX_PIPELINE_SITES 256
#define MAX_MBARRIERS 4096
#define MAX_GLOBAL_BYTES (INT64_C(1) << 40)
#define MAX_BLOCK_THREADS 1024
#define MAX_SHARED_DECL_BYTES (INT64_C(1) << 30)
#define GLOBAL_BASE (INT64_C(1) << 32)
#define MAX_PIPE_PACKETS (INT64_C(1) << 24)

typedef enum {
    SYM_PARAM,
    SYM_TYPE,
    SYM_BUFFER,
    SYM_PSTATE,
    SYM_BARRIER,
    SYM_PIPE,
    SYM_DEF,
    SYM_GROUP,     /* block, grid, thread, and aliases of them */
    SYM_VAR,       /* a variable (in a scope table): index */
    SYM_PIPELINE,  /* a pipeline variable, bound to its make_pipeline op */
    SYM_ROLE,
    SYM_ARG        /* a def parameter bound to an argument node */
} SymKind;

typedef struct {
    SymKind kind;
    int64_t value;     /* PARAM value, object index, var index, op index, role */
    ElemType elem;     /* TYPE */
    const Decl *def;   /* DEF */
    ExprNode *node;    /* ARG */
    bool thread_scope; /* PIPELINE: made by make_pipeline() */
    bool used;         /* PARAM: an expression the program compiled names it */
} Sym;

typedef struct {
    Program *prog;
    const Trace *trace;
    GError **error;
    GHashTable *globals;   /* name -> Sym* (owned) */
    GPtrArray *scopes;     /* GHashTable* name -> Sym* (owned), innermost last */
    int varying_control;   /* depth of lane-dependent branches around the code */
    GArray *decl_varying;  /* gboolean per variable declaration, from earlier passes */
    bool changed;          /* some variable became varying in this pass */
    int inline_depth;
    int loop_depth;
    bool params_only;      /* instantiate the parameters, nothing else (program_peek_param) */
    int pipeline_sites;    /* make_pipeline operations emitted in this pass */
    int64_t mbarriers;     /* declared: barriers and two per pipeline stage */
    bool grid_read;        /* an expression used the grid's shape (gridDim, blockIdx) */
} Compiler;

/* ------------------------------------------------------------ utilities */

static bool failf(Compiler *c, SrcLoc loc, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static bool failf(Compiler *c, SrcLoc loc, const char *fmt, ...)
{
    if (c->error == NULL || *c->error != NULL) {
        return false;
    }
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    trace_set_error(c->error, SIM_ERROR_INPUT, c->trace, loc, "%s", msg);
    return false;
}

static Sym *sym_new(SymKind kind, int64_t value)
{
    Sym *s = g_new0(Sym, 1);
    s->kind = kind;
    s->value = value;
    return s;
}

static Sym *lookup(Compiler *c, const char *name)
{
    for (guint i = c->scopes->len; i-- > 0;) {
        Sym *s = g_hash_table_lookup(g_ptr_array_index(c->scopes, i), name);
        if (s != NULL) {
            return s;
        }
    }
    Sym *s = g_hash_table_lookup(c->globals, name);
    if (s == NULL && strcmp(parser_strip_ns(name), name) != 0) {
        s = g_hash_table_lookup(c->globals, parser_strip_ns(name));
    }
    return s;
}

static void push_scope(Compiler *c)
{
    g_ptr_array_add(c->scopes, g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free));
}

static void pop_scope(Compiler *c)
{
    g_ptr_array_remove_index(c->scopes, c->scopes->len - 1);
}

static gint later_op_first(gconstpointer a, gconstpointer b)
{
    int64_t x = (*(Sym *const *) a)->value, y = (*(Sym *const *) b)->value;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int emit(Compiler *c, OpCode code, SrcLoc loc);
static Op *op_at(Compiler *c, int i);

/* The end of a block (if, else or loop body), C++'s closing brace: each
 * block-scope pipeline declared in it is destroyed, the last declared
 * first (~pipeline() quits the threads that have not quit; a thread-scope
 * pipeline's destructor does nothing).  SPEC pipeline-scope-1.  Then the
 * block's names go.  Returns ok (whether the block compiled) and whether
 * the destructors could be emitted. */
static bool end_scope(Compiler *c, bool ok)
{
    GHashTable *scope = g_ptr_array_index(c->scopes, c->scopes->len - 1);
    g_autoptr(GPtrArray) pipes = g_ptr_array_new();
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, scope);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        Sym *s = value;
        if (s->kind == SYM_PIPELINE && !s->thread_scope) {
            g_ptr_array_add(pipes, s);
        }
    }
    g_ptr_array_sort(pipes, later_op_first);
    for (guint i = 0; ok && i < pipes->len; i++) {
        int32_t make = (int32_t) ((Sym *) g_ptr_array_index(pipes, i))->value;
        int k = emit(c, OP_PIPE_QUIT, op_at(c, make)->loc);
        ok = k >= 0;
        if (ok) {
            op_at(c, k)->obj = make;
            op_at(c, k)->var = -1;
            op_at(c, k)->sub = 1;
        }
    }
    pop_scope(c);
    return ok;
}

static ExprNode *node_new(Compiler *c, ExprNodeKind kind, SrcLoc loc)
{
    ExprNode *n = g_new0(ExprNode, 1);
    n->kind = kind;
    n->loc = loc;
    n->type.kind = TY_INT;
    n->type.buffer = -1;
    g_ptr_array_add(c->prog->nodes, n);
    return n;
}

static ExprNode *const_node(Compiler *c, SrcLoc loc, int64_t v)
{
    ExprNode *n = node_new(c, EN_CONST, loc);
    n->value = v;
    return n;
}

static bool elem_from_size(int64_t size, ElemType *out)
{
    static const struct {
        int64_t size;
        const char *name;
    } t[] = { { 1, "char" }, { 2, "short" }, { 4, "int" }, { 8, "int2" }, { 16, "int4" } };
    for (size_t i = 0; i < G_N_ELEMENTS(t); i++) {
        if (t[i].size == size) {
            out->size = out->align = (uint32_t) size;
            g_strlcpy(out->name, t[i].name, sizeof out->name);
            return true;
        }
    }
    return false;
}

static bool builtin_type(const char *name, ElemType *out)
{
    static const struct {
        const char *name;
        uint32_t size, align;
    } t[] = {
        { "char", 1, 1 },    { "int8_t", 1, 1 },   { "uint8_t", 1, 1 },  { "short", 2, 2 },
        { "int16_t", 2, 2 }, { "int", 4, 4 },      { "int32_t", 4, 4 },  { "uint32_t", 4, 4 },
        { "unsigned", 4, 4 },{ "float", 4, 4 },    { "int2", 8, 8 },     { "float2", 8, 8 },
        { "long", 8, 8 },    { "int64_t", 8, 8 },  { "uint64_t", 8, 8 }, { "double", 8, 8 },
        { "int4", 16, 16 },  { "float4", 16, 16 }, { "uint4", 16, 16 },  { "double2", 16, 16 },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(t); i++) {
        if (strcmp(t[i].name, name) == 0) {
            out->size = t[i].size;
            out->align = t[i].align;
            g_strlcpy(out->name, t[i].name, sizeof out->name);
            return true;
        }
    }
    return false;
}

static ExprNode *cx(Compiler *c, const Expr *e);

static bool const_value(Compiler *c, const Expr *e, const char *what, int64_t *out)
{
    *out = 0;
    ExprNode *n = cx(c, e);
    if (n == NULL) {
        return false;
    }
    if (n->kind != EN_CONST || n->type.kind != TY_INT) {
        return failf(c, e->loc, "%s must be a constant expression of parameters", what);
    }
    *out = n->value;
    return true;
}

/* Resolves a type expression: a name (int, int4, an alias) or elem(N). */
static bool resolve_type(Compiler *c, const Expr *e, ElemType *out)
{
    if (e->kind == EX_NAME) {
        const char *name = parser_strip_ns(e->name);
        if (builtin_type(name, out)) {
            return true;
        }
        Sym *s = g_hash_table_lookup(c->globals, name);
        if (s != NULL && s->kind == SYM_TYPE) {
            *out = s->elem;
            return true;
        }
        return failf(c, e->loc, "unknown type '%s' (int, int2, int4, float, char, ..., elem(N), or a 'type' alias)",
                     e->name);
    }
    if (e->kind == EX_CALL && e->a->kind == EX_NAME && strcmp(e->a->name, "elem") == 0 &&
        e->args->len == 1) {
        int64_t size;
        if (!const_value(c, g_ptr_array_index(e->args, 0), "the size of elem(N)", &size)) {
            return false;
        }
        if (!elem_from_size(size, out)) {
            return failf(c, e->loc, "elem(%" G_GINT64_FORMAT ") is not a type: the size must be 1, 2, 4, 8 or 16 bytes",
                         size);
        }
        return true;
    }
    return failf(c, e->loc, "expected a type");
}

static const char *type_name(const ValueType *t)
{
    switch (t->kind) {
    case TY_VOID: return "nothing";
    case TY_INT: return "an integer";
    case TY_PTR: return "a pointer";
    case TY_DATA: return "a loaded value";
    case TY_PIPE: return "a pipeline";
    case TY_TOKEN: return "an arrival token";
    case TY_ROLE: return "a pipeline_role";
    case TY_GROUP: return "a thread group";
    case TY_SIZE: return "an aligned_size_t";
    case TY_RESERVE: return "a reserve_id_t";
    }
    return "a value";
}

/* ----------------------------------------------------------- expressions */

static ExprNode *fold_binary(Compiler *c, SrcLoc loc, int op, ExprNode *a, ExprNode *b)
{
    if (a->kind == EN_CONST && b->kind == EN_CONST) {
        int64_t r;
        SimArithStatus st = sim_arith_binary(op, a->value, b->value, &r);
        if (st != SIM_ARITH_OK) {
            failf(c, loc, "%s", sim_arith_message(st));
            return NULL;
        }
        return const_node(c, loc, r);
    }
    ExprNode *n = node_new(c, EN_BINARY, loc);
    n->op = op;
    n->a = a;
    n->b = b;
    n->varying = a->varying || b->varying;
    return n;
}

static bool want_int(Compiler *c, ExprNode *n, const char *what)
{
    if (n->type.kind != TY_INT) {
        return failf(c, n->loc, "%s must be an integer, not %s", what, type_name(&n->type));
    }
    return true;
}

/* The group of tiled_partition<n>, when n is 1, 2, 4, 8, 16 or 32. */
static bool tile_group(int64_t n, GroupKind *out)
{
    static const GroupKind tiles[] = { GROUP_THREAD, GROUP_TILE2, GROUP_TILE4, GROUP_TILE8, GROUP_TILE16, GROUP_WARP };
    for (guint i = 0; i < G_N_ELEMENTS(tiles); i++) {
        if (program_group_lanes(tiles[i]) == n) {
            *out = tiles[i];
            return true;
        }
    }
    return false;
}

/* A group expression: block, grid, thread, this_thread_block(), ... */
static bool group_of(Compiler *c, const Expr *e, GroupKind *out)
{
    if (e->kind == EX_CALL && e->a->kind == EX_NAME && e->args->len == 0) {
        const char *f = parser_strip_ns(e->a->name);
        if (strcmp(f, "this_thread_block") == 0) {
            *out = GROUP_BLOCK;
            return true;
        }
        if (strcmp(f, "this_grid") == 0) {
            *out = GROUP_GRID;
            return true;
        }
        if (strcmp(f, "this_thread") == 0) {
            *out = GROUP_THREAD;
            return true;
        }
    }
    if (e->kind == EX_NAME) {
        Sym *s = lookup(c, e->name);
        if (s != NULL && s->kind == SYM_GROUP) {
            *out = (GroupKind) s->value;
            return true;
        }
    }
    /* tiled_partition<N>(parent): N threads of a warp, N a power of two up
     * to 32 (32 is the warp, 1 the thread), of the block (32 also of a
     * warp, 1 of any group: tiles of tiles would need their parent for
     * meta_group_rank); other tiles are refused where the expression is
     * compiled. */
    GroupKind parent, tile;
    if (e->kind == EX_TEMPLATE && strcmp(e->name, "tiled_partition") == 0 && e->args->len == 1 &&
        e->targ->kind == EX_INT && tile_group(e->targ->value, &tile) &&
        group_of(c, g_ptr_array_index(e->args, 0), &parent) &&
        (parent == GROUP_BLOCK || (tile == GROUP_WARP && parent == GROUP_WARP) || tile == GROUP_THREAD)) {
        *out = tile;
        return true;
    }
    return false;
}

/* The axis (0, 1, 2) that member name x, y or z stands for, or -1. */
static int axis_of(const char *name)
{
    return strcmp(name, "x") == 0 ? 0 : strcmp(name, "y") == 0 ? 1 : strcmp(name, "z") == 0 ? 2 : -1;
}

/* An index along an axis of a shape (threadIdx.y from the block's shape,
 * blockIdx.y from the grid's), from the linear index node kind: CUDA's
 * order, x fastest.  In a one-dimensional shape the x index is the linear
 * one itself; along an axis of size 1 it is 0. */
static ExprNode *index_node(Compiler *c, SrcLoc loc, ExprNodeKind kind, const int64_t *shape, int axis)
{
    if (shape[axis] == 1) {
        return const_node(c, loc, 0);
    }
    ExprNode *n = node_new(c, kind, loc);
    n->varying = kind == EN_TID;
    if (axis == 0 && shape[1] == 1 && shape[2] == 1) {
        return n;
    }
    n->value = axis + 1;
    n->op = (int32_t) (axis == 0 ? 1 : axis == 1 ? shape[0] : shape[0] * shape[1]);
    n->var = (int32_t) shape[axis];
    return n;
}

static ExprNode *thread_index(Compiler *c, SrcLoc loc, int axis)
{
    return index_node(c, loc, EN_TID, c->prog->block_dim, axis);
}

static ExprNode *block_index(Compiler *c, SrcLoc loc, int axis)
{
    c->grid_read = true;
    return index_node(c, loc, EN_BLOCK_ID, c->prog->grid_dim, axis);
}

/* blockDim.AXIS (what names it, for the error) */
static ExprNode *block_dim(Compiler *c, SrcLoc loc, const char *what, int axis)
{
    if (c->prog->block_threads == 0) {
        failf(c, loc, "%s is used before the 'block' declaration", what);
        return NULL;
    }
    return const_node(c, loc, c->prog->block_dim[axis]);
}

static ExprNode *grid_dim(Compiler *c, SrcLoc loc, int axis)
{
    c->grid_read = true;
    return const_node(c, loc, c->prog->grid_dim[axis]);
}

static ExprNode *cx_member(Compiler *c, const Expr *e)
{
    /* threadIdx.x, blockIdx.y, blockDim.z, gridDim.x */
    int axis = axis_of(e->name);
    if (e->a->kind == EX_NAME) {
        const char *base = e->a->name;
        if (strcmp(base, "threadIdx") == 0 || strcmp(base, "blockIdx") == 0 ||
            strcmp(base, "blockDim") == 0 || strcmp(base, "gridDim") == 0) {
            if (axis < 0) {
                failf(c, e->loc, "%s has members x, y and z", base);
                return NULL;
            }
            if (strcmp(base, "threadIdx") == 0) {
                return thread_index(c, e->loc, axis);
            }
            if (strcmp(base, "blockIdx") == 0) {
                return block_index(c, e->loc, axis);
            }
            if (strcmp(base, "blockDim") == 0) {
                g_autofree char *what = g_strdup_printf("blockDim.%s", e->name);
                return block_dim(c, e->loc, what, axis);
            }
            return grid_dim(c, e->loc, axis);
        }
    }
    /* group.group_index().x, group.group_dim().y, ... */
    if (e->a->kind == EX_CALL && e->a->a->kind == EX_MEMBER && axis >= 0) {
        const Expr *m = e->a->a;
        GroupKind g;
        if (group_of(c, m->a, &g) && e->a->args->len == 0) {
            if (strcmp(m->name, "group_index") == 0 || strcmp(m->name, "block_index") == 0) {
                return block_index(c, e->loc, axis);
            }
            if (strcmp(m->name, "thread_index") == 0) {
                return thread_index(c, e->loc, axis);
            }
            if (g == GROUP_GRID && (strcmp(m->name, "group_dim") == 0 || strcmp(m->name, "dim_threads") == 0 ||
                                    strcmp(m->name, "dim_blocks") == 0)) {
                return grid_dim(c, e->loc, axis);
            }
            if (strcmp(m->name, "group_dim") == 0 || strcmp(m->name, "dim_threads") == 0) {
                g_autofree char *what = g_strdup_printf("%s().%s", m->name, e->name);
                return block_dim(c, e->loc, what, axis);
            }
            if (strcmp(m->name, "dim_blocks") == 0) {
                return grid_dim(c, e->loc, axis);
            }
        }
    }
    failf(c, e->loc, "unknown member '%s'", e->name);
    return NULL;
}

/* Pure calls: group queries, min/max, sizeof, def functions. */
static ExprNode *cx_call(Compiler *c, const Expr *e)
{
    GPtrArray *args = e->args;
    if (e->a->kind == EX_MEMBER) {
        const Expr *m = e->a;
        GroupKind g;
        if (group_of(c, m->a, &g) && args->len == 0) {
            const char *f = m->name;
            int64_t lanes = program_group_lanes(g);
            bool meta = lanes > 1 && (strcmp(f, "meta_group_rank") == 0 || strcmp(f, "meta_group_size") == 0);
            if ((lanes == 0 || meta) && c->prog->block_threads == 0) {
                failf(c, e->loc, "%s.%s() is used before the 'block' declaration", m->a->kind == EX_NAME ? m->a->name : "group", f);
                return NULL;
            }
            int64_t size = g == GROUP_BLOCK ? c->prog->block_threads
                           : g == GROUP_GRID ? c->prog->block_threads * c->prog->grid_blocks : lanes;
            if (strcmp(f, "size") == 0 || strcmp(f, "num_threads") == 0) {
                return const_node(c, e->loc, size);
            }
            if (strcmp(f, "thread_rank") == 0) {
                if (g == GROUP_THREAD) {
                    return const_node(c, e->loc, 0);
                }
                ExprNode *tid = node_new(c, EN_TID, e->loc);
                tid->varying = true;
                if (g == GROUP_BLOCK) {
                    return tid;
                }
                if (lanes > 0) {
                    ExprNode *lane = node_new(c, EN_LANE, e->loc);
                    lane->varying = true;
                    return lanes == 32 ? lane : fold_binary(c, e->loc, '%', lane, const_node(c, e->loc, lanes));
                }
                ExprNode *bid = node_new(c, EN_BLOCK_ID, e->loc);
                ExprNode *off = fold_binary(c, e->loc, '*', bid, const_node(c, e->loc, c->prog->block_threads));
                return off ? fold_binary(c, e->loc, '+', off, tid) : NULL;
            }
            if (meta && strcmp(f, "meta_group_size") == 0) {
                /* The tiles of the block (the last one may be partial). */
                return const_node(c, e->loc, (c->prog->block_threads + lanes - 1) / lanes);
            }
            if (meta) {
                /* meta_group_rank: the tile's index in the block. */
                ExprNode *tid = node_new(c, EN_TID, e->loc);
                tid->varying = true;
                return fold_binary(c, e->loc, '/', tid, const_node(c, e->loc, lanes));
            }
            if (strcmp(f, "num_blocks") == 0) {
                return const_node(c, e->loc, c->prog->grid_blocks);
            }
            if (strcmp(f, "block_rank") == 0) {
                return node_new(c, EN_BLOCK_ID, e->loc);
            }
        }
        failf(c, e->loc, "'%s' cannot be used in an expression: it is not a pure value"
              " (operations are statements, or assigned directly: var x = ...)", m->name);
        return NULL;
    }
    if (e->a->kind != EX_NAME) {
        failf(c, e->loc, "this cannot be called");
        return NULL;
    }
    if (strcmp(e->a->name, PARSER_VOID_CAST) == 0) {
        failf(c, e->loc, "a (void *) cast is only for memcpy_async's destination and source (its untyped overloads)");
        return NULL;
    }
    const char *f = parser_strip_ns(e->a->name);
    if (g_str_has_prefix(f, "std::")) {
        f += 5;
    }
    if ((strcmp(f, "min") == 0 || strcmp(f, "max") == 0) && args->len == 2) {
        ExprNode *a = cx(c, g_ptr_array_index(args, 0));
        ExprNode *b = a ? cx(c, g_ptr_array_index(args, 1)) : NULL;
        if (b == NULL || !want_int(c, a, "min/max's argument") || !want_int(c, b, "min/max's argument")) {
            return NULL;
        }
        bool is_min = strcmp(f, "min") == 0;
        if (a->kind == EN_CONST && b->kind == EN_CONST) {
            return const_node(c, e->loc, is_min ? MIN(a->value, b->value) : MAX(a->value, b->value));
        }
        ExprNode *cond = fold_binary(c, e->loc, '<', a, b);
        if (cond == NULL) {
            return NULL;
        }
        ExprNode *n = node_new(c, EN_TERNARY, e->loc);
        n->a = cond;
        n->b = is_min ? a : b;
        n->c = is_min ? b : a;
        n->varying = a->varying || b->varying;
        return n;
    }
    if ((strcmp(f, "sizeof") == 0 || strcmp(f, "alignof") == 0) && args->len == 1) {
        const Expr *a = g_ptr_array_index(args, 0);
        ElemType t;
        /* sizeof(variable of pointer or data type) is also accepted. */
        if (a->kind == EX_NAME) {
            Sym *s = lookup(c, a->name);
            if (s != NULL && s->kind == SYM_VAR) {
                const ProgVar *v = &g_array_index(c->prog->vars, ProgVar, s->value);
                if (v->type.kind == TY_DATA) {
                    return const_node(c, e->loc, strcmp(f, "sizeof") == 0 ? v->type.elem.size : v->type.elem.align);
                }
            }
        }
        if (!resolve_type(c, a, &t)) {
            return NULL;
        }
        return const_node(c, e->loc, strcmp(f, "sizeof") == 0 ? t.size : t.align);
    }
    if (strcmp(f, "is_valid_reserve_id") == 0 && args->len == 1) {
        /* A failed reservation returns the invalid id 0 (docs/opencl-pipes.md). */
        ExprNode *r = cx(c, g_ptr_array_index(args, 0));
        if (r == NULL) {
            return NULL;
        }
        if (r->type.kind != TY_RESERVE) {
            failf(c, r->loc, "is_valid_reserve_id takes a reserve_id_t, not %s", type_name(&r->type));
            return NULL;
        }
        ExprNode *n = node_new(c, EN_BINARY, e->loc);
        n->op = TK_NE;
        n->a = r;
        n->b = const_node(c, e->loc, 0);
        n->varying = r->varying;
        return n;
    }
    {
        /* OpenCL work-item functions; dimensions 0, 1, 2 are x, y, z. */
        static const char *wi[] = { "get_local_id", "get_group_id", "get_global_id", "get_local_size",
                                    "get_num_groups", "get_global_size" };
        for (size_t i = 0; i < G_N_ELEMENTS(wi); i++) {
            if (strcmp(f, wi[i]) != 0) {
                continue;
            }
            int64_t dim;
            if (args->len != 1 || !const_value(c, g_ptr_array_index(args, 0), "the dimension", &dim)) {
                failf(c, e->loc, "%s(dimindx) takes one constant dimension", f);
                return NULL;
            }
            if (dim < 0 || dim > 2) {
                failf(c, e->loc, "%s: dimension %" G_GINT64_FORMAT " is not 0, 1 or 2", f, dim);
                return NULL;
            }
            if ((i == 3 || i == 5) && c->prog->block_threads == 0) {
                failf(c, e->loc, "%s(0) is used before the 'block' declaration", f);
                return NULL;
            }
            int axis = (int) dim;
            switch (i) {
            case 0:
                return thread_index(c, e->loc, axis);
            case 1:
                return block_index(c, e->loc, axis);
            case 2: {
                ExprNode *tid = thread_index(c, e->loc, axis);
                ExprNode *bid = block_index(c, e->loc, axis);
                ExprNode *off = fold_binary(c, e->loc, '*', bid, const_node(c, e->loc, c->prog->block_dim[axis]));
                return off ? fold_binary(c, e->loc, '+', off, tid) : NULL;
            }
            case 3:
                return const_node(c, e->loc, c->prog->block_dim[axis]);
            case 4:
                return grid_dim(c, e->loc, axis);
            default:
                c->grid_read = true;
                return const_node(c, e->loc, c->prog->grid_dim[axis] * c->prog->block_dim[axis]);
            }
        }
    }
    if (strcmp(f, "move") == 0 && args->len == 1) {
        return cx(c, g_ptr_array_index(args, 0));
    }
    Sym *s = lookup(c, e->a->name);
    if (s != NULL && s->kind == SYM_DEF) {
        const Decl *d = s->def;
        if (args->len != d->params->len) {
            failf(c, e->loc, "'%s' takes %u argument%s, not %u", d->name, d->params->len,
                  d->params->len == 1 ? "" : "s", args->len);
            return NULL;
        }
        if (c->inline_depth >= MAX_INLINE_DEPTH) {
            failf(c, e->loc, "functions nest more than %d deep (is '%s' recursive?)", MAX_INLINE_DEPTH, d->name);
            return NULL;
        }
        /* Bind parameters to the argument trees. */
        GHashTable *bind = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        for (guint i = 0; i < args->len; i++) {
            ExprNode *an = cx(c, g_ptr_array_index(args, i));
            if (an == NULL) {
                g_hash_table_unref(bind);
                return NULL;
            }
            Sym *as = sym_new(SYM_ARG, 0);
            as->node = an;
            g_hash_table_replace(bind, g_strdup(g_ptr_array_index(d->params, i)), as);
        }
        /* Like a C++ lambda capturing by reference, the body sees the
         * names in scope where it is called, under its parameters. */
        g_ptr_array_add(c->scopes, bind);
        c->inline_depth++;
        ExprNode *n = cx(c, d->a);
        c->inline_depth--;
        pop_scope(c);
        return n;
    }
    if (s == NULL && strcmp(f, "elem") != 0) {
        failf(c, e->loc, "unknown function '%s'", e->a->name);
    } else {
        failf(c, e->loc, "'%s' cannot be used in an expression: it is not a pure value"
              " (operations are statements, or assigned directly: var x = ...)", e->a->name);
    }
    return NULL;
}

static ExprNode *cx_name(Compiler *c, const Expr *e)
{
    const char *name = e->name;
    Sym *s = lookup(c, name);
    if (s != NULL) {
        switch (s->kind) {
        case SYM_PARAM:
            s->used = true;
            return const_node(c, e->loc, s->value);
        case SYM_ARG:
            return s->node;
        case SYM_ROLE: {
            ExprNode *n = const_node(c, e->loc, s->value);
            n->type.kind = TY_ROLE;
            return n;
        }
        case SYM_VAR: {
            const ProgVar *v = &g_array_index(c->prog->vars, ProgVar, s->value);
            ExprNode *n = node_new(c, EN_VAR, e->loc);
            n->var = v->slot;
            n->varying = v->varying;
            n->type = v->type;
            return n;
        }
        case SYM_BUFFER: {
            const ProgBuffer *b = &g_array_index(c->prog->buffers, ProgBuffer, s->value);
            ExprNode *n = const_node(c, e->loc, b->base);
            n->type.kind = TY_PTR;
            n->type.elem = b->elem;
            n->type.buffer = (int32_t) s->value;
            return n;
        }
        case SYM_PIPELINE: {
            ExprNode *n = const_node(c, e->loc, s->value);
            n->type.kind = TY_PIPE;
            return n;
        }
        case SYM_GROUP: {
            ExprNode *n = const_node(c, e->loc, s->value);
            n->type.kind = TY_GROUP;
            n->type.group = (int32_t) s->value;
            return n;
        }
        case SYM_TYPE:
            failf(c, e->loc, "'%s' is a type, not a value", name);
            return NULL;
        case SYM_PSTATE:
        case SYM_BARRIER:
        case SYM_PIPE:
            failf(c, e->loc, "'%s' is a synchronisation object, not a number", name);
            return NULL;
        case SYM_DEF:
            failf(c, e->loc, "'%s' is a function: call it with arguments", name);
            return NULL;
        }
    }
    const char *bare = parser_strip_ns(name);
    if (strcmp(bare, "warpSize") == 0) {
        return const_node(c, e->loc, 32);
    }
    if (strcmp(bare, "lane_id") == 0 || strcmp(bare, "laneid") == 0) {
        ExprNode *n = node_new(c, EN_LANE, e->loc);
        n->varying = true;
        return n;
    }
    if (strcmp(bare, "warp_id") == 0) {
        return node_new(c, EN_WARP, e->loc);
    }
    if (strcmp(bare, "true") == 0 || strcmp(bare, "false") == 0) {
        return const_node(c, e->loc, strcmp(bare, "true") == 0);
    }
    failf(c, e->loc, "unknown name '%s'", name);
    return NULL;
}

static ExprNode *cx(Compiler *c, const Expr *e)
{
    if (c->prog->nodes->len >= MAX_NODES) {
        failf(c, e->loc, "the program's expressions have more than %d nodes (a function that uses its parameters"
              " more than once, nested?)", MAX_NODES);
        return NULL;
    }
    switch (e->kind) {
    case EX_INT:
        return const_node(c, e->loc, e->value);
    case EX_NAME:
        return cx_name(c, e);
    case EX_MEMBER:
        return cx_member(c, e);
    case EX_CALL:
        return cx_call(c, e);
    case EX_TEMPLATE:
        if (strcmp(e->name, "tiled_partition") == 0) {
            failf(c, e->loc, "tiled_partition<N>(group) is simulated for N = 1, 2, 4, 8, 16 or 32 of the block"
                  " (32 also of a warp, 1 of any group) only, written with a number");
            return NULL;
        }
        failf(c, e->loc, "%s<...>(...) is only allowed as an argument of memcpy_async", e->name);
        return NULL;
    case EX_UNARY: {
        ExprNode *a = cx(c, e->a);
        if (a == NULL || !want_int(c, a, "the operand")) {
            return NULL;
        }
        if (a->kind == EN_CONST) {
            int64_t r;
            SimArithStatus st = sim_arith_unary(e->op, a->value, &r);
            if (st != SIM_ARITH_OK) {
                failf(c, e->loc, "%s", sim_arith_message(st));
                return NULL;
            }
            return const_node(c, e->loc, r);
        }
        ExprNode *n = node_new(c, EN_UNARY, e->loc);
        n->op = e->op;
        n->a = a;
        n->varying = a->varying;
        return n;
    }
    case EX_TERNARY: {
        ExprNode *a = cx(c, e->a);
        if (a == NULL || !want_int(c, a, "the condition")) {
            return NULL;
        }
        if (a->kind == EN_CONST) {
            /* A constant condition chooses one side; the other is never
             * evaluated (as in C), so it cannot fail. */
            return cx(c, a->value ? e->b : e->c);
        }
        ExprNode *b = cx(c, e->b);
        ExprNode *d = b ? cx(c, e->c) : NULL;
        if (d == NULL) {
            return NULL;
        }
        if (b->type.kind != d->type.kind || (b->type.kind == TY_PTR && b->type.buffer != d->type.buffer)) {
            failf(c, e->loc, "both sides of '?:' must have one type (%s vs %s%s)", type_name(&b->type),
                  type_name(&d->type), b->type.kind == TY_PTR ? " into another buffer" : "");
            return NULL;
        }
        if (b->type.kind != TY_INT && b->type.kind != TY_PTR && b->type.kind != TY_ROLE) {
            failf(c, e->loc, "'?:' cannot choose between %s values", type_name(&b->type));
            return NULL;
        }
        ExprNode *n = node_new(c, EN_TERNARY, e->loc);
        n->a = a;
        n->b = b;
        n->c = d;
        n->varying = a->varying || b->varying || d->varying;
        n->type = b->type;
        return n;
    }
    case EX_BINARY: {
        ExprNode *a = cx(c, e->a);
        if (a == NULL) {
            return NULL;
        }
        if ((e->op == TK_ANDAND || e->op == TK_OROR) && a->kind == EN_CONST && a->type.kind == TY_INT &&
            (a->value != 0) == (e->op == TK_OROR)) {
            /* Decided by the left side, as in C: the right one is never
             * evaluated, so it cannot fail (n != 0 && 10 / n with n = 0). */
            return const_node(c, e->loc, e->op == TK_OROR);
        }
        ExprNode *b = cx(c, e->b);
        if (b == NULL) {
            return NULL;
        }
        int op = e->op;
        TypeKind ta = a->type.kind, tb = b->type.kind;
        if (ta == TY_INT && tb == TY_INT) {
            return fold_binary(c, e->loc, op, a, b);
        }
        if ((ta == TY_ROLE && tb == TY_ROLE) && (op == TK_EQ || op == TK_NE)) {
            return fold_binary(c, e->loc, op, a, b);
        }
        /* Pointer arithmetic scales by the element size, as in C. */
        if ((op == '+' || op == '-') && ta == TY_PTR && tb == TY_INT) {
            ExprNode *scaled = fold_binary(c, e->loc, '*', b, const_node(c, e->loc, a->type.elem.size));
            ExprNode *n = scaled ? fold_binary(c, e->loc, op, a, scaled) : NULL;
            if (n != NULL) {
                n->type = a->type;
            }
            return n;
        }
        if (op == '+' && ta == TY_INT && tb == TY_PTR) {
            ExprNode *scaled = fold_binary(c, e->loc, '*', a, const_node(c, e->loc, b->type.elem.size));
            ExprNode *n = scaled ? fold_binary(c, e->loc, op, b, scaled) : NULL;
            if (n != NULL) {
                n->type = b->type;
            }
            return n;
        }
        if (ta == TY_PTR && tb == TY_PTR && a->type.buffer == b->type.buffer) {
            if (op == '-') {
                ExprNode *d = fold_binary(c, e->loc, '-', a, b);
                return d ? fold_binary(c, e->loc, '/', d, const_node(c, e->loc, a->type.elem.size)) : NULL;
            }
            if (op == TK_EQ || op == TK_NE || op == '<' || op == '>' || op == TK_LE || op == TK_GE) {
                return fold_binary(c, e->loc, op, a, b);
            }
        }
        failf(c, e->loc, "operator %s cannot combine %s and %s", parser_token_name(op), type_name(&a->type),
              type_name(&b->type));
        return NULL;
    }
    }
    g_assert_not_reached();
}

/* ------------------------------------------------------------ variables */

static int64_t var_slots(const ProgVar *v)
{
    return v->varying ? SIM_WARP_SIZE : 1;
}

static int declare_var(Compiler *c, const char *name, SrcLoc loc, ValueType type, bool varying_value)
{
    GHashTable *scope = g_ptr_array_index(c->scopes, c->scopes->len - 1);
    if (g_hash_table_contains(scope, name)) {
        failf(c, loc, "'%s' is already declared in this block", name);
        return -1;
    }
    if (c->prog->vars->len >= MAX_VARS) {
        failf(c, loc, "more than %d variables", MAX_VARS);
        return -1;
    }
    guint index = c->prog->vars->len;
    if (c->decl_varying->len <= index) {
        gboolean f = FALSE;
        g_array_append_val(c->decl_varying, f);
    }
    bool varying = g_array_index(c->decl_varying, gboolean, index);
    /* Data values are scoreboard entries of the warp, not lane values. */
    bool wants = type.kind != TY_DATA && (varying_value || c->varying_control > 0);
    if (wants && !varying) {
        g_array_index(c->decl_varying, gboolean, index) = TRUE;
        c->changed = true;
        varying = true;
    }
    ProgVar v = { g_strdup(name), type, varying, c->prog->value_slots, loc };
    c->prog->value_slots += (int32_t) var_slots(&v);
    g_array_append_val(c->prog->vars, v);
    g_hash_table_replace(scope, g_strdup(name), sym_new(SYM_VAR, index));
    return (int) index;
}

/* Notes an assignment to variable `index` of a value that may vary. */
static void assigned(Compiler *c, int index, bool varying_value)
{
    ProgVar *v = &g_array_index(c->prog->vars, ProgVar, index);
    if (v->type.kind == TY_DATA) {
        return;
    }
    if ((varying_value || c->varying_control > 0) && !v->varying) {
        g_array_index(c->decl_varying, gboolean, index) = TRUE;
        c->changed = true;
    }
}

/* ----------------------------------------------------------- operations */

static int emit(Compiler *c, OpCode code, SrcLoc loc)
{
    if (c->prog->ops->len >= MAX_OPS) {
        failf(c, loc, "the program compiles to more than %d operations", MAX_OPS);
        return -1;
    }
    if (code == OP_MAKE_PIPE_THREAD || code == OP_MAKE_PIPE_BLOCK) {
        if (++c->pipeline_sites > MAX_PIPELINE_SITES) {
            failf(c, loc, "more than %d make_pipeline calls in the program", MAX_PIPELINE_SITES);
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

static Op *op_at(Compiler *c, int i)
{
    return &g_array_index(c->prog->ops, Op, i);
}

static int here(Compiler *c)
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
    Sym *s = lookup(c, obj->name);
    return s != NULL && s->kind == kind ? s : NULL;
}

static bool nargs(Compiler *c, const Expr *call, const char *name, guint lo, guint hi)
{
    guint n = call->args ? call->args->len : 0;
    if (n < lo || n > hi) {
        if (lo == hi) {
            return failf(c, call->loc, "%s takes %u argument%s, not %u", name, lo, lo == 1 ? "" : "s", n);
        }
        return failf(c, call->loc, "%s takes %u to %u arguments, not %u", name, lo, hi, n);
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
        return failf(c, e->loc, "expected a cuda::barrier declared with 'barrier NAME'");
    }
    *out = (int32_t) s->value;
    return true;
}

static bool pipeline_arg(Compiler *c, const Expr *e, int32_t *out)
{
    *out = -1;
    Sym *s = object_sym(c, e, SYM_PIPELINE);
    if (s == NULL) {
        return failf(c, e->loc, "expected a pipeline made by make_pipeline");
    }
    *out = (int32_t) s->value;
    return true;
}

static ExprNode *int_arg(Compiler *c, const Expr *e, const char *what)
{
    ExprNode *n = cx(c, e);
    if (n != NULL && !want_int(c, n, what)) {
        return NULL;
    }
    return n;
}

static ExprNode *ptr_arg(Compiler *c, const Expr *e, const char *what)
{
    ExprNode *n = cx(c, e);
    if (n != NULL && n->type.kind != TY_PTR) {
        failf(c, e->loc, "%s must be a pointer into a shared or global buffer, not %s", what, type_name(&n->type));
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
            failf(c, e->loc, "aligned_size_t<A>(n) takes one argument");
            return NULL;
        }
        if (!const_value(c, e->targ, "the alignment of aligned_size_t", align)) {
            return NULL;
        }
        if (*align <= 0 || (*align & (*align - 1)) != 0) {
            failf(c, e->targ->loc, "aligned_size_t's alignment must be a power of two, not %" G_GINT64_FORMAT,
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
    return failf(c, e->loc, scope ? "work_group_barrier's second argument is a memory_scope_* name"
                                  : "work_group_barrier takes CLK_LOCAL_MEM_FENCE, CLK_GLOBAL_MEM_FENCE or"
                                    " CLK_IMAGE_MEM_FENCE, joined with '|'");
}

/* A reserve_id_t argument. */
static ExprNode *cl_rid_arg(Compiler *c, const Expr *e)
{
    ExprNode *n = cx(c, e);
    if (n != NULL && n->type.kind != TY_RESERVE) {
        failf(c, e->loc, "expected a reserve_id_t (var rid = reserve_write_pipe(p, n)), not %s", type_name(&n->type));
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
        failf(c, e->loc, "%s: the pointer's element is %s (%u bytes) but pipe '%s' holds %s packets (%u bytes)"
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
        return emit(c, OP_WG_BARRIER, loc) >= 0;
    }
    bool group = g_str_has_prefix(f, "work_group_");
    const char *base = group ? f + strlen("work_group_") : f;
    uint16_t sub = (uint16_t) ((strstr(base, "write") != NULL ? CL_WRITE : 0) | (group ? CL_WORK_GROUP : 0));
    if (n < 1) {
        return failf(c, loc, "%s takes a pipe first", f);
    }
    Sym *ps = object_sym(c, arg(call, 0), SYM_PIPE);
    if (ps == NULL) {
        return failf(c, arg(call, 0)->loc, "%s: expected an OpenCL pipe declared with 'pipe T name[capacity]'", f);
    }
    const ProgPipe *pp = &g_array_index(c->prog->pipes, ProgPipe, ps->value);
    int k;
    if (g_str_has_prefix(base, "reserve_")) {
        if (!nargs(c, call, f, 2, 2) || (k = emit(c, OP_CL_RESERVE, loc)) < 0) {
            return false;
        }
        op_at(c, k)->e[0] = int_arg(c, arg(call, 1), "num_packets");
        result_type->kind = TY_RESERVE;
    } else if (g_str_has_prefix(base, "commit_")) {
        if (!nargs(c, call, f, 2, 2) || (k = emit(c, OP_CL_COMMIT, loc)) < 0) {
            return false;
        }
        op_at(c, k)->e[0] = cl_rid_arg(c, arg(call, 1));
    } else if (group) {
        return failf(c, loc, "'%s' is not an OpenCL built-in: read_pipe and write_pipe have no work_group_ form", f);
    } else if (n == 2) {
        if ((k = emit(c, OP_CL_RW, loc)) < 0) {
            return false;
        }
        op_at(c, k)->e[0] = cl_ptr_arg(c, arg(call, 1), pp, f);
        result_type->kind = TY_INT;
    } else {
        if (n != 4) {
            return failf(c, loc, "%s takes 2 or 4 arguments, not %u: %s(p, ptr) or %s(p, reserve_id, index, ptr)", f,
                         n, f, f);
        }
        if ((k = emit(c, OP_CL_RW_RESERVED, loc)) < 0) {
            return false;
        }
        Op *op = op_at(c, k);
        op->e[0] = cl_rid_arg(c, arg(call, 1));
        op->e[1] = op->e[0] ? int_arg(c, arg(call, 2), "the packet index") : NULL;
        op->e[2] = op->e[1] ? cl_ptr_arg(c, arg(call, 3), pp, f) : NULL;
        if (op->e[2] == NULL) {
            return false;
        }
        result_type->kind = TY_INT;
    }
    Op *op = op_at(c, k);
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
    Sym *vs = e->kind == EX_NAME ? lookup(c, e->name) : NULL;
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
            return failf(c, arg(call, i)->loc, "compute(CLASS, n, x, ...) takes loaded values as its operands"
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
    op->e[0] = fold_binary(c, loc, '*', cnt, const_node(c, loc, chains));
    op->e[1] = const_node(c, loc, chains);
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
        return failf(c, loc, "grid.sync() is not simulated: one SM holds the block's threads only");
    }
    int k = emit(c, g == GROUP_BLOCK ? OP_SYNCTHREADS : OP_SYNCWARP, loc);
    if (k >= 0 && g != GROUP_WARP && g != GROUP_BLOCK) {
        op_at(c, k)->value = program_group_lanes(g);
    }
    return k >= 0;
}

/* The statement forms that have an effect.  dest is the variable receiving
 * the result (-1 when the result is dropped); *result_type is set for
 * declarations.  Returns false on error. */
static bool compile_effect(Compiler *c, const Expr *call, int dest, ValueType *result_type, bool *handled)
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
            int k = emit(c, m[i].code, loc);
            if (k < 0) {
                return false;
            }
            op_at(c, k)->obj = (int32_t) ps->value;
            op_at(c, k)->var = dest;
            if (m[i].args == 1) {
                ExprNode *d = int_arg(c, arg(call, 0), "the time-out (cycles)");
                if (d == NULL) {
                    return false;
                }
                op_at(c, k)->e[1] = d;
                op_at(c, k)->sub = strcmp(f, "consumer_wait_until") == 0;
            }
            result_type->kind = m[i].ret;
            return true;
        }
        return failf(c, loc, "a pipeline has no method '%s' (producer_acquire, producer_commit,"
                     " consumer_wait, consumer_wait_for, consumer_wait_until, consumer_release, quit)", f);
    }

    /* --- barrier methods */
    Sym *bs = object_sym(c, obj, SYM_BARRIER);
    if (bs != NULL) {
        int k;
        if (strcmp(f, "arrive") == 0) {
            if (!nargs(c, call, "arrive", 0, 1) || (k = emit(c, OP_BAR_ARRIVE, loc)) < 0) {
                return false;
            }
            op_at(c, k)->e[0] = call->args->len ? int_arg(c, arg(call, 0), "the arrival count") : const_node(c, loc, 1);
            if (op_at(c, k)->e[0] == NULL) {
                return false;
            }
            result_type->kind = TY_TOKEN;
        } else if (strcmp(f, "wait") == 0) {
            if (!nargs(c, call, "wait", 1, 1) || (k = emit(c, OP_BAR_WAIT, loc)) < 0) {
                return false;
            }
            ExprNode *t = cx(c, arg(call, 0));
            if (t == NULL) {
                return false;
            }
            if (t->type.kind != TY_TOKEN) {
                return failf(c, arg(call, 0)->loc, "barrier::wait takes the token returned by arrive()");
            }
            op_at(c, k)->e[0] = t;
        } else if (strcmp(f, "wait_parity") == 0) {
            if (!nargs(c, call, "wait_parity", 1, 1) || (k = emit(c, OP_BAR_WAIT_PARITY, loc)) < 0) {
                return false;
            }
            if ((op_at(c, k)->e[0] = int_arg(c, arg(call, 0), "the parity")) == NULL) {
                return false;
            }
        } else if (strcmp(f, "arrive_and_wait") == 0) {
            if (!nargs(c, call, f, 0, 0) || (k = emit(c, OP_BAR_ARRIVE_WAIT, loc)) < 0) {
                return false;
            }
        } else if (strcmp(f, "arrive_and_drop") == 0) {
            if (!nargs(c, call, f, 0, 0) || (k = emit(c, OP_BAR_ARRIVE_DROP, loc)) < 0) {
                return false;
            }
        } else {
            return failf(c, loc, "a barrier has no method '%s' (arrive, wait, wait_parity, arrive_and_wait,"
                         " arrive_and_drop)", f);
        }
        op_at(c, k)->obj = (int32_t) bs->value;
        op_at(c, k)->var = dest;
        return true;
    }

    /* --- group methods */
    GroupKind g;
    if (obj != NULL && group_of(c, obj, &g)) {
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
            return emit(c, OP_MAKE_PIPE_THREAD, loc) >= 0;
        }
        if (call->args->len == 1) {
            return failf(c, loc, "make_pipeline(group, &shared_state [, producer_count | role])");
        }
        GroupKind gk;
        if (!group_of(c, arg(call, 0), &gk)) {
            return failf(c, arg(call, 0)->loc, "the first argument of make_pipeline must be a thread group (block)");
        }
        if (gk != GROUP_BLOCK) {
            return failf(c, arg(call, 0)->loc, "only the thread block group is simulated in make_pipeline");
        }
        Sym *st = object_sym(c, arg(call, 1), SYM_PSTATE);
        if (st == NULL) {
            return failf(c, arg(call, 1)->loc, "expected a pipeline_shared_state");
        }
        int k = emit(c, OP_MAKE_PIPE_BLOCK, loc);
        if (k < 0) {
            return false;
        }
        op_at(c, k)->obj = (int32_t) st->value;
        op_at(c, k)->sub = PIPE_MODE_UNIFIED;
        if (call->args->len == 3) {
            ExprNode *third = cx(c, arg(call, 2));
            if (third == NULL) {
                return false;
            }
            if (third->type.kind == TY_ROLE) {
                op_at(c, k)->sub = PIPE_MODE_ROLE;
            } else if (third->type.kind == TY_INT) {
                op_at(c, k)->sub = PIPE_MODE_PRODUCER_COUNT;
            } else {
                return failf(c, arg(call, 2)->loc, "the third argument must be a producer count or a pipeline_role");
            }
            op_at(c, k)->e[0] = third;
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
        bool has_group = n == 5 || (n == 4 && group_of(c, arg(call, 0), &gk));
        if (n == 5 && !group_of(c, arg(call, 0), &gk)) {
            return failf(c, arg(call, 0)->loc, "the first of five arguments must be a thread group");
        }
        if (has_group) {
            first = 1;
            if (tx) {
                return failf(c, loc, "memcpy_async_tx(dst, src, size, barrier) has no group argument");
            }
        }
        if (gk == GROUP_GRID) {
            return failf(c, loc, "memcpy_async over the grid is not simulated");
        }
        int k = emit(c, tx ? OP_MEMCPY_TX : OP_MEMCPY, loc);
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
            return failf(c, loc, "memcpy_async_tx copies typed pointers: leave out the (void *) cast");
        }
        ExprNode *dst = ptr_arg(c, dst_e, "the destination");
        ExprNode *src = dst ? ptr_arg(c, src_e, "the source") : NULL;
        ExprNode *size = src ? size_arg(c, arg(call, first + 2), &align) : NULL;
        if (size == NULL) {
            return false;
        }
        if (!untyped &&
            (dst->type.elem.size != src->type.elem.size || dst->type.elem.align != src->type.elem.align)) {
            return failf(c, loc, "memcpy_async copies between one element type: the destination holds %s, the"
                         " source %s", dst->type.elem.name, src->type.elem.name);
        }
        Op *op = op_at(c, k);
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
                return failf(c, loc, "memcpy_async_tx needs a barrier");
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
            return failf(c, sync->loc, "the last argument of %s must be a %s", f,
                         tx ? "cuda::barrier" : "pipeline or a cuda::barrier");
        }
        if (tx) {
            const ProgBuffer *db = &g_array_index(c->prog->buffers, ProgBuffer, dst->type.buffer);
            const ProgBuffer *sb = &g_array_index(c->prog->buffers, ProgBuffer, src->type.buffer);
            if (db->space != SPACE_SHARED || sb->space != SPACE_GLOBAL) {
                /* lib memcpy_async_tx.h asserts a shared destination and a
                 * global source (SPEC memcpy-7). */
                return failf(c, loc, "memcpy_async_tx copies global to shared memory only; this copies %s to %s"
                             " memory (SPEC memcpy-7)", sb->space == SPACE_SHARED ? "shared" : "global",
                             db->space == SPACE_SHARED ? "shared" : "global");
            }
            if (align < 16) {
                /* The library's static_assert is on aligned_size_t's N. */
                return failf(c, loc, "memcpy_async_tx needs aligned_size_t<16> or more (the library's static_assert)");
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
        int k = emit(c, OP_BAR_INIT, loc);
        ExprNode *cnt = k >= 0 ? int_arg(c, arg(call, 1), "the expected arrival count") : NULL;
        if (cnt == NULL) {
            return false;
        }
        op_at(c, k)->obj = b;
        op_at(c, k)->e[0] = cnt;
        return true;
    }
    if (strcmp(f, "barrier_arrive_tx") == 0 || strcmp(f, "barrier_expect_tx") == 0) {
        bool arrive = strcmp(f, "barrier_arrive_tx") == 0;
        int32_t b;
        if (!nargs(c, call, f, arrive ? 3 : 2, arrive ? 3 : 2) || !barrier_arg(c, arg(call, 0), &b)) {
            return false;
        }
        int k = emit(c, arrive ? OP_BAR_ARRIVE_TX : OP_BAR_EXPECT_TX, loc);
        if (k < 0) {
            return false;
        }
        op_at(c, k)->obj = b;
        op_at(c, k)->var = dest;
        if (arrive) {
            op_at(c, k)->e[0] = int_arg(c, arg(call, 1), "the arrival count");
            op_at(c, k)->e[1] = op_at(c, k)->e[0] ? int_arg(c, arg(call, 2), "the transaction bytes") : NULL;
            result_type->kind = TY_TOKEN;
            return op_at(c, k)->e[1] != NULL;
        }
        op_at(c, k)->e[0] = int_arg(c, arg(call, 1), "the transaction bytes");
        return op_at(c, k)->e[0] != NULL;
    }
    if (strcmp(f, "__syncthreads") == 0 || strcmp(f, "__syncwarp") == 0) {
        if (!nargs(c, call, f, 0, 1)) {
            return false;
        }
        return emit(c, strcmp(f, "__syncthreads") == 0 ? OP_SYNCTHREADS : OP_SYNCWARP, loc) >= 0;
    }
    if (strcmp(f, "sync") == 0 && call->args->len == 1) {
        GroupKind gk;
        if (!group_of(c, arg(call, 0), &gk)) {
            return failf(c, arg(call, 0)->loc, "sync(group) takes a thread group");
        }
        return group_sync(c, gk, loc);
    }
    if (strcmp(f, "wait") == 0 || strcmp(f, "wait_prior") == 0) {
        GroupKind gk;
        if (!nargs(c, call, f, 1, 1) || !group_of(c, arg(call, 0), &gk)) {
            return failf(c, loc, "%s(group) takes a thread group", f);
        }
        int k = emit(c, OP_CG_WAIT, loc);
        if (k < 0) {
            return false;
        }
        op_at(c, k)->sub = (uint16_t) gk;
        if (call->kind == EX_TEMPLATE) {
            int64_t prior;
            if (!const_value(c, call->targ, "wait_prior's count", &prior)) {
                return false;
            }
            if (prior < 0 || prior > 8) {
                return failf(c, call->targ->loc, "wait_prior<N> takes N in 0..8");
            }
            op_at(c, k)->value = prior;
        }
        return true;
    }
    if (strcmp(f, "pipeline_consumer_wait_prior") == 0) {
        int32_t p;
        int64_t prior;
        if (call->kind != EX_TEMPLATE) {
            return failf(c, loc, "write pipeline_consumer_wait_prior<N>(pipeline)");
        }
        if (!nargs(c, call, f, 1, 1) || !pipeline_arg(c, arg(call, 0), &p) ||
            !const_value(c, call->targ, "the count of pipeline_consumer_wait_prior", &prior)) {
            return false;
        }
        if (prior < 0 || prior > 255) {
            return failf(c, call->targ->loc, "pipeline_consumer_wait_prior<N> takes N in 0..255 (uint8_t)");
        }
        int k = emit(c, OP_PIPE_WAIT_PRIOR, loc);
        if (k < 0) {
            return false;
        }
        op_at(c, k)->obj = p;
        op_at(c, k)->value = prior;
        return true;
    }
    if (strcmp(f, "pipeline_producer_commit") == 0) {
        int32_t p, b;
        if (!nargs(c, call, f, 2, 2) || !pipeline_arg(c, arg(call, 0), &p) || !barrier_arg(c, arg(call, 1), &b)) {
            return false;
        }
        if (!object_sym(c, arg(call, 0), SYM_PIPELINE)->thread_scope) {
            return failf(c, arg(call, 0)->loc, "pipeline_producer_commit takes a pipeline<thread_scope_thread>"
                         " (made by make_pipeline())");
        }
        int k = emit(c, OP_PIPE_COMMIT_BAR, loc);
        if (k < 0) {
            return false;
        }
        op_at(c, k)->obj = p;
        op_at(c, k)->value = b;
        return true;
    }
    if (strcmp(f, "compute") == 0) {
        if (!nargs(c, call, "compute", 2, 5)) {
            return false;
        }
        const Expr *first_arg = arg(call, 0);
        int32_t first_data = data_var_of(c, first_arg);
        int k = emit(c, OP_COMPUTE, loc);
        if (k < 0) {
            return false;
        }
        if (first_data >= 0) {
            /* compute(x, n): n dependent IMADs x = x * a + b on each 32-bit
             * word of x (the guide's compute()). */
            const ProgVar *v = &g_array_index(c->prog->vars, ProgVar, first_data);
            if (call->args->len != 2) {
                return failf(c, loc, "compute(value, n) takes two arguments");
            }
            op_at(c, k)->obj = first_data;
            op_at(c, k)->var = dest;
            ExprNode *cnt = int_arg(c, arg(call, 1), "the instruction count");
            if (cnt == NULL) {
                return false;
            }
            int64_t words = MAX(1, v->type.elem.size / 4);
            op_at(c, k)->e[0] = fold_binary(c, loc, '*', cnt, const_node(c, loc, words));
            op_at(c, k)->e[1] = const_node(c, loc, words);
            result_type->kind = TY_DATA;
            result_type->elem = v->type.elem;
            op_at(c, k)->value = class_index(c, "imad");
            return op_at(c, k)->e[0] != NULL;
        }
        if (first_arg->kind != EX_NAME) {
            return failf(c, first_arg->loc, "compute's first argument is an instruction class (imad, ffma, ...)"
                         " or a loaded value");
        }
        op_at(c, k)->value = class_index(c, first_arg->name);
        ExprNode *cnt = int_arg(c, arg(call, 1), "the instruction count");
        if (cnt == NULL) {
            return false;
        }
        if (call->args->len >= 3 && data_var_of(c, arg(call, 2)) >= 0) {
            return compile_compute_operands(c, call, op_at(c, k), cnt, first_arg->name, dest, result_type);
        }
        if (call->args->len > 3) {
            return failf(c, arg(call, 2)->loc, "compute(CLASS, n, x, ...) takes loaded values as its operands"
                         " (var x = load(p))");
        }
        ExprNode *ilp = call->args->len == 3 ? int_arg(c, arg(call, 2), "the independent chains")
                                             : const_node(c, loc, 1);
        if (ilp == NULL) {
            return false;
        }
        op_at(c, k)->e[0] = cnt;
        op_at(c, k)->e[1] = ilp;
        return true;
    }
    if (strcmp(f, "load") == 0) {
        if (!nargs(c, call, "load", 1, 1)) {
            return false;
        }
        int k = emit(c, OP_LOAD, loc);
        ExprNode *p = k >= 0 ? ptr_arg(c, arg(call, 0), "load's address") : NULL;
        if (p == NULL) {
            return false;
        }
        op_at(c, k)->e[0] = p;
        op_at(c, k)->var = dest;
        result_type->kind = TY_DATA;
        result_type->elem = p->type.elem;
        return true;
    }
    if (strcmp(f, "store") == 0) {
        if (!nargs(c, call, "store", 2, 2)) {
            return false;
        }
        int k = emit(c, OP_STORE, loc);
        ExprNode *p = k >= 0 ? ptr_arg(c, arg(call, 0), "store's address") : NULL;
        if (p == NULL) {
            return false;
        }
        const Expr *ve = arg(call, 1);
        Sym *vs = ve->kind == EX_NAME ? lookup(c, ve->name) : NULL;
        if (vs == NULL || vs->kind != SYM_VAR ||
            g_array_index(c->prog->vars, ProgVar, vs->value).type.kind != TY_DATA) {
            /* An integer: p[i] = 5, store(p, i * 2). */
            ExprNode *v = cx(c, ve);
            if (v == NULL) {
                return false;
            }
            if (v->type.kind != TY_INT) {
                return failf(c, ve->loc, "store's value must be an integer or a variable holding a loaded value"
                             " (var x = load(p))");
            }
            op_at(c, k)->e[0] = p;
            op_at(c, k)->e[1] = v;
            op_at(c, k)->sub = STORE_VALUE;
            return true;
        }
        const ProgVar *v = &g_array_index(c->prog->vars, ProgVar, vs->value);
        if (v->type.elem.size != p->type.elem.size) {
            return failf(c, loc, "store writes %s values into a %s buffer", v->type.elem.name, p->type.elem.name);
        }
        op_at(c, k)->e[0] = p;
        op_at(c, k)->obj = (int32_t) vs->value;
        return true;
    }
    if (strcmp(f, "fill") == 0 || strcmp(f, "memset") == 0) {
        /* fill(p, v, n): n elements set to v; memset(p, byte, bytes): the
         * elements bytes covers set to byte in each of their bytes. */
        bool is_memset = strcmp(f, "memset") == 0;
        if (!nargs(c, call, f, 3, 3)) {
            return false;
        }
        int k = emit(c, OP_STORE, loc);
        ExprNode *p = k >= 0 ? ptr_arg(c, arg(call, 0), is_memset ? "memset's address" : "fill's address") : NULL;
        ExprNode *v = p != NULL ? int_arg(c, arg(call, 1), is_memset ? "memset's byte" : "fill's value") : NULL;
        ExprNode *n = v != NULL ? int_arg(c, arg(call, 2), is_memset ? "memset's byte count" : "fill's count")
                                : NULL;
        if (n == NULL) {
            return false;
        }
        Op *op = op_at(c, k);
        op->sub = STORE_FILL;
        op->e[0] = p;
        op->e[1] = v;
        op->e[2] = n;
        if (is_memset) {
            ExprNode *byte = fold_binary(c, loc, '&', v, const_node(c, loc, 255));
            op->e[1] = byte != NULL ? fold_binary(c, loc, '*', byte, const_node(c, loc, 0x01010101)) : NULL;
            op->e[2] = fold_binary(c, loc, '/', n, const_node(c, loc, p->type.elem.size));
            op->e[3] = n;
        }
        return op->e[1] != NULL && op->e[2] != NULL;
    }
    if (strcmp(f, "expect") == 0) {
        /* expect p[i] == v (the parser's expect(p + i, v)). */
        if (!nargs(c, call, "expect", 2, 2)) {
            return false;
        }
        int k = emit(c, OP_ASSERT, loc);
        ExprNode *p = k >= 0 ? ptr_arg(c, arg(call, 0), "expect's element") : NULL;
        ExprNode *v = p != NULL ? int_arg(c, arg(call, 1), "expect's value") : NULL;
        if (v == NULL) {
            return false;
        }
        op_at(c, k)->sub = ASSERT_EXPECT;
        op_at(c, k)->e[0] = p;
        op_at(c, k)->e[1] = v;
        c->prog->uses_expect = true;
        return true;
    }
    if (obj == NULL && is_cl_pipe_call(f)) {
        return compile_cl_pipe(c, call, f, dest, result_type);
    }
    if (obj == NULL && g_str_has_prefix(f, "sub_group_") && g_str_has_suffix(f, "_pipe")) {
        return failf(c, loc, "%s: sub-group pipe functions are not simulated (use the work_group_ form)", f);
    }
    if (strcmp(f, "assert") == 0) {
        if (!nargs(c, call, "assert", 1, 1)) {
            return false;
        }
        int k = emit(c, OP_ASSERT, loc);
        ExprNode *cond = k >= 0 ? int_arg(c, arg(call, 0), "assert's condition") : NULL;
        if (cond == NULL) {
            return false;
        }
        op_at(c, k)->e[0] = cond;
        return true;
    }
    *handled = false;
    return true;
}

/* ------------------------------------------------------------ statements */

static bool compile_block(Compiler *c, GPtrArray *stmts);

static bool compile_assign_value(Compiler *c, const Stmt *s, int var_index, const Expr *value)
{
    ProgVar *v = &g_array_index(c->prog->vars, ProgVar, var_index);
    ExprNode *n = cx(c, value);
    if (n == NULL) {
        return false;
    }
    if (n->type.kind != v->type.kind || (n->type.kind == TY_PTR && n->type.buffer != v->type.buffer)) {
        return failf(c, value->loc, "'%s' holds %s%s; this is %s", v->name, type_name(&v->type),
                     v->type.kind == TY_PTR ? " into one buffer" : "", type_name(&n->type));
    }
    assigned(c, var_index, n->varying);
    int k = emit(c, OP_ASSIGN, s->loc);
    if (k < 0) {
        return false;
    }
    op_at(c, k)->var = var_index;
    op_at(c, k)->e[0] = n;
    return true;
}

static bool is_effect_call(const Expr *e)
{
    return e != NULL && (e->kind == EX_CALL || e->kind == EX_TEMPLATE);
}

static bool compile_var(Compiler *c, const Stmt *s)
{
    const Expr *e = s->a;
    GroupKind g;
    /* auto block = cooperative_groups::this_thread_block(); */
    if (group_of(c, e, &g)) {
        GHashTable *scope = g_ptr_array_index(c->scopes, c->scopes->len - 1);
        g_hash_table_replace(scope, g_strdup(s->name), sym_new(SYM_GROUP, g));
        return true;
    }
    if (is_effect_call(e)) {
        int first_op = here(c);
        ValueType rt;
        bool handled;
        /* The destination is declared after its type is known; the op's
         * var field is patched below. */
        if (!compile_effect(c, e, -1, &rt, &handled)) {
            return false;
        }
        if (handled) {
            if (rt.kind == TY_VOID) {
                return failf(c, e->loc, "this operation returns nothing to put in '%s'", s->name);
            }
            if (rt.kind == TY_PIPE) {
                /* A pipeline variable names its make_pipeline operation. */
                GHashTable *scope = g_ptr_array_index(c->scopes, c->scopes->len - 1);
                if (g_hash_table_contains(scope, s->name)) {
                    return failf(c, s->loc, "'%s' is already declared in this block", s->name);
                }
                Sym *ps = sym_new(SYM_PIPELINE, first_op);
                ps->thread_scope = op_at(c, first_op)->code == OP_MAKE_PIPE_THREAD;
                g_hash_table_replace(scope, g_strdup(s->name), ps);
                return true;
            }
            /* A result produced lane by lane (tokens, flags) varies. */
            int idx = declare_var(c, s->name, s->loc, rt, rt.kind != TY_DATA);
            if (idx < 0) {
                return false;
            }
            /* A value-returning operation compiles to exactly one op. */
            g_assert(here(c) == first_op + 1);
            op_at(c, first_op)->var = idx;
            return true;
        }
    }
    ExprNode *n = cx(c, e);
    if (n == NULL) {
        return false;
    }
    if (n->type.kind == TY_GROUP) {
        GHashTable *scope = g_ptr_array_index(c->scopes, c->scopes->len - 1);
        g_hash_table_replace(scope, g_strdup(s->name), sym_new(SYM_GROUP, n->type.group));
        return true;
    }
    int idx = declare_var(c, s->name, s->loc, n->type, n->varying);
    if (idx < 0) {
        return false;
    }
    int k = emit(c, OP_ASSIGN, s->loc);
    if (k < 0) {
        return false;
    }
    op_at(c, k)->var = idx;
    op_at(c, k)->e[0] = n;
    return true;
}

static bool compile_assign(Compiler *c, const Stmt *s)
{
    Sym *sym = lookup(c, s->name);
    if (sym == NULL) {
        return failf(c, s->loc, "'%s' is not declared (declare it with 'var %s = ...')", s->name, s->name);
    }
    if (sym->kind == SYM_PIPELINE && s->op == '=' && is_effect_call(s->a)) {
        return failf(c, s->loc, "a pipeline variable is made once: declare a new one");
    }
    if (sym->kind != SYM_VAR) {
        return failf(c, s->loc, "'%s' cannot be assigned", s->name);
    }
    int idx = (int) sym->value;
    const ProgVar *v = &g_array_index(c->prog->vars, ProgVar, idx);
    if (s->op == '=' && is_effect_call(s->a)) {
        ValueType rt;
        bool handled;
        if (!compile_effect(c, s->a, idx, &rt, &handled)) {
            return false;
        }
        if (handled) {
            if (rt.kind != v->type.kind || (rt.kind == TY_DATA && rt.elem.size != v->type.elem.size)) {
                return failf(c, s->a->loc, "'%s' holds %s; this operation gives %s", v->name, type_name(&v->type),
                             type_name(&rt));
            }
            assigned(c, idx, rt.kind != TY_DATA);
            return true;
        }
    }
    if (s->op == '=') {
        return compile_assign_value(c, s, idx, s->a);
    }
    /* Compound assignment: x op= e  ==>  x = x op e. */
    static const struct {
        int compound, op;
    } ops[] = { { TK_ADDEQ, '+' }, { TK_SUBEQ, '-' }, { TK_MULEQ, '*' }, { TK_DIVEQ, '/' },
                { TK_MODEQ, '%' }, { TK_SHLEQ, TK_SHL }, { TK_SHREQ, TK_SHR }, { TK_ANDEQ, '&' },
                { TK_OREQ, '|' },  { TK_XOREQ, '^' } };
    int op = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(ops); i++) {
        if (ops[i].compound == s->op) {
            op = ops[i].op;
        }
    }
    g_assert(op != 0);
    Expr lhs = { .kind = EX_NAME, .loc = s->loc, .name = s->name };
    Expr bin = { .kind = EX_BINARY, .loc = s->loc, .op = op, .a = &lhs, .b = s->a };
    return compile_assign_value(c, s, idx, &bin);
}

static bool compile_stmt(Compiler *c, const Stmt *s)
{
    switch (s->kind) {
    case ST_VAR:
        return compile_var(c, s);
    case ST_ASSIGN:
        return compile_assign(c, s);
    case ST_EXPR: {
        ValueType rt;
        bool handled;
        if (!compile_effect(c, s->a, -1, &rt, &handled)) {
            return false;
        }
        if (!handled) {
            /* Evaluate for errors, then reject: a pure call does nothing. */
            if (cx(c, s->a) == NULL) {
                return false;
            }
            return failf(c, s->loc, "this call computes a value and drops it");
        }
        if (rt.kind == TY_PIPE) {
            return failf(c, s->loc, "keep the pipeline: var pipe = make_pipeline(...)");
        }
        if (rt.kind == TY_RESERVE) {
            return failf(c, s->loc, "keep the reservation id: var rid = reserve_write_pipe(p, n), then commit it");
        }
        return true;
    }
    case ST_IF: {
        ExprNode *cond = cx(c, s->a);
        if (cond == NULL || !want_int(c, cond, "the condition")) {
            return false;
        }
        int br = emit(c, OP_BRANCH, s->loc);
        if (br < 0) {
            return false;
        }
        op_at(c, br)->e[0] = cond;
        c->varying_control += cond->varying;
        push_scope(c);
        bool ok = end_scope(c, compile_block(c, s->body));
        int jump = -1;
        if (ok && s->orelse != NULL) {
            jump = emit(c, OP_JUMP, s->loc);
            ok = jump >= 0;
            op_at(c, br)->target = here(c);
            push_scope(c);
            ok = end_scope(c, ok && compile_block(c, s->orelse));
        } else if (ok) {
            op_at(c, br)->target = here(c);
        }
        c->varying_control -= cond->varying;
        if (!ok) {
            return false;
        }
        if (jump >= 0) {
            op_at(c, jump)->target = here(c);
        }
        op_at(c, br)->join = here(c);
        /* The reconvergence point must be an operation of its own. */
        return emit(c, OP_NOP, s->loc) >= 0;
    }
    case ST_WHILE:
    case ST_FOR: {
        push_scope(c);
        if (s->init != NULL && !compile_stmt(c, s->init)) {
            pop_scope(c);
            return false;
        }
        int enter = emit(c, OP_LOOP_ENTER, s->loc);
        int head = enter >= 0 ? emit(c, OP_LOOP, s->loc) : -1;
        ExprNode *cond = head >= 0 ? (s->a ? cx(c, s->a) : const_node(c, s->loc, 1)) : NULL;
        if (cond == NULL || !want_int(c, cond, "the loop condition")) {
            pop_scope(c);
            return false;
        }
        op_at(c, head)->e[0] = cond;
        c->varying_control += cond->varying;
        c->loop_depth++;
        push_scope(c);
        bool ok = end_scope(c, compile_block(c, s->body));
        ok = ok && (s->step == NULL || compile_stmt(c, s->step));
        c->loop_depth--;
        c->varying_control -= cond->varying;
        int back = ok ? emit(c, OP_JUMP, s->loc) : -1;
        pop_scope(c);
        if (back < 0) {
            return false;
        }
        op_at(c, back)->target = head;
        int exit = here(c);
        op_at(c, enter)->join = exit;
        op_at(c, head)->target = exit;
        op_at(c, head)->join = exit;
        return emit(c, OP_NOP, s->loc) >= 0;
    }
    case ST_RETURN:
        return emit(c, OP_RETURN, s->loc) >= 0;
    case ST_BREAK:
    case ST_CONTINUE:
        return failf(c, s->loc, "'%s' is not supported: write the loop condition so that it ends the loop",
                     s->kind == ST_BREAK ? "break" : "continue");
    }
    g_assert_not_reached();
}

static bool compile_block(Compiler *c, GPtrArray *stmts)
{
    for (guint i = 0; i < stmts->len; i++) {
        if (!compile_stmt(c, g_ptr_array_index(stmts, i))) {
            return false;
        }
    }
    return true;
}

/* ---------------------------------------------------------- declarations */

static bool add_global(Compiler *c, const char *name, SrcLoc loc, Sym *sym)
{
    if (g_hash_table_contains(c->globals, name)) {
        g_free(sym);
        return failf(c, loc, "'%s' is declared twice", name);
    }
    g_hash_table_replace(c->globals, g_strdup(name), sym);
    return true;
}

static int64_t align_up(int64_t v, int64_t a)
{
    return (v + a - 1) / a * a;
}

static bool param_override(const GArray *ov, const char *name, int64_t *out)
{
    if (ov == NULL) {
        return false;
    }
    for (guint i = ov->len; i-- > 0;) {
        const ProgParamOverride *o = &g_array_index(ov, ProgParamOverride, i);
        if (strcmp(o->name, name) == 0) {
            *out = o->value;
            return true;
        }
    }
    return false;
}

/* The x, y, z sizes of a `block` or `grid` declaration (absent ones are 1)
 * into dim.  CUDA's limits: a block's x and y at most 1024 and z at most 64;
 * a grid's x at most 2^31 - 1, y and z at most 65535. */
static bool shape_of(Compiler *c, const Decl *d, const char *what, int64_t *dim)
{
    const Expr *e[3] = { d->a, d->b, d->c };
    static const char *const axis[3] = { "x", "y", "z" };
    bool block = strcmp(what, "block") == 0;
    const int64_t max[3] = { block ? MAX_BLOCK_THREADS : INT32_MAX, block ? MAX_BLOCK_THREADS : 65535,
                             block ? 64 : 65535 };
    for (int i = 0; i < 3; i++) {
        dim[i] = 1;
        if (e[i] == NULL) {
            continue;
        }
        g_autofree char *name = g_strdup_printf("the %s's %s size", what, axis[i]);
        if (!const_value(c, e[i], name, &dim[i])) {
            return false;
        }
        if (dim[i] < 1 || dim[i] > max[i]) {
            if (block && d->b == NULL) {
                return failf(c, d->loc, "a block has 1 to %d threads, not %" G_GINT64_FORMAT, MAX_BLOCK_THREADS,
                             dim[i]);
            }
            return failf(c, e[i]->loc, "the %s's %s size must be 1 to %" G_GINT64_FORMAT ", not %" G_GINT64_FORMAT,
                         what, axis[i], max[i], dim[i]);
        }
    }
    return true;
}

static bool instantiate(Compiler *c, const GArray *overrides)
{
    Program *p = c->prog;
    const Trace *t = c->trace;
    bool have_block = false;
    bool have_grid = false;
    int64_t smem = 0;
    int64_t gmem = GLOBAL_BASE;
    /* Roles and the groups are predeclared. */
    g_hash_table_replace(c->globals, g_strdup("pipeline_role::producer"), sym_new(SYM_ROLE, 0));
    g_hash_table_replace(c->globals, g_strdup("producer"), sym_new(SYM_ROLE, 0));
    g_hash_table_replace(c->globals, g_strdup("pipeline_role::consumer"), sym_new(SYM_ROLE, 1));
    g_hash_table_replace(c->globals, g_strdup("consumer"), sym_new(SYM_ROLE, 1));
    g_hash_table_replace(c->globals, g_strdup("block"), sym_new(SYM_GROUP, GROUP_BLOCK));
    g_hash_table_replace(c->globals, g_strdup("grid"), sym_new(SYM_GROUP, GROUP_GRID));
    g_hash_table_replace(c->globals, g_strdup("thread"), sym_new(SYM_GROUP, GROUP_THREAD));
    g_hash_table_replace(c->globals, g_strdup("warp"), sym_new(SYM_GROUP, GROUP_WARP));

    for (guint i = 0; i < t->decls->len; i++) {
        const Decl *d = g_ptr_array_index(t->decls, i);
        if (c->params_only && d->kind != DECL_PARAM) {
            continue;
        }
        switch (d->kind) {
        case DECL_PARAM: {
            int64_t v;
            bool over = param_override(overrides, d->name, &v);
            if (!over && !const_value(c, d->a, "a parameter's default", &v)) {
                return false;
            }
            if (d->b != NULL) {
                int64_t lo, hi;
                if (!const_value(c, d->b, "the range's low end", &lo) ||
                    !const_value(c, d->c, "the range's high end", &hi)) {
                    return false;
                }
                if (v < lo || v > hi) {
                    return failf(c, d->loc, "parameter %s=%" G_GINT64_FORMAT " is out of its range %" G_GINT64_FORMAT
                                 "..%" G_GINT64_FORMAT "%s", d->name, v, lo, hi, over ? " (set on the command line)" : "");
                }
            }
            if (!add_global(c, d->name, d->loc, sym_new(SYM_PARAM, v))) {
                return false;
            }
            int64_t *boxed = g_new(int64_t, 1);
            *boxed = v;
            g_hash_table_replace(p->params, g_strdup(d->name), boxed);
            break;
        }
        case DECL_BLOCK: {
            if (have_block) {
                return failf(c, d->loc, "the block size is declared twice");
            }
            int64_t dim[3];
            if (!shape_of(c, d, "block", dim)) {
                return false;
            }
            int64_t v = dim[0] * dim[1] * dim[2];
            if (v > MAX_BLOCK_THREADS) {
                return failf(c, d->loc, "a block has 1 to %d threads, not %" G_GINT64_FORMAT, MAX_BLOCK_THREADS, v);
            }
            memcpy(p->block_dim, dim, sizeof dim);
            p->block_threads = v;
            p->warps = (v + SIM_WARP_SIZE - 1) / SIM_WARP_SIZE;
            have_block = true;
            break;
        }
        case DECL_GRID: {
            if (have_grid) {
                return failf(c, d->loc, "the grid is declared twice");
            }
            if (c->grid_read) {
                return failf(c, d->loc, "the grid's shape is used before the 'grid' declaration");
            }
            int64_t dim[3];
            if (!shape_of(c, d, "grid", dim)) {
                return false;
            }
            /* The runner checks the shape against the resident blocks
             * (sim_run_prepare), which it takes from here when unset. */
            memcpy(p->grid_dim, dim, sizeof dim);
            p->grid_declared = true;
            p->grid_loc = d->loc;
            have_grid = true;
            break;
        }
        case DECL_TYPE: {
            Sym *s = sym_new(SYM_TYPE, 0);
            if (!resolve_type(c, d->type, &s->elem)) {
                g_free(s);
                return false;
            }
            if (!add_global(c, d->name, d->loc, s)) {
                return false;
            }
            break;
        }
        case DECL_SHARED:
        case DECL_GLOBAL:
        case DECL_PIPE: {
            ProgBuffer b;
            memset(&b, 0, sizeof b);
            if (!resolve_type(c, d->type, &b.elem) ||
                !const_value(c, d->a, d->kind == DECL_PIPE ? "the pipe's capacity" : "the element count", &b.count)) {
                return false;
            }
            if (b.count < 1) {
                return failf(c, d->a->loc, "the element count must be at least 1, not %" G_GINT64_FORMAT, b.count);
            }
            if (b.count > MAX_GLOBAL_BYTES / b.elem.size) {
                return failf(c, d->a->loc, "%s is larger than 1 TiB", d->name);
            }
            b.bytes = b.count * b.elem.size;
            b.align = b.elem.align;
            if (d->b != NULL) {
                if (!const_value(c, d->b, "the alignment", &b.align)) {
                    return false;
                }
                if (b.align < b.elem.align || b.align > 4096 || (b.align & (b.align - 1)) != 0) {
                    return failf(c, d->b->loc, "the alignment must be a power of two from alignof(%s)=%u to 4096",
                                 b.elem.name, b.elem.align);
                }
            }
            b.name = g_strdup(d->name);
            b.loc = d->loc;
            if (d->kind == DECL_PIPE) {
                if (b.count > MAX_PIPE_PACKETS) {
                    g_free(b.name);
                    return failf(c, d->a->loc, "a pipe holds at most %" G_GINT64_FORMAT " packets, not %"
                                 G_GINT64_FORMAT, MAX_PIPE_PACKETS, b.count);
                }
                /* The header line, then the packets (docs/opencl-pipes.md). */
                int64_t header = align_up(gmem, 256);
                ProgPipe pp = { .name = g_strdup(d->name), .elem = b.elem, .capacity = b.count, .header = header,
                                .base = header + 256, .loc = d->loc };
                gmem = pp.base + b.bytes;
                g_free(b.name);
                g_array_append_val(p->pipes, pp);
                if (!add_global(c, d->name, d->loc, sym_new(SYM_PIPE, p->pipes->len - 1))) {
                    return false;
                }
                break;
            }
            if (d->kind == DECL_SHARED) {
                b.space = SPACE_SHARED;
                if (b.bytes > MAX_SHARED_DECL_BYTES) {
                    g_free(b.name);
                    return failf(c, d->a->loc, "%s is larger than 1 GiB of shared memory", d->name);
                }
                b.base = align_up(smem, MAX(b.align, 16));
                smem = b.base + b.bytes;
            } else {
                b.space = SPACE_GLOBAL;
                b.base = align_up(gmem, MAX(b.align, 256));
                gmem = b.base + b.bytes;
                if (gmem - GLOBAL_BASE > MAX_GLOBAL_BYTES) {
                    g_free(b.name);
                    return failf(c, d->loc, "global buffers larger than 1 TiB in all");
                }
            }
            g_array_append_val(p->buffers, b);
            if (!add_global(c, d->name, d->loc, sym_new(SYM_BUFFER, p->buffers->len - 1))) {
                return false;
            }
            break;
        }
        case DECL_PSTATE: {
            ProgPState s = { NULL, 0, 0, d->loc };
            if (!const_value(c, d->a, "the stage count", &s.stages)) {
                return false;
            }
            /* SPEC make-pipeline-6: pipeline_shared_state<Scope, uint8_t N>. */
            if (s.stages < 1 || s.stages > 255) {
                return failf(c, d->a->loc, "a pipeline_shared_state has 1 to 255 stages (uint8_t), not %" G_GINT64_FORMAT,
                             s.stages);
            }
            c->mbarriers += 2 * s.stages;
            if (c->mbarriers > MAX_MBARRIERS) {
                return failf(c, d->loc, "more than %d mbarriers (a barrier is one, a pipeline_shared_state two per"
                             " stage)", MAX_MBARRIERS);
            }
            /* Layout as libcudacxx: stages x {produced, consumed} mbarriers of
             * 8 bytes, then a 4-byte reference count. */
            s.smem_offset = align_up(smem, 8);
            smem = s.smem_offset + s.stages * 16 + 8;
            s.name = g_strdup(d->name);
            g_array_append_val(p->pstates, s);
            if (!add_global(c, d->name, d->loc, sym_new(SYM_PSTATE, p->pstates->len - 1))) {
                return false;
            }
            break;
        }
        case DECL_BARRIER: {
            if (++c->mbarriers > MAX_MBARRIERS) {
                return failf(c, d->loc, "more than %d mbarriers (a barrier is one, a pipeline_shared_state two per"
                             " stage)", MAX_MBARRIERS);
            }
            ProgBarrier b = { g_strdup(d->name), align_up(smem, 8), d->loc };
            smem = b.smem_offset + 8;
            g_array_append_val(p->barriers, b);
            if (!add_global(c, d->name, d->loc, sym_new(SYM_BARRIER, p->barriers->len - 1))) {
                return false;
            }
            break;
        }
        case DECL_DEF: {
            Sym *s = sym_new(SYM_DEF, 0);
            s->def = d;
            if (!add_global(c, d->name, d->loc, s)) {
                return false;
            }
            break;
        }
        }
    }
    if (c->params_only) {
        return true;
    }
    if (!have_block) {
        SrcLoc top = { 1, 1 };
        return failf(c, top, "the trace does not say how many threads a block has: add 'block N'");
    }
    p->smem_bytes = smem;
    p->global_bytes = gmem - GLOBAL_BASE;
    /* Every override must name a parameter. */
    if (overrides != NULL) {
        for (guint i = 0; i < overrides->len; i++) {
            const ProgParamOverride *o = &g_array_index(overrides, ProgParamOverride, i);
            if (!g_hash_table_contains(p->params, o->name)) {
                GString *names = g_string_new(NULL);
                for (guint k = 0; k < t->decls->len; k++) {
                    const Decl *d = g_ptr_array_index(t->decls, k);
                    if (d->kind == DECL_PARAM) {
                        g_string_append_printf(names, "%s%s", names->len ? ", " : "", d->name);
                    }
                }
                g_set_error(c->error, SIM_ERROR, SIM_ERROR_INPUT,
                            "%s: --set %s: the trace has no parameter '%s' (it has: %s)", t->path, o->name, o->name,
                            names->len ? names->str : "none");
                g_string_free(names, TRUE);
                return false;
            }
        }
    }
    return true;
}

/* ---------------------------------------------------------------- entry */

static void buffer_clear(gpointer p)
{
    g_free(((ProgBuffer *) p)->name);
}

static void pstate_clear(gpointer p)
{
    g_free(((ProgPState *) p)->name);
}

static void barrier_clear(gpointer p)
{
    g_free(((ProgBarrier *) p)->name);
}

static void pipe_clear(gpointer p)
{
    g_free(((ProgPipe *) p)->name);
}

static void var_clear(gpointer p)
{
    g_free(((ProgVar *) p)->name);
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* The nodes one evaluation of n visits, memoized in n->cost. */
static uint32_t node_cost(ExprNode *n)
{
    if (n == NULL) {
        return 0;
    }
    if (n->cost == 0) {
        uint64_t cost = 1 + (uint64_t) node_cost(n->a) + node_cost(n->b) + node_cost(n->c);
        n->cost = (uint32_t) MIN(cost, UINT32_MAX);
    }
    return n->cost;
}

/* Every expression an operation evaluates must stay small when its shared
 * operands are counted at each use. */
static bool check_costs(Compiler *c)
{
    for (guint i = 0; i < c->prog->ops->len; i++) {
        Op *op = op_at(c, (int) i);
        for (size_t k = 0; k < G_N_ELEMENTS(op->e); k++) {
            if (op->e[k] != NULL && node_cost(op->e[k]) > MAX_EXPR_COST) {
                return failf(c, op->e[k]->loc, "this expression is too large: one evaluation visits more than %d"
                             " nodes (a function that uses its parameters more than once, nested?)", MAX_EXPR_COST);
            }
        }
    }
    return true;
}

/* Discards everything the body compilation produced, for another pass. */
static void reset_body(Program *p)
{
    g_array_set_size(p->vars, 0);
    g_array_set_size(p->ops, 0);
    g_ptr_array_set_size(p->classes, 0);
    p->value_slots = 0;
}

/* An empty program for trace.  Returns a new Program. */
static Program *program_alloc(const Trace *trace, int64_t grid_blocks)
{
    Program *p = g_new0(Program, 1);
    p->trace = trace;
    p->grid_blocks = grid_blocks;
    p->block_dim[1] = p->block_dim[2] = 1;
    p->grid_dim[0] = grid_blocks;
    p->grid_declared = false;
    p->grid_dim[1] = p->grid_dim[2] = 1;
    p->params = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    p->param_names = g_ptr_array_new_with_free_func(g_free);
    p->unused_params = g_ptr_array_new_with_free_func(g_free);
    p->buffers = g_array_new(FALSE, TRUE, sizeof(ProgBuffer));
    g_array_set_clear_func(p->buffers, buffer_clear);
    p->pstates = g_array_new(FALSE, TRUE, sizeof(ProgPState));
    g_array_set_clear_func(p->pstates, pstate_clear);
    p->barriers = g_array_new(FALSE, TRUE, sizeof(ProgBarrier));
    g_array_set_clear_func(p->barriers, barrier_clear);
    p->pipes = g_array_new(FALSE, TRUE, sizeof(ProgPipe));
    g_array_set_clear_func(p->pipes, pipe_clear);
    p->vars = g_array_new(FALSE, TRUE, sizeof(ProgVar));
    g_array_set_clear_func(p->vars, var_clear);
    p->ops = g_array_new(FALSE, TRUE, sizeof(Op));
    p->classes = g_ptr_array_new_with_free_func(g_free);
    p->nodes = g_ptr_array_new_with_free_func(g_free);
    return p;
}

bool program_peek_param(const Trace *trace, const GArray *overrides, const char *name, int64_t *out)
{
    g_autoptr(Program) p = program_alloc(trace, 1);
    GError *err = NULL;
    Compiler c;
    memset(&c, 0, sizeof c);
    c.prog = p;
    c.trace = trace;
    c.error = &err;
    c.params_only = true;
    c.globals = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    c.scopes = g_ptr_array_new_with_free_func((GDestroyNotify) g_hash_table_unref);
    c.decl_varying = g_array_new(FALSE, TRUE, sizeof(gboolean));
    bool ok = instantiate(&c, overrides) && g_hash_table_contains(p->params, name);
    if (ok) {
        *out = program_param(p, name, 0);
    }
    g_clear_error(&err);
    g_hash_table_unref(c.globals);
    g_ptr_array_free(c.scopes, TRUE);
    g_array_free(c.decl_varying, TRUE);
    return ok;
}

Program *program_new(const Trace *trace, const GArray *overrides, int64_t grid_blocks, GError **error)
{
    g_autoptr(Program) p = program_alloc(trace, grid_blocks);

    Compiler c;
    memset(&c, 0, sizeof c);
    c.prog = p;
    c.trace = trace;
    c.error = error;
    c.globals = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    c.scopes = g_ptr_array_new_with_free_func((GDestroyNotify) g_hash_table_unref);
    c.decl_varying = g_array_new(FALSE, TRUE, sizeof(gboolean));
    bool ok = instantiate(&c, overrides);
    /* Nodes made from here on belong to one pass and are dropped with it. */
    guint instance_nodes = p->nodes->len;
    int64_t compiled = 0;
    for (int pass = 0; ok; pass++) {
        reset_body(p);
        g_ptr_array_set_size(p->nodes, instance_nodes);
        c.changed = false;
        c.pipeline_sites = 0;
        g_ptr_array_set_size(c.scopes, 0);
        push_scope(&c);
        ok = compile_block(&c, trace->body) && emit(&c, OP_EXIT, (SrcLoc) { 0, 0 }) >= 0;
        if (!ok || !c.changed) {
            break;
        }
        compiled += p->ops->len;
        if (compiled > MAX_COMPILED_OPS) {
            const Stmt *first = g_ptr_array_index(trace->body, 0);
            ok = failf(&c, first->loc, "which variables differ between threads did not settle after %d passes over"
                       " the program (%d operations compiled): a long chain of assignments running backwards"
                       " through a loop?", pass + 1, MAX_COMPILED_OPS);
            break;
        }
        g_assert(pass <= MAX_VARS);
    }
    ok = ok && check_costs(&c);
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, p->params);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        g_ptr_array_add(p->param_names, g_strdup(key));
        const Sym *sym = g_hash_table_lookup(c.globals, key);
        /* blocks is read by the runner (resident work-groups). */
        if (sym != NULL && !sym->used && strcmp(key, "blocks") != 0) {
            g_ptr_array_add(p->unused_params, g_strdup(key));
        }
    }
    g_ptr_array_sort(p->param_names, cmp_str);
    g_ptr_array_sort(p->unused_params, cmp_str);
    g_hash_table_unref(c.globals);
    g_ptr_array_free(c.scopes, TRUE);
    g_array_free(c.decl_varying, TRUE);
    if (!ok) {
        return NULL;
    }
    return g_steal_pointer(&p);
}

void program_free(Program *p)
{
    if (p == NULL) {
        return;
    }
    g_hash_table_unref(p->params);
    g_ptr_array_free(p->param_names, TRUE);
    g_ptr_array_free(p->unused_params, TRUE);
    g_array_free(p->buffers, TRUE);
    g_array_free(p->pstates, TRUE);
    g_array_free(p->barriers, TRUE);
    g_array_free(p->pipes, TRUE);
    g_array_free(p->vars, TRUE);
    g_array_free(p->ops, TRUE);
    g_ptr_array_free(p->classes, TRUE);
    g_ptr_array_free(p->nodes, TRUE);
    g_free(p);
}

int64_t program_param(const Program *prog, const char *name, int64_t fallback)
{
    const int64_t *v = g_hash_table_lookup(prog->params, name);
    return v ? *v : fallback;
}

const char *op_code_name(OpCode code)
{
    static const char *names[OP__COUNT] = {
        [OP_NOP] = "nop", [OP_ASSIGN] = "assign", [OP_JUMP] = "jump", [OP_BRANCH] = "branch",
        [OP_LOOP] = "loop", [OP_RETURN] = "return", [OP_ASSERT] = "assert", [OP_LOOP_ENTER] = "loop_enter",
        [OP_MAKE_PIPE_THREAD] = "make_pipeline(thread)", [OP_MAKE_PIPE_BLOCK] = "make_pipeline(block)",
        [OP_PIPE_ACQUIRE] = "producer_acquire", [OP_PIPE_COMMIT] = "producer_commit",
        [OP_PIPE_WAIT] = "consumer_wait", [OP_PIPE_WAIT_FOR] = "consumer_wait_for",
        [OP_PIPE_RELEASE] = "consumer_release", [OP_PIPE_QUIT] = "quit",
        [OP_PIPE_WAIT_PRIOR] = "pipeline_consumer_wait_prior", [OP_PIPE_COMMIT_BAR] = "pipeline_producer_commit",
        [OP_MEMCPY] = "memcpy_async", [OP_MEMCPY_TX] = "memcpy_async_tx", [OP_BAR_INIT] = "init",
        [OP_BAR_ARRIVE] = "arrive", [OP_BAR_ARRIVE_TX] = "barrier_arrive_tx", [OP_BAR_EXPECT_TX] = "barrier_expect_tx",
        [OP_BAR_WAIT] = "wait", [OP_BAR_WAIT_PARITY] = "wait_parity", [OP_BAR_ARRIVE_WAIT] = "arrive_and_wait",
        [OP_BAR_ARRIVE_DROP] = "arrive_and_drop", [OP_SYNCTHREADS] = "__syncthreads", [OP_SYNCWARP] = "__syncwarp",
        [OP_CG_WAIT] = "cooperative_groups::wait", [OP_COMPUTE] = "compute", [OP_LOAD] = "load",
        [OP_STORE] = "store", [OP_CL_RESERVE] = "reserve_pipe", [OP_CL_COMMIT] = "commit_pipe",
        [OP_CL_RW_RESERVED] = "read/write_pipe(reserved)", [OP_CL_RW] = "read/write_pipe",
        [OP_CL_IS_VALID] = "is_valid_reserve_id", [OP_WG_BARRIER] = "work_group_barrier", [OP_EXIT] = "exit",
    };
    return code < OP__COUNT && names[code] ? names[code] : "?";
}

void program_dump(const Program *p, GString *out)
{
    g_string_append_printf(out, "block: %" G_GINT64_FORMAT " threads (%" G_GINT64_FORMAT " warps), grid %"
                            G_GINT64_FORMAT " blocks\n", p->block_threads, p->warps, p->grid_blocks);
    g_string_append_printf(out, "shared memory: %" G_GINT64_FORMAT " bytes declared\n", p->smem_bytes);
    for (guint i = 0; i < p->param_names->len; i++) {
        const char *n = g_ptr_array_index(p->param_names, i);
        g_string_append_printf(out, "param %s = %" G_GINT64_FORMAT "\n", n, program_param(p, n, 0));
    }
    for (guint i = 0; i < p->buffers->len; i++) {
        const ProgBuffer *b = &g_array_index(p->buffers, ProgBuffer, i);
        g_string_append_printf(out, "%s %s %s[%" G_GINT64_FORMAT "] at %" G_GINT64_FORMAT " (%" G_GINT64_FORMAT
                               " bytes, align %" G_GINT64_FORMAT ")\n", b->space == SPACE_SHARED ? "shared" : "global",
                               b->elem.name, b->name, b->count, b->base, b->bytes, b->align);
    }
    for (guint i = 0; i < p->pipes->len; i++) {
        const ProgPipe *pp = &g_array_index(p->pipes, ProgPipe, i);
        g_string_append_printf(out, "pipe %s %s[%" G_GINT64_FORMAT "]: header at %" G_GINT64_FORMAT ", packets at %"
                               G_GINT64_FORMAT "\n", pp->elem.name, pp->name, pp->capacity, pp->header, pp->base);
    }
    for (guint i = 0; i < p->vars->len; i++) {
        const ProgVar *v = &g_array_index(p->vars, ProgVar, i);
        g_string_append_printf(out, "var %s: %s\n", v->name, v->varying ? "varying" : "uniform");
    }
    for (guint i = 0; i < p->ops->len; i++) {
        const Op *op = &g_array_index(p->ops, Op, i);
        const char *name = op_code_name(op->code);
        if (op->code == OP_ASSERT && op->sub == ASSERT_EXPECT) {
            name = "expect";
        } else if (op->code == OP_STORE && op->sub != STORE_DATA) {
            name = op->sub == STORE_FILL ? "fill" : "store value";
        } else if (op->code == OP_MEMCPY && op->untyped) {
            name = "memcpy_async (void *)";
        }
        g_string_append_printf(out, "%4u  %-28s line %u", i, name, op->loc.line);
        if (op->target >= 0) {
            g_string_append_printf(out, "  -> %d", op->target);
        }
        if (op->join >= 0) {
            g_string_append_printf(out, "  join %d", op->join);
        }
        g_string_append_c(out, '\n');
    }
}
