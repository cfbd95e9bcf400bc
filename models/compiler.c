/* compiler.c: what nvcc and ptxas do to a trace's program before it runs
 * (see compiler.h): divisions hoisted out of the loops that never change
 * their operands (the SASS of cutlass_multistage at 3 stages,
 * docs/validation/campaign/microbench/cutlass_multistage_s3.sass), short
 * loops of a known trip count unrolled (sched.unroll_max; the SASS of
 * gemm_tiles, microbench/tiles_cpa_s2_t64.sass), branches on constants
 * removed (smpipe cuda writes a parameter's test as a literal) and
 * independent compute chains interleaved (sched.chain_overlap;
 * scripts/calib/contend.cu ilp.ffma). */
#include "models/compiler.h"

#include "models/warp.h"
#include "sim/lang/parser.h"

/* Whether n reads a variable whose first value slot is set in `written`
 * (NULL: none is). */
static bool reads_written(const ExprNode *n, const GHashTable *written)
{
    if (n == NULL || written == NULL) {
        return false;
    }
    if (n->kind == EN_VAR && g_hash_table_contains((GHashTable *) written, GINT_TO_POINTER(n->var + 1))) {
        return true;
    }
    return reads_written(n->a, written) || reads_written(n->b, written) || reads_written(n->c, written);
}

static bool same_expr(const ExprNode *a, const ExprNode *b)
{
    if (a == NULL || b == NULL) {
        return a == b;
    }
    return a->kind == b->kind && a->op == b->op && a->var == b->var && a->value == b->value && same_expr(a->a, b->a) &&
           same_expr(a->b, b->b) && same_expr(a->c, b->c);
}

/* Divisions and modulos n evaluates, except by constant powers of two and,
 * inside a loop, those whose operands the loop never changes: nvcc hoists
 * such a loop-invariant division out of the loop and computes it once
 * (`written`: the value slots the innermost loop around the operation
 * assigns, NULL outside loops; `hoisted` collects the distinct invariant
 * ones, to be charged once a loop entry). */
static int32_t count_divisions(const ExprNode *n, const GHashTable *written, bool in_loop, GPtrArray *hoisted)
{
    if (n == NULL) {
        return 0;
    }
    int32_t here = 0;
    if (n->kind == EN_BINARY && (n->op == '/' || n->op == '%')) {
        const ExprNode *d = n->b;
        bool pow2 = d->kind == EN_CONST && d->value > 0 && (d->value & (d->value - 1)) == 0;
        if (!pow2 && in_loop && !reads_written(n, written)) {
            bool seen = false;
            for (guint i = 0; i < hoisted->len && !seen; i++) {
                seen = same_expr(g_ptr_array_index(hoisted, i), n);
            }
            if (!seen) {
                g_ptr_array_add(hoisted, (gpointer) n);
            }
        } else {
            here = !pow2;
        }
    }
    return here + count_divisions(n->a, written, in_loop, hoisted) + count_divisions(n->b, written, in_loop, hoisted) +
           count_divisions(n->c, written, in_loop, hoisted);
}

/* The value slots (plus one, as hash keys) that operations first..last-1
 * assign.  Returns a new set (g_hash_table_unref). */
static GHashTable *slots_written(const Program *prog, guint first, guint last)
{
    GHashTable *w = g_hash_table_new(NULL, NULL);
    for (guint j = first; j < last && j < prog->ops->len; j++) {
        const Op *op = &g_array_index(prog->ops, Op, j);
        if (op->var >= 0) {
            int32_t slot = g_array_index(prog->vars, ProgVar, op->var).slot;
            g_hash_table_add(w, GINT_TO_POINTER(slot + 1));
        }
    }
    return w;
}

/* compiler.h.  A loop's OP_LOOP_ENTER is charged the distinct invariant
 * divisions (count_divisions) of the operations whose innermost loop it
 * is. */
