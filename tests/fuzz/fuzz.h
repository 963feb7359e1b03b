/* fuzz.h - the libFuzzer entry point the harnesses define; replay.c calls it without libFuzzer. */
#ifndef SAX_FUZZ_H
#define SAX_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
