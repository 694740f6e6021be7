#include "../src/x.h"

int main(void) { return add(1, 1) != 2; }
