/* parser.h: tokens of the trace language (lexer.c), shared by the parser
 * (parser.c) and the program compiler (which maps operator tokens to
 * operations). */
#pragma once

#include "sim/lang/trace_ast.h"

enum {
    TK_EOF = 256,
    TK_NEWLINE,
    TK_INT,
    TK_IDENT,
    TK_EQ, TK_NE, TK_LE, TK_GE, TK_SHL, TK_SHR, TK_ANDAND, TK_OROR,
    TK_INC, TK_DEC, TK_ADDEQ, TK_SUBEQ, TK_MULEQ, TK_DIVEQ, TK_MODEQ,
    TK_SHLEQ, TK_SHREQ, TK_ANDEQ, TK_OREQ, TK_XOREQ, TK_DOTDOT, TK_ARROW
};

/* A token of the lexer (lexer.c). */
typedef struct {
    int kind;      /* TK_* or a single punctuation character */
    SrcLoc loc;
    int64_t value; /* TK_INT */
    char *text;    /* TK_IDENT (owned by the token array) */
} Token;

/* Splits the whole text into tokens (appended to toks: Token); newlines are
 * tokens, comments vanish, a backslash before the newline joins two lines.
 * The last two tokens are a newline and TK_EOF.  False, *error set, on a
 * byte or number the language does not have. */
bool parser_lex(Trace *t, const char *text, gsize len, GArray *toks, GError **error);
/* Frees a token array and the tokens' texts. */
void parser_tokens_free(GArray *toks);

/* A printable name for a token kind ("'+'", "end of line"); static string. */
const char *parser_token_name(int kind);

/* The name without a leading cuda::, cuda::device::, cuda::std::,
 * cooperative_groups:: or cg:: qualifier; points into name. */
const char *parser_strip_ns(const char *name);

/* The name of the call a cast `(void *) p` or `(const void *) p` parses
 * into: one argument, p; only memcpy_async's pointers take it. */
#define PARSER_VOID_CAST "(void *)"
