package derive

import (
	"strings"
	"testing"
)

func TestTypeScriptFixture(t *testing.T) {
	want := []string{
		`1-4 package lib/policy || Retry helpers for the fetch client.\nEvery wait doubles.`,
		`9-10 const MAX_ATTEMPTS | export const MAX_ATTEMPTS = 5; | The most attempts a request gets.`,
		`12-21 func backoff | export function backoff<T extends { base: number }>(attempt: number, opts: T): { seconds: number } | Seconds between attempts,\ndoubled each time.`,
		`23-25 func sleepy | export const sleepy = async (ms: number): Promise<void> => |`,
		`27-27 const re | const re = /[}{]/g, half = 1 / 2; |`,
		`29-31 type Outcome | export type Outcome = |`,
		`33-35 type Policy | export interface Policy extends Base<{ x: 1 }> |`,
		`34-34 var Policy.limit | limit: number; |`,
		`37-37 type Mode | export const enum Mode |`,
		`39-67 class Retrier | export default abstract class Retrier<T> extends Base implements Policy | A policy that retries.\n@param limit how many times, see Policy`,
		`48-50 method Retrier.constructor | constructor(private limit: number) |`,
		`52-55 method Retrier.allow | allow(n: number): boolean | Whether another attempt is allowed.`,
		`57-58 method Retrier.name | get name(): string |`,
		`60-60 method Retrier.handle | handle = async (e: Event) => |`,
		`62-64 method Retrier.attempts | async *attempts(): AsyncGenerator<number> |`,
		`66-66 method Retrier.close | abstract close(): void |`,
		`69-70 func parse | declare function parse(s: string): number |`,
		`72-74 type Internal.Util | namespace Internal.Util |`,
		`73-73 const Internal.Util.x | export const x = 1; |`,
		`76-78 func last | function last() |`,
	}
	checkFixture(t, "policy.ts", want)
}

func TestJSXFixture(t *testing.T) {
	want := []string{
		`3-12 func Card | export function Card({ title, items }) | A card with a title.`,
		`14-14 func Other | export default function Other() |`,
	}
	checkFixture(t, "card.jsx", want)
}

