#include "api.h"

int api_version(void) { return 3; }