int32_t *compiler_divisions_by_op(const Program *prog)
{
    guint n = prog->ops->len;
    int32_t *divs = g_new0(int32_t, MAX(n, 1u));
    /* inner[i]: the OP_LOOP_ENTER of the innermost loop around i, or -1. */
    g_autofree int32_t *inner = g_new(int32_t, MAX(n, 1u));
    for (guint i = 0; i < n; i++) {
        inner[i] = -1;
    }
    for (guint e = 0; e < n; e++) {
        const Op *op = &g_array_index(prog->ops, Op, e);
        if (op->code != OP_LOOP_ENTER) {
            continue;
        }
        /* Later (inner) loops overwrite the ones around them. */
        for (guint i = e + 1; i < (guint) op->join && i < n; i++) {
            inner[i] = (int32_t) e;
        }
    }
    g_autoptr(GHashTable) loops = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify) g_hash_table_unref);
    g_autoptr(GHashTable) hoists = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);
    for (guint i = 0; i < n; i++) {
        const Op *op = &g_array_index(prog->ops, Op, i);
        GHashTable *written = NULL;
        GPtrArray *hoisted = NULL;
        if (inner[i] >= 0) {
            gpointer key = GINT_TO_POINTER(inner[i] + 1);
            written = g_hash_table_lookup(loops, key);
            if (written == NULL) {
                const Op *enter = &g_array_index(prog->ops, Op, inner[i]);
                written = slots_written(prog, (guint) inner[i] + 1, (guint) enter->join);
                g_hash_table_insert(loops, key, written);
                g_hash_table_insert(hoists, key, g_ptr_array_new());
            }
            hoisted = g_hash_table_lookup(hoists, key);
        }
        for (int k = 0; k < 4; k++) {
            divs[i] += count_divisions(op->e[k], written, inner[i] >= 0, hoisted);
        }
    }
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, hoists);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        divs[GPOINTER_TO_INT(key) - 1] += (int32_t) ((GPtrArray *) value)->len;
    }
    return divs;
}

/* Loops that nvcc unrolls: a trip count it knows (counter set to a
 * constant, compared with a constant, stepped by a constant, written
 * nowhere else), no loop inside, at most sched.unroll_max passes (the SASS
 * of gemm_tiles at 64 threads, docs/validation/campaign/microbench/
 * tiles_cpa_s2_t64.sass: its 16-pass fetch loop is 32 LDGSTS with
 * immediate offsets and no loop control).  Their control (the head's
 * compare, the step, the back jump) and the assignments that only add
 * constant multiples of the counter to values the loop does not change
 * (an address's immediate offset) cost nothing. */
static bool slot_written(GHashTable *written, int32_t slot)
{
    return g_hash_table_contains(written, GINT_TO_POINTER(slot + 1));
}

/* True when n is an invariant of the loop (written: its slots) plus
 * constant multiples of its counter (counters: the counter's slot). */
static bool offsetable(const ExprNode *n, GHashTable *written, GHashTable *counters)
{
    switch ((ExprNodeKind) n->kind) {
    case EN_CONST: case EN_TID: case EN_LANE: case EN_WARP: case EN_BLOCK_ID:
        return true;
    case EN_VAR:
        return g_hash_table_contains(counters, GINT_TO_POINTER(n->var + 1)) || !slot_written(written, n->var);
    case EN_BINARY:
        if (n->op == '+' || n->op == '-') {
            return offsetable(n->a, written, counters) && offsetable(n->b, written, counters);
        }
        if (n->op == '*') {
            return (n->a->kind == EN_CONST && offsetable(n->b, written, counters)) ||
                   (n->b->kind == EN_CONST && offsetable(n->a, written, counters));
        }
        return false;
    default:
        return false;
    }
}

static bool cond_holds(int32_t op, bool counter_left, int64_t i, int64_t k)
{
    int64_t a = counter_left ? i : k, b = counter_left ? k : i;
    switch (op) {
    case '<': return a < b;
    case '>': return a > b;
    case TK_LE: return a <= b;
    case TK_GE: return a >= b;
    case TK_NE: return a != b;
    default: return false;
    }
}

/* The passes of the loop entered at op e if nvcc knows them and they are
 * at most max (counting stops there), else -1.  A max below 0 only asks
 * whether it knows them: -2 when it does. */
