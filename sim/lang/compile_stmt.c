/* compile_stmt.c: the trace compiler's statements (see compiler.h): blocks
 * and their scopes (with the pipelines' destructors at their end),
 * variables, assignments, loops, branches and control flow. */
#include "sim/lang/compiler.h"

static gint later_op_first(gconstpointer a, gconstpointer b)
{
    int64_t x = (*(Sym *const *) a)->value, y = (*(Sym *const *) b)->value;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The end of a block (if, else or loop body), C++'s closing brace: each
 * block-scope pipeline declared in it is destroyed, the last declared
 * first (~pipeline() quits the threads that have not quit; a thread-scope
 * pipeline's destructor does nothing).  SPEC pipeline-scope-1.  Then the
 * block's names go.  Returns ok (whether the block compiled) and whether
 * the destructors could be emitted. */
bool comp_end_scope(Compiler *c, bool ok)
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
        int k = comp_emit(c, OP_PIPE_QUIT, comp_op_at(c, make)->loc);
        ok = k >= 0;
        if (ok) {
            comp_op_at(c, k)->obj = make;
            comp_op_at(c, k)->var = -1;
            comp_op_at(c, k)->sub = 1;
        }
    }
    comp_pop_scope(c);
    return ok;
}

/* ------------------------------------------------------------ statements */

static bool compile_assign_value(Compiler *c, const Stmt *s, int var_index, const Expr *value)
{
    ProgVar *v = &g_array_index(c->prog->vars, ProgVar, var_index);
    ExprNode *n = comp_expr(c, value);
    if (n == NULL) {
        return false;
    }
    if (n->type.kind != v->type.kind || (n->type.kind == TY_PTR && n->type.buffer != v->type.buffer)) {
        return comp_failf(c, value->loc, "'%s' holds %s%s; this is %s", v->name, comp_type_name(&v->type),
                     v->type.kind == TY_PTR ? " into one buffer" : "", comp_type_name(&n->type));
    }
    comp_assigned(c, var_index, n->varying);
    int k = comp_emit(c, OP_ASSIGN, s->loc);
    if (k < 0) {
        return false;
    }
    comp_op_at(c, k)->var = var_index;
    comp_op_at(c, k)->e[0] = n;
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
    if (comp_group_of(c, e, &g)) {
        GHashTable *scope = g_ptr_array_index(c->scopes, c->scopes->len - 1);
        g_hash_table_replace(scope, g_strdup(s->name), comp_sym_new(SYM_GROUP, g));
        return true;
    }
    if (is_effect_call(e)) {
        int first_op = comp_here(c);
        ValueType rt;
        bool handled;
        /* The destination is declared after its type is known; the op's
         * var field is patched below. */
        if (!compile_effect(c, e, -1, &rt, &handled)) {
            return false;
        }
        if (handled) {
            if (rt.kind == TY_VOID) {
                return comp_failf(c, e->loc, "this operation returns nothing to put in '%s'", s->name);
            }
            if (rt.kind == TY_PIPE) {
                /* A pipeline variable names its make_pipeline operation. */
                GHashTable *scope = g_ptr_array_index(c->scopes, c->scopes->len - 1);
                if (g_hash_table_contains(scope, s->name)) {
                    return comp_failf(c, s->loc, "'%s' is already declared in this block", s->name);
                }
                Sym *ps = comp_sym_new(SYM_PIPELINE, first_op);
                ps->thread_scope = comp_op_at(c, first_op)->code == OP_MAKE_PIPE_THREAD;
                g_hash_table_replace(scope, g_strdup(s->name), ps);
                return true;
            }
            /* A result produced lane by lane (tokens, flags) varies. */
            int idx = comp_declare_var(c, s->name, s->loc, rt, rt.kind != TY_DATA);
            if (idx < 0) {
                return false;
            }
            /* A value-returning operation compiles to exactly one op. */
            g_assert(comp_here(c) == first_op + 1);
            comp_op_at(c, first_op)->var = idx;
            return true;
        }
    }
    ExprNode *n = comp_expr(c, e);
    if (n == NULL) {
        return false;
    }
    if (n->type.kind == TY_GROUP) {
        GHashTable *scope = g_ptr_array_index(c->scopes, c->scopes->len - 1);
        g_hash_table_replace(scope, g_strdup(s->name), comp_sym_new(SYM_GROUP, n->type.group));
        return true;
    }
    int idx = comp_declare_var(c, s->name, s->loc, n->type, n->varying);
    if (idx < 0) {
        return false;
    }
    int k = comp_emit(c, OP_ASSIGN, s->loc);
    if (k < 0) {
        return false;
    }
    comp_op_at(c, k)->var = idx;
    comp_op_at(c, k)->e[0] = n;
    return true;
}

