/* config.c - placeholder translation unit until the configuration loader lands. */
#include "sax_io.h"
