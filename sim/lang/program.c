/* program.c: instantiation of a parsed trace (parameters, types, buffers)
 * and its compilation into the operations warps interpret.
 *
 * Uniformity: a variable is `varying` (one value per lane) when any
 * assignment to it has a lane-dependent value or happens under
 * lane-dependent control flow.  Since that depends on the other variables,
 * the body is compiled repeatedly until no variable changes class (each pass
 * can only turn variables from uniform to varying, so this terminates). */
#include "sim/lang/compiler.h"

/* ------------------------------------------------------------ utilities */

bool comp_failf(Compiler *c, SrcLoc loc, const char *fmt, ...)
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

Sym *comp_sym_new(SymKind kind, int64_t value)
{
    Sym *s = g_new0(Sym, 1);
    s->kind = kind;
    s->value = value;
    return s;
}

Sym *comp_lookup(Compiler *c, const char *name)
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

void comp_push_scope(Compiler *c)
{
    g_ptr_array_add(c->scopes, g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free));
}

void comp_pop_scope(Compiler *c)
{
    g_ptr_array_remove_index(c->scopes, c->scopes->len - 1);
}

/* ---------------------------------------------------------- declarations */

static bool add_global(Compiler *c, const char *name, SrcLoc loc, Sym *sym)
{
    if (g_hash_table_contains(c->globals, name)) {
        g_free(sym);
        return comp_failf(c, loc, "'%s' is declared twice", name);
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
        if (!comp_const_value(c, e[i], name, &dim[i])) {
            return false;
        }
        if (dim[i] < 1 || dim[i] > max[i]) {
            if (block && d->b == NULL) {
                return comp_failf(c, d->loc, "a block has 1 to %d threads, not %" G_GINT64_FORMAT, MAX_BLOCK_THREADS,
                             dim[i]);
            }
            return comp_failf(c, e[i]->loc, "the %s's %s size must be 1 to %" G_GINT64_FORMAT ", not %" G_GINT64_FORMAT,
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
    g_hash_table_replace(c->globals, g_strdup("pipeline_role::producer"), comp_sym_new(SYM_ROLE, 0));
    g_hash_table_replace(c->globals, g_strdup("producer"), comp_sym_new(SYM_ROLE, 0));
    g_hash_table_replace(c->globals, g_strdup("pipeline_role::consumer"), comp_sym_new(SYM_ROLE, 1));
    g_hash_table_replace(c->globals, g_strdup("consumer"), comp_sym_new(SYM_ROLE, 1));
    g_hash_table_replace(c->globals, g_strdup("block"), comp_sym_new(SYM_GROUP, GROUP_BLOCK));
    g_hash_table_replace(c->globals, g_strdup("grid"), comp_sym_new(SYM_GROUP, GROUP_GRID));
    g_hash_table_replace(c->globals, g_strdup("thread"), comp_sym_new(SYM_GROUP, GROUP_THREAD));
    g_hash_table_replace(c->globals, g_strdup("warp"), comp_sym_new(SYM_GROUP, GROUP_WARP));

    for (guint i = 0; i < t->decls->len; i++) {
        const Decl *d = g_ptr_array_index(t->decls, i);
        if (c->params_only && d->kind != DECL_PARAM) {
            continue;
        }
        switch (d->kind) {
        case DECL_PARAM: {
            int64_t v;
            bool over = param_override(overrides, d->name, &v);
            if (!over && !comp_const_value(c, d->a, "a parameter's default", &v)) {
                return false;
            }
            if (d->b != NULL) {
                int64_t lo, hi;
                if (!comp_const_value(c, d->b, "the range's low end", &lo) ||
                    !comp_const_value(c, d->c, "the range's high end", &hi)) {
                    return false;
                }
                if (v < lo || v > hi) {
                    return comp_failf(c, d->loc, "parameter %s=%" G_GINT64_FORMAT " is out of its range %" G_GINT64_FORMAT
                                 "..%" G_GINT64_FORMAT "%s", d->name, v, lo, hi, over ? " (set on the command line)" : "");
                }
            }
            if (!add_global(c, d->name, d->loc, comp_sym_new(SYM_PARAM, v))) {
                return false;
            }
            int64_t *boxed = g_new(int64_t, 1);
            *boxed = v;
            g_hash_table_replace(p->params, g_strdup(d->name), boxed);
            break;
        }
        case DECL_BLOCK: {
            if (have_block) {
                return comp_failf(c, d->loc, "the block size is declared twice");
            }
            int64_t dim[3];
            if (!shape_of(c, d, "block", dim)) {
                return false;
            }
            int64_t v = dim[0] * dim[1] * dim[2];
            if (v > MAX_BLOCK_THREADS) {
                return comp_failf(c, d->loc, "a block has 1 to %d threads, not %" G_GINT64_FORMAT, MAX_BLOCK_THREADS, v);
            }
            memcpy(p->block_dim, dim, sizeof dim);
            p->block_threads = v;
            p->warps = (v + SIM_WARP_SIZE - 1) / SIM_WARP_SIZE;
            have_block = true;
            break;
        }
        case DECL_GRID: {
            if (have_grid) {
                return comp_failf(c, d->loc, "the grid is declared twice");
            }
            if (c->grid_read) {
                return comp_failf(c, d->loc, "the grid's shape is used before the 'grid' declaration");
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
            Sym *s = comp_sym_new(SYM_TYPE, 0);
            if (!comp_resolve_type(c, d->type, &s->elem)) {
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
            if (!comp_resolve_type(c, d->type, &b.elem) ||
                !comp_const_value(c, d->a, d->kind == DECL_PIPE ? "the pipe's capacity" : "the element count", &b.count)) {
                return false;
            }
            if (b.count < 1) {
                return comp_failf(c, d->a->loc, "the element count must be at least 1, not %" G_GINT64_FORMAT, b.count);
            }
            if (b.count > MAX_GLOBAL_BYTES / b.elem.size) {
                return comp_failf(c, d->a->loc, "%s is larger than 1 TiB", d->name);
            }
            b.bytes = b.count * b.elem.size;
            b.align = b.elem.align;
            if (d->b != NULL) {
                if (!comp_const_value(c, d->b, "the alignment", &b.align)) {
                    return false;
                }
                if (b.align < b.elem.align || b.align > 4096 || (b.align & (b.align - 1)) != 0) {
                    return comp_failf(c, d->b->loc, "the alignment must be a power of two from alignof(%s)=%u to 4096",
                                 b.elem.name, b.elem.align);
                }
            }
            b.name = g_strdup(d->name);
            b.loc = d->loc;
            if (d->kind == DECL_PIPE) {
                if (b.count > MAX_PIPE_PACKETS) {
                    g_free(b.name);
                    return comp_failf(c, d->a->loc, "a pipe holds at most %" G_GINT64_FORMAT " packets, not %"
                                 G_GINT64_FORMAT, MAX_PIPE_PACKETS, b.count);
                }
                /* The header line, then the packets (docs/opencl-pipes.md). */
                int64_t header = align_up(gmem, 256);
                ProgPipe pp = { .name = g_strdup(d->name), .elem = b.elem, .capacity = b.count, .header = header,
                                .base = header + 256, .loc = d->loc };
                gmem = pp.base + b.bytes;
                g_free(b.name);
                g_array_append_val(p->pipes, pp);
                if (!add_global(c, d->name, d->loc, comp_sym_new(SYM_PIPE, p->pipes->len - 1))) {
                    return false;
                }
                break;
            }
            if (d->kind == DECL_SHARED) {
                b.space = SPACE_SHARED;
                if (b.bytes > MAX_SHARED_DECL_BYTES) {
                    g_free(b.name);
                    return comp_failf(c, d->a->loc, "%s is larger than 1 GiB of shared memory", d->name);
                }
                b.base = align_up(smem, MAX(b.align, 16));
                smem = b.base + b.bytes;
            } else {
                b.space = SPACE_GLOBAL;
                b.base = align_up(gmem, MAX(b.align, 256));
                gmem = b.base + b.bytes;
                if (gmem - GLOBAL_BASE > MAX_GLOBAL_BYTES) {
                    g_free(b.name);
                    return comp_failf(c, d->loc, "global buffers larger than 1 TiB in all");
                }
            }
            g_array_append_val(p->buffers, b);
            if (!add_global(c, d->name, d->loc, comp_sym_new(SYM_BUFFER, p->buffers->len - 1))) {
                return false;
            }
            break;
        }
        case DECL_PSTATE: {
            ProgPState s = { NULL, 0, 0, d->loc };
            if (!comp_const_value(c, d->a, "the stage count", &s.stages)) {
                return false;
            }
            /* SPEC make-pipeline-6: pipeline_shared_state<Scope, uint8_t N>. */
            if (s.stages < 1 || s.stages > 255) {
                return comp_failf(c, d->a->loc, "a pipeline_shared_state has 1 to 255 stages (uint8_t), not %" G_GINT64_FORMAT,
                             s.stages);
            }
            c->mbarriers += 2 * s.stages;
            if (c->mbarriers > MAX_MBARRIERS) {
                return comp_failf(c, d->loc, "more than %d mbarriers (a barrier is one, a pipeline_shared_state two per"
                             " stage)", MAX_MBARRIERS);
            }
            /* Layout as libcudacxx: stages x {produced, consumed} mbarriers of
             * 8 bytes, then a 4-byte reference count. */
            s.smem_offset = align_up(smem, 8);
            smem = s.smem_offset + s.stages * 16 + 8;
            s.name = g_strdup(d->name);
            g_array_append_val(p->pstates, s);
            if (!add_global(c, d->name, d->loc, comp_sym_new(SYM_PSTATE, p->pstates->len - 1))) {
                return false;
            }
            break;
        }
        case DECL_BARRIER: {
            if (++c->mbarriers > MAX_MBARRIERS) {
                return comp_failf(c, d->loc, "more than %d mbarriers (a barrier is one, a pipeline_shared_state two per"
                             " stage)", MAX_MBARRIERS);
            }
            ProgBarrier b = { g_strdup(d->name), align_up(smem, 8), d->loc };
            smem = b.smem_offset + 8;
            g_array_append_val(p->barriers, b);
            if (!add_global(c, d->name, d->loc, comp_sym_new(SYM_BARRIER, p->barriers->len - 1))) {
                return false;
            }
            break;
        }
        case DECL_DEF: {
            Sym *s = comp_sym_new(SYM_DEF, 0);
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
        return comp_failf(c, top, "the trace does not say how many threads a block has: add 'block N'");
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
        Op *op = comp_op_at(c, (int) i);
        for (size_t k = 0; k < G_N_ELEMENTS(op->e); k++) {
            if (op->e[k] != NULL && node_cost(op->e[k]) > MAX_EXPR_COST) {
                return comp_failf(c, op->e[k]->loc, "this expression is too large: one evaluation visits more than %d"
                             " nodes (a function that uses its parameters more than once, nested?)", MAX_EXPR_COST);
            }
        }
    }
    return true;
}

/* Gives every operation's expression its flat form (sim_expr_compile),
 * once the last pass has settled the nodes; a node shared by several
 * operations is compiled once. */
static void compile_codes(Program *p)
{
    for (guint i = 0; i < p->ops->len; i++) {
        Op *op = &g_array_index(p->ops, Op, i);
        for (size_t k = 0; k < G_N_ELEMENTS(op->e); k++) {
            ExprNode *n = op->e[k];
            if (n != NULL && n->code == NULL) {
                SimExprCode *code = sim_expr_compile(n);
                if (code != NULL) {
                    g_ptr_array_add(p->codes, code);
                    n->code = code;
                }
            }
        }
    }
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
    p->codes = g_ptr_array_new_with_free_func(g_free);
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
        c.varying_control = 0;
        c.after_apart = false;
        c.pipeline_sites = 0;
        g_ptr_array_set_size(c.scopes, 0);
        comp_push_scope(&c);
        ok = compile_block(&c, trace->body) && comp_emit(&c, OP_EXIT, (SrcLoc) { 0, 0 }) >= 0;
        if (!ok || !c.changed) {
            break;
        }
        compiled += p->ops->len;
        if (compiled > MAX_COMPILED_OPS) {
            const Stmt *first = g_ptr_array_index(trace->body, 0);
            ok = comp_failf(&c, first->loc, "which variables differ between threads did not settle after %d passes over"
                       " the program (%d operations compiled): a long chain of assignments running backwards"
                       " through a loop?", pass + 1, MAX_COMPILED_OPS);
            break;
        }
        g_assert(pass <= MAX_VARS);
    }
    ok = ok && check_costs(&c);
    if (ok) {
        compile_codes(p);
    }
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
    g_ptr_array_free(p->codes, TRUE);
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
