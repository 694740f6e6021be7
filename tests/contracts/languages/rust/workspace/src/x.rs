use crate::a::b;
use crate::a::b::Trait;

pub struct Type { side: f64 }

impl Trait for Type {
    fn area(&self) -> f64 { self.side * self.side }
}

impl Type {
    pub fn new() -> Self { b::make(); Type { side: 1.0 } }
    pub fn double(&self) -> f64 { self.area() * 2.0 }
}
