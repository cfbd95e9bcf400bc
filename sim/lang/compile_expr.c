/* compile_expr.c: the trace compiler's expressions (see compiler.h): types,
 * constants, the built-in names (threadIdx, blockDim, groups, ...), calls
 * of defs and of the value built-ins, and the variables' declarations and
 * their uniformity (varying or not). */
#include "sim/lang/compiler.h"

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

ExprNode *comp_const_node(Compiler *c, SrcLoc loc, int64_t v)
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

bool comp_const_value(Compiler *c, const Expr *e, const char *what, int64_t *out)
{
    *out = 0;
    ExprNode *n = comp_expr(c, e);
    if (n == NULL) {
        return false;
    }
    if (n->kind != EN_CONST || n->type.kind != TY_INT) {
        return comp_failf(c, e->loc, "%s must be a constant expression of parameters", what);
    }
    *out = n->value;
    return true;
}

/* Resolves a type expression: a name (int, int4, an alias) or elem(N). */
bool comp_resolve_type(Compiler *c, const Expr *e, ElemType *out)
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
        return comp_failf(c, e->loc, "unknown type '%s' (int, int2, int4, float, char, ..., elem(N), or a 'type' alias)",
                     e->name);
    }
    if (e->kind == EX_CALL && e->a->kind == EX_NAME && strcmp(e->a->name, "elem") == 0 &&
        e->args->len == 1) {
        int64_t size;
        if (!comp_const_value(c, g_ptr_array_index(e->args, 0), "the size of elem(N)", &size)) {
            return false;
        }
        if (!elem_from_size(size, out)) {
            return comp_failf(c, e->loc, "elem(%" G_GINT64_FORMAT ") is not a type: the size must be 1, 2, 4, 8 or 16 bytes",
                         size);
        }
        return true;
    }
    return comp_failf(c, e->loc, "expected a type");
}

const char *comp_type_name(const ValueType *t)
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

ExprNode *comp_fold_binary(Compiler *c, SrcLoc loc, int op, ExprNode *a, ExprNode *b)
{
    if (a->kind == EN_CONST && b->kind == EN_CONST) {
        int64_t r;
        SimArithStatus st = sim_arith_binary(op, a->value, b->value, &r);
        if (st != SIM_ARITH_OK) {
            comp_failf(c, loc, "%s", sim_arith_message(st));
            return NULL;
        }
        return comp_const_node(c, loc, r);
    }
    ExprNode *n = node_new(c, EN_BINARY, loc);
    n->op = op;
    n->a = a;
    n->b = b;
    n->varying = a->varying || b->varying;
    return n;
}

bool comp_want_int(Compiler *c, ExprNode *n, const char *what)
{
    if (n->type.kind != TY_INT) {
        return comp_failf(c, n->loc, "%s must be an integer, not %s", what, comp_type_name(&n->type));
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
bool comp_group_of(Compiler *c, const Expr *e, GroupKind *out)
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
        Sym *s = comp_lookup(c, e->name);
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
        comp_group_of(c, g_ptr_array_index(e->args, 0), &parent) &&
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
        return comp_const_node(c, loc, 0);
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
ExprNode *comp_block_dim(Compiler *c, SrcLoc loc, const char *what, int axis)
{
    if (c->prog->block_threads == 0) {
        comp_failf(c, loc, "%s is used before the 'block' declaration", what);
        return NULL;
    }
    return comp_const_node(c, loc, c->prog->block_dim[axis]);
}

ExprNode *comp_grid_dim(Compiler *c, SrcLoc loc, int axis)
{
    c->grid_read = true;
    return comp_const_node(c, loc, c->prog->grid_dim[axis]);
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
                comp_failf(c, e->loc, "%s has members x, y and z", base);
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
                return comp_block_dim(c, e->loc, what, axis);
            }
            return comp_grid_dim(c, e->loc, axis);
        }
    }
    /* group.group_index().x, group.group_dim().y, ... */
    if (e->a->kind == EX_CALL && e->a->a->kind == EX_MEMBER && axis >= 0) {
        const Expr *m = e->a->a;
        GroupKind g;
        if (comp_group_of(c, m->a, &g) && e->a->args->len == 0) {
            if (strcmp(m->name, "group_index") == 0 || strcmp(m->name, "block_index") == 0) {
                return block_index(c, e->loc, axis);
            }
            if (strcmp(m->name, "thread_index") == 0) {
                return thread_index(c, e->loc, axis);
            }
            if (g == GROUP_GRID && (strcmp(m->name, "group_dim") == 0 || strcmp(m->name, "dim_threads") == 0 ||
                                    strcmp(m->name, "dim_blocks") == 0)) {
                return comp_grid_dim(c, e->loc, axis);
            }
            if (strcmp(m->name, "group_dim") == 0 || strcmp(m->name, "dim_threads") == 0) {
                g_autofree char *what = g_strdup_printf("%s().%s", m->name, e->name);
                return comp_block_dim(c, e->loc, what, axis);
            }
            if (strcmp(m->name, "dim_blocks") == 0) {
                return comp_grid_dim(c, e->loc, axis);
            }
        }
    }
    comp_failf(c, e->loc, "unknown member '%s'", e->name);
    return NULL;
}

