#include <stdio.h>
int main(void) { puts("fusionplan: under construction"); return 0; }
