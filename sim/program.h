/* program.h: a trace instantiated with concrete parameter values and
 * compiled into a flat list of operations that warps interpret (SIMT).
 *
 * Control flow is structured: every branch and loop carries the index of its
 * reconvergence point (`join`), where lanes that diverged wait for each
 * other.  Expressions are small typed trees; each node knows whether its
 * value can differ between the lanes of a warp (`varying`), so uniform work
 * is evaluated once per warp.  Loops are interpreted, never unrolled, so a
 * million iterations cost no memory. */
#pragma once

#include "sim/trace_ast.h"

typedef enum {
    SPACE_SHARED,
    SPACE_GLOBAL
} MemSpace;

/* An element type: int, int4, elem(N)... */
typedef struct {
    uint32_t size;     /* bytes */
    uint32_t align;    /* bytes (alignof) */
    char name[16];     /* as the CUDA backend spells it */
} ElemType;

typedef enum {
    TY_VOID,
    TY_INT,      /* 64-bit signed integer (also booleans) */
    TY_PTR,      /* pointer into a buffer: elem, buffer */
    TY_DATA,     /* a value loaded from memory (register contents): elem */
    TY_PIPE,     /* a cuda::pipeline object (per thread) */
    TY_TOKEN,    /* a cuda::barrier arrival token */
    TY_ROLE,     /* cuda::pipeline_role */
    TY_GROUP,    /* a cooperative group: GROUP_* */
    TY_SIZE,     /* cuda::aligned_size_t<align>(n): value n, elem.align = align */
    TY_RESERVE   /* an OpenCL reserve_id_t */
} TypeKind;

typedef enum {
    GROUP_BLOCK,
    GROUP_THREAD,
    GROUP_GRID,
    GROUP_WARP
} GroupKind;

typedef struct {
    TypeKind kind;
    ElemType elem;     /* TY_PTR, TY_DATA, TY_SIZE (align only) */
    int32_t buffer;    /* TY_PTR: index into Program.buffers */
    int32_t group;     /* TY_GROUP: GroupKind */
} ValueType;

/* Operators of expression nodes (binary ones reuse parser tokens). */
typedef enum {
    EN_CONST,      /* value */
    EN_VAR,        /* var: Program.vars index */
    EN_TID,        /* threadIdx.x == block.thread_rank() */
    EN_LANE,       /* lane id */
    EN_WARP,       /* warp id within the block */
    EN_BLOCK_ID,   /* blockIdx.x */
    EN_UNARY,      /* op a: '-', '!', '~' */
    EN_BINARY,     /* a op b */
    EN_TERNARY     /* a ? b : c */
} ExprNodeKind;

typedef struct ExprNode ExprNode;
struct ExprNode {
    uint8_t kind;      /* ExprNodeKind */
    bool varying;      /* value may differ between lanes of a warp */
    int32_t op;        /* operator token */
    int32_t var;       /* EN_VAR: the variable's first value slot */
    int64_t value;     /* EN_CONST */
    ExprNode *a, *b, *c;
    SrcLoc loc;
    ValueType type;
    uint32_t cost;     /* nodes one evaluation visits (operands shared by a
                        * def's parameters count at each use), saturated */
};

typedef struct {
    char *name;
    ValueType type;
    bool varying;      /* one value per lane; otherwise one per warp */
    int32_t slot;      /* index of its first int64 in a warp's value array */
    SrcLoc loc;        /* declaration */
} ProgVar;

typedef struct {
    char *name;
    MemSpace space;
    ElemType elem;
    int64_t count;     /* elements */
    int64_t bytes;
    int64_t align;
    int64_t base;      /* shared: offset in the block's window; global: address */
    SrcLoc loc;
} ProgBuffer;

typedef struct {
    char *name;
    int64_t stages;    /* pipeline_shared_state<block, stages> */
    int64_t smem_offset;
    SrcLoc loc;
} ProgPState;

