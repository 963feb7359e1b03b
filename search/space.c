/* space.c - placeholder translation unit until the design-space module lands. */
#include "sax_search.h"