func TestTypeScriptCases(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"empty", "", nil},
		// As fastify's types/reply.d.ts declares the reply.
		{"interface members and nested namespaces", "export interface FastifyReply {\n  /** The status code. */\n  statusCode: number;\n  send(payload?: unknown): FastifyReply;\n  readonly sent: boolean\n}\ndeclare namespace fastify {\n  namespace errors {\n    /** Makes an error. */\n    function createError(code: string): Error\n  }\n}\n",
			[]string{`1-6 type FastifyReply | export interface FastifyReply |`, `2-3 var FastifyReply.statusCode | statusCode: number; | The status code.`,
				`4-4 method FastifyReply.send | send(payload?: unknown): FastifyReply |`, `5-5 var FastifyReply.sent | readonly sent: boolean |`,
				`7-12 type fastify | declare namespace fastify |`, `8-11 type fastify.errors | namespace errors |`,
				`9-10 func fastify.errors.createError | function createError(code: string): Error | Makes an error.`}},
		{"shebang and imports only", "#!/usr/bin/env node\nimport a from 'a'\nexport { a }\n", nil},
		{"brace in a string", "function f() {\n  return '}'\n}\nfunction g() {}\n",
			[]string{`1-3 func f | function f() |`, `4-4 func g | function g() |`}},
		{"brace in a nested template", "function f() {\n  return `${`}${'}'}`}`\n}\nconst x = 1\n",
			[]string{`1-3 func f | function f() |`, `4-4 const x | const x = 1 |`}},
		{"regex with a brace, and division", "const r = /}/\nconst d = a / b / c\nfunction f() {}\n",
			[]string{`1-1 const r | const r = /}/ |`, `2-2 const d | const d = a / b / c |`, `3-3 func f | function f() |`}},
		{"statement without semicolons runs on with an operator", "const a = b\n  .c()\n  .d()\nlet e\n",
			[]string{`1-3 const a | const a = b |`, `4-4 var e | let e |`}},
		{"a blank line cuts the comment off", "// Not mine.\n\nfunction f() {}\n", []string{`3-3 func f | function f() |`}},
		{"a trailing comment is not a doc", "call() // note\nfunction f() {}\n", []string{`2-2 func f | function f() |`}},
		{"a directive is not a doc", "// @ts-ignore\nexport function f() {}\n", []string{`2-2 func f | export function f() |`}},
		{"require is an import", "const fs = require('fs')\nconst { a } = b\n", nil},
		{"function expression", "/** Adds. */\nexport const add = function (a, b) {\n  return a + b\n}\n",
			[]string{`1-4 func add | export const add = function (a, b) | Adds.`}},
		{"Allman braces", "function f()\n{\n  return 1\n}\n", []string{`1-4 func f | function f() |`}},
		{"object return type", "function f(): { a: number } {\n  return { a: 1 }\n}\n",
			[]string{`1-3 func f | function f(): { a: number } |`}},
		{"@module names the file", "/**\n * Tools.\n * @module tools/strings\n */\nexport const x = 1\n",
			[]string{`1-4 package tools/strings || Tools.`, `5-5 const x | export const x = 1 |`}},
		{"a plain comment at the top is not the file's doc", "/** Adds. */\nfunction add() {}\n",
			[]string{`1-2 func add | function add() | Adds.`}},
		{"CommonJS exports", "/** Adds. */\nexports.add = (a, b) => a + b\nmodule.exports.Box = class {}\nexports.n = 1\nmodule.exports = { add }\n",
			[]string{`1-2 func add | exports.add = (a, b) => | Adds.`, `3-3 class Box | module.exports.Box = class {} |`}},
		{"methods given to a prototype", "/** Sends it. */\nReply.prototype.send = function (payload) {\n  if (x) { return this }\n}\nReply.prototype.code = (c) => c\nReply.prototype.kind = 'reply'\n",
			[]string{`1-4 method Reply.send | Reply.prototype.send = function (payload) | Sends it.`, `5-5 method Reply.code | Reply.prototype.code = (c) => |`}},
		{"overloads are one section", "export function f(a: string): void\nexport function f(a: number): void\nexport function f(a: any) {\n}\n",
			[]string{`1-4 func f | export function f(a: string): void |`}},
		{"unterminated template", "function f() {\n  `${\n", []string{`1-2 func f | function f() |`}},
		{"class members", "class A {\n  static {\n    init()\n  }\n  #secret = 1\n  'quoted'() {}\n  [Symbol.iterator]() {}\n  get() { return 1 }\n}\n",
			[]string{`1-9 class A | class A |`, `6-6 method A.quoted | 'quoted'() |`, `7-7 method A.[Symbol.iterator] | [Symbol.iterator]() |`, `8-8 method A.get | get() |`}},
		{"fields holding functions are methods", "class A {\n  static make = function (x) {\n    return x\n  }\n  onClick = (e) => {}\n  label: (s: string) => string\n}\n",
			[]string{`1-7 class A | class A |`, `2-4 method A.make | static make = function (x) |`, `5-5 method A.onClick | onClick = (e) => |`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			compareSections(t, extractJS("m.ts", "typescript", []byte(c.src)), c.want)
		})
	}
}

func TestTypeScriptLineEndings(t *testing.T) {
	checkLineEndings(t, "policy.ts", extractTypeScript)
	checkLineEndings(t, "card.jsx", extractJavaScript)
}

func TestJavaScriptLang(t *testing.T) {
	secs, _ := extractJavaScript("a.mjs", []byte("export function f() {}\n"))
	if len(secs) != 1 || secs[0].Lang != "javascript" {
		t.Errorf("sections %+v, want one in javascript", secs)
	}
	for _, ext := range []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"} {
		want := "javascript"
		if strings.Contains(ext, "t") {
			want = "typescript"
		}
		if l, ok := languages[ext]; !ok || l.name != want {
			t.Errorf("%s is read as %q, want %q", ext, l.name, want)
		}
	}
}

func FuzzTypeScript(f *testing.F) {
	fuzzSeeds(f, "policy.ts", "`${", "`${`${'}'}`}`", "/[/]/", "a / b /", "class A { get", "@", "'\n'", "/**", "export default class extends")
	fuzzSeeds(f, "card.jsx")
	f.Fuzz(func(t *testing.T, src []byte) {
		secs, err := extractTypeScript("f.tsx", src)
		checkInvariants(t, src, secs, err)
	})
}

func BenchmarkTypeScript(b *testing.B) { benchReader(b, "policy.ts", extractTypeScript) }

func TestTypeScriptRealFiles(t *testing.T) {
	all := readReal(t, ".ts", extractTypeScript)
	s, ok := all["builder.ts: Builder.createString"]
	if !ok || s.Kind != KindMethod || !strings.HasPrefix(s.Doc, "Encode the string `s` in the buffer using UTF-8") {
		t.Errorf("builder.ts: Builder.createString = %+v", s)
	}
	if s, ok := all["builder.ts: Builder"]; !ok || s.Kind != KindClass || s.Signature != "export class Builder" {
		t.Errorf("builder.ts: Builder = %+v", s)
	}
}
