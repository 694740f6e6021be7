use shapes::x::Type;

#[test]
fn builds() { Type::new(); }