/* Pure calls: group queries, min/max, sizeof, def functions. */
static ExprNode *cx_call(Compiler *c, const Expr *e)
{
    GPtrArray *args = e->args;
    if (e->a->kind == EX_MEMBER) {
        const Expr *m = e->a;
        GroupKind g;
        if (comp_group_of(c, m->a, &g) && args->len == 0) {
            const char *f = m->name;
            int64_t lanes = program_group_lanes(g);
            bool meta = lanes > 1 && (strcmp(f, "meta_group_rank") == 0 || strcmp(f, "meta_group_size") == 0);
            if ((lanes == 0 || meta) && c->prog->block_threads == 0) {
                comp_failf(c, e->loc, "%s.%s() is used before the 'block' declaration", m->a->kind == EX_NAME ? m->a->name : "group", f);
                return NULL;
            }
            int64_t size = g == GROUP_BLOCK ? c->prog->block_threads
                           : g == GROUP_GRID ? c->prog->block_threads * c->prog->grid_blocks : lanes;
            if (strcmp(f, "size") == 0 || strcmp(f, "num_threads") == 0) {
                return comp_const_node(c, e->loc, size);
            }
            if (strcmp(f, "thread_rank") == 0) {
                if (g == GROUP_THREAD) {
                    return comp_const_node(c, e->loc, 0);
                }
                ExprNode *tid = node_new(c, EN_TID, e->loc);
                tid->varying = true;
                if (g == GROUP_BLOCK) {
                    return tid;
                }
                if (lanes > 0) {
                    ExprNode *lane = node_new(c, EN_LANE, e->loc);
                    lane->varying = true;
                    return lanes == 32 ? lane : comp_fold_binary(c, e->loc, '%', lane, comp_const_node(c, e->loc, lanes));
                }
                ExprNode *bid = node_new(c, EN_BLOCK_ID, e->loc);
                ExprNode *off = comp_fold_binary(c, e->loc, '*', bid, comp_const_node(c, e->loc, c->prog->block_threads));
                return off ? comp_fold_binary(c, e->loc, '+', off, tid) : NULL;
            }
            if (meta && strcmp(f, "meta_group_size") == 0) {
                /* The tiles of the block (the last one may be partial). */
                return comp_const_node(c, e->loc, (c->prog->block_threads + lanes - 1) / lanes);
            }
            if (meta) {
                /* meta_group_rank: the tile's index in the block. */
                ExprNode *tid = node_new(c, EN_TID, e->loc);
                tid->varying = true;
                return comp_fold_binary(c, e->loc, '/', tid, comp_const_node(c, e->loc, lanes));
            }
            if (strcmp(f, "num_blocks") == 0) {
                return comp_const_node(c, e->loc, c->prog->grid_blocks);
            }
            if (strcmp(f, "block_rank") == 0) {
                return node_new(c, EN_BLOCK_ID, e->loc);
            }
        }
        comp_failf(c, e->loc, "'%s' cannot be used in an expression: it is not a pure value"
              " (operations are statements, or assigned directly: var x = ...)", m->name);
        return NULL;
    }
    if (e->a->kind != EX_NAME) {
        comp_failf(c, e->loc, "this cannot be called");
        return NULL;
    }
    if (strcmp(e->a->name, PARSER_VOID_CAST) == 0) {
        comp_failf(c, e->loc, "a (void *) cast is only for memcpy_async's destination and source (its untyped overloads)");
        return NULL;
    }
    const char *f = parser_strip_ns(e->a->name);
    if (g_str_has_prefix(f, "std::")) {
        f += 5;
    }
    if ((strcmp(f, "min") == 0 || strcmp(f, "max") == 0) && args->len == 2) {
        ExprNode *a = comp_expr(c, g_ptr_array_index(args, 0));
        ExprNode *b = a ? comp_expr(c, g_ptr_array_index(args, 1)) : NULL;
        if (b == NULL || !comp_want_int(c, a, "min/max's argument") || !comp_want_int(c, b, "min/max's argument")) {
            return NULL;
        }
        bool is_min = strcmp(f, "min") == 0;
        if (a->kind == EN_CONST && b->kind == EN_CONST) {
            return comp_const_node(c, e->loc, is_min ? MIN(a->value, b->value) : MAX(a->value, b->value));
        }
        ExprNode *cond = comp_fold_binary(c, e->loc, '<', a, b);
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
            Sym *s = comp_lookup(c, a->name);
            if (s != NULL && s->kind == SYM_VAR) {
                const ProgVar *v = &g_array_index(c->prog->vars, ProgVar, s->value);
                if (v->type.kind == TY_DATA) {
                    return comp_const_node(c, e->loc, strcmp(f, "sizeof") == 0 ? v->type.elem.size : v->type.elem.align);
                }
            }
        }
        if (!comp_resolve_type(c, a, &t)) {
            return NULL;
        }
        return comp_const_node(c, e->loc, strcmp(f, "sizeof") == 0 ? t.size : t.align);
    }
    if (strcmp(f, "is_valid_reserve_id") == 0 && args->len == 1) {
        /* A failed reservation returns the invalid id 0 (docs/opencl-pipes.md). */
        ExprNode *r = comp_expr(c, g_ptr_array_index(args, 0));
        if (r == NULL) {
            return NULL;
        }
        if (r->type.kind != TY_RESERVE) {
            comp_failf(c, r->loc, "is_valid_reserve_id takes a reserve_id_t, not %s", comp_type_name(&r->type));
            return NULL;
        }
        ExprNode *n = node_new(c, EN_BINARY, e->loc);
        n->op = TK_NE;
        n->a = r;
        n->b = comp_const_node(c, e->loc, 0);
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
            if (args->len != 1 || !comp_const_value(c, g_ptr_array_index(args, 0), "the dimension", &dim)) {
                comp_failf(c, e->loc, "%s(dimindx) takes one constant dimension", f);
                return NULL;
            }
            if (dim < 0 || dim > 2) {
                comp_failf(c, e->loc, "%s: dimension %" G_GINT64_FORMAT " is not 0, 1 or 2", f, dim);
                return NULL;
            }
            if ((i == 3 || i == 5) && c->prog->block_threads == 0) {
                comp_failf(c, e->loc, "%s(0) is used before the 'block' declaration", f);
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
                ExprNode *off = comp_fold_binary(c, e->loc, '*', bid, comp_const_node(c, e->loc, c->prog->block_dim[axis]));
                return off ? comp_fold_binary(c, e->loc, '+', off, tid) : NULL;
            }
            case 3:
                return comp_const_node(c, e->loc, c->prog->block_dim[axis]);
            case 4:
                return comp_grid_dim(c, e->loc, axis);
            default:
                c->grid_read = true;
                return comp_const_node(c, e->loc, c->prog->grid_dim[axis] * c->prog->block_dim[axis]);
            }
        }
    }
    if (strcmp(f, "move") == 0 && args->len == 1) {
        return comp_expr(c, g_ptr_array_index(args, 0));
    }
    Sym *s = comp_lookup(c, e->a->name);
    if (s != NULL && s->kind == SYM_DEF) {
        const Decl *d = s->def;
        if (args->len != d->params->len) {
            comp_failf(c, e->loc, "'%s' takes %u argument%s, not %u", d->name, d->params->len,
                  d->params->len == 1 ? "" : "s", args->len);
            return NULL;
        }
        if (c->inline_depth >= MAX_INLINE_DEPTH) {
            comp_failf(c, e->loc, "functions nest more than %d deep (is '%s' recursive?)", MAX_INLINE_DEPTH, d->name);
            return NULL;
        }
        /* Bind parameters to the argument trees. */
        GHashTable *bind = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        for (guint i = 0; i < args->len; i++) {
            ExprNode *an = comp_expr(c, g_ptr_array_index(args, i));
            if (an == NULL) {
                g_hash_table_unref(bind);
                return NULL;
            }
            Sym *as = comp_sym_new(SYM_ARG, 0);
            as->node = an;
            g_hash_table_replace(bind, g_strdup(g_ptr_array_index(d->params, i)), as);
        }
        /* Like a C++ lambda capturing by reference, the body sees the
         * names in scope where it is called, under its parameters. */
        g_ptr_array_add(c->scopes, bind);
        c->inline_depth++;
        ExprNode *n = comp_expr(c, d->a);
        c->inline_depth--;
        comp_pop_scope(c);
        return n;
    }
    if (s == NULL && strcmp(f, "elem") != 0) {
        comp_failf(c, e->loc, "unknown function '%s'", e->a->name);
    } else {
        comp_failf(c, e->loc, "'%s' cannot be used in an expression: it is not a pure value"
              " (operations are statements, or assigned directly: var x = ...)", e->a->name);
    }
    return NULL;
}

