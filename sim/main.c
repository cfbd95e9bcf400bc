#include "sim/program.h"
#include <stdio.h>
int main(int argc, char **argv)
{
    GError *err = NULL;
    Trace *t = trace_parse_file(argv[1], &err);
    if (!t) { fprintf(stderr, "%s\n", err->message); return 2; }
    Program *p = program_new(t, NULL, 1, &err);
    if (!p) { fprintf(stderr, "%s\n", err->message); return 2; }
    GString *s = g_string_new(NULL);
    program_dump(p, s);
    printf("%s", s->str);
    (void) argc;
    return 0;
}
