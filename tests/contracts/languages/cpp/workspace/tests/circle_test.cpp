#include "../src/circle.hpp"

int main() {
    geo::Circle c;
    c.grow();
    return c.perimeter() > 0 ? 0 : 1;
}
