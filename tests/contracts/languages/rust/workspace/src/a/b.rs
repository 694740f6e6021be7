pub trait Trait { fn area(&self) -> f64; }

pub fn make() {}
