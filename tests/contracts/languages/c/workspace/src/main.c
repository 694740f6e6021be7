#include "x.h"
#include "api.h"
#include "shape.h"
#include <proj/config.h>
#include <stdio.h>

int main(void) {
    shape_t s = {2, 3};
    return add(1, 2) + api_version() + area(&s);
}
