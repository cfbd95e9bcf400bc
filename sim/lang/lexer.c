/* lexer.c: the trace language's lexer (see parser.h): the text into tokens,
 * and the tokens' printable names. */
#include "sim/lang/parser.h"

#include <string.h>

static const struct {
    const char *s;
    int kind;
} multi_ops[] = {
    { "<<=", TK_SHLEQ }, { ">>=", TK_SHREQ }, { "...", TK_DOTDOT },
    { "==", TK_EQ },     { "!=", TK_NE },     { "<=", TK_LE },    { ">=", TK_GE },
    { "<<", TK_SHL },    { ">>", TK_SHR },    { "&&", TK_ANDAND }, { "||", TK_OROR },
    { "++", TK_INC },    { "--", TK_DEC },    { "+=", TK_ADDEQ }, { "-=", TK_SUBEQ },
    { "*=", TK_MULEQ },  { "/=", TK_DIVEQ },  { "%=", TK_MODEQ }, { "&=", TK_ANDEQ },
    { "|=", TK_OREQ },   { "^=", TK_XOREQ },  { "..", TK_DOTDOT }, { "->", TK_ARROW },
};

const char *parser_token_name(int kind)
{
    static const char *punct = "()[]<>+-*/%&|^~!?:=,.;";
    static const char *names[] = { "'('", "')'", "'['", "']'", "'<'", "'>'", "'+'", "'-'",
                                   "'*'", "'/'", "'%'", "'&'", "'|'", "'^'", "'~'", "'!'",
                                   "'?'", "':'", "'='", "','", "'.'", "';'" };
    switch (kind) {
    case TK_EOF: return "end of file";
    case TK_NEWLINE: return "end of line";
    case TK_INT: return "number";
    case TK_IDENT: return "name";
    default: break;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(multi_ops); i++) {
        if (multi_ops[i].kind == kind) {
            return multi_ops[i].s;
        }
    }
    const char *at = kind > 0 && kind < 128 ? strchr(punct, kind) : NULL;
    return at != NULL ? names[at - punct] : "a symbol";
}

void parser_tokens_free(GArray *toks)
{
    for (guint i = 0; i < toks->len; i++) {
        g_free(g_array_index(toks, Token, i).text);
    }
    g_array_free(toks, TRUE);
}

static bool is_ident_start(char c)
{
    return g_ascii_isalpha(c) || c == '_';
}

static bool is_ident_char(char c)
{
    return g_ascii_isalnum(c) || c == '_';
}

/* Splits the whole text into tokens; newlines are tokens, comments vanish,
 * a backslash before the newline joins two lines. */
