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

#include "sim/lang/trace_ast.h"

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
    GROUP_WARP,
    GROUP_TILE2,     /* tiled_partition<2>(block): lanes 2k and 2k+1 of a warp */
    GROUP_TILE4,     /* tiled_partition<4>(block) */
    GROUP_TILE8,     /* tiled_partition<8>(block) */
    GROUP_TILE16     /* tiled_partition<16>(block) */
} GroupKind;

/* The threads of group g when it lies within one warp: 1 for the thread,
 * N for tiled_partition<N>, 32 for the warp; 0 for the block and the grid.
 * Such a group's thread_rank is the lane modulo that size. */
static inline int64_t program_group_lanes(GroupKind g)
{
    switch (g) {
    case GROUP_THREAD: return 1;
    case GROUP_TILE2: return 2;
    case GROUP_TILE4: return 4;
    case GROUP_TILE8: return 8;
    case GROUP_TILE16: return 16;
    case GROUP_WARP: return 32;
    case GROUP_BLOCK:
    case GROUP_GRID:
        break;
    }
    return 0;
}

typedef struct {
    TypeKind kind;
    ElemType elem;     /* TY_PTR, TY_DATA, TY_SIZE (align only) */
    int32_t buffer;    /* TY_PTR: index into Program.buffers */
    int32_t group;     /* TY_GROUP: GroupKind */
} ValueType;

/* Operators of expression nodes (binary ones reuse parser tokens). */
typedef enum {
    EN_CONST,      /* value */
    EN_VAR,        /* var: the variable's first value slot (ProgVar.slot) */
    EN_TID,        /* block.thread_rank(); value 1, 2, 3: threadIdx.x, .y, .z */
    EN_LANE,       /* lane id */
    EN_WARP,       /* warp id within the block */
    EN_BLOCK_ID,   /* grid.block_rank(); value 1, 2, 3: blockIdx.x, .y, .z */
    EN_UNARY,      /* op a: '-', '!', '~' */
    EN_BINARY,     /* a op b */
    EN_TERNARY     /* a ? b : c */
} ExprNodeKind;

typedef struct ExprNode ExprNode;
typedef struct SimExprCode SimExprCode;
struct ExprNode {
    uint8_t kind;      /* ExprNodeKind */
    bool varying;      /* value may differ between lanes of a warp */
    int32_t op;        /* operator token; EN_TID, EN_BLOCK_ID with an axis: its stride */
    int32_t var;       /* EN_VAR: the variable's first value slot; EN_TID,
                        * EN_BLOCK_ID with an axis: its size */
    int64_t value;     /* EN_CONST; EN_TID, EN_BLOCK_ID: 0 the linear index,
                        * 1, 2, 3 its x, y or z component */
    ExprNode *a, *b, *c;
    SrcLoc loc;
    ValueType type;
    uint32_t cost;     /* nodes one evaluation visits (operands shared by a
                        * def's parameters count at each use), saturated */
    const SimExprCode *code; /* an operation's expression: its flat form
                        * (expr_eval.c, owned by Program.codes), or NULL:
                        * the evaluator then walks the tree */
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
    OP_ASSERT,         /* e[0] must hold; sub ASSERT_EXPECT: expect(ptr e[0], value e[1]) */
    OP_LOOP_ENTER,     /* opens the reconvergence frame of the loop ending at join */

