package derive

import (
	"strings"
	"testing"
)

func TestRustFixture(t *testing.T) {
	want := []string{
		`1-3 package lib::policy || Retry policies.\n\nBackoff is exponential.`,
		`10-11 const MAX_ATTEMPTS | pub const MAX_ATTEMPTS: usize = 5; | The most attempts a request gets.`,
		`13-13 var GREETING | static GREETING: &str = "}"; |`,
		`15-20 type Policy | pub struct Policy<'a, T: Clone> | A retry policy.`,
		`22-33 func backoff | pub(crate) fn backoff(attempt: u32, base: f64) -> f64 | Backoff in seconds.`,
		`36-39 method Policy.new | pub fn new(name: &'a str) -> Self | Makes a policy.`,
		`45-47 method Policy.fmt | fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result |`,
		`50-55 type Retry | pub trait Retry | Things that can be retried.`,
		`52-53 method Retry.try_once | fn try_once(&mut self) -> bool | Tries once.`,
		`54-54 method Retry.label | fn label(&self) -> &str |`,
		`57-57 type Mode | pub enum Mode |`,
		`59-59 type Result | pub type Result<T> = std::result::Result<T, io::Error>; |`,
		`61-65 macro policy | macro_rules! policy | Makes a policy quickly.`,
		`71-75 package tests | mod tests |`,
		`77-77 type Unit | pub struct Unit |`,
		`78-78 type Pair | pub struct Pair(u8, u8) |`,
		`80-80 func raw | pub const unsafe extern "C" fn raw(p: *const u8) -> u8 |`,
	}
	checkFixture(t, "policy.rs", want)
}

func TestRustCases(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"empty", "", nil},
		{"char literals and lifetimes", "fn f<'a>(x: &'a str) -> char { let c = '{'; let d = '\\''; 'x' }\nfn g() {}\n",
			[]string{`1-1 func f | fn f<'a>(x: &'a str) -> char |`, `2-2 func g | fn g() |`}},
		{"unicode char literal", "fn f() { let c = 'é'; let d = '\\u{1F600}'; }\nfn g() {}\n",
			[]string{`1-1 func f | fn f() |`, `2-2 func g | fn g() |`}},
		{"raw strings with hashes", "fn f() { let s = r##\"a \"# } \"##; }\nfn g() {}\n",
			[]string{`1-1 func f | fn f() |`, `2-2 func g | fn g() |`}},
		{"byte and C strings", "fn f() { let a = b\"}\"; let c = c\"}\"; let d = br#\"}\"#; }\nfn g() {}\n",
			[]string{`1-1 func f | fn f() |`, `2-2 func g | fn g() |`}},
		{"nested block comments", "/* outer /* inner } */ still } */\nfn f() {}\n", []string{`2-2 func f | fn f() |`}},
		{"block doc comment", "/**\n * Adds.\n */\npub fn add() {}\n", []string{`1-4 func add | pub fn add() | Adds.`}},
		{"//// is not a doc", "//// banner\nfn f() {}\n", []string{`2-2 func f | fn f() |`}},
		{"doc across attributes and plain comments", "/// Doc.\n// note\n#[inline]\n#[cfg(unix)]\nfn f() {}\n",
			[]string{`1-5 func f | fn f() | Doc.`}},
		{"where clause", "impl<T> From<T> for Wrapper<Vec<T>>\nwhere\n    T: Clone,\n{\n    fn from(t: T) -> Self { todo!() }\n}\n",
			[]string{`5-5 method Wrapper.from | fn from(t: T) -> Self |`}},
		{"impl for a reference", "impl<'a> Iterator for &'a mut Stream { fn next(&mut self) {} }\n",
			[]string{`1-1 method Stream.next | fn next(&mut self) |`}},
		{"const with a braced value", "const P: Point = Point { x: 1 };\nfn f() {}\n",
			[]string{`1-1 const P | const P: Point = Point { x: 1 }; |`, `2-2 func f | fn f() |`}},
		{"static mut and raw identifier", "static mut COUNT: u8 = 0;\nfn r#match() {}\n",
			[]string{`1-1 var COUNT | static mut COUNT: u8 = 0; |`, `2-2 func match | fn r#match() |`}},
		{"const _ names nothing", "const _: () = assert!(true);\nconst _: u8 = { 1 };\nfn f() {}\n", []string{`3-3 func f | fn f() |`}},
		{"mod declared elsewhere is not read", "mod net;\npub mod util;\n", nil},
		{"inline mod with an inner doc", "mod util {\n    //! Helpers.\n    fn hidden() {}\n}\n",
			[]string{`1-4 package util | mod util | Helpers.`, `3-3 func util::hidden | fn hidden() |`}},
		{"items of nested inline modules, not of a test module", "pub mod net {\n    pub mod tcp {\n        /// Dials.\n        pub fn dial() {}\n    }\n    pub struct Addr;\n}\n#[cfg(test)]\nmod checks {\n    fn t() {}\n}\n",
			[]string{`1-7 package net | pub mod net |`, `2-5 package net::tcp | pub mod tcp |`, `3-4 func net::tcp::dial | pub fn dial() | Dials.`, `6-6 type net::Addr | pub struct Addr |`, `8-11 package checks | mod checks |`}},
		{"extern block and macro calls are passed over", "extern \"C\" { fn abs(x: i32) -> i32; }\nthread_local!(static X: u8 = 1);\nfn f() {}\n",
			[]string{`3-3 func f | fn f() |`}},
		{"a macro call by its path, in an impl and at the top", "impl S {\n    serde::forward! {\n        bool i8\n    }\n    fn f(&self) {}\n}\nlog::setup! { x }\nfn g() {}\n",
			[]string{`5-5 method S.f | fn f(&self) |`, `8-8 func g | fn g() |`}},
		{"unclosed body", "fn f() {\n    let x = 1;\n", []string{`1-2 func f | fn f() |`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			secs, err := extractRust("m.rs", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			compareSections(t, secs, c.want)
		})
	}
}

