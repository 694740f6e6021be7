pub fn page_size() -> usize { 4096 }
