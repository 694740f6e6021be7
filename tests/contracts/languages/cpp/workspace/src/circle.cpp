#include "circle.hpp"

namespace geo {
double Circle::perimeter() const { return 2 * 3.14 * r; }
}
