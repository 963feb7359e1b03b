/* main.c - placeholder until the command-line front end lands. */
#include <stdio.h>
int main(void) { return 2; }
