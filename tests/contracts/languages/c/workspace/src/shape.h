typedef struct shape { int w; int h; } shape_t;

int area(const shape_t *s);