static int64_t constant_trips(const Program *prog, guint e, int64_t max)
{
    guint n = prog->ops->len;
    const Op *enter = &g_array_index(prog->ops, Op, e);
    if (e == 0 || enter->join < 4 || (guint) enter->join > n) {
        return -1;
    }
    const Op *init = &g_array_index(prog->ops, Op, e - 1);
    const Op *head = &g_array_index(prog->ops, Op, e + 1);
    const Op *step = &g_array_index(prog->ops, Op, (guint) enter->join - 2);
    if (init->code != OP_ASSIGN || head->code != OP_LOOP || step->code != OP_ASSIGN || init->var < 0 ||
        step->var != init->var || init->e[0] == NULL || init->e[0]->kind != EN_CONST) {
        return -1;
    }
    int32_t slot = g_array_index(prog->vars, ProgVar, init->var).slot;
    const ExprNode *c = head->e[0], *st = step->e[0];
    if (c == NULL || c->kind != EN_BINARY || st == NULL || st->kind != EN_BINARY ||
        (st->op != '+' && st->op != '-') || st->a->kind != EN_VAR || st->a->var != slot || st->b->kind != EN_CONST) {
        return -1;
    }
    bool left = c->a->kind == EN_VAR && c->a->var == slot && c->b->kind == EN_CONST;
    bool right = c->b->kind == EN_VAR && c->b->var == slot && c->a->kind == EN_CONST;
    if (!left && !right) {
        return -1;
    }
    for (guint j = e + 2; j < (guint) enter->join - 2; j++) {
        const Op *op = &g_array_index(prog->ops, Op, j);
        if (op->var == init->var) {
            return -1;
        }
    }
    if (st->b->value == INT64_MIN) {
        return -1;
    }
    if (max < 0) {
        return -2;
    }
    int64_t k = left ? c->b->value : c->a->value;
    int64_t d = st->op == '+' ? st->b->value : -st->b->value;
    int64_t i = init->e[0]->value, trips = 0;
    while (cond_holds(c->op, left, i, k)) {
        if (++trips > max || __builtin_add_overflow(i, d, &i)) {
            return -1;
        }
    }
    return trips;
}

/* True when the loop entered at e has a trip count nvcc knows, however
 * many passes it makes. */
static bool trips_known(const Program *prog, guint e)
{
    return constant_trips(prog, e, -1) != -1;
}

/* True when operations first..last-1 enter a loop. */
static bool holds_loop(const Program *prog, guint first, guint last)
{
    for (guint j = first; j < last && j < prog->ops->len; j++) {
        if (g_array_index(prog->ops, Op, j).code == OP_LOOP_ENTER) {
            return true;
        }
    }
    return false;
}

/* compiler.h; a loop around another keeps its control (the batch loops of
 * the guide's kernels at their default 16 batches). */
bool *compiler_unrolled_ops(const Program *prog, int64_t max)
{
    guint n = prog->ops->len;
    bool *free_op = g_new0(bool, MAX(n, 1u));
    for (guint e = 0; e < n; e++) {
        const Op *enter = &g_array_index(prog->ops, Op, e);
        if (enter->code == OP_BRANCH && enter->e[0] != NULL && enter->e[0]->kind == EN_CONST) {
            /* A branch on a constant (a parameter's test, which smpipe
             * cuda writes as a literal): nvcc keeps one side and no
             * branch. */
            free_op[e] = true;
            continue;
        }
        if (enter->code != OP_LOOP_ENTER) {
            continue;
        }
        guint join = (guint) enter->join;
        if (constant_trips(prog, e, max) < 0 || holds_loop(prog, e + 1, join)) {
            continue;
        }
        free_op[e + 1] = free_op[join - 2] = free_op[join - 1] = true;
        int32_t slot = g_array_index(prog->vars, ProgVar, g_array_index(prog->ops, Op, e - 1).var).slot;
        g_autoptr(GHashTable) counters = g_hash_table_new(NULL, NULL);
        g_hash_table_add(counters, GINT_TO_POINTER(slot + 1));
        g_autoptr(GHashTable) written = slots_written(prog, e + 1, join);
        for (guint j = e + 2; j < join - 2; j++) {
            const Op *op = &g_array_index(prog->ops, Op, j);
            if (op->code == OP_ASSIGN && op->e[0] != NULL && offsetable(op->e[0], written, counters)) {
                free_op[j] = true;
            }
        }
    }
    return free_op;
}

