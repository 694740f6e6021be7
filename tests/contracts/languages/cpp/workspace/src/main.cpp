#include "circle.hpp"
#include <geo/units.hpp>

int main() {
    geo::Circle c;
    c.grow();
    return static_cast<int>(c.area());
}
