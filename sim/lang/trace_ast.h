/* trace_ast.h: the syntax tree of a pipeline trace program, as parsed from
 * the text language of docs/trace-format.md.  Nothing here is evaluated:
 * sizes, types and parameters are resolved later by program.c, once the
 * parameter values (defaults and --set overrides) are known. */
#pragma once

#include "sim/core/simtypes.h"

typedef enum {
    EX_INT,      /* value */
    EX_NAME,     /* name */
    EX_UNARY,    /* op a */
    EX_BINARY,   /* a op b */
    EX_TERNARY,  /* a ? b : c */
    EX_CALL,     /* a(args): a is EX_NAME or EX_MEMBER */
    EX_MEMBER,   /* a.name */
    EX_TEMPLATE  /* name<targ>(args): aligned_size_t<16>(n) */
} ExprKind;

typedef struct Expr Expr;
struct Expr {
    ExprKind kind;
    SrcLoc loc;
    int op;          /* operator token for unary/binary */
    int64_t value;   /* EX_INT */
    char *name;      /* EX_NAME, EX_MEMBER, EX_TEMPLATE (owned) */
    Expr *a, *b, *c; /* operands (owned) */
    Expr *targ;      /* EX_TEMPLATE argument (owned) */
    GPtrArray *args; /* EX_CALL, EX_TEMPLATE: Expr* (owned) */
};

typedef enum {
    ST_VAR,     /* var name = a */
    ST_ASSIGN,  /* name op= a; op is '=' or a compound operator */
    ST_EXPR,    /* a call evaluated for its effect */
    ST_IF,      /* if a body [else orelse] */
    ST_WHILE,   /* while a body */
    ST_FOR,     /* for init; a; step body */
    ST_RETURN,
    ST_BREAK,
    ST_CONTINUE
} StmtKind;

typedef struct Stmt Stmt;
struct Stmt {
    StmtKind kind;
    SrcLoc loc;
    char *name;      /* ST_VAR, ST_ASSIGN (owned) */
    int op;          /* ST_ASSIGN operator token */
    Expr *a;         /* value or condition (owned, may be NULL for for(;;)) */
    Stmt *init;      /* ST_FOR (owned, may be NULL) */
    Stmt *step;      /* ST_FOR (owned, may be NULL) */
    GPtrArray *body;   /* Stmt* (owned) */
    GPtrArray *orelse; /* ST_IF else branch, Stmt* (owned, may be NULL) */
};

typedef enum {
    DECL_PARAM,       /* param name = a [in b .. c] */
    DECL_BLOCK,       /* block a [, b [, c]]  (threads per block: x, y, z) */
    DECL_GRID,        /* grid a [, b [, c]]   (the resident blocks' grid: x, y, z) */
    DECL_TYPE,        /* type name = typeexpr (a: EX_NAME or EX_CALL elem(n)) */
    DECL_SHARED,      /* shared T name[a] [align b] */
    DECL_GLOBAL,      /* global T name[a] */
    DECL_PSTATE,      /* pipeline_shared_state<scope, a> name */
    DECL_BARRIER,     /* barrier name */
    DECL_DEF,         /* def name(params) = a */
    DECL_PIPE         /* OpenCL pipe: pipe T name[a] (capacity in packets) */
} DeclKind;

typedef struct {
    DeclKind kind;
    SrcLoc loc;
    char *name;        /* owned */
    Expr *type;        /* element type expression (owned, may be NULL) */
    Expr *a, *b, *c;   /* owned, may be NULL */
    char *scope;       /* DECL_PSTATE scope name (owned) */
    GPtrArray *params; /* DECL_DEF parameter names, char* (owned) */
} Decl;

/* A parsed trace.  Owns everything it points to. */
typedef struct {
    char *path;        /* as given by the user */
    char *sha256;      /* SHA-256 of the file's bytes, lowercase hex (owned): provenance of outputs */
    int version;       /* from the header line */
    GPtrArray *lines;  /* source lines (char*), for error carets */
    GPtrArray *decls;  /* Decl*, in file order */
    GPtrArray *body;   /* Stmt*: the kernel, statements in file order */
} Trace;

/* Parses a trace file.  Returns a new Trace or NULL with *error set
 * (SIM_ERROR_INPUT, message "file:line:col: ..." with the line and a caret).
 * Path "-" reads standard input; messages then name "<stdin>". */
Trace *trace_parse_file(const char *path, GError **error);
/* Same, from text in memory; path is used in messages only. */
Trace *trace_parse_string(const char *path, const char *text, gsize len, GError **error);
void trace_free(Trace *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Trace, trace_free)

/* Formats "path:line:col: message" followed by the source line and a caret
 * under the column.  Returns a newly allocated string. */
char *trace_format_diag(const Trace *t, SrcLoc loc, const char *message);
/* Sets *error (domain SIM_ERROR, given code) to such a diagnostic. */
void trace_set_error(GError **error, int code, const Trace *t, SrcLoc loc,
                     const char *fmt, ...) G_GNUC_PRINTF(5, 6);

/* The tree's nodes (trace_ast.c).  A new node is zeroed but for its kind
 * and location; an array made here owns its nodes. */
Expr *expr_new(ExprKind kind, SrcLoc loc);
GPtrArray *expr_array_new(void);
void expr_free(Expr *e);
Stmt *stmt_new(StmtKind kind, SrcLoc loc);
GPtrArray *stmt_array_new(void);
void stmt_free(Stmt *s);
void trace_decl_free(Decl *d);
