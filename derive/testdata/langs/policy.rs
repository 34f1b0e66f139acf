//! Retry policies.
//!
//! Backoff is exponential.

#![allow(dead_code)]

use std::fmt;
use std::{io, time::{Duration, Instant}};

/// The most attempts a request gets.
pub const MAX_ATTEMPTS: usize = 5;

static GREETING: &str = "}";

/// A retry policy.
#[derive(Debug, Clone)]
pub struct Policy<'a, T: Clone> {
    name: &'a str,
    items: Vec<Vec<T>>,
}

/// Backoff in seconds.
pub(crate) fn backoff(
    attempt: u32,
    base: f64,
) -> f64 {
    let c = '}';
    let s = r#"a "}" b"#;
    let b = b'{';
    let l: &'static str = "{";
    /* nested /* } */ comment */
    base * 2f64.powi(attempt as i32)
}

impl<'a, T: Clone> Policy<'a, T> {
    /// Makes a policy.
    pub fn new(name: &'a str) -> Self {
        Policy { name, items: Vec::new() }
    }

    const LIMIT: u8 = 3;
}

impl<T: Clone> fmt::Display for Policy<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)
    }
}

/// Things that can be retried.
pub trait Retry {
    /// Tries once.
    fn try_once(&mut self) -> bool;
    fn label(&self) -> &str { "retry" }
}

pub enum Mode { Fast, Slow(u8) }

pub type Result<T> = std::result::Result<T, io::Error>;

/// Makes a policy quickly.
#[macro_export]
macro_rules! policy {
    ($n:expr) => { Policy::new($n) };
}

lazy_static! {
    static ref HIDDEN: u8 = 1;
}

#[cfg(test)]
mod tests {
    #[test]
    fn works() {}
}

pub struct Unit;
pub struct Pair(u8, u8);

pub const unsafe extern "C" fn raw(p: *const u8) -> u8 { *p }