    /* cuda::pipeline */
    OP_MAKE_PIPE_THREAD,  /* var = make_pipeline() */
    OP_MAKE_PIPE_BLOCK,   /* var = make_pipeline(group, &obj [, e[0]]); sub: PIPE_MODE_* */
    OP_PIPE_ACQUIRE,      /* e[0]: the pipeline */
    OP_PIPE_COMMIT,
    OP_PIPE_WAIT,
    OP_PIPE_WAIT_FOR,     /* var = ok; e[1] duration (sub 0) or time point (sub 1), cycles */
    OP_PIPE_RELEASE,
    OP_PIPE_QUIT,         /* var = released (may be -1); sub 1: the destructor
                           * at the end of the pipeline's block (quits the
                           * threads that have not quit, no result) */
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
                           * e[1] independent chains; obj = input data var or -1;
                           * sub COMPUTE_OPERANDS: compute(CLASS, n, obj [, in[0]
                           * [, in[1]]]) */
    OP_LOAD,              /* var = load(e[0]) */
    OP_STORE,             /* store(e[0], data var obj); sub STORE_VALUE: store(e[0],
                           * integer e[1]); STORE_FILL: fill(e[0], e[1], count
                           * e[2]) or memset (e[3] the byte count, else NULL) */

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

/* PipeMode, the forms of make_pipeline (an OP_MAKE_PIPE_BLOCK's sub), is
 * in sim/core/simtypes.h: the pipeline unit needs it too. */

typedef enum {
    SYNC_PIPE,
    SYNC_BARRIER,
    SYNC_NONE         /* cooperative_groups::memcpy_async */
} SyncKind;

/* OP_COMPUTE sub-operations. */
enum {
    COMPUTE_PLAIN = 0,    /* compute(x, n) or compute(CLASS, n [, ilp]) */
    COMPUTE_OPERANDS = 1  /* compute(CLASS, n, x [, y [, z]]) */
};

/* OP_STORE sub-operations. */
enum {
    STORE_DATA = 0,       /* store(p, x): a loaded value */
    STORE_VALUE = 1,      /* store(p, v), p[i] = v: an integer */
    STORE_FILL = 2        /* fill(p, v, n), memset(p, byte, bytes): n elements */
};

/* OP_ASSERT sub-operations. */
enum {
    ASSERT_COND = 0,      /* assert(cond) */
    ASSERT_EXPECT = 1     /* expect p[i] == v: checked on the functional model */
};

/* The bytes that storing integer v writes into an element of `size` bytes
 * (1, 2, 4, 8 or 16; out holds 16): elements of 1 and 2 bytes take v's low
 * bytes, wider ones take v's low 32 bits in each 32-bit word, as the
 * functional model treats every element as 32-bit words. */
static inline void program_element_bytes(int64_t v, int64_t size, uint8_t *out)
{
    for (int64_t i = 0; i < size && i < 16; i++) {
        out[i] = (uint8_t) ((uint64_t) v >> (8 * (size < 4 ? i : i % 4)));
    }
}

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
    int32_t in[2];     /* OP_COMPUTE: further input data vars, or -1 */
    bool untyped;      /* OP_MEMCPY: (void *) pointers, the void* overloads */
    ExprNode *e[4];
    SrcLoc loc;
} Op;

/* The value of an EN_TID or EN_BLOCK_ID node n where the linear index
 * (thread rank, block rank) is `linear`: CUDA's order, x fastest. */
static inline int64_t program_index_value(const ExprNode *n, int64_t linear)
{
    return n->value == 0 ? linear : (linear / n->op) % n->var;
}

/* Whether compute operation op reads variable var (var >= 0). */
static inline bool program_op_reads(const Op *op, int32_t var)
{
    return var >= 0 && (op->obj == var || op->in[0] == var || op->in[1] == var);
}

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
    GPtrArray *codes;      /* the SimExprCode of the operations' expressions (owned) */
    int64_t grid_blocks;   /* resident blocks: gridDim.x * gridDim.y * gridDim.z */
    int64_t block_dim[3];  /* blockDim.x, .y, .z (x * y * z == block_threads) */
    int64_t grid_dim[3];   /* gridDim.x, .y, .z: `grid`, else grid_blocks, 1, 1 */
    bool grid_declared;    /* the trace declares `grid` (its product may differ from
                            * grid_blocks: sim_run_prepare checks it) */
    SrcLoc grid_loc;       /* the `grid` declaration */
    bool uses_bulk;        /* memcpy_async_tx or barrier copies on >= 16 bytes */
    bool uses_expect;      /* expect statements: runs need the functional model */
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