static ExprNode *cx_name(Compiler *c, const Expr *e)
{
    const char *name = e->name;
    Sym *s = comp_lookup(c, name);
    if (s != NULL) {
        switch (s->kind) {
        case SYM_PARAM:
            s->used = true;
            return comp_const_node(c, e->loc, s->value);
        case SYM_ARG:
            return s->node;
        case SYM_ROLE: {
            ExprNode *n = comp_const_node(c, e->loc, s->value);
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
            ExprNode *n = comp_const_node(c, e->loc, b->base);
            n->type.kind = TY_PTR;
            n->type.elem = b->elem;
            n->type.buffer = (int32_t) s->value;
            return n;
        }
        case SYM_PIPELINE: {
            ExprNode *n = comp_const_node(c, e->loc, s->value);
            n->type.kind = TY_PIPE;
            return n;
        }
        case SYM_GROUP: {
            ExprNode *n = comp_const_node(c, e->loc, s->value);
            n->type.kind = TY_GROUP;
            n->type.group = (int32_t) s->value;
            return n;
        }
        case SYM_TYPE:
            comp_failf(c, e->loc, "'%s' is a type, not a value", name);
            return NULL;
        case SYM_PSTATE:
        case SYM_BARRIER:
        case SYM_PIPE:
            comp_failf(c, e->loc, "'%s' is a synchronisation object, not a number", name);
            return NULL;
        case SYM_DEF:
            comp_failf(c, e->loc, "'%s' is a function: call it with arguments", name);
            return NULL;
        }
    }
    const char *bare = parser_strip_ns(name);
    if (strcmp(bare, "warpSize") == 0) {
        return comp_const_node(c, e->loc, 32);
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
        return comp_const_node(c, e->loc, strcmp(bare, "true") == 0);
    }
    comp_failf(c, e->loc, "unknown name '%s'", name);
    return NULL;
}