typedef struct {
    char *name;
    int64_t smem_offset; /* 8-byte mbarrier */
    SrcLoc loc;
} ProgBarrier;

typedef struct {
    char *name;
    ElemType elem;     /* packet type */
    int64_t capacity;  /* packets */
    int64_t header;    /* global address of its header (reservation counters, one line) */
    int64_t base;      /* global address of the packet storage */
    SrcLoc loc;
} ProgPipe;

typedef enum {
    OP_NOP,
    OP_ASSIGN,         /* vars[var] = e[0] */
    OP_JUMP,           /* goto target */
    OP_BRANCH,         /* if !e[0] goto target; reconverge at join */
    OP_LOOP,           /* loop head: if !e[0] goto target (the exit == join) */
    OP_RETURN,         /* the thread exits */
    OP_ASSERT,         /* e[0] must hold */
    OP_LOOP_ENTER,     /* opens the reconvergence frame of the loop ending at join */

    /* cuda::pipeline */
    OP_MAKE_PIPE_THREAD,  /* var = make_pipeline() */
    OP_MAKE_PIPE_BLOCK,   /* var = make_pipeline(group, &obj [, e[0]]); sub: PIPE_MODE_* */
    OP_PIPE_ACQUIRE,      /* e[0]: the pipeline */
    OP_PIPE_COMMIT,
    OP_PIPE_WAIT,
    OP_PIPE_WAIT_FOR,     /* var = ok; e[1] duration (sub 0) or time point (sub 1), cycles */
    OP_PIPE_RELEASE,
    OP_PIPE_QUIT,         /* var = released (may be -1) */
    OP_PIPE_WAIT_PRIOR,   /* pipeline_consumer_wait_prior<value>(pipe) */
    OP_PIPE_COMMIT_BAR,   /* pipeline_producer_commit(pipe, barrier obj) */

    /* copies */
    OP_MEMCPY,            /* memcpy_async: sub = GroupKind; e[0] dst, e[1] src, e[2] size;
                           * value = alignment; aux = SyncKind; obj = barrier or pipeline */
    OP_MEMCPY_TX,         /* memcpy_async_tx(dst e[0], src e[1], size e[2], barrier obj) */

    /* cuda::barrier / mbarrier, obj = barrier */
    OP_BAR_INIT,          /* init(&bar, e[0]) */
    OP_BAR_ARRIVE,        /* var = bar.arrive(e[0]) */
    OP_BAR_ARRIVE_TX,     /* var = barrier_arrive_tx(bar, e[0], e[1]) */
    OP_BAR_EXPECT_TX,     /* barrier_expect_tx(bar, e[0]) */
    OP_BAR_WAIT,          /* bar.wait(e[0] token) */
    OP_BAR_WAIT_PARITY,   /* bar.wait_parity(e[0]) */
    OP_BAR_ARRIVE_WAIT,   /* bar.arrive_and_wait() */
    OP_BAR_ARRIVE_DROP,   /* bar.arrive_and_drop() */

    /* block-level */
    OP_SYNCTHREADS,       /* __syncthreads / block.sync */
    OP_SYNCWARP,
    OP_CG_WAIT,           /* cooperative_groups::wait / wait_prior<value>(group) */

    /* work */
    OP_COMPUTE,           /* [var =] compute(...): value = class index; e[0] count,
                           * e[1] independent chains; obj = input data var or -1 */
    OP_LOAD,              /* var = load(e[0]) */
    OP_STORE,             /* store(e[0], data var obj) */

    /* OpenCL work-group pipes, obj = pipe */
    OP_CL_RESERVE,        /* var = [work_group_]reserve_{read,write}_pipe(p, e[0]); sub: CL_* */
    OP_CL_COMMIT,         /* [work_group_]commit_{read,write}_pipe(p, e[0] reservation); sub */
    OP_CL_RW_RESERVED,    /* var = read/write_pipe(p, e[0] rid, e[1] index, e[2] ptr); sub */
    OP_CL_RW,             /* var = read/write_pipe(p, e[0] ptr); sub */
    OP_CL_IS_VALID,       /* var = is_valid_reserve_id(e[0]) */
    OP_WG_BARRIER,        /* work_group_barrier */

    OP_EXIT,              /* end of the program */
    OP__COUNT
} OpCode;

