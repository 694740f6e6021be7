mod foo;
mod bar;
pub mod a;
pub mod x;
#[cfg(unix)]
mod sys;
#[cfg(test)]
mod tests;

pub fn top() -> u8 { helper() }

fn helper() -> u8 { 1 }
