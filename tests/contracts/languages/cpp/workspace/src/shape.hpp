namespace geo {
class Shape {
public:
    virtual double area() const { return 0; }
};
}
