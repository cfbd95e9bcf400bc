/* fuzz_common.h: what the libFuzzer harnesses share.  Each harness defines
 * LLVMFuzzerTestOneInput; under -Dfuzz=true it is linked with libFuzzer,
 * otherwise with replay.c, which feeds it the files of the seed corpus and
 * of the regression directory (the normal test suite runs them). */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "models/arch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property of the code under test does not hold: report and abort, which
 * libFuzzer records as a crash with the input that caused it. */
#define FUZZ_CHECK(cond, ...)                                                   \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "fuzz check failed at %s:%d: %s\n", __FILE__,       \
                    __LINE__, #cond);                                           \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
            abort();                                                            \
        }                                                                       \
    } while (0)

/* The bundled h100 architecture, loaded once (aborts if it cannot be). */
static inline const ArchParams *fuzz_h100(void)
{
    static ArchParams arch;
    static bool loaded;
    if (!loaded) {
        GError *err = NULL;
        g_autofree char *path = g_build_filename(SMPIPE_SRCDIR, "arch", "h100.ini", NULL);
        FUZZ_CHECK(arch_load(path, NULL, &arch, &err), "%s", err ? err->message : "?");
        loaded = true;
    }
    return &arch;
}

/* A user-facing error must be ours and carry a message. */
static inline void fuzz_check_error(const GError *err)
{
    FUZZ_CHECK(err != NULL, "failure without an error");
    FUZZ_CHECK(err->domain == SIM_ERROR, "foreign error domain: %s", err->message);
    FUZZ_CHECK(err->message != NULL && err->message[0] != '\0', "empty message");
    FUZZ_CHECK(g_utf8_validate(err->message, -1, NULL), "message is not UTF-8: %s", err->message);
}