ExprNode *comp_expr(Compiler *c, const Expr *e)
{
    if (c->prog->nodes->len >= MAX_NODES) {
        comp_failf(c, e->loc, "the program's expressions have more than %d nodes (a function that uses its parameters"
              " more than once, nested?)", MAX_NODES);
        return NULL;
    }
    switch (e->kind) {
    case EX_INT:
        return comp_const_node(c, e->loc, e->value);
    case EX_NAME:
        return cx_name(c, e);
    case EX_MEMBER:
        return cx_member(c, e);
    case EX_CALL:
        return cx_call(c, e);
    case EX_TEMPLATE:
        if (strcmp(e->name, "tiled_partition") == 0) {
            comp_failf(c, e->loc, "tiled_partition<N>(group) is simulated for N = 1, 2, 4, 8, 16 or 32 of the block"
                  " (32 also of a warp, 1 of any group) only, written with a number");
            return NULL;
        }
        comp_failf(c, e->loc, "%s<...>(...) is only allowed as an argument of memcpy_async", e->name);
        return NULL;
    case EX_UNARY: {
        ExprNode *a = comp_expr(c, e->a);
        if (a == NULL || !comp_want_int(c, a, "the operand")) {
            return NULL;
        }
        if (a->kind == EN_CONST) {
            int64_t r;
            SimArithStatus st = sim_arith_unary(e->op, a->value, &r);
            if (st != SIM_ARITH_OK) {
                comp_failf(c, e->loc, "%s", sim_arith_message(st));
                return NULL;
            }
            return comp_const_node(c, e->loc, r);
        }
        ExprNode *n = node_new(c, EN_UNARY, e->loc);
        n->op = e->op;
        n->a = a;
        n->varying = a->varying;
        return n;
    }
    case EX_TERNARY: {
        ExprNode *a = comp_expr(c, e->a);
        if (a == NULL || !comp_want_int(c, a, "the condition")) {
            return NULL;
        }
        if (a->kind == EN_CONST) {
            /* A constant condition chooses one side; the other is never
             * evaluated (as in C), so it cannot fail. */
            return comp_expr(c, a->value ? e->b : e->c);
        }
        ExprNode *b = comp_expr(c, e->b);
        ExprNode *d = b ? comp_expr(c, e->c) : NULL;
        if (d == NULL) {
            return NULL;
        }
        if (b->type.kind != d->type.kind || (b->type.kind == TY_PTR && b->type.buffer != d->type.buffer)) {
            comp_failf(c, e->loc, "both sides of '?:' must have one type (%s vs %s%s)", comp_type_name(&b->type),
                  comp_type_name(&d->type), b->type.kind == TY_PTR ? " into another buffer" : "");
            return NULL;
        }
        if (b->type.kind != TY_INT && b->type.kind != TY_PTR && b->type.kind != TY_ROLE) {
            comp_failf(c, e->loc, "'?:' cannot choose between %s values", comp_type_name(&b->type));
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
        ExprNode *a = comp_expr(c, e->a);
        if (a == NULL) {
            return NULL;
        }
        if ((e->op == TK_ANDAND || e->op == TK_OROR) && a->kind == EN_CONST && a->type.kind == TY_INT &&
            (a->value != 0) == (e->op == TK_OROR)) {
            /* Decided by the left side, as in C: the right one is never
             * evaluated, so it cannot fail (n != 0 && 10 / n with n = 0). */
            return comp_const_node(c, e->loc, e->op == TK_OROR);
        }
        ExprNode *b = comp_expr(c, e->b);
        if (b == NULL) {
            return NULL;
        }
        int op = e->op;
        TypeKind ta = a->type.kind, tb = b->type.kind;
        if (ta == TY_INT && tb == TY_INT) {
            return comp_fold_binary(c, e->loc, op, a, b);
        }
        if ((ta == TY_ROLE && tb == TY_ROLE) && (op == TK_EQ || op == TK_NE)) {
            return comp_fold_binary(c, e->loc, op, a, b);
        }
        /* Pointer arithmetic scales by the element size, as in C. */
        if ((op == '+' || op == '-') && ta == TY_PTR && tb == TY_INT) {
            ExprNode *scaled = comp_fold_binary(c, e->loc, '*', b, comp_const_node(c, e->loc, a->type.elem.size));
            ExprNode *n = scaled ? comp_fold_binary(c, e->loc, op, a, scaled) : NULL;
            if (n != NULL) {
                n->type = a->type;
            }
            return n;
        }
        if (op == '+' && ta == TY_INT && tb == TY_PTR) {
            ExprNode *scaled = comp_fold_binary(c, e->loc, '*', a, comp_const_node(c, e->loc, b->type.elem.size));
            ExprNode *n = scaled ? comp_fold_binary(c, e->loc, op, b, scaled) : NULL;
            if (n != NULL) {
                n->type = b->type;
            }
            return n;
        }
        if (ta == TY_PTR && tb == TY_PTR && a->type.buffer == b->type.buffer) {
            if (op == '-') {
                ExprNode *d = comp_fold_binary(c, e->loc, '-', a, b);
                return d ? comp_fold_binary(c, e->loc, '/', d, comp_const_node(c, e->loc, a->type.elem.size)) : NULL;
            }
            if (op == TK_EQ || op == TK_NE || op == '<' || op == '>' || op == TK_LE || op == TK_GE) {
                return comp_fold_binary(c, e->loc, op, a, b);
            }
        }
        comp_failf(c, e->loc, "operator %s cannot combine %s and %s", parser_token_name(op), comp_type_name(&a->type),
              comp_type_name(&b->type));
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

int comp_declare_var(Compiler *c, const char *name, SrcLoc loc, ValueType type, bool varying_value)
{
    GHashTable *scope = g_ptr_array_index(c->scopes, c->scopes->len - 1);
    if (g_hash_table_contains(scope, name)) {
        comp_failf(c, loc, "'%s' is already declared in this block", name);
        return -1;
    }
    if (c->prog->vars->len >= MAX_VARS) {
        comp_failf(c, loc, "more than %d variables", MAX_VARS);
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
    g_hash_table_replace(scope, g_strdup(name), comp_sym_new(SYM_VAR, index));
    return (int) index;
}

/* Notes an assignment to variable `index` of a value that may vary. */
void comp_assigned(Compiler *c, int index, bool varying_value)
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
