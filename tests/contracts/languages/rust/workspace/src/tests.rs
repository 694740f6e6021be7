use crate::foo;

fn check() { foo::f() }
