/* dist.c - placeholder translation unit until the distribution module lands. */
#include "sax_comm.h"
