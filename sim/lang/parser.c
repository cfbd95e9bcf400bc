/* parser.c: the recursive-descent parser of the trace language
 * (docs/trace-format.md).  The language is line oriented: one statement or
 * declaration per line, blocks closed by `end`.  Expressions follow C
 * precedence.  Every error names file:line:col and shows the line with a
 * caret under the offending column. */
#include "sim/lang/parser.h"

#include "sim/core/fileio.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

typedef struct {
    const Trace *trace;
    GArray *toks;  /* Token */
    guint pos;
    int depth;     /* nesting of blocks and expressions, bounded */
    int chain;     /* 'else if' links open around here, bounded */
    GPtrArray *decls; /* the Trace's declarations, filled as they are met */
    GError **error;
} Parser;

/* --------------------------------------------------------------- helpers */

static Token *peek(Parser *p)
{
    return &g_array_index(p->toks, Token, p->pos);
}

static Token *peek_at(Parser *p, guint ahead)
{
    guint i = MIN(p->pos + ahead, p->toks->len - 1);
    return &g_array_index(p->toks, Token, i);
}

static Token *next(Parser *p)
{
    Token *tk = peek(p);
    if (tk->kind != TK_EOF) {
        p->pos++;
    }
    return tk;
}

static bool accept(Parser *p, int kind)
{
    if (peek(p)->kind == kind) {
        next(p);
        return true;
    }
    return false;
}

static bool is_word(const Token *tk, const char *w)
{
    return tk->kind == TK_IDENT && strcmp(tk->text, w) == 0;
}

