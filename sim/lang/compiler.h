/* compiler.h: what the trace compiler's files share (internal to sim/).
 *
 * program.c instantiates a parsed trace (parameters, types, buffers) and
 * drives the compilation passes; compile_expr.c compiles expressions and
 * declares variables; compile_ops.c emits operations and compiles the
 * statement forms that have an effect (copies, barriers, pipelines, OpenCL
 * pipes, compute); compile_stmt.c compiles statements and blocks (scopes,
 * loops, branches, defs).  The Compiler is one pass's state; Sym a name's
 * meaning in a scope. */
#pragma once

#include "sim/lang/expr_eval.h"
#include "sim/lang/parser.h"
#include "sim/lang/program.h"

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
    const Stmt *outer_loop; /* the outermost loop around the code, or NULL */
    const Stmt *apart_from; /* where a warp's paths may start to run apart, found by an earlier pass: the
                             * outermost loop around the first lane-dependent branch around an mbarrier
                             * wait, or that branch; NULL when none */
    bool after_apart;      /* this pass has reached apart_from: everything from there is lane-dependent */
    bool params_only;      /* instantiate the parameters, nothing else (program_peek_param) */
    int pipeline_sites;    /* make_pipeline operations emitted in this pass */
    int64_t mbarriers;     /* declared: barriers and two per pipeline stage */
    bool grid_read;        /* an expression used the grid's shape (gridDim, blockIdx) */
} Compiler;

/* --------------------------------------------- names and errors (program.c) */

/* Sets the compiler's error (the first one only) at loc.  Returns false. */
bool comp_failf(Compiler *c, SrcLoc loc, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
/* A new symbol (the caller's scope table owns it).  Returns a new Sym. */
Sym *comp_sym_new(SymKind kind, int64_t value);
/* The symbol a name means here: innermost scope first, then the globals
 * (tried again with its namespace stripped), or NULL. */
Sym *comp_lookup(Compiler *c, const char *name);
void comp_push_scope(Compiler *c);
void comp_pop_scope(Compiler *c);

/* ------------------------------------------------ expressions (compile_expr.c) */

/* A constant node.  Nodes belong to the program. */
ExprNode *comp_const_node(Compiler *c, SrcLoc loc, int64_t v);
/* The value of a constant expression (what names it in the error). */
bool comp_const_value(Compiler *c, const Expr *e, const char *what, int64_t *out);
/* Resolves a type expression: a name (int, int4, an alias) or elem(N). */
bool comp_resolve_type(Compiler *c, const Expr *e, ElemType *out);
/* How a value type reads in a message ("an integer", "a pointer", ...). */
const char *comp_type_name(const ValueType *t);
/* The node of `a op b`, folded when both are constants (NULL, error set,
 * when the folding overflows). */
ExprNode *comp_fold_binary(Compiler *c, SrcLoc loc, int op, ExprNode *a, ExprNode *b);
/* Fails unless n is an integer (what names it in the error). */
bool comp_want_int(Compiler *c, ExprNode *n, const char *what);
/* A group expression: block, grid, thread, this_thread_block(), ... */
bool comp_group_of(Compiler *c, const Expr *e, GroupKind *out);
/* blockDim.AXIS (what names it, for the error) and gridDim.AXIS. */
ExprNode *comp_block_dim(Compiler *c, SrcLoc loc, const char *what, int axis);
ExprNode *comp_grid_dim(Compiler *c, SrcLoc loc, int axis);
/* Compiles an expression into a node; NULL (error set) on failure. */
ExprNode *comp_expr(Compiler *c, const Expr *e);
/* Declares a variable in the innermost scope.  Returns its index, or -1. */
int comp_declare_var(Compiler *c, const char *name, SrcLoc loc, ValueType type, bool varying_value);
/* Notes an assignment to variable `index` of a value that may vary. */
void comp_assigned(Compiler *c, int index, bool varying_value);

/* ------------------------------------------------- operations (compile_ops.c) */

/* Appends an operation.  Returns its index, or -1 (error set) past the
 * limits. */
int comp_emit(Compiler *c, OpCode code, SrcLoc loc);
Op *comp_op_at(Compiler *c, int i);
/* The index the next operation will have. */
int comp_here(Compiler *c);
/* The statement forms that have an effect.  dest is the variable receiving
 * the result (-1 when the result is dropped); *result_type is set for
 * declarations; *handled says whether call was one of them.  Returns false
 * on error. */
bool compile_effect(Compiler *c, const Expr *call, int dest, ValueType *result_type, bool *handled);

/* ------------------------------------------------- statements (compile_stmt.c) */

/* The end of a block: its pipelines' destructors, then its names go
 * (SPEC pipeline-scope-1).  Returns ok and whether they could be emitted. */
bool comp_end_scope(Compiler *c, bool ok);
/* Compiles a list of statements in the current scope. */
bool compile_block(Compiler *c, GPtrArray *stmts);