typedef enum {
    PIPE_MODE_UNIFIED,
    PIPE_MODE_PRODUCER_COUNT,
    PIPE_MODE_ROLE
} PipeMode;

typedef enum {
    SYNC_PIPE,
    SYNC_BARRIER,
    SYNC_NONE         /* cooperative_groups::memcpy_async */
} SyncKind;

/* OpenCL sub-operations (bit flags). */
enum {
    CL_WRITE = 1,      /* otherwise read */
    CL_WORK_GROUP = 2  /* work_group_ form; otherwise per work-item */
};

typedef struct {
    uint16_t code;     /* OpCode */
    uint16_t sub;
    int32_t var;       /* destination variable or -1 */
    int32_t obj;       /* declared object or variable, or -1 */
    int32_t target;    /* jump target */
    int32_t join;      /* reconvergence point of a branch or loop */
    int32_t aux;       /* OP_MEMCPY: SyncKind */
    int32_t size_align;/* OP_MEMCPY: the N of aligned_size_t<N> as written, 0 for a plain size */
    int64_t value;     /* constant operand */
    ExprNode *e[4];
    SrcLoc loc;
} Op;

/* The result of instantiating a trace. */
typedef struct {
    const Trace *trace;    /* not owned; must outlive the program */
    GHashTable *params;    /* resolved parameters: name -> gint64* (owned) */
    GPtrArray *param_names;/* sorted, char* (owned) */
    GPtrArray *unused_params; /* sorted names no compiled expression uses (owned) */
    int64_t block_threads; /* threads per block */
    int64_t warps;         /* warps per block */
    int64_t smem_bytes;    /* shared memory per block, user-declared */
    int64_t global_bytes;
    GArray *buffers;       /* ProgBuffer */
    GArray *pstates;       /* ProgPState */
    GArray *barriers;      /* ProgBarrier */
    GArray *pipes;         /* ProgPipe */
    GArray *vars;          /* ProgVar */
    int32_t value_slots;   /* int64 slots a warp needs for its variables */
    GArray *ops;           /* Op */
    GPtrArray *classes;    /* compute class names used, char* (owned) */
    GPtrArray *nodes;      /* every ExprNode (owned) */
    int64_t grid_blocks;   /* gridDim.x */
    bool uses_bulk;        /* memcpy_async_tx or barrier copies on >= 16 bytes */
} Program;

typedef struct {
    const char *name;
    int64_t value;
} ProgParamOverride;

/* Instantiates trace with the given parameter overrides (an array of
 * ProgParamOverride, may be NULL; a name the trace does not declare is an
 * error) for a grid of grid_blocks blocks, and compiles it.  Returns a new
 * Program or NULL with *error set (SIM_ERROR_INPUT). */
Program *program_new(const Trace *trace, const GArray *overrides, int64_t grid_blocks,
                     GError **error);
void program_free(Program *prog);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Program, program_free)

/* Resolves only the trace's parameters (defaults, ranges, overrides) and
 * gives the value of `name` in *out.  Returns false when the trace does not
 * declare it or the parameters do not resolve (program_new then says why). */
bool program_peek_param(const Trace *trace, const GArray *overrides, const char *name, int64_t *out);

/* The value of a resolved parameter, or fallback. */
int64_t program_param(const Program *prog, const char *name, int64_t fallback);

/* Writes a readable listing of the compiled operations (smpipe check -v). */
void program_dump(const Program *prog, GString *out);

const char *op_code_name(OpCode code);