static void fail(Parser *p, SrcLoc loc, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void fail(Parser *p, SrcLoc loc, const char *fmt, ...)
{
    if (p->error == NULL || *p->error != NULL) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    trace_set_error(p->error, SIM_ERROR_INPUT, p->trace, loc, "%s", msg);
}

static bool expect(Parser *p, int kind, const char *what)
{
    Token *tk = peek(p);
    if (tk->kind == kind) {
        next(p);
        return true;
    }
    fail(p, tk->loc, "expected %s, found %s", what, parser_token_name(tk->kind));
    return false;
}

static bool expect_eol(Parser *p)
{
    if (accept(p, ';')) {
        /* A ';' ends the statement; another may follow on the same line. */
        while (accept(p, ';')) {
        }
        return true;
    }
    Token *tk = peek(p);
    if (tk->kind == TK_NEWLINE || tk->kind == TK_EOF) {
        accept(p, TK_NEWLINE);
        return true;
    }
    fail(p, tk->loc, "unexpected %s at the end of the statement",
         tk->kind == TK_IDENT ? tk->text : parser_token_name(tk->kind));
    return false;
}

static char *expect_name(Parser *p, const char *what)
{
    Token *tk = peek(p);
    if (tk->kind != TK_IDENT) {
        fail(p, tk->loc, "expected %s, found %s", what, parser_token_name(tk->kind));
        return NULL;
    }
    next(p);
    return g_strdup(tk->text);
}

/* Strips the namespaces the CUDA spelling carries: cuda::, cuda::std::,
 * cuda::device::, cooperative_groups::, cg::. */
const char *parser_strip_ns(const char *name)
{
    static const char *prefixes[] = { "cuda::device::", "cuda::std::", "cuda::",
                                      "cooperative_groups::", "cg::" };
    for (size_t i = 0; i < G_N_ELEMENTS(prefixes); i++) {
        if (g_str_has_prefix(name, prefixes[i])) {
            return name + strlen(prefixes[i]);
        }
    }
    return name;
}

/* ----------------------------------------------------------- expressions */

#define MAX_DEPTH 64
/* An 'else if' is an if nested in the else branch: the parser, the compiler
 * and trace_free recurse once per link, so a long chain would overflow the
 * stack (fuzz finding).  Chains have their own, larger limit. */
#define MAX_ELSE_IF 256

static Expr *parse_expr(Parser *p);
static Expr *parse_binary(Parser *p, int min_prec);

static int binary_prec(int kind)
{
    switch (kind) {
    case TK_OROR: return 1;
    case TK_ANDAND: return 2;
    case '|': return 3;
    case '^': return 4;
    case '&': return 5;
    case TK_EQ: case TK_NE: return 6;
    case '<': case '>': case TK_LE: case TK_GE: return 7;
    case TK_SHL: case TK_SHR: return 8;
    case '+': case '-': return 9;
    case '*': case '/': case '%': return 10;
    default: return 0;
    }
}

static bool enter(Parser *p, SrcLoc loc)
{
    if (++p->depth > MAX_DEPTH) {
        fail(p, loc, "nesting deeper than %d levels", MAX_DEPTH);
        return false;
    }
    return true;
}

/* Arguments of a call, after the opening parenthesis. */
static GPtrArray *parse_args(Parser *p)
{
    GPtrArray *args = expr_array_new();
    if (accept(p, ')')) {
        return args;
    }
    for (;;) {
        Expr *a = parse_expr(p);
        if (a == NULL) {
            g_ptr_array_free(args, TRUE);
            return NULL;
        }
        g_ptr_array_add(args, a);
        if (args->len > 16) {
            fail(p, a->loc, "more than 16 arguments");
            g_ptr_array_free(args, TRUE);
            return NULL;
        }
        if (accept(p, ')')) {
            return args;
        }
        if (!expect(p, ',', "',' or ')'")) {
            g_ptr_array_free(args, TRUE);
            return NULL;
        }
    }
}

static bool is_template_name(const char *name)
{
    const char *n = parser_strip_ns(name);
    return strcmp(n, "aligned_size_t") == 0 || strcmp(n, "wait_prior") == 0 ||
           strcmp(n, "pipeline_consumer_wait_prior") == 0 || strcmp(n, "tiled_partition") == 0;
}

static Expr *parse_unary(Parser *p);

/* After '(': whether the tokens are `[const] void [const] * )`. */
static bool is_void_cast(Parser *p)
{
    guint i = 0;
    if (is_word(peek_at(p, i), "const")) {
        i++;
    }
    if (!is_word(peek_at(p, i++), "void")) {
        return false;
    }
    if (is_word(peek_at(p, i), "const")) {
        i++;
    }
    return peek_at(p, i)->kind == '*' && peek_at(p, i + 1)->kind == ')';
}

static Expr *parse_primary(Parser *p)
{
    Token *tk = next(p);
    Expr *e = NULL;
    switch (tk->kind) {
    case TK_INT:
        e = expr_new(EX_INT, tk->loc);
        e->value = tk->value;
        break;
    case TK_IDENT:
        if (is_template_name(tk->text) && peek(p)->kind == '<') {
            next(p);
            e = expr_new(EX_TEMPLATE, tk->loc);
            e->name = g_strdup(parser_strip_ns(tk->text));
            /* The argument stops before '>': parse above relational level. */
            e->targ = parse_binary(p, 8);
            if (e->targ == NULL || !expect(p, '>', "'>'") || !expect(p, '(', "'('")) {
                expr_free(e);
                return NULL;
            }
            e->args = parse_args(p);
            if (e->args == NULL) {
                expr_free(e);
                return NULL;
            }
            break;
        }
        e = expr_new(EX_NAME, tk->loc);
        e->name = g_strdup(tk->text);
        break;
    case '(': {
        if (is_void_cast(p)) {
            /* (void *) p, (const void *) p: the untyped pointers of
             * memcpy_async's void* overloads (program.c takes them there). */
            while (!accept(p, ')')) {
                next(p);
            }
            Expr *operand = parse_unary(p);
            if (operand == NULL) {
                return NULL;
            }
            e = expr_new(EX_CALL, tk->loc);
            e->a = expr_new(EX_NAME, tk->loc);
            e->a->name = g_strdup(PARSER_VOID_CAST);
            e->args = expr_array_new();
            g_ptr_array_add(e->args, operand);
            return e;
        }
        e = parse_expr(p);
        if (e == NULL || !expect(p, ')', "')'")) {
            expr_free(e);
            return NULL;
        }
        break;
    }
    default:
        fail(p, tk->loc, "expected an expression, found %s", parser_token_name(tk->kind));
        return NULL;
    }
    /* Postfix: calls and members. */
    for (;;) {
        Token *pk = peek(p);
        if (pk->kind == '(') {
            next(p);
            Expr *call = expr_new(EX_CALL, e->loc);
            call->a = e;
            call->args = parse_args(p);
            if (call->args == NULL) {
                expr_free(call);
                return NULL;
            }
            e = call;
        } else if (pk->kind == '.' || pk->kind == TK_ARROW) {
            next(p);
            Token *nm = peek(p);
            if (nm->kind != TK_IDENT) {
                fail(p, nm->loc, "expected a member name after '.'");
                expr_free(e);
                return NULL;
            }
            next(p);
            Expr *m = expr_new(EX_MEMBER, e->loc);
            m->a = e;
            m->name = g_strdup(nm->text);
            e = m;
        } else if (pk->kind == '[') {
            fail(p, pk->loc, "indexing is not supported: use pointer arithmetic (buf + i)");
            expr_free(e);
            return NULL;
        } else {
            return e;
        }
    }
}

static Expr *parse_unary(Parser *p)
{
    Token *tk = peek(p);
    if (tk->kind == '-' || tk->kind == '!' || tk->kind == '~' || tk->kind == '+' ||
        tk->kind == '&' || tk->kind == '*') {
        next(p);
        if (!enter(p, tk->loc)) {
            return NULL;
        }
        Expr *a = parse_unary(p);
        p->depth--;
        if (a == NULL) {
            return NULL;
        }
        if (tk->kind == '+' || tk->kind == '&') {
            /* Unary plus and address-of (&shared_state) change nothing here. */
            return a;
        }
        if (tk->kind == '*') {
            fail(p, tk->loc, "dereference is not supported: use load(ptr) and store(ptr, value)");
            expr_free(a);
            return NULL;
        }
        Expr *e = expr_new(EX_UNARY, tk->loc);
        e->op = tk->kind;
        e->a = a;
        return e;
    }
    return parse_primary(p);
}

static Expr *parse_binary(Parser *p, int min_prec)
{
    Expr *lhs = parse_unary(p);
    if (lhs == NULL) {
        return NULL;
    }
    for (;;) {
        Token *op = peek(p);
        int prec = binary_prec(op->kind);
        if (prec == 0 || prec < min_prec) {
            return lhs;
        }
        next(p);
        if (!enter(p, op->loc)) {
            expr_free(lhs);
            return NULL;
        }
        Expr *rhs = parse_binary(p, prec + 1);
        p->depth--;
        if (rhs == NULL) {
            expr_free(lhs);
            return NULL;
        }
        Expr *e = expr_new(EX_BINARY, op->loc);
        e->op = op->kind;
        e->a = lhs;
        e->b = rhs;
        lhs = e;
    }
}

static Expr *parse_expr(Parser *p)
{
    if (!enter(p, peek(p)->loc)) {
        return NULL;
    }
    Expr *cond = parse_binary(p, 1);
    if (cond != NULL && peek(p)->kind == '?') {
        Token *q = next(p);
        Expr *e = expr_new(EX_TERNARY, q->loc);
        e->a = cond;
        e->b = parse_expr(p);
        if (e->b == NULL || !expect(p, ':', "':'")) {
            expr_free(e);
            p->depth--;
            return NULL;
        }
        e->c = parse_expr(p);
        if (e->c == NULL) {
            expr_free(e);
            p->depth--;
            return NULL;
        }
        cond = e;
    }
    p->depth--;
    return cond;
}

/* ------------------------------------------------------------ statements */

/* C type names accepted in place of `var` (size_t i = 0). */
static bool is_var_word(const Token *tk)
{
    static const char *words[] = { "var", "auto", "int", "size_t", "unsigned", "long",
                                   "int32_t", "int64_t", "uint32_t", "uint64_t", "bool",
                                   "const", "std::size_t", "cuda::std::size_t" };
    if (tk->kind != TK_IDENT) {
        return false;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(words); i++) {
        if (strcmp(tk->text, words[i]) == 0) {
            return true;
        }
    }
    return false;
}

static bool is_assign_op(int kind)
{
    switch (kind) {
    case '=': case TK_ADDEQ: case TK_SUBEQ: case TK_MULEQ: case TK_DIVEQ: case TK_MODEQ:
    case TK_SHLEQ: case TK_SHREQ: case TK_ANDEQ: case TK_OREQ: case TK_XOREQ:
        return true;
    default:
        return false;
    }
}

/* An element NAME[INDEX], at NAME: returns a new `NAME + (INDEX)` (the
 * element's address), or NULL after an error. */
static Expr *parse_element(Parser *p)
{
    Token *nm = next(p);
    Expr *ptr = expr_new(EX_BINARY, nm->loc);
    ptr->op = '+';
    ptr->a = expr_new(EX_NAME, nm->loc);
    ptr->a->name = g_strdup(nm->text);
    if (!expect(p, '[', "'['")) {
        expr_free(ptr);
        return NULL;
    }
    ptr->b = parse_expr(p);
    if (ptr->b == NULL || !expect(p, ']', "']'")) {
        expr_free(ptr);
        return NULL;
    }
    return ptr;
}

/* A call statement f(a, b) at loc; takes a and b. */
static Stmt *call_stmt(const char *f, SrcLoc loc, Expr *a, Expr *b)
{
    Expr *call = expr_new(EX_CALL, loc);
    call->a = expr_new(EX_NAME, loc);
    call->a->name = g_strdup(f);
    call->args = expr_array_new();
    g_ptr_array_add(call->args, a);
    g_ptr_array_add(call->args, b);
    Stmt *s = stmt_new(ST_EXPR, loc);
    s->a = call;
    return s;
}

/* NAME[INDEX] = VALUE (a store of an integer or a loaded value, as
 * store(NAME + INDEX, VALUE)) or, after the word expect, NAME[INDEX] ==
 * VALUE (as expect(NAME + INDEX, VALUE)). */
static Stmt *parse_element_statement(Parser *p, bool is_expect)
{
    SrcLoc loc = peek(p)->loc;
    if (is_expect) {
        next(p);
        if (peek(p)->kind != TK_IDENT || peek_at(p, 1)->kind != '[') {
            fail(p, peek(p)->loc, "expect takes an element and a value: expect buf[i] == value");
            return NULL;
        }
    }
    Expr *ptr = parse_element(p);
    if (ptr == NULL) {
        return NULL;
    }
    if (!expect(p, is_expect ? TK_EQ : '=', is_expect ? "'==' (expect buf[i] == value)"
                                                      : "'=' (an element is written with buf[i] = value)")) {
        expr_free(ptr);
        return NULL;
    }
    Expr *value = parse_expr(p);
    if (value == NULL) {
        expr_free(ptr);
        return NULL;
    }
    return call_stmt(is_expect ? "expect" : "store", loc, ptr, value);
}

/* A simple statement: var declaration, assignment, increment, or call.
 * Does not consume the end of line. */
static Stmt *parse_simple(Parser *p)
{
    Token *tk = peek(p);
    if (tk->kind == TK_IDENT && peek_at(p, 1)->kind == '[') {
        return parse_element_statement(p, false);
    }
    if (is_word(tk, "expect") && peek_at(p, 1)->kind != '(' && !is_assign_op(peek_at(p, 1)->kind) &&
        peek_at(p, 1)->kind != TK_INC && peek_at(p, 1)->kind != TK_DEC) {
        return parse_element_statement(p, true);
    }
    if (is_var_word(tk)) {
        /* Skip any run of type words: const auto, unsigned long, ... */
        while (is_var_word(peek(p)) && peek_at(p, 1)->kind == TK_IDENT) {
            next(p);
        }
        Token *nm = peek(p);
        char *name = expect_name(p, "a variable name");
        if (name == NULL) {
            return NULL;
        }
        Stmt *s = stmt_new(ST_VAR, nm->loc);
        s->name = name;
        if (!expect(p, '=', "'=' (variables are initialised where declared)")) {
            stmt_free(s);
            return NULL;
        }
        s->a = parse_expr(p);
        if (s->a == NULL) {
            stmt_free(s);
            return NULL;
        }
        return s;
    }
    if (tk->kind == TK_INC || tk->kind == TK_DEC) {
        next(p);
        Token *nm = peek(p);
        char *name = expect_name(p, "a variable name");
        if (name == NULL) {
            return NULL;
        }
        Stmt *s = stmt_new(ST_ASSIGN, nm->loc);
        s->name = name;
        s->op = tk->kind == TK_INC ? TK_ADDEQ : TK_SUBEQ;
        s->a = expr_new(EX_INT, nm->loc);
        s->a->value = 1;
        return s;
    }
    if (tk->kind == TK_IDENT && (is_assign_op(peek_at(p, 1)->kind) ||
                                 peek_at(p, 1)->kind == TK_INC || peek_at(p, 1)->kind == TK_DEC)) {
        next(p);
        Token *op = next(p);
        Stmt *s = stmt_new(ST_ASSIGN, tk->loc);
        s->name = g_strdup(tk->text);
        if (op->kind == TK_INC || op->kind == TK_DEC) {
            s->op = op->kind == TK_INC ? TK_ADDEQ : TK_SUBEQ;
            s->a = expr_new(EX_INT, op->loc);
            s->a->value = 1;
            return s;
        }
        s->op = op->kind;
        s->a = parse_expr(p);
        if (s->a == NULL) {
            stmt_free(s);
            return NULL;
        }
        return s;
    }
    Expr *e = parse_expr(p);
    if (e == NULL) {
        return NULL;
    }
    if (e->kind != EX_CALL && e->kind != EX_TEMPLATE) {
        fail(p, e->loc, "this expression does nothing: a statement is an assignment, a call or a keyword");
        expr_free(e);
        return NULL;
    }
    Stmt *s = stmt_new(ST_EXPR, e->loc);
    s->a = e;
    return s;
}

typedef enum { END_BY_END, END_BY_ELSE, END_BY_EOF } BlockEnd;

static bool parse_block(Parser *p, GPtrArray *out, bool top, BlockEnd *how, SrcLoc opener);

static bool parse_decl(Parser *p);

/* Parses `if` after the keyword (also used for `else if`). */
static Stmt *parse_if(Parser *p, SrcLoc loc)
{
    Stmt *s = stmt_new(ST_IF, loc);
    s->a = parse_expr(p);
    if (s->a == NULL) {
        stmt_free(s);
        return NULL;
    }
    if (is_word(peek(p), "then")) {
        next(p);
    }
    s->body = stmt_array_new();
    Token *after = peek(p);
    if (after->kind != TK_NEWLINE && after->kind != ';' && after->kind != TK_EOF) {
        /* One-line form, as in C: if (batch_sz == 0) return */
        Stmt *one;
        if (is_word(after, "return") || is_word(after, "break") || is_word(after, "continue")) {
            next(p);
            one = stmt_new(is_word(after, "return") ? ST_RETURN : is_word(after, "break") ? ST_BREAK : ST_CONTINUE,
                           after->loc);
        } else if (is_word(after, "if") || is_word(after, "for") || is_word(after, "while")) {
            fail(p, after->loc, "a one-line 'if' takes a simple statement; open a block instead");
            stmt_free(s);
            return NULL;
        } else {
            one = parse_simple(p);
        }
        if (one == NULL) {
            stmt_free(s);
            return NULL;
        }
        g_ptr_array_add(s->body, one);
        if (!expect_eol(p)) {
            stmt_free(s);
            return NULL;
        }
        return s;
    }
    if (!expect_eol(p)) {
        stmt_free(s);
        return NULL;
    }
    BlockEnd how;
    if (!enter(p, loc)) {
        stmt_free(s);
        return NULL;
    }
    bool ok = parse_block(p, s->body, false, &how, loc);
    p->depth--;
    if (!ok) {
        stmt_free(s);
        return NULL;
    }
    if (how == END_BY_ELSE) {
        /* parse_block stopped on `else`; the token is next. */
        Token *el = next(p);
        s->orelse = stmt_array_new();
        if (is_word(peek(p), "if")) {
            Token *iftk = next(p);
            if (++p->chain > MAX_ELSE_IF) {
                fail(p, iftk->loc, "more than %d 'else if' in a row (a chain is nested ifs)", MAX_ELSE_IF);
                stmt_free(s);
                return NULL;
            }
            Stmt *inner = parse_if(p, iftk->loc);
            p->chain--;
            if (inner == NULL) {
                stmt_free(s);
                return NULL;
            }
            g_ptr_array_add(s->orelse, inner);
            return s; /* the inner if consumed the shared `end` */
        }
        if (!expect_eol(p)) {
            stmt_free(s);
            return NULL;
        }
        if (!enter(p, el->loc)) {
            stmt_free(s);
            return NULL;
        }
        ok = parse_block(p, s->orelse, false, &how, loc);
        p->depth--;
        if (!ok) {
            stmt_free(s);
            return NULL;
        }
        if (how == END_BY_ELSE) {
            fail(p, peek(p)->loc, "a second 'else' for the same 'if'");
            stmt_free(s);
            return NULL;
        }
    }
    return s;
}

static Stmt *parse_loop_body(Parser *p, Stmt *s)
{
    if (!expect_eol(p)) {
        stmt_free(s);
        return NULL;
    }
    s->body = stmt_array_new();
    BlockEnd how;
    if (!enter(p, s->loc)) {
        stmt_free(s);
        return NULL;
    }
    bool ok = parse_block(p, s->body, false, &how, s->loc);
    p->depth--;
    if (!ok) {
        stmt_free(s);
        return NULL;
    }
    if (how == END_BY_ELSE) {
        fail(p, peek(p)->loc, "'else' without 'if'");
        stmt_free(s);
        return NULL;
    }
    return s;
}

static Stmt *parse_for(Parser *p, SrcLoc loc)
{
    Stmt *s = stmt_new(ST_FOR, loc);
    /* Range form: for i in a .. b [step c] */
    if (peek(p)->kind == TK_IDENT && is_word(peek_at(p, 1), "in")) {
        Token *nm = next(p);
        next(p);
        Expr *lo = parse_expr(p);
        if (lo == NULL || !expect(p, TK_DOTDOT, "'..'")) {
            expr_free(lo);
            stmt_free(s);
            return NULL;
        }
        Expr *hi = parse_expr(p);
        if (hi == NULL) {
            expr_free(lo);
            stmt_free(s);
            return NULL;
        }
        Expr *step = NULL;
        if (is_word(peek(p), "step")) {
            next(p);
            step = parse_expr(p);
            if (step == NULL) {
                expr_free(lo);
                expr_free(hi);
                stmt_free(s);
                return NULL;
            }
        }
        s->init = stmt_new(ST_VAR, nm->loc);
        s->init->name = g_strdup(nm->text);
        s->init->a = lo;
        Expr *var = expr_new(EX_NAME, nm->loc);
        var->name = g_strdup(nm->text);
        s->a = expr_new(EX_BINARY, nm->loc);
        s->a->op = '<';
        s->a->a = var;
        s->a->b = hi;
        s->step = stmt_new(ST_ASSIGN, nm->loc);
        s->step->name = g_strdup(nm->text);
        s->step->op = TK_ADDEQ;
        if (step == NULL) {
            step = expr_new(EX_INT, nm->loc);
            step->value = 1;
        }
        s->step->a = step;
        return parse_loop_body(p, s);
    }
    /* C form: for [(] [init]; [cond]; [step] [)] */
    bool paren = accept(p, '(');
    if (peek(p)->kind != ';') {
        s->init = parse_simple(p);
        if (s->init == NULL) {
            stmt_free(s);
            return NULL;
        }
        if (s->init->kind == ST_EXPR) {
            fail(p, s->init->loc, "the first part of a for loop must declare or assign a variable");
            stmt_free(s);
            return NULL;
        }
    }
    if (!expect(p, ';', "';' after the loop's initialisation")) {
        stmt_free(s);
        return NULL;
    }
    if (peek(p)->kind != ';') {
        s->a = parse_expr(p);
        if (s->a == NULL) {
            stmt_free(s);
            return NULL;
        }
    }
    if (!expect(p, ';', "';' after the loop's condition")) {
        stmt_free(s);
        return NULL;
    }
    if (!(paren && peek(p)->kind == ')') && peek(p)->kind != TK_NEWLINE) {
        s->step = parse_simple(p);
        if (s->step == NULL) {
            stmt_free(s);
            return NULL;
        }
        if (s->step->kind != ST_ASSIGN) {
            fail(p, s->step->loc, "the last part of a for loop must update a variable");
            stmt_free(s);
            return NULL;
        }
    }
    if (paren && !expect(p, ')', "')'")) {
        stmt_free(s);
        return NULL;
    }
    return parse_loop_body(p, s);
}

static const char *decl_words[] = { "param", "block", "grid", "type", "shared", "__shared__", "global",
                                    "pipeline_shared_state", "cuda::pipeline_shared_state",
                                    "barrier", "def", "pipe" };

static bool is_decl_start(Parser *p)
{
    Token *tk = peek(p);
    if (tk->kind != TK_IDENT) {
        return false;
    }
    /* `barrier` and `pipe` are also ordinary names; a declaration has a
     * name right after them. */
    for (size_t i = 0; i < G_N_ELEMENTS(decl_words); i++) {
        if (strcmp(tk->text, decl_words[i]) == 0) {
            int k = peek_at(p, 1)->kind;
            if (strcmp(tk->text, "grid") == 0) {
                /* `grid 2, 2`; `grid.sync()` and `grid = ...` are statements. */
                return k == TK_INT || k == TK_IDENT || k == '(';
            }
            return k == TK_IDENT || k == '<' || (strcmp(tk->text, "block") == 0 && k != '.' && k != '=');
        }
    }
    return false;
}

/* Parses statements until `end`, `else` (left unconsumed) or end of file.
 * At top level, declarations are allowed and end of file ends the block. */
static bool parse_block(Parser *p, GPtrArray *out, bool top, BlockEnd *how, SrcLoc opener)
{
    for (;;) {
        Token *tk = peek(p);
        if (tk->kind == TK_NEWLINE || tk->kind == ';') {
            next(p);
            continue;
        }
        if (tk->kind == TK_EOF) {
            if (!top) {
                fail(p, opener, "this block has no 'end'");
                return false;
            }
            *how = END_BY_EOF;
            return true;
        }
        if (is_word(tk, "end")) {
            if (top) {
                fail(p, tk->loc, "'end' without an open block");
                return false;
            }
            next(p);
            *how = END_BY_END;
            return expect_eol(p);
        }
        if (is_word(tk, "else") || is_word(tk, "elif")) {
            if (top) {
                fail(p, tk->loc, "'%s' without 'if'", tk->text);
                return false;
            }
            if (is_word(tk, "elif")) {
                /* Treat `elif` as `else if`: rewrite the token in place. */
                g_free(tk->text);
                tk->text = g_strdup("else");
                Token iftk = { TK_IDENT, tk->loc, 0, g_strdup("if") };
                g_array_insert_val(p->toks, p->pos + 1, iftk);
            }
            *how = END_BY_ELSE;
            return true;
        }
        if (is_decl_start(p)) {
            if (!top) {
                fail(p, tk->loc, "declarations ('%s') belong at the top level, outside blocks", tk->text);
                return false;
            }
            if (!parse_decl(p)) {
                return false;
            }
            continue;
        }
        Stmt *s = NULL;
        if (is_word(tk, "if")) {
            next(p);
            s = parse_if(p, tk->loc);
        } else if (is_word(tk, "while")) {
            next(p);
            s = stmt_new(ST_WHILE, tk->loc);
            s->a = parse_expr(p);
            if (s->a == NULL) {
                stmt_free(s);
                return false;
            }
            s = parse_loop_body(p, s);
        } else if (is_word(tk, "for")) {
            next(p);
            s = parse_for(p, tk->loc);
        } else if (is_word(tk, "return") || is_word(tk, "break") || is_word(tk, "continue")) {
            next(p);
            s = stmt_new(is_word(tk, "return") ? ST_RETURN : is_word(tk, "break") ? ST_BREAK : ST_CONTINUE,
                         tk->loc);
            if (!expect_eol(p)) {
                stmt_free(s);
                return false;
            }
        } else {
            s = parse_simple(p);
            if (s != NULL && !expect_eol(p)) {
                stmt_free(s);
                return false;
            }
        }
        if (s == NULL) {
            return false;
        }
        g_ptr_array_add(out, s);
    }
}

/* ---------------------------------------------------------- declarations */

/* T name[count]: shared and global arrays. */
static bool parse_array_decl(Parser *p, Decl *d)
{
    d->type = parse_primary(p);
    if (d->type == NULL) {
        return false;
    }
    d->name = expect_name(p, "the array's name");
    if (d->name == NULL || !expect(p, '[', "'[' and the element count")) {
        return false;
    }
    d->a = parse_expr(p);
    if (d->a == NULL || !expect(p, ']', "']'")) {
        return false;
    }
    if (is_word(peek(p), "align")) {
        next(p);
        d->b = parse_expr(p);
        if (d->b == NULL) {
            return false;
        }
    }
    return true;
}

static bool parse_pstate(Parser *p, Decl *d)
{
    d->kind = DECL_PSTATE;
    if (!expect(p, '<', "'<' (pipeline_shared_state<scope, stages>)")) {
        return false;
    }
    Token *sc = peek(p);
    char *scope = expect_name(p, "a thread scope (block)");
    if (scope == NULL) {
        return false;
    }
    const char *s = parser_strip_ns(scope);
    if (g_str_has_prefix(s, "thread_scope::")) {
        s += strlen("thread_scope::");
    }
    if (g_str_has_prefix(s, "thread_scope_")) {
        s += strlen("thread_scope_");
    }
    d->scope = g_strdup(s);
    g_free(scope);
    if (strcmp(d->scope, "block") != 0) {
        fail(p, sc->loc, "pipeline_shared_state scope '%s' is not simulated: one SM runs one block's"
             " threads, so only thread_scope_block is meaningful", d->scope);
        return false;
    }
    if (!expect(p, ',', "','")) {
        return false;
    }
    d->a = parse_binary(p, 8);
    if (d->a == NULL || !expect(p, '>', "'>'")) {
        return false;
    }
    d->name = expect_name(p, "the shared state's name");
    return d->name != NULL;
}

static bool parse_decl(Parser *p)
{
    Token *kw = next(p);
    Decl *d = g_new0(Decl, 1);
    d->loc = kw->loc;
    const char *w = kw->text;
    bool ok = false;
    if (strcmp(w, "param") == 0) {
        d->kind = DECL_PARAM;
        d->name = expect_name(p, "the parameter's name");
        ok = d->name != NULL && expect(p, '=', "'=' and a default value") && (d->a = parse_expr(p)) != NULL;
        if (ok && is_word(peek(p), "in")) {
            next(p);
            ok = (d->b = parse_expr(p)) != NULL && expect(p, TK_DOTDOT, "'..'") &&
                 (d->c = parse_expr(p)) != NULL;
        }
    } else if (strcmp(w, "block") == 0 || strcmp(w, "grid") == 0) {
        /* block X [, Y [, Z]], grid X [, Y [, Z]] */
        d->kind = strcmp(w, "block") == 0 ? DECL_BLOCK : DECL_GRID;
        d->name = g_strdup(w);
        ok = (d->a = parse_expr(p)) != NULL;
        if (ok && accept(p, ',')) {
            ok = (d->b = parse_expr(p)) != NULL;
            if (ok && accept(p, ',')) {
                ok = (d->c = parse_expr(p)) != NULL;
            }
        }
    } else if (strcmp(w, "type") == 0) {
        d->kind = DECL_TYPE;
        d->name = expect_name(p, "the type's name");
        ok = d->name != NULL && expect(p, '=', "'='") && (d->type = parse_primary(p)) != NULL;
    } else if (strcmp(w, "shared") == 0 || strcmp(w, "__shared__") == 0) {
        Token *t1 = peek(p);
        if (t1->kind == TK_IDENT && strcmp(parser_strip_ns(t1->text), "pipeline_shared_state") == 0) {
            next(p);
            ok = parse_pstate(p, d);
        } else if (t1->kind == TK_IDENT && strcmp(parser_strip_ns(t1->text), "barrier") == 0) {
            next(p);
            d->kind = DECL_BARRIER;
            if (accept(p, '<')) {
                /* cuda::barrier<cuda::thread_scope_block> */
                char *scope = expect_name(p, "a thread scope");
                const char *s = scope ? parser_strip_ns(scope) : "";
                bool block_scope = scope && (strcmp(s, "thread_scope_block") == 0 ||
                                             strcmp(s, "thread_scope::thread_scope_block") == 0 ||
                                             strcmp(s, "block") == 0);
                if (scope && !block_scope) {
                    fail(p, t1->loc, "only cuda::barrier<cuda::thread_scope_block> is simulated");
                }
                g_free(scope);
                if (!block_scope || !expect(p, '>', "'>'")) {
                    trace_decl_free(d);
                    return false;
                }
            }
            d->name = expect_name(p, "the barrier's name");
            ok = d->name != NULL;
        } else {
            d->kind = DECL_SHARED;
            ok = parse_array_decl(p, d);
        }
    } else if (strcmp(w, "global") == 0) {
        d->kind = DECL_GLOBAL;
        ok = parse_array_decl(p, d);
    } else if (strcmp(parser_strip_ns(w), "pipeline_shared_state") == 0) {
        ok = parse_pstate(p, d);
    } else if (strcmp(w, "barrier") == 0) {
        d->kind = DECL_BARRIER;
        d->name = expect_name(p, "the barrier's name");
        ok = d->name != NULL;
    } else if (strcmp(w, "pipe") == 0) {
        d->kind = DECL_PIPE;
        ok = parse_array_decl(p, d);
    } else if (strcmp(w, "def") == 0) {
        d->kind = DECL_DEF;
        d->name = expect_name(p, "the function's name");
        d->params = g_ptr_array_new_with_free_func(g_free);
        ok = d->name != NULL && expect(p, '(', "'('");
        if (ok && !accept(p, ')')) {
            for (;;) {
                /* Tolerate C types before parameter names: (size_t batch). */
                while (is_var_word(peek(p)) && peek_at(p, 1)->kind == TK_IDENT) {
                    next(p);
                }
                char *pn = expect_name(p, "a parameter name");
                if (pn == NULL) {
                    ok = false;
                    break;
                }
                g_ptr_array_add(d->params, pn);
                if (accept(p, ')')) {
                    break;
                }
                if (!expect(p, ',', "',' or ')'")) {
                    ok = false;
                    break;
                }
            }
        }
        ok = ok && expect(p, '=', "'=' and the function's value") && (d->a = parse_expr(p)) != NULL;
    }
    if (!ok || !expect_eol(p)) {
        trace_decl_free(d);
        return false;
    }
    g_ptr_array_add(p->decls, d);
    return true;
}

/* ----------------------------------------------------------------- entry */

#define MAX_TRACE_BYTES (16u << 20)

Trace *trace_parse_string(const char *path, const char *text, gsize len, GError **error)
{
    g_autoptr(Trace) t = g_new0(Trace, 1);
    t->path = g_strdup(path);
    t->sha256 = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *) text, len);
    t->lines = g_ptr_array_new_with_free_func(g_free);
    t->decls = g_ptr_array_new_with_free_func((GDestroyNotify) trace_decl_free);
    t->body = stmt_array_new();
    if (len > MAX_TRACE_BYTES) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: trace larger than %u MiB", path,
                    MAX_TRACE_BYTES >> 20);
        return NULL;
    }
    if (memchr(text, '\0', len) != NULL) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_INPUT, "%s: not a text file (it holds NUL bytes)", path);
        return NULL;
    }
    /* Keep the source lines for carets. */
    gsize start = 0;
    for (gsize i = 0; i <= len; i++) {
        if (i == len || text[i] == '\n') {
            gsize end = i;
            if (end > start && text[end - 1] == '\r') {
                end--;
            }
            if (i < len || end > start) {
                /* Kept for messages (carets, deadlock reports), with every
                 * byte that is not printable ASCII shown as '?', one for
                 * one so that carets stay aligned: a message must be UTF-8
                 * and carry no terminal control codes (fuzz finding). */
                char *l = g_strndup(text + start, end - start);
                for (char *c = l; *c != '\0'; c++) {
                    if (*c != '\t' && !(*c >= 0x20 && *c < 0x7f)) {
                        *c = '?';
                    }
                }
                g_ptr_array_add(t->lines, l);
            }
            start = i + 1;
        }
    }
    GArray *toks = g_array_new(FALSE, FALSE, sizeof(Token));
    if (!parser_lex(t, text, len, toks, error)) {
        parser_tokens_free(toks);
        return NULL;
    }
    Parser p = { t, toks, 0, 0, 0, t->decls, error };
    /* Header: smpipe VERSION */
    while (peek(&p)->kind == TK_NEWLINE) {
        next(&p);
    }
    Token *h = peek(&p);
    if (!is_word(h, "smpipe")) {
        trace_set_error(error, SIM_ERROR_INPUT, t, h->loc,
                        "expected the version header 'smpipe 1' on the first line");
        parser_tokens_free(toks);
        return NULL;
    }
    next(&p);
    Token *v = peek(&p);
    if (v->kind != TK_INT || v->value != 1) {
        trace_set_error(error, SIM_ERROR_INPUT, t, v->loc,
                        "unsupported trace version%s: this smpipe reads version 1",
                        v->kind == TK_INT ? "" : " (expected a number)");
        parser_tokens_free(toks);
        return NULL;
    }
    next(&p);
    t->version = 1;
    if (!expect_eol(&p)) {
        parser_tokens_free(toks);
        return NULL;
    }
    BlockEnd how;
    SrcLoc top = { 1, 1 };
    bool ok = parse_block(&p, t->body, true, &how, top);
    parser_tokens_free(toks);
    if (!ok) {
        return NULL;
    }
    return g_steal_pointer(&t);
}

Trace *trace_parse_file(const char *path, GError **error)
{
    g_autofree char *text = NULL;
    gsize len = 0;
    /* "-" is standard input, named so in messages. */
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    if (!sim_read_file(path, MAX_TRACE_BYTES, &text, &len, error)) {
        return NULL;
    }
    return trace_parse_string(name, text, len, error);
}
