#include "shape.hpp"

namespace geo {
class Circle : public Shape {
public:
    double area() const override { return 3.14 * r * r; }
    void grow() { this->r += 1; }
    double perimeter() const;
    double r;
};
}
