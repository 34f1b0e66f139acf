mod args;
fn main() {}