/* An operation nvcc keeps in straight-line code (no loop of its own, no
 * wait): a thread-scope pipeline's acquire and commit are a counter's
 * increment and LDGDEPBAR, a block-scope one polls its barrier. */
static bool straight_line(const Program *prog, const Op *op)
{
    switch ((OpCode) op->code) {
    case OP_NOP: case OP_ASSIGN: case OP_LOAD: case OP_STORE: case OP_COMPUTE: case OP_MEMCPY:
        return true;
    case OP_PIPE_ACQUIRE: case OP_PIPE_COMMIT:
        return op->obj >= 0 && (guint) op->obj < prog->ops->len &&
               g_array_index(prog->ops, Op, op->obj).code == OP_MAKE_PIPE_THREAD;
    default:
        return false;
    }
}

/* compiler.h. */
bool *compiler_runtime_unrolled(const Program *prog, int64_t max)
{
    /* max 0: nothing is unrolled (sched.unroll_max). */
    guint n = prog->ops->len;
    bool *entry = g_new0(bool, MAX(n, 1u));
    for (guint e = 0; e < n; e++) {
        const Op *enter = &g_array_index(prog->ops, Op, e);
        if (max == 0 || enter->code != OP_LOOP_ENTER || enter->join < 4 || (guint) enter->join > n ||
            g_array_index(prog->ops, Op, e + 1).code != OP_LOOP || trips_known(prog, e)) {
            continue;
        }
        bool plain = true;
        /* The body and the step: everything between the head and the jump back. */
        for (guint j = e + 2; plain && j < (guint) enter->join - 1; j++) {
            plain = straight_line(prog, &g_array_index(prog->ops, Op, j));
        }
        entry[e] = plain;
    }
    return entry;
}

static bool is_data_compute(const Op *op)
{
    return op->code == OP_COMPUTE && op->obj >= 0 && op->var >= 0;
}

/* compiler.h.  A statement joins the run if it reads no result of the run,
 * writes no variable the run reads or writes, evaluates no division and no
 * jump lands on it. */
int32_t *compiler_fusable_computes(const Program *prog, const int32_t *op_divs)
{
    guint n = prog->ops->len;
    int32_t *fuse = g_new0(int32_t, MAX(n, 1u));
    g_autofree bool *landing = g_new0(bool, n + 1);
    for (guint i = 0; i < n; i++) {
        const Op *op = &g_array_index(prog->ops, Op, i);
        if (op->code == OP_JUMP || op->code == OP_BRANCH || op->code == OP_LOOP || op->code == OP_LOOP_ENTER) {
            if (op->target >= 0 && (guint) op->target <= n) {
                landing[op->target] = true;
            }
            if (op->join >= 0 && (guint) op->join <= n) {
                landing[op->join] = true;
            }
        }
    }
    for (guint i = 0; i < n; i++) {
        const Op *first = &g_array_index(prog->ops, Op, i);
        if (!is_data_compute(first)) {
            continue;
        }
        int64_t chains = 0;
        guint j = i;
        for (; j < n; j++) {
            const Op *op = &g_array_index(prog->ops, Op, j);
            if (!is_data_compute(op) || op->value != first->value || (j > i && (landing[j] || op_divs[j] > 0)) ||
                op->e[1]->kind != EN_CONST || chains + op->e[1]->value > MAX_CHAINS) {
                break;
            }
            bool clash = false;
            for (guint k = i; k < j && !clash; k++) {
                const Op *prev = &g_array_index(prog->ops, Op, k);
                clash = program_op_reads(op, prev->var) || op->var == prev->var || program_op_reads(prev, op->var);
            }
            if (clash) {
                break;
            }
            chains += op->e[1]->value;
        }
        fuse[i] = j > i ? (int32_t) (j - i) - 1 : 0;
    }
    return fuse;
}