bool parser_lex(Trace *t, const char *text, gsize len, GArray *toks, GError **error)
{
    uint32_t line = 1;
    gsize line_start = 0;
    gsize i = 0;
    while (i < len) {
        char c = text[i];
        SrcLoc loc = { line, (uint32_t) (i - line_start + 1) };
        if (c == '\n') {
            Token tk = { TK_NEWLINE, loc, 0, NULL };
            g_array_append_val(toks, tk);
            i++;
            line++;
            line_start = i;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == ';' || c == '{' || c == '}') {
            /* ';' is an optional statement terminator except inside the
             * header of a C-style for, which the parser sees as ';' below. */
            if (c == ';') {
                Token tk = { ';', loc, 0, NULL };
                g_array_append_val(toks, tk);
            } else if (c == '{' || c == '}') {
                trace_set_error(error, SIM_ERROR_INPUT, t, loc,
                                "braces are not used: blocks end with 'end'");
                return false;
            }
            i++;
            continue;
        }
        if (c == '\\' && i + 1 < len && (text[i + 1] == '\n' ||
                                         (text[i + 1] == '\r' && i + 2 < len && text[i + 2] == '\n'))) {
            i += text[i + 1] == '\r' ? 3 : 2;
            line++;
            line_start = i;
            continue;
        }
        if (c == '#' || (c == '/' && i + 1 < len && text[i + 1] == '/')) {
            while (i < len && text[i] != '\n') {
                i++;
            }
            continue;
        }
        if (c == '/' && i + 1 < len && text[i + 1] == '*') {
            i += 2;
            while (i + 1 < len && !(text[i] == '*' && text[i + 1] == '/')) {
                if (text[i] == '\n') {
                    line++;
                    line_start = i + 1;
                }
                i++;
            }
            if (i + 1 >= len) {
                trace_set_error(error, SIM_ERROR_INPUT, t, loc, "unterminated /* comment");
                return false;
            }
            i += 2;
            continue;
        }
        if (g_ascii_isdigit(c)) {
            gsize j = i;
            int base = 10;
            if (c == '0' && j + 1 < len && (text[j + 1] == 'x' || text[j + 1] == 'X')) {
                base = 16;
                j += 2;
            } else if (c == '0' && j + 1 < len && (text[j + 1] == 'b' || text[j + 1] == 'B')) {
                base = 2;
                j += 2;
            }
            uint64_t v = 0;
            bool any = false;
            for (; j < len; j++) {
                char d = text[j];
                int dv;
                if (d == '_' || d == '\'') {
                    continue;
                }
                if (g_ascii_isdigit(d)) {
                    dv = d - '0';
                } else if (base == 16 && g_ascii_isxdigit(d)) {
                    dv = g_ascii_xdigit_value(d);
                } else {
                    break;
                }
                if (dv >= base) {
                    break;
                }
                any = true;
                if (v > (UINT64_MAX - (uint64_t) dv) / (uint64_t) base) {
                    trace_set_error(error, SIM_ERROR_INPUT, t, loc,
                                    "number too large (the limit is %" G_GINT64_FORMAT ")",
                                    (gint64) INT64_MAX);
                    return false;
                }
                v = v * (uint64_t) base + (uint64_t) dv;
            }
            if (!any) {
                trace_set_error(error, SIM_ERROR_INPUT, t, loc, "malformed number");
                return false;
            }
            /* C integer suffixes are accepted and ignored. */
            while (j < len && (text[j] == 'u' || text[j] == 'U' || text[j] == 'l' ||
                               text[j] == 'L' || text[j] == 'z' || text[j] == 'Z')) {
                j++;
            }
            if (j < len && is_ident_char(text[j])) {
                SrcLoc bad = { line, (uint32_t) (j - line_start + 1) };
                trace_set_error(error, SIM_ERROR_INPUT, t, bad,
                                "unexpected character '%c' in a number", text[j]);
                return false;
            }
            if (v > (uint64_t) INT64_MAX) {
                trace_set_error(error, SIM_ERROR_INPUT, t, loc,
                                "number too large (the limit is %" G_GINT64_FORMAT ")",
                                (gint64) INT64_MAX);
                return false;
            }
            Token tk = { TK_INT, loc, (int64_t) v, NULL };
            g_array_append_val(toks, tk);
            i = j;
            continue;
        }
        if (is_ident_start(c)) {
            gsize j = i;
            /* A name may be qualified: cuda::pipeline_role::producer. */
            for (;;) {
                while (j < len && is_ident_char(text[j])) {
                    j++;
                }
                if (j + 2 < len && text[j] == ':' && text[j + 1] == ':' && is_ident_start(text[j + 2])) {
                    j += 2;
                    continue;
                }
                break;
            }
            if (j - i > 200) {
                trace_set_error(error, SIM_ERROR_INPUT, t, loc, "name longer than 200 characters");
                return false;
            }
            Token tk = { TK_IDENT, loc, 0, g_strndup(text + i, j - i) };
            g_array_append_val(toks, tk);
            i = j;
            continue;
        }
        bool matched = false;
        for (size_t k = 0; k < G_N_ELEMENTS(multi_ops); k++) {
            size_t n = strlen(multi_ops[k].s);
            if (i + n <= len && memcmp(text + i, multi_ops[k].s, n) == 0) {
                Token tk = { multi_ops[k].kind, loc, 0, NULL };
                g_array_append_val(toks, tk);
                i += n;
                matched = true;
                break;
            }
        }
        if (matched) {
            continue;
        }
        if (strchr("()[]<>+-*/%&|^~!?:=,.", c) != NULL && c != '\0') {
            Token tk = { (unsigned char) c, loc, 0, NULL };
            g_array_append_val(toks, tk);
            i++;
            continue;
        }
        if ((unsigned char) c >= 0x20 && (unsigned char) c < 0x7f) {
            trace_set_error(error, SIM_ERROR_INPUT, t, loc, "unexpected character '%c'", c);
        } else {
            trace_set_error(error, SIM_ERROR_INPUT, t, loc,
                            "unexpected byte 0x%02x (traces are ASCII text)", (unsigned char) c);
        }
        return false;
    }
    SrcLoc end = { line, (uint32_t) (i - line_start + 1) };
    Token nl = { TK_NEWLINE, end, 0, NULL };
    Token eof = { TK_EOF, end, 0, NULL };
    g_array_append_val(toks, nl);
    g_array_append_val(toks, eof);
    return true;
}