func TestRustModuleName(t *testing.T) {
	for p, want := range map[string]string{
		"src/lib.rs":               "crate",
		"crates/net/src/main.rs":   "crate",
		"src/net/mod.rs":           "net",
		"src/net/tcp.rs":           "net::tcp",
		"build.rs":                 "build",
		"crates/a/src/reader/x.rs": "reader::x",
	} {
		if got := rustModuleName(p); got != want {
			t.Errorf("rustModuleName(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestRustLineEndings(t *testing.T) {
	checkLineEndings(t, "policy.rs", extractRust)
}

func FuzzRust(f *testing.F) {
	fuzzSeeds(f, "policy.rs", "r#\"", "r##\"\"#", "'", "'\\", "b'", "/* /* */", "impl<", "#![", "macro_rules!", "fn f(", "///")
	f.Fuzz(func(t *testing.T, src []byte) {
		secs, err := extractRust("f.rs", src)
		checkInvariants(t, src, secs, err)
	})
}

func BenchmarkRust(b *testing.B) { benchReader(b, "policy.rs", extractRust) }

func TestRustRealFiles(t *testing.T) {
	all := readReal(t, ".rs", extractRust)
	s, ok := all["vector.rs: Vector.lookup_by_key"]
	if !ok || s.Kind != KindMethod || !strings.HasPrefix(s.Signature, "pub fn lookup_by_key<K: Ord>(&self, key: K,") {
		t.Errorf("vector.rs: Vector.lookup_by_key = %+v", s)
	}
	if s, ok := all["vector.rs: VectorIter"]; !ok || s.Kind != KindType || s.Doc != "An iterator over a `Vector`." {
		t.Errorf("vector.rs: VectorIter = %+v", s)
	}
}