static bool compile_assign(Compiler *c, const Stmt *s)
{
    Sym *sym = comp_lookup(c, s->name);
    if (sym == NULL) {
        return comp_failf(c, s->loc, "'%s' is not declared (declare it with 'var %s = ...')", s->name, s->name);
    }
    if (sym->kind == SYM_PIPELINE && s->op == '=' && is_effect_call(s->a)) {
        return comp_failf(c, s->loc, "a pipeline variable is made once: declare a new one");
    }
    if (sym->kind != SYM_VAR) {
        return comp_failf(c, s->loc, "'%s' cannot be assigned", s->name);
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
                return comp_failf(c, s->a->loc, "'%s' holds %s; this operation gives %s", v->name, comp_type_name(&v->type),
                             comp_type_name(&rt));
            }
            comp_assigned(c, idx, rt.kind != TY_DATA);
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

static bool waits_in(const Compiler *c, guint from);

static bool compile_stmt(Compiler *c, const Stmt *s)
{
    if (s == c->apart_from && !c->after_apart) {
        /* From here the paths of a warp may run apart to the end of the
         * program (try_merge lets a path pass every join while the others
         * wait on mbarriers): what any of them assigns is kept per lane. */
        c->after_apart = true;
        c->varying_control++;
    }
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
            if (comp_expr(c, s->a) == NULL) {
                return false;
            }
            return comp_failf(c, s->loc, "this call computes a value and drops it");
        }
        if (rt.kind == TY_PIPE) {
            return comp_failf(c, s->loc, "keep the pipeline: var pipe = make_pipeline(...)");
        }
        if (rt.kind == TY_RESERVE) {
            return comp_failf(c, s->loc, "keep the reservation id: var rid = reserve_write_pipe(p, n), then commit it");
        }
        return true;
    }
    case ST_IF: {
        ExprNode *cond = comp_expr(c, s->a);
        if (cond == NULL || !comp_want_int(c, cond, "the condition")) {
            return false;
        }
        int br = comp_emit(c, OP_BRANCH, s->loc);
        if (br < 0) {
            return false;
        }
        guint body_start = c->prog->ops->len;
        comp_op_at(c, br)->e[0] = cond;
        c->varying_control += cond->varying;
        comp_push_scope(c);
        bool ok = comp_end_scope(c, compile_block(c, s->body));
        int jump = -1;
        if (ok && s->orelse != NULL) {
            jump = comp_emit(c, OP_JUMP, s->loc);
            ok = jump >= 0;
            comp_op_at(c, br)->target = comp_here(c);
            comp_push_scope(c);
            ok = comp_end_scope(c, ok && compile_block(c, s->orelse));
        } else if (ok) {
            comp_op_at(c, br)->target = comp_here(c);
        }
        c->varying_control -= cond->varying;
        if (!ok) {
            return false;
        }
        if (cond->varying && c->apart_from == NULL && waits_in(c, body_start)) {
            /* A lane-dependent branch around such a wait: with
             * sched.wait_yields the waiting path lets the warp's other
             * paths go on past it, so they may run apart from the start of
             * the outermost loop around it on (the next pass). */
            c->apart_from = c->outer_loop != NULL ? c->outer_loop : s;
            c->changed = true;
        }
        if (jump >= 0) {
            comp_op_at(c, jump)->target = comp_here(c);
        }
        comp_op_at(c, br)->join = comp_here(c);
        /* The reconvergence point must be an operation of its own. */
        return comp_emit(c, OP_NOP, s->loc) >= 0;
    }
    case ST_WHILE:
    case ST_FOR: {
        comp_push_scope(c);
        if (s->init != NULL && !compile_stmt(c, s->init)) {
            comp_pop_scope(c);
            return false;
        }
        int enter = comp_emit(c, OP_LOOP_ENTER, s->loc);
        int head = enter >= 0 ? comp_emit(c, OP_LOOP, s->loc) : -1;
        ExprNode *cond = head >= 0 ? (s->a ? comp_expr(c, s->a) : comp_const_node(c, s->loc, 1)) : NULL;
        if (cond == NULL || !comp_want_int(c, cond, "the loop condition")) {
            comp_pop_scope(c);
            return false;
        }
        comp_op_at(c, head)->e[0] = cond;
        c->varying_control += cond->varying;
        c->loop_depth++;
        bool outermost = c->outer_loop == NULL;
        if (outermost) {
            c->outer_loop = s;
        }
        comp_push_scope(c);
        bool ok = comp_end_scope(c, compile_block(c, s->body));
        ok = ok && (s->step == NULL || compile_stmt(c, s->step));
        if (outermost) {
            c->outer_loop = NULL;
        }
        c->loop_depth--;
        c->varying_control -= cond->varying;
        int back = ok ? comp_emit(c, OP_JUMP, s->loc) : -1;
        comp_pop_scope(c);
        if (back < 0) {
            return false;
        }
        comp_op_at(c, back)->target = head;
        int exit = comp_here(c);
        comp_op_at(c, enter)->join = exit;
        comp_op_at(c, head)->target = exit;
        comp_op_at(c, head)->join = exit;
        return comp_emit(c, OP_NOP, s->loc) >= 0;
    }
    case ST_RETURN:
        return comp_emit(c, OP_RETURN, s->loc) >= 0;
    case ST_BREAK:
    case ST_CONTINUE:
        return comp_failf(c, s->loc, "'%s' is not supported: write the loop condition so that it ends the loop",
                     s->kind == ST_BREAK ? "break" : "continue");
    }
    g_assert_not_reached();
}

/* True when an operation emitted from `from` on can wait on an mbarrier
 * (a pipeline's acquire or wait, a barrier wait). */
static bool waits_in(const Compiler *c, guint from)
{
    for (guint i = from; i < c->prog->ops->len; i++) {
        switch ((OpCode) g_array_index(c->prog->ops, Op, i).code) {
        case OP_PIPE_ACQUIRE: case OP_PIPE_WAIT: case OP_PIPE_WAIT_FOR: case OP_BAR_WAIT:
        case OP_BAR_WAIT_PARITY: case OP_BAR_ARRIVE_WAIT:
            return true;
        default:
            break;
        }
    }
    return false;
}

bool compile_block(Compiler *c, GPtrArray *stmts)
{
    for (guint i = 0; i < stmts->len; i++) {
        if (!compile_stmt(c, g_ptr_array_index(stmts, i))) {
            return false;
        }
    }
    return true;
}
