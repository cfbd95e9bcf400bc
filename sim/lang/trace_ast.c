/* trace_ast.c: the syntax tree's lifetime (freeing traces, declarations,
 * statements and expressions) and the diagnostics that point into a
 * trace's text (see trace_ast.h). */
#include "sim/lang/trace_ast.h"

#include <stdarg.h>
#include <string.h>

void expr_free(Expr *e)
{
    if (e == NULL) {
        return;
    }
    g_free(e->name);
    expr_free(e->a);
    expr_free(e->b);
    expr_free(e->c);
    expr_free(e->targ);
    if (e->args) {
        g_ptr_array_free(e->args, TRUE);
    }
    g_free(e);
}

void stmt_free(Stmt *s)
{
    if (s == NULL) {
        return;
    }
    g_free(s->name);
    expr_free(s->a);
    stmt_free(s->init);
    stmt_free(s->step);
    if (s->body) {
        g_ptr_array_free(s->body, TRUE);
    }
    if (s->orelse) {
        g_ptr_array_free(s->orelse, TRUE);
    }
    g_free(s);
}

void trace_decl_free(Decl *d)
{
    g_free(d->name);
    expr_free(d->type);
    expr_free(d->a);
    expr_free(d->b);
    expr_free(d->c);
    g_free(d->scope);
    if (d->params) {
        g_ptr_array_free(d->params, TRUE);
    }
    g_free(d);
}

char *trace_format_diag(const Trace *t, SrcLoc loc, const char *message)
{
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "%s:%u:%u: %s", t->path, loc.line, loc.col, message);
    if (loc.line >= 1 && loc.line <= t->lines->len) {
        const char *text = g_ptr_array_index(t->lines, loc.line - 1);
        g_string_append_printf(s, "\n    %s\n    ", text);
        glong width = (glong) strlen(text);
        for (uint32_t i = 1; i < loc.col && (glong) i <= width; i++) {
            g_string_append_c(s, text[i - 1] == '\t' ? '\t' : ' ');
        }
        g_string_append_c(s, '^');
    }
    return g_string_free(s, FALSE);
}

void trace_set_error(GError **error, int code, const Trace *t, SrcLoc loc, const char *fmt, ...)
{
    if (error == NULL) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_autofree char *diag = trace_format_diag(t, loc, msg);
    g_set_error_literal(error, SIM_ERROR, code, diag);
}

void trace_free(Trace *t)
{
    if (t == NULL) {
        return;
    }
    g_free(t->path);
    g_free(t->sha256);
    g_ptr_array_free(t->lines, TRUE);
    g_ptr_array_free(t->decls, TRUE);
    g_ptr_array_free(t->body, TRUE);
    g_free(t);
}

Expr *expr_new(ExprKind kind, SrcLoc loc)
{
    Expr *e = g_new0(Expr, 1);
    e->kind = kind;
    e->loc = loc;
    return e;
}

GPtrArray *expr_array_new(void)
{
    return g_ptr_array_new_with_free_func((GDestroyNotify) expr_free);
}

Stmt *stmt_new(StmtKind kind, SrcLoc loc)
{
    Stmt *s = g_new0(Stmt, 1);
    s->kind = kind;
    s->loc = loc;
    return s;
}

GPtrArray *stmt_array_new(void)
{
    return g_ptr_array_new_with_free_func((GDestroyNotify) stmt_free);
}
