mod foo;
mod bar;
pub mod a;
pub mod x;

pub fn top() -> u8 { helper() }

fn helper() -> u8 { 1 }
